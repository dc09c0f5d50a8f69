// Tests of the chunk encoder (spec §7.3–§8.8).
//
// The encoder's output is checked by a small reference decoder written here
// from the spec alone (layout.hpp, bits.hpp and predictor.hpp are the shared
// definitions of the byte layout and of the canonical predictor). It verifies
// every structural rule, every writer rule of §8.8 that the bytes can show,
// the bounds and the statistics, and that every row decodes to its input.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "container_test_util.hpp"
#include "codec/decode/decode_chunk.hpp"
#include "codec/decode/partition_decoder.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/minimax_line.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/predictor.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"

using namespace l3;
using namespace l3::internal;

namespace {

constexpr PhysicalType kAllTypes[] = {PhysicalType::kInt8,   PhysicalType::kInt16,
                                      PhysicalType::kInt32,  PhysicalType::kInt64,
                                      PhysicalType::kUInt8,  PhysicalType::kUInt16,
                                      PhysicalType::kUInt32, PhysicalType::kUInt64};

struct TypeInfo {
  PhysicalType type;
  uint32_t bits;
  bool is_signed;
};

TypeInfo Info(PhysicalType type) {
  return {type, 8u * static_cast<uint32_t>(PhysicalTypeBytes(type)), PhysicalTypeIsSigned(type)};
}

// Values are handled as canonical extensions (spec §8.2) so one code path
// serves every type.
uint64_t Canon(const TypeInfo& t, uint64_t bits) { return CanonicalExtend(bits, t.bits, t.is_signed); }

bool Less(const TypeInfo& t, uint64_t a, uint64_t b) {
  return t.is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
}

uint64_t TypeMin(const TypeInfo& t) { return t.is_signed ? Canon(t, uint64_t{1} << (t.bits - 1)) : 0; }

std::vector<uint8_t> Pack(const TypeInfo& t, const std::vector<uint64_t>& values) {
  const size_t bytes = t.bits / 8;
  std::vector<uint8_t> out(values.size() * bytes);
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(out.data() + i * bytes, &values[i], bytes);
  return out;
}

// spec §8.8 rule 3 as a predicate on one value.
bool WithinDoubleRange(const TypeInfo& t, uint64_t v) {
  if (t.bits < 64) return true;
  const uint64_t limit = uint64_t{1} << 53;
  if (t.is_signed) {
    const auto s = static_cast<int64_t>(v);
    return s >= -static_cast<int64_t>(limit) && s <= static_cast<int64_t>(limit);
  }
  return v <= limit;
}

double WordAsDouble(uint64_t w) {
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

// Zero bits from stream bit `from` to the end of word `words` (spec §8.5, §8.7).
bool TailBitsZero(const uint8_t* stream, uint64_t from, uint64_t words) {
  for (uint64_t bit = from; bit < 64 * words; ++bit) {
    if ((stream[bit / 8] >> (bit % 8)) & 1) return false;
  }
  return true;
}

struct PartitionView {
  uint64_t first_row = 0;
  uint64_t rows = 0;
  uint8_t model = 0;
  uint8_t width = 0;
  uint64_t runs = 0;
};

// Decodes and checks one chunk; returns the partitions it found. `expect` are
// the input values (canonical). Every failure is a doctest CHECK.
std::vector<PartitionView> CheckChunk(const EncodedChunk& c, const TypeInfo& t,
                                      const std::vector<uint64_t>& expect,
                                      const EncoderConfig& config) {
  std::vector<PartitionView> parts;
  const uint64_t n_rows = expect.size();
  const uint64_t P = c.num_partitions;
  const uint32_t V = c.values_per_lane;
  REQUIRE(c.num_rows == n_rows);
  REQUIRE(V == config.values_per_lane);
  REQUIRE(P >= 1);
  REQUIRE(P <= n_rows);
  // spec §7.3: P + 1 records of 16 bytes.
  REQUIRE(c.partition_table.size() == (P + 1) * kPartitionRecordBytes);
  const PartitionRecord first = LoadPartitionRecord(c.partition_table.data(), 0);
  CHECK(first.first_row == 0);
  CHECK(first.param_offset == 0);
  CHECK(first.payload_offset == 0);
  const PartitionRecord sentinel = LoadPartitionRecord(c.partition_table.data(), P);
  CHECK(sentinel.first_row == n_rows);
  CHECK(sentinel.model_type == 0);
  CHECK(sentinel.bit_width == 0);
  CHECK(sentinel.reserved == 0);
  REQUIRE(8 * uint64_t{sentinel.param_offset} == c.parameters.size());
  // spec §8.6: the payloads, then exactly 32 zero bytes.
  REQUIRE(c.payload.size() == 8 * uint64_t{sentinel.payload_offset} + kPayloadPaddingBytes);
  for (size_t i = c.payload.size() - kPayloadPaddingBytes; i < c.payload.size(); ++i) {
    CHECK(c.payload[i] == 0);
  }

  std::vector<uint64_t> decoded(n_rows, 0);
  const uint64_t mask = LowMask(t.bits);
  for (uint64_t p = 0; p < P; ++p) {
    const PartitionRecord r = LoadPartitionRecord(c.partition_table.data(), p);
    const PartitionRecord next = LoadPartitionRecord(c.partition_table.data(), p + 1);
    REQUIRE(next.first_row > r.first_row);  // strictly increasing
    const uint64_t n = next.first_row - r.first_row;
    const uint32_t w = r.bit_width;
    PartitionView view{r.first_row, n, r.model_type, r.bit_width, 0};
    CHECK(r.reserved == 0);
    REQUIRE(r.model_type < kNumModels);
    REQUIRE(w <= t.bits);
    REQUIRE(next.param_offset - r.param_offset == ParamCount(r.model_type, w));
    const uint8_t* params = c.parameters.data() + 8 * uint64_t{r.param_offset};
    const uint8_t* stream = c.payload.data() + 8 * uint64_t{r.payload_offset};
    const uint64_t words = next.payload_offset - r.payload_offset;
    uint64_t* out = decoded.data() + r.first_row;

    // spec §8.9 and §8.12, read from the spec text: the Exceptions word, the
    // SLAP fields from `bits`, then the exception rows and high parts; the
    // offsets u(x) (field plus high part << w) of the n rows.
    const auto offsets_with_exceptions = [&](const uint8_t* bits, uint64_t stream_words) {
      const uint64_t exceptions_word = LoadLE64(params + 8);
      const uint64_t num_exc = exceptions_word & 0xFFFFFFFFull;
      const uint32_t exc_width = static_cast<uint32_t>((exceptions_word >> 32) & 0xFF);
      const bool signed_highs = ((exceptions_word >> 40) & 1) != 0;  // Signed_Highs
      const bool rows_ef = ((exceptions_word >> 41) & 1) != 0;       // Rows_EF (§8.12)
      CHECK((exceptions_word >> 42) == 0);
      CHECK((!rows_ef || (r.model_type == 7 && num_exc > 0 && n <= 65536)));
      REQUIRE(num_exc <= n);
      CHECK((num_exc == 0) == (exc_width == 0));
      CHECK((!signed_highs || num_exc > 0));
      CHECK(w + exc_width <= t.bits);
      const uint32_t pb = RunStartBits(n);
      // Rows_EF: l = bitlen(floor(n / E)) - 1, H_n = E + floor((n - 1) / 2^l).
      const uint32_t low_bits = rows_ef ? BitLength(n / num_exc) - 1 : 0;
      const uint64_t h_bits = rows_ef ? num_exc + ((n - 1) >> low_bits) : 0;
      const uint64_t row_list_bits = rows_ef ? num_exc * low_bits + h_bits : num_exc * pb;
      const uint64_t stream_bits = n * w + row_list_bits + num_exc * exc_width;
      REQUIRE(stream_words == (stream_bits + 63) / 64);
      CHECK(TailBitsZero(bits, stream_bits, stream_words));
      std::vector<uint64_t> u(n, 0);
      for (uint64_t x = 0; x < n; ++x) u[x] = ReadField(bits, SlapFieldBitOffset(n, w, V, x), w);
      std::vector<uint64_t> rows;
      if (rows_ef) {
        // The (i+1)-th 1 bit of H, at q, gives row (q - i) * 2^l + low_i.
        for (uint64_t q = 0; q < h_bits; ++q) {
          if (ReadField(bits, n * w + num_exc * low_bits + q, 1) == 0) continue;
          const uint64_t i = rows.size();
          REQUIRE(i < num_exc);
          rows.push_back(((q - i) << low_bits) + ReadField(bits, n * w + i * low_bits, low_bits));
        }
        REQUIRE(rows.size() == num_exc);
      } else {
        for (uint64_t i = 0; i < num_exc; ++i) rows.push_back(ReadField(bits, n * w + i * pb, pb));
      }
      for (uint64_t i = 0; i < num_exc; ++i) {
        const uint64_t row = rows[i];
        REQUIRE(row < n);
        if (i > 0) CHECK(row > rows[i - 1]);
        const uint64_t high =
            ReadField(bits, n * w + row_list_bits + i * exc_width, exc_width);
        CHECK(high != 0);
        // Signed_Highs: the field is zigzag-coded, 2k for k >= 0, 2k - 1 for -k.
        const uint64_t h = !signed_highs ? high
                           : high % 2 == 0 ? high / 2
                                           : uint64_t{0} - (high + 1) / 2;
        u[row] += h << w;
      }
      return u;
    };
    if (r.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
      // spec §8.12 PATCHED_FOR: v(x) = Base + u(x).
      const uint64_t base = LoadLE64(params);
      CHECK(base == Canon(t, base));
      const std::vector<uint64_t> u = offsets_with_exceptions(stream, words);
      for (uint64_t x = 0; x < n; ++x) out[x] = Canon(t, (base + u[x]) & mask);
    } else if (r.model_type == static_cast<uint8_t>(Model::kDelta)) {
      // spec §8.9 DELTA: Delta_Base (integer word), the Exceptions word, one
      // Seed word per tile, then the stream of offsets with exceptions.
      const uint64_t delta_base = LoadLE64(params);
      CHECK(delta_base == Canon(t, delta_base));
      const uint64_t tile_rows = uint64_t{kLanes} * V;
      const uint64_t seeds = (n + tile_rows - 1) / tile_rows;
      REQUIRE(words >= seeds);
      const std::vector<uint64_t> u = offsets_with_exceptions(stream + 8 * seeds, words - seeds);
      CHECK(u[0] == 0);
      // v(x) = Seed[t] + sum over the tile's rows j <= x of (Delta_Base + u(j)).
      uint64_t value = 0;
      for (uint64_t x = 0; x < n; ++x) {
        if (x % tile_rows == 0) {
          value = LoadLE64(stream + 8 * (x / tile_rows));
          CHECK(value == Canon(t, value));
        }
        value += delta_base + u[x];
        out[x] = Canon(t, value & mask);
      }
    } else if (r.model_type == static_cast<uint8_t>(Model::kRunsEf)) {
      // spec §8.11, read bit by bit as the text says (not through the
      // reader): values, low parts, then H, whose i-th 1 bit at q_i gives
      // start_i = (q_i - (i - 1)) * 2^l + low_i.
      const uint64_t base = LoadLE64(params);
      CHECK(base == Canon(t, base));
      const uint64_t runs = LoadLE64(params + 8);
      view.runs = runs;
      REQUIRE(runs >= 2);
      REQUIRE(runs <= n);
      REQUIRE(n <= 65536);
      REQUIRE(w >= 1);
      const uint64_t m = runs - 1;
      uint32_t l = 0;
      while ((uint64_t{2} << l) <= (n - 1) / m) ++l;  // floor(log2(floor((n-1)/m)))
      const uint64_t high_bits = m + ((n - 1) >> l);
      const uint64_t h0 = runs * w + m * l;
      REQUIRE(words == (h0 + high_bits + 63) / 64);
      CHECK(TailBitsZero(stream, h0 + high_bits, words));
      std::vector<uint64_t> starts(runs, 0);
      uint64_t i = 0;
      for (uint64_t q = 0; q < high_bits; ++q) {
        if (!ReadField(stream, h0 + q, 1)) continue;
        ++i;
        REQUIRE(i <= m);
        starts[i] = ((q - (i - 1)) << l) + ReadField(stream, runs * w + (i - 1) * l, l);
        REQUIRE(starts[i] > starts[i - 1]);
        REQUIRE(starts[i] <= n - 1);
      }
      REQUIRE(i == m);
      uint64_t max_field = 0;
      bool has_zero = false;
      for (uint64_t k = 0; k < runs; ++k) {
        const uint64_t field = ReadField(stream, k * w, w);
        max_field = std::max(max_field, field);
        has_zero |= field == 0;
        if (k > 0) CHECK(field != ReadField(stream, (k - 1) * w, w));  // adjacent runs differ
        const uint64_t end = k + 1 < runs ? starts[k + 1] : n;
        for (uint64_t x = starts[k]; x < end; ++x) out[x] = Canon(t, (base + field) & mask);
      }
      CHECK(has_zero);
      CHECK(BitLength(max_field) == w);
    } else if (r.model_type == static_cast<uint8_t>(Model::kConstant) ||
        r.model_type == static_cast<uint8_t>(Model::kFor)) {
      // spec §8.2: integer words hold canonical extensions.
      const uint64_t base = LoadLE64(params);
      CHECK(base == Canon(t, base));
      if (r.model_type == static_cast<uint8_t>(Model::kConstant) && w == 0) {
        CHECK(words == 0);
        for (uint64_t x = 0; x < n; ++x) out[x] = base;
      } else if (r.model_type == static_cast<uint8_t>(Model::kConstant)) {
        // spec §8.7 runs.
        const uint64_t runs = LoadLE64(params + 8);
        view.runs = runs;
        REQUIRE(runs >= 1);
        REQUIRE(runs <= n);
        const uint32_t pb = RunStartBits(n);
        REQUIRE(words == (runs * w + (runs - 1) * pb + 63) / 64);
        CHECK(TailBitsZero(stream, runs * w + (runs - 1) * pb, words));
        std::vector<uint64_t> starts(runs, 0);
        uint64_t max_field = 0;
        bool has_zero = false;
        for (uint64_t i = 0; i < runs; ++i) {
          const uint64_t field = ReadField(stream, i * w, w);
          max_field = std::max(max_field, field);
          has_zero |= field == 0;
          if (i > 0) {
            starts[i] = ReadField(stream, runs * w + (i - 1) * pb, pb);
            REQUIRE(starts[i] > starts[i - 1]);
            REQUIRE(starts[i] <= n - 1);
            // spec §8.8 rule 5: adjacent runs differ.
            CHECK(field != ReadField(stream, (i - 1) * w, w));
          }
        }
        // spec §8.8 rule 2: Base is the minimum run value; minimal width.
        CHECK(has_zero);
        CHECK(BitLength(max_field) == w);
        for (uint64_t i = 0; i < runs; ++i) {
          const uint64_t end = i + 1 < runs ? starts[i + 1] : n;
          const uint64_t value = Canon(t, (base + ReadField(stream, i * w, w)) & mask);
          for (uint64_t x = starts[i]; x < end; ++x) out[x] = value;
        }
      } else {
        // spec §8.3 FOR_BITPACK over the SLAP layout of §8.5.
        REQUIRE(words == SlapPayloadWords(n, w));
        CHECK(TailBitsZero(stream, n * w, words));
        uint64_t max_field = 0;
        bool has_zero = false;
        for (uint64_t x = 0; x < n; ++x) {
          const uint64_t field = ReadField(stream, SlapFieldBitOffset(n, w, V, x), w);
          max_field = std::max(max_field, field);
          has_zero |= field == 0;
          out[x] = Canon(t, (base + field) & mask);
        }
        // spec §8.8 rule 2: Base = min, Bit_Width = bitlen(max - min).
        CHECK(has_zero);
        CHECK(BitLength(max_field) == w);
      }
    } else {
      // spec §8.2: float words are finite; §8.4 canonical predictor per lane,
      // restarted at X0 = t * S + L for every tile.
      double theta[4] = {0, 0, 0, 0};
      for (uint32_t k = 0; k < ParamCount(r.model_type, w); ++k) {
        theta[k] = WordAsDouble(LoadLE64(params + 8 * k));
        CHECK(std::isfinite(theta[k]));
      }
      REQUIRE(words == SlapPayloadWords(n, w));
      CHECK(TailBitsZero(stream, n * w, words));
      uint32_t widest = 0;
      const uint64_t tile_rows = uint64_t{kLanes} * V;
      for (uint64_t tile = 0; tile * tile_rows < n; ++tile) {
        for (uint32_t lane = 0; lane < kLanes; ++lane) {
          const uint32_t steps = SlapLaneRows(n, V, tile, lane);
          const uint64_t lane_bits = SlapLaneBitOffset(n, w, V, tile, lane);
          const double x0 = static_cast<double>(tile * tile_rows + lane);
          double y = 0;
          LanePredictor<2> linear;
          LanePredictor<3> poly2;
          LanePredictor<4> poly3;
          if (r.model_type == 2) linear.Start(theta, x0);
          if (r.model_type == 3) poly2.Start(theta, x0);
          if (r.model_type == 4) poly3.Start(theta, x0);
          for (uint32_t k = 0; k < steps; ++k) {
            y = r.model_type == 2 ? linear.value() : r.model_type == 3 ? poly2.value() : poly3.value();
            const int64_t residual = SignExtend(ReadField(stream, lane_bits + uint64_t{k} * w, w), w);
            widest = std::max(widest, SignedWidth(residual));
            const uint64_t x = tile * tile_rows + lane + uint64_t{kLanes} * k;
            out[x] = Canon(t, (static_cast<uint64_t>(PredictionToInt(y)) +
                               static_cast<uint64_t>(residual)) & mask);
            linear.Advance();
            poly2.Advance();
            poly3.Advance();
          }
        }
      }
      // spec §8.8 rule 1: the smallest width that holds every residual.
      CHECK(widest == w);
    }

    // Every row of the partition decodes to its input.
    bool all_equal = true;
    uint64_t lo = out[0], hi = out[0];
    for (uint64_t x = 0; x < n; ++x) {
      all_equal &= out[x] == expect[r.first_row + x];
      if (Less(t, out[x], lo)) lo = out[x];
      if (Less(t, hi, out[x])) hi = out[x];
    }
    CHECK_MESSAGE(all_equal, "partition " << p << " model " << int(r.model_type) << " width "
                                          << w << " rows " << n << " V " << V);
    // spec §8.8 rule 3.
    if (IsPredictedModel(r.model_type)) {
      CHECK(WithinDoubleRange(t, lo));
      CHECK(WithinDoubleRange(t, hi));
    }
    // spec §7.5 bounds: P minima then P maxima, N / 8 bytes each.
    if (config.compute_bounds) {
      const size_t bytes = t.bits / 8;
      REQUIRE(c.bounds.size() == 2 * P * bytes);
      uint64_t min_bits = 0, max_bits = 0;
      std::memcpy(&min_bits, c.bounds.data() + p * bytes, bytes);
      std::memcpy(&max_bits, c.bounds.data() + (P + p) * bytes, bytes);
      CHECK(Canon(t, min_bits) == lo);
      CHECK(Canon(t, max_bits) == hi);
    }
    parts.push_back(view);
  }
  if (!config.compute_bounds) CHECK(c.bounds.empty());

  // spec §7.6 statistics.
  if (config.compute_statistics) {
    const ChunkStatisticsData& s = c.statistics;
    CHECK(s.has_min_max);
    uint64_t lo = expect[0], hi = expect[0];
    for (uint64_t v : expect) {
      if (Less(t, v, lo)) lo = v;
      if (Less(t, hi, v)) hi = v;
    }
    CHECK(s.min_value == lo);
    CHECK(s.max_value == hi);
    std::vector<uint64_t> sorted = expect;
    std::sort(sorted.begin(), sorted.end());
    const uint64_t distinct =
        static_cast<uint64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    if (s.distinct_count_exact) {
      CHECK(s.distinct_count == distinct);
    } else {
      CHECK(std::fabs(double(s.distinct_count) - double(distinct)) <= 0.05 * double(distinct));
    }
  }
  return parts;
}

EncoderConfig Config(PhysicalType type, uint32_t values_per_lane = 64) {
  EncoderConfig config;
  config.type = type;
  config.values_per_lane = values_per_lane;
  return config;
}

std::vector<PartitionView> EncodeAndCheck(const TypeInfo& t, const std::vector<uint64_t>& values,
                                          const EncoderConfig& config,
                                          EncodedChunk* chunk_out = nullptr) {
  const std::vector<uint8_t> packed = Pack(t, values);
  Result<EncodedChunk> chunk = EncodeChunk(packed.data(), values.size(), config);
  REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
  std::vector<PartitionView> parts = CheckChunk(*chunk, t, values, config);
  if (chunk_out != nullptr) *chunk_out = std::move(*chunk);
  return parts;
}

// ---------------------------------------------------------------------------
// Crafted partitions for explicit models

uint64_t RandomBelow(std::mt19937_64& rng, uint64_t bound_inclusive) {
  if (bound_inclusive == ~uint64_t{0}) return rng();
  return std::uniform_int_distribution<uint64_t>(0, bound_inclusive)(rng);
}

struct Crafted {
  std::vector<uint64_t> values;
  std::optional<std::array<double, 4>> theta;
};

// Values of `n` rows for which `model` needs Bit_Width `w` (when n allows).
Crafted CraftPartition(const TypeInfo& t, Model model, uint32_t w, uint32_t n, uint32_t V,
                       std::mt19937_64& rng) {
  Crafted c;
  c.values.resize(n);
  const uint64_t mask = LowMask(t.bits);
  const uint64_t top = LowMask(w);  // largest w-bit offset
  if (model == Model::kFor) {
    // Base + offsets in [0, 2^w - 1], both ends present; no wrap-around.
    const uint64_t room = LowMask(t.bits) - top;
    const uint64_t base = (TypeMin(t) + RandomBelow(rng, room)) & mask;
    for (uint32_t x = 0; x < n; ++x) {
      const uint64_t u = x == 0 ? 0 : x == n - 1 ? top : RandomBelow(rng, top);
      c.values[x] = Canon(t, (base + u) & mask);
    }
  } else if (model == Model::kConstant) {
    const uint64_t room = LowMask(t.bits) - top;
    const uint64_t base = (TypeMin(t) + RandomBelow(rng, room)) & mask;
    uint64_t previous = ~uint64_t{0};
    uint32_t run_index = 0;
    for (uint32_t x = 0; x < n;) {
      uint64_t u = run_index == 0 ? 0 : run_index == 1 ? top : RandomBelow(rng, top);
      if (w > 0 && u == previous) u = u == 0 ? 1 : u - 1;
      const uint32_t len = std::min<uint32_t>(n - x, 1 + static_cast<uint32_t>(rng() % 5));
      for (uint32_t i = 0; i < len; ++i) c.values[x + i] = Canon(t, (base + u) & mask);
      previous = u;
      x += len;
      ++run_index;
    }
  } else {
    // Residuals in [-2^(w-1), 2^(w-1) - 1] around a smooth prediction, the
    // low end present. 64-bit values stay within |v| <= 2^53 (rule 3), which
    // for wide residuals needs a large Theta_0.
    std::array<double, 4> theta = {100.25, 0.3, 0, 0};
    if (model != Model::kLinear) theta[2] = 1e-5;
    if (model == Model::kPoly3) theta[3] = -1e-9;
    const bool wide_type = t.bits == 64;
    if (wide_type && w > 0) theta[0] += std::ldexp(1.0, static_cast<int>(w) - 1);
    c.theta = theta;
    const __int128 low_value = !wide_type ? 0 : t.is_signed ? -(__int128{1} << 53) : 0;
    const __int128 high_value = __int128{1} << 53;
    for (uint32_t x = 0; x < n; ++x) {
      const int64_t pred = PredictRow(static_cast<uint8_t>(model), theta.data(), x, V);
      __int128 r = 0;
      if (w > 0) {
        const __int128 lowest = -(__int128{1} << (w - 1));
        r = x == 0 ? lowest : lowest + static_cast<__int128>(RandomBelow(rng, top));
      }
      __int128 v = static_cast<__int128>(pred) + r;
      if (wide_type) v = std::clamp(v, low_value, high_value);
      c.values[x] = Canon(t, static_cast<uint64_t>(v) & mask);
    }
  }
  return c;
}

// The width spec §8.8 prescribes for `values` under the model (and theta).
uint32_t ExpectedWidth(const TypeInfo& t, Model model, const Crafted& c, uint32_t V) {
  const auto& v = c.values;
  if (model == Model::kFor || model == Model::kConstant) {
    uint64_t lo = v[0], hi = v[0];
    for (uint64_t x : v) {
      if (Less(t, x, lo)) lo = x;
      if (Less(t, hi, x)) hi = x;
    }
    return BitLength((hi - lo) & LowMask(t.bits));
  }
  uint32_t widest = 0;
  for (uint32_t x = 0; x < v.size(); ++x) {
    const int64_t pred = PredictRow(static_cast<uint8_t>(model), c.theta->data(), x, V);
    const uint64_t diff = (v[x] - static_cast<uint64_t>(pred)) & LowMask(t.bits);
    widest = std::max(widest, SignedWidth(SignExtend(diff, t.bits)));
  }
  return widest;
}

const char* ModelName(Model m) { return ModelTypeName(static_cast<ModelType>(m)); }

}  // namespace

TEST_CASE("FastPredictionToInt equals the spec's ToInt") {
  std::vector<double> inputs = {0.0,  -0.0, 0.5,  1.5,  2.5,   -0.5,  -1.5,  -2.5, 0.49999999999999994,
                                1e300, -1e300, std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), 0x1p51, -0x1p51,
                                0x1p51 - 0.5, -0x1p51 + 0.5, 0x1p52 + 1, 0x1p63, -0x1p63,
                                0x1p63 - 1024, 4503599627370495.5, -4503599627370495.5};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int exponent = static_cast<int>(rng() % 70) - 4;
    const double mantissa = std::uniform_real_distribution<double>(-1, 1)(rng);
    inputs.push_back(std::ldexp(mantissa, exponent));
    inputs.push_back(std::ldexp(std::round(std::ldexp(mantissa, 20)), -1) );  // exact halves
  }
  for (double y : inputs) CHECK(FastPredictionToInt(y) == PredictionToInt(y));
}

