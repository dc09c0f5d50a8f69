// IBP chunks (spec §11.2.3, format 1.1), the CUDA half of the decoder: a
// group of lanes per row (a whole warp for wide rows, fewer lanes and several
// rows per warp for narrow ones), one word per lane per step. The CPU reference is
// ibp_decode.cpp; both use ibp_format.hpp, so they read the index, the
// bitmap and the stream the same way and decode every valid row to the same
// bytes.
//
// Safety: the kernel trusts only what the host validated in the descriptor
// (sizes, counts, widths). Every start and end it reads from the row index is
// checked against the payload and M, every mask id against K, every stream
// read is clamped to the row's words, and a packed row whose length
// disagrees with its bitmap (rule 5) is overwritten with zeros (the CPU
// reports kCorruptPayload); nothing is read or written outside the buffers.
#pragma once

#include <cstdint>

#include "codec/ibp/ibp_format.hpp"
#include "common/warp_scan.cuh"

namespace l3::internal {

/// An IBP chunk as the kernels see it (filled from l3::cuda::DeviceIbpChunk).
struct IbpKernelChunk {
  const uint8_t* masks;         // 2 * K * M words
  const uint64_t* row_offsets;  // Block_Start[G + 1], then the fields; null when all raw
  const uint8_t* mask_ids;      // num_rows bytes; null when K = 1
  const uint8_t* payload;       // payload_words words + 32 bytes
  uint64_t first_row;           // within the column
  uint64_t num_rows;
  uint64_t payload_words;
  uint32_t word_bytes;          // 4 or 8
  uint32_t words_per_row;       // M
  uint32_t num_masks;           // K
  uint32_t offset_bits;         // b
};

inline constexpr int kMaxIbpLaunchChunks = 48;

struct IbpChunkSet {
  IbpKernelChunk chunk[kMaxIbpLaunchChunks];
  uint32_t count;
};

#if defined(__CUDACC__)

/// Row_Offset[r] of spec §11.2.3 for r < num_rows (c has a row index). The
/// field's position depends only on r and b, so the reads stay inside the
/// row index.
__device__ __forceinline__ uint32_t IbpDeviceRowOffset(const IbpKernelChunk& c, uint64_t r) {
  const uint64_t* fields = c.row_offsets + IbpBlocks(c.num_rows) + 1;
  const uint32_t b = c.offset_bits;
  const uint64_t bit = r * b;
  const uint64_t word = bit >> 6;
  const uint32_t shift = static_cast<uint32_t>(bit & 63);
  uint64_t v = __ldg(fields + word) >> shift;
  if (shift + b > 64) v |= __ldg(fields + word + 1) << (64 - shift);
  return static_cast<uint32_t>(v & LowMask(b));
}

/// Start(r) of spec §11.2.3 for r <= num_rows.
__device__ __forceinline__ uint64_t IbpDeviceRowStart(const IbpKernelChunk& c, uint64_t r) {
  if (c.row_offsets == nullptr) return r * c.words_per_row;
  if (r >= c.num_rows) return __ldg(c.row_offsets + IbpBlocks(c.num_rows));
  return __ldg(c.row_offsets + r / kIbpBlockRows) + IbpDeviceRowOffset(c, r);
}

/// Rules 1-4 of spec §11.2.3 on a row's words [start, end) (mask ids
/// apart): inside the payload, 1 to M words, and a packed row (fewer than
/// M words) at least its bitmap.
__device__ __forceinline__ bool IbpRowPlaceOk(const IbpKernelChunk& c, uint64_t start,
                                              uint64_t end, uint32_t word_bits) {
  const uint64_t m = c.words_per_row;
  return start < end && end <= c.payload_words && end - start <= m &&
         (end - start == m || IbpBitmapWords(m, word_bits) <= end - start);
}

template <typename Word>
__device__ __forceinline__ Word IbpLoadWord(const Word* p) {
  return __ldg(p);
}

/// Writes the bytes of word `j` that lie inside the row's `row_bytes` bytes,
/// in stores of `store_bytes` (the type's size or the word's, whichever is
/// smaller: both divide every offset involved).
template <typename Word>
__device__ __forceinline__ void IbpStoreWord(uint8_t* out_row, uint64_t j, Word value,
                                             uint32_t row_bytes, uint32_t store_bytes) {
  const uint64_t at = j * sizeof(Word);
  if (at + sizeof(Word) <= row_bytes && store_bytes == sizeof(Word)) {
    *reinterpret_cast<Word*>(out_row + at) = value;
    return;
  }
  for (uint32_t q = 0; q < sizeof(Word); q += store_bytes) {
    if (at + q >= row_bytes) break;
    const uint64_t part = static_cast<uint64_t>(value) >> (8 * q);
    switch (store_bytes) {
      case 2: *reinterpret_cast<uint16_t*>(out_row + at + q) = static_cast<uint16_t>(part); break;
      case 4: *reinterpret_cast<uint32_t*>(out_row + at + q) = static_cast<uint32_t>(part); break;
      default: *reinterpret_cast<uint64_t*>(out_row + at + q) = part; break;
    }
  }
}

/// Word `j` of a row decoded by a whole warp: stored whole where the value
/// type fills the word, as two 4-byte halves for 4-byte values in 8-byte
/// words (whole when `row_aligned8` says the row starts on 8 bytes and the
/// word lies inside the row: the same bytes, little-endian), else through
/// IbpStoreWord (2-byte values).
template <typename Word>
__device__ __forceinline__ void IbpStoreWarpWord(uint8_t* out_row, uint32_t j, Word value,
                                                 uint32_t row_bytes, uint32_t store_bytes,
                                                 bool row_aligned8 = false) {
  const uint32_t at = j * static_cast<uint32_t>(sizeof(Word));
  if ((store_bytes == sizeof(Word) || row_aligned8) && at + sizeof(Word) <= row_bytes) {
    *reinterpret_cast<Word*>(out_row + at) = value;
  } else if (sizeof(Word) == 8 && store_bytes == 4) {
    uint32_t* p = reinterpret_cast<uint32_t*>(out_row + at);
    if (at < row_bytes) p[0] = static_cast<uint32_t>(value);
    if (at + 4 < row_bytes) p[1] = static_cast<uint32_t>(static_cast<uint64_t>(value) >> 32);
  } else {
    IbpStoreWord<Word>(out_row, j, value, row_bytes, store_bytes);
  }
}

/// `v` of lane `src` of the warp, for 32- and 64-bit words.
template <typename Word>
__device__ __forceinline__ Word ShuffleWord(Word v, uint32_t src) {
  if constexpr (sizeof(Word) == 8) {
    return static_cast<Word>(
        __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(v), static_cast<int>(src)));
  } else {
    return static_cast<Word>(__shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(v), static_cast<int>(src)));
  }
}

