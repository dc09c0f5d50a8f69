// l3 decompress and l3 cat: .l3 columns to raw, .npy or CSV. Float values
// leave byte for byte in raw and .npy (NaN payloads included); CSV prints the
// shortest text that reads back as the same value.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/args.hpp"
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/npy.hpp"
#include "common/progress.hpp"
#include "common/reading.hpp"
#include "common/values.hpp"

namespace l3::cli {
namespace {

enum class OutputFormat { kRaw, kNpy, kCsv };

/// Rows decoded per Reader::ReadRows call.
constexpr uint64_t kBatchRows = uint64_t{1} << 20;
constexpr uint64_t kBatchBytes = uint64_t{64} << 20;

OutputFormat FormatOf(const std::string& path, const std::string& forced) {
  std::string f = forced;
  if (f.empty()) {
    if (path == "-") ThrowUsage("writing standard output needs --format raw|npy|csv");
    std::string ext = Extension(path);
    if (ext == "npy") return OutputFormat::kNpy;
    if (ext == "csv" || ext == "tsv") return OutputFormat::kCsv;
    // Any other extension writes raw values, as l3 compress reads an input of
    // unknown extension as raw.
    return OutputFormat::kRaw;
  }
  if (f == "bin" || f == "raw") return OutputFormat::kRaw;
  if (f == "npy") return OutputFormat::kNpy;
  if (f == "csv") return OutputFormat::kCsv;
  ThrowUsage("--format: '" + f + "' is not raw, npy or csv");
}

/// Writes the rows of the selected columns to `out` in one of the formats.
/// CSV output holds the columns side by side; raw and .npy exactly one.
void WriteRows(const Reader& reader, const std::string& path, const std::vector<int>& columns,
               RowRange rows, OutputFormat format, bool header, char delimiter, OutputFile& out) {
  Progress progress("decompress", rows.size());
  for (int c : columns) {
    const ColumnInfo& col = reader.column(c);
    if (format == OutputFormat::kCsv && col.row_width > 1) {
      ThrowUsage("column '" + col.name + "' has rows of " + std::to_string(col.row_width) +
                 " values; write it as raw or .npy (a 2-D array)");
    }
    if (format == OutputFormat::kNpy && col.type == PhysicalType::kBFloat16) {
      ThrowUsage("column '" + col.name + "' is bfloat16, which NumPy has no dtype for; write "
                 "it as raw");
    }
  }
  if (format == OutputFormat::kNpy) {
    const ColumnInfo& col = reader.column(columns[0]);
    out.Write(MakeNpyHeader(col.type, rows.size(), col.row_width));
  }
  if (format == OutputFormat::kCsv && header) {
    std::string line;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) line += delimiter;
      line += CsvQuote(reader.column(columns[i]).name, delimiter);
    }
    out.Write(line + "\n");
  }
  std::vector<std::vector<uint8_t>> buffers(columns.size());
  std::string text;
  // Rows per batch: kBatchRows, fewer for wide tensor rows (at most about
  // kBatchBytes of the widest column per batch).
  uint64_t widest = 1;
  for (int c : columns) {
    const ColumnInfo& col = reader.column(c);
    widest = std::max<uint64_t>(widest, uint64_t{col.row_width} * PhysicalTypeBytes(col.type));
  }
  const uint64_t batch_rows = std::max<uint64_t>(1, std::min(kBatchRows, kBatchBytes / widest));
  for (uint64_t begin = rows.begin; begin < rows.end; begin += batch_rows) {
    uint64_t end = std::min(rows.end, begin + batch_rows);
    uint64_t n = end - begin;
    for (size_t i = 0; i < columns.size(); ++i) {
      const ColumnInfo& col = reader.column(columns[i]);
      buffers[i].resize(n * PhysicalTypeBytes(col.type) * col.row_width);
      Check(reader.ReadRows(columns[i], begin, end, buffers[i].data(), buffers[i].size()),
            path + ": column '" + col.name + "'");
    }
    if (format != OutputFormat::kCsv) {
      out.Write(buffers[0].data(), buffers[0].size());
    } else {
      text.clear();
      for (uint64_t r = 0; r < n; ++r) {
        for (size_t i = 0; i < columns.size(); ++i) {
          if (i > 0) text += delimiter;
          AppendValue(&text, buffers[i].data(), r, reader.column(columns[i]).type);
        }
        text += '\n';
      }
      out.Write(text);
    }
    progress.Update(end - rows.begin);
  }
  progress.Finish();
}

