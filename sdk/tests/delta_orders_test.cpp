// DELTA of order K > 1 (spec §8.9): K Seed words a tile and K running sums.
// The spec's worked example word for word; round trips of every type, V
// and order through the whole, range, window and single-row decoders and
// deep validation; the metadata checks and the deep-validation rules that
// reject what a writer must not write; and the archive profile's choice of
// higher orders on smooth curves, which sets DELTA_ORDERS.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "chunk_test_util.hpp"
#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/delta/delta_decode.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "container_test_util.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;
using l3::internal::testing::CheckRandomSlices;
using l3::testing::WriteOneColumn;

namespace {

// Pieces of cubic curves of random length, with small noise, each starting
// anywhere (a far jump), as N-bit values (wrapping for narrow types).
template <typename T>
std::vector<T> CurvePieces(uint32_t n, uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  uint32_t x = 0;
  while (x < n) {
    const uint32_t length = 1 + static_cast<uint32_t>(rng() % 3000);
    const double a = static_cast<double>(rng() % 1000) / 1e6;
    const double b = static_cast<double>(rng() % 1000) / 1e2;
    const uint64_t start = rng();
    for (uint32_t i = 0; i < length && x < n; ++i, ++x) {
      const double t = i;
      const auto curve = static_cast<uint64_t>(std::llround(a * t * t * t + b * t * t));
      v[x] = static_cast<T>(static_cast<U>(start + curve + rng() % 3));
    }
  }
  return v;
}

EncoderConfig ConfigOf(PhysicalType type, uint32_t values_per_lane) {
  EncoderConfig config;
  config.type = type;
  config.values_per_lane = values_per_lane;
  return config;
}

PartitionChoice DeltaOfOrder(uint32_t n, uint32_t order) {
  PartitionChoice choice{n, Model::kDelta, std::nullopt};
  choice.delta_order = order;
  return choice;
}

template <typename T>
void CheckRoundTrip(const std::vector<T>& v, uint32_t order, uint32_t values_per_lane) {
  const auto n = static_cast<uint32_t>(v.size());
  const EncoderConfig config = ConfigOf(PhysicalTypeOf<T>(), values_per_lane);
  // Two partitions where there is room, so the second starts mid-chunk.
  std::vector<PartitionChoice> choices;
  if (n >= 2 * (order + 1)) {
    choices = {DeltaOfOrder(n / 2, order), DeltaOfOrder(n - n / 2, order)};
  } else {
    choices = {DeltaOfOrder(n, order)};
  }
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(v.data(), n, config, choices);
  REQUIRE(chunk.ok());
  CHECK(chunk->uses_delta_orders);
  const ChunkView view = ChunkViewOf(*chunk, config.type);
  REQUIRE(ValidateChunkMetadata(view).ok());
  REQUIRE(DeepValidateChunk(view).ok());
  std::vector<T> out(n);
  REQUIRE(DecodeChunkRows(view, 0, n, out.data()).ok());
  CHECK(out == v);
  std::mt19937_64 rng(n + order);
  CheckRandomSlices(view, v, rng, 20);
  // DecodeDeltaWindow (the PGM lookups' decoder) agrees on short windows.
  for (uint32_t p = 0; p < view.num_partitions; ++p) {
    const Partition part = LoadPartition(view, p);
    REQUIRE(DeltaOrder(part) == order);
    for (int k = 0; k < 10; ++k) {
      const uint64_t lb = rng() % part.num_rows;
      const uint64_t le = lb + 1 + rng() % std::min<uint64_t>(part.num_rows - lb, 300);
      std::vector<T> window(le - lb);
      DecodeDeltaWindow(part, values_per_lane, lb, le, window.data());
      CHECK(std::equal(window.begin(), window.end(), v.begin() + part.first_row + lb));
    }
  }
}

template <typename T>
void CheckType(uint64_t seed) {
  for (const uint32_t n : {4u, 33u, 300u, 2048u, 9000u}) {
    CAPTURE(n);
    const std::vector<T> v = CurvePieces<T>(n, seed + n);
    for (const uint32_t order : {2u, 3u}) {
      CAPTURE(order);
      for (const uint32_t values_per_lane : {1u, 8u, 64u}) {
        CAPTURE(values_per_lane);
        CheckRoundTrip(v, order, values_per_lane);
      }
    }
  }
}

}  // namespace

