// Key lookups with the PGM learned index (spec §11.3) in the CUDA backend:
// the device-layer entry points (MakeDevicePgmChunk, LowerBound: host checks,
// then launches on the caller's stream, no allocation) and the host layer's
// UploadPgmIndex. The kernel is sdk/src/pgm/pgm_lookup.cuh, beside the CPU
// half of the lookup.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/bits.hpp"
#include "common/status_macros.hpp"
#include "cuda_status.hpp"
#include "kernels/decode_kernels.cuh"
#include "l3/cuda.hpp"
#include "launch_common.hpp"
#include "pgm/pgm.hpp"
#include "pgm/pgm_lookup.cuh"

namespace l3::cuda {

namespace {

constexpr uint32_t kLookupBlockThreads = 256;

using launch::Aligned;

Status CheckPgmPointers(const DevicePgmChunk& g) {
  if (g.segment_keys == nullptr || g.segment_slopes == nullptr || g.segment_intercepts == nullptr ||
      !Aligned(g.segment_keys, 8) || !Aligned(g.segment_slopes, 4) ||
      !Aligned(g.segment_intercepts, 8)) {
    return Status(StatusCode::kInvalidArgument, "DevicePgmChunk pointers null or misaligned");
  }
  return Status::OK();
}

/// The checks on a descriptor the kernel relies on (it is plain data and may
/// have been edited since MakeDevicePgmChunk).
Status CheckPgm(const DevicePgmChunk& g, const DeviceChunk& c) {
  L3_CUDA_RETURN_NOT_OK(CheckPgmPointers(g));
  if (c.dictionary_entries > 0) {  // spec §8.10 rule 1: never both
    return Status(StatusCode::kInvalidArgument, "a dictionary chunk has no PGM index");
  }
  if (g.num_segments == 0 || g.num_keys != c.num_rows || g.num_segments > g.num_keys + 1 ||
      g.epsilon > kPgmMaxEpsilon || g.epsilon_recursive > kPgmMaxEpsilon || g.num_levels == 0 ||
      g.num_levels > kMaxDevicePgmLevels || g.level_offsets[0] != 0 ||
      g.level_offsets[1] != g.num_segments) {
    return Status(StatusCode::kInvalidArgument, "DevicePgmChunk does not describe its chunk");
  }
  for (uint32_t l = 0; l < g.num_levels; ++l) {
    if (g.level_offsets[l + 1] <= g.level_offsets[l]) {
      return Status(StatusCode::kInvalidArgument, "DevicePgmChunk level_offsets not increasing");
    }
  }
  if (g.num_levels > 1 && g.level_offsets[g.num_levels] - g.level_offsets[g.num_levels - 1] != 1) {
    return Status(StatusCode::kInvalidArgument, "DevicePgmChunk top level has more than one segment");
  }
  return Status::OK();
}

detail::KernelPgm ToKernelPgm(const DevicePgmChunk& g) {
  detail::KernelPgm k{};
  k.keys = g.segment_keys;
  k.slopes = g.segment_slopes;
  k.intercepts = g.segment_intercepts;
  k.num_keys = g.num_keys;
  k.max_key = g.max_key;
  k.num_segments = g.num_segments;
  k.epsilon = g.epsilon;
  k.has_max = g.has_min_max ? 1u : 0u;
  k.epsilon_recursive = g.epsilon_recursive;
  k.num_levels = g.num_levels;
  for (uint32_t l = 0; l <= g.num_levels; ++l) k.level_offsets[l] = g.level_offsets[l];
  return k;
}

size_t Align256(size_t x) { return (x + 255) / 256 * 256; }

/// Temporary storage of the key grouping: two bucket arrays and two index
/// arrays of num_keys entries, CUB's radix-sort storage, then the last keys
/// of one launch's chunks (PgmLastKeysKernel).
struct SortLayout {
  size_t array_bytes = 0;
  size_t cub_bytes = 0;
  size_t last_keys_offset = 0;
  size_t total = 0;
};

Result<SortLayout> SortLayoutFor(size_t num_keys) {
  SortLayout l;
  if (num_keys < kLowerBoundSortMinKeys || num_keys > UINT32_MAX) return l;
  l.array_bytes = Align256(num_keys * sizeof(uint32_t));
  cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), values(nullptr, nullptr);
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceRadixSort::SortPairs(nullptr, l.cub_bytes, keys, values, static_cast<int64_t>(num_keys),
                                      0, detail::kBucketBits + 1),
      "cub::DeviceRadixSort::SortPairs (temp bytes)"));
  l.last_keys_offset = 4 * l.array_bytes + Align256(l.cub_bytes);
  l.total = l.last_keys_offset + Align256(sizeof(uint64_t) * detail::kMaxLaunchChunks);
  return l;
}

