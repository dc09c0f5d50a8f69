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
/// Exception_Width in bits 32..39, Signed_Highs in bit 40, bit 41 zero,
/// Extra_Orders in bits 42..43 (the order K = 1 + Extra_Orders), bits 44..63
/// zero. PATCHED_FOR's word (spec §8.12) has Rows_EF in bit 41 and bits
/// 42..63 zero.
struct DeltaExceptions {
  uint32_t count = 0;         // E
  uint32_t width = 0;         // hw
  bool signed_highs = false;  // Signed_Highs: high parts stored zigzag-coded
  bool rows_ef = false;       // Rows_EF (PATCHED_FOR only): rows in Elias-Fano code
  uint32_t order = 1;         // K = 1 + Extra_Orders (DELTA only): K-th differences
};

/// spec §8.9: the largest order K of a DELTA partition.
inline constexpr uint32_t kMaxDeltaOrder = 3;

L3_HD DeltaExceptions UnpackDeltaExceptions(uint64_t word) {
  DeltaExceptions e;
  e.count = static_cast<uint32_t>(word & 0xFFFFFFFFull);
  e.width = static_cast<uint32_t>((word >> 32) & 0xFF);
  e.signed_highs = ((word >> 40) & 1) != 0;
  e.rows_ef = ((word >> 41) & 1) != 0;
  e.order = 1 + static_cast<uint32_t>((word >> 42) & 3);
  return e;
}

L3_HD uint64_t PackDeltaExceptions(DeltaExceptions e) {
  return uint64_t{e.count} | (uint64_t{e.width} << 32) |
         (uint64_t{e.signed_highs ? 1u : 0u} << 40) | (uint64_t{e.rows_ef ? 1u : 0u} << 41) |
         (uint64_t{e.order - 1} << 42);
}

/// spec §8.9: the `Exceptions` word is valid for a DELTA partition of n
/// rows, Bit_Width w and N-bit values: no reserved bit set, E <= n,
/// Exception_Width 0 exactly when E = 0, Signed_Highs only with exceptions,
/// w + Exception_Width <= N, and an order K <= 3 below n when K > 1.
L3_HD bool DeltaExceptionsValid(uint64_t word, uint64_t n, uint32_t w, uint32_t bits) {
  const DeltaExceptions e = UnpackDeltaExceptions(word);
  if ((word >> 44) != 0 || e.rows_ef || e.count > n) return false;
  if (e.order > kMaxDeltaOrder || (e.order > 1 && n <= e.order)) return false;
  if ((e.count == 0) != (e.width == 0)) return false;
  if (e.signed_highs && e.count == 0) return false;
  return w + e.width <= bits;
}

/// spec §8.9: the high part h_i that a stored high-part field holds: the
/// field itself, or with Signed_Highs the signed number it zigzag-codes
/// (stored 2k for h = k >= 0, 2k - 1 for h = -k < 0), as its 64-bit two's
/// complement pattern. u(x) = f(x) + h_i * 2^w mod 2^N either way, so
/// decoders add (h_i << w) and keep the low N bits.
L3_HD uint64_t ExceptionHigh(uint64_t stored, bool signed_highs) {
  return signed_highs ? (stored >> 1) ^ (uint64_t{0} - (stored & 1)) : stored;
}

/// The stored high-part field of an exception whose offset is u (N bits,
/// u >> w != 0, w < 64): u >> w, or with Signed_Highs the zigzag code of
/// floor(r / 2^w), r = u read as an N-bit two's complement number.
L3_HD uint64_t StoredExceptionHigh(uint64_t u, uint32_t w, uint32_t bits, bool signed_highs) {
  if (!signed_highs) return u >> w;
  const uint32_t spare = 64 - bits;
  const int64_t r = static_cast<int64_t>(u << spare) >> spare;  // sign-extended
  const int64_t h = r >> w;                                     // floor(r / 2^w)
  return (static_cast<uint64_t>(h) << 1) ^ static_cast<uint64_t>(h >> 63);
}

/// spec §8.9: Seed words of a DELTA partition of `n` rows and order K, K
/// per tile.
L3_HD uint64_t DeltaSeedWords(uint64_t n, uint32_t values_per_lane, uint32_t order) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  return (n + tile_rows - 1) / tile_rows * order;
}

/// Stream bits of DELTA's exception rows and high parts: E * (bitlen(n - 1)
/// + hw) (PATCHED_FOR's, which may be Rows_EF: PatchedForExceptionBits).
L3_HD uint64_t DeltaExceptionBits(uint64_t n, DeltaExceptions e) {
  return uint64_t{e.count} * (RunStartBits(n) + e.width);
}

/// spec §8.9: payload_words(p) = K ceil_div(n, S) + ceil_div(n*w + E*(pb + hw), 64).
L3_HD uint64_t DeltaPayloadWords(uint64_t n, uint32_t w, uint32_t values_per_lane,
                                 DeltaExceptions e) {
  return DeltaSeedWords(n, values_per_lane, e.order) +
         (n * w + DeltaExceptionBits(n, e) + 63) / 64;
}

}  // namespace l3::internal
