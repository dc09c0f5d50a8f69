// The convex-hull steps of the minimax line (minimax_line.cpp), on plain
// arrays, shared by the CPU writer and the CUDA writer (fit_partition.cuh:
// each lane takes the hulls of a run of rows, one lane joins them and walks
// the result).
//
// For a slope m, the strip height is H(m) = max_x (v - m x) - min_x (v - m x).
// The maximum is attained on the upper hull of the points, the minimum on the
// lower hull, and H is convex and piecewise linear in m with breakpoints at
// the hulls' edge slopes; its slope is x_min(m) - x_max(m), where x_max(m) and
// x_min(m) are the abscissae of the attaining vertices. Walking the
// breakpoints in increasing order finds the first one where that slope turns
// non-negative: the optimum. Hull tests and slope comparisons are exact
// (Wide is int64 where that cannot overflow, else __int128), so the result
// does not depend on rounding; the line's three numbers are then rounded as
// fit_arith.hpp says.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/encode/fit_arith.hpp"
#include "codec/encode/minimax_line.hpp"

namespace l3::internal {

// Cross product of (a - o) and (b - o) for points (x, v[x]), in the signed
// type Wide, which must hold (n - 1) * (max - min) twice over.
template <typename Wide, typename T>
L3_HD Wide Cross(const T* v, uint32_t o, uint32_t a, uint32_t b) {
  return static_cast<Wide>(static_cast<int64_t>(a) - o) * (static_cast<Wide>(v[b]) - v[o]) -
         (static_cast<Wide>(v[a]) - v[o]) * static_cast<Wide>(static_cast<int64_t>(b) - o);
}

// Slope of the edge (a, b), a < b, as a fraction dy / dx with dx > 0.
template <typename Wide>
struct Slope {
  Wide dy;
  Wide dx;
};

template <typename Wide, typename T>
L3_HD Slope<Wide> EdgeSlope(const T* v, uint32_t a, uint32_t b) {
  return {static_cast<Wide>(v[b]) - static_cast<Wide>(v[a]), static_cast<Wide>(b) - a};
}

// p < q for fractions with positive denominators.
template <typename Wide>
L3_HD bool Less(const Slope<Wide>& p, const Slope<Wide>& q) {
  return p.dy * q.dx < q.dy * p.dx;
}

/// The hulls keep only strict vertices (collinear points are dropped), and an
/// inner point on or below the chord of its two neighbours is no strict
/// vertex of the upper hull (on or above: of the lower one). So the
/// candidates are the end points and the inner points strictly above (below)
/// that chord; the monotone chain over them yields the same hull as over all
/// points, with fewer mispredicted hull tests. Writes them, in increasing x,
/// to upper[0, *upper_size) and lower[0, *lower_size) (n entries each at
/// most), for values[0, n), n >= 1.
template <typename Wide, typename T>
L3_HD void HullCandidates(const T* v, uint32_t n, uint32_t* upper, size_t* upper_size,
                          uint32_t* lower, size_t* lower_size) {
  size_t upper_candidates = 0, lower_candidates = 0;
  upper[upper_candidates++] = 0;
  lower[lower_candidates++] = 0;
  for (uint32_t x = 1; x + 1 < n; ++x) {
    const Wide rise_in = static_cast<Wide>(v[x]) - static_cast<Wide>(v[x - 1]);
    const Wide rise_out = static_cast<Wide>(v[x + 1]) - static_cast<Wide>(v[x]);
    upper[upper_candidates] = x;
    upper_candidates += rise_in > rise_out ? 1 : 0;
    lower[lower_candidates] = x;
    lower_candidates += rise_in < rise_out ? 1 : 0;
  }
  if (n > 1) {
    upper[upper_candidates++] = n - 1;
    lower[lower_candidates++] = n - 1;
  }
  *upper_size = upper_candidates;
  *lower_size = lower_candidates;
}

// Whether x ends the chain's last edge badly enough to pop its end point:
// on or above the line through the last two vertices for the upper hull, on
// or below it for the lower hull (so collinear points are dropped).
template <bool kUpper, typename Wide, typename T>
L3_HD bool PopsLast(const T* v, const uint32_t* chain, size_t kept, uint32_t x) {
  const Wide cross = Cross<Wide>(v, chain[kept - 2], chain[kept - 1], x);
  return kUpper ? cross >= 0 : cross <= 0;
}

/// Extends the strict hull chain[0, kept) (upper or lower, increasing x) by
/// the monotone chain over the points chain[from, from + count) (increasing
/// x, right of the chain; from >= kept), in place: returns the new size.
/// Over a concatenation of the hulls of consecutive runs of rows it yields
/// the hull of all their rows: every strict vertex of the whole's hull is a
/// strict vertex of its own run's hull.
template <bool kUpper, typename Wide, typename T>
L3_HD size_t ExtendHull(const T* v, uint32_t* chain, size_t kept, size_t from, size_t count) {
  for (size_t i = from; i < from + count; ++i) {
    const uint32_t x = chain[i];
    while (kept >= 2 && PopsLast<kUpper, Wide>(v, chain, kept, x)) --kept;
    chain[kept++] = x;
  }
  return kept;
}

/// The strict hull (upper or lower) of the rows [begin, end) into out[0, k);
/// returns k.
template <bool kUpper, typename Wide, typename T>
L3_HD size_t HullOfRows(const T* v, uint32_t begin, uint32_t end, uint32_t* out) {
  size_t kept = 0;
  for (uint32_t x = begin; x < end; ++x) {
    while (kept >= 2 && PopsLast<kUpper, Wide>(v, out, kept, x)) --kept;
    out[kept++] = x;
  }
  return kept;
}

/// The monotone chain of the upper hull over the candidates chain[0, size)
/// (increasing x), in place: returns the number of strict vertices kept.
template <typename Wide, typename T>
L3_HD size_t ChainUpperHull(const T* v, uint32_t* chain, size_t size) {
  return ExtendHull<true, Wide>(v, chain, 0, 0, size);
}

/// ChainUpperHull for the lower hull.
template <typename Wide, typename T>
L3_HD size_t ChainLowerHull(const T* v, uint32_t* chain, size_t size) {
  return ExtendHull<false, Wide>(v, chain, 0, 0, size);
}

/// The minimax line of values[0, n), n >= 2, from the strict vertices of its
/// upper and lower hulls.
template <typename Wide, typename T>
L3_HD MinimaxLine WalkHullVertices(const T* v, uint32_t n, const uint32_t* upper, size_t upper_size,
                                   const uint32_t* lower, size_t lower_size) {
  MinimaxLine line;
  // For m below every breakpoint the maximum of v - m x sits at the last
  // point and the minimum at the first. Upper-hull edge slopes decrease along
  // the hull, so in increasing m the maximum moves from the right end left;
  // lower-hull edge slopes increase, and the minimum moves from the left end
  // right.
  size_t iu = upper_size - 1;  // vertex attaining the maximum
  size_t il = 0;               // vertex attaining the minimum
  Slope<Wide> best = EdgeSlope<Wide>(v, 0, n - 1);
  while (true) {
    const bool has_upper = iu > 0;
    const bool has_lower = il + 1 < lower_size;
    if (!has_upper && !has_lower) break;
    const Slope<Wide> none{0, 0};
    const Slope<Wide> su = has_upper ? EdgeSlope<Wide>(v, upper[iu - 1], upper[iu]) : none;
    const Slope<Wide> sl = has_lower ? EdgeSlope<Wide>(v, lower[il], lower[il + 1]) : none;
    // The next breakpoint and which vertices move at it.
    bool move_upper, move_lower;
    if (has_upper && has_lower) {
      move_upper = !Less(sl, su);
      move_lower = !Less(su, sl);
    } else {
      move_upper = has_upper;
      move_lower = has_lower;
    }
    best = move_upper ? su : sl;
    if (move_upper) --iu;
    if (move_lower) ++il;
    // H's slope just after the breakpoint.
    if (lower[il] >= upper[iu]) break;
  }
  // Strip at the optimal slope best = dy / dx: maximum and minimum of
  // dx * v - dy * x, scaled back by dx, each integer rounded once (spec
  // §14.1).
  const Wide top = best.dx * static_cast<Wide>(v[upper[iu]]) - best.dy * upper[iu];
  const Wide bottom = best.dx * static_cast<Wide>(v[lower[il]]) - best.dy * lower[il];
  const double dx = WideToDouble(best.dx);
  line.slope = DDiv(WideToDouble(best.dy), dx);
  line.spread = DDiv(WideToDouble(top - bottom), dx);
  line.intercept = DDiv(WideToDouble(top + bottom), DMul(2.0, dx));
  return line;
}

/// Whether 64-bit arithmetic is exact for the products of n points whose
/// values lie in [min, max] (else __int128): every product is at most n times
/// a value difference or a value, so with b bits for both, 64-bit arithmetic
/// is exact while bitlen(n) + b + 1 <= 62.
L3_HD bool HullFitsInt64(uint32_t n, int64_t min, int64_t max) {
  const uint64_t magnitude_max =
      max < 0 ? 0 - static_cast<uint64_t>(max) : static_cast<uint64_t>(max);
  const uint64_t magnitude_min =
      min < 0 ? 0 - static_cast<uint64_t>(min) : static_cast<uint64_t>(min);
  const uint64_t magnitude = magnitude_max > magnitude_min ? magnitude_max : magnitude_min;
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  const uint32_t range_bits = BitLength(range), magnitude_bits = BitLength(magnitude);
  return BitLength(n) + (range_bits > magnitude_bits ? range_bits : magnitude_bits) + 1 <= 62;
}

}  // namespace l3::internal