/// A group of `g` lanes (a power of two, at most 32) decodes one row; the
/// lanes of a group name themselves by `lane` (0..g-1) and synchronise with
/// `members` only, so groups of one warp may take different paths.
struct IbpGroup {
  uint32_t lane;     // within the group
  uint32_t size;     // g
  uint32_t members;  // the group's lanes in the warp
};

/// The group writes zeros over a row (a row that failed a check).
__device__ __forceinline__ void IbpZeroRow(uint8_t* out_row, uint32_t row_bytes,
                                           uint32_t store_bytes, const IbpGroup& g) {
  for (uint32_t at = g.lane * store_bytes; at < row_bytes; at += g.size * store_bytes) {
    switch (store_bytes) {
      case 2: *reinterpret_cast<uint16_t*>(out_row + at) = 0; break;
      case 4: *reinterpret_cast<uint32_t*>(out_row + at) = 0; break;
      default: *reinterpret_cast<uint64_t*>(out_row + at) = 0; break;
    }
  }
}

/// Decodes chunk row `r` of `c` into `out_row` (row_bytes bytes) with a
/// group of lanes, g words per step, in one pass: a raw row is a packed row
/// whose words all stay whole with no bitmap, so both take the same path.
/// Stream reads are clamped to the row's words; the length check of rule 5
/// comes after the pass and zeroes a row that fails it.
/// A row of an IBP chunk as both decoders read it: where its words, mask,
/// bit values and field stream are. `ok` is false for a row whose index or
/// mask id fails a check (the caller zeroes it).
template <typename Word>
struct IbpRow {
  bool ok = false;
  bool raw = false;
  uint64_t length = 0;        // L_r words
  uint64_t bitmap_words = 0;  // H, 0 for a raw row
  const Word* words = nullptr;
  const Word* mask = nullptr;
  const Word* bitval = nullptr;
  const Word* stream = nullptr;
  uint64_t stream_words = 0;
};

/// Chunk row `r` of `c`, checked (spec §11.2.3 rules 1-4): its start and end
/// inside the payload, at most M words, a packed row at least its bitmap and
/// its mask id below K.
template <typename Word>
__device__ __forceinline__ IbpRow<Word> IbpOpenRow(const IbpKernelChunk& c, uint64_t r) {
  constexpr uint32_t W = 8 * sizeof(Word);
  IbpRow<Word> row;
  const uint64_t m = c.words_per_row;
  const uint64_t start = IbpDeviceRowStart(c, r);
  const uint64_t end = IbpDeviceRowStart(c, r + 1);
  if (!IbpRowPlaceOk(c, start, end, W)) return row;
  row.length = end - start;
  row.raw = row.length == m;
  row.words = reinterpret_cast<const Word*>(c.payload) + start;
  row.bitmap_words = row.raw ? 0 : IbpBitmapWords(m, W);
  const uint32_t k = (!row.raw && c.mask_ids != nullptr) ? __ldg(c.mask_ids + r) : 0u;
  if (k >= c.num_masks) return row;
  row.mask = reinterpret_cast<const Word*>(c.masks) + 2 * uint64_t{k} * m;
  row.bitval = row.mask + m;
  row.stream = row.words + row.bitmap_words;
  row.stream_words = row.length - row.bitmap_words;
  row.ok = true;
  return row;
}

