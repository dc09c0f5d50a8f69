// Chunk statistics (spec §7.6).
//
// The distinct count is exact when it is cheap:
//  - a chunk sorted either way has 1 + (number of adjacent changes) values;
//  - 8- and 16-bit values are counted with a bitmap of all 2^N values;
//  - otherwise a hash set collects up to kExactDistinctLimit values.
// Beyond that the count is a HyperLogLog estimate. Rows are processed in
// fixed ranges whose results are combined in range order, and every decision
// depends only on the data, so the statistics do not depend on the thread
// count.
#include "codec/encode/chunk_statistics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "codec/encode/parallel.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/zstd_codec.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kRangeRows = uint64_t{1} << 20;

// splitmix64's finaliser: a fixed, well-mixing 64-bit permutation (the
// hash of spec §7.6.1).
uint64_t Mix64(uint64_t x) { return DistinctSketch::Hash(x); }

// An open-addressing set of 64-bit keys that stops accepting keys once it
// holds more than `limit` of them.
class CappedSet {
 public:
  explicit CappedSet(uint64_t limit) : limit_(limit) {
    uint64_t slots = 16;
    while (slots < 2 * (limit + 1)) slots *= 2;
    slots_.assign(slots, 0);
    mask_ = slots - 1;
  }

  /// False once more than `limit` distinct keys were offered.
  bool Insert(uint64_t key) {
    if (overflowed_) return false;
    if (key == 0) {
      if (!has_zero_) {
        has_zero_ = true;
        return Grow();
      }
      return true;
    }
    for (uint64_t i = Mix64(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == key) return true;
      if (slots_[i] == 0) {
        slots_[i] = key;
        return Grow();
      }
    }
  }

  bool overflowed() const { return overflowed_; }
  uint64_t size() const { return size_; }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (has_zero_) fn(uint64_t{0});
    for (uint64_t key : slots_) {
      if (key != 0) fn(key);
    }
  }

 private:
  bool Grow() {
    if (++size_ > limit_) overflowed_ = true;
    return !overflowed_;
  }

  uint64_t limit_;
  uint64_t mask_ = 0;
  uint64_t size_ = 0;
  bool has_zero_ = false;
  bool overflowed_ = false;
  std::vector<uint64_t> slots_;
};

template <typename T>
struct RangeSummary {
  T min{};
  T max{};
  T first{};
  T last{};
  uint64_t changes = 0;  // adjacent rows that differ, inside the range
  bool ascending = true;
  bool descending = true;
};

}  // namespace

HyperLogLog HyperLogLog::FromRegisters(const uint8_t* registers) {
  HyperLogLog sketch;
  std::copy(registers, registers + kRegisters, sketch.registers_.begin());
  return sketch;
}

void HyperLogLog::Add(uint64_t canonical_value) {
  const Slot slot = SlotOf(canonical_value);
  registers_[slot.index] = std::max(registers_[slot.index], static_cast<uint8_t>(slot.rank));
}

void HyperLogLog::Merge(const HyperLogLog& other) {
  for (uint32_t i = 0; i < kRegisters; ++i) {
    registers_[i] = std::max(registers_[i], other.registers_[i]);
  }
}

double HyperLogLog::Estimate() const {
  const double m = kRegisters;
  double sum = 0;
  uint32_t zeros = 0;
  for (uint8_t r : registers_) {
    sum += std::ldexp(1.0, -static_cast<int>(r));
    zeros += r == 0 ? 1 : 0;
  }
  const double alpha = 0.7213 / (1 + 1.079 / m);
  const double raw = alpha * m * m / sum;
  if (raw <= 2.5 * m && zeros > 0) return m * std::log(m / zeros);
  return raw;
}

uint64_t ClampedDistinctEstimate(const HyperLogLog& sketch, uint64_t n) {
  const double estimate = std::round(sketch.Estimate());
  const double low = static_cast<double>(kExactDistinctLimit + 1);
  const double high = static_cast<double>(n);
  return static_cast<uint64_t>(std::min(std::max(estimate, low), high));
}

