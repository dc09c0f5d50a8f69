// RUNS_EF (spec §8.11), the CUDA half: a warp decodes the rows of one tile
// (DecodeRunsEfTileStaged in DecodeRowsKernel, through a shared-memory stage
// per warp: see DecodeRunsEfRowsStaged; DecodeRunsEfTile in the fused table
// scan), or any row range of a partition (WarpDecodeRunsEfRows, for the PGM
// lookup's windows), and one thread finds one row by random access
// (DecodeRunsEfOne). Included by the CUDA backend's
// decode_kernels.cuh after the run decoder of §8.7 (DecodeRunTile), whose
// 32-run register window and step (RunWindowValue) it reuses; the CPU half
// is beside this file, and both follow the same spec text. The bit
// arithmetic shared with the host (select in a word, the bucket of a high
// part, random access) is runs_ef_select.hpp.
//
// The register-window decoder (DecodeRunsEfRows): a warp keeps runs
// b .. b+31 in registers as DecodeRunTile does: lane j
// holds the start and value of run b + j and every lane knows window_end,
// the start of run b + 32. Only how starts are found differs:
//
// - The tile's first run. The run of its first row lo is found from below:
//   with h = lo >> l, the starts whose high part is below h are the 1 bits
//   before the h-th 0 bit of H (WarpFindBucket: each lane counts the zeros
//   of 4 words of H, a warp scan of the counts finds the word, 8192 bits a
//   round). The window starts at that run b (start_b < lo); the step loop
//   moves it over the few runs whose high part is h as over any others.
// - Filling a window (RunsEfWindow::Fill). Lane j wants the (b + 1 + j)-th
//   1 bit of H, at q, which gives start = ((q - (b + j)) << l) + low. From a
//   forward-only cursor (a 32-bit chunk of H and the ones before it), lane j
//   reads chunk cursor + j, a warp scan of their popcounts places the 1 bits
//   of 32 chunks (1024 bits) at once, and each lane finds the chunk holding
//   its own target by a bisection over the scan (five shuffles) and the bit
//   in it by SelectInWord32. Since H_n < 3m, one round usually serves a
//   whole window.
//
// The payload is untrusted (the host checked n, R and w, not H). H is read
// only inside its H_n bits, run indices stay in [0, R - 1], the window only
// moves forward (at most R fills per tile), and each fill or bucket search
// stops at H's end (at most ceil_div(H_n, 1024) + 1 or ceil_div(H_n, 8192)
// rounds). Corrupt H or starts give wrong values, never an access outside
// the partition or an unbounded loop.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/runs/runs_ef_layout.hpp"
#include "codec/runs/runs_ef_select.hpp"
#include "common/warp_scan.cuh"

namespace l3::cuda::detail {

/// A partition's payload as the Stream of runs_ef_select.hpp (random access).
struct PayloadStream {
  const uint64_t* words;
  __device__ __forceinline__ uint64_t Field(uint64_t bit, uint32_t width) const {
    return LoadField(words, bit, width);
  }
};

/// The geometry of a RUNS_EF partition in 32 bits, as the warp decoders keep
/// it in registers: n <= 65536 (RunsEfParamsValid), so R * w + m * l + H_n
/// < 2^23 and every row, run and bit position fits.
struct RunsEfWarpLayout {
  const uint64_t* words;  // the partition's payload
  uint32_t w;             // Bit_Width
  uint32_t starts;        // m = R - 1
  uint32_t low_bits;      // l
  uint32_t low_bit0;      // stream bit of low_1
  uint32_t high_bit0;     // stream bit of H
  uint32_t high_bits;     // H_n

