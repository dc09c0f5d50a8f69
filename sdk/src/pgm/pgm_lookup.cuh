// The PGM learned index (spec §11.3), the CUDA half of the lookup: the
// prediction of §11.3.3 computed exactly as pgm_lookup.cpp computes it on the
// CPU, and the batched lower-bound kernels: one thread per key for keys in
// the caller's order, one warp per 32 keys grouped by value (a shared window
// of decoded rows, PgmLowerBoundGroupedKernel). Both read the index's
// segments from shared memory when all of a launch's fit (PgmStage), else
// through the read-only cache. Included by the
// CUDA backend's pgm_api.cu after kernels/decode_kernels.cuh, whose random
// access (FindPartition, LoadPartition, DecodeOne) it uses.
//
// Per key: the leaf segment by bisection over "segment_keys", the binary64
// prediction, then a bisection over the rows of the window [lo, hi), each row
// decoded by random access from the compressed partitions (the partition of
// the previous probe is reused while it holds the row). The answer is checked
// against its neighbours as the CPU reader checks it (pgm_reader.cpp), and a
// window that misses falls back to a bisection of the whole chunk, so that a
// corrupt index costs time, never a wrong row or an access outside the
// buffers. Every step matches the CPU reader's, so both return the same row
// for any bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace l3::cuda::detail {

/// One chunk's leaf level as the lookup kernel sees it (from a DevicePgmChunk).
struct KernelPgm {
  const uint64_t* keys;        // "segment_keys", ordered keys (§11.3.1), all levels
  const float* slopes;         // "segment_slopes"
  const uint64_t* intercepts;  // "segment_intercepts"
  uint64_t num_keys;           // "num_keys" = the chunk's num_rows
  uint64_t max_key;            // ordered key of the chunk maximum, when has_max
  uint32_t num_segments;       // leaf segments
  uint32_t epsilon;            // "epsilon"
  uint32_t has_max;
  uint32_t epsilon_recursive;  // "epsilon_recursive"
  uint32_t num_levels;         // levels on the device (1: the leaf only)
  uint32_t level_offsets[::l3::cuda::kMaxDevicePgmLevels + 1];  // "level_offsets"
  uint32_t stage_offset;       // its first segment in the block's PgmStage, when staged
};

struct PgmSet {
  KernelPgm pgm[kMaxLaunchChunks];
  uint32_t staged;  // 1: the segments of every level of every chunk fit in a PgmStage
};

/// Segments (all levels of all chunks of a launch) that a block copies to
/// shared memory when they fit: 10 KiB.
inline constexpr uint32_t kPgmStageSegments = ::l3::cuda::kPgmSharedSegments;

struct PgmStage {
  uint64_t keys[kPgmStageSegments];
  uint64_t intercepts[kPgmStageSegments];
  float slopes[kPgmStageSegments];
};

/// One chunk's segments as a lookup reads them: from the block's shared
/// stage when the launch's segments fit there, else from device memory.
struct PgmView {
  const KernelPgm& g;
  const PgmStage* stage;  // null: device memory

  __device__ __forceinline__ uint64_t Key(uint32_t s) const {
    return stage != nullptr ? stage->keys[g.stage_offset + s] : __ldg(g.keys + s);
  }
  __device__ __forceinline__ float Slope(uint32_t s) const {
    return stage != nullptr ? stage->slopes[g.stage_offset + s] : __ldg(g.slopes + s);
  }
  __device__ __forceinline__ uint64_t Intercept(uint32_t s) const {
    return stage != nullptr ? stage->intercepts[g.stage_offset + s] : __ldg(g.intercepts + s);
  }
};

