// l3/datagen.hpp: deterministic generators of the L3/LeCo benchmark datasets
// and loaders of the real test arrays.
//
// Every generator is a pure function of (rows, seed): it uses its own PRNG
// (xoshiro256** seeded through splitmix64) and its own samplers, never the
// std:: distributions, whose output differs between standard libraries. The
// same call gives the same values on every platform with IEEE binary64 and a
// correctly rounded libm for the transcendental functions involved (sin,
// exp, pow, log, log1p, erfc, lgamma). Row-independent generators (linear,
// normal, cosmos, and the block fills of exp and poly) run on several
// threads; their output never depends on the thread count.
//
// The formulas follow the LeCo paper's generators and the L3 repository's
// reconstruction of the LeCo footnote datasets (see datagen/README.md). This
// library is for tests and benchmarks; it is not part of the SDK proper.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "l3/l3.hpp"

namespace l3::datagen {

/// The seed the registry and the report use unless told otherwise.
inline constexpr uint64_t kDefaultSeed = 42;

// ---------------------------------------------------------------------------
// Random numbers

/// xoshiro256** with a splitmix64-expanded seed. Not cryptographic.
class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t Next();
  /// Uniform on [0, 1), 53 random bits.
  double Uniform01();
  /// Uniform on [lo, hi).
  double Uniform(double lo, double hi);
  /// Uniform integer in [0, bound) without modulo bias; 0 when bound == 0.
  uint64_t Below(uint64_t bound);
  /// Uniform integer in [lo, hi], both inclusive; requires lo <= hi.
  int64_t Integer(int64_t lo, int64_t hi);
  /// Standard normal (Marsaglia's polar method).
  double Normal();
  /// Poisson with the given mean (> 0): multiplication method below 10,
  /// Hoermann's transformed rejection (PTRS) above.
  uint64_t Poisson(double mean);

