// The GPU writer's device layer (l3/cuda.hpp: EncodeChunk): the partitioner
// (encode_api.cu), the packer (codec/encode/pack_chunk.cuh), the statistics
// and the checksums, in the caller's temporary storage and stream.
#include <algorithm>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <string>

#include "codec/encode/pack_chunk.cuh"
#include "codec/encode/partitioner.hpp"
#include "codec/encode/value_traits.hpp"
#include "cuda_status.hpp"
#include "format/layout.hpp"
#include "gpu_encode.hpp"
#include "gpu_encode_stats.hpp"
#include "l3/cuda.hpp"
#include "temp_arena.hpp"

namespace l3::cuda {
namespace {

using l3::internal::DeviceNode;
using l3::internal::PartitionExtents;
using l3::internal::PartitionPlanOptions;

constexpr int kThreads = 256;
constexpr uint64_t kMaxChunkRows = 0xFFFFFFFFull;  // spec §7.2

unsigned WarpGrid(uint64_t items) {
  const uint64_t blocks = (items * 32 + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<uint64_t>(blocks, 1, 65535u * 16));
}

unsigned ThreadGrid(uint64_t items) {
  return static_cast<unsigned>(std::clamp<uint64_t>((items + kThreads - 1) / kThreads, 1, 65535));
}

Status CheckOptions(uint64_t num_rows, const ChunkEncodeOptions& options) {
  if (!PhysicalTypeIsInteger(options.type)) {
    return Status(StatusCode::kUnsupportedFeature, "the device chunk encoder takes integer types");
  }
  if (!l3::internal::IsValidValuesPerLane(options.values_per_lane)) {
    return Status(StatusCode::kInvalidArgument,
                  "values_per_lane must be a power of two in 1..1024 (spec §8.5)");
  }
  if (num_rows == 0 || num_rows > kMaxChunkRows) {
    return Status(StatusCode::kInvalidArgument, "a chunk holds 1 to 2^32 - 1 rows (spec §7.2)");
  }
  if (options.partitioner.split_min_rows.value_or(0) > 0) {
    return Status(StatusCode::kUnsupportedFeature,
                  "the device partitioner does not halve partitions (split_min_rows)");
  }
  return l3::internal::ValidatePartitionerOptions(options.partitioner);
}

PartitionPlanOptions PlanOptionsOf(const ChunkEncodeOptions& options) {
  PartitionPlanOptions plan;
  plan.partitioner = options.partitioner;
  plan.values_per_lane = options.values_per_lane;
  plan.split_min_rows = 0;
  plan.minimax_lines = options.partitioner.minimax_lines;
  return plan;
}

// Upper bounds on the segments of a chunk of n rows.
ChunkSegmentSizes MaxSegmentSizes(uint64_t n, const ChunkEncodeOptions& options) {
  const uint64_t P = encode::MaxInitialPartitions(n, options.partitioner);
  const uint64_t value_bytes = static_cast<uint64_t>(PhysicalTypeBytes(options.type));
  ChunkSegmentSizes max;
  max.partition_table = (P + 1) * l3::internal::kPartitionRecordBytes;
  max.parameters = 8 * 4 * P;  // POLY3 has the most: 4 words
  // A partition is at most as costly as FOR (models are chosen by cost,
  // FOR is always a candidate, and every model has at least FOR's one
  // parameter word), so its payload is at most FOR's ceil(n_p * N / 64)
  // words.
  max.payload = value_bytes * n + 8 * P + l3::internal::kPayloadPaddingBytes;
  max.bounds = options.partition_bounds ? 2 * P * value_bytes : 0;
  return max;
}

// Device memory of the packer, for `partitions` partitions and `tiles` tiles.
struct PackBuffers {
  PartitionExtents* extents = nullptr;  // P + 1, scanned in place
  void* extents_scan = nullptr;
  size_t extents_scan_bytes = 0;
  uint32_t* events = nullptr;        // per tile
  uint32_t* event_before = nullptr;  // per tile, exclusive sum
  void* events_scan = nullptr;
  size_t events_scan_bytes = 0;
  uint32_t* flags = nullptr;  // [0]: the packer's error word, [1]: Model_Types used
};

Status AllocatePack(uint64_t partitions, uint64_t tiles, TempArena* arena, PackBuffers* b,
                    cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(partitions + 1, &b->extents));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveScan(nullptr, b->extents_scan_bytes, b->extents, b->extents,
                                     l3::internal::AddExtents{}, PartitionExtents{0, 0, 0},
                                     static_cast<int64_t>(partitions + 1), stream),
      "EncodeChunk: scan size"));
  L3_CUDA_RETURN_NOT_OK(arena->AllocateBytes(b->extents_scan_bytes, &b->extents_scan));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(tiles, &b->events));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(tiles, &b->event_before));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(nullptr, b->events_scan_bytes, b->events, b->event_before,
                                    static_cast<int64_t>(tiles), stream),
      "EncodeChunk: scan size"));
  L3_CUDA_RETURN_NOT_OK(arena->AllocateBytes(b->events_scan_bytes, &b->events_scan));
  return arena->Allocate(2, &b->flags);
}