  /// H bits [32 j, 32 j + 32), zero past H_n (no load past it).
  __device__ __forceinline__ uint32_t Chunk(uint32_t j) const {
    if (j >= (high_bits + 31) / 32) return 0;
    const uint32_t left = high_bits - 32 * j;
    const uint32_t bits = static_cast<uint32_t>(LoadField(words, high_bit0 + 32 * j, 32));
    return left >= 32 ? bits : bits & ((1u << left) - 1);
  }
  /// Bits of H in its 64-bit word j (0 past H).
  __device__ __forceinline__ uint32_t WordBits(uint32_t j) const {
    return 64 * j >= high_bits ? 0u : min(high_bits - 64 * j, 64u);
  }
  /// H bits [64 j, 64 j + 64), zero past H_n (no load past it).
  __device__ __forceinline__ uint64_t Word(uint32_t j) const {
    const uint32_t valid = WordBits(j);
    return valid == 0 ? 0 : LoadField(words, high_bit0 + 64 * j, 64) & internal::LowMask(valid);
  }
  /// "low_i" of run i >= 1.
  __device__ __forceinline__ uint32_t Low(uint32_t i) const {
    return static_cast<uint32_t>(LoadField(words, low_bit0 + (i - 1) * low_bits, low_bits));
  }
};

__device__ __forceinline__ RunsEfWarpLayout MakeRunsEfWarpLayout(const KernelChunk& c,
                                                                 const DevicePartition& d,
                                                                 uint64_t runs) {
  const internal::RunsEfLayout g = internal::MakeRunsEfLayout(d.rows, runs, d.width);
  return RunsEfWarpLayout{c.payload + d.word_offset,
                          d.width,
                          static_cast<uint32_t>(g.starts),
                          g.low_bits,
                          static_cast<uint32_t>(g.low_bit0),
                          static_cast<uint32_t>(g.high_bit0),
                          static_cast<uint32_t>(g.high_bits)};
}

/// Words of H each lane counts per round of WarpFindBucket.
inline constexpr uint32_t kRunsEfWordsPerLane = 4;

/// internal::RunsEfBucket in 32 bits: the 1 bits of the starts of high part
/// h begin at bit first_bit of H, and starts_below starts lie before it.
struct RunsEfWarpBucket {
  uint32_t first_bit;     // the bucket's first bit in H
  uint32_t starts_below;  // 1 bits of H before it
};

/// RunsEfFindBucket by the whole warp (every lane gets the result): each
/// round the lanes count the zeros of 32 * kRunsEfWordsPerLane consecutive
/// words of H, an inclusive warp sum and a ballot find the lane whose words
/// hold the h-th zero, and every lane walks that lane's words (the same
/// broadcast loads) to the bit. Fewer than h zeros (corrupt): the bucket
/// is empty at H's end.
__device__ __forceinline__ RunsEfWarpBucket WarpFindBucket(const RunsEfWarpLayout& g, uint32_t h,
                                                           uint32_t lane) {
  if (h == 0) return RunsEfWarpBucket{0, 0};
  constexpr uint32_t K = kRunsEfWordsPerLane;
  const uint32_t words = (g.high_bits + 63) / 64;
  uint32_t zeros_left = h;  // the h-th zero is the zeros_left-th from word `first` on
  for (uint32_t first = 0; first < words; first += 32 * K) {
    uint32_t zeros = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; ++i) {
      const uint32_t j = first + lane * K + i;
      zeros += g.WordBits(j) - internal::PopCount64(g.Word(j));
    }
    const uint32_t through = internal::WarpInclusiveSum(zeros);
    const uint32_t round_zeros = __shfl_sync(0xFFFFFFFFu, through, 31);
    if (round_zeros >= zeros_left) {
      const uint32_t holder = static_cast<uint32_t>(
          __ffs(static_cast<int>(__ballot_sync(0xFFFFFFFFu, through >= zeros_left))) - 1);
      zeros_left -= __shfl_sync(0xFFFFFFFFu, through - zeros, static_cast<int>(holder));
      for (uint32_t i = 0; i < K; ++i) {
        const uint32_t j = first + holder * K + i;
        const uint32_t valid = g.WordBits(j);
        const uint64_t word = g.Word(j);
        const uint32_t word_zeros = valid - internal::PopCount64(word);
        if (zeros_left <= word_zeros) {
          const uint32_t at =
              64 * j + internal::SelectInWord64(~word & internal::LowMask(valid), zeros_left - 1);
          // The zero at `at` is the h-th: the other bits before it are ones.
          return RunsEfWarpBucket{at + 1, at - (h - 1)};
        }
        zeros_left -= word_zeros;
      }
      return RunsEfWarpBucket{g.high_bits, g.high_bits};  // not reached: the same words
    }
    zeros_left -= round_zeros;
  }
  return RunsEfWarpBucket{g.high_bits, g.high_bits - (h - zeros_left)};
}

