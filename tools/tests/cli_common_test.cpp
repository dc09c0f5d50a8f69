// Unit tests of the code the l3 and l3dump tools share: argument parsing,
// integer text, type inference, CSV and .npy handling, output files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/args.hpp"
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/npy.hpp"
#include "common/text_safety.hpp"
#include "common/progress.hpp"
#include "common/values.hpp"

using namespace l3;
using namespace l3::cli;

namespace {

/// The exit code and message of the CliError `body` throws.
template <typename Body>
std::pair<int, std::string> ErrorOf(Body&& body) {
  try {
    body();
  } catch (const CliError& e) {
    return {e.exit_code(), e.what()};
  }
  return {0, ""};
}

/// A FILE* over `text` (fmemopen needs a writable buffer that outlives it).
struct MemFile {
  explicit MemFile(std::string text) : data(std::move(text)) {
    file = fmemopen(data.empty() ? nullptr : data.data(), data.size(), "r");
    if (data.empty()) file = std::tmpfile();
  }
  ~MemFile() { std::fclose(file); }
  std::string data;
  std::FILE* file;
};

CsvTable Csv(const std::string& text, const CsvOptions& options = {}) {
  MemFile f(text);
  return ReadCsv(f.file, "t.csv", options);
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> out;
  for (std::string& a : args) out.push_back(a.data());
  return out;
}

}  // namespace

TEST_CASE("exit codes follow the StatusCode table") {
  CHECK(ExitCodeForStatus(StatusCode::kOk) == 0);
  CHECK(ExitCodeForStatus(StatusCode::kIoError) == 12);
  CHECK(ExitCodeForStatus(StatusCode::kCorruptMetadata) == 20);
  CHECK(ExitCodeForStatus(StatusCode::kInternal) == 28);
  auto [code, message] = ErrorOf([] {
    Check(Status(StatusCode::kTruncated, "file is 10 bytes"), "x.l3");
  });
  CHECK(code == 14);
  CHECK(message == "x.l3: TRUNCATED: file is 10 bytes");
}

TEST_CASE("argument parser") {
  ArgParser parser("t", "t [options] IN", "test");
  parser.Option("output", "FILE", "output", 'o').Option("column", "C", "col", 0, true).Flag("deep", "d");
  std::vector<std::string> args = {"t", "in.bin", "-o", "out.l3", "--column=a", "--column", "b",
                                   "--deep", "--", "--not-an-option"};
  auto argv = Argv(args);
  auto parsed = parser.Parse(static_cast<int>(argv.size()), argv.data());
  CHECK(parsed.positionals == std::vector<std::string>{"in.bin", "--not-an-option"});
  CHECK(parsed.Get("output") == "out.l3");
  CHECK(parsed.GetAll("column") == std::vector<std::string>{"a", "b"});
  CHECK(parsed.Has("deep"));
  CHECK_FALSE(parsed.Has("help"));

  std::vector<std::string> attached = {"t", "-oX"};
  auto argv2 = Argv(attached);
  CHECK(parser.Parse(2, argv2.data()).Get("output") == "X");

  for (std::vector<std::string> bad :
       {std::vector<std::string>{"t", "--bogus"}, {"t", "-o"}, {"t", "--deep=1"},
        {"t", "-o", "a", "-o", "b"}, {"t", "-x"}}) {
    auto argv3 = Argv(bad);
    auto [code, message] = ErrorOf([&] { parser.Parse(static_cast<int>(argv3.size()), argv3.data()); });
    CHECK(code == kExitUsage);
    CHECK(!message.empty());
  }
  CHECK(parser.Help().find("--output FILE") != std::string::npos);
}

