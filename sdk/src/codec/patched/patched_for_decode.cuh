// PATCHED_FOR (spec §8.12), the CUDA half: a tile decodes as a FOR_BITPACK
// tile (DecodeSlapTile with the partition's Base and Bit_Width), then the
// warp patches the exception rows that fall in the tile (or, for dense
// Rows_EF lists with Bit_Width 0, the warp marks the tile's exception rows
// in a bitmap and then stores every row itself); random access reads
// the row's field and finds the row among the exception rows. Included by
// the CUDA backend's decode_kernels.cuh after the SLAP tile decoder, DELTA's
// exception list (DeltaExceptionList: PATCHED_FOR's fixed-width lists have
// the same layout after the n fields, with no Seed words before the stream)
// and RUNS_EF's warp bucket search (WarpFindBucket, which finds the first
// Rows_EF row of a tile: those rows are Elias-Fano coded as RUNS_EF's run
// starts are); the CPU half is patched_for_decode.hpp beside this file.
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
#include "codec/patched/patched_rows_ef.hpp"

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

/// What both Rows_EF tile decoders need of a tile (spec §8.12): the
/// partition's payload, its Exceptions word and layout, the tile's rows
/// [lo, hi) (n <= 65536: rows fit 32 bits) and H as RUNS_EF's warp
/// functions read it.
struct RowsEfTile {
  const uint64_t* stream;
  internal::DeltaExceptions e;
  internal::PatchedForExceptionLayout g;
  uint32_t values_per_lane;  // V
  uint32_t lo;
  uint32_t hi;
  RunsEfWarpLayout h_layout;
};

template <int kV>
__device__ __forceinline__ RowsEfTile OpenRowsEfTile(const KernelChunk& c,
                                                     const StagedPartition& sp, uint32_t tile) {
  const DevicePartition& d = sp.d;
  RowsEfTile t;
  t.stream = c.payload + d.word_offset;
  t.e = internal::UnpackDeltaExceptions(sp.params[1]);
  t.g = internal::MakePatchedForExceptionLayout(d.rows, d.width, t.e);
  t.values_per_lane = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  t.lo = tile * internal::kLanes * t.values_per_lane;
  t.hi = min(t.lo + internal::kLanes * t.values_per_lane, d.rows);
  const uint32_t h_bits = static_cast<uint32_t>(t.g.high_bits);  // < 3E <= 3 * 65536
  t.h_layout = RunsEfWarpLayout{t.stream, d.width, t.e.count, t.g.low_bits, 0u,
                                static_cast<uint32_t>(t.g.h_bit), h_bits};
  return t;
}

