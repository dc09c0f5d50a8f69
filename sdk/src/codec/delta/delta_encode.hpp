// DELTA (spec §8.9), the writer's half: the fit (Delta_Base, Bit_Width and
// cost of a candidate partition) and the payload (Seed words, then the SLAP
// stream of delta fields). Depends on the decoder for nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/delta/delta_layout.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/patched/patched_for_layout.hpp"

namespace l3::internal {

/// d(x) = (v[x] - v[x-1]) mod 2^N read as an N-bit two's complement number.
template <typename T>
L3_HD int64_t SignedDelta(T current, T previous) {
  return ValueTraits<T>::Residual(current, static_cast<int64_t>(previous));
}

/// u(x) = (d(x) - Delta_Base) mod 2^N, the unsigned value a row's field and
/// high part hold together (spec §8.9).
template <typename T>
L3_HD uint64_t DeltaOffset(T current, T previous, uint64_t delta_base) {
  using U = typename ValueTraits<T>::Unsigned;
  return static_cast<U>(ValueTraits<T>::Offset(current, previous) - delta_base);
}

/// The ranks (from the bottom) whose deltas, or PATCHED_FOR's values, are
/// Base candidates besides the smallest (DeltaRankDivisor), and so at most
/// kMaxDeltaBases distinct candidates.
inline constexpr int kNumDeltaRanks = 4;
inline constexpr int kMaxDeltaBases = kNumDeltaRanks + 1;

/// The payload bits of the best Bit_Width for one Delta_Base candidate
/// (ties: the wider one, fewer exceptions). spec §8.9 writer rules: the
/// exceptions are the rows whose u(x) needs more than Bit_Width bits, and
/// Exception_Width = bitlen(max stored high part): u(x) >> Bit_Width, or
/// its zigzag-coded signed form with Signed_Highs.
struct DeltaChoice {
  uint64_t bits = ~uint64_t{0};
  uint32_t width = 0;
  uint32_t max_width = 0;
  uint32_t exceptions = 0;
  uint32_t high_width = 0;    // Exception_Width (0 without exceptions)
  bool signed_highs = false;  // Signed_Highs
  bool rows_ef = false;       // Rows_EF (PATCHED_FOR only, spec §8.12)
};

/// Where the offsets of one base lie as signed numbers, for the width of
/// Signed_Highs high parts (spec §8.9). The keys (deltas, or PATCHED_FOR's
/// values) lie in [lo, hi]; when hi - lo < 2^(N-1), no u(x) = (key - base)
/// mod 2^N wraps when read as an N-bit two's complement number r(x), so
/// r(x) = key - base: the largest is `above` = hi - base and the smallest
/// -`below` = lo - base. Otherwise, and where the writer's options rule
/// Signed_Highs out (FitOptions::signed_exception_highs), it keeps unsigned
/// high parts.
struct SignedHighSpan {
  bool usable = false;
  uint64_t above = 0;
  uint64_t below = 0;
};

L3_HD SignedHighSpan SignedHighSpanOf(int64_t lo, int64_t hi, int64_t base, uint32_t bits,
                                     bool allow_signed) {
  SignedHighSpan span;
  span.usable = allow_signed &&
                static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) < (uint64_t{1} << (bits - 1));
  span.above = static_cast<uint64_t>(hi) - static_cast<uint64_t>(base);
  span.below = static_cast<uint64_t>(base) - static_cast<uint64_t>(lo);
  return span;
}

/// The Exception_Width of Bit_Width w < max_width (some u(x) needs more than
/// w bits; max_width = bitlen of the largest u(x)): unsigned high parts need
/// max_width - w bits. Signed ones (span.usable) need bitlen of the largest
/// zigzag code, the larger of the two extremes' codes: r = above >= 2^w has
/// h = above >> w and code 2h, r = -below < 0 has h = -(((below - 1) >> w)
/// + 1) and code 2 ((below - 1) >> w) + 1. Signed only when strictly
/// narrower. Shared with the CUDA writer.
struct HighWidthChoice {
  uint32_t width = 0;
  bool signed_highs = false;
};

L3_HD HighWidthChoice ExceptionHighWidth(uint32_t max_width, uint32_t w,
                                         const SignedHighSpan& span) {
  HighWidthChoice choice{max_width - w, false};
  if (!span.usable) return choice;
  const uint32_t above_bits = BitLength(span.above);
  uint32_t widest = above_bits > w ? above_bits - w : 0;
  if (span.below != 0) {
    const uint32_t below_bits = BitLength(span.below - 1);
    widest = below_bits > w && below_bits - w > widest ? below_bits - w : widest;
  }
  if (widest + 1 < choice.width) choice = HighWidthChoice{widest + 1, true};
  return choice;
}

/// The choice of Bit_Width `width` (payload `bits`, `exceptions` rows wider
/// than it, the widest max_width bits): its exceptions' high parts and row
/// coding. Shared with the CUDA writer's warp (WarpChooseDeltaWidth).
L3_HD DeltaChoice MakeDeltaChoice(uint64_t bits, uint32_t width, uint32_t max_width,
                                  uint32_t exceptions, uint32_t n, const SignedHighSpan& span,
                                  bool allow_rows_ef) {
  DeltaChoice choice;
  choice.bits = bits;
  choice.width = width;
  choice.max_width = max_width;
  choice.exceptions = exceptions;
  if (exceptions != 0) {
    const HighWidthChoice high = ExceptionHighWidth(max_width, width, span);
    choice.high_width = high.width;
    choice.signed_highs = high.signed_highs;
    CheapestRowListBits(n, exceptions, allow_rows_ef, &choice.rows_ef);
  }
  return choice;
}

/// The cheapest Bit_Width for one Delta_Base candidate, from the rows of
/// each width of u(x) (rows_of_width[b] = rows x >= 1 whose u(x) is b bits)
/// and the span of its signed offsets; PATCHED_FOR's exception rows in
/// whichever coding is smaller where `allow_rows_ef` (CheapestRowListBits).
L3_HD DeltaChoice ChooseDeltaWidthFromCounts(const uint64_t (&rows_of_width)[65], uint32_t n,
                                             const SignedHighSpan& span = SignedHighSpan(),
                                             bool allow_rows_ef = false) {
  uint32_t max_width = 64;
  while (max_width > 0 && rows_of_width[max_width] == 0) --max_width;
  uint32_t best_w = max_width;
  uint64_t best_bits = uint64_t{n} * max_width;
  const auto words = [](uint64_t bits) { return (bits + 63) / 64; };
  // The widths w < max_width from the widest down, the first of the fewest
  // payload words winning. The rows wider than w stay the same over a
  // stretch of widths none of whose counts is met before its lowest one;
  // there each step down saves n field bits and adds at most one high bit
  // to each of those (at most n) rows, so the bits never rise as w falls and
  // only the stretch's lowest width needs pricing; when it wins, the widest
  // width of the stretch with as few words wins instead (the one met first).
  uint64_t wider = 0;  // rows whose u needs more than w bits
  uint32_t top = max_width;  // the widths of this stretch lie below top
  for (uint32_t w = max_width; w-- > 0;) {
    wider += rows_of_width[w + 1];
    if (w > 0 && rows_of_width[w] == 0) continue;  // not the stretch's lowest
    const uint64_t rows = CheapestRowListBits(n, wider, allow_rows_ef);
    const auto bits_at = [&](uint32_t width) {
      return uint64_t{n} * width + rows + wider * ExceptionHighWidth(max_width, width, span).width;
    };
    uint64_t bits = bits_at(w);
    if (words(bits) < words(best_bits)) {
      uint32_t chosen = w;
      while (chosen + 1 < top && words(bits_at(chosen + 1)) == words(bits)) {
        bits = bits_at(++chosen);
      }
      best_bits = bits;
      best_w = chosen;
    }
    top = w;
  }
  uint32_t exceptions = 0;
  for (uint32_t b = best_w + 1; b <= max_width; ++b) {
    exceptions += static_cast<uint32_t>(rows_of_width[b]);
  }
  return MakeDeltaChoice(best_bits, best_w, max_width, exceptions, n, span, allow_rows_ef);
}

