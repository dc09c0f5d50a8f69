// The dataset generators of l3/datagen.hpp. Formulas: datagen/README.md.
#include <algorithm>
#include <cmath>
#include <limits>

#include "l3/datagen.hpp"
#include "parallel.hpp"

namespace l3::datagen {
namespace {

using internal::ParallelForBlocks;

// Rows per block of the row-independent generators. Fixed, so that the
// per-block random streams (cosmos) do not depend on the thread count.
constexpr uint64_t kBlockRows = uint64_t{1} << 20;

uint64_t NumBlocks(uint64_t n, uint64_t block_rows) { return (n + block_rows - 1) / block_rows; }

// An independent seed for stream `stream` of a generator seeded with `seed`.
// Adding a multiple of the splitmix increment to the seed would make the
// streams overlap, so the stream index goes through the finaliser first.
uint64_t DeriveSeed(uint64_t seed, uint64_t stream) {
  uint64_t z = stream + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return seed ^ z ^ (z >> 31);
}

// Round half to even (numpy.rint) under the default rounding mode.
inline double Rint(double x) { return std::nearbyint(x); }

constexpr double kU32Max = 4294967295.0;

}  // namespace

std::vector<uint32_t> GenerateLinear(uint64_t n) {
  std::vector<uint32_t> out(n);
  if (n <= 1) return out;
  // linspace(0, 1, n + 2)[1:-1] min-max normalised is i / (n - 1); value i
  // is floor(i * M / d) with M = 2^32 - 1, d = n - 1, kept as a quotient and
  // remainder that advance by M / d and M % d per row.
  const uint64_t d = n - 1;
  const uint64_t m = 4294967295u;
  const uint64_t q_step = m / d;
  const uint64_t r_step = m % d;
  ParallelForBlocks(NumBlocks(n, kBlockRows), [&](uint64_t block) {
    const uint64_t begin = block * kBlockRows;
    const uint64_t end = std::min(n, begin + kBlockRows);
    const unsigned __int128 num = static_cast<unsigned __int128>(begin) * m;
    uint64_t q = static_cast<uint64_t>(num / d);
    uint64_t r = static_cast<uint64_t>(num % d);
    for (uint64_t i = begin; i < end; ++i) {
      out[i] = static_cast<uint32_t>(q);
      q += q_step;
      r += r_step;
      if (r >= d) {
        r -= d;
        ++q;
      }
    }
  });
  return out;
}

std::vector<uint32_t> GenerateNormal(uint64_t n) {
  std::vector<uint32_t> out(n);
  if (n <= 1) return out;
  // k_i = (i + 1) / (n + 1). The upper half uses Phi^-1(k) = -Phi^-1(1 - k)
  // with 1 - k formed exactly from integers, so both tails keep full
  // precision; the minimum and maximum are then exactly opposite.
  const double den = static_cast<double>(n) + 1.0;
  const double y_min = InverseNormalCdf(1.0 / den);
  const double y_range = -2.0 * y_min;
  ParallelForBlocks(NumBlocks(n, kBlockRows), [&](uint64_t block) {
    const uint64_t begin = block * kBlockRows;
    const uint64_t end = std::min(n, begin + kBlockRows);
    for (uint64_t i = begin; i < end; ++i) {
      const double y = 2 * (i + 1) <= n + 1
                           ? InverseNormalCdf(static_cast<double>(i + 1) / den)
                           : -InverseNormalCdf(static_cast<double>(n - i) / den);
      const double scaled = std::floor((y - y_min) / y_range * kU32Max);
      out[i] = static_cast<uint32_t>(std::clamp(scaled, 0.0, kU32Max));
    }
  });
  return out;
}

std::vector<uint64_t> GeneratePoisson(uint64_t n, uint64_t seed) {
  constexpr double kOuterGap = 1e12;
  constexpr double kInnerGap = 2e6;
  constexpr int64_t kValuesPerEvent = 2000;
  constexpr int64_t kDie = 500;
  std::vector<uint64_t> out;
  out.reserve(n);
  Rng rng(seed);
  uint64_t event_start = 0;
  while (out.size() < n) {
    event_start += rng.Poisson(kOuterGap);
    const int64_t values = kValuesPerEvent - rng.Integer(0, kDie - 1);
    uint64_t v = event_start;
    out.push_back(v);
    for (int64_t j = 1; j < values && out.size() < n; ++j) {
      v += rng.Poisson(kInnerGap);
      out.push_back(v);
    }
  }
  return out;
}

std::vector<int32_t> GenerateCosmos(uint64_t n, uint64_t seed) {
  std::vector<int32_t> out(n);
  constexpr double kPi = 3.14159265358979323846;
  const double denom = 60.0 * kPi;
  ParallelForBlocks(NumBlocks(n, kBlockRows), [&](uint64_t block) {
    Rng rng(DeriveSeed(seed, block));
    const uint64_t begin = block * kBlockRows;
    const uint64_t end = std::min(n, begin + kBlockRows);
    for (uint64_t i = begin; i < end; ++i) {
      const double x = static_cast<double>(i) + 10.0;
      double y = (std::sin(x / denom) + 0.1 * std::sin(3.0 * x / denom)) * 1e6;
      y += 100.0 * rng.Normal();
      out[i] = static_cast<int32_t>(Rint(y));
    }
  });
  return out;
}

std::vector<uint64_t> GeneratePolylog(uint64_t n, uint64_t seed) {
  constexpr uint64_t kSegment = 500;
  std::vector<uint64_t> out(n);
  Rng rng(seed);
  int64_t base = 0;
  for (uint64_t s = 0, start = 0; start < n; ++s, start += kSegment) {
    const uint64_t len = std::min(kSegment, n - start);
    if (len == 1) {
      out[start] = static_cast<uint64_t>(base);
      base += rng.Integer(0, 50);
      continue;
    }
    const bool poly = s % 2 == 0;
    const double delta =
        static_cast<double>(poly ? rng.Integer(50000, 250000) : rng.Integer(10000, 120000));
    const double last = static_cast<double>(len - 1);
    const double log_last = std::log1p(last);
    int64_t running = std::numeric_limits<int64_t>::min();
    for (uint64_t t = 0; t < len; ++t) {
      const double td = static_cast<double>(t);
      const double u = td / last;
      const double seg = poly ? delta * (u * u) : delta * (std::log1p(td) / log_last);
      running = std::max(running, base + static_cast<int64_t>(Rint(seg)));
      out[start + t] = static_cast<uint64_t>(running);
    }
    base = running + rng.Integer(0, 50);
  }
  return out;
}

std::vector<uint64_t> GenerateExp(uint64_t n, uint64_t seed) {
  constexpr uint64_t kBlock = 10000;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  struct Curve {
    int64_t base;
    int64_t delta;
    double k;
  };
  // The block bases depend only on the random draws (each block ends exactly
  // at base + delta), so draw them in order first and fill blocks in parallel.
  const uint64_t num_blocks = NumBlocks(n, kBlock);
  std::vector<Curve> curves(num_blocks);
  Rng rng(seed);
  int64_t base = 0;
  for (uint64_t b = 0; b < num_blocks; ++b) {
    const uint64_t len = std::min(kBlock, n - b * kBlock);
    int64_t delta = static_cast<int64_t>(Rint(std::pow(10.0, rng.Uniform(8.0, 13.0))));
    const double k = rng.Uniform(1.0, 12.0);
    const int64_t gap = rng.Integer(0, 1000);
    if (base > kMax - delta - gap) delta = std::max<int64_t>(0, kMax - base - gap);
    if (len == 1) delta = 0;
    curves[b] = {base, delta, k};
    base += delta + gap;
  }
  std::vector<uint64_t> out(n);
  ParallelForBlocks(num_blocks, [&](uint64_t b) {
    const Curve& c = curves[b];
    const uint64_t begin = b * kBlock;
    const uint64_t len = std::min(kBlock, n - begin);
    const double last = static_cast<double>(len - 1);
    const double denom = std::exp(c.k) - 1.0;
    const double delta = static_cast<double>(c.delta);
    if (c.delta == 0) {
      std::fill_n(out.begin() + begin, len, static_cast<uint64_t>(c.base));
      return;
    }
    int64_t running = c.base;
    for (uint64_t j = 0; j < len; ++j) {
      const double u = static_cast<double>(j) / last;
      const double shape = (std::exp(c.k * u) - 1.0) / denom;
      running = std::max(running, c.base + static_cast<int64_t>(Rint(shape * delta)));
      out[begin + j] = static_cast<uint64_t>(running);
    }
  });
  return out;
}

std::vector<uint64_t> GeneratePoly(uint64_t n, uint64_t seed) {
  constexpr uint64_t kBlock = 10000;
  constexpr int64_t kStep = 50000000;
  constexpr double kLo = 0.0;
  constexpr double kHi = 2e9;
  struct Curve {
    double y0, y1, m0, m1;
    bool single;
  };
  const uint64_t num_blocks = NumBlocks(n, kBlock);
  std::vector<Curve> curves(num_blocks);
  Rng rng(seed);
  int64_t y0 = 1000000000;
  for (uint64_t b = 0; b < num_blocks; ++b) {
    const uint64_t len = std::min(kBlock, n - b * kBlock);
    if (len == 1) {
      curves[b] = {static_cast<double>(y0), 0.0, 0.0, 0.0, true};
      continue;
    }
    const int64_t y1 = std::clamp<int64_t>(y0 + rng.Integer(-kStep, kStep), 0, 2000000000);
    const double slope = (static_cast<double>(kStep) / static_cast<double>(len - 1)) * 0.25;
    const double m0 = rng.Uniform(-slope, slope);
    const double m1 = rng.Uniform(-slope, slope);
    curves[b] = {static_cast<double>(y0), static_cast<double>(y1), m0, m1, false};
    y0 = y1;
  }
  std::vector<uint64_t> out(n);
  ParallelForBlocks(num_blocks, [&](uint64_t b) {
    const Curve& c = curves[b];
    const uint64_t begin = b * kBlock;
    const uint64_t len = std::min(kBlock, n - begin);
    if (c.single) {
      out[begin] = static_cast<uint64_t>(c.y0);
      return;
    }
    // Cubic Hermite basis on u in [0, 1]; the slopes are per row, hence the
    // (len - 1) factors.
    const double last = static_cast<double>(len - 1);
    const double t0 = c.m0 * last;
    const double t1 = c.m1 * last;
    for (uint64_t j = 0; j < len; ++j) {
      const double u = static_cast<double>(j) / last;
      const double u2 = u * u;
      const double u3 = u2 * u;
      const double h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
      const double h10 = u3 - 2.0 * u2 + u;
      const double h01 = -2.0 * u3 + 3.0 * u2;
      const double h11 = u3 - u2;
      const double y = h00 * c.y0 + h10 * t0 + h01 * c.y1 + h11 * t1;
      out[begin + j] = static_cast<uint64_t>(std::clamp(Rint(y), kLo, kHi));
    }
  });
  return out;
}

std::vector<uint64_t> GenerateUniformBits(uint64_t n, int bits, uint64_t seed) {
  bits = std::clamp(bits, 1, 64);
  std::vector<uint64_t> out(n);
  Rng rng(seed);
  for (uint64_t& v : out) v = rng.Next() >> (64 - bits);
  return out;
}

std::vector<uint32_t> GenerateStepwise(uint64_t n, uint64_t seed) {
  constexpr uint64_t kBlock = 10000;
  std::vector<uint32_t> out(n);
  Rng rng(seed);
  for (uint64_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint32_t>(3 + 5 * static_cast<int64_t>(i / kBlock) + rng.Integer(-3, 3));
  }
  return out;
}

std::vector<int64_t> GenerateConstant(uint64_t n, int64_t value) {
  return std::vector<int64_t>(n, value);
}

std::vector<uint32_t> GenerateRuns(uint64_t n, uint32_t mean_run, uint64_t seed) {
  mean_run = std::max<uint32_t>(mean_run, 1);
  std::vector<uint32_t> out(n);
  Rng rng(seed);
  for (uint64_t i = 0; i < n;) {
    const uint64_t run = static_cast<uint64_t>(rng.Integer(1, 2 * int64_t{mean_run} - 1));
    const uint32_t value = static_cast<uint32_t>(rng.Next() >> 44);
    const uint64_t end = std::min(n, i + run);
    std::fill(out.begin() + i, out.begin() + end, value);
    i = end;
  }
  return out;
}

std::vector<uint64_t> GenerateSortedNoise(uint64_t n, uint64_t mean_gap, uint64_t seed) {
  std::vector<uint64_t> out(n);
  Rng rng(seed);
  const int64_t max_gap = static_cast<int64_t>(std::min<uint64_t>(mean_gap, uint64_t{1} << 40) * 2);
  uint64_t v = uint64_t{1} << 20;
  for (uint64_t& x : out) {
    x = v;
    v += static_cast<uint64_t>(rng.Integer(0, max_gap));
  }
  return out;
}

std::vector<int64_t> GenerateTimestamps(uint64_t n, uint64_t seed) {
  constexpr int64_t kStart = 1699920000000000;  // 2023-11-14T00:00:00Z in microseconds
  std::vector<int64_t> out(n);
  Rng rng(seed);
  int64_t t = kStart;
  int64_t burst_left = 0;
  for (int64_t& x : out) {
    x = t;
    if (burst_left > 0) {
      --burst_left;
      t += 10;
      continue;
    }
    const double r = rng.Uniform01();
    if (r < 0.001) {
      burst_left = rng.Integer(10, 200);
      t += 10;
    } else if (r < 0.0015) {
      t += rng.Integer(1000000, 60000000);
    } else {
      t += 1000 + rng.Integer(-50, 50);
    }
  }
  return out;
}

}  // namespace l3::datagen
