// ScanTable (l3/scan.hpp): predicates on several columns ANDed, with late
// materialization and sums of products, checked against a naive scan of the
// columns' values on generated tables of several chunks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "l3/scan.hpp"

using namespace l3;

namespace {

using Int128 = __int128;

// A column of any integer type, kept as canonical extensions.
struct TestColumn {
  PhysicalType type;
  std::vector<uint64_t> values;
};

Int128 AsInt(uint64_t v, PhysicalType type) {
  return PhysicalTypeIsSigned(type) ? Int128{static_cast<int64_t>(v)} : Int128{v};
}

template <typename T>
std::vector<T> Typed(const std::vector<uint64_t>& canon) {
  std::vector<T> out(canon.size());
  for (size_t i = 0; i < canon.size(); ++i) out[i] = static_cast<T>(canon[i]);
  return out;
}

std::vector<uint8_t> WriteTable(const std::vector<TestColumn>& cols, const WriteOptions& o) {
  std::vector<ColumnSpec> specs;
  for (size_t c = 0; c < cols.size(); ++c) specs.push_back(ColumnSpec{"c" + std::to_string(c), cols[c].type, {}});
  auto w = Writer::CreateInMemory(specs, o);
  REQUIRE(w.ok());
  for (size_t c = 0; c < cols.size(); ++c) {
    const std::vector<uint64_t>& v = cols[c].values;
    Status st;
    switch (cols[c].type) {
      case PhysicalType::kInt8: { auto t = Typed<int8_t>(v); st = w->AppendTyped<int8_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kInt16: { auto t = Typed<int16_t>(v); st = w->AppendTyped<int16_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kInt32: { auto t = Typed<int32_t>(v); st = w->AppendTyped<int32_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kInt64: { auto t = Typed<int64_t>(v); st = w->AppendTyped<int64_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kUInt8: { auto t = Typed<uint8_t>(v); st = w->AppendTyped<uint8_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kUInt16: { auto t = Typed<uint16_t>(v); st = w->AppendTyped<uint16_t>(int(c), t.data(), t.size()); break; }
      case PhysicalType::kUInt32: { auto t = Typed<uint32_t>(v); st = w->AppendTyped<uint32_t>(int(c), t.data(), t.size()); break; }
      default: st = w->AppendTyped<uint64_t>(int(c), v.data(), v.size()); break;
    }
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  REQUIRE(w->Close().ok());
  return w->TakeBuffer();
}

bool Passes(uint64_t v, PhysicalType type, const std::vector<ValuePredicate>& preds) {
  const Int128 x = AsInt(v, type);
  for (const ValuePredicate& p : preds) {
    if (x < AsInt(p.lo, type) || x > AsInt(p.hi, type)) return false;
    if (!p.in.empty() && std::find(p.in.begin(), p.in.end(), v) == p.in.end()) return false;
  }
  return true;
}

ValuePredicate Range(uint64_t lo, uint64_t hi) { return ValuePredicate{lo, hi, {}}; }

Int128 SumOf(const TableScanResult& r) {
  return static_cast<Int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(r.sum_high)) << 64) |
                             r.sum_low);
}

// Runs `where` with every option combination and compares with a naive
// loop over the values.
void Check(const Reader& r, const std::vector<TestColumn>& cols, const std::vector<ColumnPredicates>& where,
           int sum_column, int product_column) {
  const size_t n = cols[0].values.size();
  std::vector<uint64_t> rows;
  Int128 sum = 0;
  bool overflow = false;
  bool has_min_max = false;
  Int128 min_value = 0, max_value = 0;
  for (size_t i = 0; i < n; ++i) {
    bool pass = true;
    for (const ColumnPredicates& w : where) {
      pass = pass && Passes(cols[w.column].values[i], cols[w.column].type, w.predicates);
    }
    if (!pass) continue;
    rows.push_back(i);
    if (sum_column >= 0) {
      const Int128 a = AsInt(cols[sum_column].values[i], cols[sum_column].type);
      if (!has_min_max || a < min_value) min_value = a;
      if (!has_min_max || a > max_value) max_value = a;
      has_min_max = true;
      Int128 term = a;
      if (product_column >= 0) {
        overflow |= __builtin_mul_overflow(a, AsInt(cols[product_column].values[i], cols[product_column].type), &term);
      }
      overflow |= __builtin_add_overflow(sum, term, &sum);
    }
  }
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    TableScanOptions o;
    o.collect_rows = variant != 1;
    o.reorder = variant != 2;
    o.num_threads = variant == 3 ? 3 : 1;
    o.sum_column = sum_column;
    o.product_column = product_column;
    auto s = ScanTable(r, where, o);
    if (overflow) {
      CHECK(s.status().code() == StatusCode::kOutOfRange);
      continue;
    }
    REQUIRE_MESSAGE(s.ok(), s.status().ToString());
    CHECK(s->count == rows.size());
    if (o.collect_rows) {
      CHECK(s->rows == rows);
    } else {
      CHECK(s->rows.empty());
    }
    CHECK((SumOf(*s) == sum));
    CHECK(s->has_min_max == has_min_max);
    if (has_min_max) {
      CHECK((AsInt(s->min_value, cols[sum_column].type) == min_value));
      CHECK((AsInt(s->max_value, cols[sum_column].type) == max_value));
    }
    uint64_t bytes = 0;
    for (const ColumnScanStats& st : s->columns) {
      bytes += st.payload_bytes_read;
      CHECK(st.rows_out <= st.rows_in);
      CHECK(st.partitions_pruned + st.partitions_all_match <= st.partitions_total);
    }
    CHECK(bytes == s->payload_bytes_read);
    // Filtered columns first; the last one leaves the selection.
    size_t filtered = 0;
    for (const ColumnScanStats& st : s->columns) {
      if (st.filtered) CHECK(filtered++ == static_cast<size_t>(&st - s->columns.data()));
      if (!st.filtered) CHECK(st.rows_in + st.rows_out == 0);
    }
    CHECK(filtered >= 1);
    CHECK(s->columns[filtered - 1].rows_out == rows.size());
    // A later column decodes a block only where the rows it reads are at
    // least 1/64 of the block: never more than 64 values per row read.
    for (size_t c = 1; c < s->columns.size(); ++c) {
      const ColumnScanStats& st = s->columns[c];
      const uint64_t read = st.filtered ? st.rows_in : rows.size();
      CHECK(st.values_taken <= read);
      CHECK(st.values_decoded <= 64 * read);
    }
    CHECK(s->columns[0].rows_in == n);
  }
}

std::vector<TestColumn> MakeTable(uint64_t n, std::mt19937_64& rng) {
  std::vector<TestColumn> cols(7);
  cols[0].type = PhysicalType::kUInt32;  // a date-like key, sorted: pruning
  cols[1].type = PhysicalType::kUInt8;   // discount 0..10
  cols[2].type = PhysicalType::kUInt8;   // quantity 1..50
  cols[3].type = PhysicalType::kUInt32;  // price
  cols[4].type = PhysicalType::kInt16;   // signed, both signs
  cols[5].type = PhysicalType::kInt64;   // the type's limits appear
  cols[6].type = PhysicalType::kUInt64;  // the type's limits appear
  for (TestColumn& c : cols) c.values.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    cols[0].values[i] = 19920101 + i / 40 + rng() % 3;
    cols[1].values[i] = rng() % 11;
    cols[2].values[i] = 1 + rng() % 50;
    cols[3].values[i] = 90000 + rng() % 10000000;
    cols[4].values[i] = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(rng())));
    const uint64_t pick = rng() % 50;
    cols[5].values[i] = pick == 0   ? static_cast<uint64_t>(std::numeric_limits<int64_t>::min())
                        : pick == 1 ? static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                                    : static_cast<uint64_t>(static_cast<int64_t>(rng() % 2001) - 1000);
    cols[6].values[i] = pick == 2 ? ~uint64_t{0} : (i / 1000) % 7 == 0 ? 5 : rng() % 100;
  }
  return cols;
}

}  // namespace

