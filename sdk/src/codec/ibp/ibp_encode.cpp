// IBP chunks (spec §11.2.3, §14): mask search, row packing, row index.
#include "codec/ibp/ibp_encode.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "codec/ibp/ibp_format.hpp"
#include "common/bits.hpp"

namespace l3::internal {
namespace {

// Thresholds t = s / 20 for s = 14..19: 0.70, 0.75, ..., 0.95 (spec §14).
constexpr uint32_t kThresholdDenominator = 20;
constexpr uint32_t kThresholdFirst = 14;
constexpr uint32_t kThresholdLast = 19;
// Rows whose sizes choose the threshold and word width: at most this many,
// and at most kSampleBytes of rows (at least 256 rows).
constexpr uint64_t kSampleRows = 65536;
constexpr uint64_t kSampleBytes = uint64_t{16} << 20;
// Row widths up to this many bytes count bits through byte histograms.
constexpr uint64_t kHistogramMaxRowBytes = uint64_t{1} << 14;

// Per bit of the row (bit q = bit q % 8 of byte q / 8), the number of rows
// `ids` (all rows when empty, else those whose id equals `id`) with it set.
std::vector<uint64_t> CountBits(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                                const uint8_t* ids, uint8_t id) {
  std::vector<uint64_t> counts(static_cast<size_t>(8 * row_bytes), 0);
  if (row_bytes <= kHistogramMaxRowBytes) {
    // One increment per byte, then 8 bits per histogram entry.
    std::vector<uint32_t> histogram(static_cast<size_t>(256 * row_bytes), 0);
    uint64_t pending = 0;
    auto flush = [&] {
      for (uint64_t p = 0; p < row_bytes; ++p) {
        const uint32_t* h = &histogram[256 * p];
        for (uint32_t v = 1; v < 256; ++v) {
          if (h[v] == 0) continue;
          for (uint32_t i = 0; i < 8; ++i) {
            if ((v >> i) & 1) counts[8 * p + i] += h[v];
          }
        }
      }
      std::fill(histogram.begin(), histogram.end(), 0u);
      pending = 0;
    };
    for (uint64_t r = 0; r < num_rows; ++r) {
      if (ids != nullptr && ids[r] != id) continue;
      const uint8_t* row = rows + r * row_bytes;
      for (uint64_t p = 0; p < row_bytes; ++p) ++histogram[256 * p + row[p]];
      if (++pending == UINT32_MAX) flush();
    }
    flush();
  } else {
    for (uint64_t r = 0; r < num_rows; ++r) {
      if (ids != nullptr && ids[r] != id) continue;
      const uint8_t* row = rows + r * row_bytes;
      for (uint64_t p = 0; p < row_bytes; ++p) {
        for (uint32_t i = 0; i < 8; ++i) counts[8 * p + i] += (row[p] >> i) & 1;
      }
    }
  }
  return counts;
}

// Word j of a row: its bytes [j W/8, (j+1) W/8), zero past the row's end.
template <typename Word>
Word RowWord(const uint8_t* row, uint64_t row_bytes, uint64_t j) {
  Word w = 0;
  const uint64_t first = j * sizeof(Word);
  const uint64_t n = std::min<uint64_t>(sizeof(Word), row_bytes - first);
  std::memcpy(&w, row + first, static_cast<size_t>(n));
  return w;
}

template <typename Word>
struct Mask {
  std::vector<Word> mask, bitval;  // M words each
  std::vector<uint8_t> packed_bits;  // W - popcount(mask[j]): a participating word's field

