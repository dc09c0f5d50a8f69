// DELTA (spec §8.9), the CUDA half: one warp decodes one tile, and random
// access scans at most the tile that holds the row. Included by the CUDA
// backend's decode_kernels.cuh after the shared SLAP readers it uses
// (LaneBitReader, ReadFields); the CPU half is delta_decode.hpp beside this
// file, and both follow the same spec text.
//
// Decoding a tile (DecodeDeltaTile), 8 steps of 256 rows at a time: each
// lane reads its fields with the same sequential bit reader as FOR_BITPACK
// (the stream starts after the tile Seed words) and writes them to a
// per-warp shared-memory stage in row order; then lane L sums the 8
// consecutive rows 8L .. 8L+7 in sequence, one warp scan over the 32 lane
// totals adds the rows before them, and the warp stores the values a step of
// 32 consecutive rows at a time. Exceptions add their high parts to the
// staged fields. Random access (DecodeDeltaOne) scans the fields of the
// rows before it in its tile lane by lane, one thread per query; orders 2
// and 3 weight them (closed form, delta_order_sums.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "codec/delta/delta_layout.hpp"
#include "codec/delta/delta_order_sums.hpp"
#include "common/warp_scan.cuh"

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
  bool signed_highs;

  __device__ __forceinline__ DeltaExceptionList(const uint64_t* s, uint64_t n, uint32_t w,
                                                uint64_t word) {
    const internal::DeltaExceptions e = internal::UnpackDeltaExceptions(word);
    stream = s;
    count = e.count;
    high_bits = e.width;
    signed_highs = e.signed_highs;
    row_bits = internal::RunStartBits(n);
    rows_bit = n * w;
    highs_bit = rows_bit + uint64_t{e.count} * row_bits;
  }
  __device__ __forceinline__ uint64_t Row(uint32_t i) const {
    return LoadField(stream, rows_bit + uint64_t{i} * row_bits, row_bits);
  }
  /// The high part h_i (ExceptionHigh: the stored field, zigzag-decoded
  /// with Signed_Highs), to add shifted by w modulo 2^N.
  __device__ __forceinline__ uint64_t High(uint32_t i) const {
    return internal::ExceptionHigh(
        LoadField(stream, highs_bit + uint64_t{i} * high_bits, high_bits), signed_highs);
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

// Warp scans shared with the other CUDA decoders (common/warp_scan.cuh).
using internal::ShuffleUpAdd;
using internal::WarpInclusiveSum;

/// Minimum of `x` over the warp.
__device__ __forceinline__ uint32_t WarpMin(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(0xFFFFFFFFu, x);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x = min(x, __shfl_xor_sync(0xFFFFFFFFu, x, offset));
  return x;
#endif
}

/// The per-warp stage of a DELTA launch: one block of kDeltaBlockSteps
/// steps (8 x 32 rows) in row order, as W words (32-bit for types of up to
/// 32 bits, whose sums are taken modulo 2^32 ⊇ 2^N, else 64-bit). Row r sits at
/// DeltaStageIndex(r): 16 bytes of padding after every 128 bytes keep both
/// access patterns free of bank conflicts (a step's 32 rows written by the
/// 32 lanes, and 8 consecutive rows read by one lane in 16-byte loads).
inline constexpr uint32_t kDeltaBlockSteps = 8;
inline constexpr uint32_t kDeltaBlockRows = kDeltaBlockSteps * 32;

template <typename U>
using DeltaStageWord = std::conditional_t<sizeof(U) == 8, unsigned long long, uint32_t>;

template <typename W>
__host__ __device__ constexpr uint32_t DeltaStageIndex(uint32_t row) {
  constexpr uint32_t kRowsPer128 = 128 / sizeof(W);
  return row + (16 / sizeof(W)) * (row / kRowsPer128);
}

/// One lane's run of a stage block: rows 8L .. 8L+7, which start on a
/// 16-byte boundary (DeltaStageIndex).
template <typename W>
struct alignas(16) DeltaStageRun {
  W v[kDeltaBlockSteps];
};

/// Bytes of one warp's stage (a multiple of 16).
template <typename U>
__host__ __device__ constexpr uint32_t DeltaStageBytes() {
  using W = DeltaStageWord<U>;
  return DeltaStageIndex<W>(kDeltaBlockRows) * sizeof(W);
}

/// The exceptions of one DELTA tile (spec §8.9), held by the warp 32 at a
/// time: lane j holds exception `batch + j` as the row of the tile it falls
/// on (kNone outside the tile) and its high part shifted by w. A block of
/// steps without an exception costs the tile loop one comparison with the
/// uniform `next_row`; a block with some gets their high parts added to its
/// staged fields (AddTo), one shared-memory addition per exception.
///
/// Rows come from the payload and are untrusted: they only ever select a
/// slot of the warp's own stage block, never an address outside it, and
/// every batch advance moves 32 exceptions on, so a corrupt list (which
/// the host rejects, §8.9) yields wrong values at worst.
template <typename U>
struct DeltaTileExceptions {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  DeltaExceptionList list;
  uint64_t tile_first;
  uint64_t tile_rows_here;
  uint32_t w;
  uint32_t batch;          // exception held by lane 0
  uint32_t my_row;         // row in the tile; kNone: no exception, or outside the tile
  U my_high;
  uint32_t batch_end_row;  // lane 31's row when exceptions follow the batch, else kNone
  uint32_t next_row;       // uniform: the first row not yet applied that holds one

  __device__ __forceinline__ DeltaTileExceptions(const DeltaExceptionList& l, uint64_t first,
                                                 uint64_t rows_here, uint32_t width, uint32_t lane)
      : list(l), tile_first(first), tile_rows_here(rows_here), w(width), batch(0) {
    if (list.count == 0) {  // uniform: the partition has none
      my_row = next_row = batch_end_row = kNone;
      my_high = 0;
      return;
    }
    // With at most 32 exceptions the one batch is all of them (rows before
    // the tile fall outside it); more are searched for the tile's first.
    if (list.count > 32) batch = list.WarpLowerBound(tile_first, lane);
    Load(lane);
    next_row = WarpMin(my_row);
  }

  __device__ __forceinline__ void Load(uint32_t lane) {
    const uint32_t e = batch + lane;
    const bool valid = e < list.count;
    const uint64_t rel = (valid ? list.Row(e) : 0) - tile_first;  // wraps below the tile
    my_row = valid && rel < tile_rows_here ? static_cast<uint32_t>(rel) : kNone;
    my_high = valid && w < 64 ? static_cast<U>(list.High(e) << w) : U{0};
    const uint32_t last = __shfl_sync(0xFFFFFFFFu, my_row, 31);
    batch_end_row = batch + 32 < list.count ? last : kNone;
  }

  /// Adds the high part of every exception on tile rows [first, first +
  /// kDeltaBlockRows) to its staged field; moves next_row past the block.
  template <typename W>
  __device__ __forceinline__ void AddTo(W* stage, uint32_t first, uint32_t lane) {
    const uint32_t end = first + kDeltaBlockRows;
    for (;;) {
      if (my_row >= first && my_row < end) {
        atomicAdd(stage + DeltaStageIndex<W>(my_row - first), static_cast<W>(my_high));
      }
      // The batch ends in this block and more exceptions follow.
      if (batch_end_row >= end) break;
      batch += 32;
      Load(lane);
    }
    next_row = WarpMin(my_row >= end ? my_row : kNone);
  }
};

/// One tile of a DELTA partition. Same contract as DecodeSlapTile: the whole
/// warp calls it with the same tile; `tile_out` is the output index of the
/// tile's row 0. kMap: the launch may hold dictionary chunks (MapCode).
/// `stage` is the warp's DeltaStageBytes<U>() of shared memory.
///
/// The tile is decoded in blocks of 8 steps (256 rows). Each lane reads its
/// 8 fields with the SLAP lane reader and writes them to the stage in row
/// order (exceptions add their high parts there); then lane L takes the 8
/// consecutive rows 8L .. 8L+7 and sums them in sequence, one warp scan
/// over the 32 lane totals gives each lane the rows before its own, and the
/// values go back to the stage, from where the warp stores them a step of
/// 32 consecutive rows at a time. A block costs one scan instead of eight,
/// and an addition per value.
template <typename U, int kWidthClass, int kV, bool kMap, bool kOrders>
__device__ __noinline__ void DecodeDeltaTile(const KernelChunk& c, const StagedPartition& sp,
                                             uint32_t tile, int64_t tile_out, uint64_t range_len,
                                             U* __restrict__ out, uint32_t lane, uint64_t* stage_words) {
  using W = DeltaStageWord<U>;
  W* const stage = reinterpret_cast<W*>(stage_words);
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
  const uint64_t rows_here = full ? tile_rows : uint64_t{q} * internal::kLanes + r;
  const uint64_t* words = c.payload + d.word_offset;
  // spec §8.9: the order K (kOrders: 2 or 3, else 1), the tile's K Seed
  // words (the K running sums' carries), then the SLAP stream after K
  // ceil_div(n, S) seed words.
  const uint32_t order = kOrders ? internal::UnpackDeltaExceptions(sp.params[1]).order : 1;
  W carry[internal::kMaxDeltaOrder];
#pragma unroll
  for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) {
    carry[level] =
        level < order ? static_cast<W>(__ldg(words + uint64_t{tile} * order + level)) : W{0};
  }
  const W delta_base = static_cast<W>(sp.params[0]);
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V, order);

  LaneBitReader<1> reader;
  if constexpr (kWidthClass != kZeroWidth) {
    const uint64_t lane_first = full ? uint64_t{lane} * V : uint64_t{lane} * q + min(lane, r);
    const uint64_t bit = (tile_first + lane_first) * w;
    reader.Init(stream + (bit >> 6), static_cast<uint32_t>(bit & 63));
  }
  // The steps whose row of this lane lies in the output range: output index
  // tile_out + L + 32 k in [0, range_len), and k < lane_rows.
  const int64_t lane_out = tile_out + static_cast<int64_t>(lane);
  int64_t lo = 0;
  int64_t hi = lane_rows;
  if (lane_out < 0) lo = (-lane_out + 31) / 32;
  const int64_t room = static_cast<int64_t>(range_len) - lane_out;  // rows from lane_out on
  if (room <= 0) {
    hi = 0;
  } else if ((room + 31) / 32 < hi) {
    hi = (room + 31) / 32;
  }
  const uint32_t store_lo = static_cast<uint32_t>(min(lo, hi));
  const uint32_t store_count = static_cast<uint32_t>(hi) - store_lo;
  U* const o = store_count != 0 ? out + (lane_out + int64_t{store_lo} * internal::kLanes) : out;

  const uint64_t mask = sp.mask;
  DeltaTileExceptions<U> ex(DeltaExceptionList(stream, d.rows, w, sp.params[1]), tile_first,
                            rows_here, w, lane);
  constexpr uint32_t G = FieldsPerRead(kWidthClass);
  static_assert(kDeltaBlockSteps % G == 0, "a block of steps is whole groups of fields");
  const uint32_t my_first = DeltaStageIndex<W>(kDeltaBlockSteps * lane);  // rows 8L .. 8L+7
  for (uint32_t block = 0; block < steps; block += kDeltaBlockSteps) {
    // 1. The fields of the block's steps, in row order. Steps past the
    // tile, and the high lanes of a partial tile's last step, are rows past
    // the tile's last: what they hold only reaches rows that are not stored.
#pragma unroll
    for (uint32_t k = 0; k < kDeltaBlockSteps; k += G) {
      uint64_t f[G] = {};
      if (block + k < steps) ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
      for (uint32_t i = 0; i < G; ++i) {
        const W field = block + k + i < lane_rows ? static_cast<W>(f[i]) : W{0};  // lane_rows <= steps
        stage[DeltaStageIndex<W>((k + i) * internal::kLanes + lane)] = field;
      }
    }
    if (ex.next_row < (block + kDeltaBlockSteps) * internal::kLanes) {
      __syncwarp();
      ex.AddTo(stage, block * internal::kLanes, lane);
    }
    __syncwarp();
    // 2. Lane L sums rows 8L .. 8L+7 (Delta_Base + u each), a warp scan of
    // the lane totals adds the rows before them: the running sum a_{K-1};
    // each lower order sums the one above it the same way, down to a_0 =
    // v, and the values go back. (Each lane reads and rewrites only its own
    // rows here, in 16-byte accesses: DeltaStageRun is 16-byte aligned.)
    DeltaStageRun<W> run = *reinterpret_cast<const DeltaStageRun<W>*>(stage + my_first);
    // Order 1 (!kOrders) runs only level 0, with Delta_Base.
#pragma unroll
    for (int level = kOrders ? internal::kMaxDeltaOrder - 1 : 0; level >= 0; --level) {
      if (kOrders && level >= static_cast<int>(order)) continue;  // uniform
      const W add = !kOrders || level == static_cast<int>(order) - 1 ? delta_base : W{0};
      run.v[0] = static_cast<W>(run.v[0] + add);
#pragma unroll
      for (uint32_t j = 1; j < kDeltaBlockSteps; ++j) {
        run.v[j] = static_cast<W>(run.v[j - 1] + run.v[j] + add);
      }
      const W inclusive = WarpInclusiveSum<W>(run.v[kDeltaBlockSteps - 1]);
      const W before = static_cast<W>(carry[level] + inclusive - run.v[kDeltaBlockSteps - 1]);
      carry[level] = static_cast<W>(carry[level] + ShuffleValue(inclusive, 31));
#pragma unroll
      for (uint32_t j = 0; j < kDeltaBlockSteps; ++j) run.v[j] = static_cast<W>(before + run.v[j]);
    }
    *reinterpret_cast<DeltaStageRun<W>*>(stage + my_first) = run;
    __syncwarp();
    // 3. Step k's 32 rows, lane L the row 32 k + L.
#pragma unroll
    for (uint32_t k = 0; k < kDeltaBlockSteps; ++k) {
      const uint32_t slot = block + k - store_lo;  // wraps below store_lo
      if (slot < store_count) {
        o[slot * internal::kLanes] =
            MapCode<kMap>(c, static_cast<U>(stage[DeltaStageIndex<W>(k * internal::kLanes + lane)]));
      }
    }
    __syncwarp();  // the stage is refilled by the next block
  }
}

