// IBP chunks (spec §11.2.3): index checks and the CPU reference decoder.
#include "codec/ibp/ibp_decode.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define L3_IBP_HAVE_BMI2 1
#else
#define L3_IBP_HAVE_BMI2 0
#endif

#include "codec/ibp/ibp_format.hpp"
#include "common/bits.hpp"
#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

Status CorruptMetadata(std::string message) {
  return Status(StatusCode::kCorruptMetadata, std::move(message));
}
Status CorruptPayload(std::string message) {
  return Status(StatusCode::kCorruptPayload, std::move(message));
}

template <typename Word>
Word LoadWord(const uint8_t* base, uint64_t index) {
  Word w;
  std::memcpy(&w, base + index * sizeof(Word), sizeof(Word));
  return w;
}

// Stores word `index` of a row at `base`, which need not be aligned (a
// caller's buffer).
template <typename Word>
void StoreWord(uint8_t* base, uint64_t index, Word w) {
  std::memcpy(base + index * sizeof(Word), &w, sizeof(Word));
}

uint64_t RowBytes(const ChunkView& view) {
  return uint64_t{view.row_width} * static_cast<uint64_t>(PhysicalTypeBytes(view.column_type));
}

// "Row_Offset[r]": the b-bit field r after the G + 1 Block_Start words.
uint64_t RowOffsetField(const IbpChunkView& ibp, uint64_t num_rows, uint64_t row) {
  const uint8_t* fields = ibp.row_offsets + 8 * (IbpBlocks(num_rows) + 1);
  return ReadField(fields, row * ibp.offset_bits, ibp.offset_bits);
}

uint64_t BlockStart(const IbpChunkView& ibp, uint64_t block) {
  return LoadLE64(ibp.row_offsets + 8 * block);
}

// One row's decoded words, for decoding and for deep validation.
struct RowCheck {
  bool length_ok = true;   // rule 5: L_r = H + ceil(O_M / W)
  bool padding_ok = true;  // unused bitmap and stream bits are zero
};

// Decodes the packed row of `length` words at `row` (spec §11.2.3 steps
// 1-5) into `out` (M words). Never reads outside the row's words.
template <typename Word>
RowCheck DecodePackedRow(const uint8_t* row, uint64_t length, uint64_t words_per_row,
                         const uint8_t* mask, const uint8_t* bitval, uint8_t* out) {
  constexpr uint32_t W = 8 * sizeof(Word);
  RowCheck check;
  const uint64_t m = words_per_row;
  const uint64_t h = IbpBitmapWords(m, W);
  // Rule 5 first, from the bitmap and the masks alone.
  uint64_t bits = 0;
  for (uint64_t j = 0; j < m && h <= length; ++j) {
    const bool participates = (LoadWord<Word>(row, j / W) >> (j % W)) & 1;
    bits += participates ? W - PopCount(LoadWord<Word>(mask, j)) : W;
  }
  const uint64_t stream_words = (bits + W - 1) / W;
  if (h > length || h + stream_words != length) {
    check.length_ok = false;
    return check;
  }
  if (m % W != 0 && (LoadWord<Word>(row, h - 1) >> (m % W)) != 0) check.padding_ok = false;
  const uint8_t* stream = row + h * sizeof(Word);
  uint64_t pos = 0;
  for (uint64_t j = 0; j < m; ++j) {
    const bool participates = (LoadWord<Word>(row, j / W) >> (j % W)) & 1;
    const Word mask_j = LoadWord<Word>(mask, j);
    const uint32_t f = participates ? W - PopCount(mask_j) : W;
    Word x = 0;
    if (f > 0) {
      const uint64_t i = pos / W;
      const uint32_t off = static_cast<uint32_t>(pos % W);
      const Word hi = LoadWord<Word>(stream, i);
      const Word lo = (off > 0 && off + f > W) ? LoadWord<Word>(stream, i + 1) : Word{0};
      x = MsbField<Word>(hi, lo, off, f);
    }
    pos += f;
    const Word free = static_cast<Word>(~mask_j);
    StoreWord<Word>(out, j,
                    participates ? static_cast<Word>(LoadWord<Word>(bitval, j) |
                                                     DepositBits<Word>(x, free))
                                 : x);
  }
  // The stream bits after the last field (the low bits of the last word).
  if (pos % W != 0) {
    const Word last = LoadWord<Word>(stream, stream_words - 1);
    if ((last & static_cast<Word>(LowMask(W - pos % W))) != 0) check.padding_ok = false;
  }
  return check;
}