TEST_CASE("numbers and row ranges in options") {
  CHECK(ParseUnsigned("4096", "--chunk-rows") == 4096);
  CHECK(ParseUnsigned("18446744073709551615", "--x") == UINT64_MAX);
  CHECK(ErrorOf([] { ParseUnsigned("18446744073709551616", "--x"); }).first == kExitUsage);
  CHECK(ErrorOf([] { ParseUnsigned("-1", "--x"); }).second == "--x: '-1' is not an unsigned integer");
  CHECK(ErrorOf([] { ParseUnsigned("5", "--x", 6, 9); }).second == "--x: 5 is outside [6, 9]");
  CHECK(ParseSigned("-3", "--x", -5, 5) == -3);
  CHECK(ParseDouble("0.25", "--x") == 0.25);
  CHECK(ErrorOf([] { ParseDouble("nan", "--x"); }).first == kExitUsage);

  RowRange r = ParseRowRange("10:20", 100);
  CHECK((r.begin == 10 && r.end == 20));
  r = ParseRowRange(":", 100);
  CHECK((r.begin == 0 && r.end == 100));
  r = ParseRowRange("90:", 100);
  CHECK((r.begin == 90 && r.end == 100));
  r = ParseRowRange("7", 100);
  CHECK((r.begin == 7 && r.end == 8));
  r = ParseRowRange("100:100", 100);
  CHECK(r.size() == 0);
  CHECK(ErrorOf([] { ParseRowRange("5:101", 100); }).first == kExitUsage);
  CHECK(ErrorOf([] { ParseRowRange("6:5", 100); }).first == kExitUsage);
  CHECK(ErrorOf([] { ParseRowRange("100", 100); }).first == kExitUsage);
  CHECK(ErrorOf([] { ParseRowRange("a:b", 100); }).first == kExitUsage);
}

TEST_CASE("integer text") {
  ParsedInt v;
  CHECK(ParseInteger("0", &v) == ParseIntError::kOk);
  CHECK((v.bits == 0 && !v.negative));
  CHECK(ParseInteger("-0", &v) == ParseIntError::kOk);
  CHECK((v.bits == 0 && !v.negative));
  CHECK(ParseInteger("+17", &v) == ParseIntError::kOk);
  CHECK(v.bits == 17);
  CHECK(ParseInteger("-9223372036854775808", &v) == ParseIntError::kOk);
  CHECK((v.negative && v.bits == uint64_t{1} << 63));
  CHECK(ParseInteger("-9223372036854775809", &v) == ParseIntError::kOutOfRange);
  CHECK(ParseInteger("18446744073709551615", &v) == ParseIntError::kOk);
  CHECK(v.bits == UINT64_MAX);
  CHECK(ParseInteger("18446744073709551616", &v) == ParseIntError::kOutOfRange);
  CHECK(ParseInteger("226802.0", &v) == ParseIntError::kOk);
  CHECK(v.bits == 226802);
  CHECK(ParseInteger("12.", &v) == ParseIntError::kOk);
  for (const char* bad : {"", "-", "abc", "1.5", "1e3", "0x10", " 1", "1 ", ".0", "--1"}) {
    CAPTURE(bad);
    CHECK(ParseInteger(bad, &v) == ParseIntError::kNotInteger);
  }
  CHECK(ParsedIntText(ParsedInt{static_cast<uint64_t>(-5), true}) == "-5");
}

TEST_CASE("type ranges and inference") {
  CHECK(Fits(ParsedInt{127, false}, PhysicalType::kInt8));
  CHECK_FALSE(Fits(ParsedInt{128, false}, PhysicalType::kInt8));
  CHECK(Fits(ParsedInt{static_cast<uint64_t>(-128), true}, PhysicalType::kInt8));
  CHECK_FALSE(Fits(ParsedInt{static_cast<uint64_t>(-129), true}, PhysicalType::kInt8));
  CHECK_FALSE(Fits(ParsedInt{static_cast<uint64_t>(-1), true}, PhysicalType::kUInt64));
  CHECK(Fits(ParsedInt{UINT64_MAX, false}, PhysicalType::kUInt64));
  CHECK_FALSE(Fits(ParsedInt{UINT64_MAX, false}, PhysicalType::kInt64));
  CHECK(Fits(ParsedInt{65535, false}, PhysicalType::kUInt16));
  CHECK_FALSE(Fits(ParsedInt{65536, false}, PhysicalType::kUInt16));
  CHECK(TypeRangeText(PhysicalType::kInt8) == "[-128, 127]");
  CHECK(TypeRangeText(PhysicalType::kUInt64) == "[0, 18446744073709551615]");
  CHECK(TypeRangeText(PhysicalType::kInt64) == "[-9223372036854775808, 9223372036854775807]");

  auto infer = [](std::vector<int64_t> values, InferMode mode) {
    ValueStats stats;
    for (int64_t x : values) stats.Add(ParsedInt{static_cast<uint64_t>(x), x < 0});
    PhysicalType t = PhysicalType::kFloat32;
    REQUIRE(InferType(stats, mode, &t));
    return t;
  };
  CHECK(infer({0, 255}, InferMode::kNarrow) == PhysicalType::kUInt8);
  CHECK(infer({0, 256}, InferMode::kNarrow) == PhysicalType::kUInt16);
  CHECK(infer({-1, 127}, InferMode::kNarrow) == PhysicalType::kInt8);
  CHECK(infer({-1, 128}, InferMode::kNarrow) == PhysicalType::kInt16);
  CHECK(infer({-2147483648LL, 5}, InferMode::kNarrow) == PhysicalType::kInt32);
  CHECK(infer({-2147483649LL}, InferMode::kNarrow) == PhysicalType::kInt64);
  CHECK(infer({0, 4294967296LL}, InferMode::kNarrow) == PhysicalType::kUInt64);
  CHECK(infer({}, InferMode::kNarrow) == PhysicalType::kUInt8);
  CHECK(infer({0, 255}, InferMode::kWide) == PhysicalType::kInt64);

  ValueStats huge;
  huge.Add(ParsedInt{UINT64_MAX, false});
  PhysicalType t;
  REQUIRE(InferType(huge, InferMode::kWide, &t));
  CHECK(t == PhysicalType::kUInt64);
  huge.Add(ParsedInt{static_cast<uint64_t>(-1), true});
  CHECK_FALSE(InferType(huge, InferMode::kNarrow, &t));
  CHECK_FALSE(InferType(huge, InferMode::kWide, &t));
}

