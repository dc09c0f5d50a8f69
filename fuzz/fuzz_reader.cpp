// fuzz_reader.cpp: fuzz target 1, an .l3 file held in memory.
//
// Opens the input with Reader::OpenBuffer (spec §4.2, §6, §10.2 on open),
// validates it structurally and deeply (§10.2, §10.3), and decodes every
// column through each public path: Partitions, GetChunkView, a full ReadRows,
// range reads, Take, and on indexed columns LowerBound and Find (§11.3). A
// second Reader that skips segment checksums (ReadOptions::verify_checksums)
// reads the same rows.
//
// Properties (abort on violation, see fuzz_check.hpp):
// - every failure is one of the spec's error classes (§10.1);
// - a file that passes structural validation lists its partitions and chunk
//   views; a file that passes deep validation decodes every row it is asked
//   for;
// - reads of the same rows agree: full read, range reads, Take, and the
//   Reader that skips checksums (which may only succeed where the verifying
//   one fails, never disagree with it);
// - on a column whose decoded values are non-decreasing, LowerBound and Find
//   give the row a binary search over the values gives (spec §11.3.3: a
//   wrong index may cost time, never a wrong answer).
//
// Resource limits are lowered (ReadOptions, spec §13) so that a small input
// cannot claim its way past libFuzzer's memory limit; at most kMaxRowsRead
// rows, and kMaxBytesRead bytes of rows (or one row), of a column are decoded
// per call.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "l3/l3.hpp"

namespace l3::fuzz {
namespace {

constexpr uint64_t kMaxRowsRead = uint64_t{1} << 16;
constexpr uint64_t kWindowRows = 257;
// Rows of up to 2^24 values (spec §11.2.1) make a row up to 128 MiB: the
// harness's own buffers are bounded in bytes too (at least one row).
constexpr uint64_t kMaxBytesRead = uint64_t{16} << 20;

void CheckLookups(const Reader& reader, int c, const std::vector<uint8_t>& values,
                  uint64_t rows) {
  const PhysicalType type = reader.column(c).type;
  std::vector<uint64_t> keys;  // ordered keys of the column, which covers `rows`
  keys.reserve(rows);
  for (uint64_t i = 0; i < rows; ++i) keys.push_back(OrderedKey(WordAt(values.data(), i, type), type));
  const bool sorted = std::is_sorted(keys.begin(), keys.end());

  std::vector<uint64_t> probes = {0, ~uint64_t{0}, uint64_t{1} << 63};
  for (uint64_t i : {uint64_t{0}, rows / 2, rows - 1}) {
    probes.push_back(keys[i]);
    probes.push_back(keys[i] + 1);
    probes.push_back(keys[i] - 1);
  }
  std::vector<uint64_t> lookup_keys;
  for (uint64_t ordered : probes) lookup_keys.push_back(OrderedKey(ordered, type));  // back to canonical
  for (size_t i = 0; i < probes.size(); ++i) {
    Result<uint64_t> lb = reader.LowerBound(c, lookup_keys[i]);
    ExpectClass(lb.status(), "LowerBound");
    Result<std::optional<uint64_t>> found = reader.Find(c, lookup_keys[i]);
    ExpectClass(found.status(), "Find");
    if (!sorted) continue;
    const uint64_t expected =
        static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), probes[i]) - keys.begin());
    L3_FUZZ_CHECK(lb.ok(), "LowerBound on a sorted column that decodes: " + lb.status().ToString());
    L3_FUZZ_CHECK(*lb == expected, "LowerBound " + std::to_string(*lb) + " != " +
                                       std::to_string(expected));
    L3_FUZZ_CHECK(found.ok(), "Find on a sorted column that decodes: " + found.status().ToString());
    const bool present = expected < rows && keys[expected] == probes[i];
    L3_FUZZ_CHECK(found->has_value() == present && (!present || **found == expected),
                  "Find disagrees with the decoded values");
  }
  std::vector<uint64_t> batch(probes.size());
  Status st = reader.LowerBoundBatch(c, lookup_keys.data(), lookup_keys.size(), batch.data());
  ExpectClass(st, "LowerBoundBatch");
  if (sorted) {
    L3_FUZZ_CHECK(st.ok(), "LowerBoundBatch on a sorted column: " + st.ToString());
    for (size_t i = 0; i < probes.size(); ++i) {
      L3_FUZZ_CHECK(batch[i] == static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(),
                                                                      probes[i]) - keys.begin()),
                    "LowerBoundBatch disagrees with the decoded values");
    }
  }
}