TEST_CASE("explicit models reach every bit width for every type") {
  std::mt19937_64 rng(42);
  const uint32_t sizes[] = {1, 31, 32, 33, 70, 100, 257};
  const uint32_t V = 8;
  for (PhysicalType type : kAllTypes) {
    const TypeInfo t = Info(type);
    for (Model model : {Model::kConstant, Model::kFor, Model::kLinear, Model::kPoly2, Model::kPoly3}) {
      CAPTURE(PhysicalTypeName(type));
      CAPTURE(ModelName(model));
      std::vector<uint64_t> values;
      std::vector<PartitionChoice> choices;
      std::vector<uint32_t> expected;
      for (uint32_t w = 0; w <= t.bits; ++w) {
        // A one-row partition has a single value; give each width a size
        // that can show it.
        const uint32_t n = sizes[1 + w % 6];
        const Crafted c = CraftPartition(t, model, w, n, V, rng);
        values.insert(values.end(), c.values.begin(), c.values.end());
        choices.push_back(PartitionChoice{n, model, c.theta});
        expected.push_back(ExpectedWidth(t, model, c, V));
        const Crafted one = CraftPartition(t, model, w, 1, V, rng);
        values.insert(values.end(), one.values.begin(), one.values.end());
        choices.push_back(PartitionChoice{1, model, one.theta});
        expected.push_back(ExpectedWidth(t, model, one, V));
      }
      EncoderConfig config = Config(type, V);
      const std::vector<uint8_t> packed = Pack(t, values);
      Result<EncodedChunk> chunk = EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
      REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
      const std::vector<PartitionView> parts = CheckChunk(*chunk, t, values, config);
      REQUIRE(parts.size() == choices.size());
      std::set<uint32_t> widths;
      for (size_t i = 0; i < parts.size(); ++i) {
        CHECK(parts[i].rows == choices[i].num_rows);
        CHECK(parts[i].width == expected[i]);
        const bool single = parts[i].model == 0 && parts[i].width == 0;
        if (model == Model::kConstant) {
          CHECK(parts[i].model == 0);
        } else {
          CHECK(parts[i].model == static_cast<uint8_t>(model));
        }
        if (!single || model != Model::kConstant) widths.insert(parts[i].width);
      }
      // Every width 0..N is reached (runs start at 1: width 0 is CONSTANT).
      for (uint32_t w = model == Model::kConstant ? 1 : 0; w <= t.bits; ++w) {
        CHECK_MESSAGE(widths.count(w) == 1, "width " << w << " not reached");
      }
    }
  }
}

