// The GPU writer's device layer (l3/cuda.hpp: EncodeChunk) against the CPU
// chunk encoder: every segment byte for byte, the statistics, the feature
// flags and the segments' CRC32C, on the generator datasets, the real arrays
// and generated corner cases (all eight types, every bit width, partial
// tiles, runs, values across 2^53, V from 1 to 1024, one-row chunks); and
// its argument checks.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/dictionary/dictionary_encode.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/crc32c.hpp"
#include "gpu_encode.hpp"
#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"

namespace l3::cuda::testing {
namespace {

using internal::EncodedChunk;
using internal::EncoderConfig;

// A chunk encoded on the device, with its segments copied back.
struct DeviceEncoded {
  EncodedChunkInfo info;
  std::vector<uint8_t> segments[4];  // table, parameters, payload, bounds
};

// EncodeChunk's temporary storage and segment buffers for n values, sized
// by its *Bytes functions; the segments poisoned, so that a byte the encoder
// does not write cannot pass.
struct EncoderBuffers {
  EncoderBuffers(uint64_t n, const ChunkEncodeOptions& options) {
    Result<size_t> temp_bytes = EncodeChunkTempBytes(n, options);
    REQUIRE(temp_bytes.ok());
    Result<ChunkSegmentSizes> max = EncodeChunkMaxBytes(n, options);
    REQUIRE(max.ok());
    temp = DeviceBuffer(*temp_bytes);
    segments[0] = DeviceBuffer(max->partition_table);
    segments[1] = DeviceBuffer(max->parameters);
    segments[2] = DeviceBuffer(max->payload);
    segments[3] = DeviceBuffer(max->bounds + 8);
    for (const DeviceBuffer& b : segments) {
      REQUIRE(cudaMemset(b.data(), 0xA5, b.size()) == cudaSuccess);
    }
    out.partition_table = segments[0].data();
    out.parameters = segments[1].data();
    out.payload = segments[2].data();
    out.bounds = segments[3].data();
    out.capacity = *max;
  }

