// Helpers shared by Scan (scan.cpp) and ScanTable (table_scan.cpp): the
// column type's order on canonical extensions, the pruning verdict of a value
// range, the range a partition's model implies, and 128-bit sums as text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "l3/scan.hpp"

namespace l3::internal {

using Int128 = __int128;

// The column type's order on canonical extensions.
struct TypeOrder {
  bool is_signed = false;
  bool Less(uint64_t a, uint64_t b) const {
    return is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
  }
  bool LessEq(uint64_t a, uint64_t b) const { return !Less(b, a); }
};

enum class Verdict { kNone, kSome, kAll };

// Whether values in [lo, hi] can match every predicate (kSome), none can
// (kNone), or all do (kAll).
Verdict Classify(uint64_t lo, uint64_t hi, const std::vector<ValuePredicate>& predicates,
                 const TypeOrder& order);

inline Int128 AsInteger(uint64_t canonical, bool is_signed) {
  return is_signed ? Int128{static_cast<int64_t>(canonical)} : Int128{canonical};
}

// The range of a partition's values its model implies without decoding, or
// false when the model implies none cheaply.
bool ModelRange(const PartitionInfo& p, PhysicalType type, uint64_t* lo, uint64_t* hi);

// kOutOfRange for a column index outside the file, kUnsupportedFeature for a
// column that is not a one-value-per-row integer column; `what` names the
// column's role in the message ("the filtered", "the sum", ...).
Status CheckIntegerColumn(const Reader& reader, int column, const char* what);

// A 128-bit two's complement number (high:low) as decimal text.
std::string Int128String(uint64_t low, int64_t high);

}  // namespace l3::internal