TEST_CASE("DELTA orders: the spec's example, word for word") {
  // spec §8.9: u32, V = 1, values 10, 13, 18, 25, 34, 45 (second
  // differences all 2), order 2: Delta_Base 2, Bit_Width 0, no exceptions.
  const std::vector<uint32_t> v = {10, 13, 18, 25, 34, 45};
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      v.data(), 6, ConfigOf(PhysicalType::kUInt32, 1), {DeltaOfOrder(6, 2)});
  REQUIRE(chunk.ok());
  CHECK(chunk->partition_table.size() == 32);
  CHECK(LoadLE64(chunk->parameters.data()) == 2);                        // Delta_Base
  CHECK(LoadLE64(chunk->parameters.data() + 8) == uint64_t{1} << 42);   // Extra_Orders 1
  REQUIRE(chunk->payload.size() >= 16);
  CHECK(LoadLE64(chunk->payload.data()) == 9);                           // Seed[0][0]
  CHECK(LoadLE64(chunk->payload.data() + 8) == 0xFFFFFFFFull);          // Seed[0][1] = -1
  const ChunkView view = ChunkViewOf(*chunk, PhysicalType::kUInt32);
  CHECK(LoadPartition(view, 0).bit_width == 0);
  CHECK(DeltaPayloadWords(6, 0, 1, UnpackDeltaExceptions(uint64_t{1} << 42)) == 2);
  REQUIRE(DeepValidateChunk(view).ok());
  std::vector<uint32_t> out(6);
  REQUIRE(DecodeChunkRows(view, 0, 6, out.data()).ok());
  CHECK(out == v);
}

TEST_CASE("DELTA orders: every type, order and V decodes whole, in ranges and by row") {
  CheckType<int8_t>(31);
  CheckType<int16_t>(32);
  CheckType<int32_t>(33);
  CheckType<int64_t>(34);
  CheckType<uint8_t>(35);
  CheckType<uint16_t>(36);
  CheckType<uint32_t>(37);
  CheckType<uint64_t>(38);
}

TEST_CASE("DELTA orders: single rows of the largest tile (V = 1024) in closed form") {
  // A random access sums its tile's fields with binomial weights (spec
  // §8.9, cost of access); they grow with the row's place in its tile, up to
  // 32 * 1024 rows. One partition of two tiles (one full, one partial) of
  // curve pieces with exceptions, every 97th row read alone and against
  // the whole decode.
  const std::vector<uint64_t> v = CurvePieces<uint64_t>(40000, 5);
  const EncoderConfig config = ConfigOf(PhysicalType::kUInt64, 1024);
  for (const uint32_t order : {2u, 3u}) {
    CAPTURE(order);
    Result<EncodedChunk> chunk =
        EncodeChunkWithPartitions(v.data(), 40000, config, {DeltaOfOrder(40000, order)});
    REQUIRE(chunk.ok());
    const ChunkView view = ChunkViewOf(*chunk, config.type);
    REQUIRE(ValidateChunkMetadata(view).ok());
    CHECK(UnpackDeltaExceptions(LoadLE64(chunk->parameters.data() + 8)).count > 0);
    for (uint64_t x = 0; x < v.size(); x += 97) {
      uint64_t value = 0;
      REQUIRE(DecodeChunkValue(view, x, &value).ok());
      CHECK(value == v[x]);
    }
    for (const uint64_t x : {32767u, 32768u, 39999u}) {
      uint64_t value = 0;
      REQUIRE(DecodeChunkValue(view, x, &value).ok());
      CHECK(value == v[x]);
    }
  }
}

