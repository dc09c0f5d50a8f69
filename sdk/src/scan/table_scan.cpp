// Predicates on several columns ANDed, with late materialization. See
// l3/scan.hpp (ScanTable).
//
// Each column is first cut into segments: a chunk its statistics exclude, a
// dictionary chunk (spec §8.10: its partitions cover dictionary entries, not
// rows) or a chunk inside the predicates is one segment; otherwise each
// partition is one, with the verdict of its bounds (§7.5) or of the range its
// model implies. The rows are then scanned in batches of kBatchRows: the
// first column (the most selective by estimate) is filtered like Scan does;
// each further column only at the rows still selected, segment by segment: a
// segment it excludes drops its rows, one inside its predicates keeps them,
// and the others are decoded as one block from the segment's first selected
// row to its last where at least 1/kDenseRatio of that span is selected, else
// value by value (Reader::Take, one call per column and batch). Columns that
// are aggregated keep their values through the later filters.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <numeric>
#include <system_error>
#include <thread>

#include "common/status_macros.hpp"
#include "l3/scan.hpp"
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

// Rows per batch: the selection of a batch (8 bytes a row) and the decoded
// values stay in the L2 cache and are reused from batch to batch. On SSB at
// SF 2 (2-core x86-64), 2^15 rows ran Q1.2 in 1.2 ms against 1.5 (2^16) and
// 2.0 (2^17), with Q1.1 unchanged.
constexpr uint64_t kBatchRows = uint64_t{1} << 15;
// A segment's selected rows are decoded as one block when they are at least
// 1/kDenseRatio of the rows the block spans. On the SSB columns (2-core
// x86-64) Reader::Take costs about 60 ns a value (a sort and a partition
// search per value), a block decode 0.3 ns (FOR) to 3 ns (runs) a value; 64
// was the fastest of 16, 32, 64 and 128 there.
constexpr uint64_t kDenseRatio = 64;

// Calls f(T{}) with T the C++ type of an integer column type.
template <typename F>
decltype(auto) WithType(PhysicalType type, F&& f) {
  switch (type) {
    case PhysicalType::kInt8: return f(int8_t{});
    case PhysicalType::kInt16: return f(int16_t{});
    case PhysicalType::kInt32: return f(int32_t{});
    case PhysicalType::kInt64: return f(int64_t{});
    case PhysicalType::kUInt8: return f(uint8_t{});
    case PhysicalType::kUInt16: return f(uint16_t{});
    case PhysicalType::kUInt32: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

template <typename T>
uint64_t Canon(T v) {
  return std::is_signed<T>::value ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                  : static_cast<uint64_t>(v);
}

// A column's predicates reduced to one range in the type's order and, when
// some predicate has an IN list, the sorted values of every list's
// intersection inside that range. `empty`: nothing can match.
struct Filter {
  bool empty = false;
  uint64_t lo = 0, hi = 0;
  bool has_set = false;
  std::vector<uint64_t> set;
};

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

// The filter on values of type T (bounds inside the type, so exact).
template <typename T>
struct TypedFilter {
  T lo{}, hi{};
  bool has_set = false;
  std::vector<T> set;
  explicit TypedFilter(const Filter& f) {
    if (f.empty) {
      lo = 1, hi = 0;
      return;
    }
    lo = static_cast<T>(f.lo), hi = static_cast<T>(f.hi);
    has_set = f.has_set;
    for (uint64_t v : f.set) set.push_back(static_cast<T>(v));
  }
  bool operator()(T v) const {
    // Branch-free on the range: the outcome is as good as random.
    const bool in_range = (lo <= v) & (v <= hi);
    return has_set ? in_range && std::binary_search(set.begin(), set.end(), v) : in_range;
  }
};

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

// The share of a segment's payload that `values` of its rows stand for.
uint64_t PayloadShare(const Segment& s, uint64_t values) {
  const uint64_t rows = s.end - s.begin;
  if (rows == 0 || s.payload_bytes == 0) return 0;
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(s.payload_bytes) * values + rows - 1) / rows);
}

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

