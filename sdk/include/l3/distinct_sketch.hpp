// l3/distinct_sketch.hpp: the mergeable distinct-count sketch of chunk
// statistics (spec §7.6.1, format 1.1). Included by l3/l3.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "l3/status.hpp"

namespace l3 {

/// A sketch of a set of values (spec §7.6.1): while the set has at most
/// kMaxExactHashes distinct values, the exact set of their 64-bit hashes;
/// beyond that, a HyperLogLog of 2^15 one-byte registers. The hash is a
/// bijection of the value's 64-bit canonical extension (spec §8.2), so the
/// exact form counts exactly. Merging two sketches gives the sketch of the
/// union of their values, whatever the order of merges and adds, so an
/// engine can combine chunks, columns and files without reading data.
///
/// Estimate() of the HyperLogLog form has a relative standard error of
/// about 1.04 / sqrt(2^15) = 0.57%, so 2% is 3.5 standard errors.
class DistinctSketch {
 public:
  static constexpr uint32_t kMaxExactHashes = 256;   ///< spec "Max_Hashes"
  static constexpr uint32_t kPrecision = 15;         ///< spec "Precision" p
  static constexpr uint32_t kRegisters = 1u << 15;   ///< m = 2^p

  DistinctSketch();  ///< the sketch of the empty set (exact, 0)

  /// Parses the bytes of ChunkStatistics.distinct_sketch. kCorruptMetadata
  /// if they break spec §7.6.1 (unknown form, wrong length, hashes not
  /// strictly increasing or too many, a register above 51).
  static Result<DistinctSketch> FromBytes(const uint8_t* data, size_t size);

  /// The spec §7.6.1 hash of a value given as its canonical extension.
  static uint64_t Hash(uint64_t canonical_value) noexcept;

  /// Adds a value given as its 64-bit canonical extension (spec §8.2; for a
  /// signed column, the sign-extended two's complement word).
  void Add(uint64_t canonical_value) { AddHash(Hash(canonical_value)); }
  void AddHash(uint64_t hash);
  /// Makes this the sketch of the union of both sets.
  void Merge(const DistinctSketch& other);

  /// True while the sketch holds the exact set of hashes.
  bool exact() const noexcept { return exact_; }
  /// The number of distinct values: exact() ? exact : the estimate of spec
  /// §7.6.1 (Ertl's improved HyperLogLog estimator), rounded.
  uint64_t Estimate() const;
  /// The canonical bytes (spec §7.6.1) of this sketch.
  std::vector<uint8_t> ToBytes() const;

  bool operator==(const DistinctSketch& other) const;
  bool operator!=(const DistinctSketch& other) const { return !(*this == other); }

 private:
  bool exact_ = true;
  std::vector<uint64_t> hashes_;    // sorted, while exact_
  std::vector<uint8_t> registers_;  // kRegisters, kept in both forms
};

}  // namespace l3
