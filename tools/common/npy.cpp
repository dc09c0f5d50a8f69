#include "common/npy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/errors.hpp"

namespace l3::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
/// No real header comes near this; it bounds the allocation for a hostile one.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

[[noreturn]] void Bad(const std::string& source, const std::string& what) {
  ThrowBadInput(source + ": " + what);
}

/// A cursor over the header's Python dict literal.
class DictParser {
 public:
  DictParser(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Accept(c)) Fail(std::string("expected '") + c + "'");
  }
  std::string String() {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) Fail("expected a string");
    char quote = s_[pos_++];
    size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) Fail("unterminated string");
    std::string out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  std::string Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::vector<uint64_t> Tuple() {
    std::vector<uint64_t> dims;
    Expect('(');
    while (!Accept(')')) {
      std::string digits = Word();
      if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit) ||
          digits.size() > 19) {
        Fail("bad shape");
      }
      dims.push_back(std::stoull(digits));
      if (!Accept(',')) {
        Expect(')');
        break;
      }
    }
    return dims;
  }
  char Peek() {
    SkipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  [[noreturn]] void Fail(const std::string& what) {
    Bad(source_, "malformed .npy header (" + what + ")");
  }

 private:
  const std::string& s_;
  const std::string& source_;
  size_t pos_ = 0;
};

std::string ShapeText(const std::vector<uint64_t>& dims) {
  if (dims.size() == 1) return "(" + std::to_string(dims[0]) + ",)";
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + ")";
}

}  // namespace

uint64_t NpyPreambleBytes(const std::string& first_bytes, const std::string& source) {
  if (first_bytes.size() < 8 || std::memcmp(first_bytes.data(), kMagic, kMagicBytes) != 0) {
    Bad(source, "not a .npy file (bad magic)");
  }
  auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(first_bytes[i])); };
  uint64_t major = byte(6);
  if (major == 1) {
    if (first_bytes.size() < 10) Bad(source, "truncated .npy header");
    return 10 + (byte(8) | byte(9) << 8);
  }
  if (major == 2 || major == 3) {
    if (first_bytes.size() < 12) Bad(source, "truncated .npy header");
    uint64_t len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    if (len > kMaxHeaderBytes) Bad(source, "implausible .npy header length " + std::to_string(len));
    return 12 + len;
  }
  Bad(source, "unsupported .npy format version " + std::to_string(major) + "." +
                  std::to_string(byte(7)));
}

