// Tests of the dataset generators and real-data loaders (datagen/,
// l3/datagen.hpp): determinism, sizes and types, the statistical shape of
// each generator, the normal quantile function, and loading the real arrays.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "l3/datagen.hpp"

namespace dg = l3::datagen;
namespace fs = std::filesystem;
using l3::PhysicalType;
using l3::StatusCode;

namespace {

constexpr double kU32Max = 4294967295.0;

template <typename T>
bool NonDecreasing(const std::vector<T>& v) {
  return std::is_sorted(v.begin(), v.end());
}

template <typename T>
void MeanStd(const std::vector<T>& v, double* mean, double* std_dev) {
  double sum = 0, sum_sq = 0;
  for (T x : v) {
    sum += static_cast<double>(x);
    sum_sq += static_cast<double>(x) * static_cast<double>(x);
  }
  *mean = sum / v.size();
  *std_dev = std::sqrt(sum_sq / v.size() - *mean * *mean);
}

bool SameBytes(const dg::Column& a, const dg::Column& b) {
  return a.type() == b.type() && a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// A scratch directory removed at the end of the test case.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("l3_datagen_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes, bool gzip) const {
    const std::string file = (path / name).string();
    if (gzip) {
      gzFile f = gzopen(file.c_str(), "wb");
      REQUIRE(f != nullptr);
      REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
              static_cast<int>(bytes.size()));
      REQUIRE(gzclose(f) == Z_OK);
    } else {
      std::FILE* f = std::fopen(file.c_str(), "wb");
      REQUIRE(f != nullptr);
      REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
      REQUIRE(std::fclose(f) == 0);
    }
    return file;
  }
};

const dg::Column* FindColumn(const std::vector<dg::Column>& columns, const std::string& name) {
  for (const dg::Column& c : columns) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Rng: deterministic, bounded and unbiased enough") {
  dg::Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    CHECK(x == b.Next());
    differs |= x != c.Next();
  }
  CHECK(differs);

  dg::Rng rng(1);
  std::vector<int> hist(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const int64_t v = rng.Integer(-3, 3);
    REQUIRE(v >= -3);
    REQUIRE(v <= 3);
    ++hist[v + 3];
  }
  for (int h : hist) CHECK(std::abs(h - 10000) < 500);  // ~5 sigma
  CHECK(rng.Below(0) == 0);
  CHECK(rng.Below(1) == 0);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.Uniform01();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
  }
  // The full 64-bit span does not overflow.
  (void)rng.Integer(INT64_MIN, INT64_MAX);
}

TEST_CASE("Rng: normal and Poisson moments") {
  dg::Rng rng(3);
  std::vector<double> normals(200000);
  for (double& x : normals) x = rng.Normal();
  double mean, sd;
  MeanStd(normals, &mean, &sd);
  CHECK(std::fabs(mean) < 0.015);
  CHECK(std::fabs(sd - 1.0) < 0.01);

  for (double lambda : {0.5, 3.0, 9.99, 10.0, 50.0, 2e6, 1e12}) {
    CAPTURE(lambda);
    std::vector<double> draws(50000);
    for (double& x : draws) x = static_cast<double>(rng.Poisson(lambda));
    MeanStd(draws, &mean, &sd);
    // The mean is within 5 standard errors; the variance equals the mean.
    CHECK(std::fabs(mean - lambda) < 5 * std::sqrt(lambda / draws.size()));
    CHECK(std::fabs(sd * sd / lambda - 1.0) < 0.04);
  }
}

