// The arithmetic of the predicted-model fit (spec §14.3), shared verbatim by
// the CPU writer (model_fit.cpp) and the CUDA writer.
//
// Byte identity between the two writers needs every number that reaches a
// decision or a written parameter to be computed by the same sequence of
// IEEE-754 binary64 operations on both sides. Hence, in this header and in
// the passes that use it:
//  - only separately rounded add, subtract, multiply and divide (DAdd, DSub,
//    DMul, DDiv: the _rn intrinsics on the device, -ffp-contract=off on the
//    host); no long double, no libm function whose result may differ between
//    libraries (log2 is replaced by exponent arithmetic, exact);
//  - sums over the rows of a partition in one fixed order, the *lane order*:
//    lane L (0..31) adds the terms of rows L, L + 32, L + 64, ... in that
//    order, then the 32 lane sums are added by the fixed tree of ReduceLanes,
//    which is what a warp's xor-shuffle reduction computes;
//  - minima and maxima, which do not depend on the order, with -0.0 made +0.0
//    afterwards.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "codec/predictor.hpp"
#include "common/bits.hpp"

namespace l3::internal {

L3_HD double DDiv(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

L3_HD bool IsFinite(double a) {
#if defined(__CUDA_ARCH__)
  return isfinite(a);
#else
  return std::isfinite(a);
#endif
}

/// +0.0 for -0.0, the value otherwise (the sign of a zero extreme depends on
/// the order in which min/max saw the rows).
L3_HD double PositiveZero(double a) { return DAdd(a, 0.0); }

/// The sum of 32 lane sums in the order of a warp's xor-shuffle reduction:
/// offsets 16, 8, 4, 2, 1, lane L adding lane L + offset. (Every lane of a
/// butterfly ends with this value: each step adds the same two operands.)
L3_HD double ReduceLanes(double* lanes) {
  for (uint32_t offset = 16; offset >= 1; offset /= 2) {
    for (uint32_t lane = 0; lane < offset; ++lane) {
      lanes[lane] = DAdd(lanes[lane], lanes[lane + offset]);
    }
  }
  return lanes[0];
}

/// The unbiased exponent and whether the significand is a power of two, of
/// a normal binary64 z > 0.
L3_HD int BinaryExponent(double z, bool* power_of_two) {
  uint64_t bits;
  memcpy(&bits, &z, sizeof bits);
  *power_of_two = (bits & ((uint64_t{1} << 52) - 1)) == 0;
  return static_cast<int>((bits >> 52) & 0x7ff) - 1023;
}

/// floor(log2(z)) for finite z >= 1, exactly.
L3_HD int FloorLog2(double z) {
  bool power_of_two;
  return BinaryExponent(z, &power_of_two);
}

/// ceil(log2(z)) for finite z > 1, exactly.
L3_HD int CeilLog2(double z) {
  bool power_of_two;
  const int e = BinaryExponent(z, &power_of_two);
  return power_of_two ? e : e + 1;
}

/// An exact integer product of the minimax line (int64 or __int128) as
/// binary64: one correctly rounded conversion below 2^63; above it, the high
/// and low 64-bit halves converted and added (deterministic, not always
/// correctly rounded).
L3_HD double WideToDouble(int64_t x) { return static_cast<double>(x); }
L3_HD double WideToDouble(__int128 x) {
  const auto low = static_cast<int64_t>(x);
  if (static_cast<__int128>(low) == x) return static_cast<double>(low);
  const auto high = static_cast<int64_t>(x >> 64);
  return DAdd(DMul(static_cast<double>(high), 0x1p64),
              static_cast<double>(static_cast<uint64_t>(x)));
}

/// A 64-bit value of any column type as binary64, as every fit reads it:
/// exact for |v| <= 2^53 (spec §8.8 rule 3 keeps wider values out of the
/// predicted models); unsigned 64-bit values go through int64.
template <typename T>
L3_HD double FitValue(T v) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<double>(static_cast<int64_t>(v));
  } else {
    return static_cast<double>(v);
  }
}

