// PGM learned indexes (spec §11.3): the window guarantee of the
// segmentation, Reader::LowerBound / Find against std::lower_bound on every
// integer type, writer modes, and the checks of a stored index.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

#include "codec/encode/value_traits.hpp"
#include "common/status_macros.hpp"
#include "container_test_util.hpp"
#include "l3/l3.hpp"
#include "pgm/pgm.hpp"

using namespace l3;

namespace {

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
  auto w = Writer::CreateInMemory({ColumnSpec{"k", internal::PhysicalTypeOf<T>(), {}}}, options);
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

TEST_CASE("PgmPredictSorted gives PgmPredict's windows for keys in order") {
  // Indexes of dense, sparse and duplicate-heavy keys, a well-formed index
  // whose predictions are wrong, and query sequences that repeat keys, stay
  // within one segment, jump far and start below the first segment.
  std::mt19937_64 rng(13);
  std::vector<uint64_t> keys(30000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = (i < 10000 ? i * 3 : rng() >> 24) + 500;
  std::sort(keys.begin(), keys.end());
  std::vector<PgmIndexInfo> indexes;
  for (uint32_t eps : {0u, 4u, 64u}) indexes.push_back(internal::BuildPgmIndex(keys.data(), keys.size(), eps, 4));
  indexes.push_back(indexes[1]);
  for (uint64_t& b : indexes.back().intercepts) b /= 2;
  for (const PgmIndexInfo& pgm : indexes) {
    REQUIRE(internal::ValidatePgmIndex(pgm, keys.size()).ok());
    for (const size_t count : {size_t{10}, size_t{1000}, size_t{100000}}) {
      std::vector<uint64_t> queries(count);
      for (uint64_t& q : queries) {
        q = rng() % 4 == 0 ? keys[rng() % keys.size()] : rng() % (keys.back() + 1000);
      }
      queries.push_back(0);
      queries.push_back(~uint64_t{0});
      std::sort(queries.begin(), queries.end());
      uint64_t segments_below = 0;
      for (const uint64_t x : queries) {
        const internal::PgmWindow expected = internal::PgmPredict(pgm, x);
        const internal::PgmWindow got = internal::PgmPredictSorted(pgm, x, &segments_below);
        REQUIRE(got.lo == expected.lo);
        REQUIRE(got.hi == expected.hi);
      }
    }
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

namespace {

// The lookups as the reader made them before they were built on its prepared
// chunks: every window read through ReadRows, the fallback one row at a time,
// Find's row through Take. The faster lookups must give what this gives on
// any file, status included.
class ReferenceLookups {
 public:
  ReferenceLookups(const Reader& reader, int column) : reader_(reader), column_(column) {}

  Result<uint64_t> LowerBound(uint64_t key) const {
    const ColumnInfo& col = reader_.column(column_);
    const bool is_signed = PhysicalTypeIsSigned(col.type);
    const uint64_t x = internal::PgmOrderedKey(key, is_signed);
    for (const ChunkInfo& chunk : col.chunks) {
      const ChunkStatistics& st = chunk.statistics;
      if (st.present && st.has_min_max && internal::PgmOrderedKey(st.max_value, is_signed) < x) {
        std::vector<uint64_t> last;
        L3_RETURN_NOT_OK(Load(chunk, chunk.num_rows - 1, chunk.num_rows, &last));
        if (last[0] < x) continue;
      }
      L3_ASSIGN_OR_RETURN(const uint64_t r, ChunkLowerBound(chunk, x));
      if (r < chunk.num_rows) return chunk.first_row + r;
    }
    return col.num_rows;
  }

  Result<std::optional<uint64_t>> Find(uint64_t key) const {
    L3_ASSIGN_OR_RETURN(uint64_t r, LowerBound(key));
    const ColumnInfo& col = reader_.column(column_);
    if (r == col.num_rows) return std::optional<uint64_t>();
    uint64_t value = 0;
    L3_RETURN_NOT_OK(reader_.Take(column_, &r, 1, &value, sizeof value));
    const uint32_t bits = 8 * static_cast<uint32_t>(PhysicalTypeBytes(col.type));
    if (internal::CanonicalExtend(value, bits, PhysicalTypeIsSigned(col.type)) != key) {
      return std::optional<uint64_t>();
    }
    return std::optional<uint64_t>(r);
  }

  /// LowerBound on each key in turn; stops at the first error.
  Status Batch(const std::vector<uint64_t>& keys, std::vector<uint64_t>* rows) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      L3_ASSIGN_OR_RETURN((*rows)[i], LowerBound(keys[i]));
    }
    return Status::OK();
  }

 private:
  // keys = ordered keys of chunk rows [begin, end).
  Status Load(const ChunkInfo& chunk, uint64_t begin, uint64_t end, std::vector<uint64_t>* keys) const {
    const ColumnInfo& col = reader_.column(column_);
    const size_t bytes = static_cast<size_t>(PhysicalTypeBytes(col.type));
    const bool is_signed = PhysicalTypeIsSigned(col.type);
    std::vector<uint8_t> raw((end - begin) * bytes);
    L3_RETURN_NOT_OK(reader_.ReadRows(column_, chunk.first_row + begin, chunk.first_row + end,
                                      raw.data(), raw.size()));
    keys->assign(end - begin, 0);
    for (size_t i = 0; i < keys->size(); ++i) {
      uint64_t u = 0;
      std::memcpy(&u, raw.data() + i * bytes, bytes);
      (*keys)[i] = internal::PgmOrderedKey(
          internal::CanonicalExtend(u, static_cast<uint32_t>(8 * bytes), is_signed), is_signed);
    }
    return Status::OK();
  }

  Result<uint64_t> ChunkLowerBound(const ChunkInfo& chunk, uint64_t x) const {
    const uint64_t n = chunk.num_rows;
    const internal::PgmWindow w = internal::PgmPredict(chunk.pgm, x);
    const uint64_t begin = w.lo > 0 ? w.lo - 1 : 0;
    const uint64_t end = w.hi < n ? w.hi + 1 : n;
    std::vector<uint64_t> keys;
    L3_RETURN_NOT_OK(Load(chunk, begin, end, &keys));
    uint64_t a = w.lo, b = w.hi;
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      if (keys[mid - begin] < x) a = mid + 1; else b = mid;
    }
    const bool left_ok = a == 0 || keys[a - 1 - begin] < x;
    const bool right_ok = a == n || keys[a - begin] >= x;
    if (left_ok && right_ok) return a;
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      L3_RETURN_NOT_OK(Load(chunk, mid, mid + 1, &keys));
      if (keys[0] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  const Reader& reader_;
  int column_;
};

// LowerBound, Find and LowerBoundBatch give what the reference gives: the
// same status (code and message) and the same rows, also the rows a failed
// batch wrote before its error.
void ExpectSameAsReference(const Reader& reader, const std::vector<uint64_t>& keys) {
  const ReferenceLookups reference(reader, 0);
  for (const uint64_t key : keys) {
    const Result<uint64_t> expected = reference.LowerBound(key);
    const Result<uint64_t> got = reader.LowerBound(0, key);
    REQUIRE(got.status().ToString() == expected.status().ToString());
    if (expected.ok()) CHECK(*got == *expected);
    const Result<std::optional<uint64_t>> expected_find = reference.Find(key);
    const Result<std::optional<uint64_t>> found = reader.Find(0, key);
    REQUIRE(found.status().ToString() == expected_find.status().ToString());
    if (expected_find.ok()) CHECK(*found == *expected_find);
  }
  constexpr uint64_t kUnwritten = 0xDEADBEEFDEADBEEFull;
  std::vector<uint64_t> expected_rows(keys.size(), kUnwritten), rows(keys.size(), kUnwritten);
  const Status expected = reference.Batch(keys, &expected_rows);
  const Status got = reader.LowerBoundBatch(0, keys.data(), keys.size(), rows.data());
  CHECK(got.ToString() == expected.ToString());
  CHECK(rows == expected_rows);
}

// Sorted values from near the type's minimum (negative for signed types),
// steps of 0 to 3 with rare large jumps, saturating at the maximum: runs of
// equal values, irregular gaps, both signs.
template <typename T>
std::vector<T> GappedValues(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  constexpr Wide kMin = static_cast<Wide>(std::numeric_limits<T>::min());
  constexpr Wide kMax = static_cast<Wide>(std::numeric_limits<T>::max());
  // Distances in uint64_t, where they cannot overflow. A rare jump is about
  // 1/16n of the type's range; narrow types saturate into a run of kMax.
  const uint64_t room = static_cast<uint64_t>(kMax) - static_cast<uint64_t>(kMin);
  const uint64_t jump = std::max<uint64_t>(room / (16 * n + 1), 1);
  std::vector<T> v(n);
  Wide x = static_cast<Wide>(static_cast<uint64_t>(kMin) + rng() % 5);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(x);
    const uint64_t step = rng() % 1000 < 3 ? jump + rng() % jump : rng() % 4;
    const uint64_t headroom = static_cast<uint64_t>(kMax) - static_cast<uint64_t>(x);
    x = headroom <= step ? kMax : static_cast<Wide>(static_cast<uint64_t>(x) + step);
  }
  return v;
}

bool UsesDelta(const Reader& reader) {
  for (int k = 0; k < static_cast<int>(reader.column(0).chunks.size()); ++k) {
    auto parts = reader.Partitions(0, k);
    REQUIRE(parts.ok());
    for (const PartitionInfo& p : *parts) {
      if (p.model == ModelType::kDelta) return true;
    }
  }
  return false;
}

// Keys a lookup test asks: every value and its neighbours, the type's
// extremes and values it cannot hold, shuffled, each present several times.
template <typename T>
std::vector<uint64_t> ProbeKeys(const std::vector<T>& v, size_t count, uint64_t seed) {
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < count; ++i) {
    const Wide x = static_cast<Wide>(v[rng() % v.size()]);
    const Wide d = static_cast<Wide>(rng() % 3) - 1;
    keys.push_back(static_cast<uint64_t>(x + d));
  }
  keys.push_back(static_cast<uint64_t>(static_cast<Wide>(std::numeric_limits<T>::min())));
  keys.push_back(static_cast<uint64_t>(static_cast<Wide>(std::numeric_limits<T>::max())));
  keys.push_back(std::is_signed_v<T> ? static_cast<uint64_t>(std::numeric_limits<int64_t>::min()) : 0);
  keys.push_back(std::is_signed_v<T> ? static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                                     : std::numeric_limits<uint64_t>::max());
  const size_t distinct = keys.size();
  for (size_t i = 0; i < distinct / 2; ++i) keys.push_back(keys[rng() % distinct]);  // repeats
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

// Batch lookups of unsorted keys with repeats, single lookups and Find
// against std::lower_bound, with DELTA partitions (the partitioner's choice
// for sorted keys) and without, several chunks, a sparse and a dense batch.
template <typename T>
void CheckBatchLookups(size_t n, uint64_t chunk_rows, uint32_t epsilon, uint32_t values_per_lane,
                       bool delta, const ReadOptions& read_options = {},
                       Profile profile = Profile::kHot) {
  CAPTURE(sizeof(T));
  CAPTURE(std::is_signed_v<T>);
  CAPTURE(delta);
  CAPTURE(values_per_lane);
  const std::vector<T> v = GappedValues<T>(n, n * 7 + epsilon + values_per_lane);
  WriteOptions options;
  options.chunk_rows = chunk_rows;
  options.values_per_lane = values_per_lane;
  options.partitioner.enable_delta = delta;
  options.pgm = PgmMode::kRequire;
  options.pgm_epsilon = epsilon;
  options.profile = profile;
  options.num_threads = 1;
  const std::vector<uint8_t> file = WriteColumn(v, options);
  auto reader = Reader::OpenBuffer(file.data(), file.size(), read_options);
  REQUIRE(reader.ok());
  REQUIRE(reader->column(0).chunks.size() == (n + chunk_rows - 1) / chunk_rows);
  const bool uses_delta = UsesDelta(*reader);
  if (!delta) REQUIRE(!uses_delta);
  if (delta && sizeof(T) >= 4) REQUIRE(uses_delta);  // the path this test is for
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  const auto expected_row = [&](uint64_t key) {
    const Wide k = static_cast<Wide>(key);
    return static_cast<uint64_t>(
        std::lower_bound(v.begin(), v.end(), k, [](T a, Wide b) { return static_cast<Wide>(a) < b; }) -
        v.begin());
  };
  // Sparse: far fewer keys than rows; dense: about a key every 4 rows.
  for (const size_t count : {size_t{50}, n / 4 + 1}) {
    const std::vector<uint64_t> keys = ProbeKeys(v, count, count + n);
    std::vector<uint64_t> rows(keys.size(), 0);
    REQUIRE(reader->LowerBoundBatch(0, keys.data(), keys.size(), rows.data()).ok());
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint64_t expected = expected_row(keys[i]);
      CHECK(rows[i] == expected);
      if (i % 7 != 0) continue;  // singles on a sample, batches on all
      auto single = reader->LowerBound(0, keys[i]);
      REQUIRE(single.ok());
      CHECK(*single == expected);
      auto found = reader->Find(0, keys[i]);
      REQUIRE(found.ok());
      const bool present = expected < n && static_cast<uint64_t>(static_cast<Wide>(v[expected])) == keys[i];
      CHECK(found->has_value() == present);
      if (present) CHECK(**found == expected);
    }
  }
}

// The chunks of column 0 of a file as hand chunks (their decoded segments,
// statistics and index), to be assembled again with other statistics or
// indexes.
std::vector<testing::HandChunk> HandChunksOf(const std::vector<uint8_t>& file) {
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  std::vector<testing::HandChunk> chunks;
  for (int k = 0; k < static_cast<int>(reader->column(0).chunks.size()); ++k) {
    auto view = reader->GetChunkView(0, k);
    REQUIRE(view.ok());
    testing::HandChunk h;
    h.type = view->type;
    h.num_rows = view->num_rows;
    h.values_per_lane = view->values_per_lane;
    h.num_partitions = view->num_partitions;
    h.partition_table.assign(view->partition_table,
                             view->partition_table + 16 * (uint64_t{view->num_partitions} + 1));
    h.parameters.assign(view->parameters, view->parameters + view->parameters_bytes);
    h.payload.assign(view->payload, view->payload + view->payload_bytes);
    if (view->bounds != nullptr) h.bounds.assign(view->bounds, view->bounds + view->bounds_bytes);
    h.statistics = reader->column(0).chunks[k].statistics;
    h.pgm = reader->column(0).chunks[k].pgm;
    auto parts = reader->Partitions(0, k);
    REQUIRE(parts.ok());
    for (const PartitionInfo& p : *parts) h.uses_delta = h.uses_delta || p.model == ModelType::kDelta;
    chunks.push_back(std::move(h));
  }
  return chunks;
}

}  // namespace

TEST_CASE("PGM batch lookups of unsorted keys with repeats match std::lower_bound") {
  for (const bool delta : {true, false}) {
    CheckBatchLookups<int8_t>(1500, 600, 4, 64, delta);
    CheckBatchLookups<uint8_t>(1500, 1500, 8, 8, delta);
    CheckBatchLookups<int16_t>(5000, 2000, 16, 64, delta);
    CheckBatchLookups<uint16_t>(5000, 5000, 64, 1, delta);
    CheckBatchLookups<int32_t>(12000, 5000, 16, 64, delta);
    CheckBatchLookups<uint32_t>(12000, 12000, 128, 4, delta);
    CheckBatchLookups<int64_t>(20000, 7000, 32, 64, delta);
    CheckBatchLookups<uint64_t>(20000, 20000, 64, 1024, delta);
    CheckBatchLookups<uint64_t>(40000, 9000, 0, 16, delta);
  }
}

TEST_CASE("PGM lookups on zstd chunks that the reader does not keep") {
  // Archive chunks (spec §9) with max_cached_bytes 0: each preparation
  // decompresses the chunk again; the lookups hold it for their call.
  ReadOptions read_options;
  read_options.max_cached_bytes = 0;
  CheckBatchLookups<int64_t>(30000, 10000, 64, 64, true, read_options, Profile::kArchive);
  CheckBatchLookups<uint32_t>(30000, 10000, 16, 64, false, read_options, Profile::kArchive);
}

TEST_CASE("PGM lookups agree with the ReadRows reference on unsorted chunks and wrong statistics") {
  // Five chunks of 5000 rows behind indexes built from their sorted keys
  // (well-formed, §11.3.4, but wrong where the rows are not sorted): chunk 0
  // random values without statistics, chunks 1-4 mostly increasing values
  // with drops (DELTA partitions with exceptions) whose statistics are right
  // (1), claim a maximum below the chunk's rows (2) or above them (3), or are
  // absent (4).
  constexpr size_t kRows = 5000;
  std::mt19937_64 rng(5);
  std::vector<int64_t> v(5 * kRows);
  int64_t x = -400000;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i < kRows) {
      v[i] = static_cast<int64_t>(rng() % 1200000) - 400000;
      continue;
    }
    x += rng() % 100 < 1 ? -static_cast<int64_t>(rng() % 1000) : static_cast<int64_t>(rng() % 40);
    v[i] = x;
  }
  REQUIRE(v[3 * kRows - 1] > v[2 * kRows]);  // mostly increasing
  WriteOptions options;
  options.chunk_rows = kRows;
  options.values_per_lane = 8;
  options.num_threads = 1;
  const std::vector<uint8_t> written = WriteColumn(v, options);
  std::vector<testing::HandChunk> chunks = HandChunksOf(written);
  REQUIRE(chunks.size() == 5);
  bool any_delta = false;
  for (size_t k = 0; k < chunks.size(); ++k) {
    any_delta = any_delta || chunks[k].uses_delta;
    std::vector<uint64_t> ordered(kRows);
    for (size_t i = 0; i < ordered.size(); ++i) {
      ordered[i] = static_cast<uint64_t>(v[k * kRows + i]) ^ (uint64_t{1} << 63);
    }
    std::sort(ordered.begin(), ordered.end());
    chunks[k].pgm = internal::BuildPgmIndex(ordered.data(), ordered.size(), 16, 4);
    REQUIRE(internal::ValidatePgmIndex(chunks[k].pgm, ordered.size()).ok());
    ChunkStatistics& st = chunks[k].statistics;
    REQUIRE((st.present && st.has_min_max));
    if (k == 0 || k == 4) st.present = false;
    if (k == 2) st.max_value = static_cast<uint64_t>(v[2 * kRows] - 1);
    if (k == 3) st.max_value = static_cast<uint64_t>(int64_t{1} << 40);
  }
  REQUIRE(any_delta);
  testing::HandColumn col{"k", PhysicalType::kInt64, chunks};
  const std::vector<uint8_t> file = testing::AssembleFile({col});
  auto reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  ExpectSameAsReference(*reader, ProbeKeys(v, 4000, 9));
  ExpectSameAsReference(*reader, ProbeKeys(v, 40, 10));
}