/// A place in H to look for 1 bits from: a 32-bit chunk of H and the 1 bits
/// of H before it.
struct RunsEfCursor {
  uint32_t chunk;
  uint32_t ones;
};

/// The 32-run window of one warp over a RUNS_EF partition (see the file
/// comment). Lane j holds run b + j: its start (`start`, kPastEnd past run
/// m) and its value; `end` (every lane) is the start of run b + 32; `found`
/// is the cursor of the chunk where this lane found the 1 bit of run
/// b + 1 + j, from which a later window may look.
template <typename U>
struct RunsEfWindow {
  static constexpr uint32_t kPastEnd = 0xFFFFFFFFu;
  uint32_t b;
  uint32_t start;
  U value;
  uint32_t end;
  RunsEfCursor found;

  /// Loads runs `first` .. first + 31 (first <= m): `first_start` is the
  /// start of run `first` (or, for a decode's first window, any value below
  /// its first row: it is only compared with rows from there on), `from` a
  /// cursor with at most `first` ones before it.
  __device__ __forceinline__ void Fill(const RunsEfWarpLayout& g, U base, uint32_t first,
                                       uint32_t first_start, RunsEfCursor from, uint32_t lane) {
    b = first;
    const uint32_t target = first + 1 + lane;  // the run whose start this lane finds
    bool pending = target <= g.starts;
    uint32_t target_start = kPastEnd;
    found = from;
    uint32_t chunk = from.chunk;
    uint32_t ones = from.ones;  // 1 bits of H before `chunk`; below every pending target
    const uint32_t chunks = (g.high_bits + 31) / 32;
    while (__any_sync(0xFFFFFFFFu, pending) && chunk < chunks) {
      const uint32_t bits = g.Chunk(chunk + lane);
      const uint32_t through = internal::WarpInclusiveSum(internal::PopCount32(bits));
      const uint32_t round_ones = __shfl_sync(0xFFFFFFFFu, through, 31);
      // The target's rank among this round's ones (1-based; past
      // round_ones: not in this round).
      const uint32_t rank = pending ? min(target - ones, round_ones + 1) : 0;
      // The first lane of the round whose chunk brings the ones through `rank`.
      uint32_t holder = 0;
#pragma unroll
      for (uint32_t half = 16; half > 0; half >>= 1) {
        const uint32_t probe = __shfl_sync(0xFFFFFFFFu, through, static_cast<int>(holder + half - 1));
        holder = probe < rank ? holder + half : holder;
      }
      const uint32_t holder_bits = __shfl_sync(0xFFFFFFFFu, bits, static_cast<int>(holder));
      const uint32_t holder_through = __shfl_sync(0xFFFFFFFFu, through, static_cast<int>(holder));
      if (pending && rank <= round_ones) {
        const uint32_t before = holder_through - internal::PopCount32(holder_bits);
        const uint32_t q = 32 * (chunk + holder) + internal::SelectInWord32(holder_bits, rank - 1 - before);
        // "start_i" = (q_i - (i - 1)) * 2^l + low_i; saturated, as a
        // corrupt one may not fit.
        const uint64_t s = internal::RunsEfStart(q, target, g.Low(target), g.low_bits);
        target_start = static_cast<uint32_t>(min(s, uint64_t{kPastEnd}));
        found = RunsEfCursor{chunk + holder, ones + before};
        pending = false;
      }
      chunk += 32;
      ones += round_ones;
    }
    if (pending) found = RunsEfCursor{chunk, ones};  // H holds fewer ones (corrupt)
    const uint32_t previous = __shfl_up_sync(0xFFFFFFFFu, target_start, 1);
    start = lane == 0 ? first_start : previous;
    end = __shfl_sync(0xFFFFFFFFu, target_start, 31);
    const uint32_t run = first + lane;
    value = run <= g.starts ? static_cast<U>(base + static_cast<U>(LoadField(g.words, uint64_t{run} * g.w, g.w)))
                            : U{0};
  }
};

