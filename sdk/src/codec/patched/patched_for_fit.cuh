// PATCHED_FOR (spec §8.12), the CUDA writer's fit: one warp computes
// PatchedForFit's result (patched_for_encode.hpp, the CPU half) for one
// partition in device memory.
//
// As WarpDeltaFit (delta/delta_fit.cuh) does for deltas, the warp makes
// the CPU's choice (DistinctDeltaBases, BestPatchedForFit's base and width
// by WarpBestBaseChoice) from its inputs, here over the keys of the values
// (PatchedForKey): the smallest
// key, the keys of ranks n / 64, n / 16, n / 8 and n / 4 (a radix select, eight
// bits a pass, over key - smallest key) and the width counts of every
// distinct Base candidate.
#pragma once

#include <cstdint>

#include "codec/delta/delta_encode.hpp"
#include "codec/delta/delta_fit.cuh"
#include "codec/encode/value_traits.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "common/bits.hpp"
#include "common/warp_scan.cuh"

namespace l3::internal {

/// PatchedForFit(v, n) computed by one warp (all lanes call it and get the
/// result; n >= 1), Signed_Highs only where `allow_signed`, Rows_EF only
/// where `allow_rows_ef`. `scratch`: kDeltaFitScratchWords words of shared
/// memory owned by this warp.
template <typename T>
__device__ PartitionFit WarpPatchedForFit(const T* v, uint32_t n, bool allow_signed,
                                          bool allow_rows_ef, uint32_t lane, uint32_t* scratch) {
  using U = typename ValueTraits<T>::Unsigned;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t x = lane; x < n; x += 32) {
    const int64_t key = PatchedForKey(v[x]);
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
  lo = WarpMin(lo);
  hi = WarpMax(hi);
  const auto key_at = [v](uint32_t x) { return PatchedForKey(v[x]); };
  const DeltaBases bases =
      delta_fit_detail::WarpBasesAndWidthCounts<U>(key_at, 0, n, lane, lo, hi, scratch);
  int64_t key = 0;
  const DeltaChoice best = delta_fit_detail::WarpBestBaseChoice(
      n, bases, delta_fit_detail::WidthCountsIn(scratch), lo, hi, 8 * sizeof(T), allow_signed,
      lane, &key, allow_rows_ef);
  const PartitionFit fit =
      MakePatchedForFit<T>(n, best.width, PatchedForValueOfKey<T>(key), ExceptionsOf(best));
  __syncwarp();  // the scratch is free again for the caller
  return fit;
}

}  // namespace l3::internal
