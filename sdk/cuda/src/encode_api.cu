// Host entry points of the CUDA writer (gpu_fit.hpp). The kernels live beside
// their CPU halves in sdk/src/codec/encode/.
#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <string>
#include <vector>

#include "codec/encode/fit_partition.cuh"
#include "codec/encode/partitioner.cuh"
#include "codec/encode/value_traits.hpp"
#include "cuda_status.hpp"
#include "format/layout.hpp"
#include "gpu_encode.hpp"
#include "temp_arena.hpp"

namespace l3::cuda::encode {

using l3::internal::FitOptions;
using l3::internal::PartitionFit;
using l3::internal::PartitionSpan;

namespace {

constexpr int kThreads = l3::internal::kFitThreads;

// Blocks for one warp per item (capped; the kernels loop).
unsigned WarpGrid(uint64_t items) {
  const uint64_t blocks = (items * 32 + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<uint64_t>(blocks, 1, 65535u * 16));
}

}  // namespace

Status FitPartitions(PhysicalType type, const void* values, uint64_t num_values,
                     const PartitionSpan* spans, uint64_t count, PartitionSpan* span_scratch,
                     uint32_t* hull_scratch, const FitOptions& options, PartitionFit* fits,
                     cudaStream_t stream) {
  if (options.minimax_lines && hull_scratch == nullptr) {
    return Status(StatusCode::kInvalidArgument, "the minimax line needs hull scratch");
  }
  if (!l3::internal::IsValidValuesPerLane(options.values_per_lane)) {
    return Status(StatusCode::kInvalidArgument,
                  "values_per_lane must be a power of two in 1..1024");
  }
  if (count == 0) return Status::OK();
  if (values == nullptr || spans == nullptr || span_scratch == nullptr || fits == nullptr) {
    return Status(StatusCode::kInvalidArgument, "null pointer");
  }
  for (uint64_t i = 0; i < count; ++i) {
    const PartitionSpan& s = spans[i];
    if (s.num_rows == 0 || s.first_row > num_values || s.num_rows > num_values - s.first_row) {
      return Status(StatusCode::kInvalidArgument,
                    "span " + std::to_string(i) + " is empty or outside the column");
    }
    if (options.minimax_lines && i > 0 &&
        s.first_row < spans[i - 1].first_row + spans[i - 1].num_rows) {
      return Status(StatusCode::kInvalidArgument,
                    "with the minimax line, spans must be in row order and not overlap");
    }
  }
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(span_scratch, spans, count * sizeof(PartitionSpan),
                                 cudaMemcpyHostToDevice, stream),
                 "FitPartitions: copy spans"));
  bool launched = l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    l3::internal::FitPartitionsKernel<T>
        <<<WarpGrid(count), kThreads, l3::internal::FitSharedBytes(kThreads), stream>>>(
            static_cast<const T*>(values), span_scratch, count, options, hull_scratch, fits);
  });
  if (!launched) {
    return Status(StatusCode::kUnsupportedFeature, "the device fit takes integer columns only");
  }
  return CheckLaunch("FitPartitionsKernel");
}

