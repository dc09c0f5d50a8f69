// The CPU reference decoder: metadata validation (spec §7.3, §7.5, §8.2) and
// decoding of row ranges and single rows (spec §8.3–§8.7).
#include "codec/decode/decode_chunk.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codec/decode/partition_decoder.hpp"
#include "codec/dictionary/dictionary_decode.hpp"
#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kMaxChunkRows = (uint64_t{1} << 32) - 1;  // spec §7.2

Status Corrupt(const std::string& message) {
  return Status(StatusCode::kCorruptMetadata, message);
}

std::string At(uint32_t p) { return "partition " + std::to_string(p) + ": "; }

// spec §4.4: a partition of a model of format 1.1 in a file without its
// feature bit is CORRUPT_METADATA.
Status CheckModelFeature(uint32_t p, uint8_t model_type, uint64_t required_features) {
  const uint64_t bit = ModelFeatureBit(model_type);
  if (bit == 0 || (required_features & bit) != 0) return Status::OK();
  return Corrupt(At(p) + "Model_Type " +
                 ModelTypeName(static_cast<ModelType>(model_type)) + " in a file without the " +
                 ModelFeatureName(model_type) + " feature bit");
}

// spec §8.2: an integer word holds the canonical extension of an N-bit value.
bool IsCanonicalWord(uint64_t word, uint32_t bits, bool is_signed) {
  return CanonicalExtend(word, bits, is_signed) == word;
}

// spec §8.2: float words are finite binary64 values.
bool IsFiniteWord(uint64_t word) {
  double d;
  std::memcpy(&d, &word, sizeof(d));
  return std::isfinite(d);
}

// The checks of spec §8.2 for one partition's parameter words.
Status CheckParameters(const Partition& part, uint32_t bits, bool is_signed,
                       uint64_t required_features) {
  const uint64_t w0 = LoadLE64(part.params);
  switch (part.model) {
    case static_cast<uint8_t>(Model::kDelta):
    case static_cast<uint8_t>(Model::kPatchedFor): {
      const bool delta = part.model == static_cast<uint8_t>(Model::kDelta);
      if (!IsCanonicalWord(w0, bits, is_signed)) {
        return Corrupt(At(part.index) + (delta ? "Delta_Base" : "Base") +
                       " is not the canonical extension of a " + std::to_string(bits) +
                       "-bit value");
      }
      const uint64_t word = LoadLE64(part.params + 8);
      if (delta ? !DeltaExceptionsValid(word, part.num_rows, part.bit_width, bits)
                : !PatchedForExceptionsValid(word, part.num_rows, part.bit_width, bits)) {
        return Corrupt(At(part.index) +
                       "Exceptions word: reserved bits set, Num_Exceptions > n_p, "
                       "Exception_Width zero iff Num_Exceptions zero violated, "
                       "Bit_Width + Exception_Width > N, Rows_EF without exceptions or "
                       "with n_p > " + std::to_string(kPatchedRowsEfMaxRows) +
                       ", or a DELTA order K > 3 or K >= n_p");
      }
      // spec §4.4, §8.9: a DELTA order K > 1 needs DELTA_ORDERS.
      if (delta && UnpackDeltaExceptions(word).order > 1 &&
          (required_features & kRequiredDeltaOrders) == 0) {
        return Corrupt(At(part.index) +
                       "DELTA of order K > 1 in a file without the DELTA_ORDERS feature bit");
      }
      // spec §4.4, §8.12: Rows_EF needs PATCHED_ROWS_EF.
      if (!delta && UnpackDeltaExceptions(word).rows_ef &&
          (required_features & kRequiredPatchedRowsEf) == 0) {
        return Corrupt(At(part.index) +
                       "PATCHED_FOR Rows_EF in a file without the PATCHED_ROWS_EF feature bit");
      }
      return Status::OK();
    }
    case static_cast<uint8_t>(Model::kRunsEf): {
      if (!IsCanonicalWord(w0, bits, is_signed)) {
        return Corrupt(At(part.index) + "Base is not the canonical extension of a " +
                       std::to_string(bits) + "-bit value");
      }
      const uint64_t runs = LoadLE64(part.params + 8);
      if (!RunsEfParamsValid(part.num_rows, runs, part.bit_width)) {
        return Corrupt(At(part.index) + "RUNS_EF needs 2 <= Num_Runs <= n_p <= " +
                       std::to_string(kRunsEfMaxRows) + " and Bit_Width >= 1 (Num_Runs " +
                       std::to_string(runs) + ", n_p " + std::to_string(part.num_rows) +
                       ", Bit_Width " + std::to_string(part.bit_width) + ")");
      }
      return Status::OK();
    }
    case static_cast<uint8_t>(Model::kConstant):
    case static_cast<uint8_t>(Model::kFor):
      if (!IsCanonicalWord(w0, bits, is_signed)) {
        return Corrupt(At(part.index) + "Base is not the canonical extension of a " +
                       std::to_string(bits) + "-bit value");
      }
      if (IsRunPartition(part)) {
        const uint64_t runs = LoadLE64(part.params + 8);
        if (runs < 1 || runs > part.num_rows) {
          return Corrupt(At(part.index) + "Num_Runs " + std::to_string(runs) +
                         " is outside 1..n_p (" + std::to_string(part.num_rows) + ")");
        }
      }
      return Status::OK();
    default: {
      const uint32_t count = ParamCount(part.model, part.bit_width);
      for (uint32_t i = 0; i < count; ++i) {
        if (!IsFiniteWord(LoadLE64(part.params + 8 * i))) {
          return Corrupt(At(part.index) + "Theta_" + std::to_string(i) +
                         " is NaN or infinite");
        }
      }
      return Status::OK();
    }
  }
}

