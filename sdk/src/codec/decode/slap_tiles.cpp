// Fast CPU decoding of whole SLAP tiles, full or partial (spec §8.5), of
// FOR_BITPACK, LINEAR, POLY2 and POLY3 partitions (spec §8.3, §8.4), straight
// into the caller's buffer.
//
// A tile is decoded in two passes over its rows while they sit in the L1
// cache: (1) the per-width kernels of slap_unpack.hpp write every lane's
// fields (Base + u, or the sign-extended residual r) to the lane's rows;
// (2) for the predicted models, the 32 lanes' finite-difference predictors
// (spec §8.4) step together, one row of 32 values at a time, and add the
// prediction. The 32 lanes are independent, so pass (2) is a fixed-length
// loop the compiler vectorises; each lane still performs exactly the
// separately rounded binary64 additions of LanePredictor (no contraction:
// the project compiles with -ffp-contract=off), so the values equal the
// scalar definition (DecodeForRange / DecodePredictedRange) bit for bit.
//
// ToInt (spec §8.4) is done without a branch per value for |y| < 2^51: the
// sum y + 1.5 * 2^52 lies in (2^52, 2^53), where binary64 holds exactly the
// integers, so the addition rounds y to an integer (ties to even, 1.5 * 2^52
// being even) and the sum's bit pattern minus that of 1.5 * 2^52 is that
// integer. A tile whose predictions leave that range (or are not finite) is
// decoded again by the scalar definition.
//
// This file is compiled with -O3 (sdk/CMakeLists.txt) so that GCC vectorises
// pass (2) with its full cost model. On x86-64 with GCC the two passes are
// also compiled for AVX2 and for x86-64-v4 (AVX-512) and the variant is
// chosen at run time (target_clones); every variant performs the same
// IEEE-754 operations (neither implies contraction into FMA, which is off),
// so they write the same values, and the portable build stays the
// definition. The AVX-512 variant steps 8 lanes' predictors per instruction
// instead of 4: LINEAR and POLY3 columns decode 1.1-1.35x faster on one core
// (docs/results/cpu.md). Clang (14 at least) refuses target_clones on
// function templates, so it builds the portable variant only.
#include <cmath>
#include <cstring>

#include "codec/decode/partition_decoder.hpp"
#include "codec/decode/slap_unpack.hpp"
#include "common/cpu_variants.hpp"

namespace l3::internal {
namespace {

constexpr double kRoundingShift = 6755399441055744.0;  // 1.5 * 2^52
constexpr double kFastRangeLimit = 2251799813685248.0;  // 2^51

uint64_t BitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

/// Pass (2) for one tile: adds the predictions of spec §8.4 to the residuals
/// already stored in `tile` (its first row is local row tile_row). Every lane
/// holds `steps` rows, and lanes below `extra_lanes` one more (a partial
/// tile, spec §8.5). Returns false when a prediction is outside the fast
/// ToInt range; `tile` is then partly updated and must be decoded again.
template <uint8_t kModel, typename U>
L3_CPU_VARIANTS bool AddTilePredictions(const double* theta, uint64_t tile_row, uint64_t steps,
                        uint32_t extra_lanes, U* tile) {
  alignas(64) double y[kLanes], d1[kLanes], d2[kLanes], d3[kLanes];
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    LanePredictor<kModel> p;
    p.Start(theta, static_cast<double>(tile_row + lane));
    y[lane] = p.y;
    d1[lane] = p.d1;
    d2[lane] = p.d2;
    d3[lane] = p.d3;
  }
  // inside[lane] stays 1 while every |y| of the lane is below 2^51 (and not
  // NaN): compared on the bit patterns, which order like the magnitudes, so
  // that the loop has no branch and vectorises. A per-lane flag, not one
  // shared flag, since GCC does not vectorise that reduction.
  const uint64_t shift_bits = BitsOf(kRoundingShift);
  const uint64_t limit_bits = BitsOf(kFastRangeLimit);
  constexpr uint64_t kMagnitudeBits = ~uint64_t{0} >> 1;
  uint64_t inside[kLanes];
  for (uint32_t lane = 0; lane < kLanes; ++lane) inside[lane] = 1;
  for (uint64_t k = 0; k < steps; ++k) {
    U* row = tile + uint64_t{kLanes} * k;
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      const double value = y[lane];
      inside[lane] &= ((BitsOf(value) & kMagnitudeBits) - limit_bits) >> 63;
      const uint64_t prediction = BitsOf(value + kRoundingShift) - shift_bits;
      row[lane] = static_cast<U>(row[lane] + static_cast<U>(prediction));
      // LanePredictor::Advance, lane by lane.
      y[lane] = value + d1[lane];
      if constexpr (kModel != static_cast<uint8_t>(Model::kLinear)) {
        d1[lane] = d1[lane] + d2[lane];
      }
      if constexpr (kModel == static_cast<uint8_t>(Model::kPoly3)) {
        d2[lane] = d2[lane] + d3[lane];
      }
    }
  }
  U* row = tile + uint64_t{kLanes} * steps;
  for (uint32_t lane = 0; lane < extra_lanes; ++lane) {
    const double value = y[lane];
    inside[lane] &= ((BitsOf(value) & kMagnitudeBits) - limit_bits) >> 63;
    const uint64_t prediction = BitsOf(value + kRoundingShift) - shift_bits;
    row[lane] = static_cast<U>(row[lane] + static_cast<U>(prediction));
  }
  uint64_t all_inside = 1;
  for (uint32_t lane = 0; lane < kLanes; ++lane) all_inside &= inside[lane];
  return all_inside != 0;
}

