// The fits one run of the partitioner leaves for a second run over the same
// values without PATCHED_FOR.
//
// The hot profile keeps PATCHED_FOR only where the chunk encoded without it
// is patched_for_min_gain larger (writer.cpp), so a chunk whose first
// encoding uses PATCHED_FOR is planned a second time with it disabled. Model
// choice tries PATCHED_FOR last (fit_choice.hpp: ChooseModel), so the first
// run knows, for every partition it fits, the fit the second run would get:
// the best fit before PATCHED_FOR was tried. The first run records those
// fits here by their rows; the second looks each partition up before
// fitting it and fits only those the first never saw (where the two runs'
// partitions part ways). The plan, and so the file, is the same as without
// the memo. The fits of the minimax line do not depend on which hulls they
// were built from (model_fit.hpp: FitBestModelOfUnion), so a partition found
// here and left without hulls fits its unions as one with hulls would.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/encode/model_fit.hpp"

namespace l3::internal {

class FitMemo {
 public:
  /// Starts an empty memo of a run over `num_rows` values.
  void Reset(uint64_t num_rows);
  /// Records the fit without PATCHED_FOR of rows [first_row, first_row +
  /// fit.num_rows). Not thread-safe: the partitioner records after each of
  /// its parallel steps. A partition recorded twice has the same fit.
  void Add(uint64_t first_row, const PartitionFit& fit);
  /// Makes the memo searchable; Add may not follow. Left to the memo's
  /// owner, who seals only a memo it will use.
  void Seal();
  /// Whether this memo, sealed, was recorded over `num_rows` values.
  bool Covers(uint64_t num_rows) const { return sealed_ && num_rows == num_rows_; }
  /// The recorded fit of rows [first_row, first_row + num_rows), or null.
  const PartitionFit* Find(uint64_t first_row, uint32_t num_rows) const;
  size_t size() const { return fits_.size(); }

 private:
  static uint64_t Key(uint64_t first_row, uint32_t num_rows) {
    return first_row << 32 | num_rows;  // spec §7.2: a chunk has < 2^32 rows
  }
  struct Entry {
    uint64_t key;
    uint32_t index;  // into fits_
  };
  uint64_t num_rows_ = 0;
  bool sealed_ = false;
  std::vector<PartitionFit> fits_;
  std::vector<Entry> entries_;  // sorted by key once sealed
};

}  // namespace l3::internal
