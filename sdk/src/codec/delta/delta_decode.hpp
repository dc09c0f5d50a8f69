// DELTA (spec §8.9), the CPU reference decoder's half: full, range and
// single-row decoding, and the deep-validation rules of the model.
//
// v(x) = (Seed[t] + sum over rows j of tile t with j <= x of
//        (Delta_Base + u(j))) mod 2^N,   t = floor(x / S),
// for order K = 1; order K sums K times, each sum starting from its own Seed
// word of the tile. A row depends only on its own tile: a range decode
// starts at the tile that holds its first row, and a random access scans at
// most one tile.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "codec/decode/partition_decoder.hpp"
#include "codec/decode/slap_unpack.hpp"
#include "codec/delta/delta_layout.hpp"
#include "codec/delta/delta_order_sums.hpp"

namespace l3::internal {

/// spec §8.9: the order K of a DELTA partition (its Exceptions word checked).
inline uint32_t DeltaOrder(const Partition& part) {
  return UnpackDeltaExceptions(LoadLE64(part.params + 8)).order;
}

/// The bit stream of a DELTA partition of order K: after its K ceil_div(n,
/// S) Seed words.
inline const uint8_t* DeltaStream(const Partition& part, uint32_t values_per_lane,
                                  uint32_t order) {
  return part.payload + 8 * DeltaSeedWords(part.num_rows, values_per_lane, order);
}

inline const uint8_t* DeltaStream(const Partition& part, uint32_t values_per_lane) {
  return DeltaStream(part, values_per_lane, DeltaOrder(part));
}

/// The exception lists of a DELTA partition (spec §8.9): row i and high
/// part i, read from the stream after the n SLAP fields.
class DeltaExceptionReader {
 public:
  DeltaExceptionReader(const Partition& part, const uint8_t* stream)
      : stream_(stream),
        n_(part.num_rows),
        e_(UnpackDeltaExceptions(LoadLE64(part.params + 8))),
        row_bits_(RunStartBits(part.num_rows)),
        rows_bit_(part.num_rows * part.bit_width),
        highs_bit_(rows_bit_ + uint64_t{e_.count} * row_bits_) {}

