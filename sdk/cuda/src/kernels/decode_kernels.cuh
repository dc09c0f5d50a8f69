// The decode and random-access kernels (spec §8.3–§8.7).
//
// Work decomposition. The paper's decoder spends one thread block per
// partition, which idles most of a block on the 256-row partitions that
// dominate high-entropy data. Here the unit of work is a warp and a *tile*
// (spec §8.5: S = 32 * V rows of one partition, or its partial tile): the
// output rows are cut into spans, and the warp that owns a span decodes every
// tile whose first row lies in it, whole, so a tile is never split between
// warps and never needs its predictor or bit reader replayed. A partition of
// 256 rows is one partial tile: 8 steps of one warp, not a block.
//
// Within a tile, lane L decodes rows t*S + L + 32k, k = 0, 1, ...: it reads
// its own contiguous run of fields with a sequential bit reader, steps the
// canonical FP64 finite-difference predictor (predictor.hpp, _rn
// intrinsics, no FMA), and the warp stores 32 consecutive rows per step.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/ibp/float_order.hpp"
#include "kernels/device_chunk.cuh"

namespace l3::cuda::detail {

struct DecodeArgs {
  ChunkSet chunks;
  uint64_t row_begin;  // column rows [row_begin, row_end) go to out[0 ..)
  uint64_t row_end;
  uint64_t num_block_spans;  // units of (warps per block) * span_rows rows
  uint32_t span_rows;
  bool prefetch_payload;  // staging threads prefetch small partitions' payload into L1
  uint32_t stage_rows;    // kStageWide launches: rows of each warp's tile stage
  // kDictionary launches: entries of the block's shared-memory copy of a
  // chunk's dictionary, after the warp stages; a chunk with more entries
  // (or any chunk, when 0) is looked up in device memory.
  uint32_t dictionary_stage_entries;
  void* out;
};

/// A partition record and its parameter words, staged in shared memory by
/// the block (one thread per partition) so that the warps decoding its tiles
/// neither repeat the checks nor wait on the loads.
struct StagedPartition {
  DevicePartition d;
  uint64_t params[4];  // spec §8.2 words, ParamCount of them; the rest 0
  // The partition's SLAP geometry (spec §8.5), computed once by the staging
  // thread instead of by every lane of every tile: T full tiles, then a
  // partial tile of m = 32 q + r rows; the field mask and sign bit of w.
  uint64_t mask;
  uint64_t sign;
  uint32_t full_tiles;
  uint32_t partial_q;
  uint32_t partial_r;
};

struct TakeArgs {
  ChunkSet chunks;
  uint64_t window_begin;  // rows of this launch's chunks
  uint64_t window_end;
  uint64_t column_begin;  // rows of the whole column; rows outside get 0
  uint64_t column_end;
  bool write_outside;     // this launch writes the 0 of out-of-column rows
  bool float_order;       // spec §11.2.2: return float bit patterns of the decoded values
  const uint64_t* rows;
  uint64_t num_rows;
  void* out;
};

/// Fills `sp` with partition `p` of chunk `c` (checked by LoadPartition), its
/// parameter words and its SLAP geometry; p >= num_partitions stages a record
/// that is not ok and starts past every row.
template <uint32_t kTypeBits>
__device__ __forceinline__ void StagePartition(const KernelChunk& c, uint32_t p, uint32_t V,
                                               uint32_t tile_rows, StagedPartition* sp) {
  if (p < c.num_partitions) {
    sp->d = LoadPartition<kTypeBits>(c, p);
  } else {
    sp->d = DevicePartition{UINT32_MAX, 0, 0, 0, 0, 0, false};
  }
  const uint32_t count = sp->d.ok ? internal::ParamCount(sp->d.model, sp->d.width) : 0;
#pragma unroll
  for (uint32_t i = 0; i < 4; ++i) {
    sp->params[i] = i < count ? __ldg(c.params + sp->d.param_offset + i) : 0;
  }
  // spec §8.5 geometry: T = floor(n / S), m = n - T*S = 32 q + r.
  sp->full_tiles = sp->d.rows / tile_rows;
  sp->partial_q = internal::SlapLaneRows(sp->d.rows, V, sp->full_tiles, internal::kLanes - 1);
  sp->partial_r = sp->d.rows - sp->full_tiles * tile_rows - sp->partial_q * internal::kLanes;
  sp->mask = internal::LowMask(sp->d.width);
  sp->sign = sp->d.width == 0 ? 0 : uint64_t{1} << (sp->d.width - 1);
}

/// Stores a decoded element of chunk `c` (its dictionary entry, for a
/// dictionary chunk, spec §8.10, in kernels instantiated with kMap) when it
/// lies inside the output range.
template <bool kMap = true, typename U>
__device__ __forceinline__ void StoreChecked(const KernelChunk& c, U* out, int64_t index,
                                             uint64_t range_len, bool active, U value) {
  if (active && index >= 0 && static_cast<uint64_t>(index) < range_len) {
    out[index] = MapCode<kMap>(c, value);
  }
}

/// Width classes of a SLAP partition: no payload (Bit_Width = 0), fields of
/// up to 16 bits (read four at a time from a 64-bit window), up to 32 bits
/// (two at a time), and wider fields (one at a time, 128-bit window).
enum WidthClass : int { kZeroWidth = 0, kNarrow16 = 1, kNarrow32 = 2, kWide = 3 };

/// Fields cut from one 64-bit window: 4 (<= 16 bits), 2 (<= 32 bits) or 1.
/// Grouping matters because the reader's refill check is if-converted and
/// costs its instructions on every read (SASS of the POLY3 loop).
__host__ __device__ constexpr uint32_t FieldsPerRead(int width_class) {
  return width_class == kNarrow16 ? 4 : width_class == kNarrow32 ? 2 : 1;
}

/// The lane's next FieldsPerRead fields (0 for Bit_Width = 0).
template <int kWidthClass, typename Reader>
__device__ __forceinline__ void ReadFields(Reader& reader, uint32_t w, uint64_t mask,
                                           uint64_t (&f)[FieldsPerRead(kWidthClass)]) {
  constexpr int G = static_cast<int>(FieldsPerRead(kWidthClass));
  if constexpr (kWidthClass == kZeroWidth) {
    f[0] = 0;
  } else if constexpr (kWidthClass == kWide) {
    f[0] = reader.Take64(w, mask);
  } else if constexpr (G == 1) {
    f[0] = reader.Take32(w, static_cast<uint32_t>(mask));
  } else {
    uint32_t narrow[G];
    reader.template TakeGroup<G>(w, static_cast<uint32_t>(mask), narrow);
#pragma unroll
    for (int i = 0; i < G; ++i) f[i] = narrow[i];
  }
}

__device__ __forceinline__ int WidthClassOf(uint32_t w) {
  return w == 0 ? kZeroWidth : w <= 16 ? kNarrow16 : w <= 32 ? kNarrow32 : kWide;
}

/// The low 8 * sizeof(U) bits of ToInt(y) (spec §8.4). For types narrower
/// than 64 bits the NaN test of PredictionToInt is not needed on the device:
/// cvt.rni.s64.f64 returns INT64_MIN for NaN where ToInt gives 0, and both
/// have zero low 32 bits (saturation and rounding agree otherwise; checked
/// by gpu_predictor_test).
template <typename U>
__device__ __forceinline__ U PredictionBits(double y) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(U) < 8) return static_cast<U>(__double2ll_rn(y));
#endif
  return static_cast<U>(internal::PredictionToInt(y));
}

