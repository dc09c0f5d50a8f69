// errors.hpp: exit codes and the error type of the command-line tools.
//
// The tools are applications, not a library: inside them a failure is thrown
// as a CliError and caught once, in main(), which prints it as one line on
// stderr and returns its exit code. SDK calls return l3::Status; Check()
// turns a failed Status into a CliError whose exit code encodes the
// StatusCode (kExitStatusBase + code), so a script can tell a corrupt file
// from a missing one. The table is documented in docs/cli.md.
#pragma once

#include <stdexcept>
#include <string>

#include "l3/status.hpp"

namespace l3::cli {

inline constexpr int kExitOk = 0;
/// An unexpected failure (a bug in the tool or an exception it did not expect).
inline constexpr int kExitFailure = 1;
/// The command line is wrong: unknown option, missing argument, bad number,
/// row range past the end, unknown column.
inline constexpr int kExitUsage = 2;
/// An input file is readable but its contents are not acceptable: malformed
/// CSV, unsupported .npy dtype, raw size not a multiple of the type size,
/// a value out of range for the column type, columns of unequal length.
inline constexpr int kExitBadInput = 3;
/// A check of the data failed: `l3 demo` found a column that did not read
/// back identically.
inline constexpr int kExitMismatch = 4;
/// SDK errors exit with kExitStatusBase + l3::StatusCode (e.g. 12 IO_ERROR,
/// 20 CORRUPT_METADATA). Codes are stable because StatusCode values are.
inline constexpr int kExitStatusBase = 10;

int ExitCodeForStatus(StatusCode code);

/// The exit-code table, for --help texts.
const char* ExitCodeHelp();

class CliError : public std::runtime_error {
 public:
  CliError(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

[[noreturn]] void ThrowUsage(const std::string& message);
[[noreturn]] void ThrowBadInput(const std::string& message);
/// An I/O failure of the tool itself (cannot open, read or write a file):
/// reported like the SDK's IO_ERROR, with the system's reason appended.
[[noreturn]] void ThrowIo(const std::string& what, int errno_value);

/// Throws a CliError for a failed Status; `context` (usually a file name)
/// prefixes the message: "data.l3: CORRUPT_METADATA: partition 3: ...".
void Check(const Status& status, const std::string& context);

template <typename T>
T Check(Result<T> result, const std::string& context) {
  Check(result.status(), context);
  return std::move(result).value();
}

/// Runs `body` and turns every error into one line on stderr prefixed with
/// `program`, and an exit code. Never lets an exception escape.
template <typename Body>
int RunMain(const char* program, Body&& body);

int ReportError(const char* program, const std::exception* error, int exit_code);

template <typename Body>
int RunMain(const char* program, Body&& body) {
  try {
    return body();
  } catch (const CliError& e) {
    return ReportError(program, &e, e.exit_code());
  } catch (const std::bad_alloc& e) {
    return ReportError(program, &e, ExitCodeForStatus(StatusCode::kOutOfMemory));
  } catch (const std::exception& e) {
    return ReportError(program, &e, kExitFailure);
  } catch (...) {
    return ReportError(program, nullptr, kExitFailure);
  }
}

}  // namespace l3::cli