  uint32_t count() const { return e_.count; }
  uint64_t Row(uint64_t i) const { return LoadField(stream_, rows_bit_ + i * row_bits_, LowMask(row_bits_)); }
  /// The stored high-part field of exception i, and the high part h_i it
  /// holds (ExceptionHigh: itself, or zigzag-decoded with Signed_Highs).
  uint64_t StoredHigh(uint64_t i) const {
    return LoadField(stream_, highs_bit_ + i * e_.width, LowMask(e_.width));
  }
  uint64_t High(uint64_t i) const { return ExceptionHigh(StoredHigh(i), e_.signed_highs); }
  /// The first exception whose row is >= x (by binary search; any bits).
  uint64_t LowerBound(uint64_t x) const {
    uint64_t lo = 0, hi = e_.count;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (Row(mid) < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  /// spec §8.9: rows strictly increasing and < n.
  bool RowsValid() const {
    for (uint64_t i = 0; i < e_.count; ++i) {
      const uint64_t row = Row(i);
      if (row >= n_ || (i > 0 && row <= Row(i - 1))) return false;
    }
    return true;
  }

 private:
  const uint8_t* stream_;
  uint64_t n_;
  DeltaExceptions e_;
  uint32_t row_bits_;
  uint64_t rows_bit_;
  uint64_t highs_bit_;
};

/// A tile of a DELTA partition as its stream holds it (spec §8.5): the
/// fields lane after lane, lane L's run at fields[lane_start[L]], so that row
/// first + 32 k + L is fields[lane_start[L] + k]. Lanes below extra_lanes
/// hold steps + 1 rows, the others steps.
struct DeltaTileRuns {
  uint64_t lane_start[kLanes];
  uint64_t steps;
  uint32_t extra_lanes;
};

/// The full fields u(j) = low field + (high part << Bit_Width) of tile
/// `tile`, lane-major (DeltaTileRuns), when Bit_Width > 0 and the tile's
/// fields start on a word (32 V Bit_Width a multiple of 64): whole 64-field
/// blocks through the per-width kernels of slap_unpack.hpp, the last
/// fields mod 64 one by one (a kernel would read past the partition there).
/// False, with nothing written, otherwise (Bit_Width 0 is cheaper in row
/// order: UnpackDeltaTile). `fields` holds 32 V values;
/// `stream` is the partition's bit stream, after its Seed words.
inline bool UnpackDeltaTileRuns(const Partition& part, const uint8_t* stream,
                                uint32_t values_per_lane, uint64_t tile, uint64_t* fields,
                                DeltaTileRuns* runs) {
  const uint32_t w = part.bit_width;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t first = tile * tile_rows;
  const uint64_t tile_fields =
      part.num_rows - first < tile_rows ? part.num_rows - first : tile_rows;
  if (w == 0 || tile_rows * w % 64 != 0) return false;
  // Lane L's run starts at field L q + min(L, r), q = fields / 32,
  // r = fields mod 32.
  runs->steps = tile_fields / kLanes;
  runs->extra_lanes = static_cast<uint32_t>(tile_fields % kLanes);
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    runs->lane_start[lane] =
        lane * runs->steps + (lane < runs->extra_lanes ? lane : runs->extra_lanes);
  }
  const uint8_t* words = stream + 8 * (first * w / 64);
  const auto kernel = UnpackKernelFor<FieldMode::kAddBase, uint64_t, 1>(w);
  const uint64_t blocks = tile_fields / kSlapBlockFields;
  for (uint64_t b = 0; b < blocks; ++b) {
    kernel(words + 8 * b * w, 0, fields + kSlapBlockFields * b);
  }
  const uint64_t mask = LowMask(w);
  for (uint64_t f = blocks * kSlapBlockFields; f < tile_fields; ++f) {
    fields[f] = LoadField(words, f * w, mask);
  }
  const DeltaExceptionReader exceptions(part, stream);
  if (exceptions.count() == 0 || w >= 64) return true;
  for (uint64_t i = exceptions.LowerBound(first); i < exceptions.count(); ++i) {
    const uint64_t row = exceptions.Row(i);
    if (row < first || row >= first + tile_fields) break;
    const uint64_t in_tile = row - first;
    fields[runs->lane_start[in_tile % kLanes] + in_tile / kLanes] += exceptions.High(i) << w;
  }
  return true;
}

/// The full fields of tile `tile` in row order, for the tile's rows [0,
/// rows): zeros plus the exceptions for Bit_Width 0, else field by field (for
/// tiles whose fields do not start on a word; UnpackDeltaTileRuns takes the
/// others).
inline void UnpackDeltaTile(const Partition& part, const uint8_t* stream, uint32_t values_per_lane,
                            uint64_t tile, uint64_t rows, uint64_t* fields) {
  const uint32_t w = part.bit_width;
  const uint64_t first = tile * kLanes * uint64_t{values_per_lane};
  if (w == 0) {
    for (uint64_t i = 0; i < rows; ++i) fields[i] = 0;
  } else {
    const uint64_t mask = LowMask(w);
    for (uint32_t lane = 0; lane < kLanes && lane < rows; ++lane) {
      const uint64_t count = SlapLaneRows(part.num_rows, values_per_lane, tile, lane);
      uint64_t bit = SlapLaneBitOffset(part.num_rows, w, values_per_lane, tile, lane);
      for (uint64_t k = 0; k < count; ++k, bit += w) {
        const uint64_t i = lane + uint64_t{kLanes} * k;
        if (i >= rows) break;
        fields[i] = LoadField(stream, bit, mask);
      }
    }
  }
  const DeltaExceptionReader exceptions(part, stream);
  if (exceptions.count() == 0) return;
  for (uint64_t i = exceptions.LowerBound(first); i < exceptions.count(); ++i) {
    const uint64_t row = exceptions.Row(i);
    if (row < first || row >= first + rows) break;
    fields[row - first] += w >= 64 ? 0 : exceptions.High(i) << w;
  }
}

/// The K running sums a_0 .. a_{K-1} of a DELTA tile (spec §8.9), mod 2^64
/// (reduced to N bits by FromBits), K fixed at compile time.
template <uint32_t K>
struct DeltaRunningSums {
  uint64_t a[K];

