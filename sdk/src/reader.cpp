// l3::Reader: opening (spec §4–§7.2, §10.2 on-open checks), lazy per-chunk
// preparation (§5 checksums, §9 zstd, §7.3/§8.2 metadata), decoding and
// validation (§10.3).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/delta/delta_layout.hpp"
#include "codec/dictionary/dictionary_decode.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/ibp/float_order.hpp"
#include "codec/ibp/ibp_decode.hpp"
#include "codec/ibp/ibp_format.hpp"
#include "codec/planes/field_planes.hpp"
#include "common/bits.hpp"
#include "common/byte_buffer.hpp"
#include "common/crc32c.hpp"
#include "common/file_source.hpp"
#include "common/parallel.hpp"
#include "common/status_macros.hpp"
#include "common/zstd_codec.hpp"
#include "format/footer_parse.hpp"
#include "format/framing.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"
#include "pgm/pgm.hpp"

namespace l3 {

double PartitionInfo::param_as_double(int i) const {
  if (i < 0 || i >= static_cast<int>(params.size())) return std::numeric_limits<double>::quiet_NaN();
  double d;
  std::memcpy(&d, &params[static_cast<size_t>(i)], sizeof(d));
  return d;
}

namespace {

using internal::FileSource;

Status OutOfMemory() { return Status(StatusCode::kOutOfMemory, "allocation failed"); }

std::string ChunkName(int column, int chunk) {
  return "column " + std::to_string(column) + " chunk " + std::to_string(chunk);
}

// A chunk's decoded segments: copies of its zstd segments (spec §9; empty
// for stored ones, whose view points into the file) and the view over them.
// Shared by the cache and every call using the chunk, so that eviction never
// frees segments a decode is reading.
struct LoadedChunk {
  ChunkView view;
  // Segments as decompressed or rebuilt: written whole when sized.
  internal::ByteBuffer partition_table, parameters, payload, bounds;
  // spec §8.10: a dictionary chunk's entries, decoded and checked once.
  std::vector<uint8_t> dictionary;
  // spec §11.2.3: an IbpFloat chunk's masks, row index and mask ids.
  internal::ByteBuffer ibp_masks, ibp_row_offsets, ibp_mask_ids;
  // spec §8.9: a DELTA partition, whose single values cost up to a tile's
  // scan, is in the chunk (Take decodes its rows in wider windows).
  bool has_delta_partitions = false;

  uint64_t HeldBytes() const {
    return partition_table.capacity() + parameters.capacity() + payload.capacity() +
           bounds.capacity() + dictionary.capacity() + ibp_masks.capacity() +
           ibp_row_offsets.capacity() + ibp_mask_ids.capacity();
  }
};

// The outcome of a chunk's checks when they failed: a property of the file,
// kept so that a bad chunk is reported without loading it again.
struct ChunkSlot {
  std::mutex mu;  // one load of a chunk at a time
  std::atomic<bool> failed{false};
  Status status;  // written before `failed` is set
};

// Loaded chunks, least recently used first out, holding at most
// ReadOptions::max_cached_bytes of decoded segments, or one chunk larger than
// that: the most recently loaded chunk is kept alone, so that reading it in
// pieces (l3 decompress reads 2^20 rows per call; a chunk may hold 2^26)
// decompresses it once. A budget of 0 keeps nothing.
class ChunkCache {
 public:
  void Init(size_t num_chunks, uint64_t budget) {
    entries_.resize(num_chunks);
    budget_ = budget;
  }

  std::shared_ptr<const LoadedChunk> Get(size_t key) {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = entries_[key];
    if (e.chunk) order_.splice(order_.end(), order_, e.position);  // now most recent
    return e.chunk;
  }

  void Put(size_t key, std::shared_ptr<const LoadedChunk> chunk) {
    if (budget_ == 0) return;
    const uint64_t bytes = chunk->HeldBytes();
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = entries_[key];
    if (e.chunk) return;
    while (held_ + bytes > budget_ && !order_.empty()) {
      Entry& victim = entries_[order_.front()];
      held_ -= victim.bytes;
      victim.chunk.reset();
      order_.pop_front();
    }
    e.chunk = std::move(chunk);
    e.bytes = bytes;
    e.position = order_.insert(order_.end(), key);
    held_ += bytes;
  }

  uint64_t HeldBytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

 private:
  struct Entry {
    std::shared_ptr<const LoadedChunk> chunk;
    uint64_t bytes = 0;
    std::list<size_t>::iterator position;
  };
  std::mutex mu_;
  std::vector<Entry> entries_;
  std::list<size_t> order_;  // cached keys, least recently used first
  uint64_t budget_ = 0;
  uint64_t held_ = 0;
};

using ChunkRef = std::shared_ptr<const LoadedChunk>;

// A valid address for a zero-length segment, which has no bytes in the file.
const uint8_t kEmptySegment[8] = {};

}  // namespace

struct Reader::Impl {
  ReadOptions options;
  std::unique_ptr<FileSource> source;
  internal::Postscript ps;
  FileInfo info;
  std::vector<ColumnInfo> columns;
  std::vector<std::vector<std::string>> unsupported;
  std::vector<std::pair<uint64_t, uint64_t>> segment_extents;
  std::vector<internal::ParsedFooter::OpaqueSegment> opaque_segments;
  std::unique_ptr<uint64_t[]> footer_copy;  // when the footer is not 8-aligned in memory
  std::vector<std::vector<std::unique_ptr<ChunkSlot>>> slots;
  std::vector<size_t> first_chunk_key;  // per column: the cache key of its chunk 0
  mutable ChunkCache cache;

  static Result<std::unique_ptr<Impl>> Open(std::unique_ptr<FileSource> source,
                                            const ReadOptions& options);

  Status CheckColumn(int column) const {
    if (column < 0 || column >= static_cast<int>(columns.size())) {
      return Status(StatusCode::kOutOfRange, "column " + std::to_string(column) +
                                                 " does not exist (the file has " +
                                                 std::to_string(columns.size()) + ")");
    }
    return Status::OK();
  }
  Status CheckChunk(int column, int chunk) const {
    L3_RETURN_NOT_OK(CheckColumn(column));
    if (chunk < 0 || chunk >= static_cast<int>(columns[column].chunks.size())) {
      return Status(StatusCode::kOutOfRange, ChunkName(column, chunk) + " does not exist");
    }
    return Status::OK();
  }

  /// The chunk holding `row` of a column (row < num_rows).
  int FindChunk(int column, uint64_t row) const {
    const std::vector<ChunkInfo>& chunks = columns[column].chunks;
    auto it = std::upper_bound(chunks.begin(), chunks.end(), row,
                               [](uint64_t r, const ChunkInfo& c) { return r < c.first_row; });
    return static_cast<int>(it - chunks.begin()) - 1;
  }

  Status VerifySegmentChecksum(const SegmentInfo& seg, const std::string& where) const {
    const uint32_t actual =
        internal::Crc32c(0, source->data() + seg.offset, static_cast<size_t>(seg.stored_bytes));
    if (actual != seg.checksum) {
      return Status(StatusCode::kChecksumMismatch,
                    where + ": checksum does not match the stored bytes");
    }
    return Status::OK();
  }

  // Undoes the segment's compression (spec §9) after checking decoded_length
  // against the length the chunk requires.
  Result<const uint8_t*> Materialize(const SegmentInfo& seg, uint64_t expected,
                                     const std::string& where,
                                     internal::ByteBuffer* storage) const {
    if (seg.decoded_bytes != expected) {
      return Status(StatusCode::kCorruptMetadata,
                    where + ": decoded_length " + std::to_string(seg.decoded_bytes) +
                        " != required " + std::to_string(expected));
    }
    if (seg.compression == Compression::kNone) {
      return seg.stored_bytes == 0 ? kEmptySegment : source->data() + seg.offset;
    }
    // decoded_length is bounded by max_segment_bytes and max_zstd_expansion
    // (checked on open), so this allocation is bounded too.
    storage->resize(static_cast<size_t>(seg.decoded_bytes));
    L3_RETURN_NOT_OK(internal::ZstdDecompressExact(source->data() + seg.offset,
                                                   static_cast<size_t>(seg.stored_bytes),
                                                   storage->data(), storage->size()));
    return storage->empty() ? kEmptySegment : storage->data();
  }

