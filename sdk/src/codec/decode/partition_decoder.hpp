// The per-partition decoding rules of spec §8.3–§8.7 for the CPU reference
// decoder. Every function here assumes a view that passed
// ValidateChunkMetadata(), so each field address is inside the payload
// segment (spec §7.3, §8.6); run starts are checked where they are read.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "codec/predictor.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

/// One partition, resolved from its record and the next one (spec §7.3).
struct Partition {
  uint32_t index = 0;
  uint64_t first_row = 0;  // spec First_Row, within the chunk
  uint64_t num_rows = 0;   // n_p
  uint8_t model = 0;       // spec Model_Type
  uint32_t bit_width = 0;  // spec Bit_Width
  const uint8_t* params = nullptr;   // the partition's first parameter word
  const uint8_t* payload = nullptr;  // byte 8 * Payload_Offset[p] of the payload
  uint64_t payload_words = 0;        // Payload_Offset[p+1] - Payload_Offset[p]
};

inline Partition LoadPartition(const ChunkView& view, uint32_t p) {
  const PartitionRecord rec = LoadPartitionRecord(view.partition_table, p);
  const PartitionRecord next = LoadPartitionRecord(view.partition_table, p + 1);
  Partition part;
  part.index = p;
  part.first_row = rec.first_row;
  part.num_rows = uint64_t{next.first_row} - rec.first_row;
  part.model = rec.model_type;
  part.bit_width = rec.bit_width;
  part.params = view.parameters + 8 * uint64_t{rec.param_offset};
  part.payload = view.payload + 8 * uint64_t{rec.payload_offset};
  part.payload_words = uint64_t{next.payload_offset} - rec.payload_offset;
  return part;
}

inline bool IsRunPartition(const Partition& part) {
  return part.model == static_cast<uint8_t>(Model::kConstant) && part.bit_width > 0;
}

/// Reads the field at stream bit `bit` masked by `mask` (spec §8.5 bit
/// order). Loads two whole words; the second is always inside the payload
/// segment because every partition is followed by at least the 32 bytes of
/// padding of spec §8.6.
inline uint64_t LoadField(const uint8_t* stream, uint64_t bit, uint64_t mask) {
  const uint8_t* p = stream + 8 * (bit >> 6);
  const unsigned __int128 both =
      (static_cast<unsigned __int128>(LoadLE64(p + 8)) << 64) | LoadLE64(p);
  return static_cast<uint64_t>(both >> (bit & 63)) & mask;
}

/// spec §8.4 ToInt, equal to PredictionToInt() for every input but without a
/// library call in the common case: for |y| < 2^52, adding and then
/// subtracting 2^52 (with y's sign) rounds y to an integer, ties to even, in
/// the default rounding mode, because the sum lies where binary64 holds
/// exactly the integers. Larger values, infinities and NaN take the general
/// path.
inline int64_t PredictionToIntFast(double y) {
  constexpr double kTwo52 = 4503599627370496.0;
  if (std::fabs(y) < kTwo52) {
    const double shift = std::copysign(kTwo52, y);
    return static_cast<int64_t>(DSub(DAdd(y, shift), shift));
  }
  return PredictionToInt(y);
}

/// The N-bit value whose low bits are `u` (mod 2^N), as the column's C++ type.
template <typename T>
inline T FromBits(uint64_t u) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(u));
}

/// Loads parameter word `i` of a LINEAR/POLY2/POLY3 partition as binary64.
inline double ParamAsDouble(const uint8_t* params, int i) {
  const uint64_t bits = LoadLE64(params + 8 * i);
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

/// spec §8.5: calls fn(x0, bit0, k_begin, k_end) for each lane of each tile
/// holding local rows in [lb, le). The lane's step-k row is x0 + 32 k (x0 is
/// the spec's X0 = t * S + L), its step-0 field starts at stream bit bit0,
/// and steps [k_begin, k_end) are the ones inside the range.
template <typename Fn>
inline void ForEachLaneRun(uint64_t n, uint32_t w, uint32_t values_per_lane, uint64_t lb,
                           uint64_t le, Fn&& fn) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  for (uint64_t t = lb / tile_rows; t * tile_rows < le; ++t) {
    const uint64_t tile_row = t * tile_rows;
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      const uint64_t x0 = tile_row + lane;
      const uint64_t count = SlapLaneRows(n, values_per_lane, t, lane);
      const uint64_t k_begin = lb > x0 ? (lb - x0 + kLanes - 1) / kLanes : 0;
      uint64_t k_end = le > x0 ? (le - x0 + kLanes - 1) / kLanes : 0;
      if (k_end > count) k_end = count;
      if (k_begin >= k_end) continue;
      fn(x0, SlapLaneBitOffset(n, w, values_per_lane, t, lane), k_begin, k_end);
    }
  }
}

