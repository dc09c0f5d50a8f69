// Tests of the encoder's fast paths: each must give exactly what the plain
// computation gives (the writer's bytes may not depend on which ran).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <random>
#include <vector>

#include "codec/delta/delta_encode.hpp"
#include "codec/encode/fit_arith.hpp"
#include "codec/encode/fit_memo.hpp"
#include "codec/encode/minimax_line.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/partitioner.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "common/bits.hpp"

using namespace l3::internal;

namespace {

// The deltas at ranks m / divisors[i] of the sorted deltas (0 where the rank is 0).
void RanksBySorting(std::vector<int64_t> deltas, const uint32_t (&divisors)[kNumDeltaRanks],
                    int64_t (&at_rank)[kNumDeltaRanks]) {
  std::sort(deltas.begin(), deltas.end());
  for (int i = 0; i < kNumDeltaRanks; ++i) {
    const uint64_t rank = deltas.size() / divisors[i];
    at_rank[i] = rank == 0 ? 0 : deltas[rank];
  }
}

// Deltas of several shapes: narrow, wide, skewed by a few outliers, all equal.
std::vector<int64_t> MakeDeltas(std::mt19937_64& rng, int shape, size_t m) {
  std::vector<int64_t> d(m);
  for (size_t i = 0; i < m; ++i) {
    const uint64_t r = rng();
    switch (shape) {
      case 0: d[i] = static_cast<int64_t>(r % 100) - 7; break;                        // narrow
      case 1: d[i] = static_cast<int64_t>(r >> 23) - (int64_t{1} << 40); break;      // 41 bits
      case 2: d[i] = (r % 64 == 0) ? -static_cast<int64_t>(r >> 20) : int64_t(r % 5000); break;
      case 3: d[i] = 12345; break;                                                    // all equal
      case 4: d[i] = (r % 3 == 0) ? int64_t(r % 7) << 30 : int64_t(r % 9); break;    // clustered
      default: d[i] = static_cast<int64_t>(r); break;                                 // full 64 bits
    }
  }
  return d;
}

}  // namespace

TEST_CASE("DeltaRanks equals selection by sorting, with and without width counts") {
  std::mt19937_64 rng(14);
  const uint32_t (&divisors)[kNumDeltaRanks] = kDeltaRankDivisors;
  for (int shape = 0; shape <= 5; ++shape) {
    for (size_t m : {size_t{1}, size_t{3}, size_t{4}, size_t{63}, size_t{64}, size_t{255},
                     size_t{1000}, size_t{8191}, size_t{40000}}) {
      const std::vector<int64_t> deltas = MakeDeltas(rng, shape, m);
      int64_t expected[kNumDeltaRanks];
      RanksBySorting(deltas, divisors, expected);
      const int64_t min_delta = *std::min_element(deltas.begin(), deltas.end());
      // rows_of_length[k]: deltas whose d - min_delta is k bits long.
      uint64_t rows_of_length[65] = {};
      for (int64_t d : deltas) ++rows_of_length[BitLength(static_cast<uint64_t>(d) - static_cast<uint64_t>(min_delta))];
      for (bool with_counts : {true, false}) {
        CAPTURE(shape);
        CAPTURE(m);
        CAPTURE(with_counts);
        std::vector<int64_t> work = deltas;
        int64_t got[kNumDeltaRanks] = {};
        DeltaRanks(work, min_delta, with_counts ? rows_of_length : nullptr, divisors, got);
        for (int i = 0; i < kNumDeltaRanks; ++i) {
          if (m / divisors[i] == 0) continue;
          CHECK(got[i] == expected[i]);
        }
      }
    }
  }
}