/// rows[i] of a launch over chunks [first, first + count) of the column.
/// Launches go chunk group by chunk group: a key answered by an earlier group
/// is skipped, and the last group writes `column_end` for keys no chunk
/// answers.
struct LowerBoundArgs {
  ChunkSet chunks;
  PgmSet pgms;
  const uint32_t* order;  // when not null, thread slot i searches key order[i]
  const uint64_t* keys;
  uint64_t* rows;
  uint64_t num_keys;
  uint64_t column_end;  // the row after the last chunk
  uint32_t is_signed;
  uint32_t first_group;
  uint32_t last_group;
};

/// A row not yet answered by the chunk groups launched so far.
inline constexpr uint64_t kPendingRow = ~uint64_t{0};

/// spec §11.3.1: the ordered key of a canonical value.
__device__ __forceinline__ uint64_t OrderedKey(uint64_t canonical, bool is_signed) {
  return is_signed ? canonical ^ (uint64_t{1} << 63) : canonical;
}

/// spec §11.3.3: the search window [lo, hi] of ordered key x. Identical to
/// internal::PgmPredict: the same bisection, the widened slope times the key
/// distance rounded to binary64, truncation, and the same clamps. Indexes are
/// validated on the host; the clamps keep a window inside [0, n] whatever the
/// device memory holds.
/// spec §11.3.3 for segment s of a level of `n` positions whose segments are
/// [level_begin, level_end): the predicted position p, clamped as the spec
/// says, and the window [lo, hi] around it.
__device__ __forceinline__ void PredictFrom(const PgmView& g, uint32_t s, uint32_t level_end,
                                            uint64_t x, uint64_t n, uint64_t eps, uint64_t* lo,
                                            uint64_t* hi) {
  const double t = __dmul_rn(static_cast<double>(g.Slope(s)), __ull2double_rn(x - g.Key(s)));
  const uint64_t base = g.Intercept(s);
  uint64_t p = n;
  if (t < 18446744073709551616.0) {
    const uint64_t f = __double2ull_rz(t);
    if (base <= n && f < n - base) p = base + f;
  }
  const uint64_t cap = s + 1 < level_end ? g.Intercept(s + 1) : n;
  p = min(p, min(cap, n));
  *lo = p > eps ? p - eps : 0;
  *hi = n - p > eps + 2 ? p + eps + 2 : n;
}

/// The first of keys[begin, end) that is > x (upper bound), by bisection.
__device__ __forceinline__ uint32_t UpperBound(const PgmView& g, uint32_t begin, uint32_t end,
                                               uint64_t x) {
  while (begin < end) {
    const uint32_t mid = begin + (end - begin) / 2;
    if (g.Key(mid) <= x) {
      begin = mid + 1;
    } else {
      end = mid;
    }
  }
  return begin;
}

/// The last leaf segment whose key is <= x (x >= the first key). The spec
/// lets a reader find it by bisection over the leaf or by descending the
/// upper levels (§11.3.3); both give the same segment. This descends: each
/// upper segment predicts a window of the level below (epsilon_recursive),
/// searched by bisection and checked, so that upper levels that lie cost a
/// bisection of that level, never a wrong segment.
__device__ __forceinline__ uint32_t LeafSegment(const PgmView& g, uint64_t x) {
  const uint32_t levels = g.g.num_levels;
  const uint32_t* level_offsets = g.g.level_offsets;
  if (levels < 2) return UpperBound(g, 0, g.g.num_segments, x) - 1;
  uint32_t s = level_offsets[levels - 1];  // the top level's one segment
  for (uint32_t l = levels - 1; l >= 1; --l) {
    const uint32_t below = level_offsets[l - 1];
    const uint32_t below_end = level_offsets[l];
    const uint64_t n = below_end - below;
    uint64_t lo = 0, hi = 0;
    PredictFrom(g, s, level_offsets[l + 1], x, n, g.g.epsilon_recursive, &lo, &hi);
    // The window holds the lower bound of x among the keys below, so their
    // upper bound lies in [lo, hi + 1].
    uint32_t u = UpperBound(g, below + static_cast<uint32_t>(lo),
                            below + static_cast<uint32_t>(min(hi + 1, n)), x);
    const bool ok = u > below && g.Key(u - 1) <= x && (u == below_end || g.Key(u) > x);
    if (!ok) u = UpperBound(g, below, below_end, x);
    // Only an upper level that lies about its first key leaves u == below:
    // then the leaf, whose first key is <= x, is bisected.
    if (u == below) return UpperBound(g, 0, g.g.num_segments, x) - 1;
    s = u - 1;
  }
  return s;
}

