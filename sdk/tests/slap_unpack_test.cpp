// The fast CPU decode path (issue 14) against the scalar definition: the
// per-width unpack kernels of slap_unpack.hpp against ReadField() for every
// width 0..64; whole-tile decoding (slap_tiles.cpp) against DecodeForRange /
// DecodePredictedRange on random payloads and parameters (full and partial
// tiles, every V class, predictions outside the fast ToInt range included);
// multi-threaded Reader::ReadRows against single-threaded reads, the values
// written and the errors of a damaged file.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "codec/decode/partition_decoder.hpp"
#include "codec/decode/slap_unpack.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;

namespace {

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

template <typename U>
void CheckKernelsOfType() {
  constexpr uint32_t kBits = 8 * sizeof(U);
  for (uint32_t w = 0; w <= kBits; ++w) {
    CAPTURE(w);
    // One lane block is w words; the kernel may read no further.
    const std::vector<uint8_t> words = RandomBytes(8 * w + 8, 1000 + w);
    const uint64_t base = 0x0123456789abcdefull * (w + 1);
    std::vector<U> out(uint64_t{kLanes} * kSlapBlockFields, U{0x5a});
    UnpackKernelFor<FieldMode::kAddBase, U>(w)(words.data(), base, out.data());
    for (uint32_t k = 0; k < kSlapBlockFields; ++k) {
      const uint64_t u = ReadField(words.data(), uint64_t{k} * w, w);
      REQUIRE(out[kLanes * k] == static_cast<U>(base + u));
      // Rows of the other lanes are not touched.
      REQUIRE(out[kLanes * k + 1] == U{0x5a});
    }
    UnpackKernelFor<FieldMode::kSignExtend, U>(w)(words.data(), 0, out.data());
    for (uint32_t k = 0; k < kSlapBlockFields; ++k) {
      const uint64_t u = ReadField(words.data(), uint64_t{k} * w, w);
      REQUIRE(out[kLanes * k] == static_cast<U>(SignExtend(u, w)));
    }
  }
}

// A partition over random payload bits (every bit pattern is a valid SLAP
// payload) with the given parameter words.
struct RandomPartition {
  std::vector<uint8_t> params, payload;
  Partition part;
  RandomPartition(Model model, uint32_t w, uint64_t n, const std::vector<uint64_t>& words,
                  uint64_t seed) {
    params.resize(8 * 4);
    for (size_t i = 0; i < words.size(); ++i) StoreLE64(params.data() + 8 * i, words[i]);
    payload = RandomBytes(8 * SlapPayloadWords(n, w) + kPayloadPaddingBytes, seed);
    part.model = static_cast<uint8_t>(model);
    part.bit_width = w;
    part.num_rows = n;
    part.params = params.data();
    part.payload = payload.data();
    part.payload_words = SlapPayloadWords(n, w);
  }
};

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

template <typename T, uint8_t kModel>
void CheckRangesAgree(const Partition& part, uint32_t v) {
  const uint64_t n = part.num_rows;
  const uint64_t tile_rows = uint64_t{kLanes} * v;
  const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {0, n}, {1, n}, {tile_rows - 3, n - 1}, {tile_rows, 2 * tile_rows}, {0, tile_rows + 70}};
  for (const auto& [lb, le] : ranges) {
    if (lb >= le || le > n) continue;
    CAPTURE(lb);
    CAPTURE(le);
    std::vector<T> fast(le - lb, T{1}), scalar(le - lb, T{2});
    DecodeSlapRange<T, kModel>(part, v, lb, le, fast.data());
    if constexpr (kModel == static_cast<uint8_t>(Model::kFor)) {
      DecodeForRange(part, v, lb, le, scalar.data());
    } else {
      DecodePredictedRange<T, kModel>(part, v, lb, le, scalar.data());
    }
    REQUIRE(fast == scalar);
  }
}

