// Model fitting for one partition (spec §8.1–§8.4, §8.8).
//
// Per candidate partition the fitter makes these passes over the values:
//  1. a summary: minimum, maximum and run count (CONSTANT, runs, FOR_BITPACK
//     and spec §8.8 rule 3 need nothing else);
//  2. least squares for the line and both polynomials at once (discrete
//     orthogonal polynomials), then one pass that measures the real-valued
//     residual range of each fit; optionally the minimax line (convex hulls);
//  3. for each predicted model that can still win, a run of the canonical
//     predictor (spec §8.4) that yields the exact integer residual range, and
//     hence the Bit_Width, of the parameters that will be written.
// The real-valued range serves to centre Theta_0 and to skip the exact run of
// models whose width cannot beat the best model found so far. Only step 3
// decides a width; the others propose parameters.
#include "codec/encode/model_fit.hpp"
#include "codec/runs/runs_ef_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "codec/delta/delta_encode.hpp"
#include "codec/encode/minimax_line.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/predictor.hpp"

namespace l3::internal {
namespace {

constexpr uint8_t kConstantType = static_cast<uint8_t>(Model::kConstant);
constexpr uint8_t kForType = static_cast<uint8_t>(Model::kFor);
constexpr uint8_t kLinearType = static_cast<uint8_t>(Model::kLinear);
constexpr uint8_t kPoly2Type = static_cast<uint8_t>(Model::kPoly2);
constexpr uint8_t kPoly3Type = static_cast<uint8_t>(Model::kPoly3);

// Below these sizes a polynomial's extra parameter words almost never pay for
// themselves, so the automatic choice does not try it (an explicit choice
// through FitGivenModel still may).
constexpr uint32_t kMinPoly2Rows = 16;
constexpr uint32_t kMinPoly3Rows = 32;

// With FitOptions::minimax_lines, the least-squares line's residual spread
// below which LINEAR uses the minimax line instead (see LineCandidate).
constexpr double kMinimaxSpread = 16;

template <typename T>
struct Summary {
  T min;
  T max;
  uint64_t runs;  // 1 + number of rows x >= 1 with v[x] != v[x - 1]
};

using Int32x4 = int32_t __attribute__((vector_size(16)));
using UInt32x4 = uint32_t __attribute__((vector_size(16)));

template <typename T>
Summary<T> Summarize(const T* v, uint32_t n) {
  T lo[4] = {v[0], v[0], v[0], v[0]};
  T hi[4] = {v[0], v[0], v[0], v[0]};
  uint64_t changes = 0;
  uint32_t x = 1;
  if constexpr (sizeof(T) == 4) {
    // Four rows per step in one SSE2/NEON register.
    using Vec = std::conditional_t<std::is_signed<T>::value, Int32x4, UInt32x4>;
    Vec vlo = {v[0], v[0], v[0], v[0]}, vhi = vlo;
    Int32x4 counts = {0, 0, 0, 0};
    for (; x + 4 <= n; x += 4) {
      Vec cur, prev;
      std::memcpy(&cur, v + x, sizeof cur);
      std::memcpy(&prev, v + x - 1, sizeof prev);
      vlo = cur < vlo ? cur : vlo;
      vhi = cur > vhi ? cur : vhi;
      counts -= (cur != prev);  // a true lane is -1
    }
    for (int j = 0; j < 4; ++j) {
      lo[j] = vlo[j];
      hi[j] = vhi[j];
      changes += static_cast<uint64_t>(counts[j]);
    }
  } else {
    // Four independent accumulators keep the comparisons out of one long
    // dependency chain.
    uint64_t counts[4] = {0, 0, 0, 0};
    for (; x + 4 <= n; x += 4) {
      for (uint32_t j = 0; j < 4; ++j) {
        lo[j] = std::min(lo[j], v[x + j]);
        hi[j] = std::max(hi[j], v[x + j]);
        counts[j] += v[x + j] != v[x + j - 1] ? 1 : 0;
      }
    }
    changes = counts[0] + counts[1] + counts[2] + counts[3];
  }
  for (; x < n; ++x) {
    lo[0] = std::min(lo[0], v[x]);
    hi[0] = std::max(hi[0], v[x]);
    changes += v[x] != v[x - 1] ? 1 : 0;
  }
  return {std::min(std::min(lo[0], lo[1]), std::min(lo[2], lo[3])),
          std::max(std::max(hi[0], hi[1]), std::max(hi[2], hi[3])), changes + 1};
}

template <typename T>
void SetBounds(const Summary<T>& s, uint32_t n, PartitionFit* fit) {
  fit->num_rows = n;
  fit->min_value = ValueTraits<T>::Canonical(s.min);
  fit->max_value = ValueTraits<T>::Canonical(s.max);
  fit->value_runs = s.runs;
}

// The summary of the union of two neighbouring partitions, values[0, n)
// with n = left.num_rows + right.num_rows, from their fits (whose bounds are
// canonical extensions, so the low bits are the values).
template <typename T>
Summary<T> SummaryOfUnion(const T* v, const PartitionFit& left, const PartitionFit& right) {
  const T left_min = static_cast<T>(left.min_value), right_min = static_cast<T>(right.min_value);
  const T left_max = static_cast<T>(left.max_value), right_max = static_cast<T>(right.max_value);
  const uint32_t boundary = left.num_rows;
  const uint64_t joined = v[boundary] == v[boundary - 1] ? 1 : 0;  // one run across the boundary
  return {std::min(left_min, right_min), std::max(left_max, right_max),
          left.value_runs + right.value_runs - joined};
}

template <typename T>
PartitionFit ConstantFit(const Summary<T>& s) {
  PartitionFit fit;
  fit.model_type = kConstantType;
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.cost_bytes = PartitionCost(kConstantType, 0, 0);
  return fit;
}

// spec §8.8 rule 2: Base = minimum, Bit_Width = bitlen(max - min).
template <typename T>
PartitionFit ForFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit;
  fit.model_type = kForType;
  fit.bit_width = static_cast<uint8_t>(BitLength(ValueTraits<T>::Offset(s.max, s.min)));
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.payload_words = SlapPayloadWords(n, fit.bit_width);
  fit.cost_bytes = PartitionCost(kForType, fit.bit_width, fit.payload_words);
  return fit;
}

// spec §8.7, §8.8 rule 2: the minimum run value is the minimum value. Only
// for partitions with at least two distinct values (then Bit_Width >= 1).
template <typename T>
PartitionFit RunsFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit;
  fit.model_type = kConstantType;
  fit.bit_width = static_cast<uint8_t>(BitLength(ValueTraits<T>::Offset(s.max, s.min)));
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.num_runs = s.runs;
  fit.payload_words = RunPayloadWords(n, fit.bit_width, s.runs);
  fit.cost_bytes = PartitionCost(kConstantType, fit.bit_width, fit.payload_words);
  return fit;
}