  /// The tile's K Seed words (spec Seed[t][k], word t K + k).
  DeltaRunningSums(const Partition& part, uint64_t tile) {
    for (uint32_t k = 0; k < K; ++k) a[k] = LoadLE64(part.payload + 8 * (tile * K + k));
  }
  /// The next row, whose term is Delta_Base + u(x): a_{K-1} adds it, each
  /// lower sum the one above; returns a_0 = v(x).
  uint64_t Add(uint64_t term) {
    for (uint32_t k = K; k-- > 0;) term = a[k] += term;
    return a[0];
  }
};

/// Local rows [lb, le) of a DELTA partition of order K; out[0] is local row
/// lb. Each tile from the one that holds lb starts at its Seed words and
/// takes its rows in order.
template <uint32_t K, typename T>
void DecodeDeltaRangeOfOrder(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                             uint64_t le, T* out) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t delta_base = LoadLE64(part.params);  // spec Delta_Base
  const uint8_t* stream = DeltaStream(part, values_per_lane, K);
  thread_local std::vector<uint64_t> fields;
  if (fields.size() < tile_rows) fields.resize(tile_rows);
  for (uint64_t t = lb / tile_rows; t * tile_rows < le; ++t) {
    const uint64_t first = t * tile_rows;
    const uint64_t stop = le < first + tile_rows ? le : first + tile_rows;
    DeltaRunningSums<K> sums(part, t);
    const uint64_t* f = fields.data();
    DeltaTileRuns runs;
    if (UnpackDeltaTileRuns(part, stream, values_per_lane, t, fields.data(), &runs)) {
      // Summed in row order straight from the lanes' runs: a step of 32
      // rows reads one field of each run (no pass that puts the fields in
      // row order first). Step `runs.steps` holds the extra lanes' last rows.
      uint64_t x = first;
      for (uint64_t k = 0; k <= runs.steps && x < stop; ++k, x += kLanes) {
        const uint32_t lanes = k < runs.steps ? kLanes : runs.extra_lanes;
        if (lanes == kLanes && x >= lb && x + kLanes <= stop) {
          T* o = out + (x - lb);
          for (uint32_t lane = 0; lane < kLanes; ++lane) {
            o[lane] = FromBits<T>(sums.Add(delta_base + f[runs.lane_start[lane] + k]));
          }
          continue;
        }
        for (uint32_t lane = 0; lane < lanes && x + lane < stop; ++lane) {
          const uint64_t v = sums.Add(delta_base + f[runs.lane_start[lane] + k]);
          if (x + lane >= lb) out[x + lane - lb] = FromBits<T>(v);
        }
      }
      continue;
    }
    UnpackDeltaTile(part, stream, values_per_lane, t, stop - first, fields.data());
    uint64_t x = first;
    // Rows of the tile before the range only feed the sums.
    for (; x < lb && x < stop; ++x) sums.Add(delta_base + f[x - first]);
    for (; x < stop; ++x) out[x - lb] = FromBits<T>(sums.Add(delta_base + f[x - first]));
  }
}

/// Local rows [lb, le) of a DELTA partition; out[0] is local row lb.
template <typename T>
void DecodeDeltaRange(const Partition& part, uint32_t values_per_lane, uint64_t lb, uint64_t le,
                      T* out) {
  switch (DeltaOrder(part)) {
    case 2:
      DecodeDeltaRangeOfOrder<2>(part, values_per_lane, lb, le, out);
      break;
    case 3:
      DecodeDeltaRangeOfOrder<3>(part, values_per_lane, lb, le, out);
      break;
    default:
      DecodeDeltaRangeOfOrder<1>(part, values_per_lane, lb, le, out);
      break;
  }
}

/// The sum mod 2^64 of the first `count` W-bit fields (0 < W <= 56) of a
/// stream that starts on byte `bytes`. Eight fields span exactly W bytes, so
/// within each group of eight every load offset and shift is a constant.
/// Each field is read with one unaligned load that ends inside the two words
/// LoadField would read for it.
template <uint32_t W>
uint64_t SumByteAlignedFields(const uint8_t* bytes, uint64_t count) {
  static_assert(W > 0 && W <= 56, "a field and its bit offset in one 64-bit load");
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  const auto field = [](const uint8_t* p, uint32_t j) {
    return (LoadLE64(p + j * W / 8) >> (j * W % 8)) & kMask;
  };
  uint64_t sum = 0;
  uint64_t k = 0;
  for (; k + 8 <= count; k += 8, bytes += W) {
    sum += ((field(bytes, 0) + field(bytes, 1)) + (field(bytes, 2) + field(bytes, 3))) +
           ((field(bytes, 4) + field(bytes, 5)) + (field(bytes, 6) + field(bytes, 7)));
  }
  for (uint32_t j = 0; k + j < count; ++j) sum += field(bytes, j);
  return sum;
}

using SumFieldsFn = uint64_t (*)(const uint8_t* bytes, uint64_t count);

template <uint32_t... Ws>
constexpr std::array<SumFieldsFn, sizeof...(Ws)> MakeSumTable(std::integer_sequence<uint32_t, Ws...>) {
  return {&SumByteAlignedFields<Ws + 1>...};
}

/// The sum mod 2^64 of `count` consecutive w-bit fields (0 < w <= 64) of a
/// SLAP stream from bit `bit`: by the kernels above when the first field
/// starts on a byte (every lane of a full tile with V a multiple of 8) and
/// w <= 56, else field by field.
inline uint64_t SumFields(const uint8_t* stream, uint64_t bit, uint32_t w, uint64_t count) {
  static constexpr auto kTable = MakeSumTable(std::make_integer_sequence<uint32_t, 56>{});
  if (bit % 8 == 0 && w <= 56) return kTable[w - 1](stream + bit / 8, count);
  const uint64_t mask = LowMask(w);
  uint64_t sum = 0;
  for (uint64_t k = 0; k < count; ++k, bit += w) sum += LoadField(stream, bit, mask);
  return sum;
}

/// The nested sums (DeltaLaneSums) of `count` consecutive w-bit fields (0 <
/// w <= 64) of a SLAP stream from bit `bit`.
inline DeltaLaneSums LaneRunSums(const uint8_t* stream, uint64_t bit, uint32_t w,
                                 uint64_t count) {
  const uint64_t mask = LowMask(w);
  DeltaLaneSums m;
  for (uint64_t s = 0; s < count; ++s, bit += w) {
    // A field of up to 56 bits lies in the 8 bytes from its first byte.
    m.Add(w <= 56 ? (LoadLE64(stream + bit / 8) >> (bit % 8)) & mask
                  : LoadField(stream, bit, mask));
  }
  return m;
}

/// Local rows [lb, le) of a DELTA partition: the values of DecodeDeltaRange,
/// the same terms summed mod 2^64, for a short range that may start inside a
/// tile. The rows of the tile before lb enter straight from their packed
/// fields, lane by lane (lane L holds rows first + L + 32 k, spec §8.5), not
/// unpacked into row order: as a sum for order 1, as the nested sums of
/// delta_order_sums.hpp for orders 2 and 3, which give the K running sums at
/// row lb - 1 in closed form. The range then costs about one field load per
/// row from its tile's first row to le. Suits windows of a few hundred rows
/// and single rows (PGM lookups, random access); DecodeDeltaRange suits long
/// ranges.
template <typename T>
void DecodeDeltaWindow(const Partition& part, uint32_t values_per_lane, uint64_t lb, uint64_t le,
                       T* out) {
  const uint64_t n = part.num_rows;
  const uint32_t w = part.bit_width;
  const uint32_t order = DeltaOrder(part);  // K
  const uint64_t mask = LowMask(w);
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t delta_base = LoadLE64(part.params);  // spec Delta_Base
  const uint8_t* stream = DeltaStream(part, values_per_lane, order);
  const DeltaExceptionReader exceptions(part, stream);
  thread_local std::vector<uint64_t> extra;  // exception high parts of rows [start, stop)
  for (uint64_t t = lb / tile_rows; t * tile_rows < le; ++t) {
    const uint64_t first = t * tile_rows;
    const uint64_t start = lb > first ? lb : first;
    const uint64_t stop = le < first + tile_rows ? le : first + tile_rows;
    const uint64_t before = start - first;  // rows of the tile before the window
    uint64_t lane_bit[kLanes];
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      lane_bit[lane] = SlapLaneBitOffset(n, w, values_per_lane, t, lane);
    }
    uint64_t seeds[kMaxDeltaOrder] = {0, 0, 0};  // spec Seed[t][k]
    for (uint32_t k = 0; k < order; ++k) seeds[k] = LoadLE64(part.payload + 8 * (t * order + k));
    // The K sums at row start - 1, term by term (its lanes are added below,
    // its exceptions further down). For before = 0, i = -1 wraps to 2^64 - 1,
    // where every weight but C(i, 0) is 0: the sums are the Seed words.
    DeltaOrderSums sums(order, before - 1, seeds, delta_base);
    if (w > 0) {
      // The cache lines of every lane's fields up to row stop, asked for at
      // once: a random tile is rarely cached, and the sums below would
      // otherwise wait for its lines a few at a time.
      for (uint32_t lane = 0; lane < kLanes && lane < stop - first; ++lane) {
        const uint64_t fields = (stop - first - lane + kLanes - 1) / kLanes;
        const uint64_t end_line = (lane_bit[lane] + fields * w + 511) / 512;
        for (uint64_t line = lane_bit[lane] / 512; line < end_line; ++line) {
          __builtin_prefetch(stream + 64 * line);
        }
      }
      for (uint32_t lane = 0; lane < kLanes && lane < before; ++lane) {
        const uint64_t count = (before - lane + kLanes - 1) / kLanes;
        if (order == 1) {  // the sum alone, by the byte-aligned kernels where they apply
          DeltaLaneSums m;
          m.n0 = SumFields(stream, lane_bit[lane], w, count);
          sums.AddLane(lane, count, m);
        } else {
          sums.AddLane(lane, count, LaneRunSums(stream, lane_bit[lane], w, count));
        }
      }
    }
    // The exceptions DecodeDeltaRange adds for this tile: from the first
    // whose row is >= first, while their rows lie in [first, stop).
    extra.assign(stop - start, 0);
    if (exceptions.count() > 0) {
      for (uint64_t i = exceptions.LowerBound(first); i < exceptions.count(); ++i) {
        const uint64_t row = exceptions.Row(i);
        if (row < first || row >= stop) break;
        const uint64_t high = w >= 64 ? 0 : exceptions.High(i) << w;
        if (row >= start) {
          extra[row - start] += high;
        } else {
          sums.AddRow(row - first, high);
        }
      }
    }
    uint64_t a[kMaxDeltaOrder] = {sums[0], sums[1], sums[2]};  // mod 2^64, N bits by FromBits
    for (uint64_t x = start; x < stop; ++x) {
      const uint64_t in_tile = x - first;
      const uint64_t bit = lane_bit[in_tile % kLanes] + in_tile / kLanes * w;
      // A field of up to 56 bits lies in the 8 bytes from its first byte.
      const uint64_t field = w == 0   ? 0
                             : w <= 56 ? (LoadLE64(stream + bit / 8) >> (bit % 8)) & mask
                                       : LoadField(stream, bit, mask);
      uint64_t term = delta_base + field + extra[x - start];
      for (uint32_t k = order; k-- > 0;) term = a[k] += term;
      out[x - lb] = FromBits<T>(a[0]);
    }
  }
}

