// DELTA (spec §8.9), the CUDA half: one warp decodes one tile, and random
// access scans at most the tile that holds the row. Included by the CUDA
// backend's decode_kernels.cuh after the shared SLAP readers it uses
// (LaneBitReader, ReadFields); the CPU half is delta_decode.hpp beside this
// file, and both follow the same spec text.
//
// Decoding a tile. Lane L reads its contiguous run of fields with the same
// sequential bit reader as FOR_BITPACK (the stream starts after the tile
// Seed words). At step k the warp holds the fields of 32 consecutive rows
// t*S + 32k + L; an inclusive warp sum over the lanes turns them into
// values: v = carry + (L + 1) * Delta_Base + sum_{L' <= L} u(L'), where the
// carry is the previous step's value of lane 31 (Seed[t] before step 0).
// For fields of up to 27 bits the sum of 32 fields fits 32 bits, so the
// scan shuffles 32-bit words; wider fields scan 64-bit words.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/delta/delta_layout.hpp"

namespace l3::cuda::detail {

/// The exception lists of a checked DELTA partition (spec §8.9), read from
/// the stream after the n SLAP fields. Every lane reads the same rows
/// (broadcast loads); rows come from the payload and are untrusted, so
/// callers only use them to pick a lane and never to address memory.
struct DeltaExceptionList {
  const uint64_t* stream;
  uint64_t rows_bit;
  uint64_t highs_bit;
  uint32_t count;
  uint32_t row_bits;
  uint32_t high_bits;

  __device__ __forceinline__ DeltaExceptionList(const uint64_t* s, uint64_t n, uint32_t w,
                                                uint64_t word) {
    const internal::DeltaExceptions e = internal::UnpackDeltaExceptions(word);
    stream = s;
    count = e.count;
    high_bits = e.width;
    row_bits = internal::RunStartBits(n);
    rows_bit = n * w;
    highs_bit = rows_bit + uint64_t{e.count} * row_bits;
  }
  __device__ __forceinline__ uint64_t Row(uint32_t i) const {
    return LoadField(stream, rows_bit + uint64_t{i} * row_bits, row_bits);
  }
  __device__ __forceinline__ uint64_t High(uint32_t i) const {
    return LoadField(stream, highs_bit + uint64_t{i} * high_bits, high_bits);
  }
  /// The first exception whose row is >= x, found by the whole warp: each
  /// round samples 32 rows and narrows the range 32-fold (one round when
  /// E <= 32). Terminates on any bits; the result is in [0, E].
  __device__ __forceinline__ uint32_t WarpLowerBound(uint64_t x, uint32_t lane) const {
    uint32_t lo = 0;
    uint32_t hi = count;  // the answer lies in [lo, hi]
    while (hi > lo) {
      const uint32_t stride = (hi - lo + 31) / 32;
      const uint32_t pos = lo + lane * stride;
      const bool less = pos < hi && Row(pos) < x;
      const uint32_t k = __popc(__ballot_sync(0xFFFFFFFFu, less));
      if (stride == 1) return lo + k;
      const uint32_t next_hi = min(hi, lo + k * stride);
      lo = k == 0 ? lo : lo + (k - 1) * stride + 1;
      hi = max(lo, next_hi);
    }
    return lo;
  }

