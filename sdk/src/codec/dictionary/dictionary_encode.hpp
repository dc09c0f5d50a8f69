// Dictionary chunks (spec §8.10, format 1.1), the writer's half: the sorted
// distinct values of a chunk and one code per row.
#pragma once

#include <cstdint>
#include <vector>

#include <optional>

#include "codec/encode/encode_chunk.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

/// The writer's half: the sorted distinct values of `num_rows` values of
/// `type` and, for each row, its code as a value of `type`. Returns false
/// (and leaves the outputs unspecified) when the chunk has more than
/// `max_entries` distinct values or more than its codes can address.
bool BuildDictionary(PhysicalType type, const void* values, uint64_t num_rows,
                     uint64_t max_entries, std::vector<uint8_t>* elements,
                     uint64_t* num_entries);

/// The writer looks at the first DictionarySampleRows(n) rows before it
/// builds a whole dictionary: when more than half of them are distinct (or
/// more than max_entries), a dictionary would not pay and is not tried (a
/// wrong guess only costs size, never correctness). Shared with the CUDA
/// writer.
inline constexpr uint64_t kDictionarySampleRows = uint64_t{1} << 16;
inline uint64_t DictionarySampleRows(uint64_t num_rows) {
  return num_rows < kDictionarySampleRows ? num_rows : kDictionarySampleRows;
}
inline bool DictionarySampleRejects(uint64_t sample_distinct, uint64_t sample_rows,
                                    uint64_t max_entries) {
  return sample_distinct > max_entries || sample_distinct > sample_rows / 2 + 1;
}

/// spec §8.10 rule 1: the elements (D + num_rows) must stay below 2^32.
inline bool DictionaryElementsFit(uint64_t entries, uint64_t num_rows) {
  return num_rows <= (uint64_t{1} << 32) - 1 - entries;
}

/// The largest dictionary the writer tries: a quarter of the chunk's rows, at
/// most 2^20 entries (and what codes of the type address).
uint64_t DictionaryEntryLimit(PhysicalType type, uint64_t num_rows);

/// Encodes `num_rows` values as a dictionary chunk (spec §8.10): the elements
/// (entries, then codes) with the partitioner of `config`, the statistics of
/// the values themselves. std::nullopt when the values have too many distinct
/// values for DictionaryEntryLimit. Deterministic.
Result<std::optional<EncodedChunk>> EncodeDictionaryChunk(const void* values, uint64_t num_rows,
                                                          const EncoderConfig& config);

}  // namespace l3::internal
