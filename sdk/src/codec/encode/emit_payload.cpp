// Payload emission (spec §8.5–§8.7). Each partition's fields are written as
// one sequential LSB-first bit stream: in the SLAP layout the lanes of a
// tile, and the tiles of a partition, follow each other without gaps, so
// tile by tile, lane by lane, step by step is exactly stream order.
#include "codec/encode/emit_payload.hpp"

#include <algorithm>

#include "codec/delta/delta_encode.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/patched/patched_for_encode.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "codec/predictor.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {
namespace {

// Appends w-bit fields (0 <= w <= 64) to a stream of 8-byte words.
class BitWriter {
 public:
  explicit BitWriter(uint8_t* out) : out_(out) {}

  void Put(uint64_t value, uint32_t w) {
    if (w == 0) return;
    value &= LowMask(w);
    acc_ |= value << fill_;
    fill_ += w;
    if (fill_ >= 64) {
      StoreLE64(out_ + 8 * word_++, acc_);
      fill_ -= 64;
      // The high bits of `value` that did not fit (none when fill_ is 0).
      acc_ = fill_ == 0 ? 0 : value >> (w - fill_);
    }
  }

  void PutZeros(uint64_t count) {
    for (; count >= 64; count -= 64) Put(0, 64);
    Put(0, static_cast<uint32_t>(count));
  }

  /// Stores the last partial word; returns the number of words written.
  uint64_t Finish() {
    if (fill_ > 0) StoreLE64(out_ + 8 * word_++, acc_);
    fill_ = 0;
    acc_ = 0;
    return word_;
  }

 private:
  uint8_t* out_;
  uint64_t acc_ = 0;
  uint32_t fill_ = 0;
  uint64_t word_ = 0;
};

// Calls emit(x) for every local row x in SLAP stream order (spec §8.5), and
// start(x0) before the first row of each lane of each tile.
template <typename Start, typename Emit>
void ForEachSlapRow(uint64_t n, uint32_t values_per_lane, Start&& start, Emit&& emit) {
  const uint64_t tile_rows = uint64_t{kLanes} * values_per_lane;
  for (uint64_t t0 = 0; t0 < n; t0 += tile_rows) {
    const uint64_t rows = std::min<uint64_t>(tile_rows, n - t0);
    for (uint32_t lane = 0; lane < kLanes && lane < rows; ++lane) {
      start(t0 + lane);
      for (uint64_t x = t0 + lane; x < t0 + rows; x += kLanes) emit(x);
    }
  }
}

template <uint8_t kModel, typename T>
bool EmitPredicted(const T* v, const PartitionFit& fit, uint32_t values_per_lane, BitWriter* out) {
  const uint32_t w = fit.bit_width;
  LanePredictor<kModel> lane;
  bool ok = true;
  ForEachSlapRow(
      fit.num_rows, values_per_lane,
      [&](uint64_t x0) { lane.Start(fit.theta, static_cast<double>(x0)); },
      [&](uint64_t x) {
        const int64_t r = ValueTraits<T>::Residual(v[x], FastPredictionToInt(lane.value()));
        lane.Advance();
        // spec §8.8 rule 1: the fitter chose w so that every residual fits.
        ok &= SignedWidth(r) <= w;
        out->Put(static_cast<uint64_t>(r), w);
      });
  return ok;
}

// The run values of spec §8.7 and §8.11: the value of each run (a row that
// differs from the one before it) minus "Base", in Bit_Width bits. False if
// a value needs more bits or the runs are not fit.num_runs.
template <typename T>
bool EmitRunValues(const T* v, const PartitionFit& fit, BitWriter* writer) {
  using Traits = ValueTraits<T>;
  const T base = static_cast<T>(fit.base);
  const uint32_t w = fit.bit_width;
  bool ok = true;
  uint64_t runs = 1;
  writer->Put(Traits::Offset(v[0], base), w);
  for (uint32_t x = 1; x < fit.num_rows; ++x) {
    if (v[x] != v[x - 1]) {
      ok &= BitLength(Traits::Offset(v[x], base)) <= w;
      writer->Put(Traits::Offset(v[x], base), w);
      ++runs;
    }
  }
  return ok && runs == fit.num_runs;
}

}  // namespace

