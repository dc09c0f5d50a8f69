// The CPU reference decoder against chunks built by hand from the spec:
// every model and type, full and partial tiles, range and point decoding,
// metadata checks (spec §7.3, §8.2), run starts (§8.7) and deep checks (§10.3).
#include <doctest/doctest.h>

#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "container_test_util.hpp"

using namespace l3;
using namespace l3::testing;
using internal::DecodeChunkRows;
using internal::DecodeChunkValue;
using internal::DeepValidateChunk;
using internal::ValidateChunkMetadata;
using internal::ValidateRunStarts;

namespace {

template <typename T>
std::vector<T> DecodeAll(const HandChunk& chunk) {
  const ChunkView view = chunk.View();
  REQUIRE(ValidateChunkMetadata(view).ok());
  std::vector<T> out(chunk.num_rows);
  const Status st = DecodeChunkRows(view, 0, chunk.num_rows, out.data());
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  return out;
}

// Values that suit each model, wrapped into T.
template <typename T>
std::vector<T> ValuesFor(Model model, size_t n, uint64_t seed) {
  switch (model) {
    case Model::kConstant: return RunValues<T>(n, seed);
    case Model::kFor: return RandomValues<T>(n, seed, 1000);
    case Model::kLinear: return LinearValues<T>(n, seed, 0.75, 3);
    default: {
      std::mt19937_64 rng(seed);
      std::vector<T> v(n);
      for (size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(i);
        v[i] = static_cast<T>(static_cast<int64_t>(5 + 0.5 * x + 0.001 * x * x) +
                              static_cast<int64_t>(rng() % 5));
      }
      return v;
    }
  }
}

// Roughly fitted parameters for ValuesFor(); any finite values are valid.
std::array<double, 4> ThetaFor(Model model) {
  switch (model) {
    case Model::kLinear: return {100.0, 0.75, 0, 0};
    case Model::kPoly2: return {5.0, 0.5, 0.001, 0};
    case Model::kPoly3: return {5.0, 0.5, 0.001, 1e-9};
    default: return {};
  }
}

void Corrupt(HandChunk* chunk, uint32_t record, int field_offset, uint64_t value, int bytes) {
  uint8_t* p = chunk->partition_table.data() + 16 * record + field_offset;
  std::memcpy(p, &value, static_cast<size_t>(bytes));
}

StatusCode MetadataCode(const HandChunk& chunk) { return ValidateChunkMetadata(chunk.View()).code(); }

}  // namespace

TEST_CASE("worked example of spec §12.3: LINEAR prediction and rounding") {
  // Theta_0 = 10.5, Theta_1 = 0.5, V = 64, residuals all zero.
  const std::array<double, 4> theta = {10.5, 0.5, 0, 0};
  std::vector<int32_t> values(40);
  for (size_t x = 0; x < values.size(); ++x) {
    values[x] = static_cast<int32_t>(
        internal::PredictRow(static_cast<uint8_t>(Model::kLinear), theta.data(), x, 64));
  }
  HandPartition part = Part(Model::kLinear, theta);
  part.num_rows = 40;
  const HandChunk chunk = BuildHandChunk(values, {part});
  const auto decoded = DecodeAll<int32_t>(chunk);
  CHECK(decoded[0] == 10);   // y_0 = 10.5 rounds to even
  CHECK(decoded[2] == 12);   // y_0 = 11.5 rounds to even
  CHECK(decoded[33] == 27);  // lane 1, step 1: 11.0 + 16.0
  CHECK(internal::LoadPartitionRecord(chunk.partition_table.data(), 0).bit_width == 0);
}

TEST_CASE("the decoder's fast ToInt equals the canonical one (spec §8.4)") {
  const double two52 = 4503599627370496.0;
  std::vector<double> ys = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
                            -0.49999999999999994, two52, -two52, two52 - 0.5, -(two52 - 0.5),
                            two52 - 1.5, two52 + 1, 2 * two52 + 2, 9223372036854775808.0,
                            -9223372036854775808.0, 9223372036854774784.0, 1e300, -1e300,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::denorm_min(),
                            -std::numeric_limits<double>::denorm_min()};
  for (int64_t k = -2000; k <= 2000; ++k) ys.push_back(static_cast<double>(k) + 0.5);
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    ys.push_back(d);
    ys.push_back(std::ldexp(static_cast<double>(rng() % 4096) / 4096.0, static_cast<int>(rng() % 70)) *
                 (rng() % 2 ? 1 : -1));
  }
  for (double y : ys) {
    CAPTURE(y);
    REQUIRE(internal::PredictionToIntFast(y) == internal::PredictionToInt(y));
  }
}