__device__ __forceinline__ void PgmWindow(const PgmView& g, uint64_t x, uint64_t* lo,
                                          uint64_t* hi) {
  if (g.g.num_segments == 0 || x < g.Key(0)) {
    *lo = 0;
    *hi = 0;
    return;
  }
  const uint32_t s = LeafSegment(g, x);
  PredictFrom(g, s, g.g.num_segments, x, g.g.num_keys, g.g.epsilon, lo, hi);
}

/// The ordered key of a decoded value of the column's type.
template <typename U>
__device__ __forceinline__ uint64_t OrderedKeyOf(U value, bool is_signed) {
  return OrderedKey(internal::CanonicalExtend(static_cast<uint64_t>(value), 8 * sizeof(U), is_signed),
                    is_signed);
}

/// Ordered keys of chunk rows by random access, keeping the partition of the
/// last row asked for.
template <typename U>
class ChunkKeys {
 public:
  __device__ __forceinline__ ChunkKeys(const KernelChunk& c, bool is_signed)
      : c_(c), is_signed_(is_signed) {
    part_.ok = false;
  }

  /// The partition holding chunk row r (< num_rows), checked.
  __device__ __forceinline__ const DevicePartition& PartitionOf(uint64_t r) {
    constexpr uint32_t kBits = 8 * sizeof(U);
    if (!part_.ok || r < part_.first || r - part_.first >= part_.rows) {
      part_ = LoadPartition<kBits>(c_, FindPartition(c_, static_cast<uint32_t>(r)));
    }
    return part_;
  }

  /// The ordered key of chunk row r (< num_rows); rows of a partition that
  /// failed its checks read as 0, as Take does.
  __device__ __forceinline__ uint64_t operator()(uint64_t r) {
    const DevicePartition& d = PartitionOf(r);
    U value = 0;
    if (d.ok && r >= d.first && r - d.first < d.rows) value = DecodeOne<U>(c_, d, r - d.first);
    return Ordered(value);
  }

  __device__ __forceinline__ uint64_t Ordered(U value) const {
    return OrderedKeyOf(value, is_signed_);
  }

 private:
  const KernelChunk& c_;
  bool is_signed_;
  DevicePartition part_;
};

