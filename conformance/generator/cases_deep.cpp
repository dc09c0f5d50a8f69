// deep/: files that pass structural validation and decode to well-defined
// values, but fail deep validation (spec §10.3) with the listed class.
#include "case_util.hpp"

namespace l3::conformance {
namespace {

struct Deep {
  std::vector<Case>* cases;
  void operator()(const std::string& name, std::vector<std::string> sections,
                  const std::string& description, const std::string& error_class,
                  const std::vector<ColumnSpec>& cols, const BuildOptions& options = {}) const {
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
};

// i32, 300 rows: FOR (Bit_Width 5), LINEAR (Bit_Width 4), runs (Bit_Width 3).
ColumnSpec Base() { return ForLinearRunsColumn(100, 4242); }

// Sets bit `bit` of partition p's payload stream.
void SetPayloadBit(EncodedChunk& chunk, uint32_t p, uint64_t bit) {
  const uint64_t offset = 8 * GetLE(&chunk.partition_table[16 * p + 4], 4);
  chunk.payload[offset + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
}

}  // namespace

void AddDeepCases(std::vector<Case>* cases) {
  Deep add{cases};
  const ColumnSpec base = Base();
  {
    // spec §8.10 rule 4: every entry is some row's value.
    ColumnSpec dict = Column("v", Ty::kI32,
                             {Canon(Ty::kI32, static_cast<uint64_t>(-5)), 9, 700, 2, 2, 0, 2, 0, 0},
                             {Part(3, kFor), Part(6, kFor)});
    dict.chunks[0].dictionary_entries = 3;
    add("dictionary_entry_unused", {"8.10", "10.3"},
        "i32 dictionary chunk with entries -5 9 700 and codes 2 2 0 2 0 0: entry 1 (9) is used "
        "by no row. Every row decodes; only deep validation sees it.",
        "CORRUPT_PAYLOAD", {dict});
  }
  {
    BuildOptions opt;
    opt.edit_file = [](Bytes& f, const FooterModel& m) {
      const SegRef& params = *(*m.columns)[0].chunks->at(0).parameters;  // 40 bytes
      f[params.offset + params.stored_length + 3] = 0x40;
    };
    add("padding_between_segments_nonzero", {"4.3", "10.3"},
        "A padding byte between the parameters and the payload segment is 0x40. Padding is not "
        "covered by any checksum; only deep validation sees it.",
        "CORRUPT_FRAMING", {base}, opt);
  }
  {
    BuildOptions opt;
    opt.finish.padding_fill = 0xFF;
    add("padding_before_footer_nonzero", {"4.3", "10.3"},
        "The padding between the last segment (bounds, 24 bytes) and the footer is 0xFF.",
        "CORRUPT_FRAMING", {base}, opt);
  }
  {
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) { c.payload[c.payload.size() - 1] = 0x80; };
    add("payload_tail_padding_nonzero", {"8.6", "10.3"},
        "The last of the 32 padding bytes that end the payload segment is 0x80.", "CORRUPT_PAYLOAD",
        {base}, opt);
  }
  {
    BuildOptions opt;
    // FOR: 100 rows of 5 bits = 500 bits; bit 510 lies in the last word.
    opt.edit_chunk = [](int, int, EncodedChunk& c) { SetPayloadBit(c, 0, 510); };
    add("slap_padding_bits_nonzero", {"8.5", "10.3"},
        "Partition 0 (FOR_BITPACK, 100 rows of 5 bits = 500 bits, 8 words) has bit 510 set, "
        "past its last field.",
        "CORRUPT_PAYLOAD", {base}, opt);
  }
  {
    BuildOptions opt;
    // Runs: 5 runs of 3 bits + 4 starts of 7 bits = 43 bits; bit 63 is padding.
    opt.edit_chunk = [](int, int, EncodedChunk& c) { SetPayloadBit(c, 2, 63); };
    add("run_padding_bits_nonzero", {"8.7", "10.3"},
        "Partition 2 (runs: 5 values of 3 bits and 4 starts of 7 bits = 43 bits in one word) has "
        "bit 63 set.",
        "CORRUPT_PAYLOAD", {base}, opt);
  }
  {
    // spec §8.11: the bits after H, and Base above the minimum's.
    const ColumnSpec col = RunsEfColumn();
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      const uint64_t runs = GetLE(&c.parameters[8], 8);
      const uint64_t used = runs * c.partition_table[13] + (runs - 1) * 1 + (runs - 1) + (199 >> 1);
      SetPayloadBit(c, 0, used);
    };
    add("runs_ef_padding_bits_nonzero", {"8.11", "10.3"},
        "The bit right after the RUNS_EF high part H (R * w + (R - 1) * l + H_n) is set.",
        "CORRUPT_PAYLOAD", {col}, opt);
    ColumnSpec low_base = col;
    low_base.chunks[0].parts[0].base = 9;  // the minimum run value is 10
    add("runs_ef_base_below_minimum", {"8.11", "10.3"},
        "A RUNS_EF partition whose Base is 9, one below the minimum run value 10 (same "
        "Bit_Width 6); every row decodes.",
        "CORRUPT_METADATA", {low_base});
  }
  {
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      // Partition 0's minimum, one lower (bounds: P minima then P maxima).
      SetLE(&c.bounds[0], GetLE(&c.bounds[0], 4) - 1, 4);
    };
    add("bounds_min_too_low", {"7.5", "10.3"},
        "The bounds segment gives partition 0 a minimum one below the true minimum (still a "
        "valid bound for pruning, but not the exact one required).",
        "CORRUPT_METADATA", {base}, opt);
    BuildOptions hi;
    hi.edit_chunk = [](int, int, EncodedChunk& c) {
      SetLE(&c.bounds[4 * 4], GetLE(&c.bounds[4 * 4], 4) - 1, 4);  // partition 1's maximum
    };
    add("bounds_max_too_low", {"7.5", "10.3"},
        "The bounds segment gives partition 1 a maximum one below the true maximum (a reader "
        "pruning with it would skip matching rows).",
        "CORRUPT_METADATA", {base}, hi);
  }
  {
    // Signed column, bounds computed in unsigned order.
    std::vector<uint64_t> v = Signed(Ty::kI8, {-5, 3, -100, 7, 0, 1});
    ColumnSpec col = Column("v", Ty::kI8, v, {Part(6, kFor)});
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      c.bounds = {0, 0xFB};  // min 0, max -5: the unsigned order of the bytes
    };
    add("bounds_unsigned_order_i8", {"7.5", "10.3"},
        "An i8 partition with values -5, 3, -100, 7, 0, 1 whose bounds were taken in unsigned "
        "byte order (min 0, max -5) instead of the type's numeric order (-100, 7).",
        "CORRUPT_METADATA", {col}, opt);
    BuildOptions stats;
    stats.edit_footer = [](FooterModel& f) {
      Statistics& s = *(*f.columns)[0].chunks->at(0).statistics;
      s.min_value = 0;
      s.max_value = Canon(Ty::kI8, 0xFB);
    };
    add("statistics_unsigned_order_i8", {"7.6", "10.3"},
        "The same i8 chunk with statistics min/max taken in unsigned order (0, -5).",
        "CORRUPT_METADATA", {col}, stats);
  }
  auto stats_case = [&](const std::string& name, const std::string& desc,
                        std::function<void(Statistics&)> edit) {
    BuildOptions opt;
    opt.edit_footer = [edit](FooterModel& f) { edit(*(*f.columns)[0].chunks->at(0).statistics); };
    add(name, {"7.6", "10.3"}, desc, "CORRUPT_METADATA", {base}, opt);
  };
  stats_case("statistics_min_wrong", "statistics.min_value is one below the chunk minimum.",
             [](Statistics& s) { s.min_value -= 1; });
  stats_case("statistics_max_wrong", "statistics.max_value is one above the chunk maximum.",
             [](Statistics& s) { s.max_value += 1; });
  stats_case("statistics_min_not_canonical",
             "statistics.min_value (negative) is stored zero-extended instead of in canonical "
             "extension (spec §7.6: 64-bit words in canonical extension).",
             [](Statistics& s) { s.min_value &= 0xFFFFFFFFull; });
  stats_case("statistics_exact_distinct_wrong",
             "statistics.distinct_count is one more than the true count and marked exact.",
             [](Statistics& s) { s.distinct_count += 1; });
  stats_case("statistics_min_max_without_has_min_max",
             "statistics.has_min_max is false but min_value and max_value hold the chunk's "
             "minimum and maximum (spec §7.6: both MUST be 0 then).",
             [](Statistics& s) { s.has_min_max = false; });
  {
    // spec §7.6.1: a well-formed sketch of other values.
    BuildOptions other;
    other.distinct_sketch = true;
    other.edit_footer = [values = RowValues(base.chunks[0])](FooterModel& f) mutable {
      // The same number of distinct values, one of them replaced.
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      values.back() += 1u << 20;
      (*f.columns)[0].chunks->at(0).statistics->distinct_sketch = SketchBytes(values);
    };
    add("distinct_sketch_other_values", {"7.6.1", "10.3"},
        "A HASHES sketch with as many hashes as the chunk has distinct values, one of them the "
        "hash of a value the chunk does not hold. Only deep validation, which rebuilds the "
        "sketch from the decoded values, sees it.",
        "CORRUPT_METADATA", {base}, other);
    std::vector<uint64_t> many(3000);
    for (size_t i = 0; i < many.size(); ++i) many[i] = 1000003 * i + (i * i) % 977;
    const ColumnSpec wide = Column("v", Ty::kU64, many, {Part(3000, kFor)});
    BuildOptions reg;
    reg.distinct_sketch = true;
    reg.edit_footer = [many](FooterModel& f) {
      SketchContent content = SpecSketch(many);
      content.registers[7] = static_cast<uint8_t>(content.registers[7] < 50 ? content.registers[7] + 1 : 49);
      (*f.columns)[0].chunks->at(0).statistics->distinct_sketch = SketchBytes(content);
    };
    add("distinct_sketch_register_off_by_one", {"7.6.1", "10.3"},
        "A REGISTERS sketch of 3000 distinct u64 values whose register 7 differs by one from "
        "the registers of those values.",
        "CORRUPT_METADATA", {wide}, reg);
  }
  {
    // spec §5, §10.3 step 3: segments no reader decodes still carry checksums.
    BuildOptions table;
    table.extra_segments = {Bytes(100, 0x5A)};
    table.attach = [](FooterModel& f, const std::vector<SegRef>& extra) {
      SegRef ref = extra[0];
      ref.checksum ^= 0x00000100u;
      f.segments = std::vector<SegRef>{ref};
    };
    add("segment_table_checksum_wrong", {"4.3.1", "5", "10.3"},
        "A Footer.segments entry (100 opaque bytes after the chunk's segments) whose checksum "
        "has one bit flipped. Values decode; deep validation verifies every segment's checksum.",
        "CHECKSUM_MISMATCH", {base}, table);
    BuildOptions pgm = table;
    pgm.attach = [](FooterModel& f, const std::vector<SegRef>& extra) {
      PgmModel index;
      index.epsilon = 64;
      index.num_keys = 300;
      index.level_offsets = {0, 1};
      index.segments = extra[0];
      index.segments->checksum ^= 0x00000100u;
      (*f.columns)[0].chunks->at(0).pgm = index;
    };
    add("pgm_segment_checksum_wrong", {"5", "10.3", "11.3"},
        "A provisional (format 1.0) PgmIndex whose 100-byte segment has a checksum with one bit "
        "flipped. Readers ignore the index when decoding; deep validation verifies the checksum.",
        "CHECKSUM_MISMATCH", {base}, pgm);
  }
  stats_case("statistics_null_count_nonzero",
             "statistics.null_count is 1 but the chunk has no validity segment.",
             [](Statistics& s) { s.null_count = 1; });
  {
    // FOR Base below the minimum; the width stays minimal (range 1..6 -> 0..6).
    std::vector<uint64_t> v = {1, 6, 3, 2, 5, 4, 1, 6};
    PartSpec p = Part(8, kFor);
    p.base = 0;
    ColumnSpec col = Column("v", Ty::kU16, v, {p});
    ExpectWidths(col, {3});
    add("for_base_below_minimum", {"8.8", "10.3"},
        "FOR_BITPACK with Base 0 while the minimum is 1 (Bit_Width 3 is still the smallest for "
        "max - Base): breaks spec §8.8 rule 2.",
        "CORRUPT_METADATA", {col});
    PartSpec w = Part(8, kFor);
    w.width = 4;
    add("for_width_not_minimal", {"8.8", "10.3"},
        "FOR_BITPACK with Bit_Width 4 where bitlen(max - min) = 3.", "CORRUPT_METADATA",
        {Column("v", Ty::kU16, v, {w})});
  }
  {
    std::vector<uint64_t> v;
    for (int x = 0; x < 100; ++x) v.push_back(static_cast<uint64_t>(3 * x + 7));
    PartSpec p = Part(100, kLinear, {7.0, 3.0, 0, 0});
    p.width = 1;
    add("linear_width_not_minimal_zero", {"8.8", "10.3"},
        "LINEAR with every residual 0 stored with Bit_Width 1 (the smallest width is 0).",
        "CORRUPT_METADATA", {Column("v", Ty::kI64, v, {p})});
    Rng rng(9);
    PartSpec q;
    std::vector<uint64_t> w = PredictedValues(Ty::kI64, kPoly3, 64, 100, 9, rng, &q.theta);
    q.n = 100;
    q.model = kPoly3;
    q.width = 12;
    add("poly3_width_not_minimal", {"8.8", "10.3"},
        "POLY3 with residuals that need 9 bits stored with Bit_Width 12.", "CORRUPT_METADATA",
        {Column("v", Ty::kI64, w, {q})});
  }
  {
    std::vector<uint64_t> v(50, 9);
    v.insert(v.end(), 50, 12);
    PartSpec base_low = Part(100, kConstant);
    base_low.base = 8;
    add("runs_base_below_minimum", {"8.8", "10.3"},
        "Runs 9 and 12 with Base 8 (the minimum run value is 9); Bit_Width 3 is still minimal.",
        "CORRUPT_METADATA", {Column("v", Ty::kU32, v, {base_low})});
    PartSpec wide = Part(100, kConstant);
    wide.width = 5;
    add("runs_width_not_minimal", {"8.8", "10.3"},
        "Runs 9 and 12 (Base 9) with Bit_Width 5 where bitlen(12 - 9) = 2.", "CORRUPT_METADATA",
        {Column("v", Ty::kU32, v, {wide})});
    PartSpec single = Part(100, kConstant);
    single.force_runs = true;
    single.width = 1;
    add("runs_single_run", {"8.2", "8.7", "8.8", "10.3"},
        "A run partition (CONSTANT, Bit_Width 1) with Num_Runs = 1 and a zero run field: "
        "structurally valid (1 <= Num_Runs <= n_p) and decoded as 100 rows of 7, but a "
        "conforming writer uses Bit_Width 0 for a single value.",
        "CORRUPT_METADATA", {Column("v", Ty::kI16, std::vector<uint64_t>(100, 7), {single})});
  }
  {
    // spec §8.9 writer rules: Seed[t] for t >= 1 is the value of row t*S - 1.
    std::vector<uint64_t> v;
    for (int i = 0; i < 600; ++i) v.push_back(static_cast<uint64_t>(1000 + 3 * i + i % 5));
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      // Seed[1] (the second payload word) one larger: rows of tile 1 decode
      // one larger too, so the expected values are those.
      SetLE(&c.payload[8], GetLE(&c.payload[8], 8) + 1, 8);
    };
    std::vector<uint64_t> expect = v;
    for (size_t x = 256; x < 512; ++x) expect[x] += 1;
    ColumnSpec decoded = Column("v", Ty::kU32, expect, {Part(600, kDelta)}, 8);
    Case c;
    c.name = "delta_seed_disagrees";
    c.kind = "deep";
    c.sections = {"8.9", "10.3"};
    c.description =
        "A u32 DELTA partition of 600 rows (V = 8, three tiles) whose Seed[1] is one more than "
        "the value of row 255: it decodes (tile 1 one larger) but breaks the writer rules.";
    c.file = BuildTable({Column("v", Ty::kU32, v, {Part(600, kDelta)}, 8)}, opt).file;
    c.columns = ExpectedOf({decoded});
    c.error_class = "CORRUPT_METADATA";
    add.cases->push_back(std::move(c));
  }
  {
    // spec §8.12 writer rules. 300 u16 rows of 4-bit offsets from 7, rows 40
    // and 260 outliers (offsets 4000 and 300): Bit_Width 4, pb = 9,
    // Exception_Width bitlen(4000 >> 4) = 8.
    std::vector<uint64_t> v;
    for (int i = 0; i < 300; ++i) v.push_back(static_cast<uint64_t>(7 + (i * 5) % 16));
    v[40] = 7 + 4000;
    v[260] = 7 + 300;
    PartSpec p = Part(300, kPatchedFor);
    p.base = 7;
    p.width = 4;
    const ColumnSpec col = Column("v", Ty::kU16, v, {p});
    const uint64_t highs = 300 * 4 + 2 * 9;  // stream bit of high part 0
    BuildOptions zero;
    zero.edit_chunk = [highs](int, int, EncodedChunk& c) {
      // High part 1 (300 >> 4 = 18) becomes 0: row 260 decodes to 7 + (300 mod 16).
      for (uint64_t bit = highs + 8; bit < highs + 16; ++bit) {
        c.payload[bit / 8] &= static_cast<uint8_t>(~(1u << (bit % 8)));
      }
    };
    std::vector<uint64_t> expect = v;
    expect[260] = 7 + 300 % 16;
    Case c;
    c.name = "patched_for_high_part_zero";
    c.kind = "deep";
    c.sections = {"8.12", "10.3"};
    c.description =
        "A u16 PATCHED_FOR partition (Bit_Width 4) whose second exception's high part is 0: "
        "it decodes (row 260 keeps only its low field) but the row is no exception by the "
        "writer rules.";
    c.file = BuildTable({col}, zero).file;
    c.columns = ExpectedOf({Column("v", Ty::kU16, expect, {p})});
    c.error_class = "CORRUPT_METADATA";
    add.cases->push_back(std::move(c));
    BuildOptions padding;
    padding.edit_chunk = [highs](int, int, EncodedChunk& c) { SetPayloadBit(c, 0, highs + 16); };
    add("patched_for_padding_bits_nonzero", {"8.12", "10.3"},
        "The bit right after the last PATCHED_FOR high part (n * w + E * (pb + hw)) is set.",
        "CORRUPT_PAYLOAD", {col}, padding);
    // spec §4.4, §10.3 step 6: PATCHED_ROWS_EF set, but the one PATCHED_FOR
    // partition keeps fixed-width rows.
    BuildOptions claim;
    claim.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 8;
    };
    add("patched_rows_ef_bit_without_rows_ef", {"4.4", "8.12", "10.3"},
        "Required_Features sets PATCHED_ROWS_EF (bit 8), but the file's only PATCHED_FOR "
        "partition stores its exception rows fixed-width (Rows_EF = 0). Every row decodes; "
        "only deep validation sees it.",
        "CORRUPT_METADATA", {col}, claim);
  }
  {
    // spec §8.12 with Rows_EF, §10.3 step 5.2.1. 200 u16 rows of 4-bit
    // offsets from 7, every 10th row from row 3 an exception with high part
    // 1 .. 20 (hw = 5): E = 20, l = bitlen(10) - 1 = 3, H_n = 20 + 199 / 8 =
    // 44, RB = 20 * 3 + 44 = 104; the last high part ends at stream bit
    // 200 * 4 + 104 + 20 * 5 = 1004, in the 16th and last payload word.
    std::vector<uint64_t> v;
    for (int i = 0; i < 200; ++i) v.push_back(static_cast<uint64_t>(7 + (i * 5) % 16));
    for (int i = 0; i < 20; ++i) v[3 + 10 * i] += static_cast<uint64_t>(16 * (i + 1));
    PartSpec p = Part(200, kPatchedFor);
    p.base = 7;
    p.width = 4;
    p.rows_ef = true;
    BuildOptions padding;
    padding.edit_chunk = [](int, int, EncodedChunk& c) {
      if (c.payload.size() != 8 * 16 + 32) Fail("patched_for_rows_ef_padding_bits_nonzero: size");
      SetPayloadBit(c, 0, 1004);
    };
    add("patched_for_rows_ef_padding_bits_nonzero", {"8.12", "10.3"},
        "A u16 PATCHED_FOR partition of 200 rows (Bit_Width 4) with 20 exceptions in the "
        "Rows_EF code (l = 3, H_n = 44, Exception_Width 5) whose stream bit 1004, the first "
        "after the last high part (n * w + E * l + H_n + E * hw), is set. Every row decodes; "
        "only deep validation sees it.",
        "CORRUPT_PAYLOAD", {Column("v", Ty::kU16, v, {p})}, padding);
  }
  {
    // spec §8.9 orders, §10.3: 100 u32 rows of one quadratic curve, V = 1
    // (tiles of 32 rows: four Seed pairs), one DELTA partition of order 2.
    std::vector<uint64_t> v;
    for (uint64_t x = 0; x < 100; ++x) v.push_back(7 + 5 * x + x * x);
    PartSpec p = Part(100, kDelta);
    p.delta_order = 2;
    // Seed[1][1] (payload word 3) one more: a_1 of tile 1 runs one higher,
    // so row 32 + j decodes j + 1 higher.
    BuildOptions seed;
    seed.edit_chunk = [](int, int, EncodedChunk& c) {
      SetLE(&c.payload[24], GetLE(&c.payload[24], 8) + 1, 8);
    };
    std::vector<uint64_t> expect = v;
    for (uint64_t j = 0; j < 32; ++j) expect[32 + j] += j + 1;
    Case c;
    c.name = "delta_order_seed_not_difference";
    c.kind = "deep";
    c.sections = {"8.9", "10.3"};
    c.description =
        "A u32 DELTA partition of order 2 (100 rows, V = 1) whose Seed[1][1] is one more than "
        "the first difference at row 31: tile 1 decodes (row 32 + j is j + 1 higher) but the "
        "seed breaks the writer rules.";
    c.file = BuildTable({Column("v", Ty::kU32, v, {p}, 1)}, seed).file;
    c.columns = ExpectedOf({Column("v", Ty::kU32, expect, {Part(100, kFor)}, 1)});
    c.error_class = "CORRUPT_METADATA";
    add.cases->push_back(std::move(c));
    // DELTA_ORDERS set, but the one DELTA partition has order 1.
    PartSpec first = Part(100, kDelta);
    BuildOptions claim;
    claim.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 9;
    };
    add("delta_orders_bit_without_order", {"4.4", "8.9", "10.3"},
        "Required_Features sets DELTA_ORDERS (bit 9), but the file's only DELTA partition has "
        "order 1. Every row decodes; only deep validation sees it.",
        "CORRUPT_METADATA", {Column("v", Ty::kU32, v, {first}, 1)}, claim);
  }
  AddFloatDeepCases(cases);
}

}  // namespace l3::conformance
