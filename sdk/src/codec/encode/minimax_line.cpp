// Minimax line fit via convex hulls: the std::vector plumbing of the CPU
// writer around the shared hull steps of minimax_hulls.hpp (the algorithm is
// described there).
#include "codec/encode/minimax_line.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "codec/encode/fit_arith.hpp"
#include "codec/encode/minimax_hulls.hpp"
#include "common/bits.hpp"

namespace l3::internal {
namespace {

// The chains over the candidates of each hull, in place (minimax_hulls.hpp).
template <typename Wide, typename T>
void ChainHulls(const T* v, std::vector<uint32_t>* upper, std::vector<uint32_t>* lower) {
  upper->resize(ChainUpperHull<Wide>(v, upper->data(), upper->size()));
  lower->resize(ChainLowerHull<Wide>(v, lower->data(), lower->size()));
}

// The hulls of values[0, n), n >= 1 (HullCandidates, then the chains).
template <typename Wide, typename T>
void BuildWith(const T* v, uint32_t n, LineHulls* hulls) {
  hulls->upper.resize(n);
  hulls->lower.resize(n);
  size_t upper_size = 0, lower_size = 0;
  HullCandidates<Wide>(v, n, hulls->upper.data(), &upper_size, hulls->lower.data(), &lower_size);
  hulls->upper.resize(upper_size);
  hulls->lower.resize(lower_size);
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
  return WalkHullVertices<Wide>(v, n, hulls.upper.data(), hulls.upper.size(), hulls.lower.data(),
                                hulls.lower.size());
}

}  // namespace

template <typename T>
void BuildLineHulls(const T* v, uint32_t n, int64_t min, int64_t max, LineHulls* hulls) {
  if (HullFitsInt64(n, min, max)) {
    BuildWith<int64_t>(v, n, hulls);
  } else {
    BuildWith<__int128>(v, n, hulls);
  }
}

template <typename T>
void JoinLineHulls(const T* v, const LineHulls& left, uint32_t left_rows, const LineHulls& right,
                   uint32_t right_rows, int64_t min, int64_t max, LineHulls* hulls) {
  if (HullFitsInt64(left_rows + right_rows, min, max)) {
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
  return HullFitsInt64(n, min, max) ? WalkHulls<int64_t>(v, n, hulls)
                                : WalkHulls<__int128>(v, n, hulls);
}

template <typename T>
MinimaxLine FitMinimaxLine(const T* v, uint32_t n, int64_t min, int64_t max) {
  thread_local LineHulls hulls;
  if (n >= 2) BuildLineHulls(v, n, min, max, &hulls);
  return FitMinimaxLineOfHulls(v, n, min, max, hulls);
}

#define L3_INSTANTIATE_MINIMAX(T)                                                                  \
  template MinimaxLine FitMinimaxLine<T>(const T*, uint32_t, int64_t, int64_t);                    \
  template void BuildLineHulls<T>(const T*, uint32_t, int64_t, int64_t, LineHulls*);               \
  template void JoinLineHulls<T>(const T*, const LineHulls&, uint32_t, const LineHulls&, uint32_t, \
                                 int64_t, int64_t, LineHulls*);                                    \
  template MinimaxLine FitMinimaxLineOfHulls<T>(const T*, uint32_t, int64_t, int64_t,              \
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
