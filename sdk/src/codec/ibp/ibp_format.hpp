// IBP chunks (spec §11.2.3, format 1.1): the row index, the MSB-first bit
// stream of a packed row, and deposit/extract of the unmasked bits. Shared by
// the CPU reference (ibp_decode.cpp, ibp_encode.cpp) and the CUDA backend;
// header-only, host and device. Words are `Word` = uint32_t (W = 32) or
// uint64_t (W = 64).
#pragma once

#include <cstdint>
#include <cstring>

#include "common/bits.hpp"

namespace l3::internal {

inline constexpr uint32_t kIbpBlockRows = 64;    // spec §11.2.3: rows per index block
inline constexpr uint32_t kIbpMaxMasks = 256;    // "num_clusters" K <= 256
inline constexpr uint32_t kIbpMaxOffsetBits = 32;
inline constexpr uint64_t kIbpMaxRowWidth = uint64_t{1} << 24;  // spec §11.2.1
inline constexpr uint64_t kIbpPaddingBytes = 32;  // zero bytes after the payload words

/// M = ceil_div(8 * B, W): words per row of `row_bytes` bytes.
L3_HD uint64_t IbpWordsPerRow(uint64_t row_bytes, uint32_t word_bits) {
  return (8 * row_bytes + word_bits - 1) / word_bits;
}
/// H = ceil_div(M, W): words of a packed row's participation bitmap.
L3_HD uint64_t IbpBitmapWords(uint64_t words_per_row, uint32_t word_bits) {
  return (words_per_row + word_bits - 1) / word_bits;
}
/// G = ceil_div(num_rows, 64) index blocks.
L3_HD uint64_t IbpBlocks(uint64_t num_rows) { return (num_rows + kIbpBlockRows - 1) / kIbpBlockRows; }
/// Bytes of the decoded row_offsets segment: Block_Start[G + 1], then the
/// b-bit Row_Offset fields in 64-bit words.
L3_HD uint64_t IbpRowIndexBytes(uint64_t num_rows, uint32_t offset_bits) {
  return 8 * (IbpBlocks(num_rows) + 1) + 8 * ((num_rows * offset_bits + 63) / 64);
}

template <typename Word>
L3_HD uint32_t PopCount(Word w) {
#if defined(__CUDA_ARCH__)
  return sizeof(Word) == 8 ? static_cast<uint32_t>(__popcll(static_cast<unsigned long long>(w)))
                           : static_cast<uint32_t>(__popc(static_cast<unsigned>(w)));
#else
  // SWAR: without -mpopcnt, __builtin_popcountll is a library call.
  uint64_t x = static_cast<uint64_t>(w);
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<uint32_t>((x * 0x0101010101010101ull) >> 56);
#endif
}

L3_HD uint32_t CountTrailingZeros32(uint32_t w) {  // w != 0
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__ffs(static_cast<int>(w)) - 1);
#else
  return static_cast<uint32_t>(__builtin_ctz(w));
#endif
}

L3_HD uint32_t CountTrailingZeros64(uint64_t w) {  // w != 0
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__ffsll(static_cast<long long>(w)) - 1);
#else
  return static_cast<uint32_t>(__builtin_ctzll(w));
#endif
}

/// Reads the `f`-bit field (0 <= f <= W) at stream bit `pos`, most significant
/// bit first (spec §11.2.3 step 2-3): stream bit p is bit W-1-(p mod W) of
/// word p / W. `hi` is word pos / W and `lo` the word after it (read only
/// when the field crosses into it).
template <typename Word>
L3_HD Word MsbField(Word hi, Word lo, uint32_t off, uint32_t f) {
  constexpr uint32_t W = 8 * sizeof(Word);
  if (f == 0) return 0;
  Word v = static_cast<Word>(hi << off);
  if (off > 0 && off + f > W) v |= static_cast<Word>(lo >> (W - off));
  return static_cast<Word>(v >> (W - f));
}

/// PDEP on 32 bits: the bits of `x`, least significant first, into the set
/// bits of `free`, one step per run of consecutive set bits (float masks
/// leave a run or two per 32-bit value).
L3_HD uint32_t DepositBits32(uint32_t x, uint32_t free) {
  if (free == 0xFFFFFFFFu) return x;
  uint32_t out = 0;
  while (free != 0) {
    const uint32_t s = CountTrailingZeros32(free);
    // The run's length: free >> s is not all ones (free is not), so its
    // complement has a lowest set bit, and len < 32.
    const uint32_t len = CountTrailingZeros32(~(free >> s));
    const uint32_t run_mask = (uint32_t{1} << len) - 1;
    out |= (x & run_mask) << s;
    x >>= len;
    free &= ~(run_mask << s);
  }
  return out;
}