/// Values of consecutive rows of a checked DELTA partition (spec §8.9),
/// walking forward from a known row: each of the K running sums adds the one
/// above it (a_{K-1} adds Delta_Base + u(j)), v(j) = a_0(j), restarting
/// from the tile's Seed words at the first row of tile t, which is the
/// spec's sum term for term. A random access costs a scan of its tile; a
/// window of rows then costs one field per row.
template <typename U>
class DeltaCursor {
 public:
  /// Positioned before partition row `x`: on row x - 1, or before row 0.
  __device__ __forceinline__ DeltaCursor(const KernelChunk& c, const DevicePartition& d, uint64_t x)
      : words_(c.payload + d.word_offset),
        n_(d.rows),
        w_(d.width),
        v_(c.values_per_lane),
        base_(static_cast<U>(__ldg(c.params + d.param_offset))),
        order_(internal::UnpackDeltaExceptions(__ldg(c.params + d.param_offset + 1)).order),
        exceptions_(words_ + internal::DeltaSeedWords(d.rows, c.values_per_lane, order_), d.rows,
                    d.width, __ldg(c.params + d.param_offset + 1)) {
    next_ = x;
    uint64_t sums[internal::kMaxDeltaOrder] = {0, 0, 0};
    if (x > 0 && order_ > 1) {
      DeltaSumsAt(c, d, order_, x - 1, sums);
    } else if (x > 0) {
      sums[0] = DecodeDeltaOne<U>(c, d, x - 1);
    }
#pragma unroll
    for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) {
      sums_[level] = static_cast<U>(sums[level]);
    }
    value_ = sums_[0];
    exception_ = exceptions_.count == 0 ? 0 : exceptions_.LowerBound(x);
    // spec §8.5 geometry, once: V is a power of two, so a row's tile, lane
    // and step are shifts and masks.
    log2_v_ = static_cast<uint32_t>(__ffs(static_cast<int>(v_)) - 1);
    tile_shift_ = 5 + log2_v_;
    full_tiles_ = n_ >> tile_shift_;
    const uint64_t m = n_ - (full_tiles_ << tile_shift_);
    partial_q_ = m >> 5;
    partial_r_ = static_cast<uint32_t>(m & 31);
  }

  /// SlapFieldBitOffset(n, w, V, j) without divisions.
  __device__ __forceinline__ uint64_t FieldBit(uint64_t j) const {
    const uint64_t t = j >> tile_shift_;
    const uint64_t in_tile = j & ((uint64_t{1} << tile_shift_) - 1);
    const uint64_t lane = in_tile & 31;
    const uint64_t step = in_tile >> 5;
    const uint64_t tile_base = (t << tile_shift_) * w_;
    if (t < full_tiles_) return tile_base + ((lane << log2_v_) + step) * w_;
    return tile_base + w_ * (lane * partial_q_ + min(lane, uint64_t{partial_r_}) + step);
  }

  /// Moves to partition row `target` (>= the next row, < n) and returns its value.
  __device__ __forceinline__ U AdvanceTo(uint64_t target) {
    const uint64_t* stream = exceptions_.stream;
    const uint64_t tile_mask = (uint64_t{1} << tile_shift_) - 1;
    for (uint64_t j = next_; j <= target; ++j) {
      if ((j & tile_mask) == 0) {
#pragma unroll
        for (uint32_t level = 0; level < internal::kMaxDeltaOrder; ++level) {
          if (level < order_) {
            sums_[level] = static_cast<U>(__ldg(words_ + (j >> tile_shift_) * order_ + level));
          }
        }
      }
      U u = w_ == 0 ? U{0} : static_cast<U>(LoadField(stream, FieldBit(j), w_));
      if (exception_ < exceptions_.count && exceptions_.Row(exception_) == j) {
        if (w_ < 64) u = static_cast<U>(u + static_cast<U>(exceptions_.High(exception_) << w_));
        ++exception_;
      }
      U term = static_cast<U>(base_ + u);
#pragma unroll
      for (int level = internal::kMaxDeltaOrder - 1; level >= 0; --level) {
        if (level < static_cast<int>(order_)) {
          term = sums_[level] = static_cast<U>(sums_[level] + term);
        }
      }
    }
    value_ = sums_[0];
    next_ = target + 1;
    return value_;
  }

  /// The value of the row before the next one (valid once a row was reached
  /// or when constructed for x > 0).
  __device__ __forceinline__ U value() const { return value_; }
  __device__ __forceinline__ uint64_t next() const { return next_; }

 private:
  const uint64_t* words_;
  uint64_t n_;
  uint32_t w_;
  uint32_t v_;
  U base_;
  uint32_t order_;  // K
  DeltaExceptionList exceptions_;
  uint64_t next_;       // the next row AdvanceTo reads
  U value_;             // v(next_ - 1)
  U sums_[internal::kMaxDeltaOrder];  // a_0 .. a_{K-1} at row next_ - 1
  uint32_t exception_;  // the first exception whose row is >= next_
  uint32_t log2_v_;
  uint32_t tile_shift_;  // log2(32 V)
  uint64_t full_tiles_;
  uint64_t partial_q_;
  uint32_t partial_r_;
};