/// Order 1 by the width class of the partition; orders 2 and 3 (spec §8.9)
/// by three instantiations, width 0, widths up to 16 (four fields a read:
/// the hot profile's order-2/3 columns decode 14-18% faster than through
/// the wide reader, docs/results/delta-orders.md) and any other width, so
/// that the launch keeps most of its compile time.
template <typename U, int kV, bool kMap>
__device__ __forceinline__ void DispatchDeltaWidth(const KernelChunk& c, const StagedPartition& sp,
                                                   uint32_t tile, int64_t tile_out,
                                                   uint64_t range_len, U* __restrict__ out,
                                                   uint32_t lane, uint64_t* stage) {
  if (internal::UnpackDeltaExceptions(sp.params[1]).order > 1) {
    switch (WidthClassOf(sp.d.width)) {
      case kZeroWidth:
        DecodeDeltaTile<U, kZeroWidth, kV, kMap, true>(c, sp, tile, tile_out, range_len, out,
                                                       lane, stage);
        break;
      case kNarrow16:
        DecodeDeltaTile<U, kNarrow16, kV, kMap, true>(c, sp, tile, tile_out, range_len, out,
                                                      lane, stage);
        break;
      default:
        DecodeDeltaTile<U, kWide, kV, kMap, true>(c, sp, tile, tile_out, range_len, out, lane,
                                                  stage);
        break;
    }
    return;
  }
  switch (WidthClassOf(sp.d.width)) {
    case kZeroWidth:
      DecodeDeltaTile<U, kZeroWidth, kV, kMap, false>(c, sp, tile, tile_out, range_len, out, lane,
                                                      stage);
      break;
    case kNarrow16:
      DecodeDeltaTile<U, kNarrow16, kV, kMap, false>(c, sp, tile, tile_out, range_len, out, lane,
                                                     stage);
      break;
    case kNarrow32:
      DecodeDeltaTile<U, kNarrow32, kV, kMap, false>(c, sp, tile, tile_out, range_len, out, lane,
                                                     stage);
      break;
    default:
      DecodeDeltaTile<U, kWide, kV, kMap, false>(c, sp, tile, tile_out, range_len, out, lane,
                                                 stage);
      break;
  }
}