TEST_CASE("InverseNormalCdf matches known quantiles") {
  struct Quantile {
    double p, x;
  };
  // Reference values from standard tables (15-17 significant digits).
  const Quantile kKnown[] = {
      {0.5, 0.0},
      {0.75, 0.6744897501960817},
      {0.8413447460685429, 1.0},
      {0.9, 1.2815515655446004},
      {0.975, 1.959963984540054},
      {0.99, 2.3263478740408408},
      {0.995, 2.5758293035489004},
      {0.05, -1.6448536269514729},
      {1e-5, -4.264890793922825},
      {1e-10, -6.361340902404056},
  };
  for (const Quantile& q : kKnown) {
    CAPTURE(q.p);
    CHECK(std::fabs(dg::InverseNormalCdf(q.p) - q.x) < 1e-14 + 1e-13 * std::fabs(q.x));
  }
  // Exactly odd about 1/2, and Phi(Phi^-1(p)) = p far into the lower tail.
  for (double p = 1e-300; p < 0.5; p *= 3.7) {
    CAPTURE(p);
    const double x = dg::InverseNormalCdf(p);
    CHECK(0.5 * std::erfc(-x / std::sqrt(2.0)) == doctest::Approx(p).epsilon(1e-12));
    if (p > 1e-16) CHECK(dg::InverseNormalCdf(1.0 - p) == -dg::InverseNormalCdf(1.0 - (1.0 - p)));
  }
  CHECK(std::isinf(dg::InverseNormalCdf(0.0)));
  CHECK(dg::InverseNormalCdf(0.0) < 0);
  CHECK(std::isinf(dg::InverseNormalCdf(1.0)));
  CHECK(std::isnan(dg::InverseNormalCdf(-0.1)));
  CHECK(std::isnan(dg::InverseNormalCdf(1.5)));
  CHECK(std::isnan(dg::InverseNormalCdf(std::nan(""))));
}

