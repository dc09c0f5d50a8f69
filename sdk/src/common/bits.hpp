// Bit-level helpers shared by the CPU reference and the CUDA backend.
// Header-only; every function is usable on the host and, under nvcc, on the
// device.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define L3_HD __host__ __device__ __forceinline__
#else
#define L3_HD inline
#endif

namespace l3::internal {

/// Number of bits needed to write `u` (spec §1): bitlen(0) = 0.
L3_HD uint32_t BitLength(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return 64u - static_cast<uint32_t>(__clzll(static_cast<long long>(u)));
#else
  return u == 0 ? 0u : 64u - static_cast<uint32_t>(__builtin_clzll(u));
#endif
}

/// A mask of the low `w` bits, for 0 <= w <= 64.
L3_HD uint64_t LowMask(uint32_t w) { return w >= 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1); }

/// Sign-extends the low `w` bits of `u` (1 <= w <= 64); 0 for w = 0.
L3_HD int64_t SignExtend(uint64_t u, uint32_t w) {
  if (w == 0) return 0;
  if (w >= 64) return static_cast<int64_t>(u);
  const uint64_t sign = uint64_t{1} << (w - 1);
  u &= LowMask(w);
  return static_cast<int64_t>((u ^ sign) - sign);
}

/// The smallest width w such that `r` is in [-2^(w-1), 2^(w-1) - 1]
/// (0 for r = 0). spec §8.8 rule 1.
L3_HD uint32_t SignedWidth(int64_t r) {
  if (r == 0) return 0;
  const uint64_t mag = r < 0 ? ~static_cast<uint64_t>(r) : static_cast<uint64_t>(r);
  return BitLength(mag) + 1;
}

/// Canonical extension (spec §8.2) of the low `bits` bits of `u` for a signed
/// (sign-extend) or unsigned (zero-extend) type of `bits` bits.
L3_HD uint64_t CanonicalExtend(uint64_t u, uint32_t bits, bool is_signed) {
  return is_signed ? static_cast<uint64_t>(SignExtend(u, bits)) : (u & LowMask(bits));
}

/// Reads a little-endian u64 from an unaligned address (host only).
inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // the SDK requires a little-endian host
}
inline uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint16_t LoadLE16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline void StoreLE64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
inline void StoreLE32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void StoreLE16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

/// Reads the `w`-bit LSB-first field at stream bit `bit_offset` from a stream
/// starting at `base` (spec §8.5). The stream is addressed in 8-byte words;
/// the caller guarantees that the words (bit_offset >> 6) and
/// (bit_offset >> 6) + 1 are readable, which the payload padding of spec §8.6
/// ensures for every field of a validated partition.
inline uint64_t ReadField(const uint8_t* base, uint64_t bit_offset, uint32_t w) {
  if (w == 0) return 0;
  const uint64_t word = bit_offset >> 6;
  const uint32_t shift = static_cast<uint32_t>(bit_offset & 63);
  const uint64_t lo = LoadLE64(base + 8 * word);
  uint64_t v = lo >> shift;
  if (shift + w > 64) v |= LoadLE64(base + 8 * (word + 1)) << (64 - shift);
  return v & LowMask(w);
}

/// ORs the low `w` bits of `value` into a zero-initialised stream at stream bit
/// `bit_offset`. The caller guarantees the two words are writable.
inline void WriteField(uint8_t* base, uint64_t bit_offset, uint32_t w, uint64_t value) {
  if (w == 0) return;
  value &= LowMask(w);
  const uint64_t word = bit_offset >> 6;
  const uint32_t shift = static_cast<uint32_t>(bit_offset & 63);
  StoreLE64(base + 8 * word, LoadLE64(base + 8 * word) | (value << shift));
  if (shift + w > 64) {
    uint8_t* next = base + 8 * (word + 1);
    StoreLE64(next, LoadLE64(next) | (value >> (64 - shift)));
  }
}

}  // namespace l3::internal
