// The CUDA half of the chunk's segments (encode_chunk.cpp's Assemble and
// emit_payload.cpp are the CPU half): from the planned partitions in device
// memory to the partition table (spec §7.3), the parameters (§8.2), the
// payload (§8.5–§8.11) and the bounds (§7.5), byte for byte the CPU's.
//
// Four launches and two scans:
//  1. ExtentsKernel: each partition's payload words, parameter words and
//     tiles; an exclusive scan (CUB) turns them into offsets.
//  2. MetadataKernel: the table record, the parameter words and the bounds of
//     each partition (and the table's sentinel).
//  3. TileEventsKernel: per tile, the rows that start a run (runs and
//     RUNS_EF partitions) or hold an exception (DELTA); an exclusive sum over
//     the tiles gives each of them its rank within the partition.
//  4. PackTilesKernel: one warp per tile. A SLAP field stream is written lane
//     by lane as spec §8.5 orders it: lane L's fields are consecutive bits,
//     so each lane writes its inner words with plain stores and only its
//     first and last word, which it may share with a neighbour, with an
//     atomic OR into the zeroed payload. Runs, run starts, RUNS_EF's H bits
//     and DELTA exceptions are placed by their ranks (warp ballots in row
//     order), also with atomic ORs: the result does not depend on the order
//     in which warps run.
#pragma once

#include <cstdint>

#include "codec/delta/delta_encode.hpp"
#include "codec/delta/delta_layout.hpp"
#include "codec/patched/patched_for_layout.hpp"
#include "codec/encode/partitioner.hpp"
#include "codec/encode/value_traits.hpp"
#include "codec/predictor.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {

/// Step 1's counts per partition; after the exclusive scan, the offsets of
/// the partition (entry P holds the totals).
struct PartitionExtents {
  uint64_t payload_words;
  uint64_t param_words;
  uint64_t tiles;
};

struct AddExtents {
  L3_HD PartitionExtents operator()(const PartitionExtents& a, const PartitionExtents& b) const {
    return PartitionExtents{a.payload_words + b.payload_words, a.param_words + b.param_words,
                            a.tiles + b.tiles};
  }
};

/// PackTilesKernel's error word (device memory, zero before the launch)
/// becomes nonzero where a partition's values do not match its fit (a field
/// wider than Bit_Width, another number of runs or exceptions): an encoder
/// bug, for which the CPU's Assemble returns kInternal.
inline constexpr uint32_t kPackMismatch = 1;

__device__ __forceinline__ void OrWord(uint64_t* word, uint64_t bits) {
  if (bits != 0) {
    atomicOr(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(bits));
  }
}

/// ORs the low w bits of `field` (w <= 64) at stream bit `bit` of `words`.
__device__ __forceinline__ void OrField(uint64_t* words, uint64_t bit, uint64_t field, uint32_t w) {
  if (w == 0) return;
  field &= LowMask(w);
  const uint32_t shift = static_cast<uint32_t>(bit & 63);
  OrWord(words + (bit >> 6), field << shift);
  if (shift + w > 64) OrWord(words + (bit >> 6) + 1, field >> (64 - shift));
}

