// Reader::LowerBound / Find / LowerBoundBatch (spec §11.3.3): the index
// predicts a window of rows, only those rows are decoded, and the answer is
// checked against its neighbours, so that an index that does not hold its
// promise costs a binary search over the chunk, never a wrong answer or an
// out-of-bounds read.
//
// The lookups work on the reader's prepared chunks (Reader::GetChunkView: the
// checks of spec §10.2 made once per chunk, its segments held for the whole
// call) rather than through ReadRows:
//  - a bisection reads the rows it probes by random access (spec §8.3–§8.7),
//    keeping the partition of the previous probe;
//  - a window that touches a DELTA partition (spec §8.9), whose rows each
//    depend on the rows before them in their tile, is decoded once
//    (DecodeDeltaWindow: the tile's rows before it summed lane by lane) and
//    bisected in memory;
//  - LowerBoundBatch sorts the keys and answers them in key order (in
//    slices, one per thread, with ReadOptions::num_threads), so that the
//    chunk, its last row, the index's leaf segment (PgmPredictSorted) and
//    decoded rows serve many keys; where the keys are dense, windows are
//    decoded as spans of several tiles that the following keys reuse.
//    Answers go back in the order given.
// Every row value is the decoder's, whichever way it was reached, and every
// step (window, bisection, neighbour checks, fallback, chunk skipping) is the
// one the CUDA kernel (pgm_lookup.cuh) mirrors, so the rows returned are the
// same for any bytes. A batch that meets an error answers its keys again one
// by one in the order given, so that it returns what a loop of LowerBound
// calls returns.
#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "common/parallel.hpp"
#include "common/status_macros.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"
#include "pgm/pgm.hpp"

namespace l3 {
namespace {

/// spec §11.3.1: the ordered key of a value of the column's type.
template <typename T>
uint64_t OrderedKeyOf(T value) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(value)) ^ (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(value);
  }
}

/// Ordered keys of the rows of one prepared chunk. A row comes from the
/// decoded span when the span holds it, otherwise by random access of that
/// row alone; both give the decoder's value.
template <typename T>
class ChunkKeys {
 public:
  /// `span_rows` > 0 (a batch of close keys): every window is decoded as a
  /// span of at least that many rows, which the next windows reuse.
  ChunkKeys(const ChunkView& view, uint64_t span_rows)
      : view_(view), span_rows_(span_rows), is_signed_(PhysicalTypeIsSigned(view.type)) {}

  /// Readies rows [begin, end) (begin < end <= num_rows) for a bisection.
  /// A row of a DELTA partition (spec §8.9) read alone costs a scan of its
  /// tile, so a window that touches one is decoded whole, its DELTA rows by
  /// DecodeDeltaWindow (one pass from the tile's first row). Other windows
  /// are left to random access. With span_rows (a batch of close keys) the
  /// window is decoded as a range of at least span_rows rows instead, from
  /// the first row of its DELTA tile, for the next windows to reuse.
  Status Cover(uint64_t begin, uint64_t end) {
    if (begin >= span_begin_ && end <= span_end_) return Status::OK();
    if (view_.dictionary_entries > 0) {
      // spec §8.10: a dictionary chunk never carries an index (the footer
      // rejects one), so this is not reached; were it, its window is decoded
      // exactly as a range read would decode it, code checks included.
      return DecodeSpan(begin, end);
    }
    const uint64_t tile_rows = uint64_t{internal::kLanes} * view_.values_per_lane;
    const uint32_t first = internal::FindPartition(view_, begin);
    bool any_delta = false;
    uint64_t from = begin;
    for (uint32_t p = first; p < view_.num_partitions; ++p) {
      const internal::PartitionRecord rec = internal::LoadPartitionRecord(view_.partition_table, p);
      if (rec.first_row >= end) break;
      if (rec.model_type != static_cast<uint8_t>(internal::Model::kDelta)) continue;
      any_delta = true;
      if (p == first) from = rec.first_row + (begin - rec.first_row) / tile_rows * tile_rows;
    }
    if (span_rows_ > 0) {
      return DecodeSpan(from, std::max(end, std::min<uint64_t>(view_.num_rows, from + span_rows_)));
    }
    if (!any_delta) return Status::OK();
    // The window alone: DELTA partitions by DecodeDeltaWindow, the others
    // (a window that crosses into one) as ranges.
    span_begin_ = span_end_ = 0;
    span_.resize(static_cast<size_t>(end - begin));
    for (uint32_t p = first; p < view_.num_partitions; ++p) {
      const internal::Partition part = internal::LoadPartition(view_, p);
      if (part.first_row >= end) break;
      const uint64_t lb = std::max(begin, part.first_row);
      const uint64_t le = std::min(end, part.first_row + part.num_rows);
      T* out = span_.data() + (lb - begin);
      if (part.model == static_cast<uint8_t>(internal::Model::kDelta)) {
        internal::DecodeDeltaWindow(part, view_.values_per_lane, lb - part.first_row,
                                    le - part.first_row, out);
      } else {
        L3_RETURN_NOT_OK(internal::DecodeChunkRows(view_, lb, le, out));
      }
    }
    span_begin_ = begin;
    span_end_ = end;
    return Status::OK();
  }

