// Dictionary chunks (spec §8.10): the writer's choice, round trips of every
// type in both profiles, random access, deep validation, and the rules a
// reader enforces on hand-made chunks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <limits>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/dictionary/dictionary_decode.hpp"
#include "codec/dictionary/dictionary_encode.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "container_test_util.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;
using namespace l3::testing;

namespace {

// `n` values drawn from `distinct` spread-out values of T (negative ones too
// for signed types), in runs of 1..8, like a status or timestamp column.
template <typename T>
std::vector<T> FewDistinct(size_t n, size_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> pool(distinct);
  std::set<T> used;
  for (auto& p : pool) {
    do {
      p = static_cast<T>(rng());
    } while (!used.insert(p).second);
  }
  std::vector<T> v;
  v.reserve(n);
  while (v.size() < n) {
    const T value = pool[rng() % distinct];
    const size_t run = 1 + rng() % 8;
    for (size_t i = 0; i < run && v.size() < n; ++i) v.push_back(value);
  }
  return v;
}

template <typename T>
std::vector<uint8_t> Write(const std::vector<T>& values, WriteOptions options, const char* name) {
  options.chunk_rows = 50000;
  auto writer = Writer::CreateInMemory({{"v", TypeOf<T>(), {}}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, values.data(), values.size()).ok());
  const Status st = writer->Close();
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  std::vector<uint8_t> file = writer->TakeBuffer();
  KeepTestFile(std::string("dictionary_") + name + "_" + PhysicalTypeName(TypeOf<T>()), file);
  return file;
}

template <typename T>
void CheckReads(const std::vector<uint8_t>& file, const std::vector<T>& values) {
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  std::vector<T> out(values.size());
  REQUIRE(r->ReadRows(0, 0, values.size(), out.data(), out.size() * sizeof(T)).ok());
  CHECK(out == values);
  const Status deep = r->Validate(ValidationLevel::kDeep);
  CHECK_MESSAGE(deep.ok(), deep.ToString());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 16; ++i) {
    uint64_t a = rng() % values.size(), b = rng() % (values.size() + 1);
    if (a > b) std::swap(a, b);
    std::vector<T> part(b - a);
    REQUIRE(r->ReadRows(0, a, b, part.data(), part.size() * sizeof(T)).ok());
    CHECK(std::equal(part.begin(), part.end(), values.begin() + static_cast<ptrdiff_t>(a)));
  }
  std::vector<uint64_t> rows(200);
  for (auto& row : rows) row = rng() % values.size();
  std::vector<T> taken(rows.size());
  REQUIRE(r->Take(0, rows.data(), rows.size(), taken.data(), taken.size() * sizeof(T)).ok());
  for (size_t i = 0; i < rows.size(); ++i) CHECK(taken[i] == values[rows[i]]);
  // A dense set (Take decodes it in ranges), shuffled, with repeats.
  std::vector<uint64_t> dense;
  for (uint64_t row = rng() % values.size(); row < values.size() && dense.size() < 5000;
       row += 1 + rng() % 3) {
    dense.push_back(row);
    if (rng() % 5 == 0) dense.push_back(row);
  }
  std::shuffle(dense.begin(), dense.end(), rng);
  std::vector<T> dense_taken(dense.size());
  REQUIRE(r->Take(0, dense.data(), dense.size(), dense_taken.data(), dense_taken.size() * sizeof(T))
              .ok());
  size_t wrong = 0;
  for (size_t i = 0; i < dense.size(); ++i) wrong += dense_taken[i] != values[dense[i]];
  CHECK(wrong == 0);
}

uint64_t DictionaryChunks(const std::vector<uint8_t>& file) {
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  uint64_t count = 0;
  for (const ChunkInfo& c : r->column(0).chunks) count += c.dictionary_entries > 0;
  return count;
}

}  // namespace