template <typename Word>
__device__ void IbpDecodeRowGroup(const IbpKernelChunk& c, uint64_t r, uint8_t* out_row,
                                  uint32_t row_bytes, uint32_t store_bytes, const IbpGroup& g) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t m = c.words_per_row;
  const IbpRow<Word> opened = IbpOpenRow<Word>(c, r);
  if (!opened.ok) {
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
    return;
  }
  const bool raw = opened.raw;
  const uint64_t length = opened.length;
  const uint64_t h = opened.bitmap_words;
  const Word* row = opened.words;
  const Word* mask = opened.mask;
  const Word* bitval = opened.bitval;
  const Word* stream = opened.stream;
  const uint64_t stream_words = opened.stream_words;
  uint64_t base = 0;
  for (uint64_t j0 = 0; j0 < m; j0 += g.size) {
    const uint64_t j = j0 + g.lane;
    bool participates = false;
    Word mask_j = 0;
    uint32_t f = 0;
    if (j < m) {
      f = W;
      if (!raw) {
        participates = (IbpLoadWord(row + j / W) >> (j % W)) & 1;
        if (participates) {
          mask_j = IbpLoadWord(mask + j);
          f = W - PopCount(mask_j);
        }
      }
    }
    // Inclusive scan of the field widths over the group.
    uint32_t inclusive = f;
    for (uint32_t d = 1; d < g.size; d <<= 1) {
      const uint32_t up = __shfl_up_sync(g.members, inclusive, d, g.size);
      if (g.lane >= d) inclusive += up;
    }
    if (j < m) {
      const uint64_t pos = base + inclusive - f;
      Word x = 0;
      if (f > 0) {
        const uint64_t i = pos / W;
        const uint32_t off = static_cast<uint32_t>(pos % W);
        const Word hi = i < stream_words ? IbpLoadWord(stream + i) : Word{0};
        const Word lo =
            (off > 0 && off + f > W && i + 1 < stream_words) ? IbpLoadWord(stream + i + 1) : Word{0};
        x = MsbField<Word>(hi, lo, off, f);
      }
      const Word value = participates ? static_cast<Word>(IbpLoadWord(bitval + j) |
                                                          DepositBits<Word>(x, static_cast<Word>(~mask_j)))
                                      : x;
      IbpStoreWord<Word>(out_row, j, value, row_bytes, store_bytes);
    }
    base += __shfl_sync(g.members, inclusive, g.size - 1, g.size);
  }
  // Rule 5: the row's words are exactly its bitmap and its fields.
  if (!raw && h + (base + W - 1) / W != length) {
    __syncwarp(g.members);
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
  }
}