TEST_CASE_TEMPLATE("every model decodes what was built, full and partial tiles", T, int8_t,
                   int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t) {
  const Model models[] = {Model::kConstant, Model::kFor, Model::kLinear, Model::kPoly2,
                          Model::kPoly3};
  for (uint32_t v : {1u, 2u, 64u, 1024u}) {
    for (size_t n : {size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{2047}, size_t{2048},
                     size_t{2049}, size_t{5000}}) {
      for (Model model : models) {
        CAPTURE(v);
        CAPTURE(n);
        CAPTURE(static_cast<int>(model));
        const auto values = ValuesFor<T>(model, n, n * 7 + v);
        HandPartition part = Part(model, ThetaFor(model));
        part.num_rows = static_cast<uint32_t>(n);
        const HandChunk chunk = BuildHandChunk(values, {part}, v);
        CHECK(DecodeAll<T>(chunk) == values);
        CHECK(DeepValidateChunk(chunk.View()).ok());
      }
    }
  }
}

TEST_CASE_TEMPLATE("range and point decoding agree with full decoding", T, int16_t, uint32_t,
                   int64_t) {
  const size_t n = 9000;
  // Mixed models over partitions of 700 rows; each partition crosses tiles of
  // V = 16 (S = 512) so ranges start and end mid-tile and mid-lane.
  auto values = LinearValues<T>(n, 5, 1.5, 20);
  for (size_t i = 2800; i < 3500; ++i) values[i] = static_cast<T>(7 + (i / 37) % 3);
  const auto parts = Partitioning(n, 700,
                                  {Part(Model::kLinear, {100, 1.5, 0, 0}), Part(Model::kFor),
                                   Part(Model::kPoly2, {100, 1.5, 0, 0}), Part(Model::kPoly3, {100, 1.5, 0, 0}),
                                   Part(Model::kConstant)});
  const HandChunk chunk = BuildHandChunk(values, parts, 16);
  const ChunkView view = chunk.View();
  REQUIRE(ValidateChunkMetadata(view).ok());
  REQUIRE(ValidateRunStarts(view).ok());
  const auto full = DecodeAll<T>(chunk);
  REQUIRE(full == values);
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    uint64_t a = rng() % (n + 1), b = rng() % (n + 1);
    if (a > b) std::swap(a, b);
    if (trial % 3 == 0) b = std::min<uint64_t>(n, a + rng() % 40);  // short ranges
    std::vector<T> out(b - a);
    REQUIRE(DecodeChunkRows(view, a, b, out.data()).ok());
    CHECK(std::equal(out.begin(), out.end(), full.begin() + static_cast<ptrdiff_t>(a)));
  }
  for (uint64_t row = 0; row < n; row += 1 + rng() % 7) {
    uint64_t value = 0;
    REQUIRE(DecodeChunkValue(view, row, &value).ok());
    CHECK(value == Canonical(full[row]));
  }
  for (uint32_t p = 0; p < chunk.num_partitions; ++p) {
    CHECK(internal::FindPartition(view, 700 * p) == p);
    CHECK(internal::FindPartition(view, 700 * p + 699 < n ? 700 * p + 699 : n - 1) == p);
  }
}

