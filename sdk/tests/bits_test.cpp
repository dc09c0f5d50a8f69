// Tests of the bit helpers, the SLAP layout math and CRC32C against the
// worked examples of spec §5 and §12.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "common/bits.hpp"
#include "common/crc32c.hpp"
#include "format/layout.hpp"

using namespace l3::internal;

TEST_CASE("CRC32C test vectors (spec §5)") {
  CHECK(Crc32c(0, "123456789", 9) == 0xE3069283u);
  CHECK(Crc32c(0, "", 0) == 0u);
  // Incremental equals one-shot, across the 8-byte fast path boundary.
  const char* text = "The quick brown fox jumps over the lazy dog, twice over.";
  const size_t n = std::strlen(text);
  for (size_t split = 0; split <= n; ++split) {
    CHECK(Crc32c(Crc32c(0, text, split), text + split, n - split) == Crc32c(0, text, n));
  }
}

TEST_CASE("bit order worked example (spec §12.1)") {
  std::vector<uint8_t> stream(32, 0);
  const uint64_t values[8] = {1, 2, 3, 4, 5, 6, 7, 0};
  for (int i = 0; i < 8; ++i) WriteField(stream.data(), 3 * i, 3, values[i]);
  CHECK(stream[0] == 0xD1);
  CHECK(stream[1] == 0x58);
  CHECK(stream[2] == 0x1F);
  for (int i = 0; i < 8; ++i) CHECK(ReadField(stream.data(), 3 * i, 3) == values[i]);
}

TEST_CASE("fields straddling words, every width") {
  for (uint32_t w = 1; w <= 64; ++w) {
    std::vector<uint8_t> stream(8 * 40, 0);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    std::vector<uint64_t> expect;
    for (uint64_t i = 0; i < 33; ++i) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      expect.push_back(x & LowMask(w));
      WriteField(stream.data(), 7 + i * w, w, x);
    }
    for (uint64_t i = 0; i < 33; ++i) CHECK(ReadField(stream.data(), 7 + i * w, w) == expect[i]);
  }
}

TEST_CASE("signed widths and sign extension") {
  CHECK(SignedWidth(0) == 0);
  CHECK(SignedWidth(-1) == 1);
  CHECK(SignedWidth(1) == 2);
  CHECK(SignedWidth(-2) == 2);
  CHECK(SignedWidth(2) == 3);
  CHECK(SignedWidth(INT64_MIN) == 64);
  CHECK(SignedWidth(INT64_MAX) == 64);
  for (uint32_t w = 1; w <= 64; ++w) {
    const int64_t lo = w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
    const int64_t hi = w == 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
    CHECK(SignedWidth(lo) == w);
    CHECK(SignedWidth(hi) == (hi == 0 ? 0u : w));
    CHECK(SignExtend(static_cast<uint64_t>(lo) & LowMask(w), w) == lo);
    CHECK(SignExtend(static_cast<uint64_t>(hi) & LowMask(w), w) == hi);
  }
  CHECK(BitLength(0) == 0);
  CHECK(BitLength(1) == 1);
  CHECK(BitLength(255) == 8);
  CHECK(CanonicalExtend(0xFF, 8, true) == ~uint64_t{0});
  CHECK(CanonicalExtend(0xFF, 8, false) == 0xFF);
}

TEST_CASE("SLAP positions worked example (spec §12.2)") {
  // V = 64, w = 5, n = 2100: one full tile and a partial tile of 52 rows.
  CHECK(SlapFieldBitOffset(2100, 5, 64, 2083) == 10275);
  CHECK(SlapFieldBitOffset(2100, 5, 64, 2070) == 10450);
  CHECK(SlapPayloadWords(2100, 5) == 165);
  CHECK(SlapLaneRows(2100, 64, 1, 3) == 2);
  CHECK(SlapLaneRows(2100, 64, 1, 20) == 1);
  CHECK(SlapLaneRows(2100, 64, 0, 31) == 64);
}

TEST_CASE("SLAP layout is a bijection onto [0, n*w) for every n up to two tiles") {
  for (uint32_t v : {1u, 2u, 8u, 64u}) {
    const uint64_t tile = 32ull * v;
    for (uint64_t n = 1; n <= 2 * tile + 33; n += (n < 70 ? 1 : 7)) {
      std::vector<uint8_t> seen(n, 0);
      for (uint64_t x = 0; x < n; ++x) {
        const uint64_t off = SlapFieldBitOffset(n, 1, v, x);
        REQUIRE(off < n);
        CHECK(seen[off] == 0);
        seen[off] = 1;
      }
    }
  }
}