/// IbpDecodeRowGroup for a whole warp (g = 32, known here at compile time)
/// on rows of fewer than 2^26 words: the same values and checks, arranged so
/// that no load waits for another. A step's 32 fields lie in the 33 stream
/// words from floor(base / W) on, so lane L loads word L of them (and every
/// lane the 33rd) before the width scan, and each lane then takes its field's
/// two words from their lanes by shuffles; the bitmap, mask and bit-value
/// words of the next step are loaded during this one (masks whether the word
/// participates or not). Positions are 32-bit, the scan step is two
/// instructions, and words are stored whole (or as two halves for 4-byte
/// values in 8-byte words). Measured with Nsight Compute on Cora
/// (docs/results/gpu-notes.md, v19): the group loop issued 270 warp
/// instructions per 32 words, a quarter in its scan (a convergence check per
/// step for its runtime lane mask) and a fifth in its byte-wise stores; with
/// those gone the stalls were on the chain of dependent loads.
///
/// kStagedRow: the row's own words (bitmap and stream) were copied to shared
/// memory (IbpDecodeStagedRow) and are read with plain loads; masks stay in
/// global memory.
///
/// kFieldLoads: each lane whose field has bits loads its one or two stream
/// words itself once the scan has placed it, and the others load nothing;
/// a participating word with no free bits (Mask all ones) is its bit values
/// without a deposit. For rows read from device or shared memory, where a
/// load after the scan costs little: the step is then mostly the scan and
/// the store (sparse rows, such as Cora's, have a field in a few lanes a
/// step). A step in which no participating word has free bits (most steps
/// of sparse rows) has only whole words for fields, so one ballot places
/// them without the scan (measured on an H200, gpu-notes.md v35: 2-4% on
/// the planetoid features). 4-byte values in 8-byte words are stored as
/// whole words in rows that start on 8 bytes. Rows read across PCIe keep
/// the loads before the scan.
template <typename Word, bool kStagedRow, bool kFieldLoads = false>
__device__ void IbpDecodeOpenedWarpRow(const IbpRow<Word>& opened, uint32_t m, uint8_t* out_row,
                                       uint32_t row_bytes, uint32_t store_bytes,
                                       const IbpGroup& g) {
  constexpr uint32_t W = 8 * sizeof(Word);
  auto row_word = [](const Word* p) -> Word {
    if constexpr (kStagedRow) {
      return *p;
    } else {
      return IbpLoadWord(p);
    }
  };
  const bool raw = opened.raw;
  const uint32_t stream_words = static_cast<uint32_t>(opened.stream_words);  // < m
  const uint32_t lane = g.lane;
  // 4-byte values in 8-byte words go out as whole words where the row
  // starts on 8 bytes.
  const bool row_aligned8 =
      sizeof(Word) == 8 && (reinterpret_cast<uintptr_t>(out_row) & 7) == 0;
  uint32_t lanes_below;  // this lane's bit and the ones above it clear
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanes_below));
  // The participation bitmap word, mask and bit value of word j (0 past the
  // row, or for a raw row).
  Word bitmap_j = 0, mask_j = 0, bitval_j = 0;
  if (!raw && lane < m) {
    bitmap_j = row_word(opened.words + lane / W);
    mask_j = IbpLoadWord(opened.mask + lane);
    bitval_j = IbpLoadWord(opened.bitval + lane);
  }
  uint32_t base = 0;  // stream bits of the words before this step
  for (uint32_t j0 = 0; j0 < m; j0 += 32) {
    const uint32_t j = j0 + lane;
    const bool in_row = j < m;
    // Without field loads, this step's stream words [first_word,
    // first_word + 32], before the scan.
    const uint32_t first_word = base / W;
    Word my_word = 0, last_word = 0;
    if constexpr (!kFieldLoads) {
      if (first_word + lane < stream_words) my_word = row_word(opened.stream + first_word + lane);
      if (first_word + 32 < stream_words) last_word = row_word(opened.stream + first_word + 32);
    }
    // The next step's metadata.
    Word next_bitmap = 0, next_mask = 0, next_bitval = 0;
    const uint32_t next_j = j + 32;
    if (!raw && next_j < m) {
      next_bitmap = row_word(opened.words + next_j / W);
      next_mask = IbpLoadWord(opened.mask + next_j);
      next_bitval = IbpLoadWord(opened.bitval + next_j);
    }
    const bool participates = in_row && !raw && ((bitmap_j >> (j % W)) & 1) != 0;
    Word value;
    uint32_t step_bits;  // the stream bits of this step's fields
    // With field loads, a step where no participating word has free bits
    // (sparse rows: most steps of Cora's) has only whole words for fields,
    // W bits each and back to back: a word's field follows the whole words
    // before it in the step, so a ballot replaces the width scan, and the
    // other lanes are their bit values.
    if (kFieldLoads &&
        !__any_sync(0xFFFFFFFFu, participates && mask_j != static_cast<Word>(~Word{0}))) {
      const bool whole = in_row && !participates;
      const uint32_t whole_lanes = __ballot_sync(0xFFFFFFFFu, whole);
      const uint32_t off = base % W;  // the same for every field of the step
      value = bitval_j;
      if (whole) {
        const uint32_t i = first_word + __popc(whole_lanes & lanes_below);
        const Word hi = i < stream_words ? row_word(opened.stream + i) : Word{0};
        const Word lo =
            off > 0 && i + 1 < stream_words ? row_word(opened.stream + i + 1) : Word{0};
        value = MsbField<Word>(hi, lo, off, W);
      }
      step_bits = W * __popc(whole_lanes);
    } else {
      const uint32_t f = !in_row ? 0u : (participates ? W - PopCount(mask_j) : W);
      const uint32_t inclusive = WarpInclusiveSum<uint32_t>(f);
      const uint32_t pos = base + inclusive - f;
      const uint32_t off = pos % W;
      if constexpr (kFieldLoads) {
        value = bitval_j;  // a participating word with no free bits
        if (f > 0) {
          const uint32_t i = pos / W;
          const Word hi = i < stream_words ? row_word(opened.stream + i) : Word{0};
          const Word lo = (off > 0 && off + f > W && i + 1 < stream_words)
                              ? row_word(opened.stream + i + 1)
                              : Word{0};
          const Word x = MsbField<Word>(hi, lo, off, f);
          value = participates ? static_cast<Word>(
                                     bitval_j | DepositBits<Word>(x, static_cast<Word>(~mask_j)))
                               : x;
        }
      } else {
        const uint32_t k = pos / W - first_word;  // <= 32 for every field of f > 0
        const Word hi_lane = ShuffleWord(my_word, min(k, 31u));
        const Word lo_lane = ShuffleWord(my_word, min(k + 1, 31u));
        Word x = 0;
        if (f > 0) {
          const Word hi = k < 32 ? hi_lane : last_word;
          const Word lo = k + 1 < 32 ? lo_lane : last_word;  // read only when the field crosses
          x = MsbField<Word>(hi, lo, off, f);
        }
        value = participates ? static_cast<Word>(
                                   bitval_j | DepositBits<Word>(x, static_cast<Word>(~mask_j)))
                             : x;
      }
      step_bits = __shfl_sync(0xFFFFFFFFu, inclusive, 31);
    }
    if (in_row) IbpStoreWarpWord<Word>(out_row, j, value, row_bytes, store_bytes, row_aligned8);
    base += step_bits;
    bitmap_j = next_bitmap;
    mask_j = next_mask;
    bitval_j = next_bitval;
  }
  // Rule 5: the row's words are exactly its bitmap and its fields.
  if (!raw && opened.bitmap_words + (uint64_t{base} + W - 1) / W != opened.length) {
    __syncwarp();
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
  }
}

