// Minimax line fit via convex hulls.
//
// For a slope m, the strip height is H(m) = max_x (v - m x) - min_x (v - m x).
// The maximum is attained on the upper hull of the points, the minimum on the
// lower hull, and H is convex and piecewise linear in m with breakpoints at
// the hulls' edge slopes; its slope is x_min(m) - x_max(m), where x_max(m) and
// x_min(m) are the abscissae of the attaining vertices. Walking the
// breakpoints in increasing order finds the first one where that slope turns
// non-negative: the optimum. Hull tests and slope comparisons are exact
// (128-bit cross products), so the result does not depend on rounding.
#include "codec/encode/minimax_line.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "codec/encode/fit_arith.hpp"
#include "common/bits.hpp"

namespace l3::internal {
namespace {

// Cross product of (a - o) and (b - o) for points (x, v[x]), in the signed
// type Wide, which must hold (n - 1) * (max - min) twice over.
template <typename Wide, typename T>
Wide Cross(const T* v, uint32_t o, uint32_t a, uint32_t b) {
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
Slope<Wide> EdgeSlope(const T* v, uint32_t a, uint32_t b) {
  return {static_cast<Wide>(v[b]) - static_cast<Wide>(v[a]), static_cast<Wide>(b) - a};
}

// p < q for fractions with positive denominators.
template <typename Wide>
bool Less(const Slope<Wide>& p, const Slope<Wide>& q) {
  return p.dy * q.dx < q.dy * p.dx;
}

// Appends the candidates x (in increasing order) to the monotone chains,
// in place: each chain's size never exceeds the index of its next
// candidate. upper/lower hold the candidates on entry and the strict hull
// vertices on exit.
template <typename Wide, typename T>
void ChainHulls(const T* v, std::vector<uint32_t>* upper_chain,
                std::vector<uint32_t>* lower_chain) {
  uint32_t* upper = upper_chain->data();
  size_t upper_size = 0;
  for (size_t i = 0; i < upper_chain->size(); ++i) {
    const uint32_t x = upper[i];
    while (upper_size >= 2 && Cross<Wide>(v, upper[upper_size - 2], upper[upper_size - 1], x) >= 0) {
      --upper_size;
    }
    upper[upper_size++] = x;
  }
  upper_chain->resize(upper_size);
  uint32_t* lower = lower_chain->data();
  size_t lower_size = 0;
  for (size_t i = 0; i < lower_chain->size(); ++i) {
    const uint32_t x = lower[i];
    while (lower_size >= 2 && Cross<Wide>(v, lower[lower_size - 2], lower[lower_size - 1], x) <= 0) {
      --lower_size;
    }
    lower[lower_size++] = x;
  }
  lower_chain->resize(lower_size);
}

// The hulls of values[0, n), n >= 1. The hulls keep only strict vertices
// (collinear points are dropped), and an inner point on or below the chord
// of its two neighbours is no strict vertex of the upper hull (on or above:
// of the lower one). So the candidates are the end points and the inner
// points strictly above (below) that chord; the monotone chain over them
// yields the same hull as over all points, with fewer mispredicted hull
// tests.
template <typename Wide, typename T>
void BuildWith(const T* v, uint32_t n, LineHulls* hulls) {
  hulls->upper.resize(n);
  hulls->lower.resize(n);
  uint32_t* upper = hulls->upper.data();
  uint32_t* lower = hulls->lower.data();
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
  hulls->upper.resize(upper_candidates);
  hulls->lower.resize(lower_candidates);
  ChainHulls<Wide>(v, &hulls->upper, &hulls->lower);
}

// The union's hulls: the chains over the left part's vertices, then the
// right part's (shifted by left_rows).
template <typename Wide, typename T>
void JoinWith(const T* v, const LineHulls& left, uint32_t left_rows, const LineHulls& right,
              LineHulls* hulls) {
  hulls->upper.assign(left.upper.begin(), left.upper.end());
  for (uint32_t x : right.upper) hulls->upper.push_back(x + left_rows);
  hulls->lower.assign(left.lower.begin(), left.lower.end());
  for (uint32_t x : right.lower) hulls->lower.push_back(x + left_rows);
  ChainHulls<Wide>(v, &hulls->upper, &hulls->lower);
}

// The minimax line of values[0, n), n >= 2, from its hulls.
template <typename Wide, typename T>
MinimaxLine WalkHulls(const T* v, uint32_t n, const LineHulls& hulls) {
  MinimaxLine line;
  const uint32_t* upper = hulls.upper.data();
  const uint32_t* lower = hulls.lower.data();
  const size_t upper_size = hulls.upper.size();
  const size_t lower_size = hulls.lower.size();
  // For m below every breakpoint the maximum of v - m x sits at the last
  // point and the minimum at the first. Upper-hull edge slopes decrease along
  // the hull, so in increasing m the maximum moves from the right end left;
  // lower-hull edge slopes increase, and the minimum moves from the left end
  // right.
  size_t iu = upper_size - 1;  // vertex attaining the maximum
  size_t il = 0;                 // vertex attaining the minimum
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
  // dx * v - dy * x, scaled back by dx.
  const Wide top = best.dx * static_cast<Wide>(v[upper[iu]]) - best.dy * upper[iu];
  const Wide bottom = best.dx * static_cast<Wide>(v[lower[il]]) - best.dy * lower[il];
  // One rounding per integer and per division (fit_arith.hpp), so that any
  // writer computes the same line.
  const double dx = WideToDouble(best.dx);
  line.slope = DDiv(WideToDouble(best.dy), dx);
  line.spread = DDiv(WideToDouble(top - bottom), dx);
  line.intercept = DDiv(WideToDouble(top + bottom), DMul(2.0, dx));
  return line;
}

// Whether 64-bit arithmetic is exact for the products of n points whose
// values lie in [min, max] (else __int128): every product is at most n times
// a value difference or a value, so with b bits for both, 64-bit arithmetic
// is exact while bitlen(n) + b + 1 <= 62.
bool FitsInt64(uint32_t n, int64_t min, int64_t max) {
  const uint64_t magnitude = std::max<uint64_t>(max < 0 ? 0 - static_cast<uint64_t>(max) : max,
                                                min < 0 ? 0 - static_cast<uint64_t>(min) : min);
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  return BitLength(n) + std::max(BitLength(range), BitLength(magnitude)) + 1 <= 62;
}

}  // namespace

template <typename T>
void BuildLineHulls(const T* v, uint32_t n, int64_t min, int64_t max, LineHulls* hulls) {
  if (FitsInt64(n, min, max)) {
    BuildWith<int64_t>(v, n, hulls);
  } else {
    BuildWith<__int128>(v, n, hulls);
  }
}

template <typename T>
void JoinLineHulls(const T* v, const LineHulls& left, uint32_t left_rows, const LineHulls& right,
                   uint32_t right_rows, int64_t min, int64_t max, LineHulls* hulls) {
  if (FitsInt64(left_rows + right_rows, min, max)) {
    JoinWith<int64_t>(v, left, left_rows, right, hulls);
  } else {
    JoinWith<__int128>(v, left, left_rows, right, hulls);
  }
}

template <typename T>
MinimaxLine FitMinimaxLineOfHulls(const T* v, uint32_t n, int64_t min, int64_t max,
                                  const LineHulls& hulls) {
  if (n < 2) {
    MinimaxLine line;
    line.intercept = FitValue(v[0]);
    return line;
  }
  return FitsInt64(n, min, max) ? WalkHulls<int64_t>(v, n, hulls)
                                : WalkHulls<__int128>(v, n, hulls);
}

template <typename T>
MinimaxLine FitMinimaxLine(const T* v, uint32_t n, int64_t min, int64_t max) {
  thread_local LineHulls hulls;
  if (n >= 2) BuildLineHulls(v, n, min, max, &hulls);
  return FitMinimaxLineOfHulls(v, n, min, max, hulls);
}

#define L3_INSTANTIATE_MINIMAX(T)                                                              \
  template MinimaxLine FitMinimaxLine<T>(const T*, uint32_t, int64_t, int64_t);               \
  template void BuildLineHulls<T>(const T*, uint32_t, int64_t, int64_t, LineHulls*);          \
  template void JoinLineHulls<T>(const T*, const LineHulls&, uint32_t, const LineHulls&,      \
                                 uint32_t, int64_t, int64_t, LineHulls*);                     \
  template MinimaxLine FitMinimaxLineOfHulls<T>(const T*, uint32_t, int64_t, int64_t,         \
                                                const LineHulls&);
L3_INSTANTIATE_MINIMAX(int8_t)
L3_INSTANTIATE_MINIMAX(int16_t)
L3_INSTANTIATE_MINIMAX(int32_t)
L3_INSTANTIATE_MINIMAX(int64_t)
L3_INSTANTIATE_MINIMAX(uint8_t)
L3_INSTANTIATE_MINIMAX(uint16_t)
L3_INSTANTIATE_MINIMAX(uint32_t)
L3_INSTANTIATE_MINIMAX(uint64_t)
#undef L3_INSTANTIATE_MINIMAX

}  // namespace l3::internal
