// The CUDA writer's partition fit (codec/encode/fit_partition.cuh) against the
// CPU writer's FitBestModel: for every integer type, generated shapes and the
// real arrays, partitions of 1 row to 65536 rows, V in {64, 8, 1}, both
// polynomial gains, with and without DELTA and the minimax line, the device's choice must equal the
// CPU's field for field (model, width, Base, runs, Theta bits, bounds, cost). This is what lets a
// GPU-written file be byte-identical to the CPU writer's.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/encode/model_fit.hpp"
#include "codec/encode/value_traits.hpp"
#include "gpu_encode.hpp"
#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"

namespace l3::cuda::testing {
namespace {

using l3::internal::FitOptions;
using l3::internal::PartitionFit;
using l3::internal::PartitionSpan;

// Spans covering [0, n): a fixed ladder of sizes (odd ones, tiles of every V,
// the partitioner's 256..8192, RUNS_EF's 65536), repeated.
std::vector<PartitionSpan> SpansOver(uint64_t n, uint64_t seed) {
  static const uint32_t kSizes[] = {1,   2,   3,   5,   16,  31,   32,   33,   63,   64,   65,
                                    100, 255, 256, 257, 511, 1000, 2048, 2049, 4097, 8192, 65536};
  std::mt19937_64 rng(seed);
  std::vector<PartitionSpan> spans;
  uint64_t row = 0;
  for (size_t i = 0; row < n; ++i) {
    const uint32_t size = i < std::size(kSizes) ? kSizes[i] : kSizes[rng() % std::size(kSizes)];
    const uint32_t rows = static_cast<uint32_t>(std::min<uint64_t>(size, n - row));
    spans.push_back({row, rows});
    row += rows;
  }
  return spans;
}

std::string Describe(const PartitionFit& f) {
  std::string s = "model " + std::to_string(f.model_type) + " w " + std::to_string(f.bit_width) +
                  " cost " + std::to_string(f.cost_bytes) + " theta";
  for (double t : f.theta) {
    uint64_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    s += " " + std::to_string(bits);
  }
  return s;
}

/// Fits `spans` of `values` on both sides and counts the partitions per
/// chosen model; returns the number of mismatches (each one reported).
template <typename T>
int CompareFits(const std::vector<T>& values, const std::vector<PartitionSpan>& spans,
                const FitOptions& options, uint64_t models_seen[8]) {
  DeviceBuffer d_values(values.data(), values.size() * sizeof(T));
  DeviceBuffer d_spans(spans.size() * sizeof(PartitionSpan));
  DeviceBuffer d_fits(spans.size() * sizeof(PartitionFit));
  DeviceBuffer d_hulls(2 * values.size() * sizeof(uint32_t));
  const Status status = encode::FitPartitions(
      internal::PhysicalTypeOf<T>(), d_values.data(), values.size(), spans.data(), spans.size(),
      static_cast<PartitionSpan*>(d_spans.data()), static_cast<uint32_t*>(d_hulls.data()), options,
      static_cast<PartitionFit*>(d_fits.data()), nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> bytes = d_fits.ToHost();
  int mismatches = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    PartitionFit gpu;
    std::memcpy(&gpu, bytes.data() + i * sizeof(PartitionFit), sizeof gpu);
    const PartitionFit cpu =
        l3::internal::FitBestModel(values.data() + spans[i].first_row, spans[i].num_rows, options);
    ++models_seen[cpu.model_type & 7];
    if (!SamePartitionFit(cpu, gpu)) {
      if (++mismatches <= 5) {
        MESSAGE("span " << i << " rows " << spans[i].num_rows << ": CPU " << Describe(cpu)
                        << " / GPU " << Describe(gpu));
      }
    }
  }
  return mismatches;
}

FitOptions DeviceOptions(uint32_t values_per_lane, double poly_min_gain, bool delta = true,
                         bool minimax = true) {
  FitOptions o;
  o.values_per_lane = values_per_lane;
  o.enable_delta = delta;
  o.minimax_lines = minimax;
  o.poly_min_gain = poly_min_gain;
  return o;
}

template <typename T>
std::vector<T> Shape(int shape, uint64_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  const double top = static_cast<double>(std::numeric_limits<T>::max());
  const double bottom = static_cast<double>(std::numeric_limits<T>::min());
  const auto clamp = [&](double y) {
    return static_cast<T>(y < bottom ? bottom : y > top ? top : y);
  };
  std::normal_distribution<double> noise(0, 3);
  int64_t walk = 0;
  for (uint64_t x = 0; x < n; ++x) {
    const double t = static_cast<double>(x);
    switch (shape) {
      case 0:
        v[x] = clamp(bottom / 4 + t * 0.37 + noise(rng));
        break;  // noisy line
      case 1:
        v[x] = clamp(1e-6 * t * t - 3e-3 * t + 50 + noise(rng));
        break;  // parabola
      case 2:
        v[x] = clamp(2e-10 * t * t * t - t * 1e-4 + noise(rng) * 0.1);
        break;
      case 3:
        v[x] = static_cast<T>(rng() % 7 == 0 ? rng() : v[x > 0 ? x - 1 : 0]);
        break;  // runs
      case 4:
        v[x] = static_cast<T>(rng());
        break;  // full width
      case 5:
        walk += static_cast<int64_t>(rng() % 9) - 3;
        v[x] = clamp(static_cast<double>(walk));
        break;
      case 6:
        v[x] = static_cast<T>(42);
        break;  // constant
      default:  // 64-bit values crossing 2^53 (spec §8.8 rule 3 on both sides)
        v[x] = clamp(9007199254740992.0 - 2e5 + t * 3 + noise(rng));
        break;
    }
  }
  return v;
}

template <typename T>
void CheckType(uint64_t seed) {
  std::mt19937_64 rng(seed);
  uint64_t models[8] = {};
  for (int shape = 0; shape <= 7; ++shape) {
    const std::vector<T> v = Shape<T>(shape, 120000, rng);
    const std::vector<PartitionSpan> spans = SpansOver(v.size(), seed + shape);
    for (uint32_t V : {64u, 8u, 1u}) {
      for (double gain : {0.05, 0.0}) {
        for (bool delta : {true, false}) {
          CAPTURE(shape);
          CAPTURE(V);
          CAPTURE(gain);
          CAPTURE(delta);
          CHECK(CompareFits(v, spans, DeviceOptions(V, gain, delta, true), models) == 0);
          CHECK(CompareFits(v, spans, DeviceOptions(V, gain, delta, false), models) == 0);
        }
      }
    }
  }
  MESSAGE("models chosen (CONSTANT, FOR, LINEAR, POLY2, POLY3, DELTA, RUNS_EF): "
          << models[0] << " " << models[1] << " " << models[2] << " " << models[3] << " "
          << models[4] << " " << models[5] << " " << models[6]);
}

}  // namespace

TEST_CASE("the device fit chooses the CPU writer's model, every integer type") {
  CheckType<int8_t>(1);
  CheckType<uint8_t>(2);
  CheckType<int16_t>(3);
  CheckType<uint16_t>(4);
  CheckType<int32_t>(5);
  CheckType<uint32_t>(6);
  CheckType<int64_t>(7);
  CheckType<uint64_t>(8);
}

TEST_CASE("the device fit chooses the CPU writer's model on the real arrays") {
  const std::vector<datagen::Column> columns = RealIntegerArrays();
  uint64_t seed = 50;
  for (const datagen::Column& column : columns) {
    INFO("real array " << column.name());
    const std::vector<PartitionSpan> spans = SpansOver(column.size(), seed++);
    uint64_t models[8] = {};
    WithValues(column, [&](const auto& values) {
      CHECK(CompareFits(values, spans, DeviceOptions(64, 0.05), models) == 0);
    });
  }
}

TEST_CASE("the device fit refuses bad arguments") {
  std::vector<uint32_t> v(100, 7);
  DeviceBuffer d_values(v.data(), v.size() * sizeof(uint32_t));
  DeviceBuffer d_spans(2 * sizeof(PartitionSpan));
  DeviceBuffer d_fits(2 * sizeof(PartitionFit));
  DeviceBuffer d_hulls(2 * v.size() * sizeof(uint32_t));
  const auto fit = [&](std::vector<PartitionSpan> spans, const FitOptions& options,
                       bool with_hulls = true) {
    return encode::FitPartitions(PhysicalType::kUInt32, d_values.data(), v.size(), spans.data(),
                                 spans.size(), static_cast<PartitionSpan*>(d_spans.data()),
                                 with_hulls ? static_cast<uint32_t*>(d_hulls.data()) : nullptr,
                                 options, static_cast<PartitionFit*>(d_fits.data()), nullptr)
        .code();
  };
  CHECK(fit({{0, 100}}, DeviceOptions(64, 0.05)) == StatusCode::kOk);
  CHECK(fit({{0, 100}}, DeviceOptions(64, 0.05, true, false), false) == StatusCode::kOk);
  CHECK(fit({{0, 100}}, DeviceOptions(64, 0.05), false) == StatusCode::kInvalidArgument);
  CHECK(fit({{0, 60}, {50, 50}}, DeviceOptions(64, 0.05)) == StatusCode::kInvalidArgument);
  CHECK(fit({{0, 0}}, DeviceOptions(64, 0.05)) == StatusCode::kInvalidArgument);
  CHECK(fit({{60, 41}}, DeviceOptions(64, 0.05)) == StatusCode::kInvalidArgument);
  CHECK(fit({{0, 100}}, DeviceOptions(3, 0.05)) == StatusCode::kInvalidArgument);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

}  // namespace l3::cuda::testing