// What the sparse row decoder needs of one mask, from the mask alone.
template <typename Word>
struct SparseMaskPlan {
  static constexpr uint32_t W = 8 * sizeof(Word);
  std::vector<uint8_t> width;        // f_j = W - popcount(Mask[j])
  std::vector<Word> free;            // ~Mask[j]
  std::vector<uint64_t> has_free;    // bit j: f_j > 0, 64 words per entry
  std::vector<Word> bitval;          // Bitval[j]
  uint64_t total_bits = 0;           // sum of f_j: the fields of a row whose words all participate

  void Build(const uint8_t* mask_words, const uint8_t* bitval_words, uint64_t m) {
    width.resize(static_cast<size_t>(m));
    free.resize(static_cast<size_t>(m));
    has_free.assign(static_cast<size_t>((m + 63) / 64), 0);
    bitval.resize(static_cast<size_t>(m));
    total_bits = 0;
    for (uint64_t j = 0; j < m; ++j) {
      const Word mask = LoadWord<Word>(mask_words, j);
      free[j] = static_cast<Word>(~mask);
      width[j] = static_cast<uint8_t>(W - PopCount(mask));
      total_bits += width[j];
      if (width[j] > 0) has_free[j / 64] |= uint64_t{1} << (j % 64);
      bitval[j] = LoadWord<Word>(bitval_words, j);
    }
  }
};

// Bit i: word 64 q + i lies in a row of m words.
inline uint64_t WordsInRow(uint64_t q, uint64_t m) {
  const uint64_t left = m - 64 * q;
  return left >= 64 ? ~uint64_t{0} : LowMask(static_cast<uint32_t>(left));
}

// Participation bits of words 64 q .. 64 q + 63 of a packed row (bits past
// M cleared). The bitmap's bit j is bit j % 8 of its byte j / 8 for either
// word size; the 8 bytes read may pass the bitmap by up to 4 (W = 32, H
// odd), into the row's stream or the payload's 32 padding bytes.
inline uint64_t ParticipationBits(const uint8_t* row, uint64_t q, uint64_t m) {
  return LoadLE64(row + 8 * q) & WordsInRow(q, m);
}

// The sparse decoder's deposits: the portable DepositBits (the definition),
// and on x86-64 CPUs with BMI2 its PDEP instruction (DepositBits is PDEP, bit
// for bit; ibp_test.cpp compares them).
struct PortableDeposit {
  template <typename Word>
  static Word Apply(Word x, Word free) {
    return DepositBits<Word>(x, free);
  }
};
#if L3_IBP_HAVE_BMI2
struct Bmi2Deposit {
  template <typename Word>
  __attribute__((target("bmi2"))) static Word Apply(Word x, Word free) {
    if constexpr (sizeof(Word) == 8) {
      return static_cast<Word>(_pdep_u64(x, free));
    } else {
      return static_cast<Word>(_pdep_u32(x, free));
    }
  }
};
#endif

