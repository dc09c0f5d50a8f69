// Host entry points of the CUDA writer (gpu_fit.hpp). The kernels live beside
// their CPU halves in sdk/src/codec/encode/.
#include <string>

#include "codec/encode/fit_partition.cuh"
#include "codec/encode/value_traits.hpp"
#include "cuda_status.hpp"
#include "format/layout.hpp"
#include "gpu_fit.hpp"

namespace l3::cuda::encode {

using l3::internal::FitOptions;
using l3::internal::PartitionFit;
using l3::internal::PartitionSpan;

Status FitPartitions(PhysicalType type, const void* values, uint64_t num_values,
                     const PartitionSpan* spans, uint64_t count, PartitionSpan* span_scratch,
                     const FitOptions& options, PartitionFit* fits, cudaStream_t stream) {
  if (options.enable_delta || options.minimax_lines) {
    return Status(StatusCode::kUnsupportedFeature,
                  "the device fit has no DELTA fit and no minimax line yet");
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
  }
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(span_scratch, spans, count * sizeof(PartitionSpan),
                                 cudaMemcpyHostToDevice, stream),
                 "FitPartitions: copy spans"));
  constexpr int kThreads = 256;
  const uint64_t warps_needed = count;
  const uint64_t blocks = (warps_needed * 32 + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);
  bool launched = l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    l3::internal::FitPartitionsKernel<T><<<grid, kThreads, 0, stream>>>(
        static_cast<const T*>(values), span_scratch, count, options, fits);
  });
  if (!launched) {
    return Status(StatusCode::kUnsupportedFeature, "the device fit takes integer columns only");
  }
  return CheckLaunch("FitPartitionsKernel");
}

}  // namespace l3::cuda::encode
