// PATCHED_FOR (spec §8.12): the fit against a brute-force search of its
// candidates, the payload through the decoder (full, ranges, single rows),
// the writer's choice on real-shaped data, the feature bit, and corrupt
// exception lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "chunk_test_util.hpp"
#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "container_test_util.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;
using l3::internal::testing::CheckRandomSlices;

namespace {

// n values in [low, low + 2^w) with `outliers` rows of up to `wide` bits
// above low, as T (wrapping modulo 2^N).
template <typename T>
std::vector<T> WithOutliers(uint32_t n, T low, uint32_t w, uint32_t outliers, uint32_t wide,
                            uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(static_cast<U>(low) + (rng() & LowMask(w)));
  for (uint32_t i = 0; i < outliers && n > 0; ++i) {
    const uint64_t offset = (rng() & LowMask(wide)) | (uint64_t{1} << (wide - 1));
    v[rng() % n] = static_cast<T>(static_cast<U>(low) + static_cast<U>(offset));
  }
  return v;
}

// spec §8.12: the bits of E exception rows among n rows, the smaller of
// fixed-width rows (E bitlen(n - 1)) and, for 1 <= E and n <= 65536,
// Rows_EF (E l + H_n with l = bitlen(floor(n / E)) - 1 and H_n = E +
// floor((n - 1) / 2^l)).
uint64_t LeastRowListBits(uint64_t n, uint64_t exceptions) {
  const uint64_t fixed = exceptions * RunStartBits(n);
  if (exceptions == 0 || n > 65536) return fixed;
  uint32_t l = 0;
  while ((uint64_t{2} << l) <= n / exceptions) ++l;
  return std::min(fixed, exceptions * l + exceptions + ((n - 1) >> l));
}

// The payload words of every (Base candidate, Bit_Width) pair, the least
// (spec §8.12: n w + RB + E hw, RB the rows' bits in the cheaper coding),
// searched by brute force over the candidates of spec §14: the minimum and
// the values of ranks n/64, n/16, n/8, n/4 in the type's order.
template <typename T>
uint64_t BruteForceBits(const std::vector<T>& v) {
  using U = std::make_unsigned_t<T>;
  const uint64_t n = v.size();
  std::vector<T> sorted(v);
  std::sort(sorted.begin(), sorted.end());
  std::vector<T> bases = {sorted[0]};
  for (uint64_t divisor : {64, 16, 8, 4}) {
    if (n / divisor != 0) bases.push_back(sorted[n / divisor]);
  }
  uint64_t best = ~uint64_t{0};
  for (const T base : bases) {
    for (uint32_t w = 0; w <= 8 * sizeof(T); ++w) {
      uint64_t exceptions = 0, widest = 0;
      for (const T x : v) {
        const uint64_t u = static_cast<U>(static_cast<U>(x) - static_cast<U>(base));
        const uint64_t high = w >= 64 ? 0 : u >> w;
        exceptions += high != 0;
        widest = std::max(widest, high);
      }
      const uint64_t bits =
          n * w + LeastRowListBits(n, exceptions) + exceptions * BitLength(widest);
      best = std::min(best, (bits + 63) / 64);
    }
  }
  return best;
}

template <typename T>
void CheckFitAndDecode(uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  const T low = static_cast<T>(static_cast<U>(-37));
  for (const uint32_t n : {1u, 2u, 31u, 64u, 100u, 777u, 2048u, 5000u}) {
    const uint32_t bits = 8 * sizeof(T);
    const std::vector<T> v = WithOutliers<T>(n, low, bits > 8 ? 6 : 4, 1 + n / 50, bits, seed + n);
    CAPTURE(n);
    const PartitionFit fit = PatchedForFit(v.data(), n);
    CHECK(fit.model_type == static_cast<uint8_t>(Model::kPatchedFor));
    CHECK(fit.payload_words == BruteForceBits(v));
    const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
    CHECK(PatchedForExceptionsValid(fit.exceptions, n, fit.bit_width, bits));
    CHECK(fit.payload_words == PatchedForPayloadWords(n, fit.bit_width, e));

    // The payload, decoded whole, in ranges and row by row.
    for (const uint32_t values_per_lane : {1u, 8u, 64u}) {
      EncoderConfig config;
      config.type = PhysicalTypeOf<T>();
      config.values_per_lane = values_per_lane;
      Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
          v.data(), n, config, {PartitionChoice{n, Model::kPatchedFor, std::nullopt}});
      REQUIRE(chunk.ok());
      CHECK(chunk->uses_patched_for);
      const ChunkView view = ChunkViewOf(*chunk, config.type);
      REQUIRE(ValidateChunkMetadata(view).ok());
      REQUIRE(ValidateRunStarts(view).ok());
      REQUIRE(DeepValidateChunk(view).ok());
      std::vector<T> out(n);
      REQUIRE(DecodeChunkRows(view, 0, n, out.data()).ok());
      CHECK(out == v);
      std::mt19937_64 rng(seed);
      CheckRandomSlices(view, v, rng, 20);
    }
  }
}