/// FOR_BITPACK (spec §8.3): v(x) = Base + u(x). out[0] receives local row lb.
template <typename T>
void DecodeForRange(const Partition& part, uint32_t values_per_lane, uint64_t lb, uint64_t le,
                    T* out) {
  const uint64_t base = LoadLE64(part.params);
  const uint32_t w = part.bit_width;
  if (w == 0) {
    for (uint64_t x = lb; x < le; ++x) out[x - lb] = FromBits<T>(base);
    return;
  }
  const uint64_t mask = LowMask(w);
  ForEachLaneRun(part.num_rows, w, values_per_lane, lb, le,
                 [&](uint64_t x0, uint64_t bit0, uint64_t k_begin, uint64_t k_end) {
                   uint64_t bit = bit0 + k_begin * w;
                   T* dst = out + (x0 + kLanes * k_begin - lb);
                   for (uint64_t k = k_begin; k < k_end; ++k, bit += w, dst += kLanes) {
                     *dst = FromBits<T>(base + LoadField(part.payload, bit, mask));
                   }
                 });
}

/// LINEAR, POLY2, POLY3 (spec §8.3, §8.4): v(x) = pred(x) + r(x).
template <typename T, uint8_t kModel>
void DecodePredictedRange(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                          uint64_t le, T* out) {
  double theta[4] = {0, 0, 0, 0};
  const uint32_t num_params = ParamCount(kModel, part.bit_width);
  for (uint32_t i = 0; i < num_params; ++i) theta[i] = ParamAsDouble(part.params, i);
  const uint32_t w = part.bit_width;
  const uint64_t mask = LowMask(w);
  ForEachLaneRun(part.num_rows, w, values_per_lane, lb, le,
                 [&](uint64_t x0, uint64_t bit0, uint64_t k_begin, uint64_t k_end) {
                   LanePredictor<kModel> pred;
                   pred.Start(theta, static_cast<double>(x0));
                   // spec §8.4: the prediction of step k is the recurrence
                   // stepped k times from X0, so a range that starts inside the
                   // lane replays the steps before it.
                   for (uint64_t k = 0; k < k_begin; ++k) pred.Advance();
                   uint64_t bit = bit0 + k_begin * w;
                   T* dst = out + (x0 + kLanes * k_begin - lb);
                   for (uint64_t k = k_begin; k < k_end; ++k, bit += w, dst += kLanes) {
                     const int64_t p = PredictionToIntFast(pred.value());
                     const int64_t r = w == 0 ? 0 : SignExtend(LoadField(part.payload, bit, mask), w);
                     *dst = FromBits<T>(static_cast<uint64_t>(p) + static_cast<uint64_t>(r));
                     pred.Advance();
                   }
                 });
}

/// The run fields of a CONSTANT partition with Bit_Width > 0 (spec §8.7).
class RunReader {
 public:
  explicit RunReader(const Partition& part)
      : payload_(part.payload),
        n_(part.num_rows),
        w_(part.bit_width),
        base_(LoadLE64(part.params)),
        num_runs_(LoadLE64(part.params + 8)),
        start_bits_(RunStartBits(part.num_rows)) {}

