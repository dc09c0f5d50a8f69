// Float columns (spec §11.2, format 1.1), spec-literal: the integer form's
// order-preserving map (§11.2.2) and an encoder for IBP chunks (§11.2.3).
//
// Written from the spec text, bit by bit, and independent of the SDK's
// sdk/src/codec/ibp code: its own row words, participation bitmap, MSB-first
// field stream, deposit/extract of the bits of ~Mask and row index. Every
// encoded chunk is decoded again by a spec-literal decoder here before it is
// used, so the corpus never depends on an encoder bug.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "spec_encode.hpp"

namespace l3::conformance {

/// Float32, Float64, Float16, BFloat16 (spec §6.2, §11.2).
bool TypeIsFloat(Ty t);
/// U of spec §11.2: the unsigned type of the float's width.
Ty IntegerFormType(Ty t);
/// spec §11.2.2: the bit pattern f of a value to u, and back.
uint64_t OrderedFromFloat(Ty t, uint64_t f);
uint64_t FloatFromOrdered(Ty t, uint64_t u);

/// How an IBP chunk is to be encoded (spec §11.2.3). Unset overrides give
/// what the spec describes a writer doing; set ones craft invalid cases.
struct IbpSpec {
  uint32_t word_bits = 32;  ///< W: 32 or 64
  /// K masks: masks[k] and bitvals[k] hold M words each (W bits, in u64).
  std::vector<std::vector<uint64_t>> masks, bitvals;
  /// Mask_Id per row; written as cluster_ids when K > 1.
  std::vector<uint8_t> mask_ids;
  /// b of the row index; unset: the smallest b >= 1 that holds every
  /// Row_Offset. Ignored when every row is raw (no row index).
  std::optional<uint32_t> offset_bits;
  float threshold = 0.75f;  ///< informative (spec §11.2.3)
  /// Edits a row's M words before it is encoded (the deep cases' nonzero
  /// bytes after B).
  std::function<void(uint64_t row, std::vector<uint64_t>& words)> edit_words;
};

/// The decoded bytes of an IBP chunk's segments.
struct EncodedIbp {
  uint32_t word_bits = 32;     ///< W
  uint32_t words_per_row = 0;  ///< M
  uint32_t num_masks = 0;      ///< K
  uint32_t offset_bits = 0;    ///< b; 0 without a row index
  uint64_t num_rows = 0;
  float threshold = 0;
  bool has_row_offsets = false;
  bool has_cluster_ids = false;
  Bytes masks, row_offsets, cluster_ids, payload;
  std::vector<uint64_t> start;  ///< Start(r), r = 0..num_rows (in words)
  std::vector<bool> packed;     ///< per row: L_r < M
};

/// M = ceil_div(8 * B, W) for rows of `row_width` values of type t.
uint32_t IbpWordsPerRow(Ty t, uint32_t row_width, uint32_t word_bits);

/// Encodes the rows of `values` (num_rows * row_width bit patterns of type
/// t, row-major). Aborts the generator if the spec is inconsistent.
EncodedIbp EncodeIbp(Ty t, uint32_t row_width, const std::vector<uint64_t>& values, const IbpSpec& spec);

/// A row's M words (spec §11.2.3): its B bytes, then zero bytes.
std::vector<uint64_t> IbpRowWords(Ty t, uint32_t row_width, uint32_t word_bits,
                                  const std::vector<uint64_t>& values, uint64_t row);

/// The decoded row_offsets segment: the u64 words Block_Start[0..G], then
/// the b-bit fields Row_Offset[0..num_rows), least significant bit first.
Bytes IbpRowIndexBytes(const std::vector<uint64_t>& block_start,
                       const std::vector<uint64_t>& row_offset, uint32_t offset_bits);

/// Rewrites the row index of `chunk` from chunk.start, with the given b
/// (0: the smallest that holds every Row_Offset). Used by the cases that
/// reshape a payload.
void WriteIbpRowIndex(EncodedIbp* chunk, uint32_t offset_bits);

/// Reads word `index` (W bits) of a little-endian word array.
uint64_t IbpWord(const Bytes& b, uint32_t word_bits, uint64_t index);
void SetIbpWord(Bytes* b, uint32_t word_bits, uint64_t index, uint64_t value);

}  // namespace l3::conformance