// ---------------------------------------------------------------------------
// Least squares in the discrete orthogonal (Gram) polynomials of the grid
// x = 0..n-1, written in s = (x - h) / h with h = (n - 1) / 2, so s is in
// [-1, 1]:  Q0 = 1, Q1 = s, Q2 = s^2 - k2, Q3 = s^3 - k3 * s.
// Orthogonality makes the fits of degree 1, 2 and 3 share their coefficients
// c_k = <y, Q_k> / <Q_k, Q_k>: no linear system, well conditioned for any n.

struct GramBasis {
  uint32_t n = 0;
  double h = 0;
  double inv_h = 0;
  double k2 = 0;
  double k3 = 0;
  double norm[4] = {0, 0, 0, 0};  ///< <Q_k, Q_k>; 0 when n <= k
};

/// The monic discrete Chebyshev polynomials in t = x - h are t,
/// t^2 - (n^2 - 1) / 12 and t^3 - t (3 n^2 - 7) / 20, with squared norms
/// n (n^2-1) / 12, n (n^2-1)(n^2-4) / 180 and n (n^2-1)(n^2-4)(n^2-9) / 2800;
/// divided by h, h^2 and h^3 for the scaled variable s.
L3_HD GramBasis MakeGramBasis(uint32_t n) {
  GramBasis b;
  b.n = n;
  const double dn = static_cast<double>(n);
  b.norm[0] = dn;
  if (n < 2) return b;
  const double h = DMul(DSub(dn, 1.0), 0.5);
  const double h2 = DMul(h, h);
  const double n2 = DMul(dn, dn);
  const double a1 = DSub(n2, 1.0);
  const double a4 = DSub(n2, 4.0);
  const double a9 = DSub(n2, 9.0);
  b.h = h;
  b.inv_h = DDiv(1.0, h);
  b.k2 = DDiv(a1, DMul(12.0, h2));
  b.k3 = DDiv(DSub(DMul(3.0, n2), 7.0), DMul(20.0, h2));
  b.norm[1] = DDiv(DMul(dn, a1), DMul(12.0, h2));
  b.norm[2] = DDiv(DMul(DMul(dn, a1), a4), DMul(DMul(180.0, h2), h2));
  b.norm[3] = DDiv(DMul(DMul(DMul(dn, a1), a4), a9), DMul(DMul(DMul(2800.0, h2), h2), h2));
  return b;
}

/// The four least-squares terms y * Q_k(s) of one row, t = x - h (exact).
struct GramTerms {
  double q0, q1, q2, q3;
};

L3_HD GramTerms GramTermsAt(double y, double t, const GramBasis& b) {
  const double s = DMul(t, b.inv_h);
  const double s2 = DMul(s, s);
  return {y, DMul(y, s), DMul(y, DSub(s2, b.k2)), DMul(y, DMul(s, DSub(s2, b.k3)))};
}

/// y(x) ~ ref + sum_k c[k] Q_k(s(x)).
struct GramFit {
  double ref = 0;
  double c[4] = {0, 0, 0, 0};
};

/// The coefficients from the lane-order sums m[k] = sum y * Q_k.
L3_HD void GramCoefficients(const GramBasis& b, const double m[4], GramFit* f) {
  for (int k = 0; k < 4; ++k) f->c[k] = b.norm[k] > 0 ? DDiv(m[k], b.norm[k]) : 0.0;
}

/// The real-valued residuals v - p_d of the fits of degree d = 1, 2, 3 at
/// one row (y0 = the value as FitValue reads it, t = x - h).
struct GramErrors {
  double e1, e2, e3;
};

L3_HD GramErrors GramErrorsAt(double y0, double t, const GramBasis& b, const GramFit& f) {
  const double s = DMul(t, b.inv_h);
  const double s2 = DMul(s, s);
  const double e1 = DSub(DSub(DSub(y0, f.ref), f.c[0]), DMul(f.c[1], s));
  const double e2 = DSub(e1, DMul(f.c[2], DSub(s2, b.k2)));
  const double e3 = DSub(e2, DMul(f.c[3], DMul(s, DSub(s2, b.k3))));
  return {e1, e2, e3};
}

/// Range of the real residuals of one fit.
struct ErrorRange {
  double lo = 0;
  double hi = 0;
};

