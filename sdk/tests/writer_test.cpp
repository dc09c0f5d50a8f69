// Writer-side plumbing: the atomic file sink (temporary file, fsync, rename)
// and canonical placement by the FileAssembler (spec §4.3).
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include <zstd.h>

#include "container_test_util.hpp"

#define L3_TEST_RETURN(expr)             \
  do {                                   \
    ::l3::Status st_ = (expr);           \
    if (!st_.ok()) return st_;           \
  } while (false)

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

// ---------------------------------------------------------------------------
// l3::Writer

namespace {

std::vector<ColumnSpec> TwoColumns() {
  return {{"id", PhysicalType::kUInt64, {}}, {"temp", PhysicalType::kInt16, {}}};
}

WriteOptions SmallChunks(uint64_t chunk_rows = 1000) {
  WriteOptions o;
  o.chunk_rows = chunk_rows;
  o.num_threads = 1;
  return o;
}

// Writes `ids` and `temps` through `writer` in batches of `batch` rows.
Status Fill(Writer* writer, const std::vector<uint64_t>& ids, const std::vector<int16_t>& temps,
            size_t batch) {
  for (size_t row = 0; row < ids.size(); row += batch) {
    const size_t n = std::min(batch, ids.size() - row);
    L3_TEST_RETURN(writer->AppendTyped(0, ids.data() + row, n));
    L3_TEST_RETURN(writer->Append(1, temps.data() + row, n));
  }
  return Status::OK();
}

// Closes `writer` and checks that its file equals *reference, which the
// first call sets.
void CheckSameFile(Writer* writer, std::vector<uint8_t>* reference) {
  REQUIRE(writer->Close().ok());
  const auto bytes = writer->TakeBuffer();
  if (reference->empty()) *reference = bytes;
  CHECK(bytes == *reference);
}

}  // namespace

TEST_CASE("Writer rejects bad schemas and options up front") {
  auto create = [](std::vector<ColumnSpec> cols, WriteOptions o = {}) {
    return Writer::CreateInMemory(std::move(cols), o).status().code();
  };
  CHECK(create({}) == StatusCode::kInvalidArgument);
  CHECK(create({{"", PhysicalType::kInt32, {}}}) == StatusCode::kInvalidArgument);
  CHECK(create({{std::string(65536, 'x'), PhysicalType::kInt32, {}}}) == StatusCode::kInvalidArgument);
  CHECK(create({{std::string(65535, 'x'), PhysicalType::kInt32, {}}}) == StatusCode::kOk);
  CHECK(create({{"\xFF", PhysicalType::kInt32, {}}}) == StatusCode::kInvalidArgument);
  CHECK(create({{"a", PhysicalType::kInt32, {}}, {"a", PhysicalType::kInt8, {}}}) ==
        StatusCode::kInvalidArgument);
  CHECK(create({{"f", PhysicalType::kFloat32, {}}}) == StatusCode::kOk);  // spec §11.2
  CHECK(create({{"f", static_cast<PhysicalType>(13), {}}}) == StatusCode::kInvalidArgument);
  CHECK(create({{"f", static_cast<PhysicalType>(0), {}}}) == StatusCode::kInvalidArgument);
  CHECK(create({{"\xC3\xA9t\xC3\xA9", PhysicalType::kInt32, {}}}) == StatusCode::kOk);
  const std::vector<ColumnSpec> ok = {{"a", PhysicalType::kInt32, {}}};
  for (uint32_t v : {0u, 3u, 48u, 2048u}) {
    WriteOptions o;
    o.values_per_lane = v;
    CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  }
  for (uint32_t v : {1u, 2u, 1024u}) {
    WriteOptions o;
    o.values_per_lane = v;
    CHECK(create(ok, o) == StatusCode::kOk);
  }
  for (uint64_t rows : {uint64_t{0}, uint64_t{1} << 32}) {
    WriteOptions o;
    o.chunk_rows = rows;
    CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  }
  WriteOptions o;
  o.partitioner.initial_partition_rows = 0;
  CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  o = {};
  o.partitioner.poly_min_gain = std::nan("");
  CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  o = {};
  o.profile = Profile::kArchive;
  o.zstd_level = 1000;
  CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  o = {};
  o.num_threads = -1;
  CHECK(create(ok, o) == StatusCode::kInvalidArgument);
  TempDir dir;
  CHECK(Writer::Create(dir.File("no/such/dir.l3"), ok).status().code() == StatusCode::kIoError);
  CHECK(Writer::Create(dir.File("x.l3"), {}).status().code() == StatusCode::kInvalidArgument);
  CHECK(dir.List().empty());
}

