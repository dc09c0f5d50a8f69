// l3::Writer: buffers each column up to one chunk, encodes full chunks
// (EncodeChunk), places their segments canonically (spec §4.3) as soon as they
// are ready, and finishes with the footer and postscript (spec §4.2, §6).
#include <algorithm>
#include <deque>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <vector>

#include "codec/dictionary/dictionary_encode.hpp"
#include "codec/encode/chunk_statistics.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/fit_memo.hpp"
#include "codec/encode/parallel.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/ibp/float_order.hpp"
#include "codec/ibp/ibp_encode.hpp"
#include "codec/ibp/ibp_format.hpp"
#include "codec/planes/field_planes.hpp"
#include "common/output_sink.hpp"
#include "common/status_macros.hpp"
#include "common/utf8.hpp"
#include "common/zstd_codec.hpp"
#include "format/file_assembler.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"
#include "pgm/pgm.hpp"

namespace l3 {
namespace {

constexpr uint64_t kMaxChunkRows = (uint64_t{1} << 32) - 1;  // spec §7.2
constexpr size_t kMaxNameBytes = 65535;                       // spec §6.2
constexpr const char* kWriterName = "l3-cpp";

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

Status ValidateSchema(const std::vector<ColumnSpec>& columns, const WriteOptions& options) {
  if (columns.empty()) return Invalid("a file needs at least one column");
  std::unordered_set<std::string> names;
  for (size_t c = 0; c < columns.size(); ++c) {
    const ColumnSpec& col = columns[c];
    const std::string where = "column " + std::to_string(c) + ": ";
    if (col.name.empty() || col.name.size() > kMaxNameBytes) {
      return Invalid(where + "name must have 1..65535 bytes");
    }
    if (!internal::IsValidUtf8(col.name)) return Invalid(where + "name is not valid UTF-8");
    if (!names.insert(col.name).second) return Invalid(where + "name '" + col.name + "' repeats");
    if (PhysicalTypeIsFloat(col.type)) {
      // spec §11.2: float columns are format 1.1.
      if (options.format_minor < 1) {
        return Invalid(where + "float columns need format_minor >= 1");
      }
      if (col.row_width < 1 || col.row_width > internal::kIbpMaxRowWidth) {
        return Invalid(where + "row_width " + std::to_string(col.row_width) +
                       " must be in 1..2^24");
      }
    } else if (!PhysicalTypeIsInteger(col.type)) {
      return Invalid(where + "unknown physical type");
    } else if (col.row_width != 1) {
      return Invalid(where + "row_width " + std::to_string(col.row_width) +
                     " on an integer column (only float columns have rows of several values)");
    }
    if (static_cast<uint16_t>(col.logical.kind) > static_cast<uint16_t>(LogicalKind::kDecimal)) {
      return Invalid(where + "unknown logical kind");
    }
    if (static_cast<uint8_t>(col.logical.time_unit) >
        static_cast<uint8_t>(TimeUnit::kNanosecond)) {
      return Invalid(where + "unknown time unit");
    }
  }
  return Status::OK();
}

Status ValidateOptions(const WriteOptions& o) {
  if (!internal::IsValidValuesPerLane(o.values_per_lane)) {
    return Invalid("values_per_lane " + std::to_string(o.values_per_lane) +
                   " must be a power of two in 1..1024");
  }
  if (o.chunk_rows < 1 || o.chunk_rows > kMaxChunkRows) {
    return Invalid("chunk_rows " + std::to_string(o.chunk_rows) + " must be in 1..2^32-1");
  }
  const PartitionerOptions& p = o.partitioner;
  if (p.analysis_block_rows < 1 || p.initial_partition_rows < 1 || p.max_partition_rows < 1) {
    return Invalid("partitioner row counts must be >= 1");
  }
  // NaN fails both comparisons.
  if (!(p.min_merge_benefit >= 0 && p.min_merge_benefit < 1)) {
    return Invalid("partitioner.min_merge_benefit must be in [0, 1)");
  }
  if (!(p.poly_min_gain >= 0 && p.poly_min_gain < 1)) {
    return Invalid("partitioner.poly_min_gain must be in [0, 1)");
  }
  if (o.format_minor > kFormatMinor) {
    return Invalid("format_minor " + std::to_string(o.format_minor) + " is newer than " +
                   std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) +
                   ", the newest format this library writes");
  }
  if (o.profile != Profile::kHot && o.profile != Profile::kArchive) {
    return Invalid("unknown profile");
  }
  if (o.profile == Profile::kArchive &&
      (o.zstd_level < internal::ZstdMinLevel() || o.zstd_level > internal::ZstdMaxLevel())) {
    return Invalid("zstd_level " + std::to_string(o.zstd_level) + " is outside " +
                   std::to_string(internal::ZstdMinLevel()) + ".." +
                   std::to_string(internal::ZstdMaxLevel()));
  }
  if (o.num_threads < 0) return Invalid("num_threads must be >= 0");
  if (!(o.dictionary_min_saving >= 0 && o.dictionary_min_saving < 1)) {
    return Invalid("dictionary_min_saving must be in [0, 1)");
  }
  if (!(o.delta_orders_min_saving >= 0 && o.delta_orders_min_saving < 1)) {
    return Invalid("delta_orders_min_saving must be in [0, 1)");
  }
  if (o.float_chunk_bytes < 1) return Invalid("float_chunk_bytes must be >= 1");
  if (o.ibp_masks < 1 || o.ibp_masks > internal::kIbpMaxMasks) {
    return Invalid("ibp_masks " + std::to_string(o.ibp_masks) + " must be in 1..256");
  }
  if (static_cast<uint8_t>(o.float_encoding) > static_cast<uint8_t>(FloatEncoding::kIbp)) {
    return Invalid("unknown float_encoding");
  }
  return Status::OK();
}

// One segment ready to be placed: its stored bytes (compressed in the archive
// profile) and its decoded length.
struct StoredSegment {
  bool present = false;
  std::vector<uint8_t> bytes;
  uint64_t decoded_bytes = 0;
  Compression compression = Compression::kNone;
};

// An encoded chunk waiting for its turn to be written.
struct ReadyChunk {
  uint16_t encoding = 1;  // spec §7.2: 1 L3Integer, 2 IbpFloat
  uint64_t num_rows = 0;
  uint32_t num_partitions = 0;
  uint32_t values_per_lane = 0;
  bool uses_delta = false;
  bool uses_runs_ef = false;
  bool uses_patched_for = false;
  bool uses_patched_rows_ef = false;
  bool uses_delta_orders = false;
  uint64_t dictionary_entries = 0;  // spec §8.10
  // In file order (spec §4.3 keeps write order): partition_table,
  // parameters, payload, bounds.
  StoredSegment segments[4];
  ChunkStatistics statistics;
  PgmIndexInfo pgm;  // spec §11.3
  // IbpFloat (spec §11.2.3): the table's fields and its masks, row_offsets
  // and cluster_ids segments; the rows are segments[2], the payload.
  IbpInfo ibp;
  StoredSegment ibp_segments[3];