// Payload words a partition needs (spec §8.5, §8.7); the parameters must
// have been checked.
uint64_t RequiredPayloadWords(const Partition& part, uint32_t values_per_lane) {
  if (part.model == static_cast<uint8_t>(Model::kConstant)) {
    if (part.bit_width == 0) return 0;
    return RunPayloadWords(part.num_rows, part.bit_width, LoadLE64(part.params + 8));
  }
  if (part.model == static_cast<uint8_t>(Model::kDelta)) {
    return DeltaPayloadWords(part.num_rows, part.bit_width, values_per_lane,
                             UnpackDeltaExceptions(LoadLE64(part.params + 8)));
  }
  if (part.model == static_cast<uint8_t>(Model::kRunsEf)) {
    return RunsEfPayloadWords(part.num_rows, LoadLE64(part.params + 8), part.bit_width);
  }
  if (part.model == static_cast<uint8_t>(Model::kPatchedFor)) {
    return PatchedForPayloadWords(part.num_rows, part.bit_width,
                                  UnpackDeltaExceptions(LoadLE64(part.params + 8)));
  }
  return SlapPayloadWords(part.num_rows, part.bit_width);
}

template <typename T>
Status DecodeRowsTyped(const ChunkView& view, uint64_t row_begin, uint64_t row_end, T* out) {
  uint32_t p = FindPartition(view, row_begin);
  uint64_t row = row_begin;
  while (row < row_end) {
    const Partition part = LoadPartition(view, p);
    const uint64_t part_end = part.first_row + part.num_rows;
    const uint64_t stop = part_end < row_end ? part_end : row_end;
    if (!DecodePartitionRange(part, view.values_per_lane, row - part.first_row,
                              stop - part.first_row, out + (row - row_begin))) {
      return Status(StatusCode::kCorruptPayload,
                    At(p) + "run starts are not strictly increasing in [1, n_p - 1]");
    }
    row = stop;
    ++p;
  }
  return Status::OK();
}

}  // namespace