  // spec §9.2, §9.3: a payload stored as zstd over its field-plane or
  // field-byte form. The partition table and parameters are validated first
  // (the field order depends on them), then the form's length they imply is
  // checked against the limits before anything is decompressed.
  Result<const uint8_t*> MaterializeFieldForm(const SegmentInfo& seg, const ChunkView& meta,
                                              const std::string& where,
                                              internal::ByteBuffer* storage,
                                              int threads) const {
    const internal::FieldForm form = seg.compression == Compression::kZstdFieldPlanes
                                         ? internal::FieldForm::kPlanes
                                         : internal::FieldForm::kFieldBytes;
    const char* form_name = form == internal::FieldForm::kPlanes ? "field-plane" : "field-byte";
    const uint64_t payload_bytes = meta.payload_bytes;
    if (seg.decoded_bytes != payload_bytes) {
      return Status(StatusCode::kCorruptMetadata,
                    where + " payload (8 * Payload_Offset[P] + 32): decoded_length " +
                        std::to_string(seg.decoded_bytes) + " != required " +
                        std::to_string(payload_bytes));
    }
    Status st = internal::ValidateChunkMetadata(meta);
    if (!st.ok()) return Status(st.code(), where + ": " + st.message());
    const uint64_t plane_bytes = internal::FieldFormBytes(meta);
    const uint64_t cap = seg.stored_bytes > UINT64_MAX / options.max_zstd_expansion
                             ? UINT64_MAX
                             : seg.stored_bytes * options.max_zstd_expansion;
    if (plane_bytes > cap || plane_bytes > options.max_segment_bytes) {
      return Status(StatusCode::kResourceLimit,
                    where + " payload: " + form_name + " form of " + std::to_string(plane_bytes) +
                        " bytes exceeds max_segment_bytes or max_zstd_expansion times "
                        "stored_length " + std::to_string(seg.stored_bytes));
    }
    internal::ByteBuffer planes(static_cast<size_t>(plane_bytes));  // all written by zstd
    L3_RETURN_NOT_OK(internal::ZstdDecompressExact(source->data() + seg.offset,
                                                   static_cast<size_t>(seg.stored_bytes),
                                                   planes.data(), planes.size()));
    storage->resize(static_cast<size_t>(payload_bytes));
    if (!internal::PayloadFromFieldForm(meta, form, planes.data(), storage->data(), threads)) {
      return Status(StatusCode::kCorruptPayload,
                    where + " payload: a field's top byte in the " + form_name +
                        " form has bits above its width");
    }
    return storage->data();
  }

  /// Materializes and checks chunk `chunk` of `column` into `loaded` (spec
  /// §10.2). Without the payload (`with_payload` false) only the partition
  /// table, parameters and bounds are decompressed and checked: enough for
  /// metadata (Partitions), and no payload bytes are held. `threads` (at
  /// least 1) may share the work of a load; the chunk does not depend on it.
  Status LoadChunk(int column, int chunk, LoadedChunk* loaded, bool with_payload = true,
                   int threads = 1) const;
  /// LoadChunk of an IbpFloat chunk (spec §11.2.4).
  Status LoadIbpChunk(int column, int chunk, LoadedChunk* loaded, bool with_payload) const;

  ChunkSlot* Slot(int column, int chunk) const { return slots[column][chunk].get(); }
  size_t CacheKey(int column, int chunk) const {
    return first_chunk_key[column] + static_cast<size_t>(chunk);
  }

  /// A chunk for one use, not added to the cache: the cached chunk when there
  /// is one, otherwise a fresh load, so that walking every chunk of a file
  /// (validation, metadata) holds one chunk's decoded segments at a time.
  Result<ChunkRef> Borrow(int column, int chunk, bool with_payload = true) const {
    ChunkSlot* slot = Slot(column, chunk);
    if (slot->failed.load(std::memory_order_acquire)) return slot->status;
    if (ChunkRef hit = cache.Get(CacheKey(column, chunk))) return hit;
    auto loaded = std::make_shared<LoadedChunk>();
    Status st = LoadChunk(column, chunk, loaded.get(), with_payload);
    if (!st.ok()) return st;
    return ChunkRef(std::move(loaded));
  }

  /// The validated chunk, loaded on first use (spec §10.2) and kept in the
  /// cache while the budget allows. The reference keeps its segments alive
  /// however long the caller holds it. A load may use `threads` threads.
  Result<ChunkRef> Prepare(int column, int chunk, int threads = 1) const {
    ChunkSlot* slot = Slot(column, chunk);
    if (slot->failed.load(std::memory_order_acquire)) return slot->status;
    const size_t key = CacheKey(column, chunk);
    if (ChunkRef hit = cache.Get(key)) return hit;
    std::lock_guard<std::mutex> lock(slot->mu);
    if (slot->failed.load(std::memory_order_relaxed)) return slot->status;
    if (ChunkRef hit = cache.Get(key)) return hit;  // loaded meanwhile by another thread
    auto loaded = std::make_shared<LoadedChunk>();
    Status st = LoadChunk(column, chunk, loaded.get(), true, threads);
    if (!st.ok()) {
      // Out of memory may pass; every other outcome is a property of the file.
      if (st.code() != StatusCode::kOutOfMemory) {
        slot->status = st;
        slot->failed.store(true, std::memory_order_release);
      }
      return st;
    }
    ChunkRef ref(std::move(loaded));
    cache.Put(key, ref);
    return ref;
  }

  /// Chunks one parallel ReadRows call holds for its whole length: those its
  /// cut points lie in, which two slices share. Without them a chunk the
  /// cache does not keep (larger than the budget) would be decompressed by
  /// every slice that touches it.
  using CallPins = std::vector<std::pair<int, ChunkRef>>;

  static ChunkRef Pinned(const CallPins* pins, int chunk) {
    if (pins != nullptr) {
      for (const auto& pin : *pins) {
        if (pin.first == chunk) return pin.second;
      }
    }
    return nullptr;
  }

  static void Pin(CallPins* pins, int chunk, const ChunkRef& ref) {
    if (!Pinned(pins, chunk)) pins->emplace_back(chunk, ref);
  }

  Result<ChunkRef> PreparePinned(int column, int chunk, const CallPins* pins,
                                 int threads = 1) const {
    if (ChunkRef pinned = Pinned(pins, chunk)) return pinned;
    return Prepare(column, chunk, threads);
  }

  /// Decodes chunk rows [begin, end) of any chunk: an integer chunk, a float
  /// chunk in the integer form (its elements, then the map of spec §11.2.2)
  /// or an IBP chunk (§11.2.3). `dst` receives whole rows.
  static Status DecodeChunkRowsAny(const ChunkView& view, uint64_t begin, uint64_t end,
                                   uint8_t* dst) {
    if (view.encoding == 2) return internal::DecodeIbpRows(view, begin, end, dst);
    if (view.column_type == view.type) return internal::DecodeChunkRows(view, begin, end, dst);
    const uint64_t width = view.row_width;
    L3_RETURN_NOT_OK(internal::DecodeChunkRows(view, begin * width, end * width, dst));
    internal::FloatFromOrderedInPlace(dst, (end - begin) * width, PhysicalTypeBytes(view.type));
    return Status::OK();
  }