TEST_CASE_TEMPLATE("dictionary chunks: every type, both profiles, against the plain file", T,
                   int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t) {
  // A few spread-out values: the dictionary pays; more than half of a signed
  // byte's range would not fit codes (spec §8.10 rule 1) and is tested below.
  const std::vector<T> values = FewDistinct<T>(120000, 40, 11);
  for (const Profile profile : {Profile::kHot, Profile::kArchive}) {
    WriteOptions options;
    options.profile = profile;
    const std::vector<uint8_t> with = Write(values, options, profile == Profile::kHot ? "hot" : "archive");
    options.dictionary = false;
    const std::vector<uint8_t> without = Write(values, options, "off");
    CHECK(DictionaryChunks(without) == 0);
    if (sizeof(T) >= 2) {
      // 6-bit codes beside 16..64-bit values: every chunk (50000 + 50000 +
      // 20000 rows) is a dictionary chunk.
      CHECK(DictionaryChunks(with) == 3);
      if (profile == Profile::kHot) CHECK(with.size() < without.size());
    } else if (profile == Profile::kHot) {
      // 6-bit codes of 8-bit values may not pay; the writer keeps whichever
      // chunk is smaller (the footer's field aside).
      CHECK(with.size() <= without.size() + 64);
    }
    CheckReads(with, values);
    auto r = Reader::OpenBuffer(with.data(), with.size());
    REQUIRE(r.ok());
    // DICTIONARY is set if and only if a chunk is a dictionary chunk (spec §4.4).
    CHECK(((r->info().required_features & kRequiredDictionary) != 0) ==
          (DictionaryChunks(with) > 0));
    // Chunk statistics describe the rows' values (spec §8.10).
    for (const ChunkInfo& c : r->column(0).chunks) {
      if (c.dictionary_entries == 0) continue;
      CHECK(c.statistics.distinct_count == c.dictionary_entries);
      CHECK(c.statistics.distinct_count_exact);
    }
  }
}

TEST_CASE("dictionary chunks: the writer keeps plain chunks where a dictionary does not pay") {
  // Random 32-bit values: every value distinct.
  std::vector<uint32_t> random(100000);
  std::mt19937 rng(3);
  for (auto& v : random) v = rng();
  CHECK(DictionaryChunks(Write(random, WriteOptions{}, "random")) == 0);
  // A sorted column: lines beat any dictionary.
  std::vector<uint64_t> sorted(100000);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = 1000 + 3 * i;
  CHECK(DictionaryChunks(Write(sorted, WriteOptions{}, "sorted")) == 0);
  // Format 1.0 files never use one.
  const std::vector<uint16_t> few = FewDistinct<uint16_t>(100000, 30, 5);
  WriteOptions v10;
  v10.format_minor = 0;
  const std::vector<uint8_t> file = Write(few, v10, "minor0");
  CHECK(DictionaryChunks(file) == 0);
  CheckReads(file, few);
  // A PGM index excludes a dictionary (spec §8.10 rule 1).
  std::vector<int32_t> steps(100000);
  for (size_t i = 0; i < steps.size(); ++i) steps[i] = static_cast<int32_t>(i / 5000) * 1000003;
  WriteOptions pgm;
  pgm.pgm = PgmMode::kRequire;
  const std::vector<uint8_t> indexed = Write(steps, pgm, "pgm");
  CHECK(DictionaryChunks(indexed) == 0);
  // Whatever is smaller: never larger than the plain file (the footer's
  // dictionary field aside).
  WriteOptions plain;
  plain.dictionary = false;
  CHECK(Write(steps, WriteOptions{}, "steps").size() <= Write(steps, plain, "steps_off").size() + 64);
}

