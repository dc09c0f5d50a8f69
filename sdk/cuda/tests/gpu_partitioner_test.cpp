// The CUDA partitioner (codec/encode/partitioner.cuh) against the CPU
// writer: on every generator dataset and every real array, the partitions
// and fits computed on the device equal PlanPartitions', and the chunk
// encoded from them is byte-identical to EncodeChunk's (partition table,
// parameters, payload, bounds, statistics), for several partitioner
// settings. Halving (the archive profile's split_min_rows) is not on the
// device yet.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/partitioner.hpp"
#include "codec/encode/value_traits.hpp"
#include "gpu_encode.hpp"
#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"

namespace l3::cuda::testing {
namespace {

using l3::internal::EncodedChunk;
using l3::internal::EncoderConfig;
using l3::internal::PlannedPartition;

/// Plans `values` on both sides and compares the plans and the chunks.
void CheckColumn(const void* values, uint64_t n, PhysicalType type, const Setting& setting) {
  INFO("setting " << setting.name);
  const EncoderConfig config = ConfigFor(type, setting);
  const l3::internal::PartitionPlanOptions options = l3::internal::PlanOptionsFor(config);
  const size_t bytes = n * static_cast<size_t>(PhysicalTypeBytes(type));
  DeviceBuffer d_values(values, bytes);
  std::vector<PlannedPartition> gpu_plan;
  const Status status =
      encode::PlanPartitions(type, d_values.data(), n, options, &gpu_plan, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());

  std::vector<PlannedPartition> cpu_plan;
  internal::DispatchIntegerType(type, [&](auto zero) {
    using T = decltype(zero);
    cpu_plan = internal::PlanPartitions(static_cast<const T*>(values), n, options);
  });
  REQUIRE(gpu_plan.size() == cpu_plan.size());
  size_t differing = 0;
  for (size_t i = 0; i < cpu_plan.size(); ++i) {
    if (gpu_plan[i].first_row != cpu_plan[i].first_row ||
        !SamePartitionFit(gpu_plan[i].fit, cpu_plan[i].fit)) {
      if (++differing <= 3) {
        MESSAGE("partition " << i << " first row CPU " << cpu_plan[i].first_row << " GPU "
                             << gpu_plan[i].first_row << ", model CPU "
                             << int{cpu_plan[i].fit.model_type} << " GPU "
                             << int{gpu_plan[i].fit.model_type});
      }
    }
  }
  CHECK(differing == 0);

  Result<EncodedChunk> cpu = internal::EncodeChunk(values, n, config);
  Result<EncodedChunk> gpu = internal::EncodeChunkWithPlan(values, n, config, gpu_plan);
  REQUIRE(cpu.ok());
  REQUIRE(gpu.ok());
  CHECK(gpu->num_partitions == cpu->num_partitions);
  CHECK(gpu->partition_table == cpu->partition_table);
  CHECK(gpu->parameters == cpu->parameters);
  CHECK(gpu->payload == cpu->payload);
  CHECK(gpu->bounds == cpu->bounds);
  CHECK(gpu->statistics.distinct_count == cpu->statistics.distinct_count);
}

}  // namespace

TEST_CASE("the device partitioner plans as the CPU writer on every generator dataset") {
  for (const datagen::DatasetInfo& info : datagen::Datasets()) {
    INFO("dataset " << info.name);
    Result<datagen::Column> column = datagen::Generate(info.name, 300000);
    REQUIRE(column.ok());
    for (const Setting& setting : kSettings) {
      CheckColumn(column->data(), column->size(), column->type(), setting);
    }
  }
}

TEST_CASE("the device partitioner plans as the CPU writer on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  for (const datagen::Column& column : columns) {
    INFO("real array " << column.name());
    CheckColumn(column.data(), column.size(), column.type(), kSettings[0]);
  }
}

TEST_CASE("the device partitioner plans short and odd-sized columns as the CPU writer") {
  // One row, fewer rows than a lane, a tile and an analysis block, and sizes
  // just past them; u8 (widths 0..8) to u64 (width 64).
  std::mt19937_64 rng(31);
  for (uint64_t n : {1ull, 2ull, 31ull, 33ull, 257ull, 2047ull, 2049ull, 4097ull}) {
    std::vector<uint8_t> u8(n);
    std::vector<uint64_t> u64(n);
    std::vector<int16_t> i16(n);
    for (uint64_t x = 0; x < n; ++x) {
      u8[x] = static_cast<uint8_t>(x % 7 == 0 ? rng() : x);
      u64[x] = x % 3 == 0 ? rng() : x * 1000;
      i16[x] = static_cast<int16_t>(static_cast<int64_t>(x) - 1000);
    }
    INFO("rows " << n);
    for (const Setting& setting : kSettings) {
      CheckColumn(u8.data(), n, PhysicalType::kUInt8, setting);
      CheckColumn(u64.data(), n, PhysicalType::kUInt64, setting);
      CheckColumn(i16.data(), n, PhysicalType::kInt16, setting);
    }
  }
}