namespace {

using l3::internal::DeviceNode;
using l3::internal::MergeVerdict;
using l3::internal::PartitionPlanOptions;
using l3::internal::PlannedPartition;


template <typename T>
Status PlanOnDeviceTyped(const T* values, uint64_t n, const PartitionPlanOptions& options,
                         TempArena* arena, DeviceNode** plan_nodes, uint64_t* plan_count,
                         cudaStream_t stream) {
  const PartitionerOptions& p = options.partitioner;
  const FitOptions fit_options =
      l3::internal::MakeFitOptions(p, options.values_per_lane, options.minimax_lines);
  const bool sizing = arena->counting();

  // 1. Delta-bits analysis on the device; 2 and 3 on the host.
  const uint64_t block_rows = p.analysis_block_rows;
  const uint64_t num_blocks = (n + block_rows - 1) / block_rows;
  uint8_t* d_bits = nullptr;
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(num_blocks, &d_bits));
  std::vector<uint64_t> starts;
  uint64_t count = MaxInitialPartitions(n, p);
  if (!sizing) {
    l3::internal::AnalysisWidthKernel<T><<<WarpGrid(num_blocks), kThreads, 0, stream>>>(
        values, n, p.analysis_block_rows, p.enable_linear, num_blocks, d_bits);
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("AnalysisWidthKernel"));
    std::vector<uint8_t> block_bits(num_blocks);
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMemcpyAsync(block_bits.data(), d_bits, num_blocks, cudaMemcpyDeviceToHost, stream),
        "PlanPartitions: copy widths"));
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "PlanPartitions: analysis"));
    starts = l3::internal::InitialPartitionStarts(block_bits, n, p);
    count = starts.size();
  }

  // 4. The initial partitions, fitted.
  uint64_t* d_starts = nullptr;
  DeviceNode* nodes = nullptr;
  DeviceNode* next = nullptr;
  PartitionFit* merged = nullptr;
  MergeVerdict* verdicts = nullptr;
  uint32_t* flags = nullptr;
  uint32_t* before = nullptr;
  const uint64_t max_pairs = count / 2 + 1;
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(count, &d_starts));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(count, &nodes));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(count, &next));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(max_pairs, &merged));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(max_pairs, &verdicts));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(max_pairs, &flags));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(max_pairs, &before));
  size_t scan_bytes = 0;
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, flags, before,
                                               static_cast<int64_t>(max_pairs), stream),
                 "PlanPartitions: scan size"));
  uint8_t* scan_temp = nullptr;
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(scan_bytes, &scan_temp));
  // The minimax line's hull stacks: 2 words per row (disjoint partitions use
  // disjoint words).
  uint32_t* hulls = nullptr;
  if (options.minimax_lines) L3_CUDA_RETURN_NOT_OK(arena->Allocate(2 * n, &hulls));
  if (sizing) return Status::OK();
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(d_starts, starts.data(), count * sizeof(uint64_t),
                                 cudaMemcpyHostToDevice, stream),
                 "PlanPartitions: copy starts"));
  l3::internal::InitialNodesKernel<T>
      <<<WarpGrid(count), kThreads, l3::internal::FitSharedBytes(kThreads), stream>>>(
          values, n, d_starts, count, fit_options, hulls, nodes);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("InitialNodesKernel"));

  // 5. Odd-even merge rounds.
  const double keep = l3::internal::DSub(1.0, p.min_merge_benefit);
  uint64_t id_base = count;
  for (uint32_t round = 0; round < p.max_merge_rounds; ++round) {
    bool any_merged = false;
    for (uint32_t parity = 0; parity < 2; ++parity) {
      if (count < parity + 2) continue;
      const uint64_t pairs = (count - parity) / 2;
      l3::internal::MergePairsKernel<T>
          <<<WarpGrid(pairs), kThreads, l3::internal::FitSharedBytes(kThreads), stream>>>(
              values, nodes, pairs, parity, p.max_partition_rows, keep, fit_options, hulls, merged,
              verdicts, flags);
      L3_CUDA_RETURN_NOT_OK(CheckLaunch("MergePairsKernel"));
      L3_CUDA_RETURN_NOT_OK(
          CudaStatus(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, flags, before,
                                                   static_cast<int64_t>(pairs), stream),
                     "PlanPartitions: scan"));
      const unsigned grid =
          static_cast<unsigned>(std::clamp<uint64_t>((pairs + kThreads - 1) / kThreads, 1, 65535));
      l3::internal::ScatterNodesKernel<<<grid, kThreads, 0, stream>>>(
          nodes, count, pairs, parity, merged, verdicts, flags, before, id_base, next);
      L3_CUDA_RETURN_NOT_OK(CheckLaunch("ScatterNodesKernel"));
      uint32_t tail[2] = {0, 0};
      L3_CUDA_RETURN_NOT_OK(
          CudaStatus(cudaMemcpyAsync(&tail[0], before + pairs - 1, sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost, stream),
                     "PlanPartitions: copy count"));
      L3_CUDA_RETURN_NOT_OK(
          CudaStatus(cudaMemcpyAsync(&tail[1], flags + pairs - 1, sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost, stream),
                     "PlanPartitions: copy count"));
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "PlanPartitions: merge"));
      const uint64_t merged_pairs = uint64_t{tail[0]} + tail[1];
      any_merged |= merged_pairs > 0;
      count -= merged_pairs;
      id_base += pairs;
      std::swap(nodes, next);
    }
    if (!any_merged) break;
  }
  *plan_nodes = nodes;
  *plan_count = count;
  return Status::OK();
}

}  // namespace