// spec §8.11: the runs of RunsFit with Elias-Fano run starts. Only where
// RunsEfParamsValid holds (at least two runs, at most 65536 rows).
template <typename T>
PartitionFit RunsEfFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit = RunsFit(s, n);
  fit.model_type = static_cast<uint8_t>(Model::kRunsEf);
  fit.payload_words = RunsEfPayloadWords(n, s.runs, fit.bit_width);
  fit.cost_bytes = PartitionCost(fit.model_type, fit.bit_width, fit.payload_words);
  return fit;
}

// ---------------------------------------------------------------------------
// Least squares

// The fits use the discrete orthogonal (Gram) polynomials of the grid
// x = 0..n-1, written in s = (x - h) / h with h = (n - 1) / 2, so s is in
// [-1, 1]:  Q0 = 1, Q1 = s, Q2 = s^2 - k2, Q3 = s^3 - k3 * s.
// Orthogonality makes the least-squares fits of degree 1, 2 and 3 share their
// coefficients c_k = <y, Q_k> / <Q_k, Q_k>, needs no linear system and keeps
// every fit well conditioned whatever n is.
struct GramBasis {
  uint32_t n = 0;
  double h = 0;
  double inv_h = 0;
  double k2 = 0;
  double k3 = 0;
  long double norm[4] = {0, 0, 0, 0};  // <Q_k, Q_k>; 0 when n <= k
};

GramBasis MakeGramBasis(uint32_t n) {
  GramBasis b;
  b.n = n;
  const long double ln = n;
  b.norm[0] = ln;
  if (n < 2) return b;
  const long double h = (ln - 1) / 2;
  const long double h2 = h * h;
  const long double n2 = ln * ln;
  b.h = static_cast<double>(h);
  b.inv_h = static_cast<double>(1 / h);
  // The monic discrete Chebyshev polynomials in t = x - h are
  // t, t^2 - (n^2 - 1) / 12 and t^3 - t (3 n^2 - 7) / 20, with squared norms
  // n (n^2-1) / 12, n (n^2-1)(n^2-4) / 180 and n (n^2-1)(n^2-4)(n^2-9) / 2800.
  b.k2 = static_cast<double>((n2 - 1) / (12 * h2));
  b.k3 = static_cast<double>((3 * n2 - 7) / (20 * h2));
  b.norm[1] = ln * (n2 - 1) / (12 * h2);
  b.norm[2] = ln * (n2 - 1) * (n2 - 4) / (180 * h2 * h2);
  b.norm[3] = ln * (n2 - 1) * (n2 - 4) * (n2 - 9) / (2800 * h2 * h2 * h2);
  return b;
}

// y(x) ~ ref + sum_k c[k] Q_k(s(x)).
struct GramFit {
  double ref = 0;
  double c[4] = {0, 0, 0, 0};
};

// The least-squares and error passes work on four rows at a time, as two
// pairs of GCC vector-extension doubles (one SSE2 register each on x86-64,
// one NEON register on AArch64). The order of the floating-point sums is
// fixed, so results are deterministic.
using Vec2 = double __attribute__((vector_size(16)));
using Int64x2 = int64_t __attribute__((vector_size(16)));

inline Vec2 Min2(Vec2 a, Vec2 b) { return a < b ? a : b; }
inline Vec2 Max2(Vec2 a, Vec2 b) { return a > b ? a : b; }