  uint64_t num_runs() const { return num_runs_; }
  uint64_t base() const { return base_; }
  /// Field i of the run values, unsigned (before adding Base).
  uint64_t RawValue(uint64_t i) const { return LoadField(payload_, i * w_, LowMask(w_)); }
  /// (Base + field_i) mod 2^64; the caller reduces to N bits.
  uint64_t Value(uint64_t i) const { return base_ + RawValue(i); }
  /// First local row of run i; run 0 starts at 0.
  uint64_t Start(uint64_t i) const {
    if (i == 0) return 0;
    return LoadField(payload_, num_runs_ * w_ + (i - 1) * start_bits_, LowMask(start_bits_));
  }
  /// One past the last row of run i (the next start, or n).
  uint64_t End(uint64_t i) const { return i + 1 < num_runs_ ? Start(i + 1) : n_; }
  /// spec §8.7: start_i (i >= 1) lies in [1, n - 1] and exceeds start_{i-1}.
  bool StartIsValid(uint64_t i, uint64_t previous_start) const {
    const uint64_t s = Start(i);
    return s >= 1 && s <= n_ - 1 && s > previous_start;
  }
  /// The run holding local row x: max { i : start_i <= x }, by binary search.
  /// Terminates on any bits; the caller checks the neighbouring starts.
  uint64_t Find(uint64_t x) const {
    uint64_t lo = 0, hi = num_runs_;
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (Start(mid) <= x) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  /// Bits used by the run fields: R * w + (R - 1) * pb.
  uint64_t used_bits() const { return num_runs_ * w_ + (num_runs_ - 1) * start_bits_; }

 private:
  const uint8_t* payload_;
  uint64_t n_;
  uint32_t w_;
  uint64_t base_;
  uint64_t num_runs_;
  uint32_t start_bits_;
};

/// Writes `value` to local rows [x, stop) of a range [lb, le) whose row lb is
/// out[0], and returns stop. Runs are often a few rows: eight values at a
/// time, the last group reaching past the run into rows of the range that
/// the following runs overwrite (never past le).
template <typename T>
inline uint64_t WriteRunRows(T value, uint64_t x, uint64_t stop, uint64_t lb, uint64_t le,
                             T* out) {
  if (stop + 8 <= le) {
    for (; x < stop; x += 8) {
      for (uint32_t j = 0; j < 8; ++j) out[x - lb + j] = value;
    }
    return stop;
  }
  for (; x < stop; ++x) out[x - lb] = value;
  return stop;
}

/// Runs (spec §8.7) over local rows [lb, le). Returns false when a run start
/// read on the way is out of order or out of range (CORRUPT_PAYLOAD).
template <typename T>
bool DecodeRunsRange(const Partition& part, uint64_t lb, uint64_t le, T* out) {
  const RunReader runs(part);
  uint64_t i = runs.Find(lb);
  uint64_t start = runs.Start(i);
  if (i > 0 && (start < 1 || start > part.num_rows - 1)) return false;
  uint64_t x = lb;
  while (x < le) {
    uint64_t end = part.num_rows;
    if (i + 1 < runs.num_runs()) {
      if (!runs.StartIsValid(i + 1, start)) return false;
      end = runs.Start(i + 1);
    }
    x = WriteRunRows(FromBits<T>(runs.Value(i)), x, end < le ? end : le, lb, le, out);
    start = end;
    ++i;
  }
  return true;
}

/// Decodes the SLAP tiles [tile_begin, tile_end) of a FOR, LINEAR, POLY2
/// or POLY3 partition (or the fields plus Base of a PATCHED_FOR one), the last one possibly partial (spec §8.5), through the
/// per-width kernels of slap_unpack.hpp and the lane-parallel predictors of
/// codec/decode/slap_tiles.cpp; out[0] receives local row tile_begin * 32 V.
/// Gives the values of DecodeForRange and DecodePredictedRange, which stay
/// the definition. Precondition: tile_end <= ceil(n_p / (32 V)).
/// U: uint8_t .. uint64_t.
template <typename U>
void DecodeSlapTiles(const Partition& part, uint32_t values_per_lane, uint64_t tile_begin,
                     uint64_t tile_end, U* out);

/// Local rows [lb, le) of a FOR, LINEAR, POLY2 or POLY3 partition: the
/// tiles wholly inside the range through DecodeSlapTiles, the rows of the
/// tiles the range cuts through the scalar definition.
template <typename T, uint8_t kModel>
void DecodeSlapRange(const Partition& part, uint32_t values_per_lane, uint64_t lb, uint64_t le,
                     T* out) {
  const auto scalar = [&](uint64_t begin, uint64_t end) {
    if (begin >= end) return;
    if constexpr (kModel == static_cast<uint8_t>(Model::kFor)) {
      DecodeForRange(part, values_per_lane, begin, end, out + (begin - lb));
    } else {
      DecodePredictedRange<T, kModel>(part, values_per_lane, begin, end, out + (begin - lb));
    }
  };
  const uint64_t n = part.num_rows;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint64_t tile_begin = (lb + tile_rows - 1) / tile_rows;
  // The tiles that end at or before le; the partial last tile ends at n.
  const uint64_t tile_end = le == n ? (n + tile_rows - 1) / tile_rows : le / tile_rows;
  if (tile_begin >= tile_end) {
    scalar(lb, le);
    return;
  }
  scalar(lb, tile_begin * tile_rows);
  using U = std::make_unsigned_t<T>;
  DecodeSlapTiles<U>(part, values_per_lane, tile_begin, tile_end,
                     reinterpret_cast<U*>(out + (tile_begin * tile_rows - lb)));
  const uint64_t fast_end = tile_end * tile_rows < n ? tile_end * tile_rows : n;
  scalar(fast_end, le);
}

// DELTA (spec §8.9) lives in its own room, codec/delta/delta_decode.hpp,
// which is included at the end of this header.
template <typename T>
void DecodeDeltaRange(const Partition& part, uint32_t values_per_lane, uint64_t lb, uint64_t le,
                      T* out);

// RUNS_EF (spec §8.11) lives in codec/runs/runs_ef_decode.hpp, also included
// at the end of this header.
template <typename T>
bool DecodeRunsEfRange(const Partition& part, uint64_t lb, uint64_t le, T* out);

// PATCHED_FOR (spec §8.12) lives in codec/patched/patched_for_decode.hpp,
// also included at the end of this header.
template <typename T>
void DecodePatchedForRange(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                           uint64_t le, T* out);

/// Decodes local rows [lb, le) of one partition; out[0] is local row lb.
/// Returns false on bad run starts.
template <typename T>
bool DecodePartitionRange(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                          uint64_t le, T* out) {
  switch (part.model) {
    case static_cast<uint8_t>(Model::kConstant):
      if (part.bit_width == 0) {
        const T value = FromBits<T>(LoadLE64(part.params));
        for (uint64_t x = lb; x < le; ++x) out[x - lb] = value;
        return true;
      }
      return DecodeRunsRange(part, lb, le, out);
    case static_cast<uint8_t>(Model::kFor):
      DecodeSlapRange<T, static_cast<uint8_t>(Model::kFor)>(part, values_per_lane, lb, le, out);
      return true;
    case static_cast<uint8_t>(Model::kLinear):
      DecodeSlapRange<T, static_cast<uint8_t>(Model::kLinear)>(part, values_per_lane, lb, le, out);
      return true;
    case static_cast<uint8_t>(Model::kPoly2):
      DecodeSlapRange<T, static_cast<uint8_t>(Model::kPoly2)>(part, values_per_lane, lb, le, out);
      return true;
    case static_cast<uint8_t>(Model::kPoly3):
      DecodeSlapRange<T, static_cast<uint8_t>(Model::kPoly3)>(part, values_per_lane, lb, le, out);
      return true;
    case static_cast<uint8_t>(Model::kDelta):
      DecodeDeltaRange(part, values_per_lane, lb, le, out);
      return true;
    case static_cast<uint8_t>(Model::kRunsEf):
      return DecodeRunsEfRange(part, lb, le, out);
    case static_cast<uint8_t>(Model::kPatchedFor):
      DecodePatchedForRange(part, values_per_lane, lb, le, out);
      return true;
    default:
      return false;  // unreachable after ValidateChunkMetadata
  }
}

/// Calls fn(T*) with the column's C++ type; false for a non-integer type.
template <typename Fn>
bool DispatchIntegerType(PhysicalType type, void* out, Fn&& fn) {
  switch (type) {
    case PhysicalType::kInt8: fn(static_cast<int8_t*>(out)); return true;
    case PhysicalType::kInt16: fn(static_cast<int16_t*>(out)); return true;
    case PhysicalType::kInt32: fn(static_cast<int32_t*>(out)); return true;
    case PhysicalType::kInt64: fn(static_cast<int64_t*>(out)); return true;
    case PhysicalType::kUInt8: fn(static_cast<uint8_t*>(out)); return true;
    case PhysicalType::kUInt16: fn(static_cast<uint16_t*>(out)); return true;
    case PhysicalType::kUInt32: fn(static_cast<uint32_t*>(out)); return true;
    case PhysicalType::kUInt64: fn(static_cast<uint64_t*>(out)); return true;
    default: return false;
  }
}

}  // namespace l3::internal

#include "codec/delta/delta_decode.hpp"  // IWYU pragma: keep (DecodeDeltaRange)
#include "codec/runs/runs_ef_decode.hpp"  // IWYU pragma: keep (DecodeRunsEfRange)
#include "codec/patched/patched_for_decode.hpp"  // IWYU pragma: keep (DecodePatchedForRange)
