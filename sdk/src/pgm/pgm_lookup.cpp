// spec §11.3.3–§11.3.4: the prediction every reader computes, and the checks
// of a stored index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/status_macros.hpp"
#include "pgm/pgm.hpp"

namespace l3::internal {
namespace {

Status Bad(const std::string& what) {
  return Status(StatusCode::kCorruptMetadata, "pgm: " + what);
}

}  // namespace

Status ValidatePgmIndex(const PgmIndexInfo& pgm, uint64_t num_rows) {
  if (pgm.num_keys != num_rows) return Bad("num_keys differs from the chunk's num_rows");
  if (num_rows == 0) return Bad("index of an empty chunk");
  if (pgm.epsilon > kPgmMaxEpsilon || pgm.epsilon_recursive > kPgmMaxEpsilon) {
    return Bad("epsilon or epsilon_recursive above 2^30");
  }
  const size_t n = pgm.keys.size();
  if (pgm.slopes.size() != n || pgm.intercepts.size() != n) {
    return Bad("segment_keys, segment_slopes and segment_intercepts differ in length");
  }
  const std::vector<uint32_t>& off = pgm.level_offsets;
  if (off.size() < 2 || off.front() != 0 || off.back() != n) {
    return Bad("level_offsets must start at 0 and end at the segment count");
  }
  if (pgm.epsilon_recursive == 0 && off.size() != 2) return Bad("levels above the leaf with epsilon_recursive 0");
  uint64_t level_n = num_rows;  // positions a level predicts: rows, then segments below
  for (size_t l = 0; l + 1 < off.size(); ++l) {
    if (off[l + 1] <= off[l]) return Bad("level " + std::to_string(l) + " has no segment");
    const uint64_t count = off[l + 1] - off[l];
    if (count > level_n + 1) return Bad("level " + std::to_string(l) + " has too many segments");
    for (uint64_t s = off[l]; s < off[l + 1]; ++s) {
      if (s > off[l] && pgm.keys[s] <= pgm.keys[s - 1]) {
        return Bad("segment_keys not increasing in level " + std::to_string(l));
      }
      uint32_t bits;
      std::memcpy(&bits, &pgm.slopes[s], sizeof bits);
      if ((bits >> 31) != 0 || !std::isfinite(pgm.slopes[s])) {
        return Bad("segment_slopes must be finite and non-negative");
      }
      if (pgm.intercepts[s] > level_n ||
          (s > off[l] && pgm.intercepts[s] < pgm.intercepts[s - 1])) {
        return Bad("segment_intercepts not non-decreasing within [0, n] in level " +
                   std::to_string(l));
      }
    }
    level_n = count;
  }
  if (off[off.size() - 1] - off[off.size() - 2] != 1) return Bad("the top level has more than one segment");
  return Status::OK();
}

namespace {

// spec §11.3.3 from leaf segment s (the last whose first key is <= x): the
// binary64 product of the widened slope and the rounded key distance, then
// the clamps.
PgmWindow PredictFromSegment(const PgmIndexInfo& pgm, uint64_t s, uint64_t x) {
  const uint64_t n = pgm.num_keys;
  const uint64_t leaf_end = pgm.level_offsets[1];
  const double t = static_cast<double>(pgm.slopes[s]) * static_cast<double>(x - pgm.keys[s]);
  const uint64_t base = pgm.intercepts[s];
  uint64_t p = n;
  if (t < 18446744073709551616.0) {
    const uint64_t f = static_cast<uint64_t>(t);
    if (base <= n && f < n - base) p = base + f;
  }
  const uint64_t cap = s + 1 < leaf_end ? pgm.intercepts[s + 1] : n;
  p = std::min(p, cap);
  const uint64_t eps = pgm.epsilon;
  PgmWindow w;
  w.lo = p > eps ? p - eps : 0;
  w.hi = n - p > eps + 2 ? p + eps + 2 : n;
  return w;
}

}  // namespace

PgmWindow PgmPredict(const PgmIndexInfo& pgm, uint64_t x) {
  const uint64_t leaf_end = pgm.level_offsets[1];
  const uint64_t* keys = pgm.keys.data();
  // The last leaf segment whose first key is <= x; below the first, row 0.
  const uint64_t* it = std::upper_bound(keys, keys + leaf_end, x);
  if (it == keys) return {0, 0};
  return PredictFromSegment(pgm, static_cast<uint64_t>(it - keys) - 1, x);
}

PgmWindow PgmPredictSorted(const PgmIndexInfo& pgm, uint64_t x, uint64_t* segments_below) {
  const uint64_t leaf_end = pgm.level_offsets[1];
  const uint64_t* keys = pgm.keys.data();
  // Segments [0, lo) have first keys <= the previous key <= x, so the first
  // segment whose key is > x lies in [lo, leaf_end]: found by galloping
  // (steps 1, 2, 4, ... past lo) and then bisecting the last step.
  uint64_t lo = std::min(*segments_below, leaf_end);
  uint64_t step = 1;
  uint64_t hi = lo;
  while (hi < leaf_end && keys[hi] <= x) {
    lo = hi + 1;
    hi = std::min(leaf_end, hi + step);
    step *= 2;
  }
  const uint64_t u = static_cast<uint64_t>(std::upper_bound(keys + lo, keys + hi, x) - keys);
  *segments_below = u;
  if (u == 0) return {0, 0};
  return PredictFromSegment(pgm, u - 1, x);
}

}  // namespace l3::internal