template <typename T>
DeltaChoice ChooseDeltaWidth(const T* v, uint32_t n, uint64_t delta_base) {
  uint64_t rows_of_width[65] = {};
  for (uint32_t x = 1; x < n; ++x) ++rows_of_width[BitLength(DeltaOffset(v[x], v[x - 1], delta_base))];
  return ChooseDeltaWidthFromCounts(rows_of_width, n);
}

/// A DELTA partition of n rows with Bit_Width `width`, Delta_Base `lo` (a
/// delta, as a signed number) and exceptions `e`, with its payload size and
/// cost.
template <typename T>
L3_HD PartitionFit MakeDeltaFit(uint32_t n, uint32_t width, int64_t lo, DeltaExceptions e,
                                uint32_t values_per_lane) {
  constexpr uint8_t kDeltaType = static_cast<uint8_t>(Model::kDelta);
  PartitionFit fit;
  fit.num_rows = n;
  fit.model_type = kDeltaType;
  fit.bit_width = static_cast<uint8_t>(width);
  fit.base = ValueTraits<T>::Canonical(static_cast<T>(lo));  // spec Delta_Base
  fit.exceptions = PackDeltaExceptions(e);
  fit.payload_words = DeltaPayloadWords(n, fit.bit_width, values_per_lane, e);
  fit.cost_bytes = PartitionCost(kDeltaType, fit.bit_width, fit.payload_words);
  return fit;
}

/// The cheapest DELTA fit of values[0, n) (0 for Delta_Base when n = 1).
/// Delta_Base candidates: the smallest delta, and the deltas at ranks n/64,
/// n/16, n/8 and n/4 from the bottom, so that a few large negative deltas become
/// exceptions (u(x) wraps modulo 2^N) instead of widening every row. Bounds
/// are set by the caller.
/// rows_of_width[k] += the deltas d with BitLength(U(d) - base) = k. Four
/// interleaved tallies, so that runs of deltas of one width do not wait on
/// each other's increments.
template <typename U>
void CountDeltaWidths(const std::vector<int64_t>& deltas, U base, uint64_t (&rows_of_width)[65]) {
  uint32_t tally[4][65] = {};
  const size_t m = deltas.size();
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    ++tally[0][BitLength(static_cast<U>(static_cast<U>(deltas[i]) - base))];
    ++tally[1][BitLength(static_cast<U>(static_cast<U>(deltas[i + 1]) - base))];
    ++tally[2][BitLength(static_cast<U>(static_cast<U>(deltas[i + 2]) - base))];
    ++tally[3][BitLength(static_cast<U>(static_cast<U>(deltas[i + 3]) - base))];
  }
  for (; i < m; ++i) ++tally[0][BitLength(static_cast<U>(static_cast<U>(deltas[i]) - base))];
  for (int k = 0; k < 65; ++k) rows_of_width[k] += uint64_t{tally[0][k]} + tally[1][k] + tally[2][k] + tally[3][k];
}

/// CountDeltaWidths for `num_bases` (1 to kNumDeltaRanks) bases in one pass
/// over the deltas: rows_of_width[j] for bases[j].
template <typename U>
void CountDeltaWidthsOfBases(const std::vector<int64_t>& deltas, const U* bases, int num_bases,
                             uint64_t (*rows_of_width)[65]) {
  if (num_bases == 1) {
    CountDeltaWidths<U>(deltas, bases[0], rows_of_width[0]);
    return;
  }
  // Two interleaved tallies per base, as in CountDeltaWidths; missing bases
  // repeat the last one (their tallies are not kept).
  uint32_t tally[kNumDeltaRanks][2][65] = {};
  U b[kNumDeltaRanks];
  for (int j = 0; j < kNumDeltaRanks; ++j) b[j] = bases[j < num_bases ? j : num_bases - 1];
  const size_t m = deltas.size();
  size_t i = 0;
  for (; i + 2 <= m; i += 2) {
    const U d0 = static_cast<U>(deltas[i]), d1 = static_cast<U>(deltas[i + 1]);
    for (int j = 0; j < kNumDeltaRanks; ++j) {
      ++tally[j][0][BitLength(static_cast<U>(d0 - b[j]))];
      ++tally[j][1][BitLength(static_cast<U>(d1 - b[j]))];
    }
  }
  for (; i < m; ++i) {
    const U d = static_cast<U>(deltas[i]);
    for (int j = 0; j < kNumDeltaRanks; ++j) ++tally[j][0][BitLength(static_cast<U>(d - b[j]))];
  }
  for (int j = 0; j < num_bases; ++j) {
    for (int k = 0; k < 65; ++k) rows_of_width[j][k] += uint64_t{tally[j][0][k]} + tally[j][1][k];
  }
}

/// DeltaRanks selects its Delta_Base ranks by a histogram when they all lie
/// within 2^kExactRankBits (or about twice the number of deltas, up to
/// 2^(kExactRankBits + 2)) of the smallest delta.
inline constexpr uint32_t kExactRankBits = 11;

