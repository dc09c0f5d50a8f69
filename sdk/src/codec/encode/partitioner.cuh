// The CUDA half of the cost-optimal partitioner (partitioner.cpp is the CPU
// half): the delta-bits analysis, the fit of the initial partitions and the
// odd-even merge rounds run on the device, each decision by the rules the CPU
// partitioner uses (fit_choice.hpp: ChooseModel, AnalysisWidthOf,
// MergesAsOneValue, UnionSaves), so the partitions equal PlanPartitions'.
//
// The list of partitions lives in device memory as DeviceNodes. A merge step
// (one parity of one round) is three launches: MergePairsKernel decides every
// pair (one warp per pair), an exclusive sum of the merged flags gives each
// pair its place in the next list, and ScatterNodesKernel writes that list.
#pragma once

#include <cstdint>

#include "codec/encode/fit_choice.hpp"
#include "codec/encode/fit_partition.cuh"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/partitioner.hpp"

namespace l3::internal {

inline constexpr uint64_t kNoNodeId = ~uint64_t{0};

/// Step 1: the delta-bits width of each block of `block_rows` rows.
template <typename T>
__global__ void AnalysisWidthKernel(const T* __restrict__ values, uint64_t n, uint32_t block_rows,
                                    bool use_linear, uint64_t num_blocks,
                                    uint8_t* __restrict__ block_bits) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  for (uint64_t b = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; b < num_blocks;
       b += warps) {
    const uint64_t first = b * block_rows;
    const auto rows = static_cast<uint32_t>(n - first < block_rows ? n - first : block_rows);
    const T* v = values + first;
    WarpPasses<T> passes{v, rows, 64, lane, nullptr, nullptr};
    const uint32_t bits = AnalysisWidthOf(passes, WarpSummarize(v, rows, lane), rows, use_linear);
    if (lane == 0) block_bits[b] = static_cast<uint8_t>(bits);
  }
}

/// Step 4 (without halving): node i is the initial partition
/// [starts[i], starts[i + 1]) (the last one ends at n), fitted. This and
/// MergePairsKernel take FitSharedBytes(blockDim.x) of dynamic shared memory.
template <typename T>
__global__ void __launch_bounds__(kFitThreads, kFitMinBlocks)
    InitialNodesKernel(const T* __restrict__ values, uint64_t n,
                       const uint64_t* __restrict__ starts, uint64_t count,
                       FitOptions options, uint32_t* hull_scratch,
                       DeviceNode* __restrict__ nodes) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  for (uint64_t i = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; i < count; i += warps) {
    const uint64_t first = starts[i];
    const auto rows = static_cast<uint32_t>((i + 1 < count ? starts[i + 1] : n) - first);
    const T* v = values + first;
    WarpPasses<T> passes{v,    rows,          options.values_per_lane,
                         lane, WarpScratch(), PartitionHulls(hull_scratch, first)};
    const PartitionFit fit = ChooseModel(passes, WarpSummarize(v, rows, lane), rows, options);
    if (lane == 0) nodes[i] = DeviceNode{first, i, kNoNodeId, fit};
  }
}

/// Step 5, one parity: pair j is nodes[parity + 2j] and nodes[parity + 2j + 1].
/// Writes its verdict, the union's fit where merged, and merged_flags[j].
template <typename T>
__global__ void __launch_bounds__(kFitThreads, kFitMinBlocks)
    MergePairsKernel(const T* __restrict__ values, const DeviceNode* __restrict__ nodes,
                     uint64_t pairs, uint32_t parity, uint32_t max_rows, double keep,
                     FitOptions options, uint32_t* hull_scratch,
                     PartitionFit* __restrict__ merged,
                     MergeVerdict* __restrict__ verdicts,
                     uint32_t* __restrict__ merged_flags) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  for (uint64_t j = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; j < pairs; j += warps) {
    const DeviceNode& a = nodes[parity + 2 * j];
    const DeviceNode& b = nodes[parity + 2 * j + 1];
    MergeVerdict verdict = MergeVerdict::kSkipped;
    PartitionFit fit;
    const uint64_t rows = uint64_t{a.fit.num_rows} + b.fit.num_rows;
    if (a.rejected_right != b.id) {
      if (MergesAsOneValue(a.fit, b.fit)) {
        fit = a.fit;
        fit.num_rows = static_cast<uint32_t>(rows);
        verdict = MergeVerdict::kMerged;
      } else if (rows <= max_rows) {
        const T* v = values + a.first_row;
        const auto n = static_cast<uint32_t>(rows);
        WarpPasses<T> passes{v,
                             n,
                             options.values_per_lane,
                             lane,
                             WarpScratch(),
                             PartitionHulls(hull_scratch, a.first_row)};
        fit = ChooseModel(passes, SummaryOfUnion(v, a.fit, b.fit), n, options);
        verdict =
            UnionSaves(fit, a.fit, b.fit, keep) ? MergeVerdict::kMerged : MergeVerdict::kRejected;
      }
    }
    if (lane == 0) {
      verdicts[j] = verdict;
      merged_flags[j] = verdict == MergeVerdict::kMerged ? 1u : 0u;
      if (verdict == MergeVerdict::kMerged) merged[j] = fit;
    }
  }
}

/// Step 5, one parity: the next list. Pair j goes to position
/// parity + 2j - merged_before[j] (exclusive sum of the flags); a node before
/// the first pair (parity 1) and nodes after the last pair keep their order.
/// Merged nodes get the id id_base + j.
__global__ void ScatterNodesKernel(const DeviceNode* __restrict__ nodes, uint64_t count,
                                   uint64_t pairs, uint32_t parity,
                                   const PartitionFit* __restrict__ merged,
                                   const MergeVerdict* __restrict__ verdicts,
                                   const uint32_t* __restrict__ merged_flags,
                                   const uint32_t* __restrict__ merged_before, uint64_t id_base,
                                   DeviceNode* __restrict__ next) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  const uint64_t first = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (uint64_t j = first; j < pairs; j += stride) {
    const uint64_t i = parity + 2 * j;
    const uint64_t pos = i - merged_before[j];
    if (verdicts[j] == MergeVerdict::kMerged) {
      next[pos] = DeviceNode{nodes[i].first_row, id_base + j, kNoNodeId, merged[j]};
      continue;
    }
    DeviceNode a = nodes[i];
    if (verdicts[j] == MergeVerdict::kRejected) a.rejected_right = nodes[i + 1].id;
    next[pos] = a;
    next[pos + 1] = nodes[i + 1];
  }
  if (first == 0) {
    if (parity == 1) next[0] = nodes[0];
    const uint64_t total = pairs == 0 ? 0 : merged_before[pairs - 1] + merged_flags[pairs - 1];
    for (uint64_t i = parity + 2 * pairs; i < count; ++i) next[i - total] = nodes[i];
  }
}

}  // namespace l3::internal