/// The per-warp tile stage of kStageWide launches: word k of lane L's run at
/// stage[k * kStagePitch + L]. The pitch is odd, so the copy's 64-bit
/// stores (consecutive k across lanes) are conflict-free, and the lanes'
/// reads (one k, consecutive L) are too.
inline constexpr uint32_t kStagePitch = 33;

/// Words of one warp's stage for fields of up to `max_width` bits: a lane
/// reader loads two words past the lane's last field.
__host__ __device__ constexpr uint32_t StageWordsPerWarp(uint32_t max_width) {
  return (max_width + 2) * kStagePitch;
}

/// Copies a full V = 64 tile of w-bit fields (32 < w <= 64) into the warp's
/// stage. Such a tile is 32 w words, lane L's run the w words from L w
/// (spec §8.5 with V * w a multiple of 64), so the warp reads it in w fully
/// coalesced steps of 32 consecutive words (cp.async, no registers) and
/// scatters each word to its lane's column of the stage.
__device__ __forceinline__ void StageWideTile(const uint64_t* tile_words, uint32_t w,
                                              uint64_t* stage, uint32_t lane) {
  __syncwarp();  // the previous tile's readers are done with the stage
  uint32_t run = 0;   // word lane + 32 j of the tile is word k of lane `run`
  uint32_t k = lane;  // (w > 32: at most one lane boundary per step)
  for (uint32_t j = 0; j < w; ++j) {
    uint64_t* const to = stage + k * kStagePitch + run;
    const uint64_t* const from = tile_words + lane + 32 * j;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(
                     static_cast<uint32_t>(__cvta_generic_to_shared(to))),
                 "l"(from));
#else
    *to = __ldg(from);
#endif
    k += 32;
    if (k >= w) {
      k -= w;
      ++run;
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
  __syncwarp();  // every lane's copies are visible to the whole warp
}

/// One SLAP tile (FOR_BITPACK, LINEAR, POLY2, POLY3; spec §8.3–§8.5).
/// `tile_out` is the output index of the tile's row 0 (negative or past the
/// range at the edges of a range decode). Not inlined: each tile loop then
/// gets its own register allocation instead of sharing one with the span
/// loop and every other model, which spilled inside the loops when inlined
/// (ptxas -v).
///
/// kStaged (wide fields, full tiles, V = 64 only): the lanes read their runs
/// from the warp's shared-memory `stage` (StageWideTile) instead of from
/// global memory.
template <typename U, uint8_t kModel, int kWidthClass, int kV, bool kMap, bool kStaged = false>
__device__ __noinline__ void DecodeSlapTile(const KernelChunk& c, const StagedPartition& sp,
                                            uint32_t tile, int64_t tile_out, uint64_t range_len,
                                            U* __restrict__ out, uint32_t lane,
                                            uint64_t* stage = nullptr) {
  static_assert(!kStaged || (kWidthClass == kWide && kV == 64), "staged: wide fields, V = 64");
  const DevicePartition& d = sp.d;
  constexpr uint8_t kFor = static_cast<uint8_t>(internal::Model::kFor);
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint32_t w = d.width;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t tile_first = uint64_t{tile} * tile_rows;
  // spec §8.5 (layout.hpp SlapLaneRows / SlapLaneBitOffset, with the
  // partition's T, q and r staged): a full tile gives every lane V rows at
  // t*S*w + L*V*w; the partial tile gives lane L q + (L < r) rows at
  // T*S*w + w*(L*q + min(L, r)).
  const bool full = kStaged || tile < sp.full_tiles;
  const uint32_t q = sp.partial_q;
  const uint32_t r = sp.partial_r;
  const uint32_t steps = full ? V : q + (r != 0 ? 1u : 0u);
  const uint32_t lane_rows = full ? V : q + (lane < r ? 1u : 0u);

  LaneBitReader<kStaged ? kStagePitch : 1> reader;
  if constexpr (kStaged) {
    StageWideTile(c.payload + d.word_offset + tile_first * w / 64, w, stage, lane);
    reader.Init(stage + lane, 0);
  } else if constexpr (kWidthClass != kZeroWidth) {
    const uint64_t lane_first = full ? uint64_t{lane} * V : uint64_t{lane} * q + min(lane, r);
    const uint64_t bit = (tile_first + lane_first) * w;
    reader.Init(c.payload + d.word_offset + (bit >> 6), static_cast<uint32_t>(bit & 63));
  }
  const uint64_t mask = sp.mask;
  const uint64_t sign = sp.sign;
  U base = 0;
  internal::LanePredictor<kModel == kFor ? static_cast<uint8_t>(internal::Model::kLinear) : kModel>
      predictor;
  if constexpr (kModel == kFor) {
    base = static_cast<U>(sp.params[0]);  // spec §8.2 Base
  } else {
    double theta[4] = {0, 0, 0, 0};
#pragma unroll
    for (uint32_t i = 0; i < kModel; ++i) {  // LINEAR: 2 words, POLY2: 3, POLY3: 4
      theta[i] = __longlong_as_double(static_cast<long long>(sp.params[i]));
    }
    predictor.Start(theta, static_cast<double>(tile_first + lane));  // X0 = t*S + L
  }

  // spec §8.3: v = (Base + u) mod 2^N, or (pred + r) mod 2^N with r the
  // sign-extended field; U's arithmetic is the mod 2^N. The predictor
  // steps once per value.
  auto value_of = [&](uint64_t f) -> U {
    if constexpr (kModel == kFor) {
      return static_cast<U>(base + static_cast<U>(f));
    } else {
      U residual;
      if constexpr (kWidthClass == kWide) {
        residual = static_cast<U>((f ^ sign) - sign);
      } else {
        const uint32_t s = static_cast<uint32_t>(sign);
        residual = static_cast<U>(
            static_cast<int64_t>(static_cast<int32_t>((static_cast<uint32_t>(f) ^ s) - s)));
      }
      const U prediction = PredictionBits<U>(predictor.value());
      predictor.Advance();
      return static_cast<U>(prediction + residual);
    }
  };
  // The next G fields of the lane (0 for Bit_Width = 0).
  constexpr uint32_t G = FieldsPerRead(kWidthClass);
  const uint64_t rows_here = full ? tile_rows : uint64_t{q} * internal::kLanes + r;
  if (tile_out >= 0 && static_cast<uint64_t>(tile_out) + rows_here <= range_len) {
    // The whole tile lies in the output range (always so in a full decode).
    // With kMap, every store maps a dictionary code to its entry (MapCode,
    // spec §8.10), as StoreChecked does on the checked path.
    U* o = out + tile_out + lane;
    if (full && V % (4 * G) == 0) {
#pragma unroll (4 / G)
      for (uint32_t k = 0; k < V; k += G) {
        uint64_t f[G];
        ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
        for (uint32_t i = 0; i < G; ++i) {
          o[(k + i) * internal::kLanes] = MapCode<kMap>(c, value_of(f[i]));
        }
      }
    } else {
      // Every lane has the first q steps of a partial tile (V of a full
      // one): whole groups of those need no per-step checks, which the
      // sub-tile partitions of high-entropy data (a few steps per lane) pay
      // on every value otherwise.
      const uint32_t common = (full ? V : q) / G * G;
      uint32_t k = 0;
      for (; k < common; k += G) {
        uint64_t f[G];
        ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
        for (uint32_t i = 0; i < G; ++i) {
          o[(k + i) * internal::kLanes] = MapCode<kMap>(c, value_of(f[i]));
        }
      }
      for (; k < steps; k += G) {
        uint64_t f[G];
        ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
        for (uint32_t i = 0; i < G; ++i) {
          if (k + i < steps) {
            const U v = value_of(f[i]);
            if (k + i < lane_rows) o[(k + i) * internal::kLanes] = MapCode<kMap>(c, v);
          }
        }
      }
    }
  } else {
    const int64_t lane_out = tile_out + lane;
    for (uint32_t k = 0; k < steps; k += G) {
      uint64_t f[G];
      ReadFields<kWidthClass>(reader, w, mask, f);
#pragma unroll
      for (uint32_t i = 0; i < G; ++i) {
        if (k + i < steps) {
          const U v = value_of(f[i]);
          StoreChecked<kMap>(c, out, lane_out + int64_t{k + i} * internal::kLanes, range_len,
                       k + i < lane_rows, v);
        }
      }
    }
  }
}

/// A CONSTANT partition's tile (spec §8.3, Bit_Width = 0).
template <typename U, int kV, bool kMap>
__device__ __forceinline__ void DecodeConstantTile(const KernelChunk& c, const StagedPartition& sp,
                                                   uint32_t tile, int64_t tile_out,
                                                   uint64_t range_len, U* __restrict__ out,
                                                   uint32_t lane) {
  const DevicePartition& d = sp.d;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t rows = min(tile_rows, d.rows - uint64_t{tile} * tile_rows);
  const U base = static_cast<U>(sp.params[0]);
  for (uint64_t x = lane; x < rows; x += internal::kLanes) {
    StoreChecked<kMap>(c, out, tile_out + static_cast<int64_t>(x), range_len, true, base);
  }
}

/// OR of `bits` over the warp.
__device__ __forceinline__ uint32_t WarpOr(uint32_t bits) {
#if __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xFFFFFFFFu, bits);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) bits |= __shfl_xor_sync(0xFFFFFFFFu, bits, offset);
  return bits;
#endif
}

/// `v` of lane `src`, for values of up to 64 bits.
template <typename U>
__device__ __forceinline__ U ShuffleValue(U v, int src) {
  if constexpr (sizeof(U) == 8) {
    return static_cast<U>(__shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(v), src));
  } else {
    return static_cast<U>(__shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(v), src));
  }
}

