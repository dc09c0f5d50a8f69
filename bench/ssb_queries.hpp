// SSB query flight 1 (Q1.1-Q1.3) flattened to ranges of lineorder columns,
// shared by the CPU and GPU SSB benchmarks (bench/ssb_cpu.cpp,
// bench/gpu/ssb_gpu_bench.cu) and written the same way in
// scripts/ssb_report.py.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/scan.hpp"

namespace l3::bench {

struct SsbQuery {
  const char* name;
  const char* sql_where;  // informative
  uint32_t date_lo, date_hi;
  uint8_t disc_lo, disc_hi, qty_lo, qty_hi;
};

// The date dimension's filter as a range of date keys. Week 6 of 1994 is
// d_weeknuminyear = 6 of SSB's date table, days 35..41 of the year:
// 1994-02-04 .. 1994-02-10 (the range the flattened SSB query sets of GPU
// studies such as Crystal use).
inline constexpr SsbQuery kSsbQueries[] = {
    {"Q1.1", "d_year = 1993 and lo_discount between 1 and 3 and lo_quantity < 25", 19930101,
     19931231, 1, 3, 0, 24},
    {"Q1.2", "d_yearmonthnum = 199401 and lo_discount between 4 and 6 and lo_quantity between 26 and 35",
     19940101, 19940131, 4, 6, 26, 35},
    {"Q1.3",
     "d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7 and lo_quantity between 26 and 35",
     19940204, 19940210, 5, 7, 26, 35},
};

/// The query as a ScanTable: the predicates on the columns `col` (in the
/// order lo_orderdate, lo_discount, lo_quantity, lo_extendedprice) and the
/// sum of lo_extendedprice * lo_discount over the rows selected.
inline std::vector<ColumnPredicates> SsbWhere(const SsbQuery& q, const int (&col)[4]) {
  return {{col[0], {ValuePredicate{q.date_lo, q.date_hi, {}}}},
          {col[1], {ValuePredicate{q.disc_lo, q.disc_hi, {}}}},
          {col[2], {ValuePredicate{q.qty_lo, q.qty_hi, {}}}}};
}

inline TableScanOptions SsbScanOptions(const int (&col)[4], int num_threads) {
  TableScanOptions options;
  options.collect_rows = false;
  options.sum_column = col[3];
  options.product_column = col[1];
  options.num_threads = num_threads;
  return options;
}

}  // namespace l3::bench
