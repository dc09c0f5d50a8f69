// Scan (l3/scan.hpp): predicates with chunk and partition pruning, checked
// against a naive scan of the decoded values on generated and real columns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "l3/scan.hpp"
#include "test_scale.hpp"

using namespace l3;

namespace {

using Int128 = __int128;

template <typename T>
uint64_t Canon(T v) {
  return std::is_signed<T>::value ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                  : static_cast<uint64_t>(v);
}

template <typename T>
std::vector<uint8_t> Write(const std::vector<T>& values, PhysicalType type, WriteOptions o,
                           const std::vector<T>* second = nullptr) {
  std::vector<ColumnSpec> cols = {ColumnSpec{"a", type, {}}};
  if (second != nullptr) cols.push_back(ColumnSpec{"b", type, {}});
  auto w = Writer::CreateInMemory(cols, o);
  REQUIRE(w.ok());
  REQUIRE(w->AppendTyped<T>(0, values.data(), values.size()).ok());
  if (second != nullptr) REQUIRE(w->AppendTyped<T>(1, second->data(), second->size()).ok());
  REQUIRE(w->Close().ok());
  return w->TakeBuffer();
}

template <typename T>
bool Match(T v, const std::vector<ValuePredicate>& preds) {
  for (const ValuePredicate& p : preds) {
    const T lo = static_cast<T>(p.lo), hi = static_cast<T>(p.hi);
    if (v < lo || v > hi) return false;
    if (!p.in.empty() && std::find(p.in.begin(), p.in.end(), Canon(v)) == p.in.end()) return false;
  }
  return true;
}

// Scans with and without aggregates and compares with a naive loop.
template <typename T>
void CheckScan(const Reader& r, const std::vector<T>& a, const std::vector<T>& b,
               const std::vector<ValuePredicate>& preds) {
  std::vector<uint64_t> rows;
  Int128 sum_a = 0, sum_b = 0;
  for (uint64_t i = 0; i < a.size(); ++i) {
    if (!Match(a[i], preds)) continue;
    rows.push_back(i);
    sum_a += static_cast<Int128>(a[i]);
    sum_b += static_cast<Int128>(b[i]);
  }
  auto plain = Scan(r, 0, preds);
  REQUIRE_MESSAGE(plain.ok(), plain.status().ToString());
  CHECK(plain->rows == rows);
  CHECK(plain->count == rows.size());
  CHECK(plain->partitions_pruned + plain->partitions_all_match + plain->partitions_decoded ==
        plain->partitions_total);
  for (int agg : {0, 1}) {
    ScanOptions o;
    o.collect_rows = false;
    o.aggregate = true;
    o.aggregate_column = agg;
    auto s = Scan(r, 0, preds, o);
    REQUIRE_MESSAGE(s.ok(), s.status().ToString());
    CHECK(s->rows.empty());
    CHECK(s->count == rows.size());
    const Int128 sum = static_cast<Int128>(
        (static_cast<unsigned __int128>(static_cast<uint64_t>(s->sum_high)) << 64) | s->sum_low);
    CHECK((sum == (agg == 0 ? sum_a : sum_b)));
    CHECK(s->has_min_max == !rows.empty());
    if (!rows.empty()) {
      const std::vector<T>& col = agg == 0 ? a : b;
      T lo = col[rows[0]], hi = col[rows[0]];
      for (uint64_t i : rows) lo = std::min(lo, col[i]), hi = std::max(hi, col[i]);
      CHECK(s->min_value == Canon(lo));
      CHECK(s->max_value == Canon(hi));
    }
  }
}

ValuePredicate Range(uint64_t lo, uint64_t hi) { return ValuePredicate{lo, hi, {}}; }

template <typename T>
void RandomPredicates(const Reader& r, const std::vector<T>& a, const std::vector<T>& b,
                      PhysicalType type, std::mt19937_64& rng) {
  const uint64_t tmin = TypeMinValue(type), tmax = TypeMaxValue(type);
  auto pick = [&]() { return Canon(a[rng() % a.size()]); };
  auto sorted = [&](uint64_t x, uint64_t y) {
    return static_cast<T>(x) <= static_cast<T>(y) ? Range(x, y) : Range(y, x);
  };
  // Everything, nothing, the type limits, points, ranges, IN and ANDs.
  CheckScan(r, a, b, {Range(tmin, tmax)});
  CheckScan(r, a, b, {Range(tmax, tmax)});
  CheckScan(r, a, b, {Range(tmin, tmin)});
  // 12 rounds, 4 under the sanitizers (test_scale.hpp).
  const uint64_t rounds = testing::SanitizerScaled(12, 4);
  for (uint64_t i = 0; i < rounds; ++i) {
    const uint64_t v = pick();
    CheckScan(r, a, b, {Range(v, v)});                   // =
    CheckScan(r, a, b, {Range(tmin, v)});                // <=
    CheckScan(r, a, b, {Range(v, tmax)});                // >=
    CheckScan(r, a, b, {sorted(pick(), pick())});        // BETWEEN
    CheckScan(r, a, b, {sorted(pick(), pick()), sorted(pick(), pick())});  // AND
    ValuePredicate in = Range(tmin, tmax);
    in.in = {pick(), pick(), pick()};
    CheckScan(r, a, b, {in});
  }
}

}  // namespace

