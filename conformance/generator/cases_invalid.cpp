// invalid/: files that violate one rule of the spec; a reader must fail
// with the listed class (spec §10.1). Checksums are recomputed after each
// mutation unless the checksum is the target, so the intended check fires.
#include <limits>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "case_util.hpp"

namespace l3::conformance {
namespace {

struct Inv {
  std::vector<Case>* cases;
  std::string kind = "invalid";
  void operator()(const std::string& name, std::vector<std::string> sections,
                  const std::string& description, const std::string& error_class,
                  const std::string& stage, Bytes file, std::vector<std::string> requires_ = {},
                  std::vector<std::string> also = {}, std::string column = "v") const {
    Case c;
    c.name = name;
    c.kind = kind;
    c.sections = std::move(sections);
    c.description = description;
    c.file = std::move(file);
    c.error_class = error_class;
    c.stage = stage;
    c.requires_ = std::move(requires_);
    c.also_acceptable = std::move(also);
    c.read_column = std::move(column);
    cases->push_back(std::move(c));
  }
};

// i32, 600 rows: FOR (200 rows, Bit_Width 5), LINEAR (200 rows, Bit_Width 4),
// runs (200 rows, 5 runs, Bit_Width 3, 8-bit starts). Bounds and statistics.
ColumnSpec Base() { return ForLinearRunsColumn(200, 777); }

Bytes File(const std::vector<ColumnSpec>& cols, const BuildOptions& opt = {}) {
  return BuildTable(cols, opt).file;
}
Bytes File(const BuildOptions& opt = {}) { return File({Base()}, opt); }

// Partition-record fields (spec §7.3).
enum RecField { kFirstRow = 0, kPayloadOffset = 4, kParamOffset = 8, kModelType = 12, kBitWidth = 13, kReserved = 14 };
uint64_t GetRec(const EncodedChunk& c, uint32_t p, RecField f) {
  const int size = f <= kParamOffset ? 4 : f == kReserved ? 2 : 1;
  return GetLE(&c.partition_table[16 * p + f], size);
}
void SetRec(EncodedChunk& c, uint32_t p, RecField f, uint64_t v) {
  const int size = f <= kParamOffset ? 4 : f == kReserved ? 2 : 1;
  SetLE(&c.partition_table[16 * p + f], v, size);
}

// Writes `w` bits of `v` at bit `bit` of partition p's payload stream.
void PutPayloadBits(EncodedChunk& c, uint32_t p, uint64_t bit, uint32_t w, uint64_t v) {
  const uint64_t base = 8 * GetRec(c, p, kPayloadOffset);
  for (uint32_t j = 0; j < w; ++j) {
    uint8_t& byte = c.payload[base + (bit + j) / 8];
    const uint8_t mask = static_cast<uint8_t>(1u << ((bit + j) % 8));
    byte = ((v >> j) & 1) ? (byte | mask) : (byte & ~mask);
  }
}

ChunkModel& Chunk0(FooterModel& f) { return (*f.columns)[0].chunks->at(0); }
const ChunkModel& Chunk0(const FooterModel& f) { return (*f.columns)[0].chunks->at(0); }

// One zstd frame of raw blocks (RFC 8878 §3.1.1) with the given
// Frame_Header_Descriptor and Window_Descriptor bytes: no content size, no
// checksum (spec §9.1 allows both).
Bytes RawBlockFrame(const Bytes& in, uint8_t descriptor, uint8_t window) {
  Bytes f = {0x28, 0xB5, 0x2F, 0xFD, descriptor, window};
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

Bytes ZstdFrame(const Bytes& in, bool content_size = true) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  Bytes out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(cctx);
  out.resize(n);
  return out;
}

void FramingCases(const Inv& add) {
  const Bytes good = File();
  add("truncated_empty_file", {"4.2"}, "A file of 0 bytes.", "TRUNCATED", "open", {});
  add("truncated_127_bytes", {"4.2"},
      "The first 127 bytes of a valid file (shorter than header + postscript).", "TRUNCATED",
      "open", Bytes(good.begin(), good.begin() + 127));
  add("truncated_last_byte_missing", {"4.2"},
      "A valid file without its last byte: the header magic is present, the trailing magic is "
      "not (spec §4.2 step 2 reports TRUNCATED).",
      "TRUNCATED", "open", Bytes(good.begin(), good.end() - 1));
  add("truncated_at_footer", {"4.2"}, "A valid file cut at Footer_Offset.", "TRUNCATED", "open",
      Bytes(good.begin(), good.begin() + ReadPostscript(good).footer_offset));
  {
    Bytes f = good;
    f.insert(f.end(), 64, 0);
    add("zero_bytes_appended", {"4.2"},
        "64 zero bytes appended to a valid file: the last 64 bytes are not a postscript while "
        "the header magic matches, which spec §4.2 step 2 reports as TRUNCATED.",
        "TRUNCATED", "open", f);
    Bytes g = good;
    g.insert(g.end(), good.end() - 64, good.end());
    add("postscript_appended_twice", {"4.2"},
        "The valid postscript appended a second time: magic and checksum pass, the file-size "
        "rule fails (Footer_Offset + Footer_Length + 64 != File_Size).",
        "CORRUPT_FRAMING", "open", g);
  }
  {
    const std::string text =
        "id,value\n1,10\n2,20\n3,30\n4,40\n5,50\n6,60\n7,70\n8,80\n9,90\n10,100\n11,110\n12,120\n"
        "13,130\n14,140\n15,150\n16,160\n17,170\n18,180\n19,190\n20,200\n";
    add("not_l3_csv_text", {"4.1", "4.2"}, "A CSV text file of 200+ bytes.", "NOT_L3", "open",
        Bytes(text.begin(), text.end()));
    Bytes f = good;
    f[0] = 0x88;
    add("header_magic_wrong", {"4.1"},
        "The first byte of the File_Header magic is 0x88; the trailing magic is intact.", "NOT_L3",
        "open", f);
    Bytes g = good;
    g[0] = 'P';
    g[g.size() - 8] = 'P';
    add("both_magics_wrong", {"4.1", "4.2"}, "Both magics start with 'P' instead of 0x89.", "NOT_L3",
        "open", g);
    Bytes h;
    for (size_t i = 0; i < good.size(); ++i) {
      if (good[i] == 0x0D && i + 1 < good.size() && good[i + 1] == 0x0A) continue;
      h.push_back(good[i]);
    }
    add("crlf_converted_to_lf", {"4.1"},
        "A valid file after a text-mode transfer replaced every CR LF with LF: both magics lose "
        "their CR byte.",
        "NOT_L3", "open", h);
  }
  {
    Bytes f = good;
    f[f.size() - 64 + 52] ^= 0x01;
    add("postscript_checksum_wrong", {"4.2", "5"}, "Postscript_Checksum has one bit flipped.",
        "CHECKSUM_MISMATCH", "open", f);
    Bytes g = good;
    g[g.size() - 64 + 16] ^= 0x10;  // Required_Features bit 4, checksum not updated
    add("postscript_field_changed", {"4.2", "5"},
        "Bit 4 of Required_Features flipped without updating Postscript_Checksum: the checksum "
        "(step 3) is checked before the feature bits (step 6).",
        "CHECKSUM_MISMATCH", "open", g);
  }
  auto header = [&](const std::string& name, const std::string& desc,
                    std::function<void(HeaderFields&)> edit) {
    BuildOptions opt;
    edit(opt.finish.header);
    opt.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.format_major = 1;
      ps.format_minor = 0;
    };
    add(name, {"4.1", "4.2"}, desc, "CORRUPT_FRAMING", "open", File(opt));
  };
  header("header_minor_differs", "File_Header Format_Minor 1, postscript Format_Minor 0.",
         [](HeaderFields& h) { h.format_minor = 1; });
  header("header_major_differs",
         "File_Header Format_Major 2, postscript Format_Major 1: the postscript passes step 4, "
         "then the header comparison fails.",
         [](HeaderFields& h) { h.format_major = 2; });
  header("header_flags_nonzero", "File_Header Header_Flags = 1.", [](HeaderFields& h) { h.header_flags = 1; });
  header("header_reserved_nonzero", "The last byte of the File_Header Reserved field is 1.",
         [](HeaderFields& h) { h.reserved[47] = 1; });
  auto ps_case = [&](const std::string& name, std::vector<std::string> sections, const std::string& desc,
                     const std::string& cls, std::function<void(PostscriptFields&)> edit) {
    BuildOptions opt;
    opt.finish.edit_postscript = edit;
    add(name, std::move(sections), desc, cls, "open", File(opt));
  };
  ps_case("postscript_reserved_1_nonzero", {"4.2"}, "Postscript Reserved_1 (byte 38) = 1.",
          "CORRUPT_FRAMING", [](PostscriptFields& ps) { ps.reserved_1[1] = 1; });
  ps_case("postscript_reserved_2_nonzero", {"4.2"}, "Postscript Reserved_2 (byte 51) = 0x80.",
          "CORRUPT_FRAMING", [](PostscriptFields& ps) { ps.reserved_2[7] = 0x80; });
  {
    BuildOptions opt;
    opt.finish.header.format_major = 0;
    add("format_major_0", {"2", "4.2"}, "Format_Major 0 in header and postscript.",
        "UNSUPPORTED_VERSION", "open", File(opt));
  }
  ps_case("footer_offset_not_aligned", {"4.2"},
          "Footer_Offset + 8 and Footer_Length - 8 (their sum still matches the file size): "
          "Footer_Offset is not a multiple of 64.",
          "CORRUPT_FRAMING", [](PostscriptFields& ps) {
            ps.footer_offset += 8;
            ps.footer_length -= 8;
          });
  ps_case("footer_offset_zero", {"4.2"},
          "Footer_Offset 0 and Footer_Length = File_Size - 64: the sum matches, but the footer "
          "would overlap the File_Header.",
          "CORRUPT_FRAMING", [](PostscriptFields& ps) {
            ps.footer_length += ps.footer_offset;
            ps.footer_offset = 0;
          });
  ps_case("footer_length_too_long", {"4.2"}, "Footer_Length is 64 bytes too long.", "CORRUPT_FRAMING",
          [](PostscriptFields& ps) { ps.footer_length += 64; });
  ps_case("footer_length_too_short", {"4.2"}, "Footer_Length is 1 byte too short.", "CORRUPT_FRAMING",
          [](PostscriptFields& ps) { ps.footer_length -= 1; });
  ps_case("file_size_rule_overflow", {"4.2"},
          "Footer_Offset = 2^64 - 64 and Footer_Length = File_Size: their sum plus 64 equals "
          "File_Size only modulo 2^64. The rule is evaluated without overflow.",
          "CORRUPT_FRAMING", [](PostscriptFields& ps) {
            const uint64_t size = ps.footer_offset + ps.footer_length + 64;
            ps.footer_offset = ~uint64_t{63};
            ps.footer_length = size;
          });
  {
    Bytes f = good;
    const PostscriptView ps = ReadPostscript(f);
    f[ps.footer_offset + ps.footer_length - 1] ^= 0x01;  // alignment padding of the footer
    add("footer_checksum_mismatch", {"4.2", "5"},
        "One bit of the footer's last byte (FlatBuffers alignment padding, so the footer still "
        "verifies) flipped without updating Footer_Checksum.",
        "CHECKSUM_MISMATCH", "open", f);
    BuildOptions opt;
    opt.finish.edit_postscript = [](PostscriptFields& p) { p.footer_checksum ^= 0x80000000u; };
    add("footer_checksum_field_wrong", {"4.2", "5"}, "Footer_Checksum has its top bit flipped.",
        "CHECKSUM_MISMATCH", "open", File(opt));
  }
}

void FooterCases(const Inv& add) {
  const Bytes good = File();
  const PostscriptView view = ReadPostscript(good);
  const Bytes footer(good.begin() + view.footer_offset, good.begin() + view.footer_offset + view.footer_length);
  auto with_footer = [&](const Bytes& fb) {
    Bytes f = good;
    ReplaceFooter(&f, fb);
    return f;
  };
  {
    Bytes fb = footer;
    fb[7] = 'X';
    add("footer_identifier_wrong", {"6"}, "The footer's file identifier is \"L3FX\".", "CORRUPT_FOOTER",
        "open", with_footer(fb));
  }
  {
    Bytes fb = footer;
    SetLE(fb.data(), fb.size() + 64, 4);
    add("footer_root_offset_out_of_range", {"6"}, "The root table offset points past the footer.",
        "CORRUPT_FOOTER", "open", with_footer(fb));
  }
  {
    Bytes fb = footer;
    const uint64_t root = RootTable(fb);
    SetLE(fb.data() + root, static_cast<uint64_t>(-static_cast<int64_t>(fb.size() * 2)), 4);
    add("footer_vtable_out_of_range", {"6"}, "The root table's vtable offset points past the footer.",
        "CORRUPT_FOOTER", "open", with_footer(fb));
  }
  {
    Bytes fb = footer;
    const FbField cols = FindField(fb, RootTable(fb), 1);  // Footer.columns
    SetLE(fb.data() + cols.slot, 0xFFF0, 2);
    add("footer_field_offset_out_of_range", {"6"},
        "The vtable entry of Footer.columns points 65520 bytes into a small table, past the "
        "footer.",
        "CORRUPT_FOOTER", "open", with_footer(fb));
  }
  {
    Bytes fb = footer;
    const FbField cols = FindField(fb, RootTable(fb), 1);
    const uint64_t vec = Follow(fb, cols.field);
    SetLE(fb.data() + vec, 0x10000000, 4);
    add("footer_vector_length_out_of_range", {"6"}, "Footer.columns claims 2^28 elements.",
        "CORRUPT_FOOTER", "open", with_footer(fb));
  }
  {
    Bytes fb = footer;
    const FbField cols = FindField(fb, RootTable(fb), 1);
    const uint64_t vec = Follow(fb, cols.field);
    const uint64_t column = Follow(fb, vec + 4);
    const FbField name = FindField(fb, column, 0);  // Column.name
    const uint64_t str = Follow(fb, name.field);
    const uint64_t len = GetLE(fb.data() + str, 4);
    Bytes unterminated = fb;
    unterminated[str + 4 + len] = 'x';
    add("footer_string_not_terminated", {"6"},
        "The column name's terminating zero byte is 'x' (FlatBuffers strings end with 0).",
        "CORRUPT_FOOTER", "open", with_footer(unterminated));
    Bytes long_string = fb;
    SetLE(long_string.data() + str, 0x7FFFFFF0, 4);
    add("footer_string_length_out_of_range", {"6"}, "The column name's length prefix is 2^31 - 16.",
        "CORRUPT_FOOTER", "open", with_footer(long_string));
  }
  {
    Bytes fb = footer;
    const FbField rows = FindField(fb, RootTable(fb), 0);  // Footer.num_rows (u64)
    if (rows.field % 8 != 0) Fail("footer_misaligned_scalar: num_rows already misaligned");
    SetLE(fb.data() + rows.slot, GetLE(fb.data() + rows.slot, 2) + 4, 2);
    add("footer_misaligned_scalar", {"6"},
        "The vtable entry of Footer.num_rows (u64) is moved by 4 bytes, so the field is not "
        "8-byte aligned; verifiers check alignment (spec §6).",
        "CORRUPT_FOOTER", "open", with_footer(fb));
  }
  add("footer_empty", {"4.2", "6"},
      "Footer_Length 0 (Footer_Checksum 0, the CRC32C of no bytes): not a FlatBuffers buffer.",
      "CORRUPT_FOOTER", "open", with_footer({}));
  auto model = [&](const std::string& name, std::vector<std::string> sections, const std::string& desc,
                   const std::string& cls, std::function<void(FooterModel&)> edit,
                   std::vector<std::string> also = {}) {
    BuildOptions opt;
    opt.edit_footer = edit;
    add(name, std::move(sections), desc, cls, "open", File(opt), {}, std::move(also));
  };
  model("footer_columns_missing", {"6", "6.1"}, "Footer.columns (required) is absent.", "CORRUPT_FOOTER",
        [](FooterModel& f) { f.columns.reset(); });
  model("footer_column_name_missing", {"6", "6.2"}, "Column.name (required) is absent.", "CORRUPT_FOOTER",
        [](FooterModel& f) { (*f.columns)[0].name.reset(); });
  {
    BuildOptions opt;
    opt.metadata = {{std::nullopt, std::string("value without key")}};
    add("footer_metadata_key_missing", {"6", "6.1"}, "A KeyValue without its key (required).",
        "CORRUPT_FOOTER", "open", File(opt));
  }
  // Semantic footer checks (spec §6.1, §6.2, §7.2).
  {
    ColumnSpec empty;
    empty.name = "v";
    empty.type = Ty::kI32;
    BuildOptions opt;
    opt.edit_footer = [](FooterModel& f) { f.columns->clear(); };
    add("columns_empty", {"6.1"},
        "Footer.columns is an empty vector (at least one column is required); the file has no "
        "segments and Footer.num_rows is 0.",
        "CORRUPT_METADATA", "open", File({empty}, opt));
  }
  model("num_rows_mismatch", {"6.2"}, "Footer.num_rows is 601; the chunks cover 600 rows.", "CORRUPT_METADATA",
        [](FooterModel& f) { f.num_rows = 601; });
  {
    ColumnSpec a = Base();
    ColumnSpec b = Base();
    b.name = "w";
    b.chunks[0].values.resize(400);
    b.chunks[0].parts.pop_back();
    BuildOptions opt;
    add("column_row_counts_differ", {"6.2"},
        "Column v has 600 rows and column w 400; Footer.num_rows is 600.", "CORRUPT_METADATA", "open",
        File({a, b}, opt), {}, {}, "w");
    ColumnSpec c = Base();
    add("duplicate_column_names", {"6.2"}, "Two columns named \"v\".", "CORRUPT_METADATA", "open",
        File({a, c}));
  }
  model("column_name_empty", {"6.2"}, "A column name of 0 bytes.", "CORRUPT_METADATA",
        [](FooterModel& f) { (*f.columns)[0].name = std::string(); }, {});
  model("column_name_too_long", {"6.2"}, "A column name of 65536 bytes (the limit is 65535).",
        "CORRUPT_METADATA", [](FooterModel& f) { (*f.columns)[0].name = std::string(65536, 'v'); });
  model("column_name_invalid_utf8", {"6.2"}, "The column name is the single byte 0xFF (not UTF-8).",
        "CORRUPT_METADATA", [](FooterModel& f) { (*f.columns)[0].name = std::string("\xFF"); });
  model("physical_type_zero", {"6.2"}, "Column.physical_type is 0 (Unknown).", "CORRUPT_METADATA",
        [](FooterModel& f) { (*f.columns)[0].physical_type = 0; });
  model("physical_type_absent", {"6.2"}, "Column.physical_type is absent, so it reads as 0.",
        "CORRUPT_METADATA", [](FooterModel& f) { (*f.columns)[0].physical_type.reset(); });
  model("physical_type_13", {"6.2"},
        "Column.physical_type is 13, undefined in 1.1 and not announced by a Required_Features "
        "bit (a new type would need one, COMPATIBILITY.md): spec §6.2 makes it CORRUPT_METADATA "
        "(\"values above 12 are invalid\").",
        "CORRUPT_METADATA", [](FooterModel& f) { (*f.columns)[0].physical_type = 13; });
  {
    // The former invalid/float32_column_l3integer, byte for byte: under 1.1
    // an L3Integer chunk of a Float32 column is the integer form (§11.2.2),
    // but this file breaks other rules of §11.2.
    BuildOptions opt;
    opt.edit_footer = [](FooterModel& f) { (*f.columns)[0].physical_type = 9; };
    opt.finish.edit_postscript = [](PostscriptFields& ps) { ps.required_features &= ~uint64_t{4}; };
    add("float32_column_without_ibp_float", {"4.4", "6.2", "11.2"},
        "A Float32 column (Format_Minor 0) whose chunk is an L3Integer chunk of 600 values with "
        "bounds and statistics, and IBP_FLOAT clear. The chunk would be the integer form of "
        "spec §11.2.2, but a float column needs IBP_FLOAT (§4.4, §11.2) and a float chunk must "
        "not have bounds or statistics (§11.2.1). Formerly float32_column_l3integer.",
        "CORRUPT_METADATA", "open", File(opt));
  }
  {
    // The former future/ibp_float_column, byte for byte.
    Rng rng(31337);
    std::vector<uint64_t> v = ForValues(Ty::kI32, 1000, 7, 150, rng);
    PartSpec lin;
    std::vector<uint64_t> l = PredictedValues(Ty::kI32, kLinear, 64, 150, 5, rng, &lin.theta);
    lin.n = 150;
    lin.model = kLinear;
    v.insert(v.end(), l.begin(), l.end());
    const ColumnSpec base = Column("v", Ty::kI32, v, {Part(150, kFor), lin});
    BuildOptions opt;
    opt.extra_segments = {Bytes(64, 0x3C)};
    opt.omit = [](int, int, SegKind) { return true; };
    opt.bounds = false;
    opt.statistics = false;
    opt.attach = [](FooterModel& f, const std::vector<SegRef>& extra) {
      ChunkModel& c = Chunk0(f);
      c.encoding = 2;
      IbpModel ibp;
      ibp.element_bytes = 4;
      ibp.vector_length = 8;
      ibp.num_vectors = 300 / 8;
      ibp.masks = extra[0];
      c.ibp = ibp;
      (*f.columns)[0].physical_type = 9;  // Float32
    };
    add("ibp_float_provisional_table", {"7.2", "11.2.3", "11.2.4"},
        "The former future/ibp_float_column (Format_Minor 0, IBP_FLOAT set): a Float32 "
        "column of 300 rows whose IbpFloat chunk has no payload and an ibp table in the "
        "provisional 1.0 shape (element_bytes 4, vector_length 8, num_vectors 37, a masks "
        "segment of 64 opaque bytes; layout and num_clusters absent). Under 1.1 it breaks "
        "§11.2.3: the payload is required, vector_length must be M = 1, num_vectors the "
        "chunk's num_rows, layout Condensed and num_clusters at least 1.",
        "CORRUPT_METADATA", "open", File({base}, opt));
  }
  model("chunk_num_rows_zero", {"7.2"},
        "A chunk with num_rows 0 (Footer.num_rows 0 to match).", "CORRUPT_METADATA",
        [](FooterModel& f) {
          f.num_rows = 0;
          Chunk0(f).num_rows = 0;
        });
  model("chunk_num_rows_2p32", {"7.2"},
        "A chunk with num_rows 2^32 (the limit is 2^32 - 1; Footer.num_rows matches).", "CORRUPT_METADATA",
        [](FooterModel& f) {
          f.num_rows = uint64_t{1} << 32;
          Chunk0(f).num_rows = uint64_t{1} << 32;
        });
  for (uint16_t v : {0, 3, 2048}) {
    model(Fmt("values_per_lane_%u", v), {"7.2"},
          Fmt("values_per_lane %u: not a power of two in [1, 1024].", v), "CORRUPT_METADATA",
          [v](FooterModel& f) { Chunk0(f).values_per_lane = v; });
  }
  model("num_partitions_zero", {"7.2"}, "num_partitions 0.", "CORRUPT_METADATA",
        [](FooterModel& f) { Chunk0(f).num_partitions = 0; });
  model("num_partitions_above_num_rows", {"7.2"}, "num_partitions 601 in a chunk of 600 rows.",
        "CORRUPT_METADATA", [](FooterModel& f) { Chunk0(f).num_partitions = 601; });
  model("encoding_zero", {"7.2"},
        "ColumnChunk.encoding 0 (Unknown). Spec §7.2: 'An encoding of 0 ... is "
        "UNSUPPORTED_FEATURE'.",
        "UNSUPPORTED_FEATURE", [](FooterModel& f) { Chunk0(f).encoding = 0; });
  model("encoding_absent", {"7.2"}, "ColumnChunk.encoding absent, so it reads as 0.",
        "UNSUPPORTED_FEATURE", [](FooterModel& f) { Chunk0(f).encoding.reset(); });
  model("ibp_masks_on_integer_chunk", {"7.2", "11.2"},
        "An L3Integer chunk with an ibp table (no segments); IBP_FLOAT clear.", "CORRUPT_METADATA",
        [](FooterModel& f) { Chunk0(f).ibp = IbpModel{}; });
  const char* kSegNames[] = {"partition_table", "parameters", "payload"};
  for (int s = 0; s < 3; ++s) {
    BuildOptions opt;
    opt.omit = [s](int, int, SegKind kind) { return static_cast<int>(kind) == s; };
    add(Fmt("segment_missing_%s", kSegNames[s]), {"7.2"},
        Fmt("The chunk has no %s segment (required by spec §7.2); its bytes are not in the file "
            "either, so the layout stays canonical.", kSegNames[s]),
        "CORRUPT_METADATA", "open", File(opt));
  }
}

void FeatureBitCases(const Inv& add) {
  auto ps_bits = [&](const std::string& name, const std::string& desc, std::function<void(PostscriptFields&)> edit,
                     BuildOptions opt = {}) {
    opt.finish.edit_postscript = edit;
    add(name, {"4.4"}, desc, "CORRUPT_METADATA", "open", File(opt));
  };
  {
    BuildOptions zstd;
    zstd.zstd = true;
    ps_bits("zstd_segments_bit_clear", "Every segment is zstd-compressed but ZSTD_SEGMENTS is clear.",
            [](PostscriptFields& ps) { ps.required_features &= ~uint64_t{1}; }, zstd);
  }
  ps_bits("zstd_segments_bit_unused", "ZSTD_SEGMENTS is set but no segment is compressed.",
          [](PostscriptFields& ps) { ps.required_features |= 1; });
  ps_bits("partition_bounds_bit_clear", "The chunk has a bounds segment but PARTITION_BOUNDS is clear.",
          [](PostscriptFields& ps) { ps.optional_features &= ~uint64_t{1}; });
  {
    BuildOptions no_bounds;
    no_bounds.bounds = false;
    ps_bits("partition_bounds_bit_unused", "PARTITION_BOUNDS is set but no chunk has bounds.",
            [](PostscriptFields& ps) { ps.optional_features |= 1; }, no_bounds);
  }
  ps_bits("pgm_index_bit_unused", "PGM_INDEX (a known optional bit) is set but no chunk has a pgm index.",
          [](PostscriptFields& ps) { ps.optional_features |= 2; });
  {
    BuildOptions pgm;
    pgm.edit_footer = [](FooterModel& f) { Chunk0(f).pgm = PgmModel{}; };
    ps_bits("pgm_index_bit_clear", "A chunk has a pgm index table but PGM_INDEX is clear.",
            [](PostscriptFields& ps) { ps.optional_features &= ~uint64_t{2}; }, pgm);
  }
}

// Format 1.1 PgmIndex tables that break a rule of spec §11.3.4.
void PgmCases(const Inv& add) {
  auto pgm = [&](const std::string& name, const std::string& desc,
                 std::function<void(PgmModel&, uint64_t rows)> edit) {
    BuildOptions opt;
    opt.edit_footer = [edit](FooterModel& f) {
      const uint64_t rows = *Chunk0(f).num_rows;
      PgmModel p;
      p.epsilon = 64;
      p.epsilon_recursive = 4;
      p.num_keys = rows;
      p.level_offsets = {0, 1};
      p.segment_keys = std::vector<uint64_t>{0};
      p.segment_slopes = std::vector<float>{0.0f};
      p.segment_intercepts = std::vector<uint64_t>{0};
      edit(p, rows);
      Chunk0(f).pgm = p;
    };
    add(name, {"11.3"}, desc, "CORRUPT_METADATA", "open", File(opt));
  };
  pgm("pgm_num_keys_mismatch", "PgmIndex.num_keys is the chunk's num_rows + 1.",
      [](PgmModel& p, uint64_t rows) { p.num_keys = rows + 1; });
  pgm("pgm_vector_lengths_differ", "segment_slopes has two entries, segment_keys one.",
      [](PgmModel& p, uint64_t) { p.segment_slopes = std::vector<float>{0.0f, 0.0f}; });
  pgm("pgm_vector_missing", "segment_keys and segment_slopes present, segment_intercepts absent.",
      [](PgmModel& p, uint64_t) { p.segment_intercepts.reset(); });
  pgm("pgm_level_offsets_bad_end", "level_offsets {0, 2} with one segment.",
      [](PgmModel& p, uint64_t) { p.level_offsets = {0, 2}; });
  pgm("pgm_intercept_above_rows", "The segment's intercept is num_rows + 1.",
      [](PgmModel& p, uint64_t rows) { p.segment_intercepts = std::vector<uint64_t>{rows + 1}; });
  pgm("pgm_slope_negative", "The segment's slope is -0.5.",
      [](PgmModel& p, uint64_t) { p.segment_slopes = std::vector<float>{-0.5f}; });
  pgm("pgm_slope_nan", "The segment's slope is a NaN.",
      [](PgmModel& p, uint64_t) { p.segment_slopes = std::vector<float>{std::numeric_limits<float>::quiet_NaN()}; });
  pgm("pgm_keys_not_increasing", "Two leaf segments with the same first key, and an upper level of one.",
      [](PgmModel& p, uint64_t) {
        p.level_offsets = {0, 2, 3};
        p.segment_keys = std::vector<uint64_t>{5, 5, 5};
        p.segment_slopes = std::vector<float>{0.0f, 0.0f, 0.0f};
        p.segment_intercepts = std::vector<uint64_t>{0, 1, 0};
      });
  pgm("pgm_top_level_two_segments", "One level of two segments (the top level must have one).",
      [](PgmModel& p, uint64_t) {
        p.level_offsets = {0, 2};
        p.segment_keys = std::vector<uint64_t>{0, 9};
        p.segment_slopes = std::vector<float>{0.0f, 0.0f};
        p.segment_intercepts = std::vector<uint64_t>{0, 1};
      });
  pgm("pgm_epsilon_too_large", "epsilon = 2^30 + 1.", [](PgmModel& p, uint64_t) { p.epsilon = (1u << 30) + 1; });
}

void SegmentCases(const Inv& add) {
  auto seg = [&](const std::string& name, std::vector<std::string> sections, const std::string& desc,
                 const std::string& cls, std::function<void(FooterModel&)> edit, std::vector<std::string> also = {}) {
    BuildOptions opt;
    opt.edit_footer = edit;
    add(name, std::move(sections), desc, cls, "open", File(opt), {}, std::move(also));
  };
  seg("segment_offset_not_aligned", {"7.1", "4.3"}, "The payload's offset is 8 bytes past its real start.",
      "CORRUPT_FRAMING", [](FooterModel& f) {
        Chunk0(f).payload->offset += 8;
        Chunk0(f).payload->stored_length -= 8;
        Chunk0(f).payload->decoded_length -= 8;
      });
  seg("segment_offset_in_header", {"7.1"}, "The partition table's offset is 0.", "CORRUPT_FRAMING",
      [](FooterModel& f) { Chunk0(f).partition_table->offset = 0; });
  seg("segment_past_footer_offset", {"7.1"}, "The bounds segment's stored_length reaches past Footer_Offset.",
      "CORRUPT_FRAMING", [](FooterModel& f) {
        Chunk0(f).bounds->stored_length += 4096;
        Chunk0(f).bounds->decoded_length += 4096;
      });
  seg("segment_length_overflow", {"7.1"},
      "The payload's stored_length (and decoded_length) is 2^64 - 64: offset + stored_length "
      "overflows 64 bits. A reader may also report its decoded-size limit first.",
      "CORRUPT_FRAMING", [](FooterModel& f) {
        Chunk0(f).payload->stored_length = ~uint64_t{63};
        Chunk0(f).payload->decoded_length = ~uint64_t{63};
      },
      {"RESOURCE_LIMIT"});
  seg("segments_overlap", {"4.3"},
      "The parameters reference points at the partition table's bytes (the two overlap; the real "
      "parameter bytes are left unreferenced).",
      "CORRUPT_FRAMING", [](FooterModel& f) { Chunk0(f).parameters->offset = Chunk0(f).partition_table->offset; });
  seg("zero_length_segment_inside_another", {"4.3", "7.1"},
      "A PgmIndex segment of stored_length 0 at offset 256, inside the payload segment "
      "[192, 464): it occupies no bytes, but it does not start at align64(end of the "
      "previous segment).",
      "CORRUPT_FRAMING", [](FooterModel& f) {
        PgmModel pgm;
        SegRef empty;
        empty.offset = 256;
        pgm.segments = empty;
        Chunk0(f).pgm = pgm;
      });
  {
    // spec §4.3.1: entries of the segment table are placed and checked like
    // any segment.
    auto entry = [&](const std::string& name, const std::string& desc, const std::string& cls,
                     std::function<void(SegRef&, const FooterModel&)> edit) {
      BuildOptions opt;
      opt.extra_segments = {Bytes(100, 0x5A)};
      opt.attach = [edit](FooterModel& f, const std::vector<SegRef>& extra) {
        SegRef ref = extra[0];
        edit(ref, f);
        f.segments = std::vector<SegRef>{ref};
      };
      add(name, {"4.3", "4.3.1", "7.1"}, desc, cls, "open", File(opt));
    };
    entry("segment_table_entry_is_payload",
          "Footer.segments lists the chunk's payload segment a second time (an entry is never "
          "also referenced by a 1.0 field); the entry's own 100 bytes are left unreferenced.",
          "CORRUPT_FRAMING", [](SegRef& r, const FooterModel& f) { r = *Chunk0(f).payload; });
    entry("segment_table_entry_reserved_nonzero",
          "A Footer.segments entry (100 opaque bytes after the chunk's segments) with "
          "reserved_1 = 1.",
          "CORRUPT_FRAMING", [](SegRef& r, const FooterModel&) { r.reserved_1 = 1; });
    entry("segment_table_entry_field_planes",
          "A Footer.segments entry with compression ZstdFieldPlanes (allowed on payload segments "
          "only, spec §9.2); FIELD_PLANES is set.",
          "CORRUPT_METADATA", [](SegRef& r, const FooterModel&) { r.compression = 2; });
  }
  seg("segment_reserved_0_nonzero", {"7.1"}, "SegmentRef.reserved_0 = 1 on the payload.", "CORRUPT_FRAMING",
      [](FooterModel& f) { Chunk0(f).payload->reserved_0 = 1; });
  seg("segment_reserved_1_nonzero", {"7.1"}, "SegmentRef.reserved_1 = 0x100 on the parameters.",
      "CORRUPT_FRAMING", [](FooterModel& f) { Chunk0(f).parameters->reserved_1 = 0x100; });
  seg("uncompressed_decoded_length_differs", {"7.1"},
      "compression None with decoded_length = stored_length + 8 on the payload.", "CORRUPT_FRAMING",
      [](FooterModel& f) { Chunk0(f).payload->decoded_length += 8; });
  {
    BuildOptions opt;
    opt.gap_before = [](int, int, SegKind kind) { return kind == SegKind::kPayload ? 64 : 0; };
    add("segment_gap", {"4.3"},
        "64 zero bytes between the parameters and the payload beyond the alignment padding: the "
        "payload does not start at align64(end of the previous segment).",
        "CORRUPT_FRAMING", "open", File(opt));
    BuildOptions first;
    first.gap_before = [](int, int, SegKind kind) { return kind == SegKind::kPartitionTable ? 64 : 0; };
    add("first_segment_not_at_64", {"4.3"}, "The first segment starts at offset 128.", "CORRUPT_FRAMING",
        "open", File(first));
    BuildOptions tail;
    tail.finish.footer_gap = 64;
    add("footer_not_after_last_segment", {"4.3"},
        "64 zero bytes between align64(end of the last segment) and the footer.", "CORRUPT_FRAMING",
        "open", File(tail));
  }
}

void ChunkCases(const Inv& add) {
  auto chunk = [&](const std::string& name, std::vector<std::string> sections, const std::string& desc,
                   const std::string& cls, std::function<void(EncodedChunk&)> edit,
                   std::function<void(FooterModel&)> footer = {}) {
    BuildOptions opt;
    opt.edit_chunk = [edit](int, int, EncodedChunk& c) { edit(c); };
    opt.edit_footer = footer;
    add(name, std::move(sections), desc, cls, "read", File(opt));
  };
  // Segment lengths against the partition table (spec §7.1, §7.3–§7.5, §8.6).
  chunk("partition_table_length_wrong", {"7.1", "7.3"},
        "num_partitions in the footer is 2, but the partition table holds 3 records and the "
        "sentinel (decoded_length 64 instead of 48).",
        "CORRUPT_METADATA", [](EncodedChunk&) {}, [](FooterModel& f) { Chunk0(f).num_partitions = 2; });
  chunk("parameters_length_wrong", {"7.1", "7.3", "7.4"},
        "The parameters segment has 8 bytes more than 8 * Param_Offset[P].", "CORRUPT_METADATA",
        [](EncodedChunk& c) { c.parameters.insert(c.parameters.end(), 8, 0); });
  chunk("payload_padding_missing", {"7.1", "8.6"},
        "The payload segment lacks the 32 bytes of padding (decoded_length 8 * Payload_Offset[P]).",
        "CORRUPT_METADATA", [](EncodedChunk& c) { c.payload.resize(c.payload.size() - 32); });
  chunk("payload_padding_too_long", {"7.1", "8.6"}, "The payload segment ends with 40 bytes of padding.",
        "CORRUPT_METADATA", [](EncodedChunk& c) { c.payload.insert(c.payload.end(), 8, 0); });
  chunk("bounds_length_wrong", {"7.1", "7.5"}, "The bounds segment has 4 bytes more than 2 * P * N / 8.",
        "CORRUPT_METADATA", [](EncodedChunk& c) { c.bounds.insert(c.bounds.end(), 4, 0); });
  // Partition table rules (spec §7.3).
  chunk("first_row_0_nonzero", {"7.3"},
        "First_Row[0] = 1 (partition 0 then has 199 rows, which still need 16 payload words).",
        "CORRUPT_METADATA", [](EncodedChunk& c) { SetRec(c, 0, kFirstRow, 1); });
  chunk("first_row_not_increasing", {"7.3"}, "First_Row[2] = First_Row[1] = 200.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 2, kFirstRow, 200); });
  chunk("first_row_decreasing", {"7.3"}, "First_Row[2] = 100 < First_Row[1] = 200.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 2, kFirstRow, 100); });
  chunk("sentinel_first_row_not_num_rows", {"7.3"}, "The sentinel's First_Row is 599 (num_rows is 600).",
        "CORRUPT_METADATA", [](EncodedChunk& c) { SetRec(c, 3, kFirstRow, 599); });
  chunk("param_offset_0_nonzero", {"7.3"},
        "Param_Offset[0] = 1, with every Param_Offset shifted by one and a leading parameter word "
        "inserted, so only this rule is broken.",
        "CORRUPT_METADATA", [](EncodedChunk& c) {
          for (uint32_t p = 0; p <= 3; ++p) SetRec(c, p, kParamOffset, GetRec(c, p, kParamOffset) + 1);
          c.parameters.insert(c.parameters.begin(), 8, 0);
        });
  chunk("param_count_wrong", {"7.3", "8.1"},
        "The LINEAR partition has 3 parameter words (Param_Offset[2] - Param_Offset[1] = 3; "
        "LINEAR uses 2).",
        "CORRUPT_METADATA", [](EncodedChunk& c) {
          const uint64_t at = 8 * GetRec(c, 2, kParamOffset);
          c.parameters.insert(c.parameters.begin() + at, 8, 0);
          for (uint32_t p = 2; p <= 3; ++p) SetRec(c, p, kParamOffset, GetRec(c, p, kParamOffset) + 1);
        });
  chunk("payload_offset_0_nonzero", {"7.3"},
        "Payload_Offset[0] = 1, with every Payload_Offset shifted by one and a leading payload word "
        "inserted.",
        "CORRUPT_METADATA", [](EncodedChunk& c) {
          for (uint32_t p = 0; p <= 3; ++p) SetRec(c, p, kPayloadOffset, GetRec(c, p, kPayloadOffset) + 1);
          c.payload.insert(c.payload.begin(), 8, 0);
        });
  chunk("payload_words_wrong", {"7.3", "8.5"},
        "Partition 0 (FOR, 200 rows of 5 bits = 16 words) is given 17 payload words.",
        "CORRUPT_METADATA", [](EncodedChunk& c) {
          const uint64_t at = 8 * GetRec(c, 1, kPayloadOffset);
          c.payload.insert(c.payload.begin() + at, 8, 0);
          for (uint32_t p = 1; p <= 3; ++p) SetRec(c, p, kPayloadOffset, GetRec(c, p, kPayloadOffset) + 1);
        });
  chunk("model_type_5", {"7.3", "8.1"}, "Partition 1 has Model_Type 5 (DELTA, format 1.1) in a file without the DELTA_MODEL feature bit.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 1, kModelType, 5); });
  {
    // spec §8.9: a DELTA partition's Exceptions word and exception rows.
    std::vector<uint64_t> v;
    for (int i = 0; i < 200; ++i) v.push_back(static_cast<uint64_t>(i * 2 + (i % 17 == 0 ? 500 : 0)));
    PartSpec p = Part(200, kDelta);
    p.base = 2;  // the usual step; the jumps up and down are exceptions
    p.width = 1;
    const ColumnSpec col = Column("v", Ty::kU32, v, {p}, 8);
    BuildOptions reserved;
    reserved.edit_chunk = [](int, int, EncodedChunk& c) {
      SetLE(&c.parameters[8], GetLE(&c.parameters[8], 8) | (uint64_t{1} << 41), 8);
    };
    add("delta_exceptions_reserved_bits", {"8.9"},
        "A DELTA partition whose Exceptions word has bit 41 set (bits 41..63 are reserved).",
        "CORRUPT_METADATA", "read", File({col}, reserved));
    BuildOptions signed_without;
    signed_without.edit_chunk = [](int, int, EncodedChunk& c) {
      SetLE(&c.parameters[8], uint64_t{1} << 40, 8);  // E = 0, hw = 0, Signed_Highs
    };
    std::vector<uint64_t> steady;
    for (int i = 0; i < 200; ++i) steady.push_back(static_cast<uint64_t>(i * 2));
    PartSpec plain = Part(200, kDelta);
    add("delta_signed_highs_without_exceptions", {"8.9"},
        "A DELTA partition without exceptions whose Exceptions word sets Signed_Highs "
        "(bit 40; allowed only with Num_Exceptions > 0).",
        "CORRUPT_METADATA", "read",
        File({Column("v", Ty::kU32, steady, {plain}, 8)}, signed_without));
    BuildOptions too_wide;
    too_wide.edit_chunk = [](int, int, EncodedChunk& c) {
      const uint64_t word = GetLE(&c.parameters[8], 8);
      SetLE(&c.parameters[8], (word & 0xFFFFFFFFull) | (uint64_t{32} << 32), 8);
    };
    add("delta_exception_width_too_large", {"8.9"},
        "A u32 DELTA partition with Bit_Width 1 and Exception_Width 32 (w + hw > N).",
        "CORRUPT_METADATA", "read", File({col}, too_wide));
    BuildOptions unsorted;
    unsorted.edit_chunk = [](int, int, EncodedChunk& c) {
      // 200 rows of 1 bit after one Seed word; pb = 8: swap exception rows 0 and 1.
      Bytes stream(c.payload.begin() + 8, c.payload.end());
      auto get = [&](uint64_t bit) {
        uint64_t v = 0;
        for (int j = 0; j < 8; ++j) v |= uint64_t{(stream[(bit + j) / 8] >> ((bit + j) % 8)) & 1u} << j;
        return v;
      };
      auto put = [&](uint64_t bit, uint64_t v) {
        for (int j = 0; j < 8; ++j) {
          uint8_t& byte = stream[(bit + j) / 8];
          byte = static_cast<uint8_t>((byte & ~(1u << ((bit + j) % 8))) | (((v >> j) & 1u) << ((bit + j) % 8)));
        }
      };
      const uint64_t a = get(200), b = get(208);
      put(200, b);
      put(208, a);
      std::copy(stream.begin(), stream.end(), c.payload.begin() + 8);
    };
    add("delta_exception_rows_unsorted", {"8.9"},
        "A DELTA partition whose first two exception rows are swapped (rows must increase).",
        "CORRUPT_PAYLOAD", "read", File({col}, unsorted));
  }
  {
    // spec §8.12: a PATCHED_FOR partition's feature bit, Exceptions word and
    // exception rows. The column: 200 u32 rows of 3-bit offsets from 50,
    // rows 17, 90 and 151 outliers; Bit_Width 3, pb = 8, hw = 10.
    std::vector<uint64_t> v;
    for (int i = 0; i < 200; ++i) v.push_back(static_cast<uint64_t>(50 + i % 8));
    v[17] = 50 + 1000;
    v[90] = 50 + 7000;
    v[151] = 50 + 5000;
    PartSpec p = Part(200, kPatchedFor);
    p.base = 50;
    p.width = 3;
    const ColumnSpec col = Column("v", Ty::kU32, v, {p}, 8);
    auto edited = [&](std::function<void(EncodedChunk&)> edit) {
      BuildOptions opt;
      opt.edit_chunk = [edit](int, int, EncodedChunk& c) { edit(c); };
      return File({col}, opt);
    };
    BuildOptions no_bit;
    no_bit.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features &= ~(uint64_t{1} << 7);
    };
    add("model_type_7", {"4.4", "7.3", "8.1", "8.12"},
        "A PATCHED_FOR partition (Model_Type 7, format 1.1) in a file without the "
        "PATCHED_FOR_MODEL feature bit.",
        "CORRUPT_METADATA", "read", File({col}, no_bit));
    add("patched_for_exceptions_reserved_bits", {"8.12"},
        "A PATCHED_FOR partition whose Exceptions word has bit 42 set (bits 42..63 are "
        "reserved; bit 41 is Rows_EF).",
        "CORRUPT_METADATA", "read", edited([](EncodedChunk& c) {
          SetLE(&c.parameters[8], GetLE(&c.parameters[8], 8) | (uint64_t{1} << 42), 8);
        }));
    add("patched_for_exception_width_too_large", {"8.12"},
        "A u32 PATCHED_FOR partition with Bit_Width 3 and Exception_Width 30 (w + hw > N).",
        "CORRUPT_METADATA", "read", edited([](EncodedChunk& c) {
          const uint64_t word = GetLE(&c.parameters[8], 8);
          SetLE(&c.parameters[8], (word & 0xFFFFFFFFull) | (uint64_t{30} << 32), 8);
        }));
    add("patched_for_num_exceptions_above_n", {"8.12"},
        "A PATCHED_FOR partition of 200 rows whose Num_Exceptions is 201.",
        "CORRUPT_METADATA", "read", edited([](EncodedChunk& c) {
          const uint64_t word = GetLE(&c.parameters[8], 8);
          SetLE(&c.parameters[8], (word & ~uint64_t{0xFFFFFFFF}) | 201, 8);
        }));
    // The exception rows are 8-bit fields from stream bit 200 * 3 = 600.
    auto set_row = [](EncodedChunk& c, uint64_t i, uint64_t row) {
      for (int j = 0; j < 8; ++j) {
        const uint64_t bit = 600 + 8 * i + j;
        uint8_t& byte = c.payload[bit / 8];
        byte = static_cast<uint8_t>((byte & ~(1u << (bit % 8))) | (((row >> j) & 1u) << (bit % 8)));
      }
    };
    add("patched_for_exception_rows_unsorted", {"8.12"},
        "A PATCHED_FOR partition whose exception rows read 17, 151, 90 (rows must increase).",
        "CORRUPT_PAYLOAD", "read", edited([set_row](EncodedChunk& c) {
          set_row(c, 1, 151);
          set_row(c, 2, 90);
        }));
    add("patched_for_exception_row_out_of_range", {"8.12"},
        "A PATCHED_FOR partition of 200 rows whose last exception row reads 250 (rows must lie "
        "below n).",
        "CORRUPT_PAYLOAD", "read", edited([set_row](EncodedChunk& c) { set_row(c, 2, 250); }));
  }
  {
    // spec §8.12 Rows_EF: the feature bit, the parameters and H. The column:
    // 200 u32 rows of 50 except rows 17, 90, 151 (1050, 7050, 5050); Base
    // 50, Bit_Width 0, three exceptions: l = bitlen(66) - 1 = 6, H_n = 3 +
    // 199 / 64 = 6, the low parts at bits 0..17, H at bits 18..23 (its 1
    // bits at 0, 2 and 4: high parts 0, 1, 2).
    std::vector<uint64_t> v(200, 50);
    v[17] = 1050;
    v[90] = 7050;
    v[151] = 5050;
    PartSpec p = Part(200, kPatchedFor);
    p.base = 50;
    p.width = 0;
    p.rows_ef = true;
    const ColumnSpec col = Column("v", Ty::kU32, v, {p}, 8);
    auto edited = [&](std::function<void(EncodedChunk&)> edit) {
      BuildOptions opt;
      opt.edit_chunk = [edit](int, int, EncodedChunk& c) { edit(c); };
      return File({col}, opt);
    };
    auto flip = [](EncodedChunk& c, uint64_t bit) {
      c.payload[bit / 8] = static_cast<uint8_t>(c.payload[bit / 8] ^ (1u << (bit % 8)));
    };
    // Rewrites the 6-bit low part at payload bit `at` from `from` to `to`.
    auto rewrite_low = [flip](EncodedChunk& c, uint64_t at, uint32_t from, uint32_t to) {
      for (uint32_t j = 0; j < 6; ++j) {
        if (((from ^ to) >> j) & 1u) flip(c, at + j);
      }
    };
    BuildOptions no_bit;
    no_bit.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features &= ~(uint64_t{1} << 8);
    };
    add("patched_for_rows_ef_without_feature_bit", {"4.4", "8.12"},
        "A PATCHED_FOR partition with Rows_EF in a file without the PATCHED_ROWS_EF feature "
        "bit.",
        "CORRUPT_METADATA", "read", File({col}, no_bit));
    add("patched_for_rows_ef_h_extra_one", {"8.12"},
        "A Rows_EF partition whose H holds a fourth 1 bit (bit 5 of H; exactly E = 3 are "
        "allowed).",
        "CORRUPT_PAYLOAD", "read", edited([flip](EncodedChunk& c) { flip(c, 18 + 5); }));
    add("patched_for_rows_ef_h_missing_one", {"8.12"},
        "A Rows_EF partition whose H lost its last 1 bit (bit 4 of H), so it holds two of the "
        "E = 3.",
        "CORRUPT_PAYLOAD", "read", edited([flip](EncodedChunk& c) { flip(c, 18 + 4); }));
    add("patched_for_rows_ef_rows_equal", {"8.12"},
        "A Rows_EF partition whose second row reads 17 like the first (its low part 26 -> 17, "
        "its 1 bit of H moved from bit 2 to bit 1): rows must increase.",
        "CORRUPT_PAYLOAD", "read", edited([flip, rewrite_low](EncodedChunk& c) {
          rewrite_low(c, 6, 26, 17);  // low_1 = 90 mod 64 = 26 at bits 6..11
          flip(c, 18 + 1);
          flip(c, 18 + 2);
        }));
    add("patched_for_rows_ef_row_at_n", {"8.12"},
        "A Rows_EF partition of 200 rows whose last row reads 200 (its low part 23 -> 8, its 1 "
        "bit of H moved from bit 4 to bit 5, the last bit of H): rows 17, 90, 200 increase, "
        "and H holds E = 3 ones, but rows must lie below n.",
        "CORRUPT_PAYLOAD", "read", edited([flip, rewrite_low](EncodedChunk& c) {
          // low_2 = 151 mod 64 = 23 at bits 12..17; r_2 = (5 - 2) * 64 + 8 = 200.
          rewrite_low(c, 12, 23, 8);
          flip(c, 18 + 4);
          flip(c, 18 + 5);
        }));
  }
  {
    // spec §8.12: Rows_EF needs E >= 1. 200 u32 rows of 3-bit offsets from
    // 50, Bit_Width 3, no exceptions; the Exceptions word reads E = 0, hw =
    // 0, Rows_EF = 1, and the file sets PATCHED_ROWS_EF, so only E is wrong.
    std::vector<uint64_t> v;
    for (int i = 0; i < 200; ++i) v.push_back(static_cast<uint64_t>(50 + i % 8));
    PartSpec p = Part(200, kPatchedFor);
    p.base = 50;
    p.width = 3;
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      SetLE(&c.parameters[8], uint64_t{1} << 41, 8);  // E = 0, hw = 0, Rows_EF
    };
    opt.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 8;
    };
    add("patched_for_rows_ef_without_exceptions", {"8.12"},
        "A u32 PATCHED_FOR partition of 200 rows without exceptions (Bit_Width 3, 10 payload "
        "words of fields only) whose Exceptions word is 2^41: Num_Exceptions 0, "
        "Exception_Width 0 and Rows_EF (which needs Num_Exceptions >= 1; l = bitlen(n / E) - 1 "
        "is undefined). PATCHED_ROWS_EF is set.",
        "CORRUPT_METADATA", "read", File({Column("v", Ty::kU32, v, {p}, 8)}, opt));
  }
  {
    // spec §8.12: Rows_EF needs n <= 65536. 65537 u32 rows of 3 but the last
    // (5003); Bit_Width 0, one exception (row 65536, high part 5000, hw =
    // 13). The encoder refuses Rows_EF there, so the partition is written
    // with a fixed-width row (pb = 17) and rewritten: with Rows_EF l =
    // bitlen(65537) - 1 = 16 and H_n = 1 + floor(65536 / 2^16) = 2; low_0 =
    // 0 at bits 0..15, H = 0 1 at bits 16..17 (row 65536 >> 16 = 1), the
    // high part at bits 18..30: still one payload word, so that only n is
    // wrong. PATCHED_ROWS_EF is set.
    std::vector<uint64_t> v(65537, 3);
    v[65536] = 5003;
    PartSpec p = Part(65537, kPatchedFor);
    p.base = 3;
    p.width = 0;
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) {
      const uint64_t word = GetLE(&c.parameters[8], 8);
      if (word != (1 | (uint64_t{13} << 32)) || c.payload.size() != 8 + 32) {
        Fail("patched_for_rows_ef_65537_rows: unexpected encoding");
      }
      SetLE(&c.parameters[8], word | (uint64_t{1} << 41), 8);
      SetLE(&c.payload[0], (uint64_t{1} << 17) | (uint64_t{5000} << 18), 8);
    };
    opt.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features |= uint64_t{1} << 8;
    };
    add("patched_for_rows_ef_65537_rows", {"8.12"},
        "A u32 PATCHED_FOR partition of 65537 rows (Rows_EF allows at most 65536), Base 3, "
        "Bit_Width 0, one exception (row 65536, high part 5000) with Rows_EF: l = 16, H_n = "
        "2, payload word 0x4E220000; PATCHED_ROWS_EF is set.",
        "CORRUPT_METADATA", "read", File({Column("v", Ty::kU32, v, {p})}, opt));
  }
  chunk("model_type_6", {"7.3", "8.1", "8.11"},
        "Partition 2 (runs) has Model_Type 6 (RUNS_EF, format 1.1) in a file without the "
        "RUNS_EF_MODEL feature bit.",
        "CORRUPT_METADATA", [](EncodedChunk& c) { SetRec(c, 2, kModelType, 6); });
  {
    // spec §8.11: a RUNS_EF partition's parameters and high part. The column:
    // 200 u16 rows, R runs, Bit_Width 6, l = 1.
    const ColumnSpec col = RunsEfColumn();
    auto edited = [&](std::function<void(EncodedChunk&)> edit) {
      BuildOptions opt;
      opt.edit_chunk = [edit](int, int, EncodedChunk& c) { edit(c); };
      return File({col}, opt);
    };
    add("runs_ef_num_runs_1", {"8.11"}, "A RUNS_EF partition with Num_Runs 1 (at least 2).",
        "CORRUPT_METADATA", "read", edited([](EncodedChunk& c) { SetLE(&c.parameters[8], 1, 8); }));
    add("runs_ef_num_runs_above_n", {"8.11"},
        "A RUNS_EF partition of 200 rows with Num_Runs 201.", "CORRUPT_METADATA", "read",
        edited([](EncodedChunk& c) { SetLE(&c.parameters[8], 201, 8); }));
    add("runs_ef_bit_width_0", {"8.11"}, "A RUNS_EF partition with Bit_Width 0 (at least 1).",
        "CORRUPT_METADATA", "read", edited([](EncodedChunk& c) { SetRec(c, 0, kBitWidth, 0); }));
    // Where H starts: R * w + (R - 1) * l, from the partition's own words.
    auto high_bit0 = [](const EncodedChunk& c) {
      const uint64_t runs = GetLE(&c.parameters[8], 8);
      return runs * GetRec(c, 0, kBitWidth) + (runs - 1) * 1;
    };
    auto flip = [](EncodedChunk& c, uint64_t bit) {
      c.payload[bit / 8] = static_cast<uint8_t>(c.payload[bit / 8] ^ (1u << (bit % 8)));
    };
    add("runs_ef_high_part_one_missing", {"8.11"},
        "The first 1 bit of the RUNS_EF high part H is cleared: H holds Num_Runs - 2 ones.",
        "CORRUPT_PAYLOAD", "read", edited([&](EncodedChunk& c) {
          uint64_t bit = high_bit0(c);
          while (!((c.payload[bit / 8] >> (bit % 8)) & 1)) ++bit;
          flip(c, bit);
        }));
    add("runs_ef_high_part_one_extra", {"8.11"},
        "Bit 0 of the RUNS_EF high part H (a 0 bit: no run starts at rows 0..1 but run 0) is "
        "set: H holds Num_Runs ones.",
        "CORRUPT_PAYLOAD", "read", edited([&](EncodedChunk& c) { flip(c, high_bit0(c)); }));
    add("runs_ef_starts_not_increasing", {"8.11"},
        "The low part of run 1's start (row 2, high part 1) is set to 1, so runs 1 and 2 both "
        "start at row 3.",
        "CORRUPT_PAYLOAD", "read", edited([](EncodedChunk& c) {
          const uint64_t runs = GetLE(&c.parameters[8], 8);
          const uint64_t bit = runs * GetRec(c, 0, kBitWidth);  // low_1
          c.payload[bit / 8] = static_cast<uint8_t>(c.payload[bit / 8] | (1u << (bit % 8)));
        }));
    std::vector<uint64_t> big(65537, 3);
    big[65536] = 4;
    add("runs_ef_65537_rows", {"8.11"},
        "A u32 RUNS_EF partition of 65537 rows (at most 65536), two runs.", "CORRUPT_METADATA",
        "read", File({Column("v", Ty::kU32, big, {Part(65537, kRunsEf)})}));
  }
  chunk("model_type_255", {"7.3", "8.1"}, "Partition 1 has Model_Type 255.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 1, kModelType, 255); });
  chunk("record_reserved_nonzero", {"7.3"}, "Partition 0's Reserved field is 1.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 0, kReserved, 1); });
  chunk("sentinel_model_type_nonzero", {"7.3"}, "The sentinel's Model_Type is 1.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 3, kModelType, 1); });
  chunk("sentinel_bit_width_nonzero", {"7.3"}, "The sentinel's Bit_Width is 5.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 3, kBitWidth, 5); });
  chunk("sentinel_reserved_nonzero", {"7.3"}, "The sentinel's Reserved field is 0x8000.", "CORRUPT_METADATA",
        [](EncodedChunk& c) { SetRec(c, 3, kReserved, 0x8000); });
  {
    Rng rng(5);
    std::vector<uint64_t> v = ForValues(Ty::kI32, 0, 20, 100, rng);
    PartSpec p = Part(100, kFor);
    p.width = 33;
    add("bit_width_above_n", {"7.3"},
        "An i32 FOR_BITPACK partition with Bit_Width 33 (> N = 32); its payload length matches 33 "
        "bits per row.",
        "CORRUPT_METADATA", "read", File({Column("v", Ty::kI32, v, {p})}));
  }
  // Parameters (spec §8.2).
  auto param = [&](const std::string& name, const std::string& desc, uint32_t word, uint64_t value) {
    chunk(name, {"8.2"}, desc, "CORRUPT_METADATA", [word, value](EncodedChunk& c) {
      SetLE(&c.parameters[8 * word], value, 8);
    });
  };
  param("for_base_not_canonical", "Partition 0 (FOR, i32) has Base -10 stored zero-extended "
        "(0x00000000FFFFFFF6) instead of sign-extended.", 0, 0x00000000FFFFFFF6ull);
  param("theta_nan", "Partition 1 (LINEAR) has Theta_1 = quiet NaN.", 2, 0x7FF8000000000000ull);
  param("theta_signaling_nan", "Partition 1 (LINEAR) has Theta_0 = a signaling NaN (0x7FF0000000000001).", 1,
        0x7FF0000000000001ull);
  param("theta_positive_infinity", "Partition 1 (LINEAR) has Theta_0 = +inf.", 1, 0x7FF0000000000000ull);
  param("theta_negative_infinity", "Partition 1 (LINEAR) has Theta_1 = -inf.", 2, 0xFFF0000000000000ull);
  param("runs_base_not_canonical", "Partition 2 (runs, i32) has Base 100 with bit 40 set.", 3,
        100 | (uint64_t{1} << 40));
  param("num_runs_zero", "Partition 2 (runs) has Num_Runs 0.", 4, 0);
  param("num_runs_above_n", "Partition 2 (runs, 200 rows) has Num_Runs 201.", 4, 201);
  param("num_runs_huge", "Partition 2 (runs) has Num_Runs 2^63 (payload_words would overflow).", 4,
        uint64_t{1} << 63);
  {
    std::vector<uint64_t> v = Signed(Ty::kI8, {-128, -100, 5, 127});
    BuildOptions opt;
    opt.edit_chunk = [](int, int, EncodedChunk& c) { SetLE(&c.parameters[0], 0x80, 8); };
    add("for_base_not_canonical_i8", {"8.2"},
        "An i8 FOR partition with Base -128 stored as 0x80 (zero-extended).", "CORRUPT_METADATA", "read",
        File({Column("v", Ty::kI8, v, {Part(4, kFor)})}, opt));
    BuildOptions u;
    u.edit_chunk = [](int, int, EncodedChunk& c) { SetLE(&c.parameters[0], 0xFFFFFFFFFFFF0005ull, 8); };
    add("constant_base_not_canonical_u16", {"8.2"},
        "A u16 CONSTANT partition with Base 5 stored with the upper 48 bits set.", "CORRUPT_METADATA",
        "read", File({Column("v", Ty::kU16, std::vector<uint64_t>(10, 5), {Part(10, kConstant)})}, u));
  }
  // Run starts (spec §8.7): payload errors, with the segment checksum
  // recomputed so that the check is reached.
  {
    // Partition 2: n = 200, R = 5, w = 3, pb = 8; start i at 15 + 8 (i - 1).
    auto starts = [&](const std::string& name, const std::string& desc, std::vector<std::pair<int, uint64_t>> set) {
      chunk(name, {"8.7"}, desc, "CORRUPT_PAYLOAD", [set](EncodedChunk& c) {
        for (const auto& s : set) PutPayloadBits(c, 2, 15 + 8 * (s.first - 1), 8, s.second);
      });
    };
    starts("run_start_zero", "Run starts 0, 50, 100, 150: the first lies outside [1, n_p - 1].",
           {{1, 0}, {2, 50}, {3, 100}, {4, 150}});
    starts("run_starts_equal", "Run starts 10, 120, 120, 150: not strictly increasing.",
           {{1, 10}, {2, 120}, {3, 120}, {4, 150}});
    starts("run_starts_decreasing", "Run starts 10, 120, 60, 150.", {{1, 10}, {2, 120}, {3, 60}, {4, 150}});
    starts("run_start_equals_n", "Run starts 50, 100, 150, 200: the last equals n_p = 200.",
           {{1, 50}, {2, 100}, {3, 150}, {4, 200}});
    starts("run_start_past_n", "Run starts 50, 100, 150, 255 (the largest 8-bit value), past n_p = 200.",
           {{1, 50}, {2, 100}, {3, 150}, {4, 255}});
  }
}

void ChecksumCases(const Inv& add) {
  const char* kNames[] = {"partition_table", "parameters", "payload", "bounds"};
  for (int s = 0; s < 4; ++s) {
    BuildOptions opt;
    opt.edit_footer = [s](FooterModel& f) {
      ChunkModel& c = Chunk0(f);
      std::optional<SegRef>* refs[] = {&c.partition_table, &c.parameters, &c.payload, &c.bounds};
      (*refs[s])->checksum ^= 0x00010000u;
    };
    add(Fmt("segment_checksum_%s", kNames[s]), {"5"},
        Fmt("The %s segment's checksum field has one bit flipped; the segment itself is intact.", kNames[s]),
        "CHECKSUM_MISMATCH", "read", File(opt), {"segment_checksums"});
  }
  {
    // spec §10.2: checksum, then length, then decompression.
    BuildOptions opt;
    opt.zstd = true;
    opt.edit_footer = [](FooterModel& f) {
      ChunkModel& c = Chunk0(f);
      c.payload->checksum ^= 0x00010000u;
      c.payload->decoded_length += 8;
    };
    add("segment_checksum_and_length_wrong", {"5", "10.2"},
        "Every segment is a zstd frame; the payload's checksum field has one bit flipped and its "
        "decoded_length is 8 more than the partition table requires: a reader that verifies "
        "checksums reports CHECKSUM_MISMATCH (spec §10.2 step 2), one that does not reports the "
        "length (step 6) before it decompresses anything.",
        "CHECKSUM_MISMATCH", "read", File(opt), {"segment_checksums"}, {"CORRUPT_METADATA"});
  }
  BuildOptions flip;
  flip.edit_file = [](Bytes& f, const FooterModel& m) {
    f[Chunk0(m).payload->offset + 3] ^= 0x04;
  };
  add("segment_data_bit_flipped", {"5"},
      "One payload bit flipped in the file (inside a FOR field, so the payload is still "
      "structurally valid); the checksum is the only thing that catches it.",
      "CHECKSUM_MISMATCH", "read", File(flip), {"segment_checksums"});
}

void ZstdCases(const Inv& add) {
  auto payload = [&](const std::string& name, const std::string& desc, const std::string& cls,
                     std::function<void(Bytes& stored, uint64_t& decoded)> edit,
                     std::vector<std::string> also = {}, const std::string& stage = "read") {
    BuildOptions opt;
    opt.zstd = true;
    opt.edit_stored = [edit](int, int, SegKind kind, Bytes& stored, uint64_t& decoded, uint8_t&) {
      if (kind == SegKind::kPayload) edit(stored, decoded);
    };
    add(name, {"9"}, desc, cls, stage, File(opt), {}, std::move(also));
  };
  const ColumnSpec base = Base();
  const Bytes plain = EncodeChunk(base.type, 64, base.chunks[0].values, base.chunks[0].parts).payload;
  payload("zstd_frame_decodes_longer",
          "The payload's zstd frame decodes to 8 bytes more than decoded_length (which matches the "
          "partition table).",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) {
            Bytes longer = plain;
            longer.insert(longer.end(), 8, 0);
            stored = ZstdFrame(longer);
          });
  payload("zstd_frame_decodes_shorter",
          "The payload's zstd frame decodes to 8 bytes less than decoded_length.", "CORRUPT_PAYLOAD",
          [plain](Bytes& stored, uint64_t&) {
            stored = ZstdFrame(Bytes(plain.begin(), plain.end() - 8));
          });
  payload("zstd_frame_shorter_no_content_size",
          "As zstd_frame_decodes_shorter, with a frame that does not record its content size, so "
          "the length is only known after decompressing.",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) {
            stored = ZstdFrame(Bytes(plain.begin(), plain.end() - 8), false);
          });
  payload("zstd_not_a_frame", "The payload's stored bytes are 64 bytes of 0x5A, not a zstd frame.",
          "CORRUPT_PAYLOAD", [](Bytes& stored, uint64_t&) { stored.assign(64, 0x5A); });
  payload("zstd_two_frames",
          "The payload is stored as two zstd frames whose contents together are the payload "
          "(spec §9: exactly one frame).",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) {
            const size_t half = plain.size() / 2;
            stored = ZstdFrame(Bytes(plain.begin(), plain.begin() + half));
            const Bytes second = ZstdFrame(Bytes(plain.begin() + half, plain.end()));
            stored.insert(stored.end(), second.begin(), second.end());
          });
  payload("zstd_trailing_bytes", "The payload's zstd frame is followed by 4 zero bytes.", "CORRUPT_PAYLOAD",
          [](Bytes& stored, uint64_t&) { stored.insert(stored.end(), 4, 0); });
  payload("zstd_skippable_frame_first",
          "The payload is stored as a skippable frame (magic 0x184D2A50, 8 bytes of user data) "
          "followed by the zstd frame of the payload (spec §9.1: exactly one zstd frame).",
          "CORRUPT_PAYLOAD", [](Bytes& stored, uint64_t&) {
            Bytes skippable = {0x50, 0x2A, 0x4D, 0x18, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
            skippable.insert(skippable.end(), stored.begin(), stored.end());
            stored = skippable;
          });
  payload("zstd_skippable_frame_only",
          "The payload's stored bytes are one skippable frame whose user data is the plain "
          "payload (spec §9.1: a skippable frame is not a zstd frame).",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) {
            stored = {0x50, 0x2A, 0x4D, 0x18};
            const uint32_t size = static_cast<uint32_t>(plain.size());
            for (int i = 0; i < 4; ++i) stored.push_back(static_cast<uint8_t>(size >> (8 * i)));
            stored.insert(stored.end(), plain.begin(), plain.end());
          });
  payload("zstd_window_log_32",
          "The payload is one zstd frame of raw blocks whose Window_Descriptor is 0xB0 "
          "(Exponent 22: Window_Log 32, a 4 GiB window); spec §9.1 bounds Window_Log at 31.",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) { stored = RawBlockFrame(plain, 0x00, 0xB0); });
  payload("zstd_frame_header_reserved_bit",
          "The payload is one zstd frame of raw blocks whose Frame_Header_Descriptor sets the "
          "Reserved_Bit (bit 3); otherwise the frame is valid (Window_Log 17).",
          "CORRUPT_PAYLOAD", [plain](Bytes& stored, uint64_t&) { stored = RawBlockFrame(plain, 0x08, 0x38); });
  payload("zstd_content_checksum_wrong",
          "The zstd frame's content checksum (its last 4 bytes) has a bit flipped; the segment "
          "checksum is recomputed.",
          "CORRUPT_PAYLOAD", [](Bytes& stored, uint64_t&) { stored[stored.size() - 1] ^= 0x01; });
  payload("zstd_decoded_length_not_table_length",
          "The payload's frame holds the payload plus 8 bytes and decoded_length says so, but the "
          "partition table requires 8 * Payload_Offset[P] + 32: the length check comes before "
          "decompression (spec §7.1, §9).",
          "CORRUPT_METADATA", [plain](Bytes& stored, uint64_t& decoded) {
            Bytes longer = plain;
            longer.insert(longer.end(), 8, 0);
            stored = ZstdFrame(longer);
            decoded = longer.size();
          });
  payload("zstd_decoded_length_2p40",
          "The payload's decoded_length is 2^40 for a small frame: beyond the reference limits of "
          "spec §13 (2^36 bytes, 2^20 times the stored length). A reader with larger limits "
          "finds it differs from the partition table's length instead.",
          "RESOURCE_LIMIT", [](Bytes&, uint64_t& decoded) { decoded = uint64_t{1} << 40; },
          {"CORRUPT_METADATA"}, "open");
  {
    // decoded_length consistent with the partition table (one FOR
    // partition of 2^32 - 1 rows of 64 bits) but 2^28 times the stored
    // length: a reader must refuse before allocating 32 GiB.
    BuildOptions opt;
    opt.bounds = false;
    opt.statistics = false;
    const uint64_t rows = 0xFFFFFFFFull;
    opt.edit_chunk = [rows](int, int, EncodedChunk& c) {
      SetRec(c, 0, kBitWidth, 64);
      SetRec(c, 1, kFirstRow, rows);
      SetRec(c, 1, kPayloadOffset, rows);
    };
    opt.edit_stored = [rows](int, int, SegKind kind, Bytes& stored, uint64_t& decoded, uint8_t& compression) {
      if (kind != SegKind::kPayload) return;
      stored.assign(128, 0);
      decoded = 8 * rows + 32;
      compression = 1;
    };
    opt.edit_footer = [rows](FooterModel& f) {
      f.num_rows = rows;
      Chunk0(f).num_rows = rows;
    };
    add("zstd_expansion_over_limit", {"9", "13"},
        "A u64 chunk of 2^32 - 1 rows in one FOR_BITPACK partition of 64 bits: the payload's "
        "decoded_length (8 * (2^32 - 1) + 32, about 32 GiB) matches the partition table but is "
        "stored as 128 bytes. Spec §9: check decoded_length against the resource limits before "
        "decompressing. A reader that inspects the frame first finds it is not zstd.",
        "RESOURCE_LIMIT", "open",
        File({Column("v", Ty::kU64, {7}, {Part(1, kFor)})}, opt), {}, {"CORRUPT_PAYLOAD"});
  }
}