TEST_CASE("partition sizes around tile boundaries, for V in {1, 8, 64, 1024}") {
  std::mt19937_64 rng(5);
  for (uint32_t V : {1u, 8u, 64u, 1024u}) {
    const uint32_t T = 32 * V;
    const uint32_t sizes[] = {1, 31, 32, 33, T - 1, T, T + 1, 255, 256, 257, 8191, 8192, 8193};
    for (PhysicalType type : {PhysicalType::kUInt8, PhysicalType::kInt32, PhysicalType::kUInt64}) {
      const TypeInfo t = Info(type);
      for (Model model : {Model::kConstant, Model::kFor, Model::kLinear, Model::kPoly2, Model::kPoly3}) {
        CAPTURE(V);
        CAPTURE(PhysicalTypeName(type));
        CAPTURE(ModelName(model));
        std::vector<uint64_t> values;
        std::vector<PartitionChoice> choices;
        std::vector<uint32_t> expected;
        uint32_t i = 0;
        for (uint32_t n : sizes) {
          const uint32_t w = static_cast<uint32_t>(rng() % (t.bits + 1));
          // Every other partition lets the encoder fit theta itself.
          Crafted c = CraftPartition(t, model, w, n, V, rng);
          const bool fitted = (i++ % 2) == 1;
          values.insert(values.end(), c.values.begin(), c.values.end());
          choices.push_back(PartitionChoice{n, model, fitted ? std::nullopt : c.theta});
          expected.push_back(fitted && c.theta ? ~0u : ExpectedWidth(t, model, c, V));
        }
        EncoderConfig config = Config(type, V);
        config.num_threads = 2;
        const std::vector<uint8_t> packed = Pack(t, values);
        Result<EncodedChunk> chunk =
            EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
        REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
        const std::vector<PartitionView> parts = CheckChunk(*chunk, t, values, config);
        REQUIRE(parts.size() == choices.size());
        for (size_t p = 0; p < parts.size(); ++p) {
          if (expected[p] != ~0u) CHECK(parts[p].width == expected[p]);
        }
      }
    }
  }
}

TEST_CASE("fitted theta: least squares plus centring comes close to the crafted theta") {
  // Residuals crafted uniformly in [-2^(w-1), 2^(w-1) - 1] around a known
  // polynomial: least squares lands close to it and centring Theta_0 keeps
  // the width within one bit of the crafted one.
  std::mt19937_64 rng(11);
  const TypeInfo t = Info(PhysicalType::kInt32);
  for (Model model : {Model::kLinear, Model::kPoly2, Model::kPoly3}) {
    for (uint32_t w : {0u, 1u, 2u, 3u, 7u, 12u}) {
      const uint32_t n = 2000;
      const Crafted c = CraftPartition(t, model, w, n, 64, rng);
      const std::vector<uint8_t> packed = Pack(t, c.values);
      EncoderConfig config = Config(PhysicalType::kInt32);
      Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
          packed.data(), n, config, {PartitionChoice{n, model, std::nullopt}});
      REQUIRE(chunk.ok());
      const auto parts = CheckChunk(*chunk, t, c.values, config);
      CAPTURE(ModelName(model));
      CAPTURE(w);
      CHECK(parts[0].width <= ExpectedWidth(t, model, c, 64) + 1);
    }
  }
}

TEST_CASE("explicit theta whose predictions overflow to infinity or NaN") {
  // spec §8.4 defines ToInt for every binary64 value; residuals against
  // saturated and NaN predictions must still round trip with minimal width.
  const std::array<double, 4> thetas[] = {
      {1e308, 1e308, 0, 0},   {-1e308, -1e308, 0, 0}, {1e308, -1e308, 1e308, 0},
      {0, 1e300, -1e300, 0},  {1e308, 1e308, -1e308, 1e308},
      {0, 0, 0, -1e300},      {-5e307, 1e307, 1e307, 1e307}};
  std::mt19937_64 rng(13);
  for (PhysicalType type : {PhysicalType::kInt8, PhysicalType::kUInt32, PhysicalType::kInt64,
                            PhysicalType::kUInt64}) {
    const TypeInfo t = Info(type);
    for (Model model : {Model::kLinear, Model::kPoly2, Model::kPoly3}) {
      for (const auto& theta : thetas) {
        for (uint32_t V : {1u, 64u}) {
          const uint32_t n = 700;
          Crafted c;
          c.theta = theta;
          c.values.resize(n);
          for (auto& v : c.values) {
            v = t.bits == 64 ? Canon(t, rng() % (uint64_t{1} << 53)) : Canon(t, rng() & LowMask(t.bits));
          }
          const std::vector<uint8_t> packed = Pack(t, c.values);
          EncoderConfig config = Config(type, V);
          Result<EncodedChunk> chunk =
              EncodeChunkWithPartitions(packed.data(), n, config, {{n, model, theta}});
          REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
          const auto parts = CheckChunk(*chunk, t, c.values, config);
          CHECK(parts[0].width == ExpectedWidth(t, model, c, V));
        }
      }
    }
  }
}