TEST_CASE("DELTA orders: the metadata checks reject what the spec forbids") {
  const std::vector<uint64_t> v = CurvePieces<uint64_t>(200, 7);
  const EncoderConfig config = ConfigOf(PhysicalType::kUInt64, 1);
  // The writer refuses what no file may hold.
  CHECK(EncodeChunkWithPartitions(v.data(), 3, config, {DeltaOfOrder(3, 3)}).status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(EncodeChunkWithPartitions(v.data(), 200, config, {DeltaOfOrder(200, 4)}).status().code() ==
        StatusCode::kInvalidArgument);
  Result<EncodedChunk> chunk =
      EncodeChunkWithPartitions(v.data(), 200, config, {DeltaOfOrder(200, 3)});
  REQUIRE(chunk.ok());
  const uint64_t word = LoadLE64(chunk->parameters.data() + 8);
  REQUIRE(ValidateChunkMetadata(ChunkViewOf(*chunk, config.type)).ok());
  const auto check_word = [&](uint64_t changed) {
    EncodedChunk copy = *chunk;
    StoreLE64(copy.parameters.data() + 8, changed);
    return ValidateChunkMetadata(ChunkViewOf(copy, config.type)).code();
  };
  CHECK(check_word(word | (uint64_t{3} << 42)) == StatusCode::kCorruptMetadata);  // K = 4
  CHECK(check_word(word | (uint64_t{1} << 44)) == StatusCode::kCorruptMetadata);  // reserved
  CHECK(check_word(word | (uint64_t{1} << 41)) == StatusCode::kCorruptMetadata);  // Rows_EF
  // Order 1 again: a valid word whose payload is now too long.
  CHECK(check_word(word & ~(uint64_t{3} << 42)) == StatusCode::kCorruptMetadata);
  // Without DELTA_ORDERS in the file's Required_Features.
  ChunkView without = ChunkViewOf(*chunk, config.type);
  without.required_features &= ~kRequiredDeltaOrders;
  CHECK(ValidateChunkMetadata(without).code() == StatusCode::kCorruptMetadata);
  // K >= n: an order-2 partition of 2 rows.
  const std::vector<uint64_t> two = {5, 9};
  Result<EncodedChunk> small =
      EncodeChunkWithPartitions(two.data(), 2, config, {PartitionChoice{2, Model::kDelta, {}}});
  REQUIRE(small.ok());
  StoreLE64(small->parameters.data() + 8, uint64_t{1} << 42);
  CHECK(ValidateChunkMetadata(ChunkViewOf(*small, config.type)).code() ==
        StatusCode::kCorruptMetadata);
}

TEST_CASE("DELTA orders: deep validation checks the Seed words of later tiles") {
  // V = 1: tiles of 32 rows, so 200 rows have seven tiles.
  const std::vector<uint32_t> v = CurvePieces<uint32_t>(200, 8);
  const EncoderConfig config = ConfigOf(PhysicalType::kUInt32, 1);
  for (const uint32_t order : {2u, 3u}) {
    for (uint32_t seed = 0; seed < order; ++seed) {
      Result<EncodedChunk> chunk =
          EncodeChunkWithPartitions(v.data(), 200, config, {DeltaOfOrder(200, order)});
      REQUIRE(chunk.ok());
      REQUIRE(DeepValidateChunk(ChunkViewOf(*chunk, config.type)).ok());
      // Seed[3][seed] one off: tile 3's rows decode to other values.
      uint8_t* word = chunk->payload.data() + 8 * (3 * order + seed);
      StoreLE64(word, (LoadLE64(word) + 1) & 0xFFFFFFFFull);
      const ChunkView view = ChunkViewOf(*chunk, config.type);
      REQUIRE(ValidateChunkMetadata(view).ok());
      std::vector<uint32_t> out(200);
      REQUIRE(DecodeChunkRows(view, 0, 200, out.data()).ok());
      CHECK(std::equal(out.begin(), out.begin() + 96, v.begin()));
      CHECK(!std::equal(out.begin() + 96, out.begin() + 128, v.begin() + 96));
      CHECK(std::equal(out.begin() + 128, out.end(), v.begin() + 128));
      CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptMetadata);
    }
  }
}

