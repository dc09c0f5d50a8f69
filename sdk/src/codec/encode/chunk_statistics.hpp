// Chunk statistics of spec §7.6: minimum, maximum and the number of distinct
// values, exact when that is cheap to know and a HyperLogLog estimate
// otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codec/encode/encode_chunk.hpp"

namespace l3::internal {

/// A HyperLogLog sketch (Flajolet et al. 2007) with 2^16 registers over a
/// fixed 64-bit mix of each value's canonical extension, so the estimate is
/// deterministic. Standard error about 0.4%.
class HyperLogLog {
 public:
  static constexpr uint32_t kPrecision = 16;
  static constexpr uint32_t kRegisters = 1u << kPrecision;

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

/// Statistics of values[0, n), n >= 1. Independent of num_threads.
template <typename T>
ChunkStatisticsData ComputeChunkStatistics(const T* values, uint64_t n, int num_threads);

/// The bytes of the spec §7.6.1 distinct-count sketch of values[0, n),
/// n >= 1. Independent of num_threads.
template <typename T>
std::vector<uint8_t> ComputeDistinctSketch(const T* values, uint64_t n, int num_threads);

}  // namespace l3::internal