TEST_CASE("NaN predictions after the first step carry the widest residuals") {
  // Theta_1 * 32 overflows to -inf and (Theta_2 * 32) * 32 to +inf, so the
  // first finite difference is NaN: in tile 0 only step 0 has a finite
  // prediction, every later row predicts ToInt(NaN) = 0 (spec §8.4). Those
  // rows get the large values, so the width depends on them.
  const std::array<double, 4> theta = {0, -5.7e306, 1.8e305, 0};
  const uint32_t V = 64, n = 2 * 32 * V + 32;
  for (PhysicalType type : {PhysicalType::kInt16, PhysicalType::kUInt32, PhysicalType::kInt64}) {
    const TypeInfo t = Info(type);
    for (Model model : {Model::kPoly2, Model::kPoly3}) {
      Crafted c;
      c.theta = theta;
      c.values.resize(n);
      for (uint32_t x = 0; x < n; ++x) {
        const bool first_step = (x % (32 * V)) < 32;
        c.values[x] = Canon(t, first_step ? x % 3 : 9000 + x % 7);
      }
      const std::vector<uint8_t> packed = Pack(t, c.values);
      EncoderConfig config = Config(type, V);
      Result<EncodedChunk> chunk =
          EncodeChunkWithPartitions(packed.data(), n, config, {{n, model, theta}});
      REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
      const auto parts = CheckChunk(*chunk, t, c.values, config);
      CHECK(parts[0].width == ExpectedWidth(t, model, c, V));
    }
  }
}

TEST_CASE("runs at the boundaries: one run and one run per row") {
  const TypeInfo t = Info(PhysicalType::kInt16);
  EncoderConfig config = Config(PhysicalType::kInt16);
  // R = 1: a single value is CONSTANT with Bit_Width 0 and no payload.
  std::vector<uint64_t> same(300, Canon(t, static_cast<uint64_t>(-7)));
  std::vector<uint8_t> packed = Pack(t, same);
  Result<EncodedChunk> one =
      EncodeChunkWithPartitions(packed.data(), same.size(), config, {{300, Model::kConstant, {}}});
  REQUIRE(one.ok());
  auto parts = CheckChunk(*one, t, same, config);
  CHECK(parts[0].model == 0);
  CHECK(parts[0].width == 0);
  CHECK(one->payload.size() == kPayloadPaddingBytes);
  // R = n: every row its own run.
  std::vector<uint64_t> distinct(300);
  for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = Canon(t, (i * 37) % 1000);
  packed = Pack(t, distinct);
  Result<EncodedChunk> all =
      EncodeChunkWithPartitions(packed.data(), distinct.size(), config, {{300, Model::kConstant, {}}});
  REQUIRE(all.ok());
  parts = CheckChunk(*all, t, distinct, config);
  CHECK(parts[0].runs == 300);
  CHECK(parts[0].width == BitLength(999));
}

TEST_CASE("runs of a few rows: every range decodes, and nothing is written past it") {
  // The run decoder writes short runs eight values at a time, reaching into
  // the rows after the run; those must be rows of the range only.
  std::mt19937_64 rng(21);
  for (PhysicalType type : {PhysicalType::kUInt8, PhysicalType::kInt16, PhysicalType::kUInt32,
                            PhysicalType::kInt64}) {
    CAPTURE(PhysicalTypeName(type));
    const TypeInfo t = Info(type);
    const uint64_t n = 3000;
    std::vector<uint64_t> values;
    while (values.size() < n) {
      const uint64_t length = 1 + rng() % 12;
      const uint64_t value = Canon(t, rng() % 50);
      for (uint64_t i = 0; i < length; ++i) values.push_back(value);
    }
    values.resize(n);
    const std::vector<uint8_t> packed = Pack(t, values);
    const EncoderConfig config = Config(type);
    Result<EncodedChunk> chunk =
        EncodeChunkWithPartitions(packed.data(), n, config, {{static_cast<uint32_t>(n), Model::kConstant, {}}});
    REQUIRE(chunk.ok());
    const auto parts = CheckChunk(*chunk, t, values, config);
    CHECK(parts[0].runs > n / 10);
    const ChunkView view = ChunkViewOf(*chunk, type);
    const size_t bytes = t.bits / 8;
    for (int trial = 0; trial < 400; ++trial) {
      const uint64_t lb = rng() % n;
      const uint64_t le = lb + 1 + rng() % std::min<uint64_t>(n - lb, trial % 2 ? 20 : n);
      std::vector<uint8_t> out((le - lb) * bytes + 64, 0xAB);
      REQUIRE(DecodeChunkRows(view, lb, le, out.data()).ok());
      CHECK(std::memcmp(out.data(), packed.data() + lb * bytes, (le - lb) * bytes) == 0);
      CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>((le - lb) * bytes), out.end(),
                        [](uint8_t b) { return b == 0xAB; }));
    }
  }
}

TEST_CASE("spec §8.8 rule 3: no predicted model for 64-bit values beyond 2^53") {
  for (PhysicalType type : {PhysicalType::kInt64, PhysicalType::kUInt64}) {
    const TypeInfo t = Info(type);
    const uint64_t limit = uint64_t{1} << 53;
    // Exactly 2^53 (and -2^53) is allowed.
    std::vector<uint64_t> edge(64);
    for (size_t i = 0; i < edge.size(); ++i) {
      edge[i] = i % 2 ? limit : (t.is_signed ? static_cast<uint64_t>(-static_cast<int64_t>(limit)) : 0);
    }
    std::vector<uint8_t> packed = Pack(t, edge);
    EncoderConfig config = Config(type);
    Result<EncodedChunk> ok =
        EncodeChunkWithPartitions(packed.data(), edge.size(), config, {{64, Model::kLinear, {}}});
    REQUIRE(ok.ok());
    CheckChunk(*ok, t, edge, config);
    // One step beyond is refused, with and without theta.
    std::vector<uint64_t> beyond = edge;
    beyond[10] = limit + 1;
    packed = Pack(t, beyond);
    for (Model m : {Model::kLinear, Model::kPoly2, Model::kPoly3}) {
      for (bool with_theta : {false, true}) {
        std::optional<std::array<double, 4>> theta;
        if (with_theta) theta = std::array<double, 4>{0, 1, 0, 0};
        Result<EncodedChunk> bad =
            EncodeChunkWithPartitions(packed.data(), beyond.size(), config, {{64, m, theta}});
        CHECK(bad.status().code() == StatusCode::kInvalidArgument);
      }
    }
    // The automatic choice keeps such partitions on FOR or CONSTANT, even for
    // data a line would fit perfectly.
    std::vector<uint64_t> ramp(20000);
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = limit - 10000 + 3 * i;
    // (DELTA, which rule 3 does not restrict, would take the whole ramp.)
    EncoderConfig no_delta = config;
    no_delta.partitioner.enable_delta = false;
    const auto parts = EncodeAndCheck(t, ramp, no_delta);
    bool saw_predicted_below = false;
    for (const auto& p : parts) {
      if (IsPredictedModel(p.model)) saw_predicted_below = true;
    }
    // The first rows (below 2^53) may use a line; CheckChunk verified that no
    // predicted partition holds a value beyond 2^53.
    CHECK(saw_predicted_below);
  }
}

