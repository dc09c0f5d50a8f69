// The CUDA half of the partition fit (model_fit.cpp is the CPU half): one
// warp fits one partition in device memory and chooses its model with the
// same ChooseModel (fit_choice.hpp), so the result equals FitBestModel's
// field for field.
//
// The warp's passes follow the lane order of fit_arith.hpp: lane L reads rows
// L, L + 32, ... of the partition in increasing order; the least-squares sums
// are reduced by the xor butterfly (ReduceLanes' order), minima and maxima in
// any order. The exact residual scan runs the canonical predictor (spec §8.4)
// on lane L of every tile, as the decoder does.
//
// The DELTA fit is delta/delta_fit.cuh's, PATCHED_FOR's
// patched/patched_for_fit.cuh's; the minimax line runs the shared
// hull steps (minimax_hulls.hpp) on lane 0 over global scratch.
#pragma once

#include <cstdint>
#include <type_traits>

#include "codec/delta/delta_fit.cuh"
#include "codec/patched/patched_for_fit.cuh"
#include "codec/encode/fit_arith.hpp"
#include "codec/encode/fit_choice.hpp"
#include "codec/encode/minimax_hulls.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/predictor.hpp"
#include "common/warp_scan.cuh"

namespace l3::internal {

inline constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ double Infinity() { return __longlong_as_double(0x7ff0000000000000LL); }

/// ReduceLanes (fit_arith.hpp) across a warp: every lane gets the sum.
__device__ __forceinline__ double WarpSumLaneOrder(double a) {
  for (int offset = 16; offset >= 1; offset /= 2)
    a = DAdd(a, __shfl_xor_sync(kFullWarp, a, offset));
  return a;
}

/// Values narrower than 32 bits travel through shuffles as int32/uint32.
template <typename T>
using ShuffleType =
    std::conditional_t<(sizeof(T) < 4),
                       std::conditional_t<std::is_signed<T>::value, int32_t, uint32_t>, T>;

/// The summary of rows [0, n): minimum, maximum and 1 + the number of rows
/// whose value differs from the row before.
template <typename T>
__device__ Summary<T> WarpSummarize(const T* v, uint32_t n, uint32_t lane) {
  using S = ShuffleType<T>;
  S lo = static_cast<S>(v[0]), hi = lo;
  unsigned long long changes = 0;
  for (uint32_t x = lane; x < n; x += 32) {
    const S value = static_cast<S>(v[x]);
    lo = value < lo ? value : lo;
    hi = value > hi ? value : hi;
    if (x > 0 && v[x] != v[x - 1]) ++changes;
  }
  lo = WarpMin(lo);
  hi = WarpMax(hi);
  for (int offset = 16; offset >= 1; offset /= 2)
    changes += __shfl_xor_sync(kFullWarp, changes, offset);
  return {static_cast<T>(lo), static_cast<T>(hi), changes + 1};
}

/// The passes of ChooseModel for one warp.
template <typename T>
struct WarpPasses {
  const T* v;
  uint32_t n;
  uint32_t values_per_lane;
  uint32_t lane;

  /// kDeltaFitScratchWords words of shared memory owned by this warp (null
  /// where the options have no DELTA).
  uint32_t* scratch;

  __device__ PartitionFit Delta(uint64_t cost_limit, bool allow_signed) {
    return WarpDeltaFit(v, n, values_per_lane, cost_limit, allow_signed, lane, scratch);
  }

  // PATCHED_FOR (spec §8.12): patched/patched_for_fit.cuh, in the same
  // scratch as DELTA's fit (the two run one after the other).
  // The fit whatever the limit: where the CPU's lower bound skips it, it
  // could not have been strictly cheaper, so the choice is the same.
  __device__ PartitionFit PatchedFor(const Summary<T>&, uint64_t, bool allow_signed,
                                     bool allow_rows_ef) {
    return WarpPatchedForFit(v, n, allow_signed, allow_rows_ef, lane, scratch);
  }