  /// Decodes rows [row_begin, row_end) of `column` into `dst` on the calling
  /// thread, chunk by chunk (the pinned chunks of a parallel call first).
  Status DecodeRows(int column, uint64_t row_begin, uint64_t row_end, uint8_t* dst,
                    uint64_t value_bytes, const CallPins* pins = nullptr) const {
    int chunk = FindChunk(column, row_begin);
    uint64_t row = row_begin;
    while (row < row_end) {
      L3_ASSIGN_OR_RETURN(const ChunkRef loaded, PreparePinned(column, chunk, pins));
      const ChunkInfo& ci = columns[column].chunks[chunk];
      const uint64_t begin = row - ci.first_row;
      const uint64_t end = std::min(row_end - ci.first_row, ci.num_rows);
      L3_RETURN_NOT_OK(
          DecodeChunkRowsAny(loaded->view, begin, end, dst + (row - row_begin) * value_bytes));
      row = ci.first_row + end;
      ++chunk;
    }
    return Status::OK();
  }

  /// The row nearest below `row` where a slice of a parallel read may start:
  /// a partition start, or a whole number of SLAP tiles after one (spec
  /// §8.5), so that both slices decode whole tiles. A chunk loaded here may
  /// use the call's `threads`: the slices wait for it.
  Result<uint64_t> SliceStart(int column, uint64_t row, CallPins* pins, int threads) const {
    const int chunk = FindChunk(column, row);
    L3_ASSIGN_OR_RETURN(const ChunkRef loaded, PreparePinned(column, chunk, pins, threads));
    Pin(pins, chunk, loaded);
    const ChunkView* view = &loaded->view;
    // Partitions cover elements: for a dictionary chunk (spec §8.10), row
    // `local` is element D + local.
    const uint64_t d = view->dictionary_entries;
    const uint64_t element = row - view->first_row + d;
    const internal::Partition part =
        internal::LoadPartition(*view, internal::FindPartition(*view, element));
    const uint64_t tile_rows = uint64_t{internal::kLanes} * view->values_per_lane;
    const uint64_t start = part.first_row + (element - part.first_row) / tile_rows * tile_rows;
    return view->first_row + (start > d ? start - d : 0);
  }

  /// The chunks the cut targets (in row order) of a parallel read over
  /// `threads` threads fall in, loaded at once when there are several (each
  /// with an equal share of the threads) and pinned. Loading them one after
  /// another at the cuts would decompress their zstd frames (the archive
  /// profile) one at a time. A chunk that fails to load is not pinned: the
  /// cut that needs it loads it again and meets the same error.
  void PinChunksOfCuts(int column, const std::vector<uint64_t>& targets, uint64_t threads,
                       CallPins* pins) const {
    std::vector<int> chunks;
    for (const uint64_t target : targets) {
      const int chunk = FindChunk(column, target);
      if (chunks.empty() || chunks.back() != chunk) chunks.push_back(chunk);
    }
    if (chunks.size() < 2) return;
    const int share = static_cast<int>(std::max<uint64_t>(1, threads / chunks.size()));
    std::vector<ChunkRef> loaded(chunks.size());
    internal::RunSlices(chunks.size(), [&](size_t i) {
      try {
        Result<ChunkRef> ref = Prepare(column, chunks[i], share);
        if (ref.ok()) loaded[i] = std::move(*ref);
      } catch (const std::bad_alloc&) {
        // Left to the cut, which reports it.
      }
    });
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (loaded[i]) Pin(pins, chunks[i], loaded[i]);
    }
  }

  /// ReadRows with options.num_threads: the range is cut into slices at
  /// SliceStart() rows, each decoded by its own thread straight into its part
  /// of `dst`. Slices and their order do not change the values written. The
  /// first failing slice's status is returned: the error a single-threaded
  /// read returns.
  Status DecodeRowsParallel(int column, uint64_t row_begin, uint64_t row_end, uint8_t* dst,
                            uint64_t value_bytes) const {
    // A slice holds at least 2^16 values: a row of a tensor column is
    // row_width of them (spec §11.2.1).
    constexpr uint64_t kMinValuesPerThread = uint64_t{1} << 16;
    const bool is_float = PhysicalTypeIsFloat(columns[column].type);
    const uint64_t row_width = std::max<uint64_t>(columns[column].row_width, 1);
    const uint64_t min_rows = (kMinValuesPerThread + row_width - 1) / row_width;
    uint64_t threads = options.num_threads == 0 ? std::thread::hardware_concurrency()
                                                : static_cast<uint64_t>(options.num_threads);
    threads = std::min(threads, (row_end - row_begin) / min_rows);
    if (threads <= 1) return DecodeRows(column, row_begin, row_end, dst, value_bytes);
    std::vector<uint64_t> targets;
    for (uint64_t i = 1; i < threads; ++i) {
      targets.push_back(row_begin + (row_end - row_begin) / threads * i);
    }
    std::vector<uint64_t> cuts{row_begin};
    CallPins pins;
    PinChunksOfCuts(column, targets, threads, &pins);
    for (const uint64_t target : targets) {
      // A chunk that fails to load is not cut; its slice reports the error
      // in row order, as a single-threaded read would.
      Result<uint64_t> cut = target;
      if (is_float) {
        // Rows of a float chunk decode independently (an IBP row through
        // its row index, an integer-form row as a range of elements), so
        // any row may start a slice; the chunk is pinned for the call.
        const int chunk = FindChunk(column, target);
        const Result<ChunkRef> loaded =
            PreparePinned(column, chunk, &pins, static_cast<int>(threads));
        if (!loaded.ok()) {
          cut = loaded.status();
        } else {
          Pin(&pins, chunk, *loaded);
        }
      } else {
        cut = SliceStart(column, target, &pins, static_cast<int>(threads));
      }
      if (cut.ok() && *cut > cuts.back()) cuts.push_back(*cut);
    }
    cuts.push_back(row_end);
    const size_t slices = cuts.size() - 1;
    std::vector<Status> results(slices);
    const auto decode_slice = [&](size_t i) {
      try {
        results[i] = DecodeRows(column, cuts[i], cuts[i + 1],
                                dst + (cuts[i] - row_begin) * value_bytes, value_bytes, &pins);
      } catch (const std::bad_alloc&) {
        results[i] = Status(StatusCode::kOutOfMemory, "allocation failed");
      }
    };
    internal::RunSlices(slices, decode_slice);
    for (Status& st : results) {
      if (!st.ok()) return std::move(st);
    }
    return Status::OK();
  }

  /// spec §10.2 for one chunk: unsupported features, every segment checksum
  /// (even when the reader was opened without verify_checksums) and the
  /// metadata checks of a load, without caching the chunk.
  Status ValidateChunkStructure(int column, int chunk) const {
    if (!unsupported[column][chunk].empty()) {
      return Status(StatusCode::kUnsupportedFeature, unsupported[column][chunk]);
    }
    const ChunkInfo& ci = columns[column].chunks[chunk];
    const std::string where = ChunkName(column, chunk);
    const std::pair<const SegmentInfo*, const char*> segments[] = {
        {&ci.partition_table, " partition_table"}, {&ci.parameters, " parameters"},
        {&ci.ibp.masks, " ibp.masks"}, {&ci.ibp.row_offsets, " ibp.row_offsets"},
        {&ci.ibp.mask_ids, " ibp.cluster_ids"},
        {&ci.payload, " payload"}, {&ci.bounds, " bounds"}};
    for (const auto& seg : segments) {
      if (seg.first->present) L3_RETURN_NOT_OK(VerifySegmentChecksum(*seg.first, where + seg.second));
    }
    return Borrow(column, chunk).status();
  }

  Status ValidateStatistics(int column, int chunk, const ChunkView& view) const;
  Status ValidatePadding() const;
};