  uint64_t StoredBytes() const {
    uint64_t total = 0;
    for (const StoredSegment& seg : segments) total += seg.bytes.size();
    for (const StoredSegment& seg : ibp_segments) total += seg.bytes.size();
    return total;
  }
};

StoredSegment StoredAsIs(std::vector<uint8_t> decoded) {
  StoredSegment seg;
  seg.present = true;
  seg.decoded_bytes = decoded.size();
  seg.bytes = std::move(decoded);
  return seg;
}

// spec §9: a segment stored as its zstd frame where that is smaller than the
// segment itself (a segment MAY be compressed), else as itself.
StoredSegment StoredAsSmaller(std::vector<uint8_t> decoded, std::vector<uint8_t> frame) {
  StoredSegment seg = StoredAsIs(std::move(decoded));
  if (frame.size() < seg.bytes.size()) {
    seg.bytes = std::move(frame);
    seg.compression = Compression::kZstd;
  }
  return seg;
}

Result<StoredSegment> StoreSegment(std::vector<uint8_t> decoded, const WriteOptions& options) {
  if (options.profile != Profile::kArchive) return StoredAsIs(std::move(decoded));
  L3_ASSIGN_OR_RETURN(std::vector<uint8_t> frame,
                      internal::ZstdCompress(decoded.data(), decoded.size(), options.zstd_level));
  return StoredAsSmaller(std::move(decoded), std::move(frame));
}

// Zstd frames of several byte strings at one level, side by side on up to
// `threads` threads (a chunk's segments and the forms of its payload are
// independent frames; the level-19 ones take most of an archive encode). A
// frame depends only on its input and level, so the frames, and every choice
// made from their sizes, are the same for any number of threads. A null
// input gets an empty frame. The first error in input order is returned.
Result<std::vector<std::vector<uint8_t>>> CompressEach(
    const std::vector<const std::vector<uint8_t>*>& inputs, int level, int threads) {
  std::vector<std::vector<uint8_t>> frames(inputs.size());
  std::vector<Status> errors(inputs.size());
  internal::ParallelFor(inputs.size(), threads, 1, [&](uint64_t i) {
    if (inputs[i] == nullptr) return;
    Result<std::vector<uint8_t>> frame =
        internal::ZstdCompress(inputs[i]->data(), inputs[i]->size(), level);
    if (frame.ok()) {
      frames[i] = std::move(*frame);
    } else {
      errors[i] = frame.status();
    }
  });
  for (Status& error : errors) {
    if (!error.ok()) return std::move(error);
  }
  return frames;
}

bool FieldPlanesAllowed(const WriteOptions& options) {
  return options.profile == Profile::kArchive && options.format_minor >= 1 &&
         options.archive_field_planes;
}

// The archive profile picks between short and long partitions by the sizes
// of trial frames at this zstd level (each payload as the smaller of its two
// forms), then compresses only the winner at WriteOptions::zstd_level, where
// it keeps the smaller of the plain and the field-plane payload frames.
// Level 6 picks what full-level frames pick on our datasets; level 3 did
// not (normal 47 -> 32, ecg 2.87 -> 2.52).
constexpr int kTrialZstdLevel = 6;

int TrialLevel(const WriteOptions& options) { return std::min(options.zstd_level, kTrialZstdLevel); }

Result<uint64_t> TrialBytes(const std::vector<uint8_t>& decoded, int level) {
  L3_ASSIGN_OR_RETURN(std::vector<uint8_t> frame,
                      internal::ZstdCompress(decoded.data(), decoded.size(), level));
  return std::min<uint64_t>(frame.size(), decoded.size());
}

// An encoded chunk measured by trial frames.
struct Candidate {
  internal::EncodedChunk encoded;
  // The payload's field form, when allowed: planes (spec §9.2), or field
  // bytes (§9.3) for the whole-delta candidate; empty otherwise.
  std::vector<uint8_t> field_form;
  internal::FieldForm form = internal::FieldForm::kPlanes;
  // The payload is stored only in its field form (no plain frame is tried).
  bool field_form_only = false;
  uint64_t trial_bytes = 0;  // the chunk's segments as trial frames
  // Hot profile, a chunk that uses PATCHED_FOR: the fits of its encoding
  // without PATCHED_FOR, recorded while encoding it (fit_memo.hpp).
  std::unique_ptr<internal::FitMemo> fits_without_patched_for;
};

// `threads`: for the trial frames (CompressEach).
Result<Candidate> MakeCandidate(internal::EncodedChunk encoded, PhysicalType type,
                                const WriteOptions& options, int threads) {
  Candidate c;
  c.encoded = std::move(encoded);
  if (options.profile != Profile::kArchive) return c;
  if (FieldPlanesAllowed(options)) {
    // Field planes (spec §9.2). Field bytes (§9.3) are left to the
    // whole-delta candidate: between planes and field bytes of the same
    // fields the trial level often picks the one that is larger at the full
    // level (timestamps: 9.35x with planes, 9.22x with field bytes).
    std::vector<uint8_t> planes = internal::FieldFormFromPayload(
        internal::ChunkViewOf(c.encoded, type), internal::FieldForm::kPlanes);
    if (!planes.empty()) {
      c.field_form = std::move(planes);
      c.form = internal::FieldForm::kPlanes;
    }
  }
  const internal::EncodedChunk& e = c.encoded;
  const std::vector<const std::vector<uint8_t>*> inputs = {
      &e.payload, c.field_form.empty() ? nullptr : &c.field_form, &e.partition_table,
      &e.parameters, options.write_partition_bounds ? &e.bounds : nullptr};
  L3_ASSIGN_OR_RETURN(const std::vector<std::vector<uint8_t>> frames,
                      CompressEach(inputs, TrialLevel(options), threads));
  // Each segment counts as the smaller of its frame and itself.
  const auto trial = [&](size_t i) -> uint64_t {
    return inputs[i] == nullptr ? 0 : std::min<uint64_t>(frames[i].size(), inputs[i]->size());
  };
  const uint64_t payload = c.field_form.empty() ? trial(0) : std::min(trial(0), trial(1));
  c.trial_bytes = payload + trial(2) + trial(3) + trial(4);
  return c;
}

// PartitionerOptions::split_min_rows of the archive profile when unset.
constexpr uint32_t kArchiveSplitMinRows = 64;
// PartitionerOptions::runs_ef_min_gain of the hot profile when unset.
constexpr double kHotRunsEfMinGain = 1.0 / 32;
// PartitionerOptions::patched_for_min_gain of the hot profile when unset.
constexpr double kHotPatchedForMinGain = 1.0 / 32;

// Encodes one chunk with `config`; in the archive profile, also measures it
// with trial frames (MakeCandidate).
Result<Candidate> EncodeCandidate(PhysicalType type, const std::vector<uint8_t>& values,
                                  uint64_t num_rows, const internal::EncoderConfig& config,
                                  const WriteOptions& options) {
  // The hot profile may encode a chunk that uses PATCHED_FOR again without
  // it (EncodeAndStore); this encoding records the fits that one needs.
  internal::EncoderConfig recording = config;
  std::unique_ptr<internal::FitMemo> memo;
  if (options.profile == Profile::kHot && config.partitioner.enable_patched_for &&
      config.planner == nullptr) {
    memo = std::make_unique<internal::FitMemo>();
    recording.record_fits = memo.get();
  }
  L3_ASSIGN_OR_RETURN(internal::EncodedChunk encoded,
                      internal::EncodeChunk(values.data(), num_rows, recording));
  if (encoded.num_rows != num_rows) {
    return Status(StatusCode::kInternal, "encoder returned a chunk of another length");
  }
  const bool keep_memo = encoded.uses_patched_for;
  L3_ASSIGN_OR_RETURN(Candidate c,
                      MakeCandidate(std::move(encoded), type, options, config.num_threads));
  if (keep_memo && memo != nullptr) {
    memo->Seal();
    c.fits_without_patched_for = std::move(memo);
  }
  return c;
}

// The archive profile leaves out the bounds segment (spec §7.5, optional) of
// a chunk of one partition whose statistics carry min and max (§7.6): its
// bounds would be those two values again, and its segment, padding and
// reference cost about 90 bytes, a tenth of the file of a constant column.
// The hot profile keeps it, for readers that prune by bounds alone.
bool BoundsRepeatStatistics(const ReadyChunk& ready, const WriteOptions& options) {
  return options.profile == Profile::kArchive && ready.num_partitions == 1 &&
         ready.dictionary_entries == 0 && ready.statistics.present &&
         ready.statistics.has_min_max;
}

// Stores a candidate's segments. The archive profile (spec §9) stores each
// segment as its zstd frame where that is smaller, and the payload as the
// frame of its field form (§9.2, §9.3) where that is smaller still (ties keep
// the plain frame, which 1.0 readers read); a candidate with only a field form
// has no plain frame. The frames are compressed side by side on up to
// `threads` threads (CompressEach).
Result<ReadyChunk> StoreCandidate(Candidate c, const WriteOptions& options, int threads) {
  internal::EncodedChunk& encoded = c.encoded;
  ReadyChunk ready;
  ready.num_rows = encoded.num_rows;
  ready.num_partitions = encoded.num_partitions;
  ready.values_per_lane = encoded.values_per_lane;
  ready.uses_delta = encoded.uses_delta;
  ready.uses_runs_ef = encoded.uses_runs_ef;
  ready.uses_patched_for = encoded.uses_patched_for;
  ready.uses_patched_rows_ef = encoded.uses_patched_rows_ef;
  ready.uses_delta_orders = encoded.uses_delta_orders;
  ready.dictionary_entries = encoded.dictionary_entries;
  if (options.write_statistics) {
    ready.statistics.present = true;
    ready.statistics.has_min_max = encoded.statistics.has_min_max;
    ready.statistics.min_value = encoded.statistics.min_value;
    ready.statistics.max_value = encoded.statistics.max_value;
    ready.statistics.null_count = 0;
    ready.statistics.distinct_count = encoded.statistics.distinct_count;
    ready.statistics.distinct_count_exact = encoded.statistics.distinct_count_exact;
  }
  const bool with_bounds =
      options.write_partition_bounds && !BoundsRepeatStatistics(ready, options);
  if (options.profile != Profile::kArchive) {
    ready.segments[0] = StoredAsIs(std::move(encoded.partition_table));
    ready.segments[1] = StoredAsIs(std::move(encoded.parameters));
    ready.segments[2] = StoredAsIs(std::move(encoded.payload));
    if (with_bounds) ready.segments[3] = StoredAsIs(std::move(encoded.bounds));
    return ready;
  }
  const bool plain_frame = !c.field_form_only || c.field_form.empty();
  L3_ASSIGN_OR_RETURN(
      std::vector<std::vector<uint8_t>> frames,
      CompressEach({&encoded.partition_table, &encoded.parameters,
                    plain_frame ? &encoded.payload : nullptr,
                    c.field_form.empty() ? nullptr : &c.field_form,
                    with_bounds ? &encoded.bounds : nullptr},
                   options.zstd_level, threads));
  ready.segments[0] = StoredAsSmaller(std::move(encoded.partition_table), std::move(frames[0]));
  ready.segments[1] = StoredAsSmaller(std::move(encoded.parameters), std::move(frames[1]));
  StoredSegment payload = plain_frame
                              ? StoredAsSmaller(std::move(encoded.payload), std::move(frames[2]))
                              : StoredAsIs(std::move(encoded.payload));
  if (!c.field_form.empty() && frames[3].size() < payload.bytes.size()) {
    payload.bytes = std::move(frames[3]);
    payload.compression = c.form == internal::FieldForm::kPlanes
                              ? Compression::kZstdFieldPlanes
                              : Compression::kZstdFieldBytes;
  }
  ready.segments[2] = std::move(payload);
  if (with_bounds) {
    ready.segments[3] = StoredAsSmaller(std::move(encoded.bounds), std::move(frames[4]));
  }
  return ready;
}

// The archive profile's second candidate (WriteOptions::archive_large_partitions):
// long partitions, which suit zstd over field planes better than the short
// partitions that minimise bit-packed size.
internal::EncoderConfig LargePartitionConfig(internal::EncoderConfig config) {
  PartitionerOptions& p = config.partitioner;
  p.initial_partition_rows = std::max<uint32_t>(p.initial_partition_rows, 8192);
  p.max_partition_rows = std::max<uint32_t>(p.max_partition_rows, 65536);
  p.split_min_rows = 0u;
  return config;
}

// The archive profile's whole-delta candidate (spec §8.9, §9.3): DELTA
// partitions of kWholeDeltaRows rows whose Bit_Width holds every delta (no
// exceptions), the payload stored as zstd over its field bytes. The
// strongest zstd levels match recurring sequences of whole deltas (the node
// references of ways that share nodes) that the trial level barely sees, so
// this candidate competes by its full-level frames. It is skipped when its
// trial payload frame is more than kWholeDeltaTrialSlack times the chosen
// candidate's trial frames, which saves the full-level pass where it cannot
// win.
// Long partitions: each boundary starts new fields (another Delta_Base and
// width) that break the runs zstd matches; 2^22 rows kept 1-2% more than
// 65536 on the real arrays, and still bound the reach of one wide delta.
constexpr uint32_t kWholeDeltaRows = 1u << 22;
constexpr double kWholeDeltaTrialSlack = 1.15;

// The higher-order candidates (WriteOptions::delta_orders, spec §8.9): DELTA
// partitions of kDeltaOrderRows rows (or PartitionerOptions::
// max_partition_rows, if fewer) of order K. A last piece of K rows or fewer
// joins the partition before it (a partition of order K holds more than K
// rows). Long partitions keep the K Seed words a tile, the parameters and the
// partition records few; a row whose K-th difference is far off (where one
// curve ends and the next begins) is an exception.
constexpr uint32_t kDeltaOrderRows = 4096;

bool DeltaOrdersAllowed(const WriteOptions& options, const internal::EncoderConfig& config) {
  return options.format_minor >= 1 && options.delta_orders && config.partitioner.enable_delta;
}

// The partitions of the candidate of order K: pieces of kDeltaOrderRows
// rows, the last piece joined to the one before when it holds K rows or
// fewer; none where the chunk is too short.
std::vector<internal::PartitionChoice> DeltaOrderChoices(uint64_t num_rows,
                                                         const internal::EncoderConfig& config,
                                                         uint32_t order) {
  const uint32_t partition_rows =
      std::min(kDeltaOrderRows, config.partitioner.max_partition_rows);
  std::vector<internal::PartitionChoice> choices;
  if (num_rows <= order || partition_rows <= order) return choices;
  for (uint64_t row = 0; row < num_rows; row += partition_rows) {
    const auto rows = static_cast<uint32_t>(std::min<uint64_t>(partition_rows, num_rows - row));
    if (rows <= order) {
      choices.back().num_rows += rows;  // row > 0: num_rows > order rows precede it
      break;
    }
    internal::PartitionChoice choice;
    choice.num_rows = rows;
    choice.model = internal::Model::kDelta;
    choice.delta_order = order;
    choices.push_back(choice);
  }
  return choices;
}

// The hot profile first fits every kDeltaOrderSampleStride-th partition of a
// higher-order candidate, and encodes the candidate only where that sample
// costs less than the chosen chunk's partitions over the same rows by
// delta_orders_min_saving: a candidate that loses (random walks, lines)
// then costs an eighth of its fits. Chunks of fewer than two strides of
// partitions are not sampled.
constexpr uint64_t kDeltaOrderSampleStride = 8;

// What PartitionCost counts of a chunk's partitions (records, parameters,
// payload words) over rows [0, row), the partition that `row` cuts counted
// by its share of rows.
class ChunkCostByRows {
 public:
  explicit ChunkCostByRows(const internal::EncodedChunk& chunk) {
    const uint8_t* table = chunk.partition_table.data();
    first_rows_.reserve(chunk.num_partitions + 1);
    cost_before_.reserve(chunk.num_partitions + 1);
    double cost = 0;
    for (uint32_t p = 0; p <= chunk.num_partitions; ++p) {
      const internal::PartitionRecord r = internal::LoadPartitionRecord(table, p);
      if (p > 0) {
        const internal::PartitionRecord prev = internal::LoadPartitionRecord(table, p - 1);
        cost += static_cast<double>(internal::kPartitionRecordBytes +
                                    8 * uint64_t{r.param_offset - prev.param_offset} +
                                    8 * uint64_t{r.payload_offset - prev.payload_offset});
      }
      first_rows_.push_back(p < chunk.num_partitions ? r.first_row : chunk.num_rows);
      cost_before_.push_back(cost);
    }
  }
  double Before(uint64_t row) const {
    // The last partition starting at or before `row`.
    const size_t p = static_cast<size_t>(
        std::upper_bound(first_rows_.begin(), first_rows_.end(), row) - first_rows_.begin());
    if (p == 0) return 0;
    if (p >= first_rows_.size()) return cost_before_.back();
    const double span = static_cast<double>(first_rows_[p] - first_rows_[p - 1]);
    const double share = static_cast<double>(row - first_rows_[p - 1]) / span;
    return cost_before_[p - 1] + share * (cost_before_[p] - cost_before_[p - 1]);
  }