template <typename T>
ChunkStatisticsData ComputeChunkStatistics(const T* v, uint64_t n, int num_threads) {
  using Traits = ValueTraits<T>;
  const uint64_t ranges = (n + kRangeRows - 1) / kRangeRows;
  auto range_begin = [&](uint64_t r) { return r * kRangeRows; };
  auto range_end = [&](uint64_t r) { return std::min(n, (r + 1) * kRangeRows); };

  std::vector<RangeSummary<T>> summaries(ranges);
  ParallelFor(ranges, num_threads, 1, [&](uint64_t r) {
    RangeSummary<T> s;
    const uint64_t begin = range_begin(r), end = range_end(r);
    s.min = s.max = s.first = v[begin];
    s.last = v[end - 1];
    uint64_t changes = 0;
    bool up = true, down = true;
    for (uint64_t i = begin + 1; i < end; ++i) {
      s.min = std::min(s.min, v[i]);
      s.max = std::max(s.max, v[i]);
      changes += v[i] != v[i - 1] ? 1 : 0;
      up &= v[i] >= v[i - 1];
      down &= v[i] <= v[i - 1];
    }
    s.changes = changes;
    s.ascending = up;
    s.descending = down;
    summaries[r] = s;
  });

  RangeSummary<T> total = summaries[0];
  for (uint64_t r = 1; r < ranges; ++r) {
    const RangeSummary<T>& s = summaries[r];
    total.min = std::min(total.min, s.min);
    total.max = std::max(total.max, s.max);
    total.changes += s.changes + (s.first != total.last ? 1 : 0);
    total.ascending = total.ascending && s.ascending && s.first >= total.last;
    total.descending = total.descending && s.descending && s.first <= total.last;
    total.last = s.last;
  }

  ChunkStatisticsData stats;
  stats.has_min_max = true;
  stats.min_value = Traits::Canonical(total.min);
  stats.max_value = Traits::Canonical(total.max);
  stats.distinct_count_exact = true;

  if (total.ascending || total.descending) {
    stats.distinct_count = total.changes + 1;
    return stats;
  }

  if constexpr (Traits::kBits <= 16) {
    // Every value of the type has one bit.
    constexpr uint64_t kWords = (uint64_t{1} << Traits::kBits) / 64;
    std::vector<std::vector<uint64_t>> bitmaps(ranges);
    ParallelFor(ranges, num_threads, 1, [&](uint64_t r) {
      std::vector<uint64_t> bitmap(kWords, 0);
      for (uint64_t i = range_begin(r); i < range_end(r); ++i) {
        const auto u = static_cast<typename Traits::Unsigned>(v[i]);
        bitmap[u >> 6] |= uint64_t{1} << (u & 63);
      }
      bitmaps[r] = std::move(bitmap);
    });
    uint64_t distinct = 0;
    for (uint64_t w = 0; w < kWords; ++w) {
      uint64_t word = 0;
      for (const auto& bitmap : bitmaps) word |= bitmap[w];
      distinct += static_cast<uint64_t>(__builtin_popcountll(word));
    }
    stats.distinct_count = distinct;
    return stats;
  } else {
    // Exact while the whole chunk has at most kExactDistinctLimit values: each
    // range's set overflows only if the chunk's would.
    std::vector<std::vector<uint64_t>> keys(ranges);
    std::atomic<bool> too_many{false};
    ParallelFor(ranges, num_threads, 1, [&](uint64_t r) {
      if (too_many.load(std::memory_order_relaxed)) return;
      CappedSet set(kExactDistinctLimit);
      const uint64_t begin = range_begin(r), end = range_end(r);
      set.Insert(Traits::Canonical(v[begin]));
      for (uint64_t i = begin + 1; i < end; ++i) {
        if (v[i] == v[i - 1]) continue;
        if (!set.Insert(Traits::Canonical(v[i]))) {
          too_many.store(true, std::memory_order_relaxed);
          return;
        }
      }
      std::vector<uint64_t> found;
      found.reserve(set.size());
      set.ForEach([&](uint64_t key) { found.push_back(key); });
      keys[r] = std::move(found);
    });
    if (!too_many.load()) {
      CappedSet all(kExactDistinctLimit);
      bool fits = true;
      for (const auto& range_keys : keys) {
        for (uint64_t key : range_keys) fits = fits && all.Insert(key);
      }
      if (fits) {
        stats.distinct_count = all.size();
        return stats;
      }
    }
    keys.clear();

    std::vector<HyperLogLog> sketches(ranges);
    ParallelFor(ranges, num_threads, 1, [&](uint64_t r) {
      HyperLogLog sketch;
      for (uint64_t i = range_begin(r); i < range_end(r); ++i) sketch.Add(Traits::Canonical(v[i]));
      sketches[r] = sketch;
    });
    HyperLogLog sketch;
    for (const auto& s : sketches) sketch.Merge(s);
    // The exact attempt proved there are more than kExactDistinctLimit values.
    stats.distinct_count = ClampedDistinctEstimate(sketch, n);
    stats.distinct_count_exact = false;
    return stats;
  }
}

