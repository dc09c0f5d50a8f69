// PATCHED_FOR (spec §8.12), the CUDA half: a tile decodes as a FOR_BITPACK
// tile (DecodeSlapTile with the partition's Base and Bit_Width), then the
// warp patches the exception rows that fall in the tile; random access reads
// the row's field and binary-searches the exception rows. Included by the
// CUDA backend's decode_kernels.cuh after the SLAP tile decoder and DELTA's
// exception list (DeltaExceptionList: PATCHED_FOR's lists have the same
// layout after the n fields, with no Seed words before the stream); the CPU
// half is patched_for_decode.hpp beside this file.
//
// Exception rows come from the payload and are untrusted (the host rejects
// rows that do not increase or reach n, spec §8.12, but a device-only caller
// may skip that): a row only ever selects a field of the partition (x < n,
// inside the payload LoadPartition checked) and an output index checked
// against the range, so corrupt rows give wrong values at worst.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/patched/patched_for_layout.hpp"

namespace l3::cuda::detail {

/// Value of local row x (< n) of a checked PATCHED_FOR partition with the
/// high part `high` (0 when x is no exception): (Base + f(x) + high * 2^w)
/// mod 2^N. `high * 2^w` fits: w + hw <= N <= 64, and w = 64 has no
/// exceptions (hw = 0 exactly when E = 0).
template <typename U>
__device__ __forceinline__ U PatchedForValue(const uint64_t* stream, uint64_t n, uint32_t w,
                                             uint32_t V, uint64_t base, uint64_t x, uint64_t high) {
  const uint64_t f = LoadField(stream, internal::SlapFieldBitOffset(n, w, V, x), w);
  const uint64_t patch = w < 64 ? high << w : 0;
  return static_cast<U>(base + f + patch);
}

/// Adds the exceptions of one tile to what DecodeSlapTile stored for it:
/// the warp finds the tile's first exception (DeltaExceptionList's warp
/// search, one round of 32 samples when E <= 32), then lane j rewrites the
/// row of exception i + j, 32 exceptions per round, until a round reaches
/// a row past the tile. The __syncwarp orders the tile's stores before the
/// rewrites (a row is stored by lane row % 32, patched by another lane).
template <typename U, int kV, bool kMap>
__device__ __noinline__ void PatchForTile(const KernelChunk& c, const StagedPartition& sp,
                                          uint32_t tile, int64_t tile_out, uint64_t range_len,
                                          U* __restrict__ out, uint32_t lane) {
  const DevicePartition& d = sp.d;
  const uint64_t* stream = c.payload + d.word_offset;
  const DeltaExceptionList ex(stream, d.rows, d.width, sp.params[1]);
  if (ex.count == 0) return;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t lo = uint64_t{tile} * tile_rows;
  const uint64_t hi = min(lo + tile_rows, uint64_t{d.rows});
  __syncwarp();
  for (uint32_t i = ex.WarpLowerBound(lo, lane); i < ex.count; i += internal::kLanes) {
    const uint32_t j = i + lane;
    const uint64_t x = j < ex.count ? ex.Row(j) : ~uint64_t{0};
    if (x >= lo && x < hi) {
      const U v = PatchedForValue<U>(stream, d.rows, d.width, V, sp.params[0], x, ex.High(j));
      StoreChecked<kMap>(c, out, tile_out + static_cast<int64_t>(x - lo), range_len, true, v);
    }
    if (__any_sync(0xFFFFFFFFu, x >= hi)) break;
  }
}

/// One tile of a PATCHED_FOR partition. Same contract as DecodeSlapTile (the
/// whole warp calls it with the same tile; `tile_out` is the output index
/// of the tile's row 0).
template <typename U, int kV, bool kMap>
__device__ __forceinline__ void DecodePatchedForTile(const KernelChunk& c,
                                                     const StagedPartition& sp, uint32_t tile,
                                                     int64_t tile_out, uint64_t range_len,
                                                     U* __restrict__ out, uint32_t lane) {
  constexpr uint8_t kFor = static_cast<uint8_t>(internal::Model::kFor);
  switch (WidthClassOf(sp.d.width)) {
    case kZeroWidth:
      DecodeSlapTile<U, kFor, kZeroWidth, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
    case kNarrow16:
      DecodeSlapTile<U, kFor, kNarrow16, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
    case kNarrow32:
      DecodeSlapTile<U, kFor, kNarrow32, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
    default:
      DecodeSlapTile<U, kFor, kWide, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
  }
  PatchForTile<U, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
}

/// Local row x (< n) of a checked PATCHED_FOR partition, by one thread: its
/// field, plus the high part of the exception whose row is x, if any (a
/// binary search of at most ceil(log2(E + 1)) rows, spec §8.12).
template <typename U>
__device__ __forceinline__ U DecodePatchedForOne(const KernelChunk& c, const DevicePartition& d,
                                                 uint64_t x) {
  const uint64_t* stream = c.payload + d.word_offset;
  const DeltaExceptionList ex(stream, d.rows, d.width, __ldg(c.params + d.param_offset + 1));
  uint64_t high = 0;
  if (ex.count != 0) {
    const uint32_t i = ex.LowerBound(x);
    if (i < ex.count && ex.Row(i) == x) high = ex.High(i);
  }
  return PatchedForValue<U>(stream, d.rows, d.width, c.values_per_lane,
                            __ldg(c.params + d.param_offset), x, high);
}

}  // namespace l3::cuda::detail
