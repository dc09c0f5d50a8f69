// The CUDA decoder against the CPU reference on chunks built partition by
// partition: every model, every bit width 0..N of every physical type, full
// and partial tiles, runs, several values_per_lane, multi-chunk columns, and
// corrupt device data.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/predictor.hpp"
#include "format/layout.hpp"
#include "gpu_test_util.hpp"

namespace l3::cuda::testing {
namespace {

using internal::Model;

const PhysicalType kAllTypes[] = {PhysicalType::kInt8,   PhysicalType::kInt16, PhysicalType::kInt32,
                                  PhysicalType::kInt64,  PhysicalType::kUInt8, PhysicalType::kUInt16,
                                  PhysicalType::kUInt32, PhysicalType::kUInt64};

/// Partition sizes that hit full tiles, partial tiles with and without a
/// remainder, fewer rows than lanes, and one row (scaled by V below).
const uint32_t kSizes[] = {1, 7, 31, 32, 33, 256, 257, 1000, 2048, 2049, 4096 + 17, 8192};

/// Values of one column, built partition by partition, as canonical 64-bit
/// words; converted to the physical type when encoded.
struct Plan {
  PhysicalType type;
  uint32_t values_per_lane;
  std::vector<uint64_t> values;
  std::vector<internal::PartitionChoice> partitions;
  std::set<std::pair<int, int>> expected;  // (model, width) pairs the plan asks for
};

int TypeBits(PhysicalType t) { return 8 * PhysicalTypeBytes(t); }

/// The N-bit pattern of `v`, canonically extended (spec §8.2).
uint64_t Canonical(uint64_t v, PhysicalType t) {
  return internal::CanonicalExtend(v, TypeBits(t), PhysicalTypeIsSigned(t));
}

/// Uniform on [0, 2^w - 1], hitting both ends once each.
uint64_t Field(std::mt19937_64& rng, uint32_t w, uint32_t i) {
  const uint64_t mask = internal::LowMask(w);
  if (i == 0) return 0;
  if (i == 1) return mask;
  return rng() & mask;
}

void AddFor(Plan& plan, std::mt19937_64& rng, uint32_t w, uint32_t rows) {
  const int n_bits = TypeBits(plan.type);
  // Base: the type's minimum plus a random offset that keeps base + 2^w - 1
  // inside the type's range.
  const uint64_t room = w >= static_cast<uint32_t>(n_bits) ? 0 : internal::LowMask(n_bits) - internal::LowMask(w);
  const uint64_t offset = room == UINT64_MAX ? rng() : rng() % (room + 1);
  const uint64_t type_min = PhysicalTypeIsSigned(plan.type) ? uint64_t{1} << (n_bits - 1) : 0;
  for (uint32_t i = 0; i < rows; ++i) {
    const uint64_t u = Field(rng, w, rows == 1 ? 0 : i);
    plan.values.push_back(Canonical(type_min + offset + u, plan.type));
  }
  plan.partitions.push_back({rows, Model::kFor, std::nullopt});
  plan.expected.insert({1, rows == 1 ? 0 : static_cast<int>(w)});
}

void AddRuns(Plan& plan, std::mt19937_64& rng, uint32_t w, uint32_t rows) {
  // Runs of 1..20 rows whose values span exactly w bits (w = 0: constant).
  uint64_t value = 0;
  uint32_t run_left = 0;
  uint32_t run = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    if (run_left == 0) {
      uint64_t next;
      do {
        next = Field(rng, w, run);
      } while (w > 0 && run > 0 && next == value);  // adjacent runs differ (spec §8.8 rule 5)
      value = next;
      run_left = static_cast<uint32_t>(rng() % 20) + 1;
      ++run;
    }
    plan.values.push_back(Canonical(value, plan.type));
    --run_left;
  }
  plan.partitions.push_back({rows, Model::kConstant, std::nullopt});
}

void AddPredicted(Plan& plan, std::mt19937_64& rng, Model model, uint32_t w, uint32_t rows) {
  const int n_bits = TypeBits(plan.type);
  std::array<double, 4> theta{};
  // 64-bit columns must stay within 2^53 (spec §8.8 rule 3): centre the
  // values at 2^52 and keep the trend small.
  const bool wide_type = n_bits == 64;
  theta[0] = wide_type ? 4503599627370496.0 + 0.25 : (rng() % 100000) + 0.5;
  theta[1] = wide_type ? 0.0 : static_cast<double>(rng() % 4000) / 7.0 - 250.0;
  theta[2] = model >= Model::kPoly2 ? static_cast<double>(rng() % 1000) * 1e-5 - 5e-3 : 0.0;
  theta[3] = model >= Model::kPoly3 ? static_cast<double>(rng() % 1000) * 1e-9 - 5e-7 : 0.0;
  const uint8_t type = static_cast<uint8_t>(model);
  for (uint32_t x = 0; x < rows; ++x) {
    const uint64_t pred = static_cast<uint64_t>(
        internal::PredictRow(type, theta.data(), x, plan.values_per_lane));
    // Residuals in [-2^(w-1), 2^(w-1) - 1], hitting the negative end, so the
    // encoder's minimal width is exactly w.
    const uint64_t field = w == 0 ? 0 : x == 0 ? uint64_t{1} << (w - 1) : rng();
    const int64_t r = internal::SignExtend(field, w);
    plan.values.push_back(Canonical(pred + static_cast<uint64_t>(r), plan.type));
  }
  plan.partitions.push_back({rows, model, theta});
  plan.expected.insert({static_cast<int>(model), static_cast<int>(w)});
}

/// A plan that covers FOR at every width 0..N, LINEAR/POLY2/POLY3 at every
/// width their values allow, constants and runs, cycling through kSizes.
Plan MakeCoveragePlan(PhysicalType type, uint32_t values_per_lane, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Plan plan{type, values_per_lane, {}, {}, {}};
  const uint32_t n_bits = static_cast<uint32_t>(TypeBits(type));
  const double scale = values_per_lane / 64.0;  // sizes relative to the tile
  size_t size_index = 0;
  auto next_size = [&]() {
    const uint32_t s = kSizes[size_index++ % std::size(kSizes)];
    return s <= 33 ? s : std::clamp<uint32_t>(static_cast<uint32_t>(s * scale), 1, 40000);
  };
  // 64-bit predicted partitions are centred at 2^52, so residuals up to 52 bits.
  const uint32_t predicted_max = n_bits == 64 ? 52 : n_bits;
  for (uint32_t w = 0; w <= n_bits; ++w) {
    AddFor(plan, rng, w, next_size());
    if (w <= predicted_max) {
      AddPredicted(plan, rng, Model::kLinear, w, next_size());
      AddPredicted(plan, rng, Model::kPoly2, w, next_size());
      AddPredicted(plan, rng, Model::kPoly3, w, next_size());
    }
    if (w % 4 == 0 || w == n_bits) AddRuns(plan, rng, w, next_size());
  }
  return plan;
}

/// Thousands of partitions of 1..9 rows (more than a block stages at once),
/// mixing every model.
Plan MakeTinyPartitionPlan(PhysicalType type, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Plan plan{type, 64, {}, {}, {}};
  const uint32_t n_bits = static_cast<uint32_t>(TypeBits(type));
  for (int i = 0; i < 3000; ++i) {
    const uint32_t rows = static_cast<uint32_t>(rng() % 9) + 1;
    const uint32_t w = static_cast<uint32_t>(rng() % (std::min(n_bits, 20u) + 1));
    switch (i % 5) {
      case 0: AddFor(plan, rng, w, rows); break;
      case 1: AddPredicted(plan, rng, Model::kLinear, w, rows); break;
      case 2: AddPredicted(plan, rng, Model::kPoly2, w, rows); break;
      case 3: AddPredicted(plan, rng, Model::kPoly3, w, rows); break;
      default: AddRuns(plan, rng, w, rows); break;
    }
  }
  return plan;
}

std::vector<uint8_t> ToTypeBytes(const std::vector<uint64_t>& canonical, PhysicalType type) {
  const int vb = PhysicalTypeBytes(type);
  std::vector<uint8_t> out(canonical.size() * vb);
  for (size_t i = 0; i < canonical.size(); ++i) std::memcpy(&out[i * vb], &canonical[i], vb);
  return out;
}

/// An encoded column of several chunks, its CPU decoding and its device copy.
struct EncodedColumn {
  PhysicalType type;
  std::vector<internal::EncodedChunk> encoded;
  std::vector<ChunkView> views;
  std::vector<UploadedChunk> uploaded;
  std::vector<DeviceChunk> chunks;
  std::vector<uint8_t> original;
  std::vector<uint8_t> cpu;
};

/// Encodes the plan as `num_chunks` chunks (split at partition boundaries),
/// decodes every chunk on the CPU and uploads it.
EncodedColumn EncodePlan(const Plan& plan, size_t num_chunks) {
  EncodedColumn col;
  col.type = plan.type;
  col.original = ToTypeBytes(plan.values, plan.type);
  const int vb = PhysicalTypeBytes(plan.type);
  internal::EncoderConfig config;
  config.type = plan.type;
  config.values_per_lane = plan.values_per_lane;
  const size_t per_chunk = (plan.partitions.size() + num_chunks - 1) / num_chunks;
  uint64_t row = 0;
  for (size_t first = 0; first < plan.partitions.size(); first += per_chunk) {
    const size_t last = std::min(plan.partitions.size(), first + per_chunk);
    std::vector<internal::PartitionChoice> parts(plan.partitions.begin() + first,
                                                 plan.partitions.begin() + last);
    uint64_t rows = 0;
    for (const auto& p : parts) rows += p.num_rows;
    Result<internal::EncodedChunk> enc =
        internal::EncodeChunkWithPartitions(&col.original[row * vb], rows, config, parts);
    INFO(enc.status().ToString());
    REQUIRE(enc.ok());
    col.encoded.push_back(std::move(*enc));
    row += rows;
  }
  row = 0;
  col.cpu.resize(col.original.size());
  for (const internal::EncodedChunk& e : col.encoded) {
    ChunkView view = ViewOf(e, plan.type, row);
    const Status valid = internal::ValidateChunkMetadata(view);
    INFO(valid.ToString());
    REQUIRE(valid.ok());
    const Status decoded = internal::DecodeChunkRows(view, 0, view.num_rows, &col.cpu[row * vb]);
    INFO(decoded.ToString());
    REQUIRE(decoded.ok());
    col.views.push_back(view);
    col.uploaded.push_back(Upload(view));
    col.chunks.push_back(col.uploaded.back().chunk);
    row += view.num_rows;
  }
  REQUIRE(col.cpu == col.original);
  return col;
}

/// (model, width) pairs present in the encoded chunks.
std::set<std::pair<int, int>> ModelsAndWidths(const EncodedColumn& col) {
  std::set<std::pair<int, int>> seen;
  for (const ChunkView& v : col.views) {
    for (uint32_t p = 0; p < v.num_partitions; ++p) {
      const internal::PartitionRecord r = internal::LoadPartitionRecord(v.partition_table, p);
      seen.insert({r.model_type, r.bit_width});
    }
  }
  return seen;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& bytes, uint64_t a, uint64_t b, int vb) {
  return std::vector<uint8_t>(bytes.begin() + a * vb, bytes.begin() + b * vb);
}

TEST_CASE("every model, bit width and type decodes on the GPU as on the CPU") {
  for (PhysicalType type : kAllTypes) {
    for (uint32_t v : {64u, 1u, 8u, 128u, 1024u}) {
      if (v != 64 && type != PhysicalType::kInt32 && type != PhysicalType::kUInt64) continue;
      INFO("type " << PhysicalTypeName(type) << ", values_per_lane " << v);
      const Plan plan = MakeCoveragePlan(type, v, 1000 + static_cast<int>(type) * 31 + v);
      const EncodedColumn col = EncodePlan(plan, 3);
      // The plan must really produce every (model, width) it asks for.
      const std::set<std::pair<int, int>> seen = ModelsAndWidths(col);
      for (const auto& mw : plan.expected) {
        INFO("model " << mw.first << " width " << mw.second);
        CHECK(seen.count(mw) == 1);
      }
      bool has_runs = false;
      for (const auto& mw : seen) has_runs = has_runs || (mw.first == 0 && mw.second > 0);
      CHECK(has_runs);

      const uint64_t n = plan.values.size();
      const int vb = PhysicalTypeBytes(type);
      CHECK(GpuDecode(col.chunks, 0, n) == col.cpu);

      // Full tiles of wide fields through the shared-memory stage, also with
      // a launch hint that understates the widest field (tiles wider than
      // the stage then read from global memory) and within row ranges.
      uint64_t wide_rows = 0;
      for (const DeviceChunk& c : col.chunks) wide_rows += c.wide_full_tile_rows;
      if (TypeBits(type) == 64 && v == 64) CHECK(wide_rows > 0);
      LaunchConfig staged;
      staged.wide_tile_staging = LaunchConfig::WideTileStaging::kOn;
      CHECK(GpuDecode(col.chunks, 0, n, staged) == col.cpu);
      std::vector<DeviceChunk> understated = col.chunks;
      for (DeviceChunk& c : understated) c.max_wide_bit_width = std::min(c.max_wide_bit_width, 40u);
      CHECK(GpuDecode(understated, 0, n, staged) == col.cpu);
      CHECK(GpuDecode(col.chunks, n / 3, n - n / 5, staged) == Slice(col.cpu, n / 3, n - n / 5, vb));
      staged.block_threads = 256;
      CHECK(GpuDecode(col.chunks, 0, n, staged) == col.cpu);

      LaunchConfig persistent;
      persistent.max_blocks = 2;
      persistent.block_threads = 32;
      persistent.span_rows = 1;
      CHECK(GpuDecode(col.chunks, 0, n, persistent) == col.cpu);

      std::mt19937_64 rng(v * 7 + static_cast<int>(type));
      for (int i = 0; i < 16; ++i) {
        const uint64_t a = rng() % n;
        const uint64_t b = a + 1 + rng() % std::min<uint64_t>(n - a, i % 2 ? 300 : n);
        INFO("rows [" << a << ", " << b << ")");
        CHECK(GpuDecode(col.chunks, a, b) == Slice(col.cpu, a, b, vb));
      }
      // Every row through random access, in a shuffled order.
      std::vector<uint64_t> rows(n);
      for (uint64_t i = 0; i < n; ++i) rows[i] = i;
      std::shuffle(rows.begin(), rows.end(), rng);
      const std::vector<uint8_t> taken = GpuTake(col.chunks, rows);
      size_t wrong = 0;
      for (uint64_t i = 0; i < n; ++i) {
        wrong += std::memcmp(&taken[i * vb], &col.cpu[rows[i] * vb], vb) != 0;
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("thousands of tiny partitions decode on the GPU as on the CPU") {
  for (PhysicalType type : {PhysicalType::kInt16, PhysicalType::kUInt32, PhysicalType::kInt64}) {
    INFO("type " << PhysicalTypeName(type));
    const Plan plan = MakeTinyPartitionPlan(type, 42 + static_cast<int>(type));
    const EncodedColumn col = EncodePlan(plan, 2);
    const uint64_t n = plan.values.size();
    const int vb = PhysicalTypeBytes(type);
    CHECK(GpuDecode(col.chunks, 0, n) == col.cpu);
    LaunchConfig persistent;
    persistent.max_blocks = 1;
    CHECK(GpuDecode(col.chunks, 0, n, persistent) == col.cpu);
    CHECK(GpuDecode(col.chunks, n / 5, n - n / 7) == Slice(col.cpu, n / 5, n - n / 7, vb));
  }
}

TEST_CASE("Take returns 0 for row ids outside the column") {
  Plan plan = MakeCoveragePlan(PhysicalType::kUInt32, 64, 5);
  const EncodedColumn col = EncodePlan(plan, 2);
  const uint64_t n = plan.values.size();
  const std::vector<uint64_t> rows = {n, n + 1, UINT64_MAX, 0, n - 1};
  const std::vector<uint8_t> got = GpuTake(col.chunks, rows);
  uint32_t v[5];
  std::memcpy(v, got.data(), sizeof v);
  CHECK(v[0] == 0);
  CHECK(v[1] == 0);
  CHECK(v[2] == 0);
  CHECK(std::memcmp(&v[3], &col.cpu[0], 4) == 0);
  CHECK(std::memcmp(&v[4], &col.cpu[(n - 1) * 4], 4) == 0);
}

TEST_CASE("device-layer argument errors are reported on the host") {
  Plan plan = MakeCoveragePlan(PhysicalType::kInt16, 64, 9);
  const EncodedColumn col = EncodePlan(plan, 2);
  const uint64_t n = plan.values.size();
  DeviceBuffer out(n * 2);
  const DeviceChunk* c = col.chunks.data();
  CHECK(DecodeRows(c, 2, 0, n + 1, out.data(), n * 2, nullptr, 0, nullptr).code() ==
        StatusCode::kOutOfRange);
  CHECK(DecodeRows(c, 2, 5, 4, out.data(), n * 2, nullptr, 0, nullptr).code() ==
        StatusCode::kOutOfRange);
  CHECK(DecodeRows(c, 2, 0, n, out.data(), n * 2 - 1, nullptr, 0, nullptr).code() ==
        StatusCode::kBufferTooSmall);
  CHECK(DecodeRows(c, 2, 0, n, static_cast<uint8_t*>(out.data()) + 1, n * 2, nullptr, 0,
                   nullptr).code() == StatusCode::kInvalidArgument);
  CHECK(DecodeRows(c + 1, 1, 0, 1, out.data(), n * 2, nullptr, 0, nullptr).code() ==
        StatusCode::kOutOfRange);  // the second chunk starts after row 0
  std::vector<DeviceChunk> gap = {col.chunks[1], col.chunks[0]};
  CHECK(DecodeRows(gap.data(), 2, 0, 1, out.data(), n * 2, nullptr, 0, nullptr).code() ==
        StatusCode::kInvalidArgument);
  CHECK(DecodeRows(c, 2, 3, 3, nullptr, 0, nullptr, 0, nullptr).ok());  // empty range
  Result<size_t> temp = DecodeRowsTempBytes(c, 2, 0, n);
  REQUIRE(temp.ok());
  CHECK(*temp == 0);

  // MakeDeviceChunk runs the host-side metadata checks (spec §7.3).
  internal::EncodedChunk broken = col.encoded[0];
  broken.partition_table[13] = 17;  // Bit_Width 17 > N = 16 for partition 0
  const ChunkView view = ViewOf(broken, PhysicalType::kInt16, 0);
  const UploadedChunk& u = col.uploaded[0];
  CHECK(MakeDeviceChunk(view, u.table.data(), u.params.data(), u.payload.data()).status().code() ==
        StatusCode::kCorruptMetadata);
  CHECK(MakeDeviceChunk(col.views[0], static_cast<uint8_t*>(u.table.data()) + 8, u.params.data(),
                        u.payload.data()).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("corrupt device data never makes a kernel leave its buffers") {
  // Run under compute-sanitizer memcheck: the values are garbage, but no
  // access may fall outside the segments or the output (nor the stage of
  // wide tiles, whatever widths the records claim).
  LaunchConfig staged;
  staged.wide_tile_staging = LaunchConfig::WideTileStaging::kOn;
  for (PhysicalType type : {PhysicalType::kUInt8, PhysicalType::kInt32, PhysicalType::kUInt64}) {
    Plan plan = MakeCoveragePlan(type, 64, 77);
    EncodedColumn col = EncodePlan(plan, 1);
    const uint64_t n = plan.values.size();
    std::mt19937_64 rng(11);
    // Random payload bits: run starts out of order, anything.
    std::vector<uint8_t> payload = col.encoded[0].payload;
    for (size_t i = 0; i + 32 < payload.size(); ++i) payload[i] = static_cast<uint8_t>(rng());
    DeviceBuffer d_payload(payload.data(), payload.size());
    DeviceChunk chunk = col.chunks[0];
    chunk.payload = d_payload.data();
    GpuDecode({chunk}, 0, n);
    GpuDecode({chunk}, 0, n, staged);
    std::vector<uint64_t> rows(5000);
    for (uint64_t& r : rows) r = rng() % n;
    GpuTake({chunk}, rows);

    // A device partition table that differs from the validated one: random
    // records, and one with huge offsets and widths.
    std::vector<uint8_t> table = col.encoded[0].partition_table;
    for (size_t i = 16; i + 16 < table.size(); ++i) {
      if (rng() % 5 == 0) table[i] = static_cast<uint8_t>(rng());
    }
    for (int i = 4; i < 16; ++i) table[16 + i] = 0xFF;
    DeviceBuffer d_table(table.data(), table.size());
    chunk = col.chunks[0];
    chunk.partition_table = d_table.data();
    GpuDecode({chunk}, 0, n);
    GpuDecode({chunk}, n / 3, n / 2);
    GpuDecode({chunk}, 0, n, staged);
    chunk.max_wide_bit_width = 33;  // a stage smaller than the widest field
    GpuDecode({chunk}, 0, n, staged);
    GpuTake({chunk}, rows);
    CHECK(cudaGetLastError() == cudaSuccess);
  }
}

}  // namespace
}  // namespace l3::cuda::testing
