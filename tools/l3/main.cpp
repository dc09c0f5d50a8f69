// l3: compress integer columns to .l3 files and read them back (docs/cli.md).
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/reading.hpp"

namespace {

const char kUsage[] =
    "Usage: l3 COMMAND [options] [args]\n"
    "\n"
    "Compresses integer columns into .l3 files (learned lossless lightweight\n"
    "compression) and reads them back.\n"
    "\n"
    "Commands:\n"
    "  compress    raw, .npy or CSV input -> .l3\n"
    "  decompress  .l3 -> raw, .npy or CSV\n"
    "  cat         print values of a row range on stdout\n"
    "  validate    structural (default) or deep checks; the exit code names the failure\n"
    "  info        a short summary of a file\n"
    "  lookup      key -> row in a sorted column with a PGM index\n"
    "  scan        rows where a column satisfies predicates, with count and sum\n"
    "  demo        compress built-in sample columns, check they read back, print ratios\n"
    "\n"
    "Run 'l3 COMMAND --help' for a command's options. 'l3dump FILE.l3' shows a\n"
    "file's layout in detail.\n"
    "\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace l3::cli;
  InstallCleanupHandlers();
  return RunMain("l3", [&]() -> int {
    if (argc < 2) {
      std::fputs(kUsage, stderr);
      std::fputs(ExitCodeHelp(), stderr);
      return kExitUsage;
    }
    std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kUsage, stdout);
      std::fputs(ExitCodeHelp(), stdout);
      return kExitOk;
    }
    if (command == "--version") {
      std::printf("%s\n", VersionText("l3").c_str());
      return kExitOk;
    }
    struct Entry {
      const char* name;
      int (*run)(int, char**);
    };
    static const Entry kCommands[] = {{"compress", RunCompress}, {"decompress", RunDecompress},
                                      {"cat", RunCat},           {"validate", RunValidate},
                                      {"info", RunInfo},         {"demo", RunDemo},
                                      {"lookup", RunLookup},     {"scan", RunScan}};
    for (const Entry& e : kCommands) {
      if (command == e.name) return e.run(argc - 1, argv + 1);
    }
    ThrowUsage("unknown command '" + command + "' (see 'l3 --help')");
  });
}