/// The deltas at ranks m / divisors[i] (0-based, ascending order; m =
/// deltas.size()) into at_rank[i], where that rank is not 0. `deltas` may be
/// reordered. `rows_of_length[k]` counts the deltas d with
/// BitLength(d - min_delta) = k, or is null when unknown.
///
/// With the counts, only the smallest deltas take part: those below
/// min_delta + 2^b, with b the least exponent for which they outnumber the
/// largest rank; every other delta is larger than all of them, so the
/// ranks are the same among them as among all. When b <= max(kExactRankBits,
/// min(kExactRankBits + 2, bitlen(m))), a histogram of d - min_delta (at most
/// 2^kExactRankBits entries, or about 2m: no more to clear and walk than the
/// deltas cost to count) gives every rank in one pass; when they are at most
/// half of the deltas, they are copied out and selected there; otherwise,
/// and without the counts, all deltas are.
inline void DeltaRanks(std::vector<int64_t>& deltas, int64_t min_delta,
                       const uint64_t* rows_of_length,
                       const uint32_t (&divisors)[kNumDeltaRanks],
                       int64_t (&at_rank)[kNumDeltaRanks]) {
  const uint64_t m = deltas.size();
  const uint64_t top_rank = m / divisors[kNumDeltaRanks - 1];
  if (top_rank == 0) return;
  const uint64_t floor = static_cast<uint64_t>(min_delta);
  uint32_t b = 64;
  uint64_t kept = m;
  if (rows_of_length != nullptr) {
    b = 0;
    for (kept = rows_of_length[0]; kept <= top_rank; kept += rows_of_length[++b]) {
    }
  }
  const uint32_t exact_bits = std::max<uint32_t>(
      kExactRankBits, std::min<uint32_t>(kExactRankBits + 2, BitLength(m)));
  if (b <= exact_bits) {
    const uint32_t limit = uint32_t{1} << b;
    // Two interleaved tallies, so that runs of equal deltas do not wait on
    // each other's increments; then summed into the first.
    thread_local std::vector<uint32_t> tallies;
    tallies.assign(2 * size_t{limit + 1}, 0);
    uint32_t* rows_at = tallies.data();
    uint32_t* rows_at_odd = rows_at + limit + 1;
    const int64_t* all = deltas.data();
    uint64_t i = 0;
    for (; i + 2 <= m; i += 2) {
      const uint64_t u0 = static_cast<uint64_t>(all[i]) - floor;
      const uint64_t u1 = static_cast<uint64_t>(all[i + 1]) - floor;
      ++rows_at[u0 < limit ? u0 : limit];
      ++rows_at_odd[u1 < limit ? u1 : limit];
    }
    for (; i < m; ++i) {
      const uint64_t u = static_cast<uint64_t>(all[i]) - floor;
      ++rows_at[u < limit ? u : limit];
    }
    for (uint32_t k = 0; k <= limit; ++k) rows_at[k] += rows_at_odd[k];
    uint32_t value = 0;
    uint64_t below = 0;
    for (int i = 0; i < kNumDeltaRanks; ++i) {
      const uint64_t rank = m / divisors[i];
      if (rank == 0) continue;
      while (below + rows_at[value] <= rank) below += rows_at[value++];
      at_rank[i] = static_cast<int64_t>(floor + value);
    }
    return;
  }
  std::vector<int64_t>* pool = &deltas;
  if (kept <= m / 2) {
    thread_local std::vector<int64_t> smallest;
    smallest.resize(m);
    uint64_t k = 0;
    for (const int64_t d : deltas) {  // keep d - min_delta < 2^b
      smallest[k] = d;
      k += BitLength(static_cast<uint64_t>(d) - floor) <= b;
    }
    pool = &smallest;
  } else {
    kept = m;  // all deltas, in place
  }
  // The largest rank first: after it, the smaller ranks lie in the prefix
  // before it, so each later selection searches only that prefix (about
  // 1.3 k element visits instead of 3 k).
  auto prefix_end = pool->begin() + static_cast<std::ptrdiff_t>(kept);
  for (int i = kNumDeltaRanks - 1; i >= 0; --i) {
    const uint64_t rank = m / divisors[i];
    if (rank == 0) continue;
    const auto at = pool->begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(pool->begin(), at, prefix_end);
    at_rank[i] = *at;
    prefix_end = at + 1;
  }
}

/// A lower bound on the cost of every DELTA partition of n rows whose m =
/// n - 1 deltas d(x) lie in [min_delta, max_delta], whatever its Delta_Base
/// c and Bit_Width w (spec §8.9: cost 16 + 8 * (2 + Seed words +
/// ceil((n w + E (bitlen(n - 1) + hw)) / 64)), E the rows whose
/// u(x) = (d(x) - c) mod 2^N has more than w bits, hw >= 1 when E > 0).
///
/// The rows that fit w bits have d(x) in one window of 2^w values, cyclic
/// modulo 2^N. The deltas are counted in K <= 64 buckets of 2^s values from
/// min_delta; a window of 2^w values, in one piece or wrapped into two,
/// touches at most t = (2^w >> s) + 4 buckets that are consecutive when
/// bucket K - 1 is taken to precede bucket 0, so at most the largest sum
/// W(t) of t cyclically consecutive buckets fit, and E >= m - W(t).
/// Every base leaves some u(x) >= 2^N - G, G the largest cyclic gap between
/// neighbouring deltas: the wrap-around gap 2^N - R (R = max_delta -
/// min_delta) or a gap inside, shorter than (z + 2) 2^s with z the longest
/// run of empty buckets. So the largest u(x) is at least
/// L = R - (z + 2) 2^s (0 when that is negative), and hw >= bitlen(L >> w).
/// That holds for Signed_Highs too: the extremes' signed offsets a = hi - c
/// and -b = lo - c span a + b = R >= L, so max(bitlen(a), bitlen(b - 1)) >=
/// bitlen(L) - 1, and the zigzag code's extra bit makes hw >= bitlen(L) - w.
/// The bound is the least cost over w of
/// n w + max(0, m - W(t)) (bitlen(n - 1) + max(1, bitlen(L >> w))) bits.
/// More buckets give a tighter bound for more work: K <= 64 in the CUDA
/// writer's warp, K <= 256 on the CPU (kCpuBoundBucketBits). The bound only
/// skips fits that cannot win, so K never changes a chosen fit.
/// The bucket shift s of DeltaCostLowerBound: buckets of 2^s values from
/// min_delta, at most 2^kBucketBits of them.
template <uint32_t kBucketBits = 6>
L3_HD uint32_t DeltaBoundShift(int64_t min_delta, int64_t max_delta) {
  const uint32_t range_bits =
      BitLength(static_cast<uint64_t>(max_delta) - static_cast<uint64_t>(min_delta));
  return range_bits > kBucketBits ? range_bits - kBucketBits : 0;
}

/// The CPU's bound buckets: at most 2^8.
inline constexpr uint32_t kCpuBoundBucketBits = 8;

/// The last step of OffsetCostLowerBoundOfBuckets: the least cost over the
/// widths w of n w + max(0, m - W(t)) (bitlen(n - 1) + max(1, bitlen(L >>
/// w))) bits, with most_in_window(t) = W(t), the most offsets in t
/// cyclically consecutive buckets (m when t covers them all), `s` the bucket
/// shift and L = `largest_offset`. Shared by the CPU bound and the CUDA
/// writer's warp (delta_fit.cuh), which compute W(t) each their own way.
/// PATCHED_FOR's rows cost RowListBitsLowerBound where `allow_rows_ef`.
/// Widths whose n w field bits alone cost `enough` are not counted one by
/// one: the cost of those bits at the first of them bounds them all, so the
/// result stays a lower bound, exact wherever it is below `enough` (callers
/// that compare it with a limit pass the limit).
template <uint32_t kBucketBits = 6, typename MostInWindow>
L3_HD uint64_t LeastOffsetCostOverWidths(uint64_t m, uint32_t s, uint64_t largest_offset,
                                         uint32_t n, uint64_t seeds,
                                         MostInWindow&& most_in_window,
                                         bool allow_rows_ef = false,
                                         uint64_t enough = ~uint64_t{0}) {
  uint64_t lowest = ~uint64_t{0};
  // Widths below s cannot do better than width 0 with windows of 4 buckets;
  // then every width from s up, until a width fits all deltas (a window of
  // 2^(kBucketBits + 1) buckets covers them all).
  for (uint32_t w = 0; w <= 64; w = w < s ? s : w + 1) {
    const uint32_t width = w < s ? 0 : w;
    const uint64_t field_cost = PartitionCost(static_cast<uint8_t>(Model::kDelta), 1,
                                              seeds + (uint64_t{n} * width + 63) / 64);
    if (field_cost >= enough) {
      // Every width from here on costs at least field_cost.
      lowest = field_cost < lowest ? field_cost : lowest;
      break;
    }
    const uint32_t t = w < s                      ? 4
                       : w - s >= kBucketBits + 1 ? uint32_t{2} << kBucketBits
                                                  : (uint32_t{1} << (w - s)) + 4;
    const uint64_t fitting = most_in_window(t);
    const uint64_t exceptions = m > fitting ? m - fitting : 0;
    const uint32_t high = width >= 64 ? 0 : BitLength(largest_offset >> width);
    const uint32_t high_bits = high > 1 ? high : 1;
    const uint64_t bits = uint64_t{n} * width +
                          RowListBitsLowerBound(n, exceptions, allow_rows_ef) +
                          exceptions * high_bits;
    const uint64_t cost =
        PartitionCost(static_cast<uint8_t>(Model::kDelta), 1, seeds + (bits + 63) / 64);
    lowest = cost < lowest ? cost : lowest;
    if (exceptions == 0) break;  // wider w only cost more
  }
  return lowest;
}