/// The key order of a grouped search, and room for the chunks' last keys.
struct KeyGroups {
  const uint32_t* order = nullptr;
  uint64_t* last_keys = nullptr;
};

/// Sorts the key indexes by value bucket into temporary storage; returns the
/// order, or a null order when the keys stay in their order (too few, no
/// room, no chunk statistics).
Result<KeyGroups> GroupKeys(const DeviceChunk* chunks, const DevicePgmChunk* pgms,
                                  size_t num_chunks, const uint64_t* d_keys, size_t num_keys,
                                  void* d_temp, size_t temp_bytes, cudaStream_t stream) {
  L3_ASSIGN_OR_RETURN(const SortLayout l, SortLayoutFor(num_keys));
  if (l.total == 0 || d_temp == nullptr || temp_bytes < l.total || !Aligned(d_temp, 256)) {
    return KeyGroups{};
  }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < num_chunks; ++i) {
    if (!pgms[i].has_min_max) return KeyGroups{};
    lo = std::min(lo, pgms[i].min_key);
    hi = std::max(hi, pgms[i].max_key);
  }
  if (hi < lo) return KeyGroups{};
  const uint32_t range_bits = internal::BitLength(hi - lo);
  detail::BucketArgs args{};
  uint8_t* base = static_cast<uint8_t*>(d_temp);
  uint32_t* bucket0 = reinterpret_cast<uint32_t*>(base);
  uint32_t* bucket1 = reinterpret_cast<uint32_t*>(base + l.array_bytes);
  uint32_t* index0 = reinterpret_cast<uint32_t*>(base + 2 * l.array_bytes);
  uint32_t* index1 = reinterpret_cast<uint32_t*>(base + 3 * l.array_bytes);
  args.keys = d_keys;
  args.bucket = bucket0;
  args.index = index0;
  args.num_keys = num_keys;
  args.min_key = lo;
  args.shift = range_bits > detail::kBucketBits ? range_bits - detail::kBucketBits : 0;
  args.is_signed = PhysicalTypeIsSigned(chunks[0].type) ? 1u : 0u;
  const uint64_t blocks = std::min<uint64_t>((num_keys + 255) / 256, uint64_t{16} * launch::SmCount());
  detail::PgmBucketKernel<<<static_cast<uint32_t>(blocks), 256, 0, stream>>>(args);
  L3_CUDA_RETURN_NOT_OK(CheckLaunch("PgmBucketKernel"));
  cub::DoubleBuffer<uint32_t> keys(bucket0, bucket1), values(index0, index1);
  size_t cub_bytes = l.cub_bytes;
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceRadixSort::SortPairs(base + 4 * l.array_bytes, cub_bytes, keys, values,
                                      static_cast<int64_t>(num_keys), 0, detail::kBucketBits + 1,
                                      stream),
      "cub::DeviceRadixSort::SortPairs"));
  KeyGroups groups;
  groups.order = values.Current();
  groups.last_keys = reinterpret_cast<uint64_t*>(base + l.last_keys_offset);
  return groups;
}

template <typename U>
void LaunchLowerBound(const detail::LowerBoundArgs& args, uint64_t* last_keys, uint32_t blocks,
                      cudaStream_t stream) {
  if (args.order == nullptr) {
    detail::PgmLowerBoundKernel<U><<<blocks, kLookupBlockThreads, 0, stream>>>(args);
    return;
  }
  detail::PgmLastKeysKernel<U><<<1, detail::kMaxLaunchChunks, 0, stream>>>(args.chunks,
                                                                           args.is_signed, last_keys);
  detail::PgmLowerBoundGroupedKernel<U>
      <<<blocks, detail::kGroupedBlockThreads, 0, stream>>>(args, last_keys);
}

