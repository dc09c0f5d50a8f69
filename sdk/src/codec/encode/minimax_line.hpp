// The minimax (Chebyshev) line through a partition: the line that minimises
// the largest |v(x) - line(x)|, i.e. the narrowest vertical strip holding all
// points (x, v(x)). The residual width of a LINEAR partition depends only on
// that strip's height, so this line is the best one can do before rounding.
#pragma once

#include <cstdint>
#include <vector>

namespace l3::internal {

struct MinimaxLine {
  double slope = 0;
  /// The strip's centre line is slope * x + intercept.
  double intercept = 0;
  /// Height of the strip: max - min of v(x) - (slope * x + intercept), in
  /// exact arithmetic for the exact optimal slope, rounded.
  double spread = 0;
};

/// Fits values[0, n), n >= 1, whose minimum and maximum are `min` and `max`,
/// with |v| <= 2^62 (every 8/16/32-bit value and every 64-bit value allowed
/// in a LINEAR partition, spec §8.8 rule 3). O(n): the upper and lower convex
/// hulls of the points, then a walk over their edge slopes.
template <typename T>
MinimaxLine FitMinimaxLine(const T* values, uint32_t n, int64_t min, int64_t max);

/// The strict vertices (no three collinear) of the upper and the lower convex
/// hull of the points (x, v(x)), x = 0..n-1, in increasing x. They are all
/// FitMinimaxLine needs, and the hulls of a union of two neighbouring row
/// ranges follow from theirs.
struct LineHulls {
  std::vector<uint32_t> upper;
  std::vector<uint32_t> lower;
};

/// The hulls of values[0, n), n >= 1, with `min` and `max` as for
/// FitMinimaxLine.
template <typename T>
void BuildLineHulls(const T* values, uint32_t n, int64_t min, int64_t max, LineHulls* hulls);

/// The hulls of values[0, left_rows + right_rows) from those of
/// values[0, left_rows) and of values[left_rows, left_rows + right_rows);
/// `min` and `max` are the union's. Equal to BuildLineHulls of the union:
/// every strict vertex of the union's hull is one of a part's.
template <typename T>
void JoinLineHulls(const T* values, const LineHulls& left, uint32_t left_rows,
                   const LineHulls& right, uint32_t right_rows, int64_t min, int64_t max,
                   LineHulls* hulls);

/// FitMinimaxLine(values, n, min, max), given the hulls of values[0, n).
template <typename T>
MinimaxLine FitMinimaxLineOfHulls(const T* values, uint32_t n, int64_t min, int64_t max,
                                  const LineHulls& hulls);

}  // namespace l3::internal
