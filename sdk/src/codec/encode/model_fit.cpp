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
#include "codec/encode/fit_arith.hpp"
#include "codec/encode/fit_choice.hpp"
#include "codec/encode/minimax_line.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "codec/predictor.hpp"
#include "common/cpu_variants.hpp"

namespace l3::internal {
namespace {

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

// ---------------------------------------------------------------------------
// Least squares (the basis, the per-row terms and the coefficients are in
// fit_arith.hpp, shared with the CUDA writer)

// The least-squares and error passes work on the 32 lanes of the lane order
// (fit_arith.hpp) four at a time, as GCC vector-extension doubles (two SSE2
// or NEON registers, one AVX2 register in the AVX2 and AVX-512 variants of
// L3_CPU_VARIANTS). Each vector lane performs exactly the scalar operations
// of GramTermsAt / GramErrorsAt, so every variant gives the same sums.
using Vec2 = double __attribute__((vector_size(16)));
using Vec4 = double __attribute__((vector_size(32)));

inline Vec2 Min2(Vec2 a, Vec2 b) { return a < b ? a : b; }
inline Vec2 Max2(Vec2 a, Vec2 b) { return a > b ? a : b; }

template <typename T>
inline double AsDouble(T v) {
  return FitValue(v);
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

// Vec4 values stay inside the functions that use them (passed by pointer):
// a Vec4 argument or result would have a different ABI in each variant.
template <typename T>
inline void Load4(const T* v, Vec4* out) {
  *out = __builtin_shufflevector(Load2(v), Load2(v + 2), 0, 1, 2, 3);
}

// The sums m_k = sum_x y(x) Q_k(s(x)), y = v - v[0], in the lane order, and
// the coefficients c_k = m_k / <Q_k, Q_k>.
template <typename T>
L3_CPU_VARIANTS GramFit LeastSquares(const T* v, uint32_t n, const GramBasis& b) {
  constexpr uint32_t kQuads = kLanes / 4;
  GramFit f;
  f.ref = AsDouble(v[0]);
  Vec4 acc[4][kQuads];
  for (auto& moment : acc) {
    for (Vec4& quad : moment) quad = Vec4{0, 0, 0, 0};
  }
  const uint32_t full = n / kLanes * kLanes;
  for (uint32_t x = 0; x < full; x += kLanes) {
    const double t0 = static_cast<double>(x) - b.h;  // x - h, exact
    for (uint32_t j = 0; j < kQuads; ++j) {
      const double lane = 4.0 * j;
      const Vec4 t = Vec4{t0, t0, t0, t0} + Vec4{lane, lane + 1, lane + 2, lane + 3};  // exact
      Vec4 y;
      Load4(v + x + 4 * j, &y);
      y -= f.ref;
      const Vec4 s = t * b.inv_h;
      const Vec4 s2 = s * s;
      acc[0][j] += y;
      acc[1][j] += y * s;
      acc[2][j] += y * (s2 - b.k2);
      acc[3][j] += y * (s * (s2 - b.k3));
    }
  }
  double lanes[4][kLanes];
  for (int k = 0; k < 4; ++k) {
    for (uint32_t j = 0; j < kQuads; ++j) {
      for (uint32_t i = 0; i < 4; ++i) lanes[k][4 * j + i] = acc[k][j][i];
    }
  }
  for (uint32_t x = full; x < n; ++x) {
    const GramTerms g =
        GramTermsAt(DSub(AsDouble(v[x]), f.ref), static_cast<double>(x) - b.h, b);
    double* lane = &lanes[0][x - full];
    lane[0 * kLanes] += g.q0;
    lane[1 * kLanes] += g.q1;
    lane[2 * kLanes] += g.q2;
    lane[3 * kLanes] += g.q3;
  }
  double m[4];
  for (int k = 0; k < 4; ++k) m[k] = ReduceLanes(lanes[k]);
  GramCoefficients(b, m, &f);
  return f;
}

template <typename T>
L3_CPU_VARIANTS void MeasureErrors(const T* v, uint32_t n, const GramBasis& b, const GramFit& f,
                                   ErrorRange out[4]) {
  const double inf = std::numeric_limits<double>::infinity();
  Vec4 lo[4], hi[4];
  for (int d = 1; d <= 3; ++d) {
    lo[d] = Vec4{inf, inf, inf, inf};
    hi[d] = Vec4{-inf, -inf, -inf, -inf};
  }
  Vec4 t = Vec4{0, 1, 2, 3} - b.h;
  const uint32_t full = n & ~3u;
  for (uint32_t x = 0; x < full; x += 4, t += 4.0) {
    const Vec4 s = t * b.inv_h;
    const Vec4 s2 = s * s;
    Vec4 value;
    Load4(v + x, &value);
    const Vec4 e1 = ((value - f.ref) - f.c[0]) - f.c[1] * s;
    const Vec4 e2 = e1 - f.c[2] * (s2 - b.k2);
    const Vec4 e3 = e2 - f.c[3] * (s * (s2 - b.k3));
    lo[1] = lo[1] < e1 ? lo[1] : e1;
    hi[1] = hi[1] > e1 ? hi[1] : e1;
    lo[2] = lo[2] < e2 ? lo[2] : e2;
    hi[2] = hi[2] > e2 ? hi[2] : e2;
    lo[3] = lo[3] < e3 ? lo[3] : e3;
    hi[3] = hi[3] > e3 ? hi[3] : e3;
  }
  double low[4], high[4];
  for (int d = 1; d <= 3; ++d) {
    low[d] = std::min(std::min(lo[d][0], lo[d][1]), std::min(lo[d][2], lo[d][3]));
    high[d] = std::max(std::max(hi[d][0], hi[d][1]), std::max(hi[d][2], hi[d][3]));
  }
  for (uint32_t x = full; x < n; ++x) {
    const GramErrors g = GramErrorsAt(AsDouble(v[x]), static_cast<double>(x) - b.h, b, f);
    const double e[4] = {0, g.e1, g.e2, g.e3};
    for (int d = 1; d <= 3; ++d) {
      low[d] = std::min(low[d], e[d]);
      high[d] = std::max(high[d], e[d]);
    }
  }
  for (int d = 1; d <= 3; ++d) out[d] = {PositiveZero(low[d]), PositiveZero(high[d])};
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
  return CandidateOfLine(FitMinimaxLineOfHulls(v, n, min, max, *hulls));
}

// ---------------------------------------------------------------------------
// Exact residuals (spec §8.4, §8.8 rule 1)

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
        if constexpr (kModel != kLinearModel) d1[j] = d1[j] + d2[j];
        if constexpr (kModel == kPoly3Model) d2[j] = d2[j] + d3[j];
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
    case kLinearModel: return ScanModel<kLinearModel>(v, n, theta, values_per_lane);
    case kPoly2Model: return ScanModel<kPoly2Model>(v, n, theta, values_per_lane);
    default: return ScanModel<kPoly3Model>(v, n, theta, values_per_lane);
  }
}

// The passes of ChooseModel (fit_choice.hpp) over a partition in host memory.
template <typename T>
struct CpuPasses {
  const T* v;
  uint32_t n;
  uint32_t values_per_lane;
  HullSources hulls;
  /// The partition's extremes, where PATCHED_FOR may be tried: DELTA's pass
  /// then also counts the values for its lower bound.
  const Summary<T>* summary = nullptr;
  PatchedForBuckets<T> buckets;