Status LowerBoundImpl(const DeviceChunk* chunks, const DevicePgmChunk* pgms, size_t num_chunks,
                      const uint64_t* d_keys, size_t num_keys, uint64_t* d_rows, void* d_temp,
                      size_t temp_bytes, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(launch::CheckChunks(chunks, num_chunks));
  if (pgms == nullptr) return Status(StatusCode::kInvalidArgument, "no PGM descriptors");
  for (size_t i = 0; i < num_chunks; ++i) L3_CUDA_RETURN_NOT_OK(CheckPgm(pgms[i], chunks[i]));
  if (num_keys == 0) return Status::OK();
  if (d_keys == nullptr || d_rows == nullptr || !Aligned(d_keys, 8) || !Aligned(d_rows, 8)) {
    return Status(StatusCode::kInvalidArgument, "keys or rows null or misaligned");
  }
  L3_ASSIGN_OR_RETURN(const KeyGroups groups, GroupKeys(chunks, pgms, num_chunks, d_keys, num_keys,
                                                       d_temp, temp_bytes, stream));
  const int value_bytes = PhysicalTypeBytes(chunks[0].type);
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  const uint64_t blocks = std::min<uint64_t>((num_keys + kLookupBlockThreads - 1) / kLookupBlockThreads,
                                             uint64_t{64} * launch::SmCount());
  for (size_t first = 0; first < num_chunks; first += detail::kMaxLaunchChunks) {
    const size_t last = std::min(num_chunks, first + detail::kMaxLaunchChunks);
    detail::LowerBoundArgs args{};
    args.chunks = launch::MakeChunkSet(chunks, first, last);
    // The launch's segments, every level, go to each block's shared memory
    // when they fit (the descriptors' level offsets were checked above).
    uint64_t segments = 0;
    for (size_t i = first; i < last; ++i) {
      args.pgms.pgm[i - first] = ToKernelPgm(pgms[i]);
      args.pgms.pgm[i - first].stage_offset = static_cast<uint32_t>(std::min<uint64_t>(segments, UINT32_MAX));
      segments += pgms[i].level_offsets[pgms[i].num_levels];
    }
    args.pgms.staged = segments <= detail::kPgmStageSegments ? 1u : 0u;
    args.order = groups.order;
    args.keys = d_keys;
    args.rows = d_rows;
    args.num_keys = num_keys;
    args.column_end = column_end;
    args.is_signed = PhysicalTypeIsSigned(chunks[0].type) ? 1u : 0u;
    args.first_group = first == 0 ? 1u : 0u;
    args.last_group = last == num_chunks ? 1u : 0u;
    const uint32_t grid = static_cast<uint32_t>(blocks);
    switch (value_bytes) {
      case 1: LaunchLowerBound<uint8_t>(args, groups.last_keys, grid, stream); break;
      case 2: LaunchLowerBound<uint16_t>(args, groups.last_keys, grid, stream); break;
      case 4: LaunchLowerBound<uint32_t>(args, groups.last_keys, grid, stream); break;
      default: LaunchLowerBound<uint64_t>(args, groups.last_keys, grid, stream); break;
    }
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("PgmLowerBoundKernel"));
  }
  return Status::OK();
}

}  // namespace