template <typename T>
void CheckTilesOfType() {
  constexpr uint32_t kBits = 8 * sizeof(T);
  std::mt19937_64 rng(kBits);
  for (uint32_t v : {1u, 16u, 64u, 128u, 1024u}) {
    const uint64_t n = uint64_t{kLanes} * v * 3 + 77;  // three full tiles and a partial one
    for (uint32_t w = 0; w <= kBits; w += (v == 64 ? 1 : 7)) {
      CAPTURE(v);
      CAPTURE(w);
      {
        RandomPartition p(Model::kFor, w, n, {rng()}, rng());
        CheckRangesAgree<T, static_cast<uint8_t>(Model::kFor)>(p.part, v);
      }
      // Small and huge predictions: the latter leave the fast ToInt range
      // (|y| >= 2^51) and take the scalar definition for their tiles.
      for (double scale : {1.0, 1e15, 1e19}) {
        CAPTURE(scale);
        RandomPartition lin(Model::kLinear, w, n,
                            {DoubleBits(scale * 3.25), DoubleBits(-0.731 * scale / 1e3)}, rng());
        CheckRangesAgree<T, static_cast<uint8_t>(Model::kLinear)>(lin.part, v);
        RandomPartition p2(Model::kPoly2, w, n,
                           {DoubleBits(-17.5 * scale), DoubleBits(0.5), DoubleBits(1e-3 * scale)},
                           rng());
        CheckRangesAgree<T, static_cast<uint8_t>(Model::kPoly2)>(p2.part, v);
        RandomPartition p3(Model::kPoly3, w, n,
                           {DoubleBits(2.5), DoubleBits(0.25 * scale), DoubleBits(-1e-4),
                            DoubleBits(3e-9 * scale)},
                           rng());
        CheckRangesAgree<T, static_cast<uint8_t>(Model::kPoly3)>(p3.part, v);
      }
    }
  }
}

}  // namespace

TEST_CASE("per-width unpack kernels equal ReadField for every width 0..64") {
  CheckKernelsOfType<uint8_t>();
  CheckKernelsOfType<uint16_t>();
  CheckKernelsOfType<uint32_t>();
  CheckKernelsOfType<uint64_t>();
}

TEST_CASE_TEMPLATE("whole-tile decoding equals the scalar definition", T, int8_t, uint16_t,
                   int32_t, uint64_t, int64_t) {
  CheckTilesOfType<T>();
}

