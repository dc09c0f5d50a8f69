// End-to-end: `l3 compress --gpu` writes the same bytes as without it (the
// GPU plans the partitions with the CPU's result, spec §14.1), in both
// profiles; where the build has no CUDA backend or the machine no GPU it
// says so on stderr and compresses on the CPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "e2e_process.hpp"

using namespace l3::e2e;

TEST_SUITE("gpu") {
  TEST_CASE("l3 compress --gpu writes the bytes the CPU writes") {
    ScratchDir dir;
    REQUIRE(dir.ok());
    // Three shapes of 300000 rows: a sorted walk (DELTA), a noisy parabola
    // (polynomials), short runs (runs, RUNS_EF, dictionary), as u32 and u64.
    std::mt19937_64 rng(9);
    std::vector<uint64_t> values(300000);
    uint64_t walk = 1000;
    for (size_t x = 0; x < values.size(); ++x) {
      const double t = static_cast<double>(x);
      switch (x / 100000) {
        case 0:
          walk += rng() % 50;
          values[x] = walk;
          break;
        case 1:
          values[x] = static_cast<uint64_t>(2e-6 * t * t + 5000 + rng() % 16);
          break;
        default:
          values[x] = rng() % 5 == 0 ? rng() % 1000 : values[x - 1];
          break;
      }
    }
    std::string u64(reinterpret_cast<const char*>(values.data()), values.size() * 8);
    std::string u32;
    for (uint64_t v : values) {
      const auto narrow = static_cast<uint32_t>(v);
      u32.append(reinterpret_cast<const char*>(&narrow), 4);
    }
    REQUIRE(WriteFile(dir / "u64.bin", u64));
    REQUIRE(WriteFile(dir / "u32.bin", u32));
    for (const char* type : {"u32", "u64"}) {
      for (const char* profile : {"hot", "archive"}) {
        INFO(type << " " << profile);
        const std::string input = dir / (std::string(type) + ".bin");
        REQUIRE(Run({Tool("l3"), "compress", "--type", type, "--profile", profile, "--chunk-rows",
                     "150000", input, "-o", dir / "cpu.l3"},
                    "", dir / "cpu.txt") == 0);
        REQUIRE(Run({Tool("l3"), "compress", "--gpu", "--type", type, "--profile", profile,
                     "--chunk-rows", "150000", input, "-o", dir / "gpu.l3"},
                    "", dir / "gpu.txt") == 0);
        const std::string note = ReadFile(dir / "gpu.txt");
        MESSAGE("stderr of --gpu: " << (note.empty() ? "(nothing: planned on the GPU)" : note));
        CHECK((note.empty() || note.find("--gpu:") != std::string::npos));
        const std::string cpu = ReadFile(dir / "cpu.l3");
        CHECK(!cpu.empty());
        CHECK(ReadFile(dir / "gpu.l3") == cpu);
      }
    }
  }

}  // TEST_SUITE
