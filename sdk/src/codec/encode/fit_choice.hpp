// The choice of a partition's model by cost (spec §14.3), written once for
// the CPU writer (model_fit.cpp) and the CUDA writer (fit_partition.cuh).
//
// ChooseModel takes the partition's summary and a `passes` object that does
// the work over the rows; everything it decides from their results is here,
// in the arithmetic of fit_arith.hpp, so both writers decide alike. On the
// device every lane of a warp runs ChooseModel with the same arguments and
// the passes are warp-collective.
//
// A Passes type provides:
//   PartitionFit Delta(uint64_t cost_limit);   // the DELTA fit (spec §8.9)
//   PartitionFit PatchedFor(const Summary<T>&, uint64_t cost_limit);
//     // the PATCHED_FOR fit (§8.12); may give up (cost ~0) where a lower
//     // bound shows it cannot cost less than cost_limit
//   GramFit LeastSquares(const GramBasis&);     // lane-order sums
//   void MeasureErrors(const GramBasis&, const GramFit&, ErrorRange out[4]);
//   Candidate Minimax(const Summary<T>&);       // the minimax line
//   ResidualRange Scan(uint8_t model_type, const double* theta);
//     // the canonical predictor's exact residual range (spec §8.4, §8.8)
#pragma once

#include <cstdint>

#include "codec/encode/fit_arith.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {

// Below these sizes a polynomial's extra parameter words almost never pay for
// themselves, so the automatic choice does not try it (an explicit choice
// through FitGivenModel still may).
inline constexpr uint32_t kMinPoly2Rows = 16;
inline constexpr uint32_t kMinPoly3Rows = 32;

// With FitOptions::minimax_lines, the least-squares line's residual spread
// below which LINEAR uses the minimax line instead (see ChooseModel).
inline constexpr double kMinimaxSpread = 16;

inline constexpr uint8_t kLinearModel = static_cast<uint8_t>(Model::kLinear);
inline constexpr uint8_t kPoly2Model = static_cast<uint8_t>(Model::kPoly2);
inline constexpr uint8_t kPoly3Model = static_cast<uint8_t>(Model::kPoly3);

template <typename T>
struct Summary {
  T min;
  T max;
  uint64_t runs;  // 1 + number of rows x >= 1 with v[x] != v[x - 1]
};

// The summary of the union of two neighbouring partitions, v[0, n) with
// n = left.num_rows + right.num_rows, from their fits (whose bounds are
// canonical extensions, so the low bits are the values): what Summarize
// would give, from two rows instead of n (CPU and CUDA partitioners).
template <typename T>
L3_HD Summary<T> SummaryOfUnion(const T* v, const PartitionFit& left, const PartitionFit& right) {
  const T left_min = static_cast<T>(left.min_value), right_min = static_cast<T>(right.min_value);
  const T left_max = static_cast<T>(left.max_value), right_max = static_cast<T>(right.max_value);
  const uint32_t boundary = left.num_rows;
  const uint64_t joined = v[boundary] == v[boundary - 1] ? 1 : 0;  // one run across the boundary
  return {left_min < right_min ? left_min : right_min, left_max > right_max ? left_max : right_max,
          left.value_runs + right.value_runs - joined};
}

template <typename T>
L3_HD void SetBounds(const Summary<T>& s, uint32_t n, PartitionFit* fit) {
  fit->num_rows = n;
  fit->min_value = ValueTraits<T>::Canonical(s.min);
  fit->max_value = ValueTraits<T>::Canonical(s.max);
  fit->value_runs = s.runs;
}

template <typename T>
L3_HD PartitionFit ConstantFit(const Summary<T>& s) {
  PartitionFit fit;
  fit.model_type = static_cast<uint8_t>(Model::kConstant);
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.cost_bytes = PartitionCost(fit.model_type, 0, 0);
  return fit;
}

// spec §8.8 rule 2: Base = minimum, Bit_Width = bitlen(max - min).
template <typename T>
L3_HD PartitionFit ForFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit;
  fit.model_type = static_cast<uint8_t>(Model::kFor);
  fit.bit_width = static_cast<uint8_t>(BitLength(ValueTraits<T>::Offset(s.max, s.min)));
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.payload_words = SlapPayloadWords(n, fit.bit_width);
  fit.cost_bytes = PartitionCost(fit.model_type, fit.bit_width, fit.payload_words);
  return fit;
}