/// The bound of DeltaCostLowerBound for m offsets bucketed from min_delta
/// (counts[k] = those d with (d - min_delta) >> DeltaBoundShift = k) in a
/// partition of n rows whose payload starts with `seeds` whole words: DELTA's
/// Seed words, or none for PATCHED_FOR (spec §8.12), whose m = n values are
/// bounded the same way (its rows in either coding where `allow_rows_ef`).
/// Shared with the CUDA writer.
template <uint32_t kBucketBits = 6>
L3_HD uint64_t OffsetCostLowerBoundOfBuckets(const uint32_t* counts, uint64_t m, int64_t min_delta,
                                             int64_t max_delta, uint32_t n, uint64_t seeds,
                                             bool allow_rows_ef = false,
                                             uint64_t enough = ~uint64_t{0}) {
  const uint64_t floor = static_cast<uint64_t>(min_delta);
  const uint64_t range = static_cast<uint64_t>(max_delta) - floor;
  const uint32_t s = DeltaBoundShift<kBucketBits>(min_delta, max_delta);
  const uint32_t num_buckets = static_cast<uint32_t>(range >> s) + 1;  // <= 2^kBucketBits
  // Prefix sums over two rounds of the buckets (for cyclic windows):
  // before[k] = offsets in buckets k' < k, bucket k' >= num_buckets being
  // bucket k' - num_buckets again (m <= 2^32 - 1 offsets: 32-bit sums).
  uint32_t before[(uint32_t{2} << kBucketBits) + 1];
  uint64_t empty_run = 0, longest_empty_run = 0;
  before[0] = 0;
  for (uint32_t k = 0; k < num_buckets; ++k) {
    before[k + 1] = before[k] + counts[k];
    empty_run = counts[k] == 0 ? empty_run + 1 : 0;
    longest_empty_run = longest_empty_run > empty_run ? longest_empty_run : empty_run;
  }
  for (uint32_t k = 0; k < num_buckets; ++k) {
    before[num_buckets + k + 1] = before[num_buckets + k] + counts[k];
  }
  const uint64_t widest_gap = (longest_empty_run + 2) << s;  // > every gap inside
  const uint64_t largest_offset = range > widest_gap ? range - widest_gap : 0;
  // The most offsets in t cyclically consecutive buckets: the windows
  // starting at each bucket, as differences of prefix sums, independent of
  // each other (four running maxima, so that they do not wait on one).
  const auto most_in_window = [&](uint32_t t) -> uint64_t {
    if (t >= num_buckets) return m;
    uint32_t most[4] = {0, 0, 0, 0};
    uint32_t k = 0;
    for (; k + 4 <= num_buckets; k += 4) {
      for (uint32_t j = 0; j < 4; ++j) {
        const uint32_t sum = before[k + j + t] - before[k + j];
        most[j] = most[j] > sum ? most[j] : sum;
      }
    }
    for (; k < num_buckets; ++k) {
      const uint32_t sum = before[k + t] - before[k];
      most[0] = most[0] > sum ? most[0] : sum;
    }
    const uint32_t a = most[0] > most[1] ? most[0] : most[1];
    const uint32_t b = most[2] > most[3] ? most[2] : most[3];
    return a > b ? a : b;
  };
  return LeastOffsetCostOverWidths<kBucketBits>(m, s, largest_offset, n, seeds, most_in_window,
                                                allow_rows_ef, enough);
}

/// DeltaCostLowerBound from the deltas' bucket counts. Shared with the CUDA
/// writer.
template <uint32_t kBucketBits = 6>
L3_HD uint64_t DeltaCostLowerBoundOfBuckets(const uint32_t* counts, uint64_t m, int64_t min_delta,
                                            int64_t max_delta, uint32_t n,
                                            uint32_t values_per_lane) {
  return OffsetCostLowerBoundOfBuckets<kBucketBits>(counts, m, min_delta, max_delta, n,
                                                    DeltaSeedWords(n, values_per_lane, 1));
}

/// No cost limit: every fit is computed.
inline constexpr uint64_t kNoDeltaCostLimit = ~uint64_t{0};

/// OffsetCostLowerBoundOfBuckets from the CPU's 2^kCpuBoundBucketBits
/// bucket counts, in two steps: first with the 64 buckets they merge into
/// (cheap, and enough where the offsets are far too wide), then, where that
/// is below `cost_limit` but not below half of it (the finer bound seldom
/// gains more), with all of them (the larger of the two: both are bounds).
inline uint64_t CpuOffsetCostLowerBound(const uint32_t* fine_counts, uint64_t m, int64_t lo,
                                        int64_t hi, uint32_t n, uint64_t seeds, bool allow_rows_ef,
                                        uint64_t cost_limit) {
  constexpr uint32_t kCoarseBits = 6;
  const uint32_t fine_shift = DeltaBoundShift<kCpuBoundBucketBits>(lo, hi);
  const uint32_t merge = DeltaBoundShift<kCoarseBits>(lo, hi) - fine_shift;  // 0, 1 or 2
  const uint32_t fine_buckets = static_cast<uint32_t>(
      (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) >> fine_shift) + 1;
  uint32_t coarse_counts[uint32_t{1} << kCoarseBits] = {};
  for (uint32_t k = 0; k < fine_buckets; ++k) coarse_counts[k >> merge] += fine_counts[k];
  // Each exact below cost_limit (LeastOffsetCostOverWidths: `enough`).
  const uint64_t coarse = OffsetCostLowerBoundOfBuckets<kCoarseBits>(
      coarse_counts, m, lo, hi, n, seeds, allow_rows_ef, cost_limit);
  if (coarse >= cost_limit || coarse < cost_limit / 2) return coarse;
  const uint64_t fine = OffsetCostLowerBoundOfBuckets<kCpuBoundBucketBits>(
      fine_counts, m, lo, hi, n, seeds, allow_rows_ef, cost_limit);
  return fine > coarse ? fine : coarse;
}

/// The deltas' counts in 2^kBits buckets (DeltaBoundShift<kBits>), two
/// interleaved tallies summed into counts.
template <uint32_t kBits>
void CountDeltaBuckets(const std::vector<int64_t>& deltas, int64_t min_delta, int64_t max_delta,
                       uint32_t (&counts)[uint32_t{1} << kBits]) {
  constexpr uint32_t kBuckets = uint32_t{1} << kBits;
  const uint64_t m = deltas.size();
  const uint64_t floor = static_cast<uint64_t>(min_delta);
  const uint32_t s = DeltaBoundShift<kBits>(min_delta, max_delta);
  uint32_t odd[kBuckets] = {};
  const int64_t* all = deltas.data();
  uint64_t i = 0;
  for (; i + 2 <= m; i += 2) {
    ++counts[(static_cast<uint64_t>(all[i]) - floor) >> s];
    ++odd[(static_cast<uint64_t>(all[i + 1]) - floor) >> s];
  }
  for (; i < m; ++i) ++counts[(static_cast<uint64_t>(all[i]) - floor) >> s];
  for (uint32_t k = 0; k < kBuckets; ++k) counts[k] += odd[k];
}

/// Fewer deltas than this take the 64-bucket bound alone: clearing and
/// folding 256 buckets would cost more than the finer bound saves.
inline constexpr uint64_t kFineBoundMinDeltas = 512;