template <typename Word, bool kFieldLoads>
__device__ void IbpDecodeWarpRow(const IbpKernelChunk& c, uint64_t r, uint8_t* out_row,
                                 uint32_t row_bytes, uint32_t store_bytes, const IbpGroup& g) {
  const IbpRow<Word> opened = IbpOpenRow<Word>(c, r);
  if (!opened.ok) {
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
    return;
  }
  IbpDecodeOpenedWarpRow<Word, false, kFieldLoads>(opened, c.words_per_row, out_row, row_bytes,
                                                   store_bytes, g);
}

/// A gathered row through a per-warp stage in shared memory: the warp opens
/// the row, copies its L_r words (bitmap and stream) from the payload in
/// one burst of independent loads (one PCIe round trip for payloads in
/// pinned host memory, where the row decoders wait for the bitmap, then the
/// stream, step after step), and decodes it from there. Rows longer than
/// `stage_words` words go through IbpDecodeColumnRow's decoders instead.
/// Same values and checks as IbpDecodeWarpRow.
/// Returns false, having written nothing, for a row longer than the stage.
template <typename Word>
__device__ bool IbpDecodeStagedRow(const IbpKernelChunk& c, uint64_t r, uint8_t* out_row,
                                   uint32_t row_bytes, uint32_t store_bytes, const IbpGroup& g,
                                   Word* stage, uint32_t stage_words) {
  IbpRow<Word> opened = IbpOpenRow<Word>(c, r);
  if (!opened.ok) {
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
    return true;
  }
  if (opened.length > stage_words || c.words_per_row >= (1u << 26)) return false;
  const uint32_t length = static_cast<uint32_t>(opened.length);
#pragma unroll 8
  for (uint32_t k = g.lane; k < length; k += 32) stage[k] = IbpLoadWord(opened.words + k);
  __syncwarp();
  opened.words = stage;
  opened.stream = stage + opened.bitmap_words;
  IbpDecodeOpenedWarpRow<Word, true>(opened, c.words_per_row, out_row, row_bytes, store_bytes, g);
  __syncwarp();  // the stage is read before the next row overwrites it
  return true;
}

/// IbpDecodeRowGroup for a whole warp (g = 32) on a row of m > 32 words,
/// kSteps steps of 32 words per pass: the bitmap, mask and bit-value loads
/// of all steps are issued together (masks unconditionally), then their
/// scans run interleaved, then their stream loads; a warp has kSteps times
/// the loads in flight of the one-step loop, whose throughput the latency
/// of three dependent loads per step bounded. Same values, same checks.
template <typename Word, int kSteps>
__device__ void IbpDecodeWideRow(const IbpKernelChunk& c, uint64_t r, uint8_t* out_row,
                                 uint32_t row_bytes, uint32_t store_bytes, const IbpGroup& g) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t m = c.words_per_row;
  const IbpRow<Word> opened = IbpOpenRow<Word>(c, r);
  if (!opened.ok) {
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
    return;
  }
  const bool raw = opened.raw;
  const uint64_t length = opened.length;
  const uint64_t h = opened.bitmap_words;
  const Word* row = opened.words;
  const Word* mask = opened.mask;
  const Word* bitval = opened.bitval;
  const Word* stream = opened.stream;
  const uint64_t stream_words = opened.stream_words;
  uint64_t base = 0;
  for (uint64_t j0 = 0; j0 < m; j0 += 32 * kSteps) {
    Word mask_j[kSteps], bit_j[kSteps];
    bool part[kSteps];
    uint32_t f[kSteps], inclusive[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const uint64_t j = j0 + 32 * u + g.lane;
      const bool in_row = j < m;
      part[u] = false;
      mask_j[u] = 0;
      bit_j[u] = 0;
      if (in_row && !raw) {
        part[u] = (IbpLoadWord(row + j / W) >> (j % W)) & 1;
        mask_j[u] = IbpLoadWord(mask + j);
        bit_j[u] = IbpLoadWord(bitval + j);
      }
    }
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const uint64_t j = j0 + 32 * u + g.lane;
      f[u] = j < m ? (part[u] ? W - PopCount(mask_j[u]) : W) : 0u;
      inclusive[u] = f[u];
    }
    // Inclusive scans of the field widths, the steps interleaved.
#pragma unroll
    for (uint32_t d = 1; d < 32; d <<= 1) {
#pragma unroll
      for (int u = 0; u < kSteps; ++u) {
        const uint32_t up = __shfl_up_sync(0xFFFFFFFFu, inclusive[u], d);
        if (g.lane >= d) inclusive[u] += up;
      }
    }
    uint64_t pos[kSteps];
    uint64_t step_base = base;
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      pos[u] = step_base + inclusive[u] - f[u];
      step_base += __shfl_sync(0xFFFFFFFFu, inclusive[u], 31);
    }
    Word hi[kSteps], lo[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const uint64_t i = pos[u] / W;
      const uint32_t off = static_cast<uint32_t>(pos[u] % W);
      hi[u] = (f[u] > 0 && i < stream_words) ? IbpLoadWord(stream + i) : Word{0};
      lo[u] = (f[u] > 0 && off > 0 && off + f[u] > W && i + 1 < stream_words)
                  ? IbpLoadWord(stream + i + 1)
                  : Word{0};
    }
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const uint64_t j = j0 + 32 * u + g.lane;
      if (j >= m) continue;
      const Word x = MsbField<Word>(hi[u], lo[u], static_cast<uint32_t>(pos[u] % W), f[u]);
      const Word value =
          part[u] ? static_cast<Word>(bit_j[u] | DepositBits<Word>(x, static_cast<Word>(~mask_j[u])))
                  : x;
      IbpStoreWord<Word>(out_row, j, value, row_bytes, store_bytes);
    }
    base = step_base;
  }
  // Rule 5: the row's words are exactly its bitmap and its fields.
  if (!raw && h + (base + W - 1) / W != length) {
    __syncwarp();
    IbpZeroRow(out_row, row_bytes, store_bytes, g);
  }
}