TEST_CASE("registry: every dataset is deterministic, sized and typed") {
  CHECK(dg::Datasets().size() >= 13);
  for (const char* name :
       {"linear", "normal", "poisson", "cosmos", "polylog", "exp", "poly", "uniform40"}) {
    CAPTURE(name);
    const dg::DatasetInfo* info = dg::FindDataset(name);
    REQUIRE(info != nullptr);
    CHECK(info->paper_rows >= 10000000);
    CHECK(info->report_rows >= 10000000);
  }
  CHECK(dg::FindDataset("no_such_set") == nullptr);

  std::set<std::string> names;
  for (const dg::DatasetInfo& info : dg::Datasets()) {
    CAPTURE(info.name);
    CHECK(names.insert(info.name).second);
    const uint64_t n = 30011;  // spans several blocks of 10000, not a multiple
    l3::Result<dg::Column> a = dg::Generate(info.name, n, 5);
    l3::Result<dg::Column> b = dg::Generate(info.name, n, 5);
    l3::Result<dg::Column> c = dg::Generate(info.name, n, 6);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(c.ok());
    CHECK(a->name() == info.name);
    CHECK(a->type() == info.type);
    CHECK(a->size() == n);
    CHECK(a->size_bytes() == n * l3::PhysicalTypeBytes(info.type));
    CHECK(SameBytes(*a, *b));
    CHECK(SameBytes(*a, *c) == !info.uses_seed);
    for (uint64_t rows : {0, 1, 2}) {
      l3::Result<dg::Column> tiny = dg::Generate(info.name, rows, 5);
      REQUIRE(tiny.ok());
      CHECK(tiny->size() == rows);
    }
  }
  l3::Result<dg::Column> bad = dg::Generate("no_such_set", 10);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("Column: canonical extension and release") {
  dg::Column c("c", std::vector<int8_t>{-1, 5});
  CHECK(c.type() == PhysicalType::kInt8);
  CHECK(c.ValueAsU64(0) == ~uint64_t{0});
  CHECK(c.ValueAsU64(1) == 5);
  CHECK(c.values<int8_t>() != nullptr);
  CHECK(c.values<uint8_t>() == nullptr);
  dg::Column u("u", std::vector<uint16_t>{65535});
  CHECK(u.ValueAsU64(0) == 65535);
  u.Clear();
  CHECK(u.size() == 0);
  CHECK(u.type() == PhysicalType::kUInt16);
}

TEST_CASE("linear: evenly spaced over the full u32 range") {
  // At the paper's 200M rows the step is (2^32-1)/(2e8-1) = 21.47; with
  // n - 1 = 2,000,000 rows it is 2147.48, so increments are 2147 or 2148.
  const uint64_t n = 2000001;
  const std::vector<uint32_t> v = dg::GenerateLinear(n);
  REQUIRE(v.size() == n);
  CHECK(v.front() == 0);
  CHECK(v.back() == 4294967295u);
  uint64_t small = 0, large = 0;
  for (uint64_t i = 1; i < n; ++i) {
    const uint32_t step = v[i] - v[i - 1];
    REQUIRE((step == 2147 || step == 2148));
    (step == 2147 ? small : large) += 1;
  }
  // 0.4836 of the steps round up.
  CHECK(static_cast<double>(large) / (n - 1) == doctest::Approx(0.4836).epsilon(0.001));
  // The definition: min-max normalised linspace, scaled and truncated.
  for (uint64_t i : {uint64_t{1}, uint64_t{12345}, n / 2, n - 2}) {
    const double k = static_cast<double>(i) / static_cast<double>(n - 1);
    CHECK(std::fabs(static_cast<double>(v[i]) - std::floor(k * kU32Max)) <= 1.0);
  }
  CHECK(dg::GenerateLinear(2) == std::vector<uint32_t>{0, 4294967295u});
}

TEST_CASE("normal: scaled normal quantiles") {
  // n + 1 = 10^6 puts the quantiles 0.5 and 0.975 exactly on rows.
  const uint64_t n = 999999;
  const std::vector<uint32_t> v = dg::GenerateNormal(n);
  REQUIRE(v.size() == n);
  CHECK(NonDecreasing(v));
  CHECK(v.front() == 0);
  CHECK(v.back() == 4294967295u);
  // The middle row is the quantile 0 exactly: half of 2^32 - 1, truncated.
  CHECK(v[n / 2] == 2147483647u);
  // Symmetric: Phi^-1(k) = -Phi^-1(1 - k), so mirrored rows sum to M or M-1.
  for (uint64_t i = 0; i < n; i += 997) {
    const uint64_t sum = uint64_t{v[i]} + v[n - 1 - i];
    REQUIRE((sum == 4294967295u || sum == 4294967294u));
  }
  // Undo the scaling and compare with known quantiles: row i holds
  // k = (i + 1) / (n + 1), the minimum is Phi^-1(1e-6) and the 97.5% row is
  // 1.96 standard deviations out (one unit of the scale is 2.2e-9).
  const double y_min = dg::InverseNormalCdf(1e-6);
  CHECK(y_min == doctest::Approx(-4.753424308822899).epsilon(1e-13));
  const double y = static_cast<double>(v[974999]) / kU32Max * (-2 * y_min) + y_min;
  CHECK(std::fabs(y - 1.959963984540054) < 3e-9);
  // Dense in the middle, sparse in the tails.
  CHECK(v[n / 2 + 1] - v[n / 2] < 2000);
  CHECK(v[1] - v[0] > 10000000);
}

TEST_CASE("poisson: sorted sensor events with Poisson gaps") {
  const uint64_t n = 200000;
  const std::vector<uint64_t> v = dg::GeneratePoisson(n, 11);
  REQUIRE(v.size() == n);
  CHECK(NonDecreasing(v));
  std::vector<uint64_t> event_lengths;
  std::vector<double> inner_gaps;
  uint64_t start = 0;
  for (uint64_t i = 1; i <= n; ++i) {
    if (i == n || v[i] - v[i - 1] > uint64_t{100000000000}) {
      event_lengths.push_back(i - start);
      start = i;
    } else {
      inner_gaps.push_back(static_cast<double>(v[i] - v[i - 1]));
    }
  }
  // 2000 - U{0..499} values per event (the last one is cut at n).
  REQUIRE(event_lengths.size() >= 100);
  for (size_t e = 0; e + 1 < event_lengths.size(); ++e) {
    REQUIRE(event_lengths[e] >= 1501);
    REQUIRE(event_lengths[e] <= 2000);
  }
  double mean, sd;
  MeanStd(inner_gaps, &mean, &sd);
  CHECK(mean == doctest::Approx(2e6).epsilon(1e-4));
  CHECK(sd == doctest::Approx(std::sqrt(2e6)).epsilon(0.02));
  // Events start about 1e12 apart.
  CHECK(static_cast<double>(v.back()) / event_lengths.size() == doctest::Approx(1e12).epsilon(0.1));
}

TEST_CASE("cosmos: the sine mixture plus N(0, 100^2) noise") {
  const uint64_t n = 1 << 20 | 12345;  // more than one random-stream block
  const std::vector<int32_t> v = dg::GenerateCosmos(n, 2);
  REQUIRE(v.size() == n);
  const double denom = 60.0 * 3.14159265358979323846;
  std::vector<double> noise(n);
  for (uint64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) + 10.0;
    noise[i] = v[i] - (std::sin(x / denom) + 0.1 * std::sin(3.0 * x / denom)) * 1e6;
  }
  double mean, sd;
  MeanStd(noise, &mean, &sd);
  CHECK(std::fabs(mean) < 0.5);
  CHECK(sd == doctest::Approx(100.0).epsilon(0.005));
  CHECK(*std::max_element(noise.begin(), noise.end()) < 700);
  CHECK(*std::min_element(noise.begin(), noise.end()) > -700);
}

