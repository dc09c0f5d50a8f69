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

namespace l3::internal {

/// d(x) = (v[x] - v[x-1]) mod 2^N read as an N-bit two's complement number.
template <typename T>
inline int64_t SignedDelta(T current, T previous) {
  return ValueTraits<T>::Residual(current, static_cast<int64_t>(previous));
}

/// u(x) = (d(x) - Delta_Base) mod 2^N, the unsigned value a row's field and
/// high part hold together (spec §8.9).
template <typename T>
inline uint64_t DeltaOffset(T current, T previous, uint64_t delta_base) {
  using U = typename ValueTraits<T>::Unsigned;
  return static_cast<U>(ValueTraits<T>::Offset(current, previous) - delta_base);
}

/// The payload bits of the best Bit_Width for one Delta_Base candidate
/// (ties: the wider one, fewer exceptions). spec §8.9 writer rules: the
/// exceptions are the rows whose u(x) needs more than Bit_Width bits, and
/// Exception_Width = bitlen(max u(x) >> Bit_Width).
struct DeltaChoice {
  uint64_t bits = ~uint64_t{0};
  uint32_t width = 0;
  uint32_t max_width = 0;
  uint32_t exceptions = 0;
};

/// The cheapest Bit_Width for one Delta_Base candidate, from the rows of
/// each width of u(x) (rows_of_width[b] = rows x >= 1 whose u(x) is b bits).
inline DeltaChoice ChooseDeltaWidthFromCounts(const uint64_t (&rows_of_width)[65], uint32_t n) {
  uint32_t max_width = 64;
  while (max_width > 0 && rows_of_width[max_width] == 0) --max_width;
  const uint32_t row_bits = RunStartBits(n);
  uint32_t best_w = max_width;
  uint64_t best_bits = uint64_t{n} * max_width;
  uint64_t wider = 0;  // rows whose u needs more than w bits
  for (uint32_t w = max_width; w-- > 0;) {
    wider += rows_of_width[w + 1];
    const uint64_t bits = uint64_t{n} * w + wider * (row_bits + (max_width - w));
    if ((bits + 63) / 64 < (best_bits + 63) / 64) {
      best_bits = bits;
      best_w = w;
    }
  }
  DeltaChoice choice;
  choice.bits = best_bits;
  choice.width = best_w;
  choice.max_width = max_width;
  for (uint32_t b = best_w + 1; b <= max_width; ++b) {
    choice.exceptions += static_cast<uint32_t>(rows_of_width[b]);
  }
  return choice;
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
PartitionFit MakeDeltaFit(uint32_t n, uint32_t width, int64_t lo, DeltaExceptions e,
                          uint32_t values_per_lane) {
  constexpr uint8_t kDeltaType = static_cast<uint8_t>(Model::kDelta);
  PartitionFit fit;
  fit.num_rows = n;
  fit.model_type = kDeltaType;
  fit.bit_width = static_cast<uint8_t>(width);
  fit.base = ValueTraits<T>::Canonical(static_cast<T>(lo));  // spec Delta_Base
  fit.exceptions = PackDeltaExceptions(e.count, e.width);
  fit.payload_words = DeltaPayloadWords(n, fit.bit_width, values_per_lane, e);
  fit.cost_bytes = PartitionCost(kDeltaType, fit.bit_width, fit.payload_words);
  return fit;
}

/// The cheapest DELTA fit of values[0, n) (0 for Delta_Base when n = 1).
/// Delta_Base candidates: the smallest delta, and the deltas at ranks n/64,
/// n/16 and n/4 from the bottom, so that a few large negative deltas become
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

/// CountDeltaWidths for `num_bases` (1 to 3) bases in one pass over the
/// deltas: rows_of_width[j] for bases[j].
template <typename U>
void CountDeltaWidthsOfBases(const std::vector<int64_t>& deltas, const U* bases, int num_bases,
                             uint64_t (*rows_of_width)[65]) {
  if (num_bases == 1) {
    CountDeltaWidths<U>(deltas, bases[0], rows_of_width[0]);
    return;
  }
  // Two interleaved tallies per base, as in CountDeltaWidths.
  uint32_t tally[3][2][65] = {};
  const U b0 = bases[0], b1 = bases[1], b2 = num_bases > 2 ? bases[2] : bases[1];
  const size_t m = deltas.size();
  size_t i = 0;
  for (; i + 2 <= m; i += 2) {
    const U d0 = static_cast<U>(deltas[i]), d1 = static_cast<U>(deltas[i + 1]);
    ++tally[0][0][BitLength(static_cast<U>(d0 - b0))];
    ++tally[0][1][BitLength(static_cast<U>(d1 - b0))];
    ++tally[1][0][BitLength(static_cast<U>(d0 - b1))];
    ++tally[1][1][BitLength(static_cast<U>(d1 - b1))];
    ++tally[2][0][BitLength(static_cast<U>(d0 - b2))];
    ++tally[2][1][BitLength(static_cast<U>(d1 - b2))];
  }
  for (; i < m; ++i) {
    const U d = static_cast<U>(deltas[i]);
    ++tally[0][0][BitLength(static_cast<U>(d - b0))];
    ++tally[1][0][BitLength(static_cast<U>(d - b1))];
    ++tally[2][0][BitLength(static_cast<U>(d - b2))];
  }
  for (int j = 0; j < num_bases; ++j) {
    for (int k = 0; k < 65; ++k) rows_of_width[j][k] += uint64_t{tally[j][0][k]} + tally[j][1][k];
  }
}

/// DeltaRanks' histograms have at most 2^(kExactRankBits + 2) entries.
inline constexpr uint32_t kExactRankBits = 11;

/// The deltas at ranks m / divisors[i] (0-based, ascending order; m =
/// deltas.size()) into at_rank[i], where that rank is not 0. `deltas` may be
/// reordered. `rows_of_length[k]` counts the deltas d with
/// BitLength(d - min_delta) = k, or is null when unknown.
///
/// With the counts, only the smallest deltas take part: those below
/// min_delta + 2^b, with b the least exponent for which they outnumber the
/// largest rank; every other delta is larger than all of them, so the
/// ranks are the same among them as among all. Without the counts b = 64.
/// When b <= max(kExactRankBits, min(kExactRankBits + 2, bitlen(m))), a histogram of
/// d - min_delta gives every rank in one pass. Otherwise a histogram of the
/// top h = min(kExactRankBits, max(bitlen(m), 6) - 3) bits of d - min_delta
/// (below 2^b)
/// tells the bucket of each rank and its rank within that bucket; a second
/// pass copies out the deltas of those (at most three) buckets, and each
/// rank is found among them by narrower histograms of the next bits while
/// many remain (and each at least halves them), then by selection. The k-th smallest delta is one value
/// however it is found, so this equals a selection among all deltas.
inline void DeltaRanks(std::vector<int64_t>& deltas, int64_t min_delta,
                       const uint64_t* rows_of_length, const uint32_t (&divisors)[3],
                       int64_t (&at_rank)[3]) {
  const uint64_t m = deltas.size();
  const uint64_t top_rank = m / divisors[2];
  if (top_rank == 0) return;
  const uint64_t floor = static_cast<uint64_t>(min_delta);
  uint32_t b = 64;
  uint64_t kept = m;
  if (rows_of_length != nullptr) {
    b = 0;
    for (kept = rows_of_length[0]; kept <= top_rank; kept += rows_of_length[++b]) {
    }
  }
  // An exact histogram of up to 2^kExactRankBits entries, or about 2m,
  // costs no more to clear and walk than the deltas cost to count; buckets,
  // about m / 8 of them, leave a few deltas each to select among.
  const uint32_t exact_bits = std::max<uint32_t>(
      kExactRankBits, std::min<uint32_t>(kExactRankBits + 2, BitLength(m)));
  const uint32_t histogram_bits =
      std::min<uint32_t>(kExactRankBits, std::max<uint32_t>(BitLength(m), 6) - 3);
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
    for (int i = 0; i < 3; ++i) {
      const uint64_t rank = m / divisors[i];
      if (rank == 0) continue;
      while (below + rows_at[value] <= rank) below += rows_at[value++];
      at_rank[i] = static_cast<int64_t>(floor + value);
    }
    return;
  }
  // Buckets of d - min_delta by its top histogram_bits bits below 2^b.
  const uint32_t num_buckets = uint32_t{1} << histogram_bits;
  const uint32_t shift = b - histogram_bits;
  const uint64_t below_limit = b >= 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1;  // largest u kept
  thread_local std::vector<uint32_t> rows_in_bucket;
  rows_in_bucket.assign(num_buckets, 0);
  for (const int64_t d : deltas) {
    const uint64_t u = static_cast<uint64_t>(d) - floor;
    if (u <= below_limit) ++rows_in_bucket[u >> shift];
  }
  uint32_t bucket_of[3] = {0, 0, 0};
  uint64_t rank_in_bucket[3] = {0, 0, 0};
  {
    uint32_t bucket = 0;
    uint64_t below = 0;
    for (int i = 0; i < 3; ++i) {  // ranks ascend with i
      const uint64_t rank = m / divisors[i];
      if (rank == 0) continue;
      while (below + rows_in_bucket[bucket] <= rank) below += rows_in_bucket[bucket++];
      bucket_of[i] = bucket;
      rank_in_bucket[i] = rank - below;
    }
  }
  // The deltas of each rank's bucket, one list per rank.
  thread_local std::vector<uint64_t> bucket_rows[3];
  bool wanted[3] = {false, false, false};
  uint64_t filled[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    wanted[i] = m / divisors[i] != 0;
    if (wanted[i]) bucket_rows[i].resize(rows_in_bucket[bucket_of[i]]);
  }
  {
    // Unwanted ranks look for a bucket number no delta has.
    const uint64_t none = ~uint64_t{0};
    const uint64_t b0 = wanted[0] ? bucket_of[0] : none;
    const uint64_t b1 = wanted[1] ? bucket_of[1] : none;
    const uint64_t b2 = bucket_of[2];
    uint64_t* rows0 = bucket_rows[0].data();
    uint64_t* rows1 = bucket_rows[1].data();
    uint64_t* rows2 = bucket_rows[2].data();
    for (const int64_t d : deltas) {
      const uint64_t u = static_cast<uint64_t>(d) - floor;
      if (u > below_limit) continue;
      const uint64_t bucket = u >> shift;
      if (bucket == b0) rows0[filled[0]++] = u;
      if (bucket == b1) rows1[filled[1]++] = u;
      if (bucket == b2) rows2[filled[2]++] = u;
    }
  }
  // Within a bucket of width 2^s, narrower histograms while many deltas
  // remain and each halves them at least, then a selection among the rest.
  thread_local std::vector<uint32_t> rows_in_part;
  for (int i = 0; i < 3; ++i) {
    if (!wanted[i]) continue;
    std::vector<uint64_t>& rows = bucket_rows[i];
    uint64_t size = rows.size();
    uint64_t rank = rank_in_bucket[i];
    uint32_t width_bits = shift;
    while (size > 64 && width_bits > 0) {
      const uint32_t part_bits = std::min<uint32_t>(
          width_bits, std::min<uint32_t>(kExactRankBits, std::max<uint32_t>(BitLength(size), 6) - 3));
      const uint32_t part_shift = width_bits - part_bits;
      const uint64_t part_mask = (uint64_t{1} << part_bits) - 1;
      rows_in_part.assign(size_t{1} << part_bits, 0);
      for (uint64_t k = 0; k < size; ++k) ++rows_in_part[(rows[k] >> part_shift) & part_mask];
      uint64_t part = 0, below = 0;
      while (below + rows_in_part[part] <= rank) below += rows_in_part[part++];
      uint64_t kept_rows = 0;
      for (uint64_t k = 0; k < size; ++k) {
        const uint64_t u = rows[k];
        rows[kept_rows] = u;
        kept_rows += ((u >> part_shift) & part_mask) == part ? 1 : 0;
      }
      const bool narrowed = 2 * kept_rows <= size;
      size = kept_rows;
      rank -= below;
      width_bits = part_shift;
      if (!narrowed) break;  // mostly equal deltas: selection does better
    }
    const auto first = rows.begin();
    const auto at = first + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(first, at, first + static_cast<std::ptrdiff_t>(size));
    at_rank[i] = static_cast<int64_t>(floor + *at);
  }
}

template <typename T>
PartitionFit DeltaFit(const T* v, uint32_t n, uint32_t values_per_lane) {
  using U = typename ValueTraits<T>::Unsigned;
  int64_t candidates[4] = {0, 0, 0, 0};
  int num_candidates = 1;
  DeltaChoice best;
  int64_t lo = 0;
  if (n <= 1) {
    best = ChooseDeltaWidth(v, n, 0);
  } else {
    thread_local std::vector<int64_t> deltas;
    deltas.resize(n - 1);
    int64_t min_delta = SignedDelta(v[1], v[0]);
    int64_t max_delta = min_delta;
    for (uint32_t x = 1; x < n; ++x) {
      const int64_t d = SignedDelta(v[x], v[x - 1]);
      deltas[x - 1] = d;
      min_delta = std::min(min_delta, d);
      max_delta = std::max(max_delta, d);
    }
    const uint32_t m = n - 1;
    candidates[0] = min_delta;
    // The widths of u(x) for candidate 0 (the smallest delta) first: where
    // no u(x) wraps modulo 2^N they are the bit lengths of d - min_delta,
    // which DeltaRanks uses.
    uint64_t rows_of_width[4][65] = {};
    const U base0 = static_cast<U>(min_delta);
    CountDeltaWidths<U>(deltas, base0, rows_of_width[0]);
    const bool no_wrap = static_cast<uint64_t>(max_delta) - static_cast<uint64_t>(min_delta) <=
                         static_cast<uint64_t>(static_cast<U>(~U{0}));
    int64_t at_rank[3] = {0, 0, 0};
    const uint32_t divisors[3] = {64u, 16u, 4u};
    DeltaRanks(deltas, min_delta, no_wrap ? rows_of_width[0] : nullptr, divisors, at_rank);
    for (int i = 0; i < 3; ++i) {
      if (m / divisors[i] != 0) candidates[num_candidates++] = at_rank[i];
    }
    // Equal candidates give equal choices, and a later one wins only when
    // strictly cheaper: only the first of equal candidates is counted.
    int distinct[4] = {0, 0, 0, 0};
    int num_distinct = 0;
    for (int i = 0; i < num_candidates; ++i) {
      bool seen = false;
      for (int j = 0; j < num_distinct; ++j) seen = seen || candidates[distinct[j]] == candidates[i];
      if (!seen) distinct[num_distinct++] = i;
    }
    // The widths of u(x) for the other candidates (distinct[0] is
    // candidate 0, counted above).
    U bases[4] = {};
    for (int j = 0; j < num_distinct; ++j) bases[j] = static_cast<U>(candidates[distinct[j]]);
    if (num_distinct > 1) {
      CountDeltaWidthsOfBases<U>(deltas, bases + 1, num_distinct - 1, rows_of_width + 1);
    }
    for (int j = 0; j < num_distinct; ++j) {
      const DeltaChoice c = ChooseDeltaWidthFromCounts(rows_of_width[j], n);
      if ((c.bits + 63) / 64 < (best.bits + 63) / 64 || j == 0) {
        best = c;
        lo = candidates[distinct[j]];
      }
    }
  }
  const DeltaExceptions e{best.exceptions, best.exceptions == 0 ? 0u : best.max_width - best.width};
  return MakeDeltaFit<T>(n, best.width, lo, e, values_per_lane);
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

/// Writes a DELTA partition's payload into `out` (fit.payload_words zeroed
/// words): Seed[0] = v[0] - Delta_Base, Seed[t] = v[t*S - 1] for t >= 1, then
/// u(0) = 0 and the low Bit_Width bits of u(x) in SLAP stream order (spec
/// §8.5), then the exception rows and high parts in row order. Returns false
/// when the fit does not describe the values (an encoder bug).
template <typename T>
bool EmitDeltaPayload(const T* v, const PartitionFit& fit, uint32_t values_per_lane,
                      uint8_t* out) {
  using Traits = ValueTraits<T>;
  using U = typename Traits::Unsigned;
  const uint64_t n = fit.num_rows;
  const uint32_t w = fit.bit_width;
  const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t num_seeds = DeltaSeedWords(n, values_per_lane);
  const uint64_t delta_base = static_cast<U>(fit.base);
  for (uint64_t t = 0; t < num_seeds; ++t) {
    const T seed = t == 0 ? static_cast<T>(static_cast<U>(static_cast<U>(v[0]) - delta_base))
                          : v[t * tile_rows - 1];
    StoreLE64(out + 8 * t, Traits::Canonical(seed));
  }
  uint8_t* stream = out + 8 * num_seeds;
  auto offset_of = [&](uint64_t x) -> uint64_t {
    return x == 0 ? 0 : DeltaOffset(v[x], v[x - 1], delta_base);
  };
  // Tile by tile, lane by lane, step by step is stream order (spec §8.5).
  uint64_t bit = 0;
  if (w > 0) {
    for (uint64_t first = 0; first < n; first += tile_rows) {
      const uint64_t rows = n - first < tile_rows ? n - first : tile_rows;
      for (uint32_t lane = 0; lane < kLanes && lane < rows; ++lane) {
        for (uint64_t x = first + lane; x < first + rows; x += kLanes, bit += w) {
          delta_detail::OrField(stream, bit, offset_of(x), w);
        }
      }
    }
  }
  // The exceptions: rows whose u(x) has bits at or above Bit_Width.
  const uint32_t row_bits = RunStartBits(n);
  const uint64_t rows_bit = n * w;
  const uint64_t highs_bit = rows_bit + uint64_t{e.count} * row_bits;
  uint64_t count = 0;
  for (uint64_t x = 1; x < n; ++x) {
    const uint64_t high = w >= 64 ? 0 : offset_of(x) >> w;
    if (high == 0) continue;
    if (count >= e.count || BitLength(high) > e.width) return false;
    delta_detail::OrField(stream, rows_bit + count * row_bits, x, row_bits);
    delta_detail::OrField(stream, highs_bit + count * e.width, high, e.width);
    ++count;
  }
  return count == e.count;
}

}  // namespace l3::internal