Status ValidatePartitionTableShape(const uint8_t* partition_table, uint64_t num_partitions,
                                   uint64_t num_rows, uint32_t values_per_lane, PhysicalType type,
                                   uint64_t required_features, uint64_t parameters_bytes,
                                   uint64_t payload_bytes) {
  if (!PhysicalTypeIsInteger(type)) return Status::OK();  // reported by ValidateChunkMetadata
  if (!IsValidValuesPerLane(values_per_lane) || num_rows < 1 || num_rows > kMaxChunkRows ||
      num_partitions < 1 || num_partitions > num_rows) {
    return Status::OK();  // ValidateChunkMetadata reports these with their messages
  }
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  uint64_t max_payload_words = 0;
  for (uint64_t p = 0; p < num_partitions; ++p) {
    const PartitionRecord rec = LoadPartitionRecord(partition_table, p);
    const PartitionRecord next = LoadPartitionRecord(partition_table, p + 1);
    if (p == 0 && (rec.first_row != 0 || rec.param_offset != 0 || rec.payload_offset != 0)) {
      return Corrupt(At(0) + "First_Row, Param_Offset and Payload_Offset must be 0");
    }
    if (rec.reserved != 0) return Corrupt(At(p) + "Reserved is not zero");
    if (rec.model_type >= kNumModels) {
      return Corrupt(At(p) + "Model_Type " + std::to_string(rec.model_type) + " is not defined");
    }
    L3_RETURN_NOT_OK(CheckModelFeature(p, rec.model_type, required_features));
    if (rec.bit_width > bits) {
      return Corrupt(At(p) + "Bit_Width " + std::to_string(rec.bit_width) + " > " +
                     std::to_string(bits));
    }
    if (next.first_row <= rec.first_row || next.first_row > num_rows) {
      return Corrupt(At(p + 1) + "First_Row does not increase within num_rows");
    }
    const uint32_t count = ParamCount(rec.model_type, rec.bit_width);
    if (next.param_offset < rec.param_offset || next.param_offset - rec.param_offset != count) {
      return Corrupt(At(p) + "Param_Offset[p+1] - Param_Offset[p] is not " +
                     std::to_string(count) + " for this Model_Type and Bit_Width");
    }
    // The most payload words any parameter values allow (spec §8.5, §8.7,
    // §8.9): every row a run or an exception of the widest high part.
    const uint64_t n = next.first_row - rec.first_row;
    uint64_t most = SlapPayloadWords(n, rec.bit_width);
    if (rec.model_type == static_cast<uint8_t>(Model::kConstant)) {
      most = rec.bit_width == 0 ? 0 : RunPayloadWords(n, rec.bit_width, n);
    } else if (rec.model_type == static_cast<uint8_t>(Model::kRunsEf)) {
      // The most bits any valid Num_Runs gives: R * w + m * l + H_n with
      // m * (l + 1) + (n - 1) / 2^l <= 2n (n <= 65536).
      most = n <= kRunsEfMaxRows ? (n * rec.bit_width + 2 * n + 63) / 64 : 0;
    } else if (rec.model_type == static_cast<uint8_t>(Model::kDelta)) {
      DeltaExceptions e;
      e.count = static_cast<uint32_t>(n);
      e.width = 64;
      e.order = kMaxDeltaOrder;  // K Seed words a tile
      most = DeltaPayloadWords(n, rec.bit_width, values_per_lane, e);
    } else if (rec.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
      // spec §10.2 step 4: every row an exception with a 64-bit high part,
      // and 3 bits a row more than pb for Rows_EF (E * l + H_n < E * (l + 3)).
      most = (n * rec.bit_width + n * (RunStartBits(n) + 67) + 63) / 64;
    }
    max_payload_words += most;
  }
  const PartitionRecord sentinel = LoadPartitionRecord(partition_table, num_partitions);
  if (8 * uint64_t{sentinel.param_offset} != parameters_bytes) {
    return Corrupt("8 * Param_Offset[P] = " + std::to_string(8 * uint64_t{sentinel.param_offset}) +
                   " != parameters decoded_length " + std::to_string(parameters_bytes));
  }
  if (payload_bytes > 8 * max_payload_words + kPayloadPaddingBytes) {
    return Corrupt("payload decoded_length " + std::to_string(payload_bytes) +
                   " exceeds what the partition table allows (" +
                   std::to_string(8 * max_payload_words + kPayloadPaddingBytes) + ")");
  }
  return Status::OK();
}