/// Hands `count` consecutive fields of w bits (0 < w <= 64) from stream bit
/// `bit`, one lane's contiguous run (spec §8.5), to sink.Add(field) in order:
/// read word by word, each word loaded once.
template <typename Sink>
__device__ __forceinline__ void ReadLaneRun(const uint64_t* stream, uint64_t bit, uint64_t count,
                                            uint32_t w, Sink& sink) {
  const uint64_t* p = stream + (bit >> 6);
  uint32_t shift = static_cast<uint32_t>(bit & 63);
  uint64_t current = __ldg(p);
  uint64_t next = __ldg(p + 1);
  const uint64_t mask = internal::LowMask(w);
  for (uint64_t k = 0; k < count; ++k) {
    sink.Add((shift == 0 ? current : (current >> shift) | (next << (64 - shift))) & mask);
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

/// The sum, modulo 2^64, of a lane's run of fields (ReadLaneRun's).
__device__ __forceinline__ uint64_t SumLaneRun(const uint64_t* stream, uint64_t bit, uint64_t count,
                                               uint32_t w) {
  struct {
    uint64_t sum = 0;
    __device__ void Add(uint64_t field) { sum += field; }
  } total;
  ReadLaneRun(stream, bit, count, w, total);
  return total.sum;
}

/// The nested sums (internal::DeltaLaneSums) of a lane's run of fields
/// (ReadLaneRun's).
__device__ __forceinline__ internal::DeltaLaneSums LaneRunSums(const uint64_t* stream,
                                                              uint64_t bit, uint64_t count,
                                                              uint32_t w) {
  internal::DeltaLaneSums sums;
  ReadLaneRun(stream, bit, count, w, sums);
  return sums;
}

/// The K running sums a_0 .. a_{K-1} of a checked DELTA partition of order
/// K (spec §8.9) at local row x, by one thread, in closed form
/// (delta_order_sums.hpp): the tile's Seed words, and the fields of its rows
/// up to x lane by lane along each lane's run, as nested sums; then the
/// exceptions among those rows. sums[level] for level < K.
static __device__ __noinline__ void DeltaSumsAt(const KernelChunk& c, const DevicePartition& d,
                                                uint32_t order, uint64_t x,
                                                uint64_t (&sums)[internal::kMaxDeltaOrder]) {
  const uint32_t V = c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t tile = x / tile_rows;
  const uint64_t first = tile * tile_rows;
  const uint64_t in_tile = x - first;
  const uint64_t* words = c.payload + d.word_offset;
  const uint64_t delta_base = __ldg(c.params + d.param_offset);
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V, order);
  const DeltaExceptionList exceptions(stream, d.rows, w, __ldg(c.params + d.param_offset + 1));
  uint64_t seeds[internal::kMaxDeltaOrder];
#pragma unroll
  for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) {
    seeds[level] = level < order ? __ldg(words + tile * order + level) : 0;
  }
  internal::DeltaOrderSums row_sums(order, in_tile, seeds, delta_base);
  if (w > 0) {
    const uint32_t lanes = in_tile + 1 < internal::kLanes ? static_cast<uint32_t>(in_tile + 1)
                                                          : internal::kLanes;
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      // Steps s of this lane with lane + 32 s <= in_tile.
      const uint64_t count = (in_tile - lane) / internal::kLanes + 1;
      row_sums.AddLane(
          lane, count,
          LaneRunSums(stream, internal::SlapLaneBitOffset(d.rows, w, V, tile, lane), count, w));
    }
  }
  if (exceptions.count != 0 && w < 64) {
    for (uint32_t i = exceptions.LowerBound(first); i < exceptions.count; ++i) {
      const uint64_t row = exceptions.Row(i);
      if (row > x) break;
      row_sums.AddRow(row - first, exceptions.High(i) << w);
    }
  }
