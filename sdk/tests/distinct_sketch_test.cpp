// Distinct-count sketches (spec §7.6.1): the exact form, the HyperLogLog
// estimate, merging, the bytes, and the writer and reader around them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "l3/l3.hpp"

using namespace l3;

namespace {

DistinctSketch SketchOf(uint64_t first, uint64_t count, uint64_t stride = 1) {
  DistinctSketch s;
  for (uint64_t i = 0; i < count; ++i) s.Add(first + i * stride);
  return s;
}

double RelativeError(uint64_t estimate, uint64_t truth) {
  return std::fabs(static_cast<double>(estimate) - static_cast<double>(truth)) /
         static_cast<double>(truth);
}

}  // namespace

TEST_CASE("distinct sketch: exact up to Max_Hashes distinct values, then an estimate") {
  static_assert(DistinctSketch::kMaxExactHashes == 256, "spec §7.6.1 Max_Hashes");
  DistinctSketch s;
  CHECK(s.exact());
  CHECK(s.Estimate() == 0);
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (uint64_t v = 0; v < 256; ++v) s.Add(v * 977);
  }
  CHECK(s.exact());
  CHECK(s.Estimate() == 256);
  s.Add(5);  // the 257th distinct value
  CHECK_FALSE(s.exact());
  CHECK(RelativeError(s.Estimate(), 257) < 0.02);
  // Small sets are nearly exact in the register form too.
  for (uint64_t v = 1000; v < 3000; ++v) s.Add(v * 977);
  CHECK(RelativeError(s.Estimate(), 2257) < 0.01);
  // Negative values of a signed column are their canonical extensions.
  DistinctSketch signed_values;
  for (int64_t v = -100; v < 100; ++v) signed_values.Add(static_cast<uint64_t>(v));
  CHECK(signed_values.Estimate() == 200);
}

TEST_CASE("distinct sketch: the estimate is within 2% from 10K to 10M distinct values") {
  // Dense, strided and random-looking value sets; repeats change nothing.
  std::mt19937_64 rng(3);
  for (uint64_t n : {10000ull, 30000ull, 100000ull, 1000000ull, 10000000ull}) {
    CAPTURE(n);
    const DistinctSketch dense = SketchOf(0, n);
    CHECK(RelativeError(dense.Estimate(), n) <= 0.02);
    const DistinctSketch strided = SketchOf(1ull << 40, n, 7919);
    CHECK(RelativeError(strided.Estimate(), n) <= 0.02);
    if (n <= 1000000) {
      std::set<uint64_t> seen;
      DistinctSketch random;
      while (seen.size() < n) {
        const uint64_t v = rng();
        seen.insert(v);
        random.Add(v);
        random.Add(v);
      }
      CHECK(RelativeError(random.Estimate(), n) <= 0.02);
    }
    MESSAGE(n << " distinct: estimate " << dense.Estimate() << " (dense), "
              << strided.Estimate() << " (strided)");
  }
}

TEST_CASE("distinct sketch: merging gives the sketch of the union, in any order") {
  // Overlapping ranges on both sides of the exact limit.
  for (uint64_t n : {50ull, 150ull, 500ull, 5000ull, 200000ull}) {
    CAPTURE(n);
    const DistinctSketch a = SketchOf(0, n);
    const DistinctSketch b = SketchOf(n / 2, n);
    const DistinctSketch c = SketchOf(3 * n, n / 3 + 1);
    DistinctSketch ab = a;
    ab.Merge(b);
    CHECK(ab == SketchOf(0, n / 2 + n));
    DistinctSketch abc = ab;
    abc.Merge(c);
    DistinctSketch cba = c;
    cba.Merge(b);
    cba.Merge(a);
    CHECK(abc == cba);
    DistinctSketch all = SketchOf(0, n / 2 + n);
    for (uint64_t i = 0; i < n / 3 + 1; ++i) all.Add(3 * n + i);
    CHECK(abc == all);
    CHECK(abc.exact() == (n / 2 + n + n / 3 + 1 <= DistinctSketch::kMaxExactHashes));
  }
}