// Values as binary64, exact for |v| <= 2^53. Unsigned 64-bit values go
// through int64 (a cheap conversion); beyond 2^63 the result is wrong, but
// such partitions never use a fit (spec §8.8 rule 3).
template <typename T>
inline double AsDouble(T v) {
  if constexpr (std::is_same<T, uint64_t>::value) {
    return static_cast<double>(static_cast<int64_t>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
inline Vec2 Load2(const T* v) {
#if defined(__SSE2__)
  // One cvtdq2pd for two 32-bit values; unsigned ones are biased into the
  // signed range and back, exactly.
  if constexpr (sizeof(T) == 4) {
    __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v));
    if constexpr (std::is_signed<T>::value) {
      return reinterpret_cast<Vec2>(_mm_cvtepi32_pd(raw));
    } else {
      raw = _mm_xor_si128(raw, _mm_set1_epi32(INT32_MIN));
      return reinterpret_cast<Vec2>(_mm_cvtepi32_pd(raw)) + 0x1p31;
    }
  }
#endif
  return Vec2{AsDouble(v[0]), AsDouble(v[1])};
}

// One row group of the least-squares and error passes: the scaled position
// s, and the Gram polynomials Q2, Q3 at s.
struct Basis2 {
  Vec2 s, q2, q3;
};

inline Basis2 BasisAt(Vec2 t, const GramBasis& b) {
  const Vec2 s = t * b.inv_h;
  const Vec2 s2 = s * s;
  return {s, s2 - b.k2, s * (s2 - b.k3)};
}

template <typename T>
GramFit LeastSquares(const T* v, uint32_t n, const GramBasis& b) {
  GramFit f;
  f.ref = AsDouble(v[0]);
  const Vec2 zero = {0, 0};
  Vec2 m0a = zero, m1a = zero, m2a = zero, m3a = zero;
  Vec2 m0b = zero, m1b = zero, m2b = zero, m3b = zero;
  Vec2 ta = Vec2{0, 1} - b.h;  // x - h, exact
  Vec2 tb = Vec2{2, 3} - b.h;
  const uint32_t full = n & ~3u;
  for (uint32_t x = 0; x < full; x += 4, ta += 4.0, tb += 4.0) {
    const Basis2 pa = BasisAt(ta, b);
    const Basis2 pb = BasisAt(tb, b);
    const Vec2 ya = Load2(v + x) - f.ref;
    const Vec2 yb = Load2(v + x + 2) - f.ref;
    m0a += ya;
    m1a += ya * pa.s;
    m2a += ya * pa.q2;
    m3a += ya * pa.q3;
    m0b += yb;
    m1b += yb * pb.s;
    m2b += yb * pb.q2;
    m3b += yb * pb.q3;
  }
  const Vec2 m0 = m0a + m0b, m1 = m1a + m1b, m2 = m2a + m2b, m3 = m3a + m3b;
  double m[4] = {m0[0] + m0[1], m1[0] + m1[1], m2[0] + m2[1], m3[0] + m3[1]};
  for (uint32_t x = full; x < n; ++x) {
    const double s = (static_cast<double>(x) - b.h) * b.inv_h;
    const double s2 = s * s;
    const double y = AsDouble(v[x]) - f.ref;
    m[0] += y;
    m[1] += y * s;
    m[2] += y * (s2 - b.k2);
    m[3] += y * (s * (s2 - b.k3));
  }
  for (int k = 0; k < 4; ++k) {
    f.c[k] = b.norm[k] > 0 ? static_cast<double>(m[k] / b.norm[k]) : 0.0;
  }
  return f;
}

// Real-valued residual range v(x) - p_d(x) of the fits of degree d = 1, 2, 3.
struct ErrorRange {
  double lo = 0;
  double hi = 0;
};

template <typename T>
void MeasureErrors(const T* v, uint32_t n, const GramBasis& b, const GramFit& f,
                   ErrorRange out[4]) {
  const double inf = std::numeric_limits<double>::infinity();
  Vec2 lo[4], hi[4];
  for (int d = 1; d <= 3; ++d) {
    lo[d] = Vec2{inf, inf};
    hi[d] = Vec2{-inf, -inf};
  }
  Vec2 ta = Vec2{0, 1} - b.h;
  Vec2 tb = Vec2{2, 3} - b.h;
  const uint32_t full = n & ~3u;
  for (uint32_t x = 0; x < full; x += 4, ta += 4.0, tb += 4.0) {
    const Basis2 pa = BasisAt(ta, b);
    const Basis2 pb = BasisAt(tb, b);
    const Vec2 e1a = (Load2(v + x) - f.ref - f.c[0]) - f.c[1] * pa.s;
    const Vec2 e1b = (Load2(v + x + 2) - f.ref - f.c[0]) - f.c[1] * pb.s;
    const Vec2 e2a = e1a - f.c[2] * pa.q2;
    const Vec2 e2b = e1b - f.c[2] * pb.q2;
    const Vec2 e3a = e2a - f.c[3] * pa.q3;
    const Vec2 e3b = e2b - f.c[3] * pb.q3;
    lo[1] = Min2(lo[1], Min2(e1a, e1b));
    hi[1] = Max2(hi[1], Max2(e1a, e1b));
    lo[2] = Min2(lo[2], Min2(e2a, e2b));
    hi[2] = Max2(hi[2], Max2(e2a, e2b));
    lo[3] = Min2(lo[3], Min2(e3a, e3b));
    hi[3] = Max2(hi[3], Max2(e3a, e3b));
  }
  double low[4], high[4];
  for (int d = 1; d <= 3; ++d) {
    low[d] = std::min(lo[d][0], lo[d][1]);
    high[d] = std::max(hi[d][0], hi[d][1]);
  }
  for (uint32_t x = full; x < n; ++x) {
    const double s = (static_cast<double>(x) - b.h) * b.inv_h;
    const double s2 = s * s;
    const double e1 = (AsDouble(v[x]) - f.ref - f.c[0]) - f.c[1] * s;
    const double e2 = e1 - f.c[2] * (s2 - b.k2);
    const double e3 = e2 - f.c[3] * (s * (s2 - b.k3));
    const double e[4] = {0, e1, e2, e3};
    for (int d = 1; d <= 3; ++d) {
      low[d] = std::min(low[d], e[d]);
      high[d] = std::max(high[d], e[d]);
    }
  }
  for (int d = 1; d <= 3; ++d) out[d] = {low[d], high[d]};
}

// The coefficients of the degree-`degree` fit in the power basis of s.
void PowerCoefficients(const GramBasis& b, const GramFit& f, int degree, long double a[4]) {
  a[0] = f.c[0];
  a[1] = degree >= 1 ? f.c[1] : 0;
  a[2] = 0;
  a[3] = 0;
  if (degree >= 2) {
    a[0] -= static_cast<long double>(f.c[2]) * b.k2;
    a[2] = f.c[2];
  }
  if (degree >= 3) {
    a[1] -= static_cast<long double>(f.c[3]) * b.k3;
    a[3] = f.c[3];
  }
}

// A proposed LINEAR/POLY2/POLY3 model before centring: the polynomial
// p(x) = sum_i theta[i] x^i in the local row index x (spec §8.4) and the
// range of the real residuals v(x) - p(x).
struct Candidate {
  uint8_t model_type = 0;
  long double theta[4] = {0, 0, 0, 0};
  ErrorRange error;
};

// The least-squares fit of degree model_type - 1 as a Candidate. Substitutes
// s = x / h - 1 into its power form in s; long double keeps the alternating
// sums accurate.
Candidate LeastSquaresCandidate(const GramBasis& b, const GramFit& f, uint8_t model_type,
                                const ErrorRange& error) {
  const int degree = model_type - 1;
  long double a[4];
  PowerCoefficients(b, f, degree, a);
  Candidate c;
  c.model_type = model_type;
  c.error = error;
  c.theta[0] = a[0];
  if (b.n >= 2) {
    static constexpr int kBinomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
    const long double inv_h = 1 / static_cast<long double>(b.h);
    long double scale = 1;
    for (int i = 0; i <= degree; ++i) {
      long double sum = 0;
      for (int j = i; j <= degree; ++j) {
        const long double term = a[j] * kBinomial[j][i];
        sum += ((j - i) & 1) ? -term : term;
      }
      c.theta[i] = sum * scale;
      scale *= inv_h;
    }
  }
  c.theta[0] += static_cast<long double>(f.ref);
  return c;
}

// Where the minimax line's hulls come from and go to: the hulls of the
// rows [0, left_rows) and [left_rows, n) when both are known, and where to
// keep the partition's (each may be null).
struct HullSources {
  const PartitionHulls* left = nullptr;
  const PartitionHulls* right = nullptr;
  uint32_t left_rows = 0;
  PartitionHulls* out = nullptr;
};

// The minimax line as a LINEAR Candidate, its strip centred on 0.
template <typename T>
Candidate MinimaxCandidate(const T* v, uint32_t n, const Summary<T>& s,
                           const HullSources& sources) {
  const auto min = static_cast<int64_t>(s.min);
  const auto max = static_cast<int64_t>(s.max);
  thread_local LineHulls scratch;
  LineHulls* hulls = sources.out != nullptr ? &sources.out->hulls : &scratch;
  if (sources.left != nullptr && sources.right != nullptr && sources.left->valid &&
      sources.right->valid) {
    JoinLineHulls(v, sources.left->hulls, sources.left_rows, sources.right->hulls,
                  n - sources.left_rows, min, max, hulls);
  } else {
    BuildLineHulls(v, n, min, max, hulls);
  }
  if (sources.out != nullptr) sources.out->valid = true;
  const MinimaxLine line = FitMinimaxLineOfHulls(v, n, min, max, *hulls);
  Candidate c;
  c.model_type = kLinearType;
  c.theta[0] = line.intercept;
  c.theta[1] = line.slope;
  c.error = {static_cast<double>(-line.spread / 2), static_cast<double>(line.spread / 2)};
  return c;
}

// The LINEAR candidate. The minimax line has the narrowest residual strip of
// all lines, but it rarely saves more than a bit over least squares, which
// matters only for narrow residuals (a quantised line: width 0 instead of 1
// at any length), and its convex hulls cost as much as the rest of the fit.
template <typename T>
Candidate LineCandidate(const T* v, uint32_t n, const Summary<T>& s, const GramBasis& basis,
                        const GramFit& gram, const ErrorRange& error, bool minimax,
                        const HullSources& hulls = HullSources{}) {
  if (minimax && error.hi - error.lo < kMinimaxSpread) return MinimaxCandidate(v, n, s, hulls);
  return LeastSquaresCandidate(basis, gram, kLinearType, error);
}

// ---------------------------------------------------------------------------
// Exact residuals (spec §8.4, §8.8 rule 1)

struct ResidualRange {
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
};

// Runs the canonical predictor over every row, tile by tile with a restart of
// each lane at X0 = t * S + L (spec §8.4), full and partial tiles alike. The
// 32 lanes advance together so consecutive rows are read in order.
template <uint8_t kModel, typename T>
ResidualRange ScanResiduals(const T* v, uint32_t n, const double* theta, uint32_t values_per_lane) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  ResidualRange range;
  LanePredictor<kModel> lanes[kLanes];
  for (uint64_t t0 = 0; t0 < n; t0 += tile_rows) {
    const uint64_t rows = std::min<uint64_t>(tile_rows, n - t0);
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      lanes[lane].Start(theta, static_cast<double>(t0 + lane));
    }
    const T* row = v + t0;
    const uint64_t steps = rows / kLanes;
    for (uint64_t k = 0; k < steps; ++k, row += kLanes) {
      for (uint32_t lane = 0; lane < kLanes; ++lane) {
        const int64_t r =
            ValueTraits<T>::Residual(row[lane], FastPredictionToInt(lanes[lane].value()));
        range.lo = std::min(range.lo, r);
        range.hi = std::max(range.hi, r);
        lanes[lane].Advance();
      }
    }
    const uint32_t rest = static_cast<uint32_t>(rows % kLanes);
    for (uint32_t lane = 0; lane < rest; ++lane) {
      const int64_t r =
          ValueTraits<T>::Residual(row[lane], FastPredictionToInt(lanes[lane].value()));
      range.lo = std::min(range.lo, r);
      range.hi = std::max(range.hi, r);
    }
  }
  return range;
}