#pragma unroll
  for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) sums[level] = row_sums[level];
}

/// Local row x of a checked DELTA partition, by one thread: Seed[t] plus the
/// Delta_Base and fields of the tile's rows up to x (spec §8.9), read lane
/// by lane along each lane's contiguous run; for order K > 1, DeltaSumsAt.
template <typename U>
__device__ __forceinline__ U DecodeDeltaOne(const KernelChunk& c, const DevicePartition& d,
                                            uint64_t x) {
  const uint32_t order =
      internal::UnpackDeltaExceptions(__ldg(c.params + d.param_offset + 1)).order;
  if (order > 1) {
    uint64_t sums[internal::kMaxDeltaOrder];
    DeltaSumsAt(c, d, order, x, sums);
    return static_cast<U>(sums[0]);
  }
  const uint32_t V = c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t tile = x / tile_rows;
  const uint64_t in_tile = x - tile * tile_rows;  // rows [0, in_tile] of the tile count
  const uint64_t* words = c.payload + d.word_offset;
  U value = static_cast<U>(__ldg(words + tile));
  const U delta_base = static_cast<U>(__ldg(c.params + d.param_offset));
  value = static_cast<U>(value + static_cast<U>(delta_base * static_cast<U>(in_tile + 1)));
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V, 1);
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
    // Steps k of this lane with lane + 32 k <= in_tile.
    const uint64_t count = (in_tile - lane) / internal::kLanes + 1;
    sum += SumLaneRun(stream, internal::SlapLaneBitOffset(d.rows, w, V, tile, lane), count, w);
  }
  return static_cast<U>(value + static_cast<U>(sum));
}

