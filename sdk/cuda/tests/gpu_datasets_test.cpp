// The CUDA backend against the CPU reader on whole files: the datagen
// datasets at test sizes, the real arrays, and every .l3 file that the CPU
// tests leave in $L3_TEST_FILES_DIR. Each column is decoded whole, by random
// ranges (device layer and Loader) and by random rows, and compared byte for
// byte with the CPU reader and the original values.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"

namespace l3::cuda::testing {
namespace {

constexpr uint64_t kTestRows = 150000;

void CheckDataset(const datagen::Column& column, uint32_t values_per_lane, uint64_t chunk_rows,
                  uint64_t seed) {
  WriteOptions options;
  options.values_per_lane = values_per_lane;
  options.chunk_rows = chunk_rows;
  const std::vector<uint8_t> file =
      WriteColumn(column.name(), column.type(), column.data(), column.size(), options);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  INFO(reader.status().ToString());
  REQUIRE(reader.ok());
  CheckColumnAgainstCpu(*reader, 0, column.data(), seed);
}

TEST_CASE("datagen datasets decode on the GPU as on the CPU") {
  uint64_t seed = 1;
  for (const datagen::DatasetInfo& info : datagen::Datasets()) {
    INFO("dataset " << info.name);
    Result<datagen::Column> column = datagen::Generate(info.name, kTestRows);
    INFO(column.status().ToString());
    REQUIRE(column.ok());
    // Several chunks, so that ranges, spans and random rows cross chunks.
    CheckDataset(*column, 64, kTestRows / 3 + 101, seed++);
  }
}

TEST_CASE("other values_per_lane decode on the GPU as on the CPU") {
  for (const char* name : {"normal", "cosmos"}) {
    Result<datagen::Column> column = datagen::Generate(name, 60000);
    REQUIRE(column.ok());
    for (uint32_t v : {1u, 4u, 32u, 256u, 1024u}) {
      INFO(name << " with values_per_lane " << v);
      CheckDataset(*column, v, 25000, v);
    }
  }
}

TEST_CASE("real arrays decode on the GPU as on the CPU") {
  const std::string dir = datagen::RealDataDir();
  if (!std::filesystem::is_directory(dir)) {
    MESSAGE("skipped: no real-data directory at " << dir);
    return;
  }
  Result<std::vector<datagen::Column>> columns = datagen::LoadRealIntegerArrays(dir);
  INFO(columns.status().ToString());
  REQUIRE(columns.ok());
  CHECK(!columns->empty());
  uint64_t seed = 100;
  for (const datagen::Column& column : *columns) {
    INFO("real array " << column.name());
    CheckDataset(column, 64, uint64_t{1} << 26, seed++);
  }
}

TEST_CASE("files written by the CPU tests decode on the GPU as on the CPU") {
  const char* dir = std::getenv("L3_TEST_FILES_DIR");
  if (dir == nullptr || *dir == '\0') {
    MESSAGE("skipped: L3_TEST_FILES_DIR is not set");
    return;
  }
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".l3") continue;
    INFO("file " << entry.path().string());
    Result<Reader> reader = Reader::Open(entry.path().string());
    if (!reader.ok()) continue;  // files the CPU tests made invalid on purpose
    if (!reader->Validate(ValidationLevel::kStructural).ok()) continue;
    ++files;
    for (int c = 0; c < reader->num_columns(); ++c) {
      const ColumnInfo& column = reader->column(c);
      if (!PhysicalTypeIsInteger(column.type)) continue;
      // Columns whose payload the CPU rejects (corrupt on purpose) have no
      // reference to compare with.
      std::vector<uint8_t> probe(column.num_rows * PhysicalTypeBytes(column.type));
      if (!reader->ReadRows(c, 0, column.num_rows, probe.data(), probe.size()).ok()) continue;
      CheckColumnAgainstCpu(*reader, c, nullptr, 1000 + files);
    }
  }
  MESSAGE("checked " << files << " files from " << dir);
}

}  // namespace
}  // namespace l3::cuda::testing
