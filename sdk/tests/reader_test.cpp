// l3::Reader over files assembled from hand-built chunks: row ranges across
// chunks and partitions, Take, Partitions, chunk views, checksums (spec §5),
// zstd segments (§9), validation levels (§10) and concurrent first use.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "container_test_util.hpp"
#include "format/footer_build.hpp"

using namespace l3;
using namespace l3::testing;

namespace {

// A table of three columns, each cut into chunks of different sizes, so that
// chunk boundaries differ between columns.
struct Table {
  std::vector<int64_t> a;   // linear-ish, chunks of 1000
  std::vector<uint16_t> b;  // runs, chunks of 1777
  std::vector<int8_t> c;    // random, one chunk
  std::vector<uint8_t> file;
  static constexpr size_t kRows = 4500;

  explicit Table(const AssembleOptions& options = {}) {
    a = LinearValues<int64_t>(kRows, 1, -2.5, 100);
    b = RunValues<uint16_t>(kRows, 2, 30);
    c = RandomValues<int8_t>(kRows, 3);
    HandColumn ca{"a", PhysicalType::kInt64, {}}, cb{"b", PhysicalType::kUInt16, {}},
        cc{"c", PhysicalType::kInt8, {}};
    for (size_t row = 0; row < kRows; row += 1000) {
      std::vector<int64_t> part(a.begin() + row, a.begin() + std::min(kRows, row + 1000));
      ca.chunks.push_back(BuildHandChunk(
          part, Partitioning(part.size(), 300, {Part(Model::kLinear, {100, -2.5, 0, 0}), Part(Model::kFor),
                                                Part(Model::kPoly2, {100, -2.5, 0, 0})}),
          8));
    }
    for (size_t row = 0; row < kRows; row += 1777) {
      std::vector<uint16_t> part(b.begin() + row, b.begin() + std::min(kRows, row + 1777));
      cb.chunks.push_back(BuildHandChunk(
          part, Partitioning(part.size(), 500, {Part(Model::kConstant), Part(Model::kFor)}), 64));
    }
    cc.chunks.push_back(BuildHandChunk(c, Partitioning(kRows, 4500, {Part(Model::kFor)}), 1024));
    file = AssembleFile({ca, cb, cc}, options);
  }
};

template <typename T>
void CheckRange(const Reader& r, int column, const std::vector<T>& expect, uint64_t begin,
                uint64_t end) {
  std::vector<T> out(end - begin);
  const Status st = r.ReadRows(column, begin, end, out.data(), out.size() * sizeof(T));
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  CHECK(std::equal(out.begin(), out.end(), expect.begin() + static_cast<ptrdiff_t>(begin)));
}

Reader OpenOk(const std::vector<uint8_t>& file, const ReadOptions& options = {}) {
  auto r = Reader::OpenBuffer(file.data(), file.size(), options);
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  return std::move(r).value();
}

// Rebuilds the footer from the reader's view of it after `edit`.
template <typename Edit>
std::vector<uint8_t> WithFooterEdit(const std::vector<uint8_t>& file, Edit edit) {
  const Reader r = OpenOk(file);
  std::vector<ColumnInfo> columns;
  for (int c = 0; c < r.num_columns(); ++c) columns.push_back(r.column(c));
  FileInfo info = r.info();
  edit(&columns);
  return ReplaceFooter(file, internal::BuildFooter(info, columns));
}

}  // namespace

TEST_CASE("file metadata is listed") {
  AssembleOptions options;
  options.metadata = {{"origin", "test"}, {"n", "3"}};
  const Table t(options);
  const Reader r = OpenOk(t.file);
  CHECK(r.num_columns() == 3);
  CHECK(r.info().num_rows == Table::kRows);
  CHECK(r.info().file_bytes == t.file.size());
  CHECK(r.info().writer_name == "hand");
  CHECK(r.info().metadata == options.metadata);
  CHECK(r.column(0).name == "a");
  CHECK(r.column(1).type == PhysicalType::kUInt16);
  CHECK(r.column(0).chunks.size() == 5);
  CHECK(r.column(1).chunks.size() == 3);
  CHECK(r.column(1).chunks[2].first_row == 2 * 1777);
  CHECK(r.column(2).chunks[0].values_per_lane == 1024);
  CHECK(r.column(0).chunks[4].num_rows == 500);
  CHECK(r.column(0).chunks[0].statistics.present);
  CHECK(*r.FindColumn("b") == 1);
  CHECK(r.FindColumn("zz").status().code() == StatusCode::kOutOfRange);
  uint64_t sum = 0;
  for (const ChunkInfo& ci : r.column(0).chunks) sum += ci.stored_bytes;
  CHECK(r.column(0).stored_bytes == sum);
  CHECK(r.Validate(ValidationLevel::kStructural).ok());
  CHECK(r.Validate(ValidationLevel::kDeep).ok());
}