/// The value of row step + lane from a window of 32 runs (lane j holds the
/// start and value of run b + j; the run of row `step` is among them): the
/// runs of the window that began before the step, and the rows of the step
/// where one begins, pick the lane that holds the row's run. Shared by the
/// run decoders of spec §8.7 and §8.11.
template <typename U>
__device__ __forceinline__ U RunWindowValue(uint64_t my_start, U my_value, uint64_t step,
                                            uint32_t lane) {
  const uint32_t before = __popc(__ballot_sync(0xFFFFFFFFu, my_start < step));
  const uint32_t begins =
      WarpOr(my_start >= step && my_start < step + 32 ? 1u << (my_start - step) : 0u);
  const uint32_t count = before + __popc(begins & (0xFFFFFFFFu >> (31 - lane)));
  const int src = static_cast<int>(min(max(count, 1u), 32u) - 1);
  return ShuffleValue(my_value, src);
}

/// A run partition's tile (spec §8.7), by the whole warp.
///
/// The warp keeps a window of 32 runs b .. b+31 in registers: lane j holds
/// the start and the value of run b + j, and every lane knows where run
/// b + 32 starts (window_end). A step of 32 rows that ends before
/// window_end needs no memory access: a ballot counts the window's runs
/// that began before the step, an OR over the lanes marks the rows of the
/// step where a run begins, and each lane takes its run's value from the
/// lane that holds it. The window moves only when a step reaches
/// window_end, to the run of the step's first row; as run starts increase
/// strictly, the next 32 runs then cover the whole step.
///
/// Run starts come from the payload and are untrusted: the window only
/// moves forward and every field index stays in [0, R - 1], so corrupt
/// starts give wrong values, never an access outside the partition or more
/// than R window loads per tile.
template <typename U, int kV, bool kMap>
__device__ __noinline__ void DecodeRunTile(const KernelChunk& c, const StagedPartition& sp,
                                           uint32_t tile, int64_t tile_out, uint64_t range_len,
                                           U* __restrict__ out, uint32_t lane) {
  const DevicePartition& d = sp.d;
  const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
  const uint64_t tile_rows = uint64_t{internal::kLanes} * V;
  const uint64_t lo = uint64_t{tile} * tile_rows;
  const uint64_t hi = min(lo + tile_rows, uint64_t{d.rows});
  const uint32_t w = d.width;
  const uint64_t runs = sp.params[1];  // "Num_Runs", checked: 1 <= R <= n
  const uint32_t pb = internal::RunStartBits(d.rows);
  const uint64_t* words = c.payload + d.word_offset;
  const U base = static_cast<U>(sp.params[0]);
  const uint64_t starts_bit = runs * w;
  constexpr uint64_t kPastEnd = ~uint64_t{0};
  // Start of run i (run 0 starts at row 0).
  auto run_start = [&](uint64_t i) -> uint64_t {
    return i == 0 ? 0 : LoadField(words, starts_bit + (i - 1) * pb, pb);
  };
  // The run of row lo: largest i with start_i <= lo (binary search; run 0
  // for a partition's first tile, which in real columns is often its only one).
  uint64_t b = 0;
  for (uint64_t top = lo == 0 ? 0 : runs - 1; b < top;) {
    const uint64_t mid = b + (top - b + 1) / 2;
    if (run_start(mid) <= lo) {
      b = mid;
    } else {
      top = mid - 1;
    }
  }
  uint64_t my_start = 0;
  U my_value = 0;
  uint64_t window_end = kPastEnd;
  auto load_window = [&]() {
    const uint64_t i = b + lane;
    my_start = i < runs ? run_start(i) : kPastEnd;
    my_value = i < runs ? static_cast<U>(base + static_cast<U>(LoadField(words, i * w, w))) : U{0};
    const uint64_t end = lane == 31 && i + 1 < runs ? run_start(i + 1) : kPastEnd;
    window_end = __shfl_sync(0xFFFFFFFFu, static_cast<unsigned long long>(end), 31);
  };
  load_window();
  for (uint64_t step = lo; step < hi; step += internal::kLanes) {
    while (window_end <= step + 31) {
      // Move the window to the run of row `step`.
      const uint64_t next =
          window_end <= step
              ? b + 32
              : b + __popc(__ballot_sync(0xFFFFFFFFu, my_start <= step)) - 1;
      if (next <= b) break;  // starts that do not increase: decode from this window
      b = min(next, runs - 1);
      load_window();
    }
    const U value = RunWindowValue(my_start, my_value, step, lane);
    StoreChecked<kMap>(c, out, tile_out + static_cast<int64_t>(step - lo + lane), range_len,
                 step + lane < hi, value);
  }
}

}  // namespace l3::cuda::detail