/// The partition whose tiles hold global tile g: the last p with
/// extents[p].tiles <= g (extents scanned; P + 1 entries).
__device__ __forceinline__ uint64_t PartitionOfTile(const PartitionExtents* extents, uint64_t P,
                                                    uint64_t g) {
  uint64_t lo = 0, hi = P;  // extents[lo].tiles <= g < extents[hi].tiles
  while (hi - lo > 1) {
    const uint64_t mid = (lo + hi) / 2;
    if (extents[mid].tiles <= g) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Bit of ExtentsKernel's *models_used for a PATCHED_FOR partition with
/// Rows_EF (spec §8.12; Model_Types take bits 0..7).
inline constexpr uint32_t kModelsUsedPatchedRowsEf = 1u << 8;

/// Step 1; also ORs bit m of *models_used for each Model_Type m present,
/// and kModelsUsedPatchedRowsEf.
__global__ void ExtentsKernel(const DeviceNode* __restrict__ nodes, uint64_t P, uint32_t tile_rows,
                              PartitionExtents* __restrict__ extents, uint32_t* models_used) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  uint32_t models = 0;
  for (uint64_t p = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; p <= P; p += stride) {
    PartitionExtents e{0, 0, 0};
    if (p < P) {
      const PartitionFit& fit = nodes[p].fit;
      e.payload_words = fit.payload_words;
      e.param_words = ParamCount(fit.model_type, fit.bit_width);
      e.tiles = (uint64_t{fit.num_rows} + tile_rows - 1) / tile_rows;
      models |= 1u << (fit.model_type & 31);
      if (fit.model_type == static_cast<uint8_t>(Model::kPatchedFor) &&
          UnpackDeltaExceptions(fit.exceptions).rows_ef) {
        models |= kModelsUsedPatchedRowsEf;
      }
    }
    extents[p] = e;
  }
  if (models != 0) atomicOr(models_used, models);
}

/// Step 2: record p (spec §7.3; the sentinel at P), partition p's parameter
/// words (spec §8.2: integers in canonical extension, Theta as binary64) and
/// its bounds (spec §7.5: P minima then P maxima, sizeof(T) bytes each;
/// `bounds` null when not written).
template <typename T>
__global__ void MetadataKernel(const DeviceNode* __restrict__ nodes, uint64_t P, uint64_t n,
                               const PartitionExtents* __restrict__ offsets,
                               uint32_t* __restrict__ table, uint64_t* __restrict__ params,
                               T* __restrict__ bounds) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t p = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; p <= P; p += stride) {
    uint32_t* record = table + 4 * p;
    record[1] = static_cast<uint32_t>(offsets[p].payload_words);
    record[2] = static_cast<uint32_t>(offsets[p].param_words);
    if (p == P) {
      record[0] = static_cast<uint32_t>(n);
      record[3] = 0;
      continue;
    }
    const PartitionFit& fit = nodes[p].fit;
    record[0] = static_cast<uint32_t>(nodes[p].first_row);
    record[3] = uint32_t{fit.model_type} | (uint32_t{fit.bit_width} << 8);
    uint64_t* words = params + offsets[p].param_words;
    if (IsPredictedModel(fit.model_type)) {
      for (uint32_t k = 0; k < ParamCount(fit.model_type, 0); ++k) {
        words[k] = static_cast<uint64_t>(__double_as_longlong(fit.theta[k]));
      }
    } else {
      words[0] = fit.base;
      if ((fit.model_type == static_cast<uint8_t>(Model::kConstant) && fit.bit_width > 0) ||
          fit.model_type == static_cast<uint8_t>(Model::kRunsEf)) {
        words[1] = fit.num_runs;
      }
      if (fit.model_type == static_cast<uint8_t>(Model::kDelta) ||
          fit.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
        words[1] = fit.exceptions;  // spec §8.9, §8.12
      }
    }
    if (bounds != nullptr) {
      bounds[p] = static_cast<T>(fit.min_value);
      bounds[P + p] = static_cast<T>(fit.max_value);
    }
  }
}

/// Whether local row x of a partition is an event: a row x >= 1 that starts
/// a run (CONSTANT with Bit_Width > 0, RUNS_EF), or a DELTA exception (u(x)
/// has bits at or above Bit_Width), or any row that is a PATCHED_FOR
/// exception (u(x) = v(x) - Base has bits at or above Bit_Width).
template <typename T>
__device__ __forceinline__ bool IsEvent(const T* v, uint32_t x, const PartitionFit& fit) {
  if (fit.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
    if (fit.bit_width >= 64) return false;
    return (ValueTraits<T>::Offset(v[x], static_cast<T>(fit.base)) >> fit.bit_width) != 0;
  }
  if (x == 0) return false;
  if (fit.model_type == static_cast<uint8_t>(Model::kDelta)) {
    if (fit.bit_width >= 64) return false;
    const uint64_t delta_base = static_cast<typename ValueTraits<T>::Unsigned>(fit.base);
    return (DeltaOffset(v[x], v[x - 1], delta_base) >> fit.bit_width) != 0;
  }
  return v[x] != v[x - 1];
}