  /// The first exception whose row is >= x (binary search; any bits).
  __device__ __forceinline__ uint32_t LowerBound(uint64_t x) const {
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (Row(mid) < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

template <typename S>
__device__ __forceinline__ S WarpInclusiveSum(S x, uint32_t lane) {
#pragma unroll
  for (uint32_t offset = 1; offset < 32; offset <<= 1) {
    const S y = __shfl_up_sync(0xFFFFFFFFu, x, offset);
    if (lane >= offset) x += y;
  }
  return x;
}

/// One tile of a DELTA partition. Same contract as DecodeSlapTile: the whole
/// warp calls it with the same tile; `tile_out` is the output index of the
/// tile's row 0. kMap: the launch may hold dictionary chunks (MapCode).
template <typename U, int kWidthClass, int kV, bool kMap>
__device__ __noinline__ void DecodeDeltaTile(const KernelChunk& c, const StagedPartition& sp,
                                             uint32_t tile, int64_t tile_out, uint64_t range_len,
                                             U* __restrict__ out, uint32_t lane) {
  const DevicePartition& d = sp.d;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t tile_first = uint64_t{tile} * tile_rows;
  const bool full = tile < sp.full_tiles;
  const uint32_t q = sp.partial_q;
  const uint32_t r = sp.partial_r;
  const uint32_t steps = full ? V : q + (r != 0 ? 1u : 0u);
  const uint32_t lane_rows = full ? V : q + (lane < r ? 1u : 0u);
  const uint64_t* words = c.payload + d.word_offset;
  // spec §8.9: Seed[t], then the SLAP stream after ceil_div(n, S) seed words.
  U carry = static_cast<U>(__ldg(words + tile));
  const U delta_base = static_cast<U>(sp.params[0]);
  const U lane_bases = static_cast<U>(delta_base * static_cast<U>(lane + 1));
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V);

  LaneBitReader<1> reader;
  if constexpr (kWidthClass != kZeroWidth) {
    const uint64_t lane_first = full ? uint64_t{lane} * V : uint64_t{lane} * q + min(lane, r);
    const uint64_t bit = (tile_first + lane_first) * w;
    reader.Init(stream + (bit >> 6), static_cast<uint32_t>(bit & 63));
  }
  const uint64_t mask = sp.mask;
  const DeltaExceptionList exceptions(stream, d.rows, w, sp.params[1]);
  // spec §8.9 exceptions, 32 at a time: lane j holds exception batch + j
  // (its row, and its high part shifted by w; w < 64 whenever E > 0, since
  // w + Exception_Width <= N), so a tile costs one parallel load per 32
  // exceptions and a step without one costs a comparison and a ballot.
  uint32_t batch = exceptions.count == 0 ? 0 : exceptions.WarpLowerBound(tile_first, lane);
  uint64_t my_row = ~uint64_t{0};
  U my_high = 0;
  uint64_t batch_last_row = ~uint64_t{0};  // lane 31's row: past it, load the next batch
  auto load_batch = [&]() {
    const uint32_t e = batch + lane;
    my_row = e < exceptions.count ? exceptions.Row(e) : ~uint64_t{0};
    my_high = e < exceptions.count && w < 64 ? static_cast<U>(exceptions.High(e) << w) : U{0};
    batch_last_row = __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(my_row), 31);
  };
  if (exceptions.count != 0) load_batch();
  // The scan adds the low fields only; high parts are added apart (below).
  const bool scan32 = w <= 27;
  const uint64_t rows_here = full ? tile_rows : uint64_t{q} * internal::kLanes + r;
  const bool inside = tile_out >= 0 && static_cast<uint64_t>(tile_out) + rows_here <= range_len;
  constexpr uint32_t G = FieldsPerRead(kWidthClass);
  for (uint32_t k = 0; k < steps; k += G) {
    uint64_t f[G];
    ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
    for (uint32_t i = 0; i < G; ++i) {
      const uint32_t step = k + i;
      if (step >= steps) break;  // uniform across the warp
      const bool has_row = step < lane_rows;
      // Exceptions among this step's 32 rows: a high part at lane `at` adds
      // to the prefix of every lane from `at` on.
      const uint64_t field = f[i];
      U correction = 0;
      if (exceptions.count != 0) {
        const uint64_t step_first = tile_first + uint64_t{step} * internal::kLanes;
        const uint64_t step_end = step_first + internal::kLanes;
        for (;;) {
          uint32_t hits =
              __ballot_sync(0xFFFFFFFFu, my_row >= step_first && my_row < step_end);
          while (hits != 0) {
            const int j = __ffs(hits) - 1;
            hits &= hits - 1;
            const uint64_t row =
                __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(my_row), j);
            U high;
            if constexpr (sizeof(U) == 8) {
              high = static_cast<U>(
                  __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(my_high), j));
            } else {
              high = static_cast<U>(__shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(my_high), j));
            }
            if (lane >= row - step_first) correction = static_cast<U>(correction + high);
          }
          // The batch ends inside this step and more exceptions follow.
          if (batch_last_row < step_end && batch + 32 < exceptions.count) {
            batch += 32;
            load_batch();
            continue;
          }
          break;
        }
      }
      // Lanes without a row at this step are the high lanes of a partial
      // tile's last step (spec §8.5); they add nothing and store nothing.
      U sum;
      if constexpr (kWidthClass == kZeroWidth) {
        sum = 0;
      } else if (scan32) {
        sum = static_cast<U>(WarpInclusiveSum<uint32_t>(has_row ? static_cast<uint32_t>(field) : 0u, lane));
      } else {
        sum = static_cast<U>(
            WarpInclusiveSum<unsigned long long>(has_row ? field : 0ull, lane));
      }
      const U value = static_cast<U>(carry + lane_bases + sum + correction);
      const int64_t index = tile_out + static_cast<int64_t>(lane) + int64_t{step} * internal::kLanes;
      if (inside) {
        if (has_row) out[index] = MapCode<kMap>(c, value);
      } else {
        StoreChecked<kMap>(c, out, index, range_len, has_row, value);
      }
      if constexpr (sizeof(U) == 8) {
        carry = static_cast<U>(__shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(value), 31));
      } else {
        carry = static_cast<U>(__shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(value), 31));
      }
    }
  }
}