// The same scan with two lanes per vector register. Every lane performs
// exactly the operations of LanePredictor (vector adds are separately
// rounded IEEE additions) and rounds with (y + 1.5 * 2^52) - 1.5 * 2^52, which
// is ToInt(y) whenever |y| < 2^51; r = v - pred is kept in binary64, exact
// while the true difference is at most 2^53. Returns false, and the caller
// runs the integer scan, unless all of this held and r lies where it equals
// the N-bit two's complement residual of spec §8.8 rule 1:
//  - a NaN or infinity in y stays one through every later addition, so it
//    shows in the lane's final state, checked after each tile;
//  - for N <= 32, a finite |y| >= 2^51 gives |r| > 2^50 and fails the range
//    check; 64-bit values can come close to such predictions, so there the
//    extremes of y are tracked as well.
template <uint8_t kModel, typename T>
bool ScanResidualsFast(const T* v, uint32_t n, const double* theta, uint32_t values_per_lane,
                       ResidualRange* out) {
  constexpr uint32_t kPairs = kLanes / 2;
  constexpr bool kWide = ValueTraits<T>::kBits == 64;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const double inf = std::numeric_limits<double>::infinity();
  const Vec2 magic = {0x1.8p52, 0x1.8p52};
  Vec2 y[kPairs], d1[kPairs], d2[kPairs], d3[kPairs];
  Vec2 lo = {inf, inf}, hi = {-inf, -inf};
  Vec2 y_lo = {0, 0}, y_hi = {0, 0};
  for (uint64_t t0 = 0; t0 < n; t0 += tile_rows) {
    const uint64_t rows = std::min<uint64_t>(tile_rows, n - t0);
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      LanePredictor<kModel> p;
      p.Start(theta, static_cast<double>(t0 + lane));
      y[lane / 2][lane % 2] = p.y;
      d1[lane / 2][lane % 2] = p.d1;
      d2[lane / 2][lane % 2] = p.d2;
      d3[lane / 2][lane % 2] = p.d3;
    }
    const T* row = v + t0;
    const uint64_t steps = rows / kLanes;
    for (uint64_t k = 0; k < steps; ++k, row += kLanes) {
      for (uint32_t j = 0; j < kPairs; ++j) {
        const Vec2 yj = y[j];
        if constexpr (kWide) {
          y_lo = Min2(y_lo, yj);
          y_hi = Max2(y_hi, yj);
        }
        const Vec2 r = Load2(row + 2 * j) - ((yj + magic) - magic);
        lo = Min2(lo, r);
        hi = Max2(hi, r);
        // LanePredictor::Advance, lane-wise.
        y[j] = yj + d1[j];
        if constexpr (kModel != kLinearType) d1[j] = d1[j] + d2[j];
        if constexpr (kModel == kPoly3Type) d2[j] = d2[j] + d3[j];
      }
    }
    const uint32_t rest = static_cast<uint32_t>(rows % kLanes);
    for (uint32_t lane = 0; lane < rest; ++lane) {
      const double yl = y[lane / 2][lane % 2];
      if (!(yl < 0x1p51 && yl > -0x1p51)) return false;
      const double r = AsDouble(row[lane]) - ((yl + 0x1.8p52) - 0x1.8p52);
      lo[0] = std::min(lo[0], r);
      hi[0] = std::max(hi[0], r);
    }
    for (uint32_t j = 0; j < kPairs; ++j) {
      if (!std::isfinite(y[j][0]) || !std::isfinite(y[j][1])) return false;
    }
  }
  if constexpr (kWide) {
    if (!(std::min(y_lo[0], y_lo[1]) > -0x1p51 && std::max(y_hi[0], y_hi[1]) < 0x1p51)) {
      return false;
    }
  }
  const double low = std::min(lo[0], lo[1]);
  const double high = std::max(hi[0], hi[1]);
  constexpr uint32_t kBits = ValueTraits<T>::kBits;
  const double bound = kBits < 64 ? std::ldexp(1.0, static_cast<int>(kBits) - 1) : 0x1p52;
  if (!(low >= -bound && high <= bound - 1)) return false;
  out->lo = static_cast<int64_t>(low);
  out->hi = static_cast<int64_t>(high);
  return true;
}