TEST_CASE("distinct sketch: bytes round-trip and broken bytes are CORRUPT_METADATA") {
  for (uint64_t n : {0ull, 1ull, 256ull, 257ull, 100000ull}) {
    CAPTURE(n);
    const DistinctSketch s = SketchOf(11, n, 3);
    const std::vector<uint8_t> bytes = s.ToBytes();
    CHECK(bytes[0] == (s.exact() ? 0 : 1));
    if (s.exact()) CHECK(bytes.size() == 5 + 8 * n);
    if (!s.exact()) CHECK(bytes.size() < 14000);  // the registers' zstd frame
    auto back = DistinctSketch::FromBytes(bytes.data(), bytes.size());
    REQUIRE(back.ok());
    CHECK(*back == s);
    CHECK(back->Estimate() == s.Estimate());
    CHECK(back->ToBytes() == bytes);
  }
  auto code = [](std::vector<uint8_t> b) {
    return DistinctSketch::FromBytes(b.data(), b.size()).status().code();
  };
  const std::vector<uint8_t> exact = SketchOf(1, 10).ToBytes();
  std::vector<uint8_t> b = exact;
  b[0] = 2;
  CHECK(code(b) == StatusCode::kCorruptMetadata);  // unknown form
  b = exact;
  b.pop_back();
  CHECK(code(b) == StatusCode::kCorruptMetadata);  // length
  b = exact;
  std::swap_ranges(b.begin() + 5, b.begin() + 13, b.begin() + 13);
  CHECK(code(b) == StatusCode::kCorruptMetadata);  // not increasing
  b = {0, 0x01, 0x01, 0, 0};  // 257 increasing hashes: more than Max_Hashes
  b.resize(5 + 8 * 257);
  for (uint32_t i = 0; i < 257; ++i) {
    b[5 + 8 * i + 1] = static_cast<uint8_t>(i);
    b[5 + 8 * i + 2] = static_cast<uint8_t>(i >> 8);
  }
  CHECK(code(b) == StatusCode::kCorruptMetadata);
  const std::vector<uint8_t> registers = SketchOf(1, 5000).ToBytes();
  b = registers;
  b[1] = 12;
  CHECK(code(b) == StatusCode::kCorruptMetadata);  // Precision
  b = registers;
  b.resize(b.size() - 1);
  CHECK(code(b) == StatusCode::kCorruptMetadata);  // truncated frame
  CHECK(code({}) == StatusCode::kCorruptMetadata);
}