namespace {

// ValidateChunkMetadata over the chunk's elements (spec §8.10: for a
// dictionary chunk, D + num_rows of them).
Status ValidateElements(const ChunkView& view) {
  if (!PhysicalTypeIsInteger(view.type)) {
    return Status(StatusCode::kUnsupportedFeature,
                  std::string("physical type ") + PhysicalTypeName(view.type) +
                      " cannot be decoded as L3Integer");
  }
  if (view.partition_table == nullptr || view.parameters == nullptr || view.payload == nullptr) {
    return Status(StatusCode::kInvalidArgument, "ChunkView is missing a segment");
  }
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(view.type));
  const bool is_signed = PhysicalTypeIsSigned(view.type);
  const uint64_t num_partitions = view.num_partitions;
  if (!IsValidValuesPerLane(view.values_per_lane)) {
    return Corrupt("values_per_lane " + std::to_string(view.values_per_lane) +
                   " is not a power of two in 1..1024");
  }
  if (view.num_rows < 1 || view.num_rows > kMaxChunkRows) {
    return Corrupt("num_rows " + std::to_string(view.num_rows) + " is outside 1..2^32-1");
  }
  if (num_partitions < 1 || num_partitions > view.num_rows) {
    return Corrupt("num_partitions " + std::to_string(num_partitions) +
                   " is outside 1..num_rows");
  }
  if (view.parameters_bytes % 8 != 0) {
    return Corrupt("parameters segment length " + std::to_string(view.parameters_bytes) +
                   " is not a multiple of 8");
  }
  if (view.payload_bytes < kPayloadPaddingBytes || view.payload_bytes % 8 != 0) {
    return Corrupt("payload segment length " + std::to_string(view.payload_bytes) +
                   " is not 8 * Payload_Offset[P] + 32");
  }
  const uint64_t param_words = view.parameters_bytes / 8;

  // spec §7.3 rules 1-3, starting values.
  const PartitionRecord first = LoadPartitionRecord(view.partition_table, 0);
  if (first.first_row != 0) return Corrupt(At(0) + "First_Row is not 0");
  if (first.param_offset != 0) return Corrupt(At(0) + "Param_Offset is not 0");
  if (first.payload_offset != 0) return Corrupt(At(0) + "Payload_Offset is not 0");

  for (uint32_t p = 0; p < num_partitions; ++p) {
    const PartitionRecord rec = LoadPartitionRecord(view.partition_table, p);
    const PartitionRecord next = LoadPartitionRecord(view.partition_table, p + 1);
    if (rec.reserved != 0) return Corrupt(At(p) + "Reserved is not zero");
    // Rule 4.
    if (rec.model_type >= kNumModels) {
      return Corrupt(At(p) + "Model_Type " + std::to_string(rec.model_type) + " is not defined");
    }
    L3_RETURN_NOT_OK(CheckModelFeature(p, rec.model_type, view.required_features));
    if (rec.bit_width > bits) {
      return Corrupt(At(p) + "Bit_Width " + std::to_string(rec.bit_width) + " > " +
                     std::to_string(bits));
    }
    // Rule 1.
    if (next.first_row <= rec.first_row) {
      return Corrupt(At(p + 1) + "First_Row " + std::to_string(next.first_row) +
                     " does not exceed First_Row[" + std::to_string(p) + "] " +
                     std::to_string(rec.first_row));
    }
    // Rule 2, checked before the words are read.
    const uint32_t count = ParamCount(rec.model_type, rec.bit_width);
    if (next.param_offset < rec.param_offset || next.param_offset - rec.param_offset != count) {
      return Corrupt(At(p) + "Param_Offset[p+1] - Param_Offset[p] is not " +
                     std::to_string(count) + " for this Model_Type and Bit_Width");
    }
    if (uint64_t{next.param_offset} > param_words) {
      return Corrupt(At(p) + "parameter words pass the end of the parameter segment");
    }
    const Partition part = LoadPartition(view, p);
    // Rule 5.
    Status st = CheckParameters(part, bits, is_signed, view.required_features);
    if (!st.ok()) return st;
    // Rule 3.
    const uint64_t words = RequiredPayloadWords(part, view.values_per_lane);
    if (next.payload_offset < rec.payload_offset ||
        uint64_t{next.payload_offset} - rec.payload_offset != words) {
      return Corrupt(At(p) + "Payload_Offset[p+1] - Payload_Offset[p] is not payload_words = " +
                     std::to_string(words));
    }
  }
  const PartitionRecord sentinel = LoadPartitionRecord(view.partition_table, num_partitions);
  if (sentinel.first_row != view.num_rows) {
    return Corrupt("sentinel First_Row " + std::to_string(sentinel.first_row) +
                   " != num_rows " + std::to_string(view.num_rows));
  }
  if (sentinel.model_type != 0 || sentinel.bit_width != 0 || sentinel.reserved != 0) {
    return Corrupt("sentinel Model_Type, Bit_Width and Reserved must be zero");
  }
  if (8 * uint64_t{sentinel.param_offset} != view.parameters_bytes) {
    return Corrupt("8 * Param_Offset[P] = " + std::to_string(8 * uint64_t{sentinel.param_offset}) +
                   " != parameters decoded_length " + std::to_string(view.parameters_bytes));
  }
  if (8 * uint64_t{sentinel.payload_offset} + kPayloadPaddingBytes != view.payload_bytes) {
    return Corrupt("8 * Payload_Offset[P] + 32 = " +
                   std::to_string(8 * uint64_t{sentinel.payload_offset} + kPayloadPaddingBytes) +
                   " != payload decoded_length " + std::to_string(view.payload_bytes));
  }
  // spec §7.5.
  if (view.bounds != nullptr && view.bounds_bytes != 2 * num_partitions * (bits / 8)) {
    return Corrupt("bounds decoded_length " + std::to_string(view.bounds_bytes) + " != 2 * P * " +
                   std::to_string(bits / 8));
  }
  return Status::OK();
}

}  // namespace