template <uint8_t kModel, typename T>
ResidualRange ScanModel(const T* v, uint32_t n, const double* theta, uint32_t values_per_lane) {
  ResidualRange range;
  if (ScanResidualsFast<kModel>(v, n, theta, values_per_lane, &range)) return range;
  return ScanResiduals<kModel>(v, n, theta, values_per_lane);
}

template <typename T>
ResidualRange ScanResidualsOf(uint8_t model_type, const T* v, uint32_t n, const double* theta,
                              uint32_t values_per_lane) {
  switch (model_type) {
    case kLinearType: return ScanModel<kLinearType>(v, n, theta, values_per_lane);
    case kPoly2Type: return ScanModel<kPoly2Type>(v, n, theta, values_per_lane);
    default: return ScanModel<kPoly3Type>(v, n, theta, values_per_lane);
  }
}

// spec §8.8 rule 1: the smallest w with every residual in
// [-2^(w-1), 2^(w-1) - 1].
uint32_t ResidualWidth(const ResidualRange& r) {
  return std::max(SignedWidth(r.lo), SignedWidth(r.hi));
}

// The width the residuals would need after the best integer shift.
uint32_t SpanWidth(const ResidualRange& r) {
  return BitLength(static_cast<uint64_t>(r.hi) - static_cast<uint64_t>(r.lo));
}

