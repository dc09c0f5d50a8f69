// End-to-end tests of hostile strings in a file (issue 13, docs/cli.md
// "l3dump"): a writer name, metadata, column names and a timezone holding
// terminal escapes, line breaks, C1 controls and bytes that are not UTF-8.
// l3dump --json must succeed with valid (ASCII) JSON; text output of l3dump
// and l3 info, and error messages, must show such bytes as \xNN.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "e2e_process.hpp"
#include "l3/l3.hpp"

using namespace l3::e2e;

namespace {

// The hostile strings. Column names must be valid UTF-8 (the SDK checks),
// so they carry controls only; the others carry anything.
const std::string kName = "a\x1b]0;owned\x07\nb\xc2\x9b" "31m";  // OSC, BEL, newline, U+009B
const std::string kKey = "k\xff\x1b[2J";                          // stray byte, ESC
const std::string kValue = "v\x9b" "31m\t\xe2\x82";                // lone C1 byte, tab, truncated
const std::string kZone = "Europe/\xc0\xaf\x7f";                   // overlong, DEL
const std::string kWriter = "\x1b[2J\xff\x9b";                     // 6 bytes, as "l3-cpp"

/// Writes a file with those strings through the public SDK API, then
/// patches the writer name with l3_testfile (the SDK writes its own name).
bool MakeHostileFile(const ScratchDir& dir, const std::string& path) {
  std::vector<l3::ColumnSpec> columns(2);
  columns[0].name = kName;
  columns[0].type = l3::PhysicalType::kUInt32;
  columns[1].name = "ts";
  columns[1].type = l3::PhysicalType::kInt64;
  columns[1].logical.kind = l3::LogicalKind::kTimestamp;
  columns[1].logical.time_unit = l3::TimeUnit::kMillisecond;
  columns[1].logical.timezone = kZone;
  l3::WriteOptions options;
  options.metadata.emplace_back(kKey, kValue);
  const std::string plain = dir / "plain.l3";
  auto writer = l3::Writer::Create(plain, columns, options);
  if (!writer.ok()) return false;
  const uint32_t a[3] = {1, 2, 3};
  const int64_t ts[3] = {1000, 2000, 3000};
  if (!writer->Append(0, a, 3).ok() || !writer->Append(1, ts, 3).ok()) return false;
  if (!writer->Close().ok()) return false;
  return Run({Tool("l3_testfile"), plain, path, "--writer-name", kWriter}) == 0;
}

/// Whether `text` holds no C0 control other than newline, no DEL, no C1
/// control and only well-formed UTF-8 (checked as ASCII or a UTF-8 lead
/// byte followed by continuation bytes; overlong forms are not expected).
std::string FirstUnsafeByte(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<uint8_t>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7F) return "control byte at " + std::to_string(i);
    if (c < 0x80) continue;
    size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || i + len > text.size()) return "stray byte at " + std::to_string(i);
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<uint8_t>(text[i + k]) & 0xC0) != 0x80) return "bad UTF-8 at " + std::to_string(i);
    }
    if (c == 0xC2 && static_cast<uint8_t>(text[i + 1]) < 0xA0) return "C1 control at " + std::to_string(i);
    i += len - 1;
  }
  return "";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("strings") {

TEST_CASE("l3dump --json on a file with invalid UTF-8: valid ASCII JSON, U+FFFD per bad byte") {
  ScratchDir dir;
  REQUIRE(dir.ok());
  const std::string file = dir / "hostile.l3";
  REQUIRE(MakeHostileFile(dir, file));
  const int rc = Run({Tool("l3dump"), "--json", "--partitions", file}, dir / "out.json", dir / "err.txt");
  const std::string out = ReadFile(dir / "out.json");
  INFO("stderr: " << ReadFile(dir / "err.txt"));
  CHECK(rc == 0);
  CHECK(ReadFile(dir / "err.txt").empty());
  bool ascii = true;
  for (char c : out) ascii = ascii && static_cast<uint8_t>(c) < 0x80;
  CHECK_MESSAGE(ascii, "the JSON output is not ASCII");
  // Controls are JSON escapes; each byte that is not UTF-8 is one U+FFFD.
  CHECK(Contains(out, R"("name": "\u001b[2J\ufffd\ufffd")"));
  CHECK(Contains(out, R"("key": "k\ufffd\u001b[2J")"));
  CHECK(Contains(out, R"("value": "v\ufffd31m\t\ufffd\ufffd")"));
  CHECK(Contains(out, R"("name": "a\u001b]0;owned\u0007\nb\u009b31m")"));
  CHECK(Contains(out, R"("timezone": "Europe/\ufffd\ufffd\u007f")"));
}

TEST_CASE("l3dump and l3 info text output: controls and stray bytes as \\xNN, one line per field") {
  ScratchDir dir;
  REQUIRE(dir.ok());
  const std::string file = dir / "hostile.l3";
  REQUIRE(MakeHostileFile(dir, file));
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{Tool("l3dump"), "--partitions", file},
        std::vector<std::string>{Tool("l3"), "info", file}}) {
    const int rc = Run(cmd, dir / "out.txt", dir / "err.txt");
    const std::string out = ReadFile(dir / "out.txt");
    INFO(cmd[0] << " " << cmd[1] << "\n" << out);
    CHECK(rc == 0);
    CHECK(ReadFile(dir / "err.txt").empty());
    CHECK(FirstUnsafeByte(out) == "");
    // The writer name and column name, escaped, each on one line.
    CHECK(Contains(out, "\\x1b[2J\\xff\\x9b"));
    CHECK(Contains(out, "a\\x1b]0;owned\\x07\\x0ab\\xc2\\x9b31m"));
    if (cmd[0] == Tool("l3dump")) {
      CHECK(Contains(out, "\nmetadata         k\\xff\\x1b[2J=v\\x9b31m\\x09\\xe2\\x82\n"));
      CHECK(Contains(out, "Europe/\\xc0\\xaf\\x7f"));
      CHECK(Contains(out, "\ncolumn 0 \"a\\x1b]0;owned\\x07\\x0ab\\xc2\\x9b31m\": u32, 3 rows"));
    }
  }
}

TEST_CASE("an error message quoting hostile bytes reaches stderr as \\xNN") {
  ScratchDir dir;
  REQUIRE(dir.ok());
  const std::string file = dir / "hostile.l3";
  REQUIRE(MakeHostileFile(dir, file));
  const int rc = Run({Tool("l3"), "cat", file, "--column", "x\x1b[2J\x9b"}, dir / "out.txt",
                     dir / "err.txt");
  const std::string err = ReadFile(dir / "err.txt");
  CHECK(rc == 2);
  CHECK(Contains(err, "x\\x1b[2J\\x9b"));
  CHECK(FirstUnsafeByte(err) == "");
}

}  // TEST_SUITE