Status ValidateChunkMetadata(const ChunkView& view) {
  if (view.dictionary_entries > 0 && PhysicalTypeIsInteger(view.type)) {
    L3_RETURN_NOT_OK(CheckDictionaryShape(view));
  }
  return ValidateElements(ElementView(view));
}

Status ValidateRunStarts(const ChunkView& view) {
  for (uint32_t p = 0; p < view.num_partitions; ++p) {
    const Partition part = LoadPartition(view, p);
    if (part.model == static_cast<uint8_t>(Model::kDelta) &&
        !DeltaExceptionRowsValid(part, view.values_per_lane)) {
      return Status(StatusCode::kCorruptPayload,
                    At(p) + "DELTA exception rows are not strictly increasing in [0, n_p - 1]");
    }
    if (part.model == static_cast<uint8_t>(Model::kPatchedFor) &&
        !PatchedForExceptionRowsValid(part)) {
      return Status(StatusCode::kCorruptPayload,
                    At(p) + "PATCHED_FOR exception rows are not strictly increasing in "
                            "[0, n_p - 1]");
    }
    if (part.model == static_cast<uint8_t>(Model::kRunsEf) && !RunsEfReader(part).StartsValid()) {
      return Status(StatusCode::kCorruptPayload,
                    At(p) + "RUNS_EF: the high part does not hold Num_Runs - 1 one bits, or the "
                            "run starts are not strictly increasing in [1, n_p - 1]");
    }
    if (!IsRunPartition(part)) continue;
    const RunReader runs(part);
    uint64_t previous = 0;
    for (uint64_t i = 1; i < runs.num_runs(); ++i) {
      if (!runs.StartIsValid(i, previous)) {
        return Status(StatusCode::kCorruptPayload,
                      At(p) + "run start " + std::to_string(i) + " = " +
                          std::to_string(runs.Start(i)) +
                          " is not in [1, n_p - 1] or does not exceed the previous start");
      }
      previous = runs.Start(i);
    }
  }
  return Status::OK();
}