#ifdef L3_REAL_DATA_DIR
TEST_CASE("dictionary chunks: the hot profile wants a real saving (adult Age)") {
  // The Age field of the adult census data: 73 distinct values. A dictionary
  // saves well under 1% here, which would not pay for a lookup per value on
  // the GPU.
  std::vector<uint8_t> csv;
  if (!ReadGzipFile(std::string(L3_REAL_DATA_DIR) + "/mlcourse_adult_train.csv.gz", &csv)) {
    MESSAGE("real data not found; skipped");
    return;
  }
  std::vector<uint32_t> age;
  size_t line = 0;
  for (size_t i = 0; i < csv.size();) {
    size_t end = i;
    while (end < csv.size() && csv[end] != '\n') ++end;
    if (line++ > 0 && end > i) age.push_back(static_cast<uint32_t>(std::strtoul(
                                   std::string(csv.begin() + static_cast<ptrdiff_t>(i),
                                               csv.begin() + static_cast<ptrdiff_t>(end)).c_str(),
                                   nullptr, 10)));
    i = end + 1;
  }
  REQUIRE(age.size() > 30000);
  // Without PATCHED_FOR (spec §8.12), whose exceptions take the few ages
  // above 80 out of every partition's width and so beat both (below).
  WriteOptions plain;
  plain.partitioner.enable_patched_for = false;
  const std::vector<uint8_t> hot = Write(age, plain, "adult_age_hot");
  CHECK(DictionaryChunks(hot) == 0);
  CheckReads(hot, age);
  const std::vector<uint8_t> patched = Write(age, WriteOptions{}, "adult_age_patched");
  CHECK(static_cast<double>(patched.size()) < static_cast<double>(hot.size()) * 0.95);
  CheckReads(patched, age);
  // Without the margin the dictionary chunk wins by a few bytes: the margin
  // is what decided.
  WriteOptions any_saving = plain;
  any_saving.dictionary_min_saving = 0;
  const std::vector<uint8_t> marginal = Write(age, any_saving, "adult_age_marginal");
  CHECK(DictionaryChunks(marginal) == 1);
  CHECK(marginal.size() < hot.size());
  CHECK(static_cast<double>(marginal.size()) > static_cast<double>(hot.size()) * (1 - 1.0 / 32));
  CheckReads(marginal, age);
  // Options outside [0, 1) are refused.
  WriteOptions bad;
  bad.dictionary_min_saving = 1;
  CHECK(Writer::CreateInMemory({{"v", PhysicalType::kUInt32, {}}}, bad).status().code() ==
        StatusCode::kInvalidArgument);
}
#endif

