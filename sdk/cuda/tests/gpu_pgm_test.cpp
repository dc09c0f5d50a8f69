// Batched PGM lookups on the GPU (spec §11.3) against the CPU reader's
// Reader::LowerBoundBatch and against std::lower_bound over the values:
// every integer type, present and absent keys, keys below the minimum and
// above the maximum, long duplicate runs, single-row and many chunks, DELTA
// and non-DELTA partitions, and device indexes that lie.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gpu_test_util.hpp"
#include "l3/datagen.hpp"
#include "pgm/pgm.hpp"

namespace l3::cuda::testing {
namespace {

const PhysicalType kAllTypes[] = {PhysicalType::kInt8,   PhysicalType::kInt16, PhysicalType::kInt32,
                                  PhysicalType::kInt64,  PhysicalType::kUInt8, PhysicalType::kUInt16,
                                  PhysicalType::kUInt32, PhysicalType::kUInt64};

/// Sorted canonical values of `type`: long runs of duplicates, irregular
/// gaps and both ends of the type's range.
std::vector<uint64_t> SortedCanonical(PhysicalType type, uint64_t n, uint64_t seed) {
  const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(type));
  const bool is_signed = PhysicalTypeIsSigned(type);
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(n);  // ordered keys (spec §11.3.1) within the type's range
  const uint64_t lo = is_signed ? (uint64_t{1} << 63) - (uint64_t{1} << (bits - 1)) : 0;
  const uint64_t span = bits == 64 ? ~uint64_t{0} : internal::LowMask(bits);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    if (i % 97 < 30) r = keys[i > 0 ? i - 1 : 0] - lo;  // runs of duplicates
    keys[i] = lo + (bits == 64 ? r : r % (span + 1));
  }
  std::sort(keys.begin(), keys.end());
  keys.front() = lo;  // the type's minimum and maximum
  keys.back() = lo + span;
  std::vector<uint64_t> canonical(n);
  for (uint64_t i = 0; i < n; ++i) {
    canonical[i] = is_signed ? keys[i] ^ (uint64_t{1} << 63) : keys[i];
  }
  return canonical;
}

std::vector<uint8_t> Pack(const std::vector<uint64_t>& canonical, PhysicalType type) {
  const int bytes = PhysicalTypeBytes(type);
  std::vector<uint8_t> out(canonical.size() * bytes);
  for (size_t i = 0; i < canonical.size(); ++i) std::memcpy(&out[i * bytes], &canonical[i], bytes);
  return out;
}

/// Keys to look up: every value, value - 1 and + 1 (wrapping), the extremes
/// of 64 bits, and random 64-bit keys, as canonical words.
std::vector<uint64_t> Probes(const std::vector<uint64_t>& canonical, uint64_t seed,
                             int random_keys = 2000) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < canonical.size(); i += 1 + rng() % 3) {
    keys.push_back(canonical[i]);
    keys.push_back(canonical[i] - 1);
    keys.push_back(canonical[i] + 1);
  }
  keys.push_back(0);
  keys.push_back(~uint64_t{0});
  keys.push_back(uint64_t{1} << 63);
  keys.push_back((uint64_t{1} << 63) - 1);
  for (int i = 0; i < random_keys; ++i) keys.push_back(rng());
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

/// std::lower_bound over the ordered keys of the column.
uint64_t TrueLowerBound(const std::vector<uint64_t>& canonical, uint64_t key, bool is_signed) {
  const uint64_t flip = is_signed ? uint64_t{1} << 63 : 0;
  uint64_t a = 0, b = canonical.size();
  while (a < b) {
    const uint64_t mid = a + (b - a) / 2;
    if ((canonical[mid] ^ flip) < (key ^ flip)) a = mid + 1; else b = mid;
  }
  return a;
}

