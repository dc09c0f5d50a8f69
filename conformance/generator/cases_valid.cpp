// valid/: files every conforming reader must decode to the expected values,
// and that pass deep validation (spec §10.3). One feature per file where
// possible.
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "case_util.hpp"

namespace l3::conformance {
namespace {

constexpr double kTwo53 = 9007199254740992.0;

// spec §8.8 rule 3: conforming writers keep |v| <= 2^53 in LINEAR/POLY2/POLY3
// partitions of 64-bit columns. Only the case that documents the rule breaks it.
void CheckRule3(const ColumnSpec& col) {
  if (TypeBits(col.type) != 64) return;
  for (const ChunkSpec& k : col.chunks) {
    uint64_t row = 0;
    for (const PartSpec& p : k.parts) {
      if (p.model >= kLinear && p.model <= kPoly3) {
        for (uint64_t x = row; x < row + p.n; ++x) {
          const double mag = TypeSigned(col.type) ? std::fabs(static_cast<double>(static_cast<int64_t>(k.values[x])))
                                                  : static_cast<double>(k.values[x]);
          if (mag > kTwo53) Fail("column " + col.name + " breaks spec §8.8 rule 3");
        }
      }
      row += p.n;
    }
  }
}

struct Adder {
  std::vector<Case>* cases;
  void operator()(const std::string& name, std::vector<std::string> sections,
                  const std::string& description, const std::vector<ColumnSpec>& cols,
                  const BuildOptions& options = {}, bool allow_rule3 = false) const {
    if (!allow_rule3) {
      for (const ColumnSpec& c : cols) CheckRule3(c);
    }
    Case c;
    c.name = name;
    c.kind = "valid";
    c.sections = std::move(sections);
    c.description = description;
    c.file = BuildTable(cols, options).file;
    c.columns = ExpectedOf(cols);
    cases->push_back(std::move(c));
  }
};

const char* Slug(Model m) {
  switch (m) {
    case kConstant: return "runs";
    case kFor: return "for";
    case kLinear: return "linear";
    case kPoly2: return "poly2";
    case kPoly3: return "poly3";
    case kDelta: return "delta";
    case kRunsEf: return "runs_ef";
    case kPatchedFor: return "patched_for";
  }
  return "?";
}

const char* ModelName(Model m) {
  switch (m) {
    case kConstant: return "CONSTANT";
    case kFor: return "FOR_BITPACK";
    case kLinear: return "LINEAR";
    case kPoly2: return "POLY2";
    case kPoly3: return "POLY3";
    case kDelta: return "DELTA";
    case kRunsEf: return "RUNS_EF";
    case kPatchedFor: return "PATCHED_FOR";
  }
  return "?";
}

uint64_t LowMask(uint32_t w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

// Values of one partition of model m needing exactly width w (runs: w >= 1).
std::vector<uint64_t> WidthValues(Ty t, Model m, uint32_t V, uint32_t n, uint32_t w, Rng& rng,
                                  bool centered, PartSpec* part) {
  part->n = n;
  part->model = m;
  const uint64_t base = centered && TypeSigned(t) && w > 0
                            ? Canon(t, static_cast<uint64_t>(0) - (uint64_t{1} << (w - 1)))
                            : Canon(t, TypeMaxWord(t) - LowMask(w));
  if (m == kFor) return ForValues(t, base, w, n, rng);
  if (m == kConstant) return RunValues(t, base, w, n, w == 1 ? 6 : 7, rng);
  return PredictedValues(t, m, V, n, w, rng, &part->theta);
}

// The direct evaluation a + b x + c x^2 + d x^3 that the canonical predictor
// is not: how many rows it would get wrong.
uint64_t RowsWhereDirectDiffers(Model m, const std::array<double, 4>& th, uint32_t V, uint64_t n) {
  uint64_t differ = 0;
  for (uint64_t x = 0; x < n; ++x) {
    const double z = static_cast<double>(x);
    double direct = th[0] + th[1] * z;
    if (m >= kPoly2) direct = direct + th[2] * (z * z);
    if (m >= kPoly3) direct = direct + th[3] * (z * z * z);
    if (ToInt(direct) != ToInt(PredictY(m, th, x, V))) ++differ;
  }
  return differ;
}

// The canonical predictor with every a + b * c fused (what FMA contraction
// would compute): how many rows differ.
uint64_t RowsWhereFusedDiffers(Model m, const std::array<double, 4>& th, uint32_t V, uint64_t n) {
  const double a = th[0], b = th[1], c = th[2], d = th[3];
  uint64_t differ = 0;
  for (uint64_t x = 0; x < n; ++x) {
    const uint64_t S = 32 * uint64_t{V};
    const uint64_t k = (x % S) / 32;
    const double X0 = static_cast<double>((x / S) * S + x % 32);
    double y;
    if (m == kLinear) {
      y = std::fma(b, X0, a);
      for (uint64_t j = 0; j < k; ++j) y = std::fma(b, 32.0, y);
    } else if (m == kPoly2) {
      y = std::fma(c, X0 * X0, std::fma(b, X0, a));
      double d1 = std::fma(c * 32.0, std::fma(2.0, X0, 32.0), b * 32.0);
      const double d2 = 2.0 * (c * 1024.0);
      for (uint64_t j = 0; j < k; ++j) {
        y = y + d1;
        d1 = d1 + d2;
      }
    } else {
      auto E = [&](double z) { return std::fma(d, (z * z) * z, std::fma(c, z * z, std::fma(b, z, a))); };
      const double e0 = E(X0), e1 = E(X0 + 32.0), e2 = E(X0 + 64.0);
      y = e0;
      double d1 = e1 - e0, d2 = (e2 - e1) - d1;
      const double d3 = 6.0 * (d * 32768.0);
      for (uint64_t j = 0; j < k; ++j) {
        y = y + d1;
        d1 = d1 + d2;
        d2 = d2 + d3;
      }
    }
    if (ToInt(y) != ToInt(PredictY(m, th, x, V))) ++differ;
  }
  return differ;
}

std::vector<uint64_t> Iota(Ty t, uint64_t n, int64_t start, int64_t step) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = Canon(t, static_cast<uint64_t>(start + step * static_cast<int64_t>(i)));
  return v;
}

void Append(std::vector<uint64_t>* to, const std::vector<uint64_t>& from) {
  to->insert(to->end(), from.begin(), from.end());
}

const Ty kAllTypes[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64, Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};

void TypeCases(const Adder& add) {
  for (Ty t : kAllTypes) {
    Rng rng(100 + static_cast<int>(t));
    const int N = TypeBits(t);
    // FOR over the whole type range (Bit_Width N, minimum and maximum
    // present), then a narrow LINEAR partition.
    PartSpec p0 = Part(100, kFor);
    std::vector<uint64_t> v = ForValues(t, TypeMinWord(t), N, 100, rng);
    std::array<double, 4> theta = {20.5, 0.75, 0, 0};
    std::vector<int64_t> r(100);
    for (auto& x : r) x = rng.Between(-8, 7);
    r[0] = -8;
    Append(&v, FromResiduals(t, kLinear, theta, 64, r));
    ColumnSpec col = Column("v", t, v, {p0, Part(100, kLinear, theta)});
    ExpectWidths(col, {static_cast<uint32_t>(N), 4});
    add(Fmt("type_%s", TypeName(t)), {"6.2", "8.2", "8.3"},
        Fmt("PhysicalType %s (%d): a FOR_BITPACK partition over the whole type range "
            "(Bit_Width %d, the type's minimum and maximum present) and a LINEAR partition "
            "(Bit_Width 4).", TypeName(t), static_cast<int>(t), N, N),
        {col});
  }
}

void ConstantCases(const Adder& add) {
  add("constant_single_i32", {"8.1", "8.2", "8.3"},
      "One CONSTANT partition with Bit_Width 0: 1000 rows of -123456 (one parameter word, "
      "no payload).",
      {Column("v", Ty::kI32, std::vector<uint64_t>(1000, Canon(Ty::kI32, static_cast<uint64_t>(-123456))),
              {Part(1000, kConstant)})});
  {
    std::vector<uint64_t> v(300, 0x8000000000000000ull);
    v.insert(v.end(), 300, 0x7FFFFFFFFFFFFFFFull);
    v.insert(v.end(), 300, 0);
    add("constant_extremes_i64", {"8.2", "8.3"},
        "CONSTANT partitions holding INT64_MIN, INT64_MAX and 0 (Base words in canonical "
        "extension).",
        {Column("v", Ty::kI64, v, Cut(900, 300, kConstant))});
  }
  {
    std::vector<uint64_t> v(200, ~uint64_t{0});
    v.insert(v.end(), 200, 0);
    add("constant_extremes_u64", {"8.2", "8.3"}, "CONSTANT partitions holding 2^64 - 1 and 0.",
        {Column("v", Ty::kU64, v, Cut(400, 200, kConstant))});
  }
  {
    std::vector<uint64_t> v = {Canon(Ty::kI8, static_cast<uint64_t>(-128)), 127, 0, 5};
    std::vector<PartSpec> parts = Cut(4, 1, kConstant);
    add("constant_one_row_partitions_i8", {"7.3", "8.3"},
        "Four one-row CONSTANT partitions (-128, 127, 0, 5).", {Column("v", Ty::kI8, v, parts)});
  }
}

void RunCases(const Adder& add) {
  Rng rng(7);
  {
    // R = n: every row is its own run; pb = bitlen(n - 1) = 7.
    std::vector<uint64_t> v = RunValues(Ty::kU16, 1000, 9, 100, 100, rng);
    add("runs_r_equals_n_u16", {"8.7"},
        "A run partition (CONSTANT, Bit_Width 9) with Num_Runs = n_p = 100: every row is its own "
        "run; run starts are 7-bit fields 1..99.",
        {Column("v", Ty::kU16, v, {Part(100, kConstant)})});
  }
  {
    std::vector<uint64_t> v = RunValues(Ty::kI32, Canon(Ty::kI32, static_cast<uint64_t>(-70000)), 17, 3000, 512, rng);
    add("runs_512_i32", {"8.7"},
        "A run partition of 3000 rows with Num_Runs = 512 (Bit_Width 17, 12-bit run starts).",
        {Column("v", Ty::kI32, v, {Part(3000, kConstant)})});
  }
  {
    std::vector<uint64_t> v = RunValues(Ty::kU8, 3, 2, 2, 2, rng);
    add("runs_two_rows_u8", {"8.7"},
        "A run partition of 2 rows and 2 runs: pb = bitlen(1) = 1, the run start field is 1.",
        {Column("v", Ty::kU8, v, {Part(2, kConstant)})});
  }
  {
    // pb across powers of two: n = 3 (pb 2), 256 (pb 8), 257 (pb 9), 4097 (pb 13).
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    for (uint32_t n : {3u, 256u, 257u, 4097u}) {
      Append(&v, RunValues(Ty::kI16, 0, 4, n, 3, rng));
      parts.push_back(Part(n, kConstant));
    }
    add("runs_start_bits_i16", {"8.7"},
        "Run partitions of 3, 256, 257 and 4097 rows: run starts of pb = 2, 8, 9 and 13 bits "
        "(pb = bitlen(n_p - 1)).",
        {Column("v", Ty::kI16, v, parts)});
  }
  {
    // Adjacent runs with equal values: a SHOULD NOT (§8.8 rule 5), still valid.
    std::vector<uint64_t> v(60);
    for (int i = 0; i < 60; ++i) v[i] = i < 20 ? 4 : i < 40 ? 9 : 4;
    PartSpec p = Part(60, kConstant);
    p.extra_run_starts = {10, 30, 50};
    add("runs_adjacent_equal_u32", {"8.7", "8.8"},
        "Runs 4,4,9,9,4,4 (starts 0,10,20,30,40,50): adjacent runs with equal values are "
        "discouraged (spec §8.8 rule 5, SHOULD NOT) but valid.",
        {Column("v", Ty::kU32, v, {p})});
  }
  {
    std::vector<uint64_t> v(50000, 17);
    for (int i = 12000; i < 12001; ++i) v[i] = 200;
    for (int i = 30000; i < 50000; ++i) v[i] = 0;
    add("runs_long_partition_u8", {"8.7", "14"},
        "One run partition of 50000 rows (longer than the 8192 rows of the reference "
        "partitioner) with 4 runs, one of them a single row; 16-bit run starts.",
        {Column("v", Ty::kU8, v, {Part(50000, kConstant)})});
  }
}

void WidthCases(const Adder& add) {
  struct TW {
    Ty t;
    uint32_t w;
  };
  const TW kWidths[] = {{Ty::kI64, 0},  {Ty::kI64, 1},  {Ty::kI64, 31}, {Ty::kI64, 32},
                        {Ty::kI64, 33}, {Ty::kI64, 63}, {Ty::kI64, 64}, {Ty::kI32, 31},
                        {Ty::kI32, 32}, {Ty::kU32, 32}, {Ty::kU64, 64}};
  for (Model m : {kConstant, kFor, kLinear, kPoly2, kPoly3}) {
    for (const TW& tw : kWidths) {
      if (m == kConstant && tw.w == 0) continue;  // a run partition has Bit_Width > 0
      Rng rng(1000 + 100 * m + tw.w + 7 * static_cast<int>(tw.t));
      PartSpec part;
      const uint32_t V = 8;
      std::vector<uint64_t> v = WidthValues(tw.t, m, V, 300, tw.w, rng, true, &part);
      ColumnSpec col = Column("v", tw.t, v, {part}, V);
      ExpectWidths(col, {tw.w});
      std::string desc = Fmt("%s partition of 300 rows, Bit_Width %u, %s, V = 8 (one full tile "
                             "of 256 rows and a partial tile of 44).",
                             ModelName(m), tw.w, TypeName(tw.t));
      if (m == kConstant) desc = Fmt("Run partition (CONSTANT, Bit_Width %u) of 300 rows with %d runs, %s.",
                                     tw.w, tw.w == 1 ? 6 : 7, TypeName(tw.t));
      if (m >= kLinear && TypeBits(tw.t) == 64 && tw.w > 50) {
        desc += " Values stay within 2^53 (spec §8.8 rule 3); the wide residuals come from a "
                "prediction near -1.5 * 2^(w-2).";
      }
      add(Fmt("%s_w%u_%s", Slug(m), tw.w, TypeName(tw.t)), {"8.3", "8.5", m == kConstant ? "8.7" : "8.4"},
          desc, {col}, {}, false);
    }
  }
  // Sweeps: one partition per width.
  struct Sweep {
    Ty t;
    uint32_t V, n;
  };
  const Sweep kSweeps[] = {{Ty::kU64, 1, 37}, {Ty::kI16, 8, 300}, {Ty::kU8, 1, 100}};
  for (Model m : {kConstant, kFor, kLinear, kPoly2, kPoly3}) {
    for (const Sweep& s : kSweeps) {
      Rng rng(5000 + 10 * m + static_cast<int>(s.t));
      std::vector<uint64_t> v;
      std::vector<PartSpec> parts;
      std::vector<uint32_t> widths;
      for (uint32_t w = m == kConstant ? 1 : 0; w <= static_cast<uint32_t>(TypeBits(s.t)); ++w) {
        PartSpec part;
        Append(&v, WidthValues(s.t, m, s.V, s.n, w, rng, false, &part));
        parts.push_back(part);
        widths.push_back(w);
      }
      ColumnSpec col = Column("v", s.t, v, parts, s.V);
      ExpectWidths(col, widths);
      add(Fmt("%s_width_sweep_%s", Slug(m), TypeName(s.t)), {"8.3", "8.5", m == kConstant ? "8.7" : "8.4"},
          Fmt("%s partitions of %u rows with every Bit_Width from %u to %d, %s, V = %u: fields "
              "straddle byte and word boundaries at every offset.",
              m == kConstant ? "Run (CONSTANT)" : ModelName(m), s.n, widths.front(), TypeBits(s.t),
              TypeName(s.t), s.V),
          {col});
    }
  }
}

void PredictorCases(const Adder& add) {
  {
    // LINEAR predictions exactly on .5, values equal to the predictions
    // (Bit_Width 0), so any other rounding shows.
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const std::array<double, 4> thetas[] = {
        {0.5, 1.0, 0, 0}, {-0.5, -1.0, 0, 0}, {10.5, 0.5, 0, 0}, {-1000.5, 3.0, 0, 0}};
    for (const auto& th : thetas) {
      std::vector<int64_t> r(300, 0);
      Append(&v, FromResiduals(Ty::kI32, kLinear, th, 8, r));
      parts.push_back(Part(300, kLinear, th));
    }
    ColumnSpec col = Column("v", Ty::kI32, v, parts, 8);
    ExpectWidths(col, {0, 0, 0, 0});
    add("predictor_ties_linear_i32", {"8.4", "12.3"},
        "LINEAR partitions with Bit_Width 0 whose predictions land on .5: Theta = (0.5, 1), "
        "(-0.5, -1), (10.5, 0.5) (the example of spec §12.3) and (-1000.5, 3). ToInt rounds ties "
        "to even, for both parities and negative values (-0.5 -> 0, -1.5 -> -2, 2.5 -> 2).",
        {col});
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const std::array<double, 4> p2 = {0.5, 0, 1.0, 0}, p3 = {-0.5, 0, 0, 1.0}, p3b = {2.5, -1.0, 0.5, 0};
    Append(&v, FromResiduals(Ty::kI64, kPoly2, p2, 64, std::vector<int64_t>(200, 0)));
    Append(&v, FromResiduals(Ty::kI64, kPoly3, p3, 64, std::vector<int64_t>(150, 0)));
    Append(&v, FromResiduals(Ty::kI64, kPoly2, p3b, 64, std::vector<int64_t>(200, 0)));
    parts = {Part(200, kPoly2, p2), Part(150, kPoly3, p3), Part(200, kPoly2, p3b)};
    ColumnSpec col = Column("v", Ty::kI64, v, parts);
    ExpectWidths(col, {0, 0, 0});
    add("predictor_ties_poly_i64", {"8.4"},
        "POLY2 (0.5 + x^2), POLY3 (-0.5 + x^3) and POLY2 (2.5 - x + 0.5 x^2) partitions with "
        "Bit_Width 0: every prediction is an exact binary64 value ending in .5, rounded to even.",
        {col});
  }
  {
    // Ties at large magnitude, where binary64 still holds halves: [2^51, 2^52).
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const double two52 = 4503599627370496.0;
    const std::array<double, 4> thetas[] = {{two52 - 0.5, 0, 0, 0},
                                            {two52 - 2048.5, 1.0, 0, 0},
                                            {-(two52 - 0.5), 0, 0, 0},
                                            {-(two52 - 1.5), -1.0, 0, 0},
                                            {two52 / 2 + 0.5, 0, 0, 0}};
    for (const auto& th : thetas) {
      Append(&v, FromResiduals(Ty::kI64, kLinear, th, 64, std::vector<int64_t>(100, 0)));
      parts.push_back(Part(100, kLinear, th));
    }
    ColumnSpec col = Column("v", Ty::kI64, v, parts);
    ExpectWidths(col, {0, 0, 0, 0, 0});
    add("predictor_ties_near_2p52_i64", {"8.4"},
        "LINEAR predictions on .5 just below 2^52 in magnitude (2^52 - 0.5 -> 2^52, "
        "-(2^52 - 1.5) - x, 2^51 + 0.5 -> 2^51, ...), Bit_Width 0: ties to even where binary64 "
        "spacing is 0.5.",
        {col});
  }
  {
    // Saturation of ToInt, with small values (spec §8.8 rule 3) and
    // 64-bit residuals.
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const double two63 = 9223372036854775808.0;
    const double thetas[] = {two63, two63 - 1024.0, -two63, -two63 - 2048.0, 1e300, -1e300};
    for (double th : thetas) {
      for (int x = 0; x < 40; ++x) v.push_back(Canon(Ty::kI64, static_cast<uint64_t>(x - 20)));
      parts.push_back(Part(40, kLinear, {th, 0, 0, 0}));
    }
    add("predictor_saturation_i64", {"8.4"},
        "LINEAR partitions with constant predictions 2^63 (ToInt -> 2^63 - 1), 2^63 - 1024 "
        "(exact), -2^63 (exact), -2^63 - 2048 (-> -2^63), 1e300 and -1e300 (saturated); values "
        "-20..19, so residuals need 64 bits.",
        {Column("v", Ty::kI64, v, parts)});
  }
  {
    // pred = ToInt(y) mod 2^32: saturated predictions wrap, they are not
    // clamped to the 32-bit range.
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const std::array<double, 4> thetas[] = {{1e19, 0, 0, 0},       // INT64_MAX mod 2^32 = -1
                                            {-1e19, 0, 0, 0},      // INT64_MIN mod 2^32 = 0
                                            {1099511627781.0, 1.0, 0, 0},  // 2^40 + 5 + x -> 5 + x
                                            {-4294967296.5, 0.25, 0, 0}};
    Rng rng(31);
    for (const auto& th : thetas) {
      std::vector<int64_t> r(100);
      for (auto& x : r) x = rng.Between(-3, 3);
      Append(&v, FromResiduals(Ty::kI32, kLinear, th, 64, r));
      parts.push_back(Part(100, kLinear, th));
    }
    ColumnSpec col = Column("v", Ty::kI32, v, parts);
    ExpectWidths(col, {3, 3, 3, 3});
    add("predictor_saturation_wraps_i32", {"8.4"},
        "i32 LINEAR partitions whose predictions leave the 32-bit range: Theta_0 = 1e19 "
        "(ToInt = 2^63 - 1, mod 2^32 = -1), -1e19 (-2^63 -> 0), 2^40 + 5 (-> 5 + x) and "
        "-2^32 - 0.5; values are the wrapped predictions plus residuals in [-3, 3] "
        "(Bit_Width 3). A reader that clamps to the 32-bit range decodes them wrongly.",
        {col});
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const double two63 = 9223372036854775808.0;
    for (double th : {two63, -two63, -5.0}) {
      for (int x = 0; x < 50; ++x) v.push_back(static_cast<uint64_t>(x * 3));
      parts.push_back(Part(50, kLinear, {th, 0, 0, 0}));
    }
    add("predictor_saturation_u64", {"8.4"},
        "u64 LINEAR partitions with predictions 2^63 (ToInt 2^63 - 1), -2^63 (-> 2^63 as u64) "
        "and -5 (-> 2^64 - 5); values 0..147.",
        {Column("v", Ty::kU64, v, parts)});
  }
  {
    // Non-finite intermediates from finite parameters.
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const std::array<double, 4> nan_poly2 = {0, 1e308, -1e308, 0};
    const std::array<double, 4> nan_poly3 = {0, 0, 1e308, -1e308};
    Rng rng(77);
    for (int i = 0; i < 2; ++i) {
      std::vector<int64_t> r(300);
      for (auto& x : r) x = rng.Between(-100, 100);
      const auto& th = i == 0 ? nan_poly2 : nan_poly3;
      const Model m = i == 0 ? kPoly2 : kPoly3;
      Append(&v, FromResiduals(Ty::kI64, m, th, 8, r));
      parts.push_back(Part(300, m, th));
    }
    ColumnSpec col = Column("v", Ty::kI64, v, parts, 8);
    add("predictor_nan_i64", {"8.4"},
        "POLY2 (0, 1e308, -1e308) and POLY3 (0, 0, 1e308, -1e308) partitions: the finite "
        "differences overflow to +inf and -inf and their sum is NaN, so ToInt gives 0 for most "
        "rows (a CPU conversion instruction would give -2^63). Values are predictions plus "
        "residuals in [-100, 100].",
        {col});
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const std::array<double, 4> thetas[] = {{1e308, 1e308, 0, 0}, {-1e308, -1e308, 0, 0},
                                            {0, 1.7e306, 0, 0}};
    for (const auto& th : thetas) {
      for (int x = 0; x < 100; ++x) v.push_back(Canon(Ty::kI64, static_cast<uint64_t>(x - 50)));
      parts.push_back(Part(100, kLinear, th));
    }
    add("predictor_inf_i64", {"8.4"},
        "LINEAR partitions whose predictions overflow to +inf (1e308 + 1e308 X0), -inf, and "
        "to +inf only after a few recurrence steps (Theta_1 = 1.7e306): ToInt saturates.",
        {Column("v", Ty::kI64, v, parts)});
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    Rng rng(78);
    for (const std::array<double, 4>& th : {std::array<double, 4>{1e308, 1e308, 0, 0},
                                            std::array<double, 4>{-1e308, -1e308, 0, 0}}) {
      std::vector<int64_t> r(100);
      for (auto& x : r) x = rng.Between(-4, 3);
      Append(&v, FromResiduals(Ty::kI32, kLinear, th, 64, r));
      parts.push_back(Part(100, kLinear, th));
    }
    ColumnSpec col = Column("v", Ty::kI32, v, parts);
    ExpectWidths(col, {3, 3});
    add("predictor_inf_i32", {"8.4"},
        "i32 LINEAR partitions with predictions +inf (ToInt 2^63 - 1, mod 2^32 = -1) and -inf "
        "(-2^63 -> 0); residuals in [-4, 3].",
        {col});
  }
  {
    // Negative predictions on unsigned columns.
    std::vector<uint64_t> v;
    for (int x = 0; x < 200; ++x) v.push_back(static_cast<uint64_t>(x));
    ColumnSpec c8 = Column("v", Ty::kU8, v, {Part(200, kLinear, {-100.0, 1.0, 0, 0})});
    ExpectWidths(c8, {8});
    add("predictor_negative_u8", {"8.3", "8.4"},
        "u8 LINEAR partition with predictions x - 100 (negative for x < 100, taken mod 2^8); "
        "values x = 0..199, every residual 100 (Bit_Width 8).",
        {c8});
    std::vector<uint64_t> w;
    for (int x = 0; x < 300; ++x) w.push_back(static_cast<uint64_t>(x + 5));
    ColumnSpec c64 = Column("v", Ty::kU64, w, {Part(300, kLinear, {-1000.5, 1.0, 0, 0})});
    add("predictor_negative_u64", {"8.3", "8.4"},
        "u64 LINEAR partition with predictions ToInt(-1000.5 + x) (negative, so near 2^64 "
        "modulo 2^64); values x + 5, residuals about 1005.",
        {c64});
  }
  {
    // Drift of the recurrence over long lanes (V = 1024): only the
    // canonical finite differences give these values.
    const std::array<double, 4> lin = {3.3, 0.1, 0, 0};
    const std::array<double, 4> p2 = {0.5, 0.1, 0.01, 0};
    const std::array<double, 4> p3 = {0.5, 0.1, 0.01, 0.001};
    struct Drift {
      const char* name;
      Model m;
      std::array<double, 4> th;
    };
    for (const Drift& d : {Drift{"linear", kLinear, lin}, Drift{"poly2", kPoly2, p2}, Drift{"poly3", kPoly3, p3}}) {
      const uint32_t n = 33000, V = 1024;
      Rng rng(300 + d.m);
      std::vector<int64_t> r(n);
      for (auto& x : r) x = rng.Between(-4, 3);
      ColumnSpec col = Column("v", Ty::kU8, FromResiduals(Ty::kU8, d.m, d.th, V, r), {Part(n, d.m, d.th)}, V);
      ExpectWidths(col, {3});
      add(Fmt("predictor_recurrence_%s_v1024_u8", d.name), {"8.4", "8.5"},
          Fmt("%s partition of 33000 rows with V = 1024 (one full tile, lanes stepped up to 1023 "
              "times) and Theta = (%.17g, %.17g, %.17g, %.17g); u8 values are the predictions mod "
              "2^8 plus residuals in [-4, 3]. Evaluating the polynomial directly instead of the "
              "recurrence changes the prediction of %llu rows; fusing multiply-adds (FMA) changes "
              "%llu.",
              ModelName(d.m), d.th[0], d.th[1], d.th[2], d.th[3],
              static_cast<unsigned long long>(RowsWhereDirectDiffers(d.m, d.th, V, n)),
              static_cast<unsigned long long>(RowsWhereFusedDiffers(d.m, d.th, V, n))),
          {col});
    }
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const double tiny = 4.9406564584124654e-324;  // the smallest subnormal
    const std::array<double, 4> thetas[] = {{0.0, tiny, 0, 0}, {-0.0, -0.0, 0, 0}, {7.0, -tiny, 0, 0}};
    for (const auto& th : thetas) {
      Append(&v, FromResiduals(Ty::kI16, kLinear, th, 64, std::vector<int64_t>(64, 0)));
      parts.push_back(Part(64, kLinear, th));
    }
    const std::array<double, 4> p3 = {1.0, 0, 0, tiny};
    Append(&v, FromResiduals(Ty::kI16, kPoly3, p3, 64, std::vector<int64_t>(64, 0)));
    parts.push_back(Part(64, kPoly3, p3));
    ColumnSpec col = Column("v", Ty::kI16, v, parts);
    ExpectWidths(col, {0, 0, 0, 0});
    add("predictor_subnormal_and_negative_zero_i16", {"8.2", "8.4"},
        "LINEAR and POLY3 parameters that are subnormal (4.9e-324) or -0.0: finite, hence valid "
        "float words (spec §8.2), and decoded without flushing to zero.",
        {col});
  }
}

void WrapCases(const Adder& add) {
  Rng rng(90);
  {
    std::vector<int64_t> r(256);
    for (auto& x : r) x = rng.Between(-2, 1);
    const std::array<double, 4> th = {127.0, 1.0, 0, 0};
    ColumnSpec col = Column("v", Ty::kI8, FromResiduals(Ty::kI8, kLinear, th, 64, r), {Part(256, kLinear, th)});
    ExpectWidths(col, {2});
    add("wrap_linear_i8", {"8.3", "8.4"},
        "i8 LINEAR partition with predictions 127 + x, which wrap modulo 2^8 (128 -> -128); "
        "values are predictions plus residuals in [-2, 1], so they wrap too.",
        {col});
  }
  {
    std::vector<int64_t> r(400);
    for (auto& x : r) x = rng.Between(-16, 15);
    const std::array<double, 4> th = {65000.0, 10.0, 0.5, 0};
    ColumnSpec col = Column("v", Ty::kU16, FromResiduals(Ty::kU16, kPoly2, th, 8, r), {Part(400, kPoly2, th)}, 8);
    ExpectWidths(col, {5});
    add("wrap_poly2_u16", {"8.3", "8.4"},
        "u16 POLY2 partition with predictions 65000 + 10 x + x^2 / 2 (up to about 84000): "
        "values wrap modulo 2^16.",
        {col});
  }
  {
    std::vector<uint64_t> v = Iota(Ty::kU32, 100, 10, -1);
    ColumnSpec col = Column("v", Ty::kU32, v, {Part(100, kLinear, {10.0, -1.0, 0, 0})});
    ExpectWidths(col, {0});
    add("wrap_linear_negative_slope_u32", {"8.3", "8.4"},
        "u32 LINEAR partition 10 - x with Bit_Width 0: values 10, 9, ..., 0, 4294967295, ... "
        "(predictions below zero wrap modulo 2^32).",
        {col});
  }
  {
    std::vector<uint64_t> v = ForValues(Ty::kI32, Canon(Ty::kI32, 0x80000000ull), 32, 200, rng);
    add("wrap_for_full_range_i32", {"8.3"},
        "i32 FOR_BITPACK with Base = -2^31 and 32-bit offsets: Base + u(x) must be taken modulo "
        "2^32 (Base is stored sign-extended).",
        {Column("v", Ty::kI32, v, {Part(200, kFor)})});
  }
}

void Around2p53Cases(const Adder& add) {
  const uint64_t two53 = uint64_t{1} << 53;
  {
    std::vector<uint64_t> v;
    for (int i = -20; i < 20; ++i) v.push_back(two53 + static_cast<uint64_t>(static_cast<int64_t>(i)));
    for (int i = -20; i < 20; ++i) v.push_back(static_cast<uint64_t>(-static_cast<int64_t>(two53) + i));
    for (int i = 0; i < 40; ++i) v.push_back(0x7FFFFFFFFFFFFFFFull - static_cast<uint64_t>(i * 3));
    add("around_2p53_for_i64", {"8.3", "8.8"},
        "i64 values around 2^53, -2^53 and 2^63 - 1 in FOR_BITPACK partitions (spec §8.8 rule 3 "
        "forbids predicted models here): integer words never pass through binary64.",
        {Column("v", Ty::kI64, v, Cut(120, 40, kFor))});
  }
  {
    std::vector<uint64_t> v;
    for (int i = -30; i < 30; ++i) v.push_back(two53 + static_cast<uint64_t>(static_cast<int64_t>(i)));
    for (int i = 0; i < 60; ++i) v.push_back(~uint64_t{0} - static_cast<uint64_t>(i * 7));
    add("around_2p53_for_u64", {"8.3", "8.8"},
        "u64 values around 2^53 and just below 2^64 in FOR_BITPACK partitions.",
        {Column("v", Ty::kU64, v, Cut(120, 60, kFor))});
  }
  {
    // |v| = 2^53 exactly is allowed in a LINEAR partition.
    std::vector<uint64_t> v;
    for (int x = 0; x < 64; ++x) v.push_back(two53 - 63 + static_cast<uint64_t>(x));
    std::vector<uint64_t> neg;
    for (int x = 0; x < 64; ++x) neg.push_back(static_cast<uint64_t>(-static_cast<int64_t>(two53) + 63 - x));
    Append(&v, neg);
    ColumnSpec col = Column("v", Ty::kI64, v,
                            {Part(64, kLinear, {9007199254740929.0, 1.0, 0, 0}),
                             Part(64, kLinear, {-9007199254740929.0, -1.0, 0, 0})});
    ExpectWidths(col, {0, 0});
    add("linear_at_2p53_i64", {"8.4", "8.8"},
        "i64 LINEAR partitions reaching exactly 2^53 and -2^53 (allowed: spec §8.8 rule 3 "
        "forbids |v| > 2^53), Bit_Width 0.",
        {col});
  }
  {
    std::vector<uint64_t> v;
    for (int x = 0; x < 100; ++x) v.push_back(two53 + 2 * static_cast<uint64_t>(x) + 1);
    ColumnSpec col = Column("v", Ty::kI64, v, {Part(100, kLinear, {9007199254740992.0, 2.0, 0, 0})});
    ExpectWidths(col, {2});
    add("rule3_linear_beyond_2p53_i64", {"8.4", "8.8"},
        "An i64 LINEAR partition with values 2^53 + 2x + 1 (odd, above 2^53): it breaks spec "
        "§8.8 rule 3, which binds writers only ('readers do not check it'). The decoding rules "
        "still define the values (predictions 2^53 + 2x, residual 1), so readers must decode "
        "it and deep validation must pass.",
        {col}, {}, true);
  }
}

void SlapCases(const Adder& add) {
  Rng rng(60);
  {
    // spec §12.2: V = 64, w = 5, n = 2100.
    std::vector<uint64_t> v = ForValues(Ty::kU16, 1000, 5, 2100, rng);
    ColumnSpec col = Column("v", Ty::kU16, v, {Part(2100, kFor)});
    ExpectWidths(col, {5});
    add("slap_spec_example_12_2", {"8.5", "12.2"},
        "The SLAP example of spec §12.2: FOR_BITPACK, V = 64, Bit_Width 5, n = 2100 (one full "
        "tile, a partial tile of 52 rows with q = 1, r = 20), 165 payload words.",
        {col});
  }
  {
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    for (uint32_t n : {1u, 5u, 31u, 32u, 33u, 63u}) {
      PartSpec p;
      Append(&v, PredictedValues(Ty::kI32, kLinear, 64, n, 7, rng, &p.theta));
      p.n = n;
      p.model = kLinear;
      parts.push_back(p);
      Append(&v, ForValues(Ty::kI32, 77, n == 1 ? 0 : 6, n, rng));
      parts.push_back(Part(n, kFor));
    }
    add("slap_smaller_than_a_lane_i32", {"8.5"},
        "LINEAR (Bit_Width 7) and FOR_BITPACK partitions of 1, 5, 31, 32, 33 and 63 rows with "
        "V = 64: partial tiles with q = 0 (fewer rows than lanes), q = 1 and r = 0, 1, 31.",
        {Column("v", Ty::kI32, v, parts)});
  }
  {
    std::vector<uint64_t> v = ForValues(Ty::kI64, 5, 13, 4096 + 64, rng);
    PartSpec p;
    std::vector<uint64_t> w = PredictedValues(Ty::kI64, kPoly2, 64, 4096, 11, rng, &p.theta);
    p.n = 4096;
    p.model = kPoly2;
    Append(&v, w);
    ColumnSpec col = Column("v", Ty::kI64, v, {Part(4160, kFor), p});
    ExpectWidths(col, {13, 11});
    add("slap_full_tiles_i64", {"8.5"},
        "FOR_BITPACK over 4160 rows (two full tiles and a partial tile of 64 rows: q = 2, r = 0) "
        "and POLY2 over 4096 rows (exactly two full tiles, no partial tile), V = 64.",
        {col});
  }
  for (uint32_t V : {1u, 8u, 1024u}) {
    const uint32_t n = V == 1024 ? 32868 : 700;
    const uint32_t n_for = V == 1024 ? 500 : 700;
    PartSpec p;
    std::vector<uint64_t> v = PredictedValues(Ty::kU8, kLinear, V, n, 3, rng, &p.theta);
    p.n = n;
    p.model = kLinear;
    std::vector<uint64_t> f = ForValues(Ty::kU8, 10, 5, n_for, rng);
    Append(&v, f);
    ColumnSpec col = Column("v", Ty::kU8, v, {p, Part(n_for, kFor)}, V);
    ExpectWidths(col, {3, 5});
    add(Fmt("slap_v%u_u8", V), {"7.2", "8.4", "8.5"},
        Fmt("values_per_lane V = %u (tiles of %u rows): a LINEAR partition of %u rows "
            "(Bit_Width 3) and a FOR_BITPACK partition of %u rows (Bit_Width 5).",
            V, 32 * V, n, n_for),
        {col});
  }
  {
    // Every V in one column, one chunk per V.
    ColumnSpec col;
    col.name = "v";
    col.type = Ty::kU16;
    for (uint32_t V = 1; V <= 1024; V *= 2) {
      ChunkSpec k;
      k.V = V;
      PartSpec p;
      k.values = PredictedValues(Ty::kU16, kPoly3, V, 700, 9, rng, &p.theta);
      p.n = 700;
      p.model = kPoly3;
      k.parts = {p};
      col.chunks.push_back(k);
    }
    add("slap_every_v_multichunk_u16", {"7.2", "8.4", "8.5"},
        "One column of 11 chunks with V = 1, 2, 4, ..., 1024 (values_per_lane is per chunk), "
        "each a POLY3 partition of 700 rows with Bit_Width 9.",
        {col});
  }
}

// One zstd frame of raw blocks (RFC 8878) holding `in`, with the given
// Window_Descriptor and no content size or checksum.
Bytes RawBlockFrameWithWindow(const Bytes& in, uint8_t window) {
  Bytes f = {0x28, 0xB5, 0x2F, 0xFD, 0x00, window};
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(in.size() - pos, 1000);
    const bool last = pos + n == in.size();
    const uint32_t header = (last ? 1u : 0u) | static_cast<uint32_t>(n << 3);  // Raw_Block
    for (int i = 0; i < 3; ++i) f.push_back(static_cast<uint8_t>(header >> (8 * i)));
    f.insert(f.end(), in.begin() + static_cast<long>(pos), in.begin() + static_cast<long>(pos + n));
    pos += n;
  } while (pos < in.size());
  return f;
}

void ContainerCases(const Adder& add) {
  Rng rng(40);
  auto mixed_column = [&](const std::string& name, Ty t, uint32_t n) {
    PartSpec lin;
    std::vector<uint64_t> v = PredictedValues(t, kLinear, 64, n / 2, 6, rng, &lin.theta);
    lin.n = n / 2;
    lin.model = kLinear;
    Append(&v, ForValues(t, 3, 4, n - n / 2, rng));
    return Column(name, t, v, {lin, Part(n - n / 2, kFor)});
  };
  {
    std::vector<ColumnSpec> cols;
    for (Ty t : kAllTypes) cols.push_back(mixed_column(Fmt("c_%s", TypeName(t)), t, 500));
    add("multi_column_all_types", {"6.1", "6.2"},
        "Eight columns, one per integer type, 500 rows each (a LINEAR and a FOR_BITPACK "
        "partition per column).",
        cols);
    BuildOptions zstd;
    zstd.zstd = true;
    add("zstd_archive_profile", {"9", "4.4"},
        "The eight columns of multi_column_all_types with every segment stored as one zstd "
        "frame (content size and checksum set; ZSTD_SEGMENTS required).",
        cols, zstd);
  }
  {
    BuildOptions opt;
    opt.edit_stored = [](int, int, SegKind kind, Bytes& stored, uint64_t& decoded, uint8_t& compression) {
      if (kind != SegKind::kPayload) return;
      ZSTD_CCtx* cctx = ZSTD_createCCtx();
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
      Bytes out(ZSTD_compressBound(stored.size()));
      const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), stored.data(), stored.size());
      ZSTD_freeCCtx(cctx);
      out.resize(n);
      decoded = stored.size();
      stored = out;
      compression = 1;
    };
    add("zstd_payload_only_no_content_size", {"9"},
        "Only the payload segment is zstd-compressed, with a frame that carries neither its "
        "content size nor a checksum (both are SHOULD, spec §9); the other segments are stored "
        "plain.",
        {mixed_column("v", Ty::kI32, 3000)}, opt);
  }
  {
    ColumnSpec col;
    col.name = "v";
    col.type = Ty::kI16;
    for (uint32_t n : {1000u, 1u, 2500u}) {
      ChunkSpec k;
      k.values = ForValues(Ty::kI16, Canon(Ty::kI16, static_cast<uint64_t>(-300)), 9, n, rng);
      if (n == 1) k.values = {Canon(Ty::kI16, static_cast<uint64_t>(-300))};
      k.parts = Cut(n, 600, kFor);
      col.chunks.push_back(k);
    }
    add("multi_chunk_i16", {"6.2", "7.2"},
        "One column of three chunks of 1000, 1 and 2500 rows (row coverage of spec §6.2).",
        {col});
  }
  {
    ColumnSpec a = mixed_column("a", Ty::kU32, 300);
    ColumnSpec b = mixed_column("b", Ty::kI64, 300);
    BuildOptions opt;
    opt.reorder = [](std::vector<int>& order) { std::reverse(order.begin(), order.end()); };
    add("segments_in_reverse_order", {"4.3", "7.1"},
        "Two columns whose segments are laid out in reverse order (column b's bounds first, "
        "column a's partition table last). The layout is still canonical: readers must follow "
        "the offsets, not assume an order.",
        {a, b}, opt);
  }
  {
    ColumnSpec c;
    c.name = "v";
    c.type = Ty::kI32;
    add("empty_column", {"6.1", "6.2"},
        "Footer.num_rows = 0 and one i32 column with an empty chunks vector: no segments, "
        "Footer_Offset = 64.",
        {c});
    BuildOptions opt;
    opt.edit_footer = [](FooterModel& f) { (*f.columns)[0].chunks.reset(); };
    add("empty_column_chunks_absent", {"6.1", "6.2"},
        "Like empty_column, but the chunks field is absent from the Column table (an absent "
        "vector reads as empty).",
        {c}, opt);
    ColumnSpec d;
    d.name = "w";
    d.type = Ty::kU64;
    add("empty_table_two_columns", {"6.1", "6.2"}, "Two columns (i32, u64) with 0 rows.", {c, d});
  }
  add("single_row_u64", {"6.2", "7.2"}, "One chunk of one row (2^64 - 1), a CONSTANT partition.",
      {Column("v", Ty::kU64, {~uint64_t{0}}, {Part(1, kConstant)})});
  {
    auto col = mixed_column("ts", Ty::kI64, 400);
    col.logical = LogicalModel{1, 1, 0, 0, std::string("Europe/Paris")};
    auto date = mixed_column("day", Ty::kI32, 400);
    date.logical = LogicalModel{2, 0, 0, 0, std::nullopt};
    auto dec = mixed_column("price", Ty::kI64, 400);
    dec.logical = LogicalModel{3, 0, 18, 4, std::nullopt};
    auto ns = mixed_column("ns", Ty::kI64, 400);
    ns.logical = LogicalModel{1, 3, 0, 0, std::nullopt};
    add("logical_types", {"6.2"},
        "Logical types: Timestamp (ms, Europe/Paris), Date, Decimal(18, 4) and Timestamp (ns, "
        "no time zone). They never change decoded values.",
        {col, date, dec, ns});
    auto unknown = mixed_column("v", Ty::kI32, 100);
    unknown.logical = LogicalModel{999, 7, 1, -1, std::string("x")};
    add("logical_kind_unknown", {"6.2"},
        "LogicalType.kind = 999, unknown to version 1.0: readers treat it as None.", {unknown});
  }
  {
    BuildOptions opt;
    opt.metadata = {{std::string("origin"), std::string("conformance")},
                    {std::string("unicode"), std::string("\xC3\xA9t\xC3\xA9 \xE2\x9C\x93")},
                    {std::string("empty"), std::string("")},
                    {std::string("no value"), std::nullopt},
                    {std::string("origin"), std::string("duplicate key")}};
    add("metadata_key_values", {"6.1"},
        "Footer.metadata with five pairs: ASCII, UTF-8, an empty value, an absent value and a "
        "repeated key (metadata is opaque to readers).",
        {mixed_column("v", Ty::kU8, 100)}, opt);
  }
  {
    BuildOptions opt;
    opt.writer_info = false;
    add("writer_info_absent", {"6.1", "6.3"},
        "No WriterInfo table (it SHOULD be present, but is optional).",
        {mixed_column("v", Ty::kU16, 100)}, opt);
  }
  {
    ColumnSpec col = mixed_column("v", Ty::kI32, 600);
    BuildOptions no_bounds;
    no_bounds.bounds = false;
    add("bounds_absent", {"7.2", "7.5", "4.4"},
        "Chunk statistics but no bounds segment (PARTITION_BOUNDS clear).", {col}, no_bounds);
    BuildOptions no_stats;
    no_stats.statistics = false;
    add("statistics_absent", {"7.2", "7.6"}, "Bounds but no ChunkStatistics table.", {col}, no_stats);
    BuildOptions neither;
    neither.bounds = false;
    neither.statistics = false;
    add("bounds_and_statistics_absent", {"7.2", "7.5", "7.6"},
        "Neither bounds nor statistics: only the three required segments.", {col}, neither);
    BuildOptions estimate;
    estimate.edit_footer = [](FooterModel& f) {
      Statistics& s = *(*f.columns)[0].chunks->at(0).statistics;
      s.distinct_count = 3;  // far from the truth, but not marked exact
      s.distinct_count_exact = false;
    };
    add("statistics_distinct_estimate", {"7.6", "10.3"},
        "statistics.distinct_count = 3 with distinct_count_exact = false: an estimate carries no "
        "accuracy guarantee, so deep validation must not compare it.",
        {col}, estimate);
    BuildOptions no_minmax;
    no_minmax.edit_footer = [](FooterModel& f) {
      Statistics& s = *(*f.columns)[0].chunks->at(0).statistics;
      s = Statistics{};
      s.has_min_max = false;
      s.distinct_count_exact = false;
    };
    add("statistics_all_defaults", {"7.6"},
        "A ChunkStatistics table with every field at its default (has_min_max false, counts 0, "
        "not exact).",
        {col}, no_minmax);
  }
  {
    BuildOptions opt;
    opt.finish.edit_postscript = [](PostscriptFields& ps) { ps.optional_features |= (1ull << 7) | (1ull << 63); };
    add("optional_feature_unknown_bits", {"4.2", "4.4"},
        "Optional_Features bits 7 and 63 set: unassigned optional bits must be ignored.",
        {mixed_column("v", Ty::kI32, 200)}, opt);
  }
  {
    BuildOptions opt;
    opt.finish.header.format_minor = 1;
    opt.edit_footer = [](FooterModel& f) { f.future_fields = true; };
    add("minor_version_unknown_fields", {"2", "4.2", "6"},
        "Format_Minor 1 in header and postscript, and a footer built with an extended schema "
        "(conformance/generator/l3_future.fbs: fields appended to Footer, Column, ColumnChunk "
        "and ChunkStatistics, and a new table). Readers must accept any minor version and ignore "
        "fields they do not know.",
        {mixed_column("v", Ty::kI64, 300)}, opt);
    BuildOptions high;
    high.finish.header.format_minor = 65535;
    add("minor_version_65535", {"2", "4.2"}, "Format_Minor 65535: any minor version is accepted.",
        {mixed_column("v", Ty::kU32, 200)}, high);
  }
  {
    ColumnSpec col = mixed_column("v", Ty::kI32, 200);
    col.nullable = true;
    add("nullable_without_validity", {"6.2", "11.1"},
        "A nullable column whose chunk has no validity segment: every row is valid.", {col});
  }
  {
    BuildOptions opt;
    // A PGM index (provisional, spec §11.3): optional metadata a reader may
    // ignore. Its segment follows the chunk's other segments.
    opt.edit_footer = [](FooterModel& f) {
      ChunkModel& c = (*f.columns)[0].chunks->at(0);
      PgmModel pgm;
      pgm.epsilon = 64;
      pgm.num_keys = 300;
      pgm.level_offsets = {0, 1};
      c.pgm = pgm;
    };
    std::vector<uint64_t> sorted = Iota(Ty::kU32, 300, 100, 3);
    BuildOptions with_segment;
    with_segment.extra_segments = {Bytes(100, 0xA5)};
    with_segment.attach = [](FooterModel& f, const std::vector<SegRef>& extra) {
      PgmModel pgm;
      pgm.epsilon = 64;
      pgm.num_keys = 300;
      pgm.level_offsets = {0, 1};
      pgm.segments = extra[0];
      (*f.columns)[0].chunks->at(0).pgm = pgm;
    };
    add("pgm_index_with_segment", {"4.3", "4.4", "11.3"},
        "A chunk with a PgmIndex (provisional) whose 100-byte segment (opaque content) follows "
        "the chunk's segments; PGM_INDEX set. Readers may ignore the index, but its segment is "
        "part of the canonical layout (spec §4.3 counts every segment the footer references).",
        {Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})})}, with_segment);
    // Format 1.1 (spec §11.3): a normative index inline in the footer. The
    // column 100, 103, ..., 997 is one segment at epsilon 64: first key 100,
    // slope 1/3 as binary32, intercept 0. A reader that ignores the index (a
    // 1.0 reader skips the unknown fields) decodes the same values.
    BuildOptions with_index;
    with_index.edit_footer = [](FooterModel& f) {
      PgmModel pgm;
      pgm.epsilon = 64;
      pgm.epsilon_recursive = 4;
      pgm.num_keys = 300;
      pgm.level_offsets = {0, 1};
      pgm.segment_keys = std::vector<uint64_t>{100};
      pgm.segment_slopes = std::vector<float>{1.0f / 3.0f};
      pgm.segment_intercepts = std::vector<uint64_t>{0};
      (*f.columns)[0].chunks->at(0).pgm = pgm;
    };
    add("pgm_index_inline", {"4.4", "11.3"},
        "A sorted u32 column (100, 103, ..., 997) whose chunk has a format 1.1 PgmIndex inline in "
        "the footer: epsilon 64, epsilon_recursive 4, one level of one segment (first key 100, "
        "slope 1/3 as binary32, intercept 0); PGM_INDEX set. The index predicts, for key 400, "
        "position 100 and the window [36, 166]; the lower bound is row 100. Readers that ignore "
        "the index (format 1.0) decode the same values.",
        {Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})})}, with_index);
    BuildOptions empty_segment = with_segment;
    empty_segment.extra_segments = {Bytes()};
    add("pgm_index_zero_length_segment", {"4.3", "7.1", "11.3"},
        "A PgmIndex whose segment has stored_length 0 and offset = Footer_Offset (allowed: "
        "offset + stored_length <= Footer_Offset, and align64 of the previous end is that "
        "offset).",
        {Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})})}, empty_segment);
    BuildOptions at_64;
    at_64.attach = [](FooterModel& f, const std::vector<SegRef>&) {
      PgmModel pgm;
      pgm.epsilon = 64;
      pgm.num_keys = 300;
      pgm.level_offsets = {0, 1};
      SegRef empty;
      empty.offset = 64;  // stored_length 0, checksum 0 (the CRC32C of no bytes)
      pgm.segments = empty;
      (*f.columns)[0].chunks->at(0).pgm = pgm;
    };
    add("pgm_index_zero_length_segment_at_64", {"4.3", "7.1", "11.3"},
        "A PgmIndex whose segment has stored_length 0 at offset 64, the offset of the first "
        "real segment. Spec §4.3 sorts segments by offset without saying how to order equal "
        "offsets; the corpus decides that an empty segment occupies no bytes, so it sorts "
        "before a non-empty one at the same offset and the layout is canonical.",
        {Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})})}, at_64);
    add("pgm_index_without_segment", {"4.4", "11.3"},
        "A sorted column whose chunk carries a PgmIndex table (provisional) without a segment, "
        "and PGM_INDEX set in Optional_Features: optional metadata that readers ignore.",
        {Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})})}, opt);
  }
  {
    ColumnSpec a = mixed_column("\xE6\x97\xA5\xE4\xBB\x98 \xF0\x9F\x93\x85", Ty::kI16, 100);
    ColumnSpec b = mixed_column(std::string(65535, 'n'), Ty::kI16, 100);
    ColumnSpec c = mixed_column("x", Ty::kI16, 100);
    add("column_names_unicode_and_longest", {"6.2"},
        "Column names: UTF-8 with a 4-byte sequence, 65535 bytes (the longest allowed), and "
        "one byte.",
        {a, b, c});
  }
  {
    // Many small partitions with every model.
    std::vector<uint64_t> v;
    std::vector<PartSpec> parts;
    const Model models[] = {kConstant, kFor, kLinear, kPoly2, kPoly3};
    for (int i = 0; i < 1000; ++i) {
      const uint32_t n = 1 + static_cast<uint32_t>(rng.Below(12));
      const Model m = models[i % 5];
      if (m == kConstant) {
        if (i % 10 == 0 || n < 2) {
          v.insert(v.end(), n, Canon(Ty::kI32, static_cast<uint64_t>(i)));
          parts.push_back(Part(n, kConstant));
        } else {
          Append(&v, RunValues(Ty::kI32, static_cast<uint64_t>(i), 3, n, 2, rng));
          parts.push_back(Part(n, kConstant));
        }
      } else if (m == kFor) {
        Append(&v, ForValues(Ty::kI32, static_cast<uint64_t>(i), n == 1 ? 0 : 4, n, rng));
        parts.push_back(Part(n, kFor));
      } else {
        PartSpec p;
        Append(&v, PredictedValues(Ty::kI32, m, 64, n, n == 1 ? 0 : 5, rng, &p.theta));
        p.n = n;
        p.model = m;
        parts.push_back(p);
      }
    }
    add("many_small_partitions_i32", {"7.3", "8.1"},
        "One chunk of 1000 partitions of 1..12 rows cycling through CONSTANT (single value and "
        "runs), FOR_BITPACK, LINEAR, POLY2 and POLY3.",
        {Column("v", Ty::kI32, v, parts)});
  }
  {
    // Appended last: the Rng of this function feeds the cases above.
    BuildOptions zstd;
    zstd.zstd = true;
    std::vector<ColumnSpec> cols;
    for (Ty t : kAllTypes) {
      const std::vector<uint64_t> v = Iota(t, 200, 10, 1);
      cols.push_back(Column(Fmt("c_%s", TypeName(t)), t, v, {Part(200, kLinear, {10.0, 1.0, 0, 0})}));
    }
    BuildOptions window = zstd;
    window.edit_stored = [](int, int, SegKind kind, Bytes& stored, uint64_t& decoded, uint8_t&) {
      if (kind != SegKind::kPayload) return;
      Bytes plain(static_cast<size_t>(decoded));
      if (ZSTD_decompress(plain.data(), plain.size(), stored.data(), stored.size()) != plain.size()) {
        Fail("zstd_window_log_31: cannot decompress the payload frame");
      }
      stored = RawBlockFrameWithWindow(plain, 0xAF);
    };
    add("zstd_window_log_31", {"9.1"},
        "Eight columns, one per integer type (200 rows, 10, 11, ...), every segment a zstd "
        "frame; every payload is one frame of raw blocks whose Window_Descriptor is 0xAF "
        "(Exponent 21, Mantissa 7: Window_Log 31, a window of 2^31 + 7 * 2^28 bytes, the largest "
        "spec §9.1 allows), without content size. A reader must accept it (a streaming decoder "
        "with a 2^27 window limit refuses it).",
        cols, window);
  }
  {
    // spec §6.2: names compare byte-wise, with no Unicode normalisation.
    const std::vector<uint64_t> v = Iota(Ty::kU16, 100, 100, 3);
    std::vector<ColumnSpec> cols = {
        Column("\xC3\xA9", Ty::kU16, v, {Part(100, kLinear, {100.0, 3.0, 0, 0})}),
        Column("e\xCC\x81", Ty::kU16, v, {Part(100, kLinear, {100.0, 3.0, 0, 0})})};
    add("column_names_byte_wise", {"6.2"},
        "Two u16 columns named U+00E9 (bytes C3 A9) and U+0065 U+0301 (65 CC 81), the same "
        "text after Unicode normalisation: names are compared byte-wise, so they are distinct.",
        cols);
  }
  {
    // spec §4.3.1: the segment table.
    std::vector<uint64_t> sorted = Iota(Ty::kU32, 300, 100, 3);
    ColumnSpec col = Column("v", Ty::kU32, sorted, {Part(300, kLinear, {100.0, 3.0, 0, 0})});
    BuildOptions table;
    table.extra_segments = {Bytes(100, 0xA5), Bytes(5, 0x11)};
    table.attach = [](FooterModel& f, const std::vector<SegRef>& extra) { f.segments = extra; };
    add("segment_table_opaque_entries", {"4.3", "4.3.1"},
        "Footer.segments (format 1.1) lists two segments of 100 and 5 opaque bytes after the "
        "chunk's segments. A 1.1 reader places them in the layout and decodes the column; deep "
        "validation verifies their checksums. (A 1.0 reader rejects the file with "
        "CORRUPT_FRAMING: for it the bytes are unexplained.)",
        {col}, table);
    BuildOptions unknown = table;
    unknown.attach = [](FooterModel& f, const std::vector<SegRef>& extra) {
      f.segments = extra;
      (*f.segments)[0].compression = 9;
      (*f.segments)[0].decoded_length = 4096;
    };
    add("segment_table_unknown_compression", {"4.3.1", "7.1"},
        "As segment_table_opaque_entries, with compression 9 (unknown) and decoded_length 4096 "
        "on the first entry: a reader never decodes an entry whose owner it does not know, so "
        "the unknown value is not an error there.",
        {col}, unknown);
  }
}

}  // namespace