TEST_CASE("invalid arguments") {
  std::vector<uint32_t> values(100, 5);
  EncoderConfig config = Config(PhysicalType::kUInt32);
  CHECK(EncodeChunk(values.data(), 0, config).status().code() == StatusCode::kInvalidArgument);
  CHECK(EncodeChunk(values.data(), uint64_t{1} << 32, config).status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(EncodeChunk(nullptr, 10, config).status().code() == StatusCode::kInvalidArgument);
  for (uint32_t bad_v : {0u, 3u, 96u, 2048u}) {
    EncoderConfig c = config;
    c.values_per_lane = bad_v;
    CHECK(EncodeChunk(values.data(), values.size(), c).status().code() ==
          StatusCode::kInvalidArgument);
  }
  EncoderConfig f = config;
  f.type = PhysicalType::kFloat32;
  CHECK(EncodeChunk(values.data(), values.size(), f).status().code() ==
        StatusCode::kInvalidArgument);
  EncoderConfig zero_rows = config;
  zero_rows.partitioner.max_partition_rows = 0;
  CHECK(EncodeChunk(values.data(), values.size(), zero_rows).status().code() ==
        StatusCode::kInvalidArgument);
  EncoderConfig bad_gain = config;
  bad_gain.partitioner.poly_min_gain = 1.5;
  CHECK(EncodeChunk(values.data(), values.size(), bad_gain).status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(EncodeChunkWithPartitions(values.data(), 100, config, {{60, Model::kFor, {}}})
            .status()
            .code() == StatusCode::kInvalidArgument);
  CHECK(EncodeChunkWithPartitions(values.data(), 100, config,
                                  {{100, Model::kFor, {}}, {0, Model::kFor, {}}})
            .status()
            .code() == StatusCode::kInvalidArgument);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(EncodeChunkWithPartitions(values.data(), 100, config,
                                  {{100, Model::kLinear, std::array<double, 4>{0, inf, 0, 0}}})
            .status()
            .code() == StatusCode::kInvalidArgument);
  CHECK(EncodeChunkWithPartitions(values.data(), 100, config,
                                  {{100, static_cast<Model>(kNumModels), {}}})
            .status()
            .code() == StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// The automatic partitioner

namespace {

// Synthetic columns of `n` rows whose values fit `t`.
std::vector<uint64_t> Synthetic(const TypeInfo& t, const std::string& kind, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  const uint64_t mask = LowMask(t.bits);
  const double span = std::ldexp(1.0, static_cast<int>(std::min<uint32_t>(t.bits, 52)) - 1);
  const double offset = t.is_signed ? -span / 2 : span / 4;
  auto put = [&](size_t i, double y) {
    v[i] = Canon(t, static_cast<uint64_t>(static_cast<int64_t>(std::llround(y))) & mask);
  };
  if (kind == "constant") {
    const uint64_t value = Canon(t, rng() & mask);
    std::fill(v.begin(), v.end(), value);
  } else if (kind == "random") {
    for (auto& x : v) x = Canon(t, rng() & mask);
  } else if (kind == "small_random") {
    const uint64_t base = Canon(t, rng() & mask);
    for (auto& x : v) x = Canon(t, (base + rng() % 13) & mask);
  } else if (kind == "ramp") {
    const double slope = span / double(n) * 0.7317;
    for (size_t i = 0; i < n; ++i) put(i, offset + slope * double(i));
  } else if (kind == "sorted") {
    for (auto& x : v) x = Canon(t, rng() & mask);
    std::sort(v.begin(), v.end(), [&](uint64_t a, uint64_t b) { return Less(t, a, b); });
  } else if (kind == "sine") {
    std::normal_distribution<double> noise(0, span / 1e4);
    for (size_t i = 0; i < n; ++i) {
      put(i, offset + span / 4 * (1 + std::sin(double(i) / 700.0)) + noise(rng));
    }
  } else if (kind == "steps") {
    uint64_t value = Canon(t, rng() & mask);
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 40 == 0) value = Canon(t, (value + 1 + rng() % 1000) & mask);
      v[i] = value;
    }
  } else if (kind == "walk") {
    // A random walk with small steps: deltas are narrow, lines are not.
    int64_t value = static_cast<int64_t>(offset);
    for (size_t i = 0; i < n; ++i) {
      value += static_cast<int64_t>(rng() % 7) - 3;
      put(i, static_cast<double>(value));
    }
  } else if (kind == "mixed") {
    const char* parts[] = {"ramp", "random", "constant", "sine", "steps", "small_random"};
    size_t at = 0;
    for (int k = 0; at < n; ++k) {
      const size_t len = std::min(n - at, size_t{1500} + rng() % 9000);
      const std::vector<uint64_t> piece = Synthetic(t, parts[k % 6], len, seed + 17 * k);
      std::copy(piece.begin(), piece.end(), v.begin() + at);
      at += len;
    }
  }
  return v;
}

uint64_t SegmentBytes(const EncodedChunk& c) {
  return c.partition_table.size() + c.parameters.size() + c.payload.size();
}

uint64_t PartitionBytes(const EncodedChunk& c, uint32_t p) {
  const PartitionRecord r = LoadPartitionRecord(c.partition_table.data(), p);
  const PartitionRecord next = LoadPartitionRecord(c.partition_table.data(), p + 1);
  return kPartitionRecordBytes + 8 * uint64_t{next.param_offset - r.param_offset} +
         8 * uint64_t{next.payload_offset - r.payload_offset};
}

}  // namespace

TEST_CASE("automatic encoding round trips for every type and data shape") {
  const char* kinds[] = {"constant", "random", "small_random", "ramp", "sorted", "sine", "steps", "mixed"};
  const uint32_t lanes[] = {1, 64, 1024};
  int variant = 0;
  for (PhysicalType type : kAllTypes) {
    const TypeInfo t = Info(type);
    for (const char* kind : kinds) {
      CAPTURE(PhysicalTypeName(type));
      CAPTURE(kind);
      const size_t n = 3000 + (variant * 7919) % 30000;
      const std::vector<uint64_t> values = Synthetic(t, kind, n, 100 + variant);
      EncoderConfig config = Config(type, lanes[variant % 3]);
      config.num_threads = 1 + variant % 2;
      ++variant;
      EncodeAndCheck(t, values, config);
    }
  }
}

TEST_CASE("tiny chunks") {
  for (PhysicalType type : kAllTypes) {
    const TypeInfo t = Info(type);
    for (size_t n : {1, 2, 3, 31, 32, 33}) {
      const std::vector<uint64_t> values = Synthetic(t, "random", n, n);
      const auto parts = EncodeAndCheck(t, values, Config(type));
      if (n == 1) CHECK(parts[0].model == 0);
    }
  }
}

TEST_CASE("output does not depend on the thread count") {
  const TypeInfo t = Info(PhysicalType::kInt64);
  std::vector<uint64_t> values = Synthetic(t, "mixed", 150000, 3);
  // Enough distinct values to exercise the distinct-count estimate too.
  const std::vector<uint64_t> tail = Synthetic(t, "random", 80000, 4);
  values.insert(values.end(), tail.begin(), tail.end());
  const std::vector<uint8_t> packed = Pack(t, values);
  EncoderConfig config = Config(PhysicalType::kInt64);
  std::optional<EncodedChunk> reference;
  for (int threads : {1, 2, 3, 8}) {
    config.num_threads = threads;
    Result<EncodedChunk> chunk = EncodeChunk(packed.data(), values.size(), config);
    REQUIRE(chunk.ok());
    if (!reference) {
      CheckChunk(*chunk, t, values, config);
      CHECK_FALSE(chunk->statistics.distinct_count_exact);
      reference = std::move(*chunk);
      continue;
    }
    CHECK(chunk->partition_table == reference->partition_table);
    CHECK(chunk->parameters == reference->parameters);
    CHECK(chunk->payload == reference->payload);
    CHECK(chunk->bounds == reference->bounds);
    CHECK(chunk->statistics.distinct_count == reference->statistics.distinct_count);
    CHECK(chunk->statistics.distinct_count_exact == reference->statistics.distinct_count_exact);
  }
}

TEST_CASE("a single value stays one CONSTANT partition beyond max_partition_rows") {
  const TypeInfo t = Info(PhysicalType::kUInt32);
  std::vector<uint64_t> values = Synthetic(t, "random", 1000, 1);
  values.insert(values.end(), 40000, 123456);
  const std::vector<uint64_t> tail = Synthetic(t, "random", 1000, 2);
  values.insert(values.end(), tail.begin(), tail.end());
  EncoderConfig config = Config(PhysicalType::kUInt32);
  const auto parts = EncodeAndCheck(t, values, config);
  uint64_t longest = 0;
  for (const auto& p : parts) {
    if (p.rows > config.partitioner.max_partition_rows) {
      CHECK(p.model == 0);
      CHECK(p.width == 0);
    }
    longest = std::max(longest, p.rows);
  }
  // Most of the run is one partition; the rest joins partitions that mix it
  // with the random rows around it (those are capped at 8192 rows).
  CHECK(longest >= 40000 - 2 * config.partitioner.max_partition_rows);
  CHECK(parts.size() <= 12);
}

TEST_CASE("split refinement, for several minimum sizes") {
  // Short segment tails (analysis blocks of 1000 rows are no multiple of 32)
  // and data where halves pay off (jumps, noise with bends).
  for (PhysicalType type : {PhysicalType::kUInt8, PhysicalType::kInt32, PhysicalType::kUInt64}) {
    const TypeInfo t = Info(type);
    const std::vector<uint64_t> values = Synthetic(t, "mixed", 30000, 31);
    uint64_t previous_bytes = 0;
    for (uint32_t min_rows : {0u, 1u, 32u, 33u, 64u, 100u, 4096u}) {
      EncoderConfig config = Config(type);
      config.partitioner.analysis_block_rows = 1000;
      config.partitioner.breakpoint_tau = 1;
      config.partitioner.max_merge_rounds = 0;
      config.partitioner.split_min_rows = min_rows;
      EncodedChunk chunk;
      const auto parts = EncodeAndCheck(t, values, config, &chunk);
      CAPTURE(PhysicalTypeName(type));
      CAPTURE(min_rows);
      for (size_t i = 0; i < parts.size(); ++i) {
        // Pieces of a split are at least min_rows long and start on the
        // 32-row grid of their initial partition.
        if (min_rows > 0 && parts[i].rows < 256 && i + 1 < parts.size() &&
            parts[i + 1].first_row % 1000 != 0) {
          CHECK(parts[i].rows >= std::min<uint32_t>(min_rows, 32));
        }
      }
      // Splitting never makes the unmerged chunk larger than not splitting.
      if (min_rows == 0) previous_bytes = SegmentBytes(chunk);
      CHECK(SegmentBytes(chunk) <= previous_bytes);
    }
  }
}

TEST_CASE("partitions respect max_partition_rows") {
  const TypeInfo t = Info(PhysicalType::kInt32);
  const std::vector<uint64_t> values = Synthetic(t, "ramp", 50000, 9);
  EncoderConfig config = Config(PhysicalType::kInt32);
  config.partitioner.max_partition_rows = 1000;
  const auto parts = EncodeAndCheck(t, values, config);
  for (const auto& p : parts) CHECK(p.rows <= 1000);
  CHECK(parts.size() >= 50);
}

TEST_CASE("initial partitions are rounded up to 32 rows and cut at breakpoints") {
  const TypeInfo t = Info(PhysicalType::kInt32);
  EncoderConfig config = Config(PhysicalType::kInt32);
  config.partitioner.max_merge_rounds = 0;
  config.partitioner.initial_partition_rows = 100;  // becomes 128
  config.partitioner.breakpoint_tau = 64;           // never
  std::vector<uint64_t> values = Synthetic(t, "sine", 5000, 2);
  auto parts = EncodeAndCheck(t, values, config);
  for (size_t i = 0; i < parts.size(); ++i) {
    CHECK(parts[i].first_row == 128 * i);
    if (i + 1 < parts.size()) CHECK(parts[i].rows == 128);
  }
  // Noise, then a perfect line from row 3000: with 1000-row analysis blocks
  // the residual width drops by more than tau at block 3, which starts a
  // segment, so a partition starts at row 3000 although 3000 is no multiple
  // of 256.
  std::mt19937_64 rng(1);
  values.assign(6000, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = i < 3000 ? Canon(t, rng() % 100000) : Canon(t, 7 * i);
  }
  config.partitioner.initial_partition_rows = 256;
  config.partitioner.analysis_block_rows = 1000;
  config.partitioner.breakpoint_tau = 2;
  parts = EncodeAndCheck(t, values, config);
  bool starts_at_3000 = false;
  for (const auto& p : parts) {
    starts_at_3000 |= p.first_row == 3000;
    CHECK(p.rows <= 256);
  }
  CHECK(starts_at_3000);
}

TEST_CASE("merging only ever makes the chunk smaller") {
  for (PhysicalType type : {PhysicalType::kUInt16, PhysicalType::kInt32, PhysicalType::kUInt64}) {
    const TypeInfo t = Info(type);
    for (const char* kind : {"mixed", "sine", "ramp", "random"}) {
      const std::vector<uint64_t> values = Synthetic(t, kind, 40000, 77);
      EncoderConfig config = Config(type);
      EncodedChunk merged, unmerged;
      EncodeAndCheck(t, values, config, &merged);
      config.partitioner.max_merge_rounds = 0;
      EncodeAndCheck(t, values, config, &unmerged);
      CAPTURE(PhysicalTypeName(type));
      CAPTURE(kind);
      CHECK(SegmentBytes(merged) <= SegmentBytes(unmerged));
      CHECK(merged.num_partitions <= unmerged.num_partitions);
    }
  }
}

TEST_CASE("model switches are respected") {
  const TypeInfo t = Info(PhysicalType::kInt32);
  const std::vector<uint64_t> smooth = Synthetic(t, "sine", 30000, 5);
  const std::vector<uint64_t> steps = Synthetic(t, "steps", 30000, 6);
  // The format 1.0 models; DELTA's, RUNS_EF's and PATCHED_FOR's switches are
  // checked at the end.
  EncoderConfig config = Config(PhysicalType::kInt32);
  config.partitioner.enable_delta = false;
  config.partitioner.enable_runs_ef = false;
  config.partitioner.enable_patched_for = false;

  auto models = [&](const std::vector<uint64_t>& values, const EncoderConfig& c) {
    std::set<std::pair<int, bool>> seen;  // (Model_Type, runs)
    for (const auto& p : EncodeAndCheck(t, values, c)) seen.insert({p.model, p.model == 0 && p.width > 0});
    return seen;
  };
  auto seen = models(smooth, config);
  CHECK((seen.count({3, false}) + seen.count({4, false})) > 0);  // polynomials win on a sine
  CHECK(models(steps, config).count({0, true}) == 1);             // runs win on steps

  EncoderConfig no_poly = config;
  no_poly.partitioner.enable_poly2 = false;
  no_poly.partitioner.enable_poly3 = false;
  seen = models(smooth, no_poly);
  CHECK(seen.count({3, false}) == 0);
  CHECK(seen.count({4, false}) == 0);
  CHECK(seen.count({2, false}) == 1);

  EncoderConfig high_gain = config;
  high_gain.partitioner.poly_min_gain = 0.95;
  seen = models(smooth, high_gain);
  CHECK(seen.count({3, false}) == 0);
  CHECK(seen.count({4, false}) == 0);

  EncoderConfig no_predicted = no_poly;
  no_predicted.partitioner.enable_linear = false;
  for (const auto& [model, runs] : models(smooth, no_predicted)) CHECK(model <= 1);

  EncoderConfig no_rle = config;
  no_rle.partitioner.enable_rle = false;
  CHECK(models(steps, no_rle).count({0, true}) == 0);

  // A random walk takes DELTA when it is enabled, and never when it is not.
  const std::vector<uint64_t> walk = Synthetic(t, "walk", 30000, 7);
  EncoderConfig with_delta = config;
  with_delta.partitioner.enable_delta = true;
  bool any_delta = false;
  for (const auto& [model, runs] : models(walk, with_delta)) any_delta |= model == 5;
  CHECK(any_delta);
  for (const auto& [model, runs] : models(walk, config)) CHECK(model != 5);

  // Steps take RUNS_EF when it is enabled (their starts are cheaper there).
  EncoderConfig with_runs_ef = config;
  with_runs_ef.partitioner.enable_runs_ef = true;
  CHECK(models(steps, with_runs_ef).count({6, false}) == 1);
}

TEST_CASE("each partition gets its cheapest model") {
  // Refit every partition the partitioner chose with each model on its own;
  // none may be cheaper than the choice (polynomials by poly_min_gain).
  const TypeInfo t = Info(PhysicalType::kInt32);
  const std::vector<uint64_t> values = Synthetic(t, "mixed", 60000, 21);
  const std::vector<uint8_t> packed = Pack(t, values);
  EncoderConfig config = Config(PhysicalType::kInt32);
  EncodedChunk chunk;
  const auto parts = EncodeAndCheck(t, values, config, &chunk);
  const double keep = 1 - config.partitioner.poly_min_gain;
  for (uint32_t p = 0; p < parts.size(); ++p) {
    const uint64_t chosen = PartitionBytes(chunk, p);
    uint64_t best_simple = ~uint64_t{0};
    // PATCHED_FOR is tried last, where no predicted model won (spec §14).
    const bool patched_tried = !IsPredictedModel(parts[p].model);
    for (Model m : {Model::kConstant, Model::kFor, Model::kDelta, Model::kPatchedFor,
                    Model::kLinear, Model::kPoly2, Model::kPoly3}) {
      const auto rows = static_cast<uint32_t>(parts[p].rows);
      Result<EncodedChunk> alone = EncodeChunkWithPartitions(
          packed.data() + 4 * parts[p].first_row, rows, config, {{rows, m, std::nullopt}});
      REQUIRE(alone.ok());
      const uint64_t cost = PartitionBytes(*alone, 0);
      CAPTURE(p);
      CAPTURE(std::string(ModelName(m)));
      if (m == Model::kPatchedFor && !patched_tried) continue;
      if (m == Model::kPoly2 || m == Model::kPoly3) {
        if (rows >= 32 && !IsPredictedModel(parts[p].model)) CHECK(!(cost < best_simple * keep));
        CHECK(!(cost < chosen * keep));
      } else {
        CHECK(chosen <= cost);
      }
      if (m != Model::kPoly2 && m != Model::kPoly3) best_simple = std::min(best_simple, cost);
    }
  }
}

TEST_CASE("distinct counts") {
  EncoderConfig config = Config(PhysicalType::kUInt32);
  const TypeInfo t = Info(PhysicalType::kUInt32);
  std::mt19937_64 rng(3);
  // Unsorted with few values: exact.
  std::vector<uint64_t> few(50000);
  for (auto& v : few) v = 1000 + rng() % 100;
  EncodedChunk chunk;
  EncodeAndCheck(t, few, config, &chunk);
  CHECK(chunk.statistics.distinct_count_exact);
  CHECK(chunk.statistics.distinct_count == 100);
  // Sorted descending with many values: exact.
  std::vector<uint64_t> sorted(300000);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = 4000000000u - 3 * (i / 2);
  EncodeAndCheck(t, sorted, config, &chunk);
  CHECK(chunk.statistics.distinct_count_exact);
  CHECK(chunk.statistics.distinct_count == 150000);
  // Unsorted with many values: an estimate (CheckChunk allows 5%).
  std::vector<uint64_t> many(300000);
  for (auto& v : many) v = rng() % 200000;
  EncodeAndCheck(t, many, config, &chunk);
  CHECK_FALSE(chunk.statistics.distinct_count_exact);
  // 16-bit values are always exact.
  const TypeInfo t16 = Info(PhysicalType::kInt16);
  std::vector<uint64_t> shorts(200000);
  for (auto& v : shorts) v = Canon(t16, rng() & 0xFFFF);
  EncodeAndCheck(t16, shorts, Config(PhysicalType::kInt16), &chunk);
  CHECK(chunk.statistics.distinct_count_exact);
}

TEST_CASE("bounds and statistics can be turned off") {
  const TypeInfo t = Info(PhysicalType::kInt8);
  EncoderConfig config = Config(PhysicalType::kInt8);
  config.compute_bounds = false;
  config.compute_statistics = false;
  EncodedChunk chunk;
  EncodeAndCheck(t, Synthetic(t, "mixed", 20000, 8), config, &chunk);
  CHECK(chunk.bounds.empty());
  CHECK_FALSE(chunk.statistics.has_min_max);
}

// ---------------------------------------------------------------------------
// Minimax lines

namespace {

// The narrowest vertical strip by brute force: the optimal slope is the slope
// of some pair of points; strip heights compared exactly as fractions.
template <typename T>
long double BruteForceSpread(const std::vector<T>& v) {
  const size_t n = v.size();
  long double best = std::numeric_limits<long double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const __int128 dy = static_cast<__int128>(v[j]) - static_cast<__int128>(v[i]);
      const __int128 dx = static_cast<__int128>(j - i);
      __int128 top = 0, bottom = 0;
      for (size_t x = 0; x < n; ++x) {
        const __int128 w = dx * static_cast<__int128>(v[x]) - dy * static_cast<__int128>(x);
        if (x == 0 || w > top) top = w;
        if (x == 0 || w < bottom) bottom = w;
      }
      best = std::min(best, static_cast<long double>(top - bottom) / static_cast<long double>(dx));
    }
  }
  return best;
}

template <typename T>
void CheckMinimaxLine(std::mt19937_64& rng, uint64_t span, bool noisy_line) {
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 2 + rng() % 40;
    std::vector<T> v(n);
    const double slope = std::uniform_real_distribution<double>(-3, 3)(rng);
    for (size_t x = 0; x < n; ++x) {
      const uint64_t noise = rng() % span;
      const double base = noisy_line ? slope * static_cast<double>(x) : 0.0;
      v[x] = static_cast<T>(static_cast<T>(noise) + static_cast<T>(base));
    }
    const T lo = *std::min_element(v.begin(), v.end());
    const T hi = *std::max_element(v.begin(), v.end());
    const MinimaxLine line = FitMinimaxLine(v.data(), static_cast<uint32_t>(n),
                                            static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    const long double expected = BruteForceSpread(v);
    const long double tolerance = 1e-12L * (1 + std::fabs(static_cast<long double>(hi)));
    CHECK(std::fabs(line.spread - expected) <= tolerance);
    // Every point lies in the strip around slope * x + intercept (up to the
    // rounding of the slope to binary64).
    for (size_t x = 0; x < n; ++x) {
      const long double e = static_cast<long double>(v[x]) - (line.slope * static_cast<long double>(x) + line.intercept);
      CHECK(std::fabs(e) <= line.spread / 2 + tolerance + std::fabs(line.slope) * 1e-15L * n);
    }
  }
}

}  // namespace