  DeviceBuffer temp;
  DeviceBuffer segments[4];  // table, parameters, payload, bounds
  ChunkSegmentBuffers out;
};

DeviceEncoded EncodeOnDevice(const void* values, uint64_t n, const EncoderConfig& config) {
  const ChunkEncodeOptions options = encode::ChunkEncodeOptionsOf(config);
  DeviceBuffer d_values(values, n * static_cast<size_t>(PhysicalTypeBytes(config.type)));
  EncoderBuffers buffers(n, options);
  DeviceEncoded result;
  const Status status = EncodeChunk(d_values.data(), n, options, buffers.temp.data(),
                                    buffers.temp.size(), buffers.out, &result.info, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  const uint64_t sizes[4] = {result.info.sizes.partition_table, result.info.sizes.parameters,
                             result.info.sizes.payload, result.info.sizes.bounds};
  for (int s = 0; s < 4; ++s) {
    std::vector<uint8_t> all = buffers.segments[s].ToHost();
    REQUIRE(sizes[s] <= all.size());
    result.segments[s].assign(all.begin(), all.begin() + static_cast<ptrdiff_t>(sizes[s]));
  }
  return result;
}

// The device's chunk equals EncodeChunk's, segment by segment.
void CheckChunk(const void* values, uint64_t n, const EncoderConfig& config) {
  Result<EncodedChunk> cpu = internal::EncodeChunk(values, n, config);
  REQUIRE_MESSAGE(cpu.ok(), cpu.status().ToString());
  const DeviceEncoded gpu = EncodeOnDevice(values, n, config);
  CHECK(gpu.info.num_rows == n);
  CHECK(gpu.info.num_partitions == cpu->num_partitions);
  CHECK(gpu.info.values_per_lane == cpu->values_per_lane);
  CHECK(gpu.info.uses_delta == cpu->uses_delta);
  CHECK(gpu.info.uses_runs_ef == cpu->uses_runs_ef);
  CHECK(gpu.info.uses_patched_for == cpu->uses_patched_for);
  const std::vector<uint8_t>* expected[4] = {&cpu->partition_table, &cpu->parameters, &cpu->payload,
                                             &cpu->bounds};
  const char* names[4] = {"partition table", "parameters", "payload", "bounds"};
  for (int s = 0; s < 4; ++s) {
    INFO("segment " << names[s]);
    REQUIRE(gpu.segments[s].size() == expected[s]->size());
    if (gpu.segments[s] != *expected[s]) {
      size_t first = 0;
      while (gpu.segments[s][first] == (*expected[s])[first]) ++first;
      FAIL_CHECK("first differing byte " << first << " of " << expected[s]->size());
    }
    const uint32_t crc =
        expected[s]->empty() ? 0 : internal::Crc32c(0, expected[s]->data(), expected[s]->size());
    CHECK(gpu.info.crc32c[s] == crc);
  }
  CHECK(gpu.info.statistics.present == config.compute_statistics);
  if (config.compute_statistics) {
    CHECK(gpu.info.statistics.has_min_max == cpu->statistics.has_min_max);
    CHECK(gpu.info.statistics.min_value == cpu->statistics.min_value);
    CHECK(gpu.info.statistics.max_value == cpu->statistics.max_value);
    CHECK(gpu.info.statistics.distinct_count == cpu->statistics.distinct_count);
    CHECK(gpu.info.statistics.distinct_count_exact == cpu->statistics.distinct_count_exact);
  }
}

// Values of type T from a 64-bit generator.
template <typename T>
std::vector<T> Cast(const std::vector<uint64_t>& raw) {
  std::vector<T> v(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) v[i] = static_cast<T>(raw[i]);
  return v;
}

// Shapes that reach every model and width: blocks of random values of each
// width 0..N (FOR, CONSTANT), sorted runs (runs, RUNS_EF, DELTA), lines and
// parabolas with noise (LINEAR, POLY2, POLY3), a walk (DELTA with
// exceptions), values near the type's extremes.
template <typename T>
std::vector<std::vector<T>> Shapes(uint64_t n, uint64_t seed) {
  using Traits = internal::ValueTraits<T>;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint64_t>> raw(6, std::vector<uint64_t>(n));
  for (uint64_t x = 0; x < n; ++x) {
    const uint32_t w = static_cast<uint32_t>((x / 300) % (Traits::kBits + 1));
    raw[0][x] = w == 0 ? 7 : (rng() & (w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1));
    raw[1][x] = (x / (1 + (x / 500) % 40)) * 3;  // sorted runs
    raw[2][x] = 1000 + 3 * x + (rng() % 5);      // line + noise
    raw[3][x] = (x * x) / 64 + (rng() % 3);      // parabola
    raw[4][x] = (x == 0 ? 0 : raw[4][x - 1]) + (rng() % 9 == 0 ? rng() % 100000 : rng() % 4);
    raw[5][x] = (x % 2 == 0) ? static_cast<uint64_t>(std::numeric_limits<T>::max()) - (rng() % 8)
                             : static_cast<uint64_t>(std::numeric_limits<T>::min()) + (rng() % 8);
  }
  std::vector<std::vector<T>> shapes;
  for (const auto& r : raw) shapes.push_back(Cast<T>(r));
  if constexpr (Traits::kBits == 64) {
    // 64-bit lines across 2^53 (spec §8.8 rule 3: no predicted model there).
    std::vector<uint64_t> wide(n);
    for (uint64_t x = 0; x < n; ++x) wide[x] = (uint64_t{1} << 53) - n / 2 + 5 * x;
    shapes.push_back(Cast<T>(wide));
  }
  return shapes;
}

// EncodeDictionaryChunk through the GPU writer equals the CPU's: both build
// no dictionary, or the same dictionary chunk.
void CheckDictionary(const void* values, uint64_t n, PhysicalType type) {
  WriteOptions gpu;
  REQUIRE(UseGpuWriter(&gpu).ok());
  EncoderConfig config = ConfigFor(type, kSettings[0]);
  Result<std::optional<EncodedChunk>> cpu = internal::EncodeDictionaryChunk(values, n, config);
  config.planner = gpu.partition_planner.get();
  std::optional<EncodedChunk> device;
  const Status status = config.planner->EncodeDictionary(values, n, config, &device);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  REQUIRE(cpu.ok());
  REQUIRE(device.has_value() == cpu->has_value());
  if (!device) return;
  const EncodedChunk& c = **cpu;
  CHECK(device->dictionary_entries == c.dictionary_entries);
  CHECK(device->num_rows == c.num_rows);
  CHECK(device->num_partitions == c.num_partitions);
  CHECK(device->partition_table == c.partition_table);
  CHECK(device->parameters == c.parameters);
  CHECK(device->payload == c.payload);
  CHECK(device->bounds == c.bounds);
  CHECK(device->statistics.min_value == c.statistics.min_value);
  CHECK(device->statistics.max_value == c.statistics.max_value);
  CHECK(device->statistics.distinct_count == c.statistics.distinct_count);
  CHECK(device->statistics.distinct_count_exact == c.statistics.distinct_count_exact);
}

}  // namespace

TEST_CASE_TEMPLATE("the device dictionary builds the CPU's dictionary chunks", T, int8_t, uint8_t,
                   int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t) {
  const PhysicalType type = internal::PhysicalTypeOf<T>();
  std::mt19937_64 rng(7);
  int dictionaries = 0;
  for (uint64_t n : {1ull, 3ull, 4ull, 100ull, 70000ull, 300000ull}) {
    std::vector<uint64_t> palette(37);
    for (uint64_t& p : palette) p = rng();
    // Few distinct values (a dictionary); distinct at first, then few (the
    // sample rejects it); a quarter of the rows distinct plus one (over the
    // limit); negative and extreme values.
    std::vector<std::vector<uint64_t>> shapes(3, std::vector<uint64_t>(n));
    for (uint64_t x = 0; x < n; ++x) {
      shapes[0][x] = palette[rng() % palette.size()];
      shapes[1][x] = x < 40000 ? x * 977 : palette[x % 5];
      shapes[2][x] = x % (n / 4 + 2) == 0 ? rng() : palette[x % 3];
    }
    for (size_t shape = 0; shape < shapes.size(); ++shape) {
      INFO("rows " << n << ", shape " << shape);
      const std::vector<T> v = Cast<T>(shapes[shape]);
      CheckDictionary(v.data(), n, type);
      Result<std::optional<EncodedChunk>> cpu =
          internal::EncodeDictionaryChunk(v.data(), n, ConfigFor(type, kSettings[0]));
      dictionaries += cpu.ok() && cpu->has_value() ? 1 : 0;
    }
  }
  CHECK(dictionaries > 0);
}

TEST_CASE("the device dictionary builds the CPU's dictionary chunks on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  for (const datagen::Column& column : columns) {
    INFO("real array " << column.name());
    CheckDictionary(column.data(), column.size(), column.type());
  }
}

TEST_CASE("the device chunk encoder writes the CPU's chunk on every generator dataset") {
  for (const datagen::DatasetInfo& info : datagen::Datasets()) {
    INFO("dataset " << info.name);
    Result<datagen::Column> column = datagen::Generate(info.name, 300000);
    REQUIRE(column.ok());
    for (const Setting& setting : kSettings) {
      INFO("setting " << setting.name);
      CheckChunk(column->data(), column->size(), ConfigFor(column->type(), setting));
    }
  }
}

TEST_CASE("the device chunk encoder writes the CPU's chunk on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  for (const datagen::Column& column : columns) {
    INFO("real array " << column.name());
    CheckChunk(column.data(), column.size(), ConfigFor(column.type(), kSettings[0]));
  }
}

