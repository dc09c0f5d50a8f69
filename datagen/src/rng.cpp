// The PRNG, the samplers and the normal quantile function of l3/datagen.hpp.
#include <cmath>
#include <limits>

#include "l3/datagen.hpp"

namespace l3::datagen {
namespace {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

constexpr double kSqrt2Pi = 2.50662827463100050242;  // sqrt(2 pi)

// Acklam's rational approximation of the normal quantile for 0 < p <= 0.5
// (relative error below 1.2e-9), the starting point of the Halley step.
double AcklamLowerHalf(double p) {
  static constexpr double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                  -2.759285104469687e+02, 1.383577518672690e+02,
                                  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                  -1.556989798598866e+02, 6.680131188771972e+01,
                                  -1.328068155288572e+01};
  static constexpr double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                  -2.400758277161838e+00, -2.549732539343734e+00,
                                  4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[4] = {7.784695709041462e-03, 3.224671290700398e-01,
                                  2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kTailBreak = 0.02425;
  if (p < kTailBreak) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& word : s_) word = SplitMix64(&state);
}

uint64_t Rng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double Rng::Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double Rng::Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }

uint64_t Rng::Below(uint64_t bound) {
  if (bound == 0) return 0;
  // Lemire's multiply-and-reject: the high word of x * bound is uniform once
  // the low word is outside the biased band [0, 2^64 mod bound).
  unsigned __int128 m = static_cast<unsigned __int128>(Next()) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(Next()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

int64_t Rng::Integer(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const uint64_t offset = span == ~uint64_t{0} ? Next() : Below(span + 1);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
}

double Rng::Normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * Uniform01() - 1.0;
    v = 2.0 * Uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * f;
  has_spare_normal_ = true;
  return u * f;
}

uint64_t Rng::Poisson(double mean) {
  if (!(mean > 0.0)) return 0;
  if (mean < 10.0) {
    // Multiply uniforms until the product drops below e^-mean.
    const double limit = std::exp(-mean);
    uint64_t k = 0;
    double product = Uniform01();
    while (product > limit) {
      ++k;
      product *= Uniform01();
    }
    return k;
  }
  // PTRS, W. Hoermann, "The transformed rejection method for generating
  // Poisson random variables", Insurance: Mathematics and Economics 12 (1993).
  const double sqrt_mean = std::sqrt(mean);
  const double log_mean = std::log(mean);
  const double b = 0.931 + 2.53 * sqrt_mean;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = Uniform01() - 0.5;
    const double v = Uniform01();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= v_r) return static_cast<uint64_t>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    const double lhs = std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b);
    const double rhs = -mean + k * log_mean - std::lgamma(k + 1.0);
    if (lhs <= rhs) return static_cast<uint64_t>(k);
  }
}

double InverseNormalCdf(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  // Work in the lower half, where p carries full relative precision; 1 - p
  // is exact for p >= 0.5 (Sterbenz), so the function is exactly odd about 0.5.
  if (p > 0.5) return -InverseNormalCdf(1.0 - p);
  double x = AcklamLowerHalf(p);
  // One Halley step on Phi(x) - p; Phi from erfc keeps full relative accuracy
  // in the lower tail.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * kSqrt2Pi * std::exp(0.5 * x * x);
  x = x - u / (1.0 + 0.5 * x * u);
  return x;
}

}  // namespace l3::datagen