char ParseDelimiter(const std::string& text) {
  std::string d = text == "tab" || text == "\\t" ? "\t" : text;
  if (d.size() != 1 || d == "\"" || d == "\n") {
    ThrowUsage("--delimiter: '" + text + "' is not a single character");
  }
  return d[0];
}

}  // namespace

int RunDecompress(int argc, char** argv) {
  ArgParser parser("l3 decompress", "l3 decompress [options] INPUT.l3 -o OUTPUT",
                   "Writes columns of an .l3 file as raw little-endian values, a NumPy\n"
                   ".npy file or CSV. Raw and .npy hold one column (default: the first); CSV\n"
                   "holds the selected columns side by side (default: all) under a header line.");
  parser.Option("output", "FILE", "the file to write; '-' writes standard output", 'o')
      .Option("format", "FMT", "raw|npy|csv, bin = raw (default: from the extension: .npy;\n"
              "                            .csv, .tsv; anything else is raw, as for compress)")
      .Option("column", "NAME|INDEX", "a column to write (repeatable for CSV)", 'c', true)
      .Option("rows", "A:B", "only rows A (inclusive) to B (exclusive); A: and :B work too")
      .Flag("no-header", "CSV: omit the header line")
      .Option("delimiter", "C", "CSV field delimiter (default ',', or tab for .tsv; 'tab')")
      .Option("threads", "N", "decoder threads, 0 = one per core (default 0); never changes\n"
              "                            the output")
      .Epilog("Examples:\n"
              "  l3 decompress ids.l3 -o ids.bin\n"
              "  l3 decompress market.l3 --column volumes -o volumes.npy\n"
              "  l3 decompress trades.l3 --rows 0:1000 -o head.csv\n\n" +
              std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.size() != 1) ThrowUsage("expected one input .l3 file (see 'l3 decompress --help')");
  if (!args.Has("output")) ThrowUsage("no output file: give -o OUTPUT");
  const std::string input = args.positionals[0];
  const std::string output = args.Get("output");
  OutputFormat format = FormatOf(output, args.Get("format"));
  if (output != "-" && SameFile(input, output)) ThrowUsage("the output " + output + " is the input");

  ReadOptions read_options;
  read_options.num_threads = 0;
  if (args.Has("threads")) {
    read_options.num_threads =
        static_cast<int>(ParseUnsigned(args.Get("threads"), "--threads", 0, 4096));
  }
  Reader reader = OpenReader(input, read_options);
  std::vector<std::string> specs = args.GetAll("column");
  if (format != OutputFormat::kCsv) {
    if (specs.size() > 1) ThrowUsage("raw and .npy outputs hold one column; give one --column");
    if (specs.empty()) specs.push_back("0");
  }
  std::vector<int> columns = ResolveColumns(reader, specs, input);
  RowRange rows{0, reader.info().num_rows};
  if (args.Has("rows")) rows = ParseRowRange(args.Get("rows"), reader.info().num_rows);
  char delimiter = ParseDelimiter(args.Get("delimiter", Extension(output) == "tsv" ? "tab" : ","));

  OutputFile out(output);
  WriteRows(reader, input, columns, rows, format, !args.Has("no-header"), delimiter, out);
  out.Commit();
  return kExitOk;
}

int RunCat(int argc, char** argv) {
  ArgParser parser("l3 cat", "l3 cat [options] INPUT.l3",
                   "Prints values on standard output, one row per line; several columns are\n"
                   "separated by the delimiter (CSV).");
  parser.Option("column", "NAME|INDEX", "a column to print (repeatable; default: all)", 'c', true)
      .Option("rows", "A:B", "only rows A (inclusive) to B (exclusive); A: and :B work too")
      .Flag("header", "print the column names first")
      .Option("delimiter", "C", "field delimiter (default ','; 'tab')")
      .Epilog("Examples:\n"
              "  l3 cat ids.l3 --rows 100:110\n"
              "  l3 cat trades.l3 --column ts --column price --header | head\n\n" +
              std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.size() != 1) ThrowUsage("expected one input .l3 file (see 'l3 cat --help')");
  const std::string input = args.positionals[0];
  Reader reader = OpenReader(input);
  std::vector<int> columns = ResolveColumns(reader, args.GetAll("column"), input);
  RowRange rows{0, reader.info().num_rows};
  if (args.Has("rows")) rows = ParseRowRange(args.Get("rows"), reader.info().num_rows);
  OutputFile out("-");
  WriteRows(reader, input, columns, rows, OutputFormat::kCsv, args.Has("header"),
            ParseDelimiter(args.Get("delimiter", ",")), out);
  out.Commit();
  return kExitOk;
}

}  // namespace l3::cli
