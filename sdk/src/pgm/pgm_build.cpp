// spec §11.3.2: the greedy optimal piecewise linear segmentation. Each
// segment is the longest run of points that one line fits within ±epsilon;
// the feasible lines are tracked with two convex hulls (upper ends of the
// points' tolerance intervals, lower ends) and the two extreme lines, in
// exact 128-bit integer arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pgm/pgm.hpp"

namespace l3::internal {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

struct Point {
  uint64_t x;
  int64_t y;
};

// The direction from b to a; dx may be negative for points taken backwards.
struct Dir {
  i128 dx;
  i128 dy;
};

Dir Sub(const Point& a, const Point& b) {
  return {static_cast<i128>(a.x) - static_cast<i128>(b.x),
          static_cast<i128>(a.y) - static_cast<i128>(b.y)};
}
// Compares slopes of two directions whose dx have the same sign.
bool Less(const Dir& a, const Dir& b) { return a.dy * b.dx < b.dy * a.dx; }
bool Greater(const Dir& a, const Dir& b) { return a.dy * b.dx > b.dy * a.dx; }
i128 Cross(const Point& o, const Point& a, const Point& b) {
  const Dir oa = Sub(a, o);
  const Dir ob = Sub(b, o);
  return oa.dx * ob.dy - oa.dy * ob.dx;
}

// The feasible-line tracker of one segment under construction.
class Segmenter {
 public:
  explicit Segmenter(uint32_t epsilon) : eps_(epsilon) {}

  // Adds (x, y), x above every point added; false if no line fits the
  // segment's points and this one (the point is then not part of it).
  bool Add(uint64_t x, int64_t y) {
    const Point top{x, y + eps_};
    const Point bottom{x, y > eps_ ? y - eps_ : 0};  // the tolerance is clamped at 0
    if (count_ == 0) {
      first_x_ = x;
      first_y_ = y;
      ext_[0] = top;
      ext_[1] = bottom;
      upper_.assign(1, top);
      lower_.assign(1, bottom);
      upper_from_ = lower_from_ = 0;
      ++count_;
      return true;
    }
    if (count_ == 1) {
      ext_[2] = bottom;
      ext_[3] = top;
      upper_.push_back(top);
      lower_.push_back(bottom);
      ++count_;
      return true;
    }
    // ext_[0]->ext_[2] is the least steep feasible line, ext_[1]->ext_[3]
    // the steepest. The interval [bottom, top] must meet the wedge between.
    const Dir least = Sub(ext_[2], ext_[0]);
    const Dir most = Sub(ext_[3], ext_[1]);
    if (Less(Sub(top, ext_[2]), least) || Greater(Sub(bottom, ext_[3]), most)) {
      count_ = 0;
      return false;
    }
    if (Less(Sub(top, ext_[1]), most)) {
      // The steepest line now passes through `top` and the lower-hull point
      // that gives the smallest slope to it.
      size_t best = lower_from_;
      Dir best_dir = Sub(lower_[best], top);
      for (size_t i = lower_from_ + 1; i < lower_.size(); ++i) {
        const Dir d = Sub(lower_[i], top);
        if (Greater(d, best_dir)) break;
        best_dir = d;
        best = i;
      }
      ext_[1] = lower_[best];
      ext_[3] = top;
      lower_from_ = best;
      size_t end = upper_.size();
      while (end >= upper_from_ + 2 && Cross(upper_[end - 2], upper_[end - 1], top) <= 0) --end;
      upper_.resize(end);
      upper_.push_back(top);
    }
    if (Greater(Sub(bottom, ext_[0]), least)) {
      size_t best = upper_from_;
      Dir best_dir = Sub(upper_[best], bottom);
      for (size_t i = upper_from_ + 1; i < upper_.size(); ++i) {
        const Dir d = Sub(upper_[i], bottom);
        if (Less(d, best_dir)) break;
        best_dir = d;
        best = i;
      }
      ext_[0] = upper_[best];
      ext_[2] = bottom;
      upper_from_ = best;
      size_t end = lower_.size();
      while (end >= lower_from_ + 2 && Cross(lower_[end - 2], lower_[end - 1], bottom) >= 0) --end;
      lower_.resize(end);
      lower_.push_back(bottom);
    }
    ++count_;
    return true;
  }