TEST_CASE("values as text") {
  int16_t v16[] = {-32768, 0, 32767};
  std::string out;
  AppendValues(&out, v16, 3, PhysicalType::kInt16, '\n');
  CHECK(out == "-32768\n0\n32767\n");
  uint64_t v64[] = {UINT64_MAX};
  out.clear();
  AppendValues(&out, v64, 1, PhysicalType::kUInt64, ',');
  CHECK(out == "18446744073709551615,");
  uint64_t words[] = {static_cast<uint64_t>(-2), 300};
  uint8_t narrowed[2];
  NarrowWords(words, 2, PhysicalType::kInt8, narrowed);
  CHECK(narrowed[0] == 0xFE);
  CHECK(narrowed[1] == (300 & 0xFF));
  CHECK(CanonicalWordText(static_cast<uint64_t>(-7), PhysicalType::kInt32) == "-7");
  CHECK(CanonicalWordText(static_cast<uint64_t>(-7), PhysicalType::kUInt64) ==
        "18446744073709551609");
}

TEST_CASE("CSV splitting and quoting") {
  std::vector<std::string> fields;
  std::vector<size_t> starts;
  REQUIRE(SplitCsvLine("a, \"b,c\" ,\"d\"\"e\",", ',', &fields, &starts));
  CHECK(fields == std::vector<std::string>{"a", "b,c", "d\"e", ""});
  CHECK(starts == std::vector<size_t>{0, 3, 10, 17});
  CHECK_FALSE(SplitCsvLine("1,\"2", ',', &fields, &starts));
  CHECK(starts.back() == 2);
  REQUIRE(SplitCsvLine("1\t2", '\t', &fields, &starts));
  CHECK(fields.size() == 2);
  CHECK(CsvQuote("plain", ',') == "plain");
  CHECK(CsvQuote("a,b", ',') == "\"a,b\"");
  CHECK(CsvQuote("say \"hi\"", ',') == "\"say \"\"hi\"\"\"");
}

