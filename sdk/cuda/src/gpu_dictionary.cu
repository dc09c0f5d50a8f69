// The dictionary's elements built on the device (gpu_encode.hpp:
// BuildDictionary), with the CPU writer's decisions (dictionary_encode.cpp).
#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "codec/dictionary/dictionary_encode.cuh"
#include "codec/dictionary/dictionary_encode.hpp"
#include "codec/encode/value_traits.hpp"
#include "cuda_status.hpp"
#include "gpu_encode.hpp"

namespace l3::cuda::encode {
namespace {

// cudaMallocAsync'd memory released in stream order.
class Scratch {
 public:
  explicit Scratch(cudaStream_t stream) : stream_(stream) {}
  ~Scratch() {
    for (void* p : pointers_) cudaFreeAsync(p, stream_);
  }
  template <typename U>
  Status Allocate(uint64_t count, U** out) {
    void* p = nullptr;
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMallocAsync(&p, std::max<uint64_t>(count * sizeof(U), 1), stream_), "cudaMallocAsync"));
    pointers_.push_back(p);
    *out = static_cast<U*>(p);
    return Status::OK();
  }

 private:
  cudaStream_t stream_;
  std::vector<void*> pointers_;
};

// The distinct values of values[0, n), sorted, into entries; their count.
template <typename T>
Status SortedDistinct(const T* values, uint64_t n, T* sorted, T* entries, uint64_t* count,
                      Scratch* scratch, cudaStream_t stream) {
  size_t sort_bytes = 0, unique_bytes = 0;
  uint64_t* d_count = nullptr;
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, values, sorted, n, 0,
                                                8 * sizeof(T), stream),
                 "dictionary: sort size"));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceSelect::Unique(nullptr, unique_bytes, sorted, entries, d_count, n, stream),
      "dictionary: unique size"));
  void* temp = nullptr;
  L3_CUDA_RETURN_NOT_OK(scratch->Allocate(std::max(sort_bytes, unique_bytes), &temp));
  L3_CUDA_RETURN_NOT_OK(scratch->Allocate(1, &d_count));
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cub::DeviceRadixSort::SortKeys(temp, sort_bytes, values, sorted, n, 0, 8 * sizeof(T), stream),
      "dictionary: sort"));
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cub::DeviceSelect::Unique(temp, unique_bytes, sorted, entries, d_count, n, stream),
                 "dictionary: unique"));
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMemcpyAsync(count, d_count, sizeof(uint64_t), cudaMemcpyDeviceToHost, stream),
                 "dictionary: copy count"));
  return CudaStatus(cudaStreamSynchronize(stream), "dictionary: count");
}

template <typename T>
Status BuildTyped(const T* values, uint64_t n, uint64_t max_entries, void** elements,
                  uint64_t* entries, bool* built, cudaStream_t stream) {
  *built = false;
  Scratch scratch(stream);
  T* sorted = nullptr;
  T* distinct = nullptr;
  L3_CUDA_RETURN_NOT_OK(scratch.Allocate(n, &sorted));
  L3_CUDA_RETURN_NOT_OK(scratch.Allocate(n, &distinct));
  // The CPU's sample first: the same decision from the same count.
  const uint64_t sample = l3::internal::DictionarySampleRows(n);
  uint64_t count = 0;
  L3_CUDA_RETURN_NOT_OK(SortedDistinct(values, sample, sorted, distinct, &count, &scratch, stream));
  if (l3::internal::DictionarySampleRejects(count, sample, max_entries)) return Status::OK();
  L3_CUDA_RETURN_NOT_OK(SortedDistinct(values, n, sorted, distinct, &count, &scratch, stream));
  if (count > max_entries || !l3::internal::DictionaryElementsFit(count, n)) return Status::OK();
  T* out = nullptr;
  L3_CUDA_RETURN_NOT_OK(
      CudaStatus(cudaMallocAsync(reinterpret_cast<void**>(&out), (count + n) * sizeof(T), stream),
                 "cudaMallocAsync"));
  // spec §8.10: the entries in numeric order (CUB's radix order for signed
  // and unsigned keys), then one code per row.
  Status status = CudaStatus(
      cudaMemcpyAsync(out, distinct, count * sizeof(T), cudaMemcpyDeviceToDevice, stream),
      "dictionary: copy entries");
  if (status.ok()) {
    const unsigned grid =
        static_cast<unsigned>(std::clamp<uint64_t>((n + 255) / 256, 1, 65535u * 8));
    l3::internal::DictionaryCodesKernel<T>
        <<<grid, 256, 0, stream>>>(values, n, out, count, out + count);
    status = CheckLaunch("DictionaryCodesKernel");
  }
  if (!status.ok()) {
    cudaFreeAsync(out, stream);
    return status;
  }
  *elements = out;
  *entries = count;
  *built = true;
  return Status::OK();
}

}  // namespace

Status BuildDictionary(PhysicalType type, const void* values, uint64_t n, uint64_t max_entries,
                       void** elements, uint64_t* entries, bool* built, cudaStream_t stream) {
  if (values == nullptr || elements == nullptr || entries == nullptr || built == nullptr ||
      n == 0) {
    return Status(StatusCode::kInvalidArgument, "BuildDictionary: bad arguments");
  }
  Status status = Status(StatusCode::kUnsupportedFeature, "integer types only");
  l3::internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    status =
        BuildTyped(static_cast<const T*>(values), n, max_entries, elements, entries, built, stream);
  });
  return status;
}

}  // namespace l3::cuda::encode