  // §11.3.2 segment parameters, the intercept clamped to [0, level_n].
  void Emit(uint64_t level_n, PgmIndexInfo* out) const {
    out->keys.push_back(first_x_);
    if (count_ == 1) {
      out->slopes.push_back(0.0f);
      out->intercepts.push_back(static_cast<uint64_t>(first_y_));
      return;
    }
    const Dir s = Sub(ext_[3], ext_[1]);  // dx > 0, dy >= 0
    out->slopes.push_back(PgmSlope(static_cast<u128>(s.dy), static_cast<u128>(s.dx)));
    // The steepest line's value at first_x, rounded half away from zero.
    const i128 num = s.dy * (static_cast<i128>(first_x_) - static_cast<i128>(ext_[1].x));  // <= 0
    const i128 q = (num - s.dx / 2) / s.dx;
    i128 intercept = q + ext_[1].y;
    intercept = std::max<i128>(0, std::min<i128>(intercept, static_cast<i128>(level_n)));
    out->intercepts.push_back(static_cast<uint64_t>(intercept));
  }

  size_t count() const { return count_; }

 private:
  int64_t eps_;
  uint64_t first_x_ = 0;
  int64_t first_y_ = 0;
  Point ext_[4]{};
  std::vector<Point> upper_, lower_;
  size_t upper_from_ = 0, lower_from_ = 0;
  size_t count_ = 0;
};

int BitLength(u128 v) {
  int n = 0;
  while (v != 0) {
    v >>= 1;
    ++n;
  }
  return n;
}

}  // namespace

float PgmSlope(u128 dy, u128 dx) {
  if (dy == 0) return 0.0f;
  int e = 23 - (BitLength(dy) - BitLength(dx));
  for (;;) {
    const u128 num = e >= 0 ? dy << e : dy;
    const u128 den = e >= 0 ? dx : dx << -e;
    u128 q = num / den;
    if (q < (u128{1} << 23)) {
      ++e;
      continue;
    }
    if (q >= (u128{1} << 24)) {
      --e;
      continue;
    }
    const u128 rem = num - q * den;
    if (2 * rem > den || (2 * rem == den && (q & 1) != 0)) ++q;
    if (q == (u128{1} << 24)) {
      q >>= 1;
      --e;
    }
    return std::ldexp(static_cast<float>(static_cast<uint32_t>(q)), -e);
  }
}

uint64_t PgmSegmentLevel(const uint64_t* keys, uint64_t n, uint32_t epsilon, PgmIndexInfo* out) {
  Segmenter seg(epsilon);
  uint64_t made = 0;
  const auto add = [&](uint64_t x, uint64_t y) {
    if (!seg.Add(x, static_cast<int64_t>(y))) {
      seg.Emit(n, out);
      ++made;
      seg.Add(x, static_cast<int64_t>(y));
    }
  };
  // §11.3.2 the point set: each distinct key at the rank of its first
  // occurrence; after a run of equal keys x followed by a key above x + 1,
  // the point (x + 1, last rank of the run); finally (last key + 1, n).
  add(keys[0], 0);
  for (uint64_t i = 1; i + 1 < n; ++i) {
    if (keys[i] == keys[i - 1]) {
      if (keys[i] + 1 < keys[i + 1]) add(keys[i] + 1, i);
    } else {
      add(keys[i], i);
    }
  }
  if (n >= 2 && keys[n - 1] != keys[n - 2]) add(keys[n - 1], n - 1);
  if (keys[n - 1] != UINT64_MAX) add(keys[n - 1] + 1, n);
  seg.Emit(n, out);
  return made + 1;
}

PgmIndexInfo BuildPgmIndex(const uint64_t* keys, uint64_t n, uint32_t epsilon,
                           uint32_t epsilon_recursive) {
  PgmIndexInfo pgm;
  pgm.present = true;
  pgm.epsilon = epsilon;
  pgm.epsilon_recursive = epsilon_recursive;
  pgm.num_keys = n;
  pgm.level_offsets.push_back(0);
  uint64_t level_n = PgmSegmentLevel(keys, n, epsilon, &pgm);
  pgm.level_offsets.push_back(static_cast<uint32_t>(pgm.keys.size()));
  // Upper levels index the first keys of the level below, until one segment.
  while (epsilon_recursive != 0 && level_n > 1) {
    const size_t begin = pgm.level_offsets[pgm.level_offsets.size() - 2];
    const std::vector<uint64_t> below(pgm.keys.begin() + static_cast<std::ptrdiff_t>(begin),
                                      pgm.keys.end());
    level_n = PgmSegmentLevel(below.data(), below.size(), epsilon_recursive, &pgm);
    pgm.level_offsets.push_back(static_cast<uint32_t>(pgm.keys.size()));
  }
  return pgm;
}

}  // namespace l3::internal