bool AllFinite(const std::array<double, 4>& theta) {
  for (double t : theta) {
    if (!std::isfinite(t)) return false;
  }
  return true;
}

PartitionFit PredictedFit(uint8_t model_type, const std::array<double, 4>& theta, uint32_t width,
                          uint32_t n) {
  PartitionFit fit;
  fit.model_type = model_type;
  fit.bit_width = static_cast<uint8_t>(width);
  fit.theta = theta;
  for (int k = static_cast<int>(ParamCount(model_type, 0)); k < 4; ++k) fit.theta[k] = 0;
  fit.payload_words = SlapPayloadWords(n, width);
  fit.cost_bytes = PartitionCost(model_type, width, fit.payload_words);
  return fit;
}

// Centres a candidate, measures it with the canonical predictor and stores it
// in *fit when it costs less than `cost_limit` bytes.
//
// Rounding: the written residual is r = v - round(p(x) + delta) when Theta_0
// is moved by delta. If the real residuals e = v - p span E = hi - lo, then
// with delta = mid(e) + 1/2 every e - delta lies in [-E/2 - 1/2, E/2 - 1/2],
// centred on -1/2 like the two's complement interval [-2^(w-1), 2^(w-1) - 1],
// so r needs w bits as soon as E < 2^w; with delta = mid(e) and E < 1 every
// r is 0. Conversely any shift leaves hi(r) - lo(r) >= E - 1, so no Theta_0
// gives fewer than ceil(log2(E)) bits: that bound skips hopeless exact runs.
// `slack` bounds the difference between the canonical predictor and p, so
// the bound stays a bound.
template <typename T>
bool TryPredicted(const T* v, uint32_t n, uint32_t values_per_lane, const Candidate& candidate,
                  double slack, double cost_limit, PartitionFit* fit) {
  const uint8_t model_type = candidate.model_type;
  const uint64_t params = ParamCount(model_type, 0);
  const ErrorRange& error = candidate.error;
  const double spread = error.hi - error.lo;
  if (!std::isfinite(spread)) return false;
  const auto cost_of = [&](uint32_t w) {
    return static_cast<double>(kPartitionRecordBytes + 8 * params + 8 * SlapPayloadWords(n, w));
  };
  uint32_t lower_bound = 0;
  if (spread - 2 * slack > 1) {
    lower_bound = static_cast<uint32_t>(std::ceil(std::log2(spread - 2 * slack)));
  }
  if (lower_bound > ValueTraits<T>::kBits) lower_bound = ValueTraits<T>::kBits;
  if (!(cost_of(lower_bound) < cost_limit)) return false;

  // Aim for width 0 whenever the spread allows it; if rounding spoils that,
  // the residuals span at most 2 values and the integer shift below still
  // reaches width 1.
  const long double mid = (static_cast<long double>(error.lo) + error.hi) / 2;
  const long double delta = spread < 1 ? mid : mid + 0.5L;
  std::array<double, 4> theta;
  for (int i = 0; i < 4; ++i) theta[i] = static_cast<double>(candidate.theta[i]);
  theta[0] = static_cast<double>(candidate.theta[0] + delta);
  if (!AllFinite(theta)) return false;
  ResidualRange range = ScanResidualsOf(model_type, v, n, theta.data(), values_per_lane);
  uint32_t width = ResidualWidth(range);

  // When rounding made the residuals lopsided, an integer shift of Theta_0
  // recentres them (almost always exactly, since it moves every prediction
  // by the same integer); keep it only if the canonical run confirms it.
  const uint32_t span_width = SpanWidth(range);
  if (span_width < width) {
    const int64_t shift =
        span_width == 0 ? range.lo : range.lo + (int64_t{1} << (span_width - 1));
    std::array<double, 4> shifted = theta;
    shifted[0] = static_cast<double>(static_cast<long double>(theta[0]) + shift);
    if (AllFinite(shifted)) {
      const ResidualRange shifted_range =
          ScanResidualsOf(model_type, v, n, shifted.data(), values_per_lane);
      const uint32_t shifted_width = ResidualWidth(shifted_range);
      if (shifted_width < width) {
        theta = shifted;
        width = shifted_width;
      }
    }
  }
  if (!(cost_of(width) < cost_limit)) return false;
  *fit = PredictedFit(model_type, theta, width, n);
  return true;
}