TEST_CASE("polylog: alternating quadratic and log segments") {
  const uint64_t n = 100000;
  const std::vector<uint64_t> v = dg::GeneratePolylog(n, 4);
  REQUIRE(v.size() == n);
  CHECK(v.front() == 0);
  CHECK(NonDecreasing(v));
  for (uint64_t s = 0; s * 500 < n; ++s) {
    const uint64_t begin = s * 500, last = begin + 499;
    const uint64_t rise = v[last] - v[begin];
    if (s % 2 == 0) {
      REQUIRE(rise >= 50000);
      REQUIRE(rise <= 250000);
      // Quadratic: a quarter of the rise at the middle.
      CHECK(static_cast<double>(v[begin + 250] - v[begin]) / rise ==
            doctest::Approx(0.25).epsilon(0.02));
    } else {
      REQUIRE(rise >= 10000);
      REQUIRE(rise <= 120000);
      // log1p: most of the rise is early.
      CHECK(static_cast<double>(v[begin + 250] - v[begin]) / rise > 0.85);
    }
    if (begin > 0) REQUIRE(v[begin] - v[begin - 1] <= 50);
  }
}

TEST_CASE("exp: cumulative exponential blocks") {
  const uint64_t n = 200000;
  const std::vector<uint64_t> v = dg::GenerateExp(n, 9);
  REQUIRE(v.size() == n);
  CHECK(v.front() == 0);
  CHECK(NonDecreasing(v));
  for (uint64_t begin = 0; begin < n; begin += 10000) {
    const uint64_t last = begin + 9999;
    const uint64_t rise = v[last] - v[begin];
    REQUIRE(rise >= 99999999);
    REQUIRE(rise <= 10000000000000ull);
    // Convex: the first half rises less than the second.
    CHECK(v[begin + 5000] - v[begin] < v[last] - v[begin + 5000]);
    if (begin > 0) REQUIRE(v[begin] - v[begin - 1] <= 1000);
  }
}