  PartitionFit Delta(uint64_t cost_limit, bool allow_signed) {
    if (summary == nullptr) return DeltaFit(v, n, values_per_lane, cost_limit, allow_signed);
    buckets.Reset(summary->min, summary->max);
    const PartitionFit fit = DeltaFit(v, n, values_per_lane, cost_limit, allow_signed,
                                      [this](T value) { buckets.Add(value); });
    buckets.filled = n > 1;
    return fit;
  }
  PartitionFit PatchedFor(const Summary<T>& s, uint64_t cost_limit, bool allow_signed,
                          bool allow_rows_ef) {
    return PatchedForFit(v, n, s.min, s.max, cost_limit, &buckets, allow_signed, allow_rows_ef);
  }
  GramFit LeastSquares(const GramBasis& basis) { return internal::LeastSquares(v, n, basis); }
  void MeasureErrors(const GramBasis& basis, const GramFit& gram, ErrorRange out[4]) {
    internal::MeasureErrors(v, n, basis, gram, out);
  }
  Candidate Minimax(const Summary<T>& summary) { return MinimaxCandidate(v, n, summary, hulls); }
  ResidualRange Scan(uint8_t model_type, const double* theta) {
    return ScanResidualsOf(model_type, v, n, theta, values_per_lane);
  }
};

}  // namespace

