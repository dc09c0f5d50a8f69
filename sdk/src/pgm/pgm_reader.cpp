// Reader::LowerBound / Find / LowerBoundBatch (spec §11.3.3): the index
// predicts a window of rows, only those rows are decoded (random access), and
// the answer is checked against its neighbours, so that an index that does
// not hold its promise costs a binary search over the chunk, never a wrong
// answer or an out-of-bounds read.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/bits.hpp"
#include "l3/l3.hpp"
#include "common/status_macros.hpp"
#include "pgm/pgm.hpp"

namespace l3 {
namespace {

class ChunkSearch {
 public:
  ChunkSearch(const Reader& reader, int column, const ColumnInfo& col, const ChunkInfo& chunk)
      : reader_(reader), column_(column), chunk_(chunk) {
    bytes_ = PhysicalTypeBytes(col.type);
    signed_ = PhysicalTypeIsSigned(col.type);
  }

  // The first row of the chunk whose ordered key is >= x, or num_rows.
  Result<uint64_t> LowerBound(uint64_t x) {
    const uint64_t n = chunk_.num_rows;
    const internal::PgmWindow w = internal::PgmPredict(chunk_.pgm, x);
    // Rows [lo - 1, hi + 1): the window and one neighbour on each side.
    const uint64_t begin = w.lo > 0 ? w.lo - 1 : 0;
    const uint64_t end = w.hi < n ? w.hi + 1 : n;
    L3_RETURN_NOT_OK(Load(begin, end));
    // Bisection over the window: the first row of [lo, hi) whose key is >= x,
    // or hi. The CUDA backend's batched lookup bisects the same way, so both
    // give the same row on any bytes.
    uint64_t a = w.lo, b = w.hi;
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      if (keys_[mid - begin] < x) a = mid + 1; else b = mid;
    }
    const uint64_t r = a;
    const bool left_ok = r == 0 || keys_[r - 1 - begin] < x;
    const bool right_ok = r == n || keys_[r - begin] >= x;
    if (left_ok && right_ok) return r;
    ++fallbacks;
    // The index missed: binary search over the chunk, one row at a time.
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      L3_RETURN_NOT_OK(Load(mid, mid + 1));
      if (keys_[0] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // The ordered key of chunk row `row`.
  Result<uint64_t> KeyAt(uint64_t row) {
    L3_RETURN_NOT_OK(Load(row, row + 1));
    return keys_[0];
  }

  uint64_t fallbacks = 0;

 private:
  // keys_ = ordered keys of chunk rows [begin, end).
  Status Load(uint64_t begin, uint64_t end) {
    raw_.resize((end - begin) * static_cast<size_t>(bytes_));
    L3_RETURN_NOT_OK(reader_.ReadRows(column_, chunk_.first_row + begin, chunk_.first_row + end,
                                      raw_.data(), raw_.size()));
    keys_.resize(end - begin);
    for (size_t i = 0; i < keys_.size(); ++i) {
      uint64_t u = 0;
      std::memcpy(&u, raw_.data() + i * static_cast<size_t>(bytes_), static_cast<size_t>(bytes_));
      keys_[i] = internal::PgmOrderedKey(
          internal::CanonicalExtend(u, static_cast<uint32_t>(8 * bytes_), signed_), signed_);
    }
    return Status::OK();
  }

  const Reader& reader_;
  int column_;
  const ChunkInfo& chunk_;
  int bytes_ = 8;
  bool signed_ = false;
  std::vector<uint8_t> raw_;
  std::vector<uint64_t> keys_;
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

// The first row of the column whose value is >= key: the first chunk holding
// such a value (chunks are each sorted), then the row within it.
Result<uint64_t> ColumnLowerBound(const Reader& reader, int column, uint64_t key) {
  const ColumnInfo& col = reader.column(column);
  const bool is_signed = PhysicalTypeIsSigned(col.type);
  const uint64_t x = internal::PgmOrderedKey(key, is_signed);
  for (const ChunkInfo& chunk : col.chunks) {
    ChunkSearch search(reader, column, col, chunk);
    // Statistics are checked by deep validation only (spec §10.3), so they
    // may skip a chunk only when its last row, its maximum, confirms them:
    // wrong statistics then cost one row, never a wrong answer.
    const ChunkStatistics& st = chunk.statistics;
    if (st.present && st.has_min_max && internal::PgmOrderedKey(st.max_value, is_signed) < x) {
      L3_ASSIGN_OR_RETURN(uint64_t last, search.KeyAt(chunk.num_rows - 1));
      if (last < x) continue;
    }
    L3_ASSIGN_OR_RETURN(uint64_t r, search.LowerBound(x));
    if (r < chunk.num_rows) return chunk.first_row + r;
  }
  return col.num_rows;
}

}  // namespace

Result<uint64_t> Reader::LowerBound(int column, uint64_t key) const {
  L3_RETURN_NOT_OK(CheckIndexed(*this, column));
  return ColumnLowerBound(*this, column, key);
}

Result<std::optional<uint64_t>> Reader::Find(int column, uint64_t key) const {
  L3_RETURN_NOT_OK(CheckIndexed(*this, column));
  L3_ASSIGN_OR_RETURN(uint64_t r, ColumnLowerBound(*this, column, key));
  const ColumnInfo& col = this->column(column);
  if (r == col.num_rows) return std::optional<uint64_t>();
  uint64_t value = 0;
  L3_RETURN_NOT_OK(Take(column, &r, 1, &value, sizeof value));
  const int bytes = PhysicalTypeBytes(col.type);
  const uint64_t canonical =
      internal::CanonicalExtend(value, static_cast<uint32_t>(8 * bytes), PhysicalTypeIsSigned(col.type));
  if (canonical != key) return std::optional<uint64_t>();
  return std::optional<uint64_t>(r);
}

Status Reader::LowerBoundBatch(int column, const uint64_t* keys, size_t num_keys,
                               uint64_t* rows) const {
  L3_RETURN_NOT_OK(CheckIndexed(*this, column));
  if (num_keys == 0) return Status::OK();
  if (keys == nullptr || rows == nullptr) {
    return Status(StatusCode::kInvalidArgument, "keys or rows is null");
  }
  for (size_t i = 0; i < num_keys; ++i) {
    L3_ASSIGN_OR_RETURN(rows[i], ColumnLowerBound(*this, column, keys[i]));
  }
  return Status::OK();
}

}  // namespace l3