TEST_CASE("poly: continuous cubic blocks clipped to [0, 2e9]") {
  const uint64_t n = 200000;
  const std::vector<uint64_t> v = dg::GeneratePoly(n, 9);
  REQUIRE(v.size() == n);
  CHECK(v.front() == 1000000000);
  CHECK(*std::max_element(v.begin(), v.end()) <= 2000000000);
  CHECK_FALSE(NonDecreasing(v));
  for (uint64_t begin = 10000; begin < n; begin += 10000) {
    // Hermite curves end exactly at the next block's start value.
    REQUIRE(v[begin] == v[begin - 1]);
    const int64_t step = static_cast<int64_t>(v[begin]) - static_cast<int64_t>(v[begin - 10000]);
    REQUIRE(std::abs(step) <= 50000000);
  }
  // Smooth inside a block: |y''| <= 6 * 5e7 / 9999^2 + 2 * 6 * 1250 / 9999
  // = 4.5 per row^2, plus rounding.
  for (uint64_t i = 1; i + 1 < 10000; ++i) {
    const int64_t d2 = static_cast<int64_t>(v[i + 1]) - 2 * static_cast<int64_t>(v[i]) +
                       static_cast<int64_t>(v[i - 1]);
    REQUIRE(std::abs(d2) <= 7);
  }
}

TEST_CASE("uniform k-bit, stepwise, runs, sorted noise, timestamps, constant") {
  const std::vector<uint64_t> u = dg::GenerateUniformBits(100000, 40, 1);
  CHECK(*std::max_element(u.begin(), u.end()) < (uint64_t{1} << 40));
  CHECK(*std::max_element(u.begin(), u.end()) > (uint64_t{1} << 40) - (uint64_t{1} << 28));
  double mean, sd;
  MeanStd(u, &mean, &sd);
  CHECK(mean / std::ldexp(1.0, 40) == doctest::Approx(0.5).epsilon(0.01));
  const std::vector<uint64_t> u3 = dg::GenerateUniformBits(1000, 3, 1);
  CHECK(std::set<uint64_t>(u3.begin(), u3.end()).size() == 8);

  const std::vector<uint32_t> step = dg::GenerateStepwise(50000, 1);
  std::set<int64_t> offsets;
  for (uint64_t i = 0; i < step.size(); ++i) {
    const int64_t off = int64_t{step[i]} - (3 + 5 * static_cast<int64_t>(i / 10000));
    REQUIRE(off >= -3);
    REQUIRE(off <= 3);
    offsets.insert(off);
  }
  CHECK(offsets.size() == 7);

  const std::vector<uint32_t> runs = dg::GenerateRuns(160000, 16, 1);
  uint64_t changes = 0;
  for (uint64_t i = 1; i < runs.size(); ++i) changes += runs[i] != runs[i - 1];
  CHECK(changes == doctest::Approx(10000).epsilon(0.05));
  CHECK(*std::max_element(runs.begin(), runs.end()) < (1u << 20));

  const std::vector<uint64_t> keys = dg::GenerateSortedNoise(100000, 1000, 1);
  CHECK(NonDecreasing(keys));
  std::vector<double> gaps;
  for (uint64_t i = 1; i < keys.size(); ++i) {
    REQUIRE(keys[i] - keys[i - 1] <= 2000);
    gaps.push_back(static_cast<double>(keys[i] - keys[i - 1]));
  }
  MeanStd(gaps, &mean, &sd);
  CHECK(mean == doctest::Approx(1000).epsilon(0.01));

  const std::vector<int64_t> ts = dg::GenerateTimestamps(100000, 1);
  CHECK(ts.front() == 1699920000000000);
  CHECK(NonDecreasing(ts));
  std::vector<int64_t> ts_gaps;
  for (uint64_t i = 1; i < ts.size(); ++i) ts_gaps.push_back(ts[i] - ts[i - 1]);
  std::nth_element(ts_gaps.begin(), ts_gaps.begin() + ts_gaps.size() / 2, ts_gaps.end());
  CHECK(std::abs(ts_gaps[ts_gaps.size() / 2] - 1000) <= 50);
  CHECK(*std::max_element(ts_gaps.begin(), ts_gaps.end()) >= 1000000);  // a pause

  const std::vector<int64_t> c = dg::GenerateConstant(1000, -7);
  CHECK(std::count(c.begin(), c.end(), -7) == 1000);
}