/// Batched LowerBound on the device; with `with_temp`, the temporary storage
/// LowerBoundTempBytes asks for (keys grouped by value when there are enough),
/// otherwise none (keys searched as given).
std::vector<uint64_t> GpuLowerBound(const DeviceChunk* chunks, const DevicePgmChunk* pgms,
                                    size_t num_chunks, const std::vector<uint64_t>& keys,
                                    bool with_temp = true) {
  DeviceBuffer d_keys(keys.data(), keys.size() * 8);
  DeviceBuffer d_rows(keys.size() * 8);
  REQUIRE(cudaMemset(d_rows.data(), 0xA5, keys.size() * 8) == cudaSuccess);
  size_t temp_bytes = 0;
  if (with_temp) {
    Result<size_t> temp = LowerBoundTempBytes(chunks, pgms, num_chunks, keys.size());
    REQUIRE(temp.ok());
    temp_bytes = *temp;
  }
  DeviceBuffer d_temp(std::max<size_t>(temp_bytes, 1));
  REQUIRE(LowerBound(chunks, pgms, num_chunks, static_cast<const uint64_t*>(d_keys.data()),
                     keys.size(), static_cast<uint64_t*>(d_rows.data()),
                     with_temp ? d_temp.data() : nullptr, temp_bytes, nullptr)
              .ok());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> bytes = d_rows.ToHost();
  std::vector<uint64_t> rows(keys.size());
  std::memcpy(rows.data(), bytes.data(), bytes.size());
  return rows;
}

std::vector<uint64_t> GpuLowerBound(const DeviceColumnBuffer& column, const DevicePgmBuffer& pgm,
                                    const std::vector<uint64_t>& keys) {
  return GpuLowerBound(column.chunks().data(), pgm.chunks().data(), column.chunks().size(), keys);
}

/// Rows that differ from std::lower_bound over the column's ordered keys.
size_t WrongRows(const std::vector<uint64_t>& rows, const std::vector<uint64_t>& canonical,
                 const std::vector<uint64_t>& keys, bool is_signed) {
  size_t wrong = 0;
  for (size_t i = 0; i < keys.size(); ++i) wrong += rows[i] != TrueLowerBound(canonical, keys[i], is_signed);
  return wrong;
}

/// The sorted canonical values as one column "k" of `type`, written with a
/// PGM index required (and the other `options`).
std::vector<uint8_t> WriteIndexedColumn(PhysicalType type, const std::vector<uint64_t>& canonical,
                                        WriteOptions options) {
  const std::vector<uint8_t> raw = Pack(canonical, type);
  options.pgm = PgmMode::kRequire;
  return WriteColumn("k", type, raw.data(), canonical.size(), options);
}

/// A written column "k" opened from `file` (which must outlive it), with
/// the column and its PGM index uploaded to the device.
struct IndexedOnDevice {
  Reader reader;
  DeviceColumnBuffer column;
  DevicePgmBuffer pgm;
};

IndexedOnDevice OpenOnDevice(const std::vector<uint8_t>& file) {
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  Result<DeviceColumnBuffer> column = UploadColumn(*reader, 0, nullptr);
  REQUIRE(column.ok());
  Result<DevicePgmBuffer> pgm = UploadPgmIndex(*reader, 0, nullptr);
  REQUIRE(pgm.ok());
  return IndexedOnDevice{std::move(*reader), std::move(*column), std::move(*pgm)};
}