/// Rows [lo, hi) of a checked RUNS_EF partition `d` (Base `base_word`,
/// "Num_Runs" `runs`, valid for d by RunsEfParamsValid) by the whole warp:
/// row x goes to out[x - lo + out_lo] when that index is in [0, range_len).
/// The step loop is DecodeRunTile's: a step of 32 rows that ends before
/// the window's end reads no memory. The window is filled in one place (a
/// second inlined fill costs registers).
template <typename U, bool kMap>
__device__ __forceinline__ void DecodeRunsEfRows(const KernelChunk& c, const DevicePartition& d,
                                                 uint64_t base_word, uint64_t runs, uint32_t lo,
                                                 uint32_t hi, int64_t out_lo, uint64_t range_len,
                                                 U* __restrict__ out, uint32_t lane) {
  const RunsEfWarpLayout g = MakeRunsEfWarpLayout(c, d, runs);
  const U base = static_cast<U>(base_word);  // spec §8.2 Base
  // The first window: the run before the first start of lo's bucket
  // (start_b < (lo >> l) << l <= lo), or run 0.
  const RunsEfWarpBucket bucket = WarpFindBucket(g, lo >> g.low_bits, lane);
  uint32_t next = min(bucket.starts_below, g.starts);
  uint32_t next_start = 0;
  const uint32_t below = g.Chunk(bucket.first_bit / 32) & ((1u << (bucket.first_bit % 32)) - 1);
  RunsEfCursor from{bucket.first_bit / 32, bucket.starts_below - __popc(below)};
  bool fill = true;
  RunsEfWindow<U> win;
  for (uint32_t step = lo; step < hi; step += internal::kLanes) {
    for (;;) {
      if (fill) win.Fill(g, base, next, next_start, from, lane);
      if (win.end > step + 31) break;
      // Move the window to the run of row `step`, as DecodeRunTile does:
      // run next (b < next <= b + 32) starts at a lane's start or at `end`,
      // and the lane that found run min(next + 1, b + 32) left its cursor.
      const uint32_t begun = __popc(__ballot_sync(0xFFFFFFFFu, win.start <= step));
      const uint32_t ahead = win.end <= step ? 32u : begun == 0 ? 0u : begun - 1;
      fill = ahead > 0 && win.b < g.starts;  // else: starts that do not increase
      if (!fill) break;
      next = min(win.b + ahead, g.starts);
      const int src = static_cast<int>(min(next - win.b, 31u));
      const uint32_t held = __shfl_sync(0xFFFFFFFFu, win.start, src);
      next_start = next - win.b < 32 ? held : win.end;
      from = RunsEfCursor{__shfl_sync(0xFFFFFFFFu, win.found.chunk, src),
                          __shfl_sync(0xFFFFFFFFu, win.found.ones, src)};
    }
    fill = false;
    const U value = RunWindowValue(uint64_t{win.start}, win.value, step, lane);
    StoreChecked<kMap>(c, out, out_lo + static_cast<int64_t>(step - lo + lane), range_len,
                       step + lane < hi, value);
  }
}