// DELTA (spec §8.9, format 1.1): files set DELTA_MODEL and Format_Minor 1.
void DeltaCases(const Adder& add) {
  {
    // The worked example of spec §8.9, byte for byte.
    const std::vector<uint64_t> v = {100, 101, 102, 103, 500, 501};
    PartSpec p = Part(6, kDelta);
    p.base = 1;
    p.width = 0;
    add("delta_spec_example_u32", {"8.9"},
        "The worked example of spec §8.9: u32, V = 1, values 100 101 102 103 500 501, "
        "Delta_Base 1, Bit_Width 0, one exception (row 4, high part 396), Seed[0] = 99.",
        {Column("v", Ty::kU32, v, {p}, 1)});
  }
  {
    // Sorted ids: mostly +1, sporadic jumps; several tiles, a partial one.
    Rng rng(91);
    std::vector<uint64_t> v(5000);
    uint64_t cur = 625025;
    for (auto& x : v) {
      x = cur;
      cur += rng.Below(10) < 8 ? 1 : 1 + rng.Below(100000);
    }
    PartSpec p = Part(5000, kDelta);
    p.width = 2;
    add("delta_sorted_ids_exceptions_u64", {"8.5", "8.9"},
        "u64 ids, mostly +1 with jumps, one DELTA partition of 5000 rows (V = 64: two full tiles "
        "and a partial one, three Seed words) with Bit_Width 2 and the jumps as exceptions.",
        {Column("v", Ty::kU64, v, {p})});
  }
  {
    // A random walk of either sign in i32, V = 8, partitions around tile edges.
    Rng rng(92);
    std::vector<uint64_t> v;
    int64_t cur = -1000;
    for (int i = 0; i < 256 + 255 + 257 + 31; ++i) {
      v.push_back(Canon(Ty::kI32, static_cast<uint64_t>(cur)));
      cur += rng.Between(-40, 40);
    }
    add("delta_walk_tiles_i32", {"8.5", "8.9"},
        "An i32 random walk in DELTA partitions of 256, 255, 257 and 31 rows with V = 8 "
        "(S = 256): whole tiles, partial tiles, negative Delta_Base.",
        {Column("v", Ty::kI32, v, {Part(256, kDelta), Part(255, kDelta), Part(257, kDelta),
                                    Part(31, kDelta)}, 8)});
  }
  {
    // Deltas that wrap modulo 2^8, and a zero-width partition whose every
    // other delta is an exception.
    std::vector<uint64_t> v;
    for (int i = 0; i < 100; ++i) v.push_back(static_cast<uint64_t>(250 + 3 * i) & 0xFF);
    for (int i = 0; i < 100; ++i) v.push_back(static_cast<uint64_t>(7 * i + (i % 2) * 100) & 0xFF);
    PartSpec zero = Part(100, kDelta);
    zero.width = 0;
    add("delta_wrap_u8", {"8.9"},
        "u8 values that wrap modulo 2^8 in two DELTA partitions: a constant step of 3 (Bit_Width "
        "0, no exceptions), and alternating steps with Bit_Width 0 and every other row an "
        "exception.",
        {Column("v", Ty::kU8, v, {Part(100, kDelta), zero})});
  }
  {
    // Extremes of u64 and a one-row partition.
    std::vector<uint64_t> v = {~uint64_t{0}, 0, ~uint64_t{0} - 5, 1, 42};
    add("delta_extremes_u64", {"8.9"},
        "u64 deltas of +-(2^64 - 1) in a 4-row DELTA partition (Bit_Width 64), then a 1-row DELTA "
        "partition (Delta_Base 0, Bit_Width 0, Seed = the value).",
        {Column("v", Ty::kU64, v, {Part(4, kDelta), Part(1, kDelta)})});
  }
  {
    // The worked example of spec §8.9 for Signed_Highs, byte for byte.
    const std::vector<uint64_t> v = {1000, 1001, 1002, 1003, 600, 601};
    PartSpec p = Part(6, kDelta);
    p.base = 1;
    p.width = 0;
    p.signed_highs = true;
    add("delta_signed_highs_spec_example_u32", {"8.9"},
        "The Signed_Highs example of spec §8.9: u32, V = 1, values 1000 1001 1002 1003 600 601, "
        "Delta_Base 1, Bit_Width 0, one exception (row 4, high part -404 stored as 807, "
        "Exception_Width 10), Seed[0] = 999.",
        {Column("v", Ty::kU32, v, {p}, 1)});
  }
  {
    // Every type: a walk of small steps with far jumps back and forth (the
    // node references of ways), in DELTA partitions with Signed_Highs: one
    // of 700 rows (V = 8: full and partial tiles) with Bit_Width 3, one of
    // 100 rows with Bit_Width 0 (every step but Delta_Base an exception).
    const Ty types[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64,
                        Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};
    for (Ty t : types) {
      Rng rng(930 + static_cast<int>(t));
      const int bits = TypeBits(t);
      // Jumps of up to 2^(N-3) either way keep every delta inside the
      // signed N-bit range, so no offset wraps as a signed number.
      const uint64_t jump_mask = (uint64_t{1} << (bits - 3)) - 1;
      std::vector<uint64_t> v;
      uint64_t cur = Canon(t, 5);
      for (int i = 0; i < 800; ++i) {
        v.push_back(Canon(t, cur));
        const uint64_t step = rng.Below(8) == 0 ? (rng.Next() & jump_mask) : rng.Below(6);
        cur = rng.Below(2) == 0 ? cur + step : cur - step;
      }
      PartSpec first = Part(700, kDelta);
      first.base = Canon(t, static_cast<uint64_t>(-2));
      first.width = 3;
      first.signed_highs = true;
      PartSpec second = Part(100, kDelta);
      second.width = 0;
      second.base = 0;
      second.signed_highs = true;
      add(std::string("delta_signed_highs_") + TypeName(t), {"8.5", "8.9"},
          std::string("A ") + TypeName(t) +
              " walk of small steps with far jumps either way, V = 8, in DELTA partitions with "
              "Signed_Highs: 700 rows (Delta_Base -2, Bit_Width 3) and 100 rows (Delta_Base 0, "
              "Bit_Width 0).",
          {Column("v", t, v, {first, second}, 8)});
    }
  }
}