/// Local row x of a DELTA partition, mod 2^64 (the caller keeps N bits).
inline uint64_t DecodeDeltaValue(const Partition& part, uint32_t values_per_lane, uint64_t x) {
  uint64_t value = 0;
  DecodeDeltaWindow<uint64_t>(part, values_per_lane, x, x + 1, &value);
  return value;
}

/// spec §8.9: the exception rows of a DELTA partition are strictly
/// increasing and below n (CORRUPT_PAYLOAD otherwise).
inline bool DeltaExceptionRowsValid(const Partition& part, uint32_t values_per_lane) {
  return DeltaExceptionReader(part, DeltaStream(part, values_per_lane)).RowsValid();
}

/// The writer rules of spec §8.9 that deep validation checks (§10.3) for a
/// checked DELTA partition of order K (its constructor reads the Exceptions
/// word), fed the partition's decoded values block by block (N-bit patterns,
/// zero-extended), so memory stays bounded for any partition length:
/// u(x) = 0 for the rows x < K, none of them an exception (with Delta_Base 0
/// when n = 1); the exceptions are exactly the rows x >= K whose u(x) = (the
/// K-th difference of v at x - Delta_Base) mod 2^N needs more than Bit_Width
/// bits, with the smallest Exception_Width for their stored high parts
/// (u(x) >> Bit_Width, or its zigzag-coded signed form with Signed_Highs);
/// Seed[t][i] for t >= 1 is the i-th difference of v at row t*S - 1; every
/// Seed word is the canonical extension of an N-bit value.
class DeltaRuleChecker {
 public:
  DeltaRuleChecker(const Partition& part, uint32_t values_per_lane, uint32_t bits, bool is_signed)
      : part_(part),
        values_per_lane_(values_per_lane),
        tile_rows_(uint64_t{kLanes} * values_per_lane),
        mask_(LowMask(bits)),
        bits_(bits),
        is_signed_(is_signed),
        exceptions_(UnpackDeltaExceptions(LoadLE64(part.params + 8))),
        num_seeds_(DeltaSeedWords(part.num_rows, values_per_lane, exceptions_.order)) {}

