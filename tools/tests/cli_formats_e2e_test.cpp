// End-to-end tests that `l3 compress` and `l3 decompress` pick the format
// from the extension alike (issue 13): .npy, .csv/.tsv, and raw for any
// other extension or none, in either case; --help says so for both.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "e2e_process.hpp"

using namespace l3::e2e;

TEST_SUITE("formats") {

TEST_CASE("an unknown output extension is raw, as compress reads it") {
  ScratchDir dir;
  REQUIRE(dir.ok());
  const std::string values("\x01\x00\x00\x00\x02\x00\x00\x00\xff\xff\xff\xff", 12);
  REQUIRE(WriteFile(dir / "ids.out", values));
  REQUIRE(Run({Tool("l3"), "compress", "--type", "u32", dir / "ids.out", "-o", dir / "ids.l3"},
              "", dir / "err.txt") == 0);
  for (const char* name : {"back.out", "back.DAT", "back", "back.l3raw"}) {
    INFO(name << ": " << ReadFile(dir / "err.txt"));
    CHECK(Run({Tool("l3"), "decompress", dir / "ids.l3", "-o", dir / name}, "", dir / "err.txt") == 0);
    CHECK(ReadFile(dir / name) == values);
    // ...and compress reads it back as raw.
    CHECK(Run({Tool("l3"), "compress", "--type", "u32", dir / name, "-o", dir / "again.l3"}, "",
              dir / "err.txt") == 0);
  }
  // Known extensions in any case: .NPY is .npy on both sides.
  CHECK(Run({Tool("l3"), "decompress", dir / "ids.l3", "-o", dir / "ids.NPY"}) == 0);
  CHECK(ReadFile(dir / "ids.NPY").compare(0, 6, "\x93NUMPY") == 0);
  CHECK(Run({Tool("l3"), "compress", dir / "ids.NPY", "-o", dir / "npy.l3"}) == 0);
}

TEST_CASE("--help of compress and decompress says unknown extensions are raw") {
  ScratchDir dir;
  REQUIRE(dir.ok());
  for (const char* command : {"compress", "decompress"}) {
    INFO(command);
    REQUIRE(Run({Tool("l3"), command, "--help"}, dir / "help.txt") == 0);
    const std::string help = ReadFile(dir / "help.txt");
    CHECK(help.find("raw|npy|csv, bin = raw") != std::string::npos);
    CHECK(help.find("anything else is raw") != std::string::npos);
  }
}

}  // TEST_SUITE