/// Runs held by the shared stage of one warp per batch of
/// DecodeRunsEfRowsStaged (their values and the high parts of their
/// starts).
template <typename U>
inline constexpr uint32_t kRunsEfBatchRuns = sizeof(U) <= 4 ? 512 : 256;
/// Rows one batch covers at most (its bitmap of run starts).
inline constexpr uint32_t kRunsEfBatchRows = 2048;

/// Shared memory of one warp for DecodeRunsEfRowsStaged: the values of a
/// batch's runs (U), the high parts of their starts (u16: n <= 65536) and
/// a bitmap of the rows where they start.
template <typename U>
__host__ __device__ constexpr uint32_t RunsEfStageBytes() {
  return kRunsEfBatchRuns<U> * static_cast<uint32_t>(sizeof(U) + sizeof(uint16_t)) +
         kRunsEfBatchRows / 8;
}

/// H bits [bit, bit + 32) (any bit position), zero past H_n (no load past it).
__device__ __forceinline__ uint32_t RunsEfHighBits(const RunsEfWarpLayout& g, uint32_t bit) {
  if (bit >= g.high_bits) return 0;
  const uint32_t left = g.high_bits - bit;
  const uint32_t bits = static_cast<uint32_t>(LoadField(g.words, g.high_bit0 + bit, 32));
  return left >= 32 ? bits : bits & ((1u << left) - 1);
}