uint64_t MaxTiles(uint64_t n, uint64_t partitions, uint32_t values_per_lane) {
  const uint64_t tile_rows = uint64_t{32} * values_per_lane;
  return n / tile_rows + partitions + 1;
}

// The segments of the planned partitions (spec §7.3, §7.5, §8), written to
// `out` (capacities checked once the sizes are known).
template <typename T>
Status Pack(const T* values, uint64_t n, const ChunkEncodeOptions& options, const DeviceNode* nodes,
            uint64_t P, TempArena* arena, const ChunkSegmentBuffers& out, EncodedChunkInfo* info,
            cudaStream_t stream) {
  const uint32_t tile_rows = 32 * options.values_per_lane;
  PackBuffers b;
  // Tiles are counted on the device; the arena was sized for the most.
  L3_CUDA_RETURN_NOT_OK(
      AllocatePack(P, MaxTiles(n, P, options.values_per_lane), arena, &b, stream));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(b.flags, 0, 2 * sizeof(uint32_t), stream),
                                   "EncodeChunk: clear flags"));
  l3::internal::ExtentsKernel<<<ThreadGrid(P + 1), kThreads, 0, stream>>>(nodes, P, tile_rows,
                                                                          b.extents, b.flags + 1);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("ExtentsKernel"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveScan(b.extents_scan, b.extents_scan_bytes, b.extents, b.extents,
                                     l3::internal::AddExtents{}, PartitionExtents{0, 0, 0},
                                     static_cast<int64_t>(P + 1), stream),
      "EncodeChunk: extents scan"));
  PartitionExtents totals{};
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cudaMemcpyAsync(&totals, b.extents + P, sizeof totals, cudaMemcpyDeviceToHost, stream),
      "EncodeChunk: copy totals"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "EncodeChunk: extents"));
  // spec §7.3: Payload_Offset and Param_Offset are u32.
  if (totals.payload_words > 0xFFFFFFFFull || totals.param_words > 0xFFFFFFFFull) {
    return Status(StatusCode::kInvalidArgument,
                  "chunk too large: its payload or parameter offsets exceed 32 bits");
  }
  info->num_rows = n;
  info->num_partitions = static_cast<uint32_t>(P);
  info->values_per_lane = options.values_per_lane;
  info->sizes.partition_table = (P + 1) * l3::internal::kPartitionRecordBytes;
  info->sizes.parameters = 8 * totals.param_words;
  info->sizes.payload = 8 * totals.payload_words + l3::internal::kPayloadPaddingBytes;
  info->sizes.bounds = options.partition_bounds ? 2 * P * sizeof(T) : 0;
  const ChunkSegmentSizes& cap = out.capacity;
  if (info->sizes.partition_table > cap.partition_table ||
      info->sizes.parameters > cap.parameters || info->sizes.payload > cap.payload ||
      info->sizes.bounds > cap.bounds) {
    return Status(StatusCode::kBufferTooSmall,
                  "a segment buffer is smaller than the segment (EncodedChunkInfo::sizes)");
  }

  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(out.payload, 0, info->sizes.payload, stream),
                                   "EncodeChunk: clear payload"));
  l3::internal::MetadataKernel<T><<<ThreadGrid(P + 1), kThreads, 0, stream>>>(
      nodes, P, n, b.extents, static_cast<uint32_t*>(out.partition_table),
      static_cast<uint64_t*>(out.parameters),
      options.partition_bounds ? static_cast<T*>(out.bounds) : nullptr);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("MetadataKernel"));
  const uint64_t tiles = totals.tiles;
  l3::internal::TileEventsKernel<T>
      <<<WarpGrid(tiles), kThreads, 0, stream>>>(values, nodes, P, b.extents, tile_rows, b.events);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("TileEventsKernel"));
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cub::DeviceScan::ExclusiveSum(b.events_scan, b.events_scan_bytes, b.events,
                                               b.event_before, static_cast<int64_t>(tiles), stream),
                 "EncodeChunk: events scan"));
  l3::internal::PackTilesKernel<T><<<WarpGrid(tiles), kThreads, 0, stream>>>(
      values, nodes, P, b.extents, options.values_per_lane, b.event_before,
      static_cast<uint64_t*>(out.payload), b.flags);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("PackTilesKernel"));
  uint32_t flags[2] = {0, 0};
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(flags, b.flags, sizeof flags, cudaMemcpyDeviceToHost, stream),
                 "EncodeChunk: copy flags"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "EncodeChunk: pack"));
  info->uses_delta = (flags[1] >> static_cast<int>(l3::internal::Model::kDelta)) & 1;
  info->uses_runs_ef = (flags[1] >> static_cast<int>(l3::internal::Model::kRunsEf)) & 1;
  info->uses_patched_for = (flags[1] >> static_cast<int>(l3::internal::Model::kPatchedFor)) & 1;
  info->uses_patched_rows_ef = (flags[1] & l3::internal::kModelsUsedPatchedRowsEf) != 0;
  if (flags[0] != 0) {
    return Status(StatusCode::kInternal,
                  "encoder bug: a partition's values do not fit its fit on the device");
  }
  return Status::OK();
}

