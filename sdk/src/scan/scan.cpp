// Predicates on compressed integer columns. See l3/scan.hpp.
//
// A chunk is skipped when its statistics (spec §7.6) exclude every match; a
// partition when its bounds (§7.5), or the range its model implies
// (CONSTANT: its value; FOR_BITPACK: Base .. Base + 2^w - 1), exclude every
// match. A chunk or partition whose range lies inside every predicate is
// selected whole without decoding. Only the rest is decoded, partition by
// partition, and filtered.
#include "l3/scan.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "common/bits.hpp"
#include "common/status_macros.hpp"
#include "scan/scan_internal.hpp"

namespace l3 {
namespace {

using internal::AsInteger;
using internal::CheckIntegerColumn;
using internal::Classify;
using internal::Int128;
using internal::ModelRange;
using internal::TypeOrder;
using internal::Verdict;

bool Matches(uint64_t v, const std::vector<ValuePredicate>& predicates, const TypeOrder& order) {
  for (const ValuePredicate& p : predicates) {
    if (order.Less(v, p.lo) || order.Less(p.hi, v)) return false;
    if (!p.in.empty() && std::find(p.in.begin(), p.in.end(), v) == p.in.end()) return false;
  }
  return true;
}

// The canonical extension (spec §8.2) of a value of `bytes` bytes.
uint64_t Canonical(const uint8_t* p, int bytes, bool is_signed) {
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<size_t>(bytes));  // little-endian hosts
  return internal::CanonicalExtend(u, 8 * static_cast<uint32_t>(bytes), is_signed);
}

struct Accumulator {
  bool is_signed = false;
  TypeOrder order;
  Int128 sum = 0;
  bool any = false;
  uint64_t min = 0, max = 0;
  void Add(uint64_t v) {
    sum += AsInteger(v, is_signed);
    if (!any || order.Less(v, min)) min = v;
    if (!any || order.Less(max, v)) max = v;
    any = true;
  }
};

// Decodes rows [begin, end) of `column` as canonical extensions.
Status DecodeCanonical(const Reader& reader, int column, uint64_t begin, uint64_t end,
                       std::vector<uint8_t>* scratch, std::vector<uint64_t>* out) {
  const PhysicalType type = reader.column(column).type;
  const int bytes = PhysicalTypeBytes(type);
  const bool is_signed = PhysicalTypeIsSigned(type);
  const uint64_t n = end - begin;
  scratch->resize(static_cast<size_t>(n * bytes));
  L3_RETURN_NOT_OK(reader.ReadRows(column, begin, end, scratch->data(), scratch->size()));
  out->resize(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) (*out)[i] = Canonical(scratch->data() + i * bytes, bytes, is_signed);
  return Status::OK();
}

// Aggregates `column` at the increasing rows `rows`: a block of kBlockRows
// rows is decoded whole where at least 1/8 of it is selected, else its
// selected rows are read one by one (Reader::Take).
Status AggregateAt(const Reader& reader, int column, const std::vector<uint64_t>& rows,
                   Accumulator* acc, uint64_t* decoded) {
  constexpr uint64_t kBlockRows = 4096;
  const PhysicalType type = reader.column(column).type;
  const int bytes = PhysicalTypeBytes(type);
  const bool is_signed = PhysicalTypeIsSigned(type);
  const uint64_t num_rows = reader.column(column).num_rows;
  std::vector<uint8_t> scratch;
  std::vector<uint64_t> values;
  size_t i = 0;
  while (i < rows.size()) {
    const uint64_t block = rows[i] / kBlockRows;
    size_t j = i;
    while (j < rows.size() && rows[j] / kBlockRows == block) ++j;
    const uint64_t begin = block * kBlockRows, end = std::min(num_rows, begin + kBlockRows);
    if ((j - i) * 8 >= end - begin) {
      L3_RETURN_NOT_OK(DecodeCanonical(reader, column, begin, end, &scratch, &values));
      for (size_t k = i; k < j; ++k) acc->Add(values[static_cast<size_t>(rows[k] - begin)]);
      *decoded += end - begin;
    } else {
      scratch.resize((j - i) * static_cast<size_t>(bytes));
      L3_RETURN_NOT_OK(reader.Take(column, rows.data() + i, j - i, scratch.data(), scratch.size()));
      for (size_t k = 0; k < j - i; ++k) acc->Add(Canonical(scratch.data() + k * bytes, bytes, is_signed));
      *decoded += j - i;
    }
    i = j;
  }
  return Status::OK();
}

}  // namespace