TEST_CASE("scan table: every combination matches a naive scan") {
  std::mt19937_64 rng(12);
  const uint64_t n = 120000;
  const std::vector<TestColumn> cols = MakeTable(n, rng);
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    WriteOptions o;
    o.chunk_rows = 50000;  // three chunks
    if (variant == 1) o.write_partition_bounds = false;  // model ranges only
    if (variant == 2) {
      o.write_statistics = false;
      o.profile = Profile::kArchive;
      o.zstd_level = 3;
    }
    const std::vector<uint8_t> f = WriteTable(cols, o);
    auto r = Reader::OpenBuffer(f.data(), f.size());
    REQUIRE(r.ok());
    const ColumnPredicates date{0, {Range(19930101, 19930731)}};
    const ColumnPredicates discount{1, {Range(1, 3)}};
    const ColumnPredicates quantity{2, {Range(0, 24)}};
    // SSB Q1.1-like: three columns, sum of a product of an unfiltered and a
    // filtered column.
    Check(*r, cols, {date, discount, quantity}, 3, 1);
    Check(*r, cols, {quantity, discount, date}, 1, 3);
    // One column, as Scan; a plain sum; no sum.
    Check(*r, cols, {discount}, 3, -1);
    Check(*r, cols, {date}, -1, -1);
    // Empty: a range outside the data, a range outside the type, an IN list
    // without any present value, contradictory predicates on one column.
    Check(*r, cols, {date, ColumnPredicates{1, {Range(11, 200)}}}, 3, 1);
    Check(*r, cols, {ColumnPredicates{2, {Range(300, 1000)}}, discount}, 3, 1);
    Check(*r, cols, {ColumnPredicates{1, {ValuePredicate{0, 255, {20, 30}}}}, quantity}, 3, 2);
    Check(*r, cols, {discount, ColumnPredicates{1, {Range(5, 9)}}}, 3, 1);
    // A rare first column (about one row in 8000): the late columns hold
    // about one selected row per partition and must not decode between them.
    Check(*r, cols, {ColumnPredicates{3, {Range(500000, 501200)}}, ColumnPredicates{1, {Range(0, 9)}}}, 2, -1);
    // Everything selected, then every row through a late column.
    Check(*r, cols, {ColumnPredicates{0, {Range(0, ~uint64_t{0})}}, ColumnPredicates{2, {Range(1, 50)}}}, 3, 1);
    // IN lists on two columns; the same column twice.
    Check(*r, cols, {ColumnPredicates{1, {ValuePredicate{0, 255, {1, 4, 9}}}},
                     ColumnPredicates{2, {ValuePredicate{0, 255, {7, 8, 50}}}},
                     ColumnPredicates{2, {Range(8, 60)}}},
          2, 1);
    // Signed columns and the type limits: sums of products of i64 and u64
    // extremes (i64 min * i64 min = 2^126 fits).
    const uint64_t i64min = static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
    const uint64_t i64max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    const uint64_t minus100 = static_cast<uint64_t>(int64_t{-100});
    Check(*r, cols, {ColumnPredicates{4, {Range(static_cast<uint64_t>(int64_t{-32768}), minus100)}}, discount}, 4, 5);
    Check(*r, cols, {ColumnPredicates{5, {Range(i64min, i64min)}}, ColumnPredicates{4, {Range(minus100, 100)}}}, 5, 5);
    Check(*r, cols, {ColumnPredicates{5, {Range(i64max, i64max)}}}, 5, 4);
    Check(*r, cols, {ColumnPredicates{5, {Range(i64min, minus100)}}, ColumnPredicates{6, {Range(1, 50)}}}, 6, 5);
    Check(*r, cols, {ColumnPredicates{6, {Range(~uint64_t{0}, ~uint64_t{0})}}, ColumnPredicates{4, {Range(0, 10)}}}, 6, 2);
    Check(*r, cols, {ColumnPredicates{6, {Range(5, 5)}}, date}, 4, 6);
    // Random conjunctions on 1..4 columns.
    for (int i = 0; i < 30; ++i) {
      std::vector<ColumnPredicates> where;
      const int k = 1 + static_cast<int>(rng() % 4);
      for (int j = 0; j < k; ++j) {
        const int c = static_cast<int>(rng() % 7);
        const uint64_t a = cols[c].values[rng() % n], b = cols[c].values[rng() % n];
        const bool less = AsInt(a, cols[c].type) <= AsInt(b, cols[c].type);
        where.push_back(ColumnPredicates{c, {less ? Range(a, b) : Range(b, a)}});
      }
      const int sum = static_cast<int>(rng() % 8) - 1;
      const int prod = sum < 0 ? -1 : static_cast<int>(rng() % 8) - 1;
      CAPTURE(i);
      Check(*r, cols, where, sum, prod == 6 && sum == 6 ? 5 : prod);
    }
  }
}

