// The CUDA backend's half of the Writer (l3/cuda.hpp: UseGpuWriter,
// UseGpuPartitioner): a PartitionPlanner whose calls copy a chunk's values
// to the device on a stream of their own and plan, or encode, it there.
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec/dictionary/dictionary_encode.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/partitioner.hpp"
#include "common/status_macros.hpp"
#include "cuda_status.hpp"
#include "gpu_encode.hpp"
#include "gpu_encode_stats.hpp"
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

  // Device memory allocated elsewhere on this stream, freed with the rest.
  void Adopt(void* pointer) { pointers_.push_back(pointer); }

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
    EncodedChunk result;  // outlives `call`, whose end waits for the copies into it
    CallResources call;
    L3_CUDA_RETURN_NOT_OK(call.Open(device_));
    void* d_values = nullptr;
    L3_CUDA_RETURN_NOT_OK(
        call.Upload(values, n * static_cast<size_t>(PhysicalTypeBytes(config.type)), &d_values));
    L3_CUDA_RETURN_NOT_OK(
        EncodeResident(&call, d_values, n, encode::ChunkEncodeOptionsOf(config), &result));
    *chunk = std::move(result);
    return Status::OK();
  }

  Status EncodeDictionary(const void* values, uint64_t n, const EncoderConfig& config,
                          std::optional<EncodedChunk>* chunk) const override {
    if (!pack_) return Status(StatusCode::kUnsupportedFeature, "plans only");
    if (values == nullptr || chunk == nullptr || !PhysicalTypeIsInteger(config.type)) {
      return Status(StatusCode::kInvalidArgument, "integer values expected");
    }
    EncodedChunk result;
    CallResources call;
    L3_CUDA_RETURN_NOT_OK(call.Open(device_));
    void* d_values = nullptr;
    const size_t value_bytes = static_cast<size_t>(PhysicalTypeBytes(config.type));
    L3_CUDA_RETURN_NOT_OK(call.Upload(values, n * value_bytes, &d_values));
    void* d_elements = nullptr;
    uint64_t entries = 0;
    bool built = false;
    L3_CUDA_RETURN_NOT_OK(encode::BuildDictionary(
        config.type, d_values, n, l3::internal::DictionaryEntryLimit(config.type, n), &d_elements,
        &entries, &built, call.stream()));
    if (!built) {
      chunk->reset();
      return Status::OK();
    }
    call.Adopt(d_elements);
    // spec §8.10: the partitions cover the D + n elements; the statistics
    // describe the n values.
    ChunkEncodeOptions options = encode::ChunkEncodeOptionsOf(config);
    options.statistics = false;
    L3_CUDA_RETURN_NOT_OK(EncodeResident(&call, d_elements, entries + n, options, &result));
    result.num_rows = n;
    result.dictionary_entries = entries;
    if (config.compute_statistics) {
      const size_t temp_bytes = encode::ChunkStatisticsTempBytes(config.type, n);
      void* d_temp = nullptr;
      L3_CUDA_RETURN_NOT_OK(call.Allocate(temp_bytes, &d_temp));
      L3_CUDA_RETURN_NOT_OK(encode::ComputeChunkStatistics(
          config.type, d_values, n, d_temp, temp_bytes, &result.statistics, call.stream()));
    }
    *chunk = std::move(result);
    return Status::OK();
  }

 private:
  // EncodeChunk of n values already on the device, segments copied to *out.
  static Status EncodeResident(CallResources* call, const void* d_values, uint64_t n,
                               const ChunkEncodeOptions& options, EncodedChunk* out) {
    L3_ASSIGN_OR_RETURN(const size_t temp_bytes, EncodeChunkTempBytes(n, options));
    L3_ASSIGN_OR_RETURN(const ChunkSegmentSizes max, EncodeChunkMaxBytes(n, options));
    void* d_temp = nullptr;
    ChunkSegmentBuffers buffers;
    buffers.capacity = max;
    L3_CUDA_RETURN_NOT_OK(call->Allocate(temp_bytes, &d_temp));
    L3_CUDA_RETURN_NOT_OK(call->Allocate(max.partition_table, &buffers.partition_table));
    L3_CUDA_RETURN_NOT_OK(call->Allocate(max.parameters, &buffers.parameters));
    L3_CUDA_RETURN_NOT_OK(call->Allocate(max.payload, &buffers.payload));
    if (options.partition_bounds) {
      L3_CUDA_RETURN_NOT_OK(call->Allocate(max.bounds, &buffers.bounds));
    }
    EncodedChunkInfo info;
    L3_CUDA_RETURN_NOT_OK(
        EncodeChunk(d_values, n, options, d_temp, temp_bytes, buffers, &info, call->stream()));
    out->num_rows = info.num_rows;
    out->num_partitions = info.num_partitions;
    out->values_per_lane = info.values_per_lane;
    out->uses_delta = info.uses_delta;
    out->uses_runs_ef = info.uses_runs_ef;
    out->uses_patched_for = info.uses_patched_for;
    out->uses_patched_rows_ef = info.uses_patched_rows_ef;
    out->statistics.has_min_max = info.statistics.has_min_max;
    out->statistics.min_value = info.statistics.min_value;
    out->statistics.max_value = info.statistics.max_value;
    out->statistics.distinct_count = info.statistics.distinct_count;
    out->statistics.distinct_count_exact = info.statistics.distinct_count_exact;
    L3_CUDA_RETURN_NOT_OK(
        call->Download(buffers.partition_table, info.sizes.partition_table, &out->partition_table));
    L3_CUDA_RETURN_NOT_OK(
        call->Download(buffers.parameters, info.sizes.parameters, &out->parameters));
    L3_CUDA_RETURN_NOT_OK(call->Download(buffers.payload, info.sizes.payload, &out->payload));
    L3_CUDA_RETURN_NOT_OK(call->Download(buffers.bounds, info.sizes.bounds, &out->bounds));
    return CudaStatus(cudaStreamSynchronize(call->stream()), "EncodeChunk: copy segments");
  }

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

namespace encode {

ChunkEncodeOptions ChunkEncodeOptionsOf(const EncoderConfig& config) {
  ChunkEncodeOptions options;
  options.type = config.type;
  options.values_per_lane = config.values_per_lane;
  options.partitioner = config.partitioner;
  options.partition_bounds = config.compute_bounds;
  options.statistics = config.compute_statistics;
  return options;
}

}  // namespace encode

Status UseGpuPartitioner(WriteOptions* options, int device) {
  return Install(options, device, /*pack=*/false);
}

Status UseGpuWriter(WriteOptions* options, int device) {
  return Install(options, device, /*pack=*/true);
}

}  // namespace l3::cuda
