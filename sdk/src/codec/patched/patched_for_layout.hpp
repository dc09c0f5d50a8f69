// PATCHED_FOR (spec §8.12): the payload geometry shared by the CPU reference
// decoder, the writer and the CUDA backend.
//
// A PATCHED_FOR partition's payload is one bit stream: the SLAP fields of its
// n rows (Bit_Width bits each, at the positions of a FOR_BITPACK partition,
// spec §8.5), then the E exception rows (bitlen(n - 1) bits each) and the E
// exception high parts (Exception_Width bits each). The `Exceptions`
// parameter word is DELTA's (spec §8.9), so its packing and checks are
// shared with delta_layout.hpp.
#pragma once

#include <cstdint>

#include "codec/delta/delta_layout.hpp"
#include "format/layout.hpp"

namespace l3::internal {

/// spec §8.12: payload_words(p) = ceil_div(n * w + E * (pb + hw), 64).
L3_HD uint64_t PatchedForPayloadWords(uint64_t n, uint32_t w, DeltaExceptions e) {
  return (n * w + DeltaExceptionBits(n, e) + 63) / 64;
}

/// Stream bit of exception row i, and of exception high part i (spec §8.12).
L3_HD uint64_t PatchedForRowBit(uint64_t n, uint32_t w, uint64_t i) {
  return n * w + i * RunStartBits(n);
}
L3_HD uint64_t PatchedForHighBit(uint64_t n, uint32_t w, DeltaExceptions e, uint64_t i) {
  return n * w + uint64_t{e.count} * RunStartBits(n) + i * e.width;
}

}  // namespace l3::internal