namespace {

// Sign-extends the low 8 * sizeof(U) bits of d: an N-bit key as the fits hold it.
template <typename U>
int64_t AsKey(int64_t d) {
  using S = std::make_signed_t<U>;
  return static_cast<int64_t>(static_cast<S>(static_cast<U>(d)));
}

// The Base candidates and width counts by the three passes (CountDeltaWidths,
// DeltaRanks, CountDeltaWidthsOfBases), which KeyBasesAndWidthsBucketed must equal.
template <typename U>
DeltaBases BasesByPasses(std::vector<int64_t> keys, int64_t lo, uint64_t (*rows_of_width)[65]) {
  CountDeltaWidths<U>(keys, static_cast<U>(lo), rows_of_width[0]);
  int64_t at_rank[kNumDeltaRanks] = {};
  DeltaRanks(keys, lo, rows_of_width[0], kDeltaRankDivisors, at_rank);
  const DeltaBases bases = DistinctDeltaBases(lo, at_rank, static_cast<uint32_t>(keys.size()));
  U others[kNumDeltaRanks] = {};
  for (int j = 1; j < bases.count; ++j) others[j - 1] = static_cast<U>(bases.value[j]);
  if (bases.count > 1) CountDeltaWidthsOfBases<U>(keys, others, bases.count - 1, rows_of_width + 1);
  return bases;
}

template <typename U>
void CheckBucketedBases(std::mt19937_64& rng, int* taken) {
  for (int shape = 0; shape <= 7; ++shape) {
    for (size_t m : {size_t{1}, size_t{3}, size_t{4}, size_t{63}, size_t{255}, size_t{1000},
                     size_t{8191}}) {
      std::vector<int64_t> keys = MakeDeltas(rng, shape < 6 ? shape : 0, m);
      if (shape == 6) {
        // Normal-like keys, wider than the buckets: buckets of several values.
        for (size_t i = 0; i < m; ++i) keys[i] = static_cast<int64_t>(rng() % 3001 + rng() % 3001);
      }
      if (shape == 7) {
        // Steady keys with a few far above (event times with pauses): the
        // first bucket is crowded and the buckets are refined below it.
        for (size_t i = 0; i < m; ++i) {
          keys[i] = rng() % 50 == 0 ? static_cast<int64_t>(rng() >> 30) : 1000 + rng() % 97;
        }
      }
      for (int64_t& k : keys) k = AsKey<U>(k);
      const int64_t lo = *std::min_element(keys.begin(), keys.end());
      const int64_t hi = *std::max_element(keys.begin(), keys.end());
      uint64_t expected[kMaxDeltaBases][65] = {};
      const DeltaBases want = BasesByPasses<U>(keys, lo, expected);
      uint64_t got[kMaxDeltaBases][65] = {};
      DeltaBases have;
      CAPTURE(sizeof(U));
      CAPTURE(shape);
      CAPTURE(m);
      if (!KeyBasesAndWidthsBucketed<U>(keys, lo, hi, &have, got)) continue;
      ++*taken;
      REQUIRE(have.count == want.count);
      for (int j = 0; j < want.count; ++j) {
        CHECK(have.value[j] == want.value[j]);
        for (int b = 0; b <= 64; ++b) CHECK(got[j][b] == expected[j][b]);
      }
    }
  }
}

// ChooseDeltaWidthFromCounts as one loop over every width (its definition).
DeltaChoice ChooseWidthByEveryWidth(const uint64_t (&rows_of_width)[65], uint32_t n,
                                    const SignedHighSpan& span, bool allow_rows_ef) {
  uint32_t max_width = 64;
  while (max_width > 0 && rows_of_width[max_width] == 0) --max_width;
  uint32_t best_w = max_width;
  uint64_t best_bits = uint64_t{n} * max_width;
  uint64_t wider = 0;
  for (uint32_t w = max_width; w-- > 0;) {
    wider += rows_of_width[w + 1];
    const uint64_t bits = uint64_t{n} * w + CheapestRowListBits(n, wider, allow_rows_ef) +
                          wider * ExceptionHighWidth(max_width, w, span).width;
    if ((bits + 63) / 64 < (best_bits + 63) / 64) {
      best_bits = bits;
      best_w = w;
    }
  }
  uint32_t exceptions = 0;
  for (uint32_t b = best_w + 1; b <= max_width; ++b) {
    exceptions += static_cast<uint32_t>(rows_of_width[b]);
  }
  return MakeDeltaChoice(best_bits, best_w, max_width, exceptions, n, span, allow_rows_ef);
}

}  // namespace

