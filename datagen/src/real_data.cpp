// Loaders of the real test arrays (l3/datagen.hpp). The files are described
// in the README of the real-data directory.
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <system_error>

#include "l3/datagen.hpp"

#ifndef L3_DATAGEN_REAL_DATA_DIR
#define L3_DATAGEN_REAL_DATA_DIR ""
#endif

namespace l3::datagen {
namespace {

namespace fs = std::filesystem;

// No real array is near this; it bounds what a wrong path can make us
// allocate.
constexpr uint64_t kMaxDecompressedBytes = uint64_t{4} << 30;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// Reads a whole gzip file; zlib reads a file without a gzip header as is.
Result<std::string> ReadGzipFile(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Status(StatusCode::kIoError, "cannot open '" + path + "': no such file");
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return Status(StatusCode::kIoError, "cannot open '" + path + "'");
  std::string bytes;
  Status status;
  try {
    constexpr unsigned kReadSize = 1u << 20;
    gzbuffer(file, 1u << 18);
    for (;;) {
      if (bytes.size() + kReadSize > kMaxDecompressedBytes) {
        status = Status(StatusCode::kResourceLimit,
                        "'" + path + "' decompresses to more than 4 GiB");
        break;
      }
      const size_t old_size = bytes.size();
      bytes.resize(old_size + kReadSize);
      const int got = gzread(file, bytes.data() + old_size, kReadSize);
      if (got < 0) {
        int err = 0;
        status = Status(StatusCode::kIoError,
                        "reading '" + path + "': " + std::string(gzerror(file, &err)));
        break;
      }
      bytes.resize(old_size + static_cast<size_t>(got));
      if (got == 0) break;
    }
  } catch (const std::bad_alloc&) {
    status = Status(StatusCode::kOutOfMemory, "reading '" + path + "'");
  }
  gzclose(file);
  if (!status.ok()) return status;
  return bytes;
}

template <typename T>
Column MakeColumn(std::string name, const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return Column(std::move(name), std::move(values));
}

// The element type named by the last "_xxx" of a file stem, if an integer
// type; `*is_float` tells a float array (skipped) from an unknown suffix.
bool SuffixType(std::string_view stem, PhysicalType* type, bool* is_float) {
  *is_float = false;
  const size_t underscore = stem.rfind('_');
  if (underscore == std::string_view::npos) return false;
  const std::string_view suffix = stem.substr(underscore + 1);
  if (suffix == "f32" || suffix == "f64") {
    *is_float = true;
    return false;
  }
  struct Name {
    const char* suffix;
    PhysicalType type;
  };
  static constexpr Name kNames[] = {
      {"i8", PhysicalType::kInt8},   {"i16", PhysicalType::kInt16}, {"i32", PhysicalType::kInt32},
      {"i64", PhysicalType::kInt64}, {"u8", PhysicalType::kUInt8},  {"u16", PhysicalType::kUInt16},
      {"u32", PhysicalType::kUInt32}, {"u64", PhysicalType::kUInt64}};
  for (const Name& n : kNames) {
    if (suffix == n.suffix) {
      *type = n.type;
      return true;
    }
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> Split(std::string_view line, char sep) {
  std::vector<std::string_view> fields;
  for (;;) {
    const size_t pos = line.find(sep);
    fields.push_back(Trim(line.substr(0, pos)));
    if (pos == std::string_view::npos) break;
    line.remove_prefix(pos + 1);
  }
  return fields;
}

// An integer, or an integral decimal ("226802.0"); false otherwise or on
// overflow of int64.
bool ParseIntegral(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  const std::string_view digits = s.substr(0, dot);
  if (digits.empty()) return false;
  if (dot != std::string_view::npos) {
    for (char c : s.substr(dot + 1)) {
      if (c != '0') return false;
    }
  }
  // Accumulate as a negative number so that INT64_MIN parses.
  int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    const int digit = c - '0';
    if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) return false;
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) return false;
    value = -value;
  }
  *out = value;
  return true;
}

Column NarrowestColumn(std::string name, const std::vector<int64_t>& values) {
  int64_t lo = 0;
  int64_t hi = 0;
  if (!values.empty()) {
    const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
    lo = *min_it;
    hi = *max_it;
  }
  if (lo >= 0 && hi <= int64_t{std::numeric_limits<uint32_t>::max()}) {
    return Column(std::move(name), std::vector<uint32_t>(values.begin(), values.end()));
  }
  if (lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max()) {
    return Column(std::move(name), std::vector<int32_t>(values.begin(), values.end()));
  }
  return Column(std::move(name), values);
}

}  // namespace

