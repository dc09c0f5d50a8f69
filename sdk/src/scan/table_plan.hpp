// The plan of a multi-column scan (l3/scan.hpp, ScanTable), shared by the CPU
// reference (table_scan.cpp) and the CUDA backend's table scan: the columns'
// predicates reduced to one filter each, every column cut into segments with
// their pruning verdicts (chunk statistics, partition bounds, model ranges),
// and the order the filters are evaluated in (most selective first). Built
// from footer metadata only; nothing is decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "l3/scan.hpp"
#include "scan/scan_internal.hpp"

namespace l3::internal {

// A column's predicates reduced to one range in the type's order and, when
// some predicate has an IN list, the sorted values of every list's
// intersection inside that range. `empty`: nothing can match.
struct Filter {
  bool empty = false;
  uint64_t lo = 0, hi = 0;
  bool has_set = false;
  std::vector<uint64_t> set;
};

Filter MakeFilter(const std::vector<ValuePredicate>& predicates, PhysicalType type);

// A run of rows [begin, end) of a column with one pruning verdict, and the
// payload bytes that decode it (0 when unknown and never decoded).
struct Segment {
  uint64_t begin = 0, end = 0;
  Verdict verdict = Verdict::kSome;
  uint64_t payload_bytes = 0;
  bool has_range = false;  // the values lie in [lo, hi] (for the estimate)
  uint64_t lo = 0, hi = 0;
};

// One column of the scan: filtered, aggregated or both.
struct ColumnPlan {
  int column = -1;
  PhysicalType type = PhysicalType::kInt64;
  bool filtered = false;
  Filter filter;
  std::vector<ValuePredicate> predicates;
  int slot = -1;  // the aggregate's value slot (0 or 1), -1 when not aggregated
  std::vector<Segment> segments;
  ColumnScanStats stats;  // the parts known before the scan
  double bits_per_row = 0;
};

struct TableScanPlan {
  /// The filtered columns in evaluation order, then the columns only
  /// aggregated.
  std::vector<ColumnPlan> columns;
  size_t num_filtered = 0;
  /// Aggregate value slots: 0 (no sum), 1 (a sum, or a product of a column
  /// with itself) or 2 (a product of two columns).
  int num_slots = 0;
  bool product = false;
  /// The indexes in `columns` of the sum and product columns (0 when unused).
  size_t sum_plan = 0;
  size_t product_plan = 0;
  uint64_t num_rows = 0;
};

/// Checks `where` and `options` as ScanTable documents and plans the scan.
Result<TableScanPlan> PlanTableScan(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                    const TableScanOptions& options);

}  // namespace l3::internal