// Pieces of cubic curves (small third differences) of `t`, each starting
// anywhere: the curves of DELTA of order 2 and 3 (spec §8.9).
std::vector<uint64_t> CurvePieces(Ty t, uint32_t n, Rng& rng) {
  std::vector<uint64_t> v;
  while (v.size() < n) {
    const uint64_t start = rng.Next();
    const uint64_t a = rng.Below(4), b = rng.Below(50), c = rng.Below(1000);
    const uint64_t length = 50 + rng.Below(400);
    for (uint64_t i = 0; i < length && v.size() < n; ++i) {
      v.push_back(Canon(t, start + a * i * i * i + b * i * i + c * i + rng.Below(3)));
    }
  }
  return v;
}

void DeltaOrderCases(const Adder& add) {
  {
    // The order-2 example of spec §8.9, byte for byte.
    const std::vector<uint64_t> v = {10, 13, 18, 25, 34, 45};
    PartSpec p = Part(6, kDelta);
    p.delta_order = 2;
    add("delta_order2_spec_example_u32", {"8.9"},
        "The order-2 example of spec §8.9: u32, V = 1, values 10 13 18 25 34 45 (second "
        "differences 2), Extra_Orders 1, Delta_Base 2, Bit_Width 0, Seed[0][0] = 9, "
        "Seed[0][1] = 0xFFFFFFFF.",
        {Column("v", Ty::kU32, v, {p}, 1)});
  }
  {
    // Every type: pieces of cubic curves, V = 8 (full and partial tiles of
    // 256 rows), an order-3 partition of 700 rows whose Bit_Width 3 leaves
    // the rows where a piece starts as exceptions, and an order-2
    // partition of 100 rows without exceptions.
    const Ty types[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64,
                        Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};
    for (Ty t : types) {
      Rng rng(950 + static_cast<int>(t));
      const std::vector<uint64_t> v = CurvePieces(t, 800, rng);
      // Third differences of a curve lie in [-8, 26] (6a plus the noise's),
      // those where a piece starts far off.
      PartSpec first = Part(700, kDelta);
      first.delta_order = 3;
      first.base = Canon(t, static_cast<uint64_t>(-8));
      first.width = 4;
      PartSpec second = Part(100, kDelta);
      second.delta_order = 2;
      add(std::string("delta_order3_") + TypeName(t), {"8.5", "8.9"},
          std::string("A ") + TypeName(t) +
              " column of cubic curve pieces, V = 8: a DELTA partition of order 3 (700 rows, "
              "Delta_Base -8, Bit_Width 4, the rows where a piece starts and the widest third "
              "differences exceptions) and one of order 2 (100 rows, no exceptions).",
          {Column("v", t, v, {first, second}, 8)});
    }
  }
  {
    // spec §9.2, §9.3: K Seed words a tile, then the fields.
    Rng rng(960);
    const std::vector<uint64_t> v = CurvePieces(Ty::kU64, 3000, rng);
    PartSpec p = Part(3000, kDelta);
    p.delta_order = 3;
    p.base = static_cast<uint64_t>(-8);
    p.width = 5;
    const ColumnSpec col = Column("v", Ty::kU64, v, {p});
    BuildOptions planes;
    planes.field_planes = true;
    add("delta_order3_field_planes_u64", {"8.9", "9.2"},
        "u64 cubic curve pieces in one DELTA partition of order 3 (3000 rows, V = 64, "
        "Delta_Base -8, Bit_Width 5), the payload stored as ZstdFieldPlanes (3 Seed words per "
        "tile first).",
        {col}, planes);
    BuildOptions bytes;
    bytes.field_bytes = true;
    add("delta_order3_field_bytes_u64", {"8.9", "9.3"},
        "The same column, the payload stored as ZstdFieldBytes.", {col}, bytes);
  }
}