// What one batch of rows produced.
struct BatchResult {
  Status status;
  std::vector<uint64_t> rows;
  uint64_t count = 0;
  Int128 sum = 0;
  bool overflow = false;
  struct PerColumn {
    uint64_t rows_in = 0, rows_out = 0, values_decoded = 0, values_taken = 0, payload = 0;
  };
  std::vector<PerColumn> columns;
};

// The selection of a batch: increasing rows and, per aggregate slot, the
// values at those rows (canonical) once known.
struct Selection {
  std::vector<uint64_t> rows;
  std::vector<uint64_t> values[2];
  bool has_values[2] = {false, false};
};

class BatchScanner {
 public:
  BatchScanner(const Reader& reader, const std::vector<ColumnPlan>& plans, bool collect_rows,
               int num_slots, bool product)
      : reader_(reader), plans_(plans), collect_rows_(collect_rows),
        num_slots_(num_slots), product_(product) {}

  void Run(uint64_t begin, uint64_t end, BatchResult* out) {
    out->columns.assign(plans_.size(), {});
    out->status = RunImpl(begin, end, out);
  }

 private:
  // Segments of `plan` that meet [begin, end), first index.
  static size_t FirstSegment(const ColumnPlan& plan, uint64_t begin) {
    auto it = std::upper_bound(plan.segments.begin(), plan.segments.end(), begin,
                               [](uint64_t row, const Segment& s) { return row < s.end; });
    return static_cast<size_t>(it - plan.segments.begin());
  }

  template <typename T>
  Status Decode(int column, uint64_t begin, uint64_t end) {
    scratch_.resize(static_cast<size_t>((end - begin) * sizeof(T) + 7) / 8);
    return reader_.ReadRows(column, begin, end, scratch_.data(), static_cast<size_t>(end - begin) * sizeof(T));
  }

  // The first column: every row of [begin, end) its segments may select.
  // Neighbouring segments that need decoding are decoded in one call.
  template <typename T>
  Status First(const ColumnPlan& plan, uint64_t begin, uint64_t end, BatchResult::PerColumn* st) {
    const TypedFilter<T> match(plan.filter);
    const bool keep = plan.slot >= 0;
    std::vector<uint64_t>& rows = sel_.rows;
    std::vector<uint64_t>* values = keep ? &sel_.values[plan.slot] : nullptr;
    st->rows_in += end - begin;
    uint64_t pending_begin = 0, pending_end = 0;  // rows to decode and filter
    auto flush = [&]() -> Status {
      const uint64_t m = pending_end - pending_begin;
      if (m == 0) return Status::OK();
      L3_RETURN_NOT_OK(Decode<T>(plan.column, pending_begin, pending_end));
      st->values_decoded += m;
      const T* v = reinterpret_cast<const T*>(scratch_.data());
      size_t w = rows.size();
      rows.resize(w + m);
      uint64_t* out = rows.data();
      for (uint64_t r = 0; r < m; ++r) {  // branch-free: write, then advance on a match
        out[w] = pending_begin + r;
        w += match(v[r]);
      }
      if (keep) {
        for (size_t k = rows.size() - m; k < w; ++k) values->push_back(Canon(v[out[k] - pending_begin]));
      }
      rows.resize(w);
      pending_begin = pending_end = 0;
      return Status::OK();
    };
    for (size_t i = FirstSegment(plan, begin); i < plan.segments.size(); ++i) {
      const Segment& s = plan.segments[i];
      if (s.begin >= end) break;
      const uint64_t b = std::max(begin, s.begin), e = std::min(end, s.end);
      if (s.verdict == Verdict::kNone) continue;
      if (s.verdict == Verdict::kAll && !keep) {
        L3_RETURN_NOT_OK(flush());
        const size_t w = rows.size();
        rows.resize(w + (e - b));
        std::iota(rows.begin() + static_cast<std::ptrdiff_t>(w), rows.end(), b);
        continue;
      }
      st->payload += PayloadShare(s, e - b);
      if (pending_end != b) L3_RETURN_NOT_OK(flush());
      if (pending_end == 0) pending_begin = b;
      pending_end = e;
    }
    L3_RETURN_NOT_OK(flush());
    if (keep) sel_.has_values[plan.slot] = true;
    st->rows_out += rows.size();
    return Status::OK();
  }

