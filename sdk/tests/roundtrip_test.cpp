// Writer -> Reader round trips through the real chunk encoder: every type,
// sizes around lane (32), partition (256), tile (2048 for V = 64) and
// partition-cap (8192) boundaries, several chunks per column, both profiles,
// and the real integer arrays of L3_REAL_DATA_DIR.
#include <doctest/doctest.h>

#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "container_test_util.hpp"
#include "l3/datagen.hpp"

using namespace l3;
using namespace l3::testing;

namespace {

// Data shapes that steer the encoder into each model.
template <typename T>
std::vector<T> Shape(int shape, size_t n, uint64_t seed) {
  switch (shape) {
    case 0: return LinearValues<T>(n, seed, 3.0, 2);        // LINEAR
    case 1: return RunValues<T>(n, seed, 200);              // runs / CONSTANT
    case 2: return RandomValues<T>(n, seed);                // FOR, full width
    case 3: {                                               // POLY2-like
      std::vector<T> v(n);
      for (size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(i);
        v[i] = static_cast<T>(static_cast<int64_t>(0.002 * x * x - 3 * x) + static_cast<int64_t>(i % 3));
      }
      return v;
    }
    case 5: return RunValues<T>(n, seed, 6);                // short runs: RUNS_EF
    default: return std::vector<T>(n, static_cast<T>(-7));  // one constant
  }
}

template <typename T>
std::vector<uint8_t> WriteColumn(const std::vector<T>& values, const WriteOptions& options) {
  auto writer = Writer::CreateInMemory({{"v", TypeOf<T>(), {}}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, values.data(), values.size()).ok());
  const Status st = writer->Close();
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  auto file = writer->TakeBuffer();
  static int file_number = 0;
  KeepTestFile("roundtrip_" + std::string(PhysicalTypeName(TypeOf<T>())) + "_" +
                   std::to_string(values.size()) + "_" + std::to_string(file_number++),
               file);
  return file;
}

template <typename T>
void CheckFile(const std::vector<uint8_t>& file, const std::vector<T>& values, uint64_t seed) {
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  REQUIRE(r->info().num_rows == values.size());
  std::vector<T> out(values.size());
  REQUIRE(r->ReadRows(0, 0, values.size(), out.data(), out.size() * sizeof(T)).ok());
  CHECK(out == values);
  const Status deep = r->Validate(ValidationLevel::kDeep);
  CHECK_MESSAGE(deep.ok(), deep.ToString());
  // A few ranges and point lookups.
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 8 && !values.empty(); ++i) {
    uint64_t a = rng() % values.size(), b = rng() % (values.size() + 1);
    if (a > b) std::swap(a, b);
    std::vector<T> part(b - a);
    REQUIRE(r->ReadRows(0, a, b, part.data(), part.size() * sizeof(T)).ok());
    CHECK(std::equal(part.begin(), part.end(), values.begin() + static_cast<ptrdiff_t>(a)));
  }
  std::vector<uint64_t> rows(64);
  for (auto& row : rows) row = values.empty() ? 0 : rng() % values.size();
  if (!values.empty()) {
    std::vector<T> taken(rows.size());
    REQUIRE(r->Take(0, rows.data(), rows.size(), taken.data(), taken.size() * sizeof(T)).ok());
    for (size_t i = 0; i < rows.size(); ++i) CHECK(taken[i] == values[rows[i]]);
  }
  // Dense row sets, which Take decodes as ranges: increasing with repeats,
  // the same shuffled, and every row from the last to the first.
  if (!values.empty()) {
    std::vector<uint64_t> dense;
    for (uint64_t row = rng() % values.size(); row < values.size() && dense.size() < 6000;
         row += 1 + rng() % 5) {
      dense.push_back(row);
      if (rng() % 7 == 0) dense.push_back(row);
    }
    std::vector<uint64_t> shuffled = dense;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::vector<uint64_t> backwards(std::min<size_t>(values.size(), 20000));
    for (size_t i = 0; i < backwards.size(); ++i) backwards[i] = values.size() - 1 - i;
    for (const std::vector<uint64_t>* ids : {&dense, &shuffled, &backwards}) {
      std::vector<T> taken(ids->size());
      REQUIRE(r->Take(0, ids->data(), ids->size(), taken.data(), taken.size() * sizeof(T)).ok());
      size_t wrong = 0;
      for (size_t i = 0; i < ids->size(); ++i) wrong += taken[i] != values[(*ids)[i]];
      CHECK(wrong == 0);
    }
  }
}


}  // namespace

TEST_CASE_TEMPLATE("round trip of every type at boundary sizes", T, int8_t, int16_t, int32_t,
                   int64_t, uint8_t, uint16_t, uint32_t, uint64_t) {
  const size_t sizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 2047, 2048, 2049, 8191, 8192, 8193};
  WriteOptions options;
  options.num_threads = 1;
  for (size_t n : sizes) {
    for (int shape = 0; shape < 6; ++shape) {
      CAPTURE(n);
      CAPTURE(shape);
      const auto values = Shape<T>(shape, n, n + 100 * shape);
      CheckFile(WriteColumn(values, options), values, n);
    }
  }
}