  void Finish() {
    packed_bits.resize(mask.size());
    for (size_t j = 0; j < mask.size(); ++j) {
      packed_bits[j] = static_cast<uint8_t>(8 * sizeof(Word) - PopCount(mask[j]));
    }
  }
};

// spec §14: bit invariant 1 when c > t n, invariant 0 when c < (1 - t) n,
// with t = s / 20, in exact integer arithmetic.
template <typename Word>
Mask<Word> MakeMask(const std::vector<uint64_t>& counts, uint64_t n, uint32_t s, uint64_t m) {
  constexpr uint32_t W = 8 * sizeof(Word);
  Mask<Word> out;
  out.mask.assign(static_cast<size_t>(m), 0);
  out.bitval.assign(static_cast<size_t>(m), 0);
  for (uint64_t j = 0; j < m; ++j) {
    for (uint32_t t = 0; t < W; ++t) {
      const uint64_t q = j * W + t;
      const uint64_t c = q < counts.size() ? counts[q] : 0;  // padding bits: never set
      const Word bit = static_cast<Word>(Word{1} << t);
      if (c * kThresholdDenominator > uint64_t{s} * n) {
        out.mask[j] |= bit;
        out.bitval[j] |= bit;
      } else if (c * kThresholdDenominator < uint64_t{kThresholdDenominator - s} * n) {
        out.mask[j] |= bit;
      }
    }
  }
  out.Finish();
  return out;
}

// Words of the row packed (spec §11.2.3): H + ceil(sum of fields / W).
template <typename Word>
uint64_t PackedWords(const uint8_t* row, uint64_t row_bytes, const Mask<Word>& mask) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t m = mask.mask.size();
  uint64_t bits = 0;
  // Whole words straight from the row; only the last may be partial.
  const uint64_t whole = row_bytes / sizeof(Word);
  for (uint64_t j = 0; j < whole; ++j) {
    Word x;
    std::memcpy(&x, row + j * sizeof(Word), sizeof(Word));
    bits += (x & mask.mask[j]) == mask.bitval[j] ? mask.packed_bits[j] : W;
  }
  for (uint64_t j = whole; j < m; ++j) {
    const Word x = RowWord<Word>(row, row_bytes, j);
    bits += (x & mask.mask[j]) == mask.bitval[j] ? mask.packed_bits[j] : W;
  }
  return IbpBitmapWords(m, W) + (bits + W - 1) / W;
}

template <typename Word>
uint64_t StoredWords(const uint8_t* row, uint64_t row_bytes, const Mask<Word>& mask) {
  return std::min<uint64_t>(PackedWords(row, row_bytes, mask), mask.mask.size());
}

// Appends fields most significant bit first (spec §11.2.3 step 2).
template <typename Word>
class MsbWriter {
 public:
  explicit MsbWriter(std::vector<Word>* out) : out_(out) {}
  void Put(Word x, uint32_t f) {
    constexpr uint32_t W = 8 * sizeof(Word);
    if (f == 0) return;
    const uint32_t room = W - used_;
    if (f <= room) {
      current_ |= static_cast<Word>(x << (room - f));
      used_ += f;
    } else {
      const uint32_t rest = f - room;
      current_ |= static_cast<Word>(x >> rest);
      out_->push_back(current_);
      current_ = static_cast<Word>(x << (W - rest));
      used_ = rest;
    }
    if (used_ == W) {
      out_->push_back(current_);
      current_ = 0;
      used_ = 0;
    }
  }
  void Finish() {
    if (used_ > 0) out_->push_back(current_);
    current_ = 0;
    used_ = 0;
  }

 private:
  std::vector<Word>* out_;
  Word current_ = 0;
  uint32_t used_ = 0;
};

// Appends row `row` to `words`, packed where that is shorter than M words.
template <typename Word>
bool AppendRow(const uint8_t* row, uint64_t row_bytes, const Mask<Word>& mask,
               std::vector<Word>* words) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t m = mask.mask.size();
  if (PackedWords(row, row_bytes, mask) >= m) {
    for (uint64_t j = 0; j < m; ++j) words->push_back(RowWord<Word>(row, row_bytes, j));
    return false;
  }
  const uint64_t h = IbpBitmapWords(m, W);
  const size_t bitmap_at = words->size();
  words->resize(words->size() + static_cast<size_t>(h), 0);
  MsbWriter<Word> stream(words);
  for (uint64_t j = 0; j < m; ++j) {
    const Word x = RowWord<Word>(row, row_bytes, j);
    if ((x & mask.mask[j]) == mask.bitval[j]) {
      (*words)[bitmap_at + j / W] |= static_cast<Word>(Word{1} << (j % W));
      stream.Put(ExtractBits<Word>(x, static_cast<Word>(~mask.mask[j])), mask.packed_bits[j]);
    } else {
      stream.Put(x, W);
    }
  }
  stream.Finish();
  return true;
}

