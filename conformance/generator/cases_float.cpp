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

}  // namespace l3::conformance
