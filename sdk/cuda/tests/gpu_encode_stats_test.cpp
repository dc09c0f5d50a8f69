// The device chunk statistics and CRC32C (gpu_encode_stats.hpp) against the
// CPU's: ComputeChunkStatistics must give the same struct (the HyperLogLog
// estimate included) for every integer type over generated shapes and the
// real arrays, and Crc32c the same word as the host's for sizes of 0 bytes to
// a few MiB at every alignment. Prints rough throughputs (not asserted).
#include "gpu_encode_stats.hpp"

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/encode/chunk_statistics.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/crc32c.hpp"
#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"

namespace l3::cuda::testing {
namespace {

using l3::internal::ChunkStatisticsData;
using l3::internal::kExactDistinctLimit;

int CpuThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::string Describe(const ChunkStatisticsData& s) {
  return "min " + std::to_string(s.min_value) + " max " + std::to_string(s.max_value) +
         " distinct " + std::to_string(s.distinct_count) +
         (s.distinct_count_exact ? " exact" : "") + (s.has_min_max ? "" : " (no min/max)");
}

bool Same(const ChunkStatisticsData& a, const ChunkStatisticsData& b) {
  return a.has_min_max == b.has_min_max && a.min_value == b.min_value &&
         a.max_value == b.max_value && a.distinct_count == b.distinct_count &&
         a.distinct_count_exact == b.distinct_count_exact;
}

// The device statistics of `values` (copied to the device) and the time
// the call took in seconds.
template <typename T>
ChunkStatisticsData GpuStatistics(const T* values, uint64_t n, double* seconds = nullptr) {
  const PhysicalType type = internal::PhysicalTypeOf<T>();
  DeviceBuffer d_values(values, n * sizeof(T));
  DeviceBuffer d_temp(encode::ChunkStatisticsTempBytes(type, n));
  ChunkStatisticsData out;
  out.distinct_count = 12345;  // overwritten
  const auto start = std::chrono::steady_clock::now();
  const Status status = encode::ComputeChunkStatistics(type, d_values.data(), n, d_temp.data(),
                                                       d_temp.size(), &out, nullptr);
  const auto stop = std::chrono::steady_clock::now();
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  if (seconds != nullptr) *seconds = std::chrono::duration<double>(stop - start).count();
  return out;
}

// Checks the device against the CPU on `values`; returns the CPU's result.
template <typename T>
ChunkStatisticsData Compare(const std::vector<T>& values, const std::string& what) {
  const ChunkStatisticsData cpu =
      internal::ComputeChunkStatistics(values.data(), values.size(), CpuThreads());
  const ChunkStatisticsData gpu = GpuStatistics(values.data(), values.size());
  INFO(what << " (" << values.size() << " values of " << sizeof(T) << " bytes)");
  CHECK_MESSAGE(Same(cpu, gpu), "CPU " << Describe(cpu) << " / GPU " << Describe(gpu));
  return cpu;
}

// The inverse of the statistics hash (splitmix64's finaliser): values with
// chosen hashes.
uint64_t UnXorShift(uint64_t y, int r) {
  uint64_t x = y;
  for (int i = 0; i < 64 / r + 1; ++i) x = y ^ (x >> r);
  return x;
}
uint64_t InverseOf(uint64_t odd) {
  uint64_t inv = odd;
  for (int i = 0; i < 6; ++i) inv *= 2 - odd * inv;
  return inv;
}
uint64_t UnHash(uint64_t h) {
  uint64_t x = UnXorShift(h, 31) * InverseOf(0x94D049BB133111EBull);
  x = UnXorShift(x, 27) * InverseOf(0xBF58476D1CE4E5B9ull);
  return UnXorShift(x, 30) - 0x9E3779B97F4A7C15ull;
}

// `distinct` different values of T (spread over the type's range, 0 and the
// extremes among them when include_zero), each used about n / distinct
// times, in random order.
template <typename T>
std::vector<T> Shuffled(uint64_t n, uint64_t distinct, bool include_zero, std::mt19937_64& rng) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> pool;
  pool.reserve(distinct);
  if (include_zero) pool.push_back(0);
  const uint64_t stride = std::max<uint64_t>(1, uint64_t(std::numeric_limits<U>::max()) / distinct);
  for (uint64_t k = 1; pool.size() < distinct; ++k) {
    const auto v = static_cast<T>(static_cast<U>(k * stride + (include_zero ? 0 : 1)));
    if (v != 0 || !include_zero) pool.push_back(v);
  }
  std::vector<T> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = pool[i < distinct ? i : rng() % distinct];
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

template <typename T>
void CheckShapes(uint64_t seed) {
  using Limits = std::numeric_limits<T>;
  constexpr bool kWide = sizeof(T) >= 4;
  std::mt19937_64 rng(seed);
  const auto random_value = [&] { return static_cast<T>(rng()); };

  Compare(std::vector<T>{Limits::min()}, "one row (min)");
  Compare(std::vector<T>{Limits::max()}, "one row (max)");
  Compare(std::vector<T>(1000, static_cast<T>(-1)), "constant");
  Compare(std::vector<T>(1000, 0), "constant zero");

  std::vector<T> v(300000);
  for (auto& x : v) x = random_value();
  std::sort(v.begin(), v.end());
  CHECK(Compare(v, "sorted ascending").distinct_count_exact);
  std::reverse(v.begin(), v.end());
  Compare(v, "sorted descending");
  {
    std::vector<T> steps(200000);
    T x = Limits::min();
    for (auto& s : steps) {
      s = x;
      if (rng() % 3 == 0 && x < Limits::max()) x = static_cast<T>(x + 1);
    }
    Compare(steps, "ascending with duplicates from min");
    std::reverse(steps.begin(), steps.end());
    Compare(steps, "descending with duplicates to min");
    steps.back() = Limits::max();
    Compare(steps, "descending, then max at the end (unsorted)");
  }

  for (auto& x : v) x = random_value();
  Compare(v, "random over the whole range");
  Compare(std::vector<T>(v.begin(), v.begin() + 1000), "1000 random");
  Compare(Shuffled<T>(200000, 100, true, rng), "100 distinct with zero");
  Compare(Shuffled<T>(200000, 2, false, rng), "two values, shuffled");

  // Values at the ends of the range, negative ones included.
  const T extremes[] = {Limits::min(),
                        static_cast<T>(Limits::min() + 1),
                        Limits::max(),
                        static_cast<T>(Limits::max() - 1),
                        static_cast<T>(-1),
                        0,
                        1};
  std::vector<T> ends(100000);
  for (auto& x : ends) x = extremes[rng() % std::size(extremes)];
  CHECK(Compare(ends, "the extremes, shuffled").distinct_count == (Limits::is_signed ? 7u : 4u));
  std::vector<T> high(100000);
  for (auto& x : high) x = static_cast<T>(Limits::max() - static_cast<T>(rng() % 50));
  Compare(high, "just below max");
  std::vector<T> low(100000);
  for (auto& x : low) x = static_cast<T>(Limits::min() + static_cast<T>(rng() % 50));
  Compare(low, "just above min");

  if constexpr (kWide) {
    // Around the exact limit: 2^16 distinct values are counted, 2^16 + 1 are
    // estimated; with and without zero (a flag on the device).
    const uint64_t limit = kExactDistinctLimit;
    CHECK(Compare(Shuffled<T>(250000, limit, false, rng), "2^16 distinct").distinct_count == limit);
    CHECK(
        Compare(Shuffled<T>(250000, limit, true, rng), "2^16 distinct with zero").distinct_count ==
        limit);
    CHECK_FALSE(Compare(Shuffled<T>(250000, limit + 1, false, rng), "2^16 + 1 distinct")
                    .distinct_count_exact);
    CHECK_FALSE(Compare(Shuffled<T>(250000, limit + 1, true, rng), "2^16 + 1 distinct with zero")
                    .distinct_count_exact);
    CHECK_FALSE(
        Compare(Shuffled<T>(1000000, 300000, true, rng), "300000 distinct").distinct_count_exact);
    // Many blocks agreeing on few keys.
    CHECK(Compare(Shuffled<T>(3000000, 5000, true, rng), "5000 distinct, 3M rows").distinct_count ==
          5000);
    std::vector<T> many(2000000);
    for (auto& x : many) x = random_value();
    CHECK_FALSE(Compare(many, "2M random").distinct_count_exact);
  } else {
    // The bitmap: every value of the type, and runs of them.
    std::vector<T> all(uint64_t{1} << (8 * sizeof(T)));
    std::iota(all.begin(), all.end(), Limits::min());
    std::shuffle(all.begin(), all.end(), rng);
    CHECK(Compare(all, "every value once").distinct_count == all.size());
    std::vector<T> twice(all);
    twice.insert(twice.end(), all.begin(), all.end());
    CHECK(Compare(twice, "every value twice").distinct_count == all.size());
    CHECK(Compare(Shuffled<T>(500000, 37, false, rng), "37 distinct").distinct_count == 37u);
  }
}

template <typename T>
std::vector<uint8_t> GpuSketch(const std::vector<T>& values) {
  const PhysicalType type = internal::PhysicalTypeOf<T>();
  DeviceBuffer d_values(values.data(), values.size() * sizeof(T));
  DeviceBuffer d_temp(encode::DistinctSketchTempBytes(type, values.size()));
  std::vector<uint8_t> out = {0xEE};  // overwritten
  const Status status = encode::ComputeDistinctSketch(type, d_values.data(), values.size(),
                                                      d_temp.data(), d_temp.size(), &out, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  return out;
}

// Checks the device's sketch bytes against the CPU's; returns whether the
// sketch is the exact (HASHES) form.
template <typename T>
bool CompareSketch(const std::vector<T>& values, const std::string& what) {
  const std::vector<uint8_t> cpu =
      internal::ComputeDistinctSketch(values.data(), values.size(), CpuThreads());
  const std::vector<uint8_t> gpu = GpuSketch(values);
  INFO("sketch of " << what << " (" << values.size() << " values of " << sizeof(T) << " bytes)");
  REQUIRE(!cpu.empty());
  CHECK_MESSAGE(cpu == gpu, "CPU " << cpu.size() << " bytes, form " << int(cpu[0]) << " / GPU "
                                   << gpu.size() << " bytes");
  return cpu[0] == 0;
}

template <typename T>
void CheckSketchShapes(uint64_t seed) {
  std::mt19937_64 rng(seed);
  using Limits = std::numeric_limits<T>;
  CHECK(CompareSketch(std::vector<T>{Limits::min()}, "one row"));
  CHECK(CompareSketch(std::vector<T>(5000, 0), "constant zero"));
  CHECK(CompareSketch(Shuffled<T>(100000, 256, false, rng), "256 distinct"));
  CHECK(CompareSketch(Shuffled<T>(100000, 256, true, rng), "256 distinct with zero"));
  if constexpr (sizeof(T) > 1) {  // an 8-bit type has 256 values
    CHECK_FALSE(CompareSketch(Shuffled<T>(100000, 257, false, rng), "257 distinct"));
    CHECK_FALSE(CompareSketch(Shuffled<T>(100000, 257, true, rng), "257 distinct with zero"));
  }
  std::vector<T> v(400000);
  for (auto& x : v) x = static_cast<T>(rng());
  CHECK(CompareSketch(v, "random") == (sizeof(T) == 1));
  std::sort(v.begin(), v.end());
  CompareSketch(v, "sorted");
  if constexpr (sizeof(T) >= 4) {
    CHECK_FALSE(CompareSketch(Shuffled<T>(1000000, 100000, true, rng), "100000 distinct"));
  }
}

}  // namespace

TEST_CASE("device distinct sketch bytes equal the CPU's for every integer type") {
  SUBCASE("int8") { CheckSketchShapes<int8_t>(21); }
  SUBCASE("uint8") { CheckSketchShapes<uint8_t>(22); }
  SUBCASE("int16") { CheckSketchShapes<int16_t>(23); }
  SUBCASE("uint16") { CheckSketchShapes<uint16_t>(24); }
  SUBCASE("int32") { CheckSketchShapes<int32_t>(25); }
  SUBCASE("uint32") { CheckSketchShapes<uint32_t>(26); }
  SUBCASE("int64") { CheckSketchShapes<int64_t>(27); }
  SUBCASE("uint64") { CheckSketchShapes<uint64_t>(28); }
}

TEST_CASE("device distinct sketch bytes equal the CPU's on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  for (const datagen::Column& column : columns) {
    WithValues(column, [&](const auto& values) { CompareSketch(values, column.name()); });
  }
  // Colliding values: the set overflows (or gives up probing) past 256 keys.
  std::vector<uint64_t> colliding;
  for (uint64_t j = 1; j <= 6000; ++j) colliding.push_back(UnHash(j << 20));
  CHECK_FALSE(CompareSketch(colliding, "colliding values"));
  colliding.resize(200);
  CHECK(CompareSketch(colliding, "200 colliding values"));
}

TEST_CASE("device chunk statistics equal the CPU's for every integer type") {
  SUBCASE("int8") { CheckShapes<int8_t>(1); }
  SUBCASE("uint8") { CheckShapes<uint8_t>(2); }
  SUBCASE("int16") { CheckShapes<int16_t>(3); }
  SUBCASE("uint16") { CheckShapes<uint16_t>(4); }
  SUBCASE("int32") { CheckShapes<int32_t>(5); }
  SUBCASE("uint32") { CheckShapes<uint32_t>(6); }
  SUBCASE("int64") { CheckShapes<int64_t>(7); }
  SUBCASE("uint64") { CheckShapes<uint64_t>(8); }
}

TEST_CASE("device chunk statistics equal the CPU's on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  for (const datagen::Column& column : columns) {
    WithValues(column, [&](const auto& values) {
      Compare(values, "real array " + column.name());
      // Unsorted copies exercise the set or the bitmap as well.
      auto shuffled = values;
      std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(9));
      Compare(shuffled, "real array " + column.name() + ", shuffled");
    });
  }
}

