// Fixed layouts and constants of the L3 format (spec §4, §7.3, §8.5–§8.7).
// Header-only and free of dependencies, so the CPU reference, the writer and
// the CUDA backend share one definition of every byte offset.
#pragma once

#include <cstdint>

#include "common/bits.hpp"

namespace l3::internal {

// spec §4.1 File_Header
inline constexpr uint8_t kMagic[8] = {0x89, 0x4C, 0x33, 0x46, 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr uint64_t kHeaderBytes = 64;
// spec §4.2 Postscript
inline constexpr uint64_t kPostscriptBytes = 64;
inline constexpr uint64_t kMinFileBytes = kHeaderBytes + kPostscriptBytes;
inline constexpr uint64_t kSegmentAlignment = 64;  // spec §4.3
inline constexpr uint8_t kChecksumCrc32c = 0;      // spec §5

// Postscript field offsets (spec §4.2).
inline constexpr int kPsFooterOffset = 0;
inline constexpr int kPsFooterLength = 8;
inline constexpr int kPsRequiredFeatures = 16;
inline constexpr int kPsOptionalFeatures = 24;
inline constexpr int kPsFormatMajor = 32;
inline constexpr int kPsFormatMinor = 34;
inline constexpr int kPsChecksumType = 36;
inline constexpr int kPsReserved1 = 37;  // 3 bytes
inline constexpr int kPsFooterChecksum = 40;
inline constexpr int kPsReserved2 = 44;  // 8 bytes
inline constexpr int kPsPostscriptChecksum = 52;
inline constexpr int kPsMagic = 56;
inline constexpr int kPsChecksummedBytes = 52;

// Feature bits this implementation understands (spec §4.4).
inline constexpr uint64_t kRequiredDeltaModelBit = 1ull << 3;  // DELTA_MODEL (format 1.1)
inline constexpr uint64_t kRequiredFieldPlanesBit = 1ull << 4;  // FIELD_PLANES (format 1.1)
inline constexpr uint64_t kRequiredDictionaryBit = 1ull << 5;   // DICTIONARY (format 1.1)
inline constexpr uint64_t kRequiredRunsEfModelBit = 1ull << 6;  // RUNS_EF_MODEL (format 1.1)
inline constexpr uint64_t kRequiredIbpFloatBit = 1ull << 2;     // IBP_FLOAT (float columns, 1.1)
inline constexpr uint64_t kRequiredPatchedForModelBit = 1ull << 7;  // PATCHED_FOR_MODEL (1.1)
inline constexpr uint64_t kRequiredPatchedRowsEfBit = 1ull << 8;    // PATCHED_ROWS_EF (1.1)
inline constexpr uint64_t kRequiredDeltaOrdersBit = 1ull << 9;      // DELTA_ORDERS (1.1)
inline constexpr uint64_t kKnownRequiredFeatures = (1ull << 0) | kRequiredIbpFloatBit |
                                                   kRequiredDeltaModelBit |
                                                   kRequiredFieldPlanesBit | kRequiredDictionaryBit |
                                                   kRequiredRunsEfModelBit |
                                                   kRequiredPatchedForModelBit |
                                                   kRequiredPatchedRowsEfBit |
                                                   kRequiredDeltaOrdersBit;
inline constexpr uint64_t kDefinedRequiredFeatures = (1ull << 0) | (1ull << 1) | (1ull << 2) |
                                                     kRequiredDeltaModelBit |
                                                     kRequiredFieldPlanesBit |
                                                     kRequiredDictionaryBit |
                                                     kRequiredRunsEfModelBit |
                                                     kRequiredPatchedForModelBit |
                                                     kRequiredPatchedRowsEfBit |
                                                     kRequiredDeltaOrdersBit;

inline constexpr uint64_t AlignUp64(uint64_t x) { return (x + 63) & ~uint64_t{63}; }

// spec §7.3 Partition record: 16 bytes.
inline constexpr uint64_t kPartitionRecordBytes = 16;
// spec §8.6: zero bytes after the last partition's payload.
inline constexpr uint64_t kPayloadPaddingBytes = 32;
inline constexpr uint32_t kLanes = 32;
inline constexpr uint32_t kMaxValuesPerLane = 1024;

enum class Model : uint8_t {
  kConstant = 0,
  kFor = 1,
  kLinear = 2,
  kPoly2 = 3,
  kPoly3 = 4,
  kDelta = 5,   // format 1.1, spec §8.9; requires DELTA_MODEL
  kRunsEf = 6,  // format 1.1, spec §8.11; requires RUNS_EF_MODEL
  kPatchedFor = 7,  // format 1.1, spec §8.12; requires PATCHED_FOR_MODEL
};
inline constexpr uint8_t kNumModels = 8;

struct PartitionRecord {
  uint32_t first_row;       // spec First_Row
  uint32_t payload_offset;  // spec Payload_Offset, in 8-byte words
  uint32_t param_offset;    // spec Param_Offset, in 8-byte words
  uint8_t model_type;       // spec Model_Type
  uint8_t bit_width;        // spec Bit_Width
  uint16_t reserved;        // spec Reserved
};

inline PartitionRecord LoadPartitionRecord(const uint8_t* table, uint64_t index) {
  const uint8_t* p = table + index * kPartitionRecordBytes;
  PartitionRecord r;
  r.first_row = LoadLE32(p + 0);
  r.payload_offset = LoadLE32(p + 4);
  r.param_offset = LoadLE32(p + 8);
  r.model_type = p[12];
  r.bit_width = p[13];
  r.reserved = LoadLE16(p + 14);
  return r;
}

inline void StorePartitionRecord(uint8_t* table, uint64_t index, const PartitionRecord& r) {
  uint8_t* p = table + index * kPartitionRecordBytes;
  StoreLE32(p + 0, r.first_row);
  StoreLE32(p + 4, r.payload_offset);
  StoreLE32(p + 8, r.param_offset);
  p[12] = r.model_type;
  p[13] = r.bit_width;
  StoreLE16(p + 14, r.reserved);
}

/// spec §8.1: parameter words used by a partition.
L3_HD uint32_t ParamCount(uint8_t model_type, uint32_t bit_width) {
  switch (model_type) {
    case 0: return bit_width == 0 ? 1u : 2u;  // CONSTANT / runs
    case 1: return 1u;                        // FOR_BITPACK
    case 2: return 2u;                        // LINEAR
    case 3: return 3u;                        // POLY2
    case 4: return 4u;                        // POLY3
    case 5: return 2u;                        // DELTA: Delta_Base, Exceptions
    case 6: return 2u;                        // RUNS_EF: Base, Num_Runs
    case 7: return 2u;                        // PATCHED_FOR: Base, Exceptions
    default: return 0u;
  }
}

/// spec §4.4: the Required_Features bit a partition of this Model_Type needs
/// (0 for the models of format 1.0), and its name.
L3_HD uint64_t ModelFeatureBit(uint8_t model_type) {
  switch (model_type) {
    case 5: return kRequiredDeltaModelBit;
    case 6: return kRequiredRunsEfModelBit;
    case 7: return kRequiredPatchedForModelBit;
    default: return 0;
  }
}
inline const char* ModelFeatureName(uint8_t model_type) {
  switch (model_type) {
    case 5: return "DELTA_MODEL";
    case 6: return "RUNS_EF_MODEL";
    case 7: return "PATCHED_FOR_MODEL";
    default: return "";
  }
}

L3_HD bool IsSlapModel(uint8_t model_type) { return model_type >= 1 && model_type <= 4; }
L3_HD bool IsPredictedModel(uint8_t model_type) { return model_type >= 2 && model_type <= 4; }

/// spec §8.5: payload words of a SLAP partition of `n` rows and width `w`.
L3_HD uint64_t SlapPayloadWords(uint64_t n, uint32_t w) { return (n * w + 63) / 64; }

/// spec §8.7: bits per run start.
L3_HD uint32_t RunStartBits(uint64_t n) { return n <= 1 ? 0u : BitLength(n - 1); }

/// spec §8.7: payload words of a run partition.
L3_HD uint64_t RunPayloadWords(uint64_t n, uint32_t w, uint64_t runs) {
  return (runs * w + (runs - 1) * RunStartBits(n) + 63) / 64;
}

/// Position of local row `x` in the SLAP layout (spec §8.4, §8.5).
struct SlapPosition {
  uint64_t tile;     // t
  uint32_t lane;     // L
  uint32_t step;     // k
  uint64_t lane_x0;  // X0 = t * S + L
};

L3_HD SlapPosition SlapLocate(uint64_t x, uint32_t values_per_lane) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  SlapPosition p;
  p.tile = x / tile_rows;
  const uint64_t in_tile = x - p.tile * tile_rows;
  p.lane = static_cast<uint32_t>(in_tile % kLanes);
  p.step = static_cast<uint32_t>(in_tile / kLanes);
  p.lane_x0 = p.tile * tile_rows + p.lane;
  return p;
}

/// Stream bit offset of lane `lane`'s first field in tile `tile` of a
/// partition with `n` rows (spec §8.5, full and partial tiles).
L3_HD uint64_t SlapLaneBitOffset(uint64_t n, uint32_t w, uint32_t values_per_lane, uint64_t tile,
                                  uint32_t lane) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t full_tiles = n / tile_rows;
  const uint64_t tile_base = tile * tile_rows * w;
  if (tile < full_tiles) return tile_base + uint64_t{lane} * values_per_lane * w;
  const uint64_t m = n - full_tiles * tile_rows;
  const uint64_t q = m / kLanes;
  const uint64_t r = m % kLanes;
  const uint64_t before = uint64_t{lane} * q + (lane < r ? lane : r);
  return tile_base + w * before;
}

/// Stream bit offset of local row `x`'s field (spec §8.5).
L3_HD uint64_t SlapFieldBitOffset(uint64_t n, uint32_t w, uint32_t values_per_lane, uint64_t x) {
  const SlapPosition p = SlapLocate(x, values_per_lane);
  return SlapLaneBitOffset(n, w, values_per_lane, p.tile, p.lane) + uint64_t{p.step} * w;
}

/// Rows held by lane `lane` of tile `tile` (V for full tiles, c_L for the
/// partial tile, spec §8.5).
L3_HD uint32_t SlapLaneRows(uint64_t n, uint32_t values_per_lane, uint64_t tile, uint32_t lane) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t full_tiles = n / tile_rows;
  if (tile < full_tiles) return values_per_lane;
  const uint64_t m = n - full_tiles * tile_rows;
  return static_cast<uint32_t>(m / kLanes + (lane < m % kLanes ? 1 : 0));
}

L3_HD bool IsValidValuesPerLane(uint32_t v) {
  return v >= 1 && v <= kMaxValuesPerLane && (v & (v - 1)) == 0;
}

}  // namespace l3::internal
