// The GPU table scan (l3/cuda_scan.hpp) against the CPU reference ScanTable
// (l3/scan.hpp) and a naive loop over the values: the same rows, count,
// 128-bit sum and rows after each filter, on generated tables of several
// chunks with every integer type, signed values and type limits, sorted
// columns (DELTA and run partitions), a dictionary column, short SLAP tiles,
// files without partition bounds, and IN lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "l3/cuda_scan.hpp"
#include "l3/scan.hpp"

namespace l3::cuda::testing {
namespace {

using Int128 = __int128;

struct TableColumn {
  PhysicalType type;
  std::vector<uint64_t> values;  // canonical extensions
};

std::vector<uint8_t> WriteTable(const std::vector<TableColumn>& cols, const WriteOptions& options) {
  std::vector<ColumnSpec> specs;
  for (size_t c = 0; c < cols.size(); ++c) specs.push_back(ColumnSpec{"c" + std::to_string(c), cols[c].type, {}});
  Result<Writer> writer = Writer::CreateInMemory(specs, options);
  REQUIRE(writer.ok());
  for (size_t c = 0; c < cols.size(); ++c) {
    const int bytes = PhysicalTypeBytes(cols[c].type);
    std::vector<uint8_t> raw(cols[c].values.size() * bytes);
    for (size_t i = 0; i < cols[c].values.size(); ++i) std::memcpy(&raw[i * bytes], &cols[c].values[i], bytes);
    const Status st = writer->Append(static_cast<int>(c), raw.data(), cols[c].values.size());
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  REQUIRE(writer->Close().ok());
  return writer->TakeBuffer();
}

Int128 AsInt(uint64_t v, PhysicalType type) {
  return PhysicalTypeIsSigned(type) ? Int128{static_cast<int64_t>(v)} : Int128{v};
}

ValuePredicate Range(uint64_t lo, uint64_t hi) { return ValuePredicate{lo, hi, {}}; }

/// The columns of a file uploaded to the device.
struct DeviceTable {
  std::vector<DeviceColumnBuffer> buffers;
  std::vector<DeviceScanColumn> columns;
};

DeviceTable UploadTable(const Reader& reader) {
  DeviceTable t;
  for (int c = 0; c < reader.num_columns(); ++c) {
    Result<DeviceColumnBuffer> b = UploadColumn(reader, c, nullptr);
    REQUIRE_MESSAGE(b.ok(), b.status().ToString());
    t.buffers.push_back(std::move(b).value());
  }
  for (int c = 0; c < reader.num_columns(); ++c) {
    t.columns.push_back(DeviceScanColumn{c, t.buffers[c].chunks().data(), t.buffers[c].chunks().size()});
  }
  return t;
}

/// GPU against CPU for one query, with and without rows, reordered or not.
void Check(const Reader& reader, const DeviceTable& device, const std::vector<TableColumn>& cols,
           const std::vector<ColumnPredicates>& where, int sum_column, int product_column) {
  for (int variant = 0; variant < 2; ++variant) {
    CAPTURE(variant);
    TableScanOptions o;
    o.collect_rows = variant == 0;
    o.reorder = variant == 0;
    o.sum_column = sum_column;
    o.product_column = product_column;
    const Result<TableScanResult> cpu = l3::ScanTable(reader, where, o);
    const Result<TableScanResult> gpu = ScanTable(reader, where, o, device.columns, nullptr);
    REQUIRE(cpu.status().code() == gpu.status().code());
    if (!cpu.ok()) continue;
    CHECK(gpu->count == cpu->count);
    CHECK(gpu->rows == cpu->rows);
    CHECK(gpu->SumString() == cpu->SumString());
    CHECK(gpu->has_min_max == cpu->has_min_max);
    CHECK(gpu->min_value == cpu->min_value);
    CHECK(gpu->max_value == cpu->max_value);
    REQUIRE(gpu->columns.size() == cpu->columns.size());
    for (size_t k = 0; k < cpu->columns.size(); ++k) {
      CAPTURE(k);
      CHECK(gpu->columns[k].column == cpu->columns[k].column);
      CHECK(gpu->columns[k].rows_in == cpu->columns[k].rows_in);
      CHECK(gpu->columns[k].rows_out == cpu->columns[k].rows_out);
      CHECK(gpu->columns[k].partitions_pruned == cpu->columns[k].partitions_pruned);
      CHECK(gpu->columns[k].partitions_all_match == cpu->columns[k].partitions_all_match);
    }
    // And against the values themselves.
    if (o.collect_rows) {
      uint64_t expected = 0;
      for (size_t i = 0; i < cols[0].values.size(); ++i) {
        bool pass = true;
        for (const ColumnPredicates& w : where) {
          const Int128 x = AsInt(cols[w.column].values[i], cols[w.column].type);
          for (const ValuePredicate& p : w.predicates) {
            pass = pass && x >= AsInt(p.lo, cols[w.column].type) && x <= AsInt(p.hi, cols[w.column].type);
            if (!p.in.empty()) {
              pass = pass && std::find(p.in.begin(), p.in.end(), cols[w.column].values[i]) != p.in.end();
            }
          }
        }
        expected += pass;
      }
      CHECK(gpu->count == expected);
    }
  }
}

std::vector<TableColumn> MakeTable(uint64_t n, std::mt19937_64& rng) {
  std::vector<TableColumn> cols(9);
  cols[0].type = PhysicalType::kUInt32;  // a date-like key, sorted: pruning, runs, DELTA
  cols[1].type = PhysicalType::kUInt8;   // discount 0..10
  cols[2].type = PhysicalType::kUInt8;   // quantity 1..50
  cols[3].type = PhysicalType::kUInt32;  // price
  cols[4].type = PhysicalType::kInt16;   // both signs
  cols[5].type = PhysicalType::kInt64;   // the type's limits appear
  cols[6].type = PhysicalType::kUInt64;  // the type's limits appear
  cols[7].type = PhysicalType::kUInt64;  // few distinct large values: a dictionary
  cols[8].type = PhysicalType::kInt32;   // short runs: RUNS_EF partitions
  int64_t run_value = 0;
  const uint64_t dictionary[5] = {1000000007, 3000000000019ull, 77, 1ull << 60, 123456789012345ull};
  for (TableColumn& c : cols) c.values.resize(n);
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
    cols[7].values[i] = dictionary[rng() % 5];
    if (rng() % 5 == 0) run_value = static_cast<int64_t>(rng() % 4000) - 2000;
    cols[8].values[i] = static_cast<uint64_t>(run_value);
  }
  return cols;
}

void RunQueries(const Reader& r, const DeviceTable& d, const std::vector<TableColumn>& cols,
                std::mt19937_64& rng) {
  const uint64_t n = cols[0].values.size();
  const ColumnPredicates date{0, {Range(19930101, 19930731)}};
  const ColumnPredicates discount{1, {Range(1, 3)}};
  const ColumnPredicates quantity{2, {Range(0, 24)}};
  Check(r, d, cols, {date, discount, quantity}, 3, 1);
  Check(r, d, cols, {quantity, discount, date}, 1, 3);
  Check(r, d, cols, {discount}, 3, -1);
  Check(r, d, cols, {date}, -1, -1);
  // Empty selections.
  Check(r, d, cols, {date, ColumnPredicates{1, {Range(11, 200)}}}, 3, 1);
  Check(r, d, cols, {ColumnPredicates{2, {Range(300, 1000)}}, discount}, 3, 1);
  Check(r, d, cols, {ColumnPredicates{1, {ValuePredicate{0, 255, {20, 30}}}}, quantity}, 3, 2);
  // Everything selected.
  Check(r, d, cols, {ColumnPredicates{0, {Range(0, ~uint64_t{0})}}, ColumnPredicates{2, {Range(1, 50)}}}, 3, 1);
  // IN lists; the same column twice; the dictionary column.
  Check(r, d, cols, {ColumnPredicates{1, {ValuePredicate{0, 255, {1, 4, 9}}}},
                     ColumnPredicates{2, {ValuePredicate{0, 255, {7, 8, 50}}}},
                     ColumnPredicates{2, {Range(8, 60)}}},
        2, 1);
  Check(r, d, cols, {ColumnPredicates{7, {Range(78, 1ull << 61)}}, discount}, 7, 1);
  Check(r, d, cols, {ColumnPredicates{7, {ValuePredicate{0, ~uint64_t{0}, {77, 123456789012345ull}}}}}, 3, 7);
  // Signed columns and the type limits, products of extremes, an overflow.
  const uint64_t i64min = static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
  const uint64_t i64max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const uint64_t minus100 = static_cast<uint64_t>(int64_t{-100});
  Check(r, d, cols, {ColumnPredicates{4, {Range(static_cast<uint64_t>(int64_t{-32768}), minus100)}}, discount}, 4, 5);
  Check(r, d, cols, {ColumnPredicates{5, {Range(i64min, i64min)}}, ColumnPredicates{4, {Range(minus100, 100)}}}, 5, 5);
  Check(r, d, cols, {ColumnPredicates{5, {Range(i64max, i64max)}}}, 5, 4);
  Check(r, d, cols, {ColumnPredicates{5, {Range(i64min, minus100)}}, ColumnPredicates{6, {Range(1, 50)}}}, 6, 5);
  Check(r, d, cols, {ColumnPredicates{6, {Range(~uint64_t{0}, ~uint64_t{0})}}, ColumnPredicates{4, {Range(0, 10)}}}, 6, 2);
  Check(r, d, cols, {ColumnPredicates{6, {Range(0, ~uint64_t{0})}}}, 6, 6);  // u64 max squared: overflow
  // The RUNS_EF column as a filter and as the sum.
  Check(r, d, cols, {ColumnPredicates{8, {Range(minus100, 900)}}, discount}, 8, 1);
  for (int i = 0; i < 12; ++i) {
    std::vector<ColumnPredicates> where;
    const int k = 1 + static_cast<int>(rng() % 4);
    for (int j = 0; j < k; ++j) {
      const int c = static_cast<int>(rng() % 9);
      const uint64_t a = cols[c].values[rng() % n], b = cols[c].values[rng() % n];
      const bool less = AsInt(a, cols[c].type) <= AsInt(b, cols[c].type);
      where.push_back(ColumnPredicates{c, {less ? Range(a, b) : Range(b, a)}});
    }
    const int sum = static_cast<int>(rng() % 10) - 1;
    const int prod = sum < 0 ? -1 : static_cast<int>(rng() % 10) - 1;
    CAPTURE(i);
    Check(r, d, cols, where, sum, prod);
  }
}

}  // namespace

TEST_CASE("GPU table scan equals the CPU ScanTable on every query") {
  std::mt19937_64 rng(21);
  const std::vector<TableColumn> cols = MakeTable(150000, rng);
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    WriteOptions o;
    o.chunk_rows = 50000;  // three chunks; blocks of the scan straddle them
    if (variant == 1) o.write_partition_bounds = false;  // model ranges only
    if (variant == 2) o.values_per_lane = 4;             // short tiles
    if (variant == 3) {
      o.write_statistics = false;
      o.chunk_rows = 1 << 26;
    }
    const std::vector<uint8_t> file = WriteTable(cols, o);
    Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    const DeviceTable device = UploadTable(*reader);
    RunQueries(*reader, device, cols, rng);
  }
}

