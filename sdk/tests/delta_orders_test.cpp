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

TEST_CASE("DELTA orders: the archive profile picks them for smooth curves") {
  // Six exponential curves of 10000 rows each (the exp generator): third
  // differences are small where polynomials over the row index need short
  // partitions.
  const std::vector<uint64_t> v = l3::datagen::GenerateExp(60000, 9);
  const auto write = [&](Profile profile, bool orders) {
    WriteOptions o;
    o.profile = profile;
    o.archive_delta_orders = orders;
    Result<Writer> writer = Writer::CreateInMemory({{"v", PhysicalType::kUInt64, {}}}, o);
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped(0, v.data(), v.size()).ok());
    REQUIRE(writer->Close().ok());
    return writer->TakeBuffer();
  };
  const std::vector<uint8_t> with = write(Profile::kArchive, true);
  const std::vector<uint8_t> without = write(Profile::kArchive, false);
  const std::vector<uint8_t> hot = write(Profile::kHot, true);
  l3::testing::KeepTestFile("delta_orders_exp_archive", with);
  CHECK(with.size() * 2 < without.size());
  for (const auto* file : {&with, &without, &hot}) {
    Result<Reader> reader = Reader::OpenBuffer(file->data(), file->size());
    REQUIRE(reader.ok());
    CHECK(((reader->info().required_features & kRequiredDeltaOrders) != 0) == (file == &with));
    REQUIRE(reader->Validate(ValidationLevel::kDeep).ok());
    std::vector<uint64_t> out(v.size());
    REQUIRE(reader->ReadRows(0, 0, v.size(), out.data(), out.size() * 8).ok());
    CHECK(out == v);
  }
}