void FieldPlaneCases(const Inv& add) {
  // spec §9.2: the payload stored as zstd over its field-plane form.
  const ColumnSpec base = Base();
  const EncodedChunk chunk = EncodeChunk(base.type, 64, base.chunks[0].values, base.chunks[0].parts);
  const Bytes planes = FieldPlaneForm(chunk);
  auto planes_case = [&](const std::string& name, std::vector<std::string> sections,
                         const std::string& desc, const std::string& cls, const std::string& stage,
                         std::function<void(SegKind, Bytes&, uint8_t&)> edit,
                         std::function<void(PostscriptFields&)> ps = nullptr,
                         std::vector<std::string> also = {}) {
    BuildOptions opt;
    opt.field_planes = true;
    opt.edit_stored = [edit](int, int, SegKind kind, Bytes& stored, uint64_t&, uint8_t& compression) {
      edit(kind, stored, compression);
    };
    if (ps) opt.finish.edit_postscript = ps;
    add(name, std::move(sections), desc, cls, stage, File(opt), {}, std::move(also));
  };
  planes_case("field_planes_bit_clear", {"4.4", "7.1", "9.2"},
              "The payload is stored as ZstdFieldPlanes but FIELD_PLANES (Required_Features bit 4) "
              "is clear.",
              "CORRUPT_METADATA", "open", [](SegKind, Bytes&, uint8_t&) {},
              [](PostscriptFields& ps) { ps.required_features &= ~(uint64_t{1} << 4); });
  planes_case("field_planes_bit_unused", {"4.4", "9.2"},
              "FIELD_PLANES is set (format 1.1) but every segment is stored plain.",
              "CORRUPT_METADATA", "open",
              [&](SegKind kind, Bytes& stored, uint8_t& compression) {
                if (kind == SegKind::kPayload) {
                  stored = chunk.payload;
                  compression = 0;
                }
              },
              [](PostscriptFields& ps) { ps.required_features |= uint64_t{1} << 4; });
  planes_case("field_planes_on_parameters", {"7.1", "9.2"},
              "The parameters segment is stored as ZstdFieldPlanes (allowed on payload segments "
              "only); FIELD_PLANES is set.",
              "CORRUPT_METADATA", "open", [](SegKind kind, Bytes&, uint8_t& compression) {
                if (kind == SegKind::kParameters) compression = 2;
              });
  planes_case("field_planes_length_short", {"9.2"},
              "The payload's frame holds the field-plane form less its last byte.",
              "CORRUPT_PAYLOAD", "read", [&](SegKind kind, Bytes& stored, uint8_t&) {
                if (kind == SegKind::kPayload) stored = ZstdFrame(Bytes(planes.begin(), planes.end() - 1));
              });
  planes_case("field_planes_length_long", {"9.2"},
              "The payload's frame holds the field-plane form and one more zero byte.",
              "CORRUPT_PAYLOAD", "read", [&](SegKind kind, Bytes& stored, uint8_t&) {
                if (kind != SegKind::kPayload) return;
                Bytes longer = planes;
                longer.push_back(0);
                stored = ZstdFrame(longer);
              });
  planes_case("field_planes_top_bits_set", {"9.2"},
              "In the field-plane form, the first FOR field's byte 0 has bit 7 set although the "
              "partition's Bit_Width is 5: a bit at or above the field's width.",
              "CORRUPT_PAYLOAD", "read", [&](SegKind kind, Bytes& stored, uint8_t&) {
                if (kind != SegKind::kPayload) return;
                Bytes bad = planes;
                bad[0] |= 0x80;
                stored = ZstdFrame(bad);
              });

  // spec §9.3: the same fields whole, field after field.
  const Bytes field_bytes = FieldByteForm(chunk);
  auto bytes_case = [&](const std::string& name, std::vector<std::string> sections,
                        const std::string& desc, const std::string& cls, const std::string& stage,
                        std::function<void(SegKind, Bytes&, uint8_t&)> edit,
                        std::function<void(PostscriptFields&)> ps = nullptr) {
    BuildOptions opt;
    opt.field_bytes = true;
    opt.edit_stored = [edit](int, int, SegKind kind, Bytes& stored, uint64_t&, uint8_t& compression) {
      edit(kind, stored, compression);
    };
    if (ps) opt.finish.edit_postscript = ps;
    add(name, std::move(sections), desc, cls, stage, File(opt), {}, {});
  };
  bytes_case("field_bytes_bit_clear", {"4.4", "7.1", "9.3"},
             "The payload is stored as ZstdFieldBytes but FIELD_PLANES (Required_Features bit 4, "
             "which also covers field bytes) is clear.",
             "CORRUPT_METADATA", "open", [](SegKind, Bytes&, uint8_t&) {},
             [](PostscriptFields& ps) { ps.required_features &= ~(uint64_t{1} << 4); });
  bytes_case("field_bytes_on_bounds", {"7.1", "9.3"},
             "The bounds segment is stored as ZstdFieldBytes (allowed on payload segments only); "
             "FIELD_PLANES is set.",
             "CORRUPT_METADATA", "open", [](SegKind kind, Bytes&, uint8_t& compression) {
               if (kind == SegKind::kBounds) compression = 3;
             });
  bytes_case("field_bytes_length_short", {"9.3"},
             "The payload's frame holds the field-byte form less its last byte.",
             "CORRUPT_PAYLOAD", "read", [&](SegKind kind, Bytes& stored, uint8_t&) {
               if (kind == SegKind::kPayload) {
                 stored = ZstdFrame(Bytes(field_bytes.begin(), field_bytes.end() - 1));
               }
             });
  bytes_case("field_bytes_top_bits_set", {"9.3"},
             "In the field-byte form, the first FOR field's only byte has bit 7 set although the "
             "partition's Bit_Width is 5: a bit at or above the field's width.",
             "CORRUPT_PAYLOAD", "read", [&](SegKind kind, Bytes& stored, uint8_t&) {
               if (kind != SegKind::kPayload) return;
               Bytes bad = field_bytes;
               bad[0] |= 0x80;
               stored = ZstdFrame(bad);
             });
}


