// RUNS_EF (spec §8.11): rank and select over the high part H, shared by the
// CUDA decoder (runs_ef_decode.cuh, which adds the warp-parallel versions)
// and the host-side unit test of the same bit arithmetic.
//
// Every function reads the payload through a Stream: any type with
// `uint64_t Field(uint64_t bit, uint32_t width) const` returning the
// `width`-bit field (width <= 64) at stream bit `bit` (spec §8.5 bit order),
// which may read the word after the field's first word. On the device that
// is LoadField; the host test reads a vector of words.
//
// The payload is untrusted: H may hold more or fewer than m ones and the
// starts need not increase. These functions read only H's own H_n bits and
// the low parts of runs 1..m, every loop is bounded by H_n, and the run they
// return lies in [0, m]; corrupt input gives a wrong run, nothing worse.
#pragma once

#include <cstdint>

#include "codec/runs/runs_ef_layout.hpp"
#include "common/bits.hpp"

// The Stream of a CUDA caller is a __device__-only type; its host
// instantiation of these templates is never called.
#if defined(__CUDACC__)
#define L3_RUNS_EF_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define L3_RUNS_EF_HD_TEMPLATE
#endif

namespace l3::internal {

L3_HD uint32_t PopCount32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(x));
#else
  return static_cast<uint32_t>(__builtin_popcount(x));
#endif
}

L3_HD uint32_t PopCount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popcll(static_cast<unsigned long long>(x)));
#else
  return static_cast<uint32_t>(__builtin_popcountll(x));
#endif
}

/// The position of the k-th set bit of `word`, counted from 0 (k = 0 is the
/// lowest). Precondition: k < PopCount32(word). A branch-free bisection over
/// the word's halves, the same on the host and the device (the device's
/// __fns is not portable).
L3_HD uint32_t SelectInWord32(uint32_t word, uint32_t k) {
  uint32_t pos = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (uint32_t half = 16; half > 0; half >>= 1) {
    const uint32_t low_ones = PopCount32(word & ((1u << half) - 1));
    const bool above = k >= low_ones;
    k = above ? k - low_ones : k;
    word = above ? word >> half : word;
    pos = above ? pos + half : pos;
  }
  return pos;
}

/// SelectInWord32 for a 64-bit word. Precondition: k < PopCount64(word).
L3_HD uint32_t SelectInWord64(uint64_t word, uint32_t k) {
  const uint32_t low = static_cast<uint32_t>(word);
  const uint32_t low_ones = PopCount32(low);
  if (k < low_ones) return SelectInWord32(low, k);
  return 32 + SelectInWord32(static_cast<uint32_t>(word >> 32), k - low_ones);
}

/// The high part H of one partition (spec §8.11 item 3): H_n bits from stream
/// bit `first_bit`. Reads never cover a bit past H: words and chunks are
/// masked to H_n, and those that start past it are 0 without a load.
template <typename Stream>
struct RunsEfHighPart {
  Stream stream;
  uint64_t first_bit;  // R * w + m * l
  uint64_t bits;       // "H_n"

  /// Bits of H in its 64-bit word j (64 but for the last word; 0 past H).
  L3_HD uint32_t WordBits(uint64_t j) const {
    const uint64_t at = 64 * j;
    return at >= bits ? 0u : bits - at >= 64 ? 64u : static_cast<uint32_t>(bits - at);
  }

  /// H bits [64 j, 64 j + 64), zero past H_n.
  L3_RUNS_EF_HD_TEMPLATE
  L3_HD uint64_t Word(uint64_t j) const {
    const uint32_t valid = WordBits(j);
    return valid == 0 ? 0 : stream.Field(first_bit + 64 * j, 64) & LowMask(valid);
  }

  /// H bits [32 j, 32 j + 32), zero past H_n.
  L3_RUNS_EF_HD_TEMPLATE
  L3_HD uint32_t Chunk(uint64_t j) const {
    const uint64_t at = 32 * j;
    if (at >= bits) return 0;
    const uint32_t valid = bits - at >= 32 ? 32u : static_cast<uint32_t>(bits - at);
    return static_cast<uint32_t>(stream.Field(first_bit + at, 32) & LowMask(valid));
  }

  /// Bit `pos` of H (0 past H_n).
  L3_RUNS_EF_HD_TEMPLATE
  L3_HD bool Bit(uint64_t pos) const { return (Word(pos / 64) >> (pos % 64)) & 1; }
};

/// Where the run starts of high part h sit in H: their 1 bits are the ones
/// from `first_bit` on up to the next 0 bit, and `starts_below` starts (the
/// 1 bits before first_bit) have a smaller high part.
struct RunsEfBucket {
  uint64_t first_bit;
  uint64_t starts_below;
};

/// The bucket of high part h (spec §8.11, cost of access): a start whose
/// high part is h sits after exactly h 0 bits, so for h >= 1 the bucket
/// begins after the h-th 0 bit of H. One pass over H's words, at most
/// ceil_div(H_n, 64). When H holds fewer than h zeros (corrupt), the bucket
/// is empty at H's end, below every 1 bit of H.
L3_RUNS_EF_HD_TEMPLATE
template <typename Stream>
L3_HD RunsEfBucket RunsEfFindBucket(const RunsEfHighPart<Stream>& high, uint64_t h) {
  if (h == 0) return RunsEfBucket{0, 0};
  uint64_t zeros_left = h;  // the h-th zero is the zeros_left-th from word j on
  uint64_t ones = 0;        // 1 bits before word j
  for (uint64_t j = 0; 64 * j < high.bits; ++j) {
    const uint32_t valid = high.WordBits(j);
    const uint64_t word = high.Word(j);
    const uint32_t word_ones = PopCount64(word);
    const uint32_t zeros = valid - word_ones;
    if (zeros_left <= zeros) {
      const uint32_t at = SelectInWord64(~word & LowMask(valid), static_cast<uint32_t>(zeros_left - 1));
      return RunsEfBucket{64 * j + at + 1, ones + PopCount64(word & LowMask(at))};
    }
    zeros_left -= zeros;
    ones += word_ones;
  }
  return RunsEfBucket{high.bits, ones};
}

/// spec §8.11: the run of local row x, max { i : start_i <= x } with
/// start_0 = 0, by random access: the starts whose high part is below
/// h = x >> l (the bucket's starts_below), then those of high part h whose
/// low part is at most x's, compared one by one in H order. The result is
/// in [0, m] whatever the payload holds.
L3_RUNS_EF_HD_TEMPLATE
template <typename Stream>
L3_HD uint64_t RunsEfRunOfRow(const Stream& stream, const RunsEfLayout& g, uint64_t x) {
  const RunsEfHighPart<Stream> high{stream, g.high_bit0, g.high_bits};
  const RunsEfBucket bucket = RunsEfFindBucket(high, x >> g.low_bits);
  const uint64_t x_low = x & LowMask(g.low_bits);
  uint64_t run = bucket.starts_below < g.starts ? bucket.starts_below : g.starts;
  for (uint64_t q = bucket.first_bit; q < g.high_bits && run < g.starts && high.Bit(q); ++q) {
    // The 1 bit at q is run (run + 1)'s: its high part is h; its "low part"
    // is field run of the low parts (runs are counted from 1 there).
    if (stream.Field(g.low_bit0 + run * g.low_bits, g.low_bits) > x_low) break;
    ++run;
  }
  return run;
}

}  // namespace l3::internal