/// Rows [lo, hi) of a checked RUNS_EF partition `d` by the whole warp, as
/// DecodeRunsEfRows, through the warp's RunsEfStageBytes<U>() of shared
/// memory `stage`. Row x goes to out[x - lo + out_lo] when that index is in
/// [0, range_len); with kMap, a dictionary chunk's code is mapped once per
/// run instead of once per row.
///
/// The rows are decoded in batches. A batch starts at row `cur` in run b0
/// (start_b0 <= cur) with a cursor into H (a bit position p and the
/// p_ones >= b0 ones before it; b0 of them in a valid payload, so that
/// the 1 bit of run b0 + 1 is the first at or after p) and covers at
/// most kRunsEfBatchRows rows (up to `limit`) and C = kRunsEfBatchRuns
/// runs:
///
/// 1. The 1 bits of runs b0 + 1 .. b0 + C whose high part is at most that
///    of the batch's last row: each lane reads 32 bits of H (1024 bits a
///    round), a warp scan of their popcounts gives every 1 bit its run r,
///    and each lane writes the high parts of its own 1 bits to the stage:
///    run r's 1 bit at q gives q - (r - 1), the 0 bits before q, which
///    never decreases along H whatever the payload holds. The runs found
///    are runs b0 + 1 .. b0 + found, and the walk stops at the first 1 bit
///    past them.
/// 2. Lane-parallel over the runs: the values of runs b0 .. b0 + found
///    (mapped, with kMap) go to the stage, and each found start s that
///    lies in (cur, limit) sets bit s - cur of the row bitmap. The
///    batch ends at the start of run b0 + C when all C were found, else at
///    its row limit.
/// 3. Steps of 32 rows: the run of row x is b0 plus the found starts at or
///    before cur plus the bitmap's 1 bits in (cur, x], one shared word and
///    one popcount per lane; its value is read from the stage.
///
/// The payload is untrusted: H is read only inside its H_n bits, run
/// indices stay in [0, m] and stage indices in [0, C), and every batch
/// moves cur to its row limit or b0 forward by C (at most
/// R / C + rows / kRunsEfBatchRows + 1 batches),
/// so corrupt input gives wrong values, never an access outside the
/// partition or the stage, or an unbounded loop.
template <typename U, bool kMap>
__device__ __forceinline__ void DecodeRunsEfRowsStaged(const KernelChunk& c,
                                                       const DevicePartition& d,
                                                       uint64_t base_word, uint64_t runs,
                                                       uint32_t lo, uint32_t hi, int64_t out_lo,
                                                       uint64_t range_len, U* __restrict__ out,
                                                       uint32_t lane, uint64_t* stage) {
  constexpr uint32_t C = kRunsEfBatchRuns<U>;
  constexpr uint32_t kPastEnd = 0xFFFFFFFFu;
  U* const values = reinterpret_cast<U*>(stage);
  uint16_t* const highs = reinterpret_cast<uint16_t*>(values + C);  // of runs b0 + 1 + k
  uint32_t* const begins = reinterpret_cast<uint32_t*>(highs + C);
  const RunsEfWarpLayout g = MakeRunsEfWarpLayout(c, d, runs);
  const U base = static_cast<U>(base_word);  // spec §8.2 Base
  // MapCode<kMap> with the dictionary read once (spec §8.10); its entries
  // may be the block's shared copy, hence a generic load.
  const U* const dictionary = kMap ? static_cast<const U*>(c.dictionary) : nullptr;
  const uint32_t entries = kMap ? c.dictionary_entries : 0;
  auto map = [&](U code) -> U {
    if constexpr (!kMap) {
      return code;
    } else {
      if (dictionary == nullptr) return code;
      return code < entries ? dictionary[code] : U{0};
    }
  };
  // The run before the first start of lo's bucket (start_b0 < lo), or run 0.
  const RunsEfWarpBucket bucket = WarpFindBucket(g, lo >> g.low_bits, lane);
  uint32_t b0 = min(bucket.starts_below, g.starts);
  uint32_t p = bucket.first_bit;        // look for run b0 + 1's 1 bit from here
  uint32_t p_ones = bucket.starts_below;  // 1 bits of H before p
  for (uint32_t cur = lo; cur < hi;) {
    const uint32_t limit = min(hi, cur + kRunsEfBatchRows);
    const uint32_t high_limit = (limit - 1) >> g.low_bits;
    // 1. The 1 bits of runs b0 + 1 .. b0 + found.
    uint32_t last = 0;  // the last run whose 1 bit this lane wrote
    for (uint32_t at = p, ones = p_ones; at < g.high_bits;) {
      const uint32_t bit0 = at + 32 * lane;
      uint32_t bits = RunsEfHighBits(g, bit0);
      const uint32_t count = __popc(bits);
      const uint32_t through = internal::WarpInclusiveSum(count);
      uint32_t r = ones + (through - count);  // 1 bits before this lane's bits
      bool stop = false;
      while (bits != 0) {
        const uint32_t q = bit0 + static_cast<uint32_t>(__ffs(static_cast<int>(bits)) - 1);
        bits &= bits - 1;
        ++r;  // the r-th 1 bit of H: run r's
        if (r > g.starts || q - (r - 1) > high_limit || r - b0 > C) {
          stop = true;
          break;
        }
        // r > b0 (p has at least b0 ones before it); the high part is at
        // most high_limit < 2^16.
        highs[r - b0 - 1] = static_cast<uint16_t>(q - (r - 1));
        last = r;
      }
      if (__any_sync(0xFFFFFFFFu, stop)) break;
      ones += __shfl_sync(0xFFFFFFFFu, through, 31);
      at += 32 * internal::kLanes;
    }
    const uint32_t top = __reduce_max_sync(0xFFFFFFFFu, last);
    const uint32_t found = top > b0 ? top - b0 : 0;
    // 2. Values and the bitmap of starts.
    const uint32_t words = (limit - cur + 31) / 32;
    for (uint32_t i = lane; i < words; i += internal::kLanes) begins[i] = 0;
    __syncwarp();
    uint32_t at_or_before = 0;  // found starts <= cur
    uint32_t through_limit = 0;  // found starts <= limit
    uint32_t last_start = kPastEnd;  // start of run b0 + C, when found == C
    // kAhead runs per lane at a time: their value and low-part loads are in
    // flight together, then each maps its value (one dictionary load per
    // run, not per row) and marks its start.
    constexpr uint32_t kAhead = 4;
    static_assert(C % (kAhead * internal::kLanes) == 0, "whole rounds of runs");
    for (uint32_t j0 = 0; j0 <= found && j0 < C; j0 += kAhead * internal::kLanes) {
      uint64_t field[kAhead];
      uint32_t low[kAhead];
#pragma unroll
      for (uint32_t k = 0; k < kAhead; ++k) {
        const uint32_t j = j0 + k * internal::kLanes + lane;
        field[k] = j <= found ? LoadField(g.words, uint64_t{b0 + j} * g.w, g.w) : 0;  // run <= m
        low[k] = j < found ? g.Low(b0 + 1 + j) : 0;
      }
#pragma unroll
      for (uint32_t k = 0; k < kAhead; ++k) {
        const uint32_t j = j0 + k * internal::kLanes + lane;  // < C
        if (j <= found) values[j] = map(static_cast<U>(base + static_cast<U>(field[k])));
        uint32_t s = kPastEnd;
        if (j < found) {
          // "start_i" = (q_i - (i - 1)) * 2^l + low_i, below 2^32 (a high
          // part below 2^16, l <= 15).
          s = (uint32_t{highs[j]} << g.low_bits) + low[k];
          if (s > cur && s < limit) atomicOr(&begins[(s - cur) / 32], 1u << ((s - cur) % 32));
        }
        at_or_before += __popc(__ballot_sync(0xFFFFFFFFu, s <= cur));
        through_limit += __popc(__ballot_sync(0xFFFFFFFFu, s <= limit));
        if (j0 + (k + 1) * internal::kLanes == C) last_start = __shfl_sync(0xFFFFFFFFu, s, 31);
      }
    }
    // The batch ends at the start of run b0 + C when all C runs were found
    // and it lies before the limit (then the next batch begins in run
    // b0 + C), else at the limit (then in the last found run that starts
    // at or before it: a run that starts at the limit but was not found,
    // its high part being above high_limit, is found by the next batch).
    uint32_t batch_end = limit;
    uint32_t reached = through_limit;  // runs from b0 to the next batch's first
    if (found == C && last_start < limit) {
      batch_end = last_start;
      reached = C;
    }
    __syncwarp();
    // 3. The rows [cur, batch_end): unchecked stores when they all lie in
    // the output range (the usual case; whole steps without a row check),
    // else StoreChecked.
    const uint32_t rows = batch_end > cur ? batch_end - cur : 0;
    const int64_t first_out = out_lo + static_cast<int64_t>(cur - lo);
    const uint32_t through_lane = 0xFFFFFFFFu >> (31 - lane);
    uint32_t run_of = at_or_before;  // runs from b0 to the step's row before lane 0
    // The value of row cur + off + lane (off: the step's first row).
    auto step_value = [&](uint32_t off) {
      const uint32_t word = begins[off / 32];
      const uint32_t idx = min(run_of + __popc(word & through_lane), C - 1);
      run_of += __popc(word);
      return values[idx];
    };
    if (first_out >= 0 && static_cast<uint64_t>(first_out) + rows <= range_len) {
      U* const o = out + first_out + lane;
      const uint32_t whole = rows & ~(internal::kLanes - 1);
      uint32_t off = 0;
      for (; off < whole; off += internal::kLanes) o[off] = step_value(off);
      if (off < rows) {
        const U v = step_value(off);
        if (off + lane < rows) o[off] = v;
      }
    } else {
      for (uint32_t off = 0; off < rows; off += internal::kLanes) {
        const U v = step_value(off);
        StoreChecked<false>(c, out, first_out + (off + lane), range_len, off + lane < rows, v);
      }
    }
    if (found > 0) {
      if (reached < found) {
        p = highs[reached] + b0 + reached;  // q = high part + (r - 1)
        p_ones = b0 + reached;
      } else {
        p = highs[found - 1] + b0 + found;  // after the 1 bit of run b0 + found
        p_ones = b0 + found;
      }
    }
    __syncwarp();  // the stage is read before the next batch writes it
    b0 += reached;
    cur = max(cur, batch_end);
  }
}