 private:
  std::vector<uint64_t> first_rows_;  // of partitions 0..P-1, then num_rows
  std::vector<double> cost_before_;
};

// Whether the hot profile's sample of `choices` says that the candidate may
// be delta_orders_min_saving smaller than `chosen`.
Result<bool> DeltaOrderSampleMayWin(const std::vector<uint8_t>& values, uint64_t num_rows,
                                    const internal::EncoderConfig& config,
                                    const WriteOptions& options,
                                    const std::vector<internal::PartitionChoice>& choices,
                                    const internal::EncodedChunk& chosen) {
  if (choices.size() < 2 * kDeltaOrderSampleStride) return true;
  L3_ASSIGN_OR_RETURN(const uint64_t sampled,
                      internal::SampledPartitionCost(values.data(), num_rows, config, choices,
                                                     kDeltaOrderSampleStride));
  const ChunkCostByRows chosen_cost(chosen);
  double chosen_sampled = 0;
  uint64_t row = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i % kDeltaOrderSampleStride == 0) {
      chosen_sampled += chosen_cost.Before(row + choices[i].num_rows) - chosen_cost.Before(row);
    }
    row += choices[i].num_rows;
  }
  return static_cast<double>(sampled) <= chosen_sampled * (1.0 - options.delta_orders_min_saving);
}

