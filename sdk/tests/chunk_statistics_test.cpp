// The pieces of the chunk statistics (codec/encode/chunk_statistics.hpp)
// that the device statistics share with the CPU: the hash, the HyperLogLog
// slot rule and a sketch rebuilt from its registers.
#include "codec/encode/chunk_statistics.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;

namespace {

// The inverse of the splitmix64 finaliser, to build values with a chosen hash.
uint64_t UnXorShift(uint64_t y, int r) {
  uint64_t x = y;
  for (int i = 0; i < 64 / r + 1; ++i) x = y ^ (x >> r);
  return x;
}
uint64_t InverseOf(uint64_t odd) {
  uint64_t inv = odd;  // Newton's iteration doubles the correct low bits
  for (int i = 0; i < 6; ++i) inv *= 2 - odd * inv;
  return inv;
}
uint64_t UnHash(uint64_t h) {
  uint64_t x = UnXorShift(h, 31);
  x *= InverseOf(0x94D049BB133111EBull);
  x = UnXorShift(x, 27);
  x *= InverseOf(0xBF58476D1CE4E5B9ull);
  x = UnXorShift(x, 30);
  return x - 0x9E3779B97F4A7C15ull;
}

}  // namespace

TEST_CASE("chunk statistics: the device-callable hash is the sketch hash") {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = i < 10 ? static_cast<uint64_t>(i) - 5 : rng();
    CHECK(StatisticsHash(v) == DistinctSketch::Hash(v));
    CHECK(UnHash(StatisticsHash(v)) == v);
  }
}

TEST_CASE("chunk statistics: HyperLogLog slots are the top bits and the leading-zero rank") {
  std::mt19937_64 rng(12);
  std::vector<uint64_t> hashes = {0,
                                  1,
                                  ~uint64_t{0},
                                  uint64_t{1} << 47,
                                  uint64_t{1} << 48,
                                  0xFFFF000000000000ull,
                                  0x0000FFFFFFFFFFFFull};
  for (int i = 0; i < 1000; ++i) hashes.push_back(rng() >> (rng() % 64));
  for (const uint64_t h : hashes) {
    const HyperLogLog::Slot slot = HyperLogLog::SlotOf(UnHash(h));
    const uint64_t rest = h << 16;
    CHECK(slot.index == (h >> 48));
    CHECK(slot.rank == (rest == 0 ? 49u : static_cast<uint32_t>(__builtin_clzll(rest)) + 1));
  }
}

TEST_CASE("chunk statistics: a HyperLogLog rebuilt from its registers estimates the same") {
  std::mt19937_64 rng(13);
  for (const uint64_t count :
       {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{70000}, uint64_t{300000}}) {
    HyperLogLog added;
    std::vector<uint8_t> registers(HyperLogLog::kRegisters, 0);
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t v = rng() % (2 * count + 1);
      added.Add(v);
      const HyperLogLog::Slot slot = HyperLogLog::SlotOf(v);
      if (slot.rank > registers[slot.index])
        registers[slot.index] = static_cast<uint8_t>(slot.rank);
    }
    const double rebuilt = HyperLogLog::FromRegisters(registers.data()).Estimate();
    CHECK(rebuilt == added.Estimate());
    if (count > 0) {
      registers[rng() % registers.size()] += 1;  // one register off changes the estimate
      CHECK(HyperLogLog::FromRegisters(registers.data()).Estimate() != added.Estimate());
    }
  }
}

TEST_CASE("chunk statistics: distinct-sketch registers rebuilt into the sketch's bytes") {
  std::mt19937_64 rng(14);
  for (const uint64_t count : {uint64_t{257}, uint64_t{5000}, uint64_t{400000}}) {
    std::vector<int64_t> values(count);
    // Distinct values first (more than 256 of them), then random ones.
    for (uint64_t i = 0; i < count; ++i) {
      values[i] = i < 257 ? int64_t(i) - 128 : static_cast<int64_t>(rng() % (3 * count)) - 1000;
    }
    std::vector<uint8_t> registers(DistinctSketch::kRegisters, 0);
    for (const int64_t v : values) {
      const SketchSlot slot = SketchSlotOf(StatisticsHash(static_cast<uint64_t>(v)));
      if (slot.rho > registers[slot.index]) registers[slot.index] = static_cast<uint8_t>(slot.rho);
    }
    const std::vector<uint8_t> cpu = ComputeDistinctSketch(values.data(), count, 2);
    REQUIRE(cpu.size() > 2);
    CHECK(cpu[0] == 1);  // the REGISTERS form
    CHECK(DistinctSketchBytesFromRegisters(registers.data()) == cpu);
    registers[rng() % registers.size()] ^= 1;  // a different register, different bytes
    CHECK(DistinctSketchBytesFromRegisters(registers.data()) != cpu);
  }
}
