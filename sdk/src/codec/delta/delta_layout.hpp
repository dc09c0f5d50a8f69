// DELTA (spec §8.9): the payload geometry shared by the CPU reference decoder,
// the writer and the CUDA backend.
//
// A DELTA partition's payload is one Seed word per tile (spec §8.5 tiles:
// ceil_div(n, S) of them, the partial tile included), followed by one bit
// stream: the SLAP fields of its n rows (Bit_Width bits each), then the E
// exception rows (bitlen(n - 1) bits each) and the E exception high parts
// (Exception_Width bits each). The stream starts at a word boundary, so every
// SLAP position rule of §8.5 applies to it unchanged, counted from the first
// word after the seeds.
#pragma once

#include <cstdint>

#include "format/layout.hpp"

namespace l3::internal {

/// spec §8.9 parameter word 1, `Exceptions`: Num_Exceptions in bits 0..31,
/// Exception_Width in bits 32..39, bits 40..63 zero.
struct DeltaExceptions {
  uint32_t count = 0;  // E
  uint32_t width = 0;  // hw
};

L3_HD DeltaExceptions UnpackDeltaExceptions(uint64_t word) {
  DeltaExceptions e;
  e.count = static_cast<uint32_t>(word & 0xFFFFFFFFull);
  e.width = static_cast<uint32_t>((word >> 32) & 0xFF);
  return e;
}

L3_HD uint64_t PackDeltaExceptions(uint32_t count, uint32_t width) {
  return uint64_t{count} | (uint64_t{width} << 32);
}

/// spec §8.9: the `Exceptions` word is valid for a partition of n rows,
/// Bit_Width w and N-bit values: no reserved bit set, E <= n, Exception_Width
/// 0 exactly when E = 0, and w + Exception_Width <= N.
L3_HD bool DeltaExceptionsValid(uint64_t word, uint64_t n, uint32_t w, uint32_t bits) {
  const DeltaExceptions e = UnpackDeltaExceptions(word);
  if ((word >> 40) != 0 || e.count > n) return false;
  if ((e.count == 0) != (e.width == 0)) return false;
  return w + e.width <= bits;
}

/// spec §8.9: Seed words of a DELTA partition of `n` rows, one per tile.
L3_HD uint64_t DeltaSeedWords(uint64_t n, uint32_t values_per_lane) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  return (n + tile_rows - 1) / tile_rows;
}

/// Stream bits of the exception rows and high parts: E * (bitlen(n - 1) + hw).
L3_HD uint64_t DeltaExceptionBits(uint64_t n, DeltaExceptions e) {
  return uint64_t{e.count} * (RunStartBits(n) + e.width);
}

/// spec §8.9: payload_words(p) = ceil_div(n, S) + ceil_div(n*w + E*(pb + hw), 64).
L3_HD uint64_t DeltaPayloadWords(uint64_t n, uint32_t w, uint32_t values_per_lane,
                                 DeltaExceptions e) {
  return DeltaSeedWords(n, values_per_lane) + (n * w + DeltaExceptionBits(n, e) + 63) / 64;
}

}  // namespace l3::internal