// DecodePackedRow's values and length check (rule 5), without the padding
// checks of deep validation, visiting only the words that hold a field: a
// participating word with no free bits is its bit values and takes no
// stream bits, so the fields of the visited words lie back to back. Reads
// only the row's words (and at most 4 bytes past its bitmap, see
// ParticipationBits).
template <typename Word, typename Deposit>
[[gnu::always_inline]] inline bool DecodePackedRowSparse(const uint8_t* row, uint64_t length,
                                                         uint64_t m,
                                                         const SparseMaskPlan<Word>& plan,
                                                         uint8_t* out) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t h = IbpBitmapWords(m, W);
  if (h > length) return false;
  const uint64_t groups = (m + 63) / 64;
  // Rule 5: every word stored whole adds W - f_j bits to the mask's sum.
  uint64_t bits = plan.total_bits;
  for (uint64_t q = 0; q < groups; ++q) {
    for (uint64_t whole = ~ParticipationBits(row, q, m) & WordsInRow(q, m); whole != 0;
         whole &= whole - 1) {
      bits += W - plan.width[64 * q + CountTrailingZeros64(whole)];
    }
  }
  if (h + (bits + W - 1) / W != length) return false;
  std::memcpy(out, plan.bitval.data(), static_cast<size_t>(m) * sizeof(Word));
  const uint8_t* stream = row + h * sizeof(Word);
  uint64_t pos = 0;  // the next field's first stream bit
  for (uint64_t q = 0; q < groups; ++q) {
    const uint64_t participates = ParticipationBits(row, q, m);
    for (uint64_t work = (~participates & WordsInRow(q, m)) | plan.has_free[q]; work != 0;
         work &= work - 1) {
      const uint64_t j = 64 * q + CountTrailingZeros64(work);
      const bool whole = ((participates >> (j % 64)) & 1) == 0;
      const uint32_t f = whole ? W : plan.width[j];
      const uint64_t i = pos / W;
      const uint32_t off = static_cast<uint32_t>(pos % W);
      const Word hi = LoadWord<Word>(stream, i);
      const Word lo = (off > 0 && off + f > W) ? LoadWord<Word>(stream, i + 1) : Word{0};
      const Word x = MsbField<Word>(hi, lo, off, f);
      StoreWord<Word>(out, j,
                      whole ? x
                            : static_cast<Word>(plan.bitval[j] |
                                                Deposit::template Apply<Word>(x, plan.free[j])));
      pos += f;
    }
  }
  return true;
}

template <typename Word>
bool DecodePackedRowPortable(const uint8_t* row, uint64_t length, uint64_t m,
                             const SparseMaskPlan<Word>& plan, uint8_t* out) {
  return DecodePackedRowSparse<Word, PortableDeposit>(row, length, m, plan, out);
}

#if L3_IBP_HAVE_BMI2
template <typename Word>
__attribute__((target("bmi2"))) bool DecodePackedRowBmi2(const uint8_t* row, uint64_t length,
                                                         uint64_t m,
                                                         const SparseMaskPlan<Word>& plan,
                                                         uint8_t* out) {
  return DecodePackedRowSparse<Word, Bmi2Deposit>(row, length, m, plan, out);
}

bool CpuHasBmi2() {
  static const bool has = __builtin_cpu_supports("bmi2") != 0;
  return has;
}
#endif

// kSparse: the sparse decoder, with PDEP where the CPU has BMI2; kPortable:
// the sparse decoder with DepositBits; kReference: every word visited as
// spec §11.2.3 steps 1-5 read; kDeep: the reference plus the padding checks.
enum class RowsMode { kSparse, kPortable, kReference, kDeep };

// What decoding rows of one chunk keeps from row to row: the sparse
// decoder's plan of each mask, made when a row first uses it (empty until
// then: M >= 1), and a row of M words for rows whose B bytes end inside a
// word.
template <typename Word>
struct RowsState {
  std::vector<SparseMaskPlan<Word>> plans;
  std::vector<Word> words;
};

// Deep validation (spec §10.3 step 5.4): the bytes of a decoded row's M
// words after its B bytes are zero.
Status CheckBytesAfterValues(const uint8_t* words, uint64_t row_bytes, uint64_t word_row_bytes,
                             uint64_t r) {
  for (uint64_t i = row_bytes; i < word_row_bytes; ++i) {
    if (words[i] != 0) {
      return CorruptPayload("IBP row " + std::to_string(r) +
                            ": nonzero bytes after the row's values");
    }
  }
  return Status::OK();
}