TEST_CASE("Writer: a finished file appears atomically and reads back") {
  TempDir dir;
  const std::string path = dir.File("table.l3");
  const auto ids = RandomValues<uint64_t>(4321, 1);
  const auto temps = LinearValues<int16_t>(4321, 2, 0.01, 40);
  WriteOptions options = SmallChunks();
  options.metadata = {{"source", "unit test"}};
  auto writer = Writer::Create(path, TwoColumns(), options);
  REQUIRE(writer.ok());
  CHECK(writer->num_columns() == 2);
  // One full chunk of column 0 is written at once (streaming).
  REQUIRE(writer->AppendTyped(0, ids.data(), 1000).ok());
  auto names = dir.List();
  REQUIRE(names.size() == 1);
  struct stat st;
  REQUIRE(::stat(dir.File(names[0]).c_str(), &st) == 0);
  REQUIRE(writer->AppendTyped(0, ids.data() + 1000, 3321).ok());
  REQUIRE(writer->Append(1, temps.data(), temps.size()).ok());
  CHECK(writer->rows_appended(0) == 4321);
  CHECK(writer->rows_appended(1) == 4321);
  CHECK(dir.List().size() == 1);  // still only the temporary file
  REQUIRE(writer->Close().ok());
  CHECK(dir.List() == std::vector<std::string>{"table.l3"});
  CHECK(writer->Append(0, ids.data(), 1).code() == StatusCode::kInvalidArgument);
  CHECK(writer->Close().code() == StatusCode::kInvalidArgument);

  auto reader = Reader::Open(path);
  REQUIRE(reader.ok());
  CHECK(reader->info().writer_name == "l3-cpp");
  CHECK(reader->info().writer_version == LibraryVersion());
  CHECK(reader->info().metadata == options.metadata);
  CHECK(reader->info().num_rows == 4321);
  CHECK(reader->column(0).chunks.size() == 5);
  CHECK(reader->column(1).chunks.size() == 5);
  CHECK(reader->info().optional_features == (kOptionalPartitionBounds | kOptionalDistinctSketch));
  CHECK(reader->info().required_features == 0);
  std::vector<uint64_t> ids_out(4321);
  std::vector<int16_t> temps_out(4321);
  REQUIRE(reader->ReadRows(0, 0, 4321, ids_out.data(), ids_out.size() * 8).ok());
  REQUIRE(reader->ReadRows(1, 0, 4321, temps_out.data(), temps_out.size() * 2).ok());
  CHECK(ids_out == ids);
  CHECK(temps_out == temps);
  CHECK(reader->Validate(ValidationLevel::kDeep).ok());
  // Canonical layout: column 0's first chunk was placed first.
  CHECK(reader->column(0).chunks[0].partition_table.offset == 64);
}

TEST_CASE("Writer: failures and aborts leave no file and keep an existing target") {
  TempDir dir;
  const std::string path = dir.File("t.l3");
  WriteFile(path, "old");
  const auto ids = RandomValues<uint64_t>(2500, 3);
  const auto temps = LinearValues<int16_t>(2500, 4);
  SUBCASE("unequal row counts at Close") {
    auto writer = Writer::Create(path, TwoColumns(), SmallChunks());
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped(0, ids.data(), 2500).ok());
    REQUIRE(writer->AppendTyped(1, temps.data(), 2499).ok());
    CHECK(writer->Close().code() == StatusCode::kInvalidArgument);
    CHECK(writer->Close().code() == StatusCode::kInvalidArgument);  // aborted now
  }
  SUBCASE("Abort") {
    auto writer = Writer::Create(path, TwoColumns(), SmallChunks());
    REQUIRE(writer.ok());
    REQUIRE(Fill(&*writer, ids, temps, 700).ok());
    writer->Abort();
    writer->Abort();
    CHECK(writer->Append(0, ids.data(), 1).code() == StatusCode::kInvalidArgument);
  }
  SUBCASE("destroyed without Close") {
    auto writer = Writer::Create(path, TwoColumns(), SmallChunks());
    REQUIRE(writer.ok());
    REQUIRE(Fill(&*writer, ids, temps, 700).ok());
  }
  SUBCASE("moved-over writer") {
    auto writer = Writer::Create(path, TwoColumns(), SmallChunks());
    REQUIRE(writer.ok());
    REQUIRE(Fill(&*writer, ids, temps, 700).ok());
    auto other = Writer::CreateInMemory(TwoColumns());
    REQUIRE(other.ok());
    *writer = std::move(*other);  // the file writer is aborted
  }
  CHECK(dir.List() == std::vector<std::string>{"t.l3"});
  const auto bytes = ReadFile(path);
  CHECK(std::string(bytes.begin(), bytes.end()) == "old");
}