// The two ways a Writer uses the device: plans only, or whole chunks.
struct GpuWriterMode {
  const char* name;
  Status (*install)(WriteOptions*, int);
};
constexpr GpuWriterMode kGpuWriterModes[] = {{"GPU partitioner", UseGpuPartitioner},
                                             {"GPU writer", UseGpuWriter}};

TEST_CASE("a Writer with the GPU partitioner or the GPU writer writes the CPU writer's bytes") {
  // Whole files of several chunks: the device is used for every integer
  // chunk (plain and dictionary candidates, the RUNS_EF gate); the archive
  // profile's halving falls back to the CPU.
  int files = 0;
  for (const datagen::DatasetInfo& info : datagen::Datasets()) {
    Result<datagen::Column> column = datagen::Generate(info.name, 250000);
    REQUIRE(column.ok());
    for (Profile profile : {Profile::kHot, Profile::kArchive}) {
      WriteOptions options;
      options.profile = profile;
      options.chunk_rows = 100000;
      const std::vector<uint8_t> cpu =
          WriteColumn("v", column->type(), column->data(), column->size(), options);
      CHECK(!cpu.empty());
      for (const GpuWriterMode& mode : kGpuWriterModes) {
        INFO("dataset " << info.name << (profile == Profile::kHot ? " hot, " : " archive, ")
                        << mode.name);
        WriteOptions gpu_options = options;
        REQUIRE(mode.install(&gpu_options, 0).ok());
        CHECK(WriteColumn("v", column->type(), column->data(), column->size(), gpu_options) ==
              cpu);
        ++files;
      }
    }
  }
  CHECK(files > 0);
}

TEST_CASE("the conformance writer inputs are written alike with the GPU partitioner and writer") {
  // conformance/writer-inputs: NAME.TYPE.bin, raw little-endian values.
  const std::filesystem::path dir = std::filesystem::path(L3_CONFORMANCE_DIR) / "writer-inputs";
  REQUIRE(std::filesystem::is_directory(dir));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const size_t dot = name.find('.');
    if (entry.path().extension() != ".bin" || dot == std::string::npos) continue;
    const std::string type_name = name.substr(dot + 1, name.rfind('.') - dot - 1);
    Result<PhysicalType> type = ParsePhysicalType(type_name);
    REQUIRE_MESSAGE(type.ok(), name);
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    const uint64_t rows = bytes.size() / static_cast<uint64_t>(PhysicalTypeBytes(*type));
    for (Profile profile : {Profile::kHot, Profile::kArchive}) {
      INFO(name << (profile == Profile::kHot ? " hot" : " archive"));
      WriteOptions options;
      options.profile = profile;
      const std::vector<uint8_t> cpu = WriteColumn("v", *type, bytes.data(), rows, options);
      for (const GpuWriterMode& mode : kGpuWriterModes) {
        INFO(mode.name);
        WriteOptions gpu_options = options;
        REQUIRE(mode.install(&gpu_options, 0).ok());
        CHECK(WriteColumn("v", *type, bytes.data(), rows, gpu_options) == cpu);
        ++files;
      }
    }
  }
  CHECK(files >= 52);
}

TEST_CASE("the device partitioner refuses what it does not do yet") {
  std::vector<uint32_t> v(5000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>(i * i % 977);
  DeviceBuffer d_values(v.data(), v.size() * sizeof(uint32_t));
  std::vector<PlannedPartition> plan;
  const auto code = [&](const EncoderConfig& config) {
    return encode::PlanPartitions(PhysicalType::kUInt32, d_values.data(), v.size(),
                                  internal::PlanOptionsFor(config), &plan, nullptr)
        .code();
  };
  EncoderConfig config = ConfigFor(PhysicalType::kUInt32, kSettings[0]);
  CHECK(code(config) == StatusCode::kOk);
  EncoderConfig with_halves = config;
  with_halves.partitioner.split_min_rows = 64u;
  CHECK(code(with_halves) == StatusCode::kUnsupportedFeature);
  EncoderConfig bad = config;
  bad.partitioner.analysis_block_rows = 0;
  CHECK(code(bad) == StatusCode::kInvalidArgument);
}

}  // namespace l3::cuda::testing
