// PlanTableScan and the filters and segments it is made of; see
// scan/table_plan.hpp.
#include "scan/table_plan.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

// The fraction of values uniform over [lo, hi] that pass `f`.
double RangeFraction(const Filter& f, uint64_t lo, uint64_t hi, const TypeOrder& order) {
  if (f.empty) return 0;
  const uint64_t a = order.Less(lo, f.lo) ? f.lo : lo;
  const uint64_t b = order.Less(f.hi, hi) ? f.hi : hi;
  if (order.Less(b, a)) return 0;
  const double width = static_cast<double>(AsInteger(hi, order.is_signed) - AsInteger(lo, order.is_signed)) + 1;
  if (f.has_set) {
    uint64_t n = 0;
    for (uint64_t v : f.set) n += order.LessEq(a, v) && order.LessEq(v, b);
    return std::min(1.0, static_cast<double>(n) / width);
  }
  return (static_cast<double>(AsInteger(b, order.is_signed) - AsInteger(a, order.is_signed)) + 1) / width;
}

// Cuts the column into segments with their verdicts and fills the static
// statistics and the selectivity estimate.
Status PlanSegments(const Reader& reader, ColumnPlan* plan) {
  const ColumnInfo& col = reader.column(plan->column);
  TypeOrder order;
  order.is_signed = PhysicalTypeIsSigned(col.type);
  ColumnScanStats& st = plan->stats;
  st.column = plan->column;
  st.filtered = plan->filtered;
  st.chunks_total = col.chunks.size();
  plan->bits_per_row = col.num_rows == 0 ? 0 : 8.0 * col.stored_bytes / col.num_rows;
  double expected = 0;
  auto add = [&](const Segment& s) {
    double fraction = 1;
    if (plan->filtered) {
      if (s.verdict == Verdict::kNone) {
        fraction = 0;
      } else if (s.verdict == Verdict::kSome) {
        fraction = s.has_range ? RangeFraction(plan->filter, s.lo, s.hi, order) : 0.5;
      }
    }
    expected += fraction * static_cast<double>(s.end - s.begin);
    plan->segments.push_back(s);
  };
  for (size_t k = 0; k < col.chunks.size(); ++k) {
    const ChunkInfo& chunk = col.chunks[k];
    st.partitions_total += chunk.num_partitions;
    Segment whole;
    whole.begin = chunk.first_row;
    whole.end = chunk.first_row + chunk.num_rows;
    whole.payload_bytes = chunk.payload.decoded_bytes;
    const ChunkStatistics& stats = chunk.statistics;
    if (stats.present && stats.has_min_max) {
      whole.has_range = true;
      whole.lo = stats.min_value;
      whole.hi = stats.max_value;
      if (plan->filtered) whole.verdict = Classify(stats.min_value, stats.max_value, plan->predicates, order);
    }
    if (whole.verdict == Verdict::kNone) {
      ++st.chunks_pruned;
      st.partitions_pruned += chunk.num_partitions;
      add(whole);
      continue;
    }
    if (whole.verdict == Verdict::kAll || chunk.dictionary_entries > 0) {
      if (whole.verdict == Verdict::kAll) st.partitions_all_match += chunk.num_partitions;
      add(whole);
      continue;
    }
    L3_ASSIGN_OR_RETURN(const std::vector<PartitionInfo> parts,
                        reader.Partitions(plan->column, static_cast<int>(k)));
    for (const PartitionInfo& p : parts) {
      Segment s;
      s.begin = chunk.first_row + p.first_row;
      s.end = s.begin + p.num_rows;
      s.payload_bytes = p.payload_bytes;
      if (p.has_bounds) {
        s.has_range = true, s.lo = p.min_value, s.hi = p.max_value;
      } else if (ModelRange(p, col.type, &s.lo, &s.hi)) {
        // A FOR range may hold values the partition lacks: "all" and
        // "none" hold, "some" still needs the decode.
        s.has_range = true;
      } else {
        s.has_range = whole.has_range, s.lo = whole.lo, s.hi = whole.hi;
      }
      if (plan->filtered && s.has_range) s.verdict = Classify(s.lo, s.hi, plan->predicates, order);
      if (s.verdict == Verdict::kNone) ++st.partitions_pruned;
      if (s.verdict == Verdict::kAll) ++st.partitions_all_match;
      add(s);
    }
  }
  st.estimated_selectivity = col.num_rows == 0 ? 0 : expected / static_cast<double>(col.num_rows);
  return Status::OK();
}

}  // namespace