TEST_CASE("device chunk statistics survive values built to collide in the hash table") {
  // Hashes with 20 low zero bits all start probing at slot 0; the device gives
  // up probing and the count comes from the host, still exact.
  std::vector<uint64_t> v;
  for (uint64_t j = 1; j <= 6000; ++j) v.push_back(UnHash(j << 20));
  v.insert(v.end(), v.begin(), v.end());
  std::shuffle(v.begin(), v.end(), std::mt19937_64(3));
  const ChunkStatisticsData cpu = Compare(v, "colliding values");
  CHECK(cpu.distinct_count == 6000);
  CHECK(cpu.distinct_count_exact);
}

TEST_CASE("device chunk statistics: throughput on 100M uint64 (informational)") {
  const uint64_t n = 100'000'000;
  std::vector<uint64_t> v(n);
  std::mt19937_64 rng(77);
  struct Case {
    const char* name;
    int shape;
  };
  for (const Case c : {Case{"random (HyperLogLog)", 0}, Case{"65536 distinct (exact set)", 1},
                       Case{"sorted", 2}}) {
    if (c.shape == 0) {
      for (auto& x : v) x = rng();
    } else if (c.shape == 1) {
      for (auto& x : v) x = (rng() % 65536) * 0x9E3779B97F4A7C15ull;
    } else {
      for (uint64_t i = 0; i < n; ++i) v[i] = i / 3;
    }
    double seconds = 0;
    GpuStatistics(v.data(), n, &seconds);  // warm up
    const ChunkStatisticsData gpu = GpuStatistics(v.data(), n, &seconds);
    const auto start = std::chrono::steady_clock::now();
    const ChunkStatisticsData cpu = internal::ComputeChunkStatistics(v.data(), n, CpuThreads());
    const double cpu_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK_MESSAGE(Same(cpu, gpu), std::string(c.name)
                                      << ": CPU " << Describe(cpu) << " / GPU " << Describe(gpu));
    MESSAGE("statistics of 100M uint64, " << std::string(c.name) << ": device " << seconds * 1e3
                                          << " ms, " << n * 8 / seconds / 1e9 << " GB/s; CPU ("
                                          << CpuThreads() << " threads) " << cpu_seconds * 1e3
                                          << " ms");
  }
}

