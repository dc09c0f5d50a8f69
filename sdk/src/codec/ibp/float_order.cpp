// spec §11.2.2: the integer form's value map, over arrays.
#include "codec/ibp/float_order.hpp"

#include <cstring>

namespace l3::internal {
namespace {

template <typename U, bool kToOrdered>
void MapArray(void* values, uint64_t count) {
  // memcpy per value: the caller's buffer need not be aligned to U.
  uint8_t* p = static_cast<uint8_t*>(values);
  for (uint64_t i = 0; i < count; ++i, p += sizeof(U)) {
    U v;
    std::memcpy(&v, p, sizeof(U));
    v = kToOrdered ? OrderedFromFloatBits(v) : FloatBitsFromOrdered(v);
    std::memcpy(p, &v, sizeof(U));
  }
}

template <bool kToOrdered>
void Map(void* values, uint64_t count, int value_bytes) {
  switch (value_bytes) {
    case 2: MapArray<uint16_t, kToOrdered>(values, count); break;
    case 4: MapArray<uint32_t, kToOrdered>(values, count); break;
    case 8: MapArray<uint64_t, kToOrdered>(values, count); break;
    default: break;
  }
}

}  // namespace

PhysicalType IntegerFormType(PhysicalType type) {
  switch (type) {
    case PhysicalType::kFloat16:
    case PhysicalType::kBFloat16: return PhysicalType::kUInt16;
    case PhysicalType::kFloat32: return PhysicalType::kUInt32;
    case PhysicalType::kFloat64: return PhysicalType::kUInt64;
    default: return type;
  }
}

void OrderedFromFloatInPlace(void* values, uint64_t count, int value_bytes) {
  Map<true>(values, count, value_bytes);
}
void FloatFromOrderedInPlace(void* values, uint64_t count, int value_bytes) {
  Map<false>(values, count, value_bytes);
}

}  // namespace l3::internal