/// Whether a partition's payload has events (runs, RUNS_EF, DELTA with
/// exceptions).
L3_HD bool HasEvents(const PartitionFit& fit) {
  if (fit.model_type == static_cast<uint8_t>(Model::kConstant)) return fit.bit_width > 0;
  if (fit.model_type == static_cast<uint8_t>(Model::kRunsEf)) return true;
  if (fit.model_type == static_cast<uint8_t>(Model::kDelta) ||
      fit.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
    return UnpackDeltaExceptions(fit.exceptions).count > 0;
  }
  return false;
}

/// Step 3: events[g] = the events among the rows of global tile g.
template <typename T>
__global__ void TileEventsKernel(const T* __restrict__ values, const DeviceNode* __restrict__ nodes,
                                 uint64_t P, const PartitionExtents* __restrict__ offsets,
                                 uint32_t tile_rows, uint32_t* __restrict__ events) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  const uint64_t num_tiles = offsets[P].tiles;
  for (uint64_t g = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; g < num_tiles;
       g += warps) {
    const uint64_t p = PartitionOfTile(offsets, P, g);
    const PartitionFit fit = nodes[p].fit;
    uint32_t count = 0;
    if (HasEvents(fit)) {
      const T* v = values + nodes[p].first_row;
      const uint32_t begin = static_cast<uint32_t>((g - offsets[p].tiles) * tile_rows);
      const uint32_t end = fit.num_rows - begin < tile_rows ? fit.num_rows : begin + tile_rows;
      for (uint32_t x = begin + lane; x < end; x += 32) count += IsEvent(v, x, fit) ? 1 : 0;
      for (int d = 16; d > 0; d /= 2) count += __shfl_xor_sync(0xFFFFFFFFu, count, d);
    }
    if (lane == 0) events[g] = count;
  }
}

/// Writes one lane's consecutive fields (spec §8.5) starting at stream bit
/// `bit`: inner words by plain stores, the first and last word (which a
/// neighbouring lane or tile may share) by atomic ORs.
class LaneFieldWriter {
 public:
  __device__ LaneFieldWriter(uint64_t* words, uint64_t bit)
      : words_(words),
        word_(bit >> 6),
        fill_(static_cast<uint32_t>(bit & 63)),
        shared_first_(fill_ != 0) {}

  __device__ __forceinline__ void Put(uint64_t field, uint32_t w) {
    field &= LowMask(w);
    acc_ |= field << fill_;
    fill_ += w;
    if (fill_ >= 64) {
      Flush(acc_);
      fill_ -= 64;
      acc_ = fill_ == 0 ? 0 : field >> (w - fill_);
    }
  }

  __device__ __forceinline__ void Finish() {
    if (fill_ > 0) OrWord(words_ + word_, acc_);
  }

 private:
  __device__ __forceinline__ void Flush(uint64_t word) {
    if (shared_first_) {
      OrWord(words_ + word_, word);
      shared_first_ = false;
    } else {
      words_[word_] = word;
    }
    ++word_;
  }

  uint64_t* words_;
  uint64_t word_;
  uint32_t fill_;
  bool shared_first_;
  uint64_t acc_ = 0;
};

/// The stream bit at which lane `lane`'s fields start in a tile of `rows`
/// rows whose first field is at stream bit `tile_bit`, and the lane's rows.
L3_HD uint32_t LaneRows(uint32_t rows, uint32_t lane) {
  return rows > lane ? (rows - lane + 31) / 32 : 0;
}
L3_HD uint64_t LaneFirstBit(uint64_t tile_bit, uint32_t rows, uint32_t lane, uint32_t w) {
  const uint32_t q = rows / 32, m = rows % 32;
  return tile_bit + (uint64_t{lane} * q + (lane < m ? lane : m)) * w;
}

