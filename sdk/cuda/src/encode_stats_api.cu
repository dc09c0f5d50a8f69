// Host entry points of the device chunk statistics, distinct sketch and CRC32C
// (gpu_encode_stats.hpp). The kernels live beside their CPU halves:
// codec/encode/chunk_statistics.cuh and common/crc32c.cuh.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "codec/encode/chunk_statistics.cuh"
#include "codec/encode/value_traits.hpp"
#include "common/crc32c.cuh"
#include "cuda_status.hpp"
#include "gpu_encode_stats.hpp"

namespace l3::cuda::encode {

using l3::DistinctSketch;
using l3::internal::ChunkStatisticsData;
using l3::internal::DeviceStatsResult;
using l3::internal::DeviceStatsScratch;
using l3::internal::HyperLogLog;
using l3::internal::kExactDistinctLimit;

namespace {

// The values, copied to the host (the fallback for a hash table built to
// collide: the CPU's code counts them).
template <typename T>
Status CopyToHost(const T* d_values, uint64_t n, std::vector<T>* values, cudaStream_t stream) {
  values->resize(n);
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cudaMemcpyAsync(values->data(), d_values, n * sizeof(T), cudaMemcpyDeviceToHost, stream),
      "statistics: copy values"));
  return CudaStatus(cudaStreamSynchronize(stream), "statistics: copy values");
}

int HostThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

Status Invalid(const char* what) { return Status(StatusCode::kInvalidArgument, what); }

// The checks shared by the statistics and the sketch.
Status CheckValues(PhysicalType type, const void* d_values, uint64_t n, const void* d_temp,
                   size_t temp_bytes, size_t needed, const void* out) {
  if (!PhysicalTypeIsInteger(type)) {
    return Status(StatusCode::kUnsupportedFeature,
                  "the device statistics take integer columns only");
  }
  if (d_values == nullptr || d_temp == nullptr || out == nullptr) return Invalid("null pointer");
  if (n == 0) return Invalid("no values");
  if (reinterpret_cast<uintptr_t>(d_values) % PhysicalTypeBytes(type) != 0) {
    return Invalid("values not aligned to their size");
  }
  if (reinterpret_cast<uintptr_t>(d_temp) % 8 != 0) {
    return Invalid("temporary memory not 8-byte aligned");
  }
  if (temp_bytes < needed) return Invalid("temporary memory too small");
  return Status::OK();
}

// The multiprocessors of the current device.
Status MultiprocessorCount(int* count) {
  int device = 0;
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaGetDevice(&device), "cudaGetDevice"));
  return CudaStatus(cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device),
                    "cudaDeviceGetAttribute");
}

// Resident blocks per multiprocessor for the 256-thread kernels here.
constexpr uint64_t kBlocksPerMultiprocessor = 8;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The statistics kernels' launch shape for n values: blocks resident on the
// device, and tiles of kStatsThreads * kStatsItems values.
struct StatsGrid {
  uint64_t resident = 0;
  uint64_t tiles = 0;
};

Status StatsGridOf(uint64_t n, StatsGrid* shape) {
  int sms = 0;
  L3_CUDA_RETURN_NOT_OK(MultiprocessorCount(&sms));
  shape->resident = uint64_t(sms) * kBlocksPerMultiprocessor;
  shape->tiles = CeilDiv(n, uint64_t{l3::internal::kStatsThreads} * l3::internal::kStatsItems);
  return Status::OK();
}


}  // namespace

size_t Crc32cTempBytes(uint64_t /*max_bytes*/) { return 0; }