// Writes `v` as one u32 column with `options`, reads it back (every value
// compared, deep validation) and returns the file's Required_Features and
// the rows of its PATCHED_FOR partitions.
struct Written {
  uint64_t required_features = 0;
  uint64_t patched_rows = 0;
};

Written WriteAndRead(const std::vector<uint32_t>& v, const WriteOptions& options) {
  Written w;
  const std::vector<uint8_t> file = l3::testing::WriteOneColumn(v, PhysicalType::kUInt32, options);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  REQUIRE(reader->Validate(ValidationLevel::kDeep).ok());
  std::vector<uint32_t> out(v.size());
  REQUIRE(reader->ReadRows(0, 0, v.size(), out.data(), out.size() * sizeof(uint32_t)).ok());
  CHECK(out == v);
  Result<std::vector<PartitionInfo>> parts = reader->Partitions(0, 0);
  REQUIRE(parts.ok());
  for (const PartitionInfo& p : *parts) {
    if (p.model == ModelType::kPatchedFor) w.patched_rows += p.num_rows;
  }
  w.required_features = reader->info().required_features;
  return w;
}

}  // namespace

TEST_CASE("PATCHED_FOR: the fit is the cheapest candidate, and every row decodes") {
  CheckFitAndDecode<int8_t>(1);
  CheckFitAndDecode<int16_t>(2);
  CheckFitAndDecode<int32_t>(3);
  CheckFitAndDecode<int64_t>(4);
  CheckFitAndDecode<uint8_t>(5);
  CheckFitAndDecode<uint16_t>(6);
  CheckFitAndDecode<uint32_t>(7);
  CheckFitAndDecode<uint64_t>(8);
}

TEST_CASE("PATCHED_FOR: the writer takes it for outliers, and only when enabled") {
  // Ages: 6-bit offsets with about 1% outliers (the adult census shape).
  const std::vector<uint32_t> v = WithOutliers<uint32_t>(40000, 17, 6, 400, 7, 11);
  for (const bool enabled : {true, false}) {
    CAPTURE(enabled);
    WriteOptions options;
    options.partitioner.enable_patched_for = enabled;
    const Written w = WriteAndRead(v, options);
    CHECK(((w.required_features & kRequiredPatchedForModel) != 0) == enabled);
    if (enabled) {
      CHECK(w.patched_rows > v.size() / 2);
    } else {
      CHECK(w.patched_rows == 0);
    }
  }
}