// DELTA (spec §8.9): its tile decoder and random access, beside the model's
// CPU half.
#include "codec/delta/delta_decode.cuh"
// RUNS_EF (spec §8.11): its tile decoder and random access, beside the
// model's CPU half.
#include "codec/runs/runs_ef_decode.cuh"
// PATCHED_FOR (spec §8.12): the FOR tile decoder plus its exceptions, and
// random access, beside the model's CPU half.
#include "codec/patched/patched_for_decode.cuh"

namespace l3::cuda::detail {

template <typename U, uint8_t kModel, int kV, bool kStageWide, bool kMap>
__device__ __forceinline__ void DispatchWidth(const KernelChunk& c, const StagedPartition& d,
                                              uint32_t tile, int64_t tile_out,
                                              uint64_t range_len, U* __restrict__ out,
                                              uint32_t lane, uint64_t* stage,
                                              uint32_t stage_rows) {
  switch (WidthClassOf(d.d.width)) {
    case kZeroWidth:
      DecodeSlapTile<U, kModel, kZeroWidth, kV, kMap>(c, d, tile, tile_out, range_len, out, lane);
      break;
    case kNarrow16:
      DecodeSlapTile<U, kModel, kNarrow16, kV, kMap>(c, d, tile, tile_out, range_len, out,
                                                         lane);
      break;
    case kNarrow32:
      DecodeSlapTile<U, kModel, kNarrow32, kV, kMap>(c, d, tile, tile_out, range_len, out,
                                                         lane);
      break;
    default:
      if constexpr (kStageWide && kV == 64) {
        // The stage was sized for the launch's widest field (a hint): wider
        // fields, and partial tiles, read from global memory.
        if (tile < d.full_tiles && d.d.width + 2u <= stage_rows) {
          DecodeSlapTile<U, kModel, kWide, kV, kMap, true>(c, d, tile, tile_out, range_len, out, lane,
                                                     stage);
          break;
        }
      }
      DecodeSlapTile<U, kModel, kWide, kV, kMap>(c, d, tile, tile_out, range_len, out, lane);
      break;
  }
}

/// kRunsEfStage: `stage` holds RunsEfStageBytes<U>() per warp, and RUNS_EF
/// tiles decode through it (DecodeRowsKernel); else they use the register
/// window (the fused table scan).
template <typename U, int kV, bool kStageWide, bool kDelta, bool kDictionary, bool kRunsEf = false,
          bool kRunsEfStage = false>
__device__ __forceinline__ void DecodeTile(const KernelChunk& c, const StagedPartition& d,
                                           uint32_t tile, int64_t tile_out, uint64_t range_len,
                                           U* __restrict__ out, uint32_t lane, uint64_t* stage,
                                           uint32_t stage_rows) {
  constexpr uint8_t kFor = static_cast<uint8_t>(internal::Model::kFor);
  constexpr uint8_t kLinear = static_cast<uint8_t>(internal::Model::kLinear);
  constexpr uint8_t kPoly2 = static_cast<uint8_t>(internal::Model::kPoly2);
  constexpr uint8_t kPoly3 = static_cast<uint8_t>(internal::Model::kPoly3);
  switch (d.d.model) {
    case kFor:
      DispatchWidth<U, kFor, kV, kStageWide, kDictionary>(c, d, tile, tile_out, range_len, out, lane, stage,
                                            stage_rows);
      break;
    case kLinear:
      DispatchWidth<U, kLinear, kV, kStageWide, kDictionary>(c, d, tile, tile_out, range_len, out, lane, stage,
                                            stage_rows);
      break;
    case kPoly2:
      DispatchWidth<U, kPoly2, kV, kStageWide, kDictionary>(c, d, tile, tile_out, range_len, out, lane, stage,
                                            stage_rows);
      break;
    case kPoly3:
      DispatchWidth<U, kPoly3, kV, kStageWide, kDictionary>(c, d, tile, tile_out, range_len, out, lane, stage,
                                            stage_rows);
      break;
    case static_cast<uint8_t>(internal::Model::kDelta):
      // Only kernels launched for chunks with DELTA partitions (or a
      // dictionary) carry the DELTA decoder (DeviceChunk::delta_rows): its
      // code alone makes the span loop spill, which slows every other model.
      if constexpr (kDelta) {
        DispatchDeltaWidth<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane, stage);
      }
      break;
    case static_cast<uint8_t>(internal::Model::kPatchedFor):
      // Carried by the same kernels as DELTA's decoder (DeviceChunk::delta_rows
      // or patched_for_rows, or a dictionary): the plain kernels keep their
      // span loop as it was. Checked by LoadPartition: the Exceptions word
      // and the payload words of spec §8.12.
      if constexpr (kDelta) {
        DecodePatchedForTile<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane);
      }
      break;
    case static_cast<uint8_t>(internal::Model::kRunsEf):
      // Only kernels launched for chunks with RUNS_EF partitions carry its
      // decoder (DeviceChunk::runs_ef_rows): a call site more in this switch
      // makes the span loop of every other launch spill (ptxas -v), as
      // DELTA's did. Checked by LoadPartition: 2 <= R <= n <= 65536, w >= 1.
      if constexpr (kRunsEf && kRunsEfStage) {
        DecodeRunsEfTileStaged<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane,
                                                   stage);
      } else if constexpr (kRunsEf) {
        DecodeRunsEfTile<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane);
      }
      break;
    default:  // CONSTANT (LoadPartition rejected unknown models)
      if (d.d.width == 0) {
        DecodeConstantTile<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane);
      } else {
        DecodeRunTile<U, kV, kDictionary>(c, d, tile, tile_out, range_len, out, lane);
      }
      break;
  }
}

