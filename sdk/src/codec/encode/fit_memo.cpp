// The partitioner's memo of fits without PATCHED_FOR (fit_memo.hpp).
#include "codec/encode/fit_memo.hpp"

#include <algorithm>

namespace l3::internal {

void FitMemo::Reset(uint64_t num_rows) {
  num_rows_ = num_rows;
  sealed_ = false;
  fits_.clear();
  entries_.clear();
}

void FitMemo::Add(uint64_t first_row, const PartitionFit& fit) {
  entries_.push_back(Entry{Key(first_row, fit.num_rows), static_cast<uint32_t>(fits_.size())});
  fits_.push_back(fit);
}

void FitMemo::Seal() {
  // Equal keys hold equal fits, so which of them a search finds is moot.
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.key < b.key; });
  sealed_ = true;
}

const PartitionFit* FitMemo::Find(uint64_t first_row, uint32_t num_rows) const {
  const uint64_t key = Key(first_row, num_rows);
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                   [](const Entry& e, uint64_t k) { return e.key < k; });
  if (it == entries_.end() || it->key != key) return nullptr;
  return &fits_[it->index];
}

}  // namespace l3::internal