uint64_t TypeMinValue(PhysicalType type) noexcept {
  if (!PhysicalTypeIsSigned(type)) return 0;
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  return ~uint64_t{0} << (bits - 1);  // -2^(bits-1), sign-extended
}

uint64_t TypeMaxValue(PhysicalType type) noexcept {
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  const uint32_t value_bits = PhysicalTypeIsSigned(type) ? bits - 1 : bits;
  return value_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << value_bits) - 1;
}

std::string ScanResult::SumString() const { return internal::Int128String(sum_low, sum_high); }

Result<ScanResult> Scan(const Reader& reader, int column,
                        const std::vector<ValuePredicate>& predicates, const ScanOptions& options) {
  try {
    L3_RETURN_NOT_OK(CheckIntegerColumn(reader, column, "the filtered"));
    if (predicates.empty()) return Status(StatusCode::kInvalidArgument, "no predicate");
    const int agg_column = options.aggregate_column < 0 ? column : options.aggregate_column;
    if (options.aggregate) L3_RETURN_NOT_OK(CheckIntegerColumn(reader, agg_column, "the aggregate"));
    const bool aggregate_here = options.aggregate && agg_column == column;
    const bool aggregate_there = options.aggregate && agg_column != column;
    const bool need_rows = options.collect_rows || aggregate_there;

    const ColumnInfo& col = reader.column(column);
    const PhysicalType type = col.type;
    TypeOrder order;
    order.is_signed = PhysicalTypeIsSigned(type);
    Accumulator acc;
    acc.is_signed = PhysicalTypeIsSigned(reader.column(agg_column).type);
    acc.order.is_signed = acc.is_signed;

    ScanResult result;
    std::vector<uint8_t> scratch;
    std::vector<uint64_t> values;
    // Selects rows [begin, end) whole; their values are decoded only to
    // aggregate them here.
    auto select_all = [&](uint64_t begin, uint64_t end, bool* decode_for_sum) -> Status {
      result.count += end - begin;
      if (need_rows) {
        for (uint64_t r = begin; r < end; ++r) result.rows.push_back(r);
      }
      *decode_for_sum = aggregate_here;
      if (!aggregate_here) return Status::OK();
      L3_RETURN_NOT_OK(DecodeCanonical(reader, column, begin, end, &scratch, &values));
      for (uint64_t v : values) acc.Add(v);
      return Status::OK();
    };
    // Decodes rows [begin, end) and keeps the matches.
    auto filter = [&](uint64_t begin, uint64_t end) -> Status {
      L3_RETURN_NOT_OK(DecodeCanonical(reader, column, begin, end, &scratch, &values));
      for (uint64_t i = 0; i < end - begin; ++i) {
        if (!Matches(values[i], predicates, order)) continue;
        ++result.count;
        if (need_rows) result.rows.push_back(begin + i);
        if (aggregate_here) acc.Add(values[i]);
      }
      return Status::OK();
    };

    result.chunks_total = col.chunks.size();
    for (size_t k = 0; k < col.chunks.size(); ++k) {
      const ChunkInfo& chunk = col.chunks[k];
      const uint64_t first = chunk.first_row;
      const ChunkStatistics& stats = chunk.statistics;
      Verdict chunk_verdict = Verdict::kSome;
      if (stats.present && stats.has_min_max) {
        chunk_verdict = Classify(stats.min_value, stats.max_value, predicates, order);
      }
      if (chunk_verdict == Verdict::kNone) {
        ++result.chunks_pruned;
        continue;
      }
      result.partitions_total += chunk.num_partitions;
      if (chunk_verdict == Verdict::kAll) {
        bool decoded = false;
        L3_RETURN_NOT_OK(select_all(first, first + chunk.num_rows, &decoded));
        result.partitions_all_match += chunk.num_partitions;
        if (decoded) result.payload_bytes_read += chunk.payload.decoded_bytes;
        continue;
      }
      if (chunk.dictionary_entries > 0) {
        // spec §8.10: partitions cover the dictionary's elements, not rows.
        L3_RETURN_NOT_OK(filter(first, first + chunk.num_rows));
        result.partitions_decoded += chunk.num_partitions;
        result.payload_bytes_read += chunk.payload.decoded_bytes;
        continue;
      }
      L3_ASSIGN_OR_RETURN(const std::vector<PartitionInfo> parts,
                          reader.Partitions(column, static_cast<int>(k)));
      for (const PartitionInfo& p : parts) {
        uint64_t lo = 0, hi = 0;
        Verdict verdict = Verdict::kSome;
        if (p.has_bounds) {
          verdict = Classify(p.min_value, p.max_value, predicates, order);
        } else if (ModelRange(p, type, &lo, &hi)) {
          verdict = Classify(lo, hi, predicates, order);
          // A FOR range may hold values the partition lacks: "all" holds,
          // "none" holds, and "some" still needs the decode.
        }
        const uint64_t begin = first + p.first_row, end = begin + p.num_rows;
        if (verdict == Verdict::kNone) {
          ++result.partitions_pruned;
        } else if (verdict == Verdict::kAll) {
          ++result.partitions_all_match;
          bool decoded = false;
          L3_RETURN_NOT_OK(select_all(begin, end, &decoded));
          if (decoded) result.payload_bytes_read += p.payload_bytes;
        } else {
          ++result.partitions_decoded;
          result.payload_bytes_read += p.payload_bytes;
          L3_RETURN_NOT_OK(filter(begin, end));
        }
      }
    }
    if (aggregate_there) {
      L3_RETURN_NOT_OK(AggregateAt(reader, agg_column, result.rows, &acc,
                                   &result.aggregate_values_decoded));
    }
    if (options.aggregate && acc.any) {
      result.has_min_max = true;
      result.min_value = acc.min;
      result.max_value = acc.max;
    }
    result.sum_low = static_cast<uint64_t>(acc.sum);
    result.sum_high = static_cast<int64_t>(acc.sum >> 64);
    if (!options.collect_rows) {
      result.rows.clear();
      result.rows.shrink_to_fit();
    }
    return result;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while scanning");
  }
}