TEST_CASE("minimax line equals the brute-force narrowest strip") {
  std::mt19937_64 rng(17);
  CheckMinimaxLine<int8_t>(rng, 50, false);
  CheckMinimaxLine<uint16_t>(rng, 1000, true);
  CheckMinimaxLine<int32_t>(rng, 7, true);
  CheckMinimaxLine<int64_t>(rng, uint64_t{1} << 40, true);
  // Values near 2^62 need 128-bit products.
  CheckMinimaxLine<uint64_t>(rng, uint64_t{1} << 62, false);
}

TEST_CASE("minimax lines give a quantised line zero-bit residuals") {
  const TypeInfo t = Info(PhysicalType::kUInt32);
  const uint32_t n = 8192;
  std::vector<uint64_t> values(n);
  for (uint32_t x = 0; x < n; ++x) {
    values[x] = static_cast<uint64_t>(std::floor(1000.37 + 21.4748364821 * x));
  }
  const std::vector<uint8_t> packed = Pack(t, values);
  uint32_t widths[2];
  for (bool minimax : {false, true}) {
    EncoderConfig config = Config(PhysicalType::kUInt32);
    config.partitioner.minimax_lines = minimax;
    Result<EncodedChunk> chunk =
        EncodeChunkWithPartitions(packed.data(), n, config, {{n, Model::kLinear, std::nullopt}});
    REQUIRE(chunk.ok());
    widths[minimax] = CheckChunk(*chunk, t, values, config)[0].width;
  }
  CHECK(widths[1] == 0);
  CHECK(widths[1] <= widths[0]);

  // The automatic choice then covers a long quantised line with few
  // zero-width partitions, and round trips everything else too.
  std::vector<uint64_t> line(100000);
  for (size_t x = 0; x < line.size(); ++x) line[x] = static_cast<uint64_t>(std::floor(0.5 + 3.3333337 * x));
  EncoderConfig config = Config(PhysicalType::kUInt32);
  config.partitioner.minimax_lines = true;
  const auto parts = EncodeAndCheck(t, line, config);
  for (const auto& p : parts) CHECK(p.width == 0);
  CHECK(parts.size() <= 2 * line.size() / config.partitioner.max_partition_rows + 2);
  for (PhysicalType type : {PhysicalType::kInt16, PhysicalType::kUInt64}) {
    const TypeInfo tt = Info(type);
    EncoderConfig c = Config(type);
    c.partitioner.minimax_lines = true;
    for (const char* kind : {"mixed", "ramp", "sine"}) EncodeAndCheck(tt, Synthetic(tt, kind, 30000, 5), c);
  }
}

// ---------------------------------------------------------------------------
// Real data (the real integer arrays of L3_REAL_DATA_DIR)