Status Reader::Impl::LoadChunk(int column, int chunk, LoadedChunk* slot, bool with_payload,
                              int threads) const {
  const ColumnInfo& col = columns[column];
  const ChunkInfo& ci = col.chunks[chunk];
  const std::string where = ChunkName(column, chunk);
  if (!unsupported[column][chunk].empty()) {
    return Status(StatusCode::kUnsupportedFeature, unsupported[column][chunk]);
  }
  if (ci.encoding == 2) return LoadIbpChunk(column, chunk, slot, with_payload);
  // spec §5: segment checksums over the stored bytes, before first use.
  if (options.verify_checksums) {
    L3_RETURN_NOT_OK(VerifySegmentChecksum(ci.partition_table, where + " partition_table"));
    L3_RETURN_NOT_OK(VerifySegmentChecksum(ci.parameters, where + " parameters"));
    if (with_payload) L3_RETURN_NOT_OK(VerifySegmentChecksum(ci.payload, where + " payload"));
    if (ci.bounds.present) L3_RETURN_NOT_OK(VerifySegmentChecksum(ci.bounds, where + " bounds"));
  }
  const uint64_t num_partitions = ci.num_partitions;
  const uint64_t value_bytes = static_cast<uint64_t>(PhysicalTypeBytes(col.type));
  // spec §11.2.2: a float chunk here is in the integer form, whose elements
  // are the rows' values as unsigned integers of the float's width.
  const bool float_form = PhysicalTypeIsFloat(col.type);
  const PhysicalType element_type = internal::IntegerFormType(col.type);
  const uint64_t elements = ci.num_rows * (float_form ? col.row_width : 1);
  const uint64_t first_element = ci.first_row * (float_form ? col.row_width : 1);
  // spec §7.3, §9: each decoded_length is checked against what the chunk
  // requires before anything is decompressed. The partition table comes
  // first; its sentinel gives the lengths of the other two segments.
  L3_ASSIGN_OR_RETURN(
      const uint8_t* table,
      Materialize(ci.partition_table, internal::kPartitionRecordBytes * (num_partitions + 1),
                  where + " partition_table", &slot->partition_table));
  const internal::PartitionRecord sentinel =
      internal::LoadPartitionRecord(table, num_partitions);
  // Before the other segments are decompressed, so that a forged sentinel
  // cannot make the reader allocate what the table cannot justify.
  {
    Status shape = internal::ValidatePartitionTableShape(
        table, num_partitions, elements + ci.dictionary_entries, ci.values_per_lane, element_type,
        ps.required_features,
        ci.parameters.decoded_bytes, ci.payload.decoded_bytes);
    if (!shape.ok()) return Status(shape.code(), where + ": " + shape.message());
  }
  L3_ASSIGN_OR_RETURN(const uint8_t* parameters,
                      Materialize(ci.parameters, 8 * uint64_t{sentinel.param_offset},
                                  where + " parameters (8 * Param_Offset[P])",
                                  &slot->parameters));
  const uint64_t payload_bytes =
      8 * uint64_t{sentinel.payload_offset} + internal::kPayloadPaddingBytes;
  // The chunk's view without payload and bounds: what the metadata checks
  // and the field-plane form need.
  ChunkView& view = slot->view;
  view.type = element_type;
  view.column_type = col.type;
  view.row_width = col.row_width;
  view.first_row = first_element;
  view.num_rows = elements;
  view.values_per_lane = ci.values_per_lane;
  view.num_partitions = ci.num_partitions;
  view.partition_table = table;
  view.parameters = parameters;
  view.parameters_bytes = ci.parameters.decoded_bytes;
  view.payload = kEmptySegment;  // not read by the metadata checks
  view.payload_bytes = payload_bytes;
  view.required_features = ps.required_features;
  view.dictionary_entries = ci.dictionary_entries;
  view.dictionary = nullptr;
  const uint8_t* payload = nullptr;
  if (!with_payload) {
    // Metadata only: the payload's lengths were checked against the table
    // (ValidatePartitionTableShape, and ValidateChunkMetadata below), its
    // bytes are neither read nor decompressed.
    payload = kEmptySegment;
  } else if (ci.payload.compression == Compression::kZstdFieldPlanes ||
             ci.payload.compression == Compression::kZstdFieldBytes) {
    L3_ASSIGN_OR_RETURN(payload,
                        MaterializeFieldForm(ci.payload, view, where, &slot->payload, threads));
  } else {
    L3_ASSIGN_OR_RETURN(payload, Materialize(ci.payload, payload_bytes,
                                             where + " payload (8 * Payload_Offset[P] + 32)",
                                             &slot->payload));
  }
  const uint8_t* bounds = nullptr;
  if (ci.bounds.present) {
    L3_ASSIGN_OR_RETURN(bounds, Materialize(ci.bounds, 2 * num_partitions * value_bytes,
                                            where + " bounds (2 * P * N / 8)", &slot->bounds));
  }
  view.payload = payload;
  view.payload_bytes = ci.payload.decoded_bytes;
  view.bounds = bounds;
  view.bounds_bytes = ci.bounds.present ? ci.bounds.decoded_bytes : 0;
  Status st = internal::ValidateChunkMetadata(view);
  if (st.ok() && with_payload) st = internal::ValidateRunStarts(view);
  if (st.ok() && with_payload && view.dictionary_entries > 0) {
    // spec §8.10 rule 2 before any value is returned; D <= num_rows, so the
    // entries cost no more memory than decoding the chunk.
    st = internal::DecodeDictionary(view, &slot->dictionary);
    if (st.ok()) view.dictionary = slot->dictionary.data();
  }
  if (!st.ok()) {
    view = ChunkView();
    return Status(st.code(), where + ": " + st.message());
  }
  for (uint64_t p = 0; p < view.num_partitions && !slot->has_delta_partitions; ++p) {
    slot->has_delta_partitions = internal::LoadPartitionRecord(view.partition_table, p).model_type ==
                                 static_cast<uint8_t>(internal::Model::kDelta);
  }
  return Status::OK();
}

