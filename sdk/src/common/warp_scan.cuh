// Warp-wide inclusive scans for the CUDA kernels (DELTA tiles, IBP rows):
// a Kogge-Stone scan whose steps are one shuffle and one predicated add; and
// the all-lanes minimum and maximum of the writer's fits.
#pragma once

#include <cstdint>

namespace l3::internal {

#if defined(__CUDACC__)

/// x plus the x of the lane `offset` below, or x alone in the lowest
/// `offset` lanes: one step of an inclusive warp scan. The shuffle's own
/// in-range predicate guards the addition (two instructions, where the
/// intrinsic and a lane test take four).
__device__ __forceinline__ uint32_t ShuffleUpAdd(uint32_t x, uint32_t offset) {
  uint32_t r;
  asm("{\n\t.reg .u32 t;\n\t.reg .pred p;\n\t"
      "shfl.sync.up.b32 t|p, %1, %2, 0x0, 0xffffffff;\n\t"
      "@p add.u32 t, t, %1;\n\t"
      "mov.u32 %0, t;\n\t}"
      : "=r"(r)
      : "r"(x), "r"(offset));
  return r;
}

__device__ __forceinline__ unsigned long long ShuffleUpAdd(unsigned long long x, uint32_t offset) {
  unsigned long long r;
  asm("{\n\t.reg .u32 lo, hi;\n\t.reg .u64 t;\n\t.reg .pred p;\n\t"
      "mov.b64 {lo, hi}, %1;\n\t"
      "shfl.sync.up.b32 lo|p, lo, %2, 0x0, 0xffffffff;\n\t"
      "shfl.sync.up.b32 hi|p, hi, %2, 0x0, 0xffffffff;\n\t"
      "mov.b64 t, {lo, hi};\n\t"
      "@p add.u64 t, t, %1;\n\t"
      "mov.u64 %0, t;\n\t}"
      : "=l"(r)
      : "l"(x), "r"(offset));
  return r;
}

/// Inclusive sum of x over lanes 0..L (Kogge-Stone, five steps).
template <typename S>
__device__ __forceinline__ S WarpInclusiveSum(S x) {
#pragma unroll
  for (uint32_t offset = 1; offset < 32; offset <<= 1) x = ShuffleUpAdd(x, offset);
  return x;
}

/// The minimum of `a` over the 32 lanes, in every lane (xor butterfly).
template <typename V>
__device__ __forceinline__ V WarpMin(V a) {
  for (int offset = 16; offset >= 1; offset /= 2) {
    const V b = __shfl_xor_sync(0xffffffffu, a, offset);
    a = b < a ? b : a;
  }
  return a;
}

/// The maximum of `a` over the 32 lanes, in every lane.
template <typename V>
__device__ __forceinline__ V WarpMax(V a) {
  for (int offset = 16; offset >= 1; offset /= 2) {
    const V b = __shfl_xor_sync(0xffffffffu, a, offset);
    a = b > a ? b : a;
  }
  return a;
}

#endif  // __CUDACC__

}  // namespace l3::internal
