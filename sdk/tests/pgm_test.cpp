// PGM learned indexes (spec §11.3): the window guarantee of the
// segmentation, Reader::LowerBound / Find against std::lower_bound on every
// integer type, writer modes, and the checks of a stored index.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "container_test_util.hpp"
#include "l3/l3.hpp"
#include "pgm/pgm.hpp"

using namespace l3;

namespace {

template <typename T>
constexpr PhysicalType TypeOf() {
  if constexpr (std::is_same_v<T, int8_t>) return PhysicalType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return PhysicalType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return PhysicalType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return PhysicalType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return PhysicalType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return PhysicalType::kUInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return PhysicalType::kUInt32;
  return PhysicalType::kUInt64;
}

// Sorted values spanning the type's whole range, with long duplicate runs
// and both extremes.
template <typename T>
std::vector<T> SortedValues(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    if (i % 97 < 40) r = 12345;  // a long run of one value
    std::memcpy(&v[i], &r, sizeof(T));
  }
  v[0] = std::numeric_limits<T>::min();
  v[n - 1] = std::numeric_limits<T>::max();
  std::sort(v.begin(), v.end());
  return v;
}

template <typename T>
std::vector<uint8_t> WriteColumn(const std::vector<T>& v, const WriteOptions& options) {
  auto w = Writer::CreateInMemory({ColumnSpec{"k", TypeOf<T>(), {}}}, options);
  REQUIRE(w.ok());
  REQUIRE(w->AppendTyped<T>(0, v.data(), v.size()).ok());
  REQUIRE(w->Close().ok());
  return w->TakeBuffer();
}

template <typename T>
void CheckLookups(size_t n, uint64_t chunk_rows, uint32_t epsilon) {
  const std::vector<T> v = SortedValues<T>(n, n * 31 + epsilon);
  WriteOptions options;
  options.chunk_rows = chunk_rows;
  options.pgm = PgmMode::kRequire;
  options.pgm_epsilon = epsilon;
  options.num_threads = 1;
  const std::vector<uint8_t> file = WriteColumn(v, options);
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  REQUIRE((reader->info().optional_features & kOptionalPgmIndex) != 0);
  for (const ChunkInfo& c : reader->column(0).chunks) {
    REQUIRE(c.pgm.present);
    CHECK(c.pgm.epsilon == epsilon);
    CHECK(c.pgm.epsilon_recursive == 4);
  }
  // Present keys, keys between values, below the minimum and above the
  // maximum (where the type allows), and values the type cannot hold.
  std::vector<T> probes(v.begin(), v.end());
  std::vector<uint64_t> keys;
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < std::min<size_t>(n, 400); ++i) {
    const T x = v[rng() % n];
    for (int d = -1; d <= 1; ++d) {
      const T y = static_cast<T>(x + d);
      keys.push_back(static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(y)));
    }
  }
  keys.push_back(std::is_signed_v<T> ? static_cast<uint64_t>(std::numeric_limits<int64_t>::min()) : 0);
  keys.push_back(std::is_signed_v<T> ? static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                                     : std::numeric_limits<uint64_t>::max());
  std::vector<uint64_t> rows(keys.size());
  REQUIRE(reader->LowerBoundBatch(0, keys.data(), keys.size(), rows.data()).ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    const Wide key = static_cast<Wide>(keys[i]);
    const uint64_t expected = static_cast<uint64_t>(
        std::lower_bound(v.begin(), v.end(), key, [](T a, Wide b) { return static_cast<Wide>(a) < b; }) -
        v.begin());
    CHECK(rows[i] == expected);
    auto single = reader->LowerBound(0, keys[i]);
    REQUIRE(single.ok());
    CHECK(*single == expected);
    auto found = reader->Find(0, keys[i]);
    REQUIRE(found.ok());
    const bool present = expected < n && static_cast<Wide>(v[expected]) == key;
    CHECK(found->has_value() == present);
    if (present) CHECK(**found == expected);
  }
}