/// The first row of [a, b) whose key(row) is >= x, or b, by bisection (the
/// midpoint a + (b - a) / 2, as the CPU reader takes it).
template <typename Key>
__device__ __forceinline__ uint64_t FirstNotBelow(Key& key, uint64_t a, uint64_t b, uint64_t x) {
  while (a < b) {
    const uint64_t mid = a + (b - a) / 2;
    if (key(mid) < x) {
      a = mid + 1;
    } else {
      b = mid;
    }
  }
  return a;
}

/// The first row of the chunk whose ordered key is >= x, or num_rows: the
/// steps of pgm_reader.cpp's ChunkSearch::LowerBound.
template <typename U>
__device__ __forceinline__ uint64_t ChunkLowerBound(const KernelChunk& c, const PgmView& g,
                                                    uint64_t x, bool is_signed) {
  const uint64_t n = c.num_rows;
  ChunkKeys<U> key(c, is_signed);
  uint64_t lo = 0, hi = 0;
  PgmWindow(g, x, &lo, &hi);
  lo = min(lo, n);
  hi = min(max(hi, lo), n);
  uint64_t a = lo, b = hi;
  const DevicePartition d = lo < hi ? key.PartitionOf(lo) : DevicePartition{};
  if (lo < hi && d.ok && d.model == static_cast<uint8_t>(internal::Model::kDelta) && lo >= d.first &&
      hi - d.first <= d.rows) {
    // DELTA: the same bisection, with every probe reached by walking forward
    // from the row before `a` (a checkpoint kept as the bisection moves
    // right) instead of a scan of the tile per probe.
    DeltaCursor<U> checkpoint(c, d, lo - d.first);
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      DeltaCursor<U> probe = checkpoint;
      if (key.Ordered(probe.AdvanceTo(mid - d.first)) < x) {
        a = mid + 1;
        checkpoint = probe;
      } else {
        b = mid;
      }
    }
    // Neighbours: row a - 1 is the checkpoint's row when it lies in the
    // partition; row a is one step further.
    const bool left_ok =
        a == 0 || (a > d.first ? key.Ordered(checkpoint.value()) < x : key(a - 1) < x);
    bool right_ok = a == n;
    if (!right_ok) {
      right_ok = a - d.first < d.rows ? key.Ordered(checkpoint.AdvanceTo(a - d.first)) >= x
                                      : key(a) >= x;
    }
    if (left_ok && right_ok) return a;
  } else {
    a = FirstNotBelow(key, a, b, x);
    const bool left_ok = a == 0 || key(a - 1) < x;
    const bool right_ok = a == n || key(a) >= x;
    if (left_ok && right_ok) return a;
  }
  // The window missed (a corrupt index): bisection over the chunk.
  return FirstNotBelow(key, 0, n, x);
}

/// Copies the segments of every level of every chunk of the launch into the
/// block's shared stage when the host found that they fit (PgmSet::staged);
/// every thread of the block calls it, before any lookup. Returns the stage,
/// or null when the lookups read device memory.
__device__ __forceinline__ const PgmStage* StagePgmSegments(const LowerBoundArgs& args,
                                                           PgmStage* stage) {
  if (!args.pgms.staged) return nullptr;
  for (uint32_t k = 0; k < args.chunks.count; ++k) {
    const KernelPgm& g = args.pgms.pgm[k];
    const uint32_t count = g.level_offsets[g.num_levels];  // host-checked to fit
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) {
      stage->keys[g.stage_offset + i] = __ldg(g.keys + i);
      stage->intercepts[g.stage_offset + i] = __ldg(g.intercepts + i);
      stage->slopes[g.stage_offset + i] = __ldg(g.slopes + i);
    }
  }
  __syncthreads();
  return stage;
}