Status Crc32c(const void* d_data, uint64_t bytes, void* d_temp, size_t temp_bytes, uint32_t* d_crc,
              cudaStream_t stream) {
  if (d_crc == nullptr || (d_data == nullptr && bytes > 0)) return Invalid("Crc32c: null pointer");
  if (reinterpret_cast<uintptr_t>(d_crc) % alignof(uint32_t) != 0) {
    return Invalid("Crc32c: d_crc is not 4-byte aligned");
  }
  if (temp_bytes < Crc32cTempBytes(bytes) || (d_temp == nullptr && Crc32cTempBytes(bytes) > 0)) {
    return Invalid("Crc32c: temporary memory too small");
  }
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemsetAsync(d_crc, 0, sizeof(uint32_t), stream), "Crc32c: clear result"));
  if (bytes == 0) return Status::OK();  // the CRC of nothing is 0
  int sms = 0;
  L3_CUDA_RETURN_NOT_OK(MultiprocessorCount(&sms));
  const uint64_t blocks = uint64_t(sms) * kBlocksPerMultiprocessor;
  // Pieces of 1 KiB per thread, smaller while that leaves blocks idle.
  const uint64_t span = bytes + 15;  // counted from the 16-byte boundary below
  uint32_t piece = 1024;
  while (piece > 64 && CeilDiv(span, uint64_t{piece} * l3::internal::kCrc32cThreads) < blocks) {
    piece /= 2;
  }
  const uint64_t tiles = CeilDiv(span, uint64_t{piece} * l3::internal::kCrc32cThreads);
  const auto grid = static_cast<unsigned>(std::min(tiles, blocks));
  l3::internal::Crc32cKernel<<<grid, l3::internal::kCrc32cThreads, 0, stream>>>(
      static_cast<const uint8_t*>(d_data), bytes, piece, d_crc);
  return CheckLaunch("Crc32cKernel");
}

namespace {

// Temporary memory: the result, the bitmap, then (32/64-bit) the set's slots
// and the HyperLogLog registers.
constexpr size_t kResultBytes = 256;
constexpr size_t kBitmapBytes = (size_t{1} << 16) / 8;
constexpr size_t kSlotsOffset = kResultBytes + kBitmapBytes;
constexpr size_t kSlotsBytes = l3::internal::kStatsSetSlots * sizeof(unsigned long long);
constexpr size_t kRegistersOffset = kSlotsOffset + kSlotsBytes;
constexpr size_t kRegistersBytes = HyperLogLog::kRegisters * sizeof(uint32_t);
static_assert(sizeof(DeviceStatsResult) <= kResultBytes, "result slot");

size_t StatsTempBytes(uint32_t bits) {
  return bits <= 16 ? kSlotsOffset : kRegistersOffset + kRegistersBytes;
}

template <typename T>
Status StatisticsOf(const T* d_values, uint64_t n, uint8_t* temp, ChunkStatisticsData* out,
                    cudaStream_t stream) {
  using Traits = l3::internal::ValueTraits<T>;
  constexpr bool kBitmap = Traits::kBits <= 16;
  DeviceStatsScratch scratch;
  scratch.result = reinterpret_cast<DeviceStatsResult*>(temp);
  scratch.bitmap = reinterpret_cast<uint32_t*>(temp + kResultBytes);
  scratch.slots = kBitmap ? nullptr : reinterpret_cast<unsigned long long*>(temp + kSlotsOffset);
  auto* registers = kBitmap ? nullptr : reinterpret_cast<uint32_t*>(temp + kRegistersOffset);

  StatsGrid shape;
  L3_CUDA_RETURN_NOT_OK(StatsGridOf(n, &shape));
  const uint64_t resident = shape.resident, tiles = shape.tiles;

  l3::internal::InitStatsResultKernel<<<1, 1, 0, stream>>>(scratch.result);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("InitStatsResultKernel"));
  if (kBitmap) {
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(scratch.bitmap, 0, kBitmapBytes, stream),
                                     "statistics: clear bitmap"));
  } else {
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(scratch.slots, 0, kSlotsBytes, stream),
                                     "statistics: clear set"));
  }
  const auto grid =
      static_cast<unsigned>(std::min({tiles, resident, uint64_t{l3::internal::kStatsMaxBlocks}}));
  l3::internal::ChunkStatsKernel<T>
      <<<grid, l3::internal::kStatsThreads, 0, stream>>>(d_values, n, scratch);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("ChunkStatsKernel"));

  // The result and the bitmap are adjacent: one copy.
  std::vector<uint8_t> host(kBitmap ? kSlotsOffset : kResultBytes);
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(host.data(), temp, host.size(), cudaMemcpyDeviceToHost, stream),
                 "statistics: copy result"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "statistics: first pass"));
  DeviceStatsResult r;
  std::memcpy(&r, host.data(), sizeof r);

  ChunkStatisticsData stats;
  stats.has_min_max = true;
  stats.min_value = l3::internal::CanonicalOfOrderKey<T>(r.min_key);
  stats.max_value = l3::internal::CanonicalOfOrderKey<T>(r.max_key);
  stats.distinct_count_exact = true;
  // The CPU's order of decisions: sorted, then the bitmap, then the set.
  if (!r.not_ascending || !r.not_descending) {
    stats.distinct_count = r.changes + 1;
    *out = stats;
    return Status::OK();
  }
  if constexpr (kBitmap) {
    uint64_t distinct = 0;
    for (size_t w = 0; w < kBitmapBytes / 4; ++w) {
      uint32_t word;
      std::memcpy(&word, host.data() + kResultBytes + 4 * w, 4);
      distinct += static_cast<uint64_t>(__builtin_popcount(word));
    }
    stats.distinct_count = distinct;
    *out = stats;
    return Status::OK();
  } else {
    if (!r.set_overflow && !r.probe_overflow && r.set_size + r.has_zero <= kExactDistinctLimit) {
      stats.distinct_count = r.set_size + r.has_zero;
      *out = stats;
      return Status::OK();
    }
    if (!r.set_overflow && r.probe_overflow) {
      // Only a table built to collide gets here: count on the host.
      std::vector<T> values;
      L3_CUDA_RETURN_NOT_OK(CopyToHost(d_values, n, &values, stream));
      *out = l3::internal::ComputeChunkStatistics(values.data(), n, HostThreads());
      return Status::OK();
    }
    // More than kExactDistinctLimit distinct values: the HyperLogLog estimate.
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(registers, 0, kRegistersBytes, stream),
                                     "statistics: clear registers"));
    const auto hll_grid = static_cast<unsigned>(std::min(tiles, resident));
    l3::internal::HyperLogLogKernel<T>
        <<<hll_grid, l3::internal::kStatsThreads, 0, stream>>>(d_values, n, registers);
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("HyperLogLogKernel"));
    std::vector<uint32_t> words(HyperLogLog::kRegisters);
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMemcpyAsync(words.data(), registers, kRegistersBytes, cudaMemcpyDeviceToHost, stream),
        "statistics: copy registers"));
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "statistics: HyperLogLog"));
    std::vector<uint8_t> bytes(words.begin(), words.end());  // ranks are at most 49
    stats.distinct_count =
        l3::internal::ClampedDistinctEstimate(HyperLogLog::FromRegisters(bytes.data()), n);
    stats.distinct_count_exact = false;
    *out = stats;
    return Status::OK();
  }
}

}  // namespace