/// Dynamic shared memory per warp of a DecodeRowsKernel launch without the
/// wide-tile stage: DELTA's stage, RUNS_EF's, or the larger of the two.
template <typename U, bool kDelta, bool kRunsEf>
__host__ __device__ constexpr uint32_t WarpStageBytes() {
  const uint32_t delta = kDelta ? DeltaStageBytes<U>() : 0;
  const uint32_t runs_ef = kRunsEf ? RunsEfStageBytes<U>() : 0;
  return delta > runs_ef ? delta : runs_ef;
}
static_assert(WarpStageBytes<uint8_t, true, true>() % 8 == 0 &&
                  WarpStageBytes<uint16_t, true, true>() % 8 == 0 &&
                  WarpStageBytes<uint32_t, true, true>() % 8 == 0 &&
                  WarpStageBytes<uint64_t, true, true>() % 8 == 0 &&
                  WarpStageBytes<uint8_t, false, true>() % 8 == 0 &&
                  WarpStageBytes<uint64_t, false, true>() % 8 == 0,
              "warp stages are whole 64-bit words");

/// Partitions staged per round (7 KiB of shared memory per block).
inline constexpr uint32_t kStageBatch = 128;

/// Decodes column rows [row_begin, row_end).
///
/// Output rows are cut into spans of span_rows; the warp that owns a span
/// decodes every tile whose first row lies in it (span 0 also the tile that
/// holds row_begin when that tile starts earlier), so each tile is decoded
/// by exactly one warp. A block takes the spans of its warps together: its
/// threads first stage the records and parameters of the block's partitions
/// in shared memory, one thread per partition, and prefetch the block's
/// payload into L2; then each warp decodes its tiles from the staged copies.
/// Small partitions thus cost their warp no dependent metadata loads.
/// Blocks loop over block spans when the grid is smaller (persistent).
/// kStageWide launches carry StageWordsPerWarp(stage_rows - 2) words of
/// dynamic shared memory per warp for StageWideTile, kDelta and kRunsEf
/// launches WarpStageBytes (per warp) for DecodeDeltaTile and
/// DecodeRunsEfTileStaged.
///
/// Registers: DELTA launches without a dictionary get 80 per thread (three
/// 256-thread blocks per SM): their tile decoder spills at 64 and runs 6–50%
/// faster at 80. Those of 32- and 64-bit values that the launcher picks
/// (mostly other models' rows, or 64-bit values in large partitions) get
/// 128 (kMinBlocks = 2), where they spill less (v38). Dictionary launches
/// keep 64, because every store waits on a gather from the entries and more
/// resident warps hide it better, except launches whose dictionary copy
/// leaves two blocks per SM anyway, which kMinBlocks = 2 gives 128
/// (docs/results/gpu-notes.md, v14 and v27).
template <typename U, int kV, bool kStageWide, bool kDelta = false, bool kDictionary = false,
          bool kRunsEf = false, int kMinBlocks = kDelta && !kDictionary ? 3 : 4>
