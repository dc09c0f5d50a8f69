// Signed_Highs (spec §8.9, §8.12): exception high parts stored in the
// zigzag code of a signed number. The writer's closed-form width choice
// (ExceptionHighWidth) against a brute-force search that zigzags every
// exception; the payload through the decoder (whole, ranges, single rows,
// deep validation); the writer's profile defaults; and a flipped flag
// caught by deep validation.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "chunk_test_util.hpp"
#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/delta/delta_encode.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "container_test_util.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;
using l3::internal::testing::CheckRandomSlices;

namespace {

// A walk of small steps with far jumps either way (up to `jump_bits` bits),
// as the node references of OpenStreetMap ways: n values of T.
template <typename T>
std::vector<T> JumpyWalk(uint32_t n, uint32_t jump_bits, uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  U cur = static_cast<U>(rng());
  for (T& x : v) {
    x = static_cast<T>(cur);
    const uint64_t step = rng() % 6 == 0 ? (rng() & LowMask(jump_bits)) : rng() % 5;
    cur = static_cast<U>(rng() % 2 == 0 ? cur + step : cur - step);
  }
  return v;
}

// The fewest payload words over the Base candidates of spec §14 (the
// smallest key and the keys of ranks m/64, m/16, m/8, m/4), every Bit_Width and
// both high-part codes, each exception's stored high part computed one by
// one (spec §8.9). keys[x] are the N-bit offsets' sources: deltas for DELTA,
// values for PATCHED_FOR (read as N-bit two's complement numbers); signed
// high parts are tried only where no offset wraps as a signed number (all
// keys within 2^(N-1) of each other), as the reference writer does.
uint64_t BruteForceWords(const std::vector<int64_t>& keys, uint64_t n, uint32_t bits,
                         uint64_t seed_words) {
  const uint64_t m = keys.size();
  std::vector<int64_t> sorted(keys);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> bases = {sorted[0]};
  for (uint64_t divisor : {64, 16, 8, 4}) {
    if (m / divisor != 0) bases.push_back(sorted[m / divisor]);
  }
  const bool signed_usable = static_cast<uint64_t>(sorted.back()) -
                                 static_cast<uint64_t>(sorted.front()) <
                             (uint64_t{1} << (bits - 1));
  const uint32_t pb = RunStartBits(n);
  uint64_t best = ~uint64_t{0};
  for (const int64_t base : bases) {
    for (uint32_t w = 0; w <= bits; ++w) {
      for (const bool signed_highs : {false, true}) {
        if (signed_highs && !signed_usable) continue;
        uint64_t exceptions = 0, widest = 0;
        for (const int64_t key : keys) {
          const uint64_t u =
              (static_cast<uint64_t>(key) - static_cast<uint64_t>(base)) & LowMask(bits);
          if (w >= 64 || (u >> w) == 0) continue;
          ++exceptions;
          widest = std::max(widest, StoredExceptionHigh(u, w, bits, signed_highs));
        }
        const uint64_t stream_bits = n * w + exceptions * (pb + BitLength(widest));
        best = std::min(best, seed_words + (stream_bits + 63) / 64);
      }
    }
  }
  return best;
}

template <typename T>
void CheckRoundTrip(const std::vector<T>& v, Model model, uint32_t values_per_lane) {
  const uint32_t n = static_cast<uint32_t>(v.size());
  EncoderConfig config;
  config.type = PhysicalTypeOf<T>();
  config.values_per_lane = values_per_lane;
  Result<EncodedChunk> chunk =
      EncodeChunkWithPartitions(v.data(), n, config, {PartitionChoice{n, model, std::nullopt}});
  REQUIRE(chunk.ok());
  const ChunkView view = ChunkViewOf(*chunk, config.type);
  REQUIRE(ValidateChunkMetadata(view).ok());
  REQUIRE(DeepValidateChunk(view).ok());
  std::vector<T> out(n);
  REQUIRE(DecodeChunkRows(view, 0, n, out.data()).ok());
  CHECK(out == v);
  std::mt19937_64 rng(n);
  CheckRandomSlices(view, v, rng, 20);
}

template <typename T>
void CheckType(uint64_t seed) {
  const uint32_t bits = 8 * sizeof(T);
  uint32_t signed_fits = 0;
  for (const uint32_t n : {2u, 33u, 300u, 2048u, 5000u}) {
    CAPTURE(n);
    // Jumps of up to 2^(N-3): no delta wraps as a signed number.
    const std::vector<T> v = JumpyWalk<T>(n, bits - 3, seed + n);
    std::vector<int64_t> deltas;
    for (uint32_t x = 1; x < n; ++x) deltas.push_back(SignedDelta(v[x], v[x - 1]));
    const PartitionFit delta = DeltaFit(v.data(), n, 64);
    CHECK(delta.payload_words == BruteForceWords(deltas, n, bits, DeltaSeedWords(n, 64, 1)));
    CHECK(DeltaExceptionsValid(delta.exceptions, n, delta.bit_width, bits));
    signed_fits += UnpackDeltaExceptions(delta.exceptions).signed_highs;
    // Without Signed_Highs the fit is never smaller.
    CHECK(DeltaFit(v.data(), n, 64, kNoDeltaCostLimit, false).payload_words >=
          delta.payload_words);

    std::vector<int64_t> keys;
    for (const T x : v) keys.push_back(PatchedForKey(x));
    // Fixed-width exception rows, as BruteForceWords counts them.
    const T lo = *std::min_element(v.begin(), v.end());
    const T hi = *std::max_element(v.begin(), v.end());
    const PartitionFit patched =
        PatchedForFit<T>(v.data(), n, lo, hi, kNoDeltaCostLimit, nullptr, true, false);
    CHECK(patched.payload_words == BruteForceWords(keys, n, bits, 0));

    for (const uint32_t values_per_lane : {1u, 8u, 64u}) {
      CheckRoundTrip(v, Model::kDelta, values_per_lane);
      CheckRoundTrip(v, Model::kPatchedFor, values_per_lane);
    }
  }
  CHECK(signed_fits > 0);  // the walks' jumps back make signed high parts pay
}

std::vector<uint8_t> WriteU64(const std::vector<uint64_t>& v, const WriteOptions& options) {
  return l3::testing::WriteOneColumn(v, PhysicalType::kUInt64, options);
}

// The partitions of a file's one chunk whose Exceptions word sets
// Signed_Highs, after reading every value back under deep validation.
uint64_t SignedPartitions(const std::vector<uint8_t>& file, const std::vector<uint64_t>& v) {
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  REQUIRE(reader->Validate(ValidationLevel::kDeep).ok());
  std::vector<uint64_t> out(v.size());
  REQUIRE(reader->ReadRows(0, 0, v.size(), out.data(), out.size() * sizeof(uint64_t)).ok());
  CHECK(out == v);
  Result<std::vector<PartitionInfo>> parts = reader->Partitions(0, 0);
  REQUIRE(parts.ok());
  uint64_t count = 0;
  for (const PartitionInfo& p : *parts) {
    const bool has_exceptions =
        p.model == ModelType::kDelta || p.model == ModelType::kPatchedFor;
    if (has_exceptions && p.num_params > 1) count += (p.params[1] >> 40) & 1;
  }
  return count;
}

}  // namespace

