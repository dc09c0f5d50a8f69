// Host-side checks and launch helpers shared by the device-layer entry
// points (device_api.cu: DecodeRows, Take; pgm_api.cu: LowerBound).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_status.hpp"
#include "kernels/device_chunk.cuh"
#include "l3/cuda.hpp"

namespace l3::cuda::launch {

using detail::ChunkSet;
using detail::KernelChunk;

inline bool Aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

/// The checks on a descriptor that kernels rely on: the counts and sizes
/// that bound every address (a DeviceChunk is plain data and may have been
/// edited since MakeDeviceChunk).
inline Status CheckDescriptor(const DeviceChunk& c) {
  if (!PhysicalTypeIsInteger(c.type)) {
    return Status(StatusCode::kUnsupportedFeature, "the CUDA backend decodes integer columns only");
  }
  if (PhysicalTypeIsFloat(c.column_type) &&
      PhysicalTypeBytes(c.column_type) != PhysicalTypeBytes(c.type)) {
    return Status(StatusCode::kInvalidArgument,
                  "DeviceChunk column_type: a float type of another width (spec §11.2.2)");
  }
  // spec §8.10: partitions cover D + num_rows elements.
  const uint64_t elements = c.num_rows + c.dictionary_entries;
  if (c.num_rows == 0 || c.dictionary_entries > c.num_rows || elements > UINT32_MAX ||
      c.num_partitions == 0 || c.num_partitions > elements ||
      !internal::IsValidValuesPerLane(c.values_per_lane)) {
    return Status(StatusCode::kInvalidArgument, "malformed DeviceChunk counts");
  }
  if (c.dictionary_entries > 0 &&
      (c.dictionary == nullptr || !Aligned(c.dictionary, PhysicalTypeBytes(c.type)))) {
    return Status(StatusCode::kInvalidArgument,
                  "DeviceChunk dictionary null or misaligned (spec §8.10)");
  }
  if (c.partition_table == nullptr || c.parameters == nullptr || c.payload == nullptr ||
      !Aligned(c.partition_table, 16) || !Aligned(c.parameters, 8) || !Aligned(c.payload, 8)) {
    return Status(StatusCode::kInvalidArgument, "DeviceChunk pointers null or misaligned");
  }
  if (c.parameters_bytes % 8 != 0 || c.payload_bytes % 8 != 0 ||
      c.payload_bytes < internal::kPayloadPaddingBytes) {
    return Status(StatusCode::kInvalidArgument, "malformed DeviceChunk segment sizes");
  }
  return Status::OK();
}

inline Status CheckChunks(const DeviceChunk* chunks, size_t num_chunks) {
  if (chunks == nullptr || num_chunks == 0) {
    return Status(StatusCode::kInvalidArgument, "no chunks");
  }
  for (size_t i = 0; i < num_chunks; ++i) {
    L3_CUDA_RETURN_NOT_OK(CheckDescriptor(chunks[i]));
    if (chunks[i].type != chunks[0].type || chunks[i].column_type != chunks[0].column_type) {
      return Status(StatusCode::kInvalidArgument, "chunks of different types");
    }
    if (i > 0 && chunks[i].first_row != chunks[i - 1].first_row + chunks[i - 1].num_rows) {
      return Status(StatusCode::kInvalidArgument, "chunks are not consecutive");
    }
  }
  return Status::OK();
}

inline KernelChunk ToKernelChunk(const DeviceChunk& c) {
  KernelChunk k{};
  k.table = static_cast<const uint4*>(c.partition_table);
  k.params = static_cast<const uint64_t*>(c.parameters);
  k.payload = static_cast<const uint64_t*>(c.payload);
  k.first_row = c.first_row;
  k.param_words = c.parameters_bytes / 8;
  k.payload_words = c.payload_bytes / 8;
  k.num_rows = static_cast<uint32_t>(c.num_rows + c.dictionary_entries);  // elements
  k.num_partitions = c.num_partitions;
  k.values_per_lane = c.values_per_lane;
  k.dictionary_entries = static_cast<uint32_t>(c.dictionary_entries);
  k.dictionary = c.dictionary_entries > 0 ? c.dictionary : nullptr;
  return k;
}

/// Chunks [first, last) as one launch's parameter.
inline ChunkSet MakeChunkSet(const DeviceChunk* chunks, size_t first, size_t last) {
  ChunkSet set{};
  set.count = static_cast<uint32_t>(last - first);
  for (size_t i = first; i < last; ++i) set.chunk[i - first] = ToKernelChunk(chunks[i]);
  return set;
}

inline int SmCount() {
  int device = 0;
  int sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 132;
  }
  return sms;
}

}  // namespace l3::cuda::launch
