// Per-width unpack kernels for the SLAP layout (spec §8.5) on the CPU.
//
// In a full tile with values_per_lane V a multiple of 64, lane L's fields are
// one contiguous bit stream of V * w bits: V / 64 blocks of exactly w 64-bit
// words, each block holding 64 fields of w bits, LSB first. A kernel unpacks
// one such block for a width fixed at compile time, so every shift and mask
// is a constant and there is no branch per value; it writes field k to
// out[kStride * k], the lane's row x0 + 32 k.
//
// The scalar definition these kernels must equal is ReadField() of
// common/bits.hpp (tests/slap_unpack_test.cpp checks every width 0..64).
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {

/// Fields in one unpack block (and rows of one lane block).
inline constexpr uint32_t kSlapBlockFields = 64;

/// How a kernel turns the w-bit field u into the stored value.
enum class FieldMode {
  kAddBase,      // FOR_BITPACK (spec §8.3): Base + u
  kSignExtend,   // residual r of LINEAR/POLY2/POLY3 (spec §8.4): SignExtend(u, w)
};

/// Unpacks the 64 fields of one lane block of width W at `words` (W little-
/// endian 64-bit words) into out[0], out[kStride], ..., out[63 * kStride]:
/// kStride = kLanes writes a lane's rows in place, 1 a contiguous run.
/// kAddBase stores (base + u) mod 2^N; kSignExtend stores SignExtend(u, W)
/// mod 2^N, with N the bits of U (an unsigned type).
template <uint32_t W, FieldMode kMode, typename U, uint32_t kStride = kLanes>
inline void UnpackLaneBlock(const uint8_t* words, uint64_t base, U* out) {
  static_assert(std::is_unsigned_v<U> && W <= 64, "unsigned output, width 0..64");
  if constexpr (W == 0) {
    const U value = static_cast<U>(kMode == FieldMode::kAddBase ? base : 0);
#pragma GCC unroll 64
    for (uint32_t k = 0; k < kSlapBlockFields; ++k) out[kStride * k] = value;
  } else {
    constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << (W % 64)) - 1;
    constexpr uint64_t kSign = uint64_t{1} << (W - 1);
#pragma GCC unroll 64
    for (uint32_t k = 0; k < kSlapBlockFields; ++k) {
      // After unrolling, bit, word and shift are constants.
      const uint32_t bit = k * W;
      const uint32_t word = bit / 64;
      const uint32_t shift = bit % 64;
      uint64_t u = LoadLE64(words + 8 * word) >> shift;
      if (shift + W > 64) u |= LoadLE64(words + 8 * (word + 1)) << (64 - shift);
      u &= kMask;
      if constexpr (kMode == FieldMode::kAddBase) {
        out[kStride * k] = static_cast<U>(base + u);
      } else {
        out[kStride * k] = static_cast<U>((u ^ kSign) - kSign);
      }
    }
  }
}

template <FieldMode kMode, typename U>
using UnpackLaneBlockFn = void (*)(const uint8_t* words, uint64_t base, U* out);

template <FieldMode kMode, typename U, uint32_t kStride, uint32_t... Ws>
constexpr std::array<UnpackLaneBlockFn<kMode, U>, sizeof...(Ws)> MakeUnpackTable(
    std::integer_sequence<uint32_t, Ws...>) {
  return {&UnpackLaneBlock<Ws, kMode, U, kStride>...};
}

/// The kernel for width w (0 <= w <= 8 * sizeof(U)) and output stride
/// kStride, chosen once per partition.
template <FieldMode kMode, typename U, uint32_t kStride = kLanes>
UnpackLaneBlockFn<kMode, U> UnpackKernelFor(uint32_t w) {
  static constexpr auto kTable = MakeUnpackTable<kMode, U, kStride>(
      std::make_integer_sequence<uint32_t, 8 * sizeof(U) + 1>{});
  return kTable[w];
}

}  // namespace l3::internal
