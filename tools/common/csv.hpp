// csv.hpp: reading integer columns, and float columns of a given f32/f64
// type, from CSV text.
//
// One record per line (CR LF or LF). Fields are separated by a one-byte
// delimiter; a field may be enclosed in double quotes ("" inside is a quote),
// but a quoted field may not span lines. Blanks around a field are ignored.
// Empty lines are skipped. Every record must have as many fields as the
// first. Errors name the line and the 1-based byte column of the field:
// "data.csv:17:9: 'abc' is not an integer (column 'price')".
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/values.hpp"
#include "l3/l3.hpp"

namespace l3::cli {

enum class CsvHeader {
  kAuto,  ///< the first record is a header unless all its fields are numbers
  kYes,
  kNo,
};

struct CsvSelection {
  std::string column;                ///< a header name or a 0-based field index
  std::optional<PhysicalType> type;  ///< forces the type; values are range-checked
};

struct CsvOptions {
  char delimiter = ',';
  CsvHeader header = CsvHeader::kAuto;
  /// The columns to read, in output order; empty reads every field.
  std::vector<CsvSelection> columns;
  /// Type for every column without its own; unset means inference.
  std::optional<PhysicalType> type;
  InferMode infer = InferMode::kNarrow;
  /// Called now and then with the bytes consumed so far.
  std::function<void(uint64_t)> progress;
};

/// One parsed column: values as 64-bit two's complement words (float columns:
/// their bit patterns).
struct CsvColumn {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  std::vector<uint64_t> words;
};

struct CsvTable {
  std::vector<CsvColumn> columns;
  uint64_t num_rows = 0;
};

/// Parses the whole of `file`. `source` names it in messages. Throws
/// CliError(kExitBadInput) on malformed text and kExitUsage on an unknown
/// selected column.
CsvTable ReadCsv(std::FILE* file, const std::string& source, const CsvOptions& options);

/// Splits one line into fields; `starts` receives each field's 0-based byte
/// offset in the line. Returns false on an unterminated quote (its offset is
/// then the last element of `starts`).
bool SplitCsvLine(const std::string& line, char delimiter, std::vector<std::string>* fields,
                  std::vector<size_t>* starts);

/// Quotes `text` for a CSV field if it contains the delimiter, a quote, or
/// blanks at either end.
std::string CsvQuote(const std::string& text, char delimiter);

}  // namespace l3::cli