template <typename Word>
Status DecodeRowsTyped(const ChunkView& view, uint64_t row_begin, uint64_t row_end, uint8_t* out,
                       RowsMode mode, RowsState<Word>* state) {
  const bool deep = mode == RowsMode::kDeep;
  const bool sparse = mode == RowsMode::kSparse || mode == RowsMode::kPortable;
  auto decode_sparse = DecodePackedRowPortable<Word>;
#if L3_IBP_HAVE_BMI2
  if (mode == RowsMode::kSparse && CpuHasBmi2()) decode_sparse = DecodePackedRowBmi2<Word>;
#endif
  const IbpChunkView& ibp = view.ibp;
  const uint64_t m = ibp.words_per_row;
  const uint64_t row_bytes = RowBytes(view);
  const uint64_t word_row_bytes = m * sizeof(Word);
  // A packed row decodes straight into `out` when its B bytes are its M
  // words; otherwise into `words`, of which B bytes are copied.
  const bool in_place = out != nullptr && row_bytes == word_row_bytes;
  if (!in_place) state->words.resize(static_cast<size_t>(m));
  uint8_t* scratch = reinterpret_cast<uint8_t*>(state->words.data());
  // Decoding (not deep validation) visits only the words that hold a field.
  if (sparse && state->plans.size() != ibp.num_masks) {
    state->plans.assign(static_cast<size_t>(ibp.num_masks), SparseMaskPlan<Word>());
  }
  for (uint64_t r = row_begin; r < row_end; ++r) {
    const uint64_t start = IbpRowStart(view, r);
    const uint64_t length = IbpRowStart(view, r + 1) - start;
    const uint8_t* row = view.payload + start * sizeof(Word);
    uint8_t* target = out == nullptr ? nullptr : out + (r - row_begin) * row_bytes;
    if (length >= m) {  // stored whole (L_r = M): the row's words are its values
      if (deep) L3_RETURN_NOT_OK(CheckBytesAfterValues(row, row_bytes, word_row_bytes, r));
      if (target != nullptr) std::memcpy(target, row, row_bytes);
      continue;
    }
    const uint32_t k = ibp.mask_ids != nullptr ? ibp.mask_ids[r] : 0;
    const uint8_t* mask = ibp.masks + 2 * k * word_row_bytes;
    uint8_t* words = in_place ? target : scratch;
    RowCheck check;
    if (!sparse) {
      check = DecodePackedRow<Word>(row, length, m, mask, mask + word_row_bytes, words);
    } else {
      if (state->plans[k].width.empty()) state->plans[k].Build(mask, mask + word_row_bytes, m);
      check.length_ok = decode_sparse(row, length, m, state->plans[k], words);
    }
    if (!check.length_ok) {
      return CorruptPayload("IBP row " + std::to_string(r) + ": its " + std::to_string(length) +
                            " words disagree with its participation bitmap (spec §11.2.3 "
                            "rule 5)");
    }
    if (deep && !check.padding_ok) {
      return CorruptPayload("IBP row " + std::to_string(r) +
                            ": nonzero bits after the bitmap or after the last field");
    }
    if (deep) L3_RETURN_NOT_OK(CheckBytesAfterValues(words, row_bytes, word_row_bytes, r));
    if (!in_place && target != nullptr) std::memcpy(target, words, row_bytes);
  }
  return Status::OK();
}

}  // namespace

struct IbpRowDecoder::State {
  RowsState<uint32_t> narrow;  // W = 32
  RowsState<uint64_t> wide;    // W = 64
};

namespace {

Status DecodeRowsAny(const ChunkView& view, uint64_t row_begin, uint64_t row_end, uint8_t* out,
                     RowsMode mode, IbpRowDecoder::State* state) {
  if (view.ibp.word_bytes == 8) {
    return DecodeRowsTyped<uint64_t>(view, row_begin, row_end, out, mode, &state->wide);
  }
  return DecodeRowsTyped<uint32_t>(view, row_begin, row_end, out, mode, &state->narrow);
}

Status DecodeRowsOnce(const ChunkView& view, uint64_t row_begin, uint64_t row_end, uint8_t* out,
                      RowsMode mode) {
  IbpRowDecoder::State state;
  return DecodeRowsAny(view, row_begin, row_end, out, mode, &state);
}

}  // namespace

uint64_t IbpRowStart(const ChunkView& view, uint64_t row) {
  const IbpChunkView& ibp = view.ibp;
  if (ibp.row_offsets == nullptr) return row * ibp.words_per_row;
  if (row == view.num_rows) return BlockStart(ibp, IbpBlocks(view.num_rows));
  return BlockStart(ibp, row / kIbpBlockRows) + RowOffsetField(ibp, view.num_rows, row);
}