template <uint8_t kModel, typename T>
__device__ __forceinline__ void PackPredictedLane(const T* v, const PartitionFit& fit, uint32_t x0,
                                                  uint32_t rows_in_lane, LaneFieldWriter* out,
                                                  bool* too_wide) {
  LanePredictor<kModel> predictor;
  predictor.Start(fit.theta, static_cast<double>(x0));
  const uint32_t w = fit.bit_width;
  for (uint32_t k = 0; k < rows_in_lane; ++k) {
    const int64_t r = ValueTraits<T>::Residual(v[x0 + 32 * k], PredictionToInt(predictor.value()));
    predictor.Advance();
    *too_wide |= SignedWidth(r) > w;
    out->Put(static_cast<uint64_t>(r), w);
  }
}

/// Calls fn(x, k) on the lanes that hold an event row x of the tile
/// [begin, begin + rows), k being its rank among the partition's events (the
/// tile's first has rank_before); warp-collective. Returns the rank after
/// the tile.
template <typename T, typename Fn>
__device__ __forceinline__ uint64_t ForEachEvent(const T* v, const PartitionFit& fit,
                                                 uint32_t begin, uint32_t rows, uint32_t lane,
                                                 uint64_t rank_before, Fn&& fn) {
  uint64_t rank = rank_before;
  for (uint32_t x0 = begin; x0 < begin + rows; x0 += 32) {
    const uint32_t x = x0 + lane;
    const bool event = x < begin + rows && IsEvent(v, x, fit);
    const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, event);
    if (event) fn(x, rank + __popc(ballot & ((1u << lane) - 1)));
    rank += __popc(ballot);
  }
  return rank;
}

/// A run partition's tile (spec §8.7 runs, §8.11 RUNS_EF): run i >= 1 starts
/// at event x of rank i - 1, its value at bit i * w, its start (runs) or low
/// part and H bit (RUNS_EF) after the R values. False where the values do not
/// match the fit.
template <typename T>
__device__ __forceinline__ bool PackRuns(const T* v, const PartitionFit& fit, uint64_t t,
                                         uint32_t begin, uint32_t rows, uint32_t lane,
                                         uint64_t rank_before, bool last_tile, uint64_t* words) {
  using Traits = ValueTraits<T>;
  const T base = static_cast<T>(fit.base);
  const uint32_t w = fit.bit_width;
  const uint64_t runs = fit.num_runs;
  const bool ef = fit.model_type == static_cast<uint8_t>(Model::kRunsEf);
  const RunsEfLayout layout = ef ? MakeRunsEfLayout(fit.num_rows, runs, w) : RunsEfLayout{};
  const uint32_t start_bits = RunStartBits(fit.num_rows);
  bool ok = true;
  if (t == 0 && lane == 0) {
    const uint64_t u = Traits::Offset(v[0], base);
    ok &= BitLength(u) <= w;
    OrField(words, 0, u, w);
  }
  const uint64_t rank =
      ForEachEvent(v, fit, begin, rows, lane, rank_before, [&](uint32_t x, uint64_t k) {
        const uint64_t i = k + 1;  // run i starts at x
        if (i >= runs) {
          ok = false;
          return;
        }
        const uint64_t u = Traits::Offset(v[x], base);
        ok &= BitLength(u) <= w;
        OrField(words, i * w, u, w);
        if (ef) {
          OrField(words, layout.low_bit0 + (i - 1) * layout.low_bits, x, layout.low_bits);
          OrField(words, layout.high_bit0 + (uint64_t{x} >> layout.low_bits) + (i - 1), 1, 1);
        } else {
          OrField(words, runs * w + (i - 1) * start_bits, x, start_bits);
        }
      });
  // The partition's last tile: every run found.
  return ok && (!last_tile || rank + 1 == runs);
}