template <typename U>
__global__ void __launch_bounds__(256) PgmLowerBoundKernel(const __grid_constant__ LowerBoundArgs args) {
  __shared__ PgmStage stage_memory;
  const PgmStage* stage = StagePgmSegments(args, &stage_memory);
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  const bool is_signed = args.is_signed != 0;
  for (uint64_t slot = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; slot < args.num_keys;
       slot += stride) {
    const uint64_t i = args.order != nullptr ? __ldg(args.order + slot) : slot;
    if (i >= args.num_keys) continue;  // only if the order buffer was overwritten
    if (!args.first_group && args.rows[i] != kPendingRow) continue;
    const uint64_t x = OrderedKey(__ldg(args.keys + i), is_signed);
    uint64_t row = kPendingRow;
    for (uint32_t k = 0; k < args.chunks.count; ++k) {
      const KernelPgm& g = args.pgms.pgm[k];
      const PgmView view{g, stage};
      const KernelChunk& c = args.chunks.chunk[k];
      // Chunks are each sorted: skip one whose maximum is below the key.
      // Statistics are checked by deep validation only (spec §10.3), so, as
      // in Reader::LowerBound, the chunk's last row must confirm them: wrong
      // statistics cost one row, never a wrong answer.
      if (g.has_max && g.max_key < x && c.num_rows > 0) {
        ChunkKeys<U> key(c, is_signed);
        if (key(c.num_rows - 1) < x) continue;
      }
      const uint64_t r = ChunkLowerBound<U>(c, view, x, is_signed);
      if (r < c.num_rows) {
        row = c.first_row + r;
        break;
      }
    }
    if (row == kPendingRow && args.last_group) row = args.column_end;
    args.rows[i] = row;
  }
}

/// Grouped lookups (keys sorted by value bucket first, LowerBound with
/// temporary storage): neighbouring keys search neighbouring rows, so a warp
/// decodes the rows its 32 keys' windows cover once, into shared memory, and
/// each lane bisects its own window there. The bisection, its midpoints, the
/// neighbour checks and the fallback are ChunkLowerBound's, on the same
/// values (random access and WarpDecodeDeltaRows agree), so both kernels
/// return the same row for every key.
inline constexpr uint32_t kGroupedBlockThreads = 256;
/// Rows of one warp's shared-memory window: a round answers the lanes whose
/// rows [lo - 1, hi] fit in kGroupedWindowRows rows from the lowest lo.
inline constexpr uint32_t kGroupedWindowRows = 512;

/// Ordered key of every chunk's last row (kPendingRow for an empty chunk),
/// once per launch: the confirmation of a chunk maximum below the key (see
/// PgmLowerBoundKernel) then costs one load per key.
template <typename U>
__global__ void PgmLastKeysKernel(const __grid_constant__ ChunkSet chunks, uint32_t is_signed,
                                  uint64_t* last_keys) {
  const uint32_t k = threadIdx.x;
  if (k >= chunks.count) return;
  const KernelChunk& c = chunks.chunk[k];
  uint64_t key = kPendingRow;
  if (c.num_rows > 0) {
    ChunkKeys<U> keys(c, is_signed != 0);
    key = keys(c.num_rows - 1);
  }
  last_keys[k] = key;
}

/// Chunk rows [a, b) (b <= num_rows) by the whole warp into out[0, b - a),
/// as ChunkKeys reads them: DELTA partitions by WarpDecodeDeltaRows, RUNS_EF
/// by WarpDecodeRunsEfRows (one pass over H, not one per row), other
/// models row by row (lane L the rows a + L + 32 k), and rows of a partition
/// that fails its checks as 0.
template <typename U>
__device__ __forceinline__ void WarpDecodeChunkRows(const KernelChunk& c, uint64_t a, uint64_t b,
                                                    U* out, uint32_t lane) {
  constexpr uint32_t kBits = 8 * sizeof(U);
  uint64_t row = a;
  while (row < b) {
    const DevicePartition d =
        LoadPartition<kBits>(c, FindPartition(c, static_cast<uint32_t>(row)));
    if (!d.ok || row < d.first || row - d.first >= d.rows) {
      if (lane == 0) out[row - a] = U{0};
      ++row;
      continue;
    }
    const uint64_t end = min(b, uint64_t{d.first} + d.rows);
    if (d.model == static_cast<uint8_t>(internal::Model::kDelta)) {
      WarpDecodeDeltaRows<U>(c, d, row - d.first, end - d.first, out + (row - a), lane);
    } else if (d.model == static_cast<uint8_t>(internal::Model::kRunsEf)) {
      WarpDecodeRunsEfRows<U>(c, d, row - d.first, end - d.first, out + (row - a), lane);
    } else {
      for (uint64_t r = row + lane; r < end; r += 32) out[r - a] = DecodeOne<U>(c, d, r - d.first);
    }
    row = end;
  }
}

