// IBP chunks (spec §11.2.3, format 1.1), the reader's half: checks of the
// masks, mask ids and row index, and the CPU reference decoder of rows.
// Depends on nothing of the encoder.
#pragma once

#include <cstdint>
#include <memory>

#include "l3/l3.hpp"

namespace l3::internal {

/// spec §11.2.4 step 3, after the lengths of `masks`, `row_offsets` and
/// `cluster_ids` were checked: every Bitval & ~Mask is 0, every Mask_Id < K,
/// and the row index rules (Block_Start[0] = 0, Row_Offset[64 g] = 0,
/// 1 <= L_r <= M). O(num_rows + K * M). kCorruptMetadata otherwise.
/// `view.payload` is not read.
Status ValidateIbpIndex(const ChunkView& view);

/// Payload_Words of a chunk whose index passed ValidateIbpIndex: the start
/// of row num_rows.
uint64_t IbpPayloadWords(const ChunkView& view);

/// First payload word of row `row` (row <= num_rows): Start(row).
uint64_t IbpRowStart(const ChunkView& view, uint64_t row);

/// Decodes chunk rows [row_begin, row_end) into `out`, B = row_width *
/// type bytes each. Precondition: ValidateIbpIndex passed and the payload
/// holds W/8 * IbpPayloadWords + 32 bytes. kCorruptPayload when a packed
/// row's length disagrees with its bitmap (rule 5).
/// Visits only the words of a row that hold a field (a participating word
/// whose mask has no free bits is its bit values), depositing fields with
/// PDEP where the CPU has BMI2.
Status DecodeIbpRows(const ChunkView& view, uint64_t row_begin, uint64_t row_end, uint8_t* out);

/// DecodeIbpRows for many calls on one chunk (Reader::Take's rows): the
/// sparse decoder's plan of a mask (O(M) to make) is made when a row first
/// uses it and kept for the decoder's life, so a row decoded by itself costs
/// its own words only. Same bytes and errors as DecodeIbpRows. `view` (and
/// its segments) must outlive the decoder.
class IbpRowDecoder {
 public:
  explicit IbpRowDecoder(const ChunkView& view);
  ~IbpRowDecoder();
  IbpRowDecoder(const IbpRowDecoder&) = delete;
  IbpRowDecoder& operator=(const IbpRowDecoder&) = delete;

  /// DecodeIbpRows(view, row_begin, row_end, out).
  Status Decode(uint64_t row_begin, uint64_t row_end, uint8_t* out);

  struct State;  // the plans and a row of words, by word size

 private:
  const ChunkView* view_;
  std::unique_ptr<State> state_;
};

/// The decoders DecodeIbpRowsWith can be asked for; tests check that they
/// give the same bytes and the same errors.
enum class IbpRowsDecoder : uint8_t {
  kFastest,    ///< DecodeIbpRows's
  kPortable,   ///< the same visits, deposits by DepositBits on every CPU
  kReference,  ///< every word of every row, as spec §11.2.3 steps 1-5 read
};
Status DecodeIbpRowsWith(const ChunkView& view, uint64_t row_begin, uint64_t row_end,
                         uint8_t* out, IbpRowsDecoder decoder);

/// spec §10.3 step 5.4: every row decodes, the unused bitmap and stream bits
/// and the bytes after each row's B bytes are zero, and so are the 32
/// padding bytes of the payload. kCorruptPayload otherwise.
Status DeepValidateIbpChunk(const ChunkView& view);

}  // namespace l3::internal