// A u64 chunk of 3000 distinct values (FOR): its sketch is in the REGISTERS
// form (spec §7.6.1).
ColumnSpec ManyDistinct() {
  std::vector<uint64_t> v(3000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1000003 * i + (i * i) % 977;
  return Column("v", Ty::kU64, v, {Part(3000, kFor)});
}

void DistinctSketchCases(const Inv& add) {
  // spec §7.6.1: the sketch's rules are checked when the footer is read.
  auto sketch_case = [&](const std::string& name, const std::string& desc, const ColumnSpec& col,
                         std::function<void(Statistics&)> edit,
                         std::function<void(PostscriptFields&)> ps = nullptr) {
    BuildOptions opt;
    opt.distinct_sketch = true;
    opt.edit_footer = [edit](FooterModel& f) { edit(*(*f.columns)[0].chunks->at(0).statistics); };
    if (ps) opt.finish.edit_postscript = ps;
    add(name, {"7.6.1"}, desc, "CORRUPT_METADATA", "open", File({col}, opt));
  };
  const ColumnSpec base = Base();
  sketch_case("distinct_sketch_bit_clear",
              "The chunk statistics carry a distinct sketch but DISTINCT_SKETCH (Optional_Features "
              "bit 2) is clear.",
              base, [](Statistics&) {},
              [](PostscriptFields& ps) { ps.optional_features &= ~uint64_t{4}; });
  sketch_case("distinct_sketch_bit_unused",
              "DISTINCT_SKETCH (Optional_Features bit 2) is set but no chunk has a sketch.", base,
              [](Statistics& s) { s.distinct_sketch.clear(); },
              [](PostscriptFields& ps) { ps.optional_features |= 4; });
  sketch_case("distinct_sketch_form_2", "The sketch's Sketch_Form byte is 2 (only 0 and 1 are defined).",
              base, [](Statistics& s) { s.distinct_sketch[0] = 2; });
  sketch_case("distinct_sketch_hashes_unsorted",
              "A HASHES sketch whose first two hashes are swapped (they must be strictly "
              "increasing).",
              base, [](Statistics& s) {
                std::swap_ranges(s.distinct_sketch.begin() + 5, s.distinct_sketch.begin() + 13,
                                 s.distinct_sketch.begin() + 13);
              });
  sketch_case("distinct_sketch_hashes_length",
              "A HASHES sketch one byte shorter than 5 + 8 * Num_Hashes.", base,
              [](Statistics& s) { s.distinct_sketch.pop_back(); });
  sketch_case("distinct_sketch_hashes_count_differs",
              "A HASHES sketch (the exact set) whose number of hashes differs from distinct_count, "
              "which is one more and marked exact.",
              base, [](Statistics& s) { s.distinct_count += 1; });
  const ColumnSpec many = ManyDistinct();
  sketch_case("distinct_sketch_precision_14", "A REGISTERS sketch whose Precision byte is 14, not 15.",
              many, [](Statistics& s) { s.distinct_sketch[1] = 14; });
  sketch_case("distinct_sketch_register_51",
              "A REGISTERS sketch whose register 0 is 51 (registers are at most 50).", many,
              [values = RowValues(many.chunks[0])](Statistics& s) {
                SketchContent content = SpecSketch(values);
                content.registers[0] = 51;
                s.distinct_sketch = SketchBytes(content);
              });
  sketch_case("distinct_sketch_registers_short",
              "A REGISTERS sketch whose zstd frame holds 32767 registers, not 32768.", many,
              [values = RowValues(many.chunks[0])](Statistics& s) {
                SketchContent content = SpecSketch(values);
                content.registers.pop_back();
                s.distinct_sketch = SketchBytes(content);
              });
}
}  // namespace

