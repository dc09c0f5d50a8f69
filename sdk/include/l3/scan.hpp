// l3/scan.hpp: predicates on compressed integer columns (the CPU reference of
// the engine primitives). A scan prunes chunks by their statistics and
// partitions by their bounds (spec §7.5, §7.6) or by bounds their model
// implies, decodes only the partitions that may hold matches, and returns
// the selection (row ids) and aggregates over it. ScanTable ANDs predicates
// on several columns, reading each further column only at the rows still
// selected. Built on the public Reader API only.
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

// ---------------------------------------------------------------------------
// Multi-column scans

/// The predicates on one column of a ScanTable: a row passes when the
/// column's value satisfies every one of them (AND).
struct ColumnPredicates {
  int column = -1;
  std::vector<ValuePredicate> predicates;
};

struct TableScanOptions {
  /// Keep the selected row ids in TableScanResult::rows.
  bool collect_rows = true;
  /// Sum over the selected rows of `sum_column` (-1: no sum), or, when
  /// `product_column` is set too, of sum_column * product_column (SSB Q1's
  /// sum(lo_extendedprice * lo_discount)). Either may be a filtered column;
  /// its values are then kept from the filter, not decoded again.
  int sum_column = -1;
  int product_column = -1;
  /// Evaluate the columns most selective first (estimated from chunk
  /// statistics and partition bounds, ties to the column of fewer stored bits
  /// per row). False keeps the order of `where`.
  bool reorder = true;
  /// Threads over batches of rows: 1 scans on the calling thread; 0 = one
  /// per hardware thread. The result never depends on this.
  int num_threads = 1;
};

/// What the scan did on one column.
struct ColumnScanStats {
  int column = -1;
  bool filtered = false;  ///< false for a column only aggregated
  /// The estimate the evaluation order came from (fraction of rows).
  double estimated_selectivity = 1.0;
  /// Selected rows before this column's predicates (the column's rows for the
  /// first one) and after them. 0 and 0 for a column only aggregated.
  uint64_t rows_in = 0;
  uint64_t rows_out = 0;
  uint64_t chunks_total = 0;
  uint64_t chunks_pruned = 0;  ///< statistics exclude every match: not read
  uint64_t partitions_total = 0;
  /// Partitions (with those of pruned chunks) whose bounds or model range
  /// exclude every match: never decoded.
  uint64_t partitions_pruned = 0;
  /// Partitions whose range lies inside the predicates: the rows they hold
  /// pass without decoding (unless the column is also aggregated).
  uint64_t partitions_all_match = 0;
  /// Values decoded as blocks (dense selections) and one by one (sparse
  /// selections, Reader::Take).
  uint64_t values_decoded = 0;
  uint64_t values_taken = 0;
  /// The payload bytes (spec §8.6) of the values decoded: each partition's
  /// payload_bytes in proportion to its rows decoded, whole or one by one.
  /// Random access touches whole cache lines, so memory traffic can be more.
  uint64_t payload_bytes_read = 0;
};

struct TableScanResult {
  std::vector<uint64_t> rows;  ///< selected row ids, increasing (collect_rows)
  uint64_t count = 0;          ///< selected rows
  /// The sum (or sum of products) over the selection as a 128-bit two's
  /// complement number (sum_high:sum_low); exact.
  uint64_t sum_low = 0;
  int64_t sum_high = 0;
  /// The smallest and largest value of `sum_column` over the selection
  /// (canonical extensions, in the column type's order); has_min_max is
  /// false without a sum column or for an empty selection.
  bool has_min_max = false;
  uint64_t min_value = 0;
  uint64_t max_value = 0;
  /// The filtered columns in evaluation order, then the aggregated columns
  /// that were not filtered.
  std::vector<ColumnScanStats> columns;
  uint64_t payload_bytes_read = 0;  ///< over all columns

  /// The sum as decimal text.
  std::string SumString() const;
};

/// Rows where every column of `where` satisfies its predicates (AND over
/// columns). The first column evaluated is scanned like Scan (chunks and
/// partitions pruned, the rest decoded); every further column is read only
/// at the rows still selected (late materialization): rows in a partition
/// its bounds exclude are dropped and rows in a partition inside the
/// predicates kept without decoding; the others are decoded as a block where
/// the selection is dense and by random access where it is sparse. The same
/// column may appear more than once (its predicates are ANDed).
/// Errors: kInvalidArgument (empty `where`, or a column without predicates);
/// kOutOfRange (a bad column index, or a sum that leaves 128 bits: partial
/// sums are taken per batch of 2^15 rows in row order, then over batches);
/// kInvalidArgument also for product_column without sum_column, negative
/// num_threads or columns of different row counts; kUnsupportedFeature (a float or tensor column); decode errors
/// as Reader::ReadRows reports them.
Result<TableScanResult> ScanTable(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                  const TableScanOptions& options = {});

}  // namespace l3