TEST_CASE("Signed_Highs: the fit is the brute-force cheapest, and every row decodes") {
  CheckType<int8_t>(11);
  CheckType<int16_t>(12);
  CheckType<int32_t>(13);
  CheckType<int64_t>(14);
  CheckType<uint8_t>(15);
  CheckType<uint16_t>(16);
  CheckType<uint32_t>(17);
  CheckType<uint64_t>(18);
}

TEST_CASE("Signed_Highs: the hot profile uses them where smaller, the archive profile not") {
  std::vector<uint64_t> v;
  for (uint64_t x : JumpyWalk<uint64_t>(200000, 34, 5)) v.push_back(x & LowMask(40));
  WriteOptions hot;
  const std::vector<uint8_t> with = WriteU64(v, hot);
  CHECK(SignedPartitions(with, v) > 0);
  WriteOptions unsigned_only;
  unsigned_only.partitioner.signed_exception_highs = false;
  const std::vector<uint8_t> without = WriteU64(v, unsigned_only);
  CHECK(SignedPartitions(without, v) == 0);
  CHECK(with.size() < without.size());
  WriteOptions archive;
  archive.profile = Profile::kArchive;
  CHECK(SignedPartitions(WriteU64(v, archive), v) == 0);
}

TEST_CASE("Signed_Highs: a flipped flag decodes other values and fails deep validation") {
  // Steps of 1 with one jump back by 400 at row 100: Delta_Base 1, Bit_Width
  // 0 and one exception, whose high part -400 is stored as 799.
  std::vector<uint32_t> v(200);
  for (uint32_t x = 0; x < 200; ++x) v[x] = x < 100 ? 1000 + x : 600 + x;
  EncoderConfig config;
  config.type = PhysicalType::kUInt32;
  config.values_per_lane = 1;
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      v.data(), 200, config, {PartitionChoice{200, Model::kDelta, std::nullopt}});
  REQUIRE(chunk.ok());
  CHECK(LoadLE64(chunk->parameters.data()) == 1);  // Delta_Base
  const uint64_t word = LoadLE64(chunk->parameters.data() + 8);
  const DeltaExceptions e = UnpackDeltaExceptions(word);
  CHECK(e.signed_highs);
  CHECK(e.count == 1);
  CHECK(e.width == 10);  // bitlen(799), against 32 unsigned
  REQUIRE(DeepValidateChunk(ChunkViewOf(*chunk, config.type)).ok());
  StoreLE64(chunk->parameters.data() + 8, word & ~(uint64_t{1} << 40));
  const ChunkView flipped = ChunkViewOf(*chunk, config.type);
  REQUIRE(ValidateChunkMetadata(flipped).ok());  // a valid word, other values
  std::vector<uint32_t> out(200);
  REQUIRE(DecodeChunkRows(flipped, 0, 200, out.data()).ok());
  CHECK(out != v);
  CHECK(!DeepValidateChunk(flipped).ok());
}