template <typename T>
bool EmitPartitionPayload(const T* v, const PartitionFit& fit, uint32_t values_per_lane,
                          uint8_t* out) {
  using Traits = ValueTraits<T>;
  const uint32_t n = fit.num_rows;
  const uint32_t w = fit.bit_width;
  if (fit.payload_words == 0) return w == 0 || n == 0;
  if (fit.model_type == static_cast<uint8_t>(Model::kDelta)) {
    return EmitDeltaPayload(v, fit, values_per_lane, out);
  }
  if (fit.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
    return EmitPatchedForPayload(v, fit, values_per_lane, out);
  }
  BitWriter writer(out);
  bool ok = true;
  switch (fit.model_type) {
    case static_cast<uint8_t>(Model::kConstant): {
      // spec §8.7: R run values of w bits, then R - 1 run starts of
      // bitlen(n - 1) bits.
      ok = EmitRunValues(v, fit, &writer);
      const uint32_t start_bits = RunStartBits(n);
      for (uint32_t x = 1; x < n; ++x) {
        if (v[x] != v[x - 1]) writer.Put(x, start_bits);
      }
      break;
    }
    case static_cast<uint8_t>(Model::kRunsEf): {
      // spec §8.11: R run values of w bits, the low parts of the R - 1 run
      // starts (l bits), then H, whose bit (start_i >> l) + (i - 1) is 1.
      ok = EmitRunValues(v, fit, &writer);
      const RunsEfLayout g = MakeRunsEfLayout(n, fit.num_runs, w);
      for (uint32_t x = 1; x < n; ++x) {
        if (v[x] != v[x - 1]) writer.Put(x, g.low_bits);
      }
      uint64_t next_bit = 0;  // the H position after the last 1 bit written
      uint64_t i = 0;
      for (uint32_t x = 1; x < n; ++x) {
        if (v[x] == v[x - 1]) continue;
        const uint64_t one = (uint64_t{x} >> g.low_bits) + i++;
        writer.PutZeros(one - next_bit);
        writer.Put(1, 1);
        next_bit = one + 1;
      }
      ok &= next_bit <= g.high_bits;
      writer.PutZeros(g.high_bits - std::min(next_bit, g.high_bits));
      break;
    }
    case static_cast<uint8_t>(Model::kFor): {
      const T base = static_cast<T>(fit.base);
      ForEachSlapRow(
          n, values_per_lane, [](uint64_t) {},
          [&](uint64_t x) {
            const uint64_t u = Traits::Offset(v[x], base);
            ok &= BitLength(u) <= w;
            writer.Put(u, w);
          });
      break;
    }
    case static_cast<uint8_t>(Model::kLinear):
      ok = EmitPredicted<static_cast<uint8_t>(Model::kLinear)>(v, fit, values_per_lane, &writer);
      break;
    case static_cast<uint8_t>(Model::kPoly2):
      ok = EmitPredicted<static_cast<uint8_t>(Model::kPoly2)>(v, fit, values_per_lane, &writer);
      break;
    case static_cast<uint8_t>(Model::kPoly3):
      ok = EmitPredicted<static_cast<uint8_t>(Model::kPoly3)>(v, fit, values_per_lane, &writer);
      break;
    default:
      return false;
  }
  return writer.Finish() == fit.payload_words && ok;
}

#define L3_INSTANTIATE_EMIT(T) \
  template bool EmitPartitionPayload<T>(const T*, const PartitionFit&, uint32_t, uint8_t*);
L3_INSTANTIATE_EMIT(int8_t)
L3_INSTANTIATE_EMIT(int16_t)
L3_INSTANTIATE_EMIT(int32_t)
L3_INSTANTIATE_EMIT(int64_t)
L3_INSTANTIATE_EMIT(uint8_t)
L3_INSTANTIATE_EMIT(uint16_t)
L3_INSTANTIATE_EMIT(uint32_t)
L3_INSTANTIATE_EMIT(uint64_t)
#undef L3_INSTANTIATE_EMIT

}  // namespace l3::internal