template <typename Word>
void AppendWords(const std::vector<Word>& words, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + words.size() * sizeof(Word));
  if (!words.empty()) std::memcpy(out->data() + at, words.data(), words.size() * sizeof(Word));
}

// The whole chunk with one mask per row set (ids empty: mask 0 for all).
template <typename Word>
EncodedIbpChunk Encode(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                       const std::vector<Mask<Word>>& masks, const std::vector<uint8_t>& ids,
                       float threshold) {
  const uint64_t m = IbpWordsPerRow(row_bytes, 8 * sizeof(Word));
  EncodedIbpChunk out;
  out.word_bytes = sizeof(Word);
  out.words_per_row = static_cast<uint32_t>(m);
  out.num_masks = static_cast<uint32_t>(masks.size());
  out.threshold = threshold;
  std::vector<Word> words;
  std::vector<uint64_t> starts(static_cast<size_t>(num_rows) + 1, 0);
  for (uint64_t r = 0; r < num_rows; ++r) {
    starts[r] = words.size();
    const Mask<Word>& mask = masks[ids.empty() ? 0 : ids[r]];
    if (AppendRow<Word>(rows + r * row_bytes, row_bytes, mask, &words)) ++out.packed_rows;
  }
  starts[num_rows] = words.size();
  AppendWords(words, &out.payload);
  out.payload.resize(out.payload.size() + kIbpPaddingBytes, 0);
  for (const Mask<Word>& mask : masks) {
    AppendWords(mask.mask, &out.masks);
    AppendWords(mask.bitval, &out.masks);
  }
  if (masks.size() > 1) out.mask_ids = ids;
  if (out.packed_rows == 0) return out;  // every row raw: no index
  // The row index: Block_Start per 64 rows, then b-bit Row_Offset fields.
  uint64_t widest = 0;
  for (uint64_t r = 0; r < num_rows; ++r) {
    widest = std::max(widest, starts[r] - starts[r / kIbpBlockRows * kIbpBlockRows]);
  }
  const uint32_t b = std::max<uint32_t>(1, BitLength(widest));
  out.offset_bits = b;
  const uint64_t blocks = IbpBlocks(num_rows);
  out.row_offsets.assign(static_cast<size_t>(IbpRowIndexBytes(num_rows, b)), 0);
  for (uint64_t g = 0; g < blocks; ++g) {
    StoreLE64(out.row_offsets.data() + 8 * g, starts[g * kIbpBlockRows]);
  }
  StoreLE64(out.row_offsets.data() + 8 * blocks, starts[num_rows]);
  uint8_t* fields = out.row_offsets.data() + 8 * (blocks + 1);
  for (uint64_t r = 0; r < num_rows; ++r) {
    WriteField(fields, r * b, b, starts[r] - starts[r / kIbpBlockRows * kIbpBlockRows]);
  }
  return out;
}

// The sample of rows that chooses between candidates: evenly spaced.
std::vector<uint64_t> SampleRows(uint64_t num_rows, uint64_t row_bytes) {
  const uint64_t by_bytes = std::max<uint64_t>(256, kSampleBytes / row_bytes);
  const uint64_t n = std::min({num_rows, kSampleRows, by_bytes});
  std::vector<uint64_t> sample(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) sample[i] = i * num_rows / n;
  return sample;
}

struct Choice {
  uint64_t estimate = UINT64_MAX;  // bytes: sampled rows scaled, plus masks
  uint32_t word_bits = 0;
  uint32_t s = 0;
};

