// PATCHED_FOR (spec §8.12): the payload geometry shared by the CPU reference
// decoder, the writer and the CUDA backend.
//
// A PATCHED_FOR partition's payload is one bit stream: the SLAP fields of its
// n rows (Bit_Width bits each, at the positions of a FOR_BITPACK partition,
// spec §8.5), then the E exception rows, then the E exception high parts
// (Exception_Width bits each). The rows are fixed-width fields of bitlen(n -
// 1) bits, or with Rows_EF the Elias-Fano code of §8.11 (E low parts of l
// bits, then the high part H of H_n bits). The `Exceptions` parameter word is
// DELTA's (spec §8.9) plus the flag Rows_EF, so its packing is shared with
// delta_layout.hpp.
#pragma once

#include <cstdint>

#include "codec/delta/delta_layout.hpp"
#include "format/layout.hpp"

namespace l3::internal {

/// spec §8.12: a partition whose exception rows are Rows_EF has at most this
/// many rows (the bound of RUNS_EF, §8.11).
inline constexpr uint64_t kPatchedRowsEfMaxRows = 65536;

/// spec §8.12: the `Exceptions` word of a PATCHED_FOR partition of n rows,
/// Bit_Width w and N-bit values is valid: DELTA's rules (spec §8.9) with
/// Rows_EF allowed in bit 41, bits 42..63 zero, and Rows_EF only with E >= 1
/// and n <= 65536.
/// (The feature bit PATCHED_ROWS_EF is checked with the partition table.)
L3_HD bool PatchedForExceptionsValid(uint64_t word, uint64_t n, uint32_t w, uint32_t bits) {
  const DeltaExceptions e = UnpackDeltaExceptions(word);
  if ((word >> 42) != 0) return false;  // DELTA's Extra_Orders is not PATCHED_FOR's
  if (e.rows_ef && (e.count == 0 || n > kPatchedRowsEfMaxRows)) return false;
  return DeltaExceptionsValid(word & ~(uint64_t{1} << 41), n, w, bits);
}

/// Where the exception lists of a PATCHED_FOR partition lie in its stream
/// (spec §8.12). Fixed-width rows: row i at rows_bit + i * row_bits. Rows_EF:
/// low part i at rows_bit + i * low_bits, then H (high_bits = H_n bits) at
/// h_bit. High part i at highs_bit + i * width either way.
struct PatchedForExceptionLayout {
  uint64_t rows_bit = 0;   // n * w
  uint32_t row_bits = 0;   // pb = bitlen(n - 1) (fixed-width rows)
  uint32_t low_bits = 0;   // l = bitlen(floor(n / E)) - 1 (Rows_EF)
  uint64_t h_bit = 0;      // stream bit of H (Rows_EF)
  uint64_t high_bits = 0;  // H_n = E + floor((n - 1) / 2^l) (Rows_EF)
  uint64_t highs_bit = 0;  // n * w + RB
};

/// The rows' bits RB of E exceptions among n rows (spec §8.12): E * pb, or
/// with Rows_EF E * l + H_n. Precondition for Rows_EF: 1 <= E <= n.
L3_HD uint64_t PatchedForRowListBits(uint64_t n, uint64_t count, bool rows_ef) {
  if (!rows_ef) return count * RunStartBits(n);
  const uint32_t l = BitLength(n / count) - 1;
  return count * l + count + ((n - 1) >> l);
}

/// The writer's choice of row coding (spec §8.12, §14): the bits of E
/// exception rows among n rows, fixed-width (E * pb) or, where
/// `allow_rows_ef`, 1 <= E, n <= 65536 and it is strictly smaller, Rows_EF
/// (*rows_ef, when given, says which). Shared with the CUDA writer.
L3_HD uint64_t CheapestRowListBits(uint64_t n, uint64_t count, bool allow_rows_ef,
                                   bool* rows_ef = nullptr) {
  const uint64_t fixed = count * RunStartBits(n);
  bool ef = false;
  uint64_t bits = fixed;
  if (allow_rows_ef && count >= 1 && n <= kPatchedRowsEfMaxRows) {
    const uint64_t ef_bits = PatchedForRowListBits(n, count, true);
    ef = ef_bits < fixed;
    bits = ef ? ef_bits : fixed;
  }
  if (rows_ef != nullptr) *rows_ef = ef;
  return bits;
}

/// A lower bound of CheapestRowListBits(n, E', allow_rows_ef) over every E'
/// in [count, n], for the fit's cost bound. E * pb grows with E; E * l + H_n
/// = E (l + 1) + floor((n - 1) / 2^l) grows with E while l stays, and l
/// falls as E grows, so its least value from E on is at E itself or at the
/// first E' of each smaller l, floor(n / 2^(l' + 1)) + 1.
L3_HD uint64_t RowListBitsLowerBound(uint64_t n, uint64_t count, bool allow_rows_ef) {
  if (count == 0) return 0;
  const uint64_t fixed = count * RunStartBits(n);
  if (!allow_rows_ef || n > kPatchedRowsEfMaxRows || count > n) return fixed;
  uint64_t least = PatchedForRowListBits(n, count, true);
  const uint32_t l = BitLength(n / count) - 1;
  for (uint32_t smaller = 0; smaller < l; ++smaller) {
    const uint64_t first = (n >> (smaller + 1)) + 1;
    if (first > count && first <= n) {
      const uint64_t bits = PatchedForRowListBits(n, first, true);
      least = bits < least ? bits : least;
    }
  }
  return least < fixed ? least : fixed;
}

/// Precondition: PatchedForExceptionsValid(word of e, n, w, N).
L3_HD PatchedForExceptionLayout MakePatchedForExceptionLayout(uint64_t n, uint32_t w,
                                                              DeltaExceptions e) {
  PatchedForExceptionLayout g;
  g.rows_bit = n * w;
  g.row_bits = RunStartBits(n);
  if (e.rows_ef) {
    g.low_bits = BitLength(n / e.count) - 1;
    g.h_bit = g.rows_bit + uint64_t{e.count} * g.low_bits;
    g.high_bits = e.count + ((n - 1) >> g.low_bits);
  }
  g.highs_bit = g.rows_bit + PatchedForRowListBits(n, e.count, e.rows_ef);
  return g;
}

/// Stream bits of the exception rows and high parts: RB + E * hw.
L3_HD uint64_t PatchedForExceptionBits(uint64_t n, DeltaExceptions e) {
  return e.count == 0 ? 0
                      : PatchedForRowListBits(n, e.count, e.rows_ef) + uint64_t{e.count} * e.width;
}

/// spec §8.12: payload_words(p) = ceil_div(n * w + RB + E * hw, 64).
L3_HD uint64_t PatchedForPayloadWords(uint64_t n, uint32_t w, DeltaExceptions e) {
  return (n * w + PatchedForExceptionBits(n, e) + 63) / 64;
}

}  // namespace l3::internal
