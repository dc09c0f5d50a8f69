// PATCHED_FOR (spec §8.12), the CPU reference decoder's half: range and
// single-row decoding and the exception-row check.
//
// v(x) = (Base + f(x) + h_i * 2^w) mod 2^N for exception row i, else
// (Base + f(x)) mod 2^N: the FOR_BITPACK decoder (with its per-width kernels)
// then one addition per exception in the range, found by binary search.
#pragma once

#include <cstdint>

#include "codec/decode/partition_decoder.hpp"
#include "codec/delta/delta_decode.hpp"
#include "codec/patched/patched_for_layout.hpp"

namespace l3::internal {

/// The exception lists of a PATCHED_FOR partition: those of §8.9, in a stream
/// that starts at the partition's first payload byte (no Seed words).
inline DeltaExceptionReader PatchedForExceptions(const Partition& part) {
  return DeltaExceptionReader(part, part.payload);
}

/// Local rows [lb, le) of a PATCHED_FOR partition; out[0] is local row lb.
/// The exception rows must have passed PatchedForExceptionRowsValid.
template <typename T>
void DecodePatchedForRange(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                           uint64_t le, T* out) {
  DecodeSlapRange<T, static_cast<uint8_t>(Model::kFor)>(part, values_per_lane, lb, le, out);
  const uint32_t w = part.bit_width;
  const DeltaExceptionReader exceptions = PatchedForExceptions(part);
  if (exceptions.count() == 0 || w >= 64) return;  // w + hw <= N: no high bits at w = 64
  using U = std::make_unsigned_t<T>;
  for (uint64_t i = exceptions.LowerBound(lb); i < exceptions.count(); ++i) {
    const uint64_t row = exceptions.Row(i);
    if (row >= le) break;
    out[row - lb] = FromBits<T>(static_cast<U>(out[row - lb]) + (exceptions.High(i) << w));
  }
}

/// Local row x of a PATCHED_FOR partition, mod 2^64 (the caller keeps N
/// bits): its field, plus its high part if a binary search finds x among
/// the exception rows.
inline uint64_t DecodePatchedForValue(const Partition& part, uint32_t values_per_lane,
                                      uint64_t x) {
  const uint32_t w = part.bit_width;
  uint64_t value = LoadLE64(part.params) +
                   LoadField(part.payload,
                             SlapFieldBitOffset(part.num_rows, w, values_per_lane, x), LowMask(w));
  const DeltaExceptionReader exceptions = PatchedForExceptions(part);
  if (exceptions.count() == 0 || w >= 64) return value;
  const uint64_t i = exceptions.LowerBound(x);
  if (i < exceptions.count() && exceptions.Row(i) == x) value += exceptions.High(i) << w;
  return value;
}

/// spec §8.12: the exception rows are strictly increasing and below n
/// (CORRUPT_PAYLOAD otherwise).
inline bool PatchedForExceptionRowsValid(const Partition& part) {
  return PatchedForExceptions(part).RowsValid();
}

/// spec §8.12 writer rules, checked by deep validation (§10.3): every stored
/// high part is nonzero and Exception_Width is the bit length of the
/// largest. (With w + hw <= N, a nonzero h_i gives u(x) >= 2^w, unsigned or
/// with Signed_Highs, so the rows whose u(x) needs more than w bits are then
/// exactly the exception rows.) "" when they hold.
inline const char* PatchedForRuleViolation(const Partition& part) {
  const DeltaExceptionReader exceptions = PatchedForExceptions(part);
  const uint32_t width = UnpackDeltaExceptions(LoadLE64(part.params + 8)).width;
  uint32_t widest = 0;
  for (uint64_t i = 0; i < exceptions.count(); ++i) {
    const uint64_t high = exceptions.StoredHigh(i);
    if (high == 0) return "PATCHED_FOR exception high part is zero";
    widest = BitLength(high) > widest ? BitLength(high) : widest;
  }
  if (widest != width) return "PATCHED_FOR Exception_Width is not bitlen(max high part)";
  return "";
}

/// Bits of a PATCHED_FOR payload that hold fields: the n fields, then the
/// exception rows and high parts (spec §8.12).
inline uint64_t PatchedForUsedBits(const Partition& part) {
  return part.num_rows * part.bit_width +
         DeltaExceptionBits(part.num_rows, UnpackDeltaExceptions(LoadLE64(part.params + 8)));
}

}  // namespace l3::internal
