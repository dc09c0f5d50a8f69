#include "spec_float.hpp"

#include <algorithm>
#include <string>

namespace l3::conformance {

namespace {

uint64_t LowBits(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint32_t PopCount(uint64_t w) {
  uint32_t n = 0;
  for (; w != 0; w >>= 1) n += static_cast<uint32_t>(w & 1);
  return n;
}

// spec §11.2.3 step 4, inverted: the bits of x at the set bits of `free`,
// from the least significant up, packed from bit 0 up.
uint64_t Extract(uint64_t x, uint64_t free, uint32_t W) {
  uint64_t out = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < W; ++i) {
    if ((free >> i) & 1) out |= ((x >> i) & 1) << n++;
  }
  return out;
}

// spec §11.2.3 step 4: deposit(X, free) writes the bits of X, from its least
// significant up, into the set bits of `free` from the least significant up.
uint64_t Deposit(uint64_t x, uint64_t free, uint32_t W) {
  uint64_t out = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < W; ++i) {
    if ((free >> i) & 1) out |= ((x >> n++) & 1) << i;
  }
  return out;
}

// Bit i of the row index's field stream is bit i mod 64 of u64 word i / 64,
// that is bit i mod 8 of byte i / 8 of the little-endian words.
uint64_t ReadIndexField(const Bytes& b, uint64_t byte_base, uint64_t bit, uint32_t w) {
  uint64_t v = 0;
  for (uint32_t j = 0; j < w; ++j) {
    const uint64_t i = bit + j;
    v |= uint64_t{(b[byte_base + i / 8] >> (i % 8)) & 1u} << j;
  }
  return v;
}

// The spec-literal decoder of a whole chunk (spec §11.2.3), to check the
// encoder: returns every row's M words.
std::vector<std::vector<uint64_t>> DecodeAll(const EncodedIbp& c) {
  const uint32_t W = c.word_bits;
  const uint64_t M = c.words_per_row;
  const uint64_t n = c.num_rows;
  const uint64_t word_mask = LowBits(W);
  // The row index, read back from its bytes.
  std::vector<uint64_t> start(n + 1);
  if (!c.has_row_offsets) {
    for (uint64_t r = 0; r <= n; ++r) start[r] = r * M;
  } else {
    const uint64_t G = CeilDiv(n, 64);
    if (c.row_offsets.size() != 8 * (G + 1) + 8 * CeilDiv(n * c.offset_bits, 64)) {
      Fail("EncodeIbp: row index length");
    }
    for (uint64_t r = 0; r < n; ++r) {
      start[r] = GetLE(&c.row_offsets[8 * (r / 64)], 8) +
                 ReadIndexField(c.row_offsets, 8 * (G + 1), r * c.offset_bits, c.offset_bits);
    }
    start[n] = GetLE(&c.row_offsets[8 * G], 8);
  }
  if (c.payload.size() != W / 8 * start[n] + 32) Fail("EncodeIbp: payload length");
  std::vector<std::vector<uint64_t>> rows(n, std::vector<uint64_t>(M, 0));
  for (uint64_t r = 0; r < n; ++r) {
    const uint64_t L = start[r + 1] - start[r];
    auto word = [&](uint64_t i) { return IbpWord(c.payload, W, start[r] + i); };
    if (L == M) {
      for (uint64_t j = 0; j < M; ++j) rows[r][j] = word(j);
      continue;
    }
    const uint64_t k = c.has_cluster_ids ? c.cluster_ids[r] : 0;
    const uint64_t H = CeilDiv(M, W);
    uint64_t p = 0;  // stream bit
    for (uint64_t j = 0; j < M; ++j) {
      const bool participates = (word(j / W) >> (j % W)) & 1;
      const uint64_t mask = IbpWord(c.masks, W, 2 * k * M + j);
      const uint64_t bitval = IbpWord(c.masks, W, (2 * k + 1) * M + j);
      const uint32_t f = participates ? W - PopCount(mask) : W;
      uint64_t x = 0;
      for (uint32_t i = 0; i < f; ++i, ++p) {
        const uint64_t bit = (word(H + p / W) >> (W - 1 - p % W)) & 1;
        x = (x << 1) | bit;  // the first bit read is the most significant
      }
      rows[r][j] = participates ? (bitval | Deposit(x, ~mask & word_mask, W)) : x;
    }
    if (L != H + CeilDiv(p, W)) Fail("EncodeIbp: packed row length disagrees with rule 5");
  }
  return rows;
}

}  // namespace

bool TypeIsFloat(Ty t) { return static_cast<uint8_t>(t) >= 9 && static_cast<uint8_t>(t) <= 12; }

Ty IntegerFormType(Ty t) {
  switch (t) {
    case Ty::kF16: case Ty::kBF16: return Ty::kU16;
    case Ty::kF32: return Ty::kU32;
    case Ty::kF64: return Ty::kU64;
    default: Fail("IntegerFormType: not a float type");
  }
}