/// x86 PDEP: the bits of `x`, least significant first, into the set bits of
/// `free` (least significant first). spec §11.2.3 step 4 with free = ~Mask.
/// A 64-bit word (two 4-byte values, or one 8-byte value) goes as two
/// 32-bit halves: the low half takes popcount(low half of free) bits of x,
/// the high half the bits after them.
template <typename Word>
L3_HD Word DepositBits(Word x, Word free) {
  if constexpr (sizeof(Word) == 4) {
    return DepositBits32(x, free);
  } else {
    const uint64_t f = static_cast<uint64_t>(free);
    const uint32_t free_lo = static_cast<uint32_t>(f);
    const uint32_t low_bits = PopCount<uint32_t>(free_lo);
    const uint64_t rest = low_bits == 32 ? static_cast<uint64_t>(x) >> 32 : static_cast<uint64_t>(x) >> low_bits;
    const uint64_t lo = DepositBits32(static_cast<uint32_t>(x), free_lo);
    const uint64_t hi = DepositBits32(static_cast<uint32_t>(rest), static_cast<uint32_t>(f >> 32));
    return static_cast<Word>(lo | (hi << 32));
  }
}

/// PDEP by a plan made once per mask word, for decoders that deposit into
/// the same `free` bits many times (the GPU's rows of one chunk): the
/// "expand" of Warren's Hacker's Delight (section 7-5), five masked shifts
/// per 32 bits whatever the number of runs in `free`. A 64-bit word goes as
/// two halves, as in DepositBits. Equal to DepositBits for every x and free
/// (ibp_test.cpp).
template <typename Word>
struct ExpandPlan {
  static constexpr int kHalves = sizeof(Word) / 4;
  uint32_t moves[kHalves][5];  // the bits that move left by 16, 8, 4, 2, 1 (index 4..0)
  uint32_t free[kHalves];
  uint32_t low_free_bits;      // popcount of free[0]: the bits of x the low half takes
};

L3_HD void MakeExpandHalf(uint32_t free, uint32_t (&moves)[5]) {
  uint32_t m = free;
  uint32_t zeros_left = ~m << 1;  // the zeros to the right of each bit, counted bit by bit
  for (int i = 0; i < 5; ++i) {
    // Parallel suffix (prefix xor from the right) of zeros_left.
    uint32_t parity = zeros_left ^ (zeros_left << 1);
    parity ^= parity << 2;
    parity ^= parity << 4;
    parity ^= parity << 8;
    parity ^= parity << 16;
    const uint32_t move = parity & m;
    moves[i] = move;
    m = (m ^ move) | (move >> (1u << i));
    zeros_left &= ~parity;
  }
}

template <typename Word>
L3_HD ExpandPlan<Word> MakeExpandPlan(Word free) {
  ExpandPlan<Word> plan;
  const uint64_t f = static_cast<uint64_t>(free);
  for (int h = 0; h < ExpandPlan<Word>::kHalves; ++h) {
    plan.free[h] = static_cast<uint32_t>(f >> (32 * h));
    MakeExpandHalf(plan.free[h], plan.moves[h]);
  }
  plan.low_free_bits = PopCount<uint32_t>(plan.free[0]);
  return plan;
}

L3_HD uint32_t ExpandHalf(uint32_t x, const uint32_t (&moves)[5], uint32_t free) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 4; i >= 0; --i) {
    const uint32_t move = moves[i];
    x = ((x << (1u << i)) & move) | (x & ~move);
  }
  return x & free;
}

/// DepositBits(x, free) for the `free` the plan was made from.
template <typename Word>
L3_HD Word ExpandBits(Word x, const ExpandPlan<Word>& plan) {
  if constexpr (sizeof(Word) == 4) {
    return ExpandHalf(x, plan.moves[0], plan.free[0]);
  } else {
    const uint64_t v = static_cast<uint64_t>(x);
    const uint64_t lo = ExpandHalf(static_cast<uint32_t>(v), plan.moves[0], plan.free[0]);
    const uint64_t hi =
        ExpandHalf(static_cast<uint32_t>(v >> plan.low_free_bits), plan.moves[1], plan.free[1]);
    return static_cast<Word>(lo | (hi << 32));
  }
}

/// x86 PEXT: the bits of `x` at the set bits of `free`, packed from the least
/// significant bit up. The encoder's inverse of DepositBits.
template <typename Word>
L3_HD Word ExtractBits(Word x, Word free) {
  uint64_t rest = static_cast<uint64_t>(free);
  const uint64_t src = static_cast<uint64_t>(x);
  uint64_t out = 0;
  uint32_t filled = 0;
  while (rest != 0) {
    const uint32_t s = CountTrailingZeros64(rest);
    const uint64_t from_s = rest >> s;
    const uint32_t len = ~from_s == 0 ? 64 - s : CountTrailingZeros64(~from_s);
    out |= ((src >> s) & LowMask(len)) << filled;
    filled += len;
    rest &= (s + len >= 64) ? LowMask(s) : ~(LowMask(len) << s);
  }
  return static_cast<Word>(out);
}

}  // namespace l3::internal