TEST_CASE("scan table: late columns read only the selected rows; stats add up") {
  std::mt19937_64 rng(3);
  const uint64_t n = 200000;
  const std::vector<TestColumn> cols = MakeTable(n, rng);
  const std::vector<uint8_t> f = WriteTable(cols, WriteOptions{});
  auto r = Reader::OpenBuffer(f.data(), f.size());
  REQUIRE(r.ok());
  TableScanOptions o;
  o.sum_column = 3;
  o.product_column = 1;
  // The date range is the most selective: evaluated first, it prunes most
  // partitions; quantity and discount are then read at its rows only.
  auto s = ScanTable(*r, {ColumnPredicates{2, {Range(1, 24)}}, ColumnPredicates{1, {Range(1, 3)}},
                          ColumnPredicates{0, {Range(19930101, 19930131)}}}, o);
  REQUIRE(s.ok());
  REQUIRE(s->columns.size() == 4);
  CHECK(s->columns[0].column == 0);
  CHECK(s->columns[0].partitions_pruned * 2 > s->columns[0].partitions_total);
  CHECK(s->columns[0].values_decoded < n / 10);
  CHECK(s->columns[3].column == 3);  // aggregated only, last
  CHECK(!s->columns[3].filtered);
  CHECK(s->columns[3].rows_in == 0);
  const uint64_t selected_after_date = s->columns[0].rows_out;
  CHECK(s->columns[1].rows_in == selected_after_date);
  CHECK(s->columns[1].values_decoded + s->columns[1].values_taken < n / 10);
  CHECK(s->columns[3].values_decoded + s->columns[3].values_taken < n / 10);
  // The given order when asked.
  o.reorder = false;
  auto given = ScanTable(*r, {ColumnPredicates{2, {Range(1, 24)}}, ColumnPredicates{1, {Range(1, 3)}},
                              ColumnPredicates{0, {Range(19930101, 19930131)}}}, o);
  REQUIRE(given.ok());
  CHECK(given->columns[0].column == 2);
  CHECK(given->rows == s->rows);
  CHECK(given->SumString() == s->SumString());
}