NpyHeader ParseNpyHeader(const std::string& bytes, const std::string& source) {
  uint64_t preamble = NpyPreambleBytes(bytes, source);
  if (bytes.size() < preamble) Bad(source, "truncated .npy header");
  size_t dict_start = static_cast<uint8_t>(bytes[6]) == 1 ? 10 : 12;
  std::string dict = bytes.substr(dict_start, preamble - dict_start);

  DictParser p(dict, source);
  std::string descr;
  bool have_descr = false, have_order = false, have_shape = false, fortran_order = false;
  std::vector<uint64_t> shape;
  p.Expect('{');
  while (!p.Accept('}')) {
    std::string key = p.String();
    p.Expect(':');
    if (key == "descr") {
      if (p.Peek() != '\'' && p.Peek() != '"') {
        Bad(source, "unsupported dtype: structured arrays are not supported (L3 columns are "
                    "integers i1..i8, u1..u8 or floats f2, f4, f8)");
      }
      descr = p.String();
      have_descr = true;
    } else if (key == "fortran_order") {
      std::string word = p.Word();
      if (word != "True" && word != "False") p.Fail("fortran_order is not True or False");
      fortran_order = word == "True";
      have_order = true;
    } else if (key == "shape") {
      shape = p.Tuple();
      have_shape = true;
    } else {
      p.Fail("unknown key '" + key + "'");
    }
    if (!p.Accept(',')) {
      p.Expect('}');
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape) p.Fail("missing descr, fortran_order or shape");

  NpyHeader header;
  header.data_offset = preamble;
  // descr: byte-order character, kind, item size ("<i4", "|u1", ">u8").
  std::string body = descr;
  char order = '=';
  if (!body.empty() && std::strchr("<>|=", body[0]) != nullptr) {
    order = body[0];
    body.erase(0, 1);
  }
  static const struct {
    const char* code;
    PhysicalType type;
  } kTypes[] = {{"i1", PhysicalType::kInt8},   {"i2", PhysicalType::kInt16},
                {"i4", PhysicalType::kInt32},  {"i8", PhysicalType::kInt64},
                {"u1", PhysicalType::kUInt8},  {"u2", PhysicalType::kUInt16},
                {"u4", PhysicalType::kUInt32}, {"u8", PhysicalType::kUInt64},
                {"f2", PhysicalType::kFloat16}, {"f4", PhysicalType::kFloat32},
                {"f8", PhysicalType::kFloat64}};
  bool known = false;
  for (const auto& t : kTypes) {
    if (body == t.code) {
      header.type = t.type;
      known = true;
    }
  }
  if (!known) {
    Bad(source, "unsupported dtype '" + descr +
                    "' (L3 columns are integers i1..i8, u1..u8 or floats f2, f4, f8)");
  }
  header.big_endian = order == '>' && PhysicalTypeBytes(header.type) > 1;
  // A 2-D float array [rows, R] is a tensor column of row width R (spec
  // §11.2.1), stored row-major.
  const bool is_float = PhysicalTypeIsFloat(header.type);
  if (shape.size() == 2 && is_float) {
    if (fortran_order) Bad(source, "a 2-D array in Fortran order (save it C-contiguous)");
    if (shape[1] < 1 || shape[1] > (uint64_t{1} << 24)) {
      Bad(source, "rows of " + std::to_string(shape[1]) + " values (1..2^24 per row)");
    }
    if (shape[0] > UINT64_MAX / shape[1]) Bad(source, "array of shape " + ShapeText(shape) + " is too large");
    header.row_width = static_cast<uint32_t>(shape[1]);
    header.num_values = shape[0] * shape[1];
    return header;
  }
  if (shape.size() != 1) {
    Bad(source, "array of shape " + ShapeText(shape) +
                    (is_float ? " has more than two dimensions"
                              : " is not one-dimensional (only float arrays may have rows)"));
  }
  (void)fortran_order;  // one-dimensional arrays are laid out the same either way
  header.num_values = shape[0];
  return header;
}

NpyHeader ReadNpyHeader(std::FILE* file, const std::string& source) {
  std::string bytes(12, '\0');
  size_t got = std::fread(bytes.data(), 1, bytes.size(), file);
  if (got < bytes.size() && std::ferror(file)) ThrowIo("cannot read " + source, errno);
  bytes.resize(got);
  uint64_t preamble = NpyPreambleBytes(bytes, source);
  if (preamble > bytes.size()) {
    size_t old = bytes.size();
    bytes.resize(preamble);
    size_t more = std::fread(bytes.data() + old, 1, preamble - old, file);
    if (more < preamble - old) {
      if (std::ferror(file)) ThrowIo("cannot read " + source, errno);
      Bad(source, "truncated .npy header");
    }
  } else if (preamble < bytes.size()) {
    // A 1.0 preamble shorter than the 12 bytes read: impossible in practice
    // (NumPy pads to 64), but seek back so the data starts where it should.
    if (std::fseek(file, static_cast<long>(preamble), SEEK_SET) != 0) {
      Bad(source, ".npy header too short");
    }
  }
  return ParseNpyHeader(bytes, source);
}

std::string NpyDescr(PhysicalType type) {
  int bytes = PhysicalTypeBytes(type);
  std::string out = bytes == 1 ? "|" : "<";
  out += PhysicalTypeIsFloat(type) ? 'f' : PhysicalTypeIsSigned(type) ? 'i' : 'u';
  out += std::to_string(bytes);
  return out;
}

std::string MakeNpyHeader(PhysicalType type, uint64_t num_rows, uint32_t row_width) {
  const std::string shape = row_width > 1
                                ? std::to_string(num_rows) + ", " + std::to_string(row_width)
                                : std::to_string(num_rows) + ",";
  std::string dict = "{'descr': '" + NpyDescr(type) + "', 'fortran_order': False, 'shape': (" +
                     shape + "), }";
  // NumPy pads the preamble (magic, version, length, dict, newline) to a
  // multiple of 64 bytes so the data is aligned.
  size_t unpadded = kMagicBytes + 2 + 2 + dict.size() + 1;
  size_t pad = 64 - unpadded % 64;
  dict.append(pad, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicBytes);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

void ByteSwap(void* data, uint64_t num_values, int value_bytes) {
  auto* p = static_cast<uint8_t*>(data);
  for (uint64_t i = 0; i < num_values; ++i, p += value_bytes) std::reverse(p, p + value_bytes);
}

}  // namespace l3::cli
