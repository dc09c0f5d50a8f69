#include "common/values.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace l3::cli {
namespace {

int Bits(PhysicalType type) { return 8 * PhysicalTypeBytes(type); }

template <typename T>
void AppendTyped(std::string* out, const void* data, size_t index) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(data) + index * sizeof(T), sizeof(T));
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr);
}

}  // namespace

ParseIntError ParseInteger(std::string_view text, ParsedInt* out) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  // An integral decimal: digits, then optionally '.' and only zeros.
  size_t dot = text.find('.');
  std::string_view digits = text.substr(0, dot);
  if (dot != std::string_view::npos) {
    for (char c : text.substr(dot + 1)) {
      if (c != '0') return ParseIntError::kNotInteger;
    }
  }
  if (digits.empty()) return ParseIntError::kNotInteger;
  uint64_t magnitude = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') return ParseIntError::kNotInteger;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (magnitude > (UINT64_MAX - d) / 10) overflow = true;
    magnitude = magnitude * 10 + d;
  }
  if (overflow) return ParseIntError::kOutOfRange;
  if (negative && magnitude != 0) {
    if (magnitude > (uint64_t{1} << 63)) return ParseIntError::kOutOfRange;
    out->bits = ~magnitude + 1;
    out->negative = true;
  } else {
    out->bits = magnitude;
    out->negative = false;
  }
  return ParseIntError::kOk;
}

bool Fits(ParsedInt v, PhysicalType type) {
  int bits = Bits(type);
  if (PhysicalTypeIsSigned(type)) {
    if (v.negative) {
      int64_t s = static_cast<int64_t>(v.bits);
      return bits == 64 || s >= -(int64_t{1} << (bits - 1));
    }
    return v.bits <= (uint64_t{1} << (bits - 1)) - 1;
  }
  if (v.negative) return false;
  return bits == 64 || v.bits <= (uint64_t{1} << bits) - 1;
}

std::string TypeRangeText(PhysicalType type) {
  int bits = Bits(type);
  if (PhysicalTypeIsSigned(type)) {
    uint64_t max = (uint64_t{1} << (bits - 1)) - 1;
    return "[-" + std::to_string(max + 1) + ", " + std::to_string(max) + "]";
  }
  uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  return "[0, " + std::to_string(max) + "]";
}

std::string ParsedIntText(ParsedInt v) {
  return v.negative ? std::to_string(static_cast<int64_t>(v.bits)) : std::to_string(v.bits);
}

void ValueStats::Add(ParsedInt v) {
  if (v.negative) {
    int64_t s = static_cast<int64_t>(v.bits);
    if (!any_negative || s < min_negative) min_negative = s;
    any_negative = true;
  } else if (v.bits > max_nonnegative) {
    max_nonnegative = v.bits;
  }
}

bool InferType(const ValueStats& stats, InferMode mode, PhysicalType* type) {
  constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;  // the first value past i64
  if (stats.any_negative && stats.max_nonnegative >= kTwoTo63) return false;
  if (mode == InferMode::kWide) {
    *type = stats.max_nonnegative >= kTwoTo63 ? PhysicalType::kUInt64 : PhysicalType::kInt64;
    return true;
  }
  static const PhysicalType kSigned[] = {PhysicalType::kInt8, PhysicalType::kInt16,
                                         PhysicalType::kInt32, PhysicalType::kInt64};
  static const PhysicalType kUnsigned[] = {PhysicalType::kUInt8, PhysicalType::kUInt16,
                                           PhysicalType::kUInt32, PhysicalType::kUInt64};
  const PhysicalType* candidates = stats.any_negative ? kSigned : kUnsigned;
  for (int i = 0; i < 4; ++i) {
    PhysicalType t = candidates[i];
    bool fits = Fits(ParsedInt{stats.max_nonnegative, false}, t);
    if (stats.any_negative) {
      fits = fits && Fits(ParsedInt{static_cast<uint64_t>(stats.min_negative), true}, t);
    }
    if (fits) {
      *type = t;
      return true;
    }
  }
  return false;
}