// A bound on |canonical prediction - p(x)|: a few ulps of the largest
// magnitude involved, per finite-difference step.
template <typename T>
double PredictionSlack(const Summary<T>& s, const Candidate& c, uint32_t n,
                       uint32_t values_per_lane) {
  long double magnitude = std::max(std::fabs(static_cast<long double>(s.min)),
                                   std::fabs(static_cast<long double>(s.max))) +
                          1;
  long double power = 1;
  for (int i = 0; i < 4; ++i, power *= n) magnitude += std::fabs(c.theta[i]) * power;
  return std::ldexp(static_cast<double>(magnitude), -51) * (values_per_lane + 16);
}

}  // namespace

template <typename T>
PartitionFit FitBestModelWithSummary(const T* v, uint32_t n, const Summary<T>& summary,
                                     const FitOptions& options, const HullSources& hulls) {
  if (hulls.out != nullptr) hulls.out->valid = false;
  PartitionFit best;
  if (summary.min == summary.max) {
    best = ConstantFit(summary);
    SetBounds(summary, n, &best);
    return best;
  }
  // Candidates in order of simplicity; each must be strictly cheaper.
  best = ForFit(summary, n);
  if (options.enable_rle) {
    const PartitionFit runs = RunsFit(summary, n);
    if (runs.cost_bytes < best.cost_bytes) best = runs;
  }
  if (options.enable_runs_ef && RunsEfParamsValid(n, summary.runs, 1)) {
    const PartitionFit runs = RunsEfFit(summary, n);
    if (static_cast<double>(runs.cost_bytes) <
        static_cast<double>(best.cost_bytes) * (1.0 - options.runs_ef_min_gain)) {
      best = runs;
    }
  }
  if (options.enable_delta) {
    // Skipped where no DELTA fit can be strictly cheaper (DeltaCostLowerBound).
    const PartitionFit delta = DeltaFit(v, n, options.values_per_lane, best.cost_bytes);
    if (delta.cost_bytes < best.cost_bytes) best = delta;
  }
  const bool predictable = ValueTraits<T>::Predictable(summary.min) &&
                           ValueTraits<T>::Predictable(summary.max);
  const bool try_poly2 = options.enable_poly2 && n >= kMinPoly2Rows;
  const bool try_poly3 = options.enable_poly3 && n >= kMinPoly3Rows;
  if (!predictable) {
    SetBounds(summary, n, &best);
    return best;
  }
  if (!options.enable_linear && !try_poly2 && !try_poly3) {
    SetBounds(summary, n, &best);
    return best;
  }
  const uint32_t lanes = options.values_per_lane;
  const GramBasis basis = MakeGramBasis(n);
  const GramFit gram = LeastSquares(v, n, basis);
  ErrorRange errors[4];
  MeasureErrors(v, n, basis, gram, errors);
  PartitionFit candidate_fit;
  if (options.enable_linear) {
    const Candidate line =
        LineCandidate(v, n, summary, basis, gram, errors[1], options.minimax_lines, hulls);
    if (TryPredicted(v, n, lanes, line, PredictionSlack(summary, line, n, lanes),
                     static_cast<double>(best.cost_bytes), &candidate_fit)) {
      best = candidate_fit;
    }
  }
  const double keep = 1.0 - options.poly_min_gain;
  for (uint8_t model_type : {kPoly2Type, kPoly3Type}) {
    if (!(model_type == kPoly2Type ? try_poly2 : try_poly3)) continue;
    const Candidate poly = LeastSquaresCandidate(basis, gram, model_type, errors[model_type - 1]);
    if (TryPredicted(v, n, lanes, poly, PredictionSlack(summary, poly, n, lanes),
                     static_cast<double>(best.cost_bytes) * keep, &candidate_fit)) {
      best = candidate_fit;
    }
  }
  SetBounds(summary, n, &best);
  return best;
}

template <typename T>
PartitionFit FitBestModel(const T* v, uint32_t n, const FitOptions& options,
                          PartitionHulls* hulls) {
  HullSources sources;
  sources.out = hulls;
  return FitBestModelWithSummary(v, n, Summarize(v, n), options, sources);
}

template <typename T>
PartitionFit FitBestModelOfUnion(const T* v, const PartitionFit& left, const PartitionFit& right,
                                 const FitOptions& options, const PartitionHulls* left_hulls,
                                 const PartitionHulls* right_hulls, PartitionHulls* hulls) {
  const HullSources sources{left_hulls, right_hulls, left.num_rows, hulls};
  return FitBestModelWithSummary(v, left.num_rows + right.num_rows,
                                 SummaryOfUnion(v, left, right), options, sources);
}