uint64_t MaxInitialPartitions(uint64_t n, const PartitionerOptions& p) {
  const uint64_t initial_rows = std::min<uint64_t>(
      std::max<uint64_t>(32, (uint64_t{p.initial_partition_rows} + 31) / 32 * 32),
      p.max_partition_rows);
  const uint64_t num_blocks = (n + p.analysis_block_rows - 1) / p.analysis_block_rows;
  return n / initial_rows + num_blocks + 1;
}

Status PlanOnDevice(PhysicalType type, const void* values, uint64_t n,
                    const l3::internal::PartitionPlanOptions& options, TempArena* arena,
                    l3::internal::DeviceNode** nodes, uint64_t* count, cudaStream_t stream) {
  Status status =
      Status(StatusCode::kUnsupportedFeature, "the device partitioner takes integer columns only");
  l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    status = PlanOnDeviceTyped(static_cast<const T*>(values), n, options, arena, nodes, count,
                               stream);
  });
  return status;
}

namespace {

template <typename T>
Status PlanTyped(const T* values, uint64_t n, const PartitionPlanOptions& options,
                 std::vector<PlannedPartition>* plan, cudaStream_t stream) {
  TempArena sizing;
  L3_CUDA_RETURN_NOT_OK(
      PlanOnDeviceTyped(values, n, options, &sizing, nullptr, nullptr, stream));
  void* temp = nullptr;
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMallocAsync(&temp, sizing.used(), stream),
                                   "PlanPartitions: cudaMallocAsync"));
  TempArena arena(temp, sizing.used());
  DeviceNode* nodes = nullptr;
  uint64_t count = 0;
  Status status = PlanOnDeviceTyped(values, n, options, &arena, &nodes, &count, stream);
  std::vector<DeviceNode> host;
  if (status.ok()) {
    host.resize(count);
    status = CudaStatus(cudaMemcpyAsync(host.data(), nodes, count * sizeof(DeviceNode),
                                        cudaMemcpyDeviceToHost, stream),
                        "PlanPartitions: copy plan");
  }
  cudaFreeAsync(temp, stream);
  const Status synced = CudaStatus(cudaStreamSynchronize(stream), "PlanPartitions: plan");
  L3_CUDA_RETURN_NOT_OK(status);
  L3_CUDA_RETURN_NOT_OK(synced);
  plan->resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    (*plan)[i] = PlannedPartition{host[i].first_row, host[i].fit};
  }
  return Status::OK();
}

}  // namespace

Status PlanPartitions(PhysicalType type, const void* values, uint64_t n,
                      const PartitionPlanOptions& options, std::vector<PlannedPartition>* plan,
                      cudaStream_t stream) {
  const PartitionerOptions& p = options.partitioner;
  if (options.split_min_rows > 0) {
    return Status(StatusCode::kUnsupportedFeature,
                  "the device partitioner does not halve partitions yet (split_min_rows)");
  }
  L3_CUDA_RETURN_NOT_OK(l3::internal::ValidatePartitionerOptions(p));
  if (!l3::internal::IsValidValuesPerLane(options.values_per_lane)) {
    return Status(StatusCode::kInvalidArgument,
                  "values_per_lane must be a power of two in 1..1024");
  }
  if (n == 0 || n > 0xFFFFFFFFull || values == nullptr || plan == nullptr) {
    return Status(StatusCode::kInvalidArgument, "a chunk holds 1 to 2^32 - 1 rows (spec §7.2)");
  }
  Status status =
      Status(StatusCode::kUnsupportedFeature, "the device partitioner takes integer columns only");
  l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    status = PlanTyped(static_cast<const T*>(values), n, options, plan, stream);
  });
  return status;
}

}  // namespace l3::cuda::encode