TEST_CASE("ReadRows across chunk and partition boundaries") {
  for (bool zstd : {false, true}) {
    CAPTURE(zstd);
    AssembleOptions options;
    options.zstd = zstd;
    const Table t(options);
    const Reader r = OpenOk(t.file);
    CHECK(((r.info().required_features & kRequiredZstdSegments) != 0) == zstd);
    CheckRange(r, 0, t.a, 0, Table::kRows);
    CheckRange(r, 1, t.b, 0, Table::kRows);
    CheckRange(r, 2, t.c, 0, Table::kRows);
    // Ranges that start and end on and around chunk (1000, 1777) and
    // partition (300, 500) boundaries.
    const uint64_t edges[] = {0, 1, 299, 300, 301, 999, 1000, 1001, 1776, 1777, 1778, 2999, 3000,
                              3554, 4499, 4500};
    for (uint64_t b : edges) {
      for (uint64_t e : edges) {
        if (b > e) continue;
        CheckRange(r, 0, t.a, b, e);
        CheckRange(r, 1, t.b, b, e);
      }
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100; ++i) {
      uint64_t b = rng() % Table::kRows, e = rng() % (Table::kRows + 1);
      if (b > e) std::swap(b, e);
      CheckRange(r, 0, t.a, b, e);
      CheckRange(r, 1, t.b, b, e);
      CheckRange(r, 2, t.c, b, e);
    }
    CHECK(r.Validate(ValidationLevel::kDeep).ok());
  }
}

TEST_CASE("ReadRows argument errors") {
  const Table t;
  const Reader r = OpenOk(t.file);
  std::vector<int64_t> out(10);
  CHECK(r.ReadRows(3, 0, 1, out.data(), 80).code() == StatusCode::kOutOfRange);
  CHECK(r.ReadRows(-1, 0, 1, out.data(), 80).code() == StatusCode::kOutOfRange);
  CHECK(r.ReadRows(0, 5, 4, out.data(), 80).code() == StatusCode::kOutOfRange);
  CHECK(r.ReadRows(0, 4495, 4501, out.data(), 80).code() == StatusCode::kOutOfRange);
  CHECK(r.ReadRows(0, 0, 10, out.data(), 79).code() == StatusCode::kBufferTooSmall);
  CHECK(r.ReadRows(0, 0, 10, nullptr, 80).code() == StatusCode::kInvalidArgument);
  CHECK(r.ReadRows(0, 7, 7, nullptr, 0).ok());
  CHECK(r.ReadRows(0, 0, 0, out.data(), 0).ok());
  CHECK(r.GetChunkView(0, 5).status().code() == StatusCode::kOutOfRange);
  CHECK(r.Partitions(1, -1).status().code() == StatusCode::kOutOfRange);
}

TEST_CASE("Take: random rows, repeats, any order") {
  const Table t;
  const Reader r = OpenOk(t.file);
  std::mt19937_64 rng(11);
  std::vector<uint64_t> rows(2000);
  for (auto& row : rows) row = rng() % Table::kRows;
  rows[5] = rows[6] = rows[7];
  rows.push_back(0);
  rows.push_back(Table::kRows - 1);
  std::vector<int64_t> a(rows.size());
  std::vector<uint16_t> b(rows.size());
  std::vector<int8_t> c(rows.size());
  REQUIRE(r.Take(0, rows.data(), rows.size(), a.data(), a.size() * 8).ok());
  REQUIRE(r.Take(1, rows.data(), rows.size(), b.data(), b.size() * 2).ok());
  REQUIRE(r.Take(2, rows.data(), rows.size(), c.data(), c.size()).ok());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(a[i] == t.a[rows[i]]);
    CHECK(b[i] == t.b[rows[i]]);
    CHECK(c[i] == t.c[rows[i]]);
  }
  const uint64_t bad_row = Table::kRows;
  CHECK(r.Take(0, &bad_row, 1, a.data(), 8).code() == StatusCode::kOutOfRange);
  CHECK(r.Take(0, rows.data(), 2, a.data(), 15).code() == StatusCode::kBufferTooSmall);
  CHECK(r.Take(0, rows.data(), 0, nullptr, 0).ok());
}