void ExerciseColumn(const Reader& reader, const Reader& unverified, int c, bool structural_ok,
                    bool deep_ok) {
  const ColumnInfo& col = reader.column(c);
  // Bytes per row: a tensor column's rows hold row_width values (spec §11.2.1).
  const int width = PhysicalTypeBytes(col.type) * static_cast<int>(col.row_width);
  const uint64_t rows = col.num_rows;
  // Values a chunk's partitions cover per row: row_width for a float chunk in
  // the integer form (spec §11.2.2), 1 otherwise; IBP chunks have none.
  const uint64_t values_per_row = PhysicalTypeIsFloat(col.type) ? col.row_width : 1;

  uint64_t chunk_rows = 0;
  bool all_indexed = !col.chunks.empty();
  for (int k = 0; k < static_cast<int>(col.chunks.size()); ++k) {
    const ChunkInfo& chunk = col.chunks[static_cast<size_t>(k)];
    L3_FUZZ_CHECK(chunk.first_row == chunk_rows, "chunks do not cover the rows in order");
    chunk_rows += chunk.num_rows;
    all_indexed = all_indexed && chunk.pgm.present;
    Result<std::vector<PartitionInfo>> parts = reader.Partitions(c, k);
    ExpectClass(parts.status(), "Partitions");
    L3_FUZZ_CHECK(parts.ok() || !structural_ok, "Partitions after structural validation passed: " +
                                                    parts.status().ToString());
    if (parts.ok()) {
      L3_FUZZ_CHECK(parts->size() == chunk.num_partitions, "Partitions: wrong count");
      uint64_t covered = 0;
      for (const PartitionInfo& p : *parts) {
        L3_FUZZ_CHECK(p.first_row == covered && p.num_rows > 0, "Partitions: rows not covered");
        covered += p.num_rows;
      }
      // A dictionary chunk's partitions cover its D entries, then its rows
      // (spec §8.10).
      if (chunk.encoding != 2) {
        L3_FUZZ_CHECK(covered == chunk.dictionary_entries + chunk.num_rows * values_per_row,
                      "Partitions: rows not covered");
      }
    }
    Result<ChunkView> view = reader.GetChunkView(c, k);
    ExpectClass(view.status(), "GetChunkView");
    L3_FUZZ_CHECK(view.ok() || !structural_ok, "GetChunkView after structural validation passed: " +
                                                   view.status().ToString());
    if (view.ok()) {
      // The integer form's view counts values (rows * row_width).
      const uint64_t per_row = view->encoding == 1 ? values_per_row : 1;
      L3_FUZZ_CHECK(view->num_rows == chunk.num_rows * per_row &&
                        view->first_row == chunk.first_row * per_row &&
                        view->num_partitions == chunk.num_partitions,
                    "GetChunkView disagrees with ChunkInfo");
    }
  }
  L3_FUZZ_CHECK(chunk_rows == rows, "chunk rows do not add up to the column's");
  if (rows == 0) return;

  // The first kMaxRowsRead rows, through both Readers.
  const uint64_t rows_in_budget =
      std::max<uint64_t>(1, kMaxBytesRead / std::max<uint64_t>(1, static_cast<uint64_t>(width)));
  const uint64_t n = std::min({rows, kMaxRowsRead, rows_in_budget});
  const bool whole = n == rows;
  std::vector<uint8_t> full(static_cast<size_t>(n * width));
  Status st_full = reader.ReadRows(c, 0, n, full.data(), full.size());
  ExpectClass(st_full, "ReadRows");
  L3_FUZZ_CHECK(st_full.ok() || !deep_ok, "ReadRows after deep validation passed: " +
                                              st_full.ToString());
  std::vector<uint8_t> again(full.size());
  Status st_again = unverified.ReadRows(c, 0, n, again.data(), again.size());
  ExpectClass(st_again, "ReadRows (checksums not verified)");
  if (st_full.ok()) {
    L3_FUZZ_CHECK(st_again.ok(), "the Reader without checksums fails where the verifying one "
                                 "reads: " + st_again.ToString());
    L3_FUZZ_CHECK(again == full, "the Reader without checksums decodes other values");
  }

  // Windows at the start, in the middle and at the end of the column.
  const uint64_t span = std::min({rows, kWindowRows, rows_in_budget});
  for (uint64_t begin : {uint64_t{0}, (rows - span) / 2, rows - span}) {
    std::vector<uint8_t> window(static_cast<size_t>(span * width));
    Status st = reader.ReadRows(c, begin, begin + span, window.data(), window.size());
    ExpectClass(st, "ReadRows (range)");
    L3_FUZZ_CHECK(st.ok() || !deep_ok, "range read after deep validation passed: " + st.ToString());
    if (whole && st_full.ok()) {
      L3_FUZZ_CHECK(st.ok(), "a range fails to decode rows the full read decoded: " + st.ToString());
    }
    if (st.ok() && st_full.ok() && begin + span <= n) {
      L3_FUZZ_CHECK(std::memcmp(window.data(), full.data() + begin * width, window.size()) == 0,
                    "a range read disagrees with the full read");
    }
  }

  // Point lookups, repeated and out of order.
  std::vector<uint64_t> points = {rows - 1, 0, rows / 2, rows - 1, rows / 3, 0};
  for (uint64_t i = 1; i < 16 && i < rows; i += 5) points.push_back(rows - 1 - i);
  if (points.size() > rows_in_budget) points.resize(static_cast<size_t>(rows_in_budget));
  std::vector<uint8_t> taken(points.size() * static_cast<size_t>(width));
  Status st_take = reader.Take(c, points.data(), points.size(), taken.data(), taken.size());
  ExpectClass(st_take, "Take");
  L3_FUZZ_CHECK(st_take.ok() || !deep_ok, "Take after deep validation passed: " + st_take.ToString());
  if (whole && st_full.ok()) {
    L3_FUZZ_CHECK(st_take.ok(), "Take fails on rows the full read decoded: " + st_take.ToString());
  }
  if (st_take.ok() && st_full.ok()) {
    for (size_t i = 0; i < points.size(); ++i) {
      if (points[i] >= n) continue;
      L3_FUZZ_CHECK(std::memcmp(taken.data() + i * width, full.data() + points[i] * width,
                                static_cast<size_t>(width)) == 0,
                    "Take disagrees with the full read at row " + std::to_string(points[i]));
    }
  }

  if (all_indexed && whole && st_full.ok()) CheckLookups(reader, c, full, rows);
}

}  // namespace
}  // namespace l3::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace l3;
  using namespace l3::fuzz;
  Result<Reader> opened = Reader::OpenBuffer(data, size, FuzzReadOptions(true));
  Result<Reader> unverified = Reader::OpenBuffer(data, size, FuzzReadOptions(false));
  ExpectClass(opened.status(), "OpenBuffer");
  // Segment checksums are not part of the open (spec §10.2).
  L3_FUZZ_CHECK(opened.status().code() == unverified.status().code(),
                "the open depends on verify_checksums: " + opened.status().ToString() + " / " +
                    unverified.status().ToString());
  if (!opened.ok()) return 0;
  const Reader& reader = *opened;

  const Status structural = reader.Validate(ValidationLevel::kStructural);
  ExpectClass(structural, "Validate(kStructural)");
  const Status deep = reader.Validate(ValidationLevel::kDeep);
  ExpectClass(deep, "Validate(kDeep)");
  L3_FUZZ_CHECK(!deep.ok() || structural.ok(), "deep validation passes where structural fails: " +
                                                   structural.ToString());
  for (int c = 0; c < reader.num_columns(); ++c) {
    ExerciseColumn(reader, *unverified, c, structural.ok(), deep.ok());
  }
  // Validation does not depend on what was decoded before it.
  L3_FUZZ_CHECK(reader.Validate(ValidationLevel::kStructural).code() == structural.code(),
                "structural validation changed after reads");
  return 0;
}