TEST_CASE("dictionary chunks: signed codes stay below 2^(N-1)") {
  // 200 distinct i8 values cannot be coded (D <= 128): BuildDictionary says no.
  std::vector<int8_t> bytes(4000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<int8_t>(i % 200 - 100);
  std::vector<uint8_t> elements;
  uint64_t d = 0;
  CHECK_FALSE(BuildDictionary(PhysicalType::kInt8, bytes.data(), bytes.size(), 1000, &elements, &d));
  // 128 distinct values fit; the codes are the entries' ranks.
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<int8_t>(i % 128 - 64);
  REQUIRE(BuildDictionary(PhysicalType::kInt8, bytes.data(), bytes.size(), 1000, &elements, &d));
  CHECK(d == 128);
  CHECK(static_cast<int8_t>(elements[0]) == -64);
  CHECK(static_cast<int8_t>(elements[127]) == 63);
  CHECK(static_cast<int8_t>(elements[128]) == 0);      // row 0 = -64, code 0
  CHECK(static_cast<int8_t>(elements[128 + 127]) == 127);  // row 127 = 63
}

namespace {

// BuildDictionary against its definition (spec §8.10 rules 2 and 3): the
// sorted distinct values, then each row's rank among them; and the entry
// limit, which holds exactly at D = max_entries.
template <typename T>
void CheckDictionaryOfRows(PhysicalType type, const std::vector<T>& rows) {
  const std::set<T> distinct(rows.begin(), rows.end());
  const std::vector<T> entries(distinct.begin(), distinct.end());
  std::vector<T> expected = entries;
  for (const T& v : rows) {
    expected.push_back(static_cast<T>(std::lower_bound(entries.begin(), entries.end(), v) -
                                      entries.begin()));
  }
  std::vector<uint8_t> elements;
  uint64_t d = 0;
  REQUIRE(BuildDictionary(type, rows.data(), rows.size(), entries.size(), &elements, &d));
  CHECK(d == entries.size());
  std::vector<T> got(elements.size() / sizeof(T));
  std::memcpy(got.data(), elements.data(), elements.size());
  CHECK(got == expected);
  CHECK_FALSE(BuildDictionary(type, rows.data(), rows.size(), entries.size() - 1, &elements, &d));
}

}  // namespace

TEST_CASE_TEMPLATE("dictionary chunks: entries and codes equal sorting and ranking", T, int32_t,
                   uint32_t, int64_t, uint64_t) {
  // 300,000 rows: a sample of 65,536 rows with few distinct values (so it
  // is not rejected), then up to 60,000 distinct values, in runs and alone,
  // spread over the whole type (negative values, both extremes, values that
  // share their low bits), so that the writer's table grows several times.
  const PhysicalType type = std::is_same_v<T, int32_t>    ? PhysicalType::kInt32
                            : std::is_same_v<T, uint32_t> ? PhysicalType::kUInt32
                            : std::is_same_v<T, int64_t>  ? PhysicalType::kInt64
                                                          : PhysicalType::kUInt64;
  std::mt19937_64 rng(17);
  std::vector<T> pool;
  for (int i = 0; i < 60000; ++i) {
    const uint64_t r = rng();
    pool.push_back(static_cast<T>(i % 3 == 0 ? r : i % 3 == 1 ? (r & 0xFFFF) << 20 : r % 1000));
  }
  std::vector<T> rows;
  for (uint64_t i = 0; i < 65536; ++i) rows.push_back(pool[rng() % 50]);
  rows.push_back(std::numeric_limits<T>::min());
  rows.push_back(std::numeric_limits<T>::max());
  while (rows.size() < 300000) {
    const T v = pool[rng() % pool.size()];
    const uint64_t run = rng() % 4 == 0 ? 1 + rng() % 40 : 1;
    for (uint64_t k = 0; k < run; ++k) rows.push_back(v);
  }
  CHECK(std::set<T>(rows.begin(), rows.end()).size() > 10000);  // the table grew
  CheckDictionaryOfRows(type, rows);
}

TEST_CASE("dictionary chunks: the worked example of spec §8.10") {
  const std::vector<uint16_t> rows = {700, 700, 5, 700, 9, 9};
  std::vector<uint8_t> elements;
  uint64_t d = 0;
  REQUIRE(BuildDictionary(PhysicalType::kUInt16, rows.data(), rows.size(), 6, &elements, &d));
  REQUIRE(d == 3);
  std::vector<uint16_t> e(elements.size() / 2);
  std::memcpy(e.data(), elements.data(), elements.size());
  CHECK(e == std::vector<uint16_t>{5, 9, 700, 2, 2, 0, 2, 1, 1});
  // The example's partitioning: FOR over the entries, FOR over the codes.
  EncoderConfig config;
  config.type = PhysicalType::kUInt16;
  config.values_per_lane = 1;
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      elements.data(), e.size(), config, {{3, Model::kFor, {}}, {6, Model::kFor, {}}});
  REQUIRE(chunk.ok());
  chunk->num_rows = rows.size();
  chunk->dictionary_entries = d;
  const ChunkView view = ChunkViewOf(*chunk, PhysicalType::kUInt16);
  REQUIRE(ValidateChunkMetadata(view).ok());
  CHECK(LoadPartitionRecord(view.partition_table, 0).bit_width == 10);
  CHECK(LoadPartitionRecord(view.partition_table, 1).bit_width == 2);
  std::vector<uint16_t> out(rows.size());
  REQUIRE(DecodeChunkRows(view, 0, rows.size(), out.data()).ok());
  CHECK(out == rows);
  uint64_t value = 0;
  REQUIRE(DecodeChunkValue(view, 3, &value).ok());
  CHECK(value == 700);
  CHECK(DeepValidateChunk(view).ok());
}