template <typename T>
PartitionFit FitBestModelWithSummary(const T* v, uint32_t n, const Summary<T>& summary,
                                     const FitOptions& options, const HullSources& hulls,
                                     PartitionFit* without_patched_for) {
  if (hulls.out != nullptr) hulls.out->valid = false;
  // DELTA's pass counts the values for PATCHED_FOR's bound only where
  // PATCHED_FOR may be tried.
  CpuPasses<T> passes{v, n, options.values_per_lane, hulls,
                      options.enable_patched_for ? &summary : nullptr, {}};
  return ChooseModel(passes, summary, n, options, without_patched_for);
}

template <typename T>
PartitionFit FitBestModel(const T* v, uint32_t n, const FitOptions& options,
                          PartitionHulls* hulls, PartitionFit* without_patched_for) {
  HullSources sources;
  sources.out = hulls;
  return FitBestModelWithSummary(v, n, Summarize(v, n), options, sources, without_patched_for);
}

template <typename T>
PartitionFit FitBestModelOfUnion(const T* v, const PartitionFit& left, const PartitionFit& right,
                                 const FitOptions& options, const PartitionHulls* left_hulls,
                                 const PartitionHulls* right_hulls, PartitionHulls* hulls,
                                 PartitionFit* without_patched_for) {
  const HullSources sources{left_hulls, right_hulls, left.num_rows, hulls};
  return FitBestModelWithSummary(v, left.num_rows + right.num_rows,
                                 SummaryOfUnion(v, left, right), options, sources,
                                 without_patched_for);
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
    case Model::kPatchedFor:
      *fit = PatchedForFit<T>(v, n, summary.min, summary.max, kNoDeltaCostLimit, nullptr,
                              options.signed_exception_highs, options.patched_rows_ef);
      break;
    case Model::kDelta:
      if (options.delta_order < 1 || options.delta_order > kMaxDeltaOrder ||
          (options.delta_order > 1 && (n <= options.delta_order ||
                                       options.delta_without_exceptions))) {
        return Status(StatusCode::kInvalidArgument,
                      "a DELTA order K is 1 to 3, and K > 1 needs more than K rows and "
                      "allows exceptions (spec §8.9)");
      }
      if (options.delta_order > 1) {
        *fit = DeltaOrderFit(v, n, values_per_lane, options.delta_order,
                             options.signed_exception_highs);
      } else {
        *fit = options.delta_without_exceptions
                   ? WholeDeltaFit(v, n, values_per_lane)
                   : DeltaFit(v, n, values_per_lane, kNoDeltaCostLimit,
                              options.signed_exception_highs);
      }
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
        double given[4] = {theta[0], theta[1], theta[2], theta[3]};
        for (int k = static_cast<int>(ParamCount(model_type, 0)); k < 4; ++k) given[k] = 0;
        if (!AllFinite(given)) {
          return Status(StatusCode::kInvalidArgument, "theta must be finite (spec §8.2)");
        }
        const ResidualRange range = ScanResidualsOf(model_type, v, n, given, values_per_lane);
        *fit = PredictedFit(model_type, given, ResidualWidth(range), n);
        break;
      }
      CpuPasses<T> passes{v, n, values_per_lane, HullSources{}, nullptr, {}};
      const GramBasis basis = MakeGramBasis(n);
      const GramFit gram = passes.LeastSquares(basis);
      ErrorRange errors[4];
      passes.MeasureErrors(basis, gram, errors);
      const bool minimax = model == Model::kLinear && options.minimax_lines &&
                           DSub(errors[1].hi, errors[1].lo) < kMinimaxSpread;
      const Candidate candidate =
          minimax ? passes.Minimax(summary)
                  : LeastSquaresCandidate(basis, gram, model_type, errors[model_type - 1]);
      const double slack = PredictionSlack(AsDouble(summary.min), AsDouble(summary.max),
                                           candidate, n, values_per_lane);
      if (!TryPredicted<T>(passes, n, candidate, slack,
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
  CpuPasses<T> passes{v, n, 64, HullSources{}, nullptr, {}};
  return AnalysisWidthOf(passes, Summarize(v, n), n, use_linear);
}

#define L3_INSTANTIATE_FIT(T)                                                                \
  template PartitionFit FitBestModel<T>(const T*, uint32_t, const FitOptions&,              \
                                        PartitionHulls*, PartitionFit*);                    \
  template PartitionFit FitBestModelOfUnion<T>(const T*, const PartitionFit&,                \
                                               const PartitionFit&, const FitOptions&,      \
                                               const PartitionHulls*, const PartitionHulls*, \
                                               PartitionHulls*, PartitionFit*);             \
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