TEST_CASE("CSV columns, header detection and inference") {
  CsvTable t = Csv("id,temp,big\r\n1,-5,18446744073709551615\n2, 7 ,0\n\n3,100,5\n");
  REQUIRE(t.columns.size() == 3);
  CHECK(t.num_rows == 3);
  CHECK(t.columns[0].name == "id");
  CHECK(t.columns[0].type == PhysicalType::kUInt8);
  CHECK(t.columns[0].words == std::vector<uint64_t>{1, 2, 3});
  CHECK(t.columns[1].type == PhysicalType::kInt8);
  CHECK(t.columns[1].words[0] == static_cast<uint64_t>(-5));
  CHECK(t.columns[2].type == PhysicalType::kUInt64);

  CsvTable headerless = Csv("5,6\n7,8\n");
  CHECK(headerless.num_rows == 2);
  CHECK(headerless.columns[1].name == "col1");
  CHECK(headerless.columns[1].words == std::vector<uint64_t>{6, 8});

  CsvOptions opts;
  opts.header = CsvHeader::kYes;
  CHECK(Csv("5,6\n7,8\n", opts).num_rows == 1);

  opts = CsvOptions();
  opts.columns = {{"b", PhysicalType::kInt32}, {"0", std::nullopt}};
  opts.infer = InferMode::kWide;
  CsvTable sel = Csv("a;b\n1;2\n", [&] { CsvOptions o = opts; o.delimiter = ';'; return o; }());
  REQUIRE(sel.columns.size() == 2);
  CHECK(sel.columns[0].name == "b");
  CHECK(sel.columns[0].type == PhysicalType::kInt32);
  CHECK(sel.columns[1].name == "a");
  CHECK(sel.columns[1].type == PhysicalType::kInt64);

  CsvTable only_header = Csv("x,y\n");
  CHECK(only_header.num_rows == 0);

  // Without a selection every field is read, whatever the header names: a
  // name that is also a field index ("0") selects nothing twice.
  CsvTable numeric_names = Csv("b,0\n1,2\n");
  REQUIRE(numeric_names.columns.size() == 2);
  CHECK(numeric_names.columns[0].name == "b");
  CHECK(numeric_names.columns[1].name == "0");
  CHECK(numeric_names.columns[1].words == std::vector<uint64_t>{2});
}

TEST_CASE("CSV errors name line and column") {
  auto err = [](const std::string& text, CsvOptions o = {}) {
    return ErrorOf([&] { Csv(text, o); });
  };
  auto e = err("a,b\n1,2\n3,abc\n");
  CHECK(e.first == kExitBadInput);
  CHECK(e.second ==
        "t.csv:3:3: 'abc' is not an integer (column 'b'; give the column a float type, e.g. b:f64, "
        "to read it as floats)");
  e = err("a,b\n1,2\n3\n");
  CHECK(e.second == "t.csv:3:1: 1 fields, expected 2");
  e = err("a,b\n1,  \n");
  CHECK(e.second == "t.csv:2:3: empty field in column 'b' (L3 columns have no nulls)");
  e = err("a\n99999999999999999999\n");
  CHECK(e.second.find("t.csv:2:1: 99999999999999999999 is out of the 64-bit range") == 0);
  CsvOptions forced;
  forced.type = PhysicalType::kUInt8;
  e = err("a\n255\n256\n", forced);
  CHECK(e.second == "t.csv:3:1: 256 is out of range for u8 [0, 255] (column 'a')");
  e = err("a\n-1\n18446744073709551615\n");
  CHECK(e.first == kExitBadInput);
  CHECK(e.second.find("no integer type holds both") != std::string::npos);
  e = err("a,b\n1,\"2\n");
  CHECK(e.second == "t.csv:2:3: unterminated quoted field");
  e = err("");
  CHECK(e.second == "t.csv: no data (the file is empty)");
  CsvOptions missing;
  missing.columns = {{"zz", std::nullopt}};
  e = err("a,b\n1,2\n", missing);
  CHECK(e.first == kExitUsage);
  CHECK(e.second == "t.csv: no column 'zz' (it has 2: a, b)");
}

