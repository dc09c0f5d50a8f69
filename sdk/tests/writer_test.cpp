// Writer-side plumbing: the atomic file sink (temporary file, fsync, rename)
// and canonical placement by the FileAssembler (spec §4.3).
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "container_test_util.hpp"

using namespace l3;
using namespace l3::testing;

namespace {

// A fresh directory for one test, removed with everything in it afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/l3_writer_test_XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    for (const std::string& name : List()) std::remove((path + "/" + name).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> List() const {
    std::vector<std::string> names;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return names;
    while (dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string File(const std::string& name) const { return path + "/" + name; }
};

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

TEST_CASE("AtomicFileSink: the file appears only on Commit") {
  TempDir dir;
  const std::string target = dir.File("out.l3");
  auto sink = internal::AtomicFileSink::Create(target);
  REQUIRE(sink.ok());
  const std::string payload(3 << 20, 'x');  // larger than the sink's buffer
  REQUIRE((*sink)->Write(payload.data(), payload.size()).ok());
  REQUIRE((*sink)->Write("tail", 4).ok());
  CHECK((*sink)->position() == payload.size() + 4);
  // While writing, only the temporary file exists, next to the target.
  auto names = dir.List();
  REQUIRE(names.size() == 1);
  CHECK(names[0].rfind(".out.l3.tmp-", 0) == 0);
  CHECK((*sink)->temp_path() == dir.File(names[0]));
  REQUIRE((*sink)->Commit().ok());
  CHECK(dir.List() == std::vector<std::string>{"out.l3"});
  const auto bytes = ReadFile(target);
  CHECK(bytes.size() == payload.size() + 4);
  CHECK(std::string(bytes.end() - 4, bytes.end()) == "tail");
  CHECK((*sink)->Write("more", 4).code() == StatusCode::kIoError);
}

TEST_CASE("AtomicFileSink: abandoning leaves no trace and keeps an existing target") {
  TempDir dir;
  const std::string target = dir.File("keep.l3");
  WriteFile(target, "previous contents");
  {
    auto sink = internal::AtomicFileSink::Create(target);
    REQUIRE(sink.ok());
    REQUIRE((*sink)->Write("new", 3).ok());
    CHECK(dir.List().size() == 2);
    (*sink)->Abandon();
    (*sink)->Abandon();  // idempotent
    CHECK(dir.List() == std::vector<std::string>{"keep.l3"});
  }
  {
    auto sink = internal::AtomicFileSink::Create(target);
    REQUIRE(sink.ok());
    REQUIRE((*sink)->Write("new", 3).ok());
  }  // destroyed without Commit
  CHECK(dir.List() == std::vector<std::string>{"keep.l3"});
  const auto bytes = ReadFile(target);
  CHECK(std::string(bytes.begin(), bytes.end()) == "previous contents");
  // Commit replaces the old file as a whole.
  auto sink = internal::AtomicFileSink::Create(target);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->Write("new", 3).ok());
  REQUIRE((*sink)->Commit().ok());
  const auto replaced = ReadFile(target);
  CHECK(std::string(replaced.begin(), replaced.end()) == "new");
}

TEST_CASE("AtomicFileSink: failures are I/O errors and clean up") {
  TempDir dir;
  CHECK(internal::AtomicFileSink::Create(dir.File("missing/out.l3")).status().code() ==
        StatusCode::kIoError);
  CHECK(internal::AtomicFileSink::Create(dir.path + "/").status().code() ==
        StatusCode::kInvalidArgument);
  // The rename fails when the target is a non-empty directory.
  const std::string target = dir.File("taken");
  REQUIRE(::mkdir(target.c_str(), 0755) == 0);
  WriteFile(target + "/inside", "x");
  {
    auto sink = internal::AtomicFileSink::Create(target);
    REQUIRE(sink.ok());
    REQUIRE((*sink)->Write("abc", 3).ok());
    CHECK((*sink)->Commit().code() == StatusCode::kIoError);
  }
  CHECK(dir.List() == std::vector<std::string>{"taken"});
  std::remove((target + "/inside").c_str());
  ::rmdir(target.c_str());
}

TEST_CASE("FileAssembler places segments canonically and deterministically") {
  const auto values = RunValues<uint32_t>(1000, 4);
  const HandChunk chunk = BuildHandChunk(values, Partitioning(1000, 333, {Part(Model::kConstant)}));
  const HandColumn col{"v", PhysicalType::kUInt32, {chunk, chunk}};
  const auto a = AssembleFile({col});
  const auto b = AssembleFile({col});
  CHECK(a == b);
  auto r = Reader::OpenBuffer(a.data(), a.size());
  REQUIRE(r.ok());
  // spec §4.3: first segment at 64, each next at align64(previous end), zero
  // padding, footer at align64(last end).
  uint64_t end = 64;
  for (const ChunkInfo& ci : r->column(0).chunks) {
    for (const SegmentInfo* s : {&ci.partition_table, &ci.parameters, &ci.payload, &ci.bounds}) {
      CHECK(s->offset == internal::AlignUp64(end));
      for (uint64_t i = end; i < s->offset; ++i) CHECK(a[i] == 0);
      end = s->offset + s->stored_bytes;
    }
  }
  CHECK(r->info().file_bytes - 64 - r->info().footer_bytes == internal::AlignUp64(end));
  CHECK(r->Validate(ValidationLevel::kDeep).ok());
}
