// File_Header and postscript (spec §4.1, §4.2): packing, every error class,
// and the normative order of the checks.
#include <doctest/doctest.h>

#include "container_test_util.hpp"

using namespace l3;
using namespace l3::testing;
using internal::LoadLE64;
using internal::StoreLE16;
using internal::StoreLE32;
using internal::StoreLE64;

namespace {

std::vector<uint8_t> SmallFile() {
  const auto values = LinearValues<int32_t>(500, 1);
  HandColumn col{"x", PhysicalType::kInt32,
                 {BuildHandChunk(values, Partitioning(500, 200, {Part(Model::kFor)}))}};
  return AssembleFile({col});
}

StatusCode OpenCode(const std::vector<uint8_t>& file, const ReadOptions& options = {}) {
  auto r = Reader::OpenBuffer(file.data(), file.size(), options);
  return r.ok() ? StatusCode::kOk : r.status().code();
}

uint8_t* Ps(std::vector<uint8_t>* file) { return file->data() + file->size() - 64; }

}  // namespace

TEST_CASE("a packed postscript parses back field by field") {
  std::vector<uint8_t> file = SmallFile();
  internal::Postscript ps;
  REQUIRE(internal::ParseFraming(file.data(), file.size(), {}, &ps).ok());
  CHECK(ps.format_major == 1);
  CHECK(ps.format_minor == kFormatMinor);
  CHECK(ps.checksum_type == 0);
  CHECK(ps.footer_offset % 64 == 0);
  CHECK(ps.footer_offset + ps.footer_length + 64 == file.size());
  CHECK(ps.optional_features == kOptionalPartitionBounds);
  CHECK(ps.required_features == 0);
  CHECK(ps.footer_checksum == internal::Crc32c(0, file.data() + ps.footer_offset, ps.footer_length));
  // Fixed offsets of spec §4.2, independent of the packing code.
  const uint8_t* raw = file.data() + file.size() - 64;
  CHECK(LoadLE64(raw + 0) == ps.footer_offset);
  CHECK(LoadLE64(raw + 8) == ps.footer_length);
  CHECK(internal::LoadLE16(raw + 32) == 1);
  CHECK(internal::LoadLE32(raw + 52) == internal::Crc32c(0, raw, 52));
  CHECK(std::memcmp(raw + 56, "\x89L3F\r\n\x1a\n", 8) == 0);
  CHECK(std::memcmp(file.data(), "\x89L3F\r\n\x1a\n", 8) == 0);
  CHECK(internal::LoadLE16(file.data() + 8) == 1);
  for (int i = 12; i < 64; ++i) CHECK(file[i] == 0);
}

TEST_CASE("step 1: files shorter than 128 bytes are TRUNCATED") {
  std::vector<uint8_t> empty;
  CHECK(OpenCode(empty) == StatusCode::kTruncated);
  std::vector<uint8_t> file = SmallFile();
  std::vector<uint8_t> tiny(file.begin(), file.begin() + 127);
  CHECK(OpenCode(tiny) == StatusCode::kTruncated);
  std::vector<uint8_t> text(127, 'a');
  CHECK(OpenCode(text) == StatusCode::kTruncated);
}

TEST_CASE("step 2: magics (NOT_L3, or TRUNCATED when only the tail is wrong)") {
  const std::vector<uint8_t> good = SmallFile();
  std::vector<uint8_t> cut(good.begin(), good.end() - 10);
  CHECK(OpenCode(cut) == StatusCode::kTruncated);
  std::vector<uint8_t> tail = good;
  tail.back() ^= 1;
  CHECK(OpenCode(tail) == StatusCode::kTruncated);
  std::vector<uint8_t> head = good;
  head[1] = 'X';
  CHECK(OpenCode(head) == StatusCode::kNotL3);
  std::vector<uint8_t> both = tail;
  both[0] = 0;
  CHECK(OpenCode(both) == StatusCode::kNotL3);
  std::vector<uint8_t> noise(4096, 0x5A);
  CHECK(OpenCode(noise) == StatusCode::kNotL3);
}

