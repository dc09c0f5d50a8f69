// The order-preserving map of float bit patterns to unsigned integers
// (spec §11.2.2): the integer form of a float chunk stores u = Ordered(f).
// Header-only; host and device.
#pragma once

#include <cstdint>

#include "common/bits.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

/// spec §11.2.2: u = f | sign if f's sign bit is clear, else ~f. `U` is the
/// unsigned type of the float's width (uint16_t, uint32_t, uint64_t).
template <typename U>
L3_HD U OrderedFromFloatBits(U f) {
  constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
  return (f & kSign) ? static_cast<U>(~f) : static_cast<U>(f | kSign);
}

/// The inverse: f = u & ~sign if u's top bit is set, else ~u.
template <typename U>
L3_HD U FloatBitsFromOrdered(U u) {
  constexpr U kSign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
  return (u & kSign) ? static_cast<U>(u & static_cast<U>(~kSign)) : static_cast<U>(~u);
}

/// The type an integer-form chunk codes (spec §11.2.2): the unsigned type
/// of a float type's width; an integer type is returned unchanged.
PhysicalType IntegerFormType(PhysicalType type);

/// Maps `count` values of `value_bytes` bytes (2, 4 or 8) in place, in either
/// direction.
void OrderedFromFloatInPlace(void* values, uint64_t count, int value_bytes);
void FloatFromOrderedInPlace(void* values, uint64_t count, int value_bytes);

}  // namespace l3::internal
