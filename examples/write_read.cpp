// Writes two integer columns to an .l3 file batch by batch, reads them back
// whole, by row range and by point lookups, and prints what the file holds.
//
//   build/bin/l3_example_write_read [OUT.l3]
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "l3/l3.hpp"

namespace {

int Fail(const l3::Status& status) {
  std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "example.l3";
  constexpr uint64_t kRows = 1'000'000;
  constexpr uint64_t kBatch = 100'000;

  // --- Write: the file appears at `path` only when Close() succeeds.
  l3::WriteOptions options;  // hot profile: GPUs decode the payload in place
  auto writer = l3::Writer::Create(
      path, {{"timestamp", l3::PhysicalType::kInt64, {}}, {"sensor", l3::PhysicalType::kUInt16, {}}},
      options);
  if (!writer.ok()) return Fail(writer.status());
  std::vector<int64_t> timestamps(kBatch);
  std::vector<uint16_t> sensors(kBatch);
  for (uint64_t first = 0; first < kRows; first += kBatch) {
    for (uint64_t i = 0; i < kBatch; ++i) {
      const uint64_t row = first + i;
      timestamps[i] = 1'700'000'000'000 + static_cast<int64_t>(row * 250 + row % 7);
      sensors[i] = static_cast<uint16_t>(row / 5000 % 64);
    }
    if (auto st = writer->AppendTyped(0, timestamps.data(), kBatch); !st.ok()) return Fail(st);
    if (auto st = writer->AppendTyped(1, sensors.data(), kBatch); !st.ok()) return Fail(st);
  }
  if (auto st = writer->Close(); !st.ok()) return Fail(st);

  // --- Read.
  auto reader = l3::Reader::Open(path);
  if (!reader.ok()) return Fail(reader.status());
  const l3::FileInfo& info = reader->info();
  std::printf("%s: format %u.%u, %" PRIu64 " rows, %" PRIu64 " bytes, written by %s %s\n",
              path.c_str(), info.format_major, info.format_minor, info.num_rows,
              info.file_bytes, info.writer_name.c_str(), info.writer_version.c_str());
  for (int c = 0; c < reader->num_columns(); ++c) {
    const l3::ColumnInfo& col = reader->column(c);
    const uint64_t raw = col.num_rows * l3::PhysicalTypeBytes(col.type);
    std::printf("  %-10s %-4s %zu chunk(s), %" PRIu64 " -> %" PRIu64 " bytes (%.1fx)\n",
                col.name.c_str(), l3::PhysicalTypeName(col.type), col.chunks.size(), raw,
                col.stored_bytes, static_cast<double>(raw) / static_cast<double>(col.stored_bytes));
  }

  // Whole column, then a row range, then point lookups; all must match.
  std::vector<int64_t> all(kRows);
  if (auto st = reader->ReadRows(0, 0, kRows, all.data(), all.size() * sizeof(int64_t)); !st.ok()) {
    return Fail(st);
  }
  std::vector<int64_t> range(1000);
  if (auto st = reader->ReadRows(0, 500'000, 501'000, range.data(), range.size() * 8); !st.ok()) {
    return Fail(st);
  }
  const std::vector<uint64_t> rows = {0, 999'999, 123'456, 123'456};
  std::vector<int64_t> picked(rows.size());
  if (auto st = reader->Take(0, rows.data(), rows.size(), picked.data(), picked.size() * 8);
      !st.ok()) {
    return Fail(st);
  }
  for (uint64_t row = 0; row < kRows; ++row) {
    if (all[row] != 1'700'000'000'000 + static_cast<int64_t>(row * 250 + row % 7)) {
      std::fprintf(stderr, "row %" PRIu64 " differs\n", row);
      return 1;
    }
  }
  for (size_t i = 0; i < range.size(); ++i) {
    if (range[i] != all[500'000 + i]) return 1;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (picked[i] != all[rows[i]]) return 1;
  }

  // Partition metadata and chunk statistics, e.g. for pruning.
  auto partitions = reader->Partitions(1, 0);
  if (!partitions.ok()) return Fail(partitions.status());
  const l3::ChunkStatistics& stats = reader->column(1).chunks[0].statistics;
  std::printf("  sensor chunk 0: %zu partitions, min %" PRIu64 ", max %" PRIu64
              ", %" PRIu64 " distinct; first partition %s, %u rows\n",
              partitions->size(), stats.min_value, stats.max_value, stats.distinct_count,
              l3::ModelTypeName(partitions->front().model), partitions->front().num_rows);

  // Checks every checksum, decodes everything and compares bounds and stats.
  if (auto st = reader->Validate(l3::ValidationLevel::kDeep); !st.ok()) return Fail(st);
  std::printf("lossless, deep validation passed\n");
  return 0;
}
