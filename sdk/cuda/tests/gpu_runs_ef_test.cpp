// The CUDA decoder of RUNS_EF partitions (spec §8.11) on chunks built here by
// hand, without the CPU writer: runs of one row (R = n), R = 2, a few long
// runs, many short ones, every Bit_Width 1..N, u8/u16/u32/u64/i32/i64,
// partitions of up to 65536 rows, V in {1, 8, 64, 1024}; whole-column
// decodes (blocks of 4 and 8 warps), ranges that start mid-run and mid-tile,
// small spans (every tile found by rank), and Take; checked against the
// runs themselves. A corrupt payload must decode without a fault (run under
// compute-sanitizer memcheck).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "codec/runs/runs_ef_layout.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"
#include "gpu_test_util.hpp"

namespace l3::cuda::testing {
namespace {

using internal::LowMask;
using internal::Model;

/// One RUNS_EF partition: run i starts at starts[i] (starts[0] = 0) and
/// holds field i (w bits) above Base.
struct RunsEfPartition {
  uint64_t rows;
  std::vector<uint64_t> starts;
  std::vector<uint64_t> fields;
  uint32_t w;
  uint64_t base;  // canonical extension (spec §8.2)
};

/// A chunk of RUNS_EF partitions as the three segments of spec §7 and the
/// values its rows decode to (canonical extensions).
struct HandChunk {
  PhysicalType type;
  uint32_t values_per_lane;
  std::vector<uint8_t> table;
  std::vector<uint64_t> params;
  std::vector<uint64_t> payload;
  std::vector<uint64_t> values;
};

int TypeBits(PhysicalType t) { return 8 * PhysicalTypeBytes(t); }

/// spec §8.11 payload of one partition, payload_words(p) words.
std::vector<uint64_t> EncodeRunsEf(const RunsEfPartition& p) {
  const uint64_t runs = p.starts.size();
  const internal::RunsEfLayout g = internal::MakeRunsEfLayout(p.rows, runs, p.w);
  std::vector<uint64_t> words(internal::RunsEfPayloadWords(p.rows, runs, p.w) + 1, 0);
  uint8_t* bytes = reinterpret_cast<uint8_t*>(words.data());
  for (uint64_t i = 0; i < runs; ++i) internal::WriteField(bytes, i * p.w, p.w, p.fields[i]);
  for (uint64_t i = 1; i < runs; ++i) {
    internal::WriteField(bytes, g.low_bit0 + (i - 1) * g.low_bits, g.low_bits,
                         p.starts[i] & LowMask(g.low_bits));
    internal::WriteField(bytes, g.high_bit0 + (p.starts[i] >> g.low_bits) + (i - 1), 1, 1);
  }
  words.pop_back();  // the spare word WriteField may touch
  return words;
}

void AppendRecord(std::vector<uint8_t>& table, uint32_t first_row, uint32_t payload_offset,
                  uint32_t param_offset, uint8_t model, uint8_t width) {
  const size_t at = table.size();
  table.resize(at + internal::kPartitionRecordBytes);
  internal::StorePartitionRecord(table.data(), at / internal::kPartitionRecordBytes,
                                 {first_row, payload_offset, param_offset, model, width, 0});
}

HandChunk BuildChunk(PhysicalType type, uint32_t V, const std::vector<RunsEfPartition>& parts) {
  HandChunk c{type, V, {}, {}, {}, {}};
  const int n_bits = TypeBits(type);
  for (const RunsEfPartition& p : parts) {
    AppendRecord(c.table, static_cast<uint32_t>(c.values.size()), static_cast<uint32_t>(c.payload.size()),
                 static_cast<uint32_t>(c.params.size()), static_cast<uint8_t>(Model::kRunsEf),
                 static_cast<uint8_t>(p.w));
    c.params.push_back(p.base);              // Base
    c.params.push_back(p.starts.size());     // Num_Runs
    const std::vector<uint64_t> words = EncodeRunsEf(p);
    c.payload.insert(c.payload.end(), words.begin(), words.end());
    for (uint64_t x = 0, run = 0; x < p.rows; ++x) {
      while (run + 1 < p.starts.size() && p.starts[run + 1] <= x) ++run;
      c.values.push_back(internal::CanonicalExtend(p.base + p.fields[run], n_bits,
                                                   PhysicalTypeIsSigned(type)));
    }
  }
  AppendRecord(c.table, static_cast<uint32_t>(c.values.size()), static_cast<uint32_t>(c.payload.size()),
               static_cast<uint32_t>(c.params.size()), 0, 0);  // the sentinel
  c.payload.resize(c.payload.size() + internal::kPayloadPaddingBytes / 8, 0);
  return c;
}

/// The chunk's segments on the device and its descriptor, filled by hand
/// (MakeDeviceChunk needs the CPU's RUNS_EF metadata checks).
struct DeviceHandChunk {
  DeviceBuffer table, params, payload;
  DeviceChunk chunk;
};

DeviceHandChunk Upload(const HandChunk& c) {
  DeviceHandChunk d;
  d.table = DeviceBuffer(c.table.data(), c.table.size());
  d.params = DeviceBuffer(c.params.data(), c.params.size() * 8);
  d.payload = DeviceBuffer(c.payload.data(), c.payload.size() * 8);
  d.chunk.type = c.type;
  d.chunk.column_type = c.type;
  d.chunk.first_row = 0;
  d.chunk.num_rows = c.values.size();
  d.chunk.values_per_lane = c.values_per_lane;
  d.chunk.num_partitions = static_cast<uint32_t>(c.table.size() / 16 - 1);
  d.chunk.partition_table = d.table.data();
  d.chunk.parameters = d.params.data();
  d.chunk.parameters_bytes = c.params.size() * 8;
  d.chunk.payload = d.payload.data();
  d.chunk.payload_bytes = c.payload.size() * 8;
  d.chunk.runs_ef_rows = c.values.size();
  return d;
}

/// Rows [a, b) of the expected values as the bytes of the physical type.
std::vector<uint8_t> Bytes(const HandChunk& c, uint64_t a, uint64_t b) {
  const int vb = PhysicalTypeBytes(c.type);
  std::vector<uint8_t> out((b - a) * vb);
  for (uint64_t r = a; r < b; ++r) std::memcpy(out.data() + (r - a) * vb, &c.values[r], vb);
  return out;
}

/// Starts of `runs` runs over n rows (shape 0: random places; 1: run lengths
/// 1..4 from row 0, as many as fit).
std::vector<uint64_t> MakeStarts(std::mt19937_64& rng, uint64_t n, uint64_t runs) {
  std::vector<uint64_t> rows(n - 1);
  for (uint64_t i = 0; i < n - 1; ++i) rows[i] = i + 1;
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<uint64_t> starts(rows.begin(), rows.begin() + (runs - 1));
  starts.push_back(0);
  std::sort(starts.begin(), starts.end());
  return starts;
}

RunsEfPartition MakePartition(std::mt19937_64& rng, PhysicalType type, uint64_t n, int shape,
                              uint32_t w) {
  RunsEfPartition p{n, {}, {}, w, 0};
  uint64_t runs = 2;
  switch (shape) {
    case 0: runs = n; break;                                        // runs of one row
    case 1: runs = 2; break;                                        // R = 2
    case 2: runs = std::min<uint64_t>(n, 2 + rng() % 6); break;     // a few long runs
    case 3: runs = std::max<uint64_t>(2, n * 2 / 5); break;         // many short runs
    default: runs = 2 + rng() % (n - 1); break;                     // anything
  }
  p.starts = MakeStarts(rng, n, runs);
  p.fields.resize(runs);
  for (uint64_t i = 0; i < runs; ++i) p.fields[i] = i < 2 ? (i == 0 ? 0 : LowMask(w)) : rng() & LowMask(w);
  const int n_bits = TypeBits(type);
  p.base = internal::CanonicalExtend(rng(), n_bits, PhysicalTypeIsSigned(type));
  return p;
}

void CheckChunk(const HandChunk& c, std::mt19937_64& rng) {
  DeviceHandChunk d = Upload(c);
  const uint64_t n = c.values.size();
  const uint64_t tile_rows = uint64_t{32} * c.values_per_lane;
  CHECK(GpuDecode({d.chunk}, 0, n) == Bytes(c, 0, n));
  // Spans of one tile: every warp finds its first run by rank.
  LaunchConfig small;
  small.span_rows = static_cast<uint32_t>(tile_rows);
  CHECK(GpuDecode({d.chunk}, 0, n, small) == Bytes(c, 0, n));
  // Eight warps a block: each has its own shared stage.
  LaunchConfig wide;
  wide.block_threads = 256;
  CHECK(GpuDecode({d.chunk}, 0, n, wide) == Bytes(c, 0, n));
  // Ranges from mid-tile and mid-run rows, short and long.
  for (int k = 0; k < 12; ++k) {
    uint64_t a = rng() % n;
    if (k == 0) a = std::min<uint64_t>(n - 1, tile_rows + 17);
    const uint64_t b = k % 3 == 0 ? n : std::min<uint64_t>(n, a + 1 + rng() % (k % 2 ? 40 : 5000));
    CAPTURE(a);
    CAPTURE(b);
    CHECK(GpuDecode({d.chunk}, a, b) == Bytes(c, a, b));
    if (k < 4) CHECK(GpuDecode({d.chunk}, a, b, small) == Bytes(c, a, b));
  }
  std::vector<uint64_t> rows(2000);
  for (uint64_t& r : rows) r = rng() % n;
  rows[0] = 0;
  rows[1] = n - 1;
  const std::vector<uint8_t> took = GpuTake({d.chunk}, rows);
  const int vb = PhysicalTypeBytes(c.type);
  std::vector<uint8_t> expect(rows.size() * vb);
  for (size_t i = 0; i < rows.size(); ++i) std::memcpy(expect.data() + i * vb, &c.values[rows[i]], vb);
  CHECK(took == expect);
}

const PhysicalType kTypes[] = {PhysicalType::kUInt8,  PhysicalType::kUInt16, PhysicalType::kUInt32,
                               PhysicalType::kUInt64, PhysicalType::kInt32,  PhysicalType::kInt64};

TEST_CASE("RUNS_EF partitions of every shape, width and type decode on the GPU") {
  std::mt19937_64 rng(41);
  const uint64_t sizes[] = {2, 3, 31, 33, 256, 1000, 2048, 2049, 5000, 65536};
  for (PhysicalType type : kTypes) {
    uint32_t w = 1;  // every width 1..N in turn, over the chunks
    for (uint32_t V : {1u, 8u, 64u, 1024u}) {
      CAPTURE(PhysicalTypeName(type));
      CAPTURE(V);
      std::vector<RunsEfPartition> parts;
      for (uint64_t n : sizes) {
        for (int shape = 0; shape < 5; ++shape) {
          parts.push_back(MakePartition(rng, type, n, shape, w));
          w = w % static_cast<uint32_t>(TypeBits(type)) + 1;  // every width 1..N in turn
        }
      }
      CheckChunk(BuildChunk(type, V, parts), rng);
    }
  }
}

TEST_CASE("a RUNS_EF chunk of one 65536-row partition, each shape alone") {
  std::mt19937_64 rng(43);
  for (int shape = 0; shape < 5; ++shape) {
    CAPTURE(shape);
    const PhysicalType type = shape % 2 == 0 ? PhysicalType::kUInt32 : PhysicalType::kInt64;
    CheckChunk(BuildChunk(type, 64, {MakePartition(rng, type, 65536, shape, 1 + shape * 7)}), rng);
  }
}

TEST_CASE("corrupt RUNS_EF payloads never make a kernel leave its buffers") {
  // Run under compute-sanitizer memcheck: random bits in the values, low
  // parts and H (too many or too few ones, starts out of order), with the
  // padding left zero and then filled too; the values are garbage.
  std::mt19937_64 rng(47);
  for (PhysicalType type : {PhysicalType::kUInt8, PhysicalType::kUInt64}) {
    std::vector<RunsEfPartition> parts;
    for (uint64_t n : {2ull, 100ull, 4000ull, 65536ull}) {
      for (int shape = 0; shape < 5; ++shape) parts.push_back(MakePartition(rng, type, n, shape, 5));
    }
    HandChunk c = BuildChunk(type, 64, parts);
    const uint64_t n = c.values.size();
    for (int variant = 0; variant < 3; ++variant) {
      const size_t padding = internal::kPayloadPaddingBytes / 8;
      for (size_t i = 0; i + padding < c.payload.size(); ++i) {
        uint64_t v = rng();
        if (variant == 1) v &= rng() & rng();  // few ones
        if (variant == 2) v |= rng() | rng();  // many ones
        c.payload[i] = v;
      }
      if (variant == 2) {
        for (size_t i = c.payload.size() - padding; i < c.payload.size(); ++i) c.payload[i] = ~0ull;
      }
      DeviceHandChunk d = Upload(c);
      LaunchConfig small;
      small.span_rows = 32 * 64;
      GpuDecode({d.chunk}, 0, n);
      GpuDecode({d.chunk}, 0, n, small);
      GpuDecode({d.chunk}, n / 3, n / 2);
      std::vector<uint64_t> rows(3000);
      for (uint64_t& r : rows) r = rng() % n;
      GpuTake({d.chunk}, rows);
    }
    // A device table whose RUNS_EF records claim other parameters: Num_Runs
    // out of range must make the partition fail its device checks.
    std::vector<uint64_t> params = c.params;
    for (size_t i = 1; i < params.size(); i += 2) params[i] = i % 4 == 1 ? 1 : ~0ull;
    DeviceHandChunk d = Upload(c);
    DeviceBuffer d_params(params.data(), params.size() * 8);
    d.chunk.parameters = d_params.data();
    GpuDecode({d.chunk}, 0, n);
    CHECK(cudaGetLastError() == cudaSuccess);
  }
}

}  // namespace
}  // namespace l3::cuda::testing
