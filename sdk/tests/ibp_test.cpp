// Float columns (spec §11.2): the order-preserving integer form, IBP chunks
// (masks, packed rows, the row index), round trips of the real float arrays
// and of special values in every float type, and the rules a reader enforces.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/ibp/float_order.hpp"
#include "codec/ibp/ibp_decode.hpp"
#include "codec/ibp/ibp_encode.hpp"
#include "codec/ibp/ibp_format.hpp"
#include "common/bits.hpp"
#include "common/crc32c.hpp"
#include "container_test_util.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"
#include "test_scale.hpp"

using namespace l3;
using namespace l3::internal;
using namespace l3::testing;

namespace {

std::vector<uint8_t> WriteFloat(const std::vector<uint8_t>& bytes, PhysicalType type,
                                uint32_t row_width, WriteOptions options,
                                const std::string& keep_as = "") {
  ColumnSpec spec{"x", type, {}, row_width};
  auto writer = Writer::CreateInMemory({spec}, options);
  REQUIRE_MESSAGE(writer.ok(), writer.status().ToString());
  const uint64_t values = bytes.size() / static_cast<uint64_t>(PhysicalTypeBytes(type));
  const Status append = writer->Append(0, bytes.data(), values);
  REQUIRE_MESSAGE(append.ok(), append.ToString());
  const Status st = writer->Close();
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  std::vector<uint8_t> file = writer->TakeBuffer();
  if (!keep_as.empty()) KeepTestFile("float_" + keep_as, file);
  return file;
}

// Reads the whole column back, a range, and rows in random order; every path
// must give the written bytes. Deep validation must pass.
void CheckRoundTrip(const std::vector<uint8_t>& file, const std::vector<uint8_t>& bytes,
                    uint64_t row_bytes) {
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
  const uint64_t rows = bytes.size() / row_bytes;
  REQUIRE(reader->column(0).num_rows == rows);
  std::vector<uint8_t> out(bytes.size() + 1, 0xEE);
  const Status full = reader->ReadRows(0, 0, rows, out.data(), out.size());
  REQUIRE_MESSAGE(full.ok(), full.ToString());
  CHECK(std::memcmp(out.data(), bytes.data(), bytes.size()) == 0);
  CHECK(out.back() == 0xEE);  // nothing written past the rows
  if (rows > 2) {
    const uint64_t a = rows / 3, b = rows - 1;
    std::vector<uint8_t> range((b - a) * row_bytes);
    REQUIRE(reader->ReadRows(0, a, b, range.data(), range.size()).ok());
    CHECK(std::memcmp(range.data(), bytes.data() + a * row_bytes, range.size()) == 0);
  }
  std::mt19937_64 rng(7);
  std::vector<uint64_t> ids(std::min<uint64_t>(rows * 2, 500));
  for (uint64_t& id : ids) id = rng() % rows;
  std::vector<uint8_t> taken(ids.size() * row_bytes);
  const Status take = reader->Take(0, ids.data(), ids.size(), taken.data(), taken.size());
  REQUIRE_MESSAGE(take.ok(), take.ToString());
  for (size_t i = 0; i < ids.size(); ++i) {
    REQUIRE(std::memcmp(taken.data() + i * row_bytes, bytes.data() + ids[i] * row_bytes,
                        row_bytes) == 0);
  }
  // Several threads cut the rows into slices (any row of a float chunk may
  // start one); the bytes must not change.
  ReadOptions threaded;
  threaded.num_threads = 4;
  auto parallel = Reader::OpenBuffer(file.data(), file.size(), threaded);
  REQUIRE(parallel.ok());
  std::vector<uint8_t> par(bytes.size() + 1, 0xEE);
  const Status par_full = parallel->ReadRows(0, 0, rows, par.data(), par.size());
  REQUIRE_MESSAGE(par_full.ok(), par_full.ToString());
  CHECK(std::memcmp(par.data(), bytes.data(), bytes.size()) == 0);
  CHECK(par.back() == 0xEE);
  if (rows > 2) {
    const uint64_t a = rows / 5 + 1, b = rows - 1;
    std::vector<uint8_t> range((b - a) * row_bytes);
    REQUIRE(parallel->ReadRows(0, a, b, range.data(), range.size()).ok());
    CHECK(std::memcmp(range.data(), bytes.data() + a * row_bytes, range.size()) == 0);
  }
  const Status deep = reader->Validate(ValidationLevel::kDeep);
  CHECK_MESSAGE(deep.ok(), deep.ToString());
}

template <typename U>
std::vector<uint8_t> AsBytes(const std::vector<U>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(U));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Values of every float class: zeros of both signs, subnormals, infinities,
// NaNs with payloads, ordinary values, as `bits`-bit patterns.
template <typename U>
std::vector<U> SpecialPatterns(int exponent_bits, size_t n, uint64_t seed) {
  constexpr int kBits = 8 * sizeof(U);
  const int mantissa_bits = kBits - 1 - exponent_bits;
  const U sign = static_cast<U>(U{1} << (kBits - 1));
  const U exp_all = static_cast<U>(((U{1} << exponent_bits) - 1) << mantissa_bits);
  std::vector<U> base = {0,
                         sign,                                          // -0
                         1,                                             // smallest subnormal
                         static_cast<U>(sign | 3),                      // negative subnormal
                         exp_all,                                       // +inf
                         static_cast<U>(sign | exp_all),                // -inf
                         static_cast<U>(exp_all | 1),                   // signalling NaN
                         static_cast<U>(exp_all | (U{1} << (mantissa_bits - 1)) | 5),  // payload
                         static_cast<U>(sign | exp_all | 0x2A)};        // negative NaN
  std::mt19937_64 rng(seed);
  std::vector<U> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back(i % 3 == 0 ? base[rng() % base.size()] : static_cast<U>(rng()));
  }
  return v;
}

}  // namespace

