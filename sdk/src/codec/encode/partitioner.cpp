// The cost-optimal partitioner (spec §14, after the L3 paper):
//  1. delta-bits analysis: the residual width of a line fitted to each block
//     of analysis_block_rows rows;
//  2. a breakpoint wherever that width changes by at least breakpoint_tau
//     bits (block 0 always starts a segment);
//  3. each segment cut into partitions of initial_partition_rows (rounded up
//     to a multiple of the 32 lanes), the last one of a segment possibly short;
//  4. every model fitted to every partition, the cheapest kept, and a
//     partition split in halves while the halves are cheaper (down to
//     split_min_rows; this step is ours, not the paper's);
//  5. odd-even merge rounds: pairs (0,1), (2,3), ... then (1,2), (3,4), ...
//     of the current list; a pair merges when its union, refitted, costs
//     less than (1 - min_merge_benefit) times the pair apart.
// Costs count the 16-byte record, the parameter words and the payload words.
// All decisions of a phase are taken from fits computed independently per
// pair, so the result does not depend on the number of threads.
#include "codec/encode/partitioner.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "codec/encode/fit_choice.hpp"
#include "codec/encode/fit_memo.hpp"
#include "codec/encode/parallel.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kNoId = ~uint64_t{0};

struct Node {
  uint64_t first_row;
  PartitionFit fit;
  uint64_t id;
  // The id of the right neighbour a merge with which was evaluated and
  // rejected; neither side has changed while this still matches, so the pair
  // need not be refitted.
  uint64_t rejected_right;
  // The hulls of the minimax line where the fit computed them; a merge
  // joins its parts' hulls instead of rebuilding them from every row.
  PartitionHulls hulls;
};

using Verdict = MergeVerdict;

// Fits partitions with FitBestModel(OfUnion), or takes their fits from the
// memo of an earlier run (fit_memo.hpp); a fit from the memo leaves `hulls`
// invalid.
template <typename T>
struct PartitionFitter {
  const T* v;
  const FitOptions& options;
  const FitMemo* known;  // null, or a memo of this run's values and options

  /// With `recorded`, appends there the partition's fit without PATCHED_FOR
  /// for the memo of this run.
  PartitionFit Fit(uint64_t first_row, uint32_t rows, PartitionHulls* hulls,
                   std::vector<PlannedPartition>* recorded) const {
    if (const PartitionFit* fit = Known(first_row, rows, hulls)) return *fit;
    if (recorded == nullptr) return FitBestModel(v + first_row, rows, options, hulls);
    PlannedPartition without{first_row, {}};
    const PartitionFit fit = FitBestModel(v + first_row, rows, options, hulls, &without.fit);
    recorded->push_back(without);
    return fit;
  }
  /// The union of neighbours a and b; with `without`, stores there its fit
  /// without PATCHED_FOR.
  PartitionFit FitUnion(uint64_t first_row, const PartitionFit& a, const PartitionHulls& a_hulls,
                        const PartitionFit& b, const PartitionHulls& b_hulls,
                        PartitionHulls* hulls, PartitionFit* without) const {
    if (const PartitionFit* fit = Known(first_row, a.num_rows + b.num_rows, hulls)) return *fit;
    return FitBestModelOfUnion(v + first_row, a, b, options, &a_hulls, &b_hulls, hulls, without);
  }

 private:
  const PartitionFit* Known(uint64_t first_row, uint32_t rows, PartitionHulls* hulls) const {
    const PartitionFit* fit = known != nullptr ? known->Find(first_row, rows) : nullptr;
    if (fit != nullptr && hulls != nullptr) hulls->valid = false;
    return fit;
  }
};