TEST_CASE("npy headers") {
  std::string h = MakeNpyHeader(PhysicalType::kUInt32, 5);
  CHECK(h.size() % 64 == 0);
  CHECK(h.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(h.find("{'descr': '<u4', 'fortran_order': False, 'shape': (5,), }") == 10);
  CHECK(h.back() == '\n');
  NpyHeader parsed = ParseNpyHeader(h, "a.npy");
  CHECK(parsed.type == PhysicalType::kUInt32);
  CHECK(parsed.num_values == 5);
  CHECK(parsed.data_offset == h.size());
  CHECK_FALSE(parsed.big_endian);
  CHECK(NpyDescr(PhysicalType::kInt8) == "|i1");

  auto with_dict = [](const std::string& dict, int major = 1) {
    std::string body = dict + "\n";
    std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
    if (major == 1) {
      out += static_cast<char>(body.size() & 0xFF);
      out += static_cast<char>(body.size() >> 8);
    } else {
      for (int i = 0; i < 4; ++i) out += static_cast<char>((body.size() >> (8 * i)) & 0xFF);
    }
    return out + body;
  };
  parsed = ParseNpyHeader(with_dict("{'descr': '>i8', 'fortran_order': True, 'shape': (3,)}", 2),
                          "b.npy");
  CHECK(parsed.type == PhysicalType::kInt64);
  CHECK(parsed.big_endian);
  CHECK(parsed.num_values == 3);
  parsed = ParseNpyHeader(with_dict("{\"shape\": (0,), \"descr\": \"|u1\", \"fortran_order\": False}"),
                          "c.npy");
  CHECK(parsed.type == PhysicalType::kUInt8);
  CHECK_FALSE(parsed.big_endian);

  auto err = [&](const std::string& bytes) { return ErrorOf([&] { ParseNpyHeader(bytes, "x.npy"); }); };
  // Floats (spec §11.2): 1-D, and 2-D in C order as a tensor column.
  parsed = ParseNpyHeader(with_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"),
                          "f.npy");
  CHECK(parsed.type == PhysicalType::kFloat64);
  CHECK(parsed.row_width == 1);
  parsed = ParseNpyHeader(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 7), }"),
                          "g.npy");
  CHECK(parsed.type == PhysicalType::kFloat32);
  CHECK(parsed.row_width == 7);
  CHECK(parsed.num_values == 21);
  auto e = err(with_dict("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }"));
  CHECK(e.first == kExitBadInput);
  CHECK(e.second ==
        "x.npy: unsupported dtype '<c8' (L3 columns are integers i1..i8, u1..u8 or floats f2, f4, f8)");
  e = err(with_dict("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 7), }"));
  CHECK(e.second.find("Fortran order") != std::string::npos);
  e = err(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 7, 2), }"));
  CHECK(e.second == "x.npy: array of shape (3, 7, 2) has more than two dimensions");
  e = err(with_dict("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }"));
  CHECK(e.second.find("unsupported dtype '|b1'") != std::string::npos);
  e = err(with_dict("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (3,), }"));
  CHECK(e.second.find("structured arrays are not supported") != std::string::npos);
  e = err(with_dict("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }"));
  CHECK(e.second ==
        "x.npy: array of shape (3, 4) is not one-dimensional (only float arrays may have rows)");
  e = err(with_dict("{'descr': '<i4', 'fortran_order': False, 'shape': (), }"));
  CHECK(e.second ==
        "x.npy: array of shape () is not one-dimensional (only float arrays may have rows)");
  e = err(with_dict("{'descr': '<i4', 'shape': (3,), }"));
  CHECK(e.second.find("malformed .npy header") != std::string::npos);
  e = err("PK\x03\x04 not numpy");
  CHECK(e.second == "x.npy: not a .npy file (bad magic)");
  e = err(h.substr(0, 30));
  CHECK(e.second == "x.npy: truncated .npy header");
  std::string v9 = h;
  v9[6] = 9;
  CHECK(err(v9).second == "x.npy: unsupported .npy format version 9.0");
}

TEST_CASE("byte swapping") {
  uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8};
  ByteSwap(data, 2, 4);
  CHECK(std::vector<uint8_t>(data, data + 8) == std::vector<uint8_t>{4, 3, 2, 1, 8, 7, 6, 5});
}