// Dictionary chunks (spec §8.10): the rules a reader enforces.
void DictionaryCases(const Inv& add) {
  auto elements_column = [](Ty t, std::vector<uint64_t> elements, uint64_t d) {
    const uint32_t m = static_cast<uint32_t>(elements.size());
    ColumnSpec c = Column("v", t, std::move(elements), {Part(static_cast<uint32_t>(d), kFor),
                                                      Part(m - static_cast<uint32_t>(d), kFor)});
    c.chunks[0].dictionary_entries = d;
    return c;
  };
  auto file = [](const ColumnSpec& c, const BuildOptions& opt = {}) {
    return BuildTable({c}, opt).file;
  };
  add("dictionary_code_out_of_range", {"8.10"},
      "u16 dictionary chunk, D = 3, elements 5 9 700 2 2 0 3 1 1: the code of row 3 is 3, not "
      "below D (rule 3). Found when the row is decoded.",
      "CORRUPT_PAYLOAD", "decode", file(elements_column(Ty::kU16, {5, 9, 700, 2, 2, 0, 3, 1, 1}, 3)));
  add("dictionary_negative_code", {"8.10"},
      "i32 dictionary chunk, D = 3, the code of row 3 is -1 (rule 3: a negative code is invalid). "
      "Found when the row is decoded.",
      "CORRUPT_PAYLOAD", "decode",
      file(elements_column(Ty::kI32,
                           {Canon(Ty::kI32, static_cast<uint64_t>(-5)), 9, 700, 2, 2, 0,
                            Canon(Ty::kI32, ~uint64_t{0}), 1, 1},
                           3)));
  add("dictionary_entries_not_increasing", {"8.10"},
      "u16 dictionary chunk whose entries are 9 5 700 (rule 2: strictly increasing).",
      "CORRUPT_PAYLOAD", "read", file(elements_column(Ty::kU16, {9, 5, 700, 2, 2, 0, 2, 1, 1}, 3)));
  add("dictionary_entries_repeated", {"8.10"},
      "u16 dictionary chunk whose entries are 5 9 9 (rule 2: equal entries are not increasing).",
      "CORRUPT_PAYLOAD", "read", file(elements_column(Ty::kU16, {5, 9, 9, 2, 2, 0, 2, 1, 1}, 3)));
  {
    BuildOptions opt;
    opt.finish.edit_postscript = [](PostscriptFields& ps) {
      ps.required_features &= ~(uint64_t{1} << 5);
    };
    add("dictionary_bit_clear", {"4.4", "8.10"},
        "A valid dictionary chunk in a file whose DICTIONARY bit (Required_Features bit 5) is "
        "clear (rule 1).",
        "CORRUPT_METADATA", "open",
        file(elements_column(Ty::kU16, {5, 9, 700, 2, 2, 0, 2, 1, 1}, 3), opt));
  }
  add("dictionary_entries_above_rows", {"7.2", "8.10"},
      "u32 chunk of 3 rows with dictionary_entries = 5 (rule 1: D <= num_rows).",
      "CORRUPT_METADATA", "open", file(elements_column(Ty::kU32, {1, 2, 3, 4, 5, 0, 1, 2}, 5)));
  {
    std::vector<uint64_t> e;
    for (uint64_t i = 0; i < 129; ++i) e.push_back(Canon(Ty::kI8, i - 128));  // -128..0
    for (uint64_t i = 0; i < 129; ++i) e.push_back(Canon(Ty::kI8, i % 128));
    add("dictionary_i8_129_entries", {"8.10"},
        "i8 chunk of 129 rows with D = 129: a signed byte's codes address at most 2^7 = 128 "
        "entries (rule 1).",
        "CORRUPT_METADATA", "open", file(elements_column(Ty::kI8, e, 129)));
  }
}

