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
#include "scan/table_plan.hpp"

namespace l3 {
namespace {

using internal::AsInteger;
using internal::ColumnPlan;
using internal::Filter;
using internal::PlanTableScan;
using internal::Segment;
using internal::TableScanPlan;
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

// The share of a segment's payload that `values` of its rows stand for.
uint64_t PayloadShare(const Segment& s, uint64_t values) {
  const uint64_t rows = s.end - s.begin;
  if (rows == 0 || s.payload_bytes == 0) return 0;
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(s.payload_bytes) * values + rows - 1) / rows);
}

// What one batch of rows produced.
struct BatchResult {
  Status status;
  std::vector<uint64_t> rows;
  uint64_t count = 0;
  Int128 sum = 0;
  bool overflow = false;
  bool has_min_max = false;
  uint64_t min_value = 0, max_value = 0;  // of the sum column, canonical
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
      TypeOrder order;
      order.is_signed = s0;
      out->has_min_max = true;
      out->min_value = out->max_value = a[0];
      for (uint64_t v : a) {
        if (order.Less(v, out->min_value)) out->min_value = v;
        if (order.Less(out->max_value, v)) out->max_value = v;
      }
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
    L3_ASSIGN_OR_RETURN(TableScanPlan plan, PlanTableScan(reader, where, options));
    const std::vector<ColumnPlan>& plans = plan.columns;
    const uint64_t num_rows = plan.num_rows;
    const int num_slots = plan.num_slots;
    const bool product = plan.product;
    const size_t sum_plan = plan.sum_plan;
    const size_t product_plan = plan.product_plan;
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
    TypeOrder sum_order;
    if (num_slots > 0) sum_order.is_signed = PhysicalTypeIsSigned(plans[sum_plan].type);
    for (const ColumnPlan& plan : plans) result.columns.push_back(plan.stats);
    for (BatchResult& b : batches) {
      if (!b.status.ok()) return std::move(b.status);
      result.count += b.count;
      if (b.has_min_max) {
        if (!result.has_min_max || sum_order.Less(b.min_value, result.min_value)) result.min_value = b.min_value;
        if (!result.has_min_max || sum_order.Less(result.max_value, b.max_value)) result.max_value = b.max_value;
        result.has_min_max = true;
      }
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