TEST_CASE("device chunk statistics refuse bad arguments") {
  std::vector<uint32_t> v(100, 7);
  DeviceBuffer d_values(v.data(), v.size() * sizeof(uint32_t));
  const size_t temp_bytes = encode::ChunkStatisticsTempBytes(PhysicalType::kUInt32, v.size());
  CHECK(temp_bytes > 0);
  CHECK(encode::ChunkStatisticsTempBytes(PhysicalType::kFloat64, 100) == 0);
  DeviceBuffer d_temp(temp_bytes);
  ChunkStatisticsData out;
  const auto stats = [&](PhysicalType type, const void* values, uint64_t n, void* temp,
                         size_t bytes, ChunkStatisticsData* o) {
    return encode::ComputeChunkStatistics(type, values, n, temp, bytes, o, nullptr).code();
  };
  const auto* bytes = static_cast<const uint8_t*>(d_values.data());
  CHECK(stats(PhysicalType::kUInt32, bytes, 100, d_temp.data(), temp_bytes, &out) ==
        StatusCode::kOk);
  CHECK(out.distinct_count == 1);
  CHECK(stats(PhysicalType::kUInt32, nullptr, 100, d_temp.data(), temp_bytes, &out) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kUInt32, bytes, 100, nullptr, temp_bytes, &out) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kUInt32, bytes, 100, d_temp.data(), temp_bytes, nullptr) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kUInt32, bytes, 0, d_temp.data(), temp_bytes, &out) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kUInt32, bytes + 2, 10, d_temp.data(), temp_bytes, &out) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kUInt32, bytes, 100, d_temp.data(), temp_bytes - 1, &out) ==
        StatusCode::kInvalidArgument);
  CHECK(stats(PhysicalType::kFloat32, bytes, 100, d_temp.data(), temp_bytes, &out) ==
        StatusCode::kUnsupportedFeature);
  // The sketch takes the same checks.
  const size_t sketch_bytes = encode::DistinctSketchTempBytes(PhysicalType::kUInt32, v.size());
  DeviceBuffer d_sketch_temp(sketch_bytes);
  std::vector<uint8_t> sketch;
  const auto sketch_of = [&](const void* values, uint64_t n, size_t temp, std::vector<uint8_t>* o) {
    return encode::ComputeDistinctSketch(PhysicalType::kUInt32, values, n, d_sketch_temp.data(),
                                         temp, o, nullptr)
        .code();
  };
  CHECK(sketch_of(bytes, 100, sketch_bytes, &sketch) == StatusCode::kOk);
  CHECK(sketch == internal::ComputeDistinctSketch(v.data(), v.size(), 1));
  CHECK(sketch_of(bytes, 100, sketch_bytes, nullptr) == StatusCode::kInvalidArgument);
  CHECK(sketch_of(bytes, 0, sketch_bytes, &sketch) == StatusCode::kInvalidArgument);
  CHECK(sketch_of(bytes + 1, 10, sketch_bytes, &sketch) == StatusCode::kInvalidArgument);
  CHECK(sketch_of(bytes, 100, sketch_bytes - 1, &sketch) == StatusCode::kInvalidArgument);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("device CRC32C equals the host's for every size and alignment") {
  const size_t kMax = (size_t{4} << 20) + 64;
  std::vector<uint8_t> host(kMax);
  std::mt19937_64 rng(5);
  for (auto& b : host) b = static_cast<uint8_t>(rng());
  DeviceBuffer d_data(host.data(), host.size());
  std::vector<uint64_t> sizes = {0,
                                 1,
                                 2,
                                 3,
                                 7,
                                 8,
                                 15,
                                 16,
                                 17,
                                 31,
                                 63,
                                 64,
                                 65,
                                 100,
                                 255,
                                 256,
                                 1000,
                                 1023,
                                 1024,
                                 1025,
                                 4095,
                                 4096,
                                 4097,
                                 16383,
                                 65535,
                                 65539,
                                 262143,
                                 262144,
                                 262145,
                                 999999,
                                 1048576 + 7,
                                 (size_t{3} << 20) + 5,
                                 size_t{4} << 20};
  for (int i = 0; i < 40; ++i) sizes.push_back(rng() % (size_t{4} << 20));
  const uint64_t offsets[] = {0, 1, 3, 7, 8, 13, 15, 16, 33};
  std::vector<uint32_t> expected;
  const size_t count = sizes.size() * std::size(offsets);
  DeviceBuffer d_crcs(count * sizeof(uint32_t));
  auto* crcs = static_cast<uint32_t*>(d_crcs.data());
  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  const size_t temp_bytes = encode::Crc32cTempBytes(kMax);
  DeviceBuffer d_temp(temp_bytes);
  size_t k = 0;
  for (const uint64_t size : sizes) {
    for (const uint64_t offset : offsets) {
      const uint8_t* data = static_cast<const uint8_t*>(d_data.data()) + offset;
      const Status status =
          encode::Crc32c(data, size, d_temp.data(), temp_bytes, crcs + k++, stream);
      REQUIRE_MESSAGE(status.ok(), status.ToString());
      expected.push_back(internal::Crc32c(0, host.data() + offset, size));
    }
  }
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  const std::vector<uint8_t> got = d_crcs.ToHost();
  int mismatches = 0;
  for (size_t i = 0; i < count; ++i) {
    uint32_t crc;
    std::memcpy(&crc, got.data() + 4 * i, 4);
    if (crc != expected[i] && ++mismatches <= 5) {
      MESSAGE("size " << sizes[i / std::size(offsets)] << " offset "
                      << offsets[i % std::size(offsets)] << ": host " << expected[i] << " device "
                      << crc);
    }
  }
  CHECK(mismatches == 0);
  CHECK(expected[0] == 0);  // size 0
}