TEST_CASE("real integer arrays round trip") {
  const std::string dir = L3_REAL_DATA_DIR;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    MESSAGE("skipped: no real data at " << dir);
    return;
  }
  std::vector<std::string> files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".bin.gz") == 0) files.push_back(name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  int tested = 0;
  for (const std::string& name : files) {
    const std::string suffix = name.substr(0, name.size() - 7);
    const std::string type_name = suffix.substr(suffix.rfind('_') + 1);
    Result<PhysicalType> type = ParsePhysicalType(type_name);
    if (!type.ok() || !PhysicalTypeIsInteger(*type)) continue;
    std::vector<uint8_t> bytes;
    REQUIRE_MESSAGE(l3::testing::ReadGzipFile(dir + "/" + name, &bytes), name);
    const TypeInfo t = Info(*type);
    const size_t width = t.bits / 8;
    std::vector<uint64_t> values(bytes.size() / width);
    for (size_t i = 0; i < values.size(); ++i) {
      uint64_t raw = 0;
      std::memcpy(&raw, bytes.data() + i * width, width);
      values[i] = Canon(t, raw);
    }
    CAPTURE(name);
    EncoderConfig config = Config(*type);
    config.num_threads = 2;
    EncodedChunk chunk;
    const auto parts = EncodeAndCheck(t, values, config, &chunk);
    const uint64_t stored = AlignUp64(chunk.partition_table.size()) + AlignUp64(chunk.parameters.size()) +
                            AlignUp64(chunk.payload.size()) + AlignUp64(chunk.bounds.size());
    MESSAGE(name << ": " << values.size() << " values, " << parts.size() << " partitions, ratio "
                 << double(bytes.size()) / double(stored));
    ++tested;
  }
  CHECK(tested >= 1);
}

// ---------------------------------------------------------------------------
// DELTA (spec §8.9)

namespace {

// A walk of n values of type t: each step adds a random delta in
// [lo, lo + 2^w), and with probability outlier_rate a delta up to the type's
// full range instead (the exceptions). Canonical extensions.
std::vector<uint64_t> DeltaWalk(const TypeInfo& t, uint32_t n, uint32_t w, double outlier_rate,
                                std::mt19937_64& rng) {
  const uint64_t mask = LowMask(t.bits);
  std::vector<uint64_t> v(n);
  uint64_t cur = rng() & mask;
  const uint64_t lo = rng() & mask;
  std::uniform_real_distribution<double> coin(0, 1);
  for (uint32_t x = 0; x < n; ++x) {
    v[x] = Canon(t, cur & mask);
    uint64_t step = lo + (w == 0 ? 0 : (rng() & LowMask(w)));
    if (coin(rng) < outlier_rate) step = rng();
    cur += step;
  }
  return v;
}

// The reference decoder's view of an encoded chunk, without its bounds.
ChunkView ViewOf(const EncodedChunk& c, PhysicalType type) {
  ChunkView view = ChunkViewOf(c, type);
  view.bounds = nullptr;
  view.bounds_bytes = 0;
  return view;
}

}  // namespace

TEST_CASE("DELTA: every type, widths 0..N, exceptions, tile boundaries, V in {1, 8, 64}") {
  std::mt19937_64 rng(88);
  for (uint32_t V : {1u, 8u, 64u}) {
    const uint32_t T = 32 * V;
    for (PhysicalType type : kAllTypes) {
      const TypeInfo t = Info(type);
      CAPTURE(V);
      CAPTURE(PhysicalTypeName(type));
      std::vector<uint64_t> values;
      std::vector<PartitionChoice> choices;
      const uint32_t sizes[] = {1, 2, 31, 32, 33, T - 1, T, T + 1, 2 * T + 17, 300};
      uint32_t i = 0;
      for (uint32_t w = 0; w <= t.bits; ++w) {
        const uint32_t n = sizes[i++ % 10];
        const double outliers = (w % 3 == 0) ? 0.0 : (w % 3 == 1 ? 0.01 : 0.2);
        const std::vector<uint64_t> part = DeltaWalk(t, n, w, outliers, rng);
        values.insert(values.end(), part.begin(), part.end());
        choices.push_back(PartitionChoice{n, Model::kDelta, std::nullopt});
      }
      EncoderConfig config = Config(type, V);
      const std::vector<uint8_t> packed = Pack(t, values);
      Result<EncodedChunk> chunk =
          EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
      REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
      CHECK(chunk->uses_delta);
      const std::vector<PartitionView> parts = CheckChunk(*chunk, t, values, config);
      REQUIRE(parts.size() == choices.size());
      bool saw_exceptions = false;
      for (size_t p = 0; p < parts.size(); ++p) {
        CHECK(parts[p].model == static_cast<uint8_t>(Model::kDelta));
        const PartitionRecord r = LoadPartitionRecord(chunk->partition_table.data(), p);
        saw_exceptions |= (LoadLE64(chunk->parameters.data() + 8 * (r.param_offset + 1)) &
                           0xFFFFFFFFull) != 0;
      }
      if (t.bits >= 16) CHECK(saw_exceptions);  // 8-bit outliers rarely pay for a row index

      // The reference decoder: whole chunk, every range start around tile
      // edges, single rows, and deep validation.
      const ChunkView view = ViewOf(*chunk, type);
      REQUIRE(ValidateChunkMetadata(view).ok());
      REQUIRE(ValidateRunStarts(view).ok());
      CHECK(DeepValidateChunk(view).ok());
      const size_t bytes = t.bits / 8;
      std::vector<uint8_t> decoded(packed.size());
      REQUIRE(DecodeChunkRows(view, 0, values.size(), decoded.data()).ok());
      CHECK(decoded == packed);
      for (uint64_t begin : {uint64_t{1}, uint64_t{T - 1}, uint64_t{T}, uint64_t{T + 3},
                             uint64_t{values.size() / 2}}) {
        if (begin >= values.size()) continue;
        const uint64_t end = std::min<uint64_t>(values.size(), begin + 2 * T + 5);
        std::vector<uint8_t> range((end - begin) * bytes);
        REQUIRE(DecodeChunkRows(view, begin, end, range.data()).ok());
        CHECK(std::memcmp(range.data(), packed.data() + begin * bytes, range.size()) == 0);
      }
      for (uint64_t row = 0; row < values.size(); row += 7) {
        uint64_t one = 0;
        REQUIRE(DecodeChunkValue(view, row, &one).ok());
        CHECK(one == values[row]);
      }
      // DecodeDeltaWindow gives DecodeDeltaRange's values for ranges that
      // start and end anywhere in a partition, also once the Seed words and
      // fields are random bits (which deep validation rejects but the decoder
      // still defines; the exception lists stay as written).
      std::vector<uint8_t> scrambled(view.payload, view.payload + view.payload_bytes);
      for (uint32_t p = 0; p < view.num_partitions; ++p) {
        const Partition part = LoadPartition(view, p);
        uint8_t* words = scrambled.data() + (part.payload - view.payload);
        const uint64_t bits = DeltaSeedWords(part.num_rows, V, 1) * 64 + part.num_rows * part.bit_width;
        for (uint64_t b = 0; b < bits; ++b) {
          if (rng() % 2) words[b / 8] ^= static_cast<uint8_t>(1u << (b % 8));
        }
      }
      ChunkView scrambled_view = view;
      scrambled_view.payload = scrambled.data();
      for (const ChunkView* v : {&view, static_cast<const ChunkView*>(&scrambled_view)}) {
        for (uint32_t p = 0; p < v->num_partitions; ++p) {
          const Partition part = LoadPartition(*v, p);
          const uint64_t n = part.num_rows;
          for (uint64_t lb : {uint64_t{0}, uint64_t{1}, uint64_t{31}, uint64_t{33}, uint64_t{T - 1},
                              uint64_t{T}, uint64_t{T + 40}, n / 2, n - 1}) {
            if (lb >= n) continue;
            for (uint64_t length : {uint64_t{1}, uint64_t{2}, uint64_t{37}, uint64_t{2 * T + 5}}) {
              const uint64_t le = std::min(n, lb + length);
              std::vector<uint64_t> expected(le - lb), got(le - lb);
              DecodeDeltaRange(part, V, lb, le, expected.data());
              DecodeDeltaWindow(part, V, lb, le, got.data());
              CHECK(got == expected);
            }
          }
        }
      }
      // A file that uses DELTA without the DELTA_MODEL bit (spec §4.4).
      ChunkView without = view;
      without.required_features = 0;
      CHECK(ValidateChunkMetadata(without).code() == StatusCode::kCorruptMetadata);
    }
  }
}

