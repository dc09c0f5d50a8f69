#include "common/csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "common/errors.hpp"

namespace l3::cli {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

/// Reads lines with getline(3), counting them and the bytes consumed.
class LineReader {
 public:
  LineReader(std::FILE* file, const std::string& source) : file_(file), source_(source) {}
  ~LineReader() { std::free(buf_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its end-of-line bytes; false at the end.
  bool Next(std::string* line) {
    errno = 0;
    ssize_t n = getline(&buf_, &cap_, file_);
    if (n < 0) {
      if (std::ferror(file_)) ThrowIo("cannot read " + source_, errno);
      return false;
    }
    ++line_number_;
    bytes_ += static_cast<uint64_t>(n);
    size_t len = static_cast<size_t>(n);
    while (len > 0 && (buf_[len - 1] == '\n' || buf_[len - 1] == '\r')) --len;
    line->assign(buf_, len);
    return true;
  }
  uint64_t line_number() const { return line_number_; }
  uint64_t bytes() const { return bytes_; }

 private:
  std::FILE* file_;
  const std::string& source_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
  uint64_t line_number_ = 0;
  uint64_t bytes_ = 0;
};

/// Removes blanks around a field; `start` moves to its first non-blank byte.
std::string Trim(const std::string& field, size_t* start) {
  size_t b = 0, e = field.size();
  while (b < e && IsBlank(field[b])) ++b;
  while (e > b && IsBlank(field[e - 1])) --e;
  *start += b;
  return field.substr(b, e - b);
}

struct Target {
  size_t field = 0;
  std::optional<PhysicalType> forced;
  ValueStats stats;
};

}  // namespace

bool SplitCsvLine(const std::string& line, char delimiter, std::vector<std::string>* fields,
                  std::vector<size_t>* starts) {
  fields->clear();
  starts->clear();
  size_t i = 0;
  while (true) {
    size_t begin = i;
    while (i < line.size() && IsBlank(line[i]) && line[i] != delimiter) ++i;
    std::string field;
    if (i < line.size() && line[i] == '"') {
      starts->push_back(i);
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      if (!closed) return false;
      // Blanks may follow the closing quote; anything else is kept, so that
      // the value check reports it.
      while (i < line.size() && line[i] != delimiter) field += line[i++];
      size_t trailing = field.size();
      while (trailing > 0 && IsBlank(field[trailing - 1])) --trailing;
      field.resize(trailing);
    } else {
      starts->push_back(begin);
      while (i < line.size() && line[i] != delimiter) field += line[i++];
    }
    fields->push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return true;
}

std::string CsvQuote(const std::string& text, char delimiter) {
  bool needs = text.empty() || IsBlank(text.front()) || IsBlank(text.back());
  for (char c : text) needs = needs || c == delimiter || c == '"' || c == '\n' || c == '\r';
  if (!needs) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

CsvTable ReadCsv(std::FILE* file, const std::string& source, const CsvOptions& options) {
  LineReader reader(file, source);
  std::string line;
  std::vector<std::string> fields;
  std::vector<size_t> starts;
  auto where = [&](size_t byte_offset) {
    return source + ":" + std::to_string(reader.line_number()) + ":" +
           std::to_string(byte_offset + 1);
  };
  auto split = [&]() {
    if (!SplitCsvLine(line, options.delimiter, &fields, &starts)) {
      ThrowBadInput(where(starts.back()) + ": unterminated quoted field");
    }
  };

  bool have_line = false;
  while (reader.Next(&line)) {
    if (!line.empty()) {
      have_line = true;
      break;
    }
  }
  if (!have_line) ThrowBadInput(source + ": no data (the file is empty)");
  split();
  const size_t num_fields = fields.size();

  bool header = options.header == CsvHeader::kYes;
  if (options.header == CsvHeader::kAuto) {
    for (const std::string& f : fields) {
      size_t start = 0;
      ParsedInt v;
      uint64_t bits = 0;
      const std::string text = Trim(f, &start);
      if (ParseInteger(text, &v) == ParseIntError::kNotInteger &&
          !ParseFloatBits(text, PhysicalType::kFloat64, &bits)) {
        header = true;
      }
    }
  }
  std::vector<std::string> names(num_fields);
  for (size_t i = 0; i < num_fields; ++i) {
    size_t start = 0;
    names[i] = header ? Trim(fields[i], &start) : "col" + std::to_string(i);
    if (names[i].empty()) names[i] = "col" + std::to_string(i);
  }

  // Resolve the selection to field indices. No selection is every field in
  // order, by index: not through the name lookup below, where a header name
  // that is a number ("b,0") would shadow an index and select a field twice.
  std::vector<Target> targets;
  if (options.columns.empty()) {
    for (size_t i = 0; i < num_fields; ++i) {
      Target t;
      t.field = i;
      t.forced = options.type;
      targets.push_back(t);
    }
  }
  std::set<size_t> seen;
  for (const CsvSelection& sel : options.columns) {
    Target t;
    bool found = false;
    for (size_t i = 0; i < num_fields && !found; ++i) {
      if (header && names[i] == sel.column) {
        t.field = i;
        found = true;
      }
    }
    if (!found && !sel.column.empty() &&
        sel.column.find_first_not_of("0123456789") == std::string::npos &&
        sel.column.size() < 10) {
      t.field = std::stoul(sel.column);
      found = t.field < num_fields;
    }
    if (!found) {
      std::string list;
      for (size_t i = 0; i < num_fields && i < 16; ++i) list += (i ? ", " : "") + names[i];
      if (num_fields > 16) list += ", ...";
      ThrowUsage(source + ": no column '" + sel.column + "' (it has " + std::to_string(num_fields) +
                 ": " + list + ")");
    }
    if (!seen.insert(t.field).second) {
      ThrowUsage(source + ": column '" + names[t.field] + "' selected twice");
    }
    t.forced = sel.type ? sel.type : options.type;
    if (t.forced && (*t.forced == PhysicalType::kFloat16 || *t.forced == PhysicalType::kBFloat16)) {
      ThrowUsage(source + ": column '" + names[t.field] + "': CSV reads f32 and f64 floats; " +
                 "give f16/bf16 values as raw or .npy input");
    }
    targets.push_back(t);
  }

  CsvTable table;
  table.columns.resize(targets.size());
  for (size_t c = 0; c < targets.size(); ++c) table.columns[c].name = names[targets[c].field];

  bool first_is_data = !header;
  uint64_t next_report = 0;
  while (true) {
    if (first_is_data) {
      first_is_data = false;
    } else {
      if (!reader.Next(&line)) break;
      if (line.empty()) continue;
      split();
    }
    if (fields.size() != num_fields) {
      ThrowBadInput(where(0) + ": " + std::to_string(fields.size()) + " fields, expected " +
                    std::to_string(num_fields));
    }
    for (size_t c = 0; c < targets.size(); ++c) {
      Target& t = targets[c];
      size_t start = starts[t.field];
      std::string text = Trim(fields[t.field], &start);
      ParsedInt v;
      if (text.empty()) {
        ThrowBadInput(where(start) + ": empty field in column '" + table.columns[c].name +
                      "' (L3 columns have no nulls)");
      }
      if (t.forced && PhysicalTypeIsFloat(*t.forced)) {
        // A float column (spec §11.2): the nearest value of its type.
        uint64_t bits = 0;
        if (!ParseFloatBits(text, *t.forced, &bits)) {
          ThrowBadInput(where(start) + ": '" + text + "' is not a number (column '" +
                        table.columns[c].name + "', " + PhysicalTypeName(*t.forced) + ")");
        }
        table.columns[c].words.push_back(bits);
        continue;
      }
      ParseIntError err = ParseInteger(text, &v);
      if (err == ParseIntError::kNotInteger) {
        ThrowBadInput(where(start) + ": '" + text + "' is not an integer (column '" +
                      table.columns[c].name + "'; give the column a float type, e.g. " +
                      table.columns[c].name + ":f64, to read it as floats)");
      }
      if (err == ParseIntError::kOutOfRange) {
        ThrowBadInput(where(start) + ": " + text + " is out of the 64-bit range (column '" +
                      table.columns[c].name + "')");
      }
      if (t.forced && !Fits(v, *t.forced)) {
        ThrowBadInput(where(start) + ": " + text + " is out of range for " +
                      PhysicalTypeName(*t.forced) + " " + TypeRangeText(*t.forced) +
                      " (column '" + table.columns[c].name + "')");
      }
      t.stats.Add(v);
      table.columns[c].words.push_back(v.bits);
    }
    ++table.num_rows;
    if (options.progress && reader.bytes() >= next_report) {
      options.progress(reader.bytes());
      next_report = reader.bytes() + (1u << 20);
    }
  }

  for (size_t c = 0; c < targets.size(); ++c) {
    CsvColumn& col = table.columns[c];
    if (targets[c].forced) {
      col.type = *targets[c].forced;
    } else if (!InferType(targets[c].stats, options.infer, &col.type)) {
      ThrowBadInput(source + ": column '" + col.name + "' holds " +
                    std::to_string(targets[c].stats.min_negative) + " and " +
                    std::to_string(targets[c].stats.max_nonnegative) +
                    "; no integer type holds both");
    }
  }
  return table;
}

}  // namespace l3::cli
