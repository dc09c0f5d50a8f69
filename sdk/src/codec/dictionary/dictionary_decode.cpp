// Dictionary chunks, the reader's half (spec §8.10).
#include "codec/dictionary/dictionary_decode.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kMaxElements = (uint64_t{1} << 32) - 1;  // spec §7.2, §8.10 rule 1
// Codes decoded at a time by deep validation, so that memory stays bounded.
constexpr uint64_t kBlockRows = uint64_t{1} << 16;

Status CorruptPayload(const std::string& message) {
  return Status(StatusCode::kCorruptPayload, message);
}

// The largest D whose codes a value of the type can hold (rule 1).
uint64_t MaxEntries(PhysicalType type) {
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  if (bits >= 64) return UINT64_MAX;
  return uint64_t{1} << (PhysicalTypeIsSigned(type) ? bits - 1 : bits);
}

template <typename T>
Status CheckIncreasing(const T* entries, uint64_t count) {
  for (uint64_t i = 1; i < count; ++i) {
    if (!(entries[i - 1] < entries[i])) {
      return CorruptPayload("dictionary entry " + std::to_string(i) +
                            " does not exceed the entry before it (spec §8.10 rule 2)");
    }
  }
  return Status::OK();
}

template <typename T>
Status MapTyped(const T* entries, uint64_t num_entries, T* values, uint64_t count) {
  using U = std::make_unsigned_t<T>;
  for (uint64_t i = 0; i < count; ++i) {
    // A negative code of a signed type is a huge unsigned one: both fail.
    const U code = static_cast<U>(values[i]);
    if (code >= num_entries) {
      return CorruptPayload("code " + std::to_string(+values[i]) + " is not below D = " +
                            std::to_string(num_entries) + " (spec §8.10 rule 3)");
    }
    values[i] = entries[code];
  }
  return Status::OK();
}

template <typename T>
Status DeepValidateTyped(const ChunkView& view, const T* entries) {
  using U = std::make_unsigned_t<T>;
  const uint64_t d = view.dictionary_entries;
  L3_RETURN_NOT_OK(CheckIncreasing(entries, d));
  const ChunkView elements = ElementView(view);
  std::vector<uint64_t> used((d + 63) / 64, 0);
  uint64_t distinct = 0;
  std::vector<T> block(static_cast<size_t>(std::min(kBlockRows, view.num_rows)));
  for (uint64_t r = 0; r < view.num_rows; r += kBlockRows) {
    const uint64_t end = std::min(view.num_rows, r + kBlockRows);
    L3_RETURN_NOT_OK(DecodeChunkRows(elements, d + r, d + end, block.data()));
    for (uint64_t i = 0; i < end - r; ++i) {
      const U code = static_cast<U>(block[i]);
      if (code >= d) {
        return CorruptPayload("row " + std::to_string(r + i) + ": code is not below D = " +
                              std::to_string(d) + " (spec §8.10 rule 3)");
      }
      uint64_t& word = used[code / 64];
      const uint64_t bit = uint64_t{1} << (code % 64);
      distinct += (word & bit) == 0;
      word |= bit;
    }
  }
  if (distinct != d) {
    return CorruptPayload(std::to_string(d - distinct) +
                          " dictionary entries are used by no row (spec §8.10 rule 4)");
  }
  return Status::OK();
}

}  // namespace

ChunkView ElementView(const ChunkView& view) {
  if (view.dictionary_entries == 0) return view;
  ChunkView elements = view;
  elements.num_rows = view.num_rows + view.dictionary_entries;
  elements.dictionary_entries = 0;
  elements.dictionary = nullptr;
  return elements;
}

Status CheckDictionaryShape(const ChunkView& view) {
  const uint64_t d = view.dictionary_entries;
  if (d == 0) return Status::OK();
  if ((view.required_features & kRequiredDictionary) == 0) {
    return Status(StatusCode::kCorruptMetadata,
                  "dictionary_entries > 0 in a file without the DICTIONARY feature bit");
  }
  if (d > view.num_rows || d > MaxEntries(view.type) || view.num_rows > kMaxElements - d) {
    return Status(StatusCode::kCorruptMetadata,
                  "dictionary_entries " + std::to_string(d) +
                      " is outside 1..num_rows, above what codes of the type address, or "
                      "makes num_rows + D exceed 2^32-1 (spec §8.10 rule 1)");
  }
  return Status::OK();
}

Status DecodeDictionary(const ChunkView& view, std::vector<uint8_t>* entries) {
  const uint64_t d = view.dictionary_entries;
  const uint64_t value_bytes = static_cast<uint64_t>(PhysicalTypeBytes(view.type));
  entries->resize(static_cast<size_t>(d * value_bytes));
  if (d == 0) return Status::OK();
  L3_RETURN_NOT_OK(DecodeChunkRows(ElementView(view), 0, d, entries->data()));
  Status st;
  DispatchIntegerType(view.type, entries->data(),
                      [&](auto* typed) { st = CheckIncreasing(typed, d); });
  return st;
}

Status MapCodes(const ChunkView& view, const uint8_t* entries, void* values, uint64_t count) {
  Status st;
  const bool ok = DispatchIntegerType(view.type, values, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    st = MapTyped(reinterpret_cast<const T*>(entries), view.dictionary_entries, typed, count);
  });
  if (!ok) return Status(StatusCode::kUnsupportedFeature, "not an integer type");
  return st;
}

Status DeepValidateDictionary(const ChunkView& view) {
  if (view.dictionary_entries == 0) return Status::OK();
  std::vector<uint8_t> decoded;
  const uint8_t* entries = view.dictionary;
  if (entries == nullptr) {
    L3_RETURN_NOT_OK(DecodeDictionary(view, &decoded));
    entries = decoded.data();
  }
  Status st;
  const bool ok = DispatchIntegerType(view.type, const_cast<uint8_t*>(entries), [&](auto* typed) {
    st = DeepValidateTyped(view, typed);
  });
  if (!ok) return Status(StatusCode::kUnsupportedFeature, "not an integer type");
  return st;
}

}  // namespace l3::internal
