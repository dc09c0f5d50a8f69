// future/: files from a later format version or with features this version
// defines but a reader may not implement. A 1.0 reader rejects them cleanly
// with the listed class; where a reader may implement the feature, the case
// also records what such a reader must do.
#include "case_util.hpp"

namespace l3::conformance {
namespace {

struct Future {
  std::vector<Case>* cases;
  Case& operator()(const std::string& name, std::vector<std::string> sections,
                   const std::string& description, const std::string& error_class, const std::string& stage,
                   Bytes file) const {
    Case c;
    c.name = name;
    c.kind = "future";
    c.sections = std::move(sections);
    c.description = description;
    c.file = std::move(file);
    c.error_class = error_class;
    c.stage = stage;
    c.read_column = "v";
    cases->push_back(std::move(c));
    return cases->back();
  }
};

ColumnSpec Base() {
  Rng rng(31337);
  std::vector<uint64_t> v = ForValues(Ty::kI32, 1000, 7, 150, rng);
  PartSpec lin;
  std::vector<uint64_t> l = PredictedValues(Ty::kI32, kLinear, 64, 150, 5, rng, &lin.theta);
  lin.n = 150;
  lin.model = kLinear;
  v.insert(v.end(), l.begin(), l.end());
  return Column("v", Ty::kI32, v, {Part(150, kFor), lin});
}

Bytes File(const BuildOptions& opt, const std::vector<ColumnSpec>& cols = {Base()}) {
  return BuildTable(cols, opt).file;
}

ChunkModel& Chunk0(FooterModel& f) { return (*f.columns)[0].chunks->at(0); }

}  // namespace

void AddFutureCases(std::vector<Case>* cases) {
  Future add{cases};
  for (uint16_t major : {2, 65535}) {
    BuildOptions opt;
    opt.finish.header.format_major = major;
    add(Fmt("format_major_%u", major), {"2", "4.2", "COMPATIBILITY.md"},
        Fmt("Format_Major %u in header and postscript (the rest is a valid 1.0 file).", major),
        "UNSUPPORTED_VERSION", "open", File(opt));
  }
  for (int bit : {10, 63}) {
    BuildOptions opt;
    opt.finish.edit_postscript = [bit](PostscriptFields& ps) { ps.required_features |= uint64_t{1} << bit; };
    add(Fmt("required_feature_bit_%d", bit), {"2", "4.2", "4.4"},
        Fmt("Required_Features bit %d set (reserved in 1.1): a reader must reject the file even "
            "though no column visibly uses it.", bit),
        "UNSUPPORTED_FEATURE", "open", File(opt));
  }
  for (uint8_t type : {1, 255}) {
    BuildOptions opt;
    opt.finish.edit_postscript = [type](PostscriptFields& ps) { ps.checksum_type = type; };
    add(Fmt("checksum_type_%u", type), {"4.2", "5"},
        Fmt("Checksum_Type %u (only 0 = CRC32C is defined).", type), "UNSUPPORTED_FEATURE", "open",
        File(opt));
  }
  for (uint16_t encoding : {3, 65535}) {
    BuildOptions opt;
    opt.edit_footer = [encoding](FooterModel& f) { Chunk0(f).encoding = encoding; };
    add(Fmt("encoding_%u", encoding), {"7.2"},
        Fmt("ColumnChunk.encoding %u, unknown to 1.0 (without a Required_Features bit, as an "
            "older writer bug or a reader that lacks an encoding would see it).", encoding),
        "UNSUPPORTED_FEATURE", "open", File(opt));
  }
  {
    BuildOptions opt;
    opt.edit_stored = [](int, int, SegKind kind, Bytes&, uint64_t&, uint8_t& compression) {
      if (kind == SegKind::kPayload) compression = 4;
    };
    add("compression_4", {"7.1"},
        "The payload's SegmentRef.compression is 4 (only None = 0, Zstd = 1 and, in 1.1, "
        "ZstdFieldPlanes = 2 and ZstdFieldBytes = 3 are defined); its bytes are the plain "
        "payload.",
        "UNSUPPORTED_FEATURE", "open", File(opt));
  }
  {
    // A new physical type and a new model, each announced by a new required
    // bit as COMPATIBILITY.md prescribes: rejected at the feature bits.
    BuildOptions type;
    type.edit_footer = [](FooterModel& f) { (*f.columns)[0].physical_type = 13; };
    type.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 11;
    };
    add("physical_type_13_with_required_bit", {"4.4", "6.2", "COMPATIBILITY.md"},
        "A column of physical_type 13 announced by Required_Features bit 11, as a later minor "
        "version would add a type.",
        "UNSUPPORTED_FEATURE", "open", File(type));
    BuildOptions model;
    model.edit_chunk = [](int, int, EncodedChunk& c) { c.partition_table[16 * 1 + 12] = 8; };
    model.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 10;
    };
    add("model_type_8_with_required_bit", {"4.4", "8.1", "COMPATIBILITY.md"},
        "Partition 1 has Model_Type 8, announced by Required_Features bit 10.",
        "UNSUPPORTED_FEATURE",
        "open", File(model));
  }
  {
    // Validity bitmaps (spec §11.1): defined, not implemented by the
    // reference reader. A reader that implements them decodes the values and
    // the bitmap below.
    Rng rng(11);
    const uint32_t n = 300;
    std::vector<uint64_t> values = ForValues(Ty::kI32, Canon(Ty::kI32, static_cast<uint64_t>(-40)), 7, n, rng);
    Bytes bitmap((n + 7) / 8, 0);
    uint64_t nulls = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const bool valid = i % 7 != 3 && !(i >= 100 && i < 140);
      if (valid) {
        bitmap[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      } else {
        ++nulls;
        values[i] = i > 0 ? values[i - 1] : values[1];  // spec §11.1: repeat a neighbour
      }
    }
    // Statistics and bounds cover valid rows only (spec §11.1).
    uint64_t lo = 0, hi = 0;
    bool first = true;
    for (uint32_t i = 0; i < n; ++i) {
      if (!(bitmap[i / 8] >> (i % 8) & 1)) continue;
      if (first || Less(Ty::kI32, values[i], lo)) lo = values[i];
      if (first || Less(Ty::kI32, hi, values[i])) hi = values[i];
      first = false;
    }
    ColumnSpec col = Column("v", Ty::kI32, values, {Part(n, kFor)});
    col.nullable = true;
    BuildOptions opt;
    opt.bounds = false;
    opt.extra_segments = {bitmap};
    opt.attach = [lo, hi, nulls](FooterModel& f, const std::vector<SegRef>& extra) {
      ChunkModel& c = Chunk0(f);
      c.validity = extra[0];
      Statistics s;
      s.min_value = lo;
      s.max_value = hi;
      s.null_count = nulls;
      s.distinct_count_exact = false;
      c.statistics = s;
    };
    Case& c = add("validity_bitmaps", {"4.4", "11.1"},
                  "A nullable i32 column of 300 rows with a validity segment (rows 3, 10, 17, ... "
                  "and 100..139 null; 77 nulls) and VALIDITY_BITMAPS set. A reader without "
                  "validity support rejects it; one with it decodes the values (null rows repeat a "
                  "neighbour) and the bitmap given here.",
                  "UNSUPPORTED_FEATURE", "open", File(opt, {col}));
    c.feature = "VALIDITY_BITMAPS";
    c.columns = ExpectedOf({col});
    c.validity = {bitmap};
    if (nulls != 77) Fail("validity_bitmaps: expected 77 nulls");

    BuildOptions not_nullable = opt;
    ColumnSpec strict = col;
    strict.nullable = false;
    Case& d = add("validity_on_non_nullable_column", {"4.4", "11.1"},
                  "The same validity segment on a column that is not nullable. A reader without "
                  "validity support rejects the required bit; one with it reports "
                  "CORRUPT_METADATA (spec §11.1).",
                  "UNSUPPORTED_FEATURE", "open", File(not_nullable, {strict}));
    d.feature = "VALIDITY_BITMAPS";
    d.error_class_with_feature = "CORRUPT_METADATA";

    BuildOptions unused;
    unused.finish.edit_postscript = [](PostscriptFields& ps) { ps.required_features |= 2; };
    Case& e = add("validity_bit_without_validity", {"4.4", "11.1"},
                  "VALIDITY_BITMAPS set but no chunk has a validity segment. A reader without "
                  "validity support rejects the bit; one with it reports CORRUPT_METADATA (a known "
                  "bit set for an unused feature, spec §4.4).",
                  "UNSUPPORTED_FEATURE", "open", File(unused));
    e.feature = "VALIDITY_BITMAPS";
    e.error_class_with_feature = "CORRUPT_METADATA";
  }
}

}  // namespace l3::conformance