uint64_t OrderedFromFloat(Ty t, uint64_t f) {
  // spec §11.2.2: u = f | 2^(F-1) if bit F-1 of f is 0, otherwise ~f.
  const int F = TypeBits(t);
  f &= LowBits(F);
  const uint64_t sign = uint64_t{1} << (F - 1);
  return (f & sign) == 0 ? (f | sign) : (~f & LowBits(F));
}

uint64_t FloatFromOrdered(Ty t, uint64_t u) {
  // spec §11.2.2: f = u & (2^(F-1) - 1) if bit F-1 of u is 1, otherwise ~u.
  const int F = TypeBits(t);
  u &= LowBits(F);
  const uint64_t sign = uint64_t{1} << (F - 1);
  return (u & sign) != 0 ? (u & (sign - 1)) : (~u & LowBits(F));
}

uint64_t IbpWord(const Bytes& b, uint32_t word_bits, uint64_t index) {
  const uint64_t at = index * (word_bits / 8);
  if (at + word_bits / 8 > b.size()) Fail("IbpWord: outside the segment");
  return GetLE(&b[at], static_cast<int>(word_bits / 8));
}

void SetIbpWord(Bytes* b, uint32_t word_bits, uint64_t index, uint64_t value) {
  const uint64_t at = index * (word_bits / 8);
  if (at + word_bits / 8 > b->size()) Fail("SetIbpWord: outside the segment");
  SetLE(&(*b)[at], value, static_cast<int>(word_bits / 8));
}

uint32_t IbpWordsPerRow(Ty t, uint32_t row_width, uint32_t word_bits) {
  const uint64_t B = uint64_t{row_width} * (TypeBits(t) / 8);
  return static_cast<uint32_t>(CeilDiv(8 * B, word_bits));
}

std::vector<uint64_t> IbpRowWords(Ty t, uint32_t row_width, uint32_t word_bits,
                                  const std::vector<uint64_t>& values, uint64_t row) {
  const uint32_t vb = static_cast<uint32_t>(TypeBits(t) / 8);
  const uint64_t M = IbpWordsPerRow(t, row_width, word_bits);
  Bytes bytes(M * word_bits / 8, 0);
  for (uint64_t i = 0; i < row_width; ++i) {
    SetLE(&bytes[i * vb], values.at(row * row_width + i), static_cast<int>(vb));
  }
  std::vector<uint64_t> words(M);
  for (uint64_t j = 0; j < M; ++j) words[j] = IbpWord(bytes, word_bits, j);
  return words;
}