TEST_CASE("real data: arrays load with the README's element counts") {
  const std::string dir = dg::RealDataDir();
  if (!fs::is_directory(dir)) {
    MESSAGE("skipped: real-data directory '" << dir << "' is absent");
    return;
  }
  l3::Result<std::vector<dg::Column>> all = dg::LoadRealIntegerArrays(dir);
  REQUIRE_MESSAGE(all.ok(), all.status().ToString());
  struct Expect {
    const char* name;
    PhysicalType type;
    uint64_t count;
  };
  const Expect kExpect[] = {
      {"ecg_mitbih208_u16", PhysicalType::kUInt16, 108000},
      {"osm_andorra_node_ids_u64", PhysicalType::kUInt64, 370798},
      {"osm_andorra_node_lat_i32", PhysicalType::kInt32, 370798},
      {"osm_andorra_node_lon_i32", PhysicalType::kInt32, 370798},
      {"osm_andorra_node_timestamp_u32", PhysicalType::kUInt32, 370798},
      {"osm_andorra_way_node_refs_u64", PhysicalType::kUInt64, 423706},
      {"mlcourse_adult_train:Age", PhysicalType::kUInt32, 32561},
      {"mlcourse_adult_train:fnlwgt", PhysicalType::kUInt32, 32561},
      {"mlcourse_adult_train:Hours_per_week", PhysicalType::kUInt32, 32561},
      // 16,282 lines after the header, one of them the "|1x3 Cross validator"
      // comment; the integer columns are written as "226802.0".
      {"mlcourse_adult_test:fnlwgt", PhysicalType::kUInt32, 16281},
      {"mlcourse_adult_test:Capital_Gain", PhysicalType::kUInt32, 16281},
      {"mlcourse_weights_heights:Index", PhysicalType::kUInt32, 25000},
  };
  for (const Expect& e : kExpect) {
    CAPTURE(e.name);
    const dg::Column* c = FindColumn(*all, e.name);
    REQUIRE(c != nullptr);
    CHECK(c->type() == e.type);
    CHECK(c->size() == e.count);
  }
  // Six integer columns in each Adult file; Height and Weight are not integers.
  for (const char* stem : {"mlcourse_adult_train:", "mlcourse_adult_test:"}) {
    CHECK(std::count_if(all->begin(), all->end(), [&](const dg::Column& c) {
            return c.name().rfind(stem, 0) == 0;
          }) == 6);
  }
  CHECK(FindColumn(*all, "mlcourse_weights_heights:Height") == nullptr);
  // No float array is listed.
  for (const dg::Column& c : *all) CHECK(c.name().find("_f32") == std::string::npos);
  CHECK(all->size() == 19);

  const dg::Column* ids = FindColumn(*all, "osm_andorra_node_ids_u64");
  const std::vector<uint64_t>& id_values = *ids->values<uint64_t>();
  CHECK(id_values.front() == 625025);
  CHECK(id_values.back() == 10862649127ull);
  CHECK(std::adjacent_find(id_values.begin(), id_values.end(), std::greater_equal<uint64_t>()) ==
        id_values.end());
  const std::vector<uint16_t>& ecg = *FindColumn(*all, "ecg_mitbih208_u16")->values<uint16_t>();
  CHECK(*std::min_element(ecg.begin(), ecg.end()) == 327);
  CHECK(*std::max_element(ecg.begin(), ecg.end()) == 1754);
  const std::vector<uint32_t>& ts =
      *FindColumn(*all, "osm_andorra_node_timestamp_u32")->values<uint32_t>();
  CHECK(std::set<uint32_t>(ts.begin(), ts.end()).size() == 13683);
  const std::vector<uint32_t>& index =
      *FindColumn(*all, "mlcourse_weights_heights:Index")->values<uint32_t>();
  CHECK(index.front() == 1);
  CHECK(index.back() == 25000);
  const std::vector<uint32_t>& age = *FindColumn(*all, "mlcourse_adult_train:Age")->values<uint32_t>();
  CHECK(age[0] == 39);
  CHECK(age[1] == 50);
}