// Short runs of values of `w` bits (lengths 1..max_run, adjacent runs differ).
std::vector<uint64_t> ShortRuns(Ty t, uint32_t n, uint32_t max_run, uint32_t w, Rng& rng) {
  std::vector<uint64_t> v;
  uint64_t previous = ~uint64_t{0};
  while (v.size() < n) {
    uint64_t value = 0;
    do {
      value = Canon(t, rng.Next() & (w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1));
    } while (value == previous);
    previous = value;
    const uint64_t length = 1 + rng.Below(max_run);
    for (uint64_t i = 0; i < length && v.size() < n; ++i) v.push_back(value);
  }
  return v;
}

// RUNS_EF (spec §8.11, format 1.1): files set RUNS_EF_MODEL and Format_Minor 1.
void RunsEfCases(const Adder& add) {
  {
    // The worked example of spec §8.11, byte for byte.
    const std::vector<uint64_t> v = {7, 7, 7, 9, 9, 4, 4, 4, 4, 8};
    add("runs_ef_spec_example_u16", {"8.11"},
        "The worked example of spec §8.11: u16, values 7 7 7 9 9 4 4 4 4 8, one RUNS_EF "
        "partition of 10 rows: R = 4, Base 4, Bit_Width 3, l = 1, H_n = 7, payload word "
        "0x25782B.",
        {Column("v", Ty::kU16, v, {Part(10, kRunsEf)})});
  }
  {
    // Every type: two partitions of short runs (l >= 1), values of the full width.
    const Ty types[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64,
                        Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};
    for (Ty t : types) {
      Rng rng(700 + static_cast<int>(t));
      std::vector<uint64_t> v = ShortRuns(t, 1500, 9, static_cast<uint32_t>(TypeBits(t)), rng);
      add(std::string("runs_ef_short_runs_") + TypeName(t), {"8.11"},
          std::string("A ") + TypeName(t) +
              " column of runs of 1 to 9 rows with values of every width, in RUNS_EF "
              "partitions of 1000 and 500 rows.",
          {Column("v", t, v, {Part(1000, kRunsEf), Part(500, kRunsEf)})});
    }
  }
  {
    // The extremes of Num_Runs: R = n (l = 0: H is all ones) and R = 2.
    Rng rng(71);
    std::vector<uint64_t> every = ShortRuns(Ty::kU8, 300, 1, 8, rng);
    std::vector<uint64_t> two(4000, 17);
    std::fill(two.begin() + 3999, two.end(), 18);
    std::vector<uint64_t> v = every;
    v.insert(v.end(), two.begin(), two.end());
    add("runs_ef_r_is_n_and_two_runs_u8", {"8.11"},
        "u8: a RUNS_EF partition of 300 rows where every row is its own run (R = n, l = 0), then "
        "one of 4000 rows with two runs, the second of one row (R = 2, l = 11).",
        {Column("v", Ty::kU8, v, {Part(300, kRunsEf), Part(4000, kRunsEf)})});
  }
  {
    // n = 65536, the largest RUNS_EF partition, and V = 8 (RUNS_EF ignores V).
    Rng rng(72);
    std::vector<uint64_t> v = ShortRuns(Ty::kU32, 65536, 40, 20, rng);
    add("runs_ef_65536_rows_u32", {"8.11"},
        "u32: one RUNS_EF partition of 65536 rows (the largest allowed), runs of 1 to 40 rows, "
        "V = 8.",
        {Column("v", Ty::kU32, v, {Part(65536, kRunsEf)}, 8)});
  }
  {
    // Field planes over RUNS_EF (spec §9.2: values, low parts, H in bytes).
    Rng rng(73);
    std::vector<uint64_t> v = ShortRuns(Ty::kI32, 3001, 12, 14, rng);
    BuildOptions planes;
    planes.field_planes = true;
    add("runs_ef_field_planes_i32", {"8.11", "9.2"},
        "i32 runs in a RUNS_EF partition of 3001 rows, the payload stored as ZstdFieldPlanes "
        "(the high part in pieces of 8 bits, the last one of H_n mod 8 bits).",
        {Column("v", Ty::kI32, v, {Part(3001, kRunsEf)})}, planes);
  }
}