  // A further column (or an aggregated one, `filtered` false) at the
  // selected rows: sets keep_[i] and, for an aggregated column, got_[i].
  template <typename T>
  Status Refine(const ColumnPlan& plan, uint64_t begin, uint64_t end, BatchResult::PerColumn* st) {
    const TypedFilter<T> match(plan.filter);
    const bool filtered = plan.filtered;
    const bool keep_values = plan.slot >= 0;
    const std::vector<uint64_t>& rows = sel_.rows;
    const size_t n = rows.size();
    keep_.assign(n, 1);
    if (keep_values) got_.assign(n, 0);
    take_rows_.clear();
    take_index_.clear();
    // Dense selections of neighbouring segments are decoded in one call:
    // rows [rows[group_i], group_end) for selection entries [group_i, group_j).
    size_t group_i = 0, group_j = 0;
    uint64_t group_end = 0;
    auto flush = [&]() -> Status {
      if (group_j == group_i) return Status::OK();
      const uint64_t first = rows[group_i];
      L3_RETURN_NOT_OK(Decode<T>(plan.column, first, group_end));
      st->values_decoded += group_end - first;
      const T* v = reinterpret_cast<const T*>(scratch_.data());
      if (filtered && keep_values) {
        for (size_t k = group_i; k < group_j; ++k) {
          const T x = v[rows[k] - first];
          keep_[k] = match(x);
          got_[k] = Canon(x);
        }
      } else if (filtered) {
        for (size_t k = group_i; k < group_j; ++k) keep_[k] = match(v[rows[k] - first]);
      } else {
        for (size_t k = group_i; k < group_j; ++k) got_[k] = Canon(v[rows[k] - first]);
      }
      group_i = group_j;
      return Status::OK();
    };
    size_t i = 0;
    const Segment* previous = nullptr;  // the last segment of the group
    for (size_t si = FirstSegment(plan, begin); si < plan.segments.size() && i < n; ++si) {
      const Segment& s = plan.segments[si];
      if (s.begin >= end) break;
      size_t j = i;
      while (j < n && rows[j] < s.end) ++j;
      if (j == i) continue;
      if (filtered && s.verdict == Verdict::kNone) {
        std::fill(keep_.begin() + i, keep_.begin() + j, 0);
      } else if (!(filtered && s.verdict == Verdict::kAll && !keep_values)) {
        const uint64_t span = rows[j - 1] - rows[i] + 1;
        if ((j - i) * kDenseRatio >= span) {
          // Join the group only while it stays dense with the rows between.
          const bool joins = group_j == i && group_j > group_i && previous != nullptr &&
                             previous->end == s.begin &&
                             (j - group_i) * kDenseRatio >= rows[j - 1] + 1 - rows[group_i];
          if (joins) {
            // The group also decodes the rows between the two selections.
            st->payload += PayloadShare(*previous, previous->end - group_end) + PayloadShare(s, rows[i] - s.begin);
          } else {
            L3_RETURN_NOT_OK(flush());
            group_i = i;
          }
          group_j = j;
          group_end = rows[j - 1] + 1;
          previous = &s;
          st->payload += PayloadShare(s, span);
        } else {
          for (size_t k = i; k < j; ++k) {
            take_rows_.push_back(rows[k]);
            take_index_.push_back(k);
          }
          st->values_taken += j - i;
          st->payload += PayloadShare(s, j - i);
        }
      }
      i = j;
    }
    L3_RETURN_NOT_OK(flush());
    if (!take_rows_.empty()) {
      scratch_.resize((take_rows_.size() * sizeof(T) + 7) / 8);
      L3_RETURN_NOT_OK(reader_.Take(plan.column, take_rows_.data(), take_rows_.size(), scratch_.data(),
                                    take_rows_.size() * sizeof(T)));
      const T* v = reinterpret_cast<const T*>(scratch_.data());
      for (size_t k = 0; k < take_rows_.size(); ++k) {
        if (filtered) keep_[take_index_[k]] = match(v[k]);
        if (keep_values) got_[take_index_[k]] = Canon(v[k]);
      }
    }
    // Compact the selection and the values known so far.
    if (keep_values) {
      std::swap(sel_.values[plan.slot], got_);  // both keep their capacity
      sel_.has_values[plan.slot] = true;
    }
    if (filtered) {
      // Branch-free: each entry is written, and kept by advancing past it.
      const uint8_t* keep = keep_.data();
      auto compact = [&](std::vector<uint64_t>* v) {
        uint64_t* p = v->data();
        size_t w = 0;
        for (size_t k = 0; k < n; ++k) {
          p[w] = p[k];
          w += keep[k];
        }
        v->resize(w);
      };
      compact(&sel_.rows);
      for (int slot = 0; slot < num_slots_; ++slot) {
        if (sel_.has_values[slot]) compact(&sel_.values[slot]);
      }
    }
    if (filtered) {
      st->rows_in += n;
      st->rows_out += sel_.rows.size();
    }
    return Status::OK();
  }