TEST_CASE("Partitions and chunk views describe the chunk") {
  const Table t;
  const Reader r = OpenOk(t.file);
  auto parts = r.Partitions(0, 1);
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 4);  // 1000 rows in partitions of 300
  const std::vector<int64_t> chunk(t.a.begin() + 1000, t.a.begin() + 2000);
  uint64_t payload = 0;
  for (size_t p = 0; p < parts->size(); ++p) {
    const PartitionInfo& info = (*parts)[p];
    CHECK(info.first_row == 300 * p);
    CHECK(info.num_rows == (p < 3 ? 300u : 100u));
    CHECK(info.payload_offset_bytes == payload);
    payload += info.payload_bytes;
    REQUIRE(info.has_bounds);
    const auto first = chunk.begin() + static_cast<ptrdiff_t>(info.first_row);
    CHECK(static_cast<int64_t>(info.min_value) == *std::min_element(first, first + info.num_rows));
    CHECK(static_cast<int64_t>(info.max_value) == *std::max_element(first, first + info.num_rows));
  }
  CHECK((*parts)[0].model == ModelType::kLinear);
  CHECK((*parts)[0].num_params == 2);
  CHECK((*parts)[0].param_as_double(1) == -2.5);
  CHECK((*parts)[1].model == ModelType::kForBitpack);
  CHECK(static_cast<int64_t>((*parts)[1].params[0]) ==
        *std::min_element(chunk.begin() + 300, chunk.begin() + 600));
  CHECK((*parts)[2].model == ModelType::kPoly2);
  CHECK(std::isnan((*parts)[0].param_as_double(7)));
  auto runs = r.Partitions(1, 0);
  REQUIRE(runs.ok());
  CHECK((*runs)[0].model == ModelType::kConstant);
  CHECK((*runs)[0].num_runs > 1);
  CHECK((*runs)[0].num_runs == (*runs)[0].params[1]);

  auto view = r.GetChunkView(0, 1);
  REQUIRE(view.ok());
  CHECK(view->first_row == 1000);
  CHECK(view->num_rows == 1000);
  CHECK(view->num_partitions == 4);
  CHECK(view->values_per_lane == 8);
  CHECK(view->payload_bytes == payload + 32);
  CHECK(view->bounds_bytes == 2 * 4 * 8);
}

TEST_CASE("segment checksums (spec §5)") {
  const Table t;
  const Reader good = OpenOk(t.file);
  const SegmentInfo payload = good.column(0).chunks[2].payload;
  std::vector<uint8_t> bad = t.file;
  bad[payload.offset + 5] ^= 0x20;
  const Reader r = OpenOk(bad);  // segments are not read on open
  std::vector<int64_t> out(Table::kRows);
  CHECK(r.ReadRows(0, 2000, 2100, out.data(), 800).code() == StatusCode::kChecksumMismatch);
  CHECK(r.ReadRows(0, 0, 2000, out.data(), 16000).ok());  // other chunks are fine
  CHECK(r.Validate(ValidationLevel::kStructural).code() == StatusCode::kChecksumMismatch);
  ReadOptions trusting;
  trusting.verify_checksums = false;
  const Reader t2 = OpenOk(bad, trusting);
  CHECK(t2.ReadRows(0, 2000, 2100, out.data(), 800).ok());
  CHECK(t2.Validate(ValidationLevel::kStructural).code() == StatusCode::kChecksumMismatch);
}

