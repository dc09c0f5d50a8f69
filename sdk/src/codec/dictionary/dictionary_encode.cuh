// Dictionary chunks (spec §8.10), the CUDA writer's half of
// dictionary_encode.cpp: each row's code is its rank among the sorted
// distinct values (the entries), found by binary search.
#pragma once

#include <cstdint>

namespace l3::internal {

/// codes[i] = the index of values[i] in entries[0, d) (sorted, distinct, and
/// holding every value), as a value of T (spec §8.10 rule 3: D fits T).
template <typename T>
__global__ void DictionaryCodesKernel(const T* __restrict__ values, uint64_t n,
                                      const T* __restrict__ entries, uint64_t d,
                                      T* __restrict__ codes) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T v = values[i];
    uint64_t lo = 0, hi = d;  // the first entry >= v
    while (lo < hi) {
      const uint64_t mid = (lo + hi) / 2;
      if (entries[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    codes[i] = static_cast<T>(lo);
  }
}

}  // namespace l3::internal
