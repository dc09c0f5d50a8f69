// Hostile input, systematically, on realistic encoder-written files: every
// truncation, every bit of the header and postscript, every byte of the
// footer, and damaged segments with and without checksum verification. Each
// case must end in the specific error class the spec names (spec §4.2, §5,
// §10) and never in a crash or an out-of-bounds access (this file also runs
// under ASan + UBSan).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "container_test_util.hpp"
#include "format/layout.hpp"

using namespace l3;
using namespace l3::testing;

namespace {

// A file with two columns of different types and shapes, several chunks each,
// so that every kind of segment and several footer tables are present.
std::vector<uint8_t> MakeFile(Profile profile) {
  WriteOptions options;
  options.chunk_rows = 1500;
  options.profile = profile;
  options.zstd_level = 3;
  options.num_threads = 1;
  auto writer = Writer::CreateInMemory(
      {{"ramp", PhysicalType::kInt32, {}}, {"noise_runs", PhysicalType::kUInt16, {}}}, options);
  REQUIRE(writer.ok());
  const auto ramp = LinearValues<int32_t>(4000, 7, 5.0, 6);
  auto mixed = RunValues<uint16_t>(2000, 8, 40);
  const auto noise = RandomValues<uint16_t>(2000, 9);
  mixed.insert(mixed.end(), noise.begin(), noise.end());
  REQUIRE(writer->AppendTyped(0, ramp.data(), ramp.size()).ok());
  REQUIRE(writer->AppendTyped(1, mixed.data(), mixed.size()).ok());
  REQUIRE(writer->Close().ok());
  auto file = writer->TakeBuffer();
  KeepTestFile(profile == Profile::kHot ? "corrupt_fixture_hot" : "corrupt_fixture_archive", file);
  return file;
}

StatusCode OpenCode(const std::vector<uint8_t>& file, const ReadOptions& options = {}) {
  auto r = Reader::OpenBuffer(file.data(), file.size(), options);
  return r.ok() ? StatusCode::kOk : r.status().code();
}

// Opens and decodes everything; returns the first failure's code.
StatusCode ReadAllCode(const std::vector<uint8_t>& file, const ReadOptions& options = {}) {
  auto r = Reader::OpenBuffer(file.data(), file.size(), options);
  if (!r.ok()) return r.status().code();
  for (int c = 0; c < r->num_columns(); ++c) {
    const auto& col = r->column(c);
    std::vector<uint8_t> out(col.num_rows * PhysicalTypeBytes(col.type));
    const Status st = r->ReadRows(c, 0, col.num_rows, out.data(), out.size());
    if (!st.ok()) return st.code();
  }
  return StatusCode::kOk;
}

uint64_t FooterOffset(const std::vector<uint8_t>& file) {
  return internal::LoadLE64(file.data() + file.size() - internal::kPostscriptBytes +
                            internal::kPsFooterOffset);
}

}  // namespace

TEST_CASE("the corruption fixtures are valid files") {
  for (Profile profile : {Profile::kHot, Profile::kArchive}) {
    const auto file = MakeFile(profile);
    CHECK(ReadAllCode(file) == StatusCode::kOk);
    auto r = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(r.ok());
    CHECK(r->Validate(ValidationLevel::kDeep).ok());
    CHECK(r->column(0).chunks.size() == 3);
    CHECK(r->column(1).chunks.size() == 3);
  }
}

TEST_CASE("truncation at every length is TRUNCATED (spec §4.2 steps 1-2)") {
  for (Profile profile : {Profile::kHot, Profile::kArchive}) {
    const auto file = MakeFile(profile);
    for (size_t len = 0; len < file.size(); ++len) {
      const std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<ptrdiff_t>(len));
      CAPTURE(len);
      CHECK(OpenCode(cut) == StatusCode::kTruncated);
    }
  }
}

TEST_CASE("every bit of the header (spec §4.1)") {
  const auto file = MakeFile(Profile::kHot);
  for (size_t bit = 0; bit < internal::kHeaderBytes * 8; ++bit) {
    auto bad = file;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    CAPTURE(bit);
    // Magic -> NOT_L3; version mismatch with the postscript, flags and
    // reserved bytes -> CORRUPT_FRAMING.
    const StatusCode expected = bit < 64 ? StatusCode::kNotL3 : StatusCode::kCorruptFraming;
    CHECK(OpenCode(bad) == expected);
  }
}

TEST_CASE("every bit of the postscript (spec §4.2)") {
  const auto file = MakeFile(Profile::kHot);
  const size_t ps = file.size() - internal::kPostscriptBytes;
  for (size_t bit = 0; bit < internal::kPostscriptBytes * 8; ++bit) {
    auto bad = file;
    const size_t byte = bit / 8;
    bad[ps + byte] ^= static_cast<uint8_t>(1u << (bit % 8));
    CAPTURE(byte);
    CAPTURE(bit);
    // The trailing magic no longer matches while the header's does: the file
    // looks cut short. Any other bit is caught by Postscript_Checksum, which
    // covers bytes 0..51 and is itself stored in 52..55.
    const StatusCode expected = byte >= static_cast<size_t>(internal::kPsMagic)
                                    ? StatusCode::kTruncated
                                    : StatusCode::kChecksumMismatch;
    CHECK(OpenCode(bad) == expected);
  }
}

