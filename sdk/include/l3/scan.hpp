// l3/scan.hpp: predicates on compressed integer columns (the CPU reference of
// the engine primitives). A scan prunes chunks by their statistics and
// partitions by their bounds (spec §7.5, §7.6) or by bounds their model
// implies, decodes only the partitions that may hold matches, and returns
// the selection (row ids) and aggregates over it. Built on the public Reader
// API only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "l3/l3.hpp"

namespace l3 {

/// lo <= v <= hi in the column type's order, both ends inclusive. Values are
/// 64-bit canonical extensions (spec §8.2): for a signed column, the
/// sign-extended two's complement word (static_cast<uint64_t>(int64_t{-5})).
/// When `in` is not empty, v must also equal one of its values (IN). lo
/// above hi selects nothing.
struct ValuePredicate {
  uint64_t lo = 0;
  uint64_t hi = ~uint64_t{0};
  std::vector<uint64_t> in;
};

/// The bounds of `type` as canonical extensions, for open-ended predicates.
uint64_t TypeMinValue(PhysicalType type) noexcept;
uint64_t TypeMaxValue(PhysicalType type) noexcept;

struct ScanOptions {
  /// Keep the selected row ids in ScanResult::rows.
  bool collect_rows = true;
  /// Compute sum, min and max over the selected rows. Partitions whose rows
  /// all match are then decoded too (their values are summed).
  bool aggregate = false;
  /// The column to aggregate (-1: the filtered column). Another column is
  /// decoded only at the selected rows (late materialization): a block of
  /// rows where the selection is dense, by random access where it is sparse.
  int aggregate_column = -1;
};

struct ScanResult {
  std::vector<uint64_t> rows;  ///< selected row ids, increasing (collect_rows)
  uint64_t count = 0;          ///< selected rows
  /// Sum of the aggregate column over the selection, as a 128-bit two's
  /// complement number (sum_high:sum_low); exact for every type.
  uint64_t sum_low = 0;
  int64_t sum_high = 0;
  bool has_min_max = false;  ///< false for an empty selection
  uint64_t min_value = 0;    ///< canonical extensions
  uint64_t max_value = 0;
  uint64_t chunks_total = 0;
  uint64_t chunks_pruned = 0;       ///< by chunk statistics: not read at all
  uint64_t partitions_total = 0;    ///< partitions of the chunks not pruned
  uint64_t partitions_pruned = 0;   ///< no row can match: not decoded
  uint64_t partitions_all_match = 0;  ///< every row matches: not decoded for the filter
  uint64_t partitions_decoded = 0;
  /// Payload bytes (decoded lengths, spec §8.6) of the filtered column's
  /// partitions that were decoded.
  uint64_t payload_bytes_read = 0;
  /// Values of another aggregate column that were decoded.
  uint64_t aggregate_values_decoded = 0;

  /// The sum as decimal text.
  std::string SumString() const;
};

/// Rows of integer column `column` of `reader` whose value satisfies every
/// predicate (AND). kUnsupportedFeature for a float column (or aggregate
/// column); kInvalidArgument for an empty predicate list; kOutOfRange for a
/// bad column; decode errors as Reader::ReadRows reports them.
Result<ScanResult> Scan(const Reader& reader, int column,
                        const std::vector<ValuePredicate>& predicates,
                        const ScanOptions& options = {});

}  // namespace l3