uint64_t IbpPayloadWords(const ChunkView& view) { return IbpRowStart(view, view.num_rows); }

Status ValidateIbpIndex(const ChunkView& view) {
  const IbpChunkView& ibp = view.ibp;
  const uint64_t m = ibp.words_per_row;
  // spec §11.2.3 "Masks": Bitval & ~Mask = 0.
  for (uint64_t k = 0; k < ibp.num_masks; ++k) {
    for (uint64_t j = 0; j < m; ++j) {
      uint64_t mask = 0, bitval = 0;
      std::memcpy(&mask, ibp.masks + (2 * k * m + j) * ibp.word_bytes, ibp.word_bytes);
      std::memcpy(&bitval, ibp.masks + ((2 * k + 1) * m + j) * ibp.word_bytes, ibp.word_bytes);
      if ((bitval & ~mask) != 0) {
        return CorruptMetadata("IBP mask " + std::to_string(k) + " word " + std::to_string(j) +
                               ": Bitval has bits outside Mask");
      }
    }
  }
  if (ibp.mask_ids != nullptr) {
    for (uint64_t r = 0; r < view.num_rows; ++r) {
      if (ibp.mask_ids[r] >= ibp.num_masks) {
        return CorruptMetadata("IBP row " + std::to_string(r) + ": Mask_Id " +
                               std::to_string(ibp.mask_ids[r]) + " >= num_clusters " +
                               std::to_string(ibp.num_masks));
      }
    }
  }
  if (ibp.row_offsets == nullptr) return Status::OK();
  if (BlockStart(ibp, 0) != 0) return CorruptMetadata("IBP row index: Block_Start[0] != 0");
  uint64_t previous = 0;
  for (uint64_t r = 0; r < view.num_rows; ++r) {
    if (r % kIbpBlockRows == 0 && RowOffsetField(ibp, view.num_rows, r) != 0) {
      return CorruptMetadata("IBP row index: Row_Offset[" + std::to_string(r) +
                             "] of a block's first row != 0");
    }
    const uint64_t next = IbpRowStart(view, r + 1);
    // 1 <= L_r <= M, without overflow: next - previous with next >= previous.
    if (next <= previous || next - previous > m) {
      return CorruptMetadata("IBP row index: row " + std::to_string(r) +
                             " has a length outside 1.." + std::to_string(m) + " words");
    }
    previous = next;
  }
  return Status::OK();
}

Status DecodeIbpRows(const ChunkView& view, uint64_t row_begin, uint64_t row_end, uint8_t* out) {
  return DecodeRowsOnce(view, row_begin, row_end, out, RowsMode::kSparse);
}

IbpRowDecoder::IbpRowDecoder(const ChunkView& view)
    : view_(&view), state_(std::make_unique<State>()) {}

IbpRowDecoder::~IbpRowDecoder() = default;

Status IbpRowDecoder::Decode(uint64_t row_begin, uint64_t row_end, uint8_t* out) {
  return DecodeRowsAny(*view_, row_begin, row_end, out, RowsMode::kSparse, state_.get());
}

Status DecodeIbpRowsWith(const ChunkView& view, uint64_t row_begin, uint64_t row_end,
                         uint8_t* out, IbpRowsDecoder decoder) {
  switch (decoder) {
    case IbpRowsDecoder::kPortable:
      return DecodeRowsOnce(view, row_begin, row_end, out, RowsMode::kPortable);
    case IbpRowsDecoder::kReference:
      return DecodeRowsOnce(view, row_begin, row_end, out, RowsMode::kReference);
    default:
      return DecodeRowsOnce(view, row_begin, row_end, out, RowsMode::kSparse);
  }
}

Status DeepValidateIbpChunk(const ChunkView& view) {
  L3_RETURN_NOT_OK(DecodeRowsOnce(view, 0, view.num_rows, nullptr, RowsMode::kDeep));
  const uint64_t words = IbpPayloadWords(view);
  for (uint64_t i = 0; i < kIbpPaddingBytes; ++i) {
    if (view.payload[words * view.ibp.word_bytes + i] != 0) {
      return CorruptPayload("the 32 padding bytes after the IBP rows are not zero");
    }
  }
  return Status::OK();
}

}  // namespace l3::internal