TEST_CASE("metadata needs no payload: Partitions reads neither the payload nor its checksum") {
  // issue 13: metadata commands (l3 info, l3dump) must not decompress or
  // hold payloads. A damaged payload shows up when values are read, not
  // when the partition table is listed.
  const Table t;
  const Reader good = OpenOk(t.file);
  const SegmentInfo payload = good.column(0).chunks[2].payload;
  std::vector<uint8_t> bad = t.file;
  bad[payload.offset + 5] ^= 0x20;
  const Reader r = OpenOk(bad);
  auto parts = r.Partitions(0, 2);
  REQUIRE(parts.ok());
  auto expected = good.Partitions(0, 2);
  REQUIRE(expected.ok());
  REQUIRE(parts->size() == expected->size());
  for (size_t p = 0; p < parts->size(); ++p) {
    CHECK((*parts)[p].first_row == (*expected)[p].first_row);
    CHECK((*parts)[p].model == (*expected)[p].model);
    CHECK((*parts)[p].bit_width == (*expected)[p].bit_width);
    CHECK((*parts)[p].payload_offset_bytes == (*expected)[p].payload_offset_bytes);
    CHECK((*parts)[p].payload_bytes == (*expected)[p].payload_bytes);
  }
  std::vector<int64_t> out(Table::kRows);
  // Listing did not cache the chunk: the first read still checks the payload.
  CHECK(r.ReadRows(0, 2000, 2100, out.data(), 800).code() == StatusCode::kChecksumMismatch);
  // Validation checks every chunk without keeping any: a read after it is
  // checked (and answered) as before.
  const Reader v = OpenOk(t.file);
  CHECK(v.Validate(ValidationLevel::kDeep).ok());
  CHECK(v.ReadRows(0, 0, Table::kRows, out.data(), out.size() * 8).ok());
}

TEST_CASE("deep validation: structural checks of every chunk first, then a row limit") {
  const Table t;
  // A damaged payload in chunk 2 and a wrong statistic in chunk 0: the
  // structural fault is found first, whatever the chunk order.
  const Reader good = OpenOk(t.file);
  std::vector<uint8_t> bad = WithFooterEdit(t.file, [](std::vector<ColumnInfo>* cols) {
    ChunkStatistics& st = (*cols)[0].chunks[0].statistics;
    REQUIRE(st.present);
    REQUIRE(st.has_min_max);
    st.max_value += 1;  // no longer the chunk's maximum
  });
  const Reader stats_only = OpenOk(bad);
  CHECK(stats_only.Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptMetadata);
  const SegmentInfo payload = good.column(0).chunks[2].payload;
  bad[payload.offset + 5] ^= 0x20;
  const Reader both = OpenOk(bad);
  CHECK(both.Validate(ValidationLevel::kDeep).code() == StatusCode::kChecksumMismatch);
  // spec §13: deep validation refuses what it would have to decode beyond
  // the limit, before decoding anything.
  ReadOptions small;
  small.max_validation_rows = 3 * Table::kRows - 1;  // three columns of kRows
  const Reader limited = OpenOk(t.file, small);
  CHECK(limited.Validate(ValidationLevel::kStructural).ok());
  CHECK(limited.Validate(ValidationLevel::kDeep).code() == StatusCode::kResourceLimit);
  small.max_validation_rows = 3 * Table::kRows;
  CHECK(OpenOk(t.file, small).Validate(ValidationLevel::kDeep).ok());
}