  /// 2 * n words of global memory owned by this partition (null where the
  /// options have no minimax line): the hull stacks.
  uint32_t* hulls;

  // The minimax line: each lane takes the hulls of its run of rows, lane 0
  // joins the 32 pairs of hulls (ExtendHull) and walks the result (the walk
  // is sequential), then broadcasts the line.
  __device__ Candidate Minimax(const Summary<T>& s) {
    MinimaxLine line;
    if (n < 2) {
      line.intercept = FitValue(v[0]);
      return CandidateOfLine(line);
    }
    const auto min = static_cast<int64_t>(s.min);
    const auto max = static_cast<int64_t>(s.max);
    if (HullFitsInt64(n, min, max)) {
      line = HullLine<int64_t>();
    } else {
      line = HullLine<__int128>();
    }
    line.intercept = __shfl_sync(kFullWarp, line.intercept, 0);
    line.slope = __shfl_sync(kFullWarp, line.slope, 0);
    line.spread = __shfl_sync(kFullWarp, line.spread, 0);
    return CandidateOfLine(line);
  }

  // Lane 0's result is the line; the hull of lane L's rows goes to
  // upper/lower[begin(L) ...], where ExtendHull finds it.
  template <typename Wide>
  __device__ MinimaxLine HullLine() {
    uint32_t* upper = hulls;
    uint32_t* lower = hulls + n;
    const uint32_t per_lane = (n + 31) / 32;
    const uint32_t begin = lane * per_lane < n ? lane * per_lane : n;
    const uint32_t end = begin + per_lane < n ? begin + per_lane : n;
    const auto my_upper = static_cast<uint32_t>(HullOfRows<true, Wide>(v, begin, end, upper + begin));
    const auto my_lower =
        static_cast<uint32_t>(HullOfRows<false, Wide>(v, begin, end, lower + begin));
    __syncwarp();
    size_t upper_size = 0, lower_size = 0;
    for (uint32_t from_lane = 0; from_lane < 32; ++from_lane) {
      const uint32_t count_upper = __shfl_sync(kFullWarp, my_upper, from_lane);
      const uint32_t count_lower = __shfl_sync(kFullWarp, my_lower, from_lane);
      const uint32_t from = from_lane * per_lane < n ? from_lane * per_lane : n;
      if (lane == 0) {
        upper_size = ExtendHull<true, Wide>(v, upper, upper_size, from, count_upper);
        lower_size = ExtendHull<false, Wide>(v, lower, lower_size, from, count_lower);
      }
    }
    MinimaxLine line;
    if (lane == 0) line = WalkHullVertices<Wide>(v, n, upper, upper_size, lower, lower_size);
    return line;
  }

  __device__ GramFit LeastSquares(const GramBasis& b) {
    GramFit f;
    f.ref = FitValue(v[0]);
    double m[4] = {0, 0, 0, 0};
    for (uint32_t x = lane; x < n; x += 32) {
      const GramTerms g =
          GramTermsAt(DSub(FitValue(v[x]), f.ref), DSub(static_cast<double>(x), b.h), b);
      m[0] = DAdd(m[0], g.q0);
      m[1] = DAdd(m[1], g.q1);
      m[2] = DAdd(m[2], g.q2);
      m[3] = DAdd(m[3], g.q3);
    }
    for (double& sum : m) sum = WarpSumLaneOrder(sum);
    GramCoefficients(b, m, &f);
    return f;
  }

  __device__ void MeasureErrors(const GramBasis& b, const GramFit& f, ErrorRange out[4]) {
    const double inf = Infinity();
    double lo[4] = {0, inf, inf, inf}, hi[4] = {0, -inf, -inf, -inf};
    for (uint32_t x = lane; x < n; x += 32) {
      const GramErrors g = GramErrorsAt(FitValue(v[x]), DSub(static_cast<double>(x), b.h), b, f);
      const double e[4] = {0, g.e1, g.e2, g.e3};
      for (int d = 1; d <= 3; ++d) {
        lo[d] = e[d] < lo[d] ? e[d] : lo[d];
        hi[d] = e[d] > hi[d] ? e[d] : hi[d];
      }
    }
    for (int d = 1; d <= 3; ++d) {
      out[d] = {PositiveZero(WarpMin(lo[d])), PositiveZero(WarpMax(hi[d]))};
    }
  }