TEST_CASE("every byte of the footer (spec §4.2 step 9)") {
  for (Profile profile : {Profile::kHot, Profile::kArchive}) {
    const auto file = MakeFile(profile);
    const uint64_t footer = FooterOffset(file);
    const uint64_t end = file.size() - internal::kPostscriptBytes;
    REQUIRE(footer < end);
    std::mt19937 rng(11);
    for (uint64_t at = footer; at < end; ++at) {
      auto bad = file;
      bad[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
      CAPTURE(at);
      CHECK(OpenCode(bad) == StatusCode::kChecksumMismatch);
    }
  }
}

TEST_CASE("damaged segments: CHECKSUM_MISMATCH on use, never a crash without checksums") {
  for (Profile profile : {Profile::kHot, Profile::kArchive}) {
    const auto file = MakeFile(profile);
    const uint64_t footer = FooterOffset(file);
    std::mt19937_64 rng(12);
    ReadOptions unchecked;
    unchecked.verify_checksums = false;
    std::set<StatusCode> seen_unchecked;
    for (int trial = 0; trial < 400; ++trial) {
      auto bad = file;
      const uint64_t at = internal::kHeaderBytes + rng() % (footer - internal::kHeaderBytes);
      bad[at] ^= static_cast<uint8_t>(1 + rng() % 255);
      CAPTURE(at);
      // Opening reads no segment; using the damaged chunk fails its CRC,
      // unless the byte is padding between segments, which no checksum covers
      // (spec §5) and which deep validation reports as CORRUPT_FRAMING.
      CHECK(OpenCode(bad) == StatusCode::kOk);
      const StatusCode used = ReadAllCode(bad);
      if (used == StatusCode::kOk) {
        auto r = Reader::OpenBuffer(bad.data(), bad.size());
        REQUIRE(r.ok());
        CHECK(r->Validate(ValidationLevel::kDeep).code() == StatusCode::kCorruptFraming);
      } else {
        CHECK(used == StatusCode::kChecksumMismatch);
      }
      // Without checksums, the reader must still stay inside its buffers and
      // either decode or report a specific class.
      const StatusCode code = ReadAllCode(bad, unchecked);
      seen_unchecked.insert(code);
      const bool specific = code == StatusCode::kOk || code == StatusCode::kCorruptMetadata ||
                            code == StatusCode::kCorruptPayload;
      CHECK_MESSAGE(specific, StatusCodeName(code));
    }
    // The damage must actually reach the decoder's checks sometimes.
    CHECK(seen_unchecked.size() >= 2);
  }
}

TEST_CASE("a rewritten postscript that points anywhere is rejected with its class") {
  const auto file = MakeFile(Profile::kHot);
  const uint64_t footer = FooterOffset(file);
  const uint64_t length = file.size() - internal::kPostscriptBytes - footer;
  struct Case {
    uint64_t offset, length;
    StatusCode expected;
  };
  const Case cases[] = {
      {footer + 64, length, StatusCode::kCorruptFraming},        // size rule breaks
      {footer + 64, length - 64, StatusCode::kChecksumMismatch}, // size rule holds, bytes wrong
      {footer - 64, length, StatusCode::kCorruptFraming},        // size rule breaks
      {footer + 8, length - 8, StatusCode::kCorruptFraming},     // misaligned
      {0, footer + length, StatusCode::kCorruptFraming},         // starts inside the header
      {~uint64_t{0} - 63, length + 64, StatusCode::kCorruptFraming},  // wraps around
      {footer - 64, length + 64, StatusCode::kChecksumMismatch},  // consistent but wrong bytes
  };
  for (const Case& c : cases) {
    auto bad = file;
    EditPostscript(&bad, [&](uint8_t* ps) {
      internal::StoreLE64(ps + internal::kPsFooterOffset, c.offset);
      internal::StoreLE64(ps + internal::kPsFooterLength, c.length);
    });
    CAPTURE(c.offset);
    CAPTURE(c.length);
    CHECK(OpenCode(bad) == c.expected);
  }
}

TEST_CASE("a column with zero rows round trips") {
  auto writer = Writer::CreateInMemory({{"empty", PhysicalType::kUInt64, {}}});
  REQUIRE(writer.ok());
  REQUIRE(writer->Close().ok());
  const auto file = writer->TakeBuffer();
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  CHECK(r->info().num_rows == 0);
  CHECK(r->column(0).chunks.empty());
  CHECK(r->ReadRows(0, 0, 0, nullptr, 0).ok());
  CHECK(r->ReadRows(0, 0, 1, nullptr, 0).code() == StatusCode::kOutOfRange);
  CHECK(r->Validate(ValidationLevel::kDeep).ok());
}
