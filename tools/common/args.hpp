// args.hpp: a small command-line parser shared by l3 and l3dump.
//
// Grammar: options are "--name", "--name VALUE", "--name=VALUE" or a declared
// one-letter alias ("-o VALUE"); "--" ends the options; everything else is a
// positional argument. Unknown options and missing values are usage errors
// (CliError with kExitUsage), reported with the option's spelling.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace l3::cli {

class ArgParser {
 public:
  /// `usage` is the synopsis after "Usage: "; `description` follows it.
  ArgParser(std::string program, std::string usage, std::string description);

  /// A boolean option. --help and --version are always declared.
  ArgParser& Flag(const std::string& name, const std::string& help, char alias = 0);
  /// An option that takes a value; `repeatable` allows it several times.
  ArgParser& Option(const std::string& name, const std::string& value_name,
                    const std::string& help, char alias = 0, bool repeatable = false);
  /// Text appended to --help (examples, exit codes).
  ArgParser& Epilog(const std::string& text);

  struct Parsed {
    std::vector<std::string> positionals;
    std::map<std::string, std::vector<std::string>> values;  ///< by option name, in order

    bool Has(const std::string& name) const { return values.count(name) != 0; }
    /// The value of an option given at most once, or `fallback`.
    std::string Get(const std::string& name, const std::string& fallback = "") const;
    const std::vector<std::string>& GetAll(const std::string& name) const;
  };

  /// Parses argv[first..argc). Throws CliError(kExitUsage) on errors.
  Parsed Parse(int argc, char** argv, int first = 1) const;
  std::string Help() const;
  const std::string& program() const { return program_; }

 private:
  struct Spec {
    std::string name;
    std::string value_name;  ///< empty for flags
    std::string help;
    char alias = 0;
    bool repeatable = false;
  };
  const Spec* Find(const std::string& name) const;
  const Spec* FindAlias(char alias) const;

  std::string program_, usage_, description_, epilog_;
  std::vector<Spec> specs_;
};

// Number parsing for option values. Each throws CliError(kExitUsage) naming
// the option: "--chunk-rows: 'abc' is not an unsigned integer".
uint64_t ParseUnsigned(const std::string& text, const std::string& option,
                       uint64_t min_value = 0, uint64_t max_value = UINT64_MAX);
int64_t ParseSigned(const std::string& text, const std::string& option, int64_t min_value,
                    int64_t max_value);
double ParseDouble(const std::string& text, const std::string& option);

/// Parses "A:B", "A:", ":B", ":" or "A" (one row) into a half-open range
/// within [0, num_rows). Throws kExitUsage when empty-inverted or past the end.
struct RowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};
RowRange ParseRowRange(const std::string& text, uint64_t num_rows);

/// Splits on `sep`, keeping empty items.
std::vector<std::string> Split(const std::string& text, char sep);

}  // namespace l3::cli