// Whether `file` sets DELTA_ORDERS; checks that it decodes to `v`.
template <typename T>
bool UsesOrdersAndDecodes(const std::vector<uint8_t>& file, const std::vector<T>& v) {
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  REQUIRE(reader->Validate(ValidationLevel::kDeep).ok());
  std::vector<T> out(v.size());
  REQUIRE(reader->ReadRows(0, 0, v.size(), out.data(), out.size() * sizeof(T)).ok());
  CHECK(out == v);
  return (reader->info().required_features & kRequiredDeltaOrders) != 0;
}

TEST_CASE("DELTA orders: the archive profile picks them for smooth curves") {
  // Six exponential curves of 10000 rows each (the exp generator): third
  // differences are small where polynomials over the row index need short
  // partitions.
  const std::vector<uint64_t> v = l3::datagen::GenerateExp(60000, 9);
  WriteOptions o;
  o.profile = Profile::kArchive;
  const std::vector<uint8_t> with = WriteOneColumn(v, PhysicalType::kUInt64, o);
  o.delta_orders = false;
  const std::vector<uint8_t> without = WriteOneColumn(v, PhysicalType::kUInt64, o);
  l3::testing::KeepTestFile("delta_orders_exp_archive", with);
  CHECK(with.size() * 2 < without.size());
  CHECK(UsesOrdersAndDecodes(with, v));
  CHECK(!UsesOrdersAndDecodes(without, v));
}

TEST_CASE("DELTA orders: the hot profile keeps them where they save delta_orders_min_saving") {
  WriteOptions on;  // the hot profile's defaults
  WriteOptions off;
  off.delta_orders = false;
  SUBCASE("smooth curves and a noisy wave: kept") {
    // exp: curves whose third differences are small; cosmos: a sine plus
    // noise, whose second differences are narrower than its first (about
    // 3 bits a value); 150,000 rows, so the candidates are sampled.
    const std::vector<uint64_t> exp = l3::datagen::GenerateExp(150000, 3);
    const std::vector<int32_t> cosmos = l3::datagen::GenerateCosmos(150000, 5);
    const std::vector<uint8_t> exp_on = WriteOneColumn(exp, PhysicalType::kUInt64, on);
    const std::vector<uint8_t> exp_off = WriteOneColumn(exp, PhysicalType::kUInt64, off);
    const std::vector<uint8_t> cosmos_on = WriteOneColumn(cosmos, PhysicalType::kInt32, on);
    const std::vector<uint8_t> cosmos_off = WriteOneColumn(cosmos, PhysicalType::kInt32, off);
    l3::testing::KeepTestFile("delta_orders_cosmos_hot", cosmos_on);
    CHECK(UsesOrdersAndDecodes(exp_on, exp));
    CHECK(UsesOrdersAndDecodes(cosmos_on, cosmos));
    CHECK(!UsesOrdersAndDecodes(exp_off, exp));
    CHECK(!UsesOrdersAndDecodes(cosmos_off, cosmos));
    CHECK(exp_on.size() * 2 < exp_off.size());
    CHECK(cosmos_on.size() * 8 < cosmos_off.size() * 7);
    // Required saving out of reach: the file without them, byte for byte.
    WriteOptions strict = on;
    strict.delta_orders_min_saving = 0.9;
    CHECK(WriteOneColumn(cosmos, PhysicalType::kInt32, strict) == cosmos_off);
    // The same bytes on one thread as on several (the sample and the
    // early stop do not depend on the thread count).
    WriteOptions one = on;
    one.num_threads = 1;
    CHECK(WriteOneColumn(cosmos, PhysicalType::kInt32, one) == cosmos_on);
  }
  SUBCASE("random walks and lines: not kept, same bytes as without") {
    const std::vector<uint64_t> walk = l3::datagen::GeneratePoisson(150000, 4);
    const std::vector<int64_t> times = l3::datagen::GenerateTimestamps(150000, 6);
    const std::vector<uint32_t> normal = l3::datagen::GenerateNormal(150000);
    CHECK(WriteOneColumn(walk, PhysicalType::kUInt64, on) ==
          WriteOneColumn(walk, PhysicalType::kUInt64, off));
    CHECK(WriteOneColumn(times, PhysicalType::kInt64, on) ==
          WriteOneColumn(times, PhysicalType::kInt64, off));
    CHECK(WriteOneColumn(normal, PhysicalType::kUInt32, on) ==
          WriteOneColumn(normal, PhysicalType::kUInt32, off));
  }
  SUBCASE("delta_orders_min_saving outside [0, 1) is refused") {
    for (const double bad : {-0.1, 1.0, std::nan("")}) {
      WriteOptions o;
      o.delta_orders_min_saving = bad;
      CHECK(Writer::CreateInMemory({{"v", PhysicalType::kUInt64, {}}}, o).status().code() ==
            StatusCode::kInvalidArgument);
    }
  }
}