TEST_CASE("the integer form's map preserves order and every bit pattern (spec §11.2.2)") {
  // The spec's examples.
  CHECK(OrderedFromFloatBits<uint32_t>(0x3F800000u) == 0xBF800000u);
  CHECK(OrderedFromFloatBits<uint32_t>(0xBF800000u) == 0x407FFFFFu);
  CHECK(OrderedFromFloatBits<uint32_t>(0x00000000u) == 0x80000000u);
  CHECK(OrderedFromFloatBits<uint32_t>(0x80000000u) == 0x7FFFFFFFu);
  std::mt19937_64 rng(1);
  std::vector<float> floats = {-std::numeric_limits<float>::infinity(), -1e30f, -1.0f, -1e-40f,
                               -0.0f, 0.0f, 1e-40f, 1.0f, 3.5f, 1e30f,
                               std::numeric_limits<float>::infinity()};
  for (size_t i = 0; i + 1 < floats.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &floats[i], 4);
    std::memcpy(&b, &floats[i + 1], 4);
    CHECK(OrderedFromFloatBits(a) < OrderedFromFloatBits(b));
  }
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = rng();
    CHECK(FloatBitsFromOrdered(OrderedFromFloatBits(x)) == x);
    const uint32_t y = static_cast<uint32_t>(x);
    CHECK(FloatBitsFromOrdered(OrderedFromFloatBits(y)) == y);
    const uint16_t z = static_cast<uint16_t>(x);
    CHECK(FloatBitsFromOrdered(OrderedFromFloatBits(z)) == z);
  }
}

TEST_CASE("deposit and extract are inverse, and the MSB-first field reader matches bits") {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 20000; ++i) {
    uint64_t mask = rng();
    if (i % 4 == 0) mask = 0;
    if (i % 4 == 1) mask = ~uint64_t{0};
    if (i % 4 == 2) mask &= rng();  // sparse
    const uint64_t x = rng();
    // PDEP of PEXT keeps exactly the bits under `free`.
    const uint64_t free64 = ~mask;
    CHECK(DepositBits<uint64_t>(ExtractBits<uint64_t>(x, free64), free64) == (x & free64));
    // PEXT leaves no bits above the popcount of `free`.
    const int free_bits = __builtin_popcountll(free64);
    if (free_bits < 64) CHECK((ExtractBits<uint64_t>(x, free64) >> free_bits) == 0);
    const uint32_t free32 = static_cast<uint32_t>(free64);
    const uint32_t x32 = static_cast<uint32_t>(x);
    CHECK(DepositBits<uint32_t>(ExtractBits<uint32_t>(x32, free32), free32) == (x32 & free32));
  }
  // DepositBits against PDEP bit by bit: random masks, float-like masks
  // (a run or two of free bits per 32-bit half) and the extremes.
  auto pdep = [](uint64_t x, uint64_t free, int bits) {
    uint64_t out = 0;
    int next = 0;
    for (int t = 0; t < bits; ++t) {
      if ((free >> t) & 1) out |= ((x >> next++) & 1) << t;
    }
    return out;
  };
  for (int i = 0; i < 50000; ++i) {
    uint64_t free = rng();
    const int shape = i % 6;
    if (shape == 0) free = 0;
    if (shape == 1) free = ~uint64_t{0};
    if (shape == 2) free &= rng() & rng();
    if (shape >= 3) {  // each half: bit 31 or not, and one run of low or middle bits
      uint64_t f = 0;
      for (int half = 0; half < 2; ++half) {
        const uint32_t lo = static_cast<uint32_t>(rng() % 32), len = static_cast<uint32_t>(rng() % (33 - lo));
        uint32_t h = len == 32 ? 0xFFFFFFFFu : ((uint32_t{1} << len) - 1) << lo;
        if (shape == 4) h |= 0x80000000u;
        if (shape == 5) h |= static_cast<uint32_t>(rng()) & 0x00FF0000u;
        f |= uint64_t{h} << (32 * half);
      }
      free = f;
    }
    const uint64_t x = rng();
    CHECK(DepositBits<uint64_t>(x, free) == pdep(x, free, 64));
    CHECK(DepositBits<uint32_t>(static_cast<uint32_t>(x), static_cast<uint32_t>(free)) ==
          pdep(x & 0xFFFFFFFFu, free & 0xFFFFFFFFu, 32));
    // The GPU's planned deposit (ExpandBits) against the same reference.
    CHECK(ExpandBits<uint64_t>(x, MakeExpandPlan<uint64_t>(free)) == pdep(x, free, 64));
    CHECK(ExpandBits<uint32_t>(static_cast<uint32_t>(x),
                               MakeExpandPlan<uint32_t>(static_cast<uint32_t>(free))) ==
          pdep(x & 0xFFFFFFFFu, free & 0xFFFFFFFFu, 32));
  }
  // MsbField against a bit-by-bit reading of a two-word stream.
  for (int i = 0; i < 20000; ++i) {
    const uint32_t hi = static_cast<uint32_t>(rng()), lo = static_cast<uint32_t>(rng());
    const uint32_t off = static_cast<uint32_t>(rng() % 32);
    const uint32_t f = static_cast<uint32_t>(rng() % 33);
    uint64_t expected = 0;
    for (uint32_t t = 0; t < f; ++t) {
      const uint32_t p = off + t;
      const uint32_t word = p < 32 ? hi : lo;
      expected = (expected << 1) | ((word >> (31 - p % 32)) & 1);
    }
    CHECK(MsbField<uint32_t>(hi, lo, off, f) == expected);
  }
}