Status Reader::Impl::LoadIbpChunk(int column, int chunk, LoadedChunk* slot,
                                  bool with_payload) const {
  const ColumnInfo& col = columns[column];
  const ChunkInfo& ci = col.chunks[chunk];
  const IbpInfo& ibp = ci.ibp;
  const std::string where = ChunkName(column, chunk);
  // spec §11.2.4 step 1: checksums, in order.
  if (options.verify_checksums) {
    L3_RETURN_NOT_OK(VerifySegmentChecksum(ibp.masks, where + " ibp.masks"));
    if (ibp.row_offsets.present) {
      L3_RETURN_NOT_OK(VerifySegmentChecksum(ibp.row_offsets, where + " ibp.row_offsets"));
    }
    if (ibp.mask_ids.present) {
      L3_RETURN_NOT_OK(VerifySegmentChecksum(ibp.mask_ids, where + " ibp.cluster_ids"));
    }
    if (with_payload) L3_RETURN_NOT_OK(VerifySegmentChecksum(ci.payload, where + " payload"));
  }
  // Step 2: lengths, then decompression, segment by segment.
  const uint64_t word_row_bytes = uint64_t{ibp.words_per_row} * ibp.word_bytes;
  ChunkView& view = slot->view;
  view.type = col.type;
  view.column_type = col.type;
  view.encoding = 2;
  view.row_width = col.row_width;
  view.first_row = ci.first_row;
  view.num_rows = ci.num_rows;
  view.values_per_lane = 0;
  view.num_partitions = 0;
  view.required_features = ps.required_features;
  IbpChunkView& iv = view.ibp;
  iv.word_bytes = ibp.word_bytes;
  iv.words_per_row = ibp.words_per_row;
  iv.num_masks = ibp.num_masks;
  iv.offset_bits = ibp.offset_bits;
  L3_ASSIGN_OR_RETURN(iv.masks, Materialize(ibp.masks, 2 * uint64_t{ibp.num_masks} * word_row_bytes,
                                            where + " ibp.masks (2 * K * M * W / 8)",
                                            &slot->ibp_masks));
  if (ibp.row_offsets.present) {
    iv.row_offsets_bytes = internal::IbpRowIndexBytes(ci.num_rows, ibp.offset_bits);
    L3_ASSIGN_OR_RETURN(iv.row_offsets,
                        Materialize(ibp.row_offsets, iv.row_offsets_bytes,
                                    where + " ibp.row_offsets", &slot->ibp_row_offsets));
  }
  if (ibp.mask_ids.present) {
    L3_ASSIGN_OR_RETURN(iv.mask_ids, Materialize(ibp.mask_ids, ci.num_rows,
                                                 where + " ibp.cluster_ids (num_rows)",
                                                 &slot->ibp_mask_ids));
  }
  // Step 3: masks, mask ids, row index.
  Status st = internal::ValidateIbpIndex(view);
  if (!st.ok()) {
    view = ChunkView();
    return Status(st.code(), where + ": " + st.message());
  }
  // Step 4: the payload, whose length the index gives (bounded by
  // num_rows * M words, since every row is at most M words).
  const uint64_t payload_bytes =
      internal::IbpPayloadWords(view) * ibp.word_bytes + internal::kIbpPaddingBytes;
  view.payload_bytes = payload_bytes;
  if (!with_payload) {
    view.payload = kEmptySegment;
    if (ci.payload.decoded_bytes != payload_bytes) {
      view = ChunkView();
      return Status(StatusCode::kCorruptMetadata,
                    where + " payload: decoded_length " + std::to_string(ci.payload.decoded_bytes) +
                        " != required " + std::to_string(payload_bytes));
    }
    return Status::OK();
  }
  Result<const uint8_t*> payload =
      Materialize(ci.payload, payload_bytes, where + " payload (W / 8 * Payload_Words + 32)",
                  &slot->payload);
  if (!payload.ok()) {
    view = ChunkView();
    return payload.status();
  }
  view.payload = *payload;
  return Status::OK();
}

Result<std::unique_ptr<Reader::Impl>> Reader::Impl::Open(std::unique_ptr<FileSource> source,
                                                         const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.max_zstd_expansion == 0) impl->options.max_zstd_expansion = 1;
  if (options.num_threads < 0) {
    return Status(StatusCode::kInvalidArgument,
                  "ReadOptions::num_threads " + std::to_string(options.num_threads) +
                      " is negative (0 = one per hardware thread)");
  }
  impl->source = std::move(source);
  const uint8_t* file = impl->source->data();
  const uint64_t size = impl->source->size();

  internal::FramingOptions framing;
  framing.allow_unknown = options.allow_unknown;
  framing.max_footer_bytes = options.max_footer_bytes;
  L3_RETURN_NOT_OK(internal::ParseFraming(file, size, framing, &impl->ps));

  // spec §6: the footer is read in place when it is 8-byte aligned in memory
  // (always so for a mapped file), otherwise from an aligned copy.
  const uint8_t* footer = file + impl->ps.footer_offset;
  if (reinterpret_cast<uintptr_t>(footer) % 8 != 0) {
    impl->footer_copy.reset(new uint64_t[(impl->ps.footer_length + 7) / 8 + 1]);
    std::memcpy(impl->footer_copy.get(), footer, static_cast<size_t>(impl->ps.footer_length));
    footer = reinterpret_cast<const uint8_t*>(impl->footer_copy.get());
  }
  internal::FooterLimits limits;
  limits.allow_unknown = options.allow_unknown;
  limits.max_partitions_per_chunk = options.max_partitions_per_chunk;
  limits.max_segment_bytes = options.max_segment_bytes;
  limits.max_zstd_expansion = impl->options.max_zstd_expansion;
  internal::ParsedFooter parsed;
  L3_RETURN_NOT_OK(
      internal::ParseFooter(footer, impl->ps.footer_length, impl->ps, limits, &parsed));
  impl->info = std::move(parsed.info);
  impl->info.file_bytes = size;
  impl->info.format_major = impl->ps.format_major;
  impl->info.format_minor = impl->ps.format_minor;
  impl->info.required_features = impl->ps.required_features;
  impl->info.optional_features = impl->ps.optional_features;
  impl->info.footer_bytes = impl->ps.footer_length;
  impl->columns = std::move(parsed.columns);
  impl->unsupported = std::move(parsed.unsupported);
  // spec §4.4: a required feature this reader does not implement may change
  // how any value decodes, so inspection mode lists such a file but decodes
  // none of it.
  const uint64_t unknown_required = impl->ps.required_features & ~internal::kKnownRequiredFeatures;
  if (unknown_required != 0) {
    for (auto& column : impl->unsupported) {
      for (std::string& reason : column) {
        if (reason.empty()) {
          reason = "Required_Features bits " + std::to_string(unknown_required) +
                   " are not implemented by this reader";
        }
      }
    }
  }
  impl->segment_extents = std::move(parsed.segment_extents);
  impl->opaque_segments = std::move(parsed.opaque_segments);
  impl->slots.resize(impl->columns.size());
  size_t num_chunks = 0;
  for (size_t c = 0; c < impl->columns.size(); ++c) {
    impl->slots[c].resize(impl->columns[c].chunks.size());
    for (auto& slot : impl->slots[c]) slot = std::make_unique<ChunkSlot>();
    impl->first_chunk_key.push_back(num_chunks);
    num_chunks += impl->columns[c].chunks.size();
  }
  impl->cache.Init(num_chunks, options.max_cached_bytes);
  return impl;
}

Status Reader::Impl::ValidatePadding() const {
  // spec §4.3: every byte between segments, and between the last segment and
  // the footer, is zero.
  const uint8_t* file = source->data();
  uint64_t pos = internal::kHeaderBytes;
  auto check_zero = [&](uint64_t begin, uint64_t end) -> Status {
    for (uint64_t i = begin; i < end; ++i) {
      if (file[i] != 0) {
        return Status(StatusCode::kCorruptFraming,
                      "padding byte at offset " + std::to_string(i) + " is not zero");
      }
    }
    return Status::OK();
  };
  for (const auto& extent : segment_extents) {
    if (extent.first > pos) L3_RETURN_NOT_OK(check_zero(pos, extent.first));
    pos = std::max(pos, extent.first + extent.second);
  }
  return check_zero(pos, ps.footer_offset);
}

