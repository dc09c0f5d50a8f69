// Float columns (spec §11.2, format 1.1): valid, invalid and deep cases for
// the integer form (§11.2.2) and IBP chunks (§11.2.3), encoded by the
// generator's spec-literal code (spec_float.cpp, spec_encode.cpp).
#include <algorithm>
#include <cstring>

#include "case_util.hpp"

namespace l3::conformance {
namespace {

uint64_t F32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

uint64_t LowMask(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Bit patterns of special values: signed zeros, the smallest and largest
// subnormals (and a negative one), the smallest normal, +-1, +-max, +-inf,
// quiet and signaling NaNs with payloads, of either sign.
std::vector<uint64_t> Specials(Ty t) {
  switch (t) {
    case Ty::kF32:
      return {0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x80000001, 0x00800000,
              0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
              0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7FC12345};
    case Ty::kF64:
      return {0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
              0x000FFFFFFFFFFFFFull, 0x8000000000000001ull, 0x0010000000000000ull,
              0x3FF0000000000000ull, 0xBFF0000000000000ull, 0x7FEFFFFFFFFFFFFFull,
              0xFFEFFFFFFFFFFFFFull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
              0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
              0x7FF7FFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x7FF8DEADBEEF0001ull};
    case Ty::kF16:
      return {0x0000, 0x8000, 0x0001, 0x03FF, 0x8001, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
              0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7DFF, 0xFFFF, 0x7E55};
    case Ty::kBF16:
      return {0x0000, 0x8000, 0x0001, 0x007F, 0x8001, 0x0080, 0x3F80, 0xBF80, 0x7F7F,
              0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FBF, 0xFFFF, 0x7FC5};
    default: Fail("Specials: not a float type");
  }
}

// A value of type t near 1 (in [0.5, 2)), scaled by 2^scale.
uint64_t NearOne(Ty t, Rng& rng, int scale) {
  switch (t) {
    case Ty::kF32: return 0x3F000000u + (rng.Next() & 0x00FFFFFFu) + (uint64_t(scale) << 23);
    case Ty::kF64:
      return 0x3FE0000000000000ull + (rng.Next() & 0x001FFFFFFFFFFFFFull) + (uint64_t(scale) << 52);
    case Ty::kF16: return 0x3800u + (rng.Next() & 0x07FFu) + (uint64_t(scale) << 10);
    case Ty::kBF16: return 0x3F00u + (rng.Next() & 0x00FFu) + (uint64_t(scale) << 7);
    default: Fail("NearOne: not a float type");
  }
}

struct FloatRows {
  std::vector<uint64_t> values;  // n * R bit patterns
  std::vector<uint8_t> ids;      // the template of each row
};

// n rows of R values from `templates` templates: a row keeps its template's
// bits except the low `free` bits of each value; a value is random with
// probability outlier / 1000, a whole row with probability raw / 1000.
FloatRows TemplateRows(Ty t, uint32_t R, uint64_t n, uint32_t templates, uint32_t free,
                       uint32_t outlier, uint32_t raw, Rng& rng) {
  const int F = TypeBits(t);
  std::vector<std::vector<uint64_t>> base(templates, std::vector<uint64_t>(R));
  for (uint32_t k = 0; k < templates; ++k) {
    for (uint32_t i = 0; i < R; ++i) base[k][i] = NearOne(t, rng, static_cast<int>(k));
  }
  FloatRows out;
  for (uint64_t r = 0; r < n; ++r) {
    const uint32_t k = static_cast<uint32_t>(rng.Below(templates));
    const bool raw_row = rng.Below(1000) < raw;
    for (uint32_t i = 0; i < R; ++i) {
      uint64_t v = (base[k][i] & ~LowMask(free)) | (rng.Next() & LowMask(free));
      if (raw_row || rng.Below(1000) < outlier) v = rng.Next() & LowMask(F);
      out.values.push_back(v);
    }
    out.ids.push_back(static_cast<uint8_t>(k));
  }
  return out;
}

// Masks in the manner of the IBP paper: bit i of word j is invariant when
// at least `threshold` of the rows agree on it; Bitval holds their value.
void MaskFromRows(Ty t, uint32_t R, uint32_t W, const std::vector<uint64_t>& values,
                  const std::vector<uint64_t>& rows, double threshold, std::vector<uint64_t>* mask,
                  std::vector<uint64_t>* bitval) {
  const uint32_t M = IbpWordsPerRow(t, R, W);
  std::vector<std::vector<uint64_t>> ones(M, std::vector<uint64_t>(W, 0));
  for (uint64_t r : rows) {
    const std::vector<uint64_t> words = IbpRowWords(t, R, W, values, r);
    for (uint32_t j = 0; j < M; ++j) {
      for (uint32_t i = 0; i < W; ++i) ones[j][i] += (words[j] >> i) & 1;
    }
  }
  mask->assign(M, 0);
  bitval->assign(M, 0);
  const double need = threshold * static_cast<double>(rows.size());
  for (uint32_t j = 0; j < M; ++j) {
    for (uint32_t i = 0; i < W; ++i) {
      const double one = static_cast<double>(ones[j][i]);
      const double zero = static_cast<double>(rows.size()) - one;
      if (one >= need) {
        (*mask)[j] |= uint64_t{1} << i;
        (*bitval)[j] |= uint64_t{1} << i;
      } else if (zero >= need) {
        (*mask)[j] |= uint64_t{1} << i;
      }
    }
  }
}

// An IbpSpec for rows made by TemplateRows: one mask per template (K > 1
// gets mask ids), computed from the rows at `threshold`.
IbpSpec SpecFor(Ty t, uint32_t R, uint32_t W, const FloatRows& rows, uint32_t K, double threshold) {
  IbpSpec s;
  s.word_bits = W;
  s.threshold = static_cast<float>(threshold);
  const uint64_t n = rows.ids.size();
  for (uint32_t k = 0; k < K; ++k) {
    std::vector<uint64_t> members;
    for (uint64_t r = 0; r < n; ++r) {
      if (K == 1 || rows.ids[r] == k) members.push_back(r);
    }
    if (members.empty()) Fail("SpecFor: a template without rows");
    std::vector<uint64_t> mask, bitval;
    MaskFromRows(t, R, W, rows.values, members, threshold, &mask, &bitval);
    s.masks.push_back(mask);
    s.bitvals.push_back(bitval);
  }
  if (K > 1) s.mask_ids = rows.ids;
  return s;
}

ColumnSpec IbpColumn(std::string name, Ty t, uint32_t R, std::vector<uint64_t> values, IbpSpec spec,
                     bool write_row_width = true) {
  ColumnSpec c;
  c.name = std::move(name);
  c.type = t;
  if (write_row_width) c.row_width = R;
  ChunkSpec k;
  k.values = std::move(values);
  k.ibp = std::move(spec);
  c.chunks.push_back(std::move(k));
  return c;
}

// A template-made IBP column: n rows, K templates (and masks).
ColumnSpec TemplateIbpColumn(std::string name, Ty t, uint32_t R, uint32_t W, uint64_t n, uint32_t K,
                             uint32_t free, uint32_t outlier, uint32_t raw, uint64_t seed,
                             double threshold = 0.9) {
  Rng rng(seed);
  const FloatRows rows = TemplateRows(t, R, n, K, free, outlier, raw, rng);
  return IbpColumn(std::move(name), t, R, rows.values, SpecFor(t, R, W, rows, K, threshold));
}

// Aborts unless the column's IBP chunks have packed and raw rows, and (with
// `partial`) packed rows with a word stored whole (bitmap bit 0).
void ExpectPackedAndRaw(const ColumnSpec& col, bool partial = false) {
  uint64_t packed = 0, raw = 0, whole = 0;
  for (const ChunkSpec& k : col.chunks) {
    if (!k.ibp) continue;
    const EncodedIbp e = EncodeIbp(col.type, col.R(), k.values, *k.ibp);
    for (uint64_t r = 0; r < e.num_rows; ++r) {
      (e.packed[r] ? packed : raw) += 1;
      if (!e.packed[r]) continue;
      for (uint64_t j = 0; j < e.words_per_row; ++j) {
        if (((IbpWord(e.payload, e.word_bits, e.start[r] + j / e.word_bits) >> (j % e.word_bits)) & 1) == 0) {
          ++whole;
          break;
        }
      }
    }
  }
  if (packed == 0 || raw == 0 || (partial && whole == 0)) {
    Fail("column " + col.name + ": expected packed and raw rows, got " + Str(packed) + " and " + Str(raw) +
         " (" + Str(whole) + " packed with a word stored whole)");
  }
}

// The integer form: a float column of one chunk whose mapped values are
// partitioned as given.
ColumnSpec IntegerFormColumn(std::string name, Ty t, uint32_t R, std::vector<uint64_t> values,
                             std::vector<PartSpec> parts, uint32_t V = 64) {
  ColumnSpec c = Column(std::move(name), t, std::move(values), std::move(parts), V);
  if (R != 1) c.row_width = R;
  return c;
}

// Values of a LINEAR partition over the mapped values, and its theta: a ramp
// of `n` values from `first` in steps of `step` (bit patterns of positive
// values, so the map is f | 2^(F-1)) plus noise below 2^noise_bits.
std::vector<uint64_t> Ramp(Ty t, uint64_t first, uint64_t step, uint32_t n, uint32_t noise_bits, Rng& rng,
                           std::array<double, 4>* theta) {
  std::vector<uint64_t> v(n);
  for (uint32_t x = 0; x < n; ++x) v[x] = first + step * x + (rng.Next() & LowMask(noise_bits));
  *theta = {static_cast<double>(OrderedFromFloat(t, first)), static_cast<double>(step), 0, 0};
  return v;
}

struct Adders {
  std::vector<Case>* cases;

  void Valid(const std::string& name, std::vector<std::string> sections, const std::string& description,
             const std::vector<ColumnSpec>& cols, const BuildOptions& options = {}) const {
    Case c;
    c.name = name;
    c.kind = "valid";
    c.sections = std::move(sections);
    c.description = description;
    c.file = BuildTable(cols, options).file;
    c.columns = ExpectedOf(cols);
    cases->push_back(std::move(c));
  }

  void Deep(const std::string& name, std::vector<std::string> sections, const std::string& description,
            const std::string& error_class, const std::vector<ColumnSpec>& cols,
            const BuildOptions& options = {}) const {
    Case c;
    c.name = name;
    c.kind = "deep";
    c.sections = std::move(sections);
    c.description = description;
    c.file = BuildTable(cols, options).file;
    c.columns = ExpectedOf(cols);
    c.error_class = error_class;
    cases->push_back(std::move(c));
  }

  void Invalid(const std::string& name, std::vector<std::string> sections, const std::string& description,
               const std::string& error_class, const std::string& stage, Bytes file,
               std::vector<std::string> requires_ = {}, std::string column = "v") const {
    Case c;
    c.name = name;
    c.kind = "invalid";
    c.sections = std::move(sections);
    c.description = description;
    c.file = std::move(file);
    c.error_class = error_class;
    c.stage = stage;
    c.requires_ = std::move(requires_);
    c.read_column = std::move(column);
    cases->push_back(std::move(c));
  }
};

// The worked example of spec §11.2.3 (W = 32, M = 3): the first mask
// stores the example row raw, the second packs it to 0x00000007 0x12347800.
const std::vector<uint64_t> kExampleRow = {0x3F801234, 0x00000000, 0x12345678};
const std::vector<uint64_t> kExampleMaskA = {0xFFFF0000, 0xFFFFFFFF, 0x00000000};
const std::vector<uint64_t> kExampleBitvalA = {0x3F800000, 0x00000000, 0x00000000};
const std::vector<uint64_t> kExampleMaskB = {0xFFFF0000, 0xFFFFFFFF, 0xFFFFFF00};
const std::vector<uint64_t> kExampleBitvalB = {0x3F800000, 0x00000000, 0x12345600};

// n rows of 3 f32 values shaped like the example: the first is the example
// row; a row agrees with mask B on every word except that every
// `disagree_every`-th row has a random first word (stored raw).
std::vector<uint64_t> ExampleRows(uint64_t n, uint64_t disagree_every, Rng& rng) {
  std::vector<uint64_t> v = kExampleRow;
  for (uint64_t r = 1; r < n; ++r) {
    uint64_t w0 = 0x3F800000 | (rng.Next() & 0xFFFF);
    if (disagree_every != 0 && r % disagree_every == 0) w0 = 0x40000000 | (rng.Next() & 0x3FFFFF);
    v.push_back(w0);
    v.push_back(0);
    v.push_back(0x12345600 | (rng.Next() & 0xFF));
  }
  return v;
}

IbpSpec ExampleSpec(bool packed_mask) {
  IbpSpec s;
  s.word_bits = 32;
  s.masks = {packed_mask ? kExampleMaskB : kExampleMaskA};
  s.bitvals = {packed_mask ? kExampleBitvalB : kExampleBitvalA};
  return s;
}

ChunkModel& Chunk0(FooterModel& f) { return (*f.columns)[0].chunks->at(0); }

}  // namespace

// ---------------------------------------------------------------------------
// valid/

void AddFloatValidCases(std::vector<Case>* cases) {
  const Adders add{cases};
  {
    Rng rng(1101);
    ColumnSpec col;
    col.name = "v";
    col.type = Ty::kF32;
    col.row_width = 3;
    ChunkSpec a;
    a.values = ExampleRows(40, 0, rng);
    a.ibp = ExampleSpec(false);
    ChunkSpec b;
    b.values = ExampleRows(100, 7, rng);
    b.ibp = ExampleSpec(true);
    col.chunks = {a, b};
    // The example's words, byte for byte.
    const EncodedIbp ea = EncodeIbp(Ty::kF32, 3, a.values, *a.ibp);
    const EncodedIbp eb = EncodeIbp(Ty::kF32, 3, b.values, *b.ibp);
    if (ea.has_row_offsets || ea.start[1] != 3 || IbpWord(ea.payload, 32, 2) != 0x12345678) {
      Fail("ibp_spec_example_f32: the first mask must store the example row raw");
    }
    if (eb.start[1] != 2 || IbpWord(eb.payload, 32, 0) != 0x00000007 || IbpWord(eb.payload, 32, 1) != 0x12347800) {
      Fail("ibp_spec_example_f32: the example row must pack to 0x00000007 0x12347800");
    }
    ExpectPackedAndRaw(col);
    add.Valid("ibp_spec_example_f32", {"11.2.1", "11.2.3"},
              "The worked example of spec §11.2.3: a Float32 column of row_width 3 (W = 32, M = 3) "
              "in two IbpFloat chunks whose first row is the example row {0x3F801234, 0, "
              "0x12345678}. Chunk 0 (40 rows, Mask {0xFFFF0000, 0xFFFFFFFF, 0}) stores every row raw, "
              "the example's included, so it has no row_offsets. Chunk 1 (100 rows: 2 index blocks, "
              "the second of 36 rows) uses Mask[2] = 0xFFFFFF00, Bitval[2] = 0x12345600: the example "
              "row packs to the 2 words 0x00000007 0x12347800, and every 7th row (a first word "
              "outside the mask) is raw.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF64, 4, 64, 150, 1, 12, 40, 60, 1102);
    ExpectPackedAndRaw(col, true);
    add.Valid("ibp_f64_w64", {"11.2.3"},
              "A Float64 column of row_width 4 in one IbpFloat chunk of 150 rows with W = 64 (M = 4, "
              "one mask): rows near one template, some words outside the mask (stored whole in a "
              "packed row, whose bitmap bit is then 0) and some rows raw. Three index blocks, the last "
              "of 22 rows.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF64, 2, 32, 120, 1, 12, 30, 50, 1110);
    ExpectPackedAndRaw(col);
    add.Valid("ibp_f64_w32", {"11.2.3"},
              "A Float64 column of row_width 2 viewed as W = 32 words (B = 16, M = 4: each value is "
              "two words, low half first). 120 rows, one mask, packed and raw rows.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF32, 5, 64, 130, 1, 10, 30, 50, 1103);
    ExpectPackedAndRaw(col);
    add.Valid("ibp_f32_w64_odd_row_width", {"11.2.1", "11.2.3"},
              "A Float32 column of row_width 5 viewed as W = 64 words: B = 20 bytes, M = 3, so each "
              "row's last word holds one value and 4 zero bytes after B. 130 rows, one mask, packed "
              "and raw rows.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF16, 5, 32, 90, 1, 4, 30, 50, 1104);
    ExpectPackedAndRaw(col);
    add.Valid("ibp_f16_w32", {"11.2", "11.2.3"},
              "A Float16 column (format 1.1) of row_width 5 in an IbpFloat chunk with W = 32: B = 10 "
              "bytes, M = 3 (2 zero bytes after B). 90 rows, one mask, packed and raw rows.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kBF16, 15, 64, 100, 1, 3, 30, 50, 1105);
    ExpectPackedAndRaw(col);
    add.Valid("ibp_bf16_w64", {"11.2", "11.2.3"},
              "A BFloat16 column (format 1.1) of row_width 15 in an IbpFloat chunk with W = 64: B = 30 "
              "bytes, M = 4 (2 zero bytes after B). 100 rows, one mask, packed and raw rows.",
              {col});
  }
  {
    Rng rng(1106);
    std::vector<uint64_t> v(4 * 70);
    for (uint64_t& x : v) x = rng.Next() & 0xFFFFFFFF;
    IbpSpec spec;
    spec.masks = {{0xFF000000, 0xFF000000, 0xFF000000, 0xFF000000}};
    spec.bitvals = {{0x3F000000, 0x3F000000, 0x3F000000, 0x3F000000}};
    ColumnSpec col = IbpColumn("v", Ty::kF32, 4, v, spec);
    const EncodedIbp e = EncodeIbp(Ty::kF32, 4, v, spec);
    for (bool p : e.packed) {
      if (p) Fail("ibp_all_raw_f32: a row packed");
    }
    BuildOptions opt;
    opt.edit_footer = [](FooterModel& f) { Chunk0(f).ibp->offset_bits = 0; };
    add.Valid("ibp_all_raw_f32", {"11.2.3"},
              "A Float32 column of row_width 4 (W = 32, M = 4) whose 70 random rows would not get "
              "smaller with the chunk's one mask, so every row is raw: no row_offsets segment, "
              "offset_bits written as 0, Start(r) = 4 r.",
              {col}, opt);
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF32, 8, 32, 200, 3, 10, 20, 40, 1107);
    ExpectPackedAndRaw(col, true);
    add.Valid("ibp_three_masks_f32", {"11.2.3"},
              "A Float32 column of row_width 8 (W = 32, M = 8) in an IbpFloat chunk of 200 rows with "
              "K = 3 masks (one per row template; the templates lie in [0.5, 2), [1, 4) and [2, 8)) "
              "and a cluster_ids segment: 4 index blocks, the last of 8 rows; packed rows (some with "
              "words stored whole) and raw rows.",
              {col});
  }
  {
    // M = 2: a packed row of one bitmap word and no stream, when every word
    // agrees with an all-ones mask.
    Rng rng(1108);
    std::vector<uint64_t> v;
    for (uint64_t r = 0; r < 65; ++r) {
      const bool same = r % 3 != 1;
      v.push_back(same ? F32(1.5f) : (rng.Next() & 0xFFFFFFFF));
      v.push_back(same ? F32(-0.25f) : (rng.Next() & 0xFFFFFFFF));
    }
    IbpSpec spec;
    spec.masks = {{0xFFFFFFFF, 0xFFFFFFFF}};
    spec.bitvals = {{F32(1.5f), F32(-0.25f)}};
    ColumnSpec col = IbpColumn("v", Ty::kF32, 2, v, spec);
    ExpectPackedAndRaw(col);
    add.Valid("ibp_bitmap_only_rows_f32", {"11.2.3"},
              "A Float32 column of row_width 2 (W = 32, M = 2) whose mask covers every bit: rows "
              "equal to Bitval {1.5, -0.25} pack to the bitmap word 0x00000003 alone (L_r = 1, no "
              "stream words), other rows are raw. 65 rows: the second index block holds one row.",
              {col});
  }
  {
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF32, 6, 32, 150, 2, 10, 20, 40, 1109);
    ExpectPackedAndRaw(col);
    BuildOptions zstd;
    zstd.zstd = true;
    add.Valid("ibp_zstd_segments", {"9.1", "11.2.3", "4.4"},
              "An IbpFloat chunk (Float32, row_width 6, K = 2 masks, 150 rows) whose masks, "
              "row_offsets, cluster_ids and payload segments are each one zstd frame (the archive "
              "profile; ZSTD_SEGMENTS set).",
              {col}, zstd);
  }
  // The integer form (spec §11.2.2) with special values.
  for (Ty t : {Ty::kF32, Ty::kF64, Ty::kF16, Ty::kBF16}) {
    Rng rng(1200 + static_cast<int>(t));
    const int F = TypeBits(t);
    const uint32_t R = t == Ty::kF16 ? 4 : t == Ty::kBF16 ? 3 : 1;
    // Partition 0: the specials and random patterns (NaNs included), FOR.
    std::vector<uint64_t> v = Specials(t);
    while (v.size() < 64) v.push_back(rng.Next() & LowMask(F));
    std::vector<PartSpec> parts = {Part(64, kFor)};
    // Partition 1: a ramp of positive values, LINEAR (DELTA for Float64,
    // whose mapped values exceed 2^53, spec §8.8 rule 3).
    const uint64_t one = Specials(t)[6];
    const uint64_t step = F == 16 ? 3 : F == 32 ? 8192 : (uint64_t{1} << 40);
    PartSpec ramp;
    ramp.n = 96;
    ramp.model = t == Ty::kF64 ? kDelta : kLinear;
    std::array<double, 4> theta{};
    const std::vector<uint64_t> r = Ramp(t, one, step, 96, F == 16 ? 1 : 4, rng, &theta);
    if (ramp.model == kLinear) ramp.theta = theta;
    v.insert(v.end(), r.begin(), r.end());
    parts.push_back(ramp);
    // Partition 2: runs of -0 and +0 (mapped 2^(F-1) - 1 and 2^(F-1)).
    const uint64_t sign = uint64_t{1} << (F - 1);
    for (uint32_t x = 0; x < 32; ++x) v.push_back((x / 5) % 2 == 0 ? sign : 0);
    parts.push_back(Part(32, kConstant));
    ColumnSpec col = IntegerFormColumn("v", t, R, v, parts);
    const uint32_t rows = 192 / R;
    add.Valid(Fmt("float_integer_form_%s_specials", TypeName(t)), {"11.2", "11.2.2"},
              Fmt("A %s column%s in the integer form (an L3Integer chunk over %s values): 192 "
                  "values in three partitions: FOR over +-0, subnormals, +-max, +-inf and NaNs with "
                  "payloads (quiet and signaling, either sign) and random patterns; %s over a ramp "
                  "from 1.0; runs of -0.0 and +0.0. Every bit pattern must come back unchanged.",
                  t == Ty::kF32 ? "Float32" : t == Ty::kF64 ? "Float64" : t == Ty::kF16 ? "Float16" : "BFloat16",
                  R == 1 ? "" : Fmt(" of row_width %u (%u rows; partitions need not align with rows)", R, rows).c_str(),
                  TypeName(IntegerFormType(t)), t == Ty::kF64 ? "DELTA" : "LINEAR"),
              {col});
  }
  {
    Rng rng(1300);
    const uint32_t rows = 120, R = 5;
    std::vector<uint64_t> v;
    for (uint32_t i = 0; i < rows * R / 2; ++i) v.push_back(NearOne(Ty::kF32, rng, 0) & ~uint64_t{0xFF});
    PartSpec lin;
    lin.n = rows * R / 2;
    lin.model = kLinear;
    const std::vector<uint64_t> ramp = Ramp(Ty::kF32, F32(100.0f), 4096, lin.n, 6, rng, &lin.theta);
    v.insert(v.end(), ramp.begin(), ramp.end());
    ColumnSpec tensor = IntegerFormColumn("embedding", Ty::kF32, R, v, {Part(rows * R / 2, kFor), lin});
    ColumnSpec ids = Column("id", Ty::kI32, Signed(Ty::kI32, [&] {
                              std::vector<int64_t> x(rows);
                              for (uint32_t i = 0; i < rows; ++i) x[i] = 1000 + 7 * static_cast<int64_t>(i);
                              return x;
                            }()),
                            {Part(rows, kLinear, {1000.0, 7.0, 0, 0})});
    add.Valid("float_tensor_beside_integer", {"11.2.1", "11.2.2", "6.1"},
              "Two columns of 120 rows: an i32 column and a Float32 tensor column of row_width 5 "
              "(a [120, 5] array, row-major) in the integer form, whose 600 values are coded as "
              "FOR and LINEAR partitions of 300 values each.",
              {ids, tensor});
  }
  {
    Rng rng(1301);
    const uint32_t R = 3;
    const FloatRows rows = TemplateRows(Ty::kF64, R, 80, 1, 16, 30, 60, rng);
    ColumnSpec col;
    col.name = "v";
    col.type = Ty::kF64;
    col.row_width = R;
    ChunkSpec a;
    a.values = rows.values;
    a.ibp = SpecFor(Ty::kF64, R, 64, rows, 1, 0.9);
    ChunkSpec b;
    for (uint32_t i = 0; i < 50 * R; ++i) b.values.push_back(NearOne(Ty::kF64, rng, 3));
    b.parts = Cut(50 * R, 64, kFor);
    col.chunks = {a, b};
    ExpectPackedAndRaw(col);
    add.Valid("float_two_chunks_ibp_and_integer_form", {"11.2.1", "11.2.2", "11.2.3", "6.2"},
              "A Float64 column of row_width 3 in two chunks: an IbpFloat chunk of 80 rows (W = 64), "
              "then an L3Integer chunk in the integer form of 50 rows (150 values in FOR partitions "
              "of 64, 64 and 22 values).",
              {col});
  }
  {
    Rng rng(1302);
    std::vector<uint64_t> v;
    double x = 1.7e9;
    for (int i = 0; i < 500; ++i) {
      x += 0.001 * static_cast<double>(1 + rng.Below(5));
      v.push_back(DoubleBits(x));
    }
    ColumnSpec col = IntegerFormColumn("t", Ty::kF64, 1, v, {Part(250, kDelta), Part(250, kDelta)}, 4);
    BuildOptions planes;
    planes.field_planes = true;
    add.Valid("float_integer_form_delta_field_planes_f64", {"11.2.2", "8.9", "9.2"},
              "A Float64 column of 500 increasing values near 1.7e9 (timestamps in seconds) in the "
              "integer form: two DELTA partitions (V = 4) over the mapped values, the payload stored "
              "as ZstdFieldPlanes (DELTA_MODEL and FIELD_PLANES set).",
              {col}, planes);
  }
}

// ---------------------------------------------------------------------------
// deep/

void AddFloatDeepCases(std::vector<Case>* cases) {
  const Adders add{cases};
  // The example chunk (mask B): row 0 is the packed example row.
  auto example = [] {
    Rng rng(2101);
    ColumnSpec col = IbpColumn("v", Ty::kF32, 3, ExampleRows(40, 7, rng), ExampleSpec(true));
    return col;
  };
  {
    BuildOptions opt;
    opt.edit_ibp = [](int, int, EncodedIbp& e) {
      if (!e.packed[0]) Fail("deep ibp: row 0 must be packed");
      SetIbpWord(&e.payload, 32, 0, 0x00000007u | (1u << 20));
    };
    add.Deep("ibp_bitmap_bits_past_m", {"11.2.3", "11.2.4", "10.3"},
             "An IbpFloat chunk (Float32, row_width 3, M = 3) whose packed row 0 has bitmap word "
             "0x00100007: bit 20 lies past M, so it must be zero. A decoder ignores it.",
             "CORRUPT_PAYLOAD", {example()}, opt);
  }
  {
    BuildOptions opt;
    opt.edit_ibp = [](int, int, EncodedIbp& e) {
      if (IbpWord(e.payload, 32, 1) != 0x12347800) Fail("deep ibp: unexpected stream word");
      SetIbpWord(&e.payload, 32, 1, 0x12347801);
    };
    add.Deep("ibp_stream_bits_after_last_field", {"11.2.3", "11.2.4", "10.3"},
             "The packed example row of spec §11.2.3 with stream word 0x12347801 instead of "
             "0x12347800: its 24 bits of fields are followed by a set bit (rule 5: the bits after "
             "the last field are zero). A decoder ignores it.",
             "CORRUPT_PAYLOAD", {example()}, opt);
  }
  {
    // Float32, row_width 3, W = 64: B = 12, M = 2, 4 bytes after B.
    ColumnSpec col = TemplateIbpColumn("v", Ty::kF32, 3, 64, 60, 1, 4, 0, 100, 2102);
    const EncodedIbp e = EncodeIbp(col.type, 3, col.chunks[0].values, *col.chunks[0].ibp);
    uint64_t raw_row = 0;
    while (raw_row < e.num_rows && e.packed[raw_row]) ++raw_row;
    if (raw_row == e.num_rows) Fail("ibp_raw_row_bytes_after_b_nonzero: no raw row");
    BuildOptions opt;
    opt.edit_ibp = [raw_row](int, int, EncodedIbp& c) {
      // Byte 12 of the row: bit 32 of its second word.
      const uint64_t w = c.start[raw_row] + 1;
      SetIbpWord(&c.payload, 64, w, IbpWord(c.payload, 64, w) | (uint64_t{1} << 32));
    };
    add.Deep("ibp_raw_row_bytes_after_b_nonzero", {"11.2.3", "11.2.4", "10.3"},
             Fmt("A Float32 column of row_width 3 viewed as W = 64 words (B = 12, M = 2): raw row %u "
                 "has byte 12 (the first byte after B) set to 1. Its values are the first 12 bytes; "
                 "the bytes after them must be zero.",
                 static_cast<unsigned>(raw_row)),
             "CORRUPT_PAYLOAD", {col}, opt);
  }
  {
    // Float32, row_width 7, W = 64: B = 28, M = 4; the mask leaves the 4 bytes
    // after B free, so a row with a bit set there still packs.
    Rng rng(2103);
    const FloatRows rows = TemplateRows(Ty::kF32, 7, 50, 1, 6, 0, 0, rng);
    IbpSpec spec = SpecFor(Ty::kF32, 7, 64, rows, 1, 0.9);
    spec.masks[0][3] &= 0xFFFFFFFFull;
    spec.bitvals[0][3] &= 0xFFFFFFFFull;
    spec.edit_words = [](uint64_t row, std::vector<uint64_t>& words) {
      if (row == 4) words[3] |= uint64_t{1} << 45;
    };
    ColumnSpec col = IbpColumn("v", Ty::kF32, 7, rows.values, spec);
    const EncodedIbp e = EncodeIbp(col.type, 7, rows.values, spec);
    if (!e.packed[4]) Fail("ibp_packed_row_bytes_after_b_nonzero: row 4 must be packed");
    add.Deep("ibp_packed_row_bytes_after_b_nonzero", {"11.2.3", "11.2.4", "10.3"},
             "A Float32 column of row_width 7 viewed as W = 64 words (B = 28, M = 4) whose mask "
             "leaves the upper half of word 3 (the 4 bytes after B) free: packed row 4 decodes to "
             "a word 3 with bit 45 set, so byte 29 of the row is nonzero. The row's values are its "
             "first 28 bytes.",
             "CORRUPT_PAYLOAD", {col});
  }
  {
    BuildOptions opt;
    opt.edit_ibp = [](int, int, EncodedIbp& e) { e.payload.back() = 0x80; };
    add.Deep("ibp_payload_padding_nonzero", {"11.2.3", "11.2.4", "10.3"},
             "An IbpFloat chunk whose payload's last padding byte (of the 32 after the rows' "
             "words) is 0x80.",
             "CORRUPT_PAYLOAD", {example()}, opt);
  }
}

// ---------------------------------------------------------------------------
// invalid/

void AddFloatInvalidCases(std::vector<Case>* cases) {
  const Adders add{cases};
  auto file = [](const std::vector<ColumnSpec>& cols, const BuildOptions& opt = {}) {
    return BuildTable(cols, opt).file;
  };
  // A Float32 column of row_width 8 (W = 32, M = 8), one mask, 130 rows (3
  // index blocks), packed and raw rows.
  const ColumnSpec ibp1 = TemplateIbpColumn("v", Ty::kF32, 8, 32, 130, 1, 10, 20, 60, 3101);
  ExpectPackedAndRaw(ibp1);
  // The same shape with K = 2 masks and cluster_ids.
  const ColumnSpec ibp2 = TemplateIbpColumn("v", Ty::kF32, 8, 32, 130, 2, 10, 20, 60, 3102);
  ExpectPackedAndRaw(ibp2);
  // Every row raw (no row_offsets).
  ColumnSpec raw = ibp1;
  raw.chunks[0].ibp->masks = {std::vector<uint64_t>(8, 0xFFFFFFFF)};
  raw.chunks[0].ibp->bitvals = {std::vector<uint64_t>(8, 0)};
  // A Float32 column in the integer form: 300 values, FOR then LINEAR.
  ColumnSpec form;
  {
    Rng rng(3103);
    std::vector<uint64_t> v;
    for (int i = 0; i < 150; ++i) v.push_back(NearOne(Ty::kF32, rng, 0) & ~uint64_t{0xFFF});
    PartSpec lin;
    lin.n = 150;
    lin.model = kLinear;
    const std::vector<uint64_t> r = Ramp(Ty::kF32, F32(3.0f), 4096, 150, 5, rng, &lin.theta);
    v.insert(v.end(), r.begin(), r.end());
    form = IntegerFormColumn("v", Ty::kF32, 1, v, {Part(150, kFor), lin});
  }
  auto ibp_footer = [&](const std::string& name, const std::string& desc,
                        std::function<void(IbpModel&, ChunkModel&)> edit, const ColumnSpec& col,
                        std::vector<std::string> sections = {"11.2.3", "11.2.4"}) {
    BuildOptions opt;
    opt.edit_footer = [edit](FooterModel& f) { edit(*Chunk0(f).ibp, Chunk0(f)); };
    add.Invalid(name, std::move(sections), desc, "CORRUPT_METADATA", "open", file({col}, opt));
  };

  // Feature bit and row width (spec §4.4, §11.2.1).
  {
    BuildOptions opt;
    opt.finish.edit_postscript = [](PostscriptFields& ps) { ps.required_features &= ~uint64_t{4}; };
    add.Invalid("float_column_ibp_float_clear", {"4.4", "11.2"},
                "A valid IbpFloat chunk (Float32, row_width 8) in a file whose IBP_FLOAT "
                "(Required_Features bit 2) is clear: a float column needs it.",
                "CORRUPT_METADATA", "open", file({ibp1}, opt));
    BuildOptions form_clear = opt;
    add.Invalid("float_integer_form_ibp_float_clear", {"4.4", "11.2", "11.2.2"},
                "A valid Float32 column in the integer form (Format_Minor 1) with IBP_FLOAT clear: "
                "every float column needs the bit, whatever its chunks' encoding.",
                "CORRUPT_METADATA", "open", file({form}, form_clear));
  }
  {
    BuildOptions opt;
    opt.finish.header.format_minor = 1;
    opt.finish.edit_postscript = [](PostscriptFields& ps) { ps.required_features |= 4; };
    add.Invalid("ibp_float_bit_without_float_column", {"4.4", "11.2"},
                "IBP_FLOAT (Required_Features bit 2) set in a format 1.1 file whose only column is "
                "an i32 column (a known bit set for a feature the file does not use).",
                "CORRUPT_METADATA", "open", file({ForLinearRunsColumn(200, 777)}, opt));
  }
  {
    BuildOptions opt;
    opt.finish.header.format_minor = 1;
    opt.edit_footer = [](FooterModel& f) { (*f.columns)[0].row_width = 2; };
    add.Invalid("row_width_2_integer_column", {"6.2", "11.2.1"},
                "An i32 column (Format_Minor 1) with row_width 2: integer columns have R = 1.",
                "CORRUPT_METADATA", "open", file({ForLinearRunsColumn(200, 777)}, opt));
  }
  {
    // One row of 2^24 + 1 values in the integer form: one CONSTANT partition
    // (Bit_Width 0, no payload words) covers all of them.
    const uint32_t R = (1u << 24) + 1;
    ColumnSpec col = IntegerFormColumn("v", Ty::kF32, 1, {F32(0.5f)}, {Part(1, kConstant)});
    BuildOptions opt;
    opt.edit_chunk = [R](int, int, EncodedChunk& c) { SetLE(&c.partition_table[16], R, 4); };
    opt.edit_footer = [R](FooterModel& f) { (*f.columns)[0].row_width = R; };
    add.Invalid("row_width_2p24_plus_1", {"11.2.1"},
                "A Float32 column of one row with row_width 2^24 + 1 (the limit is 2^24), in the "
                "integer form: one CONSTANT partition of Bit_Width 0 (the value 0.5) covers its "
                "2^24 + 1 values.",
                "CORRUPT_METADATA", "open", file({col}, opt));
  }
  // The IbpMasks table (spec §11.2.3).
  ibp_footer("ibp_vector_length_wrong", "vector_length 9 for rows of 8 Float32 values with W = 32 (M = 8).",
             [](IbpModel& m, ChunkModel&) { m.vector_length = 9; }, ibp1);
  ibp_footer("ibp_num_vectors_wrong", "num_vectors 129 in a chunk of 130 rows.",
             [](IbpModel& m, ChunkModel&) { m.num_vectors = 129; }, ibp1);
  ibp_footer("ibp_element_bytes_2", "element_bytes 2 (W / 8 must be 4 or 8); the rest is a W = 32 chunk.",
             [](IbpModel& m, ChunkModel&) { m.element_bytes = 2; }, ibp1);
  ibp_footer("ibp_layout_in_place", "layout InPlace (0, reserved); only Condensed (1) is defined.",
             [](IbpModel& m, ChunkModel&) { m.layout = 0; }, ibp1);
  ibp_footer("ibp_num_clusters_0",
             "num_clusters 0 (K >= 1); the masks segment holds the one mask the rows use.",
             [](IbpModel& m, ChunkModel&) { m.num_clusters = 0; }, ibp1);
  {
    // K = 257 masks, all present, and cluster_ids (every id below 256).
    ColumnSpec col = ibp2;
    IbpSpec& s = *col.chunks[0].ibp;
    while (s.masks.size() < 257) {
      s.masks.push_back(s.masks[s.masks.size() % 2]);
      s.bitvals.push_back(s.bitvals[s.bitvals.size() % 2]);
    }
    add.Invalid("ibp_num_clusters_257",  {"11.2.3", "11.2.4"},
                "num_clusters 257 (K <= 256) with 257 masks in the masks segment and cluster_ids "
                "(the rows use masks 0 and 1).",
                "CORRUPT_METADATA", "open", file({col}));
  }
  {
    BuildOptions opt;
    opt.extra_segments = {Bytes(4 * ((130 + 31) / 32), 0xFF)};
    opt.attach = [](FooterModel& f, const std::vector<SegRef>& extra) { Chunk0(f).ibp->row_bitmask = extra[0]; };
    add.Invalid("ibp_row_bitmask_present", {"11.2.3", "11.2.4"},
                "row_bitmask (reserved, MUST be absent) references a segment of 20 bytes placed "
                "after the chunk's segments.",
                "CORRUPT_METADATA", "open", file({ibp1}, opt));
  }
  {
    BuildOptions opt;
    opt.omit = [](int, int, SegKind kind) { return kind == SegKind::kIbpClusterIds; };
    add.Invalid("ibp_cluster_ids_missing", {"11.2.3", "11.2.4"},
                "num_clusters 2 without a cluster_ids segment (required when K > 1; its bytes are "
                "not in the file either).",
                "CORRUPT_METADATA", "open", file({ibp2}, opt));
    BuildOptions one;
    one.extra_segments = {Bytes(130, 0)};
    one.attach = [](FooterModel& f, const std::vector<SegRef>& extra) { Chunk0(f).ibp->cluster_ids = extra[0]; };
    add.Invalid("ibp_cluster_ids_with_one_mask", {"11.2.3", "11.2.4"},
                "num_clusters 1 with a cluster_ids segment (130 zero bytes, placed after the "
                "chunk's segments): absent when K = 1.",
                "CORRUPT_METADATA", "open", file({ibp1}, one));
  }
  {
    BuildOptions opt;
    opt.omit = [](int, int, SegKind kind) { return kind == SegKind::kIbpMasks; };
    add.Invalid("ibp_masks_missing", {"11.2.3", "11.2.4"},
                "An IbpFloat chunk without its masks segment (required).", "CORRUPT_METADATA", "open",
                file({ibp1}, opt));
    BuildOptions table;
    table.omit = [](int, int, SegKind kind) { return kind != SegKind::kPayload; };
    table.edit_footer = [](FooterModel& f) { Chunk0(f).ibp.reset(); };
    add.Invalid("ibp_table_missing", {"7.2", "11.2.3"},
                "An IbpFloat chunk with a payload but no ibp table (required; the masks, "
                "row_offsets and cluster_ids bytes are not in the file either).",
                "CORRUPT_METADATA", "open", file({ibp1}, table));
  }
  ibp_footer("ibp_offset_bits_0_with_row_offsets",
             "offset_bits 0 with a row_offsets segment (b must be 1..32).",
             [](IbpModel& m, ChunkModel&) { m.offset_bits = 0; }, ibp1);
  {
    ColumnSpec col = ibp1;
    col.chunks[0].ibp->offset_bits = 33;
    add.Invalid("ibp_offset_bits_33", {"11.2.3", "11.2.4"},
                "offset_bits 33 (b <= 32); the row_offsets segment holds 33-bit fields, so its "
                "length agrees with b.",
                "CORRUPT_METADATA", "open", file({col}));
  }
  {
    BuildOptions opt;
    opt.edit_footer = [](FooterModel& f) { Chunk0(f).ibp->offset_bits = 3; };
    add.Invalid("ibp_offset_bits_3_without_row_offsets", {"11.2.3", "11.2.4"},
                "An IbpFloat chunk whose rows are all raw (no row_offsets) with offset_bits 3 "
                "(0 without row_offsets).",
                "CORRUPT_METADATA", "open", file({raw}, opt));
  }
  {
    BuildOptions opt;
    Bytes table(32, 0);
    SetLE(&table[16], 130, 4);  // a one-partition table's sentinel First_Row
    opt.extra_segments = {table};
    opt.attach = [](FooterModel& f, const std::vector<SegRef>& extra) { Chunk0(f).partition_table = extra[0]; };
    add.Invalid("ibp_chunk_with_partition_table", {"7.2", "11.2.3"},
                "An IbpFloat chunk that also references a partition_table segment (32 bytes placed "
                "after its segments); partition_table and parameters are absent from IbpFloat "
                "chunks.",
                "CORRUPT_METADATA", "open", file({ibp1}, opt));
  }
  {
    // A u32 column whose chunk is an IbpFloat chunk of 1-value rows (as a
    // Float32 chunk would be; IBP_FLOAT clear, since no column is float).
    Rng rng(3104);
    const FloatRows rows = TemplateRows(Ty::kF32, 1, 100, 1, 8, 0, 0, rng);
    ColumnSpec col = IbpColumn("v", Ty::kU32, 1, rows.values, SpecFor(Ty::kF32, 1, 32, rows, 1, 0.9), false);
    BuildOptions opt;
    opt.finish.header.format_minor = 1;
    opt.finish.edit_postscript = [](PostscriptFields& ps) { ps.required_features &= ~uint64_t{4}; };
    add.Invalid("ibp_encoding_on_integer_column", {"7.2", "11.2.3"},
                "A u32 column (Format_Minor 1, IBP_FLOAT clear) whose chunk is an IbpFloat chunk "
                "with a consistent ibp table (W = 32, M = 1, rows raw): encoding IbpFloat is for "
                "float columns only.",
                "CORRUPT_METADATA", "open", file({col}, opt));
  }
  // What a float chunk must not have (spec §11.2.1).
  {
    BuildOptions bounds;
    bounds.float_bounds = true;
    bounds.statistics = false;
    add.Invalid("float_chunk_with_bounds", {"11.2.1", "7.5"},
                "A Float32 column in the integer form whose chunk has a bounds segment (the minima "
                "and maxima of its mapped values; PARTITION_BOUNDS set): reserved on float chunks.",
                "CORRUPT_METADATA", "open", file({form}, bounds));
    BuildOptions stats;
    stats.float_statistics = true;
    add.Invalid("float_chunk_with_statistics", {"11.2.1", "7.6"},
                "A Float32 column in the integer form whose chunk has a ChunkStatistics table (of "
                "its mapped values): reserved on float chunks.",
                "CORRUPT_METADATA", "open", file({form}, stats));
    BuildOptions stats_ibp;
    stats_ibp.edit_footer = [](FooterModel& f) {
      Statistics s;
      s.has_min_max = false;
      s.distinct_count_exact = false;
      Chunk0(f).statistics = s;
    };
    add.Invalid("ibp_chunk_with_statistics", {"11.2.1", "7.6"},
                "An IbpFloat chunk with a ChunkStatistics table (every field at its default): "
                "reserved on float chunks.",
                "CORRUPT_METADATA", "open", file({ibp1}, stats_ibp));
    // A sorted column: 1.0 + 3 ulp steps, mapped 0xBF800000 + 3 x.
    std::vector<uint64_t> sorted;
    for (uint64_t x = 0; x < 300; ++x) sorted.push_back(0x3F800000 + 3 * x);
    ColumnSpec col = IntegerFormColumn("v", Ty::kF32, 1, sorted,
                                       {Part(300, kLinear, {static_cast<double>(0xBF800000u), 3.0, 0, 0})});
    BuildOptions pgm;
    pgm.edit_footer = [](FooterModel& f) {
      PgmModel p;
      p.epsilon = 64;
      p.epsilon_recursive = 4;
      p.num_keys = 300;
      p.level_offsets = {0, 1};
      p.segment_keys = std::vector<uint64_t>{0xBF800000u};
      p.segment_slopes = std::vector<float>{1.0f / 3.0f};
      p.segment_intercepts = std::vector<uint64_t>{0};
      Chunk0(f).pgm = p;
    };
    add.Invalid("float_chunk_with_pgm", {"11.2.1", "11.3"},
                "A sorted Float32 column (1.0 in steps of 3 ulp) in the integer form whose chunk has "
                "a PgmIndex over its mapped values (one segment: key 0xBF800000, slope 1/3, "
                "intercept 0; PGM_INDEX set): reserved on float chunks.",
                "CORRUPT_METADATA", "open", file({col}, pgm));
  }
  {
    // num_rows 2^31 rows of 2 values: E = 2^32 > 2^32 - 1. The partition
    // table (one CONSTANT partition) cannot describe E either; its sentinel
    // holds the most a u32 can.
    ColumnSpec col = IntegerFormColumn("v", Ty::kF32, 2, {F32(2.0f), F32(2.0f)}, {Part(2, kConstant)});
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) { SetLE(&c.partition_table[16], 0xFFFFFFFFu, 4); };
    opt.edit_footer = [](FooterModel& f) {
      f.num_rows = uint64_t{1} << 31;
      Chunk0(f).num_rows = uint64_t{1} << 31;
    };
    add.Invalid("float_integer_form_values_over_2p32", {"11.2.2", "7.2"},
                "A Float32 column of row_width 2 whose integer-form chunk has num_rows 2^31: "
                "E = num_rows * R = 2^32 values, above 2^32 - 1.",
                "CORRUPT_METADATA", "open", file({col}, opt));
  }
  // First use of an IBP chunk (spec §11.2.4 steps 2-4).
  auto use = [&](const std::string& name, const std::string& desc, const std::string& cls,
                 std::function<void(EncodedIbp&)> edit, const ColumnSpec& col,
                 const std::string& stage = "read") {
    BuildOptions opt;
    opt.edit_ibp = [edit](int, int, EncodedIbp& e) { edit(e); };
    add.Invalid(name, {"11.2.3", "11.2.4"}, desc, cls, stage, file({col}, opt));
  };
  use("ibp_masks_length_wrong",
      "The masks segment holds 8 bytes more than 2 * K * M * W / 8 = 64 (decoded_length 72).",
      "CORRUPT_METADATA", [](EncodedIbp& e) { e.masks.insert(e.masks.end(), 8, 0); }, ibp1);
  use("ibp_row_offsets_length_wrong",
      "The row_offsets segment holds one u64 word more than 8 * (G + 1) + 8 * ceil_div(num_rows * b, 64).",
      "CORRUPT_METADATA", [](EncodedIbp& e) { e.row_offsets.insert(e.row_offsets.end(), 8, 0); }, ibp1);
  use("ibp_cluster_ids_length_wrong", "The cluster_ids segment holds 131 bytes for 130 rows.",
      "CORRUPT_METADATA", [](EncodedIbp& e) { e.cluster_ids.push_back(0); }, ibp2);
  use("ibp_bitval_outside_mask",
      "Mask 0's word 2 has Bitval bit 0 set where its Mask bit is clear (Bitval & ~Mask must be 0).",
      "CORRUPT_METADATA",
      [](EncodedIbp& e) {
        const uint64_t mask = IbpWord(e.masks, 32, 2);
        if (mask & 1) Fail("ibp_bitval_outside_mask: mask bit 0 is set");
        SetIbpWord(&e.masks, 32, 8 + 2, IbpWord(e.masks, 32, 8 + 2) | 1);
      },
      ibp1);
  use("ibp_mask_id_out_of_range", "K = 2; the cluster_ids byte of row 5 is 2 (Mask_Id[r] < K).",
      "CORRUPT_METADATA", [](EncodedIbp& e) { e.cluster_ids[5] = 2; }, ibp2);
  use("ibp_block_start_0_nonzero",
      "Block_Start[0] = 1: every Block_Start is one more, and the payload starts with one extra "
      "zero word, so rows and lengths are unchanged and only the rule Block_Start[0] = 0 is broken.",
      "CORRUPT_METADATA",
      [](EncodedIbp& e) {
        for (uint64_t& s : e.start) s += 1;
        e.payload.insert(e.payload.begin(), 4, 0);
        WriteIbpRowIndex(&e, e.offset_bits);
      },
      ibp1);
  use("ibp_row_offset_block_first_nonzero",
      "Row_Offset[64] = 1 (the first row of block 1) with Block_Start[1] one less, so every Start(r) "
      "is unchanged and only the rule Row_Offset[64 g] = 0 is broken.",
      "CORRUPT_METADATA",
      [](EncodedIbp& e) {
        const uint64_t n = e.num_rows, G = (n + 63) / 64;
        std::vector<uint64_t> block_start, row_offset;
        for (uint64_t g = 0; g < G; ++g) block_start.push_back(e.start[64 * g]);
        block_start.push_back(e.start[n]);
        block_start[1] -= 1;
        uint64_t widest = 0;
        for (uint64_t r = 0; r < n; ++r) {
          row_offset.push_back(e.start[r] - block_start[r / 64]);
          widest = std::max(widest, row_offset.back());
        }
        uint32_t b = 1;
        while ((widest >> b) != 0) ++b;
        e.row_offsets = IbpRowIndexBytes(block_start, row_offset, b);
        e.offset_bits = b;
      },
      ibp1);
  // Rows 5 (raw) of ibp1, for the length cases.
  {
    const EncodedIbp e = EncodeIbp(Ty::kF32, 8, ibp1.chunks[0].values, *ibp1.chunks[0].ibp);
    uint64_t raw_row = 5;
    while (e.packed[raw_row]) ++raw_row;
    use("ibp_row_length_zero",
        Fmt("Row %u has length 0: its words are removed from the payload and every later Start "
            "moves down, so the index and the payload's length agree and only 1 <= L_r is broken.",
            static_cast<unsigned>(raw_row)),
        "CORRUPT_METADATA",
        [raw_row](EncodedIbp& c) {
          const uint64_t L = c.start[raw_row + 1] - c.start[raw_row];
          c.payload.erase(c.payload.begin() + static_cast<long>(4 * c.start[raw_row]),
                          c.payload.begin() + static_cast<long>(4 * c.start[raw_row + 1]));
          for (uint64_t r = raw_row + 1; r <= c.num_rows; ++r) c.start[r] -= L;
          WriteIbpRowIndex(&c, 0);
        },
        ibp1);
    use("ibp_row_longer_than_m",
        Fmt("Raw row %u has length M + 1 = 9: a zero word follows its 8 words and every later "
            "Start moves up (L_r <= M).",
            static_cast<unsigned>(raw_row)),
        "CORRUPT_METADATA",
        [raw_row](EncodedIbp& c) {
          c.payload.insert(c.payload.begin() + static_cast<long>(4 * c.start[raw_row + 1]), 4, 0);
          for (uint64_t r = raw_row + 1; r <= c.num_rows; ++r) c.start[r] += 1;
          WriteIbpRowIndex(&c, 0);
        },
        ibp1);
  }
  use("ibp_payload_length_wrong",
      "The payload segment ends with 40 zero bytes instead of 32 (decoded_length W / 8 * "
      "Payload_Words + 40).",
      "CORRUPT_METADATA", [](EncodedIbp& e) { e.payload.insert(e.payload.end(), 8, 0); }, ibp1);
  {
    Rng rng(3105);
    const ColumnSpec example = IbpColumn("v", Ty::kF32, 3, ExampleRows(20, 7, rng), ExampleSpec(true));
    use("ibp_packed_row_length_disagrees",
        "The packed example row of spec §11.2.3 (2 words) with bitmap word 0x00000006: word 0 no "
        "longer participates, so its field is 32 bits and the row would need 1 + ceil_div(40, 32) "
        "= 3 words, not L_r = 2 (rule 5). Found when the row is decoded.",
        "CORRUPT_PAYLOAD", [](EncodedIbp& e) { SetIbpWord(&e.payload, 32, 0, 0x00000006); }, example,
        "decode");
  }
  {
    BuildOptions opt;
    opt.zstd = true;
    opt.edit_stored = [](int, int, SegKind kind, Bytes& stored, uint64_t&, uint8_t&) {
      if (kind == SegKind::kIbpRowOffsets) stored = Bytes(64, 0x5A);
    };
    add.Invalid("ibp_row_offsets_not_a_frame", {"9.1", "11.2.4"},
                "Every segment of an IbpFloat chunk is zstd; the row_offsets segment's stored bytes "
                "are 64 bytes of 0x5A, not a zstd frame (its decoded_length is right).",
                "CORRUPT_PAYLOAD", "read", file({ibp2}, opt));
  }
  // Segment checksums (spec §5, §11.2.4 step 1).
  const struct {
    const char* name;
    SegKind kind;
  } kSegs[] = {{"masks", SegKind::kIbpMasks},
               {"row_offsets", SegKind::kIbpRowOffsets},
               {"cluster_ids", SegKind::kIbpClusterIds},
               {"payload", SegKind::kPayload}};
  for (const auto& s : kSegs) {
    BuildOptions opt;
    const SegKind kind = s.kind;
    opt.edit_footer = [kind](FooterModel& f) {
      ChunkModel& c = Chunk0(f);
      std::optional<SegRef>* ref = kind == SegKind::kIbpMasks        ? &c.ibp->masks
                                   : kind == SegKind::kIbpRowOffsets ? &c.ibp->row_offsets
                                   : kind == SegKind::kIbpClusterIds ? &c.ibp->cluster_ids
                                                                     : &c.payload;
      (*ref)->checksum ^= 0x00010000u;
    };
    add.Invalid(Fmt("segment_checksum_ibp_%s", s.name), {"5", "11.2.4"},
                Fmt("An IbpFloat chunk (K = 2) whose %s segment's checksum field has one bit "
                    "flipped; the segment itself is intact.",
                    s.name),
                "CHECKSUM_MISMATCH", "read", file({ibp2}, opt), {"segment_checksums"});
  }
}

}  // namespace l3::conformance