// The view of an encoded chunk of `rows` rows, its payload `payload`.
ChunkView ViewOfEncoded(const EncodedIbpChunk& e, const std::vector<uint8_t>& payload,
                        PhysicalType type, uint32_t row_width, uint64_t rows) {
  ChunkView view;
  view.type = view.column_type = type;
  view.encoding = 2;
  view.row_width = row_width;
  view.num_rows = rows;
  view.ibp.word_bytes = e.word_bytes;
  view.ibp.words_per_row = e.words_per_row;
  view.ibp.num_masks = e.num_masks;
  view.ibp.offset_bits = e.offset_bits;
  view.ibp.masks = e.masks.data();
  view.ibp.row_offsets = e.row_offsets.empty() ? nullptr : e.row_offsets.data();
  view.ibp.row_offsets_bytes = e.row_offsets.size();
  view.ibp.mask_ids = e.mask_ids.empty() ? nullptr : e.mask_ids.data();
  view.payload = payload.data();
  view.payload_bytes = payload.size();
  return view;
}

// Chunk shapes the IBP row decoders are compared on: Cora-like 0/1 rows,
// rows of two kinds under 4 masks, W = 64 rows, and rows whose B bytes end
// inside a word (bf16 rows of 129, f16 rows of 40).
struct DecoderCase {
  const char* name;
  PhysicalType type;
  uint32_t width;
  uint32_t max_masks;
};
const DecoderCase kDecoderCases[] = {
    {"sparse 0/1 f32 (Cora-like)", PhysicalType::kFloat32, 1433, 1},
    {"two kinds of f32 rows, 4 masks", PhysicalType::kFloat32, 67, 4},
    {"shared top bits f64", PhysicalType::kFloat64, 100, 1},
    {"bf16 rows of 129", PhysicalType::kBFloat16, 129, 1},
    {"f16 rows of 40", PhysicalType::kFloat16, 40, 1},
};

// `rows` rows of the case's shape: values that share top bits, with
// outliers (words stored whole) and free high bits.
std::vector<uint8_t> DecoderCaseRows(const DecoderCase& c, uint64_t rows, std::mt19937_64& rng) {
  const uint32_t type_bytes = static_cast<uint32_t>(PhysicalTypeBytes(c.type));
  std::vector<uint8_t> bytes(rows * c.width * type_bytes);
  const bool sparse = c.width == 1433;
  for (uint64_t i = 0; i < rows * c.width; ++i) {
    uint64_t x = 0;
    if (sparse) {
      const float f = rng() % 40 == 0 ? 1.0f : 0.0f;
      std::memcpy(&x, &f, 4);
    } else {
      const uint32_t bits = 8 * type_bytes;
      // With several masks, every third row of another kind (other top bits).
      const bool other_kind = c.max_masks > 1 && (i / c.width) % 3 == 0;
      const uint64_t top = bits == 64   ? uint64_t{0x3FF5} << 48
                           : other_kind ? uint64_t{0xC5} << (bits - 8)
                                        : uint64_t{0x3E} << (bits - 8);
      x = top | (rng() & LowMask(bits / 3));
      if (rng() % 50 == 0) x = rng() & LowMask(bits);  // an outlier: the word stays whole
      if (rng() % 200 == 0 && bits > 16) x |= uint64_t{1} << (bits - 9);  // a free high bit
    }
    std::memcpy(bytes.data() + i * type_bytes, &x, type_bytes);
  }
  return bytes;
}

