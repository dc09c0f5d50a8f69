// The CUDA writer's partition fit (codec/encode/fit_partition.cuh), callable
// from host code: the building block of the GPU writer (issue: GPU writer).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "codec/encode/model_fit.hpp"
#include "l3/l3.hpp"
#include "l3/status.hpp"

namespace l3::cuda::encode {

/// Fits each of `count` partitions of an integer column in device memory
/// (`values`: `num_values` values of `type`) and writes the model
/// FitBestModel would choose for it, field for field, to fits[i] (device
/// memory), in stream order on `stream`.
///
/// `spans` is host memory (it is checked: every span inside the column, at
/// least one row); it is copied to `span_scratch`, device memory of
/// count * sizeof(PartitionSpan) bytes owned by the caller.
///
/// kUnsupportedFeature where `options` asks for what the device does not fit
/// yet (enable_delta, minimax_lines); kInvalidArgument for bad arguments.
Status FitPartitions(PhysicalType type, const void* values, uint64_t num_values,
                     const l3::internal::PartitionSpan* spans, uint64_t count,
                     l3::internal::PartitionSpan* span_scratch,
                     const l3::internal::FitOptions& options, l3::internal::PartitionFit* fits,
                     cudaStream_t stream);

}  // namespace l3::cuda::encode
