// fuzz_csv.cpp: fuzz target 3b, the CSV reader of the command-line tools
// (tools/common/csv.cpp, values.cpp), as `l3 compress` uses it.
//
// The input is a whole CSV file. ReadCsv parses it twice: with the defaults
// of `l3 compress` (',' delimiter, header detection, narrow type inference),
// and with a tab delimiter, no header and wide inference.
//
// Properties:
// - the only exception is CliError: bad input, or a usage error only where a
//   selection was given (with no --columns, every field is read);
// - every column has num_rows values, and each fits the column's type;
// - writing the parsed values back as CSV and reading them with the types
//   forced gives the same values (ParseInteger and the decimal text of
//   AppendValues agree);
// - every header name survives CsvQuote and SplitCsvLine.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/values.hpp"
#include "fuzz_check.hpp"

namespace {

using namespace l3;
using namespace l3::cli;

std::FILE* OpenText(const std::string& text) {
  std::FILE* file = text.empty() ? std::tmpfile()
                                 : fmemopen(const_cast<char*>(text.data()), text.size(), "rb");
  L3_FUZZ_CHECK(file != nullptr, "cannot open the input as a stream");
  return file;
}

/// ReadCsv, or nullopt after a CliError that `options` allows.
std::optional<CsvTable> Parse(const std::string& text, const CsvOptions& options) {
  std::FILE* file = OpenText(text);
  std::optional<CsvTable> table;
  try {
    table = ReadCsv(file, "fuzz.csv", options);
  } catch (const CliError& e) {
    const bool allowed = e.exit_code() == kExitBadInput ||
                         (e.exit_code() == kExitUsage && !options.columns.empty());
    std::fclose(file);
    L3_FUZZ_CHECK(allowed, "exit code " + std::to_string(e.exit_code()) + ": " + e.what());
    return std::nullopt;
  }
  std::fclose(file);
  return table;
}

bool WordFits(uint64_t word, PhysicalType type) {
  const int bits = 8 * PhysicalTypeBytes(type);
  if (bits == 64) return true;
  if (PhysicalTypeIsSigned(type)) {
    const int64_t s = static_cast<int64_t>(word);
    return s >= -(int64_t{1} << (bits - 1)) && s < (int64_t{1} << (bits - 1));
  }
  return word < (uint64_t{1} << bits);
}

void CheckTable(const CsvTable& table, const CsvOptions& options) {
  for (const CsvColumn& col : table.columns) {
    L3_FUZZ_CHECK(col.words.size() == table.num_rows, "a column has the wrong number of values");
    for (uint64_t w : col.words) {
      L3_FUZZ_CHECK(WordFits(w, col.type), "value " + std::to_string(w) + " does not fit " +
                                               PhysicalTypeName(col.type));
    }
    std::vector<std::string> fields;
    std::vector<size_t> starts;
    const bool split = SplitCsvLine(CsvQuote(col.name, options.delimiter), options.delimiter,
                                    &fields, &starts);
    L3_FUZZ_CHECK(split && fields.size() == 1 && fields[0] == col.name,
                  "a column name does not survive CsvQuote: '" + col.name + "'");
  }
  if (table.columns.empty() || table.num_rows == 0) return;

  // The values as CSV text, read back with the types forced.
  std::string text;
  std::vector<std::vector<uint8_t>> narrow;
  for (const CsvColumn& col : table.columns) {
    narrow.emplace_back(col.words.size() * PhysicalTypeBytes(col.type));
    NarrowWords(col.words.data(), col.words.size(), col.type, narrow.back().data());
  }
  for (uint64_t r = 0; r < table.num_rows; ++r) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) text += ',';
      AppendValue(&text, narrow[c].data(), r, table.columns[c].type);
    }
    text += '\n';
  }
  CsvOptions again;
  again.header = CsvHeader::kNo;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    again.columns.push_back({std::to_string(c), table.columns[c].type});
  }
  std::optional<CsvTable> back = Parse(text, again);
  L3_FUZZ_CHECK(back.has_value(), "the values written back as CSV do not parse");
  L3_FUZZ_CHECK(back->num_rows == table.num_rows, "the values written back: other row count");
  for (size_t c = 0; c < table.columns.size(); ++c) {
    L3_FUZZ_CHECK(back->columns[c].words == table.columns[c].words,
                  "the values written back read differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{1} << 16)) return 0;  // the parser is linear; long inputs only slow it down
  const std::string text(reinterpret_cast<const char*>(data), size);

  CsvOptions defaults;
  if (std::optional<CsvTable> table = Parse(text, defaults)) CheckTable(*table, defaults);

  CsvOptions tabs;
  tabs.delimiter = '\t';
  tabs.header = CsvHeader::kNo;
  tabs.infer = InferMode::kWide;
  if (std::optional<CsvTable> table = Parse(text, tabs)) CheckTable(*table, tabs);
  return 0;
}