// The candidate of `choices`, or none where (hot profile) its segments would
// exceed `byte_limit` bytes, which it finds out from the first partitions it
// fits (EncodeChunkWithPartitionsWithin).
Result<std::optional<Candidate>> DeltaOrderCandidate(
    PhysicalType type, const std::vector<uint8_t>& values, uint64_t num_rows,
    const internal::EncoderConfig& config, const WriteOptions& options,
    const std::vector<internal::PartitionChoice>& choices, uint64_t byte_limit) {
  L3_ASSIGN_OR_RETURN(std::optional<internal::EncodedChunk> encoded,
                      internal::EncodeChunkWithPartitionsWithin(values.data(), num_rows, config,
                                                                choices, byte_limit));
  if (!encoded) return std::optional<Candidate>();
  L3_ASSIGN_OR_RETURN(Candidate c,
                      MakeCandidate(std::move(*encoded), type, options, config.num_threads));
  return std::optional<Candidate>(std::move(c));
}

bool WholeDeltaAllowed(const WriteOptions& options, const internal::EncoderConfig& config) {
  return FieldPlanesAllowed(options) && options.archive_large_partitions &&
         config.partitioner.enable_delta;
}

Result<std::optional<ReadyChunk>> WholeDeltaReady(PhysicalType type,
                                                  const std::vector<uint8_t>& values,
                                                  uint64_t num_rows,
                                                  const internal::EncoderConfig& config,
                                                  const WriteOptions& options,
                                                  uint64_t chosen_trial_bytes) {
  std::vector<internal::PartitionChoice> choices;
  for (uint64_t row = 0; row < num_rows; row += kWholeDeltaRows) {
    internal::PartitionChoice choice;
    choice.num_rows = static_cast<uint32_t>(std::min<uint64_t>(kWholeDeltaRows, num_rows - row));
    choice.model = internal::Model::kDelta;
    choice.delta_without_exceptions = true;
    choices.push_back(choice);
  }
  L3_ASSIGN_OR_RETURN(internal::EncodedChunk encoded,
                      internal::EncodeChunkWithPartitions(values.data(), num_rows, config, choices));
  Candidate c;
  c.encoded = std::move(encoded);
  c.field_form = internal::FieldFormFromPayload(internal::ChunkViewOf(c.encoded, type),
                                                internal::FieldForm::kFieldBytes);
  if (c.field_form.empty()) return std::optional<ReadyChunk>();
  c.form = internal::FieldForm::kFieldBytes;
  c.field_form_only = true;
  L3_ASSIGN_OR_RETURN(const uint64_t trial, TrialBytes(c.field_form, TrialLevel(options)));
  if (static_cast<double>(trial) >
      static_cast<double>(chosen_trial_bytes) * kWholeDeltaTrialSlack) {
    return std::optional<ReadyChunk>();
  }
  L3_ASSIGN_OR_RETURN(ReadyChunk ready, StoreCandidate(std::move(c), options, config.num_threads));
  return std::optional<ReadyChunk>(std::move(ready));
}

// The size by which candidates compete: trial frames in the archive profile,
// the segments' bytes in the hot profile.
uint64_t CandidateBytes(const Candidate& c, const WriteOptions& options) {
  if (options.profile == Profile::kArchive) return c.trial_bytes;
  const internal::EncodedChunk& e = c.encoded;
  return e.partition_table.size() + e.parameters.size() + e.payload.size() +
         (options.write_partition_bounds ? e.bounds.size() : 0);
}

bool DictionaryAllowed(const WriteOptions& options, const PgmIndexInfo& pgm) {
  return options.format_minor >= 1 && options.dictionary && !pgm.present;  // spec §8.10 rule 1
}