  /// The ordered key (spec §11.3.1) of chunk row `row` (< num_rows).
  Status Key(uint64_t row, uint64_t* key) {
    if (KeyInSpan(row, key)) return Status::OK();
    return KeyByRandomAccess(row, key);
  }

  /// Key() for a row the decoded span holds (false otherwise): the common
  /// case of a batch, without a Status.
  bool KeyInSpan(uint64_t row, uint64_t* key) const {
    if (row < span_begin_ || row >= span_end_) return false;
    *key = OrderedKeyOf(span_[static_cast<size_t>(row - span_begin_)]);
    return true;
  }

 private:
  Status KeyByRandomAccess(uint64_t row, uint64_t* key) {
    uint64_t canonical = 0;
    if (view_.dictionary_entries > 0) {
      L3_RETURN_NOT_OK(internal::DecodeChunkValue(view_, row, &canonical));
    } else {
      if (!has_partition_ || row < partition_.first_row ||
          row - partition_.first_row >= partition_.num_rows) {
        partition_ = internal::LoadPartition(view_, internal::FindPartition(view_, row));
        has_partition_ = true;
      }
      L3_RETURN_NOT_OK(internal::DecodePartitionValue(view_, partition_, row, &canonical));
    }
    *key = internal::PgmOrderedKey(canonical, is_signed_);
    return Status::OK();
  }

  // span_ = rows [from, to), decoded as a range read decodes them.
  Status DecodeSpan(uint64_t from, uint64_t to) {
    span_begin_ = span_end_ = 0;
    span_.resize(static_cast<size_t>(to - from));
    L3_RETURN_NOT_OK(internal::DecodeChunkRows(view_, from, to, span_.data()));
    span_begin_ = from;
    span_end_ = to;
    return Status::OK();
  }

  const ChunkView& view_;
  uint64_t span_rows_;
  bool is_signed_;
  std::vector<T> span_;  // values of chunk rows [span_begin_, span_end_)
  uint64_t span_begin_ = 0, span_end_ = 0;
  internal::Partition partition_;  // of the last row read by random access
  bool has_partition_ = false;
};