Filter MakeFilter(const std::vector<ValuePredicate>& predicates, PhysicalType type) {
  TypeOrder order;
  order.is_signed = PhysicalTypeIsSigned(type);
  auto sort_unique = [&](std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end(), [&](uint64_t a, uint64_t b) { return order.Less(a, b); });
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  Filter f;
  f.lo = TypeMinValue(type);
  f.hi = TypeMaxValue(type);
  for (const ValuePredicate& p : predicates) {
    if (order.Less(f.lo, p.lo)) f.lo = p.lo;
    if (order.Less(p.hi, f.hi)) f.hi = p.hi;
    if (p.in.empty()) continue;
    std::vector<uint64_t> in = sort_unique(p.in);
    if (f.has_set) {
      std::vector<uint64_t> both;
      std::set_intersection(f.set.begin(), f.set.end(), in.begin(), in.end(), std::back_inserter(both),
                            [&](uint64_t a, uint64_t b) { return order.Less(a, b); });
      in = std::move(both);
    }
    f.set = std::move(in);
    f.has_set = true;
  }
  // The canonical bounds of a predicate may lie outside the type (a u8
  // column compared with 1000): the range is then empty or clipped.
  f.empty = order.Less(f.hi, f.lo);
  if (f.has_set && !f.empty) {
    std::vector<uint64_t> inside;
    for (uint64_t v : f.set) {
      if (order.LessEq(f.lo, v) && order.LessEq(v, f.hi)) inside.push_back(v);
    }
    f.set = std::move(inside);
    f.empty = f.set.empty();
  }
  return f;
}

Result<TableScanPlan> PlanTableScan(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                    const TableScanOptions& options) {
  if (where.empty()) return Status(StatusCode::kInvalidArgument, "no column predicates");
  if (options.num_threads < 0) return Status(StatusCode::kInvalidArgument, "negative num_threads");
  TableScanPlan result;
  std::vector<ColumnPlan>& plans = result.columns;
  for (const ColumnPredicates& w : where) {
    L3_RETURN_NOT_OK(CheckIntegerColumn(reader, w.column, "a filtered"));
    if (w.predicates.empty()) {
      return Status(StatusCode::kInvalidArgument, "column " + std::to_string(w.column) + " has no predicate");
    }
    auto same = std::find_if(plans.begin(), plans.end(), [&](const ColumnPlan& p) { return p.column == w.column; });
    if (same == plans.end()) {
      plans.emplace_back();
      same = plans.end() - 1;
      same->column = w.column;
      same->type = reader.column(w.column).type;
      same->filtered = true;
    }
    same->predicates.insert(same->predicates.end(), w.predicates.begin(), w.predicates.end());
  }
  if (options.product_column >= 0 && options.sum_column < 0) {
    return Status(StatusCode::kInvalidArgument, "product_column needs sum_column");
  }
  // The aggregate slots: 0 for sum_column, 1 for a different product_column.
  std::vector<int> aggregated;
  if (options.sum_column != -1) {
    L3_RETURN_NOT_OK(CheckIntegerColumn(reader, options.sum_column, "the sum"));
    aggregated.push_back(options.sum_column);
  }
  if (options.product_column != -1) {
    L3_RETURN_NOT_OK(CheckIntegerColumn(reader, options.product_column, "the product"));
    if (options.product_column != options.sum_column) aggregated.push_back(options.product_column);
  }
  const uint64_t num_rows = reader.column(plans[0].column).num_rows;
  for (int c : aggregated) {
    if (reader.column(c).num_rows != num_rows) {
      return Status(StatusCode::kInvalidArgument, "the columns have different row counts");
    }
  }
  for (ColumnPlan& plan : plans) {
    plan.filter = MakeFilter(plan.predicates, plan.type);
    if (reader.column(plan.column).num_rows != num_rows) {
      return Status(StatusCode::kInvalidArgument, "the columns have different row counts");
    }
  }
  const size_t num_filtered = plans.size();
  for (size_t slot = 0; slot < aggregated.size(); ++slot) {
    auto it = std::find_if(plans.begin(), plans.end(),
                           [&](const ColumnPlan& p) { return p.column == aggregated[slot]; });
    if (it == plans.end()) {
      plans.emplace_back();
      it = plans.end() - 1;
      it->column = aggregated[slot];
      it->type = reader.column(aggregated[slot]).type;
    }
    it->slot = static_cast<int>(slot);
  }
  for (ColumnPlan& plan : plans) L3_RETURN_NOT_OK(PlanSegments(reader, &plan));
  if (options.reorder) {
    std::stable_sort(plans.begin(), plans.begin() + static_cast<std::ptrdiff_t>(num_filtered),
                     [](const ColumnPlan& a, const ColumnPlan& b) {
                       if (a.stats.estimated_selectivity != b.stats.estimated_selectivity) {
                         return a.stats.estimated_selectivity < b.stats.estimated_selectivity;
                       }
                       return a.bits_per_row < b.bits_per_row;
                     });
  }
  result.num_slots = static_cast<int>(aggregated.size());
  result.product = options.product_column >= 0;
  for (size_t c = 0; c < plans.size(); ++c) {
    if (plans[c].column == options.sum_column) result.sum_plan = c;
    if (plans[c].column == options.product_column) result.product_plan = c;
  }
  result.num_filtered = num_filtered;
  result.num_rows = num_rows;
  return result;
}

}  // namespace l3::internal