Bytes IbpRowIndexBytes(const std::vector<uint64_t>& block_start,
                       const std::vector<uint64_t>& row_offset, uint32_t offset_bits) {
  Bytes out;
  for (uint64_t s : block_start) PutLE(&out, s, 8);
  const uint64_t fields_at = out.size();
  const uint64_t n = row_offset.size();
  out.resize(fields_at + 8 * CeilDiv(n * offset_bits, 64), 0);
  for (uint64_t r = 0; r < n; ++r) {
    if (offset_bits < 64 && (row_offset[r] >> offset_bits) != 0) Fail("IbpRowIndexBytes: field too wide");
    // Field r starts at bit r * b of the stream whose bit i is bit i mod 64
    // of word i / 64 (bit i mod 8 of byte i / 8), least significant first.
    for (uint32_t j = 0; j < offset_bits; ++j) {
      const uint64_t i = r * offset_bits + j;
      if ((row_offset[r] >> j) & 1) out[fields_at + i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
  }
  return out;
}

void WriteIbpRowIndex(EncodedIbp* c, uint32_t offset_bits) {
  const uint64_t n = c->num_rows;
  const uint64_t G = CeilDiv(n, 64);
  // Block_Start[g] = Start(64 g), Block_Start[G] = Payload_Words;
  // Row_Offset[r] = Start(r) - Block_Start[floor(r / 64)].
  std::vector<uint64_t> block_start, row_offset;
  for (uint64_t g = 0; g < G; ++g) block_start.push_back(c->start[64 * g]);
  block_start.push_back(c->start[n]);
  uint64_t widest = 0;
  for (uint64_t r = 0; r < n; ++r) {
    row_offset.push_back(c->start[r] - c->start[64 * (r / 64)]);
    widest = std::max(widest, row_offset.back());
  }
  if (offset_bits == 0) {
    offset_bits = 1;
    while (offset_bits < 64 && (widest >> offset_bits) != 0) ++offset_bits;
  }
  c->row_offsets = IbpRowIndexBytes(block_start, row_offset, offset_bits);
  c->offset_bits = offset_bits;
  c->has_row_offsets = true;
}

EncodedIbp EncodeIbp(Ty t, uint32_t row_width, const std::vector<uint64_t>& values, const IbpSpec& spec) {
  const uint32_t W = spec.word_bits;
  if (W != 32 && W != 64) Fail("EncodeIbp: W must be 32 or 64");
  if (!TypeIsFloat(t) && t != Ty::kU32) Fail("EncodeIbp: not a float type");
  if (row_width == 0 || values.size() % row_width != 0) Fail("EncodeIbp: values are not whole rows");
  const uint32_t vb = static_cast<uint32_t>(TypeBits(t) / 8);
  const uint64_t B = uint64_t{row_width} * vb;
  const uint64_t M = IbpWordsPerRow(t, row_width, W);
  const uint64_t n = values.size() / row_width;
  const uint64_t K = spec.masks.size();
  const uint64_t word_mask = LowBits(W);
  if (K == 0 || spec.bitvals.size() != K) Fail("EncodeIbp: need K >= 1 masks and bitvals");
  if (K > 1 && spec.mask_ids.size() != n) Fail("EncodeIbp: need one mask id per row");
  EncodedIbp c;
  c.word_bits = W;
  c.words_per_row = static_cast<uint32_t>(M);
  c.num_masks = static_cast<uint32_t>(K);
  c.num_rows = n;
  c.threshold = spec.threshold;
  // Masks: for each k, Mask_k[0..M) then Bitval_k[0..M), W / 8 bytes each.
  for (uint64_t k = 0; k < K; ++k) {
    if (spec.masks[k].size() != M || spec.bitvals[k].size() != M) Fail("EncodeIbp: a mask is not M words");
    for (uint64_t j = 0; j < M; ++j) {
      if ((spec.masks[k][j] & ~word_mask) != 0 || (spec.bitvals[k][j] & ~spec.masks[k][j]) != 0) {
        Fail("EncodeIbp: Bitval & ~Mask must be 0");
      }
    }
    for (uint64_t v : spec.masks[k]) PutLE(&c.masks, v, static_cast<int>(W / 8));
    for (uint64_t v : spec.bitvals[k]) PutLE(&c.masks, v, static_cast<int>(W / 8));
  }
  const uint64_t H = CeilDiv(M, W);
  std::vector<uint64_t> payload_words;
  std::vector<std::vector<uint64_t>> inputs;
  c.start.push_back(0);
  for (uint64_t r = 0; r < n; ++r) {
    // The row's B bytes, then M * W / 8 - B zero bytes, as M words.
    std::vector<uint64_t> words = IbpRowWords(t, row_width, W, values, r);
    if (spec.edit_words) spec.edit_words(r, words);
    inputs.push_back(words);
    const uint64_t k = K > 1 ? spec.mask_ids[r] : 0;
    if (k >= K) Fail("EncodeIbp: mask id out of range");
    // Step 1: the participation bitmap; steps 2-3: the fields, MSB first.
    std::vector<uint64_t> packed(H, 0);
    std::vector<uint8_t> stream;  // one entry per stream bit
    for (uint64_t j = 0; j < M; ++j) {
      const uint64_t mask = spec.masks[k][j], bitval = spec.bitvals[k][j];
      const bool agrees = (words[j] & mask) == bitval;
      uint32_t f = W;
      uint64_t x = words[j];
      if (agrees) {
        packed[j / W] |= uint64_t{1} << (j % W);
        f = W - PopCount(mask);
        x = Extract(words[j], ~mask & word_mask, W);
      }
      for (uint32_t i = f; i-- > 0;) stream.push_back(static_cast<uint8_t>((x >> i) & 1));
    }
    // Stream bit p is bit W - 1 - (p mod W) of word H + floor(p / W).
    packed.resize(H + CeilDiv(stream.size(), W), 0);
    for (uint64_t p = 0; p < stream.size(); ++p) {
      if (stream[p]) packed[H + p / W] |= uint64_t{1} << (W - 1 - p % W);
    }
    // A row that would not get smaller is stored raw.
    const bool is_packed = packed.size() < M;
    const std::vector<uint64_t>& stored = is_packed ? packed : words;
    payload_words.insert(payload_words.end(), stored.begin(), stored.end());
    c.packed.push_back(is_packed);
    c.start.push_back(payload_words.size());
  }
  for (uint64_t w : payload_words) PutLE(&c.payload, w, static_cast<int>(W / 8));
  c.payload.insert(c.payload.end(), 32, 0);  // spec §11.2.3: 32 zero bytes
  bool any_packed = false;
  for (bool p : c.packed) any_packed = any_packed || p;
  if (any_packed) WriteIbpRowIndex(&c, spec.offset_bits.value_or(0));
  if (K > 1) {
    c.has_cluster_ids = true;
    c.cluster_ids.assign(spec.mask_ids.begin(), spec.mask_ids.end());
  }
  if (B == 0) Fail("EncodeIbp: empty rows");
  // Self-check with the spec-literal decoder.
  const std::vector<std::vector<uint64_t>> decoded = DecodeAll(c);
  if (decoded != inputs) Fail("EncodeIbp: the chunk does not decode to its rows");
  return c;
}

}  // namespace l3::conformance
