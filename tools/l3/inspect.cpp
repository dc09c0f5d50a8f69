// l3 validate and l3 info.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/reading.hpp"
#include "common/summary.hpp"
#include "common/text_safety.hpp"

namespace l3::cli {

int RunValidate(int argc, char** argv) {
  ArgParser parser("l3 validate", "l3 validate [options] INPUT.l3...",
                   "Checks .l3 files against the format spec. The structural check (default,\n"
                   "spec §10.2) verifies the framing, the footer, every segment checksum and\n"
                   "all partition metadata. --deep (spec §10.3) also decodes every value and\n"
                   "checks padding, runs, bounds, statistics and the writer rules. Prints\n"
                   "'FILE: OK' per good file; the exit code of the first failure names the\n"
                   "failed check.");
  parser.Flag("deep", "also decode everything (spec §10.3)")
      .Option("max-rows", "N", "--deep: refuse (exit code of RESOURCE_LIMIT) a file that claims\n"
              "                            more than N rows in all (default 1073741824)")
      .Flag("quiet", "print nothing on success", 'q')
      .Epilog("Examples:\n"
              "  l3 validate data.l3\n"
              "  l3 validate --deep data.l3 || echo \"failed with $?\"\n\n" +
              std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.empty()) ThrowUsage("expected an input .l3 file (see 'l3 validate --help')");
  const bool deep = args.Has("deep");
  int first_failure = kExitOk;
  for (const std::string& path : args.positionals) {
    // Each file is reported on its own line, so one bad file does not hide
    // the result of the others.
    int code = RunMain("l3", [&]() -> int {
      ReadOptions options;
      if (args.Has("max-rows")) {
        options.max_validation_rows = ParseUnsigned(args.Get("max-rows"), "--max-rows", 0, UINT64_MAX);
      }
      Reader reader = OpenReader(path, options);
      Check(reader.Validate(deep ? ValidationLevel::kDeep : ValidationLevel::kStructural), path);
      if (!args.Has("quiet")) {
        uint64_t chunks = 0;
        for (int c = 0; c < reader.num_columns(); ++c) chunks += reader.column(c).chunks.size();
        std::printf("%s: OK (%s; %d column%s, %llu chunk%s, %llu rows)\n", path.c_str(),
                    deep ? "deep" : "structural", reader.num_columns(),
                    reader.num_columns() == 1 ? "" : "s", static_cast<unsigned long long>(chunks),
                    chunks == 1 ? "" : "s",
                    static_cast<unsigned long long>(reader.info().num_rows));
      }
      return kExitOk;
    });
    if (first_failure == kExitOk) first_failure = code;
  }
  return first_failure;
}

int RunInfo(int argc, char** argv) {
  ArgParser parser("l3 info", "l3 info INPUT.l3",
                   "Prints a short summary of an .l3 file: version, writer, rows, and per\n"
                   "column its type, chunks, partitions, stored bytes, ratio and model mix.\n"
                   "'l3dump' shows more.");
  parser.Epilog(std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.size() != 1) ThrowUsage("expected one input .l3 file (see 'l3 info --help')");
  const std::string path = args.positionals[0];
  Reader reader = OpenReader(path);
  const FileInfo& info = reader.info();
  // Strings from the file (and the path) go through TerminalSafe: no
  // control character or stray byte reaches the terminal.
  const std::string shown_path = TerminalSafe(path);
  std::string out;
  out += Format("%s: L3 format %u.%u, %llu bytes, written by %s %s\n", shown_path.c_str(),
                info.format_major, info.format_minor,
                static_cast<unsigned long long>(info.file_bytes),
                TerminalSafe(info.writer_name).c_str(), TerminalSafe(info.writer_version).c_str());
  out += Format("%llu rows, %d column%s\n", static_cast<unsigned long long>(info.num_rows),
                reader.num_columns(), reader.num_columns() == 1 ? "" : "s");
  std::vector<std::string> names;
  size_t name_width = 4;
  for (int c = 0; c < reader.num_columns(); ++c) {
    names.push_back(TerminalSafe(reader.column(c).name));
    name_width = std::max(name_width, names.back().size());
  }
  int w = static_cast<int>(std::min<size_t>(name_width, 40));
  out += Format("  %-*s  %-4s  %6s  %10s  %12s  %8s  %s\n", w, "name", "type", "chunks",
                "partitions", "stored bytes", "ratio", "model mix");
  uint64_t raw_total = 0;
  int first_error = kExitOk;
  std::string error_text;
  for (int c = 0; c < reader.num_columns(); ++c) {
    const ColumnInfo& col = reader.column(c);
    ColumnSummary s = SummarizeColumn(reader, c);
    raw_total += RawBytes(col);
    out += Format("  %-*s  %-4s  %6zu  %10llu  %12llu  %7.2fx  %s\n", w, names[c].c_str(),
                  ColumnTypeName(col).c_str(), col.chunks.size(),
                  static_cast<unsigned long long>(s.num_partitions),
                  static_cast<unsigned long long>(col.stored_bytes),
                  Ratio(RawBytes(col), col.stored_bytes), ModelMixText(s).c_str());
    if (s.failed_chunk >= 0 && first_error == kExitOk) {
      first_error = ExitCodeForStatus(s.error.code());
      error_text = Format("%s: column '%s' chunk %d: %s", path.c_str(), names[c].c_str(),
                          s.failed_chunk, s.error.ToString().c_str());
    }
  }
  out += Format("raw %llu bytes, file %llu bytes, ratio %.2fx\n",
                static_cast<unsigned long long>(raw_total),
                static_cast<unsigned long long>(info.file_bytes), Ratio(raw_total, info.file_bytes));
  std::fputs(out.c_str(), stdout);
  if (first_error != kExitOk) throw CliError(first_error, error_text);
  return kExitOk;
}

}  // namespace l3::cli
