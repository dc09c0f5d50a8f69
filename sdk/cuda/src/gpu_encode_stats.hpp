// The CUDA writer's chunk statistics, distinct sketches and segment checksums, callable from
// host code (kernels: codec/encode/chunk_statistics.cuh, common/crc32c.cuh).
// Internal: the device chunk encoder is built on them.
//
// Temporary memory is the caller's, CUB style: ask for the size, pass a
// device allocation of at least that many bytes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "l3/l3.hpp"
#include "l3/status.hpp"

namespace l3::cuda::encode {

/// Bytes of temporary memory Crc32c needs for buffers of up to `max_bytes`
/// bytes (0 today: the result word is the only state; d_temp may then be
/// null).
size_t Crc32cTempBytes(uint64_t max_bytes);

/// The CRC32C of d_data[0, bytes) (device memory, any alignment), equal to
/// l3::internal::Crc32c(0, data, bytes), written to *d_crc (device memory,
/// 4-byte aligned). Stream-ordered on `stream`; does not synchronise.
/// kInvalidArgument for null pointers (d_data may be null when bytes == 0),
/// a misaligned d_crc or temporary memory below Crc32cTempBytes(bytes).
Status Crc32c(const void* d_data, uint64_t bytes, void* d_temp, size_t temp_bytes, uint32_t* d_crc,
              cudaStream_t stream);

/// Bytes of temporary memory ComputeChunkStatistics needs for `n` values of
/// `type` (0 for a type that is not an integer type): about 8 KiB for 8/16-bit
/// types, about 8.3 MiB for 32/64-bit types (the capped set and the
/// HyperLogLog registers), whatever n.
size_t ChunkStatisticsTempBytes(PhysicalType type, uint64_t n);

/// The statistics of d_values[0, n) (device memory, n >= 1 values of `type`,
/// aligned to the type's size), equal to what
/// l3::internal::ComputeChunkStatistics computes on the CPU from the same
/// values: minimum, maximum, and the distinct count with its exactness (the
/// HyperLogLog estimate included). Runs on `stream` and synchronises it.
/// kInvalidArgument for null pointers, n == 0, misaligned values, temporary
/// memory not 8-byte aligned or below ChunkStatisticsTempBytes(type, n);
/// kUnsupportedFeature for a type that is not an integer type.
///
/// For an input built to collide in the device's hash table (no real data
/// does) the exact count is taken on the host from a copy of the values.
Status ComputeChunkStatistics(PhysicalType type, const void* d_values, uint64_t n, void* d_temp,
                              size_t temp_bytes, l3::internal::ChunkStatisticsData* out,
                              cudaStream_t stream);

/// Bytes of temporary memory ComputeDistinctSketch needs for `n` values of
/// `type` (0 for a type that is not an integer type): about 8.2 MiB, whatever
/// n.
size_t DistinctSketchTempBytes(PhysicalType type, uint64_t n);

/// The bytes of the spec §7.6.1 distinct-count sketch of d_values[0, n)
/// (device memory, n >= 1 values of `type`, aligned to the type's size),
/// equal to what l3::internal::ComputeDistinctSketch computes on the CPU
/// (empty where that would be: the register form's compression failed).
/// Runs on `stream` and synchronises it. Errors as ComputeChunkStatistics.
Status ComputeDistinctSketch(PhysicalType type, const void* d_values, uint64_t n, void* d_temp,
                             size_t temp_bytes, std::vector<uint8_t>* out, cudaStream_t stream);

}  // namespace l3::cuda::encode