/// PatchForTile for a partition with Rows_EF (spec §8.12). The tile's first
/// row lo has high part h = lo >> l, and the rows before that bucket are the
/// 1 bits of H before its h-th 0 bit (WarpFindBucket, 8192 bits of H a
/// round). From there the warp takes H 1024 bits at a time (lane L holds
/// the L-th 32-bit chunk, a warp scan numbers the chunks' 1 bits) and, 32
/// exceptions a round, lane j finds the 1 bit of exception `next + j` by a
/// bisection over the scan (five shuffles) and a select in its chunk, as
/// RUNS_EF's window fill does: row ((q - i) << l) + low_i, patched where it
/// lies in [lo, hi). The loads of the 32 exceptions of a round (low part,
/// high part, field) are independent. The walk stops after the round that
/// reaches a row past the tile, or at H's end or the E-th row: every load
/// stays inside H, the low parts and the high parts, whatever H holds.
template <typename U, int kV, bool kMap>
__device__ __noinline__ void PatchForTileRowsEf(const KernelChunk& c, const StagedPartition& sp,
                                                uint32_t tile, int64_t tile_out,
                                                uint64_t range_len, U* __restrict__ out,
                                                uint32_t lane) {
  const DevicePartition& d = sp.d;
  const RowsEfTile t = OpenRowsEfTile<kV>(c, sp, tile);
  const uint64_t* stream = t.stream;
  const internal::DeltaExceptions& e = t.e;
  const internal::PatchedForExceptionLayout& g = t.g;
  const uint32_t V = t.values_per_lane;
  const uint32_t lo = t.lo, hi = t.hi;
  const uint32_t h_bits = t.h_layout.high_bits;
  const RunsEfWarpLayout& h_layout = t.h_layout;
  const RunsEfWarpBucket bucket = WarpFindBucket(h_layout, lo >> g.low_bits, lane);
  const uint32_t w = d.width;
  uint32_t chunk = bucket.first_bit / 32;  // the window's first 32-bit chunk of H
  uint32_t ones_before = bucket.starts_below;  // exceptions before the window's counted bits
  uint32_t next = min(bucket.starts_below, e.count);  // the next exception to place
  __syncwarp();  // the tile's stores come before the rewrites
  bool past = false;
  while (!past && chunk * 32 < h_bits && next < e.count) {
    uint32_t bits = h_layout.Chunk(chunk + lane);
    // The first chunk may start before the bucket: its earlier 1 bits are
    // rows that ones_before already counts.
    if (lane == 0 && bucket.first_bit > chunk * 32) bits &= ~((1u << (bucket.first_bit % 32)) - 1u);
    const uint32_t count = __popc(bits);
    const uint32_t through = internal::WarpInclusiveSum(count);
    const uint32_t total = __shfl_sync(0xFFFFFFFFu, through, 31);
    // Exceptions ones_before .. ones_before + total - 1 have their 1 bit in
    // the window; place them 32 a round.
    while (!past && next < ones_before + total && next < e.count) {
      const uint32_t k = next - ones_before + lane;  // this lane's 1 bit in the window
      const uint32_t i = next + lane;                // and its exception
      // The lane L whose chunk holds 1 bit k: the first with through > k.
      uint32_t holder = 0;
#pragma unroll
      for (uint32_t step = 16; step > 0; step >>= 1) {
        const uint32_t below = __shfl_sync(0xFFFFFFFFu, through, holder + step - 1);
        holder = below <= k ? holder + step : holder;
      }
      const uint32_t holder_bits = __shfl_sync(0xFFFFFFFFu, bits, holder);
      const uint32_t holder_before =
          __shfl_sync(0xFFFFFFFFu, through - count, holder);
      const bool valid = k < total && i < e.count;
      if (valid) {
        const uint32_t q = 32 * (chunk + holder) +
                           internal::SelectInWord32(holder_bits, k - holder_before);
        const uint32_t low = static_cast<uint32_t>(
            LoadField(stream, g.rows_bit + uint64_t{i} * g.low_bits, g.low_bits));
        const uint64_t x = (uint64_t{q - i} << g.low_bits) + low;  // wraps only on corrupt H
        if (x >= hi) {
          past = true;
        } else if (x >= lo) {
          const uint64_t high = internal::ExceptionHigh(
              LoadField(stream, g.highs_bit + uint64_t{i} * e.width, e.width), e.signed_highs);
          const U v = PatchedForValue<U>(stream, d.rows, w, V, sp.params[0], x, high);
          StoreChecked<kMap>(c, out, tile_out + static_cast<int64_t>(x - lo), range_len, true, v);
        }
      }
      past = __any_sync(0xFFFFFFFFu, past);
      next += min(32u, min(ones_before + total - next, e.count - next));
    }
    ones_before += total;
    chunk += internal::kLanes;
  }
}

/// Rows_EF partitions with Bit_Width 0 and l at most this (more than 1/8
/// of their rows exceptions) decode their tiles through a bitmap of the
/// exception rows (PatchForTileRowsEfBitmap); sparser lists place their
/// exceptions 32 a round (PatchForTileRowsEf), which costs per exception,
/// not per row. With Bit_Width > 0 the bitmap pass would rewrite the rows
/// DecodeSlapTile stored, and that cost more than the rounds (adult census
/// Education_Num, Bit_Width 1, 45% exceptions, on an H200: 20% -> 14% of
/// the copy roofline re-reading each field, 15% re-reading the stored row).
inline constexpr uint32_t kRowsEfBitmapMaxLowBits = 2;
/// Rows of one bitmap: 64 words of shared memory per warp.
inline constexpr uint32_t kRowsEfSliceRows = 2048;
/// Warps of a block (DecodeRowsKernel's launch bound: 256 threads).
inline constexpr uint32_t kRowsEfMaxBlockWarps = 8;