// Values in [low, low + 2^w) with outliers of every width up to the type's
// at the rows `outliers` (PATCHED_FOR exceptions), as canonical words.
std::vector<uint64_t> WithOutliers(Ty t, uint32_t n, uint64_t low, uint32_t w,
                                   const std::vector<uint32_t>& outliers, Rng& rng) {
  std::vector<uint64_t> v(n);
  for (uint32_t x = 0; x < n; ++x) v[x] = Canon(t, low + (rng.Next() & ((uint64_t{1} << w) - 1)));
  const uint32_t bits = static_cast<uint32_t>(TypeBits(t));
  for (size_t i = 0; i < outliers.size(); ++i) {
    const uint32_t width = w + 1 + static_cast<uint32_t>(i % (bits - w));
    const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    v[outliers[i]] = Canon(t, low + ((rng.Next() & mask) | (uint64_t{1} << (width - 1))));
  }
  return v;
}

// PATCHED_FOR (spec §8.12, format 1.1): files set PATCHED_FOR_MODEL.
void PatchedForCases(const Adder& add) {
  {
    // The worked example of spec §8.12, byte for byte.
    PartSpec p = Part(5, kPatchedFor);
    p.base = 100;
    p.width = 2;
    add("patched_for_spec_example_u16", {"8.12"},
        "The worked example of spec §8.12: u16, values 100 103 101 5000 102, one PATCHED_FOR "
        "partition of 5 rows: Base 100, Bit_Width 2, one exception (row 3, high part 1225, "
        "Exception_Width 11); payload word 0x992E1C.",
        {Column("v", Ty::kU16, {100, 103, 101, 5000, 102}, {p})});
  }
  {
    // Every type: 1000 rows of 5-bit offsets with outliers of every width
    // (rows 0, 31, 32, 500 and 999 among them), then 300 rows with
    // Bit_Width 0 (every nonzero offset an exception), V = 8 (full and
    // partial tiles).
    const Ty types[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64,
                        Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};
    for (Ty t : types) {
      Rng rng(800 + static_cast<int>(t));
      const uint64_t low = Canon(t, static_cast<uint64_t>(-20));
      std::vector<uint64_t> v =
          WithOutliers(t, 1000, low, 5, {0, 31, 32, 77, 255, 256, 500, 998, 999}, rng);
      std::vector<uint64_t> zero = WithOutliers(t, 300, low, 0, {3, 150, 299}, rng);
      v.insert(v.end(), zero.begin(), zero.end());
      PartSpec first = Part(1000, kPatchedFor);
      first.base = low;
      first.width = 5;
      PartSpec second = Part(300, kPatchedFor);
      second.base = low;
      second.width = 0;
      add(std::string("patched_for_outliers_") + TypeName(t), {"8.12"},
          std::string("A ") + TypeName(t) +
              " column, V = 8: a PATCHED_FOR partition of 1000 rows (Base -20 as the type "
              "holds it, Bit_Width 5) with nine outliers of growing width, in rows 0, 31, 32, "
              "77, 255, 256, 500, 998 and 999, then one of 300 rows with Bit_Width 0 whose "
              "rows 3, 150 and 299 are exceptions.",
          {Column("v", t, v, {first, second}, 8)});
    }
  }
  {
    // A Base above some values: their offsets wrap modulo 2^N and are
    // exceptions whose high parts reach bit N - 1.
    Rng rng(81);
    std::vector<uint64_t> v(200);
    for (auto& x : v) x = Canon(Ty::kI32, 1000 + (rng.Next() & 15));
    v[10] = Canon(Ty::kI32, static_cast<uint64_t>(-7));
    v[120] = Canon(Ty::kI32, 999);
    PartSpec p = Part(200, kPatchedFor);
    p.base = 1000;
    p.width = 4;
    add("patched_for_wrapping_offsets_i32", {"8.12"},
        "i32: a PATCHED_FOR partition of 200 rows, Base 1000, Bit_Width 4; rows 10 (-7) and "
        "120 (999) lie below Base, so their offsets wrap modulo 2^32 and are exceptions with "
        "28-bit high parts.",
        {Column("v", Ty::kI32, v, {p})});
  }
  {
    // Signed_Highs: a Base inside the values, outliers far below and above.
    Rng rng(83);
    std::vector<uint64_t> v(300);
    for (auto& x : v) x = Canon(Ty::kI32, 1000 + (rng.Next() & 7));
    v[0] = Canon(Ty::kI32, static_cast<uint64_t>(-70000));
    v[64] = Canon(Ty::kI32, 990);
    v[200] = Canon(Ty::kI32, 250000);
    v[299] = Canon(Ty::kI32, static_cast<uint64_t>(-3));
    PartSpec p = Part(300, kPatchedFor);
    p.base = 1000;
    p.width = 3;
    p.signed_highs = true;
    add("patched_for_signed_highs_i32", {"8.9", "8.12"},
        "i32: a PATCHED_FOR partition of 300 rows, Base 1000, Bit_Width 3, Signed_Highs: rows "
        "0 (-70000), 64 (990) and 299 (-3) lie below Base and row 200 (250000) far above; "
        "their high parts are stored zigzag-coded.",
        {Column("v", Ty::kI32, v, {p})});
  }
  {
    // The Rows_EF worked example of spec §8.12, byte for byte: u16, 16 rows
    // of 7 but rows 1, 4, 5, 13 (8, 10, 9, 14); Base 7, Bit_Width 0.
    std::vector<uint64_t> v(16, 7);
    v[1] = 8;
    v[4] = 10;
    v[5] = 9;
    v[13] = 14;
    PartSpec p = Part(16, kPatchedFor);
    p.base = 7;
    p.width = 0;
    p.rows_ef = true;
    const EncodedChunk c = EncodeChunk(Ty::kU16, 64, v, {p});
    if (GetLE(&c.parameters[8], 8) != 0x0000020300000004ull ||
        GetLE(&c.payload[0], 8) != 0x00000000074CCD51ull) {
      Fail("patched_for_rows_ef_spec_example_u16: not the words of spec §8.12");
    }
    add("patched_for_rows_ef_spec_example_u16", {"8.12"},
        "The Rows_EF worked example of spec §8.12: u16, 16 rows of 7 except rows 1, 4, 5 and "
        "13 (8, 10, 9, 14), one PATCHED_FOR partition: Base 7, Bit_Width 0, four exceptions "
        "with Rows_EF (l = 2, H_n = 7), Exception_Width 3; parameter word 0x20300000004, "
        "payload word 0x74CCD51.",
        {Column("v", Ty::kU16, v, {p})});
  }
  {
    // Rows_EF for every type, V = 8: a sparse list (1000 rows of 5-bit
    // offsets, nine outliers) and a dense one (600 rows of Bit_Width 0 where
    // two rows in three are exceptions, l = 0), each partition's rows in the
    // Elias-Fano code.
    const Ty types[] = {Ty::kI8, Ty::kI16, Ty::kI32, Ty::kI64,
                        Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64};
    for (Ty t : types) {
      Rng rng(900 + static_cast<int>(t));
      const uint64_t low = Canon(t, static_cast<uint64_t>(-20));
      std::vector<uint64_t> v =
          WithOutliers(t, 1000, low, 5, {0, 31, 32, 77, 255, 256, 500, 998, 999}, rng);
      std::vector<uint32_t> dense_rows;
      for (uint32_t x = 0; x < 600; ++x) {
        if (x % 3 != 1) dense_rows.push_back(x);
      }
      std::vector<uint64_t> dense = WithOutliers(t, 600, low, 0, dense_rows, rng);
      v.insert(v.end(), dense.begin(), dense.end());
      PartSpec sparse_part = Part(1000, kPatchedFor);
      sparse_part.base = low;
      sparse_part.width = 5;
      sparse_part.rows_ef = true;
      PartSpec dense_part = Part(600, kPatchedFor);
      dense_part.base = low;
      dense_part.width = 0;
      dense_part.rows_ef = true;
      add(std::string("patched_for_rows_ef_") + TypeName(t), {"8.5", "8.12"},
          std::string("A ") + TypeName(t) +
              " column, V = 8, PATCHED_FOR with Rows_EF: a partition of 1000 rows (Base -20 as "
              "the type holds it, Bit_Width 5) whose rows 0, 31, 32, 77, 255, 256, 500, 998 "
              "and 999 are exceptions (l = 6), then one of 600 rows with Bit_Width 0 whose "
              "rows x with x mod 3 != 1 are exceptions (l = 0).",
          {Column("v", t, v, {sparse_part, dense_part}, 8)});
    }
  }
  {
    // Rows_EF with every row an exception (E = n): l = bitlen(1) - 1 = 0,
    // H_n = 2n - 1, and bit 2i of H is 1 for row i.
    std::vector<uint64_t> v(100);
    for (uint32_t x = 0; x < 100; ++x) v[x] = 30 + 4 + (x * 13) % 1000;
    PartSpec p = Part(100, kPatchedFor);
    p.base = 30;
    p.width = 2;
    p.rows_ef = true;
    add("patched_for_rows_ef_every_row_u16", {"8.12"},
        "u16: a PATCHED_FOR partition of 100 rows, Base 30, Bit_Width 2, every offset at least "
        "4, so all 100 rows are exceptions (E = n): Rows_EF with l = 0 and H_n = 199, H "
        "holding 1 bits at 0, 2, ..., 198.",
        {Column("v", Ty::kU16, v, {p})});
  }
  {
    // spec §8.12: Rows_EF allows n <= 65536; the largest partition, V = 8
    // (256 full tiles), Bit_Width 0. First with 76 exceptions spread over
    // the rows (l = bitlen(862) - 1 = 9, H_n = 76 + 127 = 203), then with
    // one exception on the last row (l = bitlen(65536) - 1 = 16, H_n = 1 +
    // floor(65535 / 2^16) = 1: the row is all low part, 65535).
    std::vector<uint32_t> rows = {0, 1, 255, 256, 4095, 4096, 32767, 32768, 65534, 65535};
    for (uint32_t x = 500; x < 65534; x += 997) rows.push_back(x);
    std::sort(rows.begin(), rows.end());
    if (rows.size() != 76) Fail("patched_for_rows_ef_65536_rows_u8: expected 76 exceptions");
    std::vector<uint64_t> v(65536, 7);
    for (size_t i = 0; i < rows.size(); ++i) v[rows[i]] = 7 + 1 + (i * 37) % 248;
    PartSpec p = Part(65536, kPatchedFor);
    p.base = 7;
    p.width = 0;
    p.rows_ef = true;
    add("patched_for_rows_ef_65536_rows_u8", {"8.12"},
        "u8, V = 8: one PATCHED_FOR partition of 65536 rows (the largest that Rows_EF "
        "allows), Base 7, Bit_Width 0; 76 exceptions with Rows_EF (l = 9, H_n = 203): rows "
        "0, 1, 255, 256, 4095, 4096, 32767, 32768, 65534, 65535 and every 997th row from "
        "row 500, with offsets 1 to 248.",
        {Column("v", Ty::kU8, v, {p}, 8)});
    std::vector<uint64_t> one(65536, 7);
    one[65535] = 250;
    add("patched_for_rows_ef_one_exception_65536_rows_u8", {"8.12"},
        "u8, V = 8: one PATCHED_FOR partition of 65536 rows of 7 but the last (250), Base 7, "
        "Bit_Width 0; the one exception with Rows_EF: l = 16, its low part 65535 (16 bits), "
        "H_n = 1 (H = 1), high part 243 (Exception_Width 8).",
        {Column("v", Ty::kU8, one, {p}, 8)});
  }
  {
    // Rows_EF with Signed_Highs, and under field planes and field bytes.
    Rng rng(84);
    std::vector<uint64_t> v(3001);
    for (auto& x : v) x = Canon(Ty::kI32, 1000 + (rng.Next() & 7));
    for (uint32_t x = 5; x < 3001; x += 37) {
      if (x % 2 == 0) {
        v[x] = Canon(Ty::kI32, static_cast<uint64_t>(-70000 - static_cast<int64_t>(x)));
      } else {
        v[x] = Canon(Ty::kI32, 250000 + x);
      }
    }
    PartSpec p = Part(3001, kPatchedFor);
    p.base = 1000;
    p.width = 3;
    p.signed_highs = true;
    p.rows_ef = true;
    const ColumnSpec col = Column("v", Ty::kI32, v, {p});
    const std::string what =
        "i32: a PATCHED_FOR partition of 3001 rows, Base 1000, Bit_Width 3, Signed_Highs and "
        "Rows_EF: every 37th row from row 5 an outlier far below (even rows) or above Base";
    add("patched_for_rows_ef_signed_highs_i32", {"8.9", "8.12"}, what + ".", {col});
    BuildOptions planes;
    planes.field_planes = true;
    add("patched_for_rows_ef_field_planes_i32", {"8.12", "9.2"},
        what + "; the payload stored as ZstdFieldPlanes (the fields, the low parts, H in "
               "8-bit pieces, then the high parts).",
        {col}, planes);
    BuildOptions bytes;
    bytes.field_bytes = true;
    add("patched_for_rows_ef_field_bytes_i32", {"8.12", "9.3"},
        what + "; the payload stored as ZstdFieldBytes.", {col}, bytes);
  }
  {
    // Field planes over PATCHED_FOR (spec §9.2: fields, rows, high parts).
    Rng rng(82);
    std::vector<uint64_t> v = WithOutliers(Ty::kU32, 3001, 40, 6, {5, 700, 2999, 3000}, rng);
    PartSpec p = Part(3001, kPatchedFor);
    p.base = 40;
    p.width = 6;
    BuildOptions planes;
    planes.field_planes = true;
    add("patched_for_field_planes_u32", {"8.12", "9.2"},
        "u32: a PATCHED_FOR partition of 3001 rows (Bit_Width 6, four exceptions), the payload "
        "stored as ZstdFieldPlanes (the fields, then 12-bit exception rows, then the high "
        "parts).",
        {Column("v", Ty::kU32, v, {p})}, planes);
  }
}