// Appends `whole`, or the halves it splits into, to *out. A partition is
// halved at a multiple of 32 rows when both halves have at least `min_rows`
// rows and cost less than the whole; halves are split again the same way.
template <typename T>
void SplitWhileCheaper(const PartitionFitter<T>& fitter, const PlannedPartition& whole,
                       uint32_t min_rows, std::vector<PlannedPartition>* out,
                       std::vector<PlannedPartition>* recorded) {
  const uint32_t rows = whole.fit.num_rows;
  const uint32_t half = (rows / 2 + 31) / 32 * 32;
  if (min_rows == 0 || half >= rows || half < min_rows || rows - half < min_rows) {
    out->push_back(whole);
    return;
  }
  const PlannedPartition left{whole.first_row,
                              fitter.Fit(whole.first_row, half, nullptr, recorded)};
  const PlannedPartition right{whole.first_row + half,
                               fitter.Fit(whole.first_row + half, rows - half, nullptr, recorded)};
  if (left.fit.cost_bytes + right.fit.cost_bytes >= whole.fit.cost_bytes) {
    out->push_back(whole);
    return;
  }
  SplitWhileCheaper(fitter, left, min_rows, out, recorded);
  SplitWhileCheaper(fitter, right, min_rows, out, recorded);
}

}  // namespace

Status ValidatePartitionerOptions(const PartitionerOptions& o) {
  if (o.analysis_block_rows == 0 || o.initial_partition_rows == 0 || o.max_partition_rows == 0) {
    return Status(StatusCode::kInvalidArgument, "partitioner row counts must be positive");
  }
  if (!(o.min_merge_benefit >= 0 && o.min_merge_benefit < 1) ||
      !(o.poly_min_gain >= 0 && o.poly_min_gain < 1) ||
      !(o.runs_ef_min_gain.value_or(0.0) >= 0 && o.runs_ef_min_gain.value_or(0.0) < 1) ||
      !(o.patched_for_min_gain.value_or(0.0) >= 0 && o.patched_for_min_gain.value_or(0.0) < 1)) {
    return Status(StatusCode::kInvalidArgument,
                  "min_merge_benefit, poly_min_gain, runs_ef_min_gain and patched_for_min_gain "
                  "must lie in [0, 1)");
  }
  return Status::OK();
}

FitOptions MakeFitOptions(const PartitionerOptions& o, uint32_t values_per_lane,
                          bool minimax_lines) {
  FitOptions f;
  f.values_per_lane = values_per_lane;
  f.minimax_lines = minimax_lines;
  f.enable_rle = o.enable_rle;
  f.enable_delta = o.enable_delta;
  f.enable_runs_ef = o.enable_runs_ef;
  f.enable_patched_for = o.enable_patched_for;
  f.signed_exception_highs = o.signed_exception_highs.value_or(true);
  f.patched_rows_ef = o.patched_rows_ef;
  f.runs_ef_min_gain = o.runs_ef_min_gain.value_or(0.0);
  f.enable_linear = o.enable_linear;
  f.enable_poly2 = o.enable_poly2;
  f.enable_poly3 = o.enable_poly3;
  f.poly_min_gain = o.poly_min_gain;
  return f;
}

std::vector<uint64_t> InitialPartitionStarts(const std::vector<uint8_t>& block_bits, uint64_t n,
                                             const PartitionerOptions& p) {
  const uint64_t block_rows = p.analysis_block_rows;
  const uint64_t num_blocks = block_bits.size();
  const uint64_t initial_rows = std::min<uint64_t>(
      std::max<uint64_t>(32, (uint64_t{p.initial_partition_rows} + 31) / 32 * 32),
      p.max_partition_rows);
  std::vector<uint64_t> starts;
  starts.reserve(n / initial_rows + num_blocks + 1);
  uint64_t segment_begin = 0;
  for (uint64_t b = 1; b <= num_blocks; ++b) {
    const bool breakpoint =
        b == num_blocks ||
        static_cast<uint32_t>(std::abs(int{block_bits[b]} - int{block_bits[b - 1]})) >=
            p.breakpoint_tau;
    if (!breakpoint) continue;
    const uint64_t segment_end = std::min(n, b * block_rows);
    for (uint64_t r = segment_begin; r < segment_end; r += initial_rows) starts.push_back(r);
    segment_begin = segment_end;
  }
  return starts;
}