TEST_CASE("The bucketed key histogram gives the Base candidates and width counts of the passes") {
  std::mt19937_64 rng(29);
  int taken = 0;
  CheckBucketedBases<uint8_t>(rng, &taken);
  CheckBucketedBases<uint16_t>(rng, &taken);
  CheckBucketedBases<uint32_t>(rng, &taken);
  CheckBucketedBases<uint64_t>(rng, &taken);
  // Most shapes are narrow enough for the histogram; skewed ones fall back.
  CHECK(taken > 60);
}

TEST_CASE("ChooseDeltaWidthFromCounts equals its loop over every width") {
  std::mt19937_64 rng(31);
  int cases = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    uint64_t rows_of_width[65] = {};
    // A few occupied widths, as deltas give: a cluster, a tail, and wrapped
    // keys at the top width.
    const uint32_t top = 1 + static_cast<uint32_t>(rng() % 64);
    uint64_t total = 0;
    const int occupied = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < occupied; ++k) {
      const uint32_t b = static_cast<uint32_t>(rng() % (top + 1));
      const uint64_t c = rng() % 4 == 0 ? 1 + rng() % 3 : rng() % 400;
      rows_of_width[b] += c;
      total += c;
    }
    if (total == 0) continue;
    const uint32_t n = static_cast<uint32_t>(total + rng() % 2);
    SignedHighSpan span;
    span.usable = rng() % 2 == 0;
    span.above = rng() >> (rng() % 64);
    span.below = rng() >> (rng() % 64);
    for (bool rows_ef : {false, true}) {
      const DeltaChoice want = ChooseWidthByEveryWidth(rows_of_width, n, span, rows_ef);
      const DeltaChoice got = ChooseDeltaWidthFromCounts(rows_of_width, n, span, rows_ef);
      CAPTURE(trial);
      CHECK(got.bits == want.bits);
      CHECK(got.width == want.width);
      CHECK(got.max_width == want.max_width);
      CHECK(got.exceptions == want.exceptions);
      CHECK(got.high_width == want.high_width);
      CHECK(got.signed_highs == want.signed_highs);
      CHECK(got.rows_ef == want.rows_ef);
      ++cases;
    }
  }
  CHECK(cases > 30000);
}