/// A proposed LINEAR/POLY2/POLY3 model before centring: the polynomial
/// p(x) = sum_i theta[i] x^i in the local row index x (spec §8.4) and the
/// range of the real residuals v(x) - p(x).
struct Candidate {
  uint8_t model_type = 0;
  double theta[4] = {0, 0, 0, 0};
  ErrorRange error;
};

/// The least-squares fit of degree model_type - 1 (2 = LINEAR, 3 = POLY2,
/// 4 = POLY3) as a Candidate: its power form in s, then s = x / h - 1
/// substituted term by term.
L3_HD Candidate LeastSquaresCandidate(const GramBasis& b, const GramFit& f, uint8_t model_type,
                                      const ErrorRange& error) {
  const int degree = model_type - 1;
  double a[4] = {f.c[0], degree >= 1 ? f.c[1] : 0.0, 0.0, 0.0};
  if (degree >= 2) {
    a[0] = DSub(a[0], DMul(f.c[2], b.k2));
    a[2] = f.c[2];
  }
  if (degree >= 3) {
    a[1] = DSub(a[1], DMul(f.c[3], b.k3));
    a[3] = f.c[3];
  }
  Candidate c;
  c.model_type = model_type;
  c.error = error;
  c.theta[0] = a[0];
  if (b.n >= 2) {
    // theta_i = h^-i * sum_{j >= i} (-1)^(j-i) C(j, i) a_j
    constexpr double kBinomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
    double scale = 1.0;
    for (int i = 0; i <= degree; ++i) {
      double sum = 0.0;
      for (int j = i; j <= degree; ++j) {
        const double term = DMul(a[j], kBinomial[j][i]);
        sum = ((j - i) & 1) ? DSub(sum, term) : DAdd(sum, term);
      }
      c.theta[i] = DMul(sum, scale);
      scale = DMul(scale, b.inv_h);
    }
  }
  c.theta[0] = DAdd(c.theta[0], f.ref);
  return c;
}

/// Theta_0 moved so the real residuals are centred for two's complement
/// (see TryPredicted in fit_choice.hpp): by mid(e) + 1/2, or by mid(e) when
/// the residuals span less than 1, aiming at width 0.
L3_HD double CentredTheta0(const Candidate& c) {
  const double spread = DSub(c.error.hi, c.error.lo);
  const double mid = DMul(DAdd(c.error.lo, c.error.hi), 0.5);
  return DAdd(c.theta[0], spread < 1.0 ? mid : DAdd(mid, 0.5));
}

/// A lower bound on the Bit_Width of any Theta_0 shift of `c`: no shift
/// gives fewer than ceil(log2(E)) bits for real residuals spanning E, less
/// `slack` on each side for the canonical predictor's rounding.
L3_HD uint32_t WidthLowerBound(const Candidate& c, double slack, uint32_t value_bits) {
  const double spread = DSub(c.error.hi, c.error.lo);
  const double z = DSub(spread, DMul(2.0, slack));
  uint32_t bound = 0;
  if (z > 1.0) bound = static_cast<uint32_t>(CeilLog2(z));
  return bound > value_bits ? value_bits : bound;
}

/// A bound on |canonical prediction - p(x)|: a few ulps of the largest
/// magnitude involved, per finite-difference step. `lo` and `hi` are the
/// partition's extremes as FitValue reads them.
L3_HD double PredictionSlack(double lo, double hi, const Candidate& c, uint32_t n,
                             uint32_t values_per_lane) {
  const double abs_lo = lo < 0 ? -lo : lo;
  const double abs_hi = hi < 0 ? -hi : hi;
  double magnitude = DAdd(abs_lo > abs_hi ? abs_lo : abs_hi, 1.0);
  double power = 1.0;
  for (int i = 0; i < 4; ++i, power = DMul(power, static_cast<double>(n))) {
    const double t = c.theta[i] < 0 ? -c.theta[i] : c.theta[i];
    magnitude = DAdd(magnitude, DMul(t, power));
  }
  return DMul(DMul(magnitude, 0x1p-51), static_cast<double>(values_per_lane + 16));
}

}  // namespace l3::internal