// The index's window holds lower_bound for every key of a chunk, its
// successor and its predecessor: lookups never need the fallback search.
void CheckWindows(std::vector<uint64_t> keys, uint32_t epsilon) {
  std::sort(keys.begin(), keys.end());
  const PgmIndexInfo pgm = internal::BuildPgmIndex(keys.data(), keys.size(), epsilon, 4);
  REQUIRE(internal::ValidatePgmIndex(pgm, keys.size()).ok());
  size_t misses = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    for (uint64_t x : {keys[i], keys[i] + 1, keys[i] - 1}) {
      const uint64_t r = static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), x) - keys.begin());
      const internal::PgmWindow w = internal::PgmPredict(pgm, x);
      REQUIRE(w.lo <= w.hi);
      REQUIRE(w.hi <= keys.size());
      if (r < w.lo || r > w.hi) ++misses;
    }
  }
  CHECK(misses == 0);
}

}  // namespace

TEST_CASE("PGM windows hold the lower bound, also for keys above 2^53") {
  std::mt19937_64 rng(11);
  for (uint32_t eps : {0u, 1u, 4u, 16u, 64u}) {
    std::vector<uint64_t> uniform(20000), dense(20000), high(20000), dups(20000);
    for (auto& x : uniform) x = rng() >> 20;
    for (size_t i = 0; i < dense.size(); ++i) dense[i] = 1000 + i * 3 + (rng() % 3);
    for (auto& x : high) x = ~uint64_t{0} - (rng() >> 8);  // near 2^64, UINT64_MAX possible
    high.push_back(~uint64_t{0});
    for (auto& x : dups) x = rng() % 300;
    CheckWindows(uniform, eps);
    CheckWindows(dense, eps);
    CheckWindows(high, eps);
    CheckWindows(dups, eps);
    CheckWindows({42}, eps);
  }
}

TEST_CASE("PGM segment slopes are the nearest binary32") {
  CHECK(internal::PgmSlope(1, 3) == 1.0f / 3.0f);
  CHECK(internal::PgmSlope(2, 3) == 2.0f / 3.0f);
  CHECK(internal::PgmSlope(0, 5) == 0.0f);
  CHECK(internal::PgmSlope(1, static_cast<unsigned __int128>(1) << 64) == 0x1.0p-64f);
  CHECK(internal::PgmSlope((1u << 24) + 1, 1) == 16777216.0f);  // tie to even
  CHECK(internal::PgmSlope((1u << 24) + 3, 1) == 16777220.0f);
}

TEST_CASE("PGM lookups match std::lower_bound on every integer type") {
  // Several chunks, a single-row last chunk, small and default epsilon.
  CheckLookups<int8_t>(2001, 500, 4);
  CheckLookups<uint8_t>(2001, 500, 4);
  CheckLookups<int16_t>(3001, 1000, 8);
  CheckLookups<uint16_t>(3001, 1000, 64);
  CheckLookups<int32_t>(5001, 2500, 16);
  CheckLookups<uint32_t>(5001, 5001, 64);
  CheckLookups<int64_t>(6001, 2000, 32);
  CheckLookups<uint64_t>(6001, 3000, 64);
  CheckLookups<uint64_t>(1, 1, 64);
}