__global__ void __launch_bounds__(256, kMinBlocks) DecodeRowsKernel(const __grid_constant__ DecodeArgs args) {
  static_assert(!(kStageWide && kDelta), "one dynamic stage per launch");
  constexpr uint32_t kTypeBits = 8 * sizeof(U);
  __shared__ StagedPartition staged[kStageBatch];
  extern __shared__ uint64_t wide_stage[];
  __shared__ uint32_t first_partition;
  __shared__ bool more_partitions;
  // kDictionary launches: the record of the chunk being decoded, whose
  // dictionary points at the block's copy of the entries when they fit
  // (DecodeArgs::dictionary_stage_entries), so that each code is a shared
  // load instead of a gather from L2. Tiles read the chunk from here.
  __shared__ KernelChunk block_chunk;
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint64_t range_len = args.row_end - args.row_begin;
  const uint64_t block_rows = uint64_t{blockDim.x / 32} * args.span_rows;
  U* const out = static_cast<U*>(args.out);
  // Dynamic shared memory: the wide-tile stage of kStageWide launches, or
  // the DELTA and RUNS_EF stages (WarpStageBytes per warp) of kDelta and
  // kRunsEf launches.
  constexpr uint32_t kWarpStageWords = WarpStageBytes<U, kDelta, kRunsEf>() / sizeof(uint64_t);
  uint64_t* const warp_stage =
      kStageWide             ? wide_stage + uint64_t{warp} * args.stage_rows * kStagePitch
      : kWarpStageWords != 0 ? wide_stage + uint64_t{warp} * kWarpStageWords
                             : nullptr;
  U* const dictionary_stage =
      reinterpret_cast<U*>(wide_stage + uint64_t{blockDim.x / 32} * kWarpStageWords);
  // The chunk whose entries the block's copy holds (the same in every
  // thread: the block walks its spans, and their chunks, in step).
  uint32_t staged_dictionary_chunk = ~0u;

  for (uint64_t bspan = blockIdx.x; bspan < args.num_block_spans; bspan += gridDim.x) {
    const uint64_t bs = args.row_begin + bspan * block_rows;
    const uint64_t be = min(bs + block_rows, args.row_end);
    const uint64_t ws = min(bs + uint64_t{warp} * args.span_rows, be);  // this warp's span
    const uint64_t we = min(ws + args.span_rows, be);
    for (uint32_t ci = FindChunk(args.chunks, bs); ci < args.chunks.count; ++ci) {
      const KernelChunk& chunk = args.chunks.chunk[ci];
      if (chunk.first_row >= be) break;
      const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : chunk.values_per_lane;
      const uint32_t tile_rows = internal::kLanes * V;
      // Partitions cover elements (spec §8.10): a dictionary chunk's row r
      // is element D + r, so its row 0 may lie inside a tile.
      // Only kDictionary kernels see dictionary chunks (the launcher picks
      // them); the others keep the plain row arithmetic below, whose `out`
      // and range_len stay kernel parameters instead of registers live
      // across the tile loop (the span loop spills more otherwise).
      const uint32_t dict = kDictionary ? chunk.dictionary_entries : 0;
      const uint64_t chunk_end = chunk.first_row + (chunk.num_rows - dict);
      // Chunk-local element bounds of the block's and the warp's spans
      // (elements fit in 32 bits, spec §7.2, §8.10).
      auto local = [&](uint64_t row) {
        return static_cast<uint32_t>(min(max(row, chunk.first_row), chunk_end) - chunk.first_row) +
               dict;
      };
      const uint32_t ls = local(bs);
      const uint32_t le = local(be);
      if (ls >= le) continue;
      const uint32_t wls = local(ws);
      const uint32_t wle = local(we);
      // The warp whose span holds the chunk's first row in this launch also
      // decodes the tile that row lies in when the tile starts earlier: the
      // tile of row_begin, or of a dictionary chunk's row 0. Without a
      // dictionary only row_begin can lie inside a tile: span 0 owns it.
      const uint64_t head_row = max(chunk.first_row, args.row_begin);
      const bool owns_head = kDictionary ? ws <= head_row && head_row < we
                                                : bspan == 0 && warp == 0 &&
                                                      chunk.first_row <= args.row_begin;
      // Output index of element e: chunk_out + e. With a dictionary, the
      // chunk's outputs start at out_lo and elements before it (rows before
      // row_begin, or the entries in a tile of codes) are never stored,
      // because the tiles see `out` from out_lo on.
      const int64_t first_out =
          static_cast<int64_t>(chunk.first_row) - static_cast<int64_t>(args.row_begin);
      const int64_t out_lo = kDictionary ? max(first_out, int64_t{0}) : 0;
      const int64_t chunk_out = first_out - dict - out_lo;
      U* const chunk_dst = kDictionary ? out + out_lo : out;
      const uint64_t chunk_range =
          kDictionary ? range_len - static_cast<uint64_t>(out_lo) : range_len;

      __syncthreads();  // the previous round's readers are done with the stage
      if constexpr (kDictionary) {
        // spec §8.10 entries: copied once per chunk a block meets, not per
        // span (the launcher caps the grid at the resident blocks, so each
        // block walks many spans). Visible after the barrier below.
        const bool fits = chunk.dictionary != nullptr && chunk.dictionary_entries != 0 &&
                          chunk.dictionary_entries <= args.dictionary_stage_entries;
        if (fits && staged_dictionary_chunk != ci) {
          const U* entries = static_cast<const U*>(chunk.dictionary);
          for (uint32_t i = threadIdx.x; i < chunk.dictionary_entries; i += blockDim.x) {
            dictionary_stage[i] = __ldg(entries + i);
          }
          staged_dictionary_chunk = ci;
        }
        if (threadIdx.x == 0) {
          block_chunk = chunk;
          if (fits) block_chunk.dictionary = dictionary_stage;
        }
      }
      if (warp == 0) {
        const uint32_t p = WarpFindPartition(chunk, ls, lane);
        if (lane == 0) first_partition = p;
      }
      __syncthreads();
      const KernelChunk& c = kDictionary ? block_chunk : chunk;
      for (uint32_t pb = first_partition;; pb += kStageBatch) {
        for (uint32_t t = threadIdx.x; t < kStageBatch; t += blockDim.x) {
          StagedPartition& sp = staged[t];
          StagePartition<kTypeBits>(chunk, pb + t, V, tile_rows, &sp);
          // A partition smaller than a tile is one short setup and a few
          // steps per lane, so the first payload loads of its warp would sit
          // on the critical path: start them now, into this SM's L1.
          if (args.prefetch_payload && sp.d.ok && sp.d.first < le && sp.d.rows < tile_rows &&
              internal::IsSlapModel(sp.d.model)) {
            const uint64_t* words = chunk.payload + sp.d.word_offset;
            const uint64_t bytes = internal::SlapPayloadWords(sp.d.rows, sp.d.width) * 8;
            for (uint64_t b = 0; b < bytes && b < 1024; b += 128) PrefetchL1(words + b / 8);
          }
        }
        if (threadIdx.x == 0) {
          const uint32_t next = pb + kStageBatch;
          more_partitions = next < chunk.num_partitions && __ldg(&chunk.table[next].x) < le;
        }
        __syncthreads();
        if (wls < wle) {
          // The first staged partition that may own a tile of this warp's
          // span: the last one starting at or before wls.
          uint32_t lo = 0;
          uint32_t hi = kStageBatch;
          while (hi - lo > 1) {
            const uint32_t mid = (lo + hi) / 2;
            if (staged[mid].d.first <= wls) {
              lo = mid;
            } else {
              hi = mid;
            }
          }
          for (uint32_t j = lo; j < kStageBatch; ++j) {
            const StagedPartition& sp = staged[j];
            const DevicePartition& d = sp.d;
            if (d.first >= wle) break;
            if (!d.ok) continue;
            uint32_t tile = 0;
            if (d.first < wls) {
              const uint32_t into = wls - d.first;
              tile = owns_head ? into / tile_rows : into / tile_rows + (into % tile_rows != 0);
            }
            // Tiles of this partition that start before the span's end.
            const uint32_t tiles_in_span = (wle - d.first + tile_rows - 1) / tile_rows;
            const uint32_t tiles = min((d.rows - 1) / tile_rows + 1, tiles_in_span);
            const int64_t part_out = chunk_out + d.first;
            for (; tile < tiles; ++tile) {
              DecodeTile<U, kV, kStageWide, kDelta, kDictionary, kRunsEf, kRunsEf>(c, sp, tile, part_out + int64_t{tile} * tile_rows,
                                            chunk_range, chunk_dst, lane, warp_stage,
                                            args.stage_rows);
            }
          }
        }
        const bool more = more_partitions;
        __syncthreads();  // everyone has read the stage before it is refilled
        if (!more) break;
      }
    }
  }
}