TEST_CASE("output files appear only on commit") {
  char dir_template[] = "/tmp/l3-cli-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  std::string dir = dir_template;
  std::string target = dir + "/out.bin";
  auto count_entries = [&] {
    int n = 0;
    std::string cmd = "ls -A " + dir + " | wc -l";
    std::FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(std::fscanf(p, "%d", &n) == 1);
    pclose(p);
    return n;
  };
  {
    OutputFile out(target);
    out.Write("partial");
    CHECK(access(target.c_str(), F_OK) != 0);
    CHECK(count_entries() == 1);  // the temporary file
  }
  CHECK(access(target.c_str(), F_OK) != 0);
  CHECK(count_entries() == 0);
  {
    OutputFile out(target);
    out.Write("complete");
    out.Commit();
  }
  std::FILE* f = std::fopen(target.c_str(), "rb");
  REQUIRE(f != nullptr);
  char buf[16] = {};
  CHECK(std::fread(buf, 1, sizeof(buf), f) == 8);
  std::fclose(f);
  CHECK(std::string(buf) == "complete");
  CHECK(count_entries() == 1);
  {
    // A second commit in the same process (after the first commit point).
    OutputFile out(target);
    out.Write("again");
    out.Commit();
  }
  CHECK(count_entries() == 1);
  auto e = ErrorOf([&] { OutputFile out(dir + "/missing-dir/x.bin"); });
  CHECK(e.first == 12);
  CHECK(e.second.find("cannot create " + dir + "/missing-dir/x.bin: No such file") == 0);
  e = ErrorOf([&] { InputFile in(dir + "/nope.bin"); });
  CHECK(e.first == 12);
  e = ErrorOf([&] { InputFile in(dir); });
  CHECK(e.second.find("Is a directory") != std::string::npos);
  std::remove(target.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("file names") {
  CHECK(Extension("a/b.NPY") == "npy");
  CHECK(Extension("a.b/c") == "");
  CHECK(Stem("/x/y/data.bin") == "data");
  CHECK(Stem(".hidden") == ".hidden");
}

TEST_CASE("progress bar text") {
  std::string line = RenderProgress("compress", 50, 100, 2.0, 60);
  CHECK(line.find("compress  [") == 0);
  CHECK(line.find(" 50%  2.0 s") != std::string::npos);
  CHECK(line.size() <= 62);
  CHECK(RenderProgress("read", 7, 0, 1.5, 60) == "read  7  1.5 s");
  Progress quiet("x", 10);
  quiet.set_enabled(false);
  quiet.Update(5);  // must not write anything when disabled
}

TEST_CASE("TerminalSafe shows control characters and stray bytes from a file as \\xNN") {
  using l3::cli::TerminalSafe;
  using S = std::string;
  CHECK(TerminalSafe("plain name, caf\xc3\xa9 \xf0\x9f\x98\x80") == "plain name, caf\xc3\xa9 \xf0\x9f\x98\x80");
  // C0 controls, newline and tab included: a name cannot break a line.
  CHECK(TerminalSafe("a\x1b[31mred\x07") == "a\\x1b[31mred\\x07");
  CHECK(TerminalSafe("tab\tnew\nline\r") == "tab\\x09new\\x0aline\\x0d");
  CHECK(TerminalSafe(S("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  // C1 controls: as UTF-8 (U+009B, CSI) and as a lone byte (CSI on 8-bit terminals).
  CHECK(TerminalSafe("x\xc2\x9b" "31m") == "x\\xc2\\x9b" "31m");
  CHECK(TerminalSafe("x\x9b" "31m") == "x\\x9b" "31m");
  CHECK(TerminalSafe("\xc2\xa0") == "\xc2\xa0");  // U+00A0 is not a control
  // Bytes that are not part of well-formed UTF-8, one \xNN each.
  CHECK(TerminalSafe("\xff\xfe") == "\\xff\\xfe");
  CHECK(TerminalSafe("\xc0\xaf") == "\\xc0\\xaf");                  // overlong '/'
  CHECK(TerminalSafe("\xed\xa0\x80") == "\\xed\\xa0\\x80");          // surrogate
  CHECK(TerminalSafe("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  CHECK(TerminalSafe("ab\xe2\x82") == "ab\\xe2\\x82");                // truncated at the end
  CHECK(TerminalSafe("\xe2\x82z") == "\\xe2\\x82z");                  // truncated before ASCII
  CHECK(TerminalSafe(TerminalSafe("\x1b\xff")) == TerminalSafe("\x1b\xff"));  // idempotent
}

TEST_CASE("ValidUtf8 replaces each byte that is not part of well-formed UTF-8 with U+FFFD") {
  using l3::cli::ValidUtf8;
  const std::string r = "\xef\xbf\xbd";
  CHECK(ValidUtf8("caf\xc3\xa9 \x1b\xc2\x9b") == "caf\xc3\xa9 \x1b\xc2\x9b");  // valid: unchanged
  CHECK(ValidUtf8("k\xff") == "k" + r);
  CHECK(ValidUtf8("\xe2\x82") == r + r);  // one per byte, not per sequence
  CHECK(ValidUtf8("\xc0\xafx") == r + r + "x");
  CHECK(ValidUtf8("\xed\xa0\x80") == r + r + r);
  CHECK(ValidUtf8("\x80") == r);
  CHECK(ValidUtf8(ValidUtf8("\xff")) == ValidUtf8("\xff"));
}