__device__ __forceinline__ uint64_t WarpMin64(uint64_t x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    x = min(x, static_cast<uint64_t>(__shfl_xor_sync(0xFFFFFFFFu, static_cast<unsigned long long>(x), offset)));
  }
  return x;
}

__device__ __forceinline__ uint64_t WarpMax64(uint64_t x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    x = max(x, static_cast<uint64_t>(__shfl_xor_sync(0xFFFFFFFFu, static_cast<unsigned long long>(x), offset)));
  }
  return x;
}

/// Chunk k holds no row >= x: the skip test of PgmLowerBoundKernel, its
/// maximum confirmed by the last key of PgmLastKeysKernel.
__device__ __forceinline__ bool ChunkBelowKey(const LowerBoundArgs& args, const uint64_t* last_keys,
                                              uint32_t k, uint64_t x) {
  const KernelPgm& g = args.pgms.pgm[k];
  return g.has_max && g.max_key < x && args.chunks.chunk[k].num_rows > 0 && __ldg(last_keys + k) < x;
}

/// From chunk *k on, the first chunk that may hold key x (ChunkBelowKey) and
/// the window [lo, hi] of x there, clamped to the chunk; false past the last.
__device__ __forceinline__ bool SeekChunk(const LowerBoundArgs& args, const PgmStage* stage,
                                          const uint64_t* last_keys, uint64_t x, uint32_t* k,
                                          uint64_t* lo, uint64_t* hi) {
  for (; *k < args.chunks.count; ++*k) {
    if (ChunkBelowKey(args, last_keys, *k, x)) continue;
    const uint64_t n = args.chunks.chunk[*k].num_rows;
    PgmWindow(PgmView{args.pgms.pgm[*k], stage}, x, lo, hi);
    *lo = min(*lo, n);
    *hi = min(max(*hi, *lo), n);
    return true;
  }
  return false;
}