TEST_CASE("distinct sketch: written per chunk, merged by the reader without reading data") {
  // Four chunks of 60000 rows over overlapping ranges: 150000 distinct values
  // in all, though the chunks' distinct counts add up to 240000.
  constexpr uint64_t kChunk = 60000;
  std::vector<uint64_t> values;
  for (uint64_t k = 0; k < 4; ++k) {
    for (uint64_t i = 0; i < kChunk; ++i) values.push_back(k * 30000 + (i * 7) % kChunk);
  }
  WriteOptions o;
  o.chunk_rows = kChunk;
  auto w = Writer::CreateInMemory({ColumnSpec{"ids", PhysicalType::kUInt64, {}}}, o);
  REQUIRE(w.ok());
  REQUIRE(w->AppendTyped<uint64_t>(0, values.data(), values.size()).ok());
  REQUIRE(w->Close().ok());
  const std::vector<uint8_t> file = w->TakeBuffer();
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  CHECK((r->info().optional_features & kOptionalDistinctSketch) != 0);
  uint64_t sum = 0;
  for (const ChunkInfo& ci : r->column(0).chunks) {
    REQUIRE_FALSE(ci.statistics.distinct_sketch.empty());
    sum += ci.statistics.distinct_count;
  }
  CHECK(sum == 240000);
  auto merged = r->MergedDistinctSketch(0);
  REQUIRE(merged.ok());
  CHECK_FALSE(merged->exact());
  MESSAGE("merged estimate " << merged->Estimate() << " of 150000 distinct values");
  CHECK(RelativeError(merged->Estimate(), 150000) <= 0.02);
  // The same sketch as one built from every value, and any subset of chunks.
  DistinctSketch direct;
  for (uint64_t v : values) direct.Add(v);
  CHECK(*merged == direct);
  auto first_two = r->MergedDistinctSketch(0, {0, 1});
  REQUIRE(first_two.ok());
  CHECK(RelativeError(first_two->Estimate(), 90000) <= 0.02);
  CHECK(r->MergedDistinctSketch(0, {4}).status().code() == StatusCode::kOutOfRange);
  CHECK(r->MergedDistinctSketch(1).status().code() == StatusCode::kOutOfRange);
  CHECK(r->Validate(ValidationLevel::kDeep).ok());

  // Few distinct values: each chunk's sketch is exact, and so is the merge.
  std::vector<int16_t> small(200000);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<int16_t>(static_cast<int>(i % 200) - 100);
  auto ws = Writer::CreateInMemory({ColumnSpec{"t", PhysicalType::kInt16, {}}}, o);
  REQUIRE(ws.ok());
  REQUIRE(ws->AppendTyped<int16_t>(0, small.data(), small.size()).ok());
  REQUIRE(ws->Close().ok());
  const std::vector<uint8_t> small_file = ws->TakeBuffer();
  auto rs = Reader::OpenBuffer(small_file.data(), small_file.size());
  REQUIRE(rs.ok());
  auto exact = rs->MergedDistinctSketch(0);
  REQUIRE(exact.ok());
  CHECK(exact->exact());
  CHECK(exact->Estimate() == 200);

  // By default a column that is one chunk keeps no sketch (its
  // distinct_count says all); kAlways keeps it.
  auto one_chunk = [&](DistinctSketchMode mode) {
    WriteOptions one;
    one.distinct_sketch = mode;
    auto w1 = Writer::CreateInMemory({ColumnSpec{"ids", PhysicalType::kUInt64, {}}}, one);
    REQUIRE(w1.ok());
    REQUIRE(w1->AppendTyped<uint64_t>(0, values.data(), 100000).ok());
    REQUIRE(w1->Close().ok());
    return w1->TakeBuffer();
  };
  const std::vector<uint8_t> plain = one_chunk(DistinctSketchMode::kMultiChunkColumns);
  const std::vector<uint8_t> sketched = one_chunk(DistinctSketchMode::kAlways);
  auto rp = Reader::OpenBuffer(plain.data(), plain.size());
  auto rk = Reader::OpenBuffer(sketched.data(), sketched.size());
  REQUIRE((rp.ok() && rk.ok()));
  CHECK(rp->column(0).chunks[0].statistics.distinct_sketch.empty());
  CHECK((rp->info().optional_features & kOptionalDistinctSketch) == 0);
  CHECK(rp->MergedDistinctSketch(0).status().code() == StatusCode::kUnsupportedFeature);
  auto one = rk->MergedDistinctSketch(0);
  REQUIRE(one.ok());
  CHECK(RelativeError(one->Estimate(), rk->column(0).chunks[0].statistics.distinct_count) <= 0.02);
  MESSAGE("one chunk of 100000 rows: " << plain.size() << " bytes, " << sketched.size()
                                       << " with its sketch");
  CHECK(sketched.size() > plain.size());
  // kNever: no chunk has one, whatever the column.
  WriteOptions never = o;
  never.distinct_sketch = DistinctSketchMode::kNever;
  auto wn = Writer::CreateInMemory({ColumnSpec{"ids", PhysicalType::kUInt64, {}}}, never);
  REQUIRE(wn.ok());
  REQUIRE(wn->AppendTyped<uint64_t>(0, values.data(), values.size()).ok());
  REQUIRE(wn->Close().ok());
  const std::vector<uint8_t> none = wn->TakeBuffer();
  auto rn = Reader::OpenBuffer(none.data(), none.size());
  REQUIRE(rn.ok());
  CHECK(rn->column(0).chunks.size() == 4);
  CHECK(rn->MergedDistinctSketch(0).status().code() == StatusCode::kUnsupportedFeature);

  // Format 1.0 files and files without statistics have no sketch.
  o.format_minor = 0;
  auto w0 = Writer::CreateInMemory({ColumnSpec{"t", PhysicalType::kInt16, {}}}, o);
  REQUIRE(w0.ok());
  REQUIRE(w0->AppendTyped<int16_t>(0, small.data(), small.size()).ok());
  REQUIRE(w0->Close().ok());
  const std::vector<uint8_t> old = w0->TakeBuffer();
  auto r0 = Reader::OpenBuffer(old.data(), old.size());
  REQUIRE(r0.ok());
  CHECK((r0->info().optional_features & kOptionalDistinctSketch) == 0);
  CHECK(r0->MergedDistinctSketch(0).status().code() == StatusCode::kUnsupportedFeature);
}