  Status RunImpl(uint64_t begin, uint64_t end, BatchResult* out) {
    // Cleared, not freed: the vectors keep their capacity across batches.
    sel_.rows.clear();
    for (int slot = 0; slot < 2; ++slot) {
      sel_.values[slot].clear();
      sel_.has_values[slot] = false;
    }
    for (size_t c = 0; c < plans_.size(); ++c) {
      const ColumnPlan& plan = plans_[c];
      BatchResult::PerColumn* st = &out->columns[c];
      if (c == 0) {
        L3_RETURN_NOT_OK(WithType(plan.type, [&](auto tag) {
          return First<decltype(tag)>(plan, begin, end, st);
        }));
      } else if (plan.filtered || !sel_.has_values[plan.slot]) {
        if (!plan.filtered && sel_.rows.empty()) continue;
        L3_RETURN_NOT_OK(WithType(plan.type, [&](auto tag) {
          return Refine<decltype(tag)>(plan, begin, end, st);
        }));
      }
    }
    out->count = sel_.rows.size();
    if (num_slots_ > 0 && !sel_.rows.empty()) {
      const bool s0 = PhysicalTypeIsSigned(plans_[sum_plan_].type);
      const std::vector<uint64_t>& a = sel_.values[0];
      // A batch holds at most 2^17 rows: a sum of 64-bit values, or of
      // products of two values of at most 32 bits, stays below 2^81.
      const std::vector<uint64_t>& b = sel_.values[num_slots_ - 1];
      const bool s1 = PhysicalTypeIsSigned(plans_[product_plan_].type);
      const bool narrow = PhysicalTypeBytes(plans_[sum_plan_].type) <= 4 &&
                          PhysicalTypeBytes(plans_[product_plan_].type) <= 4;
      static_assert(kBatchRows <= (uint64_t{1} << 17), "the unchecked sums need small batches");
      if (!product_) {
        for (uint64_t v : a) out->sum += AsInteger(v, s0);
      } else if (narrow) {
        for (size_t k = 0; k < a.size(); ++k) out->sum += AsInteger(a[k], s0) * AsInteger(b[k], s1);
      } else {
        for (size_t k = 0; k < a.size(); ++k) {
          Int128 p = 0;
          out->overflow |= __builtin_mul_overflow(AsInteger(a[k], s0), AsInteger(b[k], s1), &p);
          out->overflow |= __builtin_add_overflow(out->sum, p, &out->sum);
        }
      }
    }
    if (collect_rows_) out->rows = std::move(sel_.rows);
    return Status::OK();
  }