std::vector<uint8_t> DistinctSketchBytesFromRegisters(const uint8_t* registers) {
  // DistinctSketch keeps its registers private; its public way in is its
  // bytes, so the registers go in as a quickly compressed frame and come out
  // as the canonical bytes.
  Result<std::vector<uint8_t>> frame =
      ZstdCompress(registers, DistinctSketch::kRegisters, 1);
  if (!frame.ok()) return {};
  std::vector<uint8_t> form = {1, static_cast<uint8_t>(DistinctSketch::kPrecision)};
  form.insert(form.end(), frame->begin(), frame->end());
  Result<DistinctSketch> sketch = DistinctSketch::FromBytes(form.data(), form.size());
  if (!sketch.ok()) return {};
  return sketch->ToBytes();
}

template <typename T>
std::vector<uint8_t> ComputeDistinctSketch(const T* v, uint64_t n, int num_threads) {
  using Traits = ValueTraits<T>;
  const uint64_t ranges = (n + kRangeRows - 1) / kRangeRows;
  std::vector<DistinctSketch> sketches(ranges);
  ParallelFor(ranges, num_threads, 1, [&](uint64_t r) {
    const uint64_t begin = r * kRangeRows, end = std::min(n, (r + 1) * kRangeRows);
    DistinctSketch& sketch = sketches[r];
    sketch.Add(Traits::Canonical(v[begin]));
    for (uint64_t i = begin + 1; i < end; ++i) {
      if (v[i] != v[i - 1]) sketch.Add(Traits::Canonical(v[i]));
    }
  });
  DistinctSketch total;
  for (const DistinctSketch& s : sketches) total.Merge(s);
  return total.ToBytes();
}

#define L3_INSTANTIATE_STATS(T)                                                    \
  template ChunkStatisticsData ComputeChunkStatistics<T>(const T*, uint64_t, int); \
  template std::vector<uint8_t> ComputeDistinctSketch<T>(const T*, uint64_t, int);
L3_INSTANTIATE_STATS(int8_t)
L3_INSTANTIATE_STATS(int16_t)
L3_INSTANTIATE_STATS(int32_t)
L3_INSTANTIATE_STATS(int64_t)
L3_INSTANTIATE_STATS(uint8_t)
L3_INSTANTIATE_STATS(uint16_t)
L3_INSTANTIATE_STATS(uint32_t)
L3_INSTANTIATE_STATS(uint64_t)
#undef L3_INSTANTIATE_STATS

}  // namespace l3::internal
