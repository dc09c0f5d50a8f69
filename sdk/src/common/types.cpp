// Value-type helpers of the public API (l3/l3.hpp).
#include <string>

#include "l3/l3.hpp"
#include "l3/version.hpp"

namespace l3 {

const char* LibraryVersion() noexcept { return L3_VERSION_STRING; }

int PhysicalTypeBytes(PhysicalType type) noexcept {
  switch (type) {
    case PhysicalType::kInt8:
    case PhysicalType::kUInt8: return 1;
    case PhysicalType::kInt16:
    case PhysicalType::kUInt16:
    case PhysicalType::kFloat16:
    case PhysicalType::kBFloat16: return 2;
    case PhysicalType::kInt32:
    case PhysicalType::kUInt32:
    case PhysicalType::kFloat32: return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kUInt64:
    case PhysicalType::kFloat64: return 8;
  }
  return 0;
}

bool PhysicalTypeIsSigned(PhysicalType type) noexcept {
  switch (type) {
    case PhysicalType::kInt8:
    case PhysicalType::kInt16:
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: return true;
    default: return false;
  }
}

bool PhysicalTypeIsInteger(PhysicalType type) noexcept {
  const auto v = static_cast<uint8_t>(type);
  return v >= 1 && v <= 8;
}

bool PhysicalTypeIsFloat(PhysicalType type) noexcept {
  const auto v = static_cast<uint8_t>(type);
  return v >= 9 && v <= 12;
}

const char* PhysicalTypeName(PhysicalType type) noexcept {
  switch (type) {
    case PhysicalType::kInt8: return "i8";
    case PhysicalType::kInt16: return "i16";
    case PhysicalType::kInt32: return "i32";
    case PhysicalType::kInt64: return "i64";
    case PhysicalType::kUInt8: return "u8";
    case PhysicalType::kUInt16: return "u16";
    case PhysicalType::kUInt32: return "u32";
    case PhysicalType::kUInt64: return "u64";
    case PhysicalType::kFloat32: return "f32";
    case PhysicalType::kFloat64: return "f64";
    case PhysicalType::kFloat16: return "f16";
    case PhysicalType::kBFloat16: return "bf16";
  }
  return "unknown";
}

Result<PhysicalType> ParsePhysicalType(std::string_view name) {
  struct Alias {
    const char* short_name;
    const char* long_name;
    PhysicalType type;
  };
  static const Alias kAliases[] = {
      {"i8", "int8", PhysicalType::kInt8},       {"i16", "int16", PhysicalType::kInt16},
      {"i32", "int32", PhysicalType::kInt32},    {"i64", "int64", PhysicalType::kInt64},
      {"u8", "uint8", PhysicalType::kUInt8},     {"u16", "uint16", PhysicalType::kUInt16},
      {"u32", "uint32", PhysicalType::kUInt32},  {"u64", "uint64", PhysicalType::kUInt64},
      {"f32", "float32", PhysicalType::kFloat32}, {"f64", "float64", PhysicalType::kFloat64},
      {"f16", "float16", PhysicalType::kFloat16}, {"bf16", "bfloat16", PhysicalType::kBFloat16},
  };
  for (const Alias& a : kAliases) {
    if (name == a.short_name || name == a.long_name) return a.type;
  }
  return Status(StatusCode::kInvalidArgument,
                "unknown type '" + std::string(name) +
                    "' (expected one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 f16 bf16)");
}

const char* ModelTypeName(ModelType model) noexcept {
  switch (model) {
    case ModelType::kConstant: return "CONSTANT";
    case ModelType::kForBitpack: return "FOR_BITPACK";
    case ModelType::kLinear: return "LINEAR";
    case ModelType::kPoly2: return "POLY2";
    case ModelType::kPoly3: return "POLY3";
    case ModelType::kDelta: return "DELTA";
    case ModelType::kRunsEf: return "RUNS_EF";
    case ModelType::kPatchedFor: return "PATCHED_FOR";
  }
  return "UNKNOWN";
}

namespace detail {
Status TypeMismatch(const char* what) {
  return Status(StatusCode::kInvalidArgument,
                std::string(what) + ": C++ value type does not match the column's physical type");
}
}  // namespace detail

}  // namespace l3