TEST_CASE("PGM writer modes") {
  std::vector<int32_t> v = {5, 3, 9};
  WriteOptions options;
  options.pgm = PgmMode::kRequire;
  auto w = Writer::CreateInMemory({ColumnSpec{"k", PhysicalType::kInt32, {}}}, options);
  REQUIRE(w.ok());
  REQUIRE(w->AppendTyped<int32_t>(0, v.data(), v.size()).ok());
  CHECK(w->Close().code() == StatusCode::kInvalidArgument);

  options.pgm = PgmMode::kSorted;
  const std::vector<uint8_t> file = WriteColumn(v, options);
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  CHECK(!reader->column(0).chunks[0].pgm.present);
  CHECK((reader->info().optional_features & kOptionalPgmIndex) == 0);
  CHECK(reader->LowerBound(0, 4).status().code() == StatusCode::kUnsupportedFeature);

  options.format_minor = 0;
  options.pgm = PgmMode::kRequire;
  std::vector<int32_t> sorted = {1, 2, 3};
  auto w0 = Writer::CreateInMemory({ColumnSpec{"k", PhysicalType::kInt32, {}}}, options);
  REQUIRE(w0.ok());
  REQUIRE(w0->AppendTyped<int32_t>(0, sorted.data(), sorted.size()).ok());
  CHECK(w0->Close().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("PGM tables that break a rule of spec §11.3.4 are CORRUPT_METADATA") {
  std::vector<uint64_t> keys(5000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = i * i;
  const PgmIndexInfo good = internal::BuildPgmIndex(keys.data(), keys.size(), 4, 4);
  REQUIRE(internal::ValidatePgmIndex(good, keys.size()).ok());
  REQUIRE(good.num_levels() >= 2);
  const auto bad = [&](auto&& mutate) {
    PgmIndexInfo p = good;
    mutate(p);
    return internal::ValidatePgmIndex(p, keys.size()).code();
  };
  CHECK(bad([](auto& p) { p.num_keys += 1; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.slopes.pop_back(); }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.level_offsets.back() += 1; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.level_offsets[0] = 1; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.level_offsets[1] = p.level_offsets[2]; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { std::swap(p.keys[0], p.keys[1]); }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.slopes[1] = -1.0f; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.slopes[1] = std::numeric_limits<float>::quiet_NaN(); }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.slopes[1] = std::numeric_limits<float>::infinity(); }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.intercepts[1] = 5001; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.intercepts[2] = 0; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.epsilon = kPgmMaxEpsilon + 1; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.epsilon_recursive = 0; }) == StatusCode::kCorruptMetadata);
  CHECK(bad([](auto& p) { p.level_offsets.pop_back(); p.keys.resize(p.level_offsets.back());
                          p.slopes.resize(p.keys.size()); p.intercepts.resize(p.keys.size()); }) ==
        StatusCode::kCorruptMetadata);  // top level of several segments

  // A table that passes the checks but predicts nonsense still gives windows
  // inside the chunk.
  PgmIndexInfo odd = good;
  for (float& s : odd.slopes) s = 3.0e38f;
  for (size_t i = 0; i < keys.size(); i += 7) {
    const internal::PgmWindow w = internal::PgmPredict(odd, keys[i] + 1);
    CHECK(w.lo <= w.hi);
    CHECK(w.hi <= keys.size());
  }
}

TEST_CASE("PGM lookups stay right when a well-formed index predicts wrongly") {
  // Sorted values with duplicates, one FOR chunk; indexes that pass the
  // checks of §11.3.4 but break the window promise of §11.3.3.
  std::vector<int64_t> v(3000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i / 4) * 7 - 5000;
  std::vector<uint64_t> ordered(v.size());
  for (size_t i = 0; i < v.size(); ++i) ordered[i] = static_cast<uint64_t>(v[i]) ^ (uint64_t{1} << 63);
  const PgmIndexInfo good = internal::BuildPgmIndex(ordered.data(), ordered.size(), 8, 4);
  std::vector<PgmIndexInfo> hostile(3, good);
  for (float& s : hostile[0].slopes) s = 0.0f;           // every prediction at the intercept
  for (uint64_t& b : hostile[1].intercepts) b = 0;        // every prediction near row 0
  hostile[2].keys[0] = 0;                                 // a first key below the minimum
  for (const PgmIndexInfo& pgm : hostile) {
    REQUIRE(internal::ValidatePgmIndex(pgm, v.size()).ok());
    testing::HandColumn col{"k", PhysicalType::kInt64, {}};
    col.chunks.push_back(testing::BuildHandChunk(
        v, testing::Partitioning(v.size(), 512, {testing::Part(testing::Model::kFor)}), 8));
    col.chunks.back().pgm = pgm;
    const std::vector<uint8_t> file = testing::AssembleFile({col});
    auto reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    REQUIRE(reader->column(0).chunks[0].pgm.present);
    for (int64_t key = -5010; key <= 250 * 7; key += 3) {
      const uint64_t expected =
          static_cast<uint64_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
      auto r = reader->LowerBound(0, static_cast<uint64_t>(key));
      REQUIRE(r.ok());
      CHECK(*r == expected);
    }
  }
}