 public:
  size_t sum_plan_ = 0, product_plan_ = 0;

 private:
  const Reader& reader_;
  const std::vector<ColumnPlan>& plans_;
  bool collect_rows_;
  int num_slots_;
  bool product_;
  Selection sel_;
  std::vector<uint64_t> scratch_;
  std::vector<uint8_t> keep_;
  std::vector<uint64_t> got_;
  std::vector<uint64_t> take_rows_;
  std::vector<size_t> take_index_;
};

}  // namespace

std::string TableScanResult::SumString() const { return internal::Int128String(sum_low, sum_high); }

Result<TableScanResult> ScanTable(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                  const TableScanOptions& options) {
  try {
    if (where.empty()) return Status(StatusCode::kInvalidArgument, "no column predicates");
    if (options.num_threads < 0) return Status(StatusCode::kInvalidArgument, "negative num_threads");
    std::vector<ColumnPlan> plans;
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

    const int num_slots = static_cast<int>(aggregated.size());
    const bool product = options.product_column >= 0;
    size_t sum_plan = 0, product_plan = 0;
    for (size_t c = 0; c < plans.size(); ++c) {
      if (plans[c].column == options.sum_column) sum_plan = c;
      if (plans[c].column == options.product_column) product_plan = c;
    }
    const uint64_t num_batches = (num_rows + kBatchRows - 1) / kBatchRows;
    std::vector<BatchResult> batches(static_cast<size_t>(num_batches));
    std::atomic<uint64_t> next{0};
    auto worker = [&]() {
      BatchScanner scanner(reader, plans, options.collect_rows, num_slots, product);
      scanner.sum_plan_ = sum_plan;
      scanner.product_plan_ = product_plan;
      for (uint64_t b = next++; b < num_batches; b = next++) {
        try {
          scanner.Run(b * kBatchRows, std::min(num_rows, (b + 1) * kBatchRows), &batches[b]);
        } catch (const std::bad_alloc&) {
          batches[b].status = Status(StatusCode::kOutOfMemory, "out of memory while scanning");
        }
      }
    };
    uint64_t threads = options.num_threads == 0 ? std::max(1u, std::thread::hardware_concurrency())
                                                : static_cast<uint64_t>(options.num_threads);
    threads = std::max<uint64_t>(1, std::min(threads, num_batches));
    std::vector<std::thread> workers;
    try {
      for (uint64_t t = 1; t < threads; ++t) workers.emplace_back(worker);
    } catch (const std::system_error&) {
      // Fewer threads: the others and the calling thread take every batch.
    }
    worker();
    for (std::thread& w : workers) w.join();

    TableScanResult result;
    Int128 sum = 0;
    bool overflow = false;
    for (const ColumnPlan& plan : plans) result.columns.push_back(plan.stats);
    for (BatchResult& b : batches) {
      if (!b.status.ok()) return std::move(b.status);
      result.count += b.count;
      overflow |= b.overflow || __builtin_add_overflow(sum, b.sum, &sum);
      if (options.collect_rows) result.rows.insert(result.rows.end(), b.rows.begin(), b.rows.end());
      for (size_t c = 0; c < plans.size(); ++c) {
        ColumnScanStats& st = result.columns[c];
        st.rows_in += b.columns[c].rows_in;
        st.rows_out += b.columns[c].rows_out;
        st.values_decoded += b.columns[c].values_decoded;
        st.values_taken += b.columns[c].values_taken;
        st.payload_bytes_read += b.columns[c].payload;
      }
    }
    if (overflow) {
      return Status(StatusCode::kOutOfRange, "the sum does not fit 128 bits");
    }
    for (const ColumnScanStats& st : result.columns) result.payload_bytes_read += st.payload_bytes_read;
    result.sum_low = static_cast<uint64_t>(sum);
    result.sum_high = static_cast<int64_t>(sum >> 64);
    return result;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while scanning");
  }
}

}  // namespace l3
