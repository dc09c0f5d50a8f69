// Integer helpers of the writer, one instantiation per physical type. They
// implement the "modulo 2^N" and "numeric order" arithmetic of spec §1, §8.3
// and §8.8 for a C++ value type T.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "common/bits.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

template <typename T>
struct ValueTraits {
  static_assert(std::is_integral<T>::value, "integer columns only");
  using Unsigned = std::make_unsigned_t<T>;
  using Signed = std::make_signed_t<T>;
  static constexpr uint32_t kBits = 8 * sizeof(T);
  static constexpr bool kSigned = std::is_signed<T>::value;

  /// The value's canonical extension (spec §8.2).
  static L3_HD uint64_t Canonical(T v) {
    if constexpr (kSigned) {
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      return static_cast<uint64_t>(v);
    }
  }

  /// (a - b) mod 2^N as an unsigned N-bit number: the FOR offset of spec §8.3
  /// and the width argument of spec §8.8 rule 2 when a >= b.
  static L3_HD uint64_t Offset(T a, T b) {
    return static_cast<Unsigned>(static_cast<Unsigned>(a) - static_cast<Unsigned>(b));
  }

  /// spec §8.8 rule 1: r = (v - pred) mod 2^N read as N-bit two's complement.
  static L3_HD int64_t Residual(T v, int64_t pred) {
    const auto d = static_cast<Unsigned>(static_cast<Unsigned>(v) - static_cast<Unsigned>(pred));
    return static_cast<int64_t>(static_cast<Signed>(d));
  }

  /// spec §8.8 rule 3: LINEAR/POLY2/POLY3 are allowed for every 8/16/32-bit
  /// value and for 64-bit values with |v| <= 2^53.
  static L3_HD bool Predictable(T v) {
    if constexpr (kBits < 64) {
      return true;
    } else {
      constexpr T kLimit = static_cast<T>(uint64_t{1} << 53);
      if constexpr (kSigned) return v <= kLimit && v >= -kLimit;
      else return v <= kLimit;
    }
  }
};

/// The integer physical type of the C++ type T (the inverse of
/// DispatchIntegerType).
template <typename T>
constexpr PhysicalType PhysicalTypeOf() {
  static_assert(std::is_integral<T>::value && sizeof(T) <= 8, "integer columns only");
  if constexpr (std::is_same_v<T, int8_t>) return PhysicalType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return PhysicalType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return PhysicalType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return PhysicalType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return PhysicalType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return PhysicalType::kUInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return PhysicalType::kUInt32;
  return PhysicalType::kUInt64;
}

/// Calls `fn(T{})` with the C++ type of an integer physical type. Returns
/// false for a type that is not an integer type.
template <typename Fn>
bool DispatchIntegerType(PhysicalType type, Fn&& fn) {
  switch (type) {
    case PhysicalType::kInt8: fn(int8_t{}); return true;
    case PhysicalType::kInt16: fn(int16_t{}); return true;
    case PhysicalType::kInt32: fn(int32_t{}); return true;
    case PhysicalType::kInt64: fn(int64_t{}); return true;
    case PhysicalType::kUInt8: fn(uint8_t{}); return true;
    case PhysicalType::kUInt16: fn(uint16_t{}); return true;
    case PhysicalType::kUInt32: fn(uint32_t{}); return true;
    case PhysicalType::kUInt64: fn(uint64_t{}); return true;
    default: return false;
  }
}

}  // namespace l3::internal