void CheckColumn(PhysicalType type, uint64_t n, uint64_t chunk_rows, bool delta, uint64_t seed,
                 int random_keys = 2000, uint32_t values_per_lane = 64) {
  CAPTURE(PhysicalTypeName(type));
  CAPTURE(n);
  CAPTURE(chunk_rows);
  CAPTURE(delta);
  const std::vector<uint64_t> canonical = SortedCanonical(type, n, seed);
  WriteOptions options;
  options.chunk_rows = chunk_rows;
  options.pgm_epsilon = 16;
  options.partitioner.enable_delta = delta;
  options.values_per_lane = values_per_lane;
  const std::vector<uint8_t> file = WriteIndexedColumn(type, canonical, options);
  IndexedOnDevice d = OpenOnDevice(file);
  const DeviceColumnBuffer* column = &d.column;
  const DevicePgmBuffer* pgm = &d.pgm;
  const Reader* reader = &d.reader;
  CHECK(pgm->chunks().size() == column->chunks().size());
  const std::vector<uint64_t> keys = Probes(canonical, seed + 1, random_keys);
  const std::vector<uint64_t> gpu = GpuLowerBound(*column, *pgm, keys);
  // Enough keys to be grouped by value before the search (LowerBoundTempBytes
  // > 0) or not: the same rows either way.
  CHECK((*LowerBoundTempBytes(column->chunks().data(), pgm->chunks().data(), column->chunks().size(),
                              keys.size()) > 0) == (keys.size() >= kLowerBoundSortMinKeys));
  std::vector<uint64_t> cpu(keys.size());
  REQUIRE(reader->LowerBoundBatch(0, keys.data(), keys.size(), cpu.data()).ok());
  size_t wrong = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t truth = TrueLowerBound(canonical, keys[i], PhysicalTypeIsSigned(type));
    if (gpu[i] != cpu[i] || gpu[i] != truth) ++wrong;
  }
  CHECK(wrong == 0);
}

/// Sorted keys as the PGM benchmark draws them: gaps of 1 + a geometric
/// count and, one gap in `rare`, a gap of up to 2^30, so that DELTA
/// partitions carry exceptions (spec §8.9).
std::vector<uint64_t> KeysWithRareGaps(uint64_t n, uint64_t seed, uint64_t rare = 1000) {
  std::mt19937_64 rng(seed);
  std::geometric_distribution<uint64_t> gap(1.0 / 64);
  std::vector<uint64_t> keys(n);
  uint64_t key = 1000;
  for (uint64_t i = 0; i < n; ++i) {
    key += rng() % rare == 0 ? rng() % (uint64_t{1} << 30) : 1 + gap(rng);
    keys[i] = key;
  }
  return keys;
}

/// Grouped lookups (keys at least kLowerBoundSortMinKeys, the temporary
/// storage given) over a u64 column whose partitions are (almost) all DELTA with
/// exceptions: each warp decodes its keys' windows together
/// (WarpDecodeDeltaRows), across tiles and chunks.
void CheckDeltaGrouped(uint64_t n, uint64_t chunk_rows, uint32_t values_per_lane, uint64_t seed) {
  CAPTURE(n);
  CAPTURE(chunk_rows);
  CAPTURE(values_per_lane);
  const std::vector<uint64_t> canonical = KeysWithRareGaps(n, seed);
  WriteOptions options;
  options.chunk_rows = chunk_rows;
  options.values_per_lane = values_per_lane;
  const std::vector<uint8_t> file = WriteIndexedColumn(PhysicalType::kUInt64, canonical, options);
  IndexedOnDevice d = OpenOnDevice(file);
  const DeviceColumnBuffer* column = &d.column;
  const DevicePgmBuffer* pgm = &d.pgm;
  uint64_t delta_rows = 0;
  for (const DeviceChunk& c : column->chunks()) delta_rows += c.delta_rows;
  REQUIRE(delta_rows >= n / 10 * 9);  // the path under test is mostly the DELTA one
  // Keys uniform over the column's range (most fall in the rare gaps, many
  // on one row), every value and its neighbours.
  std::mt19937_64 rng(seed + 1);
  std::vector<uint64_t> keys = Probes(canonical, seed + 2, 0);
  const uint64_t lo = canonical.front() - 5, span = canonical.back() - canonical.front() + 10;
  for (int i = 0; i < 100000; ++i) keys.push_back(lo + rng() % span);
  std::shuffle(keys.begin(), keys.end(), rng);
  REQUIRE(keys.size() >= kLowerBoundSortMinKeys);
  const std::vector<uint64_t> grouped = GpuLowerBound(*column, *pgm, keys);
  const std::vector<uint64_t> as_given = GpuLowerBound(column->chunks().data(), pgm->chunks().data(),
                                                       column->chunks().size(), keys, false);
  size_t wrong = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t truth = TrueLowerBound(canonical, keys[i], false);
    if (grouped[i] != truth || as_given[i] != truth) ++wrong;
  }
  CHECK(wrong == 0);
}