// Encodes one chunk and prepares its segments; with_sketch adds the
// distinct-count sketch to its statistics (spec §7.6.1). Runs on a worker
// thread; owns everything it touches.
Result<ReadyChunk> EncodeAndStore(PhysicalType type, std::vector<uint8_t> values,
                                  uint64_t num_rows, const WriteOptions& options,
                                  int encoder_threads, bool with_sketch) {
  try {
    internal::EncoderConfig config;
    config.type = type;
    config.values_per_lane = options.values_per_lane;
    config.partitioner = options.partitioner;
    // Format 1.0 has no DELTA, RUNS_EF or PATCHED_FOR model (spec §8.9,
    // §8.11, §8.12 are new in 1.1).
    if (options.format_minor < 1) {
      config.partitioner.enable_delta = false;
      config.partitioner.enable_runs_ef = false;
      config.partitioner.enable_patched_for = false;
    }
    if (!config.partitioner.split_min_rows) {
      // The profile's choice (PartitionerOptions::split_min_rows): the hot
      // profile keeps partitions large for the GPU, the archive profile
      // favours size.
      config.partitioner.split_min_rows =
          options.profile == Profile::kArchive ? kArchiveSplitMinRows : 0u;
    }
    if (!config.partitioner.runs_ef_min_gain) {
      config.partitioner.runs_ef_min_gain =
          options.profile == Profile::kArchive ? 0.0 : kHotRunsEfMinGain;
    }
    if (!config.partitioner.signed_exception_highs) {
      config.partitioner.signed_exception_highs = options.profile != Profile::kArchive;
    }
    if (!config.partitioner.patched_for_min_gain) {
      config.partitioner.patched_for_min_gain =
          options.profile == Profile::kArchive ? 0.0 : kHotPatchedForMinGain;
    }
    config.compute_bounds = options.write_partition_bounds;
    config.compute_statistics = options.write_statistics;
    config.num_threads = encoder_threads;
    config.planner = options.partition_planner.get();
    L3_ASSIGN_OR_RETURN(PgmIndexInfo pgm,
                        internal::BuildChunkPgm(type, values.data(), num_rows, options));
    L3_ASSIGN_OR_RETURN(Candidate chosen, EncodeCandidate(type, values, num_rows, config, options));
    // Every later encoding of these values has the same statistics.
    const internal::ChunkStatisticsData statistics = chosen.encoded.statistics;
    if (config.compute_statistics) config.known_statistics = &statistics;
    // In the hot profile, a model that the GPU decodes more slowly than the
    // others stays only where it makes the chunk `gain` smaller than without
    // it: RUNS_EF (a kernel that carries its decoder is a little slower for
    // every other model: polynomials 78% -> 70% of the copy roofline with
    // 0.4% of rows in RUNS_EF) and PATCHED_FOR (DELTA's kernel and the
    // exception patches: adult census Hours_per_week 85% -> 66% for 8% less,
    // OpenStreetMap way refs 47% -> 35% for 2%).
    // The same rule for the plain chunk and for the dictionary chunk below:
    // `encode(config)` encodes one of them; *candidate and *candidate_config
    // end as the smaller of the encodings with and without each slow model.
    const auto keep_slow_models_only_if_smaller =
        [&](const auto& encode, Candidate* candidate,
            internal::EncoderConfig* candidate_config) -> Status {
      if (options.profile != Profile::kHot) return Status::OK();
      const auto keep_only_if_smaller = [&](bool PartitionerOptions::*enable,
                                            double gain) -> Status {
        internal::EncoderConfig without = *candidate_config;
        without.partitioner.*enable = false;
        if (enable == &PartitionerOptions::enable_patched_for) {
          without.known_fits = candidate->fits_without_patched_for.get();
        }
        L3_ASSIGN_OR_RETURN(std::optional<Candidate> plain, encode(without));
        if (!plain) return Status::OK();
        if (static_cast<double>(CandidateBytes(*candidate, options)) >
            static_cast<double>(CandidateBytes(*plain, options)) * (1.0 - gain)) {
          *candidate = std::move(*plain);
          *candidate_config = without;
        }
        return Status::OK();
      };
      if (candidate->encoded.uses_runs_ef) {
        L3_RETURN_NOT_OK(keep_only_if_smaller(&PartitionerOptions::enable_runs_ef,
                                              config.partitioner.runs_ef_min_gain.value_or(0.0)));
      }
      if (candidate->encoded.uses_patched_for) {
        L3_RETURN_NOT_OK(
            keep_only_if_smaller(&PartitionerOptions::enable_patched_for,
                                 config.partitioner.patched_for_min_gain.value_or(0.0)));
      }
      return Status::OK();
    };
    const auto encode_plain =
        [&](const internal::EncoderConfig& c) -> Result<std::optional<Candidate>> {
      L3_ASSIGN_OR_RETURN(Candidate plain, EncodeCandidate(type, values, num_rows, c, options));
      return std::optional<Candidate>(std::move(plain));
    };
    const auto encode_dictionary =
        [&](const internal::EncoderConfig& c) -> Result<std::optional<Candidate>> {
      L3_ASSIGN_OR_RETURN(std::optional<internal::EncodedChunk> dict,
                          internal::EncodeDictionaryChunk(values.data(), num_rows, c));
      if (!dict) return std::optional<Candidate>();
      L3_ASSIGN_OR_RETURN(Candidate candidate,
                          MakeCandidate(std::move(*dict), type, options, c.num_threads));
      return std::optional<Candidate>(std::move(candidate));
    };
    internal::EncoderConfig chosen_config = config;
    L3_RETURN_NOT_OK(keep_slow_models_only_if_smaller(encode_plain, &chosen, &chosen_config));
    if (options.profile == Profile::kArchive && options.archive_large_partitions) {
      // The smaller of the two encodings by their trial frames; ties keep
      // the first.
      L3_ASSIGN_OR_RETURN(Candidate large, EncodeCandidate(type, values, num_rows,
                                                           LargePartitionConfig(config), options));
      if (large.trial_bytes < chosen.trial_bytes) chosen = std::move(large);
    }
    if (DeltaOrdersAllowed(options, config)) {
      // Orders 2 and 3, each kept where it is smaller than the chunk chosen
      // so far (ties keep the first): by its trial frames in the archive
      // profile, and in the hot profile by its bytes and only where
      // delta_orders_min_saving smaller (its tiles take the GPU up to three
      // warp scans a block instead of one); a hot candidate stops as soon as
      // its first partitions pass that bound.
      for (const uint32_t order : {2u, 3u}) {
        const std::vector<internal::PartitionChoice> choices =
            DeltaOrderChoices(num_rows, config, order);
        if (choices.empty()) continue;
        const bool hot = options.profile == Profile::kHot;
        if (hot) {
          L3_ASSIGN_OR_RETURN(const bool may_win,
                              DeltaOrderSampleMayWin(values, num_rows, config, options, choices,
                                                     chosen.encoded));
          if (!may_win) continue;
        }
        const uint64_t limit =
            hot ? static_cast<uint64_t>(static_cast<double>(CandidateBytes(chosen, options)) *
                                        (1.0 - options.delta_orders_min_saving))
                : UINT64_MAX;
        L3_ASSIGN_OR_RETURN(std::optional<Candidate> higher,
                            DeltaOrderCandidate(type, values, num_rows, config, options, choices,
                                                limit));
        if (higher && CandidateBytes(*higher, options) < CandidateBytes(chosen, options) &&
            CandidateBytes(*higher, options) <= limit) {
          chosen = std::move(*higher);
        }
      }
    }
    if (DictionaryAllowed(options, pgm)) {
      // spec §8.10: the same partitioners over the dictionary's elements;
      // kept only where smaller (ties keep the plain chunk), and in the hot
      // profile only where dictionary_min_saving smaller: every value then
      // costs the GPU a lookup.
      const double keep_below =
          options.profile == Profile::kArchive ? 1.0 : 1.0 - options.dictionary_min_saving;
      std::vector<internal::EncoderConfig> configs{config};
      if (options.profile == Profile::kArchive && options.archive_large_partitions) {
        configs.push_back(LargePartitionConfig(config));
      }
      for (const internal::EncoderConfig& c : configs) {
        L3_ASSIGN_OR_RETURN(std::optional<Candidate> dict, encode_dictionary(c));
        if (!dict) break;
        Candidate candidate = std::move(*dict);
        internal::EncoderConfig candidate_config = c;
        L3_RETURN_NOT_OK(
            keep_slow_models_only_if_smaller(encode_dictionary, &candidate, &candidate_config));
        const uint64_t plain = CandidateBytes(chosen, options);
        const uint64_t coded = CandidateBytes(candidate, options);
        if (coded < plain && static_cast<double>(coded) <= static_cast<double>(plain) * keep_below) {
          chosen = std::move(candidate);
        }
      }
    }
    const uint64_t chosen_trial_bytes = chosen.trial_bytes;
    L3_ASSIGN_OR_RETURN(ReadyChunk ready,
                        StoreCandidate(std::move(chosen), options, encoder_threads));
    if (WholeDeltaAllowed(options, config)) {
      // Kept only where its stored bytes are fewer (ties keep the first).
      L3_ASSIGN_OR_RETURN(std::optional<ReadyChunk> whole,
                          WholeDeltaReady(type, values, num_rows, config, options,
                                          chosen_trial_bytes));
      if (whole && whole->StoredBytes() < ready.StoredBytes()) ready = std::move(*whole);
    }
    if (with_sketch) {
      // spec §7.6.1: the chunk's distinct-count sketch, from its values.
      internal::DispatchIntegerType(type, [&](auto tag) {
        using T = decltype(tag);
        ready.statistics.distinct_sketch = internal::ComputeDistinctSketch(
            reinterpret_cast<const T*>(values.data()), num_rows, encoder_threads);
      });
    }
    values.clear();
    values.shrink_to_fit();
    ready.pgm = std::move(pgm);
    return ready;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while encoding a chunk");
  }
}