void FieldPlaneCases(const Adder& add) {
  BuildOptions planes;
  planes.field_planes = true;
  {
    // The worked example of spec §9.2: FOR fields 0, 300, 7 (Bit_Width 9),
    // then LINEAR residuals -1, 2 (Bit_Width 3).
    std::array<double, 4> theta = {50.0, 10.0, 0.0, 0.0};
    std::vector<uint64_t> v = {1000, 1300, 1007};
    Append(&v, FromResiduals(Ty::kU16, kLinear, theta, 64, {-1, 2}));
    PartSpec lin = Part(2, kLinear, theta);
    add("field_planes_spec_example_u16", {"9.2"},
        "The worked example of spec §9.2: u16, V = 64, a FOR_BITPACK partition of 3 rows (Base "
        "1000, Bit_Width 9, fields 0 300 7) and a LINEAR partition of 2 rows (theta 50, 10; "
        "residuals -1 and 2, Bit_Width 3). The payload's field-plane form is the 8 bytes "
        "00 2C 07 01 04 00 01 00, stored as one zstd frame.",
        {Column("v", Ty::kU16, v, {Part(3, kFor), lin})}, planes);
    BuildOptions bytes;
    bytes.field_bytes = true;
    add("field_bytes_spec_example_u16", {"9.3"},
        "The worked example of spec §9.3: the chunk of field_planes_spec_example_u16 with its "
        "payload stored as ZstdFieldBytes, one zstd frame over the field-byte form "
        "00 00 2C 01 07 00 01 04 (FIELD_PLANES set).",
        {Column("v", Ty::kU16, v, {Part(3, kFor), lin})}, bytes);
  }
  {
    Rng rng(93);
    std::vector<ColumnSpec> cols;
    for (Ty t : kAllTypes) {
      PartSpec lin;
      std::vector<uint64_t> v = PredictedValues(t, kLinear, 64, 250, 6, rng, &lin.theta);
      lin.n = 250;
      lin.model = kLinear;
      Append(&v, ForValues(t, 3, TypeBits(t) == 8 ? 4 : 12, 250, rng));
      cols.push_back(Column(Fmt("c_%s", TypeName(t)), t, v, {lin, Part(250, kFor)}));
    }
    add("field_planes_all_types", {"9.2", "4.4"},
        "Eight columns, one per integer type, 500 rows each (LINEAR with residuals of both signs "
        "and FOR_BITPACK), every payload stored as ZstdFieldPlanes; FIELD_PLANES set, the other "
        "segments plain.",
        cols, planes);
  }
  {
    // Every model in one i64 chunk with V = 8 (S = 256): constant, runs,
    // FOR, LINEAR, POLY2, POLY3 and DELTA with exceptions, across tiles.
    Rng rng(94);
    const Ty t = Ty::kI64;
    std::vector<uint64_t> v(300, Canon(t, static_cast<uint64_t>(-5)));
    for (int r = 0; r < 12; ++r) {
      const uint64_t value = Canon(t, rng.Next() & 0xFFFFF);
      for (int i = 0; i < 25; ++i) v.push_back(value);
    }
    Append(&v, ForValues(t, 1u << 20, 17, 270, rng));
    std::vector<PartSpec> parts = {Part(300, kConstant), Part(300, kConstant), Part(270, kFor)};
    for (Model m : {kLinear, kPoly2, kPoly3}) {
      PartSpec p;
      Append(&v, PredictedValues(t, m, 8, 260, 9, rng, &p.theta));
      p.n = 260;
      p.model = m;
      parts.push_back(p);
    }
    int64_t cur = -123456789;
    for (int i = 0; i < 600; ++i) {
      v.push_back(Canon(t, static_cast<uint64_t>(cur)));
      cur += rng.Below(10) < 9 ? rng.Between(-3, 3) : rng.Between(-100000, 100000);
    }
    PartSpec delta = Part(600, kDelta);
    delta.width = 3;
    parts.push_back(delta);
    add("field_planes_every_model_i64", {"9.2", "8.5", "8.7", "8.9"},
        "An i64 chunk with V = 8 and a partition of each model: CONSTANT (Bit_Width 0, no "
        "fields), runs (12 runs), FOR_BITPACK (17 bits), LINEAR, POLY2 and POLY3 (zigzag-mapped "
        "residuals) and DELTA (600 rows, Bit_Width 3, three Seed words, exception rows and high "
        "parts); the payload is stored as ZstdFieldPlanes.",
        {Column("v", t, v, parts, 8)}, planes);
    BuildOptions bytes;
    bytes.field_bytes = true;
    add("field_bytes_every_model_i64", {"9.3", "8.5", "8.7", "8.9"},
        "The chunk of field_planes_every_model_i64 (every model, V = 8) with its payload stored "
        "as ZstdFieldBytes: 64-bit Seed words as 8 bytes each, every other field whole.",
        {Column("v", t, v, parts, 8)}, bytes);
  }
}

