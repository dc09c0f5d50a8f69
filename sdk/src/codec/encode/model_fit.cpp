// Model fitting for one partition (spec §8.1–§8.4, §8.8).
//
// Per candidate the fitter makes three kinds of passes over the values:
//  1. a summary: minimum, maximum and run count (CONSTANT, runs, FOR_BITPACK
//     and spec §8.8 rule 3 need nothing else);
//  2. least squares for the line and both polynomials at once, followed by
//     one pass that measures the real-valued residual range of each fit;
//  3. for each predicted model that can still win, a run of the canonical
//     predictor (spec §8.4) that yields the exact integer residual range, and
//     hence the Bit_Width, of the parameters that will be written.
// The real-valued range serves to centre Theta_0 and to skip the exact run of
// models whose width cannot beat the best model found so far.
#include "codec/encode/model_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

template <typename T>
struct Summary {
  T min;
  T max;
  uint64_t runs;  // 1 + number of rows x >= 1 with v[x] != v[x - 1]
};

template <typename T>
Summary<T> Summarize(const T* v, uint32_t n) {
  T lo = v[0];
  T hi = v[0];
  uint64_t changes = 0;
  for (uint32_t x = 1; x < n; ++x) {
    lo = std::min(lo, v[x]);
    hi = std::max(hi, v[x]);
    changes += v[x] != v[x - 1] ? 1 : 0;
  }
  return {lo, hi, changes + 1};
}