TEST_CASE("Writer: caller mistakes in Append leave the writer usable") {
  auto writer = Writer::CreateInMemory(TwoColumns(), SmallChunks());
  REQUIRE(writer.ok());
  const std::vector<int32_t> wrong = {1, 2, 3};
  const std::vector<uint64_t> ids = {1, 2, 3};
  const std::vector<int16_t> temps = {4, 5, 6};
  CHECK(writer->AppendTyped(0, wrong.data(), 3).code() == StatusCode::kInvalidArgument);
  CHECK(writer->AppendTyped(7, ids.data(), 3).code() == StatusCode::kInvalidArgument);
  CHECK(writer->Append(-1, ids.data(), 3).code() == StatusCode::kInvalidArgument);
  CHECK(writer->Append(0, nullptr, 3).code() == StatusCode::kInvalidArgument);
  CHECK(writer->Append(0, nullptr, 0).ok());
  CHECK(writer->rows_appended(0) == 0);
  REQUIRE(writer->AppendTyped(0, ids.data(), 3).ok());
  REQUIRE(writer->AppendTyped(1, temps.data(), 3).ok());
  REQUIRE(writer->Close().ok());
  const auto file = writer->TakeBuffer();
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  std::vector<int16_t> out(3);
  REQUIRE(reader->ReadRows(1, 0, 3, out.data(), 6).ok());
  CHECK(out == temps);
}

TEST_CASE("Writer: the same calls give the same bytes, whatever the threads") {
  const auto ids = LinearValues<uint64_t>(20000, 5, 7.0, 3);
  const auto temps = RunValues<int16_t>(20000, 6, 90);
  // The archive profile also compresses each chunk's zstd frames side by side
  // on the encoder's threads (whole-column appends only: it is the slower one).
  for (const auto& [profile, batch] : {std::pair{Profile::kHot, size_t{20000}},
                                        std::pair{Profile::kHot, size_t{999}},
                                        std::pair{Profile::kHot, size_t{4096}},
                                        std::pair{Profile::kArchive, size_t{20000}}}) {
    std::vector<uint8_t> reference;
    for (int threads : {1, 2, 4, 0, 1}) {
      CAPTURE(threads);
      CAPTURE(batch);
      CAPTURE(static_cast<int>(profile));
      WriteOptions options = SmallChunks(3000);
      options.profile = profile;
      options.num_threads = threads;
      auto writer = Writer::CreateInMemory(TwoColumns(), options);
      REQUIRE(writer.ok());
      REQUIRE(Fill(&*writer, ids, temps, batch).ok());
      CheckSameFile(&*writer, &reference);
    }
    auto r = Reader::OpenBuffer(reference.data(), reference.size());
    REQUIRE(r.ok());
    CHECK(r->column(0).chunks.size() == 7);
    CHECK(r->Validate(ValidationLevel::kDeep).ok());
    // Segments are placed in the order the chunks filled: whole-column
    // appends put column 0's six full chunks first, small batches interleave.
    const bool column0_first =
        r->column(0).chunks[5].payload.offset < r->column(1).chunks[0].payload.offset;
    CHECK(column0_first == (batch == 20000));
  }
}