template <typename Word>
void TryThresholds(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                   const std::vector<uint64_t>& counts, const std::vector<uint64_t>& sample,
                   Choice* best) {
  const uint64_t m = IbpWordsPerRow(row_bytes, 8 * sizeof(Word));
  for (uint32_t s = kThresholdFirst; s <= kThresholdLast; ++s) {
    const Mask<Word> mask = MakeMask<Word>(counts, num_rows, s, m);
    uint64_t words = 0;
    for (uint64_t r : sample) words += StoredWords(rows + r * row_bytes, row_bytes, mask);
    // Scaled to the chunk in 128-bit-safe steps: words <= 2^16 * M.
    const long double scaled = static_cast<long double>(words) * static_cast<long double>(num_rows) /
                               static_cast<long double>(sample.size());
    const uint64_t estimate = static_cast<uint64_t>(scaled * sizeof(Word)) + 2 * m * sizeof(Word);
    if (estimate < best->estimate || (estimate == best->estimate && s < best->s)) {
      best->estimate = estimate;
      best->word_bits = 8 * sizeof(Word);
      best->s = s;
    }
  }
}

// Clustered masks (spec §11.2.3 "num_clusters" K > 1, §14): a deterministic
// Hamming k-means over at most kClusterSampleRows sample rows (centroids
// start at evenly spaced sample rows; ties go to the lower cluster), every
// row assigned to its nearest centroid, one mask per cluster at threshold
// s / 20, then every row moved to the mask that stores it in the fewest
// words. Empty clusters get an empty mask.
constexpr uint64_t kClusterSampleRows = 4096;
constexpr int kClusterIterations = 6;

template <typename Word>
uint64_t Hamming(const uint8_t* row, uint64_t row_bytes, const Word* centroid, uint64_t m) {
  uint64_t d = 0;
  for (uint64_t j = 0; j < m; ++j) d += PopCount(static_cast<Word>(RowWord<Word>(row, row_bytes, j) ^ centroid[j]));
  return d;
}