template <typename T>
void SetBounds(const Summary<T>& s, uint32_t n, PartitionFit* fit) {
  fit->num_rows = n;
  fit->min_value = ValueTraits<T>::Canonical(s.min);
  fit->max_value = ValueTraits<T>::Canonical(s.max);
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

template <typename T>
GramFit LeastSquares(const T* v, uint32_t n, const GramBasis& b) {
  GramFit f;
  f.ref = static_cast<double>(v[0]);
  double m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  for (uint32_t x = 0; x < n; ++x) {
    const double s = (static_cast<double>(x) - b.h) * b.inv_h;
    const double s2 = s * s;
    const double y = static_cast<double>(v[x]) - f.ref;
    m0 += y;
    m1 += y * s;
    m2 += y * (s2 - b.k2);
    m3 += y * (s * (s2 - b.k3));
  }
  const double m[4] = {m0, m1, m2, m3};
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
  double lo1 = std::numeric_limits<double>::infinity(), hi1 = -lo1;
  double lo2 = lo1, hi2 = hi1, lo3 = lo1, hi3 = hi1;
  for (uint32_t x = 0; x < n; ++x) {
    const double s = (static_cast<double>(x) - b.h) * b.inv_h;
    const double s2 = s * s;
    const double y = static_cast<double>(v[x]) - f.ref;
    const double e1 = (y - f.c[0]) - f.c[1] * s;
    const double e2 = e1 - f.c[2] * (s2 - b.k2);
    const double e3 = e2 - f.c[3] * (s * (s2 - b.k3));
    lo1 = std::min(lo1, e1);
    hi1 = std::max(hi1, e1);
    lo2 = std::min(lo2, e2);
    hi2 = std::max(hi2, e2);
    lo3 = std::min(lo3, e3);
    hi3 = std::max(hi3, e3);
  }
  out[1] = {lo1, hi1};
  out[2] = {lo2, hi2};
  out[3] = {lo3, hi3};
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

// Theta_0..Theta_3 of the degree-`degree` fit in the local row index x
// (spec §8.2, §8.4), with `shift` added to Theta_0. Substitutes
// s = x / h - 1 into the power form; long double keeps the alternating sums
// accurate.
std::array<double, 4> ToTheta(const GramBasis& b, const GramFit& f, int degree, long double shift) {
  long double a[4];
  PowerCoefficients(b, f, degree, a);
  long double theta[4] = {a[0], 0, 0, 0};
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
      theta[i] = sum * scale;
      scale *= inv_h;
    }
  }
  theta[0] += static_cast<long double>(f.ref) + shift;
  return {static_cast<double>(theta[0]), static_cast<double>(theta[1]),
          static_cast<double>(theta[2]), static_cast<double>(theta[3])};
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

template <typename T>
ResidualRange ScanResidualsOf(uint8_t model_type, const T* v, uint32_t n, const double* theta,
                              uint32_t values_per_lane) {
  switch (model_type) {
    case kLinearType: return ScanResiduals<kLinearType>(v, n, theta, values_per_lane);
    case kPoly2Type: return ScanResiduals<kPoly2Type>(v, n, theta, values_per_lane);
    default: return ScanResiduals<kPoly3Type>(v, n, theta, values_per_lane);
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

// Fits LINEAR (degree 1), POLY2 or POLY3 and stores it in *fit when it costs
// less than `cost_limit` bytes. `error` is the real-valued residual range of
// the least-squares fit.
//
// Rounding: the written residual is r = v - round(p(x) + delta) when Theta_0
// is moved by delta. If the real residuals e = v - p span E = hi - lo, then
// with delta = mid(e) + 1/2 every e - delta lies in [-E/2 - 1/2, E/2 - 1/2],
// centred on -1/2 like the two's complement interval [-2^(w-1), 2^(w-1) - 1],
// so r needs w bits as soon as E < 2^w; with delta = mid(e) and E < 1 every
// r is 0. Conversely any shift leaves hi(r) - lo(r) >= E - 1, so no Theta_0
// gives fewer than ceil(log2(E)) bits: that bound skips hopeless exact runs.
// `slack` covers the difference between the canonical predictor and p.
template <typename T>
bool TryPredicted(const T* v, uint32_t n, uint32_t values_per_lane, uint8_t model_type,
                  const GramBasis& basis, const GramFit& gram, const ErrorRange& error,
                  double slack, double cost_limit, PartitionFit* fit) {
  const int degree = model_type - 1;
  const uint64_t params = ParamCount(model_type, 0);
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

  const long double mid = (static_cast<long double>(error.lo) + error.hi) / 2;
  const long double delta = spread + 2 * slack < 1 ? mid : mid + 0.5L;
  std::array<double, 4> theta = ToTheta(basis, gram, degree, delta);
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
// magnitude involved per finite-difference step.
template <typename T>
double PredictionSlack(const Summary<T>& s, const GramFit& gram, uint32_t values_per_lane) {
  const double magnitude = std::max(std::fabs(static_cast<double>(s.min)),
                                    std::fabs(static_cast<double>(s.max))) +
                           4 * (std::fabs(gram.c[0]) + std::fabs(gram.c[1]) +
                                std::fabs(gram.c[2]) + std::fabs(gram.c[3])) +
                           1;
  return std::ldexp(magnitude, -51) * (values_per_lane + 16);
}

}  // namespace

template <typename T>
PartitionFit FitBestModel(const T* v, uint32_t n, const FitOptions& options) {
  const Summary<T> summary = Summarize(v, n);
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
  const bool predictable = ValueTraits<T>::Predictable(summary.min) &&
                           ValueTraits<T>::Predictable(summary.max);
  const bool try_poly2 = options.enable_poly2 && n >= kMinPoly2Rows;
  const bool try_poly3 = options.enable_poly3 && n >= kMinPoly3Rows;
  if (predictable && (options.enable_linear || try_poly2 || try_poly3)) {
    const GramBasis basis = MakeGramBasis(n);
    const GramFit gram = LeastSquares(v, n, basis);
    ErrorRange errors[4];
    MeasureErrors(v, n, basis, gram, errors);
    const double slack = PredictionSlack(summary, gram, options.values_per_lane);
    const uint32_t lanes = options.values_per_lane;
    PartitionFit candidate;
    if (options.enable_linear &&
        TryPredicted(v, n, lanes, kLinearType, basis, gram, errors[1], slack,
                     static_cast<double>(best.cost_bytes), &candidate)) {
      best = candidate;
    }
    const double keep = 1.0 - options.poly_min_gain;
    if (try_poly2 && TryPredicted(v, n, lanes, kPoly2Type, basis, gram, errors[2], slack,
                                  static_cast<double>(best.cost_bytes) * keep, &candidate)) {
      best = candidate;
    }
    if (try_poly3 && TryPredicted(v, n, lanes, kPoly3Type, basis, gram, errors[3], slack,
                                  static_cast<double>(best.cost_bytes) * keep, &candidate)) {
      best = candidate;
    }
  }
  SetBounds(summary, n, &best);
  return best;
}

template <typename T>
Status FitGivenModel(const T* v, uint32_t n, Model model, const double* theta,
                     uint32_t values_per_lane, PartitionFit* fit) {
  const Summary<T> summary = Summarize(v, n);
  const auto model_type = static_cast<uint8_t>(model);
  switch (model) {
    case Model::kConstant:
      *fit = summary.min == summary.max ? ConstantFit(summary) : RunsFit(summary, n);
      break;
    case Model::kFor:
      *fit = ForFit(summary, n);
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
      const double slack = PredictionSlack(summary, gram, values_per_lane);
      if (!TryPredicted(v, n, values_per_lane, model_type, basis, gram, errors[model_type - 1],
                        slack, std::numeric_limits<double>::infinity(), fit)) {
        return Status(StatusCode::kInternal, "least-squares fit produced non-finite parameters");
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
  template PartitionFit FitBestModel<T>(const T*, uint32_t, const FitOptions&);             \
  template Status FitGivenModel<T>(const T*, uint32_t, Model, const double*, uint32_t,      \
                                   PartitionFit*);                                          \
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