TEST_CASE("Writer: Reserve is a hint that never changes the bytes, and rejects mistakes") {
  const auto ids = LinearValues<uint64_t>(20000, 5, 7.0, 3);
  const auto temps = RunValues<int16_t>(20000, 6, 90);
  std::vector<uint8_t> reference;
  // No hint, the exact count, too few, too many (more than a chunk), and a
  // hint given again halfway.
  for (uint64_t hint : {uint64_t{0}, uint64_t{20000}, uint64_t{700}, UINT64_MAX, uint64_t{1}}) {
    CAPTURE(hint);
    auto writer = Writer::CreateInMemory(TwoColumns(), SmallChunks(3000));
    REQUIRE(writer.ok());
    if (hint > 0) REQUIRE(writer->Reserve(0, hint).ok());
    if (hint > 0) REQUIRE(writer->Reserve(1, hint).ok());
    REQUIRE(writer->AppendTyped(0, ids.data(), 10000).ok());
    if (hint == 1) REQUIRE(writer->Reserve(0, 10000).ok());
    REQUIRE(writer->AppendTyped(0, ids.data() + 10000, 10000).ok());
    REQUIRE(writer->AppendTyped(1, temps.data(), temps.size()).ok());
    CheckSameFile(&*writer, &reference);
  }
  auto r = Reader::OpenBuffer(reference.data(), reference.size());
  REQUIRE(r.ok());
  std::vector<uint64_t> out(ids.size());
  REQUIRE(r->ReadRows(0, 0, ids.size(), out.data(), out.size() * sizeof(uint64_t)).ok());
  CHECK(out == ids);

  auto writer = Writer::CreateInMemory(TwoColumns(), SmallChunks(3000));
  REQUIRE(writer.ok());
  CHECK(writer->Reserve(2, 10).code() == StatusCode::kInvalidArgument);
  CHECK(writer->Reserve(-1, 10).code() == StatusCode::kInvalidArgument);
  REQUIRE(writer->AppendTyped(0, ids.data(), 5).ok());
  REQUIRE(writer->AppendTyped(1, temps.data(), 5).ok());
  REQUIRE(writer->Close().ok());
  CHECK(writer->Reserve(0, 10).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("Writer: archive profile compresses every segment with zstd (spec §9)") {
  const auto ids = LinearValues<uint64_t>(12000, 7, 2.0, 1000);
  const auto temps = RunValues<int16_t>(12000, 8, 50);
  WriteOptions hot = SmallChunks(5000);
  WriteOptions archive = hot;
  archive.profile = Profile::kArchive;
  archive.zstd_level = 9;
  archive.partitioner.split_min_rows = 0;  // the hot profile's partitions, compressed
  archive.archive_large_partitions = false;
  archive.archive_field_planes = false;  // spec §9.1 only (field planes: field_planes_test)
  std::vector<uint8_t> files[2];
  for (int i = 0; i < 2; ++i) {
    auto writer = Writer::CreateInMemory(TwoColumns(), i == 0 ? hot : archive);
    REQUIRE(writer.ok());
    REQUIRE(Fill(&*writer, ids, temps, 12000).ok());
    REQUIRE(writer->Close().ok());
    files[i] = writer->TakeBuffer();
  }
  CHECK(files[1].size() <= files[0].size());
  auto r = Reader::OpenBuffer(files[1].data(), files[1].size());
  REQUIRE(r.ok());
  CHECK((r->info().required_features & ~(kRequiredDeltaModel | kRequiredRunsEfModel)) ==
        kRequiredZstdSegments);
  int compressed = 0;
  for (int c = 0; c < 2; ++c) {
    for (const ChunkInfo& ci : r->column(c).chunks) {
      for (const SegmentInfo* s : {&ci.partition_table, &ci.parameters, &ci.payload, &ci.bounds}) {
        // Bounds of a one-partition chunk would repeat its statistics.
        if (s == &ci.bounds && ci.num_partitions == 1) {
          CHECK(!s->present);
          continue;
        }
        REQUIRE(s->present);
        // A segment stays uncompressed where zstd would not make it smaller.
        if (s->compression != Compression::kZstd) {
          CHECK(s->stored_bytes == s->decoded_bytes);
          continue;
        }
        ++compressed;
        const uint8_t* frame = files[1].data() + s->offset;
        // One frame with its content size and a content checksum
        // (RFC 8878 Frame_Header_Descriptor bit 2).
        CHECK(internal::LoadLE32(frame) == 0xFD2FB528u);
        CHECK((frame[4] & 0x04) != 0);
        CHECK(ZSTD_getFrameContentSize(frame, s->stored_bytes) == s->decoded_bytes);
        CHECK(ZSTD_findFrameCompressedSize(frame, s->stored_bytes) == s->stored_bytes);
      }
    }
  }
  CHECK(compressed > 0);
  std::vector<uint64_t> ids_out(12000);
  std::vector<int16_t> temps_out(12000);
  REQUIRE(r->ReadRows(0, 0, 12000, ids_out.data(), 96000).ok());
  REQUIRE(r->ReadRows(1, 0, 12000, temps_out.data(), 24000).ok());
  CHECK(ids_out == ids);
  CHECK(temps_out == temps);
  CHECK(r->Validate(ValidationLevel::kDeep).ok());
}

TEST_CASE("Writer: the archive profile leaves out bounds that repeat the statistics") {
  // A constant column is one partition per chunk; `spread` is many.
  const std::vector<uint64_t> same(5000, 77);
  // Blocks of 512 rows of 3-bit and 40-bit values: many partitions.
  const std::vector<uint64_t> spread = [] {
    std::vector<uint64_t> v = RandomValues<uint64_t>(5000, 11);
    for (size_t i = 0; i < v.size(); ++i) v[i] &= (i / 512) % 2 == 0 ? 7 : (uint64_t{1} << 40) - 1;
    return v;
  }();
  for (const bool archive : {false, true}) {
    for (const bool statistics : {false, true}) {
      WriteOptions o;
      o.chunk_rows = 4096;  // two chunks: 4096 rows and 904
      o.profile = archive ? Profile::kArchive : Profile::kHot;
      o.write_statistics = statistics;
      o.archive_large_partitions = false;  // long partitions would make one of `spread`
      for (const std::vector<uint64_t>* values : {&same, &spread}) {
        auto writer = Writer::CreateInMemory({{"v", PhysicalType::kUInt64, {}}}, o);
        REQUIRE(writer.ok());
        REQUIRE(writer->AppendTyped<uint64_t>(0, values->data(), values->size()).ok());
        REQUIRE(writer->Close().ok());
        const auto file = writer->TakeBuffer();
        auto r = Reader::OpenBuffer(file.data(), file.size());
        REQUIRE(r.ok());
        bool any_bounds = false;
        for (const ChunkInfo& ci : r->column(0).chunks) {
          // (A dictionary chunk's partitions cover its entries and codes,
          // spec §8.10, so its bounds say something else.)
          const bool repeat =
              archive && statistics && ci.num_partitions == 1 && ci.dictionary_entries == 0;
          CHECK(ci.bounds.present == !repeat);
          CHECK((ci.num_partitions == 1) == (values == &same));
          any_bounds = any_bounds || ci.bounds.present;
          auto parts = r->Partitions(0, static_cast<int>(&ci - r->column(0).chunks.data()));
          REQUIRE(parts.ok());
          for (const PartitionInfo& p : *parts) CHECK(p.has_bounds == ci.bounds.present);
        }
        CHECK(((r->info().optional_features & kOptionalPartitionBounds) != 0) == any_bounds);
        std::vector<uint64_t> back(values->size());
        REQUIRE(r->ReadRows(0, 0, back.size(), back.data(), back.size() * 8).ok());
        CHECK(back == *values);
        CHECK(r->Validate(ValidationLevel::kDeep).ok());
      }
    }
  }
}

TEST_CASE("Writer: optional parts and feature bits follow the options") {
  const auto ids = RandomValues<uint64_t>(100, 9);
  const auto temps = RandomValues<int16_t>(100, 10);
  WriteOptions bare = SmallChunks();
  bare.write_partition_bounds = false;
  bare.write_statistics = false;
  auto writer = Writer::CreateInMemory(TwoColumns(), bare);
  REQUIRE(writer.ok());
  REQUIRE(Fill(&*writer, ids, temps, 100).ok());
  REQUIRE(writer->Close().ok());
  const auto file = writer->TakeBuffer();
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  CHECK(r->info().optional_features == 0);
  CHECK(!r->column(0).chunks[0].bounds.present);
  CHECK(!r->column(0).chunks[0].statistics.present);
  CHECK(r->Validate(ValidationLevel::kDeep).ok());

  // An empty table: no chunks, footer right after the header.
  auto empty = Writer::CreateInMemory(TwoColumns());
  REQUIRE(empty.ok());
  REQUIRE(empty->Close().ok());
  const auto empty_file = empty->TakeBuffer();
  auto er = Reader::OpenBuffer(empty_file.data(), empty_file.size());
  REQUIRE(er.ok());
  CHECK(er->info().num_rows == 0);
  CHECK(er->column(1).chunks.empty());
  CHECK(internal::LoadLE64(empty_file.data() + empty_file.size() - 64) == 64);
  CHECK(er->ReadRows(0, 0, 0, nullptr, 0).ok());
}

TEST_CASE("Writer: split_min_rows follows the profile unless set (PartitionerOptions)") {
  // A noisy curve: splitting initial partitions pays for it, so the archive
  // profile ends with more, smaller partitions than the hot profile.
  std::vector<int32_t> values(20000);
  std::mt19937_64 rng(5);
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = static_cast<double>(i);
    values[i] = static_cast<int32_t>(std::lround(1e6 * std::sin(x / 188.5) + (rng() % 400)));
  }
  auto partitions = [&](WriteOptions options) {
    options.num_threads = 1;
    options.zstd_level = 1;
    auto writer = Writer::CreateInMemory({{"v", PhysicalType::kInt32, {}}}, options);
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped(0, values.data(), values.size()).ok());
    REQUIRE(writer->Close().ok());
    const auto file = writer->TakeBuffer();
    auto r = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(r.ok());
    auto parts = r->Partitions(0, 0);
    REQUIRE(parts.ok());
    uint32_t smallest = UINT32_MAX;
    for (size_t p = 0; p + 1 < parts->size(); ++p) smallest = std::min(smallest, (*parts)[p].num_rows);
    return std::make_pair(parts->size(), smallest);
  };
  WriteOptions hot;
  hot.delta_orders = false;  // their fixed partitions would win here
  WriteOptions archive = hot;
  archive.profile = Profile::kArchive;
  WriteOptions hot_split = hot;
  hot_split.partitioner.split_min_rows = 64;
  const auto h = partitions(hot), a = partitions(archive), hs = partitions(hot_split);
  CHECK(h.second >= hot.partitioner.initial_partition_rows);  // never split below 256
  CHECK(a.first > h.first);
  CHECK(a.second < hot.partitioner.initial_partition_rows);
  CHECK(hs == a);  // the same partitioning as the archive profile's default
}

