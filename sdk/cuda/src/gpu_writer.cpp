// The CUDA backend's half of the Writer (l3/cuda.hpp: UseGpuWriter,
// UseGpuPartitioner): a PartitionPlanner whose calls copy a chunk's values
// to the device on a stream of their own and plan, or encode, it there.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/partitioner.hpp"
#include "common/status_macros.hpp"
#include "cuda_status.hpp"
#include "gpu_encode.hpp"
#include "l3/cuda.hpp"

namespace l3::cuda {
namespace {

using l3::internal::EncodedChunk;
using l3::internal::EncoderConfig;
using l3::internal::PartitionPlanOptions;
using l3::internal::PlannedPartition;

// Device memory and a stream for one call, released in stream order.
class CallResources {
 public:
  ~CallResources() {
    if (stream_ == nullptr) return;
    for (void* p : pointers_) cudaFreeAsync(p, stream_);
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  Status Open(int device) {
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaSetDevice(device), "cudaSetDevice"));
    return CudaStatus(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                      "cudaStreamCreate");
  }

  Status Allocate(size_t bytes, void** out) {
    L3_CUDA_RETURN_NOT_OK(
        CudaStatus(cudaMallocAsync(out, bytes == 0 ? 1 : bytes, stream_), "cudaMallocAsync"));
    pointers_.push_back(*out);
    return Status::OK();
  }

  // The values, copied to the device.
  Status Upload(const void* values, size_t bytes, void** out) {
    L3_CUDA_RETURN_NOT_OK(Allocate(bytes, out));
    return CudaStatus(cudaMemcpyAsync(*out, values, bytes, cudaMemcpyHostToDevice, stream_),
                      "copy values");
  }

  Status Download(const void* device, uint64_t bytes, std::vector<uint8_t>* host) {
    host->resize(bytes);
    if (bytes == 0) return Status::OK();
    return CudaStatus(cudaMemcpyAsync(host->data(), device, bytes, cudaMemcpyDeviceToHost, stream_),
                      "copy segment");
  }

  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
  std::vector<void*> pointers_;
};

class GpuChunkEncoder final : public l3::internal::PartitionPlanner {
 public:
  GpuChunkEncoder(int device, bool pack) : device_(device), pack_(pack) {}

  Status Plan(PhysicalType type, const void* values, uint64_t n,
              const PartitionPlanOptions& options,
              std::vector<PlannedPartition>* plan) const override {
    if (options.split_min_rows > 0) {
      return Status(StatusCode::kUnsupportedFeature, "halving is planned on the CPU");
    }
    if (!PhysicalTypeIsInteger(type) || values == nullptr || plan == nullptr) {
      return Status(StatusCode::kInvalidArgument, "integer values expected");
    }
    CallResources call;
    L3_CUDA_RETURN_NOT_OK(call.Open(device_));
    void* d_values = nullptr;
    L3_CUDA_RETURN_NOT_OK(
        call.Upload(values, n * static_cast<size_t>(PhysicalTypeBytes(type)), &d_values));
    return encode::PlanPartitions(type, d_values, n, options, plan, call.stream());
  }

  Status Encode(const void* values, uint64_t n, const EncoderConfig& config,
                EncodedChunk* chunk) const override {
    if (!pack_) return Status(StatusCode::kUnsupportedFeature, "plans only");
    if (values == nullptr || chunk == nullptr) {
      return Status(StatusCode::kInvalidArgument, "null pointer");
    }
    ChunkEncodeOptions options;
    options.type = config.type;
    options.values_per_lane = config.values_per_lane;
    options.partitioner = config.partitioner;
    options.partition_bounds = config.compute_bounds;
    options.statistics = config.compute_statistics;
    L3_ASSIGN_OR_RETURN(const size_t temp_bytes, EncodeChunkTempBytes(n, options));
    L3_ASSIGN_OR_RETURN(const ChunkSegmentSizes max, EncodeChunkMaxBytes(n, options));

    EncodedChunk result;  // outlives `call`, whose end waits for the copies into it
    CallResources call;
    L3_CUDA_RETURN_NOT_OK(call.Open(device_));
    void* d_values = nullptr;
    void* d_temp = nullptr;
    ChunkSegmentBuffers out;
    out.capacity = max;
    L3_CUDA_RETURN_NOT_OK(
        call.Upload(values, n * static_cast<size_t>(PhysicalTypeBytes(config.type)), &d_values));
    L3_CUDA_RETURN_NOT_OK(call.Allocate(temp_bytes, &d_temp));
    L3_CUDA_RETURN_NOT_OK(call.Allocate(max.partition_table, &out.partition_table));
    L3_CUDA_RETURN_NOT_OK(call.Allocate(max.parameters, &out.parameters));
    L3_CUDA_RETURN_NOT_OK(call.Allocate(max.payload, &out.payload));
    if (options.partition_bounds) L3_CUDA_RETURN_NOT_OK(call.Allocate(max.bounds, &out.bounds));
    EncodedChunkInfo info;
    L3_CUDA_RETURN_NOT_OK(
        EncodeChunk(d_values, n, options, d_temp, temp_bytes, out, &info, call.stream()));

    result.num_rows = info.num_rows;
    result.num_partitions = info.num_partitions;
    result.values_per_lane = info.values_per_lane;
    result.uses_delta = info.uses_delta;
    result.uses_runs_ef = info.uses_runs_ef;
    result.statistics.has_min_max = info.statistics.has_min_max;
    result.statistics.min_value = info.statistics.min_value;
    result.statistics.max_value = info.statistics.max_value;
    result.statistics.distinct_count = info.statistics.distinct_count;
    result.statistics.distinct_count_exact = info.statistics.distinct_count_exact;
    L3_CUDA_RETURN_NOT_OK(
        call.Download(out.partition_table, info.sizes.partition_table, &result.partition_table));
    L3_CUDA_RETURN_NOT_OK(call.Download(out.parameters, info.sizes.parameters, &result.parameters));
    L3_CUDA_RETURN_NOT_OK(call.Download(out.payload, info.sizes.payload, &result.payload));
    L3_CUDA_RETURN_NOT_OK(call.Download(out.bounds, info.sizes.bounds, &result.bounds));
    L3_CUDA_RETURN_NOT_OK(
        CudaStatus(cudaStreamSynchronize(call.stream()), "EncodeChunk: copy segments"));
    *chunk = std::move(result);
    return Status::OK();
  }

 private:
  int device_;
  bool pack_;
};

Status Install(WriteOptions* options, int device, bool pack) {
  if (options == nullptr) return Status(StatusCode::kInvalidArgument, "options is null");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the error state
    return Status(StatusCode::kDeviceError, "no CUDA device");
  }
  if (device < 0 || device >= count) {
    return Status(StatusCode::kInvalidArgument,
                  "device " + std::to_string(device) + " of " + std::to_string(count));
  }
  options->partition_planner = std::make_shared<GpuChunkEncoder>(device, pack);
  return Status::OK();
}

}  // namespace

Status UseGpuPartitioner(WriteOptions* options, int device) {
  return Install(options, device, /*pack=*/false);
}

Status UseGpuWriter(WriteOptions* options, int device) {
  return Install(options, device, /*pack=*/true);
}

}  // namespace l3::cuda
