// DELTA (spec §8.9), the CUDA writer's fit: one warp computes DeltaFit's
// result (delta_encode.hpp, the CPU half) for one partition in device memory.
//
// The rules are the CPU's (DistinctDeltaBases, BestBaseChoice,
// DeltaHopeless); the warp supplies their inputs: the smallest delta, the
// deltas at the ranks m / 64, m / 16, m / 8 and m / 4 (a radix select, eight bits
// a pass, over key = d - smallest delta), and the width counts of every
// distinct base. Three serial steps are computed by the whole warp to the
// same results (checked against the shared code in
// gpu_delta_fit_steps_test): the select's digit search (WarpFindDigit),
// the width choice (WarpChooseDeltaWidth, WarpBestBaseChoice) and the
// lower bound that skips fits which cannot win (WarpOffsetCostLowerBound).
#pragma once

#include <cstdint>

#include "codec/delta/delta_encode.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/bits.hpp"
#include "common/warp_scan.cuh"

namespace l3::internal {

/// Shared-memory words (uint32) one warp's DELTA fit needs: one 256-bin
/// histogram per rank, then kMaxDeltaBases x 65 uint64 width counts
/// (8-byte aligned), rounded up to 16 bytes: the warps' scratches lie one
/// after the other, and WarpFindDigit reads the histograms 16 bytes a load.
inline constexpr uint32_t kDeltaFitHistogramWords = kNumDeltaRanks * 256;
inline constexpr uint32_t kDeltaFitScratchWords =
    (kDeltaFitHistogramWords + 2 * kMaxDeltaBases * 65 + 3) / 4 * 4;
static_assert(kDeltaFitScratchWords % 4 == 0, "each warp's scratch starts on 16 bytes");
static_assert(kMaxDeltaBases * 65 <= kDeltaFitHistogramWords,
              "the 32-bit width counts are taken where the histograms were");

namespace delta_fit_detail {

inline constexpr unsigned kAllLanes = 0xffffffffu;

/// The digit d of a 256-bin histogram with bins 0..d-1 holding at most
/// `rank` keys and bins 0..d more (*below: the keys in bins 0..d-1), in
/// every lane; the histogram must hold more than `rank` keys. Lane L sums
/// bins 8L .. 8L + 7, a warp scan finds the lane whose bins pass the rank,
/// and that lane walks its eight: the walk of one lane over up to 256 bins
/// that this replaces was the critical path of the fits of short partitions.
__device__ __forceinline__ uint32_t WarpFindDigit(const uint32_t* histogram, uint64_t rank,
                                                  uint32_t lane, uint32_t* below) {
  const uint4 low = reinterpret_cast<const uint4*>(histogram)[2 * lane];
  const uint4 high = reinterpret_cast<const uint4*>(histogram)[2 * lane + 1];
  const uint32_t bins[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  uint32_t mine = 0;
  for (uint32_t k = 0; k < 8; ++k) mine += bins[k];
  const uint32_t through = WarpInclusiveSum(mine);
  const unsigned passed = __ballot_sync(kAllLanes, uint64_t{through} > rank);
  // A histogram of at most `rank` keys (never, for the ranks asked) would
  // leave no lane; the last one then stays inside the bins.
  const uint32_t owner = passed == 0 ? 31u : static_cast<uint32_t>(__ffs(passed) - 1);
  uint32_t digit = 8 * lane, sum = through - mine;
  if (lane == owner) {
    for (uint32_t k = 0; k < 7 && uint64_t{sum} + bins[k] <= rank; ++k) {
      sum += bins[k];
      ++digit;
    }
  }
  *below = __shfl_sync(kAllLanes, sum, owner);
  return __shfl_sync(kAllLanes, digit, owner);
}

/// The keys of ranks rank[0..count) (0-based, ascending) among key_at(x)
/// for the rows x in [first, n), given the smallest key `lo` and
/// bitlen(largest - lo) = `key_bits`: a radix select of all of them at once,
/// eight bits of key - lo a pass, one 256-bin histogram each (`histograms`:
/// kDeltaFitHistogramWords words; count <= kNumDeltaRanks). DELTA selects
/// among its deltas (rows 1..n-1), PATCHED_FOR among its values' keys
/// (patched_for_fit.cuh).
template <typename KeyAt>
__device__ void WarpSelectKeys(KeyAt key_at, uint32_t first, uint32_t n, uint32_t lane,
                               int64_t lo, uint32_t key_bits, const uint64_t* rank_in, int count,
                               uint32_t* histograms, int64_t* out) {
  uint64_t prefix[kNumDeltaRanks] = {};
  uint64_t rank[kNumDeltaRanks];
  for (int r = 0; r < kNumDeltaRanks; ++r) rank[r] = rank_in[r];
  for (int shift = key_bits == 0 ? -8 : static_cast<int>((key_bits - 1) / 8 * 8); shift >= 0;
       shift -= 8) {
    for (int i = static_cast<int>(lane); i < 256 * count; i += 32) histograms[i] = 0;
    __syncwarp();
    const int high = shift + 8;  // the digits above this one must equal prefix's
    for (uint32_t x = first + lane; x < n; x += 32) {
      const uint64_t key = static_cast<uint64_t>(key_at(x)) - static_cast<uint64_t>(lo);
      const uint32_t digit = static_cast<uint32_t>(key >> shift) & 255;
      for (int r = 0; r < count; ++r) {
        if (high >= 64 || (key >> high) == (prefix[r] >> high)) {
          atomicAdd(&histograms[256 * r + digit], 1u);
        }
      }
    }
    __syncwarp();
    for (int r = 0; r < count; ++r) {
      uint32_t below = 0;
      const uint32_t digit = WarpFindDigit(histograms + 256 * r, rank[r], lane, &below);
      rank[r] -= below;
      prefix[r] |= uint64_t{digit} << shift;
    }
    __syncwarp();
  }
  for (int r = 0; r < count; ++r) {
    out[r] = static_cast<int64_t>(static_cast<uint64_t>(lo) + prefix[r]);
  }
}

/// The distinct Base candidates (DistinctDeltaBases) of the m = n - first
/// keys key_at(x), x in [first, n), whose smallest is `lo` and largest `hi`,
/// and each one's width counts in `scratch` after the histograms (kMaxDeltaBases x 65
/// uint64, rows_of_width[j][b] = the keys whose (U)(key - base_j) is b
/// bits), as the CPU's DeltaFit and PatchedForFit compute them.
template <typename U, typename KeyAt>
__device__ DeltaBases WarpBasesAndWidthCounts(KeyAt key_at, uint32_t first, uint32_t n,
                                              uint32_t lane, int64_t lo, int64_t hi,
                                              uint32_t* scratch) {
  const uint32_t m = n - first;
  const uint32_t key_bits = BitLength(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  uint64_t ranks[kNumDeltaRanks] = {};
  int count = 0;
  for (int i = 0; i < kNumDeltaRanks; ++i) {
    if (m / DeltaRankDivisor(i) != 0) ranks[count++] = m / DeltaRankDivisor(i);
  }
  int64_t selected[kNumDeltaRanks] = {};
  if (count > 0) {
    WarpSelectKeys(key_at, first, n, lane, lo, key_bits, ranks, count, scratch, selected);
  }
  // selected[] holds the nonzero ranks in divisor order.
  int64_t at_rank[kNumDeltaRanks] = {};
  for (int i = 0, j = 0; i < kNumDeltaRanks; ++i) {
    if (m / DeltaRankDivisor(i) != 0) at_rank[i] = selected[j++];
  }
  const DeltaBases bases = DistinctDeltaBases(lo, at_rank, m);

  // Counted in 32 bits where the histograms were (a 64-bit shared atomic
  // is a compare-and-swap loop, which lanes counting the same width retry
  // over and over), then widened to the counts' place.
  uint32_t* narrow = scratch;
  auto* counts = reinterpret_cast<unsigned long long(*)[65]>(scratch + kDeltaFitHistogramWords);
  for (int i = static_cast<int>(lane); i < kMaxDeltaBases * 65; i += 32) narrow[i] = 0;
  __syncwarp();
  U base[kMaxDeltaBases];
  for (int j = 0; j < kMaxDeltaBases; ++j) base[j] = static_cast<U>(bases.value[j]);
  for (uint32_t x = first + lane; x < n; x += 32) {
    const U key = static_cast<U>(key_at(x));
    for (int j = 0; j < bases.count; ++j) {
      atomicAdd(&narrow[65 * j + BitLength(static_cast<U>(key - base[j]))], 1u);
    }
  }
  __syncwarp();
  for (int i = static_cast<int>(lane); i < kMaxDeltaBases * 65; i += 32) {
    counts[i / 65][i % 65] = narrow[i];
  }
  __syncwarp();
  return bases;
}

/// ChooseDeltaWidthFromCounts (delta_encode.hpp) computed by the warp, to
/// the same choice: lane L prices the widths L and L + 32 (lane 0 also 64)
/// from suffix sums of the counts (two warp scans), and a warp minimum over
/// (payload words, then the wider width) picks the width the serial loop
/// keeps, the widest of the cheapest. Every lane running the 65-step loop
/// took about as many instructions as a short partition's row passes.
__device__ inline DeltaChoice WarpChooseDeltaWidth(const uint64_t (&rows_of_width)[65],
                                                   uint32_t n, const SignedHighSpan& span,
                                                   uint32_t lane, bool allow_rows_ef = false) {
  const unsigned long long low = rows_of_width[lane], high = rows_of_width[lane + 32],
                           top = rows_of_width[64];
  const unsigned low_used = __ballot_sync(kAllLanes, low != 0);
  const unsigned high_used = __ballot_sync(kAllLanes, high != 0);
  // The widest b >= 1 with rows (0 when there is none), as the serial loop.
  const uint32_t max_width = top != 0      ? 64u
                             : high_used != 0 ? 63u - __clz(high_used)
                             : low_used != 0  ? 31u - __clz(low_used)
                                              : 0u;
  // through(w) = rows of widths 0..w; wider(w) = all rows - through(w).
  const unsigned long long through_low = WarpInclusiveSum(low);
  const unsigned long long through_high =
      WarpInclusiveSum(high) + __shfl_sync(kAllLanes, through_low, 31);
  const unsigned long long all = __shfl_sync(kAllLanes, through_high, 31) + top;
  const auto bits_of = [&](uint32_t w, uint64_t wider) {
    const uint32_t high_width = w < max_width ? ExceptionHighWidth(max_width, w, span).width : 0;
    return uint64_t{n} * w + CheapestRowListBits(n, wider, allow_rows_ef) + wider * high_width;
  };
  const uint64_t wider_low = all - through_low, wider_high = all - through_high;
  const uint64_t bits_low = bits_of(lane, wider_low);
  const uint64_t bits_high = bits_of(lane + 32, wider_high);
  const uint64_t bits_top = bits_of(64, 0);
  // Key: payload words, then 127 - w (so the minimum is the widest).
  const auto key_of = [](uint64_t bits, uint32_t w) {
    return ((bits + 63) / 64) << 7 | (127 - w);
  };
  uint64_t key = ~uint64_t{0};
  if (lane <= max_width) key = key_of(bits_low, lane);
  if (lane + 32 <= max_width) {
    const uint64_t k = key_of(bits_high, lane + 32);
    key = k < key ? k : key;
  }
  if (lane == 0 && max_width == 64) {
    const uint64_t k = key_of(bits_top, 64);
    key = k < key ? k : key;
  }
  key = WarpMin(key);
  const uint32_t width = 127 - static_cast<uint32_t>(key & 127);
  const uint64_t my_bits = width < 32 ? bits_low : width < 64 ? bits_high : bits_top;
  const uint64_t my_wider = width < 32 ? wider_low : width < 64 ? wider_high : 0;
  const uint64_t bits = __shfl_sync(kAllLanes, my_bits, width & 31);
  const auto exceptions = static_cast<uint32_t>(__shfl_sync(kAllLanes, my_wider, width & 31));
  return MakeDeltaChoice(bits, width, max_width, exceptions, n, span, allow_rows_ef);
}

/// BestBaseChoice (delta_encode.hpp) with WarpChooseDeltaWidth: the base
/// (into *base) whose best width needs the fewest payload words, the first
/// on ties (BestBaseChoiceOf's rule, shared with the CPU), for keys in
/// [lo, hi] of N = `bits` bits, Signed_Highs only where `allow_signed`.
__device__ inline DeltaChoice WarpBestBaseChoice(uint32_t n, const DeltaBases& bases,
                                                 const uint64_t (*rows_of_width)[65], int64_t lo,
                                                 int64_t hi, uint32_t bits, bool allow_signed,
                                                 uint32_t lane, int64_t* base,
                                                 bool allow_rows_ef = false) {
  return BestBaseChoiceOf(bases, base, [&](int j) {
    return WarpChooseDeltaWidth(
        rows_of_width[j], n, SignedHighSpanOf(lo, hi, bases.value[j], bits, allow_signed), lane,
        allow_rows_ef);
  });
}

/// The width counts WarpBasesAndWidthCounts left in `scratch`.
__device__ inline const uint64_t (*WidthCountsIn(const uint32_t* scratch))[65] {
  return reinterpret_cast<const uint64_t(*)[65]>(scratch + kDeltaFitHistogramWords);
}

/// OffsetCostLowerBoundOfBuckets (delta_encode.hpp) computed by the warp,
/// to the same value: the longest run of empty buckets from a ballot, the
/// window sums from a prefix sum of the buckets taken twice (`prefix`: 129
/// words of this warp's shared memory), each width's widest window by a
/// warp maximum. One lane running the shared code (a walk over up to 64
/// buckets per width, in a 1 KiB local array) was the critical path of the
/// fits where DELTA cannot win. `counts`: the 64 bucket counts, in shared
/// memory.
__device__ inline uint64_t WarpOffsetCostLowerBound(const uint32_t* counts, uint64_t m,
                                                    int64_t min_delta, int64_t max_delta,
                                                    uint32_t n, uint64_t seeds, uint32_t lane,
                                                    unsigned long long* prefix) {
  const uint64_t range = static_cast<uint64_t>(max_delta) - static_cast<uint64_t>(min_delta);
  const uint32_t s = DeltaBoundShift(min_delta, max_delta);
  const uint32_t num_buckets = static_cast<uint32_t>(range >> s) + 1;  // <= 64
  const bool empty_low = lane < num_buckets && counts[lane] == 0;
  const bool empty_high = lane + 32 < num_buckets && counts[lane + 32] == 0;
  const uint64_t empty = uint64_t{__ballot_sync(kAllLanes, empty_low)} |
                         (uint64_t{__ballot_sync(kAllLanes, empty_high)} << 32);
  uint64_t longest_empty_run = 0;  // the longest run of 1 bits
  for (uint64_t runs = empty; runs != 0; runs &= runs << 1) ++longest_empty_run;
  const uint64_t widest_gap = (longest_empty_run + 2) << s;
  const uint64_t largest_offset = range > widest_gap ? range - widest_gap : 0;
  // prefix[i] = the rows of buckets 0 .. i-1 of the sequence taken twice.
  unsigned long long carry = 0;
  for (uint32_t q = 0; q < 4; ++q) {
    const uint32_t i = lane + 32 * q;
    const unsigned long long rows =
        i < 2 * num_buckets ? counts[i < num_buckets ? i : i - num_buckets] : 0;
    const unsigned long long through = WarpInclusiveSum(rows) + carry;
    prefix[i + 1] = through;
    carry = __shfl_sync(kAllLanes, through, 31);
  }
  if (lane == 0) prefix[0] = 0;
  __syncwarp();
  const auto most_in_window = [&](uint32_t t) -> uint64_t {
    if (t >= num_buckets) return m;
    unsigned long long most = 0;
    for (uint32_t k = lane; k < num_buckets; k += 32) {
      const unsigned long long sum = prefix[k + t] - prefix[k];
      most = sum > most ? sum : most;
    }
    return WarpMax(most);
  };
  // Every lane runs the same widths (the loop's values are warp-uniform).
  const uint64_t lowest =
      LeastOffsetCostOverWidths(m, s, largest_offset, n, seeds, most_in_window);
  __syncwarp();  // prefix is free again
  return lowest;
}

}  // namespace delta_fit_detail

/// DeltaFit(v, n, values_per_lane, cost_limit, allow_signed) computed by
/// one warp (all lanes call it and get the result). `scratch`:
/// kDeltaFitScratchWords words of shared memory owned by this warp.
template <typename T>
__device__ PartitionFit WarpDeltaFit(const T* v, uint32_t n, uint32_t values_per_lane,
                                     uint64_t cost_limit, bool allow_signed, uint32_t lane,
                                     uint32_t* scratch) {
  using namespace delta_fit_detail;
  using U = typename ValueTraits<T>::Unsigned;
  if (n <= 1) return MakeDeltaFit<T>(n, 0, 0, DeltaExceptions{0, 0}, values_per_lane);
  const uint32_t m = n - 1;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t x = lane + 1; x < n; x += 32) {
    const int64_t d = SignedDelta(v[x], v[x - 1]);
    lo = d < lo ? d : lo;
    hi = d > hi ? d : hi;
  }
  lo = WarpMin(lo);
  hi = WarpMax(hi);
  const auto lower_bound = [&] {
    const uint32_t s = DeltaBoundShift(lo, hi);
    for (int i = static_cast<int>(lane); i < 64; i += 32) scratch[i] = 0;
    __syncwarp();
    for (uint32_t x = lane + 1; x < n; x += 32) {
      const uint64_t key =
          static_cast<uint64_t>(SignedDelta(v[x], v[x - 1])) - static_cast<uint64_t>(lo);
      atomicAdd(&scratch[key >> s], 1u);
    }
    __syncwarp();
    // The buckets' window sums go after the 64 counts (8-byte aligned).
    return WarpOffsetCostLowerBound(scratch, m, lo, hi, n, DeltaSeedWords(n, values_per_lane, 1),
                                    lane, reinterpret_cast<unsigned long long*>(scratch + 64));
  };
  if (DeltaHopeless(lo, hi, n, values_per_lane, cost_limit, lower_bound)) {
    PartitionFit hopeless;
    hopeless.cost_bytes = ~uint64_t{0};
    return hopeless;
  }
  const auto delta_at = [v](uint32_t x) { return SignedDelta(v[x], v[x - 1]); };
  const DeltaBases bases = WarpBasesAndWidthCounts<U>(delta_at, 1, n, lane, lo, hi, scratch);
  int64_t base = 0;
  const DeltaChoice best = WarpBestBaseChoice(n, bases, WidthCountsIn(scratch), lo, hi,
                                              8 * sizeof(T), allow_signed, lane, &base);
  const PartitionFit fit =
      MakeDeltaFit<T>(n, best.width, base, ExceptionsOf(best), values_per_lane);
  __syncwarp();  // the scratch is free again for the caller
  return fit;
}

}  // namespace l3::internal