uint32_t FindPartition(const ChunkView& view, uint64_t row) {
  // Largest p < P with First_Row[p] <= row (spec §7.3).
  uint32_t lo = 0, hi = view.num_partitions;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (LoadLE32(view.partition_table + kPartitionRecordBytes * mid) <= row) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Status DecodeChunkRows(const ChunkView& view, uint64_t row_begin, uint64_t row_end, void* out) {
  if (row_begin > row_end || row_end > view.num_rows) {
    return Status(StatusCode::kOutOfRange, "row range [" + std::to_string(row_begin) + ", " +
                                               std::to_string(row_end) + ") outside the chunk");
  }
  if (row_begin == row_end) return Status::OK();
  if (view.dictionary_entries > 0) {
    // spec §8.10: the codes of the rows, then their entries.
    std::vector<uint8_t> decoded;
    const uint8_t* entries = view.dictionary;
    if (entries == nullptr) {
      L3_RETURN_NOT_OK(DecodeDictionary(view, &decoded));
      entries = decoded.data();
    }
    const uint64_t d = view.dictionary_entries;
    L3_RETURN_NOT_OK(DecodeChunkRows(ElementView(view), d + row_begin, d + row_end, out));
    return MapCodes(view, entries, out, row_end - row_begin);
  }
  Status st;
  const bool ok = DispatchIntegerType(view.type, out, [&](auto* typed) {
    st = DecodeRowsTyped(view, row_begin, row_end, typed);
  });
  if (!ok) return Status(StatusCode::kUnsupportedFeature, "not an integer type");
  return st;
}

Status DecodeChunkValue(const ChunkView& view, uint64_t row, uint64_t* value) {
  if (row >= view.num_rows) {
    return Status(StatusCode::kOutOfRange, "row " + std::to_string(row) + " outside the chunk");
  }
  if (!PhysicalTypeIsInteger(view.type)) {
    return Status(StatusCode::kUnsupportedFeature, "not an integer type");
  }
  if (view.dictionary_entries > 0) {
    // spec §8.10: one random access for the code, one load of its entry.
    const uint64_t d = view.dictionary_entries;
    uint64_t code = 0;
    L3_RETURN_NOT_OK(DecodeChunkValue(ElementView(view), d + row, &code));
    const uint64_t value_bytes = static_cast<uint64_t>(PhysicalTypeBytes(view.type));
    uint8_t entry[8] = {};
    std::memcpy(entry, &code, value_bytes);  // the code as a value of the type
    std::vector<uint8_t> decoded;
    const uint8_t* entries = view.dictionary;
    if (entries == nullptr) {
      L3_RETURN_NOT_OK(DecodeDictionary(view, &decoded));
      entries = decoded.data();
    }
    L3_RETURN_NOT_OK(MapCodes(view, entries, entry, 1));
    uint64_t raw = 0;
    std::memcpy(&raw, entry, value_bytes);
    *value = CanonicalExtend(raw, 8 * static_cast<uint32_t>(value_bytes),
                             PhysicalTypeIsSigned(view.type));
    return Status::OK();
  }
  return DecodePartitionValue(view, LoadPartition(view, FindPartition(view, row)), row, value);
}

Status DecodePartitionValue(const ChunkView& view, const Partition& part, uint64_t row,
                            uint64_t* value) {
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(view.type));
  const bool is_signed = PhysicalTypeIsSigned(view.type);
  const uint64_t x = row - part.first_row;
  uint64_t raw = 0;
  switch (part.model) {
    case static_cast<uint8_t>(Model::kConstant): {
      if (part.bit_width == 0) {
        raw = LoadLE64(part.params);
        break;
      }
      const RunReader runs(part);
      const uint64_t i = runs.Find(x);
      // Check the two starts that bracket x (spec §8.7).
      const uint64_t start = runs.Start(i);
      const bool start_ok = i == 0 || (start >= 1 && start <= part.num_rows - 1);
      if (!start_ok || (i + 1 < runs.num_runs() && !runs.StartIsValid(i + 1, start))) {
        return Status(StatusCode::kCorruptPayload,
                      At(part.index) + "run starts are not strictly increasing in [1, n_p - 1]");
      }
      raw = runs.Value(i);
      break;
    }
    case static_cast<uint8_t>(Model::kDelta):
      raw = DecodeDeltaValue(part, view.values_per_lane, x);
      break;
    case static_cast<uint8_t>(Model::kPatchedFor):
      raw = DecodePatchedForValue(part, view.values_per_lane, x);
      break;
    case static_cast<uint8_t>(Model::kRunsEf):
      if (!DecodeRunsEfValue(part, x, &raw)) {
        return Status(StatusCode::kCorruptPayload,
                      At(part.index) + "run starts are not strictly increasing in [1, n_p - 1]");
      }
      break;
    case static_cast<uint8_t>(Model::kFor):
      raw = LoadLE64(part.params) +
            LoadField(part.payload, SlapFieldBitOffset(part.num_rows, part.bit_width,
                                                       view.values_per_lane, x),
                      LowMask(part.bit_width));
      break;
    default: {
      double theta[4] = {0, 0, 0, 0};
      const uint32_t count = ParamCount(part.model, part.bit_width);
      for (uint32_t i = 0; i < count; ++i) theta[i] = ParamAsDouble(part.params, i);
      const int64_t pred = PredictRow(part.model, theta, x, view.values_per_lane);
      const uint64_t field =
          LoadField(part.payload,
                    SlapFieldBitOffset(part.num_rows, part.bit_width, view.values_per_lane, x),
                    LowMask(part.bit_width));
      raw = static_cast<uint64_t>(pred) + static_cast<uint64_t>(SignExtend(field, part.bit_width));
      break;
    }
  }
  *value = CanonicalExtend(raw, bits, is_signed);
  return Status::OK();
}

}  // namespace l3::internal