template <typename U>
__global__ void __launch_bounds__(kGroupedBlockThreads)
    PgmLowerBoundGroupedKernel(const __grid_constant__ LowerBoundArgs args, const uint64_t* last_keys) {
  __shared__ U windows[kGroupedBlockThreads / 32][kGroupedWindowRows];
  __shared__ PgmStage stage_memory;
  const PgmStage* stage = StagePgmSegments(args, &stage_memory);
  const uint32_t lane = threadIdx.x & 31;
  U* const window = windows[threadIdx.x >> 5];
  const bool is_signed = args.is_signed != 0;
  const uint64_t warps = uint64_t{gridDim.x} * (kGroupedBlockThreads / 32);
  for (uint64_t base = (uint64_t{blockIdx.x} * (kGroupedBlockThreads / 32) + (threadIdx.x >> 5)) * 32;
       base < args.num_keys; base += warps * 32) {
    const uint64_t slot = base + lane;
    uint64_t i = 0;
    bool mine = false;  // this lane answers key i
    if (slot < args.num_keys) {
      i = __ldg(args.order + slot);
      mine = i < args.num_keys && (args.first_group || args.rows[i] == kPendingRow);
    }
    const uint64_t x = mine ? OrderedKey(__ldg(args.keys + i), is_signed) : 0;
    uint32_t k = 0;
    uint64_t lo = 0, hi = 0, row = kPendingRow;
    bool need = mine && SeekChunk(args, stage, last_keys, x, &k, &lo, &hi);
    bool fallback = false;
    while (true) {
      // Rows [first, end) hold the window and both neighbours of the answer.
      uint64_t first = lo > 0 ? lo - 1 : 0;
      uint64_t end = min(hi + 1, uint64_t{args.chunks.chunk[need ? k : 0].num_rows});
      if (need && end - first > kGroupedWindowRows) {  // only with a wide epsilon
        need = false;
        fallback = true;
      }
      const uint32_t pending = __ballot_sync(0xFFFFFFFFu, need);
      if (pending == 0) break;
      // One round: the leader's chunk, from the lowest window start of the
      // lanes in that chunk; the lanes whose rows fit are answered.
      const uint32_t k0 = __shfl_sync(0xFFFFFFFFu, k, __ffs(static_cast<int>(pending)) - 1);
      const bool in_chunk = need && k == k0;
      const uint64_t round_first = WarpMin64(in_chunk ? first : ~uint64_t{0});
      const bool fits = in_chunk && end <= round_first + kGroupedWindowRows;
      const uint64_t round_end = WarpMax64(fits ? end : 0);
      const KernelChunk& c = args.chunks.chunk[k0];
      if (round_end > round_first) WarpDecodeChunkRows<U>(c, round_first, round_end, window, lane);
      __syncwarp();
      if (fits) {
        need = false;
        const uint64_t n = c.num_rows;
        auto key = [&](uint64_t r) { return OrderedKeyOf(window[r - round_first], is_signed); };
        const uint64_t a = FirstNotBelow(key, lo, hi, x);
        const bool left_ok = a == 0 || key(a - 1) < x;
        const bool right_ok = a == n || key(a) >= x;
        if (!left_ok || !right_ok) {
          fallback = true;  // the window missed: ChunkLowerBound searches the chunk
        } else if (a < n) {
          row = c.first_row + a;
        } else {
          ++k;  // every row of the chunk is below x: the next chunks
          need = SeekChunk(args, stage, last_keys, x, &k, &lo, &hi);
        }
      }
      __syncwarp();  // the window is refilled by the next round
    }
    if (fallback) {
      // As PgmLowerBoundKernel, from chunk k on.
      for (; k < args.chunks.count; ++k) {
        if (ChunkBelowKey(args, last_keys, k, x)) continue;
        const KernelChunk& c = args.chunks.chunk[k];
        const uint64_t r = ChunkLowerBound<U>(c, PgmView{args.pgms.pgm[k], stage}, x, is_signed);
        if (r < c.num_rows) {
          row = c.first_row + r;
          break;
        }
      }
    }
    if (!mine) continue;
    if (row == kPendingRow && args.last_group) row = args.column_end;
    args.rows[i] = row;
  }
}

/// Groups keys by value: bucket[i] = (ordered key - min) >> shift, capped
/// at 2^20, and index[i] = i, for a radix sort of the pairs.
struct BucketArgs {
  const uint64_t* keys;
  uint32_t* bucket;
  uint32_t* index;
  uint64_t num_keys;
  uint64_t min_key;
  uint32_t shift;
  uint32_t is_signed;
};

inline constexpr uint32_t kBucketBits = 20;

__global__ void __launch_bounds__(256) PgmBucketKernel(const __grid_constant__ BucketArgs args) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < args.num_keys; i += stride) {
    const uint64_t x = OrderedKey(__ldg(args.keys + i), args.is_signed != 0);
    const uint64_t d = x > args.min_key ? x - args.min_key : 0;
    const uint64_t b = args.shift >= 64 ? 0 : d >> args.shift;
    args.bucket[i] = static_cast<uint32_t>(min(b, uint64_t{1} << kBucketBits));
    args.index[i] = static_cast<uint32_t>(i);
  }
}

}  // namespace l3::cuda::detail
