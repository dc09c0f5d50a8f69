// PATCHED_FOR (spec §8.12), the writer's half: the fit (Base, Bit_Width and
// exceptions of one partition) and the payload (SLAP fields, then the
// exception rows and high parts). Depends on the decoder for nothing.
//
// The fit is DELTA's (delta_encode.hpp) taken over the values instead of
// their deltas: the Base candidates are the smallest value and the values of
// ranks n/64, n/16, n/8 and n/4, each with the Bit_Width of fewest payload words.
// ChooseModel (fit_choice.hpp) tries it last, for every candidate partition
// where no line or polynomial won, unless a lower bound rules it out (§14).
#pragma once

#include <cstdint>
#include <vector>

#include "codec/delta/delta_encode.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/patched/patched_for_layout.hpp"

namespace l3::internal {

/// The key of a value in the order of its type, as an int64: the value
/// itself, except that an unsigned 64-bit value has its top bit flipped.
/// (U)(key_a - key_b) = (a - b) mod 2^N in every case, so the width counts of
/// delta_encode.hpp apply to keys unchanged.
template <typename T>
L3_HD int64_t PatchedForKey(T v) {
  if constexpr (sizeof(T) == 8 && !ValueTraits<T>::kSigned) {
    return static_cast<int64_t>(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
  } else {
    return static_cast<int64_t>(v);
  }
}

/// The value of a key (the inverse of PatchedForKey).
template <typename T>
L3_HD T PatchedForValueOfKey(int64_t key) {
  if constexpr (sizeof(T) == 8 && !ValueTraits<T>::kSigned) {
    return static_cast<T>(static_cast<uint64_t>(key) ^ (uint64_t{1} << 63));
  } else {
    return static_cast<T>(key);
  }
}

/// A PATCHED_FOR partition of n rows with Base `base`, Bit_Width `width` and
/// exceptions `e`, with its payload size and cost. Bounds are set by the
/// caller.
template <typename T>
L3_HD PartitionFit MakePatchedForFit(uint32_t n, uint32_t width, T base, DeltaExceptions e) {
  constexpr uint8_t kType = static_cast<uint8_t>(Model::kPatchedFor);
  PartitionFit fit;
  fit.num_rows = n;
  fit.model_type = kType;
  fit.bit_width = static_cast<uint8_t>(width);
  fit.base = ValueTraits<T>::Canonical(base);  // spec Base
  fit.exceptions = PackDeltaExceptions(e);
  fit.payload_words = PatchedForPayloadWords(n, fit.bit_width, e);
  fit.cost_bytes = PartitionCost(kType, fit.bit_width, fit.payload_words);
  return fit;
}

/// The PATCHED_FOR fit from the width counts of each distinct Base
/// candidate (rows_of_width[j][b] = the rows x whose u(x) = (v(x) - base_j)
/// mod 2^N is b bits, over all n rows; bases.value[j] are keys, and every
/// key lies in [min_key, max_key]; Signed_Highs only where `allow_signed`,
/// Rows_EF only where `allow_rows_ef`): the base whose best Bit_Width
/// (ChooseDeltaWidthFromCounts: n fields of w bits and E exceptions of hw
/// bits each plus their rows, CheapestRowListBits) needs the fewest payload
/// words, the first on ties. Shared with the CUDA writer.
template <typename T>
L3_HD PartitionFit BestPatchedForFit(uint32_t n, const DeltaBases& bases,
                                     const uint64_t (*rows_of_width)[65], int64_t min_key,
                                     int64_t max_key, bool allow_signed, bool allow_rows_ef) {
  int64_t key = 0;
  const DeltaChoice best = BestBaseChoice(n, bases, rows_of_width, min_key, max_key, 8 * sizeof(T),
                                          allow_signed, &key, allow_rows_ef);
  return MakePatchedForFit<T>(n, best.width, PatchedForValueOfKey<T>(key), ExceptionsOf(best));
}

/// The bucket counts of PatchedForFit's lower bound: the values' keys in at
/// most 2^kCpuBoundBucketBits buckets of 2^DeltaBoundShift keys from the
/// smallest.
template <typename T>
struct PatchedForBuckets {
  static constexpr uint32_t kBuckets = uint32_t{1} << kCpuBoundBucketBits;
  uint64_t floor = 0;
  uint32_t shift = 0;
  bool filled = false;
  uint32_t counts[kBuckets] = {};

  void Reset(T min, T max) {
    floor = static_cast<uint64_t>(PatchedForKey(min));
    shift = DeltaBoundShift<kCpuBoundBucketBits>(PatchedForKey(min), PatchedForKey(max));
    filled = false;
    for (uint32_t& c : counts) c = 0;
  }
  uint64_t BucketOf(T v) const {
    return (static_cast<uint64_t>(PatchedForKey(v)) - floor) >> shift;
  }
  void Add(T v) { ++counts[BucketOf(v)]; }
  /// Counts of values[0, n), two interleaved tallies.
  void Fill(const T* v, uint32_t n) {
    uint32_t odd[kBuckets] = {};
    uint32_t x = 0;
    for (; x + 2 <= n; x += 2) {
      Add(v[x]);
      ++odd[BucketOf(v[x + 1])];
    }
    if (x < n) Add(v[x]);
    for (uint32_t k = 0; k < kBuckets; ++k) counts[k] += odd[k];
    filled = true;
  }
};

/// The cheapest PATCHED_FOR fit of values[0, n), n >= 1, whose extremes are
/// `min` and `max` (bounds not set); or, when a lower bound shows that none
/// costs less than `cost_limit` bytes, a fit whose cost_bytes is ~0 (nothing
/// else set), as DeltaFit does for DELTA. `buckets`, when filled, are the
/// values' bucket counts for that bound (else they are counted here).
/// Signed_Highs only where `allow_signed` (FitOptions::signed_exception_highs),
/// Rows_EF only where `allow_rows_ef` (FitOptions::patched_rows_ef).
template <typename T>
PartitionFit PatchedForFit(const T* v, uint32_t n, T min, T max,
                           uint64_t cost_limit = kNoDeltaCostLimit,
                           PatchedForBuckets<T>* buckets = nullptr, bool allow_signed = true,
                           bool allow_rows_ef = true) {
  using U = typename ValueTraits<T>::Unsigned;
  const int64_t min_key = PatchedForKey(min), max_key = PatchedForKey(max);
  if (cost_limit != kNoDeltaCostLimit) {
    // The bound of delta_encode.hpp with no Seed words covers every Base and
    // Bit_Width.
    PatchedForBuckets<T> local;
    if (buckets == nullptr || !buckets->filled) {
      local.Reset(min, max);
      local.Fill(v, n);
      buckets = &local;
    }
    if (CpuOffsetCostLowerBound(buckets->counts, n, min_key, max_key, n, 0, allow_rows_ef,
                                cost_limit) >=
        cost_limit) {
      PartitionFit hopeless;
      hopeless.cost_bytes = ~uint64_t{0};
      return hopeless;
    }
  }
  thread_local std::vector<int64_t> keys;
  keys.resize(n);
  for (uint32_t x = 0; x < n; ++x) keys[x] = PatchedForKey(v[x]);
  uint64_t rows_of_width[kMaxDeltaBases][65] = {};
  DeltaBases bases;
  KeyBasesAndWidths<U>(keys, min_key, max_key, &bases, rows_of_width);
  return BestPatchedForFit<T>(n, bases, rows_of_width, min_key, max_key, allow_signed,
                              allow_rows_ef);
}

/// PatchedForFit of values[0, n) with no cost limit.
template <typename T>
PartitionFit PatchedForFit(const T* v, uint32_t n) {
  T min = v[0], max = v[0];
  for (uint32_t x = 1; x < n; ++x) {
    min = v[x] < min ? v[x] : min;
    max = v[x] > max ? v[x] : max;
  }
  return PatchedForFit(v, n, min, max);
}

/// Writes a PATCHED_FOR partition's payload into `out` (fit.payload_words
/// zeroed words): the low Bit_Width bits of u(x) = v(x) - Base in SLAP stream
/// order (spec §8.5), then the exception rows (fixed-width, or Rows_EF's low
/// parts and the 1 bits of H) and the high parts, in row order. Returns
/// false when the fit does not describe the values (an encoder bug).
template <typename T>
bool EmitPatchedForPayload(const T* v, const PartitionFit& fit, uint32_t values_per_lane,
                           uint8_t* out) {
  using U = typename ValueTraits<T>::Unsigned;
  const uint64_t n = fit.num_rows;
  const uint32_t w = fit.bit_width;
  const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  const U base = static_cast<U>(fit.base);
  const auto offset_of = [&](uint64_t x) -> uint64_t {
    return static_cast<U>(static_cast<U>(v[x]) - base);
  };
  EmitSlapOffsets(n, w, values_per_lane, offset_of, out);
  if (e.count == 0) return true;
  const PatchedForExceptionLayout g = MakePatchedForExceptionLayout(n, w, e);
  uint64_t k = 0;  // exceptions so far
  for (uint64_t x = 0; x < n; ++x) {
    const uint64_t u = offset_of(x);
    if (w >= 64 || (u >> w) == 0) continue;
    const uint64_t high = StoredExceptionHigh(u, w, 8 * sizeof(T), e.signed_highs);
    if (k >= e.count || BitLength(high) > e.width) return false;
    if (e.rows_ef) {
      // spec §8.12: low part k, and bit (x >> l) + k of H.
      delta_detail::OrField(out, g.rows_bit + k * g.low_bits, x & LowMask(g.low_bits),
                            g.low_bits);
      delta_detail::OrField(out, g.h_bit + (x >> g.low_bits) + k, 1, 1);
    } else {
      delta_detail::OrField(out, g.rows_bit + k * g.row_bits, x, g.row_bits);
    }
    delta_detail::OrField(out, g.highs_bit + k * e.width, high, e.width);
    ++k;
  }
  return k == e.count;
}

}  // namespace l3::internal