void DeltaOrderCases(const Inv& add) {
  // spec §8.9 orders: 200 u32 rows of one quadratic curve, V = 8, one DELTA
  // partition of order 2 (Delta_Base 2, Bit_Width 0, no exceptions).
  std::vector<uint64_t> v;
  for (uint64_t x = 0; x < 200; ++x) v.push_back(7 + 5 * x + x * x);
  PartSpec p = Part(200, kDelta);
  p.delta_order = 2;
  const ColumnSpec col = Column("v", Ty::kU32, v, {p}, 8);
  auto with_word = [&](uint64_t word) {
    BuildOptions opt;
    opt.edit_chunk = [word](int, int, EncodedChunk& c) { SetLE(&c.parameters[8], word, 8); };
    return File({col}, opt);
  };
  BuildOptions no_bit;
  no_bit.finish.edit_postscript = [](PostscriptFields& ps) {
    ps.required_features &= ~(uint64_t{1} << 9);
  };
  add("delta_order_without_feature_bit", {"4.4", "8.9"},
      "A DELTA partition of order 2 in a file without the DELTA_ORDERS feature bit.",
      "CORRUPT_METADATA", "read", File({col}, no_bit));
  add("delta_order_4", {"8.9"},
      "A DELTA partition whose Exceptions word sets Extra_Orders 3 (order 4; at most 3).",
      "CORRUPT_METADATA", "read", with_word(uint64_t{3} << 42));
  add("delta_exceptions_bit_44", {"8.9"},
      "A DELTA partition of order 2 whose Exceptions word also sets bit 44, reserved.",
      "CORRUPT_METADATA", "read", with_word((uint64_t{1} << 42) | (uint64_t{1} << 44)));
  add("delta_order_payload_of_order_1", {"8.9", "10.2"},
      "The order-2 partition's Exceptions word says order 1: its payload holds one Seed word "
      "more than payload_words(p) (Payload_Offset[1] disagrees).",
      "CORRUPT_METADATA", "read", with_word(0));
  // An order-3 partition of 3 rows (K must stay below n).
  const std::vector<uint64_t> three = {1, 2, 4};
  PartSpec small = Part(3, kDelta);
  BuildOptions short_opt;
  short_opt.edit_chunk = [](int, int, EncodedChunk& c) {
    SetLE(&c.parameters[8], uint64_t{2} << 42, 8);
  };
  short_opt.finish.edit_postscript = [](PostscriptFields& ps) {
    ps.required_features |= uint64_t{1} << 9;
  };
  add("delta_order_not_below_n", {"8.9"},
      "A DELTA partition of 3 rows whose Exceptions word says order 3 (K must be below n_p); "
      "the file sets DELTA_ORDERS.",
      "CORRUPT_METADATA", "read",
      File({Column("v", Ty::kU32, three, {small}, 8)}, short_opt));
}

void AddInvalidCases(std::vector<Case>* cases) {
  Inv add{cases};
  FramingCases(add);
  FooterCases(add);
  FeatureBitCases(add);
  PgmCases(add);
  SegmentCases(add);
  ChunkCases(add);
  ChecksumCases(add);
  ZstdCases(add);
  FieldPlaneCases(add);
  DeltaOrderCases(add);
  DictionaryCases(add);
  DistinctSketchCases(add);
  AddFloatInvalidCases(cases);
}

}  // namespace l3::conformance