TEST_CASE("DELTA orders: a candidate over its byte limit stops early, and its sample") {
  // 40 partitions of order 2 over a noisy curve: rounds of 8, 16, then 16.
  const uint32_t rows = 40 * 1024;
  const std::vector<uint32_t> v = CurvePieces<uint32_t>(rows, 5);
  const EncoderConfig config = ConfigOf(PhysicalType::kUInt32, 64);
  std::vector<PartitionChoice> choices(40, DeltaOfOrder(1024, 2));
  Result<EncodedChunk> full = EncodeChunkWithPartitions(v.data(), rows, config, choices);
  REQUIRE(full.ok());
  // PartitionCost of each partition, from its table: record, parameters,
  // payload words.
  std::vector<uint64_t> cost(40);
  uint64_t total = 0;
  for (uint32_t p = 0; p < 40; ++p) {
    const PartitionRecord a = LoadPartitionRecord(full->partition_table.data(), p);
    const PartitionRecord b = LoadPartitionRecord(full->partition_table.data(), p + 1);
    cost[p] = kPartitionRecordBytes + 8 * uint64_t{b.param_offset - a.param_offset} +
              8 * uint64_t{b.payload_offset - a.payload_offset};
    total += cost[p];
  }
  for (const int threads : {1, 2, 3}) {
    EncoderConfig c = config;
    c.num_threads = threads;
    // A limit the whole chunk meets: the same chunk.
    Result<std::optional<EncodedChunk>> within =
        EncodeChunkWithPartitionsWithin(v.data(), rows, c, choices, total);
    REQUIRE(within.ok());
    REQUIRE(within->has_value());
    CHECK((*within)->payload == full->payload);
    CHECK((*within)->partition_table == full->partition_table);
    CHECK((*within)->parameters == full->parameters);
    // One byte under: none, at the end. Under the first round's bytes: none.
    Result<std::optional<EncodedChunk>> over =
        EncodeChunkWithPartitionsWithin(v.data(), rows, c, choices, total - 1);
    REQUIRE(over.ok());
    CHECK(!over->has_value());
    uint64_t first_round = 0;
    for (uint32_t p = 0; p < 8; ++p) first_round += cost[p];
    Result<std::optional<EncodedChunk>> early =
        EncodeChunkWithPartitionsWithin(v.data(), rows, c, choices, first_round - 1);
    REQUIRE(early.ok());
    CHECK(!early->has_value());
    // The sample: partitions 0, 8, 16, 24, 32 (and 0, 3, ..., 39).
    for (const uint64_t stride : {8u, 3u, 1u}) {
      uint64_t expected = 0;
      for (uint32_t p = 0; p < 40; p += static_cast<uint32_t>(stride)) expected += cost[p];
      Result<uint64_t> sampled = SampledPartitionCost(v.data(), rows, c, choices, stride);
      REQUIRE(sampled.ok());
      CHECK(*sampled == expected);
    }
  }
  CHECK(SampledPartitionCost(v.data(), rows, config, choices, 0).status().code() ==
        StatusCode::kInvalidArgument);
}