std::string RealDataDir() {
  const char* env = std::getenv("L3_REAL_DATA_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return L3_DATAGEN_REAL_DATA_DIR;
}

Result<Column> LoadBinGz(const std::string& path) {
  const std::string file = FileName(path);
  if (!EndsWith(file, ".bin.gz")) {
    return Status(StatusCode::kInvalidArgument, "'" + path + "' is not a .bin.gz array");
  }
  const std::string stem = file.substr(0, file.size() - std::strlen(".bin.gz"));
  PhysicalType type = PhysicalType::kInt64;
  bool is_float = false;
  if (!SuffixType(stem, &type, &is_float)) {
    return Status(StatusCode::kInvalidArgument,
                  "'" + file + "' " +
                      (is_float ? "holds floats, not integers"
                                : "has no element type suffix (_u16, _i32, _u64, ...)"));
  }
  Result<std::string> bytes = ReadGzipFile(path);
  if (!bytes.ok()) return bytes.status();
  const size_t width = static_cast<size_t>(PhysicalTypeBytes(type));
  if (bytes->size() % width != 0) {
    return Status(StatusCode::kIoError, "'" + path + "' holds " + std::to_string(bytes->size()) +
                                            " bytes, not a whole number of " +
                                            PhysicalTypeName(type) + " values");
  }
  try {
    switch (type) {
      case PhysicalType::kInt8: return MakeColumn<int8_t>(stem, *bytes);
      case PhysicalType::kInt16: return MakeColumn<int16_t>(stem, *bytes);
      case PhysicalType::kInt32: return MakeColumn<int32_t>(stem, *bytes);
      case PhysicalType::kInt64: return MakeColumn<int64_t>(stem, *bytes);
      case PhysicalType::kUInt8: return MakeColumn<uint8_t>(stem, *bytes);
      case PhysicalType::kUInt16: return MakeColumn<uint16_t>(stem, *bytes);
      case PhysicalType::kUInt32: return MakeColumn<uint32_t>(stem, *bytes);
      case PhysicalType::kUInt64: return MakeColumn<uint64_t>(stem, *bytes);
      default: break;
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "loading '" + path + "'");
  }
  return Status(StatusCode::kInternal, "unhandled element type");
}

Result<std::vector<Column>> LoadCsvIntegerColumns(const std::string& path) {
  Result<std::string> text = ReadGzipFile(path);
  if (!text.ok()) return text.status();
  std::string stem = FileName(path);
  for (const char* ext : {".gz", ".csv"}) {
    if (EndsWith(stem, ext)) stem.resize(stem.size() - std::strlen(ext));
  }
  try {
    std::string_view rest(*text);
    std::vector<std::string_view> header;
    char sep = ',';
    struct Candidate {
      bool integer = true;
      std::vector<int64_t> values;
    };
    std::vector<Candidate> columns;
    uint64_t line_number = 0;
    while (!rest.empty()) {
      const size_t eol = rest.find('\n');
      const std::string_view line = Trim(rest.substr(0, eol));
      rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
      ++line_number;
      if (line.empty() || line.front() == '|') continue;
      if (header.empty()) {
        sep = line.find(';') != std::string_view::npos ? ';' : ',';
        header = Split(line, sep);
        columns.resize(header.size());
        continue;
      }
      const std::vector<std::string_view> fields = Split(line, sep);
      if (fields.size() != header.size()) {
        return Status(StatusCode::kInvalidArgument,
                      "'" + path + "' line " + std::to_string(line_number) + ": " +
                          std::to_string(fields.size()) + " fields, header has " +
                          std::to_string(header.size()));
      }
      for (size_t c = 0; c < fields.size(); ++c) {
        Candidate& col = columns[c];
        if (!col.integer) continue;
        int64_t v = 0;
        if (ParseIntegral(fields[c], &v)) {
          col.values.push_back(v);
        } else {
          col.integer = false;
          std::vector<int64_t>().swap(col.values);
        }
      }
    }
    if (header.empty()) {
      return Status(StatusCode::kInvalidArgument, "'" + path + "' has no header row");
    }
    std::vector<Column> out;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!columns[c].integer || columns[c].values.empty()) continue;
      out.push_back(NarrowestColumn(stem + ":" + std::string(header[c]), columns[c].values));
    }
    return out;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "parsing '" + path + "'");
  }
}