// Rows per chunk of a float column (WriteOptions::float_chunk_bytes): at
// least one, and at most 2^32 - 1 values for the integer form (§11.2.2).
uint64_t FloatChunkRows(const ColumnSpec& spec, const WriteOptions& options) {
  const uint64_t width = spec.row_width;
  const uint64_t row_bytes = width * static_cast<uint64_t>(PhysicalTypeBytes(spec.type));
  uint64_t rows = std::min(options.chunk_rows, options.float_chunk_bytes / row_bytes);
  rows = std::min(rows, kMaxChunkRows / width);
  return std::max<uint64_t>(rows, 1);
}

// spec §11.2.3: an IBP chunk's segments, stored as the profile says.
Result<ReadyChunk> EncodeIbpReady(const std::vector<uint8_t>& values, uint64_t num_rows,
                                  uint64_t row_bytes, const WriteOptions& options) {
  internal::IbpEncoderOptions ibp_options;
  ibp_options.max_masks = options.ibp_masks;
  L3_ASSIGN_OR_RETURN(internal::EncodedIbpChunk encoded,
                      internal::EncodeIbpChunk(values.data(), num_rows, row_bytes, ibp_options));
  ReadyChunk ready;
  ready.encoding = 2;
  ready.num_rows = num_rows;
  IbpInfo& info = ready.ibp;
  info.word_bytes = encoded.word_bytes;
  info.words_per_row = encoded.words_per_row;
  info.num_rows = num_rows;
  info.threshold = encoded.threshold;
  info.num_masks = encoded.num_masks;
  info.offset_bits = encoded.offset_bits;
  L3_ASSIGN_OR_RETURN(ready.segments[2], StoreSegment(std::move(encoded.payload), options));
  L3_ASSIGN_OR_RETURN(ready.ibp_segments[0], StoreSegment(std::move(encoded.masks), options));
  if (!encoded.row_offsets.empty()) {
    L3_ASSIGN_OR_RETURN(ready.ibp_segments[1], StoreSegment(std::move(encoded.row_offsets), options));
  }
  if (!encoded.mask_ids.empty()) {
    L3_ASSIGN_OR_RETURN(ready.ibp_segments[2], StoreSegment(std::move(encoded.mask_ids), options));
  }
  return ready;
}

// A float column's chunk (spec §11.2): the integer form and IBP as
// WriteOptions::float_encoding allows, keeping the smaller (ties: the
// integer form). Float chunks carry no bounds, statistics or PGM index.
Result<ReadyChunk> EncodeFloatAndStore(PhysicalType type, uint32_t row_width,
                                       std::vector<uint8_t> values, uint64_t num_rows,
                                       const WriteOptions& options, int encoder_threads) {
  try {
    const int value_bytes = PhysicalTypeBytes(type);
    const uint64_t num_values = num_rows * row_width;
    std::optional<ReadyChunk> best;
    if (options.float_encoding != FloatEncoding::kIntegerForm) {
      L3_ASSIGN_OR_RETURN(ReadyChunk ibp,
                          EncodeIbpReady(values, num_rows, num_values / num_rows * value_bytes,
                                         options));
      best = std::move(ibp);
    }
    if (options.float_encoding != FloatEncoding::kIbp) {
      WriteOptions integer_options = options;
      integer_options.write_partition_bounds = false;
      integer_options.write_statistics = false;
      integer_options.pgm = PgmMode::kOff;
      std::vector<uint8_t> mapped = values;
      internal::OrderedFromFloatInPlace(mapped.data(), num_values, value_bytes);
      L3_ASSIGN_OR_RETURN(ReadyChunk integer,
                          EncodeAndStore(internal::IntegerFormType(type), std::move(mapped),
                                         num_values, integer_options, encoder_threads,
                                         /*with_sketch=*/false));
      integer.num_rows = num_rows;
      if (!best || integer.StoredBytes() <= best->StoredBytes()) best = std::move(integer);
    }
    return std::move(*best);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while encoding a float chunk");
  }
}

}  // namespace

struct Writer::Impl {
  enum class State { kOpen, kClosed, kAborted };

  std::vector<ColumnSpec> specs;
  WriteOptions options;
  std::unique_ptr<internal::OutputSink> sink;
  internal::MemorySink* memory = nullptr;  // when in memory; owned by `sink`
  std::unique_ptr<internal::FileAssembler> assembler;
  std::vector<std::vector<uint8_t>> buffers;  // at most one chunk per column
  std::vector<uint64_t> rows;                 // values appended per column
  std::vector<uint64_t> announced;            // per column: Reserve()'s values still to come
  std::vector<uint64_t> chunk_values;         // values per full chunk, per column
  std::vector<ColumnInfo> written;            // chunks placed so far
  // Chunks being encoded, written strictly in submission order so that the
  // bytes never depend on which encode finishes first.
  struct Pending {
    int column;
    std::future<Result<ReadyChunk>> result;
  };
  std::deque<Pending> pending;
  size_t max_in_flight = 1;
  int encoder_threads = 1;
  bool asynchronous = false;
  State state = State::kOpen;
  std::vector<uint8_t> finished;  // CreateInMemory: the file after Close()

  static Result<std::unique_ptr<Impl>> Make(std::vector<ColumnSpec> columns,
                                            const WriteOptions& options,
                                            std::unique_ptr<internal::OutputSink> sink);

  Status Place(int column, ReadyChunk ready);
  /// `closing`: called by Close() for the column's last, partial chunk.
  Status Submit(int column, bool closing = false);
  /// Whether an integer chunk gets a distinct-count sketch
  /// (WriteOptions::distinct_sketch): under kMultiChunkColumns a column that
  /// is one chunk gets none.
  bool WantSketch(int column, uint64_t chunk_rows, bool closing) const;
  Status DrainOne();
  /// Caller mistakes, found before anything changes.
  Status CheckAppend(int column, const void* values, uint64_t num_values) const;
  Status AppendImpl(int column, const void* values, uint64_t num_values);
  Status CloseImpl();
  void AbortImpl() noexcept;
};

