// The PGM learned index of a sorted chunk (spec §11.3, format 1.1): the
// segmentation that builds it, the exact prediction every reader shares, and
// the checks a reader makes before trusting a stored index.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

/// §11.3.1: the order-preserving 64-bit key of a value in canonical extension.
inline uint64_t PgmOrderedKey(uint64_t canonical, bool is_signed) {
  return is_signed ? canonical ^ (uint64_t{1} << 63) : canonical;
}

/// §11.3.2: the greedy optimal segmentation of one level. `keys` holds
/// `n` >= 1 non-decreasing ordered keys; appends the segments' first keys,
/// slopes and intercepts to `out` and returns how many it appended.
uint64_t PgmSegmentLevel(const uint64_t* keys, uint64_t n, uint32_t epsilon, PgmIndexInfo* out);

/// §11.3.2: all levels of a chunk's index, leaf level first.
PgmIndexInfo BuildPgmIndex(const uint64_t* keys, uint64_t n, uint32_t epsilon,
                           uint32_t epsilon_recursive);

/// §11.3.4: structural checks of a stored index for a chunk of `num_rows`
/// rows; kCorruptMetadata naming the first failed rule.
Status ValidatePgmIndex(const PgmIndexInfo& pgm, uint64_t num_rows);

/// §11.3.3: the leaf segment of ordered key `x` (the last whose first key is
/// <= x, or 0) and the search window [lo, hi] that holds lower_bound(x).
struct PgmWindow {
  uint64_t lo = 0;
  uint64_t hi = 0;
};
PgmWindow PgmPredict(const PgmIndexInfo& pgm, uint64_t x);

/// PgmPredict for keys that come in non-decreasing order: `*segments_below`
/// holds the number of leaf segments whose first key is <= the previous key
/// (0 before the first), and the search for x starts there, galloping
/// forward. The same window as PgmPredict(pgm, x) for an index that passed
/// ValidatePgmIndex (segment_keys strictly increasing) when x >= the previous
/// key; a key sequence in key order then costs O(1) per key while keys share
/// segments.
PgmWindow PgmPredictSorted(const PgmIndexInfo& pgm, uint64_t x, uint64_t* segments_below);

/// The binary32 nearest to dy / dx (ties to even); dx > 0, dy >= 0.
float PgmSlope(unsigned __int128 dy, unsigned __int128 dx);

}  // namespace l3::internal

namespace l3::internal {

/// The options a Reader was opened with (defined in reader.cpp, where
/// Reader::Impl is): LowerBoundBatch reads ReadOptions::num_threads.
const ReadOptions& ReaderOptions(const Reader::Impl& impl);

/// The writer's side (WriteOptions::pgm): the index of one chunk of `type`
/// values, or an absent index when the mode is kOff or (kSorted) the values
/// are not non-decreasing. kInvalidArgument for kRequire on unsorted values
/// or a bad epsilon.
Result<PgmIndexInfo> BuildChunkPgm(PhysicalType type, const uint8_t* values, uint64_t num_rows,
                                   const WriteOptions& options);

}  // namespace l3::internal