// The whole chunk; with a counting arena it only sizes the temporary storage.
template <typename T>
Status EncodeTyped(const T* values, uint64_t n, const ChunkEncodeOptions& options, TempArena* arena,
                   const ChunkSegmentBuffers& out, EncodedChunkInfo* info, cudaStream_t stream) {
  const PartitionPlanOptions plan_options = PlanOptionsOf(options);
  DeviceNode* nodes = nullptr;
  uint64_t count = 0;
  L3_CUDA_RETURN_NOT_OK(
      encode::PlanOnDevice(options.type, values, n, plan_options, arena, &nodes, &count, stream));
  const bool sizing = arena->counting();
  if (sizing) {
    PackBuffers b;
    const uint64_t partitions = encode::MaxInitialPartitions(n, options.partitioner);
    L3_CUDA_RETURN_NOT_OK(AllocatePack(partitions, MaxTiles(n, partitions, options.values_per_lane),
                                       arena, &b, stream));
  } else {
    L3_CUDA_RETURN_NOT_OK(Pack(values, n, options, nodes, count, arena, out, info, stream));
  }

  // Statistics (spec §7.6) and checksums over the arena's remaining space;
  // the partitioner's and the packer's buffers are no longer needed, but
  // their space is not reused: simpler sizing, and small next to the hulls.
  if (options.statistics) {
    const size_t stats_bytes = encode::ChunkStatisticsTempBytes(options.type, n);
    void* stats_temp = nullptr;
    L3_CUDA_RETURN_NOT_OK(arena->AllocateBytes(stats_bytes, &stats_temp));
    if (!sizing) {
      l3::internal::ChunkStatisticsData stats;
      L3_CUDA_RETURN_NOT_OK(encode::ComputeChunkStatistics(options.type, values, n, stats_temp,
                                                           stats_bytes, &stats, stream));
      info->statistics.present = true;
      info->statistics.has_min_max = stats.has_min_max;
      info->statistics.min_value = stats.min_value;
      info->statistics.max_value = stats.max_value;
      info->statistics.null_count = 0;
      info->statistics.distinct_count = stats.distinct_count;
      info->statistics.distinct_count_exact = stats.distinct_count_exact;
    }
  }
  const ChunkSegmentSizes max = MaxSegmentSizes(n, options);
  const size_t crc_bytes = encode::Crc32cTempBytes(
      std::max({max.partition_table, max.parameters, max.payload, max.bounds, uint64_t{1}}));
  void* crc_temp = nullptr;
  uint32_t* d_crcs = nullptr;
  L3_CUDA_RETURN_NOT_OK(arena->AllocateBytes(crc_bytes, &crc_temp));
  L3_CUDA_RETURN_NOT_OK(arena->Allocate(4, &d_crcs));
  if (sizing) return Status::OK();
  const void* segments[4] = {out.partition_table, out.parameters, out.payload, out.bounds};
  const uint64_t sizes[4] = {info->sizes.partition_table, info->sizes.parameters,
                             info->sizes.payload, info->sizes.bounds};
  for (int s = 0; s < 4; ++s) {
    if (sizes[s] == 0) continue;
    L3_CUDA_RETURN_NOT_OK(
        encode::Crc32c(segments[s], sizes[s], crc_temp, crc_bytes, d_crcs + s, stream));
  }
  uint32_t crcs[4] = {0, 0, 0, 0};
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(crcs, d_crcs, sizeof crcs, cudaMemcpyDeviceToHost, stream),
                 "EncodeChunk: copy checksums"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "EncodeChunk: checksums"));
  for (int s = 0; s < 4; ++s) info->crc32c[s] = sizes[s] == 0 ? 0 : crcs[s];
  return Status::OK();
}