/// The first row of a chunk whose ordered key is >= x, or num_rows; `*key`
/// receives that row's ordered key when the row is < num_rows.
/// `segments_below`, when not null, is PgmPredictSorted's position for keys
/// that come to this chunk in non-decreasing order.
template <typename T>
Status ChunkLowerBound(const PgmIndexInfo& pgm, uint64_t n, ChunkKeys<T>& keys, uint64_t x,
                       uint64_t* segments_below, uint64_t* row, uint64_t* key) {
  const internal::PgmWindow w = segments_below != nullptr
                                    ? internal::PgmPredictSorted(pgm, x, segments_below)
                                    : internal::PgmPredict(pgm, x);
  // Rows [lo - 1, hi + 1): the window and one neighbour on each side.
  const uint64_t begin = w.lo > 0 ? w.lo - 1 : 0;
  const uint64_t end = w.hi < n ? w.hi + 1 : n;
  L3_RETURN_NOT_OK(keys.Cover(begin, end));
  // Bisection over the window: the first row of [lo, hi) whose key is >= x,
  // or hi. The CUDA backend's batched lookup bisects the same way, so both
  // give the same row on any bytes. The last probes below and at-or-above x
  // are kept: they are the neighbours checked next when the bisection moved
  // both ends.
  constexpr uint64_t kNone = ~uint64_t{0};
  uint64_t below_row = kNone, below_key = 0, above_row = kNone, above_key = 0;
  uint64_t a = w.lo, b = w.hi;
  while (a < b) {
    const uint64_t mid = a + (b - a) / 2;
    uint64_t k = 0;
    if (!keys.KeyInSpan(mid, &k)) L3_RETURN_NOT_OK(keys.Key(mid, &k));
    if (k < x) {
      a = mid + 1;
      below_row = mid;
      below_key = k;
    } else {
      b = mid;
      above_row = mid;
      above_key = k;
    }
  }
  const uint64_t r = a;
  bool left_ok = r == 0;
  if (!left_ok) {
    uint64_t k = below_key;
    if (below_row != r - 1 && !keys.KeyInSpan(r - 1, &k)) L3_RETURN_NOT_OK(keys.Key(r - 1, &k));
    left_ok = k < x;
  }
  bool right_ok = r == n;
  if (!right_ok) {
    uint64_t k = above_key;
    if (above_row != r && !keys.KeyInSpan(r, &k)) L3_RETURN_NOT_OK(keys.Key(r, &k));
    right_ok = k >= x;
    *key = k;
  }
  if (left_ok && right_ok) {
    *row = r;
    return Status::OK();
  }
  // The index missed: binary search over the chunk, one row at a time.
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    uint64_t k = 0;
    L3_RETURN_NOT_OK(keys.Key(mid, &k));
    if (k < x) lo = mid + 1; else hi = mid;
  }
  if (lo < n) L3_RETURN_NOT_OK(keys.Key(lo, key));
  *row = lo;
  return Status::OK();
}

/// Lower bounds over the chunks of one column, which are each sorted: the
/// first chunk holding a value >= the key, then the row within it. Keeps a
/// few prepared chunks (with their decoded spans) and the ordered key of each
/// chunk's last row once read, so that a sequence of keys prepares a chunk
/// once, not once per key.
template <typename T>
class ColumnSearch {
 public:
  ColumnSearch(const Reader& reader, int column, uint64_t span_rows)
      : reader_(reader),
        column_(column),
        col_(reader.column(column)),
        is_signed_(PhysicalTypeIsSigned(col_.type)),
        span_rows_(span_rows) {}

  /// Keys that come in non-decreasing order (by ordered key) start past the
  /// chunks that every earlier key skipped by their statistics (the skip
  /// rule below holds for all larger keys too), and find their leaf segments
  /// from the previous key's (PgmPredictSorted).
  void set_keys_sorted(bool sorted) { keys_sorted_ = sorted; }