TEST_CASE("PGM lookups agree with the ReadRows reference on corrupted chunks") {
  // Bytes of the partition tables, parameters and payloads flipped in a
  // reader that skips checksums: chunks that fail their checks (spec §10.2)
  // give the reference's status, chunks that decode to other values give the
  // reference's rows.
  for (const bool delta : {true, false}) {
    CAPTURE(delta);
    const std::vector<int32_t> v = GappedValues<int32_t>(16000, 3);
    WriteOptions options;
    options.chunk_rows = 4000;
    options.values_per_lane = 4;
    options.partitioner.enable_delta = delta;
    options.pgm = PgmMode::kRequire;
    options.pgm_epsilon = 8;
    options.num_threads = 1;
    const std::vector<uint8_t> file = WriteColumn(v, options);
    auto clean = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(clean.ok());
    REQUIRE(UsesDelta(*clean) == delta);
    std::vector<const SegmentInfo*> segments;
    for (const ChunkInfo& c : clean->column(0).chunks) {
      segments.push_back(&c.partition_table);
      segments.push_back(&c.parameters);
      segments.push_back(&c.payload);
      segments.push_back(&c.payload);  // payloads twice as often: most bytes are there
    }
    std::mt19937_64 rng(delta ? 21 : 22);
    ReadOptions read_options;
    read_options.verify_checksums = false;
    for (int trial = 0; trial < 120; ++trial) {
      CAPTURE(trial);
      std::vector<uint8_t> bad = file;
      for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
        const SegmentInfo* seg = segments[rng() % segments.size()];
        REQUIRE(seg->stored_bytes > 0);
        bad[seg->offset + rng() % seg->stored_bytes] ^= static_cast<uint8_t>(1 + rng() % 255);
      }
      auto reader = Reader::OpenBuffer(bad.data(), bad.size(), read_options);
      REQUIRE(reader.ok());  // segments are read on first use, not on open
      ExpectSameAsReference(*reader, ProbeKeys(v, 30, trial));
    }
  }
}