Result<std::unique_ptr<Writer::Impl>> Writer::Impl::Make(
    std::vector<ColumnSpec> columns, const WriteOptions& options,
    std::unique_ptr<internal::OutputSink> sink) {
  auto impl = std::make_unique<Impl>();
  impl->specs = std::move(columns);
  impl->options = options;
  impl->sink = std::move(sink);
  impl->assembler =
      std::make_unique<internal::FileAssembler>(impl->sink.get(), options.format_minor);
  const size_t n = impl->specs.size();
  impl->buffers.resize(n);
  impl->rows.assign(n, 0);
  impl->announced.assign(n, 0);
  impl->chunk_values.assign(n, 0);
  impl->written.resize(n);
  for (size_t c = 0; c < n; ++c) {
    const ColumnSpec& spec = impl->specs[c];
    impl->written[c].name = spec.name;
    impl->written[c].type = spec.type;
    impl->written[c].logical = spec.logical;
    impl->written[c].row_width = spec.row_width;
    impl->chunk_values[c] = PhysicalTypeIsFloat(spec.type)
                                ? FloatChunkRows(spec, options) * spec.row_width
                                : options.chunk_rows;
  }
  int threads = options.num_threads;
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Different columns' chunks are encoded concurrently; the threads left
  // over go to the encoder itself. Neither choice changes the bytes.
  impl->max_in_flight = static_cast<size_t>(std::min<int>(threads, static_cast<int>(n)));
  impl->encoder_threads = std::max(1, threads / static_cast<int>(impl->max_in_flight));
  impl->asynchronous = threads > 1;
  Status st = impl->assembler->Start();
  if (!st.ok()) {
    impl->sink->Abandon();
    return st;
  }
  return impl;
}

bool Writer::Impl::WantSketch(int column, uint64_t chunk_rows, bool closing) const {
  if (!options.write_statistics || options.format_minor < 1 ||
      options.distinct_sketch == DistinctSketchMode::kNever) {
    return false;
  }
  const bool sole_chunk = closing && rows[column] / specs[column].row_width == chunk_rows;
  return options.distinct_sketch == DistinctSketchMode::kAlways || !sole_chunk;
}

Status Writer::Impl::Place(int column, ReadyChunk ready) {
  ChunkInfo chunk;
  chunk.first_row = written[column].num_rows;
  chunk.num_rows = ready.num_rows;
  chunk.encoding = ready.encoding;  // spec §7.2
  chunk.values_per_lane = ready.values_per_lane;
  chunk.num_partitions = ready.num_partitions;
  chunk.uses_delta = ready.uses_delta;
  chunk.uses_runs_ef = ready.uses_runs_ef;
  chunk.uses_patched_for = ready.uses_patched_for;
  chunk.uses_patched_rows_ef = ready.uses_patched_rows_ef;
  chunk.uses_delta_orders = ready.uses_delta_orders;
  chunk.dictionary_entries = ready.dictionary_entries;
  SegmentInfo* refs[4] = {&chunk.partition_table, &chunk.parameters, &chunk.payload,
                          &chunk.bounds};
  for (int i = 0; i < 4; ++i) {
    const StoredSegment& seg = ready.segments[i];
    if (!seg.present) continue;
    L3_ASSIGN_OR_RETURN(*refs[i], assembler->AppendSegment(seg.bytes.data(), seg.bytes.size(),
                                                           seg.decoded_bytes, seg.compression));
    chunk.stored_bytes += seg.bytes.size();
  }
  if (ready.encoding == 2) {
    // spec §11.2.3: the masks, row index and mask ids after the rows.
    chunk.has_ibp = true;
    chunk.ibp = ready.ibp;
    SegmentInfo* ibp_refs[3] = {&chunk.ibp.masks, &chunk.ibp.row_offsets, &chunk.ibp.mask_ids};
    for (int i = 0; i < 3; ++i) {
      const StoredSegment& seg = ready.ibp_segments[i];
      if (!seg.present) continue;
      L3_ASSIGN_OR_RETURN(*ibp_refs[i], assembler->AppendSegment(seg.bytes.data(), seg.bytes.size(),
                                                                 seg.decoded_bytes, seg.compression));
      chunk.stored_bytes += seg.bytes.size();
    }
  }
  chunk.statistics = ready.statistics;
  chunk.has_pgm = ready.pgm.present;
  chunk.pgm = std::move(ready.pgm);
  written[column].num_rows += chunk.num_rows;
  written[column].stored_bytes += chunk.stored_bytes;
  written[column].chunks.push_back(std::move(chunk));
  return Status::OK();
}

Status Writer::Impl::DrainOne() {
  Pending next = std::move(pending.front());
  pending.pop_front();
  Result<ReadyChunk> ready = next.result.get();
  if (!ready.ok()) return ready.status();
  return Place(next.column, std::move(ready).value());
}

Status Writer::Impl::Submit(int column, bool closing) {
  std::vector<uint8_t> values = std::move(buffers[column]);
  buffers[column] = std::vector<uint8_t>();
  const PhysicalType type = specs[column].type;
  const uint32_t width = specs[column].row_width;
  const uint64_t num_rows =
      values.size() / static_cast<size_t>(PhysicalTypeBytes(type)) / width;
  const bool is_float = PhysicalTypeIsFloat(type);
  const bool with_sketch = !is_float && WantSketch(column, num_rows, closing);
  if (!asynchronous) {
    Result<ReadyChunk> ready =
        is_float ? EncodeFloatAndStore(type, width, std::move(values), num_rows, options,
                                       encoder_threads)
                 : EncodeAndStore(type, std::move(values), num_rows, options, encoder_threads,
                                  with_sketch);
    if (!ready.ok()) return ready.status();
    return Place(column, std::move(ready).value());
  }
  while (pending.size() >= max_in_flight) L3_RETURN_NOT_OK(DrainOne());
  Pending p;
  p.column = column;
  try {
    if (is_float) {
      p.result = std::async(std::launch::async, EncodeFloatAndStore, type, width,
                            std::move(values), num_rows, options, encoder_threads);
    } else {
      p.result = std::async(std::launch::async, EncodeAndStore, type, std::move(values), num_rows,
                            options, encoder_threads, with_sketch);
    }
  } catch (const std::system_error& e) {
    // The system refused a thread; the chunk's values may already have moved
    // into the failed task, so the write cannot go on.
    return Status(StatusCode::kOutOfMemory, std::string("cannot start an encoder thread: ") + e.what());
  }
  pending.push_back(std::move(p));
  return Status::OK();
}

Status Writer::Impl::CheckAppend(int column, const void* values, uint64_t num_values) const {
  if (state != State::kOpen) return Invalid("Append after Close or Abort");
  if (column < 0 || column >= static_cast<int>(specs.size())) {
    return Invalid("column " + std::to_string(column) + " does not exist");
  }
  if (num_values > 0 && values == nullptr) return Invalid("values is null");
  if (num_values > UINT64_MAX - rows[column]) return Invalid("row count overflows 64 bits");
  return Status::OK();
}