/// One value of local row x of a checked partition (spec §8.3), computed
/// from scratch: the canonical predictor replays the lane's recurrence
/// (PredictRow), so random access equals full decoding bit for bit.
template <typename U>
__device__ __forceinline__ U DecodeOne(const KernelChunk& c, const DevicePartition& d, uint64_t x) {
  const uint64_t* words = c.payload + d.word_offset;
  const uint32_t w = d.width;
  if (d.model == static_cast<uint8_t>(internal::Model::kConstant)) {
    const U base = static_cast<U>(__ldg(c.params + d.param_offset));
    if (w == 0) return base;
    const uint64_t runs = __ldg(c.params + d.param_offset + 1);
    const uint32_t pb = internal::RunStartBits(d.rows);
    uint64_t a = 0;
    uint64_t b = runs - 1;
    while (a < b) {  // spec §8.7: run max{i : start_i <= x}
      const uint64_t mid = a + (b - a + 1) / 2;
      if (LoadField(words, runs * w + (mid - 1) * pb, pb) <= x) {
        a = mid;
      } else {
        b = mid - 1;
      }
    }
    return static_cast<U>(base + static_cast<U>(LoadField(words, a * w, w)));
  }
  if (d.model == static_cast<uint8_t>(internal::Model::kDelta)) return DecodeDeltaOne<U>(c, d, x);
  if (d.model == static_cast<uint8_t>(internal::Model::kRunsEf)) return DecodeRunsEfOne<U>(c, d, x);
  if (d.model == static_cast<uint8_t>(internal::Model::kPatchedFor)) {
    return DecodePatchedForOne<U>(c, d, x);
  }
  const uint64_t field =
      LoadField(words, internal::SlapFieldBitOffset(d.rows, w, c.values_per_lane, x), w);
  if (d.model == static_cast<uint8_t>(internal::Model::kFor)) {
    return static_cast<U>(static_cast<U>(__ldg(c.params + d.param_offset)) + static_cast<U>(field));
  }
  double theta[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < internal::ParamCount(d.model, w); ++i) theta[i] = ThetaAt(c, d, i);
  const int64_t prediction = internal::PredictRow(d.model, theta, x, c.values_per_lane);
  return static_cast<U>(static_cast<U>(prediction) +
                        static_cast<U>(internal::SignExtend(field, w)));
}

