#include "common/reading.hpp"

#include <cerrno>
#include <cstdio>

#include "common/errors.hpp"
#include "common/files.hpp"
#include "l3/version.hpp"

namespace l3::cli {

Reader OpenReader(const std::string& path, const ReadOptions& options) {
  if (path == "-") {
    // Reader::OpenBuffer borrows the bytes, so they live as long as the
    // process; standard input can be read only once anyway.
    static std::vector<uint8_t> bytes;
    InputFile in("-");
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = in.Read(buf, sizeof(buf))) > 0) bytes.insert(bytes.end(), buf, buf + n);
    return Check(Reader::OpenBuffer(bytes.data(), bytes.size(), options), "standard input");
  }
  // The SDK reports a missing file as IO_ERROR too; opening it here first
  // adds the system's reason ("No such file or directory").
  { InputFile probe(path); }
  return Check(Reader::Open(path, options), path);
}

int ResolveColumn(const Reader& reader, const std::string& spec, const std::string& path) {
  Result<int> by_name = reader.FindColumn(spec);
  if (by_name.ok()) return *by_name;
  if (!spec.empty() && spec.size() < 10 && spec.find_first_not_of("0123456789") == std::string::npos) {
    int index = std::stoi(spec);
    if (index < reader.num_columns()) return index;
  }
  std::string list;
  for (int c = 0; c < reader.num_columns() && c < 16; ++c) {
    list += (c ? ", " : "") + reader.column(c).name;
  }
  if (reader.num_columns() > 16) list += ", ...";
  ThrowUsage(path + ": no column '" + spec + "' (it has " + std::to_string(reader.num_columns()) +
             ": " + list + ")");
}

std::vector<int> ResolveColumns(const Reader& reader, const std::vector<std::string>& specs,
                                const std::string& path) {
  std::vector<int> out;
  if (specs.empty()) {
    for (int c = 0; c < reader.num_columns(); ++c) out.push_back(c);
  }
  for (const std::string& spec : specs) out.push_back(ResolveColumn(reader, spec, path));
  return out;
}

std::string VersionText(const std::string& program) {
  return program + " " + L3_VERSION_STRING + " (L3 SDK " + LibraryVersion() + ", format " +
         std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) + ")";
}

bool PrintHelpOrVersion(const ArgParser& parser, const ArgParser::Parsed& args,
                        const std::string& tool) {
  if (args.Has("help")) {
    std::fputs(parser.Help().c_str(), stdout);
    return true;
  }
  if (args.Has("version")) {
    std::printf("%s\n", VersionText(tool).c_str());
    return true;
  }
  return false;
}

}  // namespace l3::cli