/// Pass (1) for one full tile: every lane's fields through the kernel.
template <typename U>
void UnpackTile(void (*kernel)(const uint8_t*, uint64_t, U*), const uint8_t* tile_words, uint32_t w,
                uint32_t values_per_lane, uint64_t base, U* tile) {
  const uint64_t lane_words = uint64_t{values_per_lane} / kSlapBlockFields * w;
  const uint32_t blocks = values_per_lane / kSlapBlockFields;
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      kernel(tile_words + 8 * (lane * lane_words + uint64_t{b} * w), base,
             tile + lane + uint64_t{kLanes} * kSlapBlockFields * b);
    }
  }
}

/// Tiles of at most this many rows that the kernels cannot write in place
/// are unpacked into a buffer on the stack first (16 KiB of uint64_t).
constexpr uint64_t kMaxStagedTileRows = 2048;

/// The kernels of one width for both layouts of pass (1).
template <FieldMode kMode, typename U>
struct TileKernels {
  UnpackLaneBlockFn<kMode, U> in_place;  // output stride kLanes
  UnpackLaneBlockFn<kMode, U> staged;    // output stride 1
  explicit TileKernels(uint32_t w)
      : in_place(UnpackKernelFor<kMode, U>(w)), staged(UnpackKernelFor<kMode, U, 1>(w)) {}
};

template <FieldMode kMode, typename U>
U FieldValue(uint64_t u, uint64_t base, uint64_t sign) {
  if constexpr (kMode == FieldMode::kAddBase) {
    return static_cast<U>(base + u);
  } else {
    return static_cast<U>((u ^ sign) - sign);
  }
}

/// Pass (1) for tile t, full or partial (spec §8.5). A full tile with V a
/// multiple of 64: the kernels write every lane block in place. Any other
/// tile whose stream starts on a word (32 V w a multiple of 64) and that
/// fits kMaxStagedTileRows: its m fields, lane after lane, are one
/// contiguous stream; the kernels unpack its whole 64-field blocks into a
/// stack buffer, the last m mod 64 fields are read one by one (a kernel
/// would read past the partition there), and the lanes' runs are then copied
/// to the tile row by row. Otherwise field by field.
template <FieldMode kMode, typename U>
L3_CPU_VARIANTS void UnpackAnyTile(const TileKernels<kMode, U>& kernels, const Partition& part,
                   uint32_t values_per_lane, uint64_t t, uint64_t base, U* tile) {
  const uint32_t w = part.bit_width;
  const uint64_t n = part.num_rows;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  const uint8_t* tile_words = part.payload + 8 * (t * tile_rows * w / 64);
  if ((t + 1) * tile_rows <= n && values_per_lane % kSlapBlockFields == 0) {
    UnpackTile(kernels.in_place, tile_words, w, values_per_lane, base, tile);
    return;
  }
  const uint64_t mask = LowMask(w);
  const uint64_t sign = w == 0 ? 0 : uint64_t{1} << (w - 1);
  const uint64_t rows = n - t * tile_rows < tile_rows ? n - t * tile_rows : tile_rows;
  if (tile_rows <= kMaxStagedTileRows && tile_rows * w % 64 == 0) {
    U staged[kMaxStagedTileRows];
    const uint64_t blocks = rows / kSlapBlockFields;
    for (uint64_t b = 0; b < blocks; ++b) {
      kernels.staged(tile_words + 8 * b * w, base, staged + kSlapBlockFields * b);
    }
    for (uint64_t f = blocks * kSlapBlockFields; f < rows; ++f) {
      const uint64_t u = w == 0 ? 0 : LoadField(tile_words, f * w, mask);
      staged[f] = FieldValue<kMode, U>(u, base, sign);
    }
    // Row by row: lane L's run starts at field L q + min(L, r) (spec §8.5,
    // q = rows / 32, r = rows mod 32); lanes below r hold one more row.
    const uint32_t steps = static_cast<uint32_t>(rows / kLanes);
    const uint32_t extra_lanes = static_cast<uint32_t>(rows % kLanes);
    const U* lane_run[kLanes];
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      lane_run[lane] = staged + lane * steps + (lane < extra_lanes ? lane : extra_lanes);
    }
    for (uint32_t k = 0; k < steps; ++k) {
      U* row = tile + uint64_t{kLanes} * k;
      for (uint32_t lane = 0; lane < kLanes; ++lane) row[lane] = lane_run[lane][k];
    }
    U* row = tile + uint64_t{kLanes} * steps;
    for (uint32_t lane = 0; lane < extra_lanes; ++lane) row[lane] = lane_run[lane][steps];
    return;
  }
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    const uint32_t count = SlapLaneRows(n, values_per_lane, t, lane);
    uint64_t bit = SlapLaneBitOffset(n, w, values_per_lane, t, lane);
    U* dst = tile + lane;
    for (uint32_t k = 0; k < count; ++k, bit += w) {
      const uint64_t u = w == 0 ? 0 : LoadField(part.payload, bit, mask);
      dst[uint64_t{kLanes} * k] = FieldValue<kMode, U>(u, base, sign);
    }
  }
}