Status Writer::Impl::AppendImpl(int column, const void* values, uint64_t num_values) {
  const size_t value_bytes = static_cast<size_t>(PhysicalTypeBytes(specs[column].type));
  const uint64_t chunk_size = chunk_values[column];  // values of one full chunk
  const uint8_t* src = static_cast<const uint8_t*>(values);
  std::vector<uint8_t>& buffer = buffers[column];
  while (num_values > 0) {
    const uint64_t buffered = buffer.size() / value_bytes;
    const uint64_t take = std::min(num_values, chunk_size - buffered);
    const size_t bytes = static_cast<size_t>(take) * value_bytes;
    if (buffer.capacity() < buffer.size() + bytes) {
      // Grow geometrically, but never past one chunk; at once to the values
      // announced by Reserve().
      const size_t chunk_bytes = static_cast<size_t>(chunk_size) * value_bytes;
      const size_t announced_bytes =
          static_cast<size_t>(std::min(announced[column], chunk_size - buffered)) * value_bytes;
      buffer.reserve(std::min(chunk_bytes, std::max({2 * buffer.capacity(), buffer.size() + bytes,
                                                     buffer.size() + announced_bytes})));
    }
    buffer.insert(buffer.end(), src, src + bytes);
    announced[column] -= std::min(announced[column], take);
    src += bytes;
    num_values -= take;
    rows[column] += take;
    // A full chunk leaves the buffer at once: at most one chunk per column.
    if (buffered + take == chunk_size) L3_RETURN_NOT_OK(Submit(column));
  }
  return Status::OK();
}

Status Writer::Impl::CloseImpl() {
  if (state != State::kOpen) return Invalid("Close after Close or Abort");
  for (size_t c = 0; c < rows.size(); ++c) {
    if (rows[c] % specs[c].row_width != 0) {
      return Invalid("column " + std::to_string(c) + " ends inside a row: " +
                     std::to_string(rows[c]) + " values is not a multiple of its row_width " +
                     std::to_string(specs[c].row_width));
    }
  }
  const uint64_t num_rows = rows[0] / specs[0].row_width;
  for (size_t c = 1; c < rows.size(); ++c) {
    if (rows[c] / specs[c].row_width != num_rows) {
      return Invalid("columns have different row counts: column 0 has " +
                     std::to_string(num_rows) + ", column " + std::to_string(c) + " has " +
                     std::to_string(rows[c] / specs[c].row_width));
    }
  }
  // The partial chunks, in column order.
  for (size_t c = 0; c < buffers.size(); ++c) {
    if (!buffers[c].empty()) L3_RETURN_NOT_OK(Submit(static_cast<int>(c), /*closing=*/true));
  }
  while (!pending.empty()) L3_RETURN_NOT_OK(DrainOne());
  FileInfo info;
  info.num_rows = num_rows;
  info.writer_name = kWriterName;
  info.writer_version = LibraryVersion();
  info.metadata = options.metadata;
  L3_RETURN_NOT_OK(assembler->Finish(info, written));
  if (options.cancel != nullptr && *options.cancel != 0) {
    return Status(StatusCode::kIoError, "cancelled before the file was renamed into place");
  }
  L3_RETURN_NOT_OK(sink->Commit());
  if (memory != nullptr) finished = memory->Take();
  state = State::kClosed;
  return Status::OK();
}

void Writer::Impl::AbortImpl() noexcept {
  // Encodes in flight own their inputs; wait for them so no thread outlives
  // the writer, and drop their results.
  for (Pending& p : pending) {
    if (p.result.valid()) p.result.wait();
  }
  pending.clear();
  if (sink) sink->Abandon();
  for (auto& b : buffers) {
    b.clear();
    b.shrink_to_fit();
  }
  if (state == State::kOpen) state = State::kAborted;
}

// ---------------------------------------------------------------------------
// Public API

Writer::Writer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&& other) noexcept {
  if (this != &other) {
    Abort();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
Writer::~Writer() { Abort(); }

Result<Writer> Writer::Create(const std::string& path, std::vector<ColumnSpec> columns,
                              const WriteOptions& options) {
  try {
    L3_RETURN_NOT_OK(ValidateSchema(columns, options));
    L3_RETURN_NOT_OK(ValidateOptions(options));
    L3_ASSIGN_OR_RETURN(auto sink, internal::AtomicFileSink::Create(path));
    L3_ASSIGN_OR_RETURN(auto impl, Impl::Make(std::move(columns), options, std::move(sink)));
    return Writer(std::move(impl));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory");
  }
}

Result<Writer> Writer::CreateInMemory(std::vector<ColumnSpec> columns,
                                      const WriteOptions& options) {
  try {
    L3_RETURN_NOT_OK(ValidateSchema(columns, options));
    L3_RETURN_NOT_OK(ValidateOptions(options));
    auto sink = std::make_unique<internal::MemorySink>();
    internal::MemorySink* memory = sink.get();
    L3_ASSIGN_OR_RETURN(auto impl, Impl::Make(std::move(columns), options, std::move(sink)));
    impl->memory = memory;
    return Writer(std::move(impl));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory");
  }
}

Status Writer::Append(int column, const void* values, uint64_t num_values) {
  if (!impl_) return Invalid("moved-from Writer");
  // Caller mistakes leave the writer usable.
  L3_RETURN_NOT_OK(impl_->CheckAppend(column, values, num_values));
  Status st;
  try {
    st = impl_->AppendImpl(column, values, num_values);
  } catch (const std::bad_alloc&) {
    st = Status(StatusCode::kOutOfMemory, "out of memory while buffering values");
  }
  // Anything else (I/O, encoding, memory) has left a partial file behind, so
  // the write is abandoned.
  if (!st.ok()) impl_->AbortImpl();
  return st;
}

Status Writer::Reserve(int column, uint64_t num_values) {
  if (!impl_) return Invalid("moved-from Writer");
  Impl& w = *impl_;
  if (w.state != Impl::State::kOpen) return Invalid("Reserve after Close or Abort");
  if (column < 0 || column >= static_cast<int>(w.specs.size())) {
    return Invalid("column " + std::to_string(column) + " does not exist");
  }
  w.announced[column] = num_values;
  const size_t value_bytes = static_cast<size_t>(PhysicalTypeBytes(w.specs[column].type));
  std::vector<uint8_t>& buffer = w.buffers[column];
  const uint64_t room = w.chunk_values[column] - buffer.size() / value_bytes;
  try {
    buffer.reserve(buffer.size() + static_cast<size_t>(std::min(num_values, room)) * value_bytes);
  } catch (const std::bad_alloc&) {
    w.announced[column] = 0;
    return Status(StatusCode::kOutOfMemory, "out of memory while reserving a column's buffer");
  }
  return Status::OK();
}

Status Writer::Close() {
  if (!impl_) return Invalid("moved-from Writer");
  Status st;
  try {
    st = impl_->CloseImpl();
  } catch (const std::bad_alloc&) {
    st = Status(StatusCode::kOutOfMemory, "out of memory while closing");
  }
  if (!st.ok()) impl_->AbortImpl();
  return st;
}

void Writer::Abort() noexcept {
  if (impl_ && impl_->state != Impl::State::kClosed) impl_->AbortImpl();
}

std::vector<uint8_t> Writer::TakeBuffer() {
  if (!impl_) return {};
  return std::move(impl_->finished);
}

int Writer::num_columns() const { return impl_ ? static_cast<int>(impl_->specs.size()) : 0; }

uint64_t Writer::rows_appended(int column) const {
  if (!impl_ || column < 0 || column >= num_columns()) return 0;
  return impl_->rows[column] / impl_->specs[column].row_width;
}

namespace detail {
PhysicalType WriterColumnType(const Writer& writer, int column, bool* ok) {
  *ok = writer.impl_ && column >= 0 && column < static_cast<int>(writer.impl_->specs.size());
  return *ok ? writer.impl_->specs[column].type : PhysicalType::kInt64;
}
}  // namespace detail

}  // namespace l3