  /// The first row of the column whose value is >= the ordered key x, or
  /// num_rows; `*key` receives that row's ordered key when there is one.
  Status LowerBound(uint64_t x, uint64_t* row, uint64_t* key) {
    bool skipped_so_far = true;
    for (size_t k = keys_sorted_ ? skipped_prefix_ : 0; k < col_.chunks.size(); ++k) {
      const ChunkInfo& chunk = col_.chunks[k];
      // Statistics are checked by deep validation only (spec §10.3), so they
      // may skip a chunk only when its last row, its maximum, confirms them:
      // wrong statistics then cost one row, never a wrong answer.
      const ChunkStatistics& st = chunk.statistics;
      if (st.present && st.has_min_max && internal::PgmOrderedKey(st.max_value, is_signed_) < x) {
        uint64_t last = 0;
        L3_RETURN_NOT_OK(LastKey(k, &last));
        if (last < x) {
          if (skipped_so_far) skipped_prefix_ = k + 1;
          continue;
        }
      }
      skipped_so_far = false;
      ChunkState* state = nullptr;
      L3_RETURN_NOT_OK(Use(k, &state));
      uint64_t r = 0;
      L3_RETURN_NOT_OK(ChunkLowerBound(chunk.pgm, chunk.num_rows, *state->keys, x,
                                       keys_sorted_ ? &state->segments_below : nullptr, &r, key));
      if (r < chunk.num_rows) {
        *row = chunk.first_row + r;
        return Status::OK();
      }
    }
    *row = col_.num_rows;
    return Status::OK();
  }

 private:
  struct ChunkState {
    size_t chunk = 0;
    ChunkView view;
    std::optional<ChunkKeys<T>> keys;  // reading `view`
    uint64_t segments_below = 0;       // PgmPredictSorted's position
    uint64_t last_use = 0;
  };
  /// Chunks held at once: a key that walks through a chunk without an
  /// answer (statistics absent or wrong) into the next keeps both.
  static constexpr size_t kHeldChunks = 4;

  /// The prepared chunk k (spec §10.2 checks on its first use), held.
  Status Use(size_t k, ChunkState** state) {
    ++uses_;
    ChunkState* fresh = nullptr;  // a free place, else the least recently used
    for (ChunkState& held : held_) {
      if (held.keys && held.chunk == k) {
        held.last_use = uses_;
        *state = &held;
        return Status::OK();
      }
      if (fresh == nullptr || (fresh->keys && (!held.keys || held.last_use < fresh->last_use))) {
        fresh = &held;
      }
    }
    L3_ASSIGN_OR_RETURN(ChunkView view, reader_.GetChunkView(column_, static_cast<int>(k)));
    fresh->keys.reset();
    fresh->chunk = k;
    fresh->view = std::move(view);
    fresh->keys.emplace(fresh->view, span_rows_);
    fresh->segments_below = 0;
    fresh->last_use = uses_;
    *state = fresh;
    return Status::OK();
  }

  /// The ordered key of chunk k's last row, read once.
  Status LastKey(size_t k, uint64_t* key) {
    if (has_last_key_.empty()) {
      last_key_.resize(col_.chunks.size());
      has_last_key_.resize(col_.chunks.size(), 0);
    }
    if (!has_last_key_[k]) {
      ChunkState* state = nullptr;
      L3_RETURN_NOT_OK(Use(k, &state));
      L3_RETURN_NOT_OK(state->keys->Key(col_.chunks[k].num_rows - 1, &last_key_[k]));
      has_last_key_[k] = 1;
    }
    *key = last_key_[k];
    return Status::OK();
  }

  const Reader& reader_;
  int column_;
  const ColumnInfo& col_;
  bool is_signed_;
  uint64_t span_rows_;
  bool keys_sorted_ = false;
  size_t skipped_prefix_ = 0;  // chunks every key so far skipped (sorted keys)
  std::array<ChunkState, kHeldChunks> held_;  // in place: `keys` reads `view`
  uint64_t uses_ = 0;
  std::vector<uint64_t> last_key_;      // per chunk, once read
  std::vector<uint8_t> has_last_key_;  // empty until a chunk's last row is read
};

Status CheckIndexed(const Reader& reader, int column) {
  if (column < 0 || column >= reader.num_columns()) {
    return Status(StatusCode::kOutOfRange, "column " + std::to_string(column) + " does not exist");
  }
  const ColumnInfo& col = reader.column(column);
  if (!PhysicalTypeIsInteger(col.type)) {
    return Status(StatusCode::kUnsupportedFeature, "column " + col.name + " is not an integer column");
  }
  for (size_t k = 0; k < col.chunks.size(); ++k) {
    if (!col.chunks[k].pgm.present) {
      return Status(StatusCode::kUnsupportedFeature,
                    "column " + col.name + " chunk " + std::to_string(k) + " has no PGM index");
    }
  }
  return Status::OK();
}