namespace internal {

Status CheckIntegerColumn(const Reader& reader, int column, const char* what) {
  if (column < 0 || column >= reader.num_columns()) {
    return Status(StatusCode::kOutOfRange, std::string(what) + " column index out of range");
  }
  if (!PhysicalTypeIsInteger(reader.column(column).type) || reader.column(column).row_width != 1) {
    return Status(StatusCode::kUnsupportedFeature,
                  std::string(what) + " column is not an integer column");
  }
  return Status::OK();
}


Verdict Classify(uint64_t lo, uint64_t hi, const std::vector<ValuePredicate>& predicates,
                 const TypeOrder& order) {
  bool all = true;
  for (const ValuePredicate& p : predicates) {
    // The part of [lo, hi] inside [p.lo, p.hi].
    const uint64_t a = order.Less(lo, p.lo) ? p.lo : lo;
    const uint64_t b = order.Less(p.hi, hi) ? p.hi : hi;
    if (order.Less(b, a)) return Verdict::kNone;
    if (!p.in.empty()) {
      bool any = false;
      for (uint64_t v : p.in) any = any || (order.LessEq(a, v) && order.LessEq(v, b));
      if (!any) return Verdict::kNone;
      // Every value matches only if the range is one value of the set.
      all = all && lo == hi;
    }
    all = all && order.LessEq(p.lo, lo) && order.LessEq(hi, p.hi);
  }
  return all ? Verdict::kAll : Verdict::kSome;
}

// The range of a partition's values its model implies without decoding, or
// false when the model implies none cheaply.
bool ModelRange(const PartitionInfo& p, PhysicalType type, uint64_t* lo, uint64_t* hi) {
  const bool is_signed = PhysicalTypeIsSigned(type);
  if (p.model == ModelType::kConstant && p.bit_width == 0) {
    *lo = *hi = p.params[0];  // spec §8.7: every row is Base
    return true;
  }
  if (p.model == ModelType::kForBitpack) {
    // spec §8.3: v = Base + u with u < 2^w, never past the type's range.
    const Int128 base = AsInteger(p.params[0], is_signed);
    const Int128 top = base + ((Int128{1} << p.bit_width) - 1);
    const Int128 max = AsInteger(TypeMaxValue(type), is_signed);
    *lo = p.params[0];
    *hi = top > max ? TypeMaxValue(type) : static_cast<uint64_t>(top);
    return true;
  }
  return false;
}

std::string Int128String(uint64_t low, int64_t high) {
  // Assembled unsigned: shifting a negative signed value is undefined.
  const unsigned __int128 bits =
      (static_cast<unsigned __int128>(static_cast<uint64_t>(high)) << 64) | low;
  const Int128 v = static_cast<Int128>(bits);
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (m != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace internal

}  // namespace l3