/// The high parts of the exceptions among the 32 rows step .. step + 31, by
/// the whole warp, each added (shifted by w) to the offset *u of the lane of
/// its row. The step's exceptions are a prefix of the next 32 (rows strictly
/// increase, checked on the host): lane j holds exception *next_exception +
/// j and hands its high part to the lane of its row; *next_exception moves
/// past them.
__device__ __forceinline__ void AddStepExceptions(const DeltaExceptionList& exceptions,
                                                  uint64_t step, uint32_t w, uint32_t lane,
                                                  uint32_t* next_exception, uint64_t* u) {
  const uint32_t i = *next_exception + lane;
  const uint64_t exception_row = i < exceptions.count ? exceptions.Row(i) : ~uint64_t{0};
  const bool hit = exception_row >= step && exception_row - step < internal::kLanes;
  const uint64_t high = hit ? exceptions.High(i) << w : 0;
  uint32_t hits = __ballot_sync(0xFFFFFFFFu, hit);
  *next_exception += static_cast<uint32_t>(__popc(hits));
  while (hits != 0) {
    const int j = __ffs(static_cast<int>(hits)) - 1;
    hits &= hits - 1;
    const uint32_t target =
        __shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(exception_row - step), j);
    const uint64_t add = __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(high), j);
    if (lane == target) *u += add;
  }
}

