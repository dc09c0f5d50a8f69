// The GF(2) algebra of common/crc32c_combine.hpp against the byte-by-byte
// CRC32C of common/crc32c.hpp: combining the CRCs of two parts gives the CRC
// of their concatenation, for random splits including empty parts.
#include "common/crc32c_combine.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/crc32c.hpp"

using namespace l3::internal;

namespace {

std::vector<uint8_t> RandomBytes(size_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// The register after feeding `n` bytes into `state`, without inversions.
uint32_t Register(uint32_t state, const uint8_t* data, size_t n) {
  return ~Crc32c(~state, data, n);
}

}  // namespace

TEST_CASE("crc32c combine: multiplication is the polynomial product modulo P") {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    const auto a = static_cast<uint32_t>(rng()), b = static_cast<uint32_t>(rng()),
               c = static_cast<uint32_t>(rng());
    CHECK(Crc32cMultiply(a, kCrc32cOne) == a);
    CHECK(Crc32cMultiply(a, 0) == 0);
    CHECK(Crc32cMultiply(a, b) == Crc32cMultiply(b, a));
    CHECK(Crc32cMultiply(a, b ^ c) == (Crc32cMultiply(a, b) ^ Crc32cMultiply(a, c)));
    CHECK(Crc32cMultiply(Crc32cMultiply(a, b), c) == Crc32cMultiply(a, Crc32cMultiply(b, c)));
  }
  // Multiplying by x^8 is feeding one zero byte.
  const uint8_t zero = 0;
  for (int i = 0; i < 200; ++i) {
    const auto a = static_cast<uint32_t>(rng());
    CHECK(Crc32cMultiply(a, kCrc32cOne >> 8) == Register(a, &zero, 1));
  }
}

TEST_CASE("crc32c combine: shifting by n bytes is feeding n zero bytes") {
  static constexpr Crc32cPowerTable kTable = MakeCrc32cPowerTable();
  static_assert(Crc32cCombine(0xE3069283u, 0, 0) == 0xE3069283u, "constexpr and identity");
  std::mt19937_64 rng(2);
  const std::vector<uint8_t> zeros(70000, 0);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{8}, size_t{9},
                   size_t{255}, size_t{256}, size_t{4097}, size_t{65536}, size_t{69999}}) {
    const auto a = static_cast<uint32_t>(rng());
    CHECK(Crc32cShift(a, n) == Register(a, zeros.data(), n));
    CHECK(Crc32cZerosOperator(n, kTable) == Crc32cZerosOperator(n));
  }
  // Large shifts: shifting by m + n is shifting by m, then by n.
  for (int i = 0; i < 100; ++i) {
    const uint64_t m = rng() >> (rng() % 64), n = rng() >> (1 + rng() % 63);
    const auto a = static_cast<uint32_t>(rng());
    CHECK(Crc32cShift(Crc32cShift(a, m), n) == Crc32cShift(a, m + n));
    CHECK(Crc32cZerosOperator(m, kTable) == Crc32cZerosOperator(m));
  }
}

TEST_CASE("crc32c combine: combine(crc(A), crc(B), |B|) == crc(A || B) over random splits") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 300; ++round) {
    const size_t n =
        round < 20 ? static_cast<size_t>(round) : rng() % (round < 250 ? 2000 : 300000);
    const std::vector<uint8_t> m = RandomBytes(n, rng);
    const size_t split = round % 5 == 0 ? 0 : round % 5 == 1 ? n : (n == 0 ? 0 : rng() % (n + 1));
    const uint32_t whole = Crc32c(0, m.data(), n);
    const uint32_t a = Crc32c(0, m.data(), split);
    const uint32_t b = Crc32c(0, m.data() + split, n - split);
    INFO("n " << n << " split " << split);
    CHECK(Crc32cCombine(a, b, n - split) == whole);
    // The zero-start register and the inversion term give the CRC too.
    CHECK((Register(0, m.data(), n) ^ Crc32cInversionTerm(n)) == whole);
  }
  // Many parts, combined left to right, and as a XOR of shifted registers.
  for (int round = 0; round < 20; ++round) {
    const size_t n = rng() % 100000;
    const std::vector<uint8_t> m = RandomBytes(n, rng);
    std::vector<size_t> cuts = {0, n};
    for (int k = 0; k < 1 + round; ++k) cuts.push_back(n == 0 ? 0 : rng() % (n + 1));
    std::sort(cuts.begin(), cuts.end());
    uint32_t combined = 0, xored = 0;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      const size_t len = cuts[k + 1] - cuts[k];
      combined = Crc32cCombine(combined, Crc32c(0, m.data() + cuts[k], len), len);
      xored ^= Crc32cShift(Register(0, m.data() + cuts[k], len), n - cuts[k + 1]);
    }
    CHECK(combined == Crc32c(0, m.data(), n));
    CHECK((xored ^ Crc32cInversionTerm(n)) == Crc32c(0, m.data(), n));
  }
}