template <typename Word>
uint32_t Nearest(const uint8_t* row, uint64_t row_bytes, const std::vector<Word>& centroids,
                 uint32_t k, uint64_t m) {
  uint32_t best = 0;
  uint64_t best_d = UINT64_MAX;
  for (uint32_t c = 0; c < k; ++c) {
    const uint64_t d = Hamming(row, row_bytes, centroids.data() + c * m, m);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

template <typename Word>
EncodedIbpChunk EncodeClustered(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                                uint32_t k, uint32_t s, float threshold) {
  constexpr uint32_t W = 8 * sizeof(Word);
  const uint64_t m = IbpWordsPerRow(row_bytes, W);
  const uint64_t n_sample = std::min(num_rows, kClusterSampleRows);
  std::vector<uint64_t> sample(static_cast<size_t>(n_sample));
  for (uint64_t i = 0; i < n_sample; ++i) sample[i] = i * num_rows / n_sample;
  std::vector<Word> centroids(static_cast<size_t>(k * m));
  for (uint32_t c = 0; c < k; ++c) {
    const uint8_t* row = rows + sample[c * n_sample / k] * row_bytes;
    for (uint64_t j = 0; j < m; ++j) centroids[c * m + j] = RowWord<Word>(row, row_bytes, j);
  }
  std::vector<uint32_t> member(static_cast<size_t>(n_sample), 0);
  std::vector<uint32_t> ones(static_cast<size_t>(k * m * W));
  std::vector<uint64_t> sizes(k);
  for (int iteration = 0; iteration < kClusterIterations; ++iteration) {
    std::fill(ones.begin(), ones.end(), 0u);
    std::fill(sizes.begin(), sizes.end(), 0u);
    for (uint64_t i = 0; i < n_sample; ++i) {
      const uint8_t* row = rows + sample[i] * row_bytes;
      const uint32_t c = Nearest(row, row_bytes, centroids, k, m);
      member[i] = c;
      ++sizes[c];
      for (uint64_t j = 0; j < m; ++j) {
        const Word x = RowWord<Word>(row, row_bytes, j);
        for (uint32_t t = 0; t < W; ++t) ones[(c * m + j) * W + t] += (x >> t) & 1;
      }
    }
    // Per-bit majority; an empty cluster keeps its centroid.
    for (uint32_t c = 0; c < k; ++c) {
      if (sizes[c] == 0) continue;
      for (uint64_t j = 0; j < m; ++j) {
        Word w = 0;
        for (uint32_t t = 0; t < W; ++t) {
          if (2 * uint64_t{ones[(c * m + j) * W + t]} > sizes[c]) w |= static_cast<Word>(Word{1} << t);
        }
        centroids[c * m + j] = w;
      }
    }
  }
  std::vector<uint8_t> ids(static_cast<size_t>(num_rows));
  for (uint64_t r = 0; r < num_rows; ++r) {
    ids[r] = static_cast<uint8_t>(Nearest(rows + r * row_bytes, row_bytes, centroids, k, m));
  }
  auto masks_for = [&](const std::vector<uint8_t>& assignment) {
    std::vector<Mask<Word>> masks;
    for (uint32_t c = 0; c < k; ++c) {
      uint64_t n = 0;
      for (uint8_t id : assignment) n += id == c;
      const std::vector<uint64_t> counts =
          CountBits(rows, num_rows, row_bytes, assignment.data(), static_cast<uint8_t>(c));
      masks.push_back(MakeMask<Word>(counts, n, s, m));
    }
    return masks;
  };
  std::vector<Mask<Word>> masks = masks_for(ids);
  // Each row to the mask that stores it in the fewest words (ties: lower).
  for (uint64_t r = 0; r < num_rows; ++r) {
    const uint8_t* row = rows + r * row_bytes;
    uint64_t best = UINT64_MAX;
    for (uint32_t c = 0; c < k; ++c) {
      const uint64_t words = StoredWords(row, row_bytes, masks[c]);
      if (words < best) {
        best = words;
        ids[r] = static_cast<uint8_t>(c);
      }
    }
  }
  return Encode<Word>(rows, num_rows, row_bytes, masks, ids, threshold);
}

}  // namespace

Result<EncodedIbpChunk> EncodeIbpChunk(const uint8_t* rows, uint64_t num_rows, uint64_t row_bytes,
                                       const IbpEncoderOptions& options) {
  if (num_rows == 0 || num_rows > UINT32_MAX || row_bytes == 0) {
    return Status(StatusCode::kInvalidArgument, "an IBP chunk holds 1..2^32-1 rows of >= 1 byte");
  }
  try {
    const std::vector<uint64_t> counts = CountBits(rows, num_rows, row_bytes, nullptr, 0);
    const std::vector<uint64_t> sample = SampleRows(num_rows, row_bytes);
    // Candidates in tie order: thresholds ascending, 64-bit words first.
    Choice best;
    TryThresholds<uint64_t>(rows, num_rows, row_bytes, counts, sample, &best);
    TryThresholds<uint32_t>(rows, num_rows, row_bytes, counts, sample, &best);
    const float threshold = static_cast<float>(best.s) / kThresholdDenominator;
    EncodedIbpChunk single;
    if (best.word_bits == 64) {
      std::vector<Mask<uint64_t>> masks{
          MakeMask<uint64_t>(counts, num_rows, best.s, IbpWordsPerRow(row_bytes, 64))};
      single = Encode<uint64_t>(rows, num_rows, row_bytes, masks, {}, threshold);
    } else {
      std::vector<Mask<uint32_t>> masks{
          MakeMask<uint32_t>(counts, num_rows, best.s, IbpWordsPerRow(row_bytes, 32))};
      single = Encode<uint32_t>(rows, num_rows, row_bytes, masks, {}, threshold);
    }
    const uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(options.max_masks, num_rows));
    if (k < 2 || k > kIbpMaxMasks) return single;
    // K masks where that is smaller (ties keep the single mask).
    EncodedIbpChunk clustered =
        best.word_bits == 64
            ? EncodeClustered<uint64_t>(rows, num_rows, row_bytes, k, best.s, threshold)
            : EncodeClustered<uint32_t>(rows, num_rows, row_bytes, k, best.s, threshold);
    if (clustered.SegmentBytes() < single.SegmentBytes()) return clustered;
    return single;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while encoding an IBP chunk");
  }
}

}  // namespace l3::internal