TEST_CASE_TEMPLATE("the device chunk encoder writes the CPU's chunk for every type and width", T,
                   int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t) {
  const PhysicalType type = internal::PhysicalTypeOf<T>();
  uint64_t seed = 1;
  for (uint64_t n : {1ull, 2ull, 33ull, 2049ull, 40000ull}) {
    const std::vector<std::vector<T>> shapes = Shapes<T>(n, seed++);
    for (size_t shape = 0; shape < shapes.size(); ++shape) {
      INFO("rows " << n << ", shape " << shape);
      for (const Setting& setting : kSettings) {
        INFO("setting " << setting.name);
        CheckChunk(shapes[shape].data(), n, ConfigFor(type, setting));
      }
      // V = 1024 (tiles of 32768 rows), without bounds and statistics.
      EncoderConfig config = ConfigFor(type, kSettings[0]);
      config.values_per_lane = 1024;
      config.compute_bounds = false;
      config.compute_statistics = false;
      CheckChunk(shapes[shape].data(), n, config);
    }
  }
}

TEST_CASE("the device chunk encoder checks its arguments") {
  std::vector<uint32_t> v(5000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>(i * i % 977);
  const EncoderConfig config = ConfigFor(PhysicalType::kUInt32, kSettings[0]);
  const ChunkEncodeOptions options = encode::ChunkEncodeOptionsOf(config);
  DeviceBuffer d_values(v.data(), v.size() * sizeof(uint32_t));
  EncoderBuffers buffers(v.size(), options);
  const DeviceBuffer& temp = buffers.temp;
  const ChunkSegmentBuffers& out = buffers.out;
  EncodedChunkInfo info;
  const auto encode = [&](const ChunkEncodeOptions& o, const ChunkSegmentBuffers& b,
                          size_t temp_size) {
    return EncodeChunk(d_values.data(), v.size(), o, temp.data(), temp_size, b, &info, nullptr)
        .code();
  };
  CHECK(encode(options, out, temp.size()) == StatusCode::kOk);
  const ChunkSegmentSizes written = info.sizes;

  // A payload buffer one byte too small: kBufferTooSmall, and the sizes.
  ChunkSegmentBuffers small = out;
  small.capacity.payload = written.payload - 1;
  CHECK(encode(options, small, temp.size()) == StatusCode::kBufferTooSmall);
  CHECK(info.sizes.payload == written.payload);
  CHECK(encode(options, out, temp.size() / 2) == StatusCode::kBufferTooSmall);

  ChunkEncodeOptions halving = options;
  halving.partitioner.split_min_rows = 64u;
  CHECK(encode(halving, out, temp.size()) == StatusCode::kUnsupportedFeature);
  CHECK(EncodeChunkTempBytes(v.size(), halving).status().code() == StatusCode::kUnsupportedFeature);
  ChunkEncodeOptions floats = options;
  floats.type = PhysicalType::kFloat32;
  CHECK(encode(floats, out, temp.size()) == StatusCode::kUnsupportedFeature);
  ChunkEncodeOptions bad_lanes = options;
  bad_lanes.values_per_lane = 3;
  CHECK(encode(bad_lanes, out, temp.size()) == StatusCode::kInvalidArgument);
  CHECK(EncodeChunkTempBytes(0, options).status().code() == StatusCode::kInvalidArgument);

  ChunkSegmentBuffers no_payload = out;
  no_payload.payload = nullptr;
  CHECK(encode(options, no_payload, temp.size()) == StatusCode::kInvalidArgument);
  ChunkSegmentBuffers misaligned = out;
  misaligned.parameters = static_cast<uint8_t*>(out.parameters) + 4;
  CHECK(encode(options, misaligned, temp.size()) == StatusCode::kInvalidArgument);
  CHECK(EncodeChunk(d_values.data(), v.size(), options, nullptr, 0, out, &info, nullptr).code() ==
        StatusCode::kInvalidArgument);

  // Still the same bytes after the refusals.
  CHECK(encode(options, out, temp.size()) == StatusCode::kOk);
  CHECK(info.sizes.payload == written.payload);
}

}  // namespace l3::cuda::testing