TEST_CASE("steps 3-9 each report their class") {
  const std::vector<uint8_t> good = SmallFile();
  REQUIRE(OpenCode(good) == StatusCode::kOk);
  auto edited = [&](auto edit) {
    std::vector<uint8_t> f = good;
    EditPostscript(&f, edit);
    return f;
  };
  SUBCASE("step 3: Postscript_Checksum") {
    std::vector<uint8_t> f = good;
    Ps(&f)[20] ^= 0x10;  // inside Required_Features, checksum left stale
    CHECK(OpenCode(f) == StatusCode::kChecksumMismatch);
    f = good;
    Ps(&f)[52] ^= 1;
    CHECK(OpenCode(f) == StatusCode::kChecksumMismatch);
  }
  SUBCASE("step 4: Format_Major") {
    for (uint16_t major : {0, 2, 0xFFFF}) {
      std::vector<uint8_t> f = edited([&](uint8_t* p) { StoreLE16(p + 32, major); });
      StoreLE16(f.data() + 8, major);  // header agrees
      CHECK(OpenCode(f) == StatusCode::kUnsupportedVersion);
    }
    // A future minor version is accepted when header and postscript agree.
    std::vector<uint8_t> f = edited([](uint8_t* p) { StoreLE16(p + 34, 7); });
    StoreLE16(f.data() + 10, 7);
    auto r = Reader::OpenBuffer(f.data(), f.size());
    REQUIRE(r.ok());
    CHECK(r->info().format_minor == 7);
  }
  SUBCASE("header and postscript versions must agree (spec §4.1)") {
    std::vector<uint8_t> f = good;
    StoreLE16(f.data() + 10, kFormatMinor + 1);
    CHECK(OpenCode(f) == StatusCode::kCorruptFraming);
    f = good;
    StoreLE16(f.data() + 8, 2);
    CHECK(OpenCode(f) == StatusCode::kCorruptFraming);
  }
  SUBCASE("step 5: Checksum_Type") {
    CHECK(OpenCode(edited([](uint8_t* p) { p[36] = 1; })) == StatusCode::kUnsupportedFeature);
    ReadOptions inspect;
    inspect.allow_unknown = true;
    CHECK(OpenCode(edited([](uint8_t* p) { p[36] = 1; }), inspect) ==
          StatusCode::kUnsupportedFeature);
  }
  SUBCASE("step 6: Required_Features") {
    // Bit 2 (IBP_FLOAT) is implemented since 1.1: set on a file without a
    // float column it is a false claim (spec §4.4), found after the footer.
    {
      const auto f = edited([&](uint8_t* p) { StoreLE64(p + 16, uint64_t{1} << 2); });
      CHECK(OpenCode(f) == StatusCode::kCorruptMetadata);
    }
    for (int bit : {1, 10, 40, 63}) {
      CAPTURE(bit);
      const auto f = edited([&](uint8_t* p) { StoreLE64(p + 16, uint64_t{1} << bit); });
      CHECK(OpenCode(f) == StatusCode::kUnsupportedFeature);
      internal::Postscript ps;
      internal::FramingOptions inspect;
      inspect.allow_unknown = true;
      CHECK(internal::ParseFraming(f.data(), f.size(), inspect, &ps).ok());
    }
  }
  SUBCASE("step 7: reserved fields") {
    CHECK(OpenCode(edited([](uint8_t* p) { p[37] = 1; })) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(edited([](uint8_t* p) { p[39] = 1; })) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(edited([](uint8_t* p) { p[44] = 1; })) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(edited([](uint8_t* p) { p[51] = 0x80; })) == StatusCode::kCorruptFraming);
    std::vector<uint8_t> f = good;
    f[12] = 1;  // Header_Flags
    CHECK(OpenCode(f) == StatusCode::kCorruptFraming);
    f = good;
    f[63] = 1;  // header Reserved
    CHECK(OpenCode(f) == StatusCode::kCorruptFraming);
  }
  SUBCASE("step 8: the file-size rule") {
    const uint64_t offset = LoadLE64(good.data() + good.size() - 64);
    const uint64_t length = LoadLE64(good.data() + good.size() - 56);
    auto with = [&](uint64_t o, uint64_t l) {
      return edited([&](uint8_t* p) {
        StoreLE64(p + 0, o);
        StoreLE64(p + 8, l);
      });
    };
    CHECK(OpenCode(with(offset + 8, length - 8)) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(with(0, offset + length)) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(with(offset, length + 1)) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(with(offset, length - 1)) == StatusCode::kCorruptFraming);
    CHECK(OpenCode(with(offset - 64, length)) == StatusCode::kCorruptFraming);
    // Wrap-around: offset + length + 64 == size modulo 2^64.
    CHECK(OpenCode(with(uint64_t{0} - 64 * 4, offset + length + 64 * 3)) ==
          StatusCode::kCorruptFraming);
    CHECK(OpenCode(with(offset, UINT64_MAX)) == StatusCode::kCorruptFraming);
  }
  SUBCASE("Footer_Length over the reader's limit is RESOURCE_LIMIT") {
    ReadOptions options;
    options.max_footer_bytes = 16;
    CHECK(OpenCode(good, options) == StatusCode::kResourceLimit);
  }
  SUBCASE("step 9: Footer_Checksum") {
    CHECK(OpenCode(edited([](uint8_t* p) { p[40] ^= 1; })) == StatusCode::kChecksumMismatch);
    std::vector<uint8_t> f = good;
    const uint64_t offset = LoadLE64(good.data() + good.size() - 64);
    f[offset + 20] ^= 4;
    CHECK(OpenCode(f) == StatusCode::kChecksumMismatch);
  }
}