inline uint64_t DeltaCostLowerBound(const std::vector<int64_t>& deltas, int64_t min_delta,
                                    int64_t max_delta, uint32_t n, uint32_t values_per_lane,
                                    uint64_t cost_limit = kNoDeltaCostLimit) {
  const uint64_t m = deltas.size();
  const uint64_t seeds = DeltaSeedWords(n, values_per_lane, 1);
  if (m < kFineBoundMinDeltas) {
    uint32_t counts[64] = {};
    CountDeltaBuckets<6>(deltas, min_delta, max_delta, counts);
    return OffsetCostLowerBoundOfBuckets<6>(counts, m, min_delta, max_delta, n, seeds, false,
                                            cost_limit);
  }
  uint32_t counts[uint32_t{1} << kCpuBoundBucketBits] = {};
  CountDeltaBuckets<kCpuBoundBucketBits>(deltas, min_delta, max_delta, counts);
  return CpuOffsetCostLowerBound(counts, m, min_delta, max_delta, n, seeds, false, cost_limit);
}

/// DeltaFit gives up (cost ~0) without fitting where no DELTA fit can cost
/// less than `cost_limit`: when Delta_Base = the smallest delta and the
/// width of the range already cost at least the limit, and the bound does
/// too. Shared with the CUDA writer; `lower_bound` is called only when
/// needed.
template <typename LowerBound>
L3_HD bool DeltaHopeless(int64_t min_delta, int64_t max_delta, uint32_t n,
                         uint32_t values_per_lane, uint64_t cost_limit, LowerBound&& lower_bound) {
  const uint32_t whole_width =
      BitLength(static_cast<uint64_t>(max_delta) - static_cast<uint64_t>(min_delta));
  const uint64_t whole_cost =
      PartitionCost(static_cast<uint8_t>(Model::kDelta), whole_width,
                    DeltaPayloadWords(n, whole_width, values_per_lane, DeltaExceptions{0, 0}));
  return cost_limit != ~uint64_t{0} && whole_cost >= cost_limit && lower_bound() >= cost_limit;
}

/// The ranks (from the bottom, of the m = n - 1 deltas) whose deltas are
/// Delta_Base candidates besides the smallest: m / 64, m / 16, m / 8 and
/// m / 4, each only where it is not 0. (m / 8 pays where large jumps of
/// either sign are common, as in the node references of ways, whose base
/// then sits above the jumps back that Signed_Highs makes cheap.)
L3_HD constexpr uint32_t DeltaRankDivisor(int i) {
  return i == 0 ? 64u : i == 1 ? 16u : i == 2 ? 8u : 4u;
}
inline constexpr uint32_t kDeltaRankDivisors[kNumDeltaRanks] = {
    DeltaRankDivisor(0), DeltaRankDivisor(1), DeltaRankDivisor(2), DeltaRankDivisor(3)};

/// The distinct Delta_Base candidates, in the order DeltaFit tries them: the
/// smallest delta, then the deltas at_rank[i] of the ranks m / divisor_i
/// that are not 0. Equal candidates give equal choices, and a later one wins
/// only when strictly cheaper, so only the first of equal ones is kept.
/// Shared with the CUDA writer.
struct DeltaBases {
  int64_t value[kMaxDeltaBases] = {};
  int count = 0;
};

L3_HD DeltaBases DistinctDeltaBases(int64_t min_delta, const int64_t (&at_rank)[kNumDeltaRanks],
                                    uint32_t m) {
  int64_t candidates[kMaxDeltaBases] = {min_delta};
  int num_candidates = 1;
  for (int i = 0; i < kNumDeltaRanks; ++i) {
    if (m / DeltaRankDivisor(i) != 0) candidates[num_candidates++] = at_rank[i];
  }
  DeltaBases bases;
  for (int i = 0; i < num_candidates; ++i) {
    bool seen = false;
    for (int j = 0; j < bases.count; ++j) seen = seen || bases.value[j] == candidates[i];
    if (!seen) bases.value[bases.count++] = candidates[i];
  }
  return bases;
}