/// Rows [r0, r1) of one tile (from row `first`) of a checked DELTA partition
/// of order K > 1 (spec §8.9), by the whole warp, into out[0, r1 - r0): the
/// tile's rows from its first, 32 at a time (one field per lane), each
/// order's running sum a warp prefix sum of the order above it plus the
/// carry from the step before, starting from the tile's Seed words.
template <typename U>
__device__ __noinline__ void WarpDecodeDeltaOrderRows(const KernelChunk& c,
                                                         const DevicePartition& d, uint32_t order,
                                                         const uint64_t* stream,
                                                         const DeltaExceptionList& exceptions,
                                                         uint64_t first, uint64_t r0, uint64_t r1,
                                                         U* out, uint32_t lane) {
  using S = DeltaStageWord<U>;  // sums modulo 2^32 or 2^64, both multiples of 2^N
  const uint32_t V = c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t* words = c.payload + d.word_offset;
  const S delta_base = static_cast<S>(__ldg(c.params + d.param_offset));
  const uint64_t tile = first / (uint64_t{internal::kLanes} * V);
  S carry[internal::kMaxDeltaOrder];
#pragma unroll
  for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) {
    carry[level] = level < order ? static_cast<S>(__ldg(words + tile * order + level)) : S{0};
  }
  const bool has_exceptions = exceptions.count != 0 && w < 64;  // uniform
  uint32_t next_exception = has_exceptions ? exceptions.WarpLowerBound(first, lane) : 0;
  for (uint64_t step = first; step < r1; step += internal::kLanes) {
    const uint64_t row = step + lane;
    const bool in = row < r1;
    uint64_t u = 0;
    if (in && w > 0) u = LoadField(stream, internal::SlapFieldBitOffset(d.rows, w, V, row), w);
    if (has_exceptions) AddStepExceptions(exceptions, step, w, lane, &next_exception, &u);
    // Lanes past r1 sum zeros; they come after every row stored.
    S term = in ? static_cast<S>(delta_base + static_cast<S>(u)) : S{0};
#pragma unroll
    for (int level = internal::kMaxDeltaOrder - 1; level >= 0; --level) {
      if (level >= static_cast<int>(order)) continue;  // uniform
      const S inclusive = WarpInclusiveSum<S>(term);
      term = in ? static_cast<S>(carry[level] + inclusive) : S{0};
      carry[level] = static_cast<S>(carry[level] + ShuffleValue(inclusive, 31));
    }
    if (in && row >= r0) out[row - r0] = static_cast<U>(term);
  }
}