void NarrowWords(const uint64_t* words, size_t count, PhysicalType type, void* out) {
  auto* dst = static_cast<uint8_t*>(out);
  switch (PhysicalTypeBytes(type)) {
    case 1:
      for (size_t i = 0; i < count; ++i) dst[i] = static_cast<uint8_t>(words[i]);
      break;
    case 2:
      for (size_t i = 0; i < count; ++i) {
        uint16_t v = static_cast<uint16_t>(words[i]);
        std::memcpy(dst + 2 * i, &v, 2);
      }
      break;
    case 4:
      for (size_t i = 0; i < count; ++i) {
        uint32_t v = static_cast<uint32_t>(words[i]);
        std::memcpy(dst + 4 * i, &v, 4);
      }
      break;
    default:
      std::memcpy(dst, words, count * 8);
      break;
  }
}

namespace {

// binary16 / bfloat16 to binary32, exactly (every such value is a float).
float HalfToFloat(uint16_t h, bool bfloat) {
  uint32_t bits = 0;
  if (bfloat) {
    bits = uint32_t{h} << 16;
  } else {
    const uint32_t sign = uint32_t{h & 0x8000u} << 16;
    const uint32_t exp = (h >> 10) & 0x1F;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0x1F) {
      bits = sign | 0x7F800000u | (mant << 13);
    } else if (exp != 0) {
      bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename F>
void AppendFloat(std::string* out, F value) {
  if (std::isnan(value)) {
    out->append(std::signbit(value) ? "-nan" : "nan");
    return;
  }
  char buffer[64];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, r.ptr);
}

}  // namespace

bool ParseFloatBits(std::string_view text, PhysicalType type, uint64_t* bits) {
  if (text.empty() || text.size() > 512) return false;
  const std::string copy(text);
  const char* begin = copy.c_str();
  char* end = nullptr;
  errno = 0;
  if (type == PhysicalType::kFloat32) {
    const float f = std::strtof(begin, &end);
    if (end != begin + copy.size()) return false;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    *bits = b;
    return true;
  }
  if (type == PhysicalType::kFloat64) {
    const double d = std::strtod(begin, &end);
    if (end != begin + copy.size()) return false;
    std::memcpy(bits, &d, 8);
    return true;
  }
  return false;
}

void AppendValue(std::string* out, const void* data, size_t index, PhysicalType type) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  switch (type) {
    case PhysicalType::kFloat32: {
      float f;
      std::memcpy(&f, bytes + 4 * index, 4);
      return AppendFloat(out, f);
    }
    case PhysicalType::kFloat64: {
      double d;
      std::memcpy(&d, bytes + 8 * index, 8);
      return AppendFloat(out, d);
    }
    case PhysicalType::kFloat16:
    case PhysicalType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * index, 2);
      return AppendFloat(out, HalfToFloat(h, type == PhysicalType::kBFloat16));
    }
    default: break;
  }
  switch (type) {
    case PhysicalType::kInt8: return AppendTyped<int8_t>(out, data, index);
    case PhysicalType::kInt16: return AppendTyped<int16_t>(out, data, index);
    case PhysicalType::kInt32: return AppendTyped<int32_t>(out, data, index);
    case PhysicalType::kInt64: return AppendTyped<int64_t>(out, data, index);
    case PhysicalType::kUInt8: return AppendTyped<uint8_t>(out, data, index);
    case PhysicalType::kUInt16: return AppendTyped<uint16_t>(out, data, index);
    case PhysicalType::kUInt32: return AppendTyped<uint32_t>(out, data, index);
    case PhysicalType::kUInt64: return AppendTyped<uint64_t>(out, data, index);
    default: out->append("?"); return;
  }
}

void AppendValues(std::string* out, const void* data, size_t count, PhysicalType type,
                  char terminator) {
  for (size_t i = 0; i < count; ++i) {
    AppendValue(out, data, i, type);
    out->push_back(terminator);
  }
}

std::string CanonicalWordText(uint64_t word, PhysicalType type) {
  if (PhysicalTypeIsSigned(type)) return std::to_string(static_cast<int64_t>(word));
  return std::to_string(word);
}

}  // namespace l3::cli