template <typename U, int kV, bool kMap>
__device__ __forceinline__ void DispatchDeltaWidth(const KernelChunk& c, const StagedPartition& sp,
                                                   uint32_t tile, int64_t tile_out,
                                                   uint64_t range_len, U* __restrict__ out,
                                                   uint32_t lane) {
  // Fields of up to 32 bits are read two at a time: four at a time (as
  // FOR_BITPACK does up to 16 bits) keeps too many scans in flight and spills.
  switch (WidthClassOf(sp.d.width)) {
    case kZeroWidth:
      DecodeDeltaTile<U, kZeroWidth, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
    case kNarrow16:
    case kNarrow32:
      DecodeDeltaTile<U, kNarrow32, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
    default:
      DecodeDeltaTile<U, kWide, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
      break;
  }
}

/// Local row x of a checked DELTA partition, by one thread: Seed[t] plus the
/// Delta_Base and fields of the tile's rows up to x (spec §8.9), read lane
/// by lane along each lane's contiguous run.
template <typename U>
__device__ __forceinline__ U DecodeDeltaOne(const KernelChunk& c, const DevicePartition& d,
                                            uint64_t x) {
  const uint32_t V = c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t tile = x / tile_rows;
  const uint64_t in_tile = x - tile * tile_rows;  // rows [0, in_tile] of the tile count
  const uint64_t* words = c.payload + d.word_offset;
  U value = static_cast<U>(__ldg(words + tile));
  const U delta_base = static_cast<U>(__ldg(c.params + d.param_offset));
  value = static_cast<U>(value + static_cast<U>(delta_base * static_cast<U>(in_tile + 1)));
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V);
  // spec §8.9 exceptions among the tile's rows up to x.
  const DeltaExceptionList exceptions(stream, d.rows, w, __ldg(c.params + d.param_offset + 1));
  if (exceptions.count != 0 && w < 64) {
    const uint64_t first = tile * tile_rows;
    for (uint32_t i = exceptions.LowerBound(first); i < exceptions.count; ++i) {
      const uint64_t row = exceptions.Row(i);
      if (row > x) break;
      value = static_cast<U>(value + static_cast<U>(exceptions.High(i) << w));
    }
  }
  if (w == 0) return value;
  const uint32_t lanes = in_tile + 1 < internal::kLanes ? static_cast<uint32_t>(in_tile + 1)
                                                        : internal::kLanes;
  uint64_t sum = 0;  // modulo 2^64, so modulo 2^N once cast to U
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    // Steps k of this lane with lane + 32 k <= in_tile: a run of contiguous
    // fields, read word by word (each word is loaded once).
    const uint64_t count = (in_tile - lane) / internal::kLanes + 1;
    const uint64_t bit = internal::SlapLaneBitOffset(d.rows, w, V, tile, lane);
    const uint64_t* p = stream + (bit >> 6);
    uint32_t shift = static_cast<uint32_t>(bit & 63);
    uint64_t current = __ldg(p);
    uint64_t next = __ldg(p + 1);
    const uint64_t mask = internal::LowMask(w);
    for (uint64_t k = 0; k < count; ++k) {
      sum += (shift == 0 ? current : (current >> shift) | (next << (64 - shift))) & mask;
      shift += w;
      if (shift >= 64) {
        // The next field starts in the next word; the word after it lies in
        // the payload padding at worst (spec §8.6).
        shift -= 64;
        current = next;
        ++p;
        next = __ldg(p + 1);
      }
    }
  }
  return static_cast<U>(value + static_cast<U>(sum));
}

}  // namespace l3::cuda::detail