inline constexpr int kIbpWideSteps = 4;

/// Decodes column row `row` (inside the set's window) with the group, from
/// the chunk of `set` that holds it. kFieldLoads: whole-warp rows load their
/// fields after the scan (IbpDecodeOpenedWarpRow), for payloads in device
/// memory.
template <bool kFieldLoads = false>
__device__ __forceinline__ void IbpDecodeColumnRow(const IbpChunkSet& set, uint64_t row,
                                                   uint8_t* out_row, uint32_t row_bytes,
                                                   uint32_t store_bytes, const IbpGroup& g,
                                                   bool allow_wide) {
  uint32_t c = 0;
  while (c + 1 < set.count && set.chunk[c + 1].first_row <= row) ++c;
  const IbpKernelChunk& chunk = set.chunk[c];
  const uint64_t local = row - chunk.first_row;
  const bool wide = allow_wide && g.size == 32 && chunk.words_per_row > 32;
  // A whole warp on rows of fewer than 2^26 words (32-bit stream positions).
  const bool warp = g.size == 32 && chunk.words_per_row < (1u << 26);
  if (chunk.word_bytes == 8) {
    if (wide) {
      IbpDecodeWideRow<uint64_t, kIbpWideSteps>(chunk, local, out_row, row_bytes, store_bytes, g);
    } else if (warp) {
      IbpDecodeWarpRow<uint64_t, kFieldLoads>(chunk, local, out_row, row_bytes, store_bytes, g);
    } else {
      IbpDecodeRowGroup<uint64_t>(chunk, local, out_row, row_bytes, store_bytes, g);
    }
  } else if (wide) {
    IbpDecodeWideRow<uint32_t, kIbpWideSteps>(chunk, local, out_row, row_bytes, store_bytes, g);
  } else if (warp) {
    IbpDecodeWarpRow<uint32_t, kFieldLoads>(chunk, local, out_row, row_bytes, store_bytes, g);
  } else {
    IbpDecodeRowGroup<uint32_t>(chunk, local, out_row, row_bytes, store_bytes, g);
  }
}

/// IbpDecodeColumnRow with a whole warp and a stage of `stage_bytes` bytes
/// (a multiple of 8) in shared memory: rows that fit are staged
/// (IbpDecodeStagedRow), the others decoded as IbpDecodeColumnRow does.
__device__ __forceinline__ void IbpDecodeStagedColumnRow(const IbpChunkSet& set, uint64_t row,
                                                         uint8_t* out_row, uint32_t row_bytes,
                                                         uint32_t store_bytes, const IbpGroup& g,
                                                         bool allow_wide, void* stage,
                                                         uint32_t stage_bytes) {
  uint32_t c = 0;
  while (c + 1 < set.count && set.chunk[c + 1].first_row <= row) ++c;
  const IbpKernelChunk& chunk = set.chunk[c];
  const uint64_t local = row - chunk.first_row;
  const bool staged =
      chunk.word_bytes == 8
          ? IbpDecodeStagedRow<uint64_t>(chunk, local, out_row, row_bytes, store_bytes, g,
                                         static_cast<uint64_t*>(stage), stage_bytes / 8)
          : IbpDecodeStagedRow<uint32_t>(chunk, local, out_row, row_bytes, store_bytes, g,
                                         static_cast<uint32_t*>(stage), stage_bytes / 4);
  if (!staged) IbpDecodeColumnRow(set, row, out_row, row_bytes, store_bytes, g, allow_wide);
}

/// Short rows (16 < M <= 32 * kSteps words, one mask): a warp decodes the
/// 64 rows of one index block (spec §11.2.3) at a time. The block's row
/// starts come from one Block_Start word and one Row_Offset field per lane
/// (two for 64 rows), so opening a row is a shuffle, not a chain of loads.
/// Each lane keeps its words' metadata of the chunk in registers: mask, bit
/// values, field width, its exclusive prefix over the step, and the deposit
/// plan (ExpandPlan). A step whose words all participate (the usual case)
/// then needs no width scan: its field positions are the row's base plus
/// the mask's prefix. Same values and checks as IbpDecodeRowGroup.
inline constexpr uint32_t kIbpShortRowsMinWords = 17;
inline constexpr uint32_t kIbpShortRowsMaxSteps = 2;

template <typename Word>
struct IbpLaneWord {
  Word mask = 0;
  Word bitval = 0;
  uint32_t width = 0;   // f of a participating word; 0 past the row
  uint32_t prefix = 0;  // sum of `width` over the lanes before this one in the step
  ExpandPlan<Word> plan;
};

