// The footer on open (spec §6, §7.1, §7.2, §4.3, §4.4): FlatBuffers
// verification, footer semantics, segment checks, feature bits and the
// canonical layout, each with its error class.
#include <doctest/doctest.h>

#include <flatbuffers/flatbuffers.h>

#include "container_test_util.hpp"
#include "format/footer_build.hpp"
#include "l3_generated.h"

using namespace l3;
using namespace l3::testing;

namespace {

// A footer described field by field, so that tests can write what a
// conforming writer never would.
struct RawSeg {
  bool present = false;
  uint64_t offset = 0, stored = 0, decoded = 0;
  uint32_t checksum = 0;
  uint8_t compression = 0, reserved_0 = 0;
  uint16_t reserved_1 = 0;
};

struct RawChunk {
  uint64_t num_rows = 0;
  uint16_t encoding = 1;
  uint16_t values_per_lane = 64;
  uint32_t num_partitions = 1;
  RawSeg partition_table, parameters, payload, bounds, validity;
  bool statistics = false;
  ChunkStatistics stats;
  bool ibp = false;
  bool pgm = false;
};

struct RawColumn {
  bool has_name = true;
  std::string name;
  uint8_t type = 3;
  uint16_t logical_kind = 0;
  bool nullable = false;
  std::vector<RawChunk> chunks;
};

struct RawFooter {
  uint64_t num_rows = 0;
  bool has_columns = true;
  std::vector<RawColumn> columns;
  const char* identifier = "L3FT";
};

RawSeg FromInfo(const SegmentInfo& s) {
  RawSeg r;
  r.present = s.present;
  r.offset = s.offset;
  r.stored = s.stored_bytes;
  r.decoded = s.decoded_bytes;
  r.checksum = s.checksum;
  r.compression = static_cast<uint8_t>(s.compression);
  return r;
}

// The raw description of a file's footer, as the reader understood it.
RawFooter Describe(const Reader& reader) {
  RawFooter raw;
  raw.num_rows = reader.info().num_rows;
  for (int c = 0; c < reader.num_columns(); ++c) {
    const ColumnInfo& col = reader.column(c);
    RawColumn rc;
    rc.name = col.name;
    rc.type = col.raw_type;
    rc.nullable = col.nullable;
    for (const ChunkInfo& ci : col.chunks) {
      RawChunk ch;
      ch.num_rows = ci.num_rows;
      ch.encoding = ci.encoding;
      ch.values_per_lane = static_cast<uint16_t>(ci.values_per_lane);
      ch.num_partitions = ci.num_partitions;
      ch.partition_table = FromInfo(ci.partition_table);
      ch.parameters = FromInfo(ci.parameters);
      ch.payload = FromInfo(ci.payload);
      ch.bounds = FromInfo(ci.bounds);
      ch.validity = FromInfo(ci.validity);
      ch.statistics = ci.statistics.present;
      ch.stats = ci.statistics;
      rc.chunks.push_back(ch);
    }
    raw.columns.push_back(rc);
  }
  return raw;
}

std::vector<uint8_t> Build(const RawFooter& raw) {
  flatbuffers::FlatBufferBuilder fbb;
  auto ref = [](const RawSeg& s) {
    return fbs::SegmentRef(s.offset, s.stored, s.decoded, s.checksum,
                           static_cast<fbs::Compression>(s.compression), s.reserved_0, s.reserved_1);
  };
  std::vector<flatbuffers::Offset<fbs::Column>> cols;
  for (const RawColumn& rc : raw.columns) {
    const auto name = rc.has_name ? fbb.CreateString(rc.name) : 0;
    flatbuffers::Offset<fbs::LogicalType> logical = 0;
    if (rc.logical_kind != 0) {
      logical = fbs::CreateLogicalType(fbb, static_cast<fbs::LogicalKind>(rc.logical_kind));
    }
    std::vector<flatbuffers::Offset<fbs::ColumnChunk>> chunks;
    for (const RawChunk& ch : rc.chunks) {
      flatbuffers::Offset<fbs::ChunkStatistics> stats = 0;
      if (ch.statistics) {
        stats = fbs::CreateChunkStatistics(fbb, ch.stats.has_min_max, ch.stats.min_value,
                                           ch.stats.max_value, ch.stats.null_count,
                                           ch.stats.distinct_count, ch.stats.distinct_count_exact);
      }
      flatbuffers::Offset<fbs::IbpMasks> ibp = 0;
      if (ch.ibp) ibp = fbs::CreateIbpMasks(fbb, 4, 8, 1);
      flatbuffers::Offset<fbs::PgmIndex> pgm = 0;
      if (ch.pgm) pgm = fbs::CreatePgmIndex(fbb, 64);
      const auto pt = ref(ch.partition_table), pa = ref(ch.parameters), pl = ref(ch.payload),
                 bo = ref(ch.bounds), va = ref(ch.validity);
      fbs::ColumnChunkBuilder b(fbb);
      b.add_num_rows(ch.num_rows);
      b.add_encoding(static_cast<fbs::Encoding>(ch.encoding));
      b.add_values_per_lane(ch.values_per_lane);
      b.add_num_partitions(ch.num_partitions);
      if (ch.partition_table.present) b.add_partition_table(&pt);
      if (ch.parameters.present) b.add_parameters(&pa);
      if (ch.payload.present) b.add_payload(&pl);
      if (ch.bounds.present) b.add_bounds(&bo);
      if (ch.validity.present) b.add_validity(&va);
      if (ch.statistics) b.add_statistics(stats);
      if (ch.ibp) b.add_ibp(ibp);
      if (ch.pgm) b.add_pgm(pgm);
      chunks.push_back(b.Finish());
    }
    const auto chunk_vec = fbb.CreateVector(chunks);
    fbs::ColumnBuilder cb(fbb);
    if (rc.has_name) cb.add_name(name);
    cb.add_physical_type(static_cast<fbs::PhysicalType>(rc.type));
    if (rc.logical_kind != 0) cb.add_logical_type(logical);
    cb.add_nullable(rc.nullable);
    cb.add_chunks(chunk_vec);
    // EndTable directly instead of ColumnBuilder::Finish(), which asserts that
    // required fields are present: this builder must be able to omit them.
    cols.push_back(flatbuffers::Offset<fbs::Column>(fbb.EndTable(cb.start_)));
  }
  const auto col_vec = fbb.CreateVector(cols);
  fbs::FooterBuilder fb(fbb);
  fb.add_num_rows(raw.num_rows);
  if (raw.has_columns) fb.add_columns(col_vec);
  fbb.Finish(flatbuffers::Offset<fbs::Footer>(fbb.EndTable(fb.start_)), raw.identifier);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// Two int16 columns of two chunks each, with bounds and statistics.
std::vector<uint8_t> GoodFile() {
  std::vector<HandColumn> cols;
  for (int c = 0; c < 2; ++c) {
    HandColumn col{c == 0 ? "a" : "b", PhysicalType::kInt16, {}};
    for (int k = 0; k < 2; ++k) {
      const auto values = LinearValues<int16_t>(300, 10 * c + k, 0.5, 4);
      col.chunks.push_back(BuildHandChunk(
          values, Partitioning(300, 128, {Part(Model::kFor), Part(Model::kLinear, {100, 0.5, 0, 0})}), 4));
    }
    cols.push_back(col);
  }
  return AssembleFile(cols);
}

struct Fixture {
  std::vector<uint8_t> good = GoodFile();
  RawFooter raw;
  Fixture() {
    auto r = Reader::OpenBuffer(good.data(), good.size());
    REQUIRE(r.ok());
    raw = Describe(*r);
  }
  // Opens the good file with its footer replaced by `footer` and, optionally,
  // the postscript's feature words changed.
  StatusCode Open(const RawFooter& footer, const ReadOptions& options = {},
                  std::optional<uint64_t> required = {},
                  std::optional<uint64_t> optional = {}) const {
    auto file = ReplaceFooter(good, Build(footer));
    if (required || optional) {
      EditPostscript(&file, [&](uint8_t* p) {
        if (required) internal::StoreLE64(p + 16, *required);
        if (optional) internal::StoreLE64(p + 24, *optional);
      });
    }
    auto r = Reader::OpenBuffer(file.data(), file.size(), options);
    return r.ok() ? StatusCode::kOk : r.status().code();
  }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "the raw footer of the good file opens and reads") {
  CHECK(Open(raw) == StatusCode::kOk);
  auto file = ReplaceFooter(good, Build(raw));
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  std::vector<int16_t> out(600);
  REQUIRE(r->ReadRows(1, 0, 600, out.data(), 1200).ok());
  CHECK(std::equal(out.begin(), out.begin() + 300, LinearValues<int16_t>(300, 10, 0.5, 4).begin()));
  CHECK(std::equal(out.begin() + 300, out.end(), LinearValues<int16_t>(300, 11, 0.5, 4).begin()));
}

TEST_CASE_FIXTURE(Fixture, "verifier failures are CORRUPT_FOOTER (spec §6)") {
  SUBCASE("random bytes") {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<uint8_t> junk(8 + rng() % 300);
      for (auto& b : junk) b = static_cast<uint8_t>(rng());
      std::memcpy(junk.data() + 4, "L3FT", 4);
      auto file = ReplaceFooter(good, junk);
      auto r = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(!r.ok());
      CHECK(r.status().code() == StatusCode::kCorruptFooter);
    }
  }
  SUBCASE("wrong identifier") {
    RawFooter f = raw;
    f.identifier = "L3XX";
    CHECK(Open(f) == StatusCode::kCorruptFooter);
  }
  SUBCASE("footer shorter than a FlatBuffer") {
    auto file = ReplaceFooter(good, std::vector<uint8_t>{1, 2, 3});
    CHECK(Reader::OpenBuffer(file.data(), file.size()).status().code() == StatusCode::kCorruptFooter);
    file = ReplaceFooter(good, {});
    CHECK(Reader::OpenBuffer(file.data(), file.size()).status().code() == StatusCode::kCorruptFooter);
  }
  SUBCASE("truncated footer") {
    std::vector<uint8_t> footer = Build(raw);
    footer.resize(footer.size() / 2);
    auto file = ReplaceFooter(good, footer);
    CHECK(Reader::OpenBuffer(file.data(), file.size()).status().code() == StatusCode::kCorruptFooter);
  }
  SUBCASE("missing required fields") {
    RawFooter f = raw;
    f.has_columns = false;
    CHECK(Open(f) == StatusCode::kCorruptFooter);
    f = raw;
    f.columns[1].has_name = false;
    CHECK(Open(f) == StatusCode::kCorruptFooter);
  }
  SUBCASE("every single-byte corruption is caught by a check, never a crash") {
    // The footer checksum is recomputed, so each flip reaches the verifier
    // and the semantic checks.
    const std::vector<uint8_t> footer = Build(raw);
    int rejected = 0;
    for (size_t i = 0; i < footer.size(); ++i) {
      std::vector<uint8_t> bad = footer;
      bad[i] ^= 0x41;
      auto file = ReplaceFooter(good, bad);
      auto r = Reader::OpenBuffer(file.data(), file.size());
      if (!r.ok()) {
        ++rejected;
        continue;
      }
      // Whatever still opens must decode or fail cleanly.
      for (int c = 0; c < r->num_columns(); ++c) {
        const ColumnInfo& col = r->column(c);
        if (!PhysicalTypeIsInteger(col.type)) continue;
        std::vector<uint64_t> out(col.num_rows + 1);
        (void)r->ReadRows(c, 0, col.num_rows, out.data(), out.size() * 8);
      }
    }
    CHECK(rejected > 0);
  }
}

TEST_CASE_FIXTURE(Fixture, "footer semantics (spec §6.1, §6.2) are CORRUPT_METADATA") {
  auto expect = [&](const char* what, auto edit, StatusCode code = StatusCode::kCorruptMetadata) {
    CAPTURE(what);
    RawFooter f = raw;
    edit(&f);
    CHECK(Open(f) == code);
  };
  expect("no columns", [](RawFooter* f) { f->columns.clear(); });
  expect("empty name", [](RawFooter* f) { f->columns[0].name = ""; });
  expect("name over 65535 bytes", [](RawFooter* f) { f->columns[0].name = std::string(65536, 'n'); });
  expect("name not UTF-8", [](RawFooter* f) { f->columns[0].name = "\xC3\x28"; });
  expect("overlong UTF-8", [](RawFooter* f) { f->columns[0].name = "\xC0\xAF"; });
  expect("duplicate names", [](RawFooter* f) { f->columns[1].name = "a"; });
  expect("physical_type 0", [](RawFooter* f) { f->columns[0].type = 0; });
  expect("physical_type 11", [](RawFooter* f) { f->columns[0].type = 11; });
  expect("Footer.num_rows differs", [](RawFooter* f) { f->num_rows = 601; });
  expect("chunk rows differ between columns", [](RawFooter* f) {
    f->columns[1].chunks.pop_back();
  });
  expect("chunk num_rows 0", [](RawFooter* f) { f->columns[0].chunks[0].num_rows = 0; });
  expect("chunk num_rows 2^32", [](RawFooter* f) {
    f->columns[0].chunks[0].num_rows = uint64_t{1} << 32;
  });
  expect("values_per_lane 3", [](RawFooter* f) { f->columns[0].chunks[1].values_per_lane = 3; });
  expect("values_per_lane 0", [](RawFooter* f) { f->columns[0].chunks[1].values_per_lane = 0; });
  expect("values_per_lane 2048", [](RawFooter* f) { f->columns[0].chunks[1].values_per_lane = 2048; });
  expect("num_partitions 0", [](RawFooter* f) { f->columns[0].chunks[0].num_partitions = 0; });
  expect("num_partitions > num_rows", [](RawFooter* f) { f->columns[0].chunks[0].num_partitions = 301; });
  expect("missing partition_table", [](RawFooter* f) {
    f->columns[0].chunks[0].partition_table.present = false;
  });
  expect("missing parameters", [](RawFooter* f) { f->columns[0].chunks[0].parameters.present = false; });
  expect("missing payload", [](RawFooter* f) { f->columns[1].chunks[1].payload.present = false; });
  expect("IbpFloat on an integer column", [](RawFooter* f) { f->columns[0].chunks[0].encoding = 2; });
  expect("L3Integer on a float column", [](RawFooter* f) { f->columns[0].type = 9; });
  expect("validity on a non-nullable column", [](RawFooter* f) {
    // Takes the place of the bounds segment so the layout stays canonical.
    RawChunk& ch = f->columns[0].chunks[0];
    ch.validity = ch.bounds;
    ch.bounds.present = false;
  });
  expect("ibp masks on an L3Integer chunk", [](RawFooter* f) { f->columns[0].chunks[0].ibp = true; });
  expect("pgm without PGM_INDEX", [](RawFooter* f) { f->columns[0].chunks[0].pgm = true; });
}

TEST_CASE_FIXTURE(Fixture, "unknown encodings and types: UNSUPPORTED_FEATURE, listable with allow_unknown") {
  ReadOptions inspect;
  inspect.allow_unknown = true;
  for (uint16_t encoding : {0, 3, 999}) {
    RawFooter f = raw;
    f.columns[1].chunks[0].encoding = encoding;
    CHECK(Open(f) == StatusCode::kUnsupportedFeature);
    auto file = ReplaceFooter(good, Build(f));
    auto r = Reader::OpenBuffer(file.data(), file.size(), inspect);
    REQUIRE(r.ok());
    CHECK(r->column(1).chunks[0].encoding == encoding);
    std::vector<int16_t> out(600);
    CHECK(r->ReadRows(1, 0, 600, out.data(), 1200).code() == StatusCode::kUnsupportedFeature);
    CHECK(r->GetChunkView(1, 0).status().code() == StatusCode::kUnsupportedFeature);
    CHECK(r->Partitions(1, 0).status().code() == StatusCode::kUnsupportedFeature);
    CHECK(r->ReadRows(1, 300, 600, out.data(), 600).ok());  // the other chunk is fine
    CHECK(r->ReadRows(0, 0, 600, out.data(), 1200).ok());
    CHECK(r->Validate(ValidationLevel::kStructural).code() == StatusCode::kUnsupportedFeature);
  }
  RawFooter f = raw;
  f.columns[0].type = 42;
  CHECK(Open(f) == StatusCode::kCorruptMetadata);
  auto file = ReplaceFooter(good, Build(f));
  auto r = Reader::OpenBuffer(file.data(), file.size(), inspect);
  REQUIRE(r.ok());
  CHECK(r->column(0).raw_type == 42);
  std::vector<int16_t> out(600);
  CHECK(r->ReadRows(0, 0, 600, out.data(), 1200).code() == StatusCode::kUnsupportedFeature);
  CHECK(r->ReadRows(1, 0, 600, out.data(), 1200).ok());
  // Unknown compression.
  f = raw;
  f.columns[0].chunks[1].payload.compression = 4;
  CHECK(Open(f) == StatusCode::kUnsupportedFeature);
  CHECK(Open(f, inspect) == StatusCode::kOk);
  // Unknown logical kinds read as None.
  f = raw;
  f.columns[0].logical_kind = 77;
  file = ReplaceFooter(good, Build(f));
  r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  CHECK(r->column(0).logical.kind == LogicalKind::kNone);
}

TEST_CASE_FIXTURE(Fixture, "segment references (spec §7.1)") {
  auto expect = [&](const char* what, auto edit, StatusCode code) {
    CAPTURE(what);
    RawFooter f = raw;
    edit(f.columns[0].chunks[1]);
    CHECK(Open(f) == code);
  };
  expect("offset not a multiple of 64", [](RawChunk& c) { c.payload.offset += 8; },
         StatusCode::kCorruptFraming);
  expect("offset inside the header", [](RawChunk& c) { c.payload.offset = 0; },
         StatusCode::kCorruptFraming);
  expect("past Footer_Offset", [](RawChunk& c) { c.payload.stored = c.payload.decoded = 1 << 20; },
         StatusCode::kCorruptFraming);
  expect("offset + length overflows", [](RawChunk& c) {
    c.payload.offset = UINT64_MAX - 63;
  }, StatusCode::kCorruptFraming);
  expect("None with decoded_length != stored_length", [](RawChunk& c) { c.payload.decoded += 8; },
         StatusCode::kCorruptFraming);
  expect("reserved_0", [](RawChunk& c) { c.parameters.reserved_0 = 1; }, StatusCode::kCorruptFraming);
  expect("reserved_1", [](RawChunk& c) { c.bounds.reserved_1 = 1; }, StatusCode::kCorruptFraming);
  expect("compression 4", [](RawChunk& c) { c.parameters.compression = 4; },
         StatusCode::kUnsupportedFeature);
  // spec §7.1, §9.2, §9.3: ZstdFieldPlanes and ZstdFieldBytes need
  // FIELD_PLANES (and are for payload segments only; the feature-bit cases
  // are in field_planes_test and the conformance corpus).
  expect("ZstdFieldPlanes while FIELD_PLANES is clear",
         [](RawChunk& c) { c.payload.compression = 2; }, StatusCode::kCorruptMetadata);
  expect("ZstdFieldBytes while FIELD_PLANES is clear",
         [](RawChunk& c) { c.payload.compression = 3; }, StatusCode::kCorruptMetadata);
  expect("Zstd while ZSTD_SEGMENTS is clear", [](RawChunk& c) { c.parameters.compression = 1; },
         StatusCode::kCorruptMetadata);
  SUBCASE("decoded_length over the reader's limits") {
    ReadOptions small;
    small.max_segment_bytes = 64;
    CHECK(Open(raw, small) == StatusCode::kResourceLimit);
    ReadOptions few;
    few.max_partitions_per_chunk = 2;
    CHECK(Open(raw, few) == StatusCode::kResourceLimit);
  }
}

TEST_CASE_FIXTURE(Fixture, "canonical layout (spec §4.3) is CORRUPT_FRAMING") {
  SUBCASE("two chunks point at the same bytes") {
    RawFooter f = raw;
    f.columns[1].chunks[0].payload = f.columns[0].chunks[0].payload;
    CHECK(Open(f) == StatusCode::kCorruptFraming);
  }
  SUBCASE("overlapping segments") {
    RawFooter f = raw;
    RawSeg& s = f.columns[0].chunks[0].parameters;
    s.stored = s.decoded = s.stored + 64;
    CHECK(Open(f) == StatusCode::kCorruptFraming);
  }
  SUBCASE("unreferenced bytes (a gap)") {
    RawFooter f = raw;
    for (RawColumn& c : f.columns) {
      for (RawChunk& ch : c.chunks) ch.bounds.present = false;
    }
    CHECK(Open(f, {}, {}, uint64_t{0}) == StatusCode::kCorruptFraming);
  }
  SUBCASE("swapped segments are still canonical") {
    RawFooter f = raw;
    std::swap(f.columns[0].chunks[0].payload, f.columns[1].chunks[1].payload);
    // Layout holds (same set of extents); only the chunk checks can tell.
    CHECK(Open(f) == StatusCode::kOk);
  }
}

TEST_CASE_FIXTURE(Fixture, "feature bits against use (spec §4.4)") {
  // Drop bounds from every chunk: PARTITION_BOUNDS must go too; the layout
  // needs the bounds bytes out of the file, so test the bit on its own.
  CHECK(Open(raw, {}, {}, uint64_t{0}) == StatusCode::kCorruptMetadata);
  CHECK(Open(raw, {}, {}, kOptionalPartitionBounds | (uint64_t{1} << 30)) == StatusCode::kOk);
  RawFooter f = raw;
  f.columns[0].chunks[0].pgm = true;
  CHECK(Open(f, {}, {}, kOptionalPartitionBounds | kOptionalPgmIndex) == StatusCode::kOk);
  ReadOptions inspect;
  inspect.allow_unknown = true;
  // A required bit for a feature nothing uses.
  CHECK(Open(raw, inspect, kRequiredValidityBitmaps) == StatusCode::kCorruptMetadata);
  // Validity used with its bit, on a nullable column: inspection only.
  f = raw;
  f.columns[0].nullable = true;
  RawChunk& ch = f.columns[0].chunks[0];
  ch.validity = ch.bounds;
  ch.bounds.present = false;
  CHECK(Open(f, inspect, kRequiredValidityBitmaps) == StatusCode::kOk);
  CHECK(Open(f, {}, kRequiredValidityBitmaps) == StatusCode::kUnsupportedFeature);
  CHECK(Open(f, inspect, uint64_t{0}) == StatusCode::kCorruptMetadata);
}

TEST_CASE_FIXTURE(Fixture, "footer at an unaligned address is read from an aligned copy") {
  std::vector<uint8_t> shifted(good.size() + 1);
  std::memcpy(shifted.data() + 1, good.data(), good.size());
  auto r = Reader::OpenBuffer(shifted.data() + 1, good.size());
  REQUIRE(r.ok());
  CHECK(r->info().writer_name == "hand");
  std::vector<int16_t> out(600);
  CHECK(r->ReadRows(0, 0, 600, out.data(), 1200).ok());
  CHECK(r->Validate(ValidationLevel::kDeep).ok());
}

TEST_CASE("BuildFooter output is verifiable and deterministic") {
  FileInfo info;
  info.num_rows = 0;
  info.writer_name = "w";
  info.writer_version = "1";
  info.metadata = {{"k", "v"}, {"empty", ""}};
  ColumnInfo col;
  col.name = "c";
  col.type = PhysicalType::kUInt64;
  col.logical.kind = LogicalKind::kTimestamp;
  col.logical.time_unit = TimeUnit::kMicrosecond;
  col.logical.timezone = "UTC";
  const auto a = internal::BuildFooter(info, {col});
  const auto b = internal::BuildFooter(info, {col});
  CHECK(a == b);
  flatbuffers::Verifier verifier(a.data(), a.size());
  REQUIRE(fbs::VerifyFooterBuffer(verifier));
  const fbs::Footer* f = fbs::GetFooter(a.data());
  CHECK(f->columns()->Get(0)->logical_type()->timezone()->str() == "UTC");
  CHECK(f->metadata()->size() == 2);
}
