// DELTA of order K (spec §8.9): the K running sums of one row of a tile in
// closed form, shared by the CPU reference decoder and the CUDA backend.
//
// The recurrence of §8.9 sums the tile's rows K times in row order. Unrolled,
// with i = x - t*S the row's place in its tile and l = K - 1 - k,
//
//   a_k(x) = sum_{q=0..l} C(i + q, q) Seed[t][k + q]
//            + C(i + l + 1, l + 1) Delta_Base
//            + sum_{j = t*S .. x} C(x - j + l, l) u(j)          (mod 2^64)
//
// (a row's term enters a_{K-1} once, and each lower sum adds the one above
// it, so a term j rows back is counted C(j + l, l) times: the hockey-stick
// identity sums the Delta_Base terms). The weights are exact integers: a tile
// has at most 32 * 1024 rows, so C(d + 3, 3) < 2^46. The last sum may be
// taken in any order, so a random access sums each lane's run of fields
// (spec §8.5: lane L holds rows t*S + L + 32 s) without putting the tile in
// row order. Along a run of c fields the weight is a polynomial in the step
// s, so a lane keeps three nested running sums of its fields (additions
// only: n0 adds u_s, n1 adds n0, n2 adds n1), which weight u_s by 1, r and
// C(r + 1, 2) with r = c - s, and its weights are applied once: with
// D = i - L and E = D - 32 c, in [-32, -1] (so x - j = D - 32 s = E + 32 r),
//
//   sum C(E + 32 r + 1, 1) u_s = (E + 1) n0 + 32 n1
//   sum C(E + 32 r + 2, 2) u_s = C(E + 2, 2) n0 + (32 E - 464) n1 + 1024 n2
//
// (the second from C(E + 32 r + 2, 2) = C(E + 2, 2) + 16 (2 E + 3) r +
// 512 r^2 and r^2 = 2 C(r + 1, 2) - r).
#pragma once

#include <cstdint>

#include "codec/delta/delta_layout.hpp"

namespace l3::internal {

/// C(d + level, level) for level 0..3 and d < 2^15 (exact); for d = 2^64 - 1
/// (row -1 of a tile) every level but 0 gives 0.
L3_HD uint64_t DeltaOrderWeight(uint32_t level, uint64_t d) {
  switch (level) {
    case 0:
      return 1;
    case 1:
      return d + 1;
    case 2:
      return (d + 1) * (d + 2) / 2;
    default:
      return (d + 1) * (d + 2) * (d + 3) / 6;
  }
}

/// The nested running sums of one lane's run of fields, mod 2^64: after c
/// fields u_0 .. u_{c-1}, n0 = sum u_s, n1 = sum (c - s) u_s and n2 = sum
/// C(c - s + 1, 2) u_s.
struct DeltaLaneSums {
  uint64_t n0 = 0;
  uint64_t n1 = 0;
  uint64_t n2 = 0;

  L3_HD void Add(uint64_t u) {
    n0 += u;
    n1 += n0;
    n2 += n1;
  }
};

/// The K running sums a_0 .. a_{K-1} of one row of a tile (spec §8.9), built
/// term by term from the formula above. `in_tile` is i; `order` is K.
class DeltaOrderSums {
 public:
  /// The Seed and Delta_Base terms; seeds[k] is Seed[t][k] for k < K.
  L3_HD DeltaOrderSums(uint32_t order, uint64_t in_tile, const uint64_t* seeds,
                       uint64_t delta_base)
      : order_(order), in_tile_(in_tile) {
    for (uint32_t k = 0; k < kMaxDeltaOrder; ++k) {
      sums_[k] = 0;
      if (k >= order) continue;
      const uint32_t depth = order - 1 - k;  // l
      for (uint32_t q = 0; q <= depth; ++q) sums_[k] += DeltaOrderWeight(q, in_tile) * seeds[k + q];
      sums_[k] += DeltaOrderWeight(depth + 1, in_tile) * delta_base;
    }
  }

  /// The first `count` fields of lane `lane` (<= i) of the tile, the rows up
  /// to i, as their nested sums (for K = 1, n0 alone is read).
  L3_HD void AddLane(uint32_t lane, uint64_t count, const DeltaLaneSums& m) {
    const int64_t e = static_cast<int64_t>(in_tile_ - lane) - 32 * static_cast<int64_t>(count);
    const auto e_u = static_cast<uint64_t>(e);  // E mod 2^64
    for (uint32_t k = 0; k < order_; ++k) {
      switch (order_ - 1 - k) {
        case 0:
          sums_[k] += m.n0;
          break;
        case 1:
          sums_[k] += (e_u + 1) * m.n0 + 32 * m.n1;
          break;
        default:
          // (E + 1)(E + 2) >= 0 for every integer E, so the halving is exact.
          sums_[k] += static_cast<uint64_t>((e + 1) * (e + 2) / 2) * m.n0 +
                      (32 * e_u - 464) * m.n1 + 1024 * m.n2;
          break;
      }
    }
  }

  /// A term `add` (an exception's high part shifted by Bit_Width) of the
  /// tile's row `row_in_tile` <= i.
  L3_HD void AddRow(uint64_t row_in_tile, uint64_t add) {
    for (uint32_t k = 0; k < order_; ++k) {
      sums_[k] += DeltaOrderWeight(order_ - 1 - k, in_tile_ - row_in_tile) * add;
    }
  }

  /// a_k, mod 2^64 (the caller keeps N bits); 0 for k >= K.
  L3_HD uint64_t operator[](uint32_t k) const { return sums_[k]; }

 private:
  uint32_t order_;
  uint64_t in_tile_;
  uint64_t sums_[kMaxDeltaOrder];
};

}  // namespace l3::internal