template <typename Word, int kSteps>
struct IbpShortRowMeta {
  IbpLaneWord<Word> word[kSteps];
  uint32_t step_width[kSteps];  // sum of `width` over the step (uniform)
};

/// Lane metadata of mask 0 of `c` for words j = 32 s + lane.
template <typename Word, int kSteps>
__device__ __forceinline__ void IbpLoadShortRowMeta(const IbpKernelChunk& c, uint32_t lane,
                                                    IbpShortRowMeta<Word, kSteps>* meta) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint32_t m = c.words_per_row;
  const Word* mask = reinterpret_cast<const Word*>(c.masks);
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const uint32_t j = 32 * s + lane;
    IbpLaneWord<Word>& w = meta->word[s];
    w.mask = j < m ? IbpLoadWord(mask + j) : static_cast<Word>(~Word{0});
    w.bitval = j < m ? IbpLoadWord(mask + m + j) : Word{0};
    w.width = W - PopCount(w.mask);
    w.plan = MakeExpandPlan<Word>(static_cast<Word>(~w.mask));
    const uint32_t inclusive = WarpInclusiveSum<uint32_t>(w.width);
    w.prefix = inclusive - w.width;
    meta->step_width[s] = __shfl_sync(0xFFFFFFFFu, inclusive, 31);
  }
}

/// What a warp loads of a row before it decodes it (IbpPrefetchShortRow):
/// the row's words, its participation bits and, lane by lane, the stream
/// words of its fields as they lie when every word participates (the usual
/// case). Loading the next row's words before decoding this one keeps two
/// rows' loads in flight per warp.
template <typename Word, int kSteps>
struct IbpShortRowLoads {
  const Word* words;  // null: the row is not decoded
  uint32_t length;    // L_r
  bool zero;          // the row failed a check of rules 1-4: write zeros
  uint64_t bitmap;    // participation bits of words 0..63; 0 for a raw row
  Word hi[kSteps];
  Word lo[kSteps];
};

/// Loads row `words` of `length` words (1 <= length <= M, and a packed row
/// holds at least its bitmap: the caller checked).
template <typename Word, int kSteps>
__device__ __forceinline__ void IbpPrefetchShortRow(const Word* words, uint32_t length, uint32_t m,
                                                    const IbpShortRowMeta<Word, kSteps>& meta,
                                                    uint32_t lane,
                                                    IbpShortRowLoads<Word, kSteps>* l) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const bool raw = length == m;
  const uint32_t h = raw ? 0u : (m + W - 1) / W;  // 1, or 2 for W = 32 and m > 32
  l->bitmap = 0;
  if (!raw) {
    l->bitmap = static_cast<uint64_t>(IbpLoadWord(words));
    if (W == 32 && h > 1) l->bitmap |= static_cast<uint64_t>(IbpLoadWord(words + 1)) << 32;
  }
  const Word* stream = words + h;
  const uint32_t stream_words = length - h;
  uint32_t base = 0;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const IbpLaneWord<Word>& w = meta.word[s];
    const uint32_t f = raw ? 0u : w.width;
    const uint32_t pos = base + w.prefix;
    base += meta.step_width[s];
    const uint32_t i = pos / W;
    const uint32_t off = pos % W;
    l->hi[s] = (f > 0 && i < stream_words) ? IbpLoadWord(stream + i) : Word{0};
    const bool crosses = f > 0 && off > 0 && off + f > W && i + 1 < stream_words;
    l->lo[s] = crosses ? IbpLoadWord(stream + i + 1) : Word{0};
  }
}