namespace {

template <typename T>
Status CheckStatisticsTyped(const ChunkView& view, const ChunkStatistics& stats,
                            uint64_t max_bytes, const std::string& where) {
  using U = std::make_unsigned_t<T>;
  constexpr uint32_t kBits = 8 * sizeof(T);
  // spec §7.6 and §11.1: no validity segment, so no nulls.
  if (stats.null_count != 0) {
    return Status(StatusCode::kCorruptMetadata,
                  where + ": statistics.null_count is " + std::to_string(stats.null_count) +
                      " but the chunk has no validity segment");
  }
  // spec §7.6: without has_min_max, both words are 0.
  if (!stats.has_min_max && (stats.min_value != 0 || stats.max_value != 0)) {
    return Status(StatusCode::kCorruptMetadata,
                  where + ": statistics.min_value/max_value are not 0 although has_min_max is false");
  }
  const bool check_sketch = !stats.distinct_sketch.empty();
  if (!stats.has_min_max && !stats.distinct_count_exact && !check_sketch) return Status::OK();
  DistinctSketch sketch;  // spec §7.6.1: rebuilt from the decoded values
  T lo = std::numeric_limits<T>::max();
  T hi = std::numeric_limits<T>::min();
  const bool exact = stats.distinct_count_exact;
  if (exact && stats.distinct_count > view.num_rows) {
    return Status(StatusCode::kCorruptMetadata,
                  where + ": statistics.distinct_count " + std::to_string(stats.distinct_count) +
                      " is marked exact but exceeds the chunk's " + std::to_string(view.num_rows) +
                      " rows");
  }
  // Block by block; for an exact distinct count the distinct values seen so
  // far are kept sorted, which costs what the statistics claim (at most
  // distinct_count + one block of values), not what the chunk holds.
  if (exact && stats.distinct_count > max_bytes / sizeof(T)) {
    return Status(StatusCode::kResourceLimit,
                  where + ": too many distinct values to check within max_segment_bytes");
  }
  constexpr uint64_t kBlockRows = uint64_t{1} << 16;
  std::vector<T> block(static_cast<size_t>(std::min(kBlockRows, view.num_rows)));
  std::vector<T> seen, merged;
  for (uint64_t row = 0; row < view.num_rows; row += kBlockRows) {
    const uint64_t end = std::min(view.num_rows, row + kBlockRows);
    const size_t rows = static_cast<size_t>(end - row);
    L3_RETURN_NOT_OK(internal::DecodeChunkRows(view, row, end, block.data()));
    for (size_t i = 0; i < rows; ++i) {
      lo = std::min(lo, block[i]);
      hi = std::max(hi, block[i]);
    }
    if (check_sketch) {
      for (size_t i = 0; i < rows; ++i) {
        if (i == 0 || block[i] != block[i - 1]) {
          sketch.Add(internal::CanonicalExtend(static_cast<uint64_t>(static_cast<U>(block[i])), kBits,
                                               std::is_signed<T>::value));
        }
      }
    }
    if (!exact) continue;
    std::sort(block.begin(), block.begin() + static_cast<ptrdiff_t>(rows));
    const auto block_end = std::unique(block.begin(), block.begin() + static_cast<ptrdiff_t>(rows));
    merged.clear();
    std::set_union(seen.begin(), seen.end(), block.begin(), block_end, std::back_inserter(merged));
    seen.swap(merged);
    if (seen.size() > stats.distinct_count) {
      return Status(StatusCode::kCorruptMetadata,
                    where + ": statistics.distinct_count " + std::to_string(stats.distinct_count) +
                        " is marked exact but the chunk has more distinct values");
    }
  }
  if (exact && seen.size() != stats.distinct_count) {
    return Status(StatusCode::kCorruptMetadata,
                  where + ": statistics.distinct_count " + std::to_string(stats.distinct_count) +
                      " is marked exact but the chunk has " + std::to_string(seen.size()));
  }
  if (check_sketch) {
    L3_ASSIGN_OR_RETURN(const DistinctSketch stored,
                        DistinctSketch::FromBytes(stats.distinct_sketch.data(),
                                                  stats.distinct_sketch.size()));
    if (stored != sketch) {
      return Status(StatusCode::kCorruptMetadata,
                    where + ": statistics.distinct_sketch is not the sketch of the decoded values");
    }
  }
  if (stats.has_min_max) {
    const bool is_signed = std::is_signed<T>::value;
    const uint64_t min_word =
        internal::CanonicalExtend(static_cast<uint64_t>(static_cast<U>(lo)), kBits, is_signed);
    const uint64_t max_word =
        internal::CanonicalExtend(static_cast<uint64_t>(static_cast<U>(hi)), kBits, is_signed);
    if (stats.min_value != min_word || stats.max_value != max_word) {
      return Status(StatusCode::kCorruptMetadata,
                    where + ": statistics min_value/max_value differ from the decoded values");
    }
  }
  return Status::OK();
}

}  // namespace

Status Reader::Impl::ValidateStatistics(int column, int chunk, const ChunkView& view) const {
  const ChunkStatistics& stats = columns[column].chunks[chunk].statistics;
  if (!stats.present) return Status::OK();
  const std::string where = ChunkName(column, chunk);
  Status st;
  uint8_t probe = 0;
  internal::DispatchIntegerType(view.type, &probe, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    st = CheckStatisticsTyped<T>(view, stats, options.max_segment_bytes, where);
  });
  return st;
}

const ReadOptions& internal::ReaderOptions(const Reader::Impl& impl) { return impl.options; }

// ---------------------------------------------------------------------------
// Public API

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

