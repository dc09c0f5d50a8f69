// PATCHED_FOR (spec §8.12) on the GPU: files the CPU writer fills with
// PATCHED_FOR partitions (values in a narrow range with rare outliers, every
// integer type, V = 1, 64 and 1024, exceptions in row 0 and the last row,
// partitions of Bit_Width 0 with exceptions, partial tiles) decoded whole,
// by ranges cut inside tiles, by random rows (Take) and by the fused table
// scan, each byte for byte against the CPU reader. Every file is checked to
// hold PATCHED_FOR partitions first, so no case passes on FOR alone; some
// of them with their exception rows in the Elias-Fano code (Rows_EF).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "format/layout.hpp"
#include "gpu_test_util.hpp"
#include "l3/cuda_scan.hpp"
#include "l3/scan.hpp"

namespace l3::cuda::testing {
namespace {

/// Values in [17, 80] (or [0, 3] for 8-bit types) with about 1% outliers up
/// to 2^20 (the type's limits for 8-bit types; a few full-width values for
/// 64-bit types, negative ones for signed types), an outlier in row 0 and in
/// the last row, and a stretch of one value with 5% outliers (Bit_Width 0
/// partitions with exceptions).
template <typename T>
std::vector<T> OutlierValues(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr bool kNarrow = sizeof(T) == 1;
  const uint64_t top =
      kNarrow ? static_cast<uint64_t>(std::numeric_limits<T>::max()) : uint64_t{1} << 20;
  auto outlier = [&]() -> T {
    if (sizeof(T) == 8 && rng() % 8 == 0) return static_cast<T>(rng());
    if (std::is_signed_v<T> && rng() % 4 == 0) {
      const uint64_t low = kNarrow ? 128 : top;
      return static_cast<T>(-static_cast<int64_t>(rng() % low) - 1);
    }
    return static_cast<T>(top / 2 + rng() % (top / 2));
  };
  std::vector<T> v(n);
  const uint64_t flat_begin = n / 3, flat_end = n / 3 + 6000;
  for (uint64_t i = 0; i < n; ++i) {
    if (i >= flat_begin && i < flat_end) {
      v[i] = rng() % 20 == 0 ? outlier() : static_cast<T>(kNarrow ? 2 : 50);
    } else if (rng() % 100 == 0) {
      v[i] = outlier();
    } else {
      v[i] = static_cast<T>(kNarrow ? rng() % 4 : 17 + rng() % 64);
    }
  }
  v[0] = outlier();
  v[n - 1] = outlier();
  return v;
}

struct PatchedCounts {
  uint64_t partitions = 0;
  uint64_t zero_width = 0;
  uint64_t rows_ef = 0;  // exception rows in the Elias-Fano code (spec §8.12)
  // Rows_EF with l <= 2 (more than 1/8 of the rows exceptions): with
  // Bit_Width 0 the GPU decodes these through a bitmap of the exception rows
  // (PatchForTileRowsEfBitmap), with Bit_Width > 0 32 exceptions a round.
  uint64_t dense_rows_ef = 0;
  uint64_t dense_rows_ef_fields = 0;
};

PatchedCounts CountPatchedFor(const Reader& reader, int column) {
  PatchedCounts counts;
  const ColumnInfo& info = reader.column(column);
  for (size_t c = 0; c < info.chunks.size(); ++c) {
    Result<std::vector<PartitionInfo>> parts = reader.Partitions(column, static_cast<int>(c));
    REQUIRE_MESSAGE(parts.ok(), parts.status().ToString());
    for (const PartitionInfo& p : *parts) {
      if (p.model != ModelType::kPatchedFor) continue;
      ++counts.partitions;
      counts.zero_width += p.bit_width == 0;
      const bool rows_ef = ((p.params[1] >> 41) & 1) != 0;  // Rows_EF
      counts.rows_ef += rows_ef;
      const uint64_t exceptions = p.params[1] & 0xFFFFFFFFu;  // E
      // l = bitlen(floor(n / E)) - 1 <= 2
      const bool dense = rows_ef && exceptions > 0 && p.num_rows / exceptions < 8;
      counts.dense_rows_ef += dense;
      counts.dense_rows_ef_fields += dense && p.bit_width > 0;
    }
  }
  return counts;
}

template <typename T>
void CheckType(PhysicalType type, uint32_t values_per_lane, uint64_t n, uint64_t seed,
               PatchedCounts* total) {
  CAPTURE(PhysicalTypeName(type));
  CAPTURE(values_per_lane);
  const std::vector<T> values = OutlierValues<T>(n, seed);
  WriteOptions options;
  options.values_per_lane = values_per_lane;
  options.chunk_rows = n / 2 + 77;  // two chunks, the second ending in a partial tile
  options.partitioner.patched_for_min_gain = 0.0;  // PATCHED_FOR wherever it is smaller
  const std::vector<uint8_t> file = WriteColumn("x", type, values.data(), n, options);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
  const PatchedCounts counts = CountPatchedFor(*reader, 0);
  CHECK(counts.partitions > 0);
  total->partitions += counts.partitions;
  total->zero_width += counts.zero_width;
  total->rows_ef += counts.rows_ef;
  CheckColumnAgainstCpu(*reader, 0, values.data(), seed);

  // Ranges cut inside tiles around every PATCHED_FOR partition's edges.
  std::vector<uint8_t> cpu(n * sizeof(T));
  REQUIRE(reader->ReadRows(0, 0, n, cpu.data(), cpu.size()).ok());
  Result<DeviceColumnBuffer> uploaded = UploadColumn(*reader, 0, nullptr);
  REQUIRE_MESSAGE(uploaded.ok(), uploaded.status().ToString());
  const std::vector<DeviceChunk>& chunks = uploaded->chunks();
  uint64_t patched_rows = 0;
  for (const DeviceChunk& c : chunks) patched_rows += c.patched_for_rows;
  CHECK(patched_rows > 0);
  const ColumnInfo& info = reader->column(0);
  int checked = 0;
  for (size_t c = 0; c < info.chunks.size() && checked < 24; ++c) {
    Result<std::vector<PartitionInfo>> parts = reader->Partitions(0, static_cast<int>(c));
    REQUIRE(parts.ok());
    for (const PartitionInfo& p : *parts) {
      if (p.model != ModelType::kPatchedFor || checked >= 24) continue;
      const uint64_t first = info.chunks[c].first_row + p.first_row;
      const uint64_t a = first + (p.num_rows > 3 ? 3 : 0);
      const uint64_t b = std::min<uint64_t>(n, first + p.num_rows - (p.num_rows > 5 ? 5 : 0) + 9);
      if (a >= b) continue;
      CAPTURE(a);
      CAPTURE(b);
      const std::vector<uint8_t> expected(cpu.begin() + a * sizeof(T), cpu.begin() + b * sizeof(T));
      CHECK(GpuDecode(chunks, a, b) == expected);
      ++checked;
    }
  }
}

template <typename T>
void CheckEveryV(PhysicalType type, uint64_t seed, PatchedCounts* total) {
  CheckType<T>(type, 64, 50000, seed, total);
  CheckType<T>(type, 1, 9001, seed + 1, total);
  CheckType<T>(type, 1024, 70001, seed + 2, total);
}

}  // namespace

// One case per type, so that a run (or compute-sanitizer) can pick types.
// ZERO_WIDTH: the files are known to hold PATCHED_FOR partitions of
// Bit_Width 0 (the writer of 8ab1ec7 writes none in the int64 files).
#define L3_PATCHED_FOR_TYPE_CASE(T, TYPE, SEED, ZERO_WIDTH)                                      \
  TEST_CASE("PATCHED_FOR partitions decode on the GPU as on the CPU: " #T ", V = 1, 64, 1024") { \
    PatchedCounts total;                                                                         \
    CheckEveryV<T>(PhysicalType::TYPE, SEED, &total);                                            \
    MESSAGE("PATCHED_FOR partitions: " << total.partitions << ", of Bit_Width 0: "              \
                                       << total.zero_width << ", Rows_EF: " << total.rows_ef);   \
    if (ZERO_WIDTH) CHECK(total.zero_width > 0);                                                 \
    CHECK(total.rows_ef > 0);                                                                    \
  }

L3_PATCHED_FOR_TYPE_CASE(int8_t, kInt8, 11, true)
L3_PATCHED_FOR_TYPE_CASE(uint8_t, kUInt8, 21, true)
L3_PATCHED_FOR_TYPE_CASE(int16_t, kInt16, 31, true)
L3_PATCHED_FOR_TYPE_CASE(uint16_t, kUInt16, 41, true)
L3_PATCHED_FOR_TYPE_CASE(int32_t, kInt32, 51, true)
L3_PATCHED_FOR_TYPE_CASE(uint32_t, kUInt32, 61, true)
L3_PATCHED_FOR_TYPE_CASE(int64_t, kInt64, 71, false)
L3_PATCHED_FOR_TYPE_CASE(uint64_t, kUInt64, 81, true)

#undef L3_PATCHED_FOR_TYPE_CASE

namespace {

template <typename T>
void CheckDeviceEncoder(PhysicalType type, uint64_t seed) {
  WriteOptions gpu;
  gpu.partitioner.patched_for_min_gain = 0.0;  // PATCHED_FOR wherever it is smaller
  REQUIRE(UseGpuWriter(&gpu).ok());
  for (uint32_t v : {64u, 1u, 1024u}) {
    CAPTURE(PhysicalTypeName(type));
    CAPTURE(v);
    const uint64_t n = v == 1 ? 9001 : 50001;
    const std::vector<T> values = OutlierValues<T>(n, seed + v);
    internal::EncoderConfig config;
    config.type = type;
    config.values_per_lane = v;
    config.partitioner.split_min_rows = 0u;
    Result<internal::EncodedChunk> cpu = internal::EncodeChunk(values.data(), n, config);
    REQUIRE_MESSAGE(cpu.ok(), cpu.status().ToString());
    REQUIRE(cpu->uses_patched_for);
    config.planner = gpu.partition_planner.get();
    internal::EncodedChunk device;
    const Status status = config.planner->Encode(values.data(), n, config, &device);
    REQUIRE_MESSAGE(status.ok(), status.ToString());
    CHECK(device.uses_patched_for);
    CHECK(device.uses_patched_rows_ef == cpu->uses_patched_rows_ef);
    CHECK(device.num_partitions == cpu->num_partitions);
    CHECK(device.partition_table == cpu->partition_table);
    CHECK(device.parameters == cpu->parameters);
    CHECK(device.payload == cpu->payload);
    CHECK(device.bounds == cpu->bounds);
  }
}

}  // namespace

TEST_CASE("PATCHED_FOR Rows_EF: dense and sparse exception lists decode as on the CPU") {
  // Dense: 53% of the rows one value, the rest over 7 bits (Bit_Width 0 with
  // Rows_EF, l = 1); denser: 40% one value (more than half of the rows
  // exceptions, l = 0, the shape of adult census hours per week); with
  // fields: 60% of the rows 40 or 41 (Bit_Width 1, l = 1, the shape of
  // education numbers). The first two decode through the GPU's
  // exception-row bitmap, the others 32 exceptions a round. Sparse: 5%
  // nonzero rows of up to 12 bits. Whole, ranges, random rows and the device
  // writer's bytes, V = 64, 1 and 1024.
  std::mt19937_64 rng(77);
  const uint64_t n = 60001;
  std::vector<uint32_t> dense(n), denser(n), fields(n), sparse(n);
  for (uint32_t& x : dense) x = rng() % 100 < 53 ? 40 : 1 + static_cast<uint32_t>(rng() % 99);
  for (uint32_t& x : denser) x = rng() % 100 < 40 ? 40 : 1 + static_cast<uint32_t>(rng() % 99);
  for (uint32_t& x : fields) {
    x = rng() % 100 < 60 ? 40 + static_cast<uint32_t>(rng() % 2)
                         : 1 + static_cast<uint32_t>(rng() % 99);
  }
  for (uint32_t& x : sparse) x = rng() % 100 < 5 ? 1 + static_cast<uint32_t>(rng() % 4000) : 0;
  for (const std::vector<uint32_t>* values : {&dense, &denser, &fields, &sparse}) {
    for (const uint32_t v : {64u, 1u, 1024u}) {
      CAPTURE(v);
      CAPTURE(values - &dense);
      WriteOptions options;
      options.values_per_lane = v;
      const std::vector<uint8_t> file =
          WriteColumn("x", PhysicalType::kUInt32, values->data(), n, options);
      Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
      const PatchedCounts counts = CountPatchedFor(*reader, 0);
      CHECK(counts.rows_ef > 0);
      CHECK((counts.dense_rows_ef > 0) == (values != &sparse));
      if (values == &fields) CHECK(counts.dense_rows_ef_fields > 0);
      CheckColumnAgainstCpu(*reader, 0, values->data(), v);

      internal::EncoderConfig config;
      config.type = PhysicalType::kUInt32;
      config.values_per_lane = v;
      config.partitioner.split_min_rows = 0u;
      Result<internal::EncodedChunk> cpu = internal::EncodeChunk(values->data(), n, config);
      REQUIRE_MESSAGE(cpu.ok(), cpu.status().ToString());
      CHECK(cpu->uses_patched_rows_ef);
      WriteOptions gpu;
      REQUIRE(UseGpuWriter(&gpu).ok());
      config.planner = gpu.partition_planner.get();
      internal::EncodedChunk device;
      const Status status = config.planner->Encode(values->data(), n, config, &device);
      REQUIRE_MESSAGE(status.ok(), status.ToString());
      CHECK(device.uses_patched_rows_ef);
      CHECK(device.partition_table == cpu->partition_table);
      CHECK(device.parameters == cpu->parameters);
      CHECK(device.payload == cpu->payload);
    }
  }
}

TEST_CASE("the device encoder writes PATCHED_FOR partitions as the CPU encoder") {
  CheckDeviceEncoder<int8_t>(PhysicalType::kInt8, 100);
  CheckDeviceEncoder<uint8_t>(PhysicalType::kUInt8, 200);
  CheckDeviceEncoder<int16_t>(PhysicalType::kInt16, 300);
  CheckDeviceEncoder<uint16_t>(PhysicalType::kUInt16, 400);
  CheckDeviceEncoder<int32_t>(PhysicalType::kInt32, 500);
  CheckDeviceEncoder<uint32_t>(PhysicalType::kUInt32, 600);
  CheckDeviceEncoder<int64_t>(PhysicalType::kInt64, 700);
  CheckDeviceEncoder<uint64_t>(PhysicalType::kUInt64, 800);
}

TEST_CASE("PATCHED_FOR: a launch without the exception decoders leaves its rows alone") {
  // DeviceChunk::patched_for_rows is a contract: with it cleared, the lean
  // kernels write no PATCHED_FOR row (the poison stays) and stay inside
  // their buffers; with it set, every row decodes.
  const uint64_t n = 20000;
  const std::vector<uint32_t> values = OutlierValues<uint32_t>(n, 5);
  const std::vector<uint8_t> file = WriteColumn("x", PhysicalType::kUInt32, values.data(), n, {});
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  REQUIRE(CountPatchedFor(*reader, 0).partitions > 0);
  Result<DeviceColumnBuffer> uploaded = UploadColumn(*reader, 0, nullptr);
  REQUIRE(uploaded.ok());
  std::vector<DeviceChunk> chunks = uploaded->chunks();
  std::vector<uint8_t> expected(values.size() * 4);
  std::memcpy(expected.data(), values.data(), expected.size());
  CHECK(GpuDecode(chunks, 0, n) == expected);
  if (chunks[0].delta_rows == 0 && chunks[0].dictionary_entries == 0 &&
      chunks[0].runs_ef_rows == 0) {
    for (DeviceChunk& c : chunks) c.patched_for_rows = 0;
    CHECK(GpuDecode(chunks, 0, n) != expected);
  }
}

TEST_CASE("PATCHED_FOR: corrupt exception rows stay inside the buffers") {
  // The device path checks metadata only (MakeDeviceChunk); exception rows
  // that do not increase or reach past n (spec §8.12: CORRUPT_PAYLOAD for
  // the CPU reader) must give wrong values at worst. Run under
  // compute-sanitizer to see that no access leaves the buffers.
  const uint64_t n = 30000;
  for (uint32_t v : {64u, 1u}) {
    CAPTURE(v);
    const std::vector<uint32_t> values = OutlierValues<uint32_t>(n, 9 + v);
    internal::EncoderConfig config;
    config.type = PhysicalType::kUInt32;
    config.values_per_lane = v;
    Result<internal::EncodedChunk> encoded = internal::EncodeChunk(values.data(), n, config);
    REQUIRE(encoded.ok());
    std::mt19937_64 rng(v);
    int scrambled = 0;
    for (uint32_t p = 0; p < encoded->num_partitions; ++p) {
      const uint8_t* table = encoded->partition_table.data();
      const internal::PartitionRecord rec = internal::LoadPartitionRecord(table, p);
      const internal::PartitionRecord next = internal::LoadPartitionRecord(table, p + 1);
      if (rec.model_type != static_cast<uint8_t>(internal::Model::kPatchedFor)) continue;
      // Every payload byte from the first exception row's word on: rows
      // past n, rows out of order, any high parts.
      const uint64_t rows = next.first_row - rec.first_row;
      const uint64_t from = 8 * (rec.payload_offset + rows * rec.bit_width / 64);
      const uint64_t to = 8 * uint64_t{next.payload_offset};
      for (uint64_t b = from; b < to; ++b) encoded->payload[b] = static_cast<uint8_t>(rng() | 0x80);
      ++scrambled;
    }
    REQUIRE(scrambled > 0);
    const UploadedChunk up = Upload(ViewOf(*encoded, PhysicalType::kUInt32, 0));
    const std::vector<DeviceChunk> chunks{up.chunk};
    CHECK(chunks[0].patched_for_rows > 0);
    CHECK(GpuDecode(chunks, 0, n).size() == n * 4);
    CHECK(GpuDecode(chunks, 1000, 7077).size() == 6077 * 4);
    std::vector<uint64_t> rows(5000);
    for (uint64_t& r : rows) r = rng() % n;
    CHECK(GpuTake(chunks, rows).size() == rows.size() * 4);
  }
}

TEST_CASE("PATCHED_FOR columns in the GPU table scan equal the CPU ScanTable") {
  const uint64_t n = 120000;
  const std::vector<uint32_t> a = OutlierValues<uint32_t>(n, 7);
  const std::vector<int64_t> b = OutlierValues<int64_t>(n, 8);
  for (uint32_t v : {64u, 4u}) {
    CAPTURE(v);
    WriteOptions options;
    options.chunk_rows = 50000;
    options.values_per_lane = v;
    options.partitioner.patched_for_min_gain = 0.0;
    Result<Writer> writer = Writer::CreateInMemory(
        {ColumnSpec{"a", PhysicalType::kUInt32, {}}, ColumnSpec{"b", PhysicalType::kInt64, {}}},
        options);
    REQUIRE(writer.ok());
    REQUIRE(writer->Append(0, a.data(), n).ok());
    REQUIRE(writer->Append(1, b.data(), n).ok());
    REQUIRE(writer->Close().ok());
    const std::vector<uint8_t> file = writer->TakeBuffer();
    Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    REQUIRE(CountPatchedFor(*reader, 0).partitions > 0);
    REQUIRE(CountPatchedFor(*reader, 1).partitions > 0);
    std::vector<DeviceColumnBuffer> buffers;
    std::vector<DeviceScanColumn> columns;
    for (int c = 0; c < 2; ++c) {
      Result<DeviceColumnBuffer> up = UploadColumn(*reader, c, nullptr);
      REQUIRE(up.ok());
      buffers.push_back(std::move(up).value());
    }
    for (int c = 0; c < 2; ++c) {
      columns.push_back(
          DeviceScanColumn{c, buffers[c].chunks().data(), buffers[c].chunks().size()});
    }
    const std::vector<std::vector<ColumnPredicates>> queries = {
        {ColumnPredicates{0, {ValuePredicate{20, 60, {}}}}},
        {ColumnPredicates{0, {ValuePredicate{1000, 0xFFFFFFFFu, {}}}}},  // the outliers only
        {ColumnPredicates{1, {ValuePredicate{static_cast<uint64_t>(int64_t{-5}), 30, {}}}},
         ColumnPredicates{0, {ValuePredicate{0, 40, {}}}}},
        {ColumnPredicates{1,
                          {ValuePredicate{500000, static_cast<uint64_t>(int64_t{1} << 40), {}}}}},
    };
    for (size_t q = 0; q < queries.size(); ++q) {
      for (int sum = 0; sum < 2; ++sum) {
        CAPTURE(q);
        CAPTURE(sum);
        TableScanOptions o;
        o.collect_rows = true;
        o.sum_column = sum;
        const Result<TableScanResult> cpu = l3::ScanTable(*reader, queries[q], o);
        const Result<TableScanResult> gpu = ScanTable(*reader, queries[q], o, columns, nullptr);
        REQUIRE(cpu.ok());
        REQUIRE_MESSAGE(gpu.ok(), gpu.status().ToString());
        CHECK(gpu->count == cpu->count);
        CHECK(gpu->rows == cpu->rows);
        CHECK(gpu->SumString() == cpu->SumString());
      }
    }
  }
}

}  // namespace l3::cuda::testing