TEST_CASE("device CRC32C refuses bad arguments; throughput on 400 MB (informational)") {
  DeviceBuffer d_crc(8);
  auto* crc = static_cast<uint32_t*>(d_crc.data());
  uint8_t byte = 1;
  DeviceBuffer d_byte(&byte, 1);
  CHECK(encode::Crc32c(d_byte.data(), 1, nullptr, 0, nullptr, nullptr).code() ==
        StatusCode::kInvalidArgument);
  CHECK(encode::Crc32c(nullptr, 1, nullptr, 0, crc, nullptr).code() ==
        StatusCode::kInvalidArgument);
  CHECK(encode::Crc32c(d_byte.data(), 1, nullptr, 0,
                       reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(crc) + 2), nullptr)
            .code() == StatusCode::kInvalidArgument);
  CHECK(encode::Crc32c(nullptr, 0, nullptr, 0, crc, nullptr).code() == StatusCode::kOk);

  const size_t n = 400'000'000;
  std::vector<uint8_t> host(n);
  std::mt19937_64 rng(6);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t w = rng();
    std::memcpy(host.data() + i, &w, 8);
  }
  DeviceBuffer d_data(host.data(), n);
  cudaEvent_t start, stop;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  REQUIRE(encode::Crc32c(d_data.data(), n, nullptr, 0, crc, nullptr).ok());  // warm up
  REQUIRE(cudaEventRecord(start) == cudaSuccess);
  const int kRepeats = 5;
  for (int i = 0; i < kRepeats; ++i) {
    REQUIRE(encode::Crc32c(d_data.data(), n, nullptr, 0, crc, nullptr).ok());
  }
  REQUIRE(cudaEventRecord(stop) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
  float ms = 0;
  REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  const std::vector<uint8_t> got = d_crc.ToHost();
  uint32_t device_crc;
  std::memcpy(&device_crc, got.data(), 4);
  const auto host_start = std::chrono::steady_clock::now();
  const uint32_t host_crc = internal::Crc32c(0, host.data(), n);
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
          .count();
  CHECK(device_crc == host_crc);
  MESSAGE("CRC32C of 400 MB: device " << ms / kRepeats << " ms, " << n / (ms / kRepeats) / 1e6
                                      << " GB/s; host (one thread) " << host_ms << " ms");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace l3::cuda::testing