TEST_CASE("dictionary chunks: a reader enforces the rules of spec §8.10") {
  EncoderConfig config;
  config.type = PhysicalType::kInt32;
  auto chunk_of = [&](const std::vector<int32_t>& elements, uint64_t d) {
    Result<EncodedChunk> chunk = EncodeChunk(elements.data(), elements.size(), config);
    REQUIRE(chunk.ok());
    chunk->num_rows = elements.size() - d;
    chunk->dictionary_entries = d;
    return *chunk;
  };
  std::vector<int32_t> out(6);
  SUBCASE("a code at or above D is CORRUPT_PAYLOAD, also in random access") {
    const EncodedChunk c = chunk_of({-5, 9, 700, 2, 2, 0, 3, 1, 1}, 3);
    const ChunkView view = ChunkViewOf(c, PhysicalType::kInt32);
    REQUIRE(ValidateChunkMetadata(view).ok());
    CHECK(DecodeChunkRows(view, 0, 6, out.data()).code() == StatusCode::kCorruptPayload);
    CHECK(DecodeChunkRows(view, 0, 3, out.data()).ok());
    uint64_t value = 0;
    CHECK(DecodeChunkValue(view, 3, &value).code() == StatusCode::kCorruptPayload);
    REQUIRE(DecodeChunkValue(view, 2, &value).ok());
    CHECK(static_cast<int64_t>(value) == -5);
  }
  SUBCASE("a negative code is CORRUPT_PAYLOAD") {
    const EncodedChunk c = chunk_of({-5, 9, 700, 2, 2, 0, -1, 1, 1}, 3);
    CHECK(DecodeChunkRows(ChunkViewOf(c, PhysicalType::kInt32), 0, 6, out.data()).code() ==
          StatusCode::kCorruptPayload);
  }
  SUBCASE("entries that do not increase are CORRUPT_PAYLOAD") {
    const EncodedChunk c = chunk_of({9, 9, 700, 2, 2, 0, 2, 1, 1}, 3);
    const ChunkView view = ChunkViewOf(c, PhysicalType::kInt32);
    std::vector<uint8_t> entries;
    CHECK(DecodeDictionary(view, &entries).code() == StatusCode::kCorruptPayload);
    CHECK(DecodeChunkRows(view, 0, 6, out.data()).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("an unused entry is found by deep validation") {
    const EncodedChunk c = chunk_of({-5, 9, 700, 2, 2, 0, 2, 0, 0}, 3);
    const ChunkView view = ChunkViewOf(c, PhysicalType::kInt32);
    CHECK(DecodeChunkRows(view, 0, 6, out.data()).ok());
    CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("D above num_rows, or without the feature bit, is CORRUPT_METADATA") {
    const EncodedChunk c = chunk_of({1, 2, 3, 4, 5, 0, 1, 2}, 5);
    CHECK(ValidateChunkMetadata(ChunkViewOf(c, PhysicalType::kInt32)).code() ==
          StatusCode::kCorruptMetadata);
    const EncodedChunk ok = chunk_of({-5, 9, 700, 2, 2, 0, 2, 1, 1}, 3);
    ChunkView view = ChunkViewOf(ok, PhysicalType::kInt32);
    REQUIRE(ValidateChunkMetadata(view).ok());
    view.required_features &= ~kRequiredDictionary;
    CHECK(ValidateChunkMetadata(view).code() == StatusCode::kCorruptMetadata);
  }
}

TEST_CASE("dictionary chunks: a real column (OSM node timestamps)") {
  std::vector<uint32_t> values;
  if (!LoadRealArray("osm_andorra_node_timestamp_u32.bin.gz", &values)) {
    MESSAGE("real data not found; skipped");
    return;
  }
  for (const Profile profile : {Profile::kHot, Profile::kArchive}) {
    WriteOptions options;
    options.profile = profile;
    auto writer = Writer::CreateInMemory({{"ts", PhysicalType::kUInt32, {}}}, options);
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped(0, values.data(), values.size()).ok());
    REQUIRE(writer->Close().ok());
    const std::vector<uint8_t> with = writer->TakeBuffer();
    KeepTestFile(profile == Profile::kHot ? "dictionary_osm_ts_hot" : "dictionary_osm_ts_archive",
                 with);
    options.dictionary = false;
    auto plain = Writer::CreateInMemory({{"ts", PhysicalType::kUInt32, {}}}, options);
    REQUIRE(plain.ok());
    REQUIRE(plain->AppendTyped(0, values.data(), values.size()).ok());
    REQUIRE(plain->Close().ok());
    CHECK(DictionaryChunks(with) == 1);
    CHECK(with.size() < plain->TakeBuffer().size());
    CheckReads(with, values);
  }
}
