// IBP chunks (spec §11.2.3, format 1.1), the writer's half: masks of
// invariant bits chosen by total size, rows packed back to back, the row
// index. Deterministic: the same rows and options give the same bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

struct IbpEncoderOptions {
  /// Masks to try (spec "num_clusters"): 1 = a single mask; K > 1 also tries
  /// K masks from a deterministic Hamming k-means and keeps the smaller.
  uint32_t max_masks = 1;
};

/// An encoded IBP chunk's decoded segments and `IbpMasks` fields.
struct EncodedIbpChunk {
  uint32_t word_bytes = 0;     // "element_bytes"
  uint32_t words_per_row = 0;  // "vector_length" M
  uint32_t num_masks = 0;      // "num_clusters" K
  uint32_t offset_bits = 0;    // "offset_bits" b (0: every row raw, no index)
  float threshold = 0;         // "threshold"
  std::vector<uint8_t> payload;      // the rows' words, then 32 zero bytes
  std::vector<uint8_t> masks;        // per mask: Mask[M], then Bitval[M]
  std::vector<uint8_t> row_offsets;  // empty when every row is raw
  std::vector<uint8_t> mask_ids;     // empty when K = 1
  uint64_t packed_rows = 0;          // rows stored packed (the rest raw)

  uint64_t SegmentBytes() const {
    return payload.size() + masks.size() + row_offsets.size() + mask_ids.size();
  }
};

/// Encodes `num_rows` rows of `row_bytes` bytes each (1 <= num_rows <=
/// 2^32 - 1). Tries the thresholds 0.70, 0.75, ..., 0.95 and both word
/// widths, keeping the smallest chunk (spec §14).
Result<EncodedIbpChunk> EncodeIbpChunk(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                                       const IbpEncoderOptions& options);

}  // namespace l3::internal
