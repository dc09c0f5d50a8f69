#include "common/errors.hpp"

#include <cstdio>
#include <cstring>

#include "common/text_safety.hpp"

namespace l3::cli {

int ExitCodeForStatus(StatusCode code) {
  if (code == StatusCode::kOk) return kExitOk;
  return kExitStatusBase + static_cast<int>(code);
}

const char* ExitCodeHelp() {
  return "Exit codes:\n"
         "  0   success\n"
         "  1   unexpected internal failure\n"
         "  2   usage error (bad option, argument, column or row range)\n"
         "  3   bad input data (CSV syntax, .npy dtype, raw size, value out of range)\n"
         "  4   data mismatch (l3 demo: a column did not read back identically)\n"
         "  10+ SDK error, 10 + l3::StatusCode:\n"
         "      11 INVALID_ARGUMENT     12 IO_ERROR           13 NOT_L3\n"
         "      14 TRUNCATED            15 CHECKSUM_MISMATCH  16 UNSUPPORTED_VERSION\n"
         "      17 UNSUPPORTED_FEATURE  18 CORRUPT_FRAMING    19 CORRUPT_FOOTER\n"
         "      20 CORRUPT_METADATA     21 CORRUPT_PAYLOAD    22 RESOURCE_LIMIT\n"
         "      23 OUT_OF_RANGE         24 BUFFER_TOO_SMALL   25 OUT_OF_MEMORY\n"
         "      26 BACKEND_UNAVAILABLE  27 DEVICE_ERROR       28 INTERNAL\n"
         "  128+N killed or interrupted by signal N (130 Ctrl-C, 143 SIGTERM)\n";
}

void ThrowUsage(const std::string& message) { throw CliError(kExitUsage, message); }

void ThrowBadInput(const std::string& message) { throw CliError(kExitBadInput, message); }

void ThrowIo(const std::string& what, int errno_value) {
  std::string message = what;
  if (errno_value != 0) {
    message += ": ";
    message += std::strerror(errno_value);
  }
  throw CliError(ExitCodeForStatus(StatusCode::kIoError), message);
}

void Check(const Status& status, const std::string& context) {
  if (status.ok()) return;
  std::string message = context.empty() ? status.ToString() : context + ": " + status.ToString();
  throw CliError(ExitCodeForStatus(status.code()), message);
}

int ReportError(const char* program, const std::exception* error, int exit_code) {
  std::string text = error != nullptr ? error->what() : "unknown error";
  if (exit_code == ExitCodeForStatus(StatusCode::kOutOfMemory) &&
      dynamic_cast<const CliError*>(error) == nullptr) {
    text = "out of memory";
  }
  // One line: a message that spans lines would break `2>&1 | grep`.
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  // Messages may quote strings from a file (column names, metadata): no
  // control character or stray byte reaches the terminal.
  text = TerminalSafe(text);
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", program, text.c_str());
  return exit_code;
}

}  // namespace l3::cli