TEST_CASE("real data: missing and malformed inputs give a status, not a crash") {
  TempDir tmp;
  l3::Result<std::vector<dg::Column>> missing =
      dg::LoadRealIntegerArrays((tmp.path / "absent").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kIoError);
  CHECK(missing.status().message().find("absent") != std::string::npos);

  l3::Result<dg::Column> no_file = dg::LoadBinGz((tmp.path / "x_u32.bin.gz").string());
  REQUIRE_FALSE(no_file.ok());
  CHECK(no_file.status().code() == StatusCode::kIoError);

  const std::string ragged = tmp.Write("ragged_u32.bin.gz", std::string(7, 'x'), true);
  l3::Result<dg::Column> ragged_column = dg::LoadBinGz(ragged);
  REQUIRE_FALSE(ragged_column.ok());
  CHECK(ragged_column.status().code() == StatusCode::kIoError);

  const std::string floats = tmp.Write("pts_2x2_f32.bin.gz", std::string(16, '\0'), true);
  CHECK(dg::LoadBinGz(floats).status().code() == StatusCode::kInvalidArgument);

  const uint32_t raw[3] = {7, 0xFFFFFFFFu, 12};
  const std::string good = tmp.Write(
      "small_i32.bin.gz", std::string(reinterpret_cast<const char*>(raw), sizeof raw), true);
  l3::Result<dg::Column> small = dg::LoadBinGz(good);
  REQUIRE(small.ok());
  CHECK(small->name() == "small_i32");
  CHECK(*small->values<int32_t>() == std::vector<int32_t>{7, -1, 12});

  // The directory listing picks up the integer array and skips the floats;
  // the ragged file makes the whole load fail with its own error.
  l3::Result<std::vector<dg::Column>> listed = dg::LoadRealIntegerArrays(tmp.path.string());
  REQUIRE_FALSE(listed.ok());
  CHECK(listed.status().code() == StatusCode::kIoError);
  fs::remove(ragged);
  listed = dg::LoadRealIntegerArrays(tmp.path.string());
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].name() == "small_i32");
}

TEST_CASE("CSV: integer column extraction") {
  TempDir tmp;
  const std::string csv = tmp.Write("t.csv",
                                    "id;name;score;big;neg;mixed\r\n"
                                    "|a comment line\r\n"
                                    "1; alpha ;2.0;5000000000;-1;3\r\n"
                                    "\r\n"
                                    "2;beta;4.00;6000000000;-2;4.5\r\n"
                                    "3;gamma;+6;7000000000;3;x\r\n",
                                    false);
  l3::Result<std::vector<dg::Column>> cols = dg::LoadCsvIntegerColumns(csv);
  REQUIRE_MESSAGE(cols.ok(), cols.status().ToString());
  REQUIRE(cols->size() == 4);
  CHECK((*cols)[0].name() == "t:id");
  CHECK(*(*cols)[0].values<uint32_t>() == std::vector<uint32_t>{1, 2, 3});
  CHECK((*cols)[1].name() == "t:score");
  CHECK(*(*cols)[1].values<uint32_t>() == std::vector<uint32_t>{2, 4, 6});
  CHECK((*cols)[2].name() == "t:big");
  CHECK(*(*cols)[2].values<int64_t>() == std::vector<int64_t>{5000000000, 6000000000, 7000000000});
  CHECK((*cols)[3].name() == "t:neg");
  CHECK(*(*cols)[3].values<int32_t>() == std::vector<int32_t>{-1, -2, 3});

  // Comma-separated and gzip'd, like mlcourse_weights_heights.csv.gz.
  const std::string gz = tmp.Write("w.csv.gz", "Index,Height\n1,65.7\n2,71.5\n", true);
  cols = dg::LoadCsvIntegerColumns(gz);
  REQUIRE(cols.ok());
  REQUIRE(cols->size() == 1);
  CHECK((*cols)[0].name() == "w:Index");

  const std::string bad = tmp.Write("bad.csv", "a,b\n1,2\n3\n", false);
  CHECK(dg::LoadCsvIntegerColumns(bad).status().code() == StatusCode::kInvalidArgument);
  const std::string empty = tmp.Write("empty.csv", "\n\n", false);
  CHECK(dg::LoadCsvIntegerColumns(empty).status().code() == StatusCode::kInvalidArgument);
  // An int64 overflow is not an integer column.
  const std::string huge = tmp.Write("huge.csv", "a,b\n1,9223372036854775808\n", false);
  cols = dg::LoadCsvIntegerColumns(huge);
  REQUIRE(cols.ok());
  REQUIRE(cols->size() == 1);
  CHECK((*cols)[0].name() == "huge:a");
}

