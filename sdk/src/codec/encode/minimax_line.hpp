// The minimax (Chebyshev) line through a partition: the line that minimises
// the largest |v(x) - line(x)|, i.e. the narrowest vertical strip holding all
// points (x, v(x)). The residual width of a LINEAR partition depends only on
// that strip's height, so this line is the best one can do before rounding.
#pragma once

#include <cstdint>

namespace l3::internal {

struct MinimaxLine {
  double slope = 0;
  /// The strip's centre line is slope * x + intercept.
  long double intercept = 0;
  /// Height of the strip: max - min of v(x) - (slope * x + intercept), in
  /// exact arithmetic for the exact optimal slope.
  long double spread = 0;
};

/// Fits values[0, n), n >= 1, whose minimum and maximum are `min` and `max`,
/// with |v| <= 2^62 (every 8/16/32-bit value and every 64-bit value allowed
/// in a LINEAR partition, spec §8.8 rule 3). O(n): the upper and lower convex
/// hulls of the points, then a walk over their edge slopes.
template <typename T>
MinimaxLine FitMinimaxLine(const T* values, uint32_t n, int64_t min, int64_t max);

}  // namespace l3::internal