namespace {

bool SameFit(const PartitionFit& a, const PartitionFit& b) {
  return a.num_rows == b.num_rows && a.model_type == b.model_type && a.bit_width == b.bit_width &&
         a.base == b.base && a.num_runs == b.num_runs && a.exceptions == b.exceptions &&
         std::memcmp(a.theta, b.theta, sizeof a.theta) == 0 &&
         a.min_value == b.min_value && a.max_value == b.max_value &&
         a.payload_words == b.payload_words && a.cost_bytes == b.cost_bytes &&
         a.value_runs == b.value_runs;
}

// Values of several shapes: a noisy line, runs, a quadratic, uniform noise,
// steps of a constant with noise, wide random values.
template <typename T>
std::vector<T> MakeValues(std::mt19937_64& rng, int shape, size_t n) {
  using Wide = std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>;
  std::vector<T> v(n);
  Wide run_value = 0;
  for (size_t x = 0; x < n; ++x) {
    const uint64_t r = rng();
    Wide value = 0;
    switch (shape) {
      case 0: value = static_cast<Wide>(3 * x + r % 9); break;
      case 1:
        if (r % 13 == 0) run_value = static_cast<Wide>(r >> 40);
        value = run_value;
        break;
      case 2: value = static_cast<Wide>(x * x / 7 + r % 3); break;
      case 3: value = static_cast<Wide>(r % 1000); break;
      case 4: value = static_cast<Wide>(5 * (x / 300) + r % 7); break;
      default: value = static_cast<Wide>(r); break;
    }
    v[x] = static_cast<T>(value);
  }
  return v;
}

template <typename T>
void CheckUnionFits() {
  std::mt19937_64 rng(1400 + sizeof(T));
  FitOptions options;
  for (bool minimax : {false, true}) {
    options.minimax_lines = minimax;
    for (int shape = 0; shape <= 5; ++shape) {
      for (uint32_t left_rows : {1u, 31u, 256u, 1000u}) {
        for (uint32_t right_rows : {1u, 64u, 777u}) {
          const std::vector<T> v = MakeValues<T>(rng, shape, left_rows + right_rows);
          const uint32_t n = left_rows + right_rows;
          PartitionHulls left_hulls, right_hulls, whole_hulls, union_hulls;
          const PartitionFit left = FitBestModel(v.data(), left_rows, options, &left_hulls);
          const PartitionFit right =
              FitBestModel(v.data() + left_rows, right_rows, options, &right_hulls);
          const PartitionFit whole = FitBestModel(v.data(), n, options, &whole_hulls);
          CAPTURE(shape);
          CAPTURE(left_rows);
          CAPTURE(right_rows);
          CAPTURE(minimax);
          CHECK(SameFit(FitBestModelOfUnion(v.data(), left, right, options), whole));
          // With the parts' hulls (joined where both are known).
          CHECK(SameFit(FitBestModelOfUnion(v.data(), left, right, options, &left_hulls,
                                            &right_hulls, &union_hulls),
                        whole));
          CHECK(union_hulls.valid == whole_hulls.valid);
          if (union_hulls.valid) {
            CHECK(union_hulls.hulls.upper == whole_hulls.hulls.upper);
            CHECK(union_hulls.hulls.lower == whole_hulls.hulls.lower);
          }
          // The hulls of the parts always join to the union's.
          if (sizeof(T) < 8 || shape != 5) {
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            const auto [left_lo, left_hi] = std::minmax_element(v.begin(), v.begin() + left_rows);
            const auto [right_lo, right_hi] = std::minmax_element(v.begin() + left_rows, v.end());
            LineHulls a, b, joined, built;
            BuildLineHulls(v.data(), left_rows, int64_t(*left_lo), int64_t(*left_hi), &a);
            BuildLineHulls(v.data() + left_rows, right_rows, int64_t(*right_lo), int64_t(*right_hi), &b);
            JoinLineHulls(v.data(), a, left_rows, b, right_rows, int64_t(*lo), int64_t(*hi), &joined);
            BuildLineHulls(v.data(), n, int64_t(*lo), int64_t(*hi), &built);
            CHECK(joined.upper == built.upper);
            CHECK(joined.lower == built.lower);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("FitBestModelOfUnion equals FitBestModel of the union, for every type") {
  CheckUnionFits<int8_t>();
  CheckUnionFits<int16_t>();
  CheckUnionFits<int32_t>();
  CheckUnionFits<int64_t>();
  CheckUnionFits<uint8_t>();
  CheckUnionFits<uint16_t>();
  CheckUnionFits<uint32_t>();
  CheckUnionFits<uint64_t>();
}

namespace {

// The minimax line by the monotone chain over every point (what
// FitMinimaxLine computed before it skipped the points that cannot be hull
// vertices), with the same breakpoint walk and exact 128-bit arithmetic.
template <typename T>
MinimaxLine MinimaxOverAllPoints(const T* v, uint32_t n) {
  using Wide = __int128;
  MinimaxLine line;
  if (n < 2) {
    line.intercept = FitValue(v[0]);
    return line;
  }
  const auto cross = [&](uint32_t o, uint32_t a, uint32_t b) {
    return static_cast<Wide>(static_cast<int64_t>(a) - o) * (static_cast<Wide>(v[b]) - v[o]) -
           (static_cast<Wide>(v[a]) - v[o]) * static_cast<Wide>(static_cast<int64_t>(b) - o);
  };
  std::vector<uint32_t> upper, lower;
  for (uint32_t x = 0; x < n; ++x) {
    while (upper.size() >= 2 && cross(upper[upper.size() - 2], upper.back(), x) >= 0) upper.pop_back();
    upper.push_back(x);
    while (lower.size() >= 2 && cross(lower[lower.size() - 2], lower.back(), x) <= 0) lower.pop_back();
    lower.push_back(x);
  }
  struct Slope {
    Wide dy, dx;
  };
  const auto edge = [&](uint32_t a, uint32_t b) {
    return Slope{static_cast<Wide>(v[b]) - static_cast<Wide>(v[a]), static_cast<Wide>(b) - a};
  };
  const auto less = [](const Slope& p, const Slope& q) { return p.dy * q.dx < q.dy * p.dx; };
  size_t iu = upper.size() - 1, il = 0;
  Slope best = edge(0, n - 1);
  while (true) {
    const bool has_upper = iu > 0, has_lower = il + 1 < lower.size();
    if (!has_upper && !has_lower) break;
    const Slope su = has_upper ? edge(upper[iu - 1], upper[iu]) : Slope{0, 0};
    const Slope sl = has_lower ? edge(lower[il], lower[il + 1]) : Slope{0, 0};
    bool move_upper = has_upper, move_lower = has_lower;
    if (has_upper && has_lower) {
      move_upper = !less(sl, su);
      move_lower = !less(su, sl);
    }
    best = move_upper ? su : sl;
    if (move_upper) --iu;
    if (move_lower) ++il;
    if (lower[il] >= upper[iu]) break;
  }
  const Wide top = best.dx * static_cast<Wide>(v[upper[iu]]) - best.dy * upper[iu];
  const Wide bottom = best.dx * static_cast<Wide>(v[lower[il]]) - best.dy * lower[il];
  // The line's rounding as fit_arith.hpp defines it (spec §14.3).
  const double dx = WideToDouble(best.dx);
  line.slope = WideToDouble(best.dy) / dx;
  line.spread = WideToDouble(top - bottom) / dx;
  line.intercept = WideToDouble(top + bottom) / (2 * dx);
  return line;
}

template <typename T>
void CheckMinimaxLines() {
  std::mt19937_64 rng(77 + sizeof(T));
  for (int shape = 0; shape <= 5; ++shape) {
    for (uint32_t n : {1u, 2u, 3u, 5u, 64u, 300u, 2049u}) {
      std::vector<T> v = MakeValues<T>(rng, shape, n);
      if (sizeof(T) == 8) {
        for (T& value : v) value = static_cast<T>(value / 4);  // FitMinimaxLine needs |v| <= 2^62
      }
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      const MinimaxLine got = FitMinimaxLine(v.data(), n, static_cast<int64_t>(*lo), static_cast<int64_t>(*hi));
      const MinimaxLine expected = MinimaxOverAllPoints(v.data(), n);
      CAPTURE(shape);
      CAPTURE(n);
      CHECK(std::memcmp(&got.slope, &expected.slope, sizeof got.slope) == 0);
      CHECK(got.spread == expected.spread);
      CHECK(got.intercept == expected.intercept);
    }
  }
}

}  // namespace

namespace {

// Pieces of the MakeValues shapes, each a few hundred to a few thousand rows,
// with rare wide outliers among steady values, so that PATCHED_FOR wins some
// partitions and the plans with and without it part ways.
template <typename T>
std::vector<T> MakeMixedColumn(std::mt19937_64& rng, size_t n) {
  std::vector<T> v;
  v.reserve(n);
  while (v.size() < n) {
    const size_t rows = std::min<size_t>(n - v.size(), 200 + rng() % 3000);
    const int shape = static_cast<int>(rng() % 7);
    std::vector<T> piece = MakeValues<T>(rng, shape == 6 ? 3 : shape, rows);
    if (shape == 6) {
      for (T& value : piece) {
        if (rng() % 40 == 0) value = static_cast<T>(rng());
      }
    }
    v.insert(v.end(), piece.begin(), piece.end());
  }
  return v;
}

template <typename T>
void CheckFitMemo() {
  std::mt19937_64 rng(3100 + sizeof(T));
  for (bool minimax : {false, true}) {
    for (uint32_t split_min_rows : {0u, 64u}) {
      const std::vector<T> v = MakeMixedColumn<T>(rng, 60000);
      PartitionPlanOptions options;
      options.minimax_lines = minimax;
      options.split_min_rows = split_min_rows;
      options.num_threads = 2;
      FitMemo memo;
      options.record_fits = &memo;
      const std::vector<PlannedPartition> with_patched =
          PlanPartitions(v.data(), v.size(), options);
      CAPTURE(minimax);
      CAPTURE(split_min_rows);
      CHECK_FALSE(memo.Covers(v.size()));  // not yet sealed
      memo.Seal();
      REQUIRE(memo.Covers(v.size()));
      CHECK_FALSE(memo.Covers(v.size() - 1));
      // The data must make the two plans differ, or the memo is not put to the test.
      REQUIRE(std::any_of(with_patched.begin(), with_patched.end(), [](const PlannedPartition& p) {
        return p.fit.model_type == static_cast<uint8_t>(Model::kPatchedFor);
      }));
      options.record_fits = nullptr;
      options.partitioner.enable_patched_for = false;
      const std::vector<PlannedPartition> plain = PlanPartitions(v.data(), v.size(), options);
      options.known_fits = &memo;
      const std::vector<PlannedPartition> from_memo = PlanPartitions(v.data(), v.size(), options);
      REQUIRE(from_memo.size() == plain.size());
      size_t found = 0;
      for (size_t i = 0; i < plain.size(); ++i) {
        CAPTURE(i);
        CHECK(from_memo[i].first_row == plain[i].first_row);
        CHECK(SameFit(from_memo[i].fit, plain[i].fit));
        // What the memo holds is what fitting without PATCHED_FOR gives.
        if (const PartitionFit* fit = memo.Find(plain[i].first_row, plain[i].fit.num_rows)) {
          CHECK(SameFit(*fit, plain[i].fit));
          ++found;
        }
      }
      CHECK(found > plain.size() / 2);
    }
  }
}

}  // namespace

TEST_CASE("A memo of fits without PATCHED_FOR gives the plan fitted without it") {
  CheckFitMemo<int16_t>();
  CheckFitMemo<uint16_t>();
  CheckFitMemo<int32_t>();
  CheckFitMemo<uint32_t>();
  CheckFitMemo<int64_t>();
  CheckFitMemo<uint64_t>();
}

TEST_CASE("FitMinimaxLine equals the monotone chain over every point, for every type") {
  CheckMinimaxLines<int8_t>();
  CheckMinimaxLines<int16_t>();
  CheckMinimaxLines<int32_t>();
  CheckMinimaxLines<int64_t>();
  CheckMinimaxLines<uint8_t>();
  CheckMinimaxLines<uint16_t>();
  CheckMinimaxLines<uint32_t>();
  CheckMinimaxLines<uint64_t>();
}

namespace {

// The cost of a DELTA partition of v with Delta_Base `base` and Bit_Width w
// (spec §8.9), computed row by row.
template <typename T>
uint64_t DeltaCost(const std::vector<T>& v, uint64_t base, uint32_t w, uint32_t values_per_lane) {
  using U = std::make_unsigned_t<T>;
  const uint32_t n = static_cast<uint32_t>(v.size());
  uint32_t count = 0, max_width = 0;
  for (uint32_t x = 1; x < n; ++x) {
    const U u = static_cast<U>(static_cast<U>(static_cast<U>(v[x]) - static_cast<U>(v[x - 1])) - static_cast<U>(base));
    const uint32_t width = BitLength(u);
    max_width = std::max(max_width, width);
    count += width > w ? 1 : 0;
  }
  const DeltaExceptions e{count, count == 0 ? 0u : max_width - w};
  return PartitionCost(static_cast<uint8_t>(Model::kDelta), w, DeltaPayloadWords(n, w, values_per_lane, e));
}

template <typename T>
uint64_t LowerBoundOf(const std::vector<T>& v, uint32_t values_per_lane) {
  std::vector<int64_t> deltas;
  for (size_t x = 1; x < v.size(); ++x) deltas.push_back(SignedDelta(v[x], v[x - 1]));
  const auto [lo, hi] = std::minmax_element(deltas.begin(), deltas.end());
  return DeltaCostLowerBound(deltas, *lo, *hi, static_cast<uint32_t>(v.size()), values_per_lane);
}

}  // namespace

namespace {

// PATCHED_FOR's bound with 2^kBits buckets, from the values' bucket counts.
template <uint32_t kBits, typename T>
uint64_t PatchedForBound(const std::vector<T>& v, T lo, T hi, uint64_t enough = ~uint64_t{0}) {
  const int64_t min_key = PatchedForKey(lo), max_key = PatchedForKey(hi);
  const uint32_t s = DeltaBoundShift<kBits>(min_key, max_key);
  std::vector<uint32_t> counts(size_t{1} << kBits, 0);
  for (T x : v) {
    ++counts[(static_cast<uint64_t>(PatchedForKey(x)) - static_cast<uint64_t>(min_key)) >> s];
  }
  const auto n = static_cast<uint32_t>(v.size());
  return OffsetCostLowerBoundOfBuckets<kBits>(counts.data(), n, min_key, max_key, n, 0, true,
                                              enough);
}

template <typename T>
void CheckPatchedForBound(std::mt19937_64& rng, int* ruled_out) {
  for (int shape = 0; shape <= 5; ++shape) {
    for (uint32_t n : {2u, 37u, 256u, 1000u, 4096u}) {
      const std::vector<T> v = MakeValues<T>(rng, shape, n);
      const T lo = *std::min_element(v.begin(), v.end());
      const T hi = *std::max_element(v.begin(), v.end());
      const PartitionFit fit = PatchedForFit(v.data(), n, lo, hi);
      const uint64_t coarse = PatchedForBound<6>(v, lo, hi);
      const uint64_t fine = PatchedForBound<kCpuBoundBucketBits>(v, lo, hi);
      CAPTURE(sizeof(T));
      CAPTURE(shape);
      CAPTURE(n);
      CHECK(coarse <= fit.cost_bytes);
      CHECK(fine <= fit.cost_bytes);
      // Stopping at a limit (`enough`) keeps a bound, equal to the whole one
      // below the limit, so every comparison with the limit ends alike.
      for (const uint64_t exact : {coarse, fine}) {
        for (uint64_t limit : {exact / 2, exact, exact + 1, exact + exact / 3, fit.cost_bytes}) {
          const uint64_t stopped = exact == coarse ? PatchedForBound<6>(v, lo, hi, limit)
                                                   : PatchedForBound<kCpuBoundBucketBits>(
                                                         v, lo, hi, limit);
          CAPTURE(limit);
          CHECK(stopped <= fit.cost_bytes);
          CHECK(stopped <= exact);
          CHECK((stopped >= limit) == (exact >= limit));
          if (stopped < limit) CHECK(stopped == exact);
        }
      }
      // Uniform values: no PATCHED_FOR beats FOR_BITPACK, and the finer bound says so.
      if (shape == 3 && n >= 256) {
        const uint32_t w = BitLength(static_cast<uint64_t>(PatchedForKey(hi)) -
                                     static_cast<uint64_t>(PatchedForKey(lo)));
        const uint64_t for_cost = PartitionCost(static_cast<uint8_t>(Model::kFor), w,
                                                (uint64_t{n} * w + 63) / 64);
        *ruled_out += fine >= for_cost;
      }
    }
  }
}

}  // namespace

TEST_CASE("PATCHED_FOR's cost bound, with 64 buckets and with the CPU's 256, is at most its fit") {
  std::mt19937_64 rng(37);
  int ruled_out = 0;
  CheckPatchedForBound<int16_t>(rng, &ruled_out);
  CheckPatchedForBound<uint32_t>(rng, &ruled_out);
  CheckPatchedForBound<int64_t>(rng, &ruled_out);
  CheckPatchedForBound<uint64_t>(rng, &ruled_out);
  CHECK(ruled_out >= 8);  // uniform values of 4 types at 3 sizes: most ruled out
}

TEST_CASE("DeltaCostLowerBound is below the cost of every Delta_Base and Bit_Width") {
  std::mt19937_64 rng(8);
  // 8-bit values: every base and width, exhaustively.
  for (int shape = 0; shape <= 5; ++shape) {
    for (uint32_t n : {2u, 3u, 40u, 300u, 2500u}) {
      for (uint32_t values_per_lane : {1u, 64u}) {
        const std::vector<int8_t> v = MakeValues<int8_t>(rng, shape, n);
        const uint64_t bound = LowerBoundOf(v, values_per_lane);
        uint64_t cheapest = ~uint64_t{0};
        for (uint32_t base = 0; base < 256; ++base) {
          for (uint32_t w = 0; w <= 8; ++w) cheapest = std::min(cheapest, DeltaCost(v, base, w, values_per_lane));
        }
        CAPTURE(shape);
        CAPTURE(n);
        CHECK(bound <= cheapest);
      }
    }
  }
  // Wider values: below DeltaFit's choice, which DeltaFit with that bound as
  // its limit still returns, and DeltaFit with a limit at or under the bound
  // reports as hopeless.
  for (int shape = 0; shape <= 5; ++shape) {
    for (uint32_t n : {2u, 100u, 256u, 5000u}) {
      const std::vector<uint64_t> v = MakeValues<uint64_t>(rng, shape, n);
      const uint64_t bound = LowerBoundOf(v, 64);
      const PartitionFit fit = DeltaFit(v.data(), n, 64);
      CAPTURE(shape);
      CAPTURE(n);
      CHECK(bound <= fit.cost_bytes);
      CHECK(DeltaFit(v.data(), n, 64, bound).cost_bytes == ~uint64_t{0});
      CHECK(SameFit(DeltaFit(v.data(), n, 64, fit.cost_bytes + 1), fit));
    }
  }
}

TEST_CASE("DeltaCostLowerBound rules DELTA out for uniform values and keeps it for steady steps") {
  std::mt19937_64 rng(9);
  std::vector<uint64_t> uniform(4096), steps(4096);
  uint64_t t = 1000;
  for (size_t x = 0; x < uniform.size(); ++x) {
    uniform[x] = rng() >> 24;  // 40 bits: FOR costs 40 bits a row
    steps[x] = t += 1000 + rng() % 4;
  }
  // FOR of 40 bits: 4096 * 40 / 64 words and its 24 bytes of record and Base.
  const uint64_t for_cost = 24 + 8 * (4096 * 40 / 64);
  CHECK(LowerBoundOf(uniform, 64) >= for_cost);
  CHECK(LowerBoundOf(steps, 64) < 24 + 8 * (4096 * 20 / 64));
}

// std::log2 rounds: log2 of the double just below 2^k comes out as k, which
// is why the fit uses exponent arithmetic. The checks below are exact.
TEST_CASE("fit arithmetic: exponent logarithms are exact floor/ceil of log2") {
  std::mt19937_64 rng(5);
  std::vector<double> zs = {1.0, 1.5, 2.0, 3.0, 4.0, 0x1p52, 0x1p52 + 1, 0x1p63, 1e300};
  for (int i = 0; i < 100000; ++i) {
    zs.push_back(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53 * 0x1p40);
    zs.push_back(std::ldexp(1.0, static_cast<int>(rng() % 1000)));
    zs.push_back(std::nextafter(std::ldexp(1.0, static_cast<int>(rng() % 1000) + 1), 0.0));
  }
  for (double z : zs) {
    CAPTURE(z);
    const int f = FloorLog2(z);
    CHECK(std::ldexp(1.0, f) <= z);
    CHECK(z < std::ldexp(1.0, f + 1));
    if (z > 1) {
      const int c = CeilLog2(z);
      CHECK(std::ldexp(1.0, c) >= z);
      CHECK(std::ldexp(1.0, c - 1) < z);
    }
  }
}

TEST_CASE("fit arithmetic: ReduceLanes adds in the xor-butterfly order") {
  // Values whose sum depends on the order of the additions.
  double lanes[32], expected[32];
  for (int i = 0; i < 32; ++i) lanes[i] = expected[i] = (i % 3 == 0 ? 1e16 : 1.0) * (i % 2 ? -1 : 1) + i;
  for (int offset = 16; offset >= 1; offset /= 2) {
    double next[32];
    for (int lane = 0; lane < 32; ++lane) next[lane] = expected[lane] + expected[lane ^ offset];
    for (int lane = 0; lane < 32; ++lane) expected[lane] = next[lane];
  }
  for (int lane = 1; lane < 32; ++lane) CHECK(expected[lane] == expected[0]);
  CHECK(ReduceLanes(lanes) == expected[0]);
}
