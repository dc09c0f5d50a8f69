// reading.hpp: opening .l3 files and selecting columns, for both tools.
#pragma once

#include <string>
#include <vector>

#include "common/args.hpp"
#include "l3/l3.hpp"

namespace l3::cli {

/// Opens `path` with the SDK ("-" reads the whole of standard input). A file
/// that cannot be opened at all is reported as IO_ERROR with the system's
/// reason; everything else as the SDK's error class:
/// "bad.l3: CORRUPT_FOOTER: ...".
Reader OpenReader(const std::string& path, const ReadOptions& options = {});

/// Resolves a --column argument: a column name, else a 0-based index.
/// Throws kExitUsage naming the file's columns when neither matches.
int ResolveColumn(const Reader& reader, const std::string& spec, const std::string& path);

/// Resolves every spec in order; all columns when `specs` is empty.
std::vector<int> ResolveColumns(const Reader& reader, const std::vector<std::string>& specs,
                                const std::string& path);

/// "l3 0.1.0 (L3 SDK 0.1.0, format 1.0)".
std::string VersionText(const std::string& program);

/// Handles --help and --version: prints to stdout and returns true if
/// either was given. `tool` is "l3" or "l3dump".
bool PrintHelpOrVersion(const ArgParser& parser, const ArgParser::Parsed& args,
                        const std::string& tool);

}  // namespace l3::cli