Result<std::vector<Column>> LoadRealIntegerArrays(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    return Status(StatusCode::kIoError,
                  "real-data directory '" + dir + "' does not exist (set L3_REAL_DATA_DIR)");
  }
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  if (ec) return Status(StatusCode::kIoError, "listing '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<Column> out;
  for (const std::string& path : files) {
    const std::string file = FileName(path);
    if (EndsWith(file, ".bin.gz")) {
      PhysicalType type;
      bool is_float = false;
      if (!SuffixType(file.substr(0, file.size() - std::strlen(".bin.gz")), &type, &is_float)) {
        continue;  // float arrays are not L3Integer columns
      }
      Result<Column> column = LoadBinGz(path);
      if (!column.ok()) return column.status();
      out.push_back(std::move(*column));
    } else if (EndsWith(file, ".csv.gz")) {
      Result<std::vector<Column>> columns = LoadCsvIntegerColumns(path);
      if (!columns.ok()) return columns.status();
      for (Column& c : *columns) out.push_back(std::move(c));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Column& a, const Column& b) { return a.name() < b.name(); });
  return out;
}

Result<FloatArray> LoadFloatBinGz(const std::string& path) {
  const std::string file = FileName(path);
  FloatArray out;
  if (EndsWith(file, "_f32.bin.gz")) {
    out.type = PhysicalType::kFloat32;
  } else if (EndsWith(file, "_f64.bin.gz")) {
    out.type = PhysicalType::kFloat64;
  } else {
    return Status(StatusCode::kInvalidArgument, "'" + file + "' is not an _f32/_f64 .bin.gz array");
  }
  out.name = file.substr(0, file.size() - std::strlen(".bin.gz"));
  // The shape: the last "_<rows>x<width>" part of the name.
  int64_t rows = 0, width = 0;
  bool shaped = false;
  std::string_view rest(out.name);
  while (!rest.empty() && !shaped) {
    const size_t cut = rest.rfind('_');
    const std::string_view part = cut == std::string_view::npos ? rest : rest.substr(cut + 1);
    const size_t x = part.find('x');
    shaped = x != std::string_view::npos && ParseIntegral(part.substr(0, x), &rows) &&
             ParseIntegral(part.substr(x + 1), &width) && rows >= 1 && width >= 1 &&
             width <= (int64_t{1} << 24);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(0, cut);
  }
  if (!shaped) {
    return Status(StatusCode::kInvalidArgument,
                  "'" + file + "' has no _<rows>x<width> shape in its name");
  }
  Result<std::string> bytes = ReadGzipFile(path);
  if (!bytes.ok()) return bytes.status();
  const uint64_t expected = static_cast<uint64_t>(rows) * static_cast<uint64_t>(width) *
                            static_cast<uint64_t>(PhysicalTypeBytes(out.type));
  if (bytes->size() != expected) {
    return Status(StatusCode::kIoError, "'" + path + "' holds " + std::to_string(bytes->size()) +
                                            " bytes, its shape needs " + std::to_string(expected));
  }
  out.rows = static_cast<uint64_t>(rows);
  out.row_width = static_cast<uint32_t>(width);
  out.bytes.assign(bytes->begin(), bytes->end());
  return out;
}

Result<std::vector<FloatArray>> LoadRealFloatArrays(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    return Status(StatusCode::kIoError,
                  "real-data directory '" + dir + "' does not exist (set L3_REAL_DATA_DIR)");
  }
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = FileName(it->path().string());
    if (it->is_regular_file(ec) &&
        (EndsWith(file, "_f32.bin.gz") || EndsWith(file, "_f64.bin.gz"))) {
      files.push_back(it->path().string());
    }
  }
  if (ec) return Status(StatusCode::kIoError, "listing '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<FloatArray> out;
  for (const std::string& path : files) {
    Result<FloatArray> array = LoadFloatBinGz(path);
    if (!array.ok()) return array.status();
    out.push_back(std::move(*array));
  }
  return out;
}

}  // namespace l3::datagen