Result<Reader> Reader::Open(const std::string& path, const ReadOptions& options) {
  try {
    L3_ASSIGN_OR_RETURN(auto source, FileSource::Open(path, options.use_mmap));
    L3_ASSIGN_OR_RETURN(auto impl, Impl::Open(std::move(source), options));
    return Reader(std::move(impl));
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Result<Reader> Reader::OpenBuffer(const void* data, size_t size, const ReadOptions& options) {
  try {
    L3_ASSIGN_OR_RETURN(auto impl, Impl::Open(FileSource::Borrow(data, size), options));
    return Reader(std::move(impl));
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

const FileInfo& Reader::info() const { return impl_->info; }
int Reader::num_columns() const { return static_cast<int>(impl_->columns.size()); }
const ColumnInfo& Reader::column(int column) const { return impl_->columns[column]; }

Result<int> Reader::FindColumn(std::string_view name) const {
  for (size_t c = 0; c < impl_->columns.size(); ++c) {
    if (impl_->columns[c].name == name) return static_cast<int>(c);
  }
  return Status(StatusCode::kOutOfRange, "no column named '" + std::string(name) + "'");
}

Result<DistinctSketch> Reader::MergedDistinctSketch(int column, const std::vector<int>& chunks) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckColumn(column));
    const ColumnInfo& col = impl_->columns[column];
    std::vector<int> all;
    const std::vector<int>* list = &chunks;
    if (chunks.empty()) {
      all.resize(col.chunks.size());
      for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int>(k);
      list = &all;
    }
    DistinctSketch merged;
    for (const int k : *list) {
      L3_RETURN_NOT_OK(impl_->CheckChunk(column, k));
      const std::vector<uint8_t>& bytes = col.chunks[k].statistics.distinct_sketch;
      if (bytes.empty()) {
        return Status(StatusCode::kUnsupportedFeature,
                      "column " + std::to_string(column) + " chunk " + std::to_string(k) +
                          " has no distinct sketch (spec §7.6.1)");
      }
      // Checked when the footer was parsed.
      L3_ASSIGN_OR_RETURN(const DistinctSketch sketch,
                          DistinctSketch::FromBytes(bytes.data(), bytes.size()));
      merged.Merge(sketch);
    }
    return merged;
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Result<std::vector<PartitionInfo>> Reader::Partitions(int column, int chunk) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckChunk(column, chunk));
    // Metadata only: the payload is not decompressed, and nothing is cached.
    L3_ASSIGN_OR_RETURN(const ChunkRef loaded,
                        impl_->Borrow(column, chunk, /*with_payload=*/false));
    const ChunkView* view = &loaded->view;
    const uint32_t value_bytes = static_cast<uint32_t>(PhysicalTypeBytes(view->type));
    const bool is_signed = PhysicalTypeIsSigned(view->type);
    std::vector<PartitionInfo> out(view->num_partitions);
    for (uint32_t p = 0; p < view->num_partitions; ++p) {
      const internal::Partition part = internal::LoadPartition(*view, p);
      PartitionInfo& info = out[p];
      info.first_row = part.first_row;
      info.num_rows = static_cast<uint32_t>(part.num_rows);
      info.model = static_cast<ModelType>(part.model);
      info.bit_width = static_cast<uint8_t>(part.bit_width);
      info.num_params = static_cast<uint8_t>(internal::ParamCount(part.model, part.bit_width));
      for (uint32_t i = 0; i < info.num_params; ++i) {
        info.params[i] = internal::LoadLE64(part.params + 8 * i);
      }
      info.payload_offset_bytes = 8 * uint64_t{internal::LoadPartitionRecord(view->partition_table, p).payload_offset};
      info.payload_bytes = 8 * part.payload_words;
      if (internal::IsRunPartition(part) ||
          part.model == static_cast<uint8_t>(internal::Model::kRunsEf)) {
        info.num_runs = info.params[1];
      }
      if (view->bounds != nullptr) {
        // spec §7.5: P minima, then P maxima, N / 8 bytes each.
        uint64_t lo = 0, hi = 0;
        std::memcpy(&lo, view->bounds + value_bytes * p, value_bytes);
        std::memcpy(&hi, view->bounds + value_bytes * (view->num_partitions + p), value_bytes);
        info.has_bounds = true;
        info.min_value = internal::CanonicalExtend(lo, 8 * value_bytes, is_signed);
        info.max_value = internal::CanonicalExtend(hi, 8 * value_bytes, is_signed);
      }
    }
    return out;
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Status Reader::ReadRows(int column, uint64_t row_begin, uint64_t row_end, void* out,
                        size_t out_bytes) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckColumn(column));
    const ColumnInfo& col = impl_->columns[column];
    if (row_begin > row_end || row_end > col.num_rows) {
      return Status(StatusCode::kOutOfRange,
                    "rows [" + std::to_string(row_begin) + ", " + std::to_string(row_end) +
                        ") outside the column's " + std::to_string(col.num_rows) + " rows");
    }
    if (!PhysicalTypeIsInteger(col.type) && !PhysicalTypeIsFloat(col.type)) {
      return Status(StatusCode::kUnsupportedFeature,
                    "column " + std::to_string(column) + " has a type this reader cannot decode");
    }
    // A row of a tensor column is row_width values (spec §11.2.1).
    const uint64_t value_bytes =
        static_cast<uint64_t>(PhysicalTypeBytes(col.type)) * col.row_width;
    const uint64_t count = row_end - row_begin;
    if (count > out_bytes / value_bytes) {
      return Status(StatusCode::kBufferTooSmall,
                    "output holds " + std::to_string(out_bytes) + " bytes, " +
                        std::to_string(count) + " rows need " + std::to_string(count * value_bytes));
    }
    if (count == 0) return Status::OK();
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "output buffer is null");
    uint8_t* dst = static_cast<uint8_t*>(out);
    return impl_->DecodeRowsParallel(column, row_begin, row_end, dst, value_bytes);
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Status Reader::Take(int column, const uint64_t* rows, size_t num_rows, void* out,
                    size_t out_bytes) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckColumn(column));
    const ColumnInfo& col = impl_->columns[column];
    if (!PhysicalTypeIsInteger(col.type) && !PhysicalTypeIsFloat(col.type)) {
      return Status(StatusCode::kUnsupportedFeature,
                    "column " + std::to_string(column) + " has a type this reader cannot decode");
    }
    const size_t value_bytes = static_cast<size_t>(PhysicalTypeBytes(col.type)) * col.row_width;
    if (num_rows > out_bytes / value_bytes) {
      return Status(StatusCode::kBufferTooSmall,
                    "output holds " + std::to_string(out_bytes) + " bytes, " +
                        std::to_string(num_rows) + " values need more");
    }
    if (num_rows == 0) return Status::OK();
    if (rows == nullptr || out == nullptr) {
      return Status(StatusCode::kInvalidArgument, "rows or output buffer is null");
    }
    for (size_t i = 0; i < num_rows; ++i) {
      if (rows[i] >= col.num_rows) {
        return Status(StatusCode::kOutOfRange, "row " + std::to_string(rows[i]) +
                                                   " outside the column's " +
                                                   std::to_string(col.num_rows) + " rows");
      }
    }
    // Visit the rows in order, so that each chunk is looked up once and
    // prepared once, whatever order the caller gave. Rows already in order
    // (late materialization passes increasing rows) are not sorted again.
    std::vector<size_t> order;
    if (!std::is_sorted(rows, rows + num_rows)) {
      order.resize(num_rows);
      std::iota(order.begin(), order.end(), size_t{0});
      std::sort(order.begin(), order.end(),
                [rows](size_t a, size_t b) { return rows[a] < rows[b]; });
    }
    const size_t* sorted = order.empty() ? nullptr : order.data();
    auto at = [sorted](size_t i) { return sorted == nullptr ? i : sorted[i]; };
    uint8_t* dst = static_cast<uint8_t*>(out);
    ChunkRef loaded;
    const ChunkView* view = nullptr;
    uint64_t previous_row = 0;
    uint64_t value = 0;
    if (PhysicalTypeIsFloat(col.type)) {
      // Float rows (spec §11.2): each row decoded on its own, in O(1) for
      // IBP chunks, by one decoder per chunk that keeps its masks' plans.
      int chunk = -1;
      std::optional<internal::IbpRowDecoder> ibp;
      for (size_t i = 0; i < num_rows; ++i) {
        const uint64_t row = rows[at(i)];
        uint8_t* target = dst + at(i) * value_bytes;
        if (chunk >= 0 && i > 0 && row == previous_row) {
          std::memcpy(target, dst + at(i - 1) * value_bytes, value_bytes);
          continue;
        }
        if (chunk < 0 || row >= col.chunks[chunk].first_row + col.chunks[chunk].num_rows) {
          chunk = impl_->FindChunk(column, row);
          ibp.reset();
          L3_ASSIGN_OR_RETURN(loaded, impl_->Prepare(column, chunk));
          if (loaded->view.encoding == 2) ibp.emplace(loaded->view);
        }
        const uint64_t local = row - col.chunks[chunk].first_row;
        L3_RETURN_NOT_OK(ibp ? ibp->Decode(local, local + 1, target)
                             : Impl::DecodeChunkRowsAny(loaded->view, local, local + 1, target));
        previous_row = row;
      }
      return Status::OK();
    }
    // Rows close together are decoded as one range: a value by itself costs
    // a partition lookup and, in a DELTA partition (spec §8.9), a scan of up
    // to a tile; a range about a nanosecond a row. A window of at most
    // kTakeWindowRows rows of one chunk is decoded whole when at least
    // kTakeMinGroup of its rows, and 1 of every `density`, are asked for:
    // 32 in chunks of other models, 512 in chunks with DELTA partitions.
    constexpr uint64_t kTakeWindowRows = 4096;
    constexpr size_t kTakeMinGroup = 8;
    uint64_t density = 32;
    std::vector<uint8_t> window;
    for (size_t i = 0; i < num_rows;) {
      const uint64_t row = rows[at(i)];
      if (view == nullptr || row >= view->first_row + view->num_rows) {
        L3_ASSIGN_OR_RETURN(loaded, impl_->Prepare(column, impl_->FindChunk(column, row)));
        view = &loaded->view;
        previous_row = ~uint64_t{0};
        density = loaded->has_delta_partitions ? 512 : 32;
      }
      // The window: rows[i..j) while each prefix keeps the density, tried
      // only when the first kTakeMinGroup rows do (O(1) for sparse rows).
      const uint64_t limit = std::min(view->first_row + view->num_rows, row + kTakeWindowRows);
      auto dense_to = [&](size_t k) {
        const uint64_t r = rows[at(k)];
        return r < limit && (k + 1 - i) * density >= r - row + 1;
      };
      size_t j = i;
      if (i + kTakeMinGroup <= num_rows && dense_to(i + kTakeMinGroup - 1)) {
        j = i + kTakeMinGroup;
        while (j < num_rows && dense_to(j)) ++j;
      }
      if (j > i) {
        const uint64_t last = rows[at(j - 1)];
        window.resize(static_cast<size_t>(last - row + 1) * value_bytes);
        L3_RETURN_NOT_OK(internal::DecodeChunkRows(*view, row - view->first_row,
                                                   last + 1 - view->first_row, window.data()));
        for (size_t k = i; k < j; ++k) {
          std::memcpy(dst + at(k) * value_bytes, window.data() + (rows[at(k)] - row) * value_bytes,
                      value_bytes);
        }
        i = j;
        continue;
      }
      if (row != previous_row) {
        L3_RETURN_NOT_OK(internal::DecodeChunkValue(*view, row - view->first_row, &value));
      }
      // The value's low N / 8 bytes, little-endian, are the column type's bytes.
      std::memcpy(dst + at(i) * value_bytes, &value, value_bytes);
      previous_row = row;
      ++i;
    }
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Result<ChunkView> Reader::GetChunkView(int column, int chunk) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckChunk(column, chunk));
    L3_ASSIGN_OR_RETURN(const ChunkRef loaded, impl_->Prepare(column, chunk));
    ChunkView view = loaded->view;
    view.owner = loaded;  // the segments live while the view (or a copy) does
    return view;
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Result<IbpRowStats> Reader::IbpStats(int column, int chunk) const {
  try {
    L3_RETURN_NOT_OK(impl_->CheckChunk(column, chunk));
    if (impl_->columns[column].chunks[chunk].encoding != 2) {
      return Status(StatusCode::kInvalidArgument,
                    ChunkName(column, chunk) + " is not an IbpFloat chunk");
    }
    // The masks and row index only: the payload is neither read nor held.
    L3_ASSIGN_OR_RETURN(const ChunkRef loaded,
                        impl_->Borrow(column, chunk, /*with_payload=*/false));
    const ChunkView& view = loaded->view;
    const IbpChunkView& ibp = view.ibp;
    IbpRowStats stats;
    stats.num_rows = view.num_rows;
    stats.word_bytes = ibp.word_bytes;
    stats.words_per_row = ibp.words_per_row;
    stats.payload_words = internal::IbpPayloadWords(view);
    for (uint64_t r = 0; r < view.num_rows; ++r) {
      const uint64_t length = internal::IbpRowStart(view, r + 1) - internal::IbpRowStart(view, r);
      stats.packed_rows += length < ibp.words_per_row;
    }
    const uint64_t m = ibp.words_per_row;
    stats.masks.resize(ibp.num_masks);
    stats.bitvals.resize(ibp.num_masks);
    for (uint32_t k = 0; k < ibp.num_masks; ++k) {
      for (uint64_t j = 0; j < m; ++j) {
        uint64_t mask = 0, bitval = 0;
        std::memcpy(&mask, ibp.masks + (2 * k * m + j) * ibp.word_bytes, ibp.word_bytes);
        std::memcpy(&bitval, ibp.masks + ((2 * k + 1) * m + j) * ibp.word_bytes, ibp.word_bytes);
        stats.masks[k].push_back(mask);
        stats.bitvals[k].push_back(bitval);
      }
    }
    return stats;
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

uint64_t Reader::cached_bytes() const { return impl_->cache.HeldBytes(); }

Status Reader::Validate(ValidationLevel level) const {
  try {
    // spec §10.3: structural checks of every chunk first, so that a file that
    // is structurally invalid anywhere is rejected with that class before any
    // value is decoded.
    for (int c = 0; c < num_columns(); ++c) {
      for (int k = 0; k < static_cast<int>(impl_->columns[c].chunks.size()); ++k) {
        L3_RETURN_NOT_OK(impl_->ValidateChunkStructure(c, k));
      }
    }
    if (level != ValidationLevel::kDeep) return Status::OK();
    // spec §13: the rows deep validation would decode, against the limit.
    uint64_t rows = 0;
    for (int c = 0; c < num_columns(); ++c) rows += impl_->columns[c].num_rows;
    if (rows > impl_->options.max_validation_rows) {
      return Status(StatusCode::kResourceLimit,
                    "deep validation would decode " + std::to_string(rows) +
                        " rows, more than ReadOptions::max_validation_rows " +
                        std::to_string(impl_->options.max_validation_rows));
    }
    // spec §5, §10.3 step 3: the segments no chunk decodes still carry
    // checksums.
    for (const internal::ParsedFooter::OpaqueSegment& seg : impl_->opaque_segments) {
      const uint32_t actual = internal::Crc32c(0, impl_->source->data() + seg.offset,
                                               static_cast<size_t>(seg.length));
      if (actual != seg.checksum) {
        return Status(StatusCode::kChecksumMismatch,
                      seg.where + ": checksum does not match the stored bytes");
      }
    }
    L3_RETURN_NOT_OK(impl_->ValidatePadding());
    // spec §4.4: DELTA_MODEL, RUNS_EF_MODEL and PATCHED_FOR_MODEL are set iff
    // some partition has that model, PATCHED_ROWS_EF iff some PATCHED_FOR
    // partition has Rows_EF, DELTA_ORDERS iff some DELTA partition has K > 1.
    uint64_t used_model_bits = 0;
    for (int c = 0; c < num_columns(); ++c) {
      for (int k = 0; k < static_cast<int>(impl_->columns[c].chunks.size()); ++k) {
        const std::string where = ChunkName(c, k);
        // One chunk's decoded segments at a time: validation does not fill
        // the reader's cache.
        L3_ASSIGN_OR_RETURN(const ChunkRef loaded, impl_->Borrow(c, k));
        const ChunkView* view = &loaded->view;
        Status st = view->encoding == 2 ? internal::DeepValidateIbpChunk(*view)
                                        : internal::DeepValidateChunk(*view);
        if (!st.ok()) return Status(st.code(), where + ": " + st.message());
        L3_RETURN_NOT_OK(impl_->ValidateStatistics(c, k, *view));
        for (uint32_t p = 0; p < view->num_partitions; ++p) {
          const uint8_t model = internal::LoadPartitionRecord(view->partition_table, p).model_type;
          used_model_bits |= internal::ModelFeatureBit(model);
          if (model == static_cast<uint8_t>(internal::Model::kPatchedFor) &&
              internal::UnpackDeltaExceptions(
                  internal::LoadLE64(internal::LoadPartition(*view, p).params + 8))
                  .rows_ef) {
            used_model_bits |= kRequiredPatchedRowsEf;
          }
          if (model == static_cast<uint8_t>(internal::Model::kDelta) &&
              internal::UnpackDeltaExceptions(
                  internal::LoadLE64(internal::LoadPartition(*view, p).params + 8))
                      .order > 1) {
            used_model_bits |= kRequiredDeltaOrders;
          }
        }
      }
    }
    for (const uint8_t model : {static_cast<uint8_t>(internal::Model::kDelta),
                                static_cast<uint8_t>(internal::Model::kRunsEf),
                                static_cast<uint8_t>(internal::Model::kPatchedFor)}) {
      const uint64_t bit = internal::ModelFeatureBit(model);
      if ((used_model_bits & bit) == 0 && (impl_->ps.required_features & bit) != 0) {
        return Status(StatusCode::kCorruptMetadata,
                      std::string("Required_Features sets ") + internal::ModelFeatureName(model) +
                          " but no partition uses " +
                          ModelTypeName(static_cast<ModelType>(model)));
      }
    }
    if ((used_model_bits & kRequiredPatchedRowsEf) == 0 &&
        (impl_->ps.required_features & kRequiredPatchedRowsEf) != 0) {
      return Status(StatusCode::kCorruptMetadata,
                    "Required_Features sets PATCHED_ROWS_EF but no PATCHED_FOR partition has "
                    "Rows_EF");
    }
    if ((used_model_bits & kRequiredDeltaOrders) == 0 &&
        (impl_->ps.required_features & kRequiredDeltaOrders) != 0) {
      return Status(StatusCode::kCorruptMetadata,
                    "Required_Features sets DELTA_ORDERS but no DELTA partition has order K > 1");
    }
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

}  // namespace l3