TEST_CASE_TEMPLATE("round trip over several chunks, both profiles and several V", T, int16_t,
                   uint32_t, int64_t) {
  for (uint32_t v : {1u, 8u, 64u, 1024u}) {
    for (Profile profile : {Profile::kHot, Profile::kArchive}) {
      CAPTURE(v);
      CAPTURE(static_cast<int>(profile));
      WriteOptions options;
      options.values_per_lane = v;
      options.chunk_rows = 3001;
      options.profile = profile;
      options.zstd_level = 3;
      options.num_threads = 2;
      std::vector<T> values = Shape<T>(0, 4000, v);
      const auto runs = Shape<T>(1, 3500, v + 1);
      const auto noise = Shape<T>(2, 3000, v + 2);
      values.insert(values.end(), runs.begin(), runs.end());
      values.insert(values.end(), noise.begin(), noise.end());
      const auto file = WriteColumn(values, options);
      auto r = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(r.ok());
      CHECK(r->column(0).chunks.size() == 4);
      CHECK(r->column(0).chunks[0].values_per_lane == v);
      CheckFile(file, values, v);
    }
  }
}

TEST_CASE("round trip of the real integer arrays") {
  struct Case {
    const char* file;
    PhysicalType type;
  };
  const Case cases[] = {
      {"osm_andorra_node_ids_u64.bin.gz", PhysicalType::kUInt64},
      {"osm_andorra_node_lat_i32.bin.gz", PhysicalType::kInt32},
      {"osm_andorra_node_lon_i32.bin.gz", PhysicalType::kInt32},
      {"osm_andorra_node_timestamp_u32.bin.gz", PhysicalType::kUInt32},
      {"osm_andorra_way_node_refs_u64.bin.gz", PhysicalType::kUInt64},
      {"ecg_mitbih208_u16.bin.gz", PhysicalType::kUInt16},
  };
  WriteOptions options;
  options.chunk_rows = 1 << 17;  // several chunks per array
  options.num_threads = 2;
  for (const Case& c : cases) {
    const std::string name = c.file;
    CAPTURE(name);
    bool loaded = false;
    size_t raw_bytes = 0, file_bytes = 0;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> values;
      loaded = LoadRealArray(c.file, &values);
      if (!loaded) return;
      REQUIRE(TypeOf<T>() == c.type);
      const auto file = WriteColumn(values, options);
      raw_bytes = values.size() * sizeof(T);
      file_bytes = file.size();
      CheckFile(file, values, values.size());
    };
    switch (c.type) {
      case PhysicalType::kUInt64: run(uint64_t{}); break;
      case PhysicalType::kInt32: run(int32_t{}); break;
      case PhysicalType::kUInt32: run(uint32_t{}); break;
      default: run(uint16_t{}); break;
    }
    if (!loaded) {
      MESSAGE("skipped: real data not found under " L3_REAL_DATA_DIR);
      continue;
    }
    MESSAGE(name << ": " << raw_bytes << " -> " << file_bytes << " bytes");
  }
}

TEST_CASE("round trip through a file on disk, mapped and read") {
  const auto values = Shape<int32_t>(3, 50000, 1);
  char tmpl[] = "/tmp/l3_roundtrip_XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string path = std::string(tmpl) + "/r.l3";
  WriteOptions options;
  options.chunk_rows = 20000;
  auto writer = Writer::Create(path, {{"v", PhysicalType::kInt32, {}}}, options);
  REQUIRE(writer.ok());
  for (size_t row = 0; row < values.size(); row += 7777) {
    const size_t n = std::min<size_t>(7777, values.size() - row);
    REQUIRE(writer->AppendTyped(0, values.data() + row, n).ok());
  }
  REQUIRE(writer->Close().ok());
  for (bool mmap : {true, false}) {
    ReadOptions ro;
    ro.use_mmap = mmap;
    auto r = Reader::Open(path, ro);
    REQUIRE(r.ok());
    std::vector<int32_t> out(values.size());
    REQUIRE(r->ReadRows(0, 0, values.size(), out.data(), out.size() * 4).ok());
    CHECK(out == values);
    CHECK(r->Validate(ValidationLevel::kDeep).ok());
  }
  std::remove(path.c_str());
  ::rmdir(tmpl);
}

TEST_CASE("round trip of every generator at a test size (datagen)") {
  // The paper's generators (linear, normal, poisson, cosmos, polylog, exp,
  // poly, uniform40) and the test shapes, at 60k rows in chunks of 25k, in
  // both profiles.
  for (const datagen::DatasetInfo& info : datagen::Datasets()) {
    const std::string name = info.name;
    CAPTURE(name);
    auto column = datagen::Generate(info.name, 60000, 7);
    REQUIRE_MESSAGE(column.ok(), column.status().ToString());
    for (Profile profile : {Profile::kHot, Profile::kArchive}) {
      WriteOptions options;
      options.chunk_rows = 25000;
      options.profile = profile;
      options.zstd_level = 3;
      options.num_threads = 2;
      auto writer = Writer::CreateInMemory({{name, column->type(), {}}}, options);
      REQUIRE(writer.ok());
      REQUIRE(writer->Append(0, column->data(), column->size()).ok());
      REQUIRE(writer->Close().ok());
      const auto file = writer->TakeBuffer();
      KeepTestFile("datagen_" + name + (profile == Profile::kHot ? "_hot" : "_archive"), file);
      auto r = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(r.ok());
      REQUIRE(r->column(0).chunks.size() == 3);
      std::vector<uint8_t> out(column->size_bytes());
      REQUIRE(r->ReadRows(0, 0, column->size(), out.data(), out.size()).ok());
      CHECK(std::memcmp(out.data(), column->data(), out.size()) == 0);
      CHECK(r->Validate(ValidationLevel::kDeep).ok());
    }
  }
}