TEST_CASE("wrapping arithmetic: residuals and bases modulo 2^N") {
  // Values at both ends of int8: FOR spans the whole range, LINEAR predicts far
  // off and relies on the mod 2^8 sum (spec §8.3).
  std::vector<int8_t> values;
  for (int i = 0; i < 300; ++i) values.push_back(static_cast<int8_t>(i % 2 ? 127 : -128));
  const auto parts = Partitioning(values.size(), 100,
                                  {Part(Model::kFor), Part(Model::kLinear, {1e6, -3.25, 0, 0}),
                                   Part(Model::kConstant)});
  const HandChunk chunk = BuildHandChunk(values, parts, 2);
  CHECK(DecodeAll<int8_t>(chunk) == values);
  CHECK(DeepValidateChunk(chunk.View()).ok());
  // uint64 values beyond 2^53 with FOR.
  std::vector<uint64_t> big = {UINT64_MAX, 0, uint64_t{1} << 63, 12345};
  const HandChunk chunk64 = BuildHandChunk(big, {HandPartition{4, Model::kFor, {}, {}}}, 1);
  CHECK(DecodeAll<uint64_t>(chunk64) == big);
  CHECK(internal::LoadPartitionRecord(chunk64.partition_table.data(), 0).bit_width == 64);
}

TEST_CASE("predictions that overflow binary64 follow ToInt (spec §8.4)") {
  // Huge parameters: predictions saturate or become infinite/NaN by overflow;
  // the residual fields absorb whatever the canonical predictor says.
  const std::array<double, 4> theta = {1e308, 1e308, 1e308, 1e308};
  const auto values = RandomValues<int64_t>(100, 3);
  for (Model m : {Model::kLinear, Model::kPoly2, Model::kPoly3}) {
    HandPartition part = Part(m, theta);
    part.num_rows = 100;
    const HandChunk chunk = BuildHandChunk(values, {part}, 4);
    CHECK(DecodeAll<int64_t>(chunk) == values);
  }
}

TEST_CASE("runs: bad run starts are CORRUPT_PAYLOAD (spec §8.7)") {
  std::vector<uint16_t> values(100, 1);
  for (size_t i = 30; i < 60; ++i) values[i] = 9;
  for (size_t i = 60; i < 100; ++i) values[i] = 4;
  HandChunk chunk = BuildHandChunk(values, {HandPartition{100, Model::kConstant, {}, {}}});
  REQUIRE(DecodeAll<uint16_t>(chunk) == values);
  // Runs R = 3, w = bitlen(9 - 1) = 4, pb = bitlen(99) = 7: starts at bits 12 and 19.
  const auto rewrite_start = [&](int i, uint64_t start) {
    HandChunk bad = chunk;
    uint64_t word = internal::LoadLE64(bad.payload.data());
    const uint64_t bit = 12 + 7 * (i - 1);
    word &= ~(internal::LowMask(7) << bit);
    word |= start << bit;
    internal::StoreLE64(bad.payload.data(), word);
    return bad;
  };
  for (const auto& edit : {std::pair<int, uint64_t>{1, 0}, {2, 30}, {2, 20}, {2, 100}, {2, 127}}) {
    const int i = edit.first;
    const uint64_t start = edit.second;
    CAPTURE(i);
    CAPTURE(start);
    const HandChunk bad = rewrite_start(i, start);
    const ChunkView view = bad.View();
    REQUIRE(ValidateChunkMetadata(view).ok());
    CHECK(ValidateRunStarts(view).code() == StatusCode::kCorruptPayload);
    std::vector<uint16_t> out(100);
    CHECK(DecodeChunkRows(view, 0, 100, out.data()).code() == StatusCode::kCorruptPayload);
    CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptPayload);
  }
  // A start moved but still valid decodes to the moved boundary.
  const HandChunk moved = rewrite_start(2, 70);
  REQUIRE(ValidateRunStarts(moved.View()).ok());
  std::vector<uint16_t> out(100);
  REQUIRE(DecodeChunkRows(moved.View(), 0, 100, out.data()).ok());
  CHECK(out[69] == 9);
  CHECK(out[70] == 4);
  uint64_t v = 0;
  REQUIRE(DecodeChunkValue(moved.View(), 65, &v).ok());
  CHECK(v == 9);
}