// Distinct-count sketches in the chunk statistics (spec §7.6.1, format 1.1).
void DistinctSketchCases(const Adder& add) {
  BuildOptions opt;
  opt.distinct_sketch = true;
  {
    // Two chunks of few distinct values: HASHES sketches.
    Rng rng(95);
    std::vector<uint64_t> a, b;
    for (int i = 0; i < 400; ++i) a.push_back(Canon(Ty::kI32, static_cast<uint64_t>(rng.Between(-50, 50))));
    for (int i = 0; i < 300; ++i) b.push_back(Canon(Ty::kI32, static_cast<uint64_t>(rng.Between(0, 120))));
    ColumnSpec col = Column("v", Ty::kI32, a, {Part(400, kFor)});
    col.chunks.push_back(Column("v", Ty::kI32, b, {Part(300, kFor)}).chunks[0]);
    add("distinct_sketch_hashes_i32", {"7.6", "7.6.1"},
        "Two i32 chunks of 400 and 300 rows (values -50..50 and 0..120) whose statistics carry "
        "HASHES sketches: the sorted hashes of their distinct values (at most Max_Hashes = 256); "
        "DISTINCT_SKETCH set. The merged sketch of the column is the exact set of at most 171 "
        "hashes.",
        {col}, opt);
  }
  {
    std::vector<uint64_t> v(3000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1000003 * i + (i * i) % 977;
    add("distinct_sketch_registers_u64", {"7.6", "7.6.1"},
        "A u64 chunk of 3000 distinct values (FOR): more than Max_Hashes, so its sketch is in "
        "the REGISTERS form, 2^15 registers in one zstd frame.",
        {Column("v", Ty::kU64, v, {Part(3000, kFor)})}, opt);
  }
}

// Dictionary chunks (spec §8.10, format 1.1): files set DICTIONARY.
void DictionaryCases(const Adder& add) {
  {
    // The worked example of spec §8.10.
    add("dictionary_spec_example_u16", {"8.10"},
        "The worked example of spec §8.10: u16 rows 700 700 5 700 9 9, D = 3, elements "
        "5 9 700 2 2 0 2 1 1, V = 1: FOR over the entries (Base 5, Bit_Width 10) and FOR over "
        "the codes (Base 0, Bit_Width 2).",
        {DictionaryColumn("v", Ty::kU16, {700, 700, 5, 700, 9, 9}, {Part(3, kFor), Part(6, kFor)},
                          1)});
  }
  {
    // Signed codes up to 2^(N-1) - 1: 128 distinct i8 values, codes 0..127
    // in runs; the entries as a LINEAR partition.
    Rng rng(101);
    std::vector<uint64_t> rows;
    while (rows.size() < 3000) {
      const uint64_t v = Canon(Ty::kI8, rng.Below(128) * 2 - 128);  // even values -128..126
      for (uint64_t r = 1 + rng.Below(12); r > 0 && rows.size() < 3000; --r) rows.push_back(v);
    }
    for (uint64_t v = 0; v < 128; ++v) rows[v] = Canon(Ty::kI8, v * 2 - 128);  // all 128 used
    PartSpec entries = Part(128, kLinear, {-128, 2});
    add("dictionary_i8_all_codes", {"8.10"},
        "An i8 chunk of 3000 rows with D = 128 (the most a signed byte's codes address): "
        "entries -128, -126, ..., 126 as one LINEAR partition, codes 0..127 in runs.",
        {DictionaryColumn("v", Ty::kI8, rows, {entries, Part(3000, kConstant)}, 64)});
  }
  {
    // Repeating timestamps, archive-style: entries in a DELTA partition,
    // codes in runs and FOR, every segment zstd, the payload as field planes.
    Rng rng(102);
    std::vector<uint64_t> times(40);
    uint64_t t = 1600000000000ull;
    for (auto& x : times) {
      t += 1 + rng.Below(5000000);
      x = t;
    }
    std::vector<uint64_t> rows;
    while (rows.size() < 5000) {
      const uint64_t v = times[rng.Below(times.size())];
      for (uint64_t r = 1 + rng.Below(30); r > 0 && rows.size() < 5000; --r) rows.push_back(v);
    }
    for (size_t i = 0; i < times.size(); ++i) rows[i * 3] = times[i];  // all 40 used
    BuildOptions opt;
    opt.zstd = true;
    opt.field_planes = true;
    uint64_t d = 0;
    ColumnSpec col = DictionaryColumn("ts", Ty::kI64, rows, {}, 64, &d);
    col.chunks[0].parts = {Part(static_cast<uint32_t>(d), kDelta), Part(2000, kConstant),
                           Part(3000, kFor)};
    add("dictionary_timestamps_field_planes_i64", {"8.9", "8.10", "9.2"},
        "i64 timestamps drawn from 40 values, in runs: a dictionary chunk whose entries are one "
        "DELTA partition and whose codes are runs then FOR; every segment zstd, the payload as "
        "zstd over its field planes (which cover the elements).",
        {col}, opt);
  }
  {
    // Two chunks, one with a dictionary and one without, of every unsigned
    // width's extremes.
    std::vector<ColumnSpec> cols;
    for (Ty t : {Ty::kU8, Ty::kU16, Ty::kU32, Ty::kU64, Ty::kI16, Ty::kI32, Ty::kI64}) {
      std::vector<uint64_t> rows;
      for (uint64_t i = 0; i < 300; ++i) {
        rows.push_back(i % 3 == 0 ? TypeMinWord(t) : i % 3 == 1 ? TypeMaxWord(t) : Canon(t, 7));
      }
      ColumnSpec col = DictionaryColumn(std::string("c_") + TypeName(t), t, rows,
                                        {Part(3, kFor), Part(300, kFor)}, 8);
      ChunkSpec plain;
      plain.values = rows;
      plain.V = 8;
      plain.parts = {Part(300, kFor)};
      col.chunks.push_back(plain);
      cols.push_back(col);
    }
    add("dictionary_type_extremes", {"8.10"},
        "Seven columns (u8..u64, i16..i64) of two chunks each: a dictionary chunk of the type's "
        "minimum, maximum and 7 (D = 3, codes as FOR of Bit_Width 2), then the same rows as a "
        "plain FOR chunk.",
        cols);
  }
}

void AddValidCases(std::vector<Case>* cases) {
  Adder add{cases};
  TypeCases(add);
  ConstantCases(add);
  RunCases(add);
  WidthCases(add);
  PredictorCases(add);
  WrapCases(add);
  Around2p53Cases(add);
  SlapCases(add);
  ContainerCases(add);
  DeltaCases(add);
  DeltaOrderCases(add);
  RunsEfCases(add);
  PatchedForCases(add);
  FieldPlaneCases(add);
  DictionaryCases(add);
  DistinctSketchCases(add);
  AddFloatValidCases(cases);
}

}  // namespace l3::conformance