/// Whether a PATCHED_FOR partition's tiles go through the exception-row
/// bitmap: Rows_EF, Bit_Width 0 and l <= kRowsEfBitmapMaxLowBits.
__device__ __forceinline__ bool UsesRowsEfBitmap(const DevicePartition& d,
                                                 const internal::DeltaExceptions& e) {
  return e.rows_ef && e.count > 0 && d.width == 0 &&
         internal::MakePatchedForExceptionLayout(d.rows, 0, e).low_bits <=
             kRowsEfBitmapMaxLowBits;
}

/// A tile of a dense Rows_EF partition with Bit_Width 0 (spec §8.12), 2048
/// rows a slice, in two passes with no per-exception search:
///
/// 1. The warp walks H from the bucket of the slice's first row
///    (WarpFindBucket), 1024 bits a window: lane L takes the window's L-th
///    32-bit chunk, two warp scans number its 1 bits (exception indices) and
///    its 0 bits (bucket ends), and the lane turns each 1 bit into its row,
///    (bucket << l) + low_i, and sets that row's bit in the slice's bitmap
///    in shared memory. The walk stops at the window that reaches a row past
///    the slice, H's end or the E-th exception.
/// 2. Row by row, 32 a step: lane j reads the step's bitmap word; row j is
///    an exception when its bit is set, and its index is the exceptions of
///    the rows before the slice (the 1 bits of H before its bucket: the
///    slice starts at a multiple of 32 rows, so of 2^l) plus the set bits
///    before it. The lane stores every row: Base, or Base + its high part.
///
/// Corrupt H stays bounded: bits past H_n are zero (no load there), a row
/// outside the slice sets no bit, an index at or past E reads no low or
/// high part, and each walk covers at most H_n bits.
template <typename U, int kV, bool kMap>
__device__ __noinline__ void PatchForTileRowsEfBitmap(const KernelChunk& c,
                                                      const StagedPartition& sp, uint32_t tile,
                                                      int64_t tile_out, uint64_t range_len,
                                                      U* __restrict__ out, uint32_t lane) {
  constexpr uint32_t kSliceWords = kRowsEfSliceRows / 32;
  __shared__ uint32_t bitmaps[kRowsEfMaxBlockWarps][kSliceWords];
  uint32_t* bitmap = bitmaps[threadIdx.x / 32];
  const RowsEfTile t = OpenRowsEfTile<kV>(c, sp, tile);
  const uint64_t* stream = t.stream;
  const internal::DeltaExceptions& e = t.e;
  const internal::PatchedForExceptionLayout& g = t.g;
  const uint32_t lo = t.lo, hi = t.hi;
  const uint32_t l = g.low_bits;
  const uint32_t h_bits = t.h_layout.high_bits;
  const RunsEfWarpLayout& h_layout = t.h_layout;
  for (uint32_t slice_lo = lo; slice_lo < hi; slice_lo += kRowsEfSliceRows) {
    const uint32_t slice_hi = min(slice_lo + kRowsEfSliceRows, hi);
    bitmap[lane] = 0;
    bitmap[lane + 32] = 0;
    __syncwarp();
    // Pass 1: the slice's exception rows into the bitmap.
    const RunsEfWarpBucket bucket = WarpFindBucket(h_layout, slice_lo >> l, lane);
    const uint32_t last_bucket = (slice_hi - 1) >> l;
    uint32_t pos = bucket.first_bit;        // the window's first bit of H
    uint32_t bucket_at = slice_lo >> l;     // the bucket that bit lies in
    uint32_t ones_before = bucket.starts_below;  // exception index of the first 1 bit from pos
    bool past = false;
    while (!past && pos < h_bits && ones_before < e.count && bucket_at <= last_bucket) {
      const uint32_t chunk = pos / 32 + lane;
      const uint32_t chunk_bit = 32 * chunk;
      const uint32_t from = lane == 0 ? pos % 32 : 0u;
      const uint32_t to = chunk_bit >= h_bits ? 0u : min(h_bits - chunk_bit, 32u);
      const uint32_t valid =
          to > from ? (to == 32 ? 0xFFFFFFFFu : (1u << to) - 1u) & ~((1u << from) - 1u) : 0u;
      uint32_t ones_left = h_layout.Chunk(chunk) & valid;
      const uint32_t zero_bits = valid & ~ones_left;
      const uint32_t ones = __popc(ones_left);
      const uint32_t zeros = __popc(zero_bits);
      const uint32_t ones_through = internal::WarpInclusiveSum(ones);
      const uint32_t zeros_through = internal::WarpInclusiveSum(zeros);
      uint32_t i = ones_before + ones_through - ones;  // this lane's first exception
      const uint32_t lane_bucket = bucket_at + zeros_through - zeros;
      bool lane_past = false;
      while (ones_left != 0 && !lane_past && i < e.count) {
        const uint32_t p = static_cast<uint32_t>(__ffs(static_cast<int>(ones_left))) - 1;
        ones_left &= ones_left - 1;
        const uint32_t b = lane_bucket + __popc(zero_bits & ((1u << p) - 1u));
        const uint32_t low =
            l == 0 ? 0u
                   : static_cast<uint32_t>(LoadField(stream, g.rows_bit + uint64_t{i} * l, l));
        const uint64_t row = (uint64_t{b} << l) + low;  // wraps only on corrupt H
        if (row >= slice_hi) {
          lane_past = true;
        } else if (row >= slice_lo) {
          const uint32_t r = static_cast<uint32_t>(row) - slice_lo;
          atomicOr(&bitmap[r / 32], 1u << (r % 32));
        }
        ++i;
      }
      past = __any_sync(0xFFFFFFFFu, lane_past);
      ones_before += __shfl_sync(0xFFFFFFFFu, ones_through, 31);
      bucket_at += __shfl_sync(0xFFFFFFFFu, zeros_through, 31);
      pos = 32 * (pos / 32 + internal::kLanes);
    }
    __syncwarp();
    // Pass 2: row by row.
    uint32_t index = bucket.starts_below;  // the exception of the step's first set bit
    const U base = static_cast<U>(sp.params[0]);
    for (uint32_t x0 = slice_lo; x0 < slice_hi; x0 += internal::kLanes) {
      const uint32_t word = bitmap[(x0 - slice_lo) / 32];
      const uint32_t x = x0 + lane;
      const bool exception = ((word >> lane) & 1u) != 0;
      const uint32_t i = index + __popc(word & ((1u << lane) - 1u));
      index += __popc(word);
      U value = base;
      if (exception && i < e.count) {
        value = static_cast<U>(
            value + internal::ExceptionHigh(
                        LoadField(stream, g.highs_bit + uint64_t{i} * e.width, e.width),
                        e.signed_highs));
      }
      StoreChecked<kMap>(c, out, tile_out + static_cast<int64_t>(x - lo), range_len,
                         x < slice_hi, value);
    }
    __syncwarp();  // the bitmap is read before the next slice clears it
  }
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
  if (internal::UnpackDeltaExceptions(sp.params[1]).rows_ef) {
    PatchForTileRowsEf<U, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
    return;
  }
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
  if (UsesRowsEfBitmap(sp.d, internal::UnpackDeltaExceptions(sp.params[1]))) {
    // Every row Base or an exception: one pass stores them all.
    PatchForTileRowsEfBitmap<U, kV, kMap>(c, sp, tile, tile_out, range_len, out, lane);
    return;
  }
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
/// binary search of at most ceil(log2(E + 1)) rows, or with Rows_EF the
/// bucket search of patched_rows_ef.hpp, spec §8.12).
template <typename U>
__device__ __forceinline__ U DecodePatchedForOne(const KernelChunk& c, const DevicePartition& d,
                                                 uint64_t x) {
  const uint64_t* stream = c.payload + d.word_offset;
  const uint64_t word = __ldg(c.params + d.param_offset + 1);
  const internal::DeltaExceptions e = internal::UnpackDeltaExceptions(word);
  uint64_t high = 0;
  if (e.rows_ef) {
    const internal::PatchedForExceptionLayout g =
        internal::MakePatchedForExceptionLayout(d.rows, d.width, e);
    const internal::PatchedRowLookup at =
        internal::PatchedRowsEfFind(PayloadStream{stream}, g, e.count, x);
    if (at.found) {
      high = internal::ExceptionHigh(LoadField(stream, g.highs_bit + at.index * e.width, e.width),
                                     e.signed_highs);
    }
  } else if (e.count != 0) {
    const DeltaExceptionList ex(stream, d.rows, d.width, word);
    const uint32_t i = ex.LowerBound(x);
    if (i < ex.count && ex.Row(i) == x) high = ex.High(i);
  }
  return PatchedForValue<U>(stream, d.rows, d.width, c.values_per_lane,
                            __ldg(c.params + d.param_offset), x, high);
}

}  // namespace l3::cuda::detail
