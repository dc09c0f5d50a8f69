// Deep validation of one chunk (spec §10.3): padding bits, run starts, bounds
// and the writer rules of spec §8.8 that the file itself can show.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/dictionary/dictionary_decode.hpp"

namespace l3::internal {
namespace {

// Rows decoded at a time, so that memory stays bounded for partitions of any
// length (a CONSTANT partition may cover 2^32 - 1 rows in 16 bytes).
constexpr uint64_t kBlockRows = uint64_t{1} << 16;

std::string At(uint32_t p) { return "partition " + std::to_string(p) + ": "; }

// Bits of a partition's payload that hold fields (spec §8.5, §8.7).
uint64_t UsedBits(const Partition& part, uint32_t values_per_lane) {
  if (part.model == static_cast<uint8_t>(Model::kConstant)) {
    return part.bit_width == 0 ? 0 : RunReader(part).used_bits();
  }
  if (part.model == static_cast<uint8_t>(Model::kRunsEf)) {
    return RunsEfReader(part).layout().used_bits();  // spec §8.11
  }
  // DELTA (spec §8.9): whole Seed words, then the fields.
  if (part.model == static_cast<uint8_t>(Model::kDelta)) {
    // spec §8.9: whole Seed words, the fields, then the exception lists.
    const DeltaExceptions e = UnpackDeltaExceptions(LoadLE64(part.params + 8));
    return 64 * DeltaSeedWords(part.num_rows, values_per_lane, e.order) +
           part.num_rows * part.bit_width + DeltaExceptionBits(part.num_rows, e);
  }
  if (part.model == static_cast<uint8_t>(Model::kPatchedFor)) return PatchedForUsedBits(part);
  return part.num_rows * part.bit_width;
}

template <typename T>
T LoadBound(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
Status DeepValidateTyped(const ChunkView& view) {
  using U = std::make_unsigned_t<T>;
  constexpr uint32_t kBits = 8 * sizeof(T);
  // spec §8.6: exactly 32 zero bytes after the last partition's payload.
  const uint8_t* padding = view.payload + view.payload_bytes - kPayloadPaddingBytes;
  for (uint64_t i = 0; i < kPayloadPaddingBytes; ++i) {
    if (padding[i] != 0) {
      return Status(StatusCode::kCorruptPayload, "payload padding byte " + std::to_string(i) +
                                                     " of 32 is not zero");
    }
  }
  Status st = ValidateRunStarts(view);
  if (!st.ok()) return st;

  std::vector<T> block(static_cast<size_t>(std::min<uint64_t>(kBlockRows, view.num_rows)));
  for (uint32_t p = 0; p < view.num_partitions; ++p) {
    const Partition part = LoadPartition(view, p);
    // spec §8.5, §8.7: bits past the last field, up to the end of the last
    // word, are zero.
    const uint64_t used = UsedBits(part, view.values_per_lane);
    if (part.payload_words > 0 && used % 64 != 0) {
      const uint64_t last = LoadLE64(part.payload + 8 * (part.payload_words - 1));
      if ((last >> (used % 64)) != 0) {
        return Status(StatusCode::kCorruptPayload, At(p) + "padding bits after the last field are not zero");
      }
    }
    // Decoded minimum and maximum, in the type's numeric order.
    T lo = std::numeric_limits<T>::max();
    T hi = std::numeric_limits<T>::min();
    // spec §8.9 writer rules, checked as the rows are decoded (DELTA only:
    // the checker reads DELTA's parameter words).
    std::optional<DeltaRuleChecker> delta_rules;
    if (part.model == static_cast<uint8_t>(Model::kDelta)) {
      delta_rules.emplace(part, view.values_per_lane, kBits, std::is_signed<T>::value);
    }
    for (uint64_t x = 0; x < part.num_rows; x += kBlockRows) {
      const uint64_t end = std::min(part.num_rows, x + kBlockRows);
      if (!DecodePartitionRange(part, view.values_per_lane, x, end, block.data())) {
        return Status(StatusCode::kCorruptPayload, At(p) + "bad run starts");
      }
      for (uint64_t i = 0; i < end - x; ++i) {
        lo = std::min(lo, block[i]);
        hi = std::max(hi, block[i]);
      }
      if (delta_rules) {
        const char* failed = delta_rules->Feed(x, block.data(), end - x);
        if (*failed != 0) return Status(StatusCode::kCorruptMetadata, At(p) + failed);
      }
    }
    // spec §8.9 writer rules.
    if (delta_rules) {
      const char* failed = delta_rules->Finish();
      if (*failed != 0) return Status(StatusCode::kCorruptMetadata, At(p) + failed);
    }
    // spec §8.12 writer rules.
    if (part.model == static_cast<uint8_t>(Model::kPatchedFor)) {
      const char* failed = PatchedForRuleViolation(part);
      if (*failed != 0) return Status(StatusCode::kCorruptMetadata, At(p) + failed);
    }
    // spec §8.8 rule 2: FOR and runs use Base = minimum and the smallest
    // width that holds max - min. Runs cover every row, so the run values'
    // extremes are the partition's.
    const bool is_for = part.model == static_cast<uint8_t>(Model::kFor);
    const bool is_runs_ef = part.model == static_cast<uint8_t>(Model::kRunsEf);  // spec §8.11
    if (is_for || IsRunPartition(part) || is_runs_ef) {
      const uint64_t base = LoadLE64(part.params);
      const uint64_t min_word = CanonicalExtend(static_cast<uint64_t>(static_cast<U>(lo)), kBits,
                                                std::is_signed<T>::value);
      if (base != min_word) {
        return Status(StatusCode::kCorruptMetadata, At(p) + "Base is not the partition minimum");
      }
      const uint64_t range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
      if (part.bit_width != BitLength(range)) {
        return Status(StatusCode::kCorruptMetadata,
                      At(p) + "Bit_Width " + std::to_string(part.bit_width) +
                          " is not bitlen(max - min) = " + std::to_string(BitLength(range)));
      }
    }
    // spec §8.8 rule 1: the smallest signed width that holds every residual.
    // A SLAP partition's n fields are contiguous in the stream, so the
    // residuals are the fields in stream order.
    if (IsPredictedModel(part.model) && part.bit_width > 0) {
      const uint32_t w = part.bit_width;
      const uint64_t mask = LowMask(w);
      uint32_t needed = 0;
      for (uint64_t i = 0; i < part.num_rows && needed < w; ++i) {
        needed = std::max(needed, SignedWidth(SignExtend(LoadField(part.payload, i * w, mask), w)));
      }
      if (needed != w) {
        return Status(StatusCode::kCorruptMetadata,
                      At(p) + "Bit_Width " + std::to_string(w) +
                          " is not the smallest residual width " + std::to_string(needed));
      }
    }
    // spec §7.5: bounds are the exact minimum and maximum.
    if (view.bounds != nullptr) {
      const T bound_lo = LoadBound<T>(view.bounds + sizeof(T) * p);
      const T bound_hi = LoadBound<T>(view.bounds + sizeof(T) * (view.num_partitions + p));
      if (bound_lo != lo || bound_hi != hi) {
        return Status(StatusCode::kCorruptMetadata,
                      At(p) + "bounds do not equal the decoded minimum and maximum");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status DeepValidateChunk(const ChunkView& chunk) {
  Status st = ValidateChunkMetadata(chunk);
  if (!st.ok()) return st;
  // spec §8.10: the rules below hold for a dictionary chunk's elements, then
  // the dictionary's own rules.
  if (chunk.dictionary_entries > 0) {
    st = DeepValidateChunk(ElementView(chunk));
    if (!st.ok()) return st;
    return DeepValidateDictionary(chunk);
  }
  const ChunkView& view = chunk;
  switch (view.type) {
    case PhysicalType::kInt8: return DeepValidateTyped<int8_t>(view);
    case PhysicalType::kInt16: return DeepValidateTyped<int16_t>(view);
    case PhysicalType::kInt32: return DeepValidateTyped<int32_t>(view);
    case PhysicalType::kInt64: return DeepValidateTyped<int64_t>(view);
    case PhysicalType::kUInt8: return DeepValidateTyped<uint8_t>(view);
    case PhysicalType::kUInt16: return DeepValidateTyped<uint16_t>(view);
    case PhysicalType::kUInt32: return DeepValidateTyped<uint32_t>(view);
    case PhysicalType::kUInt64: return DeepValidateTyped<uint64_t>(view);
    default: return Status(StatusCode::kUnsupportedFeature, "not an integer type");
  }
}

}  // namespace l3::internal