 private:
  uint64_t s_[4];
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

/// The standard normal quantile function: x with Phi(x) = p, for 0 < p < 1
/// (-inf at 0, +inf at 1, NaN outside). Acklam's rational approximation
/// refined by one Halley step on erfc; the relative error is a few ulp.
double InverseNormalCdf(double p);

// ---------------------------------------------------------------------------
// Generators of the paper datasets

/// LeCo "linear": k = linspace(0, 1, n + 2) without its ends, min-max
/// normalised and scaled to [0, 2^32 - 1], truncated. Value i is exactly
/// floor(i * (2^32 - 1) / (n - 1)). Has no randomness.
std::vector<uint32_t> GenerateLinear(uint64_t n);

/// LeCo "normal": the normal quantiles of the same k, min-max normalised and
/// scaled to [0, 2^32 - 1], truncated. Non-decreasing. Has no randomness.
std::vector<uint32_t> GenerateNormal(uint64_t n);

/// LeCo "poisson" (random-die sensor events): each event starts at a point of
/// a Poisson(1e12) process and continues with 2000 - U{0..499} values whose
/// gaps are Poisson(2e6). The paper's file (50000 events) has ~87.5M values;
/// this returns the first n values of the same construction.
std::vector<uint64_t> GeneratePoisson(uint64_t n, uint64_t seed);

/// LeCo "cosmos": (sin((x+10)/(60 pi)) + 0.1 sin(3(x+10)/(60 pi))) * 1e6 plus
/// N(0, 100^2) noise, rounded half to even, for x = 0..n-1.
std::vector<int32_t> GenerateCosmos(uint64_t n, uint64_t seed);

/// "polylog": segments of 500 values alternating a quadratic and a log1p
/// growth curve, joined cumulatively with gaps U{0..50}. Non-decreasing.
std::vector<uint64_t> GeneratePolylog(uint64_t n, uint64_t seed);

/// "exp": blocks of 10000 values, each a normalised exponential curve
/// delta * (e^(k u) - 1) / (e^k - 1) with delta = round(10^U[8,13]) and
/// k ~ U[1,12], joined cumulatively with gaps U{0..1000}. Non-decreasing;
/// passes 2^53 after a few thousand blocks.
std::vector<uint64_t> GenerateExp(uint64_t n, uint64_t seed);

/// "poly": blocks of 10000 values, each a cubic Hermite curve between random
/// end points (steps U{-5e7..5e7}) with random end slopes, clipped to
/// [0, 2e9]. Continuous across blocks, not monotone.
std::vector<uint64_t> GeneratePoly(uint64_t n, uint64_t seed);

/// Uniformly random `bits`-bit values (1 <= bits <= 64).
std::vector<uint64_t> GenerateUniformBits(uint64_t n, int bits, uint64_t seed);

/// LeCo "noisy stepwise": block b of 10000 values holds 3 + 5b + U{-3..3}.
std::vector<uint32_t> GenerateStepwise(uint64_t n, uint64_t seed);

// ---------------------------------------------------------------------------
// Small generators for tests

/// n copies of `value`.
std::vector<int64_t> GenerateConstant(uint64_t n, int64_t value);

/// Runs of equal values: run lengths U{1..2*mean_run-1}, run values uniform
/// 20-bit. Exercises run-length (CONSTANT with runs) partitions.
std::vector<uint32_t> GenerateRuns(uint64_t n, uint32_t mean_run, uint64_t seed);

/// Sorted keys with noisy gaps: a random walk with steps U{0..2*mean_gap}.
std::vector<uint64_t> GenerateSortedNoise(uint64_t n, uint64_t mean_gap, uint64_t seed);

/// Event timestamps in microseconds from 2023-11-14: mostly one event per
/// millisecond with +-50 us jitter, with occasional bursts (10 us apart) and
/// pauses (up to a minute). Non-decreasing, signed like Arrow timestamps.
std::vector<int64_t> GenerateTimestamps(uint64_t n, uint64_t seed);

// ---------------------------------------------------------------------------
// Star Schema Benchmark

/// The lineorder columns that SSB's query flight 1 reads (see
/// datagen/README.md for the construction and how it follows SSB's dbgen).
struct SsbLineorder {
  std::vector<uint32_t> orderdate;      ///< lo_orderdate, yyyymmdd
  std::vector<uint8_t> discount;        ///< lo_discount, 0..10 (percent)
  std::vector<uint8_t> quantity;        ///< lo_quantity, 1..50
  std::vector<uint32_t> extendedprice;  ///< lo_extendedprice, quantity * part price (cents)
};

/// The row order of GenerateSsbLineorder.
enum class SsbOrder : uint8_t {
  kDbgen = 0,  ///< as dbgen writes it: orders in key order, each with a random date
  kDate = 1,   ///< the same rows stably sorted by lo_orderdate (a table clustered on date)
};

/// Lineorder rows of SSB scale factor `scale_factor` (> 0): 6,000,000 x SF
/// rows, rounded to the nearest row. Orders of 1..7 lines each get a date
/// uniform over 1992-01-01..1998-08-02 (dbgen's STARTDATE .. ENDDATE - 151
/// days); each line draws its quantity, discount and part (one of
/// 200,000 x floor(1 + log2(SF)) parts, at least 200,000), and its extended
/// price is quantity times the part's retail price in cents (dbgen's
/// rpb_routine). A pure function of (scale_factor, seed, order).
SsbLineorder GenerateSsbLineorder(double scale_factor, uint64_t seed = kDefaultSeed,
                                  SsbOrder order = SsbOrder::kDbgen);

/// The yyyymmdd key of day `day` counted from 1970-01-01 (proleptic
/// Gregorian), and the day of a key (for date keys).
uint32_t DateKeyFromDays(int64_t day);
int64_t DaysFromDateKey(uint32_t key);

// ---------------------------------------------------------------------------
// Typed columns and the registry

/// A named array of one integer physical type.
class Column {
 public:
  using Storage = std::variant<std::vector<int8_t>, std::vector<int16_t>, std::vector<int32_t>,
                               std::vector<int64_t>, std::vector<uint8_t>, std::vector<uint16_t>,
                               std::vector<uint32_t>, std::vector<uint64_t>>;

  Column() = default;
  template <typename T>
  Column(std::string name, std::vector<T> values)
      : name_(std::move(name)), values_(std::move(values)) {}