/// The keys' Delta_Base (or PATCHED_FOR Base) candidates and each one's
/// width counts from the keys sorted into buckets, where that is cheaper:
/// what CountDeltaWidths (for the smallest key), DeltaRanks,
/// DistinctDeltaBases and CountDeltaWidthsOfBases give together, without
/// their three passes and five counts a key. `keys` are m >= 1 N-bit two's
/// complement numbers (N = 8 * sizeof(U)) as int64 in [lo, hi]; on success
/// rows_of_width[j][b] += the keys whose (key - bases.value[j]) mod 2^N is
/// b bits. Gives up (returns false, rows_of_width untouched) where the keys
/// crowd a few buckets even after one refinement, which the passes handle
/// better.
///
/// How: with t = key - lo (< 2^N), the t below a limit L (at first all of
/// them) are counted in buckets of 2^s values (s the least with at most
/// max(128, m) buckets below L); the buckets' prefix sums give the keys
/// below any bucket's start, and where s > 0 the keys are also placed bucket
/// by bucket (a counting sort), so the keys below any t < L are the buckets'
/// sum plus a scan of t's own bucket. Keys at or above L are listed and
/// counted one by one. Where a bucket holds too many keys (a few keys far
/// above the rest stretch the buckets), L becomes the end of the first such
/// bucket and the count is redone once, provided the ranks stay below L and
/// at most an eighth of the keys lie above it.
/// Then a rank is found in its bucket, and for a base lo + r the keys of
/// each width b are the t in [r + 2^(b-1), r + 2^b) for t >= r; for t < r
/// the offset wraps to 2^N - (r - t), which is N bits where r - t <=
/// 2^(N-1) (other t one by one: only narrow types get there).
template <typename U>
bool KeyBasesAndWidthsBucketed(const std::vector<int64_t>& keys, int64_t lo, int64_t hi,
                               DeltaBases* bases, uint64_t (*rows_of_width)[65]) {
  const uint64_t m = keys.size();
  // Under 64 keys the passes cost little: no histogram.
  if (m < 64) return false;
  const uint64_t floor = static_cast<uint64_t>(lo);
  const uint64_t range = static_cast<uint64_t>(hi) - floor;
  const uint64_t most_buckets = std::max<uint64_t>(128, m);
  // A bucket of more than this many keys makes the scans below cost more
  // than the passes they replace.
  const uint64_t most_in_bucket = 32 + m / 8;
  const uint64_t top_rank = m / DeltaRankDivisor(kNumDeltaRanks - 1);
  const int64_t* all = keys.data();
  thread_local std::vector<uint32_t> first_of;
  thread_local std::vector<uint64_t> above_of;  // the t >= limit
  uint64_t limit = range;  // t <= limit are bucketed (range + 1 may overflow)
  uint32_t s = 0;  // the first attempt's bucket shift, for the sample
  while ((limit >> s) >= most_buckets) ++s;
  {
    // A sample of 32 keys predicts where the buckets would stay crowded, so
    // that those keys go to the passes without a wasted count: a crowded
    // bucket with many keys above it (long-tailed or two-sided deltas), or
    // one key repeated in many rows (runs of equal values: delta 0), which
    // buckets wider than one value never separate. Only the route depends
    // on it, never the result.
    constexpr uint32_t kSample = 32;
    constexpr uint32_t kCrowd = kSample / 8 + 3;
    uint64_t sample[kSample];
    for (uint32_t i = 0; i < kSample; ++i) {
      sample[i] = static_cast<uint64_t>(all[i * (m / kSample)]) - floor;
    }
    std::sort(sample, sample + kSample);
    if (s > 0) {
      for (uint32_t i = 0, j = 0; i < kSample; i = j) {
        while (j < kSample && sample[j] == sample[i]) ++j;
        if (j - i >= kCrowd) return false;  // one key in many rows
      }
    }
    for (uint32_t i = 0, j = 0; i < kSample; i = j) {
      while (j < kSample && (sample[j] >> s) == (sample[i] >> s)) ++j;
      if (j - i >= kCrowd) {  // the first crowded bucket
        if (kSample - j > kCrowd) return false;
        break;
      }
    }
  }
  uint64_t buckets = 0;
  uint64_t in_buckets = 0;
  uint32_t* first = nullptr;
  for (int attempt = 0;; ++attempt) {
    s = 0;
    while ((limit >> s) >= most_buckets) ++s;
    buckets = (limit >> s) + 1;
    first_of.assign(buckets + 1, 0);
    first = first_of.data();
    uint64_t above = 0;
    if (limit == range) {
      for (uint64_t i = 0; i < m; ++i) ++first[(static_cast<uint64_t>(all[i]) - floor) >> s];
    } else {
      above_of.resize(m);
      for (uint64_t i = 0; i < m; ++i) {
        const uint64_t t = static_cast<uint64_t>(all[i]) - floor;
        ++first[(t <= limit ? t : limit) >> s];  // t > limit counted in the last bucket, then
        above_of[above] = t;                     // taken out below
        above += t > limit;
      }
      first[limit >> s] -= static_cast<uint32_t>(above);
    }
    in_buckets = m - above;
    // Prefix sums: first[k] = bucketed keys in buckets < k; and the first
    // overfull bucket, if any.
    uint64_t crowded = buckets;
    uint32_t running = 0;
    for (uint64_t k = 0; k < buckets; ++k) {
      const uint32_t c = first[k];
      if (s > 0 && c > most_in_bucket && crowded == buckets) crowded = k;
      first[k] = running;
      running += c;
    }
    first[buckets] = running;
    if (crowded == buckets) break;
    // Refine once below the end of the first crowded bucket, where the ranks
    // must lie, if few keys (an eighth at most) lie above it: many above
    // (deltas of a long-tailed spread) would each cost five counts.
    const uint64_t new_limit = ((crowded + 1) << s) - 1;
    const uint64_t at_or_below = first[crowded + 1];
    if (attempt > 0 || new_limit >= limit || at_or_below <= top_rank ||
        m - at_or_below > m / 8) {
      return false;
    }
    limit = new_limit;
  }
  const uint64_t above = m - in_buckets;
  // Where s > 0, the t of bucket k at sorted[first[k] .. first[k + 1]).
  thread_local std::vector<uint64_t> sorted_by_bucket;
  uint64_t* sorted = nullptr;
  if (s > 0) {
    sorted_by_bucket.resize(in_buckets);
    sorted = sorted_by_bucket.data();
    thread_local std::vector<uint32_t> cursor_of;
    cursor_of.assign(first, first + buckets);
    uint32_t* cursor = cursor_of.data();
    for (uint64_t i = 0; i < m; ++i) {
      const uint64_t t = static_cast<uint64_t>(all[i]) - floor;
      if (t <= limit) sorted[cursor[t >> s]++] = t;
    }
  }
  // Bucketed keys with t < x.
  const auto below = [&](uint64_t x) -> uint64_t {
    if (x > limit) return in_buckets;
    const uint64_t k = x >> s;
    uint64_t count = first[k];
    if (s > 0) {
      for (uint32_t i = first[k]; i < first[k + 1]; ++i) count += sorted[i] < x;
    }
    return count;
  };
  const auto between = [&](uint64_t a, uint64_t b) -> uint64_t {
    return a < b ? below(b) - below(a) : 0;
  };
  // The ranks (all among the bucketed keys): the bucket with first[k] <=
  // rank < first[k + 1], then the rank within it.
  int64_t at_rank[kNumDeltaRanks] = {};
  for (int r = 0; r < kNumDeltaRanks; ++r) {
    const uint64_t rank = m / DeltaRankDivisor(r);
    if (rank == 0) continue;
    uint64_t a = 0, b = buckets - 1;
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      if (first[mid + 1] > rank) {
        b = mid;
      } else {
        a = mid + 1;
      }
    }
    uint64_t t = a;
    if (s > 0) {
      uint64_t* bucket = sorted + first[a];
      const uint64_t size = first[a + 1] - first[a];
      std::nth_element(bucket, bucket + (rank - first[a]), bucket + size);
      t = bucket[rank - first[a]];
    }
    at_rank[r] = static_cast<int64_t>(floor + t);
  }
  *bases = DistinctDeltaBases(lo, at_rank, static_cast<uint32_t>(m));
  constexpr uint32_t kBits = 8 * sizeof(U);
  constexpr uint64_t kHalf = uint64_t{1} << (kBits - 1);
  for (int j = 0; j < bases->count; ++j) {
    uint64_t* counts = rows_of_width[j];
    const uint64_t r = static_cast<uint64_t>(bases->value[j]) - floor;  // <= limit
    // The bucketed keys of each width, walking the widths' first t upward.
    uint64_t below_first = below(r);
    const uint64_t at_r = r >= limit ? in_buckets : below(r + 1);
    counts[0] += at_r - below_first;
    below_first = at_r;
    for (uint32_t b = 1; b <= 64 && below_first < in_buckets; ++b) {
      // t in [r + 2^(b-1), r + 2^b): below(r + 2^(b-1)) is the previous end.
      const bool past_limit = b == 64 || (uint64_t{1} << b) > limit - r;
      const uint64_t end = past_limit ? in_buckets : below(r + (uint64_t{1} << b));
      counts[b] += end - below_first;
      below_first = end;
    }
    // t < r: (t - r) mod 2^N = 2^N - (r - t), N bits when r - t <= 2^(N-1).
    const uint64_t wrap_first = r > kHalf ? r - kHalf : 0;
    counts[kBits] += between(wrap_first, r);
    if (wrap_first > 0) {
      for (uint64_t i = 0; i < m; ++i) {
        const uint64_t t = static_cast<uint64_t>(all[i]) - floor;
        if (t < wrap_first) ++counts[BitLength(static_cast<U>(t - r))];
      }
    }
    // The keys above the limit (above r), one by one.
    for (uint64_t i = 0; i < above; ++i) ++counts[BitLength(above_of[i] - r)];
  }
  return true;
}

/// The keys' Base candidates (DistinctDeltaBases over the smallest key and
/// the ranks of DeltaRanks) and the width counts of each (rows_of_width[j]
/// += as CountDeltaWidths for bases->value[j]), for DeltaFit and
/// PatchedForFit. `keys` may be reordered.
template <typename U>
void KeyBasesAndWidths(std::vector<int64_t>& keys, int64_t lo, int64_t hi, DeltaBases* bases,
                       uint64_t (*rows_of_width)[65]) {
  if (KeyBasesAndWidthsBucketed<U>(keys, lo, hi, bases, rows_of_width)) return;
  const uint32_t m = static_cast<uint32_t>(keys.size());
  // The widths for the smallest key first: where no offset wraps modulo 2^N
  // they are the bit lengths of key - lo, which DeltaRanks uses.
  CountDeltaWidths<U>(keys, static_cast<U>(lo), rows_of_width[0]);
  const bool no_wrap = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) <=
                       static_cast<uint64_t>(static_cast<U>(~U{0}));
  int64_t at_rank[kNumDeltaRanks] = {};
  DeltaRanks(keys, lo, no_wrap ? rows_of_width[0] : nullptr, kDeltaRankDivisors, at_rank);
  *bases = DistinctDeltaBases(lo, at_rank, m);
  U others[kNumDeltaRanks] = {};
  for (int j = 1; j < bases->count; ++j) others[j - 1] = static_cast<U>(bases->value[j]);
  if (bases->count > 1) {
    CountDeltaWidthsOfBases<U>(keys, others, bases->count - 1, rows_of_width + 1);
  }
}