// spec §8.7, §8.8 rule 2: the minimum run value is the minimum value. Only
// for partitions with at least two distinct values (then Bit_Width >= 1).
template <typename T>
L3_HD PartitionFit RunsFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit;
  fit.model_type = static_cast<uint8_t>(Model::kConstant);
  fit.bit_width = static_cast<uint8_t>(BitLength(ValueTraits<T>::Offset(s.max, s.min)));
  fit.base = ValueTraits<T>::Canonical(s.min);
  fit.num_runs = s.runs;
  fit.payload_words = RunPayloadWords(n, fit.bit_width, s.runs);
  fit.cost_bytes = PartitionCost(fit.model_type, fit.bit_width, fit.payload_words);
  return fit;
}

// spec §8.11: the runs of RunsFit with Elias-Fano run starts. Only where
// RunsEfParamsValid holds (at least two runs, at most 65536 rows).
template <typename T>
L3_HD PartitionFit RunsEfFit(const Summary<T>& s, uint32_t n) {
  PartitionFit fit = RunsFit(s, n);
  fit.model_type = static_cast<uint8_t>(Model::kRunsEf);
  fit.payload_words = RunsEfPayloadWords(n, s.runs, fit.bit_width);
  fit.cost_bytes = PartitionCost(fit.model_type, fit.bit_width, fit.payload_words);
  return fit;
}

/// The minimax line as a LINEAR Candidate, its strip centred on 0.
L3_HD Candidate CandidateOfLine(const MinimaxLine& line) {
  Candidate c;
  c.model_type = kLinearModel;
  c.theta[0] = line.intercept;
  c.theta[1] = line.slope;
  c.error = {DDiv(-line.spread, 2.0), DDiv(line.spread, 2.0)};
  return c;
}

/// The exact residual range of a predicted model (spec §8.8 rule 1).
struct ResidualRange {
  int64_t lo = INT64_MAX;
  int64_t hi = INT64_MIN;
};

// spec §8.8 rule 1: the smallest w with every residual in
// [-2^(w-1), 2^(w-1) - 1].
L3_HD uint32_t ResidualWidth(const ResidualRange& r) {
  const uint32_t lo = SignedWidth(r.lo), hi = SignedWidth(r.hi);
  return lo > hi ? lo : hi;
}

// The width the residuals would need after the best integer shift.
L3_HD uint32_t SpanWidth(const ResidualRange& r) {
  return BitLength(static_cast<uint64_t>(r.hi) - static_cast<uint64_t>(r.lo));
}

L3_HD bool AllFinite(const double* theta) {
  for (int i = 0; i < 4; ++i) {
    if (!IsFinite(theta[i])) return false;
  }
  return true;
}