  const std::string& name() const { return name_; }
  PhysicalType type() const;
  uint64_t size() const;
  uint64_t size_bytes() const { return size() * static_cast<uint64_t>(PhysicalTypeBytes(type())); }
  /// The values in native (little-endian) byte order.
  const void* data() const;
  /// Value i in canonical extension (sign-extended for signed types).
  uint64_t ValueAsU64(uint64_t i) const;

  /// The typed values, or null if T is not the column's type.
  template <typename T>
  const std::vector<T>* values() const {
    return std::get_if<std::vector<T>>(&values_);
  }

  /// Releases the memory (the report frees each dataset after use).
  void Clear();

 private:
  std::string name_;
  Storage values_;
};

/// One registered generator.
struct DatasetInfo {
  const char* name;
  PhysicalType type;
  /// Rows of the paper's version of the data set; 0 for the test-only ones.
  uint64_t paper_rows;
  /// Rows the ratio report uses by default (the paper size where it fits).
  uint64_t report_rows;
  /// False for the constructions without randomness (linear, normal,
  /// constant): the seed is ignored.
  bool uses_seed;
  const char* description;
};

/// All generators, paper datasets first.
const std::vector<DatasetInfo>& Datasets();
/// Null if no generator has that name.
const DatasetInfo* FindDataset(std::string_view name);

/// Generates `rows` values of the named dataset as a column of the dataset's
/// type. Errors: kInvalidArgument (unknown name), kOutOfMemory.
Result<Column> Generate(std::string_view name, uint64_t rows, uint64_t seed = kDefaultSeed);

// ---------------------------------------------------------------------------
// Real data (the directory of real arrays, L3_REAL_DATA_DIR; see its README.md)

/// The real-data directory: $L3_REAL_DATA_DIR when set and non-empty,
/// otherwise the directory configured at build time (CMake cache variable
/// L3_REAL_DATA_DIR).
std::string RealDataDir();

/// Reads a gzip'd headerless little-endian array whose element type is the
/// file-name suffix before ".bin.gz" (_u16, _i16, _u32, _i32, _u64, ...).
/// The column is named after the file without ".bin.gz". Errors: kIoError
/// (missing or unreadable file, a size that is not a whole number of
/// elements), kInvalidArgument (no integer type suffix, e.g. _f32),
/// kResourceLimit (over 4 GiB decompressed), kOutOfMemory.
Result<Column> LoadBinGz(const std::string& path);

/// Reads a CSV (plain or gzip'd) with a header row and returns its integer
/// columns: those where every data row holds an integer (an integral decimal
/// such as "226802.0" counts). The separator is ';' if the header has one,
/// else ','. Surrounding blanks and CR are ignored; lines starting with '|'
/// (UCI comment lines) and empty lines are skipped. Each column is named
/// "<file stem>:<header name>" and gets the narrowest of u32, i32 and i64
/// that holds all its values. Errors: kIoError, kInvalidArgument (no header,
/// or a row with the wrong number of fields).
Result<std::vector<Column>> LoadCsvIntegerColumns(const std::string& path);

/// Every integer array of the real-data directory: each integer *.bin.gz
/// file and the integer columns of each *.csv.gz, sorted by name. Float
/// arrays are skipped. Errors: kIoError if `dir` does not exist or cannot be
/// listed, or any error of the loaders above.
Result<std::vector<Column>> LoadRealIntegerArrays(const std::string& dir = RealDataDir());

/// A real float tensor: rows of `row_width` values (spec §11.2.1).
struct FloatArray {
  std::string name;  ///< file name without ".bin.gz"
  PhysicalType type = PhysicalType::kFloat32;
  uint32_t row_width = 1;
  uint64_t rows = 0;
  std::vector<uint8_t> bytes;  ///< rows * row_width values, little-endian
};

/// Reads a gzip'd float array named `..._<rows>x<width>_f32.bin.gz` (or
/// `_f64`); the shape in the name gives the row width, and the byte count
/// must match it. Errors: kIoError, kInvalidArgument (not a float array, no
/// shape in the name).
Result<FloatArray> LoadFloatBinGz(const std::string& path);

/// Every float array of the real-data directory, sorted by name.
Result<std::vector<FloatArray>> LoadRealFloatArrays(const std::string& dir = RealDataDir());

}  // namespace l3::datagen