TEST_CASE("PGM batches on several threads give the rows and statuses of one") {
  // ReadOptions::num_threads splits a batch of at least 2^14 keys a thread
  // into slices of the sorted keys; the rows, and the status of a batch that
  // meets a chunk that fails its checks, do not depend on it.
  const std::vector<int64_t> v = GappedValues<int64_t>(60000, 17);
  WriteOptions options;
  options.chunk_rows = 15000;
  options.pgm = PgmMode::kRequire;
  options.pgm_epsilon = 32;
  options.num_threads = 1;
  const std::vector<uint8_t> file = WriteColumn(v, options);
  const std::vector<uint64_t> keys = ProbeKeys(v, 60001, 3);  // 90007 keys: uneven slices
  REQUIRE(keys.size() >= 3 * (size_t{1} << 14));
  std::vector<uint64_t> expected(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    expected[i] = static_cast<uint64_t>(
        std::lower_bound(v.begin(), v.end(), static_cast<int64_t>(keys[i])) - v.begin());
  }
  for (const int threads : {3, 0}) {
    CAPTURE(threads);
    ReadOptions read_options;
    read_options.num_threads = threads;
    auto reader = Reader::OpenBuffer(file.data(), file.size(), read_options);
    REQUIRE(reader.ok());
    std::vector<uint64_t> rows(keys.size());
    REQUIRE(reader->LowerBoundBatch(0, keys.data(), keys.size(), rows.data()).ok());
    CHECK(rows == expected);
    // Chunk 2's partition table broken: the keys that reach it fail.
    std::vector<uint8_t> bad = file;
    const SegmentInfo& table = reader->column(0).chunks[2].partition_table;
    bad[table.offset + 20] ^= 0x40;  // partition 1's First_Row
    read_options.verify_checksums = false;
    auto broken = Reader::OpenBuffer(bad.data(), bad.size(), read_options);
    REQUIRE(broken.ok());
    const ReferenceLookups reference(*broken, 0);
    constexpr uint64_t kUnwritten = 0xDEADBEEFDEADBEEFull;
    std::vector<uint64_t> got(keys.size(), kUnwritten), want(keys.size(), kUnwritten);
    const Status want_status = reference.Batch(keys, &want);
    REQUIRE(!want_status.ok());
    CHECK(broken->LowerBoundBatch(0, keys.data(), keys.size(), got.data()).ToString() ==
          want_status.ToString());
    CHECK(got == want);
  }
}