/// A DELTA partition's tile (spec §8.9): exception k's row and high part at
/// their places after the SLAP fields of `stream` (after the seeds).
template <typename T>
__device__ __forceinline__ bool PackDeltaExceptions(const T* v, const PartitionFit& fit,
                                                    uint32_t begin, uint32_t rows, uint32_t lane,
                                                    uint64_t rank_before, bool last_tile,
                                                    uint64_t* stream) {
  using U = typename ValueTraits<T>::Unsigned;
  const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  const uint32_t w = fit.bit_width;
  const uint64_t delta_base = static_cast<U>(fit.base);
  const uint32_t row_bits = RunStartBits(fit.num_rows);
  const uint64_t rows_bit = uint64_t{fit.num_rows} * w;
  const uint64_t highs_bit = rows_bit + uint64_t{e.count} * row_bits;
  bool ok = true;
  const uint64_t rank =
      ForEachEvent(v, fit, begin, rows, lane, rank_before, [&](uint32_t x, uint64_t k) {
        const uint64_t high = StoredExceptionHigh(DeltaOffset(v[x], v[x - 1], delta_base), w,
                                                  8 * sizeof(T), e.signed_highs);
        if (k >= e.count || BitLength(high) > e.width) {
          ok = false;
          return;
        }
        OrField(stream, rows_bit + k * row_bits, x, row_bits);
        OrField(stream, highs_bit + k * e.width, high, e.width);
      });
  return ok && (!last_tile || rank == e.count);
}

/// A PATCHED_FOR partition's tile (spec §8.12): exception k's row (fixed
/// width, or Rows_EF's low part and the 1 bit of H) and high part at their
/// places after the n SLAP fields.
template <typename T>
__device__ __forceinline__ bool PackPatchedForExceptions(const T* v, const PartitionFit& fit,
                                                         uint32_t begin, uint32_t rows,
                                                         uint32_t lane, uint64_t rank_before,
                                                         bool last_tile, uint64_t* stream) {
  const DeltaExceptions e = UnpackDeltaExceptions(fit.exceptions);
  const uint32_t w = fit.bit_width;
  const PatchedForExceptionLayout g = MakePatchedForExceptionLayout(fit.num_rows, w, e);
  bool ok = true;
  const uint64_t rank =
      ForEachEvent(v, fit, begin, rows, lane, rank_before, [&](uint32_t x, uint64_t k) {
        const uint64_t high =
            StoredExceptionHigh(ValueTraits<T>::Offset(v[x], static_cast<T>(fit.base)), w,
                                8 * sizeof(T), e.signed_highs);
        if (k >= e.count || BitLength(high) > e.width) {
          ok = false;
          return;
        }
        if (e.rows_ef) {
          OrField(stream, g.rows_bit + k * g.low_bits, x, g.low_bits);
          OrField(stream, g.h_bit + (x >> g.low_bits) + k, 1, 1);
        } else {
          OrField(stream, g.rows_bit + k * g.row_bits, x, g.row_bits);
        }
        OrField(stream, g.highs_bit + k * e.width, high, e.width);
      });
  return ok && (!last_tile || rank == e.count);
}