size_t ChunkStatisticsTempBytes(PhysicalType type, uint64_t /*n*/) {
  if (!PhysicalTypeIsInteger(type)) return 0;
  return StatsTempBytes(8 * PhysicalTypeBytes(type));
}

Status ComputeChunkStatistics(PhysicalType type, const void* d_values, uint64_t n, void* d_temp,
                              size_t temp_bytes, ChunkStatisticsData* out, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(
      CheckValues(type, d_values, n, d_temp, temp_bytes, ChunkStatisticsTempBytes(type, n), out));
  Status status;
  l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    status = StatisticsOf(static_cast<const T*>(d_values), n, static_cast<uint8_t*>(d_temp), out,
                          stream);
  });
  return status;
}

namespace {

// Temporary memory of the sketch: the result, the list of at most 256 keys
// and its count, the set's slots, the registers.
constexpr size_t kKeysOffset = kResultBytes;
constexpr size_t kKeysBytes = (DistinctSketch::kMaxExactHashes + 1) * sizeof(unsigned long long);
constexpr size_t kSketchSlotsOffset = kKeysOffset + kKeysBytes;
constexpr size_t kSketchRegistersOffset = kSketchSlotsOffset + kSlotsBytes;
constexpr size_t kSketchRegistersBytes = DistinctSketch::kRegisters * sizeof(uint32_t);
constexpr size_t kSketchTempBytes = kSketchRegistersOffset + kSketchRegistersBytes;

template <typename T>
Status DistinctSketchOf(const T* d_values, uint64_t n, uint8_t* temp, std::vector<uint8_t>* out,
                        cudaStream_t stream) {
  DeviceStatsScratch scratch;
  scratch.result = reinterpret_cast<DeviceStatsResult*>(temp);
  scratch.bitmap = nullptr;
  scratch.slots = reinterpret_cast<unsigned long long*>(temp + kSketchSlotsOffset);
  auto* keys = reinterpret_cast<unsigned long long*>(temp + kKeysOffset);
  unsigned long long* key_count = keys + DistinctSketch::kMaxExactHashes;
  auto* registers = reinterpret_cast<uint32_t*>(temp + kSketchRegistersOffset);

  StatsGrid shape;
  L3_CUDA_RETURN_NOT_OK(StatsGridOf(n, &shape));
  const uint64_t resident = shape.resident, tiles = shape.tiles;
  l3::internal::InitStatsResultKernel<<<1, 1, 0, stream>>>(scratch.result);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("InitStatsResultKernel"));
  // The slots and the registers are adjacent: one clear.
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemsetAsync(scratch.slots, 0, kSlotsBytes + kSketchRegistersBytes, stream),
                 "sketch: clear set and registers"));
  const auto grid =
      static_cast<unsigned>(std::min({tiles, resident, uint64_t{l3::internal::kStatsMaxBlocks}}));
  l3::internal::DistinctSketchKernel<T>
      <<<grid, l3::internal::kStatsThreads, 0, stream>>>(d_values, n, scratch, registers);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("DistinctSketchKernel"));
  DeviceStatsResult r;
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(&r, scratch.result, sizeof r, cudaMemcpyDeviceToHost, stream),
                 "sketch: copy result"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "sketch: pass"));

  if (!r.set_overflow && !r.probe_overflow &&
      r.set_size + r.has_zero <= DistinctSketch::kMaxExactHashes) {
    // The exact form: the set's keys (at most 256), hashed and sorted by the
    // CPU's DistinctSketch.
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMemsetAsync(key_count, 0, sizeof(unsigned long long), stream), "sketch: clear count"));
    const auto collect_grid = static_cast<unsigned>(
        std::min<uint64_t>(resident, CeilDiv(l3::internal::kStatsSetSlots, 256)));
    l3::internal::CollectKeysKernel<<<collect_grid, 256, 0, stream>>>(
        scratch.slots, l3::internal::kStatsSetSlots, keys, key_count);
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("CollectKeysKernel"));
    std::vector<unsigned long long> host(DistinctSketch::kMaxExactHashes + 1);
    L3_CUDA_RETURN_NOT_OK(
        CudaStatus(cudaMemcpyAsync(host.data(), keys, kKeysBytes, cudaMemcpyDeviceToHost, stream),
                   "sketch: copy keys"));
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "sketch: keys"));
    if (host.back() != r.set_size) {
      return Status(StatusCode::kDeviceError, "sketch: the set's keys were miscounted");
    }
    DistinctSketch sketch;
    if (r.has_zero) sketch.Add(0);
    for (uint64_t i = 0; i < r.set_size; ++i) sketch.Add(host[i]);
    *out = sketch.ToBytes();
    return Status::OK();
  }
  if (!r.set_overflow && r.probe_overflow) {
    // Only a table built to collide gets here: the host's sketch.
    std::vector<T> values;
    L3_CUDA_RETURN_NOT_OK(CopyToHost(d_values, n, &values, stream));
    *out = l3::internal::ComputeDistinctSketch(values.data(), n, HostThreads());
    return Status::OK();
  }
  // The register form, from the registers by the CPU's code.
  std::vector<uint32_t> words(DistinctSketch::kRegisters);
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemcpyAsync(words.data(), registers, kSketchRegistersBytes,
                                                   cudaMemcpyDeviceToHost, stream),
                                   "sketch: copy registers"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "sketch: registers"));
  const std::vector<uint8_t> bytes(words.begin(), words.end());  // rho <= 50
  *out = l3::internal::DistinctSketchBytesFromRegisters(bytes.data());
  return Status::OK();
}

}  // namespace

size_t DistinctSketchTempBytes(PhysicalType type, uint64_t /*n*/) {
  return PhysicalTypeIsInteger(type) ? kSketchTempBytes : 0;
}

Status ComputeDistinctSketch(PhysicalType type, const void* d_values, uint64_t n, void* d_temp,
                             size_t temp_bytes, std::vector<uint8_t>* out, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(
      CheckValues(type, d_values, n, d_temp, temp_bytes, DistinctSketchTempBytes(type, n), out));
  Status status;
  l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    status = DistinctSketchOf(static_cast<const T*>(d_values), n, static_cast<uint8_t*>(d_temp),
                              out, stream);
  });
  return status;
}

}  // namespace l3::cuda::encode