TEST_CASE("partition table checks (spec §7.3) report CORRUPT_METADATA") {
  const auto values = LinearValues<uint8_t>(1000, 1, 0.1, 3);
  const auto parts = Partitioning(1000, 300, {Part(Model::kFor), Part(Model::kLinear, {100, 0.1, 0, 0}),
                                              Part(Model::kConstant)});
  const HandChunk good = BuildHandChunk(values, parts, 8);
  REQUIRE(ValidateChunkMetadata(good.View()).ok());
  const uint32_t P = good.num_partitions;
  auto expect = [&](const char* what, auto edit) {
    CAPTURE(what);
    HandChunk bad = good;
    edit(&bad);
    const Status st = ValidateChunkMetadata(bad.View());
    CHECK(st.code() == StatusCode::kCorruptMetadata);
    CHECK(!st.message().empty());
  };
  expect("First_Row[0] != 0", [](HandChunk* c) { Corrupt(c, 0, 0, 1, 4); });
  expect("First_Row not increasing", [](HandChunk* c) { Corrupt(c, 2, 0, 300, 4); });
  expect("sentinel First_Row != num_rows", [&](HandChunk* c) { Corrupt(c, P, 0, 999, 4); });
  expect("Param_Offset[0] != 0", [](HandChunk* c) { Corrupt(c, 0, 8, 1, 4); });
  expect("Param_Offset step", [](HandChunk* c) { Corrupt(c, 1, 8, 2, 4); });
  expect("Payload_Offset[0] != 0", [](HandChunk* c) { Corrupt(c, 0, 4, 1, 4); });
  expect("Payload_Offset step", [](HandChunk* c) {
    const auto rec = internal::LoadPartitionRecord(c->partition_table.data(), 1);
    Corrupt(c, 1, 4, rec.payload_offset + 1, 4);
  });
  expect("Model_Type 5", [](HandChunk* c) { Corrupt(c, 0, 12, 5, 1); });
  expect("Bit_Width > N", [](HandChunk* c) { Corrupt(c, 0, 13, 9, 1); });
  expect("Reserved", [](HandChunk* c) { Corrupt(c, 1, 14, 1, 2); });
  expect("sentinel Model_Type", [&](HandChunk* c) { Corrupt(c, P, 12, 1, 1); });
  expect("sentinel Bit_Width", [&](HandChunk* c) { Corrupt(c, P, 13, 1, 1); });
  expect("parameters length", [](HandChunk* c) { c->parameters.resize(c->parameters.size() + 8); });
  expect("parameters not words", [](HandChunk* c) { c->parameters.resize(c->parameters.size() - 3); });
  expect("payload length", [](HandChunk* c) { c->payload.resize(c->payload.size() + 8); });
  expect("payload shorter than padding", [](HandChunk* c) { c->payload.resize(16); });
  expect("bounds length", [](HandChunk* c) { c->bounds.pop_back(); });
  expect("num_partitions > num_rows", [](HandChunk* c) { c->num_rows = 2; });
  expect("values_per_lane not a power of two", [](HandChunk* c) { c->values_per_lane = 24; });
  expect("values_per_lane > 1024", [](HandChunk* c) { c->values_per_lane = 2048; });
}

TEST_CASE("parameter checks (spec §8.2) report CORRUPT_METADATA") {
  SUBCASE("non-canonical integer words") {
    // int8 FOR with Base -5: the word must be sign-extended.
    std::vector<int8_t> values = {-5, -3, 0, 7};
    HandChunk chunk = BuildHandChunk(values, {HandPartition{4, Model::kFor, {}, {}}});
    REQUIRE(ValidateChunkMetadata(chunk.View()).ok());
    internal::StoreLE64(chunk.parameters.data(), 0xFB);  // -5 zero-extended
    CHECK(MetadataCode(chunk) == StatusCode::kCorruptMetadata);
    // uint16 CONSTANT with a word above 2^16.
    std::vector<uint16_t> same(10, 77);
    HandChunk c2 = BuildHandChunk(same, {HandPartition{10, Model::kConstant, {}, {}}});
    REQUIRE(ValidateChunkMetadata(c2.View()).ok());
    internal::StoreLE64(c2.parameters.data(), 0x10000 + 77);
    CHECK(MetadataCode(c2) == StatusCode::kCorruptMetadata);
  }
  SUBCASE("NaN and infinite theta") {
    const auto values = LinearValues<int32_t>(100, 2);
    HandPartition part = Part(Model::kPoly2, {100, 3, 0, 0});
    part.num_rows = 100;
    const HandChunk good = BuildHandChunk(values, {part});
    REQUIRE(ValidateChunkMetadata(good.View()).ok());
    for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()}) {
      for (int i = 0; i < 3; ++i) {
        HandChunk chunk = good;
        internal::StoreLE64(chunk.parameters.data() + 8 * i, DoubleBits(bad));
        CHECK(MetadataCode(chunk) == StatusCode::kCorruptMetadata);
      }
    }
  }
  SUBCASE("Num_Runs outside 1..n_p") {
    std::vector<uint32_t> values = {1, 1, 2, 2, 3};
    const HandChunk good = BuildHandChunk(values, {HandPartition{5, Model::kConstant, {}, {}}});
    REQUIRE(ValidateChunkMetadata(good.View()).ok());
    for (uint64_t runs : {uint64_t{0}, uint64_t{6}, UINT64_MAX}) {
      HandChunk chunk = good;
      internal::StoreLE64(chunk.parameters.data() + 8, runs);
      CHECK(MetadataCode(chunk) == StatusCode::kCorruptMetadata);
    }
  }
}