/// BestBaseChoice's rule over the bases, with choice_of(j) the best width
/// choice for bases.value[j]: the fewest payload words, the first base on
/// ties. Shared with the CUDA writer, whose warp computes each choice
/// (delta_fit.cuh: WarpChooseDeltaWidth).
template <typename ChoiceOf>
L3_HD DeltaChoice BestBaseChoiceOf(const DeltaBases& bases, int64_t* base, ChoiceOf&& choice_of) {
  DeltaChoice best;
  for (int j = 0; j < bases.count; ++j) {
    const DeltaChoice c = choice_of(j);
    if ((c.bits + 63) / 64 < (best.bits + 63) / 64 || j == 0) {
      best = c;
      *base = bases.value[j];
    }
  }
  return best;
}

/// The base (into *base) whose best Bit_Width needs the fewest payload
/// words, the first on ties, and that choice; rows_of_width[j] holds the
/// width counts for bases.value[j], and every key (delta or value) lies in
/// [lo, hi] (N = `bits`); Signed_Highs only where `allow_signed`, Rows_EF
/// (PATCHED_FOR) only where `allow_rows_ef`. Shared by DELTA and
/// PATCHED_FOR, and with the CUDA writer.
L3_HD DeltaChoice BestBaseChoice(uint32_t n, const DeltaBases& bases,
                                 const uint64_t (*rows_of_width)[65], int64_t lo, int64_t hi,
                                 uint32_t bits, bool allow_signed, int64_t* base,
                                 bool allow_rows_ef = false) {
  return BestBaseChoiceOf(bases, base, [&](int j) {
    return ChooseDeltaWidthFromCounts(
        rows_of_width[j], n, SignedHighSpanOf(lo, hi, bases.value[j], bits, allow_signed),
        allow_rows_ef);
  });
}

/// The Exceptions word's fields of a choice (spec §8.9, §8.12).
L3_HD DeltaExceptions ExceptionsOf(const DeltaChoice& c) {
  DeltaExceptions e;
  e.count = c.exceptions;
  e.width = c.exceptions == 0 ? 0u : c.high_width;
  e.signed_highs = c.exceptions != 0 && c.signed_highs;
  e.rows_ef = c.exceptions != 0 && c.rows_ef;
  return e;
}

/// The DELTA fit from the width counts of each distinct base
/// (rows_of_width[j] for bases.value[j]) of deltas in [lo, hi]: the base
/// whose best Bit_Width needs the fewest payload words, the first on ties.
/// Shared with the CUDA writer.
template <typename T>
L3_HD PartitionFit BestDeltaFit(uint32_t n, uint32_t values_per_lane, const DeltaBases& bases,
                                const uint64_t (*rows_of_width)[65], int64_t lo, int64_t hi,
                                bool allow_signed) {
  int64_t base = 0;
  const DeltaChoice best =
      BestBaseChoice(n, bases, rows_of_width, lo, hi, 8 * sizeof(T), allow_signed, &base);
  return MakeDeltaFit<T>(n, best.width, base, ExceptionsOf(best), values_per_lane);
}


/// DeltaFit's optional look at every value in its pass over the deltas.
struct NoValueHook {
  template <typename T>
  void operator()(T) const {}
};

/// DeltaFit, or, when DeltaCostLowerBound shows that no DELTA fit can cost
/// less than `cost_limit` bytes, a fit whose cost_bytes is ~0 (nothing else
/// set). on_value(v[x]) is called for every row when n > 1 (PATCHED_FOR's
/// bound counts the values there, in the same pass). Signed_Highs only
/// where `allow_signed` (FitOptions::signed_exception_highs).
template <typename T, typename OnValue = NoValueHook>
PartitionFit DeltaFit(const T* v, uint32_t n, uint32_t values_per_lane,
                      uint64_t cost_limit = kNoDeltaCostLimit, bool allow_signed = true,
                      OnValue&& on_value = OnValue()) {
  using U = typename ValueTraits<T>::Unsigned;
  if (n > 1) {
    thread_local std::vector<int64_t> deltas;
    deltas.resize(n - 1);
    int64_t min_delta = SignedDelta(v[1], v[0]);
    int64_t max_delta = min_delta;
    on_value(v[0]);
    for (uint32_t x = 1; x < n; ++x) {
      const int64_t d = SignedDelta(v[x], v[x - 1]);
      on_value(v[x]);
      deltas[x - 1] = d;
      min_delta = std::min(min_delta, d);
      max_delta = std::max(max_delta, d);
    }
    // With Delta_Base the smallest delta, Bit_Width bitlen(R) holds every
    // row: when that already costs less than the limit, the bound cannot
    // rule DELTA out and is not worth its pass.
    if (DeltaHopeless(min_delta, max_delta, n, values_per_lane, cost_limit, [&] {
          return DeltaCostLowerBound(deltas, min_delta, max_delta, n, values_per_lane, cost_limit);
        })) {
      PartitionFit hopeless;
      hopeless.cost_bytes = ~uint64_t{0};
      return hopeless;
    }
    uint64_t rows_of_width[kMaxDeltaBases][65] = {};
    DeltaBases bases;
    KeyBasesAndWidths<U>(deltas, min_delta, max_delta, &bases, rows_of_width);
    return BestDeltaFit<T>(n, values_per_lane, bases, rows_of_width, min_delta, max_delta,
                           allow_signed);
  }
  const DeltaChoice single = ChooseDeltaWidth(v, n, 0);
  return MakeDeltaFit<T>(n, single.width, 0, DeltaExceptions{0, 0}, values_per_lane);
}

/// DELTA of values[0, n) with no exceptions: Delta_Base the smallest delta
/// and Bit_Width the width of the largest u(x), so that every row's offset
/// is one field. Larger than DeltaFit's choice when a few deltas are wide,
/// but a recurring sequence of deltas then stays one recurring sequence of
/// fields, which zstd over the field-byte form (spec §9.3) matches whole.
template <typename T>
PartitionFit WholeDeltaFit(const T* v, uint32_t n, uint32_t values_per_lane) {
  using U = typename ValueTraits<T>::Unsigned;
  int64_t lo = 0;
  uint32_t width = 0;
  if (n > 1) {
    lo = SignedDelta(v[1], v[0]);
    for (uint32_t x = 2; x < n; ++x) lo = std::min(lo, SignedDelta(v[x], v[x - 1]));
    U widest = 0;
    for (uint32_t x = 1; x < n; ++x) {
      widest = std::max(widest, static_cast<U>(DeltaOffset(v[x], v[x - 1], static_cast<U>(lo))));
    }
    width = BitLength(widest);
  }
  return MakeDeltaFit<T>(n, width, lo, DeltaExceptions{0, 0}, values_per_lane);
}

namespace delta_detail {
// ORs a field of w bits (w <= 64) into a zeroed LSB-first stream (spec §8.5).
inline void OrField(uint8_t* stream, uint64_t bit, uint64_t field, uint32_t w) {
  if (w == 0) return;
  field &= LowMask(w);
  uint8_t* word = stream + 8 * (bit >> 6);
  const uint32_t shift = static_cast<uint32_t>(bit & 63);
  StoreLE64(word, LoadLE64(word) | (field << shift));
  if (shift + w > 64) StoreLE64(word + 8, LoadLE64(word + 8) | (field >> (64 - shift)));
}
}  // namespace delta_detail