TEST_CASE("GPU table scan: DeviceTableScan runs twice on one upload, with the selection") {
  std::mt19937_64 rng(5);
  const std::vector<TableColumn> cols = MakeTable(40000, rng);
  const std::vector<uint8_t> file = WriteTable(cols, WriteOptions{});
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  const DeviceTable device = UploadTable(*reader);
  TableScanOptions o;
  o.sum_column = 3;
  o.product_column = 1;
  const std::vector<ColumnPredicates> where = {ColumnPredicates{0, {Range(19920301, 19920601)}},
                                               ColumnPredicates{2, {Range(10, 20)}}};
  Result<DeviceTableScan> scan = DeviceTableScan::Plan(*reader, where, o, device.columns);
  REQUIRE(scan.ok());
  DeviceBuffer temp(scan->temp_bytes());
  DeviceBuffer totals(sizeof(DeviceScanTotals));
  const size_t words = (40000 + 31) / 32;
  DeviceBuffer selection(words * 4);
  CHECK(scan->Run(temp.data(), scan->temp_bytes() - 8, static_cast<DeviceScanTotals*>(totals.data()),
                  nullptr, 0, nullptr)
            .code() == StatusCode::kBufferTooSmall);
  CHECK(scan->Run(temp.data(), scan->temp_bytes(), static_cast<DeviceScanTotals*>(totals.data()),
                  static_cast<uint32_t*>(selection.data()), words - 1, nullptr)
            .code() == StatusCode::kBufferTooSmall);
  REQUIRE(scan->Upload(temp.data(), scan->temp_bytes(), nullptr).ok());
  const Result<TableScanResult> cpu = l3::ScanTable(*reader, where, o);
  REQUIRE(cpu.ok());
  for (int run = 0; run < 2; ++run) {
    REQUIRE(cudaMemset(selection.data(), 0x5A, words * 4) == cudaSuccess);
    REQUIRE(scan->Run(temp.data(), scan->temp_bytes(), static_cast<DeviceScanTotals*>(totals.data()),
                      static_cast<uint32_t*>(selection.data()), words, nullptr)
                .ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    DeviceScanTotals t{};
    const std::vector<uint8_t> bytes = totals.ToHost();
    std::memcpy(&t, bytes.data(), sizeof t);
    const Result<TableScanResult> gpu = scan->ToResult(t);
    REQUIRE(gpu.ok());
    CHECK(gpu->count == cpu->count);
    CHECK(gpu->SumString() == cpu->SumString());
    CHECK(gpu->has_min_max);
    CHECK(gpu->min_value == cpu->min_value);
    CHECK(gpu->max_value == cpu->max_value);
    CHECK(gpu->columns[0].rows_out == cpu->columns[0].rows_out);
    const std::vector<uint8_t> bits = selection.ToHost();
    std::vector<uint64_t> rows;
    for (size_t i = 0; i < 40000; ++i) {
      if ((bits[i / 8] >> (i % 8)) & 1) rows.push_back(i);
    }
    CHECK(rows == cpu->rows);
    for (size_t i = 40000; i < words * 32; ++i) CHECK(((bits[i / 8] >> (i % 8)) & 1) == 0);
  }
}

TEST_CASE("GPU table scan: errors") {
  std::mt19937_64 rng(9);
  const std::vector<TableColumn> cols = MakeTable(5000, rng);
  const std::vector<uint8_t> file = WriteTable(cols, WriteOptions{});
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  const DeviceTable device = UploadTable(*reader);
  const std::vector<ColumnPredicates> where = {ColumnPredicates{1, {Range(1, 3)}}};
  TableScanOptions o;
  o.sum_column = 3;
  // A column the scan reads but the caller did not upload.
  std::vector<DeviceScanColumn> missing = {device.columns[1]};
  CHECK(ScanTable(*reader, where, o, missing, nullptr).status().code() == StatusCode::kInvalidArgument);
  // Descriptors of another column.
  std::vector<DeviceScanColumn> swapped = device.columns;
  swapped[3].chunks = device.columns[1].chunks;
  CHECK(ScanTable(*reader, where, o, swapped, nullptr).status().code() == StatusCode::kInvalidArgument);
  // ScanTable's own checks.
  CHECK(ScanTable(*reader, {}, o, device.columns, nullptr).status().code() == StatusCode::kInvalidArgument);
  CHECK(ScanTable(*reader, {ColumnPredicates{11, {Range(0, 1)}}}, o, device.columns, nullptr).status().code() ==
        StatusCode::kOutOfRange);
}

}  // namespace l3::cuda::testing