TEST_CASE("PATCHED_FOR: corrupt exception lists are reported, not decoded") {
  std::vector<uint16_t> v(300);
  for (uint32_t x = 0; x < 300; ++x) v[x] = static_cast<uint16_t>(7 + x % 16);
  v[40] = 4007;
  v[260] = 307;
  EncoderConfig config;
  config.type = PhysicalType::kUInt16;
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      v.data(), v.size(), config, {PartitionChoice{300, Model::kPatchedFor, std::nullopt}});
  REQUIRE(chunk.ok());
  REQUIRE(chunk->partition_table[13] == 4);  // Bit_Width
  const uint64_t rows_bit = 300 * 4;         // two rows of bitlen(299) = 9 bits
  const auto set_row = [&](EncodedChunk& c, uint64_t i, uint64_t row) {
    for (uint64_t j = 0; j < 9; ++j) {
      const uint64_t bit = rows_bit + 9 * i + j;
      c.payload[bit / 8] = static_cast<uint8_t>((c.payload[bit / 8] & ~(1u << (bit % 8))) |
                                                (((row >> j) & 1u) << (bit % 8)));
    }
  };
  SUBCASE("rows out of order") {
    EncodedChunk bad = *chunk;
    set_row(bad, 0, 260);
    set_row(bad, 1, 40);
    CHECK(ValidateRunStarts(ChunkViewOf(bad, config.type)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a row past the partition") {
    EncodedChunk bad = *chunk;
    set_row(bad, 1, 300);
    CHECK(ValidateRunStarts(ChunkViewOf(bad, config.type)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("the feature bit missing") {
    ChunkView view = ChunkViewOf(*chunk, config.type);
    view.required_features &= ~kRequiredPatchedForModel;
    CHECK(ValidateChunkMetadata(view).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("Exception_Width past N") {
    EncodedChunk bad = *chunk;
    const uint64_t word = LoadLE64(bad.parameters.data() + 8);
    StoreLE64(bad.parameters.data() + 8, (word & 0xFFFFFFFFull) | (uint64_t{13} << 32));
    CHECK(ValidateChunkMetadata(ChunkViewOf(bad, config.type)).code() ==
          StatusCode::kCorruptMetadata);
  }
}

TEST_CASE("PATCHED_FOR: the hot profile keeps it only for a real saving") {
  // 100000 six-bit values and one seven-bit outlier: PATCHED_FOR saves one
  // bit a row in the outlier's partition only, about 1% of the chunk.
  const std::vector<uint32_t> v = WithOutliers<uint32_t>(100000, 0, 6, 1, 7, 21);
  CHECK(WriteAndRead(v, WriteOptions{}).patched_rows == 0);
  WriteOptions any_saving;
  any_saving.partitioner.patched_for_min_gain = 0.0;
  CHECK(WriteAndRead(v, any_saving).patched_rows > 0);
  // A gain outside [0, 1) is refused when the chunk is encoded.
  WriteOptions wrong;
  wrong.partitioner.patched_for_min_gain = 1.0;
  Result<Writer> writer = Writer::CreateInMemory({{"v", PhysicalType::kUInt32, {}}}, wrong);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, v.data(), v.size()).ok());
  CHECK(writer->Close().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("PATCHED_FOR: the hot profile's rule holds in dictionary chunks too") {
  // 65 distinct values spread over 32 bits, so the chunk is a dictionary
  // chunk of 6-bit codes; the largest value, code 64, appears once: in its
  // partition PATCHED_FOR saves one bit a row, about 1% of the chunk.
  std::mt19937_64 rng(22);
  std::vector<uint32_t> entries(65);
  for (uint32_t k = 0; k < 65; ++k) entries[k] = 1000 + k * 50000017u;
  std::vector<uint32_t> v(100000);
  for (uint32_t& x : v) x = entries[rng() % 64];
  v[54321] = entries[64];
  const Written plain_rule = WriteAndRead(v, WriteOptions{});
  CHECK((plain_rule.required_features & kRequiredDictionaryBit) != 0);
  CHECK(plain_rule.patched_rows == 0);
  WriteOptions any_saving;
  any_saving.partitioner.patched_for_min_gain = 0.0;
  CHECK(WriteAndRead(v, any_saving).patched_rows > 0);
}

TEST_CASE("PATCHED_FOR Rows_EF: the worked example of spec §8.12, byte for byte") {
  std::vector<uint16_t> v(16, 7);
  v[1] = 8;
  v[4] = 10;
  v[5] = 9;
  v[13] = 14;
  EncoderConfig config;
  config.type = PhysicalType::kUInt16;
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      v.data(), v.size(), config, {PartitionChoice{16, Model::kPatchedFor, std::nullopt}});
  REQUIRE(chunk.ok());
  // The writer's own choice is Bit_Width 3 without exceptions (one payload
  // word as well, the widest of the cheapest); the example's parameters and
  // word replace it. Bit_Width 0 with Rows_EF: l = 2, H_n = 7, RB = 15.
  REQUIRE(LoadLE64(chunk->parameters.data()) == 7);  // Base
  REQUIRE(chunk->payload.size() == 8 + kPayloadPaddingBytes);
  chunk->partition_table[13] = 0;  // Bit_Width
  StoreLE64(chunk->parameters.data() + 8, 0x0000020300000004ull);
  StoreLE64(chunk->payload.data(), 0x00000000074CCD51ull);
  const ChunkView view = ChunkViewOf(*chunk, config.type);
  REQUIRE(ValidateChunkMetadata(view).ok());
  REQUIRE(ValidateRunStarts(view).ok());
  REQUIRE(DeepValidateChunk(view).ok());
  for (uint64_t x = 0; x < v.size(); ++x) {
    uint64_t value = 0;
    REQUIRE(DecodeChunkValue(view, x, &value).ok());
    CHECK(value == v[x]);
  }
}

TEST_CASE("PATCHED_FOR Rows_EF: taken where it is smaller, and only when enabled") {
  // Hours per week: 53% of the rows hold one value, the rest spread over 7
  // bits (a Bit_Width of 0 with Rows_EF, l = 1); denser, 40% one value (l =
  // 0); with fields, 60% of the rows 40 or 41 (Bit_Width 1, l = 1); and
  // sparse: 5% non-zero rows. Whole, single rows and ranges that start and
  // end inside partitions.
  std::mt19937_64 rng(5);
  std::vector<uint32_t> dense(20000), denser(20000), fields(20000), sparse(20000);
  for (uint32_t& x : dense) x = rng() % 100 < 53 ? 40 : 1 + static_cast<uint32_t>(rng() % 99);
  for (uint32_t& x : denser) x = rng() % 100 < 40 ? 40 : 1 + static_cast<uint32_t>(rng() % 99);
  for (uint32_t& x : fields) {
    x = rng() % 100 < 60 ? 40 + static_cast<uint32_t>(rng() % 2)
                         : 1 + static_cast<uint32_t>(rng() % 99);
  }
  for (uint32_t& x : sparse) x = rng() % 100 < 5 ? 1 + static_cast<uint32_t>(rng() % 4000) : 0;
  for (const std::vector<uint32_t>* v : {&dense, &denser, &fields, &sparse}) {
    CAPTURE(v - &dense);
    uint64_t bytes[2] = {};
    for (const bool enabled : {true, false}) {
      CAPTURE(enabled);
      WriteOptions options;
      options.partitioner.patched_rows_ef = enabled;
      Result<Writer> writer = Writer::CreateInMemory({{"v", PhysicalType::kUInt32, {}}}, options);
      REQUIRE(writer.ok());
      REQUIRE(writer->AppendTyped(0, v->data(), v->size()).ok());
      REQUIRE(writer->Close().ok());
      const std::vector<uint8_t> file = writer->TakeBuffer();
      bytes[enabled ? 0 : 1] = file.size();
      Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(reader.ok());
      REQUIRE(reader->Validate(ValidationLevel::kDeep).ok());
      CHECK(((reader->info().required_features & kRequiredPatchedRowsEf) != 0) == enabled);
      std::vector<uint32_t> out(v->size());
      REQUIRE(reader->ReadRows(0, 0, v->size(), out.data(), out.size() * 4).ok());
      CHECK(out == *v);
      for (int k = 0; k < 200; ++k) {
        const uint64_t row = rng() % v->size();
        uint32_t one = 0;
        REQUIRE(reader->ReadRows(0, row, row + 1, &one, sizeof one).ok());
        CHECK(one == (*v)[row]);
      }
      for (int k = 0; k < 100; ++k) {
        const uint64_t first = rng() % v->size();
        const uint64_t last = first + 1 + rng() % std::min<uint64_t>(v->size() - first, 5000);
        std::vector<uint32_t> part(last - first);
        REQUIRE(reader->ReadRows(0, first, last, part.data(), part.size() * 4).ok());
        CHECK(std::equal(part.begin(), part.end(), v->begin() + first));
      }
    }
    // Fixed-width rows cost bitlen(n_p - 1) bits each; Elias-Fano rows about
    // 2 + log2(rows per exception).
    CHECK(bytes[0] * 10 < bytes[1] * 9);
  }
}

namespace {

/// Bit `bit` of a chunk's payload (LSB-first, spec §8.5).
uint32_t PayloadBit(const EncodedChunk& c, uint64_t bit) {
  return (c.payload[bit / 8] >> (bit % 8)) & 1u;
}

void FlipPayloadBit(EncodedChunk& c, uint64_t bit) {
  c.payload[bit / 8] = static_cast<uint8_t>(c.payload[bit / 8] ^ (1u << (bit % 8)));
}

/// `v` as one PATCHED_FOR partition of u16 values, which must take Rows_EF
/// exception rows with Bit_Width 0.
EncodedChunk EncodeRowsEfPartition(const std::vector<uint16_t>& v, const EncoderConfig& config) {
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      v.data(), v.size(), config,
      {PartitionChoice{static_cast<uint32_t>(v.size()), Model::kPatchedFor, std::nullopt}});
  REQUIRE(chunk.ok());
  REQUIRE(chunk->uses_patched_rows_ef);
  REQUIRE(chunk->partition_table[13] == 0);  // Bit_Width 0
  return *chunk;
}

}  // namespace

TEST_CASE("PATCHED_FOR Rows_EF: corrupt high parts H are reported, not decoded") {
  // 600 u16 rows of 7, every fifth row 9 (120 exceptions, Bit_Width 0):
  // l = bitlen(5) - 1 = 2, H_n = 120 + 599 / 4 = 269, low parts from bit 0,
  // H from bit 240.
  std::vector<uint16_t> v(600, 7);
  for (size_t x = 0; x < v.size(); x += 5) v[x] = 9;
  EncoderConfig config;
  config.type = PhysicalType::kUInt16;
  const EncodedChunk chunk = EncodeRowsEfPartition(v, config);
  REQUIRE(ValidateRunStarts(ChunkViewOf(chunk, config.type)).ok());
  const uint64_t h0 = 120 * 2;
  SUBCASE("a 1 bit too many") {
    EncodedChunk bad = chunk;
    uint64_t q = 0;
    while (PayloadBit(bad, h0 + q) != 0) ++q;  // the first 0 bit of H
    FlipPayloadBit(bad, h0 + q);
    CHECK(ValidateRunStarts(ChunkViewOf(bad, config.type)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a 1 bit too few") {
    EncodedChunk bad = chunk;
    uint64_t q = 268;
    while (PayloadBit(bad, h0 + q) == 0) --q;  // the last 1 bit of H
    FlipPayloadBit(bad, h0 + q);
    CHECK(ValidateRunStarts(ChunkViewOf(bad, config.type)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("two equal rows") {
    // Rows 0 and 5: low parts 0 and 1, 1 bits at 0 and 2. Low part 1 := 0
    // and the 1 bit moved to 1 make both row 0.
    EncodedChunk bad = chunk;
    REQUIRE(PayloadBit(bad, h0 + 0) == 1);
    REQUIRE(PayloadBit(bad, h0 + 1) == 0);
    REQUIRE(PayloadBit(bad, h0 + 2) == 1);
    FlipPayloadBit(bad, 2);
    FlipPayloadBit(bad, h0 + 1);
    FlipPayloadBit(bad, h0 + 2);
    CHECK(ValidateRunStarts(ChunkViewOf(bad, config.type)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("the feature bit missing") {
    ChunkView view = ChunkViewOf(chunk, config.type);
    view.required_features &= ~kRequiredPatchedRowsEf;
    CHECK(ValidateChunkMetadata(view).code() == StatusCode::kCorruptMetadata);
  }
}

TEST_CASE("PATCHED_FOR Rows_EF with l = 0: neighbouring 1 bits in H are equal rows") {
  // 200 u16 rows, two in three of them exceptions (E > n / 2: l = 0, so H
  // starts at bit 0 and row i is q_i - i). The check of first use then asks
  // for E ones in H, no two of them neighbours, within a 64-bit word and
  // across words.
  std::vector<uint16_t> v(200);
  for (size_t x = 0; x < v.size(); ++x) {
    v[x] = x % 3 == 0 ? 7 : static_cast<uint16_t>(1000 + 200 * (x % 5));
  }
  EncoderConfig config;
  config.type = PhysicalType::kUInt16;
  const EncodedChunk chunk = EncodeRowsEfPartition(v, config);
  const DeltaExceptions e = UnpackDeltaExceptions(LoadLE64(chunk.parameters.data() + 8));
  REQUIRE(2 * e.count > v.size());  // l = 0
  REQUIRE(ValidateRunStarts(ChunkViewOf(chunk, config.type)).ok());
  const uint64_t h_bits = e.count + v.size() - 1;
  // Moves the 1 bit of a "1 0 1" at q + 2 to q + 1: the same count of ones,
  // two of them neighbours.
  const auto make_neighbours = [&](bool across_words) {
    for (uint64_t q = 0; q + 2 < h_bits; ++q) {
      if (across_words && q % 64 != 63) continue;
      if (PayloadBit(chunk, q) == 1 && PayloadBit(chunk, q + 1) == 0 &&
          PayloadBit(chunk, q + 2) == 1) {
        EncodedChunk bad = chunk;
        FlipPayloadBit(bad, q + 1);
        FlipPayloadBit(bad, q + 2);
        return std::optional<EncodedChunk>(bad);
      }
    }
    return std::optional<EncodedChunk>();
  };
  for (const bool across_words : {false, true}) {
    CAPTURE(across_words);
    const std::optional<EncodedChunk> bad = make_neighbours(across_words);
    REQUIRE(bad.has_value());
    CHECK(ValidateRunStarts(ChunkViewOf(*bad, config.type)).code() ==
          StatusCode::kCorruptPayload);
  }
}

namespace {

// The Rows_EF flavours a partition's patch walks: Signed_Highs or not, and
// l = 0 or l > 0 (PatchedForExceptionReader::AddEfHighs is compiled for
// each), bit 2 * signed + (l > 0).
using RowsEfFlavours = uint32_t;

// `v` as one PATCHED_FOR partition with Rows_EF (rows_ef) or fixed-width
// rows, checked against `v` whole, in random ranges and row by row. Adds
// the Rows_EF flavour to *seen.
template <typename T>
void CheckRowsEfAgainstFixed(const std::vector<T>& v, std::mt19937_64& rng,
                             RowsEfFlavours* seen) {
  const uint64_t n = v.size();
  for (const bool rows_ef : {true, false}) {
    CAPTURE(rows_ef);
    EncoderConfig config;
    config.type = PhysicalTypeOf<T>();
    config.values_per_lane = rng() % 2 == 0 ? 64 : 8;
    config.partitioner.patched_rows_ef = rows_ef;
    Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
        v.data(), n, config,
        {PartitionChoice{static_cast<uint32_t>(n), Model::kPatchedFor, std::nullopt}});
    REQUIRE(chunk.ok());
    REQUIRE(chunk->uses_patched_rows_ef == rows_ef);
    const ChunkView view = ChunkViewOf(*chunk, config.type);
    REQUIRE(ValidateChunkMetadata(view).ok());
    REQUIRE(ValidateRunStarts(view).ok());
    if (rows_ef) {
      const DeltaExceptions e = UnpackDeltaExceptions(LoadLE64(chunk->parameters.data() + 8));
      *seen |= 1u << (2 * e.signed_highs + (BitLength(n / e.count) > 1));
    }
    std::vector<T> out(n);
    REQUIRE(DecodeChunkRows(view, 0, n, out.data()).ok());
    CHECK(out == v);
    CheckRandomSlices(view, v, rng, 50, 700);
  }
}

// 6000 rows of T: mostly one value, or one of four, with exceptions dense
// (l = 0), sparse and full-width (for 64-bit types high parts wider than
// 57 bits), or a few units below and above the common value (Signed_Highs,
// sparse and dense).
template <typename T>
void CheckRowsEfShapes(uint64_t seed, RowsEfFlavours* seen) {
  using U = std::make_unsigned_t<T>;
  std::mt19937_64 rng(seed);
  const U common = static_cast<U>(100);
  for (int shape = 0; shape < 5; ++shape) {
    CAPTURE(shape);
    std::vector<T> v(6000);
    for (T& x : v) {
      const uint64_t r = rng() % 100;
      U u = common;
      switch (shape) {
        case 0: u = r < 40 ? common : static_cast<U>(common + 1 + rng() % 50); break;
        case 1: u = r < 3 ? static_cast<U>(rng()) : common; break;
        case 2: u = r < 90 ? common : static_cast<U>(common - 40 + rng() % 81); break;
        case 3:
          u = r < 45   ? common
              : r < 50 ? static_cast<U>(common - 1 - rng() % 40)
                       : static_cast<U>(common + 1 + rng() % 80);
          break;
        default: u = r < 80 ? static_cast<U>(common + rng() % 4) : static_cast<U>(rng()); break;
      }
      x = static_cast<T>(u);
    }
    CheckRowsEfAgainstFixed(v, rng, seen);
  }
}

}  // namespace

TEST_CASE("PATCHED_FOR Rows_EF: ranges and rows decode as with fixed-width rows") {
  // The same partitions with Rows_EF and with fixed-width exception rows,
  // decoded whole, in ranges that start and end anywhere, and row by row,
  // in every integer width: each must give the values written. Every
  // flavour of the Rows_EF patch is met.
  RowsEfFlavours seen = 0;
  CheckRowsEfShapes<uint8_t>(1, &seen);
  CheckRowsEfShapes<int16_t>(2, &seen);
  CheckRowsEfShapes<uint32_t>(3, &seen);
  CheckRowsEfShapes<int64_t>(4, &seen);
  CheckRowsEfShapes<uint64_t>(5, &seen);
  CHECK(seen == 0xF);
}