  template <uint8_t kModel>
  __device__ ResidualRange ScanModel(const double* theta) {
    const uint64_t tile_rows = uint64_t{32} * values_per_lane;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint64_t t0 = 0; t0 < n; t0 += tile_rows) {
      const uint64_t end = t0 + tile_rows < n ? t0 + tile_rows : n;
      LanePredictor<kModel> p;
      p.Start(theta, static_cast<double>(t0 + lane));
      for (uint64_t x = t0 + lane; x < end; x += 32) {
        const int64_t r = ValueTraits<T>::Residual(v[x], PredictionToInt(p.value()));
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
        p.Advance();
      }
    }
    return {WarpMin(lo), WarpMax(hi)};
  }

  __device__ ResidualRange Scan(uint8_t model_type, const double* theta) {
    switch (model_type) {
      case kLinearModel:
        return ScanModel<kLinearModel>(theta);
      case kPoly2Model:
        return ScanModel<kPoly2Model>(theta);
      default:
        return ScanModel<kPoly3Model>(theta);
    }
  }
};

/// Threads a block of the fitting kernels (FitPartitionsKernel and the
/// partitioner's InitialNodesKernel and MergePairsKernel) has, and the
/// blocks per SM their registers are bounded for: at most 128 registers a
/// thread, 16 warps a SM (unbounded they took 140-150: one block of 8 warps
/// a SM). Blocks of two warps, since a block's slot frees only when its
/// slowest warp is done, and the fits of one launch differ widely in length.
inline constexpr int kFitThreads = 64;
inline constexpr int kFitMinBlocks = 8;

/// Shared memory a block of `threads` threads of the fitting kernels needs.
inline constexpr size_t FitSharedBytes(int threads) {
  return static_cast<size_t>(threads / 32) * kDeltaFitScratchWords * sizeof(uint32_t);
}

/// This warp's scratch in the block's dynamic shared memory.
__device__ __forceinline__ uint32_t* WarpScratch() {
  extern __shared__ uint32_t fit_scratch[];
  return fit_scratch + (threadIdx.x / 32) * kDeltaFitScratchWords;
}

/// The hull scratch of the partition starting at `first_row`: 2 * rows
/// words at 2 * first_row of a buffer of 2 words per row of the column
/// (disjoint partitions get disjoint scratch); null stays null.
__device__ __forceinline__ uint32_t* PartitionHulls(uint32_t* hull_scratch, uint64_t first_row) {
  return hull_scratch == nullptr ? nullptr : hull_scratch + 2 * first_row;
}

/// Fits spans[i] into fits[i], one warp per span (blockDim.x a multiple of
/// 32, FitSharedBytes(blockDim.x) bytes of dynamic shared memory); spans must
/// lie inside the column, have num_rows >= 1, and not overlap where the
/// options ask for the minimax line (hull_scratch: 2 words per row).
template <typename T>
__global__ void __launch_bounds__(kFitThreads, kFitMinBlocks)
    FitPartitionsKernel(const T* __restrict__ values,
                        const PartitionSpan* __restrict__ spans, uint64_t count,
                        FitOptions options, uint32_t* hull_scratch,
                        PartitionFit* __restrict__ fits) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  for (uint64_t i = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; i < count; i += warps) {
    const PartitionSpan span = spans[i];
    const T* v = values + span.first_row;
    const Summary<T> summary = WarpSummarize(v, span.num_rows, lane);
    WarpPasses<T> passes{v,    span.num_rows, options.values_per_lane,
                         lane, WarpScratch(), PartitionHulls(hull_scratch, span.first_row)};
    const PartitionFit fit = ChooseModel(passes, summary, span.num_rows, options);
    if (lane == 0) fits[i] = fit;
  }
}

}  // namespace l3::internal
