// l3dump: shows the layout of an .l3 file (docs/cli.md).
#include <cstdio>
#include <string>

#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/reading.hpp"
#include "dump.hpp"
#include "common/text_safety.hpp"

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
    // Strings from the file may be any bytes (writer name, metadata,
    // timezone): JSON output replaces invalid UTF-8 with U+FFFD instead of
    // failing, and text output shows control bytes as \xNN.
    std::string text = args.Has("json")
                           ? dump.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"
                           : EscapeControlBytes(RenderText(dump));
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