TEST_CASE("the sparse row decoder equals the reference on valid and corrupt rows") {
  // DecodeIbpRows visits only the words that hold a field (with PDEP where
  // the CPU has BMI2, and portably); the reference visits every word. Same
  // bytes for every row of clean chunks, and the same status and bytes for
  // rows with random bits flipped (in the bitmap or the stream): some then
  // fail rule 5, others decode to other values.
  std::mt19937_64 rng(2027);
  for (const DecoderCase& c : kDecoderCases) {
    CAPTURE(c.name);
    const uint64_t rows = 300;
    const uint32_t type_bytes = static_cast<uint32_t>(PhysicalTypeBytes(c.type));
    const uint64_t row_bytes = uint64_t{c.width} * type_bytes;
    const std::vector<uint8_t> bytes = DecoderCaseRows(c, rows, rng);
    IbpEncoderOptions options;
    options.max_masks = c.max_masks;
    auto encoded = EncodeIbpChunk(bytes.data(), rows, row_bytes, options);
    REQUIRE(encoded.ok());
    REQUIRE(encoded->packed_rows > rows / 2);
    const ChunkView clean = ViewOfEncoded(*encoded, encoded->payload, c.type, c.width, rows);
    REQUIRE(ValidateIbpIndex(clean).ok());
    for (IbpRowsDecoder decoder : {IbpRowsDecoder::kFastest, IbpRowsDecoder::kPortable,
                                   IbpRowsDecoder::kReference}) {
      std::vector<uint8_t> got(bytes.size());
      REQUIRE(DecodeIbpRowsWith(clean, 0, rows, got.data(), decoder).ok());
      CHECK(got == bytes);
    }
    int failed = 0, changed = 0;
    std::vector<uint8_t> a(row_bytes), b(row_bytes), p(row_bytes);
    for (int trial = 0; trial < 400; ++trial) {
      const uint64_t r = rng() % rows;
      const uint64_t start = IbpRowStart(clean, r);
      const uint64_t length = IbpRowStart(clean, r + 1) - start;
      if (length == encoded->words_per_row) continue;  // a raw row: nothing to disagree on
      std::vector<uint8_t> payload = encoded->payload;
      const uint64_t row_bits = 8 * length * encoded->word_bytes;
      for (int k = 0; k < 1 + trial % 3; ++k) {
        const uint64_t bit = 8 * start * encoded->word_bytes + rng() % row_bits;
        payload[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      }
      const ChunkView view = ViewOfEncoded(*encoded, payload, c.type, c.width, rows);
      std::fill(a.begin(), a.end(), 0xA5);
      std::fill(b.begin(), b.end(), 0x5A);
      std::fill(p.begin(), p.end(), 0x3C);
      const Status sa = DecodeIbpRowsWith(view, r, r + 1, a.data(), IbpRowsDecoder::kFastest);
      const Status sp = DecodeIbpRowsWith(view, r, r + 1, p.data(), IbpRowsDecoder::kPortable);
      const Status sb = DecodeIbpRowsWith(view, r, r + 1, b.data(), IbpRowsDecoder::kReference);
      REQUIRE(sa.code() == sb.code());
      REQUIRE(sp.code() == sb.code());
      if (!sa.ok()) {
        CHECK(sa.code() == StatusCode::kCorruptPayload);
        ++failed;
        continue;
      }
      REQUIRE(a == b);
      REQUIRE(p == b);
      changed += std::memcmp(a.data(), bytes.data() + r * row_bytes, row_bytes) != 0;
    }
    MESSAGE(std::string(c.name) << " (W = " << 8 * encoded->word_bytes << ", M = "
                                << encoded->words_per_row << ", K = " << encoded->num_masks
                                << "): " << failed << " corrupt rows refused, " << changed
                                << " decoded otherwise");
    CHECK(failed > 0);
    CHECK(changed > 0);
  }
}

TEST_CASE("one IbpRowDecoder gives DecodeIbpRows's bytes and errors for rows in any order") {
  // Reader::Take decodes rows one at a time through one decoder per chunk,
  // which keeps each mask's plan from the row that first used it. Rows in
  // random order (into an unaligned buffer, where a row's B bytes are its
  // words and are decoded in place), ranges, and corrupt rows decoded after
  // clean rows of the same mask must give what DecodeIbpRows gives.
  std::mt19937_64 rng(2028);
  for (const DecoderCase& c : kDecoderCases) {
    CAPTURE(c.name);
    const uint64_t rows = 200;
    const uint64_t row_bytes = uint64_t{c.width} * PhysicalTypeBytes(c.type);
    const std::vector<uint8_t> bytes = DecoderCaseRows(c, rows, rng);
    IbpEncoderOptions options;
    options.max_masks = c.max_masks;
    auto encoded = EncodeIbpChunk(bytes.data(), rows, row_bytes, options);
    REQUIRE(encoded.ok());
    const ChunkView clean = ViewOfEncoded(*encoded, encoded->payload, c.type, c.width, rows);
    REQUIRE(ValidateIbpIndex(clean).ok());
    IbpRowDecoder decoder(clean);
    std::vector<uint8_t> out(2 * row_bytes + 2);
    for (int trial = 0; trial < 400; ++trial) {
      const uint64_t a = rng() % rows;
      const uint64_t b = std::min(rows, a + 1 + (trial % 4 == 0 ? rng() % 2 : 0));
      std::fill(out.begin(), out.end(), 0xEE);
      REQUIRE(decoder.Decode(a, b, out.data() + 1).ok());
      CHECK(std::memcmp(out.data() + 1, bytes.data() + a * row_bytes, (b - a) * row_bytes) == 0);
      CHECK(out[1 + (b - a) * row_bytes] == 0xEE);  // nothing written past the rows
    }
    int failed = 0;
    std::vector<uint8_t> once(row_bytes), kept(row_bytes);
    for (int trial = 0; trial < 100; ++trial) {
      const uint64_t r = rng() % rows;
      const uint64_t start = IbpRowStart(clean, r);
      const uint64_t length = IbpRowStart(clean, r + 1) - start;
      if (length == encoded->words_per_row) continue;  // a raw row
      std::vector<uint8_t> payload = encoded->payload;
      const uint64_t bit = 8 * encoded->word_bytes * (start + rng() % length) +
                           rng() % (8 * encoded->word_bytes);
      payload[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const ChunkView view = ViewOfEncoded(*encoded, payload, c.type, c.width, rows);
      IbpRowDecoder corrupt(view);
      for (uint64_t other = 0; other < rows; other += 7) {
        if (other != r) REQUIRE(corrupt.Decode(other, other + 1, kept.data()).ok());
      }
      std::fill(once.begin(), once.end(), 0xA5);
      std::fill(kept.begin(), kept.end(), 0xA5);
      const Status so = DecodeIbpRows(view, r, r + 1, once.data());
      const Status sk = corrupt.Decode(r, r + 1, kept.data());
      REQUIRE(so.code() == sk.code());
      CHECK(so.ToString() == sk.ToString());
      CHECK(once == kept);
      failed += !so.ok();
    }
    CHECK(failed > 0);
  }
}

TEST_CASE("the worked example of spec §11.2.3 decodes as stated") {
  // One mask, W = 32, M = 3, one packed row of L = 2 words.
  const std::vector<uint32_t> masks = {0xFFFF0000u, 0xFFFFFFFFu, 0xFFFFFF00u,   // Mask
                                       0x3F800000u, 0x00000000u, 0x12345600u};  // Bitval
  const std::vector<uint32_t> payload = {0x00000007u, 0x12347800u, 0, 0, 0, 0, 0, 0, 0, 0};
  // Row index: G = 1 block, b = 1: Block_Start = {0, 2}, Row_Offset[0] = 0.
  const std::vector<uint64_t> index = {0, 2, 0};
  ChunkView view;
  view.type = view.column_type = PhysicalType::kFloat32;
  view.encoding = 2;
  view.row_width = 3;
  view.num_rows = 1;
  view.ibp.word_bytes = 4;
  view.ibp.words_per_row = 3;
  view.ibp.num_masks = 1;
  view.ibp.offset_bits = 1;
  view.ibp.masks = reinterpret_cast<const uint8_t*>(masks.data());
  view.ibp.row_offsets = reinterpret_cast<const uint8_t*>(index.data());
  view.ibp.row_offsets_bytes = IbpRowIndexBytes(1, 1);
  CHECK(view.ibp.row_offsets_bytes == 24);
  view.payload = reinterpret_cast<const uint8_t*>(payload.data());
  view.payload_bytes = 8 + 32;
  REQUIRE(ValidateIbpIndex(view).ok());
  CHECK(IbpPayloadWords(view) == 2);
  uint32_t row[3] = {};
  REQUIRE(DecodeIbpRows(view, 0, 1, reinterpret_cast<uint8_t*>(row)).ok());
  CHECK(row[0] == 0x3F801234u);
  CHECK(row[1] == 0u);
  CHECK(row[2] == 0x12345678u);
  CHECK(DeepValidateIbpChunk(view).ok());
  // The encoder packs the same row the same way under the same mask: its own
  // mask search over one row makes every bit invariant, so compare through a
  // decode instead, and check that the row was packed.
  auto encoded = EncodeIbpChunk(reinterpret_cast<const uint8_t*>(row), 1, 12, {});
  REQUIRE(encoded.ok());
  CHECK(encoded->packed_rows == 1);
}

TEST_CASE("a reader refuses bad masks, mask ids and row indexes (spec §11.2.4)") {
  const std::vector<uint32_t> bad_masks = {0x0000FFFFu, 0x00010000u};  // Bitval outside Mask
  const std::vector<uint32_t> payload(16, 0);
  ChunkView view;
  view.type = view.column_type = PhysicalType::kFloat32;
  view.encoding = 2;
  view.num_rows = 1;
  view.ibp.word_bytes = 4;
  view.ibp.words_per_row = 1;
  view.ibp.num_masks = 1;
  view.ibp.masks = reinterpret_cast<const uint8_t*>(bad_masks.data());
  view.payload = reinterpret_cast<const uint8_t*>(payload.data());
  CHECK(ValidateIbpIndex(view).code() == StatusCode::kCorruptMetadata);

  const std::vector<uint32_t> masks = {0xFFFF0000u, 0u, 0xFF000000u, 0u};  // K = 2, M = 1
  view.ibp.masks = reinterpret_cast<const uint8_t*>(masks.data());
  view.ibp.num_masks = 2;
  const uint8_t ids[2] = {1, 2};
  view.num_rows = 2;
  view.ibp.mask_ids = ids;
  CHECK(ValidateIbpIndex(view).code() == StatusCode::kCorruptMetadata);  // id 2 >= K

  // A row index whose row 1 has length 0.
  const uint8_t good_ids[2] = {1, 0};
  view.ibp.mask_ids = good_ids;
  std::vector<uint64_t> index = {0, 1, 0};
  WriteField(reinterpret_cast<uint8_t*>(&index[2]), 1, 1, 1);  // Row_Offset[1] = 1
  view.ibp.offset_bits = 1;
  view.ibp.row_offsets = reinterpret_cast<const uint8_t*>(index.data());
  CHECK(ValidateIbpIndex(view).code() == StatusCode::kCorruptMetadata);
  index[1] = 2;  // now both rows have 1 word
  CHECK(ValidateIbpIndex(view).ok());
  index[0] = 1;  // Block_Start[0] != 0
  CHECK(ValidateIbpIndex(view).code() == StatusCode::kCorruptMetadata);
}

TEST_CASE("every real float array round-trips in each float encoding") {
  auto arrays = datagen::LoadRealFloatArrays();
  if (!arrays.ok() || arrays->empty()) {
    MESSAGE("skipped: no real float arrays under " << datagen::RealDataDir());
    return;
  }
  // Under the sanitizers, the first 3 MiB of rows of each array in chunks of
  // 1 MiB (test_scale.hpp); the normal build takes every row.
  const uint64_t max_bytes = testing::SanitizerScaled(~uint64_t{0}, uint64_t{3} << 20);
  const uint64_t chunk_bytes = testing::SanitizerScaled(uint64_t{4} << 20, uint64_t{1} << 20);
  for (datagen::FloatArray& a : *arrays) {
    const uint64_t row_bytes = uint64_t{a.row_width} * PhysicalTypeBytes(a.type);
    if (a.bytes.size() > max_bytes) {
      a.bytes.resize(std::max(max_bytes / row_bytes, uint64_t{1}) * row_bytes);
    }
    for (FloatEncoding encoding :
         {FloatEncoding::kAuto, FloatEncoding::kIbp, FloatEncoding::kIntegerForm}) {
      CAPTURE(a.name);
      CAPTURE(static_cast<int>(encoding));
      WriteOptions options;
      options.float_encoding = encoding;
      options.float_chunk_bytes = chunk_bytes;  // several chunks for the larger arrays
      const std::vector<uint8_t> file =
          WriteFloat(a.bytes, a.type, a.row_width, options,
                     encoding == FloatEncoding::kAuto ? a.name : "");
      CheckRoundTrip(file, a.bytes, row_bytes);
      auto reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(reader.ok());
      for (const ChunkInfo& chunk : reader->column(0).chunks) {
        if (encoding == FloatEncoding::kIbp) CHECK(chunk.encoding == 2);
        if (encoding == FloatEncoding::kIntegerForm) CHECK(chunk.encoding == 1);
      }
      MESSAGE(a.name << " encoding " << static_cast<int>(encoding) << ": ratio "
                     << static_cast<double>(a.bytes.size()) / file.size());
    }
  }
}

TEST_CASE("IBP on the Planetoid features is at least as small as the reference IBP") {
  // The IBP paper's reference code gives Cora 22-24x and Citeseer 25-31x; the
  // whole file (footer, masks, row index included) must do no worse.
  for (const auto& [name, least] : {std::pair<std::string, double>{
                                        "planetoid_cora_features_2708x1433_f32.bin.gz", 22.0},
                                    {"planetoid_citeseer_features_3312x3703_f32.bin.gz", 25.0}}) {
    auto a = datagen::LoadFloatBinGz(datagen::RealDataDir() + "/" + name);
    if (!a.ok()) {
      MESSAGE("skipped: " << a.status().ToString());
      continue;
    }
    WriteOptions options;
    options.float_encoding = FloatEncoding::kIbp;
    const std::vector<uint8_t> file = WriteFloat(a->bytes, a->type, a->row_width, options);
    const double ratio = static_cast<double>(a->bytes.size()) / file.size();
    MESSAGE(name << ": IBP ratio " << ratio);
    CHECK(ratio >= least);
  }
}

TEST_CASE("special values survive in every float type and both encodings") {
  for (FloatEncoding encoding : {FloatEncoding::kIbp, FloatEncoding::kIntegerForm}) {
    for (uint32_t width : {1u, 3u, 17u}) {
      CAPTURE(width);
      WriteOptions options;
      options.float_encoding = encoding;
      const size_t n = 3000 * width;
      const auto f32 = AsBytes(SpecialPatterns<uint32_t>(8, n, 3));
      CheckRoundTrip(WriteFloat(f32, PhysicalType::kFloat32, width, options), f32, 4 * width);
      const auto f64 = AsBytes(SpecialPatterns<uint64_t>(11, n, 4));
      CheckRoundTrip(WriteFloat(f64, PhysicalType::kFloat64, width, options), f64, 8 * width);
      const auto f16 = AsBytes(SpecialPatterns<uint16_t>(5, n, 5));
      CheckRoundTrip(WriteFloat(f16, PhysicalType::kFloat16, width, options), f16, 2 * width);
      const auto bf16 = AsBytes(SpecialPatterns<uint16_t>(8, n, 6));
      CheckRoundTrip(WriteFloat(bf16, PhysicalType::kBFloat16, width, options), bf16, 2 * width);
    }
  }
}

TEST_CASE("IBP packs rows that share bits, finds each in O(1), and is deterministic") {
  // Embedding-like rows: values in [-1, 1) with 10 significant mantissa bits,
  // so sign, exponent top and the low mantissa bits are mostly invariant.
  std::mt19937_64 rng(11);
  const uint32_t width = 64;
  const uint64_t rows = 20000;
  std::vector<float> v(rows * width);
  for (float& x : v) {
    const int q = static_cast<int>(rng() % 1024);
    x = static_cast<float>(q) / 1024.0f + 0.5f;  // [0.5, 1.5): two exponents
  }
  const std::vector<uint8_t> bytes = AsBytes(v);
  WriteOptions options;
  options.float_encoding = FloatEncoding::kIbp;
  const std::vector<uint8_t> a = WriteFloat(bytes, PhysicalType::kFloat32, width, options, "ibp_rows");
  const std::vector<uint8_t> b = WriteFloat(bytes, PhysicalType::kFloat32, width, options);
  CHECK(a == b);
  CheckRoundTrip(a, bytes, 4 * width);
  auto reader = Reader::OpenBuffer(a.data(), a.size());
  REQUIRE(reader.ok());
  const ChunkInfo& chunk = reader->column(0).chunks[0];
  REQUIRE(chunk.encoding == 2);
  CHECK(chunk.ibp.row_offsets.present);
  CHECK(chunk.ibp.offset_bits >= 1);
  const double ratio = static_cast<double>(bytes.size()) / a.size();
  MESSAGE("embedding-like rows: IBP ratio " << ratio);
  CHECK(ratio > 1.5);  // 32 bits per value hold about 12 that vary
}

TEST_CASE("the writer refuses bad float schemas and partial rows") {
  WriteOptions options;
  CHECK(Writer::CreateInMemory({{"x", PhysicalType::kInt32, {}, 4}}, options).status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(Writer::CreateInMemory({{"x", PhysicalType::kFloat32, {}, 0}}, options).status().code() ==
        StatusCode::kInvalidArgument);
  WriteOptions v10 = options;
  v10.format_minor = 0;
  CHECK(Writer::CreateInMemory({{"x", PhysicalType::kFloat32, {}, 1}}, v10).status().code() ==
        StatusCode::kInvalidArgument);
  auto writer = Writer::CreateInMemory({{"x", PhysicalType::kFloat32, {}, 4}}, options);
  REQUIRE(writer.ok());
  const float values[6] = {1, 2, 3, 4, 5, 6};
  REQUIRE(writer->AppendTyped(0, values, 6).ok());
  CHECK(writer->rows_appended(0) == 1);
  CHECK(writer->Close().code() == StatusCode::kInvalidArgument);  // 6 values, rows of 4
  // A row split across calls is fine.
  auto split = Writer::CreateInMemory({{"x", PhysicalType::kFloat32, {}, 3}}, options);
  REQUIRE(split.ok());
  REQUIRE(split->AppendTyped(0, values, 2).ok());
  REQUIRE(split->AppendTyped(0, values + 2, 4).ok());
  CHECK(split->rows_appended(0) == 2);
  REQUIRE(split->Close().ok());
  const std::vector<uint8_t> file = split->TakeBuffer();
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  float back[6] = {};
  REQUIRE(reader->ReadRows(0, 0, 2, back, sizeof(back)).ok());
  CHECK(std::memcmp(back, values, sizeof(back)) == 0);
}

TEST_CASE("a float column beside integer columns shares the row count") {
  const uint32_t width = 8;
  const uint64_t rows = 1000;
  std::vector<float> tensor(rows * width);
  std::vector<int32_t> labels(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    labels[r] = static_cast<int32_t>(r % 7);
    for (uint32_t j = 0; j < width; ++j) tensor[r * width + j] = static_cast<float>(r) * 0.25f + j;
  }
  auto writer = Writer::CreateInMemory(
      {{"features", PhysicalType::kFloat32, {}, width}, {"label", PhysicalType::kInt32, {}}});
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, tensor.data(), tensor.size()).ok());
  REQUIRE(writer->AppendTyped(1, labels.data(), labels.size()).ok());
  REQUIRE(writer->Close().ok());
  const std::vector<uint8_t> file = writer->TakeBuffer();
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  CHECK(reader->info().num_rows == rows);
  CHECK(reader->column(0).row_width == width);
  CHECK((reader->info().required_features & kRequiredIbpFloat) != 0);
  std::vector<float> back(rows * width);
  REQUIRE(reader->ReadRows(0, 0, rows, back.data(), back.size() * 4).ok());
  CHECK(back == tensor);
  // A buffer one row short is refused.
  CHECK(reader->ReadRows(0, 0, rows, back.data(), back.size() * 4 - 1).code() ==
        StatusCode::kBufferTooSmall);
  CHECK(reader->Validate(ValidationLevel::kDeep).ok());
}

TEST_CASE("corrupt IBP segments are reported with their classes") {
  std::mt19937_64 rng(13);
  const uint32_t width = 32;
  const uint64_t rows = 300;
  std::vector<float> v(rows * width);
  // Cora-like: 0.0 with a few 1.0; row 0 all zeros, so it is packed and
  // agrees with every mask word.
  for (float& x : v) x = (rng() % 20 == 0) ? 1.0f : 0.0f;
  for (uint32_t j = 0; j < width; ++j) v[j] = 0.0f;
  WriteOptions options;
  options.float_encoding = FloatEncoding::kIbp;
  const std::vector<uint8_t> file = WriteFloat(AsBytes(v), PhysicalType::kFloat32, width, options);
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  const ChunkInfo chunk = reader->column(0).chunks[0];
  REQUIRE(chunk.encoding == 2);
  REQUIRE(chunk.ibp.row_offsets.present);
  ReadOptions no_crc;
  no_crc.verify_checksums = false;
  auto read_all = [&](const std::vector<uint8_t>& f, const ReadOptions& o) {
    auto r = Reader::OpenBuffer(f.data(), f.size(), o);
    if (!r.ok()) return r.status().code();
    std::vector<float> out(v.size());
    return r->ReadRows(0, 0, rows, out.data(), out.size() * 4).code();
  };
  {  // Mask[0] = 0 with Bitval[0] = 1: the checksum, or without it the mask rule
    std::vector<uint8_t> bad = file;
    uint8_t* mask0 = bad.data() + chunk.ibp.masks.offset;
    std::memset(mask0, 0, chunk.ibp.word_bytes);
    std::memset(mask0 + uint64_t{chunk.ibp.word_bytes} * chunk.ibp.words_per_row, 0,
                chunk.ibp.word_bytes);
    mask0[uint64_t{chunk.ibp.word_bytes} * chunk.ibp.words_per_row] = 1;  // Bitval[0]
    CHECK(read_all(bad, ReadOptions()) == StatusCode::kChecksumMismatch);
    CHECK(read_all(bad, no_crc) == StatusCode::kCorruptMetadata);
  }
  {  // Block_Start[0] != 0
    std::vector<uint8_t> bad = file;
    bad[chunk.ibp.row_offsets.offset] ^= 0x01;
    CHECK(read_all(bad, no_crc) == StatusCode::kCorruptMetadata);
  }
  {  // row 0's participation bit flipped on a word whose mask covers all W
     // bits: its field changes by W bits, so its length by one word (rule 5)
    const uint8_t* masks = file.data() + chunk.ibp.masks.offset;
    const uint32_t w = chunk.ibp.word_bytes * 8;
    int full = -1;
    for (uint32_t j = 0; j < chunk.ibp.words_per_row && full < 0; ++j) {
      uint64_t m = 0;
      std::memcpy(&m, masks + j * chunk.ibp.word_bytes, chunk.ibp.word_bytes);
      if (__builtin_popcountll(m) == static_cast<int>(w)) full = static_cast<int>(j);
    }
    REQUIRE(full >= 0);
    std::vector<uint8_t> bad = file;
    uint8_t* bitmap = bad.data() + chunk.payload.offset;  // row 0 starts at word 0
    bitmap[full / 8] ^= static_cast<uint8_t>(1u << (full % 8));
    CHECK(read_all(bad, ReadOptions()) == StatusCode::kChecksumMismatch);
    CHECK(read_all(bad, no_crc) == StatusCode::kCorruptPayload);
  }
}

TEST_CASE("several masks with a mask id per row shrink rows of distinct kinds (ibp_masks)") {
  // Two kinds of rows with different invariant bits: small positive values
  // and large negative ones, interleaved. One mask fits neither well.
  std::mt19937_64 rng(17);
  const uint32_t width = 64;
  const uint64_t rows = 4000;
  std::vector<float> v(rows * width);
  for (uint64_t r = 0; r < rows; ++r) {
    const bool kind = (rng() % 3) == 0;
    for (uint32_t j = 0; j < width; ++j) {
      const float q = static_cast<float>(rng() % 256) / 256.0f;
      v[r * width + j] = kind ? -1000.0f - 64.0f * q : 0.5f + 0.25f * q;
    }
  }
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  WriteOptions one;
  one.float_encoding = FloatEncoding::kIbp;
  WriteOptions four = one;
  four.ibp_masks = 4;
  const std::vector<uint8_t> a = WriteFloat(bytes, PhysicalType::kFloat32, width, one);
  const std::vector<uint8_t> b = WriteFloat(bytes, PhysicalType::kFloat32, width, four, "ibp_masks4");
  CHECK(b == WriteFloat(bytes, PhysicalType::kFloat32, width, four));  // deterministic
  CheckRoundTrip(b, bytes, 4 * width);
  auto reader = Reader::OpenBuffer(b.data(), b.size());
  REQUIRE(reader.ok());
  const ChunkInfo& chunk = reader->column(0).chunks[0];
  CHECK(chunk.ibp.num_masks > 1);
  CHECK(chunk.ibp.mask_ids.present);
  MESSAGE("one mask: " << a.size() << " bytes; four: " << b.size() << " bytes");
  CHECK(b.size() < a.size());
}