TEST_CASE("Writer: the hot profile keeps RUNS_EF only where the chunk gets 1/32 smaller") {
  // Column A: short runs throughout (RUNS_EF saves about a fifth). Column B:
  // noisy values with one stretch of short runs, 2% of the rows, whose
  // RUNS_EF partitions would save well under 1/32 of the chunk.
  std::mt19937_64 rng(77);
  std::vector<int32_t> runs(60000), mostly_noise(60000);
  int32_t value = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (rng() % 4 == 0) value = static_cast<int32_t>(rng() % 100000);
    runs[i] = value;
    mostly_noise[i] = i >= 30000 && i < 31200 ? value : static_cast<int32_t>(rng() % 100000);
  }
  auto uses_runs_ef = [](const std::vector<int32_t>& values, const WriteOptions& options) {
    auto writer = Writer::CreateInMemory({{"v", PhysicalType::kInt32, {}}}, options);
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped(0, values.data(), values.size()).ok());
    REQUIRE(writer->Close().ok());
    const auto file = writer->TakeBuffer();
    auto r = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(r.ok());
    std::vector<int32_t> back(values.size());
    REQUIRE(r->ReadRows(0, 0, back.size(), back.data(), back.size() * sizeof(int32_t)).ok());
    CHECK(back == values);
    auto parts = r->Partitions(0, 0);
    REQUIRE(parts.ok());
    bool any = false;
    for (const PartitionInfo& p : *parts) any = any || p.model == ModelType::kRunsEf;
    CHECK(any == ((r->info().required_features & kRequiredRunsEfModel) != 0));
    return any;
  };
  WriteOptions hot;
  WriteOptions archive;
  archive.profile = Profile::kArchive;
  archive.zstd_level = 3;
  CHECK(uses_runs_ef(runs, hot));
  CHECK(uses_runs_ef(runs, archive));
  CHECK_FALSE(uses_runs_ef(mostly_noise, hot));
  CHECK(uses_runs_ef(mostly_noise, archive));
  WriteOptions hot_any = hot;
  hot_any.partitioner.runs_ef_min_gain = 0.0;
  CHECK(uses_runs_ef(mostly_noise, hot_any));
  WriteOptions off = hot;
  off.partitioner.enable_runs_ef = false;
  CHECK_FALSE(uses_runs_ef(runs, off));
}
