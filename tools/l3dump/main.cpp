// l3dump: shows the layout of an .l3 file (docs/cli.md).
#include <cstdio>
#include <string>
#include <string_view>

#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/reading.hpp"
#include "common/text_safety.hpp"
#include "dump.hpp"

namespace {

/// Replaces every string value in `j` by `fix(value)`; the keys are the
/// tool's own.
void MapStrings(l3::cli::Json& j, std::string (*fix)(std::string_view)) {
  if (j.is_string()) {
    j = fix(j.get_ref<const std::string&>());
  } else if (j.is_structured()) {
    for (l3::cli::Json& element : j) MapStrings(element, fix);
  }
}

/// `j` as JSON text of printable ASCII: non-ASCII characters and controls
/// as \uXXXX escapes, DEL included (which JSON libraries leave as it is;
/// outside strings JSON has no DEL, so replacing the byte is safe).
std::string AsciiJson(const l3::cli::Json& j) {
  const std::string raw = j.dump(2, ' ', true, l3::cli::Json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + 1);
  for (char c : raw) {
    if (c == '\x7f') {
      out += "\\u007f";
    } else {
      out += c;
    }
  }
  return out + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace l3;
  using namespace l3::cli;
  InstallCleanupHandlers();
  return RunMain("l3dump", [&]() -> int {
    ArgParser parser(
        "l3dump", "l3dump [options] FILE.l3",
        "Shows what an .l3 file holds: format version, writer, feature flags, file\n"
        "size, and per column its type, rows, chunks, ratio, model mix, bit-width\n"
        "histogram and partition sizes, each chunk's segments and statistics, and\n"
        "the checksum status. Reading it touches only metadata unless --verify.");
    parser.Flag("json", "print a JSON document instead (schema in docs/cli.md)")
        .Flag("partitions", "also list every partition: rows, model, parameters, bit\n"
              "                            width, payload bytes, bounds")
        .Option("column", "NAME|INDEX", "only this column (repeatable)", 'c', true)
        .Flag("verify", "verify every segment checksum and all metadata (structural\n"
              "                            validation, spec §10.2)")
        .Flag("allow-unknown", "list chunks in encodings, types or required features this\n"
              "                            reader does not know as opaque records instead of failing")
        .Epilog(std::string("The exit code is 0 when everything shown was read without error; else\n"
                            "that of the first error (all of them are listed).\n\n") +
                ExitCodeHelp());
    ArgParser::Parsed args = parser.Parse(argc, argv);
    if (PrintHelpOrVersion(parser, args, "l3dump")) return kExitOk;
    if (args.positionals.size() != 1) ThrowUsage("expected one .l3 file (see 'l3dump --help')");
    const std::string path = args.positionals[0];

    ReadOptions read_options;
    read_options.allow_unknown = args.Has("allow-unknown");
    Reader reader = [&] {
      try {
        return OpenReader(path, read_options);
      } catch (const CliError& e) {
        if (e.exit_code() == ExitCodeForStatus(StatusCode::kUnsupportedFeature) &&
            !read_options.allow_unknown) {
          throw CliError(e.exit_code(), std::string(e.what()) +
                                            " (l3dump --allow-unknown lists it anyway)");
        }
        throw;
      }
    }();

    DumpOptions options;
    options.columns = ResolveColumns(reader, args.GetAll("column"), path);
    if (!args.Has("column")) options.columns.clear();
    options.partitions = args.Has("partitions");
    options.verify = args.Has("verify");
    options.allow_unknown = read_options.allow_unknown;
    Json dump = BuildDump(reader, path, options);
    // Strings from the file (writer name and version, metadata, column
    // names, timezones, error messages quoting them) may be any bytes. JSON
    // output replaces each byte that is not part of well-formed UTF-8 with
    // U+FFFD and is written as ASCII (\uXXXX escapes), so neither the JSON
    // library nor a terminal sees anything but valid, inert text. Text
    // output shows control characters and such bytes as \xNN.
    const bool json = args.Has("json");
    MapStrings(dump, json ? ValidUtf8 : TerminalSafe);
    std::string text = json ? AsciiJson(dump) : RenderText(dump);
    OutputFile out("-");
    out.Write(text);
    out.Commit();
    if (!dump["errors"].empty()) {
      const Json& e = dump["errors"][0];
      std::string code = e["code"];
      int exit_code = kExitFailure;
      for (int c = 1; c <= static_cast<int>(StatusCode::kInternal); ++c) {
        if (code == StatusCodeName(static_cast<StatusCode>(c))) {
          exit_code = ExitCodeForStatus(static_cast<StatusCode>(c));
        }
      }
      throw CliError(exit_code, path + ": " + code + ": " + e["message"].get<std::string>());
    }
    return kExitOk;
  });
}
