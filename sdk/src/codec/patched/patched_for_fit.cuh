// PATCHED_FOR (spec §8.12), the CUDA writer's fit: one warp computes
// PatchedForFit's result (patched_for_encode.hpp, the CPU half) for one
// partition in device memory.
//
// As WarpDeltaFit (delta/delta_fit.cuh) does for deltas, the warp supplies
// the shared choice (DistinctDeltaBases, BestPatchedForFit) with its
// inputs, here over the keys of the values (PatchedForKey): the smallest
// key, the keys of ranks n / 64, n / 16 and n / 4 (a radix select, eight
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

namespace patched_for_fit_detail {

/// The keys of ranks rank[0..count) (0-based, ascending) among the keys of
/// v[0..n), given the smallest key `lo` and bitlen(largest - lo) =
/// `key_bits`: a radix select of all of them at once, eight bits of key -
/// lo a pass, one 256-bin histogram each (`histograms`: 3 * 256 words).
template <typename T>
__device__ void WarpSelectKeys(const T* v, uint32_t n, uint32_t lane, int64_t lo, uint32_t key_bits,
                               const uint64_t* rank_in, int count, uint32_t* histograms,
                               int64_t* out) {
  uint64_t prefix[3] = {0, 0, 0};
  uint64_t rank[3] = {rank_in[0], rank_in[1], rank_in[2]};
  for (int shift = key_bits == 0 ? -8 : static_cast<int>((key_bits - 1) / 8 * 8); shift >= 0;
       shift -= 8) {
    for (int i = static_cast<int>(lane); i < 256 * count; i += 32) histograms[i] = 0;
    __syncwarp();
    const int high = shift + 8;  // the digits above this one must equal prefix's
    for (uint32_t x = lane; x < n; x += 32) {
      const uint64_t key = static_cast<uint64_t>(PatchedForKey(v[x])) - static_cast<uint64_t>(lo);
      const uint32_t digit = static_cast<uint32_t>(key >> shift) & 255;
      for (int r = 0; r < count; ++r) {
        if (high >= 64 || (key >> high) == (prefix[r] >> high)) {
          atomicAdd(&histograms[256 * r + digit], 1u);
        }
      }
    }
    __syncwarp();
    for (int r = 0; r < count; ++r) {
      uint32_t digit = 0;
      uint64_t below = 0;
      if (lane == 0) {
        const uint32_t* histogram = histograms + 256 * r;
        while (below + histogram[digit] <= rank[r]) below += histogram[digit++];
      }
      digit = __shfl_sync(0xffffffffu, digit, 0);
      below = __shfl_sync(0xffffffffu, below, 0);
      rank[r] -= below;
      prefix[r] |= uint64_t{digit} << shift;
    }
    __syncwarp();
  }
  for (int r = 0; r < count; ++r) {
    out[r] = static_cast<int64_t>(static_cast<uint64_t>(lo) + prefix[r]);
  }
}

}  // namespace patched_for_fit_detail

/// PatchedForFit(v, n) computed by one warp (all lanes call it and get the
/// result; n >= 1). `scratch`: kDeltaFitScratchWords words of shared memory
/// owned by this warp.
template <typename T>
__device__ PartitionFit WarpPatchedForFit(const T* v, uint32_t n, uint32_t lane,
                                          uint32_t* scratch) {
  using U = typename ValueTraits<T>::Unsigned;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t x = lane; x < n; x += 32) {
    const int64_t key = PatchedForKey(v[x]);
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
  lo = WarpMin(lo);
  hi = WarpMax(hi);
  const uint32_t key_bits = BitLength(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  // The ranks of PatchedForFit's DeltaRanks over the n keys.
  uint64_t ranks[3] = {0, 0, 0};
  int count = 0;
  for (int i = 0; i < 3; ++i) {
    if (n / DeltaRankDivisor(i) != 0) ranks[count++] = n / DeltaRankDivisor(i);
  }
  int64_t selected[3] = {0, 0, 0};
  if (count > 0) {
    patched_for_fit_detail::WarpSelectKeys(v, n, lane, lo, key_bits, ranks, count, scratch,
                                           selected);
  }
  int64_t at_rank[3] = {0, 0, 0};
  for (int i = 0, j = 0; i < 3; ++i) {
    if (n / DeltaRankDivisor(i) != 0) at_rank[i] = selected[j++];
  }
  const DeltaBases bases = DistinctDeltaBases(lo, at_rank, n);

  auto* counts = reinterpret_cast<unsigned long long(*)[65]>(scratch + 3 * 256);
  for (int i = static_cast<int>(lane); i < 4 * 65; i += 32) counts[i / 65][i % 65] = 0;
  __syncwarp();
  U base[4];
  for (int j = 0; j < 4; ++j) base[j] = static_cast<U>(bases.value[j]);
  for (uint32_t x = lane; x < n; x += 32) {
    const U key = static_cast<U>(PatchedForKey(v[x]));
    for (int j = 0; j < bases.count; ++j) {
      atomicAdd(&counts[j][BitLength(static_cast<U>(key - base[j]))], 1ull);
    }
  }
  __syncwarp();
  const PartitionFit fit =
      BestPatchedForFit<T>(n, bases, reinterpret_cast<const uint64_t(*)[65]>(counts));
  __syncwarp();  // the scratch is free again for the caller
  return fit;
}

}  // namespace l3::internal