/// Local rows [a, b) of a checked DELTA partition (a < b <= n), by the whole
/// warp, into out[0, b - a): the values random access gives (spec §8.9), at
/// the cost of one tile's prefix per tile instead of one per row. Per tile
/// touched: lane L sums its own run of the fields before row a (the rows
/// 32 k + L of the tile below a), one warp sum adds them to Seed[t], and the
/// rows from a on follow 32 at a time (one field per lane, a warp prefix sum,
/// the last row carried into the next step). All lanes call it with the same
/// arguments; `out` is the caller's (shared) memory.
template <typename U>
__device__ __forceinline__ void WarpDecodeDeltaRows(const KernelChunk& c, const DevicePartition& d,
                                                    uint64_t a, uint64_t b, U* out,
                                                    uint32_t lane) {
  using S = DeltaStageWord<U>;  // sums modulo 2^32 or 2^64, both multiples of 2^N
  const uint32_t V = c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t* words = c.payload + d.word_offset;
  const S delta_base = static_cast<S>(__ldg(c.params + d.param_offset));
  const uint64_t word = __ldg(c.params + d.param_offset + 1);
  const uint32_t order = internal::UnpackDeltaExceptions(word).order;
  const uint64_t* stream = words + internal::DeltaSeedWords(d.rows, V, order);
  const DeltaExceptionList exceptions(stream, d.rows, w, word);
  const bool has_exceptions = exceptions.count != 0 && w < 64;  // uniform
  for (uint64_t tile = a / tile_rows; tile * tile_rows < b; ++tile) {
    const uint64_t first = tile * tile_rows;
    const uint64_t r0 = max(a, first);
    const uint64_t r1 = min(b, first + tile_rows);
    if (order > 1) {
      WarpDecodeDeltaOrderRows<U>(c, d, order, stream, exceptions, first, r0, r1, out + (r0 - a),
                                  lane);
      continue;
    }
    const uint64_t before = r0 - first;  // rows of the tile before r0
    // 1. v(r0 - 1) = Seed[t] + the Delta_Base and offsets of rows first .. r0 - 1.
    uint64_t sum = 0;
    if (w > 0 && lane < before) {
      const uint64_t count = (before - 1 - lane) / internal::kLanes + 1;
      sum = SumLaneRun(stream, internal::SlapLaneBitOffset(d.rows, w, V, tile, lane), count, w);
    }
    uint32_t next_exception = 0;  // uniform: the first exception at or after the step's rows
    if (has_exceptions) {
      const uint32_t in_tile = exceptions.WarpLowerBound(first, lane);
      next_exception = exceptions.WarpLowerBound(r0, lane);
      for (uint32_t i = in_tile + lane; i < next_exception; i += internal::kLanes) {
        sum += exceptions.High(i) << w;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      sum += __shfl_xor_sync(0xFFFFFFFFu, static_cast<unsigned long long>(sum), offset);
    }
    S carry = static_cast<S>(__ldg(words + tile) + static_cast<uint64_t>(delta_base) * before + sum);
    // 2. Rows r0 .. r1 - 1, a step of 32 consecutive rows at a time.
    for (uint64_t step = r0; step < r1; step += internal::kLanes) {
      const uint64_t row = step + lane;
      const bool in = row < r1;
      uint64_t u = 0;
      if (in && w > 0) {
        u = LoadField(stream, internal::SlapFieldBitOffset(d.rows, w, V, row), w);
      }
      if (has_exceptions) AddStepExceptions(exceptions, step, w, lane, &next_exception, &u);
      const S inclusive = WarpInclusiveSum<S>(in ? static_cast<S>(delta_base + static_cast<S>(u)) : S{0});
      if (in) out[row - a] = static_cast<U>(carry + inclusive);
      carry = static_cast<S>(carry + ShuffleValue(inclusive, 31));
    }
  }
}

}  // namespace l3::cuda::detail
