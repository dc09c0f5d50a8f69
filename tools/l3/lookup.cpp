// l3 lookup: key -> row through the PGM index of a sorted column (spec §11.3).
#include <cstdio>
#include <limits>
#include <string>

#include "commands.hpp"
#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/reading.hpp"

namespace l3::cli {

int RunLookup(int argc, char** argv) {
  ArgParser parser("l3 lookup", "l3 lookup INPUT.l3 --column NAME KEY...",
                   "Finds keys in a sorted column through its PGM index (written by\n"
                   "'l3 compress --pgm'), decoding only the rows of each key's search window.\n"
                   "Prints one line per key: the key, the first row whose value is >= the key\n"
                   "(the row count if none), and 'found' or 'absent'.");
  parser.Option("column", "NAME", "the column to search")
      .Epilog("Examples:\n"
              "  l3 compress --pgm --type u64 ids.bin -o ids.l3\n"
              "  l3 lookup ids.l3 --column ids 625025 10862649127\n\n" +
              std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.size() < 2) ThrowUsage("expected an input .l3 file and keys (see 'l3 lookup --help')");
  if (!args.Has("column")) ThrowUsage("--column is required");
  const std::string path = args.positionals[0];
  Reader reader = OpenReader(path);
  const int column = Check(reader.FindColumn(args.Get("column")), path);
  const bool is_signed = PhysicalTypeIsSigned(reader.column(column).type);
  std::string out;
  for (size_t i = 1; i < args.positionals.size(); ++i) {
    const std::string& text = args.positionals[i];
    const uint64_t key =
        is_signed ? static_cast<uint64_t>(ParseSigned(text, "KEY", std::numeric_limits<int64_t>::min(),
                                                      std::numeric_limits<int64_t>::max()))
                  : ParseUnsigned(text, "KEY", 0, std::numeric_limits<uint64_t>::max());
    const uint64_t row = Check(reader.LowerBound(column, key), path);
    const auto found = Check(reader.Find(column, key), path);
    out += text + "\t" + std::to_string(row) + "\t" + (found ? "found" : "absent") + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace l3::cli
