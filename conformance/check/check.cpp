// l3_conformance_check: the conformance corpus against the reference Reader,
// and adapter commands that expose the reference Reader and Writer with the
// command-line protocol run.py expects. Uses only the public API (l3/l3.hpp).
//
//   l3_conformance_check check DIR                  every case of DIR/manifest.json
//   l3_conformance_check read FILE COLUMN OUT       decode a column to raw LE values
//   l3_conformance_check validate FILE              deep validation
//   l3_conformance_check write INPUT TYPE OUT       write raw values as a one-column file
//
// Errors are printed as "l3_conformance_check: CLASS: message" and exit 1.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "file_io.hpp"
#include "l3/l3.hpp"
#include "sha256.hpp"

namespace {

using Json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

using l3::conformance::ReadFile;

bool WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

int Report(const l3::Status& st) {
  std::fprintf(stderr, "l3_conformance_check: %s: %s\n", l3::StatusCodeName(st.code()),
               st.message().c_str());
  return 1;
}

l3::Result<int> ResolveColumn(const l3::Reader& reader, const std::string& column) {
  auto found = reader.FindColumn(column);
  if (found.ok()) return *found;
  if (!column.empty() && column.find_first_not_of("0123456789") == std::string::npos) {
    const int index = std::stoi(column);
    if (index < reader.num_columns()) return index;
  }
  return found.status();
}

// Bytes of one decoded row: row_width values (spec §11.2.1; 1 for integer
// columns). 0 for a type the reader does not know.
size_t RowBytes(const l3::ColumnInfo& info) {
  return static_cast<size_t>(l3::PhysicalTypeBytes(info.type)) * info.row_width;
}

l3::Result<Bytes> DecodeColumn(const l3::Reader& reader, int column) {
  const l3::ColumnInfo& info = reader.column(column);
  const size_t width = RowBytes(info);
  if (width == 0) return l3::Status(l3::StatusCode::kUnsupportedFeature, "column type is not supported");
  Bytes out(static_cast<size_t>(info.num_rows) * width);
  l3::Status st = reader.ReadRows(column, 0, info.num_rows, out.data(), out.size());
  if (!st.ok()) return st;
  return out;
}

int CmdRead(const std::string& file, const std::string& column, const std::string& out) {
  auto reader = l3::Reader::Open(file);
  if (!reader.ok()) return Report(reader.status());
  auto index = ResolveColumn(*reader, column);
  if (!index.ok()) return Report(index.status());
  auto values = DecodeColumn(*reader, *index);
  if (!values.ok()) return Report(values.status());
  if (!WriteFile(out, *values)) return Report(l3::Status(l3::StatusCode::kIoError, "cannot write " + out));
  return 0;
}

int CmdValidate(const std::string& file) {
  auto reader = l3::Reader::Open(file);
  if (!reader.ok()) return Report(reader.status());
  l3::Status st = reader->Validate(l3::ValidationLevel::kDeep);
  if (!st.ok()) return Report(st);
  return 0;
}

int CmdWrite(const std::string& input, const std::string& type_name, const std::string& out) {
  auto type = l3::ParsePhysicalType(type_name);
  if (!type.ok()) return Report(type.status());
  Bytes raw;
  if (!ReadFile(input, &raw)) return Report(l3::Status(l3::StatusCode::kIoError, "cannot read " + input));
  const int width = l3::PhysicalTypeBytes(*type);
  if (raw.size() % width != 0) {
    return Report(l3::Status(l3::StatusCode::kInvalidArgument, "input size is not a multiple of the type width"));
  }
  auto writer = l3::Writer::Create(out, {l3::ColumnSpec{"values", *type, {}}});
  if (!writer.ok()) return Report(writer.status());
  l3::Status st = writer->Append(0, raw.data(), raw.size() / width);
  if (st.ok()) st = writer->Close();
  if (!st.ok()) return Report(st);
  return 0;
}

// ---------------------------------------------------------------------------
// check

struct Checker {
  std::string dir;
  int failures = 0;
  int checked = 0;

  void Fail(const std::string& id, const std::string& what) {
    std::printf("FAIL %s: %s\n", id.c_str(), what.c_str());
    ++failures;
  }

