#include "common/args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/errors.hpp"

namespace l3::cli {

ArgParser::ArgParser(std::string program, std::string usage, std::string description)
    : program_(std::move(program)), usage_(std::move(usage)), description_(std::move(description)) {
  Flag("help", "show this help and exit", 'h');
  Flag("version", "show the tool, SDK and format versions and exit");
}

ArgParser& ArgParser::Flag(const std::string& name, const std::string& help, char alias) {
  specs_.push_back(Spec{name, "", help, alias, false});
  return *this;
}

ArgParser& ArgParser::Option(const std::string& name, const std::string& value_name,
                             const std::string& help, char alias, bool repeatable) {
  specs_.push_back(Spec{name, value_name, help, alias, repeatable});
  return *this;
}

ArgParser& ArgParser::Epilog(const std::string& text) {
  epilog_ = text;
  return *this;
}

const ArgParser::Spec* ArgParser::Find(const std::string& name) const {
  for (const Spec& spec : specs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const ArgParser::Spec* ArgParser::FindAlias(char alias) const {
  for (const Spec& spec : specs_) {
    if (alias != 0 && spec.alias == alias) return &spec;
  }
  return nullptr;
}

ArgParser::Parsed ArgParser::Parse(int argc, char** argv, int first) const {
  Parsed parsed;
  bool options_done = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg == "-" || arg.size() < 2 || arg[0] != '-') {
      parsed.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const Spec* spec = nullptr;
    std::string spelled;
    std::optional<std::string> inline_value;
    if (arg[1] == '-') {
      std::string name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
      spec = Find(name);
      spelled = "--" + name;
    } else if (arg.size() == 2) {
      spec = FindAlias(arg[1]);
      spelled = arg;
    } else if (const Spec* s = FindAlias(arg[1]); s != nullptr && !s->value_name.empty()) {
      spec = s;  // "-oFILE"
      spelled = arg.substr(0, 2);
      inline_value = arg.substr(2);
    } else {
      spelled = arg;
    }
    if (spec == nullptr) {
      ThrowUsage("unknown option '" + spelled + "' (see '" + program_ + " --help')");
    }
    std::string value;
    if (spec->value_name.empty()) {
      if (inline_value) ThrowUsage("option '" + spelled + "' takes no value");
    } else if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      ThrowUsage("option '" + spelled + "' needs a value " + spec->value_name);
    }
    auto& slot = parsed.values[spec->name];
    if (!slot.empty() && !spec->repeatable) {
      ThrowUsage("option '--" + spec->name + "' given more than once");
    }
    slot.push_back(value);
  }
  return parsed;
}

std::string ArgParser::Parsed::Get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.empty()) return fallback;
  return it->second.back();
}

const std::vector<std::string>& ArgParser::Parsed::GetAll(const std::string& name) const {
  static const std::vector<std::string> kEmpty;
  auto it = values.find(name);
  return it == values.end() ? kEmpty : it->second;
}

std::string ArgParser::Help() const {
  std::string out = "Usage: " + usage_ + "\n\n" + description_ + "\n\nOptions:\n";
  for (const Spec& spec : specs_) {
    std::string left = "  ";
    left += spec.alias != 0 ? std::string("-") + spec.alias + ", " : "    ";
    left += "--" + spec.name;
    if (!spec.value_name.empty()) left += " " + spec.value_name;
    if (left.size() < 28) {
      left.resize(28, ' ');
    } else {
      left += "\n" + std::string(28, ' ');
    }
    out += left + spec.help + "\n";
  }
  if (!epilog_.empty()) out += "\n" + epilog_;
  if (out.back() != '\n') out += '\n';
  return out;
}

uint64_t ParseUnsigned(const std::string& text, const std::string& option, uint64_t min_value,
                       uint64_t max_value) {
  bool digits = !text.empty();
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  errno = 0;
  char* end = nullptr;
  unsigned long long v = digits ? std::strtoull(text.c_str(), &end, 10) : 0;
  if (!digits || errno == ERANGE || *end != '\0') {
    ThrowUsage(option + ": '" + text + "' is not an unsigned integer");
  }
  if (v < min_value || v > max_value) {
    ThrowUsage(option + ": " + text + " is outside [" + std::to_string(min_value) + ", " +
               std::to_string(max_value) + "]");
  }
  return v;
}

int64_t ParseSigned(const std::string& text, const std::string& option, int64_t min_value,
                    int64_t max_value) {
  size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  bool digits = text.size() > start;
  for (size_t i = start; i < text.size(); ++i) digits = digits && text[i] >= '0' && text[i] <= '9';
  errno = 0;
  char* end = nullptr;
  long long v = digits ? std::strtoll(text.c_str(), &end, 10) : 0;
  if (!digits || errno == ERANGE || *end != '\0') {
    ThrowUsage(option + ": '" + text + "' is not an integer");
  }
  if (v < min_value || v > max_value) {
    ThrowUsage(option + ": " + text + " is outside [" + std::to_string(min_value) + ", " +
               std::to_string(max_value) + "]");
  }
  return v;
}

double ParseDouble(const std::string& text, const std::string& option) {
  errno = 0;
  char* end = nullptr;
  double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || errno == ERANGE || *end != '\0' || !std::isfinite(v)) {
    ThrowUsage(option + ": '" + text + "' is not a number");
  }
  return v;
}

RowRange ParseRowRange(const std::string& text, uint64_t num_rows) {
  RowRange range;
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    range.begin = ParseUnsigned(text, "--rows");
    range.end = range.begin + 1;
    if (range.begin >= num_rows) {
      ThrowUsage("--rows " + text + ": row " + std::to_string(range.begin) +
                 " is past the end (" + std::to_string(num_rows) + " rows)");
    }
    return range;
  }
  std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  range.begin = a.empty() ? 0 : ParseUnsigned(a, "--rows");
  range.end = b.empty() ? num_rows : ParseUnsigned(b, "--rows");
  if (range.begin > range.end) {
    ThrowUsage("--rows " + text + ": the start is after the end");
  }
  if (range.end > num_rows) {
    ThrowUsage("--rows " + text + ": past the end (" + std::to_string(num_rows) + " rows)");
  }
  return range;
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    out.push_back(text.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

}  // namespace l3::cli