TEST_CASE("datagen: SSB lineorder columns follow dbgen's domains; the date order is a stable sort") {
  CHECK(dg::DateKeyFromDays(0) == 19700101u);
  CHECK(dg::DateKeyFromDays(dg::DaysFromDateKey(19920229)) == 19920229u);
  CHECK(dg::DaysFromDateKey(19980802) - dg::DaysFromDateKey(19920101) + 1 == 2406);
  for (int64_t d = dg::DaysFromDateKey(19920101); d <= dg::DaysFromDateKey(19981231); ++d) {
    REQUIRE(dg::DaysFromDateKey(dg::DateKeyFromDays(d)) == d);
  }
  const dg::SsbLineorder t = dg::GenerateSsbLineorder(0.01, 7);
  REQUIRE(t.orderdate.size() == 60000);
  REQUIRE(t.discount.size() == 60000);
  uint64_t changes = 0;
  for (size_t i = 0; i < t.orderdate.size(); ++i) {
    CHECK(t.orderdate[i] >= 19920101u);
    CHECK(t.orderdate[i] <= 19980802u);
    CHECK(t.discount[i] <= 10);
    CHECK(t.quantity[i] >= 1);
    CHECK(t.quantity[i] <= 50);
    CHECK(t.extendedprice[i] % t.quantity[i] == 0);
    const uint32_t price = t.extendedprice[i] / t.quantity[i];
    CHECK(price >= 90000u);
    CHECK(price <= 90000u + 20000u + 99900u);
    if (i > 0) changes += t.orderdate[i] != t.orderdate[i - 1];
  }
  // Orders of 1..7 lines (4 on average): the date changes at most rows.
  CHECK(changes > 60000 / 5);
  CHECK(changes < 60000 / 3);
  const dg::SsbLineorder again = dg::GenerateSsbLineorder(0.01, 7);
  CHECK(again.extendedprice == t.extendedprice);
  CHECK(again.orderdate == t.orderdate);
  const dg::SsbLineorder sorted = dg::GenerateSsbLineorder(0.01, 7, dg::SsbOrder::kDate);
  CHECK(std::is_sorted(sorted.orderdate.begin(), sorted.orderdate.end()));
  // Stable: the rows of one date keep their dbgen order.
  std::vector<size_t> order(t.orderdate.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.orderdate[a] < t.orderdate[b]; });
  for (size_t i = 0; i < order.size(); ++i) {
    REQUIRE(sorted.extendedprice[i] == t.extendedprice[order[i]]);
    REQUIRE(sorted.discount[i] == t.discount[order[i]]);
    REQUIRE(sorted.quantity[i] == t.quantity[order[i]]);
  }
}