TEST_CASE("checks run in the normative order of spec §4.2") {
  const std::vector<uint8_t> good = SmallFile();
  // Each file breaks two checks; the earlier one is reported.
  std::vector<uint8_t> f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE16(p + 32, 3); });
  Ps(&f)[36] = 9;  // checksum now stale too: step 3 wins over steps 4 and 5
  CHECK(OpenCode(f) == StatusCode::kChecksumMismatch);

  f = good;
  EditPostscript(&f, [](uint8_t* p) {
    StoreLE16(p + 32, 2);  // step 4
    p[36] = 1;             // step 5
    p[37] = 1;             // step 7
  });
  CHECK(OpenCode(f) == StatusCode::kUnsupportedVersion);

  f = good;
  EditPostscript(&f, [](uint8_t* p) {
    StoreLE64(p + 16, uint64_t{1} << 10);  // step 6
    p[44] = 1;                            // step 7
    StoreLE64(p + 0, 65);                 // step 8
  });
  CHECK(OpenCode(f) == StatusCode::kUnsupportedFeature);

  f = good;
  EditPostscript(&f, [](uint8_t* p) {
    p[45] = 1;              // step 7
    p[40] ^= 1;             // step 9
  });
  CHECK(OpenCode(f) == StatusCode::kCorruptFraming);

  f = good;
  EditPostscript(&f, [](uint8_t* p) {
    StoreLE64(p + 8, LoadLE64(p + 8) + 64);  // step 8
    p[40] ^= 1;                              // step 9
  });
  CHECK(OpenCode(f) == StatusCode::kCorruptFraming);

  // A bad Format_Major is reported before a header/postscript mismatch.
  f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE16(p + 32, 2); });
  CHECK(OpenCode(f) == StatusCode::kUnsupportedVersion);
}

TEST_CASE("unknown optional feature bits are ignored; known ones must match use") {
  const std::vector<uint8_t> good = SmallFile();
  std::vector<uint8_t> f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE64(p + 24, LoadLE64(p + 24) | (uint64_t{1} << 17)); });
  CHECK(OpenCode(f) == StatusCode::kOk);
  // PARTITION_BOUNDS cleared although the chunk has bounds.
  f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE64(p + 24, 0); });
  CHECK(OpenCode(f) == StatusCode::kCorruptMetadata);
  // PGM_INDEX set although no chunk has one.
  f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE64(p + 24, LoadLE64(p + 24) | kOptionalPgmIndex); });
  CHECK(OpenCode(f) == StatusCode::kCorruptMetadata);
  // ZSTD_SEGMENTS set although nothing is compressed.
  f = good;
  EditPostscript(&f, [](uint8_t* p) { StoreLE64(p + 16, kRequiredZstdSegments); });
  CHECK(OpenCode(f) == StatusCode::kCorruptMetadata);
}

TEST_CASE("Open(path) maps or reads, and reports I/O errors") {
  const std::vector<uint8_t> good = SmallFile();
  const std::string path = "framing_test_open.l3";
  {
    FILE* fp = std::fopen(path.c_str(), "wb");
    REQUIRE(fp != nullptr);
    REQUIRE(std::fwrite(good.data(), 1, good.size(), fp) == good.size());
    REQUIRE(std::fclose(fp) == 0);
  }
  for (bool mmap : {true, false}) {
    ReadOptions options;
    options.use_mmap = mmap;
    auto r = Reader::Open(path, options);
    REQUIRE(r.ok());
    CHECK(r->info().file_bytes == good.size());
    std::vector<int32_t> out(500);
    CHECK(r->ReadRows(0, 0, 500, out.data(), out.size() * 4).ok());
    CHECK(out == LinearValues<int32_t>(500, 1));
  }
  std::remove(path.c_str());
  CHECK(Reader::Open(path).status().code() == StatusCode::kIoError);
  CHECK(Reader::Open(".").status().code() == StatusCode::kIoError);
  // An empty file is TRUNCATED, not an I/O error.
  FILE* fp = std::fopen(path.c_str(), "wb");
  REQUIRE(fp != nullptr);
  std::fclose(fp);
  CHECK(Reader::Open(path).status().code() == StatusCode::kTruncated);
  ReadOptions read;
  read.use_mmap = false;
  CHECK(Reader::Open(path, read).status().code() == StatusCode::kTruncated);
  std::remove(path.c_str());
}