template <typename T>
std::vector<PlannedPartition> PlanPartitions(const T* v, uint64_t n,
                                             const PartitionPlanOptions& options) {
  const PartitionerOptions& p = options.partitioner;
  const FitOptions fit_options =
      MakeFitOptions(p, options.values_per_lane, options.minimax_lines);
  const int threads = options.num_threads;
  // A memo of fits without PATCHED_FOR to use, or one to record
  // (fit_memo.hpp).
  const FitMemo* known =
      !fit_options.enable_patched_for && options.known_fits != nullptr &&
              options.known_fits->Covers(n)
          ? options.known_fits
          : nullptr;
  FitMemo* const record = fit_options.enable_patched_for ? options.record_fits : nullptr;
  if (record != nullptr) record->Reset(n);
  const PartitionFitter<T> fitter{v, fit_options, known};

  // 1. Delta-bits analysis.
  const uint64_t block_rows = p.analysis_block_rows;
  const uint64_t num_blocks = (n + block_rows - 1) / block_rows;
  std::vector<uint8_t> block_bits(num_blocks);
  ParallelFor(num_blocks, threads, 8, [&](uint64_t b) {
    const uint64_t first = b * block_rows;
    const auto rows = static_cast<uint32_t>(std::min(block_rows, n - first));
    block_bits[b] = static_cast<uint8_t>(AnalysisWidth(v + first, rows, p.enable_linear));
  });

  // 2 and 3. Segments between breakpoints, cut into initial partitions.
  const std::vector<uint64_t> starts = InitialPartitionStarts(block_bits, n, p);

  // 4. Fit every initial partition, then split it in halves while that is
  // cheaper (an addition to the paper's partitioner: pairwise merging alone
  // cannot isolate a jump or a bend inside an initial partition).
  std::vector<std::vector<PlannedPartition>> pieces(starts.size());
  std::vector<PartitionHulls> whole_hulls(starts.size());
  std::vector<std::vector<PlannedPartition>> recorded(record != nullptr ? starts.size() : 0);
  ParallelFor(starts.size(), threads, 16, [&](uint64_t i) {
    const uint64_t end = i + 1 < starts.size() ? starts[i + 1] : n;
    const auto rows = static_cast<uint32_t>(end - starts[i]);
    std::vector<PlannedPartition>* const rec = record != nullptr ? &recorded[i] : nullptr;
    const PlannedPartition whole{starts[i], fitter.Fit(starts[i], rows, &whole_hulls[i], rec)};
    SplitWhileCheaper(fitter, whole, options.split_min_rows, &pieces[i], rec);
  });
  for (const auto& list : recorded) {
    for (const PlannedPartition& r : list) record->Add(r.first_row, r.fit);
  }
  recorded.clear();
  size_t count = 0;
  for (const auto& list : pieces) count += list.size();
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (const PlannedPartition& piece : pieces[i]) {
      nodes.push_back(Node{piece.first_row, piece.fit, nodes.size(), kNoId, PartitionHulls{}});
    }
    // An initial partition that was not split keeps its hulls.
    if (pieces[i].size() == 1) nodes.back().hulls = std::move(whole_hulls[i]);
  }
  pieces.clear();
  whole_hulls.clear();
  uint64_t next_id = nodes.size();

  // 5. Odd-even merge rounds.
  const double keep = 1.0 - p.min_merge_benefit;
  std::vector<PartitionFit> merged;
  std::vector<PartitionFit> merged_without;  // for the memo; num_rows 0 where not fitted
  std::vector<PartitionHulls> merged_hulls;
  std::vector<Verdict> verdicts;
  for (uint32_t round = 0; round < p.max_merge_rounds; ++round) {
    bool any_merged = false;
    for (size_t parity = 0; parity < 2; ++parity) {
      const size_t count = nodes.size();
      if (count < parity + 2) continue;
      const size_t pairs = (count - parity) / 2;
      merged.assign(pairs, PartitionFit{});
      if (record != nullptr) merged_without.assign(pairs, PartitionFit{});
      if (merged_hulls.size() < pairs) merged_hulls.resize(pairs);
      verdicts.assign(pairs, Verdict::kSkipped);
      ParallelFor(pairs, threads, 4, [&](uint64_t j) {
        const Node& a = nodes[parity + 2 * j];
        const Node& b = nodes[parity + 2 * j + 1];
        if (a.rejected_right == b.id) return;
        const uint64_t rows = uint64_t{a.fit.num_rows} + b.fit.num_rows;
        // A single value stays one CONSTANT partition however long it runs.
        if (MergesAsOneValue(a.fit, b.fit)) {
          merged_hulls[j].valid = false;
          merged[j] = a.fit;
          merged[j].num_rows = static_cast<uint32_t>(rows);
          verdicts[j] = Verdict::kMerged;
          return;
        }
        if (rows > p.max_partition_rows) return;
        const PartitionFit fit =
            fitter.FitUnion(a.first_row, a.fit, a.hulls, b.fit, b.hulls, &merged_hulls[j],
                            record != nullptr ? &merged_without[j] : nullptr);
        if (UnionSaves(fit, a.fit, b.fit, keep)) {
          merged[j] = fit;
          verdicts[j] = Verdict::kMerged;
        } else {
          verdicts[j] = Verdict::kRejected;
        }
      });
      if (record != nullptr) {
        for (size_t j = 0; j < pairs; ++j) {
          if (merged_without[j].num_rows != 0) {
            record->Add(nodes[parity + 2 * j].first_row, merged_without[j]);
          }
        }
      }
      // The new list, compacted in place: nodes before the first merge stay
      // where they are, and a step that merges nothing moves nothing.
      size_t i = parity, kept = parity;
      for (size_t j = 0; j < pairs; ++j, i += 2) {
        if (verdicts[j] == Verdict::kMerged) {
          Node& node = nodes[kept++];  // kept <= i: the pair's left node or one before it
          node.first_row = nodes[i].first_row;
          node.fit = merged[j];
          node.id = next_id++;
          node.rejected_right = kNoId;
          // The old hulls go back to the scratch of the next step.
          std::swap(node.hulls, merged_hulls[j]);
          any_merged = true;
          continue;
        }
        if (verdicts[j] == Verdict::kRejected) nodes[i].rejected_right = nodes[i + 1].id;
        if (kept != i) {
          nodes[kept] = std::move(nodes[i]);
          nodes[kept + 1] = std::move(nodes[i + 1]);
        }
        kept += 2;
      }
      for (; i < count; ++i, ++kept) {
        if (kept != i) nodes[kept] = std::move(nodes[i]);
      }
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(kept), nodes.end());
    }
    if (!any_merged) break;
  }

  std::vector<PlannedPartition> plan(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) plan[i] = PlannedPartition{nodes[i].first_row, nodes[i].fit};
  return plan;
}

#define L3_INSTANTIATE_PLAN(T) \
  template std::vector<PlannedPartition> PlanPartitions<T>(const T*, uint64_t, \
                                                           const PartitionPlanOptions&);
L3_INSTANTIATE_PLAN(int8_t)
L3_INSTANTIATE_PLAN(int16_t)
L3_INSTANTIATE_PLAN(int32_t)
L3_INSTANTIATE_PLAN(int64_t)
L3_INSTANTIATE_PLAN(uint8_t)
L3_INSTANTIATE_PLAN(uint16_t)
L3_INSTANTIATE_PLAN(uint32_t)
L3_INSTANTIATE_PLAN(uint64_t)
#undef L3_INSTANTIATE_PLAN

}  // namespace l3::internal