TEST_CASE("zstd segments (spec §9)") {
  AssembleOptions zstd;
  zstd.zstd = true;
  const Table t(zstd);
  const Reader good = OpenOk(t.file);
  const ChunkInfo& ci = good.column(0).chunks[0];
  REQUIRE(ci.payload.compression == Compression::kZstd);
  CHECK(ci.payload.stored_bytes < ci.payload.decoded_bytes);
  std::vector<int64_t> out(Table::kRows);

  SUBCASE("decoded_length must equal the length the chunk requires") {
    const auto file = WithFooterEdit(t.file, [](std::vector<ColumnInfo>* cols) {
      (*cols)[0].chunks[0].payload.decoded_bytes += 8;
    });
    const Reader r = OpenOk(file);
    CHECK(r.ReadRows(0, 0, 10, out.data(), 80).code() == StatusCode::kCorruptMetadata);
    const auto file2 = WithFooterEdit(t.file, [](std::vector<ColumnInfo>* cols) {
      (*cols)[0].chunks[0].partition_table.decoded_bytes -= 16;
    });
    CHECK(OpenOk(file2).ReadRows(0, 0, 10, out.data(), 80).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("a damaged frame is CORRUPT_PAYLOAD") {
    std::vector<uint8_t> bad = t.file;
    bad[ci.payload.offset + ci.payload.stored_bytes / 2] ^= 0xFF;
    // Keep the CRC right so that the zstd layer is what notices.
    const auto file = WithFooterEdit(bad, [&](std::vector<ColumnInfo>* cols) {
      SegmentInfo& s = (*cols)[0].chunks[0].payload;
      s.checksum = internal::Crc32c(0, bad.data() + s.offset, s.stored_bytes);
    });
    CHECK(OpenOk(file).ReadRows(0, 0, 10, out.data(), 80).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a frame followed by extra bytes is CORRUPT_PAYLOAD") {
    // Claim one more stored byte: the byte after the frame is padding.
    const auto file = WithFooterEdit(t.file, [&](std::vector<ColumnInfo>* cols) {
      SegmentInfo& s = (*cols)[0].chunks[0].parameters;
      REQUIRE(s.stored_bytes % 64 != 0);
      s.stored_bytes += 1;
      s.checksum = internal::Crc32c(0, t.file.data() + s.offset, s.stored_bytes);
    });
    CHECK(OpenOk(file).ReadRows(0, 0, 10, out.data(), 80).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("expansion and size limits are checked before decompressing") {
    ReadOptions tight;
    tight.max_zstd_expansion = 1;
    CHECK(Reader::OpenBuffer(t.file.data(), t.file.size(), tight).status().code() ==
          StatusCode::kResourceLimit);
    // A frame that claims a huge decoded length (a bomb) is refused on open.
    const auto file = WithFooterEdit(t.file, [](std::vector<ColumnInfo>* cols) {
      (*cols)[0].chunks[0].payload.decoded_bytes = uint64_t{1} << 40;
    });
    CHECK(Reader::OpenBuffer(file.data(), file.size()).status().code() == StatusCode::kResourceLimit);
  }
}

TEST_CASE("deep validation finds padding, statistics and bounds errors") {
  const Table t;
  const Reader good = OpenOk(t.file);
  REQUIRE(good.Validate(ValidationLevel::kDeep).ok());
  SUBCASE("nonzero padding between segments") {
    // The first segment whose end is not a multiple of 64.
    SegmentInfo s;
    for (const ChunkInfo& ci : good.column(0).chunks) {
      for (const SegmentInfo* seg : {&ci.partition_table, &ci.parameters, &ci.payload, &ci.bounds}) {
        if (!s.present && (seg->offset + seg->stored_bytes) % 64 != 0) s = *seg;
      }
    }
    REQUIRE(s.present);
    std::vector<uint8_t> bad = t.file;
    bad[s.offset + s.stored_bytes] = 1;
    const Reader r = OpenOk(bad);
    CHECK(r.Validate(ValidationLevel::kStructural).ok());
    CHECK(r.Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptFraming);
  }
  SUBCASE("statistics that do not match the data") {
    auto edit = [&](auto fn) {
      const auto file = WithFooterEdit(t.file, fn);
      const Reader r = OpenOk(file);
      CHECK(r.Validate(ValidationLevel::kStructural).ok());
      return r.Validate(ValidationLevel::kDeep).code();
    };
    CHECK(edit([](std::vector<ColumnInfo>* c) { (*c)[1].chunks[1].statistics.max_value += 1; }) ==
          StatusCode::kCorruptMetadata);
    CHECK(edit([](std::vector<ColumnInfo>* c) { (*c)[2].chunks[0].statistics.min_value = 0; }) ==
          StatusCode::kCorruptMetadata);
    CHECK(edit([](std::vector<ColumnInfo>* c) { (*c)[0].chunks[3].statistics.distinct_count -= 1; }) ==
          StatusCode::kCorruptMetadata);
    CHECK(edit([](std::vector<ColumnInfo>* c) { (*c)[0].chunks[3].statistics.null_count = 2; }) ==
          StatusCode::kCorruptMetadata);
    CHECK(edit([](std::vector<ColumnInfo>* c) { (*c)[0].chunks[3].statistics.distinct_count += 1; }) ==
          StatusCode::kCorruptMetadata);
    // More distinct values than rows, however marked.
    CHECK(edit([](std::vector<ColumnInfo>* c) {
            (*c)[0].chunks[3].statistics.distinct_count = (*c)[0].chunks[3].num_rows + 1;
          }) == StatusCode::kCorruptMetadata);
    // An estimate is not checked.
    CHECK(edit([](std::vector<ColumnInfo>* c) {
            (*c)[0].chunks[3].statistics.distinct_count_exact = false;
            (*c)[0].chunks[3].statistics.distinct_count = 1;
          }) == StatusCode::kOk);
  }
  SUBCASE("bounds that do not match the data") {
    const SegmentInfo& s = good.column(1).chunks[0].bounds;
    std::vector<uint8_t> bad = t.file;
    bad[s.offset] ^= 1;
    const auto file = WithFooterEdit(bad, [&](std::vector<ColumnInfo>* cols) {
      SegmentInfo& b = (*cols)[1].chunks[0].bounds;
      b.checksum = internal::Crc32c(0, bad.data() + b.offset, b.stored_bytes);
    });
    const Reader r = OpenOk(file);
    CHECK(r.Validate(ValidationLevel::kStructural).ok());
    CHECK(r.Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptMetadata);
  }
}

TEST_CASE("deep validation counts distinct values block by block (chunks of several blocks)") {
  // 300000 rows drawn from 5000 values: the exact count is checked over five
  // blocks of 64 Ki rows, holding the distinct values, not the rows.
  std::vector<uint32_t> v(300000);
  uint64_t x = 12345;
  for (auto& value : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    value = static_cast<uint32_t>((x >> 33) % 5000) * 7919;
  }
  WriteOptions options;
  options.chunk_rows = 300000;
  options.dictionary = false;
  auto writer = Writer::CreateInMemory({{"v", PhysicalType::kUInt32, {}}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, v.data(), v.size()).ok());
  REQUIRE(writer->Close().ok());
  const std::vector<uint8_t> file = writer->TakeBuffer();
  const Reader good = OpenOk(file);
  const ChunkStatistics& stats = good.column(0).chunks[0].statistics;
  REQUIRE(stats.distinct_count_exact);
  std::vector<uint32_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  CHECK(stats.distinct_count ==
        static_cast<uint64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin()));
  CHECK(good.Validate(ValidationLevel::kDeep).ok());
  for (const int64_t delta : {-1, 1, -1000}) {
    CAPTURE(delta);
    const auto bad = WithFooterEdit(file, [delta](std::vector<ColumnInfo>* c) {
      (*c)[0].chunks[0].statistics.distinct_count += static_cast<uint64_t>(delta);
    });
    CHECK(OpenOk(bad).Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptMetadata);
  }
  // A claimed count beyond what max_segment_bytes allows to hold (here
  // 250000 values of 4 bytes; the segments themselves fit) is refused before
  // any value is decoded.
  REQUIRE(good.column(0).chunks[0].payload.decoded_bytes < 1000000);
  const auto claims = WithFooterEdit(file, [](std::vector<ColumnInfo>* c) {
    (*c)[0].chunks[0].statistics.distinct_count = 280000;
  });
  ReadOptions tight;
  tight.max_segment_bytes = 1000000;
  CHECK(OpenOk(claims, tight).Validate(ValidationLevel::kDeep).code() == StatusCode::kResourceLimit);
  CHECK(OpenOk(claims).Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptMetadata);
}

TEST_CASE("chunk metadata errors surface on first use with their class") {
  const Table t;
  const Reader good = OpenOk(t.file);
  const SegmentInfo& table = good.column(0).chunks[1].partition_table;
  std::vector<uint8_t> bad = t.file;
  bad[table.offset + 16 + 13] = 65;  // partition 1: Bit_Width 65 > 64
  const auto file = WithFooterEdit(bad, [&](std::vector<ColumnInfo>* cols) {
    SegmentInfo& s = (*cols)[0].chunks[1].partition_table;
    s.checksum = internal::Crc32c(0, bad.data() + s.offset, s.stored_bytes);
  });
  const Reader r = OpenOk(file);
  std::vector<int64_t> out(100);
  const Status st = r.ReadRows(0, 1000, 1100, out.data(), 800);
  CHECK(st.code() == StatusCode::kCorruptMetadata);
  CHECK(st.message().find("Bit_Width") != std::string::npos);
  CHECK(r.ReadRows(0, 1000, 1100, out.data(), 800).code() == StatusCode::kCorruptMetadata);  // cached
  CHECK(r.ReadRows(0, 0, 100, out.data(), 800).ok());
  CHECK(r.Validate(ValidationLevel::kStructural).code() == StatusCode::kCorruptMetadata);
}

TEST_CASE("concurrent first use of the same chunks") {
  AssembleOptions zstd;
  zstd.zstd = true;
  const Table t(zstd);
  const Reader r = OpenOk(t.file);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      std::vector<int64_t> a(Table::kRows);
      std::vector<uint16_t> b(Table::kRows);
      for (int round = 0; round < 3; ++round) {
        if (!r.ReadRows(0, 0, Table::kRows, a.data(), a.size() * 8).ok() || a != t.a) ++failures;
        if (!r.ReadRows(1, i, Table::kRows, b.data(), b.size() * 2).ok() ||
            !std::equal(b.begin(), b.end() - i, t.b.begin() + i)) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
}

// The decompressed bytes one chunk holds: what the cache accounts for it.
uint64_t DecodedBytes(const ChunkInfo& ci) {
  uint64_t n = 0;
  for (const SegmentInfo* s : {&ci.partition_table, &ci.parameters, &ci.payload, &ci.bounds}) {
    if (s->present && s->compression != Compression::kNone) n += s->decoded_bytes;
  }
  return n;
}

TEST_CASE("the chunk cache holds at most max_cached_bytes; views outlive eviction") {
  AssembleOptions zstd;
  zstd.zstd = true;
  const Table t(zstd);
  const ReadOptions defaults;
  const Reader probe = OpenOk(t.file);
  const std::vector<ChunkInfo>& chunks = probe.column(0).chunks;
  REQUIRE(chunks.size() == 5);
  uint64_t largest = 0, total = 0;
  for (const ChunkInfo& ci : chunks) {
    largest = std::max(largest, DecodedBytes(ci));
    total += DecodedBytes(ci);
  }
  REQUIRE(largest > 0);

  SUBCASE("a budget of about two chunks keeps at most that while reading every chunk") {
    ReadOptions options;
    options.max_cached_bytes = 2 * largest + largest / 2;
    const Reader r = OpenOk(t.file, options);
    std::vector<int64_t> out(Table::kRows);
    for (int round = 0; round < 2; ++round) {
      for (size_t k = 0; k < chunks.size(); ++k) {
        const ChunkInfo& ci = chunks[k];
        REQUIRE(r.ReadRows(0, ci.first_row, ci.first_row + ci.num_rows, out.data(),
                           out.size() * 8).ok());
        CHECK(std::equal(out.begin(), out.begin() + static_cast<ptrdiff_t>(ci.num_rows),
                         t.a.begin() + static_cast<ptrdiff_t>(ci.first_row)));
        CHECK(r.cached_bytes() > 0);
        CHECK(r.cached_bytes() <= options.max_cached_bytes);
      }
    }
    CHECK(r.cached_bytes() < total);
  }
  SUBCASE("the default keeps every chunk of a small file") {
    REQUIRE(total <= defaults.max_cached_bytes);
    const Reader r = OpenOk(t.file);
    std::vector<int64_t> out(Table::kRows);
    REQUIRE(r.ReadRows(0, 0, Table::kRows, out.data(), out.size() * 8).ok());
    CHECK(out == t.a);
    CHECK(r.cached_bytes() >= total);
  }
  SUBCASE("a budget of 0 keeps nothing, and reads still decode") {
    ReadOptions options;
    options.max_cached_bytes = 0;
    const Reader r = OpenOk(t.file, options);
    std::vector<int64_t> out(Table::kRows);
    REQUIRE(r.ReadRows(0, 0, Table::kRows, out.data(), out.size() * 8).ok());
    CHECK(out == t.a);
    std::vector<uint64_t> rows{4499, 0, 2500, 999, 1000};
    std::vector<int64_t> taken(rows.size());
    REQUIRE(r.Take(0, rows.data(), rows.size(), taken.data(), taken.size() * 8).ok());
    for (size_t i = 0; i < rows.size(); ++i) CHECK(taken[i] == t.a[rows[i]]);
    CHECK(r.cached_bytes() == 0);
  }
  SUBCASE("a chunk larger than the budget is kept alone while it is the latest") {
    ReadOptions options;
    options.max_cached_bytes = largest / 2;
    const Reader r = OpenOk(t.file, options);
    std::vector<int64_t> out(Table::kRows);
    for (size_t k = 0; k < chunks.size(); ++k) {
      const ChunkInfo& ci = chunks[k];
      // Two reads inside the chunk, as a caller reading it in pieces.
      const uint64_t half = ci.num_rows / 2;
      REQUIRE(r.ReadRows(0, ci.first_row, ci.first_row + half, out.data(), out.size() * 8).ok());
      REQUIRE(r.ReadRows(0, ci.first_row + half, ci.first_row + ci.num_rows, out.data() + half,
                         out.size() * 8 - half * 8).ok());
      CHECK(std::equal(out.begin(), out.begin() + static_cast<ptrdiff_t>(ci.num_rows),
                       t.a.begin() + static_cast<ptrdiff_t>(ci.first_row)));
      // Only this chunk is held (each chunk of this column is over the budget).
      CHECK(r.cached_bytes() == DecodedBytes(ci));
    }
  }
  SUBCASE("a chunk view keeps its segments after the cache evicted them") {
    ReadOptions options;
    options.max_cached_bytes = largest;  // one chunk at a time
    const Reader r = OpenOk(t.file, options);
    Result<ChunkView> view = r.GetChunkView(0, 0);
    REQUIRE(view.ok());
    REQUIRE(view->owner != nullptr);
    const std::vector<uint8_t> payload(view->payload, view->payload + view->payload_bytes);
    std::vector<int64_t> out(Table::kRows);
    REQUIRE(r.ReadRows(0, 1000, Table::kRows, out.data(), out.size() * 8).ok());
    CHECK(r.cached_bytes() <= largest);
    // Under AddressSanitizer a freed payload would fail here.
    CHECK(std::equal(payload.begin(), payload.end(), view->payload));
  }
  SUBCASE("threads reading through a one-chunk budget") {
    ReadOptions options;
    options.max_cached_bytes = largest;
    const Reader r = OpenOk(t.file, options);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        std::vector<int64_t> a(Table::kRows);
        for (int round = 0; round < 5; ++round) {
          const uint64_t begin = static_cast<uint64_t>(i * 700 + round * 13);
          if (!r.ReadRows(0, begin, Table::kRows, a.data(), a.size() * 8).ok() ||
              !std::equal(a.begin(), a.begin() + static_cast<ptrdiff_t>(Table::kRows - begin),
                          t.a.begin() + static_cast<ptrdiff_t>(begin))) {
            ++failures;
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
    CHECK(r.cached_bytes() <= largest);
  }
}

TEST_CASE("damaged segments never crash the reader (checksums off)") {
  // With verify_checksums off, flipped bytes in the segments reach the zstd
  // layer, the metadata checks and the decoder. Every call must return,
  // either with values or with an error; the sanitizers check the memory.
  for (bool zstd : {false, true}) {
    AssembleOptions options;
    options.zstd = zstd;
    const Table t(options);
    const Reader good = OpenOk(t.file);
    const uint64_t data_end = good.info().file_bytes - 64 - good.info().footer_bytes;
    std::mt19937_64 rng(zstd ? 1 : 2);
    ReadOptions trusting;
    trusting.verify_checksums = false;
    int failures = 0;
    for (int trial = 0; trial < 150; ++trial) {
      std::vector<uint8_t> bad = t.file;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        bad[64 + rng() % (data_end - 64)] ^= static_cast<uint8_t>(1u << (rng() % 8));
      }
      const Reader r = OpenOk(bad, trusting);
      std::vector<int64_t> out(Table::kRows);
      for (int c = 0; c < 3; ++c) {
        if (!r.ReadRows(c, 0, Table::kRows, out.data(), out.size() * 8).ok()) ++failures;
        std::vector<uint64_t> rows = {0, 999, 1000, 4499, rng() % Table::kRows};
        (void)r.Take(c, rows.data(), rows.size(), out.data(), out.size() * 8);
        (void)r.Partitions(c, 0);
      }
      (void)r.Validate(ValidationLevel::kDeep);
    }
    CHECK(failures > 0);
  }
}