Status Dispatch(const void* values, uint64_t n, const ChunkEncodeOptions& options, TempArena* arena,
                const ChunkSegmentBuffers& out, EncodedChunkInfo* info, cudaStream_t stream) {
  Status status = Status(StatusCode::kUnsupportedFeature, "integer types only");
  l3::internal::DispatchIntegerType(options.type, [&](auto zero) {
    using T = decltype(zero);
    status = EncodeTyped(static_cast<const T*>(values), n, options, arena, out, info, stream);
  });
  return status;
}

}  // namespace

Result<size_t> EncodeChunkTempBytes(uint64_t num_rows, const ChunkEncodeOptions& options) {
  L3_CUDA_RETURN_NOT_OK(CheckOptions(num_rows, options));
  TempArena sizing;
  EncodedChunkInfo info;
  L3_CUDA_RETURN_NOT_OK(
      Dispatch(nullptr, num_rows, options, &sizing, ChunkSegmentBuffers{}, &info, nullptr));
  return sizing.used();
}

Result<ChunkSegmentSizes> EncodeChunkMaxBytes(uint64_t num_rows,
                                              const ChunkEncodeOptions& options) {
  L3_CUDA_RETURN_NOT_OK(CheckOptions(num_rows, options));
  return MaxSegmentSizes(num_rows, options);
}

Status EncodeChunk(const void* d_values, uint64_t num_rows, const ChunkEncodeOptions& options,
                   void* d_temp, size_t temp_bytes, const ChunkSegmentBuffers& out,
                   EncodedChunkInfo* info, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(CheckOptions(num_rows, options));
  if (d_values == nullptr || d_temp == nullptr || info == nullptr ||
      out.partition_table == nullptr || out.parameters == nullptr || out.payload == nullptr ||
      (options.partition_bounds && out.bounds == nullptr)) {
    return Status(StatusCode::kInvalidArgument, "EncodeChunk: null pointer");
  }
  const uintptr_t value_align = static_cast<uintptr_t>(PhysicalTypeBytes(options.type));
  if (reinterpret_cast<uintptr_t>(d_values) % value_align != 0 ||
      reinterpret_cast<uintptr_t>(d_temp) % 16 != 0 ||
      reinterpret_cast<uintptr_t>(out.partition_table) % 8 != 0 ||
      reinterpret_cast<uintptr_t>(out.parameters) % 8 != 0 ||
      reinterpret_cast<uintptr_t>(out.payload) % 8 != 0 ||
      reinterpret_cast<uintptr_t>(out.bounds) % 8 != 0) {
    return Status(StatusCode::kInvalidArgument,
                  "EncodeChunk: misaligned pointer (values by their size, temp by 16, segments "
                  "by 8)");
  }
  *info = EncodedChunkInfo{};
  TempArena arena(d_temp, temp_bytes);
  return Dispatch(d_values, num_rows, options, &arena, out, info, stream);
}

}  // namespace l3::cuda
