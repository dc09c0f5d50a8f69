// The algebra behind combining CRC32C values (common/crc32c.hpp), usable on
// the host and on the device.
//
// A CRC register holds a polynomial over GF(2) of degree < 32, reduced modulo
// the Castagnoli polynomial P. In the reflected form of crc32c.cpp bit 31 is
// the coefficient of x^0 and bit 0 that of x^31. Feeding one zero bit into
// the register multiplies it by x (shift right; when x^31's bit falls out,
// add P's low terms, 0x82F63B78), so feeding n zero bytes multiplies it by
// x^(8n) mod P.
//
// Let R(s, M) be the register after feeding M into state s (no inversions).
// R is linear in (s, M) jointly, so with the pre- and post-inversion of
// Crc32c:
//   crc(A || B) = R(crc(A), zeros(|B|)) ^ crc(B) = Crc32cShift(crc(A), |B|) ^ crc(B).
// Likewise, for the uninverted register of zero start R0(M) = R(0, M),
//   crc(M) = R0(M) ^ ~Crc32cShift(0xFFFFFFFF, |M|),
// and R0 of a concatenation is the XOR of each piece's R0 shifted by the
// number of bytes after it. The device CRC (common/crc32c.cuh) computes the
// pieces in parallel and adds them up that way.
#pragma once

#include <cstdint>

#include "common/bits.hpp"

namespace l3::internal {

/// The reflected low terms of the Castagnoli polynomial.
inline constexpr uint32_t kCrc32cPolyReflected = 0x82F63B78u;
/// The polynomial 1 (x^0) in the reflected form.
inline constexpr uint32_t kCrc32cOne = 0x80000000u;

/// a(x) * b(x) mod P, both in the reflected form.
L3_HD constexpr uint32_t Crc32cMultiply(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  // Walk a's coefficients from x^0 up while b runs through b * x^i.
  for (uint32_t bit = kCrc32cOne; bit != 0; bit >>= 1) {
    if (a & bit) product ^= b;
    b = (b & 1u) ? (b >> 1) ^ kCrc32cPolyReflected : b >> 1;
  }
  return product;
}

/// x^(8 * 2^k) mod P for k = 0..63: multiplying by entry k shifts a register
/// by 2^k zero bytes.
struct Crc32cPowerTable {
  uint32_t power[64];
};

L3_HD constexpr Crc32cPowerTable MakeCrc32cPowerTable() {
  Crc32cPowerTable table{};
  uint32_t p = kCrc32cOne >> 8;  // x^8
  for (int k = 0; k < 64; ++k) {
    table.power[k] = p;
    p = Crc32cMultiply(p, p);
  }
  return table;
}

/// x^(8 * bytes) mod P from a power table (one multiplication per set bit).
L3_HD constexpr uint32_t Crc32cZerosOperator(uint64_t bytes, const Crc32cPowerTable& table) {
  uint32_t result = kCrc32cOne;
  for (int k = 0; bytes != 0; ++k, bytes >>= 1) {
    if (bytes & 1) result = Crc32cMultiply(result, table.power[k]);
  }
  return result;
}

/// x^(8 * bytes) mod P without a table (square and multiply).
L3_HD constexpr uint32_t Crc32cZerosOperator(uint64_t bytes) {
  uint32_t result = kCrc32cOne;
  uint32_t p = kCrc32cOne >> 8;  // x^(8 * 2^k) at step k
  for (; bytes != 0; bytes >>= 1) {
    if (bytes & 1) result = Crc32cMultiply(result, p);
    p = Crc32cMultiply(p, p);
  }
  return result;
}

/// The register `crc` after feeding `bytes` zero bytes (no inversions).
L3_HD constexpr uint32_t Crc32cShift(uint32_t crc, uint64_t bytes) {
  return Crc32cMultiply(crc, Crc32cZerosOperator(bytes));
}

/// Crc32c(0, A || B) from crc_a = Crc32c(0, A), crc_b = Crc32c(0, B) and
/// len_b = |B|. Either part may be empty (the CRC of nothing is 0).
L3_HD constexpr uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return Crc32cShift(crc_a, len_b) ^ crc_b;
}

/// The term that turns the zero-start, uninverted register of an
/// `bytes`-byte message into its Crc32c: ~Crc32cShift(0xFFFFFFFF, bytes).
L3_HD constexpr uint32_t Crc32cInversionTerm(uint64_t bytes) {
  return ~Crc32cShift(0xFFFFFFFFu, bytes);
}

}  // namespace l3::internal