TEST_CASE("multi-threaded ReadRows equals single-threaded ReadRows and the values written") {
  // Several chunks, mixed models, partitions that do not start on tiles.
  std::mt19937_64 rng(14);
  const uint64_t n = 700000;
  std::vector<int64_t> values(n);
  int64_t v = -5000000;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t phase = (i / 50000) % 4;
    if (phase == 0) v += 3 + static_cast<int64_t>(rng() % 4);        // LINEAR-like
    if (phase == 1) v = 1000 + static_cast<int64_t>(rng() % 65536);  // FOR-like
    if (phase == 2) v = 42;                                          // CONSTANT
    if (phase == 3) v += static_cast<int64_t>(rng() % 2000) - 999;  // DELTA-like
    values[i] = v;
  }
  // Both profiles: the archive one stores zstd frames over field planes,
  // which a parallel read loads (the chunks its cuts fall in at once) and
  // rebuilds on its threads.
  for (const Profile profile : {Profile::kHot, Profile::kArchive}) {
    CAPTURE(static_cast<int>(profile));
    WriteOptions wo;
    wo.chunk_rows = 250000;
    wo.profile = profile;
    wo.zstd_level = 3;
    auto writer = Writer::CreateInMemory({ColumnSpec{"v", PhysicalType::kInt64, {}}}, wo);
    REQUIRE(writer.ok());
    REQUIRE(writer->AppendTyped<int64_t>(0, values.data(), n).ok());
    REQUIRE(writer->Close().ok());
    const std::vector<uint8_t> file = writer->TakeBuffer();

    const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
        {0, n}, {1, n - 1}, {123457, 654321}, {249999, 250001}, {10, 200000}};
    for (int threads : {1, 2, 3, 8, 0}) {
      CAPTURE(threads);
      ReadOptions ro;
      ro.num_threads = threads;
      ro.max_cached_bytes = 0;  // every call loads its chunks
      auto reader = Reader::OpenBuffer(file.data(), file.size(), ro);
      REQUIRE(reader.ok());
      for (const auto& [begin, end] : ranges) {
        CAPTURE(begin);
        std::vector<int64_t> out(end - begin, -1);
        REQUIRE(reader->ReadRows(0, begin, end, out.data(), out.size() * 8).ok());
        REQUIRE(
            std::equal(out.begin(), out.end(), values.begin() + static_cast<ptrdiff_t>(begin)));
      }
    }

    // A chunk whose payload fails its checksum fails the read with the
    // status a single thread reports, whichever thread loads it.
    std::vector<uint8_t> bad = file;
    {
      auto reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(reader.ok());
      const SegmentInfo& payload = reader->column(0).chunks[1].payload;
      bad[payload.offset + payload.stored_bytes / 2] ^= 0x10;
    }
    Status expected;
    for (int threads : {1, 2, 8}) {
      CAPTURE(threads);
      ReadOptions ro;
      ro.num_threads = threads;
      auto reader = Reader::OpenBuffer(bad.data(), bad.size(), ro);
      REQUIRE(reader.ok());
      std::vector<int64_t> out(n);
      const Status st = reader->ReadRows(0, 0, n, out.data(), out.size() * 8);
      CHECK(st.code() == StatusCode::kChecksumMismatch);
      if (threads == 1) expected = st;
      CHECK(st.message() == expected.message());
    }
  }
}

TEST_CASE("a negative ReadOptions::num_threads is refused") {
  const int64_t one = 1;
  auto writer = Writer::CreateInMemory({ColumnSpec{"v", PhysicalType::kInt64, {}}});
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped<int64_t>(0, &one, 1).ok());
  REQUIRE(writer->Close().ok());
  const std::vector<uint8_t> file = writer->TakeBuffer();
  ReadOptions ro;
  ro.num_threads = -1;
  CHECK(Reader::OpenBuffer(file.data(), file.size(), ro).status().code() ==
        StatusCode::kInvalidArgument);
}

TEST_CASE("a multi-threaded read of a damaged file returns the single-threaded error") {
  // Four chunks; the payloads of chunks 1 and 3 are damaged, so both reads
  // must report chunk 1's checksum mismatch.
  const uint64_t n = 400000;
  std::vector<uint64_t> values(n);
  for (uint64_t i = 0; i < n; ++i) values[i] = i * 3 + (i % 7);
  WriteOptions wo;
  wo.chunk_rows = 100000;
  auto writer = Writer::CreateInMemory({ColumnSpec{"v", PhysicalType::kUInt64, {}}}, wo);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped<uint64_t>(0, values.data(), n).ok());
  REQUIRE(writer->Close().ok());
  std::vector<uint8_t> file = writer->TakeBuffer();
  {
    auto reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    REQUIRE(reader->column(0).chunks.size() == 4);
    for (int c : {1, 3}) {
      const SegmentInfo& payload = reader->column(0).chunks[c].payload;
      REQUIRE(payload.stored_bytes > 0);
      file[payload.offset + payload.stored_bytes / 2] ^= 0x10;
    }
  }
  std::vector<Status> results;
  for (int threads : {1, 4}) {
    ReadOptions ro;
    ro.num_threads = threads;
    auto reader = Reader::OpenBuffer(file.data(), file.size(), ro);
    REQUIRE(reader.ok());
    std::vector<uint64_t> out(n);
    results.push_back(reader->ReadRows(0, 0, n, out.data(), n * 8));
  }
  CHECK(results[0].code() == StatusCode::kChecksumMismatch);
  CHECK(results[1].code() == results[0].code());
  CHECK(results[1].message() == results[0].message());
}
