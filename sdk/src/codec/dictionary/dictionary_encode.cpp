// Dictionary chunks, the writer's half (spec §8.10): the sorted distinct
// values of a chunk, one code per row, and their encoding as elements.
#include "codec/dictionary/dictionary_encode.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "codec/encode/chunk_statistics.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kMaxWriterEntries = uint64_t{1} << 20;

uint64_t TypeEntryLimit(PhysicalType type) {
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  if (bits >= 64) return UINT64_MAX;
  return uint64_t{1} << (PhysicalTypeIsSigned(type) ? bits - 1 : bits);
}

/// The distinct values of a chunk and, once they are sorted, their codes:
/// an open-addressing table (linear probing, power-of-two size kept at most
/// half full), grown as values arrive, so that a chunk rejected by its sample
/// costs a small table only.
template <typename T>
class DistinctValues {
 public:
  DistinctValues() { Resize(kInitialBits); }

  uint64_t size() const { return count_; }

  /// Adds `value` if it is new.
  void Insert(T value) {
    const uint64_t slot = Find(value);
    if (used_[slot]) return;
    used_[slot] = 1;
    keys_[slot] = value;
    if (++count_ * 2 > keys_.size()) Resize(bits_ + 1);
  }

  /// The values, sorted (spec §8.10 rule 2); each one's code becomes its
  /// rank.
  std::vector<T> SortAndNumber() {
    std::vector<T> entries;
    entries.reserve(static_cast<size_t>(count_));
    for (size_t slot = 0; slot < keys_.size(); ++slot) {
      if (used_[slot]) entries.push_back(keys_[slot]);
    }
    std::sort(entries.begin(), entries.end());
    codes_.assign(keys_.size(), 0);
    for (size_t i = 0; i < entries.size(); ++i) codes_[Find(entries[i])] = i;
    return entries;
  }

  /// The code of a value that was inserted (after SortAndNumber).
  uint64_t Code(T value) const { return codes_[Find(value)]; }

 private:
  static constexpr uint32_t kInitialBits = 12;

  uint64_t Find(T value) const {
    const uint64_t mask = keys_.size() - 1;
    uint64_t slot = (static_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ull) >> (64 - bits_);
    while (used_[slot] && !(keys_[slot] == value)) slot = (slot + 1) & mask;
    return slot;
  }

  void Resize(uint32_t bits) {
    std::vector<T> old_keys = std::move(keys_);
    std::vector<uint8_t> old_used = std::move(used_);
    bits_ = bits;
    keys_.assign(size_t{1} << bits, T{});
    used_.assign(size_t{1} << bits, 0);
    for (size_t slot = 0; slot < old_keys.size(); ++slot) {
      if (!old_used[slot]) continue;
      const uint64_t to = Find(old_keys[slot]);
      used_[to] = 1;
      keys_[to] = old_keys[slot];
    }
  }

  uint32_t bits_ = 0;
  uint64_t count_ = 0;
  std::vector<T> keys_;
  std::vector<uint8_t> used_;
  std::vector<uint64_t> codes_;  // by slot, after SortAndNumber
};

template <typename T>
bool BuildTyped(const T* v, uint64_t n, uint64_t max_entries, std::vector<uint8_t>* elements,
                uint64_t* num_entries) {
  const uint64_t sample = DictionarySampleRows(n);
  DistinctValues<T> ids;
  for (uint64_t i = 0; i < sample; ++i) {
    ids.Insert(v[i]);
    // The count only grows: rejecting as soon as it passes a limit rejects
    // exactly the samples whose final count does.
    if (DictionarySampleRejects(ids.size(), sample, max_entries)) return false;
  }
  for (uint64_t i = sample; i < n; ++i) {
    if (v[i] == v[i - 1]) continue;  // a run: nothing new
    ids.Insert(v[i]);
    if (ids.size() > max_entries) return false;
  }
  const std::vector<T> entries = ids.SortAndNumber();
  const uint64_t d = entries.size();
  elements->resize(static_cast<size_t>((d + n) * sizeof(T)));
  T* out = reinterpret_cast<T*>(elements->data());
  std::memcpy(out, entries.data(), d * sizeof(T));
  // Codes are values of the type below D (rule 3); D is within the type's
  // reach (rule 1), so the conversion keeps them. A row equal to the one
  // before it takes its code (runs cost no lookup).
  for (uint64_t i = 0; i < n; ++i) {
    out[d + i] = i > 0 && v[i] == v[i - 1] ? out[d + i - 1] : static_cast<T>(ids.Code(v[i]));
  }
  *num_entries = d;
  return true;
}

}  // namespace

bool BuildDictionary(PhysicalType type, const void* values, uint64_t num_rows,
                     uint64_t max_entries, std::vector<uint8_t>* elements, uint64_t* num_entries) {
  max_entries = std::min(max_entries, TypeEntryLimit(type));
  if (num_rows == 0 || max_entries == 0) return false;
  bool built = false;
  DispatchIntegerType(type, [&](auto tag) {
    using T = decltype(tag);
    built = BuildTyped(static_cast<const T*>(values), num_rows, max_entries, elements, num_entries);
  });
  return built;
}

uint64_t DictionaryEntryLimit(PhysicalType type, uint64_t num_rows) {
  return std::min({num_rows / 4, kMaxWriterEntries, TypeEntryLimit(type)});
}

Result<std::optional<EncodedChunk>> EncodeDictionaryChunk(const void* values, uint64_t num_rows,
                                                          const EncoderConfig& config) {
  if (config.planner != nullptr) {
    // Elsewhere (the CUDA writer), with the same result; on any error, here.
    std::optional<EncodedChunk> chunk;
    if (config.planner->EncodeDictionary(values, num_rows, config, &chunk).ok()) return chunk;
  }
  try {
    std::vector<uint8_t> elements;
    uint64_t d = 0;
    if (!BuildDictionary(config.type, values, num_rows, DictionaryEntryLimit(config.type, num_rows),
                         &elements, &d) ||
        !DictionaryElementsFit(d, num_rows)) {
      return std::optional<EncodedChunk>();
    }
    EncoderConfig element_config = config;
    element_config.compute_statistics = false;  // they describe the rows, below
    element_config.known_statistics = nullptr;
    L3_ASSIGN_OR_RETURN(EncodedChunk chunk, EncodeChunk(elements.data(), d + num_rows, element_config));
    chunk.num_rows = num_rows;
    chunk.dictionary_entries = d;
    if (config.compute_statistics && config.known_statistics != nullptr) {
      chunk.statistics = *config.known_statistics;
    } else if (config.compute_statistics) {
      DispatchIntegerType(config.type, [&](auto tag) {
        using T = decltype(tag);
        chunk.statistics = ComputeChunkStatistics(static_cast<const T*>(values), num_rows,
                                                  std::max(1, config.num_threads));
      });
    }
    return std::optional<EncodedChunk>(std::move(chunk));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while building a dictionary");
  }
}

}  // namespace l3::internal