TEST_CASE("scan table: batches and threads over a column of several million rows") {
  const uint64_t n = (uint64_t{5} << 20) / 2 + 12345;  // 80 batches and a partial one
  std::vector<TestColumn> cols(3);
  cols[0].type = PhysicalType::kUInt8;
  cols[1].type = PhysicalType::kUInt8;
  cols[2].type = PhysicalType::kUInt16;
  std::mt19937_64 rng(5);
  for (TestColumn& c : cols) c.values.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    cols[0].values[i] = rng() % 11;
    cols[1].values[i] = (i >> 16) % 50;  // runs: bounds prune and select whole
    cols[2].values[i] = rng() % 60000;
  }
  WriteOptions o;
  o.chunk_rows = 1000000;
  const std::vector<uint8_t> f = WriteTable(cols, o);
  auto r = Reader::OpenBuffer(f.data(), f.size());
  REQUIRE(r.ok());
  Check(*r, cols, {ColumnPredicates{0, {Range(4, 6)}}, ColumnPredicates{1, {Range(26, 35)}}}, 2, 0);
  Check(*r, cols, {ColumnPredicates{1, {Range(10, 10)}}, ColumnPredicates{2, {Range(0, 99)}}}, 2, 1);
}

TEST_CASE("scan table: errors and overflow") {
  std::vector<TestColumn> cols(3);
  cols[0] = {PhysicalType::kUInt64, std::vector<uint64_t>(1000, ~uint64_t{0})};
  cols[1] = {PhysicalType::kInt32, std::vector<uint64_t>(1000, 7)};
  cols[2] = {PhysicalType::kFloat32, {}};
  std::vector<ColumnSpec> specs = {{"a", PhysicalType::kUInt64, {}}, {"b", PhysicalType::kInt32, {}},
                                   {"f", PhysicalType::kFloat32, {}}};
  WriteOptions wo;
  auto w = Writer::CreateInMemory(specs, wo);
  REQUIRE(w.ok());
  REQUIRE(w->AppendTyped<uint64_t>(0, cols[0].values.data(), 1000).ok());
  const std::vector<int32_t> b(1000, 7);
  REQUIRE(w->AppendTyped<int32_t>(1, b.data(), 1000).ok());
  const std::vector<float> fl(1000, 1.5f);
  REQUIRE(w->AppendTyped<float>(2, fl.data(), 1000).ok());
  REQUIRE(w->Close().ok());
  const std::vector<uint8_t> file = w->TakeBuffer();
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  const ColumnPredicates all{1, {Range(0, 100)}};
  CHECK(ScanTable(*r, {}).status().code() == StatusCode::kInvalidArgument);
  CHECK(ScanTable(*r, {ColumnPredicates{1, {}}}).status().code() == StatusCode::kInvalidArgument);
  CHECK(ScanTable(*r, {ColumnPredicates{5, {Range(0, 1)}}}).status().code() == StatusCode::kOutOfRange);
  CHECK(ScanTable(*r, {ColumnPredicates{2, {Range(0, 1)}}}).status().code() == StatusCode::kUnsupportedFeature);
  TableScanOptions o;
  o.product_column = 0;
  CHECK(ScanTable(*r, {all}, o).status().code() == StatusCode::kInvalidArgument);
  o.sum_column = 9;
  CHECK(ScanTable(*r, {all}, o).status().code() == StatusCode::kOutOfRange);
  o.sum_column = 2;
  CHECK(ScanTable(*r, {all}, o).status().code() == StatusCode::kUnsupportedFeature);
  o.num_threads = -1;
  o.sum_column = 0;
  CHECK(ScanTable(*r, {all}, o).status().code() == StatusCode::kInvalidArgument);
  // (2^64 - 1)^2 * 1000 does not fit 128 bits; one product fits unsigned
  // 128 bits but not the signed sum.
  o.num_threads = 1;
  CHECK(ScanTable(*r, {all}, o).status().code() == StatusCode::kOutOfRange);
  // A plain sum of u64 maxima fits; so does the product with the i32.
  o.product_column = -1;
  auto plain = ScanTable(*r, {all}, o);
  REQUIRE(plain.ok());
  CHECK(plain->SumString() == "18446744073709551615000");
  o.product_column = 1;
  auto mixed = ScanTable(*r, {all}, o);
  REQUIRE(mixed.ok());
  CHECK(mixed->SumString() == "129127208515966861305000");
}
