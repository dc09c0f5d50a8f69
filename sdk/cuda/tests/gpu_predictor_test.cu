// The device build of the canonical predictor (spec §8.4) against the host
// build: ToInt (__double2ll_rn on the device, explicit checks and nearbyint
// on the host) and the finite-difference recurrences of LINEAR, POLY2 and
// POLY3 must agree on every input, including NaN, infinities, saturation
// and ties.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ios>
#include <limits>
#include <random>
#include <vector>

#include "codec/predictor.hpp"
#include "gpu_test_util.hpp"

namespace l3::cuda::testing {
namespace {

using internal::LanePredictor;
using internal::Model;
using internal::PredictionToInt;

__global__ void ToIntKernel(const double* in, int64_t* out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = PredictionToInt(in[i]);
  }
}

template <uint8_t kModel>
__global__ void PredictKernel(const double* theta, const double* x0, uint32_t steps, int64_t* out,
                              size_t cases) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < cases; i += gridDim.x * blockDim.x) {
    LanePredictor<kModel> p;
    p.Start(theta + 4 * i, x0[i]);
    for (uint32_t k = 0; k < steps; ++k) {
      out[i * steps + k] = PredictionToInt(p.value());
      p.Advance();
    }
  }
}

double FromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

std::vector<int64_t> DeviceToInt(const std::vector<double>& in) {
  DeviceBuffer d_in(in.data(), in.size() * sizeof(double));
  DeviceBuffer d_out(in.size() * sizeof(int64_t));
  ToIntKernel<<<64, 256>>>(static_cast<const double*>(d_in.data()),
                           static_cast<int64_t*>(d_out.data()), in.size());
  const cudaError_t synced = cudaDeviceSynchronize();
  REQUIRE(synced == cudaSuccess);
  std::vector<uint8_t> bytes = d_out.ToHost();
  std::vector<int64_t> out(in.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

TEST_CASE("device ToInt (__double2ll_rn) matches the host PredictionToInt") {
  const double two63 = 9223372036854775808.0;
  std::vector<double> in = {
      std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
      FromBits(0x7FF0000000000001ull),  // signalling NaN
      FromBits(0xFFF8DEADBEEF0001ull),  // negative NaN with a payload
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 0.49999999999999994,
      4503599627370495.5, -4503599627370495.5, 2251799813685248.5, 9007199254740992.0,
      two63, -two63, std::nextafter(two63, 0.0), std::nextafter(-two63, -1e300),
      std::nextafter(-two63, 0.0), 1e300, -1e300, 1.8446744073709552e19,
      std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
      -std::numeric_limits<double>::max()};
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 100000; ++i) in.push_back(FromBits(rng()));  // every class of double
  for (int i = 0; i < 100000; ++i) {
    // Ties and near-ties around every magnitude up to 2^64.
    const double base = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 64) - 53);
    in.push_back((rng() & 1 ? -1 : 1) * (std::floor(base) + 0.5));
    in.push_back((rng() & 1 ? -1 : 1) * base);
  }
  const std::vector<int64_t> device = DeviceToInt(in);
  size_t mismatches = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (device[i] != PredictionToInt(in[i])) {
      if (++mismatches <= 10) {
        uint64_t bits;
        std::memcpy(&bits, &in[i], 8);
        MESSAGE("y = " << in[i] << " (bits 0x" << std::hex << bits << std::dec << "): device "
                       << device[i] << ", host " << PredictionToInt(in[i]));
      }
    }
  }
  CHECK(mismatches == 0);
  // The spec's own examples (§8.4).
  CHECK(PredictionToInt(-2.5) == -2);
  CHECK(PredictionToInt(-1.5) == -2);
  CHECK(PredictionToInt(0.5) == 0);
  CHECK(PredictionToInt(2.5) == 2);
  CHECK(PredictionToInt(std::nan("")) == 0);
  CHECK(PredictionToInt(two63) == INT64_MAX);
  CHECK(PredictionToInt(-1e300) == INT64_MIN);
}

template <uint8_t kModel>
void CheckRecurrence(std::mt19937_64& rng) {
  constexpr size_t kCases = 512;
  constexpr uint32_t kSteps = 1024;  // the largest V (spec §7.2)
  std::vector<double> theta(4 * kCases);
  std::vector<double> x0(kCases);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
  };
  for (size_t i = 0; i < kCases; ++i) {
    // Magnitudes like the encoder's fits, plus wild ones that overflow.
    const double scale = i % 16 == 15 ? 1e250 : 1.0;
    theta[4 * i + 0] = uniform(-1e12, 1e12) * scale;
    theta[4 * i + 1] = uniform(-1e4, 1e4) * scale;
    theta[4 * i + 2] = uniform(-1e-1, 1e-1) * scale;
    theta[4 * i + 3] = uniform(-1e-5, 1e-5) * scale;
    x0[i] = static_cast<double>(rng() % (uint64_t{1} << 32));
  }
  DeviceBuffer d_theta(theta.data(), theta.size() * sizeof(double));
  DeviceBuffer d_x0(x0.data(), x0.size() * sizeof(double));
  DeviceBuffer d_out(kCases * kSteps * sizeof(int64_t));
  PredictKernel<kModel><<<16, 128>>>(static_cast<const double*>(d_theta.data()),
                                     static_cast<const double*>(d_x0.data()), kSteps,
                                     static_cast<int64_t*>(d_out.data()), kCases);
  const cudaError_t synced = cudaDeviceSynchronize();
  REQUIRE(synced == cudaSuccess);
  const std::vector<uint8_t> bytes = d_out.ToHost();
  size_t mismatches = 0;
  for (size_t i = 0; i < kCases; ++i) {
    LanePredictor<kModel> p;
    p.Start(&theta[4 * i], x0[i]);
    for (uint32_t k = 0; k < kSteps; ++k) {
      int64_t device;
      std::memcpy(&device, &bytes[(i * kSteps + k) * 8], 8);
      if (device != PredictionToInt(p.value())) ++mismatches;
      p.Advance();
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("device finite-difference predictor is bit-identical to the host's") {
  std::mt19937_64 rng(7);
  CheckRecurrence<static_cast<uint8_t>(Model::kLinear)>(rng);
  CheckRecurrence<static_cast<uint8_t>(Model::kPoly2)>(rng);
  CheckRecurrence<static_cast<uint8_t>(Model::kPoly3)>(rng);
}

}  // namespace
}  // namespace l3::cuda::testing