  /// Values of local rows [first, first + count), in order from row 0, as
  /// the column's C++ type. Returns an empty string, or the first rule that
  /// failed.
  template <typename T>
  const char* Feed(uint64_t first, const T* values, uint64_t count) {
    const uint32_t order = exceptions_.order;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t x = first + i;
      // next[k]: the k-th difference of v at row x (mod 2^N), k <= K.
      uint64_t next[kMaxDeltaOrder + 1];
      next[0] = static_cast<std::make_unsigned_t<T>>(values[i]);
      for (uint32_t k = 1; k <= order; ++k) next[k] = (next[k - 1] - previous_[k - 1]) & mask_;
      if (x > 0 && x % tile_rows_ == 0) {
        // spec Seed[t][k] of the tile that starts at x: the k-th difference
        // at row x - 1.
        for (uint32_t k = 0; k < order; ++k) {
          const uint64_t seed = LoadLE64(part_.payload + 8 * (x / tile_rows_ * order + k));
          if ((seed & mask_) != previous_[k]) {
            return "Seed[t][k] is not the k-th difference of v at row t*S - 1";
          }
        }
      }
      if (x >= order) {
        // u(x) = K-th difference - Delta_Base; rows with u >> w != 0 must
        // be exceptions.
        const uint64_t u = (next[order] - (LoadLE64(part_.params) & mask_)) & mask_;
        if (part_.bit_width < 64 && (u >> part_.bit_width) != 0) {
          const uint64_t high =
              StoredExceptionHigh(u, part_.bit_width, bits_, exceptions_.signed_highs);
          ++wide_rows_;
          max_high_ = high > max_high_ ? high : max_high_;
        }
      }
      for (uint32_t k = 0; k < order; ++k) previous_[k] = next[k];
    }
    return "";
  }

  /// The rules that need the whole partition.
  const char* Finish() const {
    for (uint64_t t = 0; t < num_seeds_; ++t) {
      const uint64_t seed = LoadLE64(part_.payload + 8 * t);
      if (CanonicalExtend(seed, bits_, is_signed_) != seed) {
        return "a Seed word is not the canonical extension of an N-bit value";
      }
    }
    const uint32_t w = part_.bit_width;
    const uint32_t order = exceptions_.order;
    const uint8_t* stream = part_.payload + 8 * num_seeds_;
    for (uint64_t x = 0; w > 0 && x < order && x < part_.num_rows; ++x) {
      const uint64_t bit = SlapFieldBitOffset(part_.num_rows, w, values_per_lane_, x);
      if (LoadField(stream, bit, LowMask(w)) != 0) return "the field of a row x < K is not 0";
    }
    const uint64_t base = LoadLE64(part_.params) & mask_;
    if (part_.num_rows == 1) {
      return base == 0 && w == 0 ? "" : "a 1-row partition needs Delta_Base 0 and Bit_Width 0";
    }
    const DeltaExceptions& e = exceptions_;
    if (e.count != wide_rows_) {
      return "Num_Exceptions is not the number of rows whose delta needs more than Bit_Width bits";
    }
    if (e.width != BitLength(max_high_)) return "Exception_Width is not the smallest width";
    // Every exception's high part is nonzero, so with the count above the
    // exceptions are exactly the wide rows.
    const DeltaExceptionReader exceptions(part_, stream);
    for (uint64_t i = 0; i < e.count; ++i) {
      if (exceptions.StoredHigh(i) == 0) return "an exception has a zero high part";
    }
    if (e.count > 0 && exceptions.Row(0) < order) return "a row x < K is an exception";
    return "";
  }

 private:
  const Partition& part_;
  uint32_t values_per_lane_;
  uint64_t tile_rows_;
  uint64_t mask_;
  uint32_t bits_;
  bool is_signed_;
  DeltaExceptions exceptions_;
  uint64_t num_seeds_;
  uint64_t previous_[kMaxDeltaOrder] = {};  // the k-th differences at the row before
  uint64_t wide_rows_ = 0;
  uint64_t max_high_ = 0;
};

}  // namespace l3::internal