L3_HD PartitionFit PredictedFit(uint8_t model_type, const double* theta, uint32_t width,
                                uint32_t n) {
  PartitionFit fit;
  fit.model_type = model_type;
  fit.bit_width = static_cast<uint8_t>(width);
  const int params = static_cast<int>(ParamCount(model_type, 0));
  for (int k = 0; k < 4; ++k) fit.theta[k] = k < params ? theta[k] : 0.0;
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
template <typename T, typename Passes>
L3_HD bool TryPredicted(Passes& passes, uint32_t n, const Candidate& candidate, double slack,
                        double cost_limit, PartitionFit* fit) {
  const uint8_t model_type = candidate.model_type;
  const uint64_t params = ParamCount(model_type, 0);
  if (!IsFinite(DSub(candidate.error.hi, candidate.error.lo))) return false;
  const auto cost_of = [&](uint32_t w) {
    return static_cast<double>(kPartitionRecordBytes + 8 * params + 8 * SlapPayloadWords(n, w));
  };
  const uint32_t lower_bound = WidthLowerBound(candidate, slack, ValueTraits<T>::kBits);
  if (!(cost_of(lower_bound) < cost_limit)) return false;

  // Aim for width 0 whenever the spread allows it; if rounding spoils that,
  // the residuals span at most 2 values and the integer shift below still
  // reaches width 1.
  double theta[4] = {CentredTheta0(candidate), candidate.theta[1], candidate.theta[2],
                     candidate.theta[3]};
  if (!AllFinite(theta)) return false;
  const ResidualRange range = passes.Scan(model_type, theta);
  uint32_t width = ResidualWidth(range);

  // When rounding made the residuals lopsided, an integer shift of Theta_0
  // recentres them (almost always exactly, since it moves every prediction
  // by the same integer); keep it only if the canonical run confirms it.
  const uint32_t span_width = SpanWidth(range);
  if (span_width < width) {
    const int64_t shift = span_width == 0 ? range.lo : range.lo + (int64_t{1} << (span_width - 1));
    const double shifted[4] = {DAdd(theta[0], static_cast<double>(shift)), theta[1], theta[2],
                               theta[3]};
    if (AllFinite(shifted)) {
      const uint32_t shifted_width = ResidualWidth(passes.Scan(model_type, shifted));
      if (shifted_width < width) {
        theta[0] = shifted[0];
        width = shifted_width;
      }
    }
  }
  if (!(cost_of(width) < cost_limit)) return false;
  *fit = PredictedFit(model_type, theta, width, n);
  return true;
}

/// The predicted models' part of ChooseModel: LINEAR, then POLY2 and POLY3,
/// each replacing *best as ChooseModel says.
template <typename T, typename Passes>
L3_HD void ChoosePredicted(Passes& passes, const Summary<T>& summary, uint32_t n,
                           const FitOptions& options, bool try_poly2, bool try_poly3,
                           PartitionFit* best_fit) {
  PartitionFit& best = *best_fit;
  const uint32_t lanes = options.values_per_lane;
  const double lo = FitValue(summary.min), hi = FitValue(summary.max);
  const GramBasis basis = MakeGramBasis(n);
  const GramFit gram = passes.LeastSquares(basis);
  ErrorRange errors[4];
  passes.MeasureErrors(basis, gram, errors);
  PartitionFit candidate_fit;
  if (options.enable_linear) {
    // The minimax line has the narrowest residual strip of all lines, but it
    // rarely saves more than a bit over least squares, which matters only for
    // narrow residuals (a quantised line: width 0 instead of 1 at any
    // length), and its convex hulls cost as much as the rest of the fit.
    const bool minimax = options.minimax_lines && DSub(errors[1].hi, errors[1].lo) < kMinimaxSpread;
    const Candidate line = minimax ? passes.Minimax(summary)
                                   : LeastSquaresCandidate(basis, gram, kLinearModel, errors[1]);
    if (TryPredicted<T>(passes, n, line, PredictionSlack(lo, hi, line, n, lanes),
                        static_cast<double>(best.cost_bytes), &candidate_fit)) {
      best = candidate_fit;
    }
  }
  const double keep = DSub(1.0, options.poly_min_gain);
  for (uint8_t model_type = kPoly2Model; model_type <= kPoly3Model; ++model_type) {
    if (!(model_type == kPoly2Model ? try_poly2 : try_poly3)) continue;
    const Candidate poly = LeastSquaresCandidate(basis, gram, model_type, errors[model_type - 1]);
    if (TryPredicted<T>(passes, n, poly, PredictionSlack(lo, hi, poly, n, lanes),
                        DMul(static_cast<double>(best.cost_bytes), keep), &candidate_fit)) {
      best = candidate_fit;
    }
  }
}

/// Fits every enabled model to the partition the passes read (n >= 1 rows,
/// summarised by `summary`) and returns the cheapest: ties go to the model
/// with fewer parameters, then the lower Model_Type; RUNS_EF must beat the
/// others by runs_ef_min_gain, POLY2/POLY3 every simpler model by
/// poly_min_gain. With `without_patched_for`, also stores there the fit
/// ChooseModel returns with options.enable_patched_for false: PATCHED_FOR is
/// tried last, after every choice that fit depends on (fit_memo.hpp).
template <typename T, typename Passes>
L3_HD PartitionFit ChooseModel(Passes& passes, const Summary<T>& summary, uint32_t n,
                               const FitOptions& options,
                               PartitionFit* without_patched_for = nullptr) {
  PartitionFit best;
  if (summary.min == summary.max) {
    best = ConstantFit(summary);
    SetBounds(summary, n, &best);
    if (without_patched_for != nullptr) *without_patched_for = best;
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
        DMul(static_cast<double>(best.cost_bytes), DSub(1.0, options.runs_ef_min_gain))) {
      best = runs;
    }
  }
  if (options.enable_delta) {
    // Skipped where no DELTA fit can be strictly cheaper.
    const PartitionFit delta = passes.Delta(best.cost_bytes, options.signed_exception_highs);
    if (delta.cost_bytes < best.cost_bytes) best = delta;
  }
  const bool predictable =
      ValueTraits<T>::Predictable(summary.min) && ValueTraits<T>::Predictable(summary.max);
  const bool try_poly2 = options.enable_poly2 && n >= kMinPoly2Rows;
  const bool try_poly3 = options.enable_poly3 && n >= kMinPoly3Rows;
  if (predictable && (options.enable_linear || try_poly2 || try_poly3)) {
    ChoosePredicted<T>(passes, summary, n, options, try_poly2, try_poly3, &best);
  }
  if (without_patched_for != nullptr) {
    *without_patched_for = best;
    SetBounds(summary, n, without_patched_for);
  }
  // PATCHED_FOR last, and not where a line or polynomial won: there the
  // values drift and their offsets from any Base are wide. Without
  // exceptions it costs FOR_BITPACK's bytes and one word more, so it wins
  // only with some (over DELTA too: a few outliers among steady values).
  if (options.enable_patched_for && !IsPredictedModel(best.model_type)) {
    const PartitionFit patched =
        passes.PatchedFor(summary, best.cost_bytes, options.signed_exception_highs,
                          options.patched_rows_ef);
    if (patched.cost_bytes < best.cost_bytes) best = patched;
  }
  SetBounds(summary, n, &best);
  return best;
}