/// Writes the low w bits of the n offsets offset_of(x) into `stream` (zeroed
/// words) in SLAP stream order (spec §8.5, tile by tile, lane by lane, step
/// by step): the fields of DELTA (spec §8.9, after the Seed words) and of
/// PATCHED_FOR (spec §8.12).
template <typename OffsetOf>
void EmitSlapOffsets(uint64_t n, uint32_t w, uint32_t values_per_lane, OffsetOf&& offset_of,
                     uint8_t* stream) {
  if (w == 0) return;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  uint64_t bit = 0;
  for (uint64_t first = 0; first < n; first += tile_rows) {
    const uint64_t rows = n - first < tile_rows ? n - first : tile_rows;
    for (uint32_t lane = 0; lane < kLanes && lane < rows; ++lane) {
      for (uint64_t x = first + lane; x < first + rows; x += kLanes, bit += w) {
        delta_detail::OrField(stream, bit, offset_of(x), w);
      }
    }
  }
}

/// Writes the stream of DELTA (spec §8.9, after the Seed words) into
/// `stream` (zeroed words): the fields (EmitSlapOffsets), then the rows
/// whose offset has bits at or above w and their stored high parts
/// (StoredExceptionHigh), in row order. Returns false when there are not
/// exactly e.count such rows or a stored high part needs more than e.width
/// bits (an encoder bug).
template <typename OffsetOf>
bool EmitOffsetsWithExceptions(uint64_t n, uint32_t w, DeltaExceptions e,
                               uint32_t values_per_lane, uint32_t bits, OffsetOf&& offset_of,
                               uint8_t* stream) {
  EmitSlapOffsets(n, w, values_per_lane, offset_of, stream);
  const uint32_t row_bits = RunStartBits(n);
  const uint64_t rows_bit = n * w;
  const uint64_t highs_bit = rows_bit + uint64_t{e.count} * row_bits;
  uint64_t count = 0;
  for (uint64_t x = 0; x < n; ++x) {
    const uint64_t u = offset_of(x);
    if (w >= 64 || (u >> w) == 0) continue;
    const uint64_t high = StoredExceptionHigh(u, w, bits, e.signed_highs);
    if (count >= e.count || BitLength(high) > e.width) return false;
    delta_detail::OrField(stream, rows_bit + count * row_bits, x, row_bits);
    delta_detail::OrField(stream, highs_bit + count * e.width, high, e.width);
    ++count;
  }
  return count == e.count;
}

/// The K-th difference of v at row x >= K (spec §8.9, K <= 3), modulo 2^64:
/// its low N bits are the difference modulo 2^N.
template <typename T>
uint64_t DeltaDifference(const T* v, uint64_t x, uint32_t order) {
  using U = typename ValueTraits<T>::Unsigned;
  const auto at = [&](uint64_t back) -> uint64_t { return static_cast<U>(v[x - back]); };
  switch (order) {
    case 1:
      return at(0) - at(1);
    case 2:
      return at(0) - 2 * at(1) + at(2);
    default:
      return at(0) - 3 * at(1) + 3 * at(2) - at(3);
  }
}

/// The cheapest DELTA fit of order K (2 or 3, spec §8.9) of values[0, n),
/// n > K: DeltaFit over the running sums of the K-th differences of rows K ..
/// n - 1, whose deltas they are, then the partition's own payload size (K
/// Seed words a tile, n fields). Rows x < K have u(x) = 0.
template <typename T>
PartitionFit DeltaOrderFit(const T* v, uint32_t n, uint32_t values_per_lane, uint32_t order,
                           bool allow_signed) {
  using U = typename ValueTraits<T>::Unsigned;
  thread_local std::vector<T> sums;
  sums.resize(n - order + 1);
  U acc = 0;
  sums[0] = static_cast<T>(acc);
  for (uint32_t j = 1; j + order <= n; ++j) {
    acc = static_cast<U>(acc + DeltaDifference(v, order - 1 + j, order));
    sums[j] = static_cast<T>(acc);
  }
  PartitionFit fit = DeltaFit(sums.data(), n - order + 1, values_per_lane, kNoDeltaCostLimit,
                              allow_signed);
  DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  e.order = order;
  fit.num_rows = n;
  fit.exceptions = PackDeltaExceptions(e);
  fit.payload_words = DeltaPayloadWords(n, fit.bit_width, values_per_lane, e);
  fit.cost_bytes = PartitionCost(fit.model_type, fit.bit_width, fit.payload_words);
  return fit;
}

/// Writes a DELTA partition's payload into `out` (fit.payload_words zeroed
/// words): the K Seed words of each tile, then the low Bit_Width bits of
/// u(x) in SLAP stream order (spec §8.5), then the exception rows and high
/// parts in row order. Seed[t][i] for t >= 1 is the i-th difference at row
/// t*S - 1; tile 0's are the state that rows 0 .. K-1 with u = 0 lead to
/// v(0) .. v(K-1) (for K = 1, Seed[0] = v[0] - Delta_Base). Returns false
/// when the fit does not describe the values (an encoder bug).
template <typename T>
bool EmitDeltaPayload(const T* v, const PartitionFit& fit, uint32_t values_per_lane,
                      uint8_t* out) {
  using Traits = ValueTraits<T>;
  using U = typename Traits::Unsigned;
  const uint64_t n = fit.num_rows;
  const uint32_t w = fit.bit_width;
  const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  const uint32_t order = e.order;
  if (order > kMaxDeltaOrder || (order > 1 && n <= order)) return false;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t num_seeds = DeltaSeedWords(n, values_per_lane, order);
  const uint64_t delta_base = static_cast<U>(fit.base);
  // The i-th differences at row x >= K - 1 (i < K), modulo 2^64.
  const auto state_at = [&](uint64_t x, uint64_t* state) {
    for (uint32_t i = 0; i < order; ++i) state[i] = i == 0 ? uint64_t{static_cast<U>(v[x])}
                                                           : DeltaDifference(v, x, i);
  };
  for (uint64_t t = 0; t * order < num_seeds; ++t) {
    uint64_t state[kMaxDeltaOrder];
    if (t == 0) {
      // From the state at row K - 1 back to before row 0, each row's
      // a_{K-1} term being Delta_Base (u = 0): a_i(x - 1) = a_i(x) - a_{i+1}(x).
      state_at(order - 1, state);
      for (uint32_t step = 0; step < order; ++step) {
        for (uint32_t i = 0; i + 1 < order; ++i) state[i] -= state[i + 1];
        state[order - 1] -= delta_base;
      }
    } else {
      state_at(t * tile_rows - 1, state);
    }
    for (uint32_t i = 0; i < order; ++i) {
      const T seed = static_cast<T>(static_cast<U>(state[i]));
      StoreLE64(out + 8 * (t * order + i), Traits::Canonical(seed));
    }
  }
  const auto offset_of = [&](uint64_t x) -> uint64_t {
    if (x < order) return 0;
    return order == 1 ? DeltaOffset(v[x], v[x - 1], delta_base)
                      : static_cast<U>(DeltaDifference(v, x, order) - delta_base);
  };
  return EmitOffsetsWithExceptions(n, w, e, values_per_lane, 8 * sizeof(T), offset_of,
                                   out + 8 * num_seeds);
}

}  // namespace l3::internal
