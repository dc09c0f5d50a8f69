// The warp-parallel steps of the CUDA writer's DELTA fit (delta_fit.cuh)
// against the serial code they replace: the radix select's digit search
// (WarpFindDigit) against a walk over the histogram, the width choice
// (WarpChooseDeltaWidth) against the shared ChooseDeltaWidthFromCounts, and
// the DELTA cost lower bound (WarpOffsetCostLowerBound) against the shared
// OffsetCostLowerBoundOfBuckets. A wrong digit changes a chosen
// Delta_Base; a bound that is too high skips DELTA where it would win, and
// one that is too low only costs time, which no whole-file comparison sees.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "codec/delta/delta_encode.hpp"
#include "codec/delta/delta_fit.cuh"
#include "gpu_test_util.hpp"

namespace l3::cuda::testing {
namespace {

using internal::DeltaChoice;
using internal::delta_fit_detail::WarpChooseDeltaWidth;
using internal::delta_fit_detail::WarpFindDigit;
using internal::delta_fit_detail::WarpOffsetCostLowerBound;

struct DigitCase {
  uint32_t histogram[256];
  uint64_t rank;
};

// One warp per case; the histogram goes to shared memory as in the fit.
__global__ void FindDigitKernel(const DigitCase* cases, size_t count, uint32_t* digits,
                                uint32_t* belows) {
  __shared__ __align__(16) uint32_t histogram[256];
  const uint32_t lane = threadIdx.x;
  for (size_t c = blockIdx.x; c < count; c += gridDim.x) {
    for (uint32_t i = lane; i < 256; i += 32) histogram[i] = cases[c].histogram[i];
    __syncwarp();
    uint32_t below = 0;
    const uint32_t digit = WarpFindDigit(histogram, cases[c].rank, lane, &below);
    if (lane == 0) {
      digits[c] = digit;
      belows[c] = below;
    }
    __syncwarp();
  }
}

struct WidthCase {
  uint64_t rows_of_width[65];
  uint32_t n;
  internal::SignedHighSpan span;  // the signed offsets' extremes (Signed_Highs)
};

__global__ void ChooseWidthKernel(const WidthCase* cases, size_t count, DeltaChoice* choices) {
  __shared__ uint64_t rows_of_width[65];
  const uint32_t lane = threadIdx.x;
  for (size_t c = blockIdx.x; c < count; c += gridDim.x) {
    for (uint32_t i = lane; i < 65; i += 32) rows_of_width[i] = cases[c].rows_of_width[i];
    __syncwarp();
    const DeltaChoice choice =
        WarpChooseDeltaWidth(rows_of_width, cases[c].n, cases[c].span, lane);
    if (lane == 0) choices[c] = choice;
    __syncwarp();
  }
}

struct BoundCase {
  uint32_t counts[64];
  uint64_t m;
  int64_t min_delta;
  int64_t max_delta;
  uint32_t n;
  uint64_t seeds;
};

__global__ void BoundKernel(const BoundCase* cases, size_t count, uint64_t* bounds) {
  __shared__ __align__(16) uint32_t scratch[64 + 2 * 129];
  const uint32_t lane = threadIdx.x;
  for (size_t c = blockIdx.x; c < count; c += gridDim.x) {
    const BoundCase& k = cases[c];
    for (uint32_t i = lane; i < 64; i += 32) scratch[i] = k.counts[i];
    __syncwarp();
    const uint64_t bound =
        WarpOffsetCostLowerBound(scratch, k.m, k.min_delta, k.max_delta, k.n, k.seeds, lane,
                                 reinterpret_cast<unsigned long long*>(scratch + 64));
    if (lane == 0) bounds[c] = bound;
    __syncwarp();
  }
}

template <typename Case>
std::vector<uint8_t> Upload(const std::vector<Case>& cases) {
  std::vector<uint8_t> bytes(cases.size() * sizeof(Case));
  std::memcpy(bytes.data(), cases.data(), bytes.size());
  return bytes;
}

TEST_CASE("the warp's radix digit is the serial walk's") {
  std::mt19937_64 rng(7);
  std::vector<DigitCase> cases;
  for (int c = 0; c < 4000; ++c) {
    DigitCase k{};
    const int shape = c % 4;
    uint64_t total = 0;
    for (int b = 0; b < 256; ++b) {
      uint32_t v = 0;
      if (shape == 0) v = static_cast<uint32_t>(rng() % 50);                // dense
      if (shape == 1) v = rng() % 8 == 0 ? static_cast<uint32_t>(rng() % 1000) : 0;  // sparse
      if (shape == 2) v = b == static_cast<int>(c % 256) ? 5000 : 0;       // one bin
      if (shape == 3) v = b % 8 == 7 ? static_cast<uint32_t>(1 + rng() % 3) : 0;  // lane edges
      k.histogram[b] = v;
      total += v;
    }
    if (total == 0) {
      k.histogram[255] = 1;
      total = 1;
    }
    // Ranks at both ends and inside.
    k.rank = c % 3 == 0 ? 0 : c % 3 == 1 ? total - 1 : rng() % total;
    cases.push_back(k);
  }
  const std::vector<uint8_t> host = Upload(cases);
  DeviceBuffer d_cases(host.data(), host.size());
  DeviceBuffer d_digits(cases.size() * sizeof(uint32_t));
  DeviceBuffer d_belows(cases.size() * sizeof(uint32_t));
  FindDigitKernel<<<256, 32>>>(static_cast<const DigitCase*>(d_cases.data()), cases.size(),
                               static_cast<uint32_t*>(d_digits.data()),
                               static_cast<uint32_t*>(d_belows.data()));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> digits = d_digits.ToHost();
  const std::vector<uint8_t> belows = d_belows.ToHost();
  for (size_t c = 0; c < cases.size(); ++c) {
    uint32_t digit = 0;
    uint64_t below = 0;
    while (below + cases[c].histogram[digit] <= cases[c].rank) below += cases[c].histogram[digit++];
    uint32_t got_digit, got_below;
    std::memcpy(&got_digit, digits.data() + 4 * c, 4);
    std::memcpy(&got_below, belows.data() + 4 * c, 4);
    INFO("case " << c << " rank " << cases[c].rank);
    CHECK(got_digit == digit);
    CHECK(got_below == below);
  }
}

TEST_CASE("the warp's DELTA width choice is the shared serial choice") {
  std::mt19937_64 rng(5);
  std::vector<WidthCase> cases;
  for (int c = 0; c < 6000; ++c) {
    WidthCase k{};
    const int shape = c % 6;
    const uint32_t top = static_cast<uint32_t>(rng() % 65);  // the widest width with rows
    uint64_t m = 0;
    for (uint32_t b = 0; b <= top; ++b) {
      uint64_t v = 0;
      if (shape == 0) v = rng() % 1000;                                  // spread
      if (shape == 1) v = b + 2 >= top ? rng() % 4 : rng() % 5000;       // few wide outliers
      if (shape == 2) v = b == top / 2 ? 100000 + rng() % 1000 : 0;      // one width
      if (shape == 3) v = b % 7 == 0 ? rng() % 50 : 0;                   // gaps
      if (shape == 4) v = rng() % 3;                                     // ties likely
      if (shape == 5) v = b == 0 ? rng() % 100 : 0;                      // width 0 only
      k.rows_of_width[b] = v;
      m += v;
    }
    if (shape != 5 && top > 0 && k.rows_of_width[top] == 0) ++k.rows_of_width[top], ++m;
    k.n = static_cast<uint32_t>(m + 1 + rng() % 3);
    // Half the cases may use Signed_Highs, with extremes of any width
    // (from none below the base to 63 bits either way).
    k.span.usable = c % 2 == 1;
    k.span.above = rng() >> (rng() % 65 == 64 ? 63 : rng() % 64);
    k.span.below = c % 4 == 1 ? 0 : rng() >> (rng() % 64);
    cases.push_back(k);
  }
  const std::vector<uint8_t> host = Upload(cases);
  DeviceBuffer d_cases(host.data(), host.size());
  DeviceBuffer d_choices(cases.size() * sizeof(DeltaChoice));
  ChooseWidthKernel<<<256, 32>>>(static_cast<const WidthCase*>(d_cases.data()), cases.size(),
                                 static_cast<DeltaChoice*>(d_choices.data()));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> choices = d_choices.ToHost();
  int differ = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    const DeltaChoice want =
        internal::ChooseDeltaWidthFromCounts(cases[c].rows_of_width, cases[c].n, cases[c].span);
    DeltaChoice got;
    std::memcpy(&got, choices.data() + c * sizeof(DeltaChoice), sizeof got);
    const bool same = got.bits == want.bits && got.width == want.width &&
                      got.max_width == want.max_width && got.exceptions == want.exceptions &&
                      got.high_width == want.high_width &&
                      got.signed_highs == want.signed_highs;
    if (!same && ++differ <= 5) {
      INFO("case " << c << " width " << got.width << " want " << want.width << " bits "
                   << got.bits << " want " << want.bits);
      CHECK(same);
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("the warp's DELTA cost lower bound is the shared serial bound") {
  std::mt19937_64 rng(11);
  std::vector<BoundCase> cases;
  std::vector<uint64_t> expected;
  for (int c = 0; c < 6000; ++c) {
    BoundCase k{};
    // Ranges from 0 to about 2^40 give 1 to 64 buckets and shifts 0 to 34.
    const uint32_t range_bits = static_cast<uint32_t>(c % 41);
    const uint64_t range = range_bits == 0 ? 0 : (uint64_t{1} << (range_bits - 1)) + rng() %
                                                    (uint64_t{1} << (range_bits - 1));
    k.min_delta = static_cast<int64_t>(rng() % 2000000) - 1000000;
    k.max_delta = static_cast<int64_t>(static_cast<uint64_t>(k.min_delta) + range);
    const uint32_t s = internal::DeltaBoundShift(k.min_delta, k.max_delta);
    const uint32_t num_buckets = static_cast<uint32_t>(range >> s) + 1;
    uint64_t m = 0;
    const int shape = c % 5;
    for (uint32_t b = 0; b < num_buckets; ++b) {
      uint32_t v = 0;
      if (shape == 0) v = static_cast<uint32_t>(rng() % 100);
      if (shape == 1) v = rng() % 5 == 0 ? static_cast<uint32_t>(rng() % 10000) : 0;
      if (shape == 2) v = b < 3 ? static_cast<uint32_t>(1000 + rng() % 1000) : (rng() % 40 == 0);
      if (shape == 3) v = (b / 7) % 2 == 0 ? static_cast<uint32_t>(rng() % 30) : 0;  // gaps
      if (shape == 4) v = b == 0 || b + 1 == num_buckets ? 1 + static_cast<uint32_t>(rng() % 9)
                                                          : 0;  // the two ends only
      k.counts[b] = v;
      m += v;
    }
    // The smallest and largest deltas fill the first and last buckets.
    if (k.counts[0] == 0) ++k.counts[0], ++m;
    if (k.counts[num_buckets - 1] == 0) ++k.counts[num_buckets - 1], ++m;
    k.m = m;
    k.n = static_cast<uint32_t>(m + 1);
    k.seeds = 1 + rng() % 8;
    cases.push_back(k);
    expected.push_back(internal::OffsetCostLowerBoundOfBuckets(
        k.counts, k.m, k.min_delta, k.max_delta, k.n, k.seeds));
  }
  const std::vector<uint8_t> host = Upload(cases);
  DeviceBuffer d_cases(host.data(), host.size());
  DeviceBuffer d_bounds(cases.size() * sizeof(uint64_t));
  BoundKernel<<<256, 32>>>(static_cast<const BoundCase*>(d_cases.data()), cases.size(),
                           static_cast<uint64_t*>(d_bounds.data()));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> bounds = d_bounds.ToHost();
  int differ = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    uint64_t got;
    std::memcpy(&got, bounds.data() + 8 * c, 8);
    if (got != expected[c] && ++differ <= 5) {
      INFO("case " << c << " min " << cases[c].min_delta << " max " << cases[c].max_delta);
      CHECK(got == expected[c]);
    }
  }
  CHECK(differ == 0);
}

}  // namespace
}  // namespace l3::cuda::testing