template <uint8_t kModel, typename U>
void DecodePredictedTiles(const Partition& part, uint32_t values_per_lane, uint64_t tile_begin,
                          uint64_t tile_end, U* out) {
  double theta[4] = {0, 0, 0, 0};
  const uint32_t num_params = ParamCount(kModel, part.bit_width);
  for (uint32_t i = 0; i < num_params; ++i) theta[i] = ParamAsDouble(part.params, i);
  const TileKernels<FieldMode::kSignExtend, U> kernels(part.bit_width);
  const uint64_t n = part.num_rows;
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  for (uint64_t t = tile_begin; t < tile_end; ++t) {
    U* tile = out + (t - tile_begin) * tile_rows;
    const uint64_t tile_row = t * tile_rows;
    const uint64_t rows = n - tile_row < tile_rows ? n - tile_row : tile_rows;
    UnpackAnyTile(kernels, part, values_per_lane, t, 0, tile);
    if (!AddTilePredictions<kModel>(theta, tile_row, rows / kLanes,
                                    static_cast<uint32_t>(rows % kLanes), tile)) {
      DecodePredictedRange<U, kModel>(part, values_per_lane, tile_row, tile_row + rows, tile);
    }
  }
}

}  // namespace

template <typename U>
void DecodeSlapTiles(const Partition& part, uint32_t values_per_lane, uint64_t tile_begin,
                         uint64_t tile_end, U* out) {
  switch (part.model) {
    case static_cast<uint8_t>(Model::kFor):
    case static_cast<uint8_t>(Model::kPatchedFor): {  // its fields; the caller adds exceptions
      const TileKernels<FieldMode::kAddBase, U> kernels(part.bit_width);
      const uint64_t base = LoadLE64(part.params);
      const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
      for (uint64_t t = tile_begin; t < tile_end; ++t) {
        UnpackAnyTile(kernels, part, values_per_lane, t, base,
                                           out + (t - tile_begin) * tile_rows);
      }
      return;
    }
    case static_cast<uint8_t>(Model::kLinear):
      DecodePredictedTiles<static_cast<uint8_t>(Model::kLinear)>(part, values_per_lane,
                                                                 tile_begin, tile_end, out);
      return;
    case static_cast<uint8_t>(Model::kPoly2):
      DecodePredictedTiles<static_cast<uint8_t>(Model::kPoly2)>(part, values_per_lane,
                                                                tile_begin, tile_end, out);
      return;
    case static_cast<uint8_t>(Model::kPoly3):
      DecodePredictedTiles<static_cast<uint8_t>(Model::kPoly3)>(part, values_per_lane,
                                                                tile_begin, tile_end, out);
      return;
    default:
      return;  // not a SLAP model; the caller never asks
  }
}

template void DecodeSlapTiles(const Partition&, uint32_t, uint64_t, uint64_t, uint8_t*);
template void DecodeSlapTiles(const Partition&, uint32_t, uint64_t, uint64_t, uint16_t*);
template void DecodeSlapTiles(const Partition&, uint32_t, uint64_t, uint64_t, uint32_t*);
template void DecodeSlapTiles(const Partition&, uint32_t, uint64_t, uint64_t, uint64_t*);

}  // namespace l3::internal