/// A RUNS_EF partition's tile (spec §8.11), by the whole warp. Not inlined,
/// like DecodeRunTile, so that its registers are its own.
template <typename U, int kV, bool kMap>
__device__ __noinline__ void DecodeRunsEfTile(const KernelChunk& c, const StagedPartition& sp,
                                              uint32_t tile, int64_t tile_out, uint64_t range_len,
                                              U* __restrict__ out, uint32_t lane) {
  const DevicePartition& d = sp.d;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint32_t lo = static_cast<uint32_t>(uint64_t{tile} * tile_rows);
  const uint32_t hi = static_cast<uint32_t>(min(uint64_t{lo} + tile_rows, uint64_t{d.rows}));
  // spec §8.2: Base, "Num_Runs" (checked by LoadPartition); n <= 65536.
  DecodeRunsEfRows<U, kMap>(c, d, sp.params[0], sp.params[1], lo, hi, tile_out, range_len, out,
                            lane);
}

/// DecodeRunsEfTile through the warp's RunsEfStageBytes<U>() of shared
/// memory (DecodeRowsKernel's launches with RUNS_EF partitions).
template <typename U, int kV, bool kMap>
__device__ __noinline__ void DecodeRunsEfTileStaged(const KernelChunk& c, const StagedPartition& sp,
                                                    uint32_t tile, int64_t tile_out,
                                                    uint64_t range_len, U* __restrict__ out,
                                                    uint32_t lane, uint64_t* stage) {
  const DevicePartition& d = sp.d;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint32_t lo = static_cast<uint32_t>(uint64_t{tile} * tile_rows);
  const uint32_t hi = static_cast<uint32_t>(min(uint64_t{lo} + tile_rows, uint64_t{d.rows}));
  // spec §8.2: Base, "Num_Runs" (checked by LoadPartition); n <= 65536.
  DecodeRunsEfRowsStaged<U, kMap>(c, d, sp.params[0], sp.params[1], lo, hi, tile_out, range_len,
                                  out, lane, stage);
}

