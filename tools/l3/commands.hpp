// commands.hpp: the subcommands of `l3`. Each takes the arguments after its
// name (argv[0] is the subcommand) and returns the process exit code; errors
// are thrown as CliError and reported by main().
#pragma once

namespace l3::cli {

int RunCompress(int argc, char** argv);
int RunDecompress(int argc, char** argv);
int RunCat(int argc, char** argv);
int RunValidate(int argc, char** argv);
int RunInfo(int argc, char** argv);
int RunDemo(int argc, char** argv);
int RunLookup(int argc, char** argv);
int RunScan(int argc, char** argv);

}  // namespace l3::cli