Result<DevicePgmChunk> MakeDevicePgmChunk(const ChunkInfo& chunk, PhysicalType type,
                                          const uint64_t* d_segment_keys,
                                          const float* d_segment_slopes,
                                          const uint64_t* d_segment_intercepts) {
  try {
    if (!PhysicalTypeIsInteger(type)) {
      return Status(StatusCode::kUnsupportedFeature, "PGM lookups need an integer column");
    }
    if (!chunk.pgm.present) {
      return Status(StatusCode::kUnsupportedFeature, "the chunk has no PGM index");
    }
    // spec §11.3.4, before any kernel sees the index.
    L3_CUDA_RETURN_NOT_OK(internal::ValidatePgmIndex(chunk.pgm, chunk.num_rows));
    DevicePgmChunk g;
    g.segment_keys = d_segment_keys;
    g.segment_slopes = d_segment_slopes;
    g.segment_intercepts = d_segment_intercepts;
    g.num_segments = chunk.pgm.level_offsets[1];
    g.epsilon = chunk.pgm.epsilon;
    g.epsilon_recursive = chunk.pgm.epsilon_recursive;
    const size_t levels = chunk.pgm.num_levels();
    g.num_levels = levels <= kMaxDevicePgmLevels ? static_cast<uint32_t>(levels) : 1u;
    for (uint32_t l = 0; l <= g.num_levels; ++l) g.level_offsets[l] = chunk.pgm.level_offsets[l];
    g.num_keys = chunk.pgm.num_keys;
    const ChunkStatistics& st = chunk.statistics;
    if (st.present && st.has_min_max) {
      g.has_min_max = true;
      g.min_key = internal::PgmOrderedKey(st.min_value, PhysicalTypeIsSigned(type));
      g.max_key = internal::PgmOrderedKey(st.max_value, PhysicalTypeIsSigned(type));
    }
    L3_CUDA_RETURN_NOT_OK(CheckPgmPointers(g));
    return g;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Result<size_t> LowerBoundTempBytes(const DeviceChunk* chunks, const DevicePgmChunk* pgms,
                                   size_t num_chunks, size_t num_keys) {
  L3_CUDA_RETURN_NOT_OK(launch::CheckChunks(chunks, num_chunks));
  if (pgms == nullptr) return Status(StatusCode::kInvalidArgument, "no PGM descriptors");
  L3_ASSIGN_OR_RETURN(const SortLayout l, SortLayoutFor(num_keys));
  return l.total;
}

Status LowerBound(const DeviceChunk* chunks, const DevicePgmChunk* pgms, size_t num_chunks,
                  const uint64_t* d_keys, size_t num_keys, uint64_t* d_rows, void* d_temp,
                  size_t temp_bytes, cudaStream_t stream) {
  try {
    return LowerBoundImpl(chunks, pgms, num_chunks, d_keys, num_keys, d_rows, d_temp, temp_bytes,
                          stream);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

// ---------------------------------------------------------------------------
// DevicePgmBuffer

struct DevicePgmBuffer::Impl {
  void* device = nullptr;
  uint64_t bytes = 0;
  std::vector<DevicePgmChunk> chunks;

  ~Impl() {
    if (device != nullptr) cudaFree(device);
  }
};

DevicePgmBuffer::DevicePgmBuffer() : impl_(std::make_unique<Impl>()) {}
DevicePgmBuffer::DevicePgmBuffer(DevicePgmBuffer&&) noexcept = default;
DevicePgmBuffer& DevicePgmBuffer::operator=(DevicePgmBuffer&&) noexcept = default;
DevicePgmBuffer::~DevicePgmBuffer() = default;

const std::vector<DevicePgmChunk>& DevicePgmBuffer::chunks() const { return impl_->chunks; }
uint64_t DevicePgmBuffer::index_bytes() const { return impl_->bytes; }

Result<DevicePgmBuffer> UploadPgmIndex(const Reader& reader, int column, cudaStream_t stream) {
  try {
    if (column < 0 || column >= reader.num_columns()) {
      return Status(StatusCode::kOutOfRange, "column index out of range");
    }
    const ColumnInfo& info = reader.column(column);
    // Every chunk's segments (all levels), one chunk after another: keys,
    // then slopes, then intercepts, every array 8-byte aligned.
    std::vector<uint64_t> offsets;
    uint64_t total = 0;
    for (const ChunkInfo& chunk : info.chunks) {
      if (!chunk.pgm.present) {
        return Status(StatusCode::kUnsupportedFeature,
                      "column " + info.name + " has a chunk without a PGM index");
      }
      L3_CUDA_RETURN_NOT_OK(internal::ValidatePgmIndex(chunk.pgm, chunk.num_rows));
      const uint64_t s = chunk.pgm.keys.size();
      offsets.push_back(total);
      total += 8 * s + (4 * s + 7) / 8 * 8 + 8 * s;
    }
    DevicePgmBuffer buffer;
    DevicePgmBuffer::Impl& impl = *buffer.impl_;
    if (total == 0) return std::move(buffer);
    std::vector<uint8_t> host(total, 0);
    for (size_t c = 0; c < info.chunks.size(); ++c) {
      const PgmIndexInfo& pgm = info.chunks[c].pgm;
      const uint64_t s = pgm.keys.size();
      uint8_t* dst = host.data() + offsets[c];
      std::memcpy(dst, pgm.keys.data(), 8 * s);
      std::memcpy(dst + 8 * s, pgm.slopes.data(), 4 * s);
      std::memcpy(dst + 8 * s + (4 * s + 7) / 8 * 8, pgm.intercepts.data(), 8 * s);
    }
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMalloc(&impl.device, total), "cudaMalloc"));
    impl.bytes = total;
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMemcpyAsync(impl.device, host.data(), total, cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync"));
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
    for (size_t c = 0; c < info.chunks.size(); ++c) {
      const uint64_t s = info.chunks[c].pgm.keys.size();
      const uint8_t* base = static_cast<const uint8_t*>(impl.device) + offsets[c];
      L3_ASSIGN_OR_RETURN(
          DevicePgmChunk g,
          MakeDevicePgmChunk(info.chunks[c], info.type, reinterpret_cast<const uint64_t*>(base),
                             reinterpret_cast<const float*>(base + 8 * s),
                             reinterpret_cast<const uint64_t*>(base + 8 * s + (4 * s + 7) / 8 * 8)));
      impl.chunks.push_back(g);
    }
    return std::move(buffer);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

}  // namespace l3::cuda
