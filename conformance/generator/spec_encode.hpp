// A spec-literal chunk encoder for the conformance corpus (spec §7.3–§8.8).
//
// Written from the spec text and independent of the SDK's encoder and
// decoder: its own predictor (§8.4), SLAP positions (§8.5), run layout
// (§8.7) and a bit-by-bit field writer. The reference Reader then has to
// agree with it on every committed file, which is what the corpus checks.
//
// Values are held as 64-bit canonical extensions (§8.2) of N-bit values, so
// one code path serves all eight integer types.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace l3::conformance {

using Bytes = std::vector<uint8_t>;

/// PhysicalType values of spec §6.2. The float types (§11.2) hold bit
/// patterns; a chunk codes them through spec_float.hpp.
enum class Ty : uint8_t {
  kI8 = 1, kI16 = 2, kI32 = 3, kI64 = 4, kU8 = 5, kU16 = 6, kU32 = 7, kU64 = 8,
  kF32 = 9, kF64 = 10, kF16 = 11, kBF16 = 12,
};

int TypeBits(Ty t);
bool TypeSigned(Ty t);
/// "i8", ..., "u64", "f32", "f64", "f16", "bf16".
const char* TypeName(Ty t);
/// The canonical extension (§8.2) of the low N bits of `u`.
uint64_t Canon(Ty t, uint64_t u);
/// a < b in the type's numeric order (both canonical).
bool Less(Ty t, uint64_t a, uint64_t b);
/// The low N/8 bytes of each value, little-endian: the raw decoded form.
Bytes RawValues(Ty t, const std::vector<uint64_t>& values);

/// spec §8.1 Model_Type.
enum Model : uint8_t {
  kConstant = 0, kFor = 1, kLinear = 2, kPoly2 = 3, kPoly3 = 4, kDelta = 5, kRunsEf = 6,
  kPatchedFor = 7,
};

/// spec §8.4 ToInt.
int64_t ToInt(double y);
/// spec §8.4: the binary64 prediction y_k of local row x (before ToInt).
double PredictY(Model model, const std::array<double, 4>& theta, uint64_t x, uint32_t V);
/// pred(x) = ToInt(y) mod 2^N, as a canonical word.
uint64_t Predict(Ty t, Model model, const std::array<double, 4>& theta, uint64_t x, uint32_t V);

/// spec §8.5: stream bit of local row x's field in a partition of n rows.
uint64_t SlapBit(uint64_t n, uint32_t w, uint32_t V, uint64_t x);

/// How one partition is to be encoded. Unset overrides give what a
/// conforming writer must write (§8.8); set ones craft the deep-validation
/// cases.
struct PartSpec {
  uint32_t n = 0;
  Model model = kFor;
  std::array<double, 4> theta{};    ///< LINEAR, POLY2, POLY3
  std::optional<uint32_t> width;    ///< Bit_Width instead of the minimal one
  std::optional<uint64_t> base;     ///< FOR / runs / PATCHED_FOR Base, DELTA Delta_Base (default: the minimum)
  bool force_runs = false;          ///< CONSTANT: runs even if all values are equal
  bool signed_highs = false;        ///< DELTA, PATCHED_FOR: zigzag-coded high parts (spec §8.9)
  bool rows_ef = false;             ///< PATCHED_FOR: exception rows in the Elias-Fano code (§8.12)
  uint32_t delta_order = 1;         ///< DELTA: the order K, 1 to 3 (Extra_Orders = K - 1, §8.9)
  std::vector<uint32_t> extra_run_starts;  ///< CONSTANT, RUNS_EF: also start runs here
};

struct Statistics {
  bool has_min_max = true;
  uint64_t min_value = 0, max_value = 0, null_count = 0, distinct_count = 0;
  bool distinct_count_exact = true;
  Bytes distinct_sketch;  ///< spec §7.6.1 (format 1.1); empty: absent
};

/// spec §7.6.1, written from the text: the hash of a canonical word, and
/// the sketch of a set of values (canonical words) before any zstd: the
/// sorted distinct hashes when there are at most 256 of them, else the
/// 2^15 registers.
uint64_t SketchHash(uint64_t canonical);
struct SketchContent {
  bool hashes_form = true;
  std::vector<uint64_t> hashes;  // strictly increasing
  Bytes registers;               // 32768 bytes, when !hashes_form
};
SketchContent SpecSketch(const std::vector<uint64_t>& canonical_values);

/// The decoded bytes of a chunk's segments.
struct EncodedChunk {
  Ty type = Ty::kI64;
  uint64_t num_rows = 0;
  uint32_t values_per_lane = 64;
  uint32_t num_partitions = 0;
  Bytes partition_table, parameters, payload, bounds;
  Statistics statistics;  ///< exact min, max and distinct count
  /// spec §8.10: D > 0 for a dictionary chunk; then the partitions cover
  /// num_rows + D elements and `statistics` describe the rows' values.
  uint64_t dictionary_entries = 0;
};

/// Encodes `values` with the given partitions. Aborts the generator (with a
/// message) if the partitions do not fit the values; the corpus never
/// depends on a silent fallback.
EncodedChunk EncodeChunk(Ty type, uint32_t V, const std::vector<uint64_t>& values,
                         const std::vector<PartSpec>& parts);

/// Helpers to build partition lists.
PartSpec Part(uint32_t n, Model model, std::array<double, 4> theta = {});

/// spec §9.2: the field-plane form of the chunk's payload (before zstd).
Bytes FieldPlaneForm(const EncodedChunk& chunk);
/// spec §9.3: the field-byte form of the chunk's payload (before zstd).
Bytes FieldByteForm(const EncodedChunk& chunk);

/// Values v(x) = (pred(x) + r(x)) mod 2^N for a predicted partition, from
/// chosen residuals (each must fit N bits as a signed number).
std::vector<uint64_t> FromResiduals(Ty t, Model model, const std::array<double, 4>& theta,
                                    uint32_t V, const std::vector<int64_t>& residuals);

/// Little-endian stores.
void PutLE(Bytes* out, uint64_t v, int bytes);
void SetLE(uint8_t* p, uint64_t v, int bytes);
uint64_t GetLE(const uint8_t* p, int bytes);
uint64_t DoubleBits(double d);

[[noreturn]] void Fail(const std::string& message);

}  // namespace l3::conformance