/// Grouped and ungrouped lookups over an archive-profile u64 column of
/// exponential curves of 10000 rows each, which the writer stores as DELTA
/// of order 2 or 3 (spec §8.9): the windows and single rows then sum K
/// times from their tile's Seed words (WarpDecodeDeltaRows, DeltaCursor).
void CheckDeltaOrders(uint64_t chunk_rows, uint32_t values_per_lane, uint64_t seed) {
  CAPTURE(chunk_rows);
  CAPTURE(values_per_lane);
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> canonical = l3::datagen::GenerateExp(60000, seed);
  for (uint64_t& value : canonical) value += 1000;  // so that keys below the first exist
  WriteOptions options;
  options.profile = Profile::kArchive;
  options.chunk_rows = chunk_rows;
  options.values_per_lane = values_per_lane;
  const std::vector<uint8_t> file = WriteIndexedColumn(PhysicalType::kUInt64, canonical, options);
  IndexedOnDevice d = OpenOnDevice(file);
  REQUIRE((d.reader.info().required_features & kRequiredDeltaOrders) != 0);
  std::vector<uint64_t> keys = Probes(canonical, seed + 2, 0);
  const uint64_t lo = canonical.front() - 5, span = canonical.back() - canonical.front() + 10;
  for (int i = 0; i < 100000; ++i) keys.push_back(lo + rng() % span);
  std::shuffle(keys.begin(), keys.end(), rng);
  REQUIRE(keys.size() >= kLowerBoundSortMinKeys);
  const std::vector<uint64_t> grouped = GpuLowerBound(d.column, d.pgm, keys);
  const std::vector<uint64_t> as_given = GpuLowerBound(
      d.column.chunks().data(), d.pgm.chunks().data(), d.column.chunks().size(), keys, false);
  size_t wrong = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t truth = TrueLowerBound(canonical, keys[i], false);
    if (grouped[i] != truth || as_given[i] != truth) ++wrong;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("GPU PGM lookups: DELTA partitions of order 2 and 3") {
  CheckDeltaOrders(uint64_t{1} << 26, 64, 401);  // one chunk, tiles of 2048 rows
  CheckDeltaOrders(25000, 1, 402);               // 3 chunks, tiles of 32 rows
}

TEST_CASE("GPU PGM lookups equal the CPU reader and std::lower_bound (spec §11.3)") {
  uint64_t seed = 1;
  for (PhysicalType type : kAllTypes) {
    CheckColumn(type, 20000, uint64_t{1} << 26, true, seed++);
    CheckColumn(type, 20000, 3000, false, seed++);
  }
  // One-row chunks, a single-row column and chunks that end inside runs.
  CheckColumn(PhysicalType::kInt32, 40, 1, true, 100);
  CheckColumn(PhysicalType::kUInt64, 1, 1, true, 101);
  CheckColumn(PhysicalType::kUInt16, 5000, 97, true, 102);
  // More chunks than one launch takes (32): later groups answer the keys.
  CheckColumn(PhysicalType::kInt64, 30000, 500, true, 103);
  // Keys grouped by value on the device first (at least kLowerBoundSortMinKeys).
  CheckColumn(PhysicalType::kUInt32, 50000, 20000, true, 104, 80000);
  CheckColumn(PhysicalType::kInt16, 50000, 1 << 26, false, 105, 80000);
  // Short SLAP tiles (V = 1 and 4): DELTA windows cross tiles.
  CheckColumn(PhysicalType::kUInt64, 20000, 1 << 26, true, 106, 2000, 4);
  CheckColumn(PhysicalType::kInt32, 20000, 7000, true, 107, 80000, 1);
}

TEST_CASE("GPU PGM lookups: grouped keys over DELTA partitions with exceptions") {
  CheckDeltaGrouped(200000, uint64_t{1} << 26, 64, 201);  // one chunk, tiles of 2048 rows
  CheckDeltaGrouped(150000, 40000, 4, 202);               // 4 chunks, tiles of 128 rows
  CheckDeltaGrouped(90000, 7001, 1, 203);                 // 13 chunks, tiles of 32 rows
}

TEST_CASE("GPU PGM lookups: segments staged in shared memory or read from device memory") {
  // The same keys written with two error bounds: one index small enough for
  // each block to copy into shared memory, one too large; every key in both
  // orders against std::lower_bound.
  const std::vector<uint64_t> canonical = KeysWithRareGaps(150000, 301, 1000000);
  size_t staged = 0, unstaged = 0;
  for (const uint32_t epsilon : {128u, 8u}) {
    CAPTURE(epsilon);
    WriteOptions options;
    options.pgm_epsilon = epsilon;
    const std::vector<uint8_t> file = WriteIndexedColumn(PhysicalType::kUInt64, canonical, options);
    IndexedOnDevice d = OpenOnDevice(file);
    uint64_t segments = 0;
    for (const DevicePgmChunk& g : d.pgm.chunks()) segments += g.level_offsets[g.num_levels];
    (segments <= kPgmSharedSegments ? staged : unstaged) += 1;
    const std::vector<uint64_t> keys = Probes(canonical, 302, 30000);
    REQUIRE(keys.size() >= kLowerBoundSortMinKeys);
    for (const bool grouped : {false, true}) {
      CAPTURE(grouped);
      const std::vector<uint64_t> rows = GpuLowerBound(d.column.chunks().data(), d.pgm.chunks().data(),
                                                       d.column.chunks().size(), keys, grouped);
      CHECK(WrongRows(rows, canonical, keys, false) == 0);
    }
  }
  CHECK(staged == 1);  // both paths ran
  CHECK(unstaged == 1);
}

TEST_CASE("GPU PGM lookups: an index that lies costs a search, never a wrong row") {
  const PhysicalType type = PhysicalType::kUInt32;
  const uint64_t n = 50000;
  const std::vector<uint64_t> canonical = SortedCanonical(type, n, 7);
  const std::vector<uint8_t> file = WriteIndexedColumn(type, canonical, WriteOptions());
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  Result<DeviceColumnBuffer> column = UploadColumn(*reader, 0, nullptr);
  REQUIRE(column.ok());
  // A leaf level whose intercepts are all shifted: structurally valid
  // (spec §11.3.4) but its windows miss.
  ChunkInfo chunk = reader->column(0).chunks[0];
  PgmIndexInfo& p = chunk.pgm;
  const uint32_t leaf = p.level_offsets[1];
  for (uint32_t i = 0; i < leaf; ++i) p.intercepts[i] = std::min<uint64_t>(p.intercepts[i] / 2, n);
  // And upper levels whose windows miss too (when there are upper levels).
  for (size_t i = leaf; i < p.intercepts.size(); ++i) p.intercepts[i] /= 3;
  REQUIRE(internal::ValidatePgmIndex(p, n).ok());
  REQUIRE(p.num_levels() >= 2);
  const size_t s = p.keys.size();
  DeviceBuffer keys_d(p.keys.data(), 8 * s), slopes_d(p.slopes.data(), 4 * s),
      intercepts_d(p.intercepts.data(), 8 * s);
  Result<DevicePgmChunk> g = MakeDevicePgmChunk(
      chunk, type, static_cast<const uint64_t*>(keys_d.data()),
      static_cast<const float*>(slopes_d.data()), static_cast<const uint64_t*>(intercepts_d.data()));
  REQUIRE(g.ok());
  const std::vector<uint64_t> keys = Probes(canonical, 8);
  REQUIRE(keys.size() >= kLowerBoundSortMinKeys);
  for (const bool grouped : {false, true}) {
    CAPTURE(grouped);
    const std::vector<uint64_t> rows = GpuLowerBound(column->chunks().data(), &*g, 1, keys, grouped);
    CHECK(WrongRows(rows, canonical, keys, false) == 0);
  }
}

TEST_CASE("GPU PGM lookups: chunk statistics that lie never give a wrong row") {
  // Statistics are checked by deep validation only (spec §10.3): a maximum
  // below the chunk's real one must not make the lookup skip the chunk.
  const PhysicalType type = PhysicalType::kInt64;
  const uint64_t n = 30000;
  const std::vector<uint64_t> canonical = SortedCanonical(type, n, 11);
  WriteOptions options;
  options.chunk_rows = 4000;
  const std::vector<uint8_t> file = WriteIndexedColumn(type, canonical, options);
  IndexedOnDevice d = OpenOnDevice(file);
  const DeviceColumnBuffer* column = &d.column;
  std::vector<DevicePgmChunk> lying = d.pgm.chunks();
  REQUIRE(lying.size() > 3);
  for (DevicePgmChunk& g : lying) {
    REQUIRE(g.has_min_max);
    g.max_key = g.min_key;  // every chunk claims all its rows equal its minimum
  }
  const std::vector<uint64_t> keys = Probes(canonical, 12, 40000);
  REQUIRE(keys.size() >= kLowerBoundSortMinKeys);
  for (const bool grouped : {false, true}) {
    CAPTURE(grouped);
    const std::vector<uint64_t> rows =
        GpuLowerBound(column->chunks().data(), lying.data(), lying.size(), keys, grouped);
    CHECK(WrongRows(rows, canonical, keys, true) == 0);
  }
}

TEST_CASE("GPU PGM lookups: host checks before any launch") {
  const std::vector<uint64_t> canonical = SortedCanonical(PhysicalType::kUInt64, 1000, 9);
  const std::vector<uint8_t> raw = Pack(canonical, PhysicalType::kUInt64);
  WriteOptions plain;
  const std::vector<uint8_t> file = WriteColumn("k", PhysicalType::kUInt64, raw.data(), 1000, plain);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  // No index: a specific error, not an empty lookup.
  CHECK(UploadPgmIndex(*reader, 0, nullptr).status().code() == StatusCode::kUnsupportedFeature);
  CHECK(MakeDevicePgmChunk(reader->column(0).chunks[0], PhysicalType::kUInt64, nullptr, nullptr,
                           nullptr)
            .status()
            .code() == StatusCode::kUnsupportedFeature);
  // A corrupt index is rejected on the host (spec §11.3.4).
  WriteOptions indexed;
  indexed.pgm = PgmMode::kRequire;
  const std::vector<uint8_t> file2 = WriteColumn("k", PhysicalType::kUInt64, raw.data(), 1000, indexed);
  Result<Reader> reader2 = Reader::OpenBuffer(file2.data(), file2.size());
  REQUIRE(reader2.ok());
  ChunkInfo chunk = reader2->column(0).chunks[0];
  chunk.pgm.intercepts[0] = 5000;  // beyond num_keys
  DeviceBuffer dummy(64);
  const auto* p64 = static_cast<const uint64_t*>(dummy.data());
  CHECK(MakeDevicePgmChunk(chunk, PhysicalType::kUInt64, p64, reinterpret_cast<const float*>(p64), p64)
            .status()
            .code() == StatusCode::kCorruptMetadata);
  // Descriptors that do not match their chunk, and null key arrays.
  Result<DeviceColumnBuffer> column = UploadColumn(*reader2, 0, nullptr);
  REQUIRE(column.ok());
  Result<DevicePgmBuffer> pgm = UploadPgmIndex(*reader2, 0, nullptr);
  REQUIRE(pgm.ok());
  DevicePgmChunk bad = pgm->chunks()[0];
  bad.num_keys = 999;
  DeviceBuffer rows(8);
  CHECK(LowerBound(column->chunks().data(), &bad, 1, p64, 1, static_cast<uint64_t*>(rows.data()),
                   nullptr, 0, nullptr)
            .code() == StatusCode::kInvalidArgument);
  CHECK(LowerBound(column->chunks().data(), pgm->chunks().data(), 1, nullptr, 1,
                   static_cast<uint64_t*>(rows.data()), nullptr, 0, nullptr)
            .code() == StatusCode::kInvalidArgument);
}

}  // namespace l3::cuda::testing