/// Local rows [lo, hi) of a checked RUNS_EF partition by the whole warp into
/// out[0, hi - lo) (the PGM lookup's windows; no dictionary).
template <typename U>
__device__ __noinline__ void WarpDecodeRunsEfRows(const KernelChunk& c, const DevicePartition& d,
                                                  uint64_t lo, uint64_t hi, U* out, uint32_t lane) {
  DecodeRunsEfRows<U, false>(c, d, __ldg(c.params + d.param_offset),
                             __ldg(c.params + d.param_offset + 1), static_cast<uint32_t>(lo),
                             static_cast<uint32_t>(hi), 0, hi - lo, out, lane);
}

/// The run value field of local row x of a checked RUNS_EF partition (one
/// thread; spec §8.11: at most ceil_div(H_n, 64) words of H, the low parts
/// of one bucket and one run value). Not inlined: it keeps the scan of H
/// out of the callers' registers (Take, the PGM lookups).
inline __device__ __noinline__ uint64_t RunsEfFieldOf(const KernelChunk& c, const DevicePartition& d,
                                               uint64_t x) {
  const uint64_t runs = __ldg(c.params + d.param_offset + 1);  // "Num_Runs"
  const internal::RunsEfLayout g = internal::MakeRunsEfLayout(d.rows, runs, d.width);
  const PayloadStream stream{c.payload + d.word_offset};
  const uint64_t run = internal::RunsEfRunOfRow(stream, g, x);
  return stream.Field(run * d.width, d.width);
}

/// Local row x of a checked RUNS_EF partition by random access.
template <typename U>
__device__ __forceinline__ U DecodeRunsEfOne(const KernelChunk& c, const DevicePartition& d,
                                             uint64_t x) {
  const U base = static_cast<U>(__ldg(c.params + d.param_offset));  // spec §8.2 Base
  return static_cast<U>(base + static_cast<U>(RunsEfFieldOf(c, d, x)));
}

}  // namespace l3::cuda::detail