/// out[i] = value of column row rows[i] (one thread per query).
template <typename U>
__global__ void __launch_bounds__(256) TakeKernel(const __grid_constant__ TakeArgs args) {
  constexpr uint32_t kTypeBits = 8 * sizeof(U);
  U* const out = static_cast<U*>(args.out);
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < args.num_rows;
       i += stride) {
    const uint64_t row = __ldg(args.rows + i);
    if (row < args.column_begin || row >= args.column_end) {
      if (args.write_outside) out[i] = 0;
      continue;
    }
    if (row < args.window_begin || row >= args.window_end) continue;
    const KernelChunk& c = args.chunks.chunk[FindChunk(args.chunks, row)];
    // spec §8.10: row `local` is element D + local of a dictionary chunk.
    const uint64_t local = row - c.first_row + c.dictionary_entries;
    U value = 0;
    if (local < c.num_rows) {
      const DevicePartition d =
          LoadPartition<kTypeBits>(c, FindPartition(c, static_cast<uint32_t>(local)));
      if (d.ok && local >= d.first && local - d.first < d.rows) {
        value = MapCode(c, DecodeOne<U>(c, d, local - d.first));
        if (args.float_order) value = internal::FloatBitsFromOrdered(value);
      }
    }
    out[i] = value;
  }
}

/// spec §11.2.2 on decoded values in place: the float bit patterns of the
/// integer form's u (a pass after the integer decoder of a float chunk).
template <typename U>
__global__ void __launch_bounds__(256) FloatFromOrderedKernel(U* values, uint64_t count) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    values[i] = internal::FloatBitsFromOrdered(values[i]);
  }
}

}  // namespace l3::cuda::detail