  void CheckDecodes(const Json& c, const Json& expected, const l3::Reader& reader, bool deep_ok,
                    const std::string& deep_class) {
    const std::string id = c["id"];
    if (reader.info().num_rows != expected["num_rows"].get<uint64_t>()) {
      Fail(id, "Footer.num_rows differs from the manifest");
    }
    const Json& cols = expected["columns"];
    if (reader.num_columns() != static_cast<int>(cols.size())) {
      Fail(id, "column count " + std::to_string(reader.num_columns()) + " != " + std::to_string(cols.size()));
      return;
    }
    for (int i = 0; i < reader.num_columns(); ++i) {
      const Json& col = cols[i];
      const l3::ColumnInfo& info = reader.column(i);
      if (info.name != col["name"].get<std::string>()) Fail(id, "column " + std::to_string(i) + " name differs");
      if (std::string(l3::PhysicalTypeName(info.type)) != col["type"].get<std::string>()) {
        Fail(id, "column " + std::to_string(i) + " type differs");
      }
      if (info.row_width != col.value("row_width", 1u)) {
        Fail(id, "column " + std::to_string(i) + " row_width differs");
      }
      Bytes want;
      if (!ReadFile(dir + "/" + col["values"].get<std::string>(), &want)) {
        Fail(id, "cannot read " + col["values"].get<std::string>());
        continue;
      }
      if (l3::conformance::Sha256Hex(want) != col["sha256"].get<std::string>()) {
        Fail(id, col["values"].get<std::string>() + ": SHA-256 differs from the manifest");
      }
      auto got = DecodeColumn(reader, i);
      if (!got.ok()) {
        Fail(id, "column " + std::to_string(i) + ": ReadRows failed: " + got.status().ToString());
        continue;
      }
      if (*got != want) Fail(id, "column " + std::to_string(i) + ": decoded values differ");
      // The random-access path: every row, in reverse order.
      const size_t rows = static_cast<size_t>(info.num_rows);
      const size_t width = RowBytes(info);
      std::vector<uint64_t> order(rows);
      for (size_t r = 0; r < rows; ++r) order[r] = rows - 1 - r;
      Bytes taken(rows * width);
      l3::Status st = reader.Take(i, order.data(), rows, taken.data(), taken.size());
      if (!st.ok()) {
        Fail(id, "column " + std::to_string(i) + ": Take failed: " + st.ToString());
      } else {
        for (size_t r = 0; r < rows; ++r) {
          if (std::memcmp(&taken[r * width], &want[(rows - 1 - r) * width], width) != 0) {
            Fail(id, "column " + std::to_string(i) + ": Take differs at row " + std::to_string(rows - 1 - r));
            break;
          }
        }
      }
    }
    l3::Status structural = reader.Validate(l3::ValidationLevel::kStructural);
    if (!structural.ok()) Fail(id, "structural validation failed: " + structural.ToString());
    l3::Status deep = reader.Validate(l3::ValidationLevel::kDeep);
    if (deep_ok && !deep.ok()) Fail(id, "deep validation failed: " + deep.ToString());
    if (!deep_ok && l3::StatusCodeName(deep.code()) != deep_class) {
      Fail(id, "deep validation gave " + deep.ToString() + ", expected " + deep_class);
    }
  }

  void CheckFails(const Json& c, const Json& expected, const std::string& path) {
    const std::string id = c["id"];
    const std::string want = expected["error_class"];
    const std::string stage = expected["stage"];
    auto reader = l3::Reader::Open(path);
    if (!reader.ok()) {
      const std::string got = l3::StatusCodeName(reader.status().code());
      if (got != want) Fail(id, "Open gave " + reader.status().ToString() + ", expected " + want);
      if (stage != "open") Fail(id, "failed on open, the manifest says " + stage);
      return;
    }
    if (stage == "open") {
      Fail(id, "opened, but the manifest expects " + want + " on open");
      return;
    }
    auto index = ResolveColumn(*reader, expected["column"]);
    if (!index.ok()) {
      Fail(id, "no column " + expected["column"].get<std::string>());
      return;
    }
    auto values = DecodeColumn(*reader, *index);
    if (values.ok()) {
      Fail(id, "decoded, expected " + want);
    } else if (l3::StatusCodeName(values.status().code()) != want) {
      Fail(id, "ReadRows gave " + values.status().ToString() + ", expected " + want);
    }
    // "decode": a fault in the rows' values that a reader finds when it
    // decodes them (spec §8.10 rule 3), so structural validation, which
    // decodes no rows, may pass; deep validation decodes every row.
    const l3::ValidationLevel level =
        stage == "decode" ? l3::ValidationLevel::kDeep : l3::ValidationLevel::kStructural;
    l3::Status st = reader->Validate(level);
    if (l3::StatusCodeName(st.code()) != want) {
      Fail(id, std::string(stage == "decode" ? "deep" : "structural") + " validation gave " +
                   st.ToString() + ", expected " + want);
    }
  }

  int Run() {
    Bytes text;
    if (!ReadFile(dir + "/manifest.json", &text)) {
      std::printf("cannot read %s/manifest.json\n", dir.c_str());
      return 1;
    }
    const Json manifest = Json::parse(text.begin(), text.end());
    for (const Json& c : manifest["cases"]) {
      const std::string id = c["id"];
      const std::string kind = c["kind"];
      const std::string path = dir + "/" + c["path"].get<std::string>();
      Bytes file;
      ++checked;
      if (!ReadFile(path, &file)) {
        Fail(id, "cannot read " + path);
        continue;
      }
      if (l3::conformance::Sha256Hex(file) != c["sha256"].get<std::string>()) {
        Fail(id, "file SHA-256 differs from the manifest");
      }
      const Json& expected = c["expected"];
      if (kind == "writer_input") continue;
      if (kind == "valid" || kind == "deep") {
        auto reader = l3::Reader::Open(path);
        if (!reader.ok()) {
          Fail(id, "Open failed: " + reader.status().ToString());
          continue;
        }
        const std::string deep = expected["deep_validation"];
        CheckDecodes(c, expected, *reader, deep == "OK", deep);
      } else {
        CheckFails(c, expected, path);
      }
    }
    std::printf("%d cases checked, %d failure(s)\n", checked, failures);
    return failures == 0 ? 0 : 1;
  }
};

int Usage() {
  std::fprintf(stderr,
               "usage: l3_conformance_check check DIR\n"
               "       l3_conformance_check read FILE COLUMN OUT\n"
               "       l3_conformance_check validate FILE\n"
               "       l3_conformance_check write INPUT TYPE OUT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string cmd = argv[1];
  if (cmd == "check" && argc == 3) return Checker{argv[2]}.Run();
  if (cmd == "read" && argc == 5) return CmdRead(argv[2], argv[3], argv[4]);
  if (cmd == "validate" && argc == 3) return CmdValidate(argv[2]);
  if (cmd == "write" && argc == 5) return CmdWrite(argv[2], argv[3], argv[4]);
  return Usage();
}
