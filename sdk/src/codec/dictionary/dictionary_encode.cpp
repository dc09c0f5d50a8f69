// Dictionary chunks, the writer's half (spec §8.10): the sorted distinct
// values of a chunk, one code per row, and their encoding as elements.
#include "codec/dictionary/dictionary_encode.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <unordered_map>

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

template <typename T>
bool BuildTyped(const T* v, uint64_t n, uint64_t max_entries, std::vector<uint8_t>* elements,
                uint64_t* num_entries) {
  const uint64_t sample = DictionarySampleRows(n);
  std::unordered_map<T, uint64_t> ids;
  ids.reserve(static_cast<size_t>(std::min(max_entries, sample) + 1));
  for (uint64_t i = 0; i < sample; ++i) {
    ids.emplace(v[i], 0);
    // The count only grows: rejecting as soon as it passes a limit rejects
    // exactly the samples whose final count does.
    if (DictionarySampleRejects(ids.size(), sample, max_entries)) return false;
  }
  for (uint64_t i = sample; i < n; ++i) {
    ids.emplace(v[i], 0);
    if (ids.size() > max_entries) return false;
  }
  std::vector<T> entries;
  entries.reserve(ids.size());
  for (const auto& kv : ids) entries.push_back(kv.first);
  std::sort(entries.begin(), entries.end());  // spec §8.10 rule 2
  for (uint64_t i = 0; i < entries.size(); ++i) ids[entries[i]] = i;
  const uint64_t d = entries.size();
  elements->resize(static_cast<size_t>((d + n) * sizeof(T)));
  T* out = reinterpret_cast<T*>(elements->data());
  std::memcpy(out, entries.data(), d * sizeof(T));
  // Codes are values of the type below D (rule 3); D is within the type's
  // reach (rule 1), so the conversion keeps them.
  for (uint64_t i = 0; i < n; ++i) out[d + i] = static_cast<T>(ids.find(v[i])->second);
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
    L3_ASSIGN_OR_RETURN(EncodedChunk chunk, EncodeChunk(elements.data(), d + num_rows, element_config));
    chunk.num_rows = num_rows;
    chunk.dictionary_entries = d;
    if (config.compute_statistics) {
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