/// The partitioner's delta-bits estimate of a block (spec §14): the width a
/// centred least-squares line would need, or the FOR width where a line is
/// not allowed (spec §8.8 rule 3) or not wanted.
template <typename T, typename Passes>
L3_HD uint32_t AnalysisWidthOf(Passes& passes, const Summary<T>& summary, uint32_t n,
                               bool use_linear) {
  const uint32_t for_width = BitLength(ValueTraits<T>::Offset(summary.max, summary.min));
  if (!use_linear || summary.min == summary.max || !ValueTraits<T>::Predictable(summary.min) ||
      !ValueTraits<T>::Predictable(summary.max)) {
    return for_width;
  }
  const GramBasis basis = MakeGramBasis(n);
  const GramFit gram = passes.LeastSquares(basis);
  ErrorRange errors[4];
  passes.MeasureErrors(basis, gram, errors);
  const double spread = DSub(errors[1].hi, errors[1].lo);
  // The width a centred line would need (see TryPredicted).
  if (!(spread >= 1.0)) return 0;
  const uint32_t bits = static_cast<uint32_t>(FloorLog2(spread)) + 1;
  return bits < ValueTraits<T>::kBits ? bits : ValueTraits<T>::kBits;
}

/// The merge rule of the partitioner's odd-even rounds (spec §14), shared by
/// the CPU and CUDA partitioners: neighbours a and b (in row order).
enum class MergeVerdict : uint8_t { kSkipped, kRejected, kMerged };

/// A single value stays one CONSTANT partition however long it runs.
L3_HD bool MergesAsOneValue(const PartitionFit& a, const PartitionFit& b) {
  return a.is_single_value() && b.is_single_value() && a.base == b.base;
}

/// Whether the refitted union is worth it: it must cost less than `keep`
/// (1 - min_merge_benefit) times the pair apart.
L3_HD bool UnionSaves(const PartitionFit& merged, const PartitionFit& a, const PartitionFit& b,
                      double keep) {
  return static_cast<double>(merged.cost_bytes) <
         DMul(static_cast<double>(a.cost_bytes + b.cost_bytes), keep);
}

}  // namespace l3::internal
