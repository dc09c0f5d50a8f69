// Chunk statistics of spec §7.6: minimum, maximum and the number of distinct
// values, exact when that is cheap to know and a HyperLogLog estimate
// otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "common/bits.hpp"
#include "l3/distinct_sketch.hpp"

namespace l3::internal {

/// DistinctSketch::Hash (spec §7.6.1: splitmix64's finaliser), callable on
/// the device as well.
L3_HD uint64_t StatisticsHash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A HyperLogLog sketch (Flajolet et al. 2007) with 2^16 registers over a
/// fixed 64-bit mix of each value's canonical extension, so the estimate is
/// deterministic. Standard error about 0.4%.
class HyperLogLog {
 public:
  static constexpr uint32_t kPrecision = 16;
  static constexpr uint32_t kRegisters = 1u << kPrecision;

  /// Where Add puts a value: the register (the hash's top kPrecision bits)
  /// and the rank it raises that register to (one more than the leading
  /// zeros of the remaining 64 - kPrecision bits; 64 - kPrecision + 1 when
  /// they are all zero). Shared with the device statistics.
  struct Slot {
    uint32_t index;
    uint32_t rank;
  };
  static L3_HD Slot SlotOf(uint64_t canonical_value) {
    const uint64_t h = StatisticsHash(canonical_value);
    const uint64_t rest = h & LowMask(64 - kPrecision);
    return {static_cast<uint32_t>(h >> (64 - kPrecision)), 64 - kPrecision + 1 - BitLength(rest)};
  }

  /// The sketch whose registers are registers[0, kRegisters), as built
  /// elsewhere (the device) with SlotOf: register i holds the largest rank
  /// of the values with index i, 0 for none.
  static HyperLogLog FromRegisters(const uint8_t* registers);

  void Add(uint64_t canonical_value);
  /// Register-wise maximum: the sketch of the union.
  void Merge(const HyperLogLog& other);
  /// The estimated number of distinct values added, with the small-range
  /// (linear counting) correction.
  double Estimate() const;

 private:
  std::array<uint8_t, kRegisters> registers_{};
};

/// The largest number of distinct values counted exactly in an unsorted chunk
/// of a 32- or 64-bit type. Sorted chunks and 8/16-bit types are always exact.
inline constexpr uint64_t kExactDistinctLimit = uint64_t{1} << 16;

/// The distinct count reported for a chunk of n values known to hold more
/// than kExactDistinctLimit distinct values: the sketch's estimate, rounded
/// and clamped to [kExactDistinctLimit + 1, n].
uint64_t ClampedDistinctEstimate(const HyperLogLog& sketch, uint64_t n);

/// The spec §7.6.1 register rule of DistinctSketch::AddHash: register
/// hash >> 49 gets rho = 50 - bitlen(the 49 low bits).
struct SketchSlot {
  uint32_t index;
  uint32_t rho;
};
L3_HD SketchSlot SketchSlotOf(uint64_t hash) {
  constexpr uint32_t kRemainderBits = 64 - DistinctSketch::kPrecision;
  return {static_cast<uint32_t>(hash >> kRemainderBits),
          kRemainderBits + 1 - BitLength(hash & LowMask(kRemainderBits))};
}

/// The bytes of the REGISTERS form of spec §7.6.1 for the registers
/// registers[0, DistinctSketch::kRegisters) (built elsewhere, the device,
/// with SketchSlotOf): what DistinctSketch::ToBytes gives for a sketch with
/// those registers; empty if compression fails, as there.
std::vector<uint8_t> DistinctSketchBytesFromRegisters(const uint8_t* registers);

/// Statistics of values[0, n), n >= 1. Independent of num_threads.
template <typename T>
ChunkStatisticsData ComputeChunkStatistics(const T* values, uint64_t n, int num_threads);

/// The bytes of the spec §7.6.1 distinct-count sketch of values[0, n),
/// n >= 1. Independent of num_threads.
template <typename T>
std::vector<uint8_t> ComputeDistinctSketch(const T* values, uint64_t n, int num_threads);

}  // namespace l3::internal
