// Fitting the models of spec §8.1 to one partition and choosing the cheapest.
//
// Every Bit_Width this module reports for LINEAR, POLY2 and POLY3 comes from a
// run of the canonical predictor (spec §8.4) over the exact residuals the
// writer emits (spec §8.8 rule 1); least squares only proposes parameters.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "codec/encode/minimax_line.hpp"
#include "codec/predictor.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

/// Which models the fitter may choose and how it trades them (spec §14).
struct FitOptions {
  uint32_t values_per_lane = 64;
  bool enable_rle = true;
  bool enable_delta = true;  ///< DELTA (spec §8.9, format 1.1)
  bool enable_runs_ef = true;  ///< RUNS_EF (spec §8.11, format 1.1)
  bool enable_patched_for = true;  ///< PATCHED_FOR (spec §8.12, format 1.1)
  /// RUNS_EF must cost less than (1 - runs_ef_min_gain) times the best
  /// other model.
  double runs_ef_min_gain = 0;
  bool enable_linear = true;
  bool enable_poly2 = true;
  bool enable_poly3 = true;
  /// A polynomial must cost less than (1 - poly_min_gain) times the best
  /// simpler model.
  double poly_min_gain = 0.05;
  /// LINEAR uses the minimax line where the least-squares line's residuals
  /// are narrow (see FitBestModel); slower, narrower.
  bool minimax_lines = false;
  /// FitGivenModel's DELTA: a Bit_Width that holds every delta (no
  /// exceptions; see WholeDeltaFit) instead of the cheapest one.
  bool delta_without_exceptions = false;
  /// FitGivenModel's DELTA: the order K (spec §8.9), 1 to 3; K > 1 needs
  /// more than K rows.
  uint32_t delta_order = 1;
  /// DELTA and PATCHED_FOR may store their exceptions' high parts signed
  /// (Signed_Highs, spec §8.9) where that is narrower
  /// (PartitionerOptions::signed_exception_highs).
  bool signed_exception_highs = true;
  /// PATCHED_FOR may store its exception rows in the Elias-Fano code
  /// (Rows_EF, spec §8.12) where that is smaller
  /// (PartitionerOptions::patched_rows_ef).
  bool patched_rows_ef = true;
};

/// One partition's model, everything needed to emit it, and its bounds.
struct PartitionFit {
  uint32_t num_rows = 0;
  uint8_t model_type = 0;  ///< spec Model_Type
  uint8_t bit_width = 0;   ///< spec Bit_Width
  uint64_t base = 0;       ///< CONSTANT, runs and FOR_BITPACK Base (canonical extension)
  uint64_t num_runs = 0;   ///< runs (CONSTANT with Bit_Width > 0) and RUNS_EF: Num_Runs
  uint64_t exceptions = 0; ///< DELTA only: the Exceptions word (spec §8.9)
  double theta[4] = {0, 0, 0, 0};  ///< LINEAR/POLY2/POLY3: Theta_0..Theta_3
  uint64_t min_value = 0;  ///< canonical extension, spec §7.5
  uint64_t max_value = 0;
  uint64_t payload_words = 0;
  uint64_t cost_bytes = 0;  ///< PartitionCost() of this choice
  /// 1 + the rows x >= 1 with v[x] != v[x - 1], whatever the model (not
  /// written; lets FitBestModelOfUnion summarise two neighbours' union
  /// without a pass over the values).
  uint64_t value_runs = 0;

  L3_HD bool is_single_value() const {
    return model_type == static_cast<uint8_t>(Model::kConstant) && bit_width == 0;
  }
};

/// One partition's rows, [first_row, first_row + num_rows) of its chunk.
struct PartitionSpan {
  uint64_t first_row = 0;
  uint32_t num_rows = 0;
};

/// Bytes a partition adds to a chunk: its 16-byte record, its parameter words
/// and its payload words (spec §7.3, §8.1, §8.5, §8.7).
L3_HD uint64_t PartitionCost(uint8_t model_type, uint32_t bit_width, uint64_t payload_words) {
  return kPartitionRecordBytes + 8 * uint64_t{ParamCount(model_type, bit_width)} +
         8 * payload_words;
}

/// The convex hulls of a partition's points where its fit computed them for
/// the minimax line (FitOptions::minimax_lines); `valid` is false where it
/// did not. The partitioner keeps them so that the minimax line of two
/// partitions' union starts from their hulls instead of every row.
struct PartitionHulls {
  LineHulls hulls;
  bool valid = false;
};

/// Fits every enabled model to values[0, n) (n >= 1) and returns the cheapest
/// (ties go to the model with fewer parameters, then the lower Model_Type;
/// POLY2/POLY3 must also beat every simpler model by poly_min_gain). With
/// `hulls`, stores there the hulls the fit computed, if any. With
/// `without_patched_for`, stores there the fit this call returns with
/// options.enable_patched_for false, at no extra cost (fit_memo.hpp).
template <typename T>
PartitionFit FitBestModel(const T* values, uint32_t n, const FitOptions& options,
                          PartitionHulls* hulls = nullptr,
                          PartitionFit* without_patched_for = nullptr);

/// FitBestModel(values, left.num_rows + right.num_rows, options), where
/// `left` and `right` are FitBestModel's (or this function's) fits of the
/// two halves values[0, left.num_rows) and the rows after it: the minimum,
/// maximum and run count of the union come from theirs, and its hulls, when
/// the minimax line needs them, from `left_hulls` and `right_hulls` where
/// both are valid. With `hulls`, stores there the hulls the fit computed;
/// `without_patched_for` as for FitBestModel.
template <typename T>
PartitionFit FitBestModelOfUnion(const T* values, const PartitionFit& left,
                                 const PartitionFit& right, const FitOptions& options,
                                 const PartitionHulls* left_hulls = nullptr,
                                 const PartitionHulls* right_hulls = nullptr,
                                 PartitionHulls* hulls = nullptr,
                                 PartitionFit* without_patched_for = nullptr);

/// Fits one given model. CONSTANT becomes runs when the values are not all
/// equal. With `theta` (LINEAR/POLY2/POLY3 only) the parameters are used as
/// given; otherwise they are fitted as FitBestModel fits them. Of `options`
/// only values_per_lane and minimax_lines matter. kInvalidArgument when spec
/// §8.8 rule 3 forbids the model or `theta` is not finite.
template <typename T>
Status FitGivenModel(const T* values, uint32_t n, Model model, const double* theta,
                     const FitOptions& options, PartitionFit* fit);

/// The residual width of a least-squares line through values[0, n), or the
/// FOR width where a line is not allowed (spec §8.8 rule 3) or not wanted.
/// An estimate for the partitioner's delta-bits analysis (spec §14).
template <typename T>
uint32_t AnalysisWidth(const T* values, uint32_t n, bool use_linear);

/// spec §8.4 ToInt, equal to PredictionToInt() for every input but without a
/// libm call on the common path: for |y| < 2^51, adding 1.5 * 2^52 rounds y
/// to an integer (ties to even, the default rounding mode) and leaves that
/// integer in the low mantissa bits.
inline int64_t FastPredictionToInt(double y) {
  if (std::fabs(y) < 0x1p51) {
    const double shifted = y + 0x1.8p52;
    uint64_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    return static_cast<int64_t>(bits - 0x4338000000000000ull);
  }
  return PredictionToInt(y);
}

}  // namespace l3::internal
