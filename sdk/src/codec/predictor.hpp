// The canonical predictor of spec §8.4, shared verbatim by the encoder, the CPU
// reference decoder and the CUDA kernels.
//
// Every operation is a separately rounded IEEE-754 binary64 add, subtract or
// multiply (round to nearest, ties to even). On the device the _rn intrinsics
// guarantee this; on the host the project compiles with -ffp-contract=off and
// SSE2 arithmetic (tests/predictor_test.cpp fails if contraction sneaks in).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {

L3_HD double DAdd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
L3_HD double DSub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
L3_HD double DMul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/// spec §8.4 ToInt: NaN -> 0, saturate to int64, else round half to even.
L3_HD int64_t PredictionToInt(double y) {
#if defined(__CUDA_ARCH__)
  // cvt.rni.s64.f64 rounds to nearest even and clamps to the int64 range, but
  // maps NaN to INT64_MIN on sm_90 (measured on an H100), so NaN is handled
  // first. sdk/cuda/tests/gpu_predictor_test.cu checks this against the host.
  if (y != y) return 0;
  return __double2ll_rn(y);
#else
  if (y != y) return 0;
  if (y >= 9223372036854775808.0) return INT64_MAX;
  if (y < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(std::nearbyint(y));
#endif
}

/// The finite-difference state of one lane (spec §8.4). Start() sets step 0
/// at position X0; value() is y_k; Advance() moves from step k to k + 1.
template <uint8_t kModel>
struct LanePredictor {
  double y = 0, d1 = 0, d2 = 0, d3 = 0;

  L3_HD void Start(const double* theta, double x0) {
    if constexpr (kModel == static_cast<uint8_t>(Model::kLinear)) {
      y = DAdd(theta[0], DMul(theta[1], x0));
      d1 = DMul(theta[1], 32.0);
    } else if constexpr (kModel == static_cast<uint8_t>(Model::kPoly2)) {
      y = DAdd(DAdd(theta[0], DMul(theta[1], x0)), DMul(theta[2], DMul(x0, x0)));
      d1 = DAdd(DMul(theta[1], 32.0), DMul(DMul(theta[2], 32.0), DAdd(DMul(2.0, x0), 32.0)));
      d2 = DMul(2.0, DMul(theta[2], 1024.0));
    } else {
      static_assert(kModel == static_cast<uint8_t>(Model::kPoly3), "predicted models only");
      const double e0 = Poly3At(theta, x0);
      const double e1 = Poly3At(theta, DAdd(x0, 32.0));
      const double e2 = Poly3At(theta, DAdd(x0, 64.0));
      y = e0;
      d1 = DSub(e1, e0);
      d2 = DSub(DSub(e2, e1), d1);
      d3 = DMul(6.0, DMul(theta[3], 32768.0));
    }
  }

  L3_HD double value() const { return y; }

  L3_HD void Advance() {
    if constexpr (kModel == static_cast<uint8_t>(Model::kLinear)) {
      y = DAdd(y, d1);
    } else if constexpr (kModel == static_cast<uint8_t>(Model::kPoly2)) {
      y = DAdd(y, d1);
      d1 = DAdd(d1, d2);
    } else {
      y = DAdd(y, d1);
      d1 = DAdd(d1, d2);
      d2 = DAdd(d2, d3);
    }
  }

  /// E(z) of spec §8.4 (POLY3).
  L3_HD static double Poly3At(const double* theta, double z) {
    const double z2 = DMul(z, z);
    return DAdd(DAdd(DAdd(theta[0], DMul(theta[1], z)), DMul(theta[2], z2)),
                DMul(theta[3], DMul(z2, z)));
  }
};

/// The prediction y_k for lane start `x0` after `k` steps (random access).
template <uint8_t kModel>
L3_HD double PredictAt(const double* theta, double x0, uint32_t k) {
  LanePredictor<kModel> p;
  p.Start(theta, x0);
  for (uint32_t j = 0; j < k; ++j) p.Advance();
  return p.value();
}

/// Prediction of local row `x` as a 64-bit integer before the mod 2^N
/// reduction (spec §8.4), dispatching on the model at run time.
L3_HD int64_t PredictRow(uint8_t model_type, const double* theta, uint64_t x,
                         uint32_t values_per_lane) {
  const SlapPosition p = SlapLocate(x, values_per_lane);
  const double x0 = static_cast<double>(p.lane_x0);
  double y = 0;
  switch (model_type) {
    case static_cast<uint8_t>(Model::kLinear):
      y = PredictAt<static_cast<uint8_t>(Model::kLinear)>(theta, x0, p.step);
      break;
    case static_cast<uint8_t>(Model::kPoly2):
      y = PredictAt<static_cast<uint8_t>(Model::kPoly2)>(theta, x0, p.step);
      break;
    case static_cast<uint8_t>(Model::kPoly3):
      y = PredictAt<static_cast<uint8_t>(Model::kPoly3)>(theta, x0, p.step);
      break;
    default:
      return 0;
  }
  return PredictionToInt(y);
}

}  // namespace l3::internal