template <typename T>
Status FitGivenModel(const T* v, uint32_t n, Model model, const double* theta,
                     const FitOptions& options, PartitionFit* fit) {
  const uint32_t values_per_lane = options.values_per_lane;
  const Summary<T> summary = Summarize(v, n);
  const auto model_type = static_cast<uint8_t>(model);
  switch (model) {
    case Model::kConstant:
      *fit = summary.min == summary.max ? ConstantFit(summary) : RunsFit(summary, n);
      break;
    case Model::kFor:
      *fit = ForFit(summary, n);
      break;
    case Model::kRunsEf:
      if (!RunsEfParamsValid(n, summary.runs, 1)) {
        return Status(StatusCode::kInvalidArgument,
                      "RUNS_EF needs at least two runs and at most 65536 rows (spec §8.11)");
      }
      *fit = RunsEfFit(summary, n);
      break;
    case Model::kDelta:
      *fit = options.delta_without_exceptions ? WholeDeltaFit(v, n, values_per_lane)
                                              : DeltaFit(v, n, values_per_lane);
      break;
    case Model::kLinear:
    case Model::kPoly2:
    case Model::kPoly3: {
      if (!ValueTraits<T>::Predictable(summary.min) || !ValueTraits<T>::Predictable(summary.max)) {
        return Status(StatusCode::kInvalidArgument,
                      "a 64-bit partition with |v| > 2^53 cannot use LINEAR, POLY2 or POLY3 "
                      "(spec §8.8 rule 3)");
      }
      if (theta != nullptr) {
        std::array<double, 4> given = {theta[0], theta[1], theta[2], theta[3]};
        for (int k = static_cast<int>(ParamCount(model_type, 0)); k < 4; ++k) given[k] = 0;
        if (!AllFinite(given)) {
          return Status(StatusCode::kInvalidArgument, "theta must be finite (spec §8.2)");
        }
        const ResidualRange range =
            ScanResidualsOf(model_type, v, n, given.data(), values_per_lane);
        *fit = PredictedFit(model_type, given, ResidualWidth(range), n);
        break;
      }
      const GramBasis basis = MakeGramBasis(n);
      const GramFit gram = LeastSquares(v, n, basis);
      ErrorRange errors[4];
      MeasureErrors(v, n, basis, gram, errors);
      const Candidate candidate =
          model == Model::kLinear
              ? LineCandidate(v, n, summary, basis, gram, errors[1], options.minimax_lines)
              : LeastSquaresCandidate(basis, gram, model_type, errors[model_type - 1]);
      if (!TryPredicted(v, n, values_per_lane, candidate,
                        PredictionSlack(summary, candidate, n, values_per_lane),
                        std::numeric_limits<double>::infinity(), fit)) {
        return Status(StatusCode::kInternal, "fit produced non-finite parameters");
      }
      break;
    }
    default:
      return Status(StatusCode::kInvalidArgument, "unknown model");
  }
  SetBounds(summary, n, fit);
  return Status::OK();
}

template <typename T>
uint32_t AnalysisWidth(const T* v, uint32_t n, bool use_linear) {
  const Summary<T> summary = Summarize(v, n);
  const uint32_t for_width = BitLength(ValueTraits<T>::Offset(summary.max, summary.min));
  if (!use_linear || summary.min == summary.max || !ValueTraits<T>::Predictable(summary.min) ||
      !ValueTraits<T>::Predictable(summary.max)) {
    return for_width;
  }
  const GramBasis basis = MakeGramBasis(n);
  const GramFit gram = LeastSquares(v, n, basis);
  ErrorRange errors[4];
  MeasureErrors(v, n, basis, gram, errors);
  const double spread = errors[1].hi - errors[1].lo;
  // The width a centred line would need (see TryPredicted).
  if (!(spread >= 1)) return 0;
  const double bits = std::floor(std::log2(spread)) + 1;
  return std::min<uint32_t>(static_cast<uint32_t>(bits), ValueTraits<T>::kBits);
}

#define L3_INSTANTIATE_FIT(T)                                                                \
  template PartitionFit FitBestModel<T>(const T*, uint32_t, const FitOptions&,              \
                                        PartitionHulls*);                                   \
  template PartitionFit FitBestModelOfUnion<T>(const T*, const PartitionFit&,                \
                                               const PartitionFit&, const FitOptions&,      \
                                               const PartitionHulls*, const PartitionHulls*, \
                                               PartitionHulls*);                            \
  template Status FitGivenModel<T>(const T*, uint32_t, Model, const double*,                 \
                                   const FitOptions&, PartitionFit*);                       \
  template uint32_t AnalysisWidth<T>(const T*, uint32_t, bool);

L3_INSTANTIATE_FIT(int8_t)
L3_INSTANTIATE_FIT(int16_t)
L3_INSTANTIATE_FIT(int32_t)
L3_INSTANTIATE_FIT(int64_t)
L3_INSTANTIATE_FIT(uint8_t)
L3_INSTANTIATE_FIT(uint16_t)
L3_INSTANTIATE_FIT(uint32_t)
L3_INSTANTIATE_FIT(uint64_t)
#undef L3_INSTANTIATE_FIT

}  // namespace l3::internal