TEST_CASE("DELTA: corrupt Exceptions words, exception rows and seeds are rejected") {
  std::mt19937_64 rng(9);
  const TypeInfo t = Info(PhysicalType::kUInt32);
  const std::vector<uint64_t> values = DeltaWalk(t, 700, 3, 0.05, rng);
  EncoderConfig config = Config(PhysicalType::kUInt32, 8);
  const std::vector<uint8_t> packed = Pack(t, values);
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      packed.data(), values.size(), config, {PartitionChoice{700, Model::kDelta, std::nullopt}});
  REQUIRE(chunk.ok());
  const uint64_t exceptions_word = LoadLE64(chunk->parameters.data() + 8);
  const uint32_t num_exc = static_cast<uint32_t>(exceptions_word);
  REQUIRE(num_exc >= 2);
  auto view_of = [](const EncodedChunk& c) { return ViewOf(c, PhysicalType::kUInt32); };
  SUBCASE("reserved bits of the Exceptions word") {
    EncodedChunk c = *chunk;
    StoreLE64(c.parameters.data() + 8, exceptions_word | (uint64_t{1} << 50));
    CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("Exception_Width 0 with exceptions") {
    EncodedChunk c = *chunk;
    StoreLE64(c.parameters.data() + 8, exceptions_word & 0xFFFFFFFFull);
    CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("Num_Exceptions changes the payload length") {
    EncodedChunk c = *chunk;
    StoreLE64(c.parameters.data() + 8, exceptions_word + 1);
    CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("exception rows out of order") {
    EncodedChunk c = *chunk;
    ChunkView view = view_of(c);
    const uint64_t seeds = (700 + 255) / 256;
    uint8_t* stream = c.payload.data() + 8 * seeds;
    const uint32_t w = LoadPartitionRecord(c.partition_table.data(), 0).bit_width;
    const uint32_t pb = RunStartBits(700);
    // Swap the first two exception rows.
    const uint64_t a = ReadField(stream, 700 * w, pb);
    const uint64_t b = ReadField(stream, 700 * w + pb, pb);
    auto put = [&](uint64_t bit, uint64_t value) {
      for (uint32_t j = 0; j < pb; ++j) {
        const uint64_t at = bit + j;
        uint8_t& byte = stream[at / 8];
        byte = static_cast<uint8_t>((byte & ~(1u << (at % 8))) | (((value >> j) & 1u) << (at % 8)));
      }
    };
    put(700 * w, b);
    put(700 * w + pb, a);
    REQUIRE(ValidateChunkMetadata(view).ok());
    CHECK(ValidateRunStarts(view).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a seed that disagrees with the previous tile fails deep validation only") {
    EncodedChunk c = *chunk;
    StoreLE64(c.payload.data() + 8, LoadLE64(c.payload.data() + 8) ^ 1);
    ChunkView view = view_of(c);
    REQUIRE(ValidateChunkMetadata(view).ok());
    REQUIRE(ValidateRunStarts(view).ok());
    CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptMetadata);
  }
}

// Runs of random lengths in [1, max_run] with values of `w` bits (adjacent
// runs differ), `n` rows.
std::vector<uint64_t> RunsOf(const TypeInfo& t, uint64_t n, uint64_t max_run, uint32_t w,
                             std::mt19937_64& rng) {
  std::vector<uint64_t> values;
  uint64_t previous = ~uint64_t{0};
  while (values.size() < n) {
    uint64_t value = 0;
    do {
      value = Canon(t, rng() & LowMask(w));
    } while (value == previous);
    previous = value;
    const uint64_t length = 1 + rng() % max_run;
    for (uint64_t i = 0; i < length && values.size() < n; ++i) values.push_back(value);
  }
  return values;
}

TEST_CASE("RUNS_EF: every type, run shapes from R = 2 to R = n, n up to 65536, V in {1, 8, 64}") {
  std::mt19937_64 rng(611);
  for (uint32_t V : {1u, 8u, 64u}) {
    for (PhysicalType type : kAllTypes) {
      const TypeInfo t = Info(type);
      CAPTURE(V);
      CAPTURE(PhysicalTypeName(type));
      std::vector<uint64_t> values;
      std::vector<PartitionChoice> choices;
      auto add = [&](const std::vector<uint64_t>& part) {
        values.insert(values.end(), part.begin(), part.end());
        choices.push_back(PartitionChoice{static_cast<uint32_t>(part.size()), Model::kRunsEf,
                                          std::nullopt});
      };
      add(RunsOf(t, 2, 1, t.bits, rng));                     // n = 2, R = 2
      add(RunsOf(t, 300, 1, std::min(t.bits, 9u), rng));     // R = n
      add(RunsOf(t, 1000, 40, t.bits, rng));                 // widest values
      add(RunsOf(t, 777, 3, 1, rng));                        // w = 1, short runs
      std::vector<uint64_t> two = RunsOf(t, 5000, 1, 3, rng);  // R = 2: one start
      std::fill(two.begin(), two.begin() + 4321, two[0]);
      std::fill(two.begin() + 4321, two.end(), two[0] ^ 1);
      add(two);
      if (V == 64) add(RunsOf(t, 65536, 16, std::min(t.bits, 20u), rng));  // the largest n
      EncoderConfig config = Config(type, V);
      const std::vector<uint8_t> packed = Pack(t, values);
      Result<EncodedChunk> chunk =
          EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
      REQUIRE_MESSAGE(chunk.ok(), chunk.status().ToString());
      CHECK(chunk->uses_runs_ef);
      const std::vector<PartitionView> parts = CheckChunk(*chunk, t, values, config);
      REQUIRE(parts.size() == choices.size());
      for (const PartitionView& part : parts) {
        CHECK(part.model == static_cast<uint8_t>(Model::kRunsEf));
      }
      CHECK(parts[0].runs == 2);
      CHECK(parts[1].runs == 300);
      CHECK(parts[4].runs == 2);

      // The reference decoder: whole chunk, ranges that start anywhere, single
      // rows (the rank of spec §8.11), and deep validation.
      const ChunkView view = ViewOf(*chunk, type);
      REQUIRE(ValidateChunkMetadata(view).ok());
      REQUIRE(ValidateRunStarts(view).ok());
      CHECK(DeepValidateChunk(view).ok());
      const size_t bytes = t.bits / 8;
      std::vector<uint8_t> decoded(packed.size());
      REQUIRE(DecodeChunkRows(view, 0, values.size(), decoded.data()).ok());
      CHECK(decoded == packed);
      for (int trial = 0; trial < 300; ++trial) {
        const uint64_t lb = rng() % values.size();
        const uint64_t le = lb + 1 + rng() % std::min<uint64_t>(values.size() - lb, 3000);
        std::vector<uint8_t> range((le - lb) * bytes);
        REQUIRE(DecodeChunkRows(view, lb, le, range.data()).ok());
        CHECK(std::memcmp(range.data(), packed.data() + lb * bytes, range.size()) == 0);
      }
      for (uint64_t row = 0; row < values.size(); row += 1 + rng() % 13) {
        uint64_t one = 0;
        REQUIRE(DecodeChunkValue(view, row, &one).ok());
        CHECK(one == values[row]);
      }
      // A file that uses RUNS_EF without the RUNS_EF_MODEL bit (spec §4.4).
      ChunkView without = view;
      without.required_features = kRequiredDeltaModel;
      CHECK(ValidateChunkMetadata(without).code() == StatusCode::kCorruptMetadata);
    }
  }
}

TEST_CASE("RUNS_EF: bad parameters are CORRUPT_METADATA, a bad high part CORRUPT_PAYLOAD") {
  std::mt19937_64 rng(12);
  const TypeInfo t = Info(PhysicalType::kUInt16);
  const std::vector<uint64_t> values = RunsOf(t, 900, 9, 6, rng);
  EncoderConfig config = Config(PhysicalType::kUInt16, 8);
  const std::vector<uint8_t> packed = Pack(t, values);
  Result<EncodedChunk> chunk = EncodeChunkWithPartitions(
      packed.data(), values.size(), config, {PartitionChoice{900, Model::kRunsEf, std::nullopt}});
  REQUIRE(chunk.ok());
  const uint64_t runs = LoadLE64(chunk->parameters.data() + 8);
  REQUIRE(runs > 20);
  auto view_of = [](const EncodedChunk& c) { return ViewOf(c, PhysicalType::kUInt16); };
  const uint32_t w = LoadPartitionRecord(chunk->partition_table.data(), 0).bit_width;
  const RunsEfLayout g = MakeRunsEfLayout(900, runs, w);
  SUBCASE("Num_Runs 1, 0 and n + 1") {
    for (uint64_t bad : {uint64_t{1}, uint64_t{0}, uint64_t{901}}) {
      EncodedChunk c = *chunk;
      StoreLE64(c.parameters.data() + 8, bad);
      CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
    }
  }
  SUBCASE("Num_Runs that changes the payload length") {
    EncodedChunk c = *chunk;
    StoreLE64(c.parameters.data() + 8, runs * 3);
    CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("Bit_Width 0") {
    EncodedChunk c = *chunk;
    c.partition_table[13] = 0;
    CHECK(ValidateChunkMetadata(view_of(c)).code() == StatusCode::kCorruptMetadata);
  }
  SUBCASE("one 1 bit of H moved, removed or added") {
    // Find the first 1 bit of H and the 0 bit after it.
    uint64_t one = 0;
    while (!ReadField(chunk->payload.data(), g.high_bit0 + one, 1)) ++one;
    uint64_t zero = one + 1;
    while (ReadField(chunk->payload.data(), g.high_bit0 + zero, 1)) ++zero;
    auto flip = [&](EncodedChunk* c, uint64_t pos) {
      const uint64_t bit = g.high_bit0 + pos;
      c->payload[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    };
    EncodedChunk removed = *chunk;
    flip(&removed, one);
    EncodedChunk added = *chunk;
    flip(&added, zero);
    for (EncodedChunk* c : {&removed, &added}) {
      const ChunkView view = view_of(*c);
      REQUIRE(ValidateChunkMetadata(view).ok());
      CHECK(ValidateRunStarts(view).code() == StatusCode::kCorruptPayload);
      CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptPayload);
      // Decoders do not validate the whole high part but stay in bounds.
      std::vector<uint8_t> out(packed.size());
      (void)DecodeChunkRows(view, 0, 900, out.data());
      for (uint64_t row = 0; row < 900; row += 7) {
        uint64_t v = 0;
        (void)DecodeChunkValue(view, row, &v);
      }
    }
  }
  SUBCASE("low parts that make two starts equal") {
    EncodedChunk c = *chunk;
    for (uint64_t i = 0; i < g.starts * g.low_bits; ++i) {
      const uint64_t bit = g.low_bit0 + i;
      c.payload[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
    // All low parts at their maximum: starts of equal high parts coincide,
    // or a start passes n - 1, for these short runs (l >= 1).
    REQUIRE(g.low_bits >= 1);
    CHECK(ValidateRunStarts(view_of(c)).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a nonzero bit after H fails deep validation only") {
    EncodedChunk c = *chunk;
    const uint64_t used = g.used_bits();
    REQUIRE(used % 64 != 0);
    c.payload[used / 8] |= static_cast<uint8_t>(1u << (used % 8));
    const ChunkView view = view_of(c);
    REQUIRE(ValidateChunkMetadata(view).ok());
    REQUIRE(ValidateRunStarts(view).ok());
    CHECK(DeepValidateChunk(view).code() == StatusCode::kCorruptPayload);
  }
  SUBCASE("a RUNS_EF partition over 65536 rows") {
    std::vector<uint64_t> big(65537, 3);
    big[70000 % 65537] = 4;
    const std::vector<uint8_t> bytes = Pack(t, big);
    CHECK(EncodeChunkWithPartitions(bytes.data(), big.size(), config,
                                    {PartitionChoice{65537, Model::kRunsEf, std::nullopt}})
              .status()
              .code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("RUNS_EF is chosen for short runs, CONSTANT runs where starts are few, and never in 1.0") {
  std::mt19937_64 rng(5);
  const TypeInfo t = Info(PhysicalType::kUInt32);
  const std::vector<uint64_t> values = RunsOf(t, 200000, 31, 20, rng);
  EncoderConfig config = Config(PhysicalType::kUInt32);
  const auto parts = EncodeAndCheck(t, values, config);
  uint64_t ef_rows = 0;
  for (const auto& p : parts) {
    if (p.model == static_cast<uint8_t>(Model::kRunsEf)) ef_rows += p.rows;
  }
  CHECK(ef_rows > values.size() * 9 / 10);
  // Without RUNS_EF the same column is larger (spec §8.7 starts cost
  // bitlen(n - 1) bits each).
  EncoderConfig without = config;
  without.partitioner.enable_runs_ef = false;
  const std::vector<uint8_t> packed = Pack(t, values);
  Result<EncodedChunk> with_ef = EncodeChunk(packed.data(), values.size(), config);
  Result<EncodedChunk> plain = EncodeChunk(packed.data(), values.size(), without);
  REQUIRE(with_ef.ok());
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->uses_runs_ef);
  CHECK(with_ef->payload.size() + with_ef->partition_table.size() <
        plain->payload.size() + plain->partition_table.size());
  // A partition takes RUNS_EF only where it saves at least runs_ef_min_gain
  // (here about a fifth of the bytes: 0.1 keeps it, 0.6 does not).
  for (double gain : {0.1, 0.6}) {
    EncoderConfig strict = config;
    strict.partitioner.runs_ef_min_gain = gain;
    Result<EncodedChunk> chunk = EncodeChunk(packed.data(), values.size(), strict);
    REQUIRE(chunk.ok());
    CHECK(chunk->uses_runs_ef == (gain < 0.5));
  }
}

TEST_CASE("DELTA is chosen for sorted ids and random walks, not for noise") {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> ids(20000);
  uint64_t cur = 1000;
  for (auto& v : ids) {
    v = cur;
    cur += (rng() % 100 < 90) ? 1 : 1 + rng() % 5000;  // mostly +1, sporadic jumps
  }
  const TypeInfo t = Info(PhysicalType::kUInt64);
  EncoderConfig with = Config(PhysicalType::kUInt64);
  EncoderConfig without = with;
  without.partitioner.enable_delta = false;
  const std::vector<uint8_t> packed = Pack(t, ids);
  Result<EncodedChunk> a = EncodeChunk(packed.data(), ids.size(), with);
  Result<EncodedChunk> b = EncodeChunk(packed.data(), ids.size(), without);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->uses_delta);
  CHECK_FALSE(b->uses_delta);
  CheckChunk(*a, t, ids, with);
  // The deltas need ~1 bit plus exceptions; lines over the walk need far more.
  CHECK(a->payload.size() * 3 < b->payload.size());
}