/// Step 4: one warp per tile; `payload` zeroed, 8 * offsets[P].payload_words
/// bytes (plus padding). `event_before[g]`: the exclusive sum of events.
template <typename T>
__global__ void PackTilesKernel(const T* __restrict__ values, const DeviceNode* __restrict__ nodes,
                                uint64_t P, const PartitionExtents* __restrict__ offsets,
                                uint32_t values_per_lane, const uint32_t* __restrict__ event_before,
                                uint64_t* __restrict__ payload, uint32_t* __restrict__ error) {
  using Traits = ValueTraits<T>;
  using U = typename Traits::Unsigned;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t tile_rows = 32 * values_per_lane;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  const uint64_t num_tiles = offsets[P].tiles;
  for (uint64_t g = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; g < num_tiles;
       g += warps) {
    const uint64_t p = PartitionOfTile(offsets, P, g);
    const PartitionFit fit = nodes[p].fit;
    const T* v = values + nodes[p].first_row;
    uint64_t* words = payload + offsets[p].payload_words;
    const uint64_t t = g - offsets[p].tiles;  // tile within the partition
    const uint32_t begin = static_cast<uint32_t>(t * tile_rows);
    const uint32_t rows = fit.num_rows - begin < tile_rows ? fit.num_rows - begin : tile_rows;
    const uint32_t w = fit.bit_width;
    const uint8_t model = fit.model_type;
    bool too_wide = false;

    // The SLAP field streams: FOR, LINEAR, POLY2, POLY3 and DELTA's low parts.
    if (model != static_cast<uint8_t>(Model::kConstant) &&
        model != static_cast<uint8_t>(Model::kRunsEf)) {
      uint64_t* stream = words;
      if (model == static_cast<uint8_t>(Model::kDelta)) {
        const uint64_t seeds = DeltaSeedWords(fit.num_rows, values_per_lane, 1);
        if (lane == 0) {
          // spec §8.9: Seed[0] = v[0] - Delta_Base, Seed[t] = v[t*S - 1].
          const T seed =
              t == 0
                  ? static_cast<T>(static_cast<U>(static_cast<U>(v[0]) - static_cast<U>(fit.base)))
                  : v[begin - 1];
          words[t] = Traits::Canonical(seed);
        }
        stream = words + seeds;
      }
      const uint32_t lane_rows = LaneRows(rows, lane);
      if (w > 0 && lane_rows > 0) {
        LaneFieldWriter out(stream, LaneFirstBit(uint64_t{begin} * w, rows, lane, w));
        const uint32_t x0 = begin + lane;
        switch (model) {
          case static_cast<uint8_t>(Model::kFor): {
            const T base = static_cast<T>(fit.base);
            for (uint32_t k = 0; k < lane_rows; ++k) {
              const uint64_t u = Traits::Offset(v[x0 + 32 * k], base);
              too_wide |= BitLength(u) > w;
              out.Put(u, w);
            }
            break;
          }
          case static_cast<uint8_t>(Model::kPatchedFor): {
            // spec §8.12: the low w bits of u(x); exceptions keep the rest.
            const T base = static_cast<T>(fit.base);
            for (uint32_t k = 0; k < lane_rows; ++k) {
              out.Put(Traits::Offset(v[x0 + 32 * k], base), w);
            }
            break;
          }
          case static_cast<uint8_t>(Model::kLinear):
            PackPredictedLane<static_cast<uint8_t>(Model::kLinear)>(v, fit, x0, lane_rows, &out,
                                                                    &too_wide);
            break;
          case static_cast<uint8_t>(Model::kPoly2):
            PackPredictedLane<static_cast<uint8_t>(Model::kPoly2)>(v, fit, x0, lane_rows, &out,
                                                                   &too_wide);
            break;
          case static_cast<uint8_t>(Model::kPoly3):
            PackPredictedLane<static_cast<uint8_t>(Model::kPoly3)>(v, fit, x0, lane_rows, &out,
                                                                   &too_wide);
            break;
          case static_cast<uint8_t>(Model::kDelta): {
            const uint64_t delta_base = static_cast<U>(fit.base);
            for (uint32_t k = 0; k < lane_rows; ++k) {
              const uint32_t x = x0 + 32 * k;
              out.Put(x == 0 ? 0 : DeltaOffset(v[x], v[x - 1], delta_base), w);
            }
            break;
          }
          default:
            too_wide = true;  // a model the packer does not know
            break;
        }
        out.Finish();
      }
    }

    // Events in row order: run values and starts, RUNS_EF low parts and H
    // bits, DELTA exception rows and high parts.
    const uint64_t rank_before = event_before[g] - event_before[offsets[p].tiles];
    const bool last_tile = begin + rows == fit.num_rows;
    if (model == static_cast<uint8_t>(Model::kConstant) ||
        model == static_cast<uint8_t>(Model::kRunsEf)) {
      if (w > 0 && fit.payload_words > 0) {
        too_wide |= !PackRuns(v, fit, t, begin, rows, lane, rank_before, last_tile, words);
      }
    } else if (model == static_cast<uint8_t>(Model::kDelta) && HasEvents(fit)) {
      too_wide |= !PackDeltaExceptions(v, fit, begin, rows, lane, rank_before, last_tile,
                                       words + DeltaSeedWords(fit.num_rows, values_per_lane, 1));
    } else if (model == static_cast<uint8_t>(Model::kPatchedFor) && HasEvents(fit)) {
      too_wide |=
          !PackPatchedForExceptions(v, fit, begin, rows, lane, rank_before, last_tile, words);
    }
    if (too_wide) atomicOr(error, kPackMismatch);
  }
}

}  // namespace l3::internal