/// Decodes the row `l` loaded, with the warp.
template <typename Word, int kSteps>
__device__ __forceinline__ void IbpDecodeShortRow(const IbpShortRowLoads<Word, kSteps>& l,
                                                  uint32_t m,
                                                  const IbpShortRowMeta<Word, kSteps>& meta,
                                                  uint8_t* out_row, uint32_t row_bytes,
                                                  uint32_t store_bytes, uint32_t lane) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const IbpGroup warp{lane, 32, 0xFFFFFFFFu};
  if (l.zero) {
    IbpZeroRow(out_row, row_bytes, store_bytes, warp);
    return;
  }
  const uint32_t length = l.length;
  const bool raw = length == m;
  const uint32_t h = raw ? 0u : (m + W - 1) / W;
  // Does every word of the row participate? (uniform)
  bool every = !raw;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const uint32_t left = m > 32 * s ? m - 32 * s : 0u;  // words of the row in this step
    const uint32_t row_lanes = left >= 32 ? 0xFFFFFFFFu : (1u << left) - 1;
    every = every && (static_cast<uint32_t>(l.bitmap >> (32 * s)) & row_lanes) == row_lanes;
  }
  uint32_t base = 0;  // stream bits of the steps before
  if (every) {
    // The prefetched words hold every field.
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const IbpLaneWord<Word>& w = meta.word[s];
      const uint32_t j = 32 * s + lane;
      const uint32_t pos = base + w.prefix;
      base += meta.step_width[s];
      const Word x = MsbField<Word>(l.hi[s], l.lo[s], pos % W, w.width);
      if (j < m) {
        IbpStoreWarpWord<Word>(out_row, j,
                               static_cast<Word>(w.bitval | ExpandBits<Word>(x, w.plan)),
                               row_bytes, store_bytes);
      }
    }
  } else {
    // Some word is stored whole (or the row is raw): positions by a scan.
    const Word* stream = l.words + h;
    const uint32_t stream_words = length - h;
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const IbpLaneWord<Word>& w = meta.word[s];
      const uint32_t j = 32 * s + lane;
      const bool in_row = j < m;
      const bool participates =
          in_row && ((static_cast<uint32_t>(l.bitmap >> (32 * s)) >> lane) & 1) != 0;
      const uint32_t f = in_row ? (participates ? w.width : W) : 0u;
      const uint32_t inclusive = WarpInclusiveSum<uint32_t>(f);
      const uint32_t pos = base + inclusive - f;
      base += __shfl_sync(0xFFFFFFFFu, inclusive, 31);
      Word x = 0;
      if (f > 0) {
        const uint32_t i = pos / W;
        const uint32_t off = pos % W;
        const Word hi = i < stream_words ? IbpLoadWord(stream + i) : Word{0};
        const Word lo = (off > 0 && off + f > W && i + 1 < stream_words)
                            ? IbpLoadWord(stream + i + 1)
                            : Word{0};
        x = MsbField<Word>(hi, lo, off, f);
      }
      if (in_row) {
        const Word value =
            participates ? static_cast<Word>(w.bitval | ExpandBits<Word>(x, w.plan)) : x;
        IbpStoreWarpWord<Word>(out_row, j, value, row_bytes, store_bytes);
      }
    }
  }
  // Rule 5: the row's words are exactly its bitmap and its fields.
  if (!raw && h + (base + W - 1) / W != length) {
    __syncwarp();
    IbpZeroRow(out_row, row_bytes, store_bytes, warp);
  }
}

/// Index block `g` of chunk `c` (rows 64 g .. 64 g + 63 of the chunk), the
/// rows of it whose column row lies in [row_begin, row_end), into `out`
/// (which holds column row row_begin at offset 0). `meta` is c's.
template <typename Word, int kSteps>
__device__ __forceinline__ void IbpDecodeShortRowsBlock(const IbpKernelChunk& c, uint64_t g,
                                                        uint64_t row_begin, uint64_t row_end,
                                                        const IbpShortRowMeta<Word, kSteps>& meta,
                                                        uint8_t* out, uint32_t row_bytes,
                                                        uint32_t store_bytes, uint32_t lane) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t r0 = g * kIbpBlockRows;
  if (g >= IbpBlocks(c.num_rows)) return;
  const uint32_t rows = static_cast<uint32_t>(
      c.num_rows - r0 < kIbpBlockRows ? c.num_rows - r0 : uint64_t{kIbpBlockRows});
  // Start(r) - Block_Start[g] of the block's rows: the Row_Offset fields.
  const uint32_t offset_lo = lane < rows ? IbpDeviceRowOffset(c, r0 + lane) : 0u;
  const uint32_t offset_hi = 32 + lane < rows ? IbpDeviceRowOffset(c, r0 + 32 + lane) : 0u;
  const uint64_t block_start = __ldg(c.row_offsets + g);
  const uint64_t block_end = __ldg(c.row_offsets + g + 1);  // Start of the first row after it
  const uint32_t m = c.words_per_row;
  const Word* payload = reinterpret_cast<const Word*>(c.payload);
  // Row i of the block: its place, checked (spec §11.2.3 rules 1-4, as
  // IbpOpenRow checks them), and its loads. Uniform over the warp.
  auto prefetch = [&](uint32_t i, IbpShortRowLoads<Word, kSteps>* l) {
    const uint32_t from = __shfl_sync(0xFFFFFFFFu, i < 32 ? offset_lo : offset_hi, i % 32);
    const uint32_t to = __shfl_sync(0xFFFFFFFFu, i + 1 < 32 ? offset_lo : offset_hi, (i + 1) % 32);
    const uint64_t column_row = c.first_row + r0 + i;
    l->words = nullptr;
    l->zero = false;
    if (column_row < row_begin || column_row >= row_end) return;
    const uint64_t start = block_start + from;
    const uint64_t end = i + 1 < rows ? block_start + to : block_end;
    l->words = payload + start;
    if (!IbpRowPlaceOk(c, start, end, W)) {
      l->zero = true;
      return;
    }
    l->length = static_cast<uint32_t>(end - start);
    IbpPrefetchShortRow<Word, kSteps>(l->words, l->length, m, meta, lane, l);
  };
  IbpShortRowLoads<Word, kSteps> current{}, next{};
  prefetch(0, &current);
  for (uint32_t i = 0; i < rows; ++i) {
    if (i + 1 < rows) prefetch(i + 1, &next);
    if (current.words != nullptr) {
      uint8_t* out_row = out + (c.first_row + r0 + i - row_begin) * row_bytes;
      IbpDecodeShortRow<Word, kSteps>(current, m, meta, out_row, row_bytes, store_bytes, lane);
    }
    current = next;
  }
}

#endif  // __CUDACC__

}  // namespace l3::internal