TEST_CASE("scan: every predicate matches a naive scan, with bounds, model ranges and dictionaries") {
  std::mt19937_64 rng(21);
  const uint64_t n = 150000;
  // i32: sorted runs and noise; pruning by bounds cuts most partitions.
  std::vector<int32_t> a32(n), b32(n);
  for (uint64_t i = 0; i < n; ++i) {
    a32[i] = static_cast<int32_t>(i / 3) - 20000 + static_cast<int32_t>(rng() % 5);
    b32[i] = static_cast<int32_t>(rng() % 2000001) - 1000000;
  }
  // u64: the full range, few distinct values (a dictionary), and extremes.
  std::vector<uint64_t> a64(n), b64(n);
  const uint64_t palette[] = {0, 1, 77, 1ull << 40, ~uint64_t{0} - 5, ~uint64_t{0}};
  for (uint64_t i = 0; i < n; ++i) {
    a64[i] = palette[(i / 700 + rng() % 2) % 6];
    b64[i] = rng() >> 2;  // the sums fit 128 bits comfortably
  }
  // i8: every value of the type.
  std::vector<int8_t> a8(n), b8(n);
  for (uint64_t i = 0; i < n; ++i) {
    a8[i] = static_cast<int8_t>(rng());
    b8[i] = static_cast<int8_t>(i);
  }
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    WriteOptions o;
    o.chunk_rows = 40000;
    if (variant == 1) o.write_partition_bounds = false;  // model ranges only
    if (variant == 2) {
      o.write_statistics = false;
      o.profile = Profile::kArchive;
      o.zstd_level = 3;
    }
    {
      const std::vector<uint8_t> f = Write(a32, PhysicalType::kInt32, o, &b32);
      auto r = Reader::OpenBuffer(f.data(), f.size());
      REQUIRE(r.ok());
      RandomPredicates(*r, a32, b32, PhysicalType::kInt32, rng);
      // A narrow range prunes: most partitions are neither decoded nor read.
      auto s = Scan(*r, 0, {Range(Canon(int32_t{100}), Canon(int32_t{200}))});
      REQUIRE(s.ok());
      MESSAGE("i32 variant " << variant << ": chunks " << s->chunks_pruned << "/" << s->chunks_total
                             << " pruned, partitions " << s->partitions_pruned << " pruned, "
                             << s->partitions_all_match << " all-match, "
                             << s->partitions_decoded << " decoded of " << s->partitions_total);
      if (variant == 0) {
        CHECK(s->chunks_pruned >= 2);
        CHECK(s->partitions_decoded * 4 < s->partitions_total);
      }
    }
    {
      const std::vector<uint8_t> f = Write(a64, PhysicalType::kUInt64, o, &b64);
      auto r = Reader::OpenBuffer(f.data(), f.size());
      REQUIRE(r.ok());
      RandomPredicates(*r, a64, b64, PhysicalType::kUInt64, rng);
    }
    {
      const std::vector<uint8_t> f = Write(a8, PhysicalType::kInt8, o, &b8);
      auto r = Reader::OpenBuffer(f.data(), f.size());
      REQUIRE(r.ok());
      RandomPredicates(*r, a8, b8, PhysicalType::kInt8, rng);
    }
  }
}

TEST_CASE("scan: a range inside every partition's range selects without decoding") {
  std::vector<uint32_t> v(100000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>(1000 + (i * 7919) % 50);
  WriteOptions o;
  o.chunk_rows = 25000;
  bool model_ranges = false;
  SUBCASE("partition bounds") {}
  SUBCASE("the range FOR_BITPACK implies (no bounds, no statistics)") {
    o.write_partition_bounds = false;
    o.write_statistics = false;
    model_ranges = true;
  }
  CAPTURE(model_ranges);
  const std::vector<uint8_t> f = Write(v, PhysicalType::kUInt32, o);
  auto r = Reader::OpenBuffer(f.data(), f.size());
  REQUIRE(r.ok());
  auto all = Scan(*r, 0, {Range(500, 2000)});
  REQUIRE(all.ok());
  CHECK(all->count == v.size());
  CHECK(all->partitions_decoded == 0);
  CHECK(all->payload_bytes_read == 0);
  auto none = Scan(*r, 0, {Range(0, 999)});
  REQUIRE(none.ok());
  CHECK(none->count == 0);
  CHECK(none->partitions_decoded == 0);
  CHECK(none->chunks_pruned == (model_ranges ? 0 : 4));
  CHECK(none->SumString() == "0");
  ScanOptions sum;
  sum.aggregate = true;
  auto total = Scan(*r, 0, {Range(500, 2000)}, sum);
  REQUIRE(total.ok());
  uint64_t expect = 0;
  for (uint32_t x : v) expect += x;
  CHECK(total->SumString() == std::to_string(expect));
}

TEST_CASE("scan: errors") {
  std::vector<int16_t> v(1000, 3);
  const std::vector<uint8_t> f = Write(v, PhysicalType::kInt16, WriteOptions{});
  auto r = Reader::OpenBuffer(f.data(), f.size());
  REQUIRE(r.ok());
  CHECK(Scan(*r, 0, {}).status().code() == StatusCode::kInvalidArgument);
  CHECK(Scan(*r, 1, {Range(0, 1)}).status().code() == StatusCode::kOutOfRange);
  ScanOptions o;
  o.aggregate = true;
  o.aggregate_column = 3;
  CHECK(Scan(*r, 0, {Range(0, 1)}, o).status().code() == StatusCode::kOutOfRange);
  ScanResult negative;
  negative.sum_low = static_cast<uint64_t>(-12345);
  negative.sum_high = -1;
  CHECK(negative.SumString() == "-12345");
}