/// Calls fn(T{}) with the C++ type of an integer column.
template <typename Fn>
Status WithColumnType(PhysicalType type, Fn&& fn) {
  Status st;
  uint8_t probe = 0;
  internal::DispatchIntegerType(type, &probe, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    st = fn(T{});
  });
  return st;
}

/// One key, as Reader::LowerBound answers it: `*key_at_row` receives the
/// ordered key of the row found, when it is not the row count.
Status SingleLowerBound(const Reader& reader, int column, uint64_t key, uint64_t* row,
                        uint64_t* key_at_row) {
  const ColumnInfo& col = reader.column(column);
  return WithColumnType(col.type, [&](auto zero) -> Status {
    using T = decltype(zero);
    ColumnSearch<T> search(reader, column, /*span_rows=*/0);
    return search.LowerBound(internal::PgmOrderedKey(key, PhysicalTypeIsSigned(col.type)), row,
                             key_at_row);
  });
}

/// One key of a batch: its ordered key (spec §11.3.1), then its answer,
/// and its place in the caller's arrays.
struct BatchKey {
  uint64_t value;
  size_t position;
};

/// Sorts a batch by ordered key. A radix sort, least significant byte
/// first, that skips the bytes all keys share: O(n) where a comparison sort
/// of a million keys costs about as much as their lookups. The order among
/// equal keys does not matter (they get one answer).
void SortByKey(std::vector<BatchKey>* keys) {
  const size_t n = keys->size();
  if (n < 4096) {
    std::sort(keys->begin(), keys->end(),
              [](const BatchKey& a, const BatchKey& b) { return a.value < b.value; });
    return;
  }
  std::vector<size_t> counts(8 * 256, 0);  // per byte position, per byte value
  for (const BatchKey& k : *keys) {
    for (int b = 0; b < 8; ++b) ++counts[256 * b + ((k.value >> (8 * b)) & 0xFF)];
  }
  std::vector<BatchKey> sorted(n);
  for (int b = 0; b < 8; ++b) {
    size_t* count = counts.data() + 256 * b;
    if (count[((*keys)[0].value >> (8 * b)) & 0xFF] == n) continue;  // one value for all
    size_t offset = 0;
    for (int v = 0; v < 256; ++v) {
      const size_t c = count[v];
      count[v] = offset;
      offset += c;
    }
    for (const BatchKey& k : *keys) sorted[count[(k.value >> (8 * b)) & 0xFF]++] = k;
    keys->swap(sorted);
  }
}

/// Keys a thread of LowerBoundBatch answers at least (ReadOptions::num_threads).
constexpr size_t kMinKeysPerThread = size_t{1} << 14;

Status OutOfMemory() { return Status(StatusCode::kOutOfMemory, "allocation failed"); }

/// Rows a batch decodes at once when its keys are close: four SLAP tiles of
/// the default 64 values per lane (spec §8.5), so that a span of a DELTA
/// partition, which starts on a tile, reaches well past the window.
constexpr uint64_t kDenseSpanRows = 8192;
/// Keys are close when the column has at most this many rows per key on
/// average: a span then serves dozens of keys, and decoding it costs less
/// than their probes.
constexpr uint64_t kDenseRowsPerKey = 256;