TEST_CASE("deep validation (spec §10.3)") {
  const auto values = LinearValues<int32_t>(3000, 9, 2.0, 50);
  const auto parts = Partitioning(3000, 1000, {Part(Model::kFor), Part(Model::kLinear, {100, 2, 0, 0}),
                                               Part(Model::kConstant)});
  const HandChunk good = BuildHandChunk(values, parts, 32);
  REQUIRE(DeepValidateChunk(good.View()).ok());

  SUBCASE("non-minimal widths") {
    for (size_t which = 0; which < 3; ++which) {
      auto wide = parts;
      const HandChunk minimal = BuildHandChunk(values, parts, 32);
      const uint32_t w = internal::LoadPartitionRecord(minimal.partition_table.data(), which).bit_width;
      wide[which].bit_width = w + 1;
      const HandChunk chunk = BuildHandChunk(values, wide, 32);
      REQUIRE(ValidateChunkMetadata(chunk.View()).ok());
      CHECK(DecodeAll<int32_t>(chunk) == values);  // still decodable
      CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptMetadata);
    }
  }
  SUBCASE("FOR base below the minimum") {
    // Values 10..13 written as Base 9 and fields 1..4 (w = 3): decodable, but
    // spec §8.8 rule 2 wants Base 10 and w = 2.
    const std::vector<int32_t> small = {10, 11, 12, 13};
    HandChunk chunk = BuildHandChunk(small, {HandPartition{4, Model::kFor, {}, {}}});
    internal::StoreLE64(chunk.parameters.data(), 9);
    Corrupt(&chunk, 0, 13, 3, 1);
    // n = 4 < 32: lane L holds row L, fields back to back (spec §8.5).
    internal::StoreLE64(chunk.payload.data(), 1 | (2 << 3) | (3 << 6) | (4 << 9));
    REQUIRE(ValidateChunkMetadata(chunk.View()).ok());
    CHECK(DecodeAll<int32_t>(chunk) == small);
    CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("bounds differ from the data") {
    HandChunk chunk = good;
    chunk.bounds[4] ^= 1;  // min of partition 1
    CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("padding bits after the last field") {
    HandChunk chunk = good;
    // Partition 0 is FOR: 1000 fields of w bits; set the first padding bit.
    const auto rec = internal::LoadPartitionRecord(chunk.partition_table.data(), 0);
    const uint64_t used = 1000ull * rec.bit_width;
    REQUIRE(used % 64 != 0);
    chunk.payload[used / 8] |= static_cast<uint8_t>(1u << (used % 8));
    CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("payload padding bytes") {
    HandChunk chunk = good;
    chunk.payload[chunk.payload.size() - 1] = 1;
    REQUIRE(ValidateChunkMetadata(chunk.View()).ok());
    CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a run partition with one distinct value must be Bit_Width 0") {
    std::vector<uint8_t> same(50, 3);
    HandPartition part{50, Model::kConstant, {}, 1};
    const HandChunk chunk = BuildHandChunk(same, {part});
    REQUIRE(ValidateChunkMetadata(chunk.View()).ok());
    CHECK(DecodeAll<uint8_t>(chunk) == same);
    CHECK(DeepValidateChunk(chunk.View()).code() == StatusCode::kCorruptMetadata);
  }
}

TEST_CASE("garbage payload and mutated metadata never read outside the buffers") {
  // Valid metadata over random payload bits: decoding must stay in bounds
  // (checked by the sanitizers) and either succeed or report bad runs.
  const auto values = RunValues<uint32_t>(4000, 11, 40);
  const auto parts = Partitioning(4000, 500, {Part(Model::kConstant), Part(Model::kFor),
                                              Part(Model::kPoly3, {1, 0.1, 0, 0})});
  const HandChunk good = BuildHandChunk(values, parts, 4);
  std::mt19937_64 rng(123);
  std::vector<uint32_t> out(4000);
  for (int trial = 0; trial < 40; ++trial) {
    HandChunk chunk = good;
    for (size_t i = 0; i + internal::kPayloadPaddingBytes < chunk.payload.size(); ++i) {
      chunk.payload[i] = static_cast<uint8_t>(rng());
    }
    const ChunkView view = chunk.View();
    REQUIRE(ValidateChunkMetadata(view).ok());
    const Status st = DecodeChunkRows(view, 0, 4000, out.data());
    CHECK((st.ok() || st.code() == StatusCode::kCorruptPayload));
    for (int k = 0; k < 50; ++k) {
      uint64_t v;
      const Status pst = DecodeChunkValue(view, rng() % 4000, &v);
      CHECK((pst.ok() || pst.code() == StatusCode::kCorruptPayload));
    }
  }
  // Random byte flips in the partition table and parameters: whatever passes
  // the metadata checks must decode without leaving the buffers.
  int accepted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    HandChunk chunk = good;
    std::vector<uint8_t>& target = trial % 2 ? chunk.partition_table : chunk.parameters;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) target[rng() % target.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    const ChunkView view = chunk.View();
    if (!ValidateChunkMetadata(view).ok()) continue;
    ++accepted;
    const Status st = DecodeChunkRows(view, 0, 4000, out.data());
    CHECK((st.ok() || st.code() == StatusCode::kCorruptPayload));
  }
  CHECK(accepted > 0);
}

TEST_CASE("a forged sentinel is rejected from the partition table alone, before any allocation") {
  using namespace l3::internal;
  // One FOR_BITPACK partition of 100 rows at width 8: one parameter word and
  // at most ceil(800 / 64) = 13 payload words.
  uint8_t table[2 * kPartitionRecordBytes];
  StorePartitionRecord(table, 0, PartitionRecord{0, 0, 0, 1, 8, 0});
  StorePartitionRecord(table, 1, PartitionRecord{100, 13, 1, 0, 0, 0});
  auto shape = [&](uint64_t params, uint64_t payload) {
    return ValidatePartitionTableShape(table, 1, 100, 8, l3::PhysicalType::kUInt8, 0, params,
                                       payload)
        .code();
  };
  CHECK(shape(8, 8 * 13 + 32) == l3::StatusCode::kOk);
  // A sentinel claiming 4 GiB of payload (decoded_length to match) and a
  // parameters segment the table's differences do not explain.
  StorePartitionRecord(table, 1, PartitionRecord{100, 0x1FFFFFFFu, 1, 0, 0, 0});
  CHECK(shape(8, 8 * uint64_t{0x1FFFFFFF} + 32) == l3::StatusCode::kCorruptMetadata);
  StorePartitionRecord(table, 1, PartitionRecord{100, 13, 0x1FFFFFFFu, 0, 0, 0});
  CHECK(shape(8 * uint64_t{0x1FFFFFFF}, 8 * 13 + 32) == l3::StatusCode::kCorruptMetadata);
  StorePartitionRecord(table, 1, PartitionRecord{101, 13, 1, 0, 0, 0});
  CHECK(shape(8, 8 * 13 + 32) == l3::StatusCode::kCorruptMetadata);
}