/// LowerBoundBatch: the keys sorted, answered in key order (in slices, one
/// per thread), the rows written back in the order given.
Status BatchLowerBound(const Reader& reader, const ReadOptions& options, int column,
                       const uint64_t* keys, size_t num_keys, uint64_t* rows) {
  L3_RETURN_NOT_OK(CheckIndexed(reader, column));
  if (num_keys == 0) return Status::OK();
  if (keys == nullptr || rows == nullptr) {
    return Status(StatusCode::kInvalidArgument, "keys or rows is null");
  }
  const ColumnInfo& col = reader.column(column);
  const bool is_signed = PhysicalTypeIsSigned(col.type);
  const uint64_t span_rows = col.num_rows / num_keys <= kDenseRowsPerKey ? kDenseSpanRows : 0;
  size_t threads = options.num_threads == 0 ? std::thread::hardware_concurrency()
                                            : static_cast<size_t>(std::max(options.num_threads, 1));
  threads = std::max<size_t>(1, std::min(threads, num_keys / kMinKeysPerThread));
  const Status st = WithColumnType(col.type, [&](auto zero) -> Status {
    using T = decltype(zero);
    // The keys in key order; a key equal to the one before it has its
    // answer. Each key's value is replaced by its answer, and `rows` is
    // written only when every key has one.
    std::vector<BatchKey> order(num_keys);
    for (size_t i = 0; i < num_keys; ++i) {
      order[i] = {internal::PgmOrderedKey(keys[i], is_signed), i};
    }
    SortByKey(&order);
    // Slice t of `threads` equal slices of the sorted keys, on its own
    // search (its own prepared chunks and spans).
    std::vector<Status> results(threads);
    const auto answer_slice = [&](size_t t) {
      try {
        ColumnSearch<T> search(reader, column, span_rows);
        search.set_keys_sorted(true);
        const size_t begin = num_keys / threads * t;
        const size_t end = t + 1 == threads ? num_keys : num_keys / threads * (t + 1);
        uint64_t row = 0, key_at_row = 0, previous_key = 0;
        for (size_t i = begin; i < end; ++i) {
          const uint64_t x = order[i].value;
          if (i == begin || x != previous_key) {
            const Status found = search.LowerBound(x, &row, &key_at_row);
            if (!found.ok()) {
              results[t] = found;
              return;
            }
          }
          previous_key = x;
          order[i].value = row;
        }
      } catch (const std::bad_alloc&) {
        results[t] = OutOfMemory();
      }
    };
    internal::RunSlices(threads, answer_slice);
    for (Status& result : results) {
      if (!result.ok()) return std::move(result);
    }
    for (const BatchKey& answer : order) rows[answer.position] = answer.value;
    return Status::OK();
  });
  if (st.ok()) return st;
  // An error: the keys once more one by one in the order given, so that the
  // status (and the rows written before it) are those of LowerBound on each
  // key in turn.
  for (size_t i = 0; i < num_keys; ++i) {
    L3_ASSIGN_OR_RETURN(rows[i], reader.LowerBound(column, keys[i]));
  }
  return Status::OK();
}

}  // namespace

Result<uint64_t> Reader::LowerBound(int column, uint64_t key) const {
  try {
    L3_RETURN_NOT_OK(CheckIndexed(*this, column));
    uint64_t row = 0, key_at_row = 0;
    L3_RETURN_NOT_OK(SingleLowerBound(*this, column, key, &row, &key_at_row));
    return row;
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Result<std::optional<uint64_t>> Reader::Find(int column, uint64_t key) const {
  try {
    L3_RETURN_NOT_OK(CheckIndexed(*this, column));
    uint64_t row = 0, key_at_row = 0;
    L3_RETURN_NOT_OK(SingleLowerBound(*this, column, key, &row, &key_at_row));
    const ColumnInfo& col = this->column(column);
    if (row == col.num_rows) return std::optional<uint64_t>();
    // The row's value equals `key` exactly when their ordered keys are equal
    // (spec §11.3.1 maps canonical values one to one); a key that is not a
    // canonical value of the type matches no row.
    if (key_at_row != internal::PgmOrderedKey(key, PhysicalTypeIsSigned(col.type))) {
      return std::optional<uint64_t>();
    }
    return std::optional<uint64_t>(row);
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

Status Reader::LowerBoundBatch(int column, const uint64_t* keys, size_t num_keys,
                               uint64_t* rows) const {
  try {
    return BatchLowerBound(*this, internal::ReaderOptions(*impl_), column, keys, num_keys, rows);
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  }
}

}  // namespace l3
