// The fused table-scan kernel (l3/cuda_scan.hpp): predicates on several
// integer columns ANDed, then a count and a sum (or sum of products) over the
// rows selected, with the decoded values kept in shared memory only.
//
// A block owns `block_rows` consecutive rows of the table. For each filtered
// column in the plan's order it stages the partitions that meet its rows (as
// DecodeRowsKernel does), drops the rows of partitions whose pruning verdict
// is "none" (chunk statistics, partition bounds or model range, computed on
// the host), and decodes, into its shared buffer, only the tiles of "some"
// partitions that still hold a selected row; "all" partitions keep their rows
// without a decode. The predicate is then tested at the decoded, selected
// rows. The aggregated columns are decoded the same way, at the tiles that
// hold selected rows, and the block's count and 128-bit sum go to one partial
// per block, which ScanReduceKernel adds up in a fixed order. A tile that
// straddles the block's edge is decoded whole and only its rows inside the
// block are stored (the tile decoders' range check), so neighbouring blocks
// may decode it twice; nothing else is decoded twice.
//
// Safety: the chunk descriptors and verdicts come from the host's plan
// (checked against the Reader's metadata there); every payload address goes
// through the checks of LoadPartition and the tile decoders, as in
// DecodeRows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/decode_kernels.cuh"

namespace l3::cuda::detail {

inline constexpr int kMaxScanColumnsDevice = 8;

/// Threads of a scan block: 4 warps share a block's 8192 rows (four V = 64
/// tiles per column), so that few warps wait while the others decode.
inline constexpr uint32_t kScanThreads = 128;

/// Pruning verdict of a partition for a filtered column (scan_internal.hpp).
enum : uint8_t { kVerdictNone = 0, kVerdictSome = 1, kVerdictAll = 2 };

/// One column of the scan as the kernel sees it. Offsets are bytes into the
/// uploaded plan (ScanArgs::plan).
struct ScanColumnArgs {
  uint64_t chunks_offset;    // num_chunks KernelChunk records
  uint64_t verdict_offset;   // num_chunks uint64: where each chunk's verdicts start
  uint64_t set_offset;       // set_size ordered keys (spec §11.3.1 order), increasing
  uint64_t lo_key;           // the filter as ordered keys: lo_key <= key <= hi_key
  uint64_t hi_key;
  uint32_t num_chunks;
  uint32_t set_size;
  uint8_t bytes;             // value bytes: 1, 2, 4 or 8
  uint8_t is_signed;
  uint8_t has_set;           // an IN list applies
  uint8_t all_v64;           // every chunk has V = 64
  uint8_t has_runs_ef;       // a chunk has RUNS_EF partitions (DeviceChunk::runs_ef_rows)
};

/// What one block found; ScanReduceKernel adds them.
struct ScanPartial {
  uint64_t count;
  uint64_t sum_low;
  uint64_t sum_high;
  uint64_t overflow;
  uint64_t min_key;  // of the sum column over the selection, as ordered keys:
  uint64_t max_key;  // ~0 and 0 when nothing is selected
  uint64_t rows_out[kMaxScanColumnsDevice];        // selected rows after each filter
  uint64_t values_decoded[kMaxScanColumnsDevice];  // rows of the tiles decoded
  uint64_t field_bits[kMaxScanColumnsDevice];      // their rows * Bit_Width
};

struct ScanArgs {
  const uint8_t* plan;        // the uploaded plan (device)
  ScanColumnArgs col[kMaxScanColumnsDevice];
  uint32_t num_columns;       // filtered ones first, in evaluation order
  uint32_t num_filtered;
  int32_t sum_column;         // index into col, or -1
  int32_t product_column;     // index into col, or -1
  uint64_t num_rows;
  uint32_t block_rows;        // a multiple of 32
  uint32_t buffer_a_bytes;    // bytes per row of the first buffer (filters and the sum)
  uint32_t stage_words;       // words of each warp's DELTA stage
  const uint32_t* block_list; // when not null: launch block i scans row block block_list[i]
  uint32_t* selection;        // optional: one bit per row
  ScanPartial* partials;      // one per launched block
};

/// Word i of a shared bit array with the bits outside [a, b) cleared.
__device__ __forceinline__ uint32_t MaskedWord(const uint32_t* bits, uint32_t i, uint32_t a,
                                               uint32_t b) {
  uint32_t m = bits[i];
  if (i == (a >> 5)) m &= ~0u << (a & 31);
  if (i == ((b - 1) >> 5) && (b & 31) != 0) m &= ~0u >> (32 - (b & 31));
  return m;
}

/// The number of bits set in [a, b) of a shared bit array (whole warp; the
/// result is uniform).
__device__ __forceinline__ uint32_t WarpCountBits(const uint32_t* bits, uint32_t a, uint32_t b,
                                                  uint32_t lane) {
  if (a >= b) return 0;
  const uint32_t wa = a >> 5;
  const uint32_t wb = (b - 1) >> 5;
  uint32_t count = 0;
  for (uint32_t i = wa + lane; i <= wb; i += 32) count += __popc(MaskedWord(bits, i, a, b));
  for (uint32_t offset = 16; offset > 0; offset /= 2) count += __shfl_xor_sync(0xFFFFFFFFu, count, offset);
  return count;
}

/// A tile of a FOR/LINEAR/POLY partition is read by random access, row by
/// row, when fewer than 1 in kSparseRatio of its rows are selected (at most
/// 2048 / 16 = 128 rows, listed in the warp's DELTA stage of >= 1 KiB).
inline constexpr uint32_t kSparseRatio = 16;

/// Sets (or clears) bits [a, b) of a shared bit array, by one thread.
__device__ __forceinline__ void ChangeBits(uint32_t* bits, uint32_t a, uint32_t b, bool set) {
  if (a >= b) return;
  const uint32_t wa = a >> 5;
  const uint32_t wb = (b - 1) >> 5;
  for (uint32_t i = wa; i <= wb; ++i) {
    uint32_t m = ~0u;
    if (i == wa) m &= ~0u << (a & 31);
    if (i == wb && (b & 31) != 0) m &= ~0u >> (32 - (b & 31));
    if (set) {
      atomicOr(bits + i, m);
    } else {
      atomicAnd(bits + i, ~m);
    }
  }
}

/// Partitions a scan block stages per round: a block's 8192 rows rarely meet
/// more, and 6 KiB instead of DecodeRowsKernel's 12 let four blocks share an
/// SM's shared memory instead of three.
inline constexpr uint32_t kScanStageBatch = 64;

/// The shared state of a block while it decodes one column.
struct ScanShared {
  StagedPartition staged[kScanStageBatch];
  uint8_t verdict[kScanStageBatch];
  KernelChunk chunk;
  uint32_t first_partition;
  bool more_partitions;
};

/// Rows [ra, rb) of a block that are selected (`selected` of them), in one
/// tile of a checked FOR/LINEAR/POLY partition `d`, decoded by random access
/// into buf[row]. The selected rows are first listed in `list` (the warp's
/// stage: lane L lists those of words L, L + 32, ...; a warp scan places
/// them), so that each lane then reads a row of its own, all loads in flight
/// at once. Not inlined: it keeps the model arithmetic of DecodeOne out of
/// the scan kernel's registers.
template <typename U>
__device__ __noinline__ void DecodeSelectedRows(const KernelChunk& c, const DevicePartition& d,
                                                const uint32_t* sel, uint32_t ra, uint32_t rb,
                                                uint32_t selected, int64_t first_out, uint32_t dict,
                                                U* buf, uint32_t* list, uint32_t lane) {
  const uint32_t wa = ra / 32, wb = (rb - 1) / 32;
  uint32_t mine = 0;
  for (uint32_t i = wa + lane; i <= wb; i += 32) mine += __popc(MaskedWord(sel, i, ra, rb));
  uint32_t at = mine;
  for (uint32_t offset = 1; offset < 32; offset *= 2) {
    const uint32_t up = __shfl_up_sync(0xFFFFFFFFu, at, offset);
    if (lane >= offset) at += up;
  }
  at -= mine;
  for (uint32_t i = wa + lane; i <= wb; i += 32) {
    for (uint32_t m = MaskedWord(sel, i, ra, rb); m != 0; m &= m - 1) {
      list[at++] = i * 32 + static_cast<uint32_t>(__ffs(static_cast<int>(m)) - 1);
    }
  }
  __syncwarp();
  for (uint32_t j = lane; j < selected; j += 32) {
    const uint32_t r = list[j];
    const uint64_t element = static_cast<uint64_t>(r - first_out) + dict;
    buf[r] = MapCode<true>(c, DecodeOne<U>(c, d, element - d.first));
  }
  __syncwarp();  // the list is read before the stage is reused
}

/// Decodes the tiles of column `col` that meet block rows [bs, be) and hold a
/// selected row into `buf` (block row i at buf[i]). With `filter`, rows of
/// "none" partitions leave the selection first, "all" partitions are not
/// decoded, and the rows decoded are marked in `test`.
template <typename U, int kV, bool kRunsEf>
__device__ __noinline__ void DecodeColumnSpan(const ScanArgs& a, const ScanColumnArgs& col, uint64_t bs,
                                 uint64_t be, U* buf, uint32_t* sel, uint32_t* test, bool filter,
                                 ScanShared& sh, uint64_t* warp_stage, uint64_t* decoded_rows,
                                 uint64_t* decoded_bits) {
  constexpr uint32_t kTypeBits = 8 * sizeof(U);
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t num_warps = blockDim.x / 32;
  const KernelChunk* chunks = reinterpret_cast<const KernelChunk*>(a.plan + col.chunks_offset);
  const uint64_t* verdict_at = reinterpret_cast<const uint64_t*>(a.plan + col.verdict_offset);
  const uint8_t* verdicts = a.plan;
  const uint32_t span = static_cast<uint32_t>(be - bs);
  uint32_t tile_counter = 0;  // tiles met so far, dealt to the warps in turn
  // The last chunk that starts at or before bs (chunks are consecutive and
  // start at row 0 of the column): a bisection every thread does alike.
  uint32_t first_chunk = 0;
  for (uint32_t lo = 0, hi = col.num_chunks; hi - lo > 1;) {
    const uint32_t mid = (lo + hi) / 2;
    if (__ldg(&chunks[mid].first_row) <= bs) {
      lo = mid;
    } else {
      hi = mid;
    }
    first_chunk = lo;
  }
  for (uint32_t ci = first_chunk; ci < col.num_chunks && __ldg(&chunks[ci].first_row) < be; ++ci) {
    __syncthreads();  // the previous chunk's readers are done with sh
    if (threadIdx.x == 0) sh.chunk = chunks[ci];
    __syncthreads();
    const KernelChunk& c = sh.chunk;
    const uint32_t dict = c.dictionary_entries;
    const uint64_t chunk_end = c.first_row + (c.num_rows - dict);
    if (chunk_end <= bs) continue;
    const uint32_t V = kV != 0 ? static_cast<uint32_t>(kV) : c.values_per_lane;
    const uint32_t tile_rows = internal::kLanes * V;
    auto local = [&](uint64_t row) {
      return static_cast<uint32_t>(min(max(row, c.first_row), chunk_end) - c.first_row) + dict;
    };
    const uint32_t ls = local(bs);
    const uint32_t le = local(be);
    // Block row of chunk element e: first_out + e - dict. The tile decoders
    // see the buffer from out_lo on, so that elements before the chunk's row
    // 0 (a dictionary's entries) fall below index 0 and are never stored.
    const int64_t first_out = static_cast<int64_t>(c.first_row) - static_cast<int64_t>(bs);
    const int64_t out_lo = max(first_out, int64_t{0});
    const int64_t chunk_out = first_out - dict - out_lo;
    U* const dst = buf + out_lo;
    const uint64_t dst_range = span - static_cast<uint64_t>(out_lo);
    // Clamped to the chunk's rows in the block: a dictionary's entries
    // (elements before row 0) map to no row.
    auto block_row = [&](uint64_t element) -> uint32_t {
      const int64_t r = first_out + static_cast<int64_t>(element) - dict;
      return static_cast<uint32_t>(min(max(r, out_lo), static_cast<int64_t>(span)));
    };
    const uint64_t chunk_verdicts = filter ? __ldg(verdict_at + ci) : 0;

    if (warp == 0) {
      const uint32_t p = WarpFindPartition(c, ls, lane);
      if (lane == 0) sh.first_partition = p;
    }
    __syncthreads();
    for (uint32_t pb = sh.first_partition;; pb += kScanStageBatch) {
      for (uint32_t t = threadIdx.x; t < kScanStageBatch; t += blockDim.x) {
        StagedPartition& sp = sh.staged[t];
        const uint32_t p = pb + t;
        StagePartition<kTypeBits>(c, p, V, tile_rows, &sp);
        uint8_t v = kVerdictSome;
        if (filter && p < c.num_partitions) v = verdicts[chunk_verdicts + p];
        sh.verdict[t] = v;
        // Rows of a partition no row of which can match leave the selection,
        // and so do those of a partition that fails its device checks (its
        // table differs from what the host validated): they are never decoded.
        if (filter && (v == kVerdictNone || !sp.d.ok) && p < c.num_partitions &&
            sp.d.first < le && uint64_t{sp.d.first} + sp.d.rows > ls) {
          ChangeBits(sel, block_row(sp.d.first), block_row(sp.d.first + sp.d.rows), false);
        }
      }
      if (threadIdx.x == 0) {
        const uint32_t next = pb + kScanStageBatch;
        sh.more_partitions = next < c.num_partitions && __ldg(&c.table[next].x) < le;
      }
      __syncthreads();
      for (uint32_t j = 0; j < kScanStageBatch; ++j) {
        const StagedPartition& sp = sh.staged[j];
        const DevicePartition& d = sp.d;
        if (d.first >= le) break;
        if (!d.ok || d.first + d.rows <= ls) continue;
        if (filter && sh.verdict[j] != kVerdictSome) continue;
        const uint32_t t0 = d.first >= ls ? 0 : (ls - d.first) / tile_rows;
        const uint32_t t1 = (min(le, d.first + d.rows) - 1 - d.first) / tile_rows;
        for (uint32_t tile = t0; tile <= t1; ++tile, ++tile_counter) {
          if (tile_counter % num_warps != warp) continue;
          const uint64_t e0 = uint64_t{d.first} + uint64_t{tile} * tile_rows;
          const uint64_t e1 = min(e0 + tile_rows, uint64_t{d.first} + d.rows);
          const uint32_t ra = block_row(e0);
          const uint32_t rb = block_row(e1);
          const uint32_t selected = WarpCountBits(sel, ra, rb, lane);
          if (selected == 0) continue;
          const bool random_access =
              internal::IsSlapModel(d.model) ||
              d.model == static_cast<uint8_t>(internal::Model::kPatchedFor);
          if (random_access && uint64_t{selected} * kSparseRatio < rb - ra) {
            // Few rows selected in a FOR/LINEAR/POLY/PATCHED_FOR tile: random
            // access to each (one field and the model, and a search of the
            // exceptions), not the whole tile. DELTA and runs decode the
            // tile: a row of theirs needs the rows before it.
            DecodeSelectedRows<U>(c, d, sel, ra, rb, selected, first_out, dict, buf,
                                  reinterpret_cast<uint32_t*>(warp_stage), lane);
            if (lane == 0) {
              *decoded_rows += selected;
              *decoded_bits += uint64_t{selected} * d.width;
            }
          } else {
            DecodeTile<U, kV, false, true, true, kRunsEf>(c, sp, tile,
                                                 chunk_out + static_cast<int64_t>(e0), dst_range,
                                                 dst, lane, warp_stage, 0);
            if (lane == 0) {
              *decoded_rows += e1 - e0;
              *decoded_bits += (e1 - e0) * d.width;
            }
          }
          if (lane == 0 && filter) ChangeBits(test, ra, rb, true);
        }
      }
      const bool more = sh.more_partitions;
      __syncthreads();  // everyone has read the stage before it is refilled
      if (!more) break;
    }
  }
  __syncthreads();
}

/// The column's value at block row r of a buffer of `bytes`-byte values, as
/// a 64-bit canonical extension (spec §8.2).
__device__ __forceinline__ uint64_t CanonicalAt(const void* buf, uint32_t bytes, bool is_signed,
                                                uint32_t r) {
  switch (bytes) {
    case 1: {
      const uint8_t v = static_cast<const uint8_t*>(buf)[r];
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int8_t>(v)}) : v;
    }
    case 2: {
      const uint16_t v = static_cast<const uint16_t*>(buf)[r];
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int16_t>(v)}) : v;
    }
    case 4: {
      const uint32_t v = static_cast<const uint32_t*>(buf)[r];
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(v)}) : v;
    }
    default:
      return static_cast<const uint64_t*>(buf)[r];
  }
}

template <int kV, bool kRunsEf>
__device__ __forceinline__ void DecodeColumnSpanAs(const ScanArgs& a, const ScanColumnArgs& col,
                                                   uint64_t bs, uint64_t be, void* buf,
                                                   uint32_t* sel, uint32_t* test, bool filter,
                                                   ScanShared& sh, uint64_t* stage,
                                                   uint64_t* rows, uint64_t* bits) {
  switch (col.bytes) {
    case 1:
      DecodeColumnSpan<uint8_t, kV, kRunsEf>(a, col, bs, be, static_cast<uint8_t*>(buf), sel, test, filter,
                                    sh, stage, rows, bits);
      break;
    case 2:
      DecodeColumnSpan<uint16_t, kV, kRunsEf>(a, col, bs, be, static_cast<uint16_t*>(buf), sel, test,
                                     filter, sh, stage, rows, bits);
      break;
    case 4:
      DecodeColumnSpan<uint32_t, kV, kRunsEf>(a, col, bs, be, static_cast<uint32_t*>(buf), sel, test,
                                     filter, sh, stage, rows, bits);
      break;
    default:
      DecodeColumnSpan<uint64_t, kV, kRunsEf>(a, col, bs, be, static_cast<uint64_t*>(buf), sel, test,
                                     filter, sh, stage, rows, bits);
      break;
  }
}

__device__ __forceinline__ void DecodeColumn(const ScanArgs& a, const ScanColumnArgs& col,
                                             uint64_t bs, uint64_t be, void* buf, uint32_t* sel,
                                             uint32_t* test, bool filter, ScanShared& sh,
                                             uint64_t* stage, uint64_t* rows, uint64_t* bits) {
  // Only columns with RUNS_EF partitions take the span decoder that carries
  // RUNS_EF's (with any V): its call site makes the span spill, as in the
  // decode kernels (docs/results/gpu-notes.md, v20).
  if (col.has_runs_ef) {
    DecodeColumnSpanAs<0, true>(a, col, bs, be, buf, sel, test, filter, sh, stage, rows, bits);
  } else if (col.all_v64) {
    DecodeColumnSpanAs<64, false>(a, col, bs, be, buf, sel, test, filter, sh, stage, rows, bits);
  } else {
    DecodeColumnSpanAs<0, false>(a, col, bs, be, buf, sel, test, filter, sh, stage, rows, bits);
  }
}

/// A 128-bit two's complement accumulator that notes when a sum or product
/// leaves 128 bits.
struct Sum128 {
  unsigned __int128 value = 0;
  bool overflow = false;

  __device__ __forceinline__ void Add(unsigned __int128 x) {
    const unsigned __int128 r = value + x;
    const __int128 sv = static_cast<__int128>(value);
    const __int128 sx = static_cast<__int128>(x);
    const __int128 sr = static_cast<__int128>(r);
    overflow = overflow || ((sv < 0) == (sx < 0) && (sr < 0) != (sv < 0));
    value = r;
  }

  /// The exact product of two canonical values as a 128-bit two's complement
  /// number; only two unsigned 64-bit values can leave it.
  __device__ __forceinline__ void AddProduct(uint64_t x, bool x_signed, uint64_t y, bool y_signed) {
    const bool neg_x = x_signed && static_cast<int64_t>(x) < 0;
    const bool neg_y = y_signed && static_cast<int64_t>(y) < 0;
    const uint64_t mx = neg_x ? 0 - x : x;
    const uint64_t my = neg_y ? 0 - y : y;
    const unsigned __int128 m = static_cast<unsigned __int128>(mx) * my;
    if ((m >> 127) != 0 && !(neg_x != neg_y && m == (static_cast<unsigned __int128>(1) << 127))) {
      overflow = true;
    }
    Add(neg_x != neg_y ? 0 - m : m);
  }

  __device__ __forceinline__ void AddValue(uint64_t x, bool x_signed) {
    const __int128 v = x_signed ? static_cast<__int128>(static_cast<int64_t>(x))
                                : static_cast<__int128>(x);
    Add(static_cast<unsigned __int128>(v));
  }

  __device__ __forceinline__ void Merge(const Sum128& o) {
    overflow = overflow || o.overflow;
    Add(o.value);
  }
};

__device__ __forceinline__ Sum128 ShuffleDown(const Sum128& s, uint32_t offset) {
  Sum128 o;
  const uint64_t lo = __shfl_down_sync(0xFFFFFFFFu, static_cast<uint64_t>(s.value), offset);
  const uint64_t hi = __shfl_down_sync(0xFFFFFFFFu, static_cast<uint64_t>(s.value >> 64), offset);
  o.value = (static_cast<unsigned __int128>(hi) << 64) | lo;
  o.overflow = __shfl_down_sync(0xFFFFFFFFu, s.overflow ? 1 : 0, offset) != 0;
  return o;
}

/// The predicates of column `col` at the rows of the block that are still
/// selected and were decoded (`test`), over the block's words; clears
/// `test`. Returns the rows this warp kept (lane 0; 0 on other lanes).
template <typename U>
__device__ __noinline__ uint32_t FilterRows(const ScanArgs& a, const ScanColumnArgs& col,
                                            const void* buf, uint32_t* sel, uint32_t* test,
                                            uint32_t words) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t num_warps = blockDim.x / 32;
  const U* values = static_cast<const U*>(buf);
  const bool is_signed = col.is_signed != 0;
  const uint64_t lo_key = col.lo_key;
  const uint64_t hi_key = col.hi_key;
  const bool has_set = col.has_set != 0;
  const uint32_t set_size = col.set_size;
  const uint64_t* set = reinterpret_cast<const uint64_t*>(a.plan + col.set_offset);
  const uint64_t flip = is_signed ? uint64_t{1} << 63 : 0;
  uint32_t kept = 0;
  for (uint32_t i = warp; i < words; i += num_warps) {
    const uint32_t s = sel[i];
    if (s == 0) {  // uniform: the word is the same for the warp
      if (lane == 0) test[i] = 0;
      continue;
    }
    const uint32_t t = test[i] & s;
    bool pass = true;
    if ((t >> lane) & 1u) {
      const U v = values[i * 32 + lane];
      const uint64_t canonical =
          is_signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<std::make_signed_t<U>>(v)))
                    : static_cast<uint64_t>(v);
      const uint64_t key = canonical ^ flip;
      pass = lo_key <= key && key <= hi_key;
      if (pass && has_set) {
        uint32_t lo = 0, hi = set_size;
        while (lo < hi) {
          const uint32_t mid = (lo + hi) / 2;
          if (__ldg(set + mid) < key) lo = mid + 1; else hi = mid;
        }
        pass = lo < set_size && __ldg(set + lo) == key;
      }
    }
    const uint32_t out = __ballot_sync(0xFFFFFFFFu, pass) & s;
    __syncwarp();  // every lane has read sel[i] and test[i]
    if (lane == 0) {
      sel[i] = out;
      test[i] = 0;
      kept += __popc(out);
    }
  }
  return kept;
}

/// Dynamic shared memory: buffer A (block_rows * buffer_a_bytes), buffer B
/// (block_rows * the product column's bytes), the selection and test bits
/// (block_rows / 32 words each), and one DELTA stage per warp.
__global__ void __launch_bounds__(kScanThreads, 4) TableScanKernel(const __grid_constant__ ScanArgs a) {
  extern __shared__ __align__(16) uint8_t dynamic[];
  __shared__ ScanShared sh;
  __shared__ uint64_t block_counters[2 * kMaxScanColumnsDevice];
  __shared__ uint64_t warp_sum_low[8];
  __shared__ uint64_t warp_sum_high[8];
  __shared__ uint32_t warp_overflow[8];
  __shared__ uint32_t selected_count;
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t num_warps = blockDim.x / 32;
  const uint32_t rows = a.block_rows;
  const uint32_t words = rows / 32;
  const uint32_t stage_words = a.stage_words;
  uint64_t* stages = reinterpret_cast<uint64_t*>(dynamic);
  uint64_t* warp_stage = stages + uint64_t{warp} * stage_words;
  uint32_t* sel = reinterpret_cast<uint32_t*>(stages + uint64_t{num_warps} * stage_words);
  uint32_t* test = sel + words;
  uint8_t* buf_a = reinterpret_cast<uint8_t*>(test + words);
  // Buffer A is 8-byte aligned: block_rows is a multiple of 32 and the
  // stages are whole words.
  uint8_t* buf_b = buf_a + uint64_t{rows} * a.buffer_a_bytes;

  // Row blocks where the first filter's partitions exclude every row are
  // not launched (the host's block list); their selection words are zero.
  const uint64_t row_block = a.block_list != nullptr ? __ldg(a.block_list + blockIdx.x) : blockIdx.x;
  const uint64_t bs = row_block * rows;
  const uint64_t be = min(bs + rows, a.num_rows);
  const uint32_t span = static_cast<uint32_t>(be - bs);
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
    const uint32_t first = i * 32;
    sel[i] = first >= span ? 0u : span - first >= 32 ? ~0u : ~0u >> (32 - (span - first));
    test[i] = 0;
  }
  for (uint32_t i = threadIdx.x; i < 2 * kMaxScanColumnsDevice; i += blockDim.x) block_counters[i] = 0;
  if (threadIdx.x == 0) selected_count = 0;
  __syncthreads();

  uint64_t my_rows_out[kMaxScanColumnsDevice] = {};
  bool any = span > 0;
  for (uint32_t k = 0; k < a.num_filtered && any; ++k) {
    const ScanColumnArgs& col = a.col[k];
    uint64_t dec_rows = 0, dec_bits = 0;
    DecodeColumn(a, col, bs, be, buf_a, sel, test, true, sh, warp_stage, &dec_rows, &dec_bits);
    if (lane == 0 && dec_rows != 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&block_counters[k]), dec_rows);
      atomicAdd(reinterpret_cast<unsigned long long*>(&block_counters[kMaxScanColumnsDevice + k]),
                dec_bits);
    }
    // The predicate at the decoded rows still selected.
    uint32_t kept = 0;
    switch (col.bytes) {
      case 1: kept = FilterRows<uint8_t>(a, col, buf_a, sel, test, words); break;
      case 2: kept = FilterRows<uint16_t>(a, col, buf_a, sel, test, words); break;
      case 4: kept = FilterRows<uint32_t>(a, col, buf_a, sel, test, words); break;
      default: kept = FilterRows<uint64_t>(a, col, buf_a, sel, test, words); break;
    }
    if (lane == 0 && kept != 0) atomicAdd(&selected_count, kept);
    __syncthreads();
    const uint32_t total = selected_count;
    my_rows_out[k] = total;
    any = total != 0;
    __syncthreads();
    if (threadIdx.x == 0) selected_count = 0;
  }
  // Columns that did not run (the selection emptied) keep 0 rows out.

  Sum128 sum;
  uint64_t count = 0;
  uint64_t min_key = ~uint64_t{0}, max_key = 0;
  if (any) {
    const int sc = a.sum_column;
    const int pc = a.product_column;
    auto decode_aggregate = [&](int c, uint8_t* buf) {
      uint64_t dec_rows = 0, dec_bits = 0;
      DecodeColumn(a, a.col[c], bs, be, buf, sel, test, false, sh, warp_stage, &dec_rows, &dec_bits);
      if (lane == 0 && dec_rows != 0) {
        atomicAdd(reinterpret_cast<unsigned long long*>(&block_counters[c]), dec_rows);
        atomicAdd(reinterpret_cast<unsigned long long*>(&block_counters[kMaxScanColumnsDevice + c]),
                  dec_bits);
      }
    };
    if (sc >= 0) {
      decode_aggregate(sc, buf_a);
      if (pc >= 0 && pc != sc) decode_aggregate(pc, buf_b);
    }
    // The aggregated columns' parameters, read once (not per row).
    const uint32_t s_bytes = sc >= 0 ? a.col[sc].bytes : 8;
    const bool s_signed = sc >= 0 && a.col[sc].is_signed != 0;
    const uint32_t p_bytes = pc >= 0 ? a.col[pc].bytes : 8;
    const bool p_signed = pc >= 0 && a.col[pc].is_signed != 0;
    for (uint32_t i = warp; i < words; i += num_warps) {
      const uint32_t s = sel[i];
      count += lane == 0 ? __popc(s) : 0;
      if (sc < 0 || ((s >> lane) & 1u) == 0) continue;
      const uint64_t x = CanonicalAt(buf_a, s_bytes, s_signed, i * 32 + lane);
      const uint64_t key = s_signed ? x ^ (uint64_t{1} << 63) : x;
      min_key = min(min_key, key);
      max_key = max(max_key, key);
      if (pc < 0) {
        sum.AddValue(x, s_signed);
      } else {
        const uint64_t y = pc == sc ? x : CanonicalAt(buf_b, p_bytes, p_signed, i * 32 + lane);
        sum.AddProduct(x, s_signed, y, p_signed);
      }
    }
  }
  if (a.selection != nullptr) {
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
      if (row_block * words + i < (a.num_rows + 31) / 32) a.selection[row_block * words + i] = sel[i];
    }
  }
  // Block totals: a warp reduction, then warp 0 over the warps.
  for (uint32_t offset = 16; offset > 0; offset /= 2) {
    const Sum128 other = ShuffleDown(sum, offset);
    sum.Merge(other);
    count += __shfl_down_sync(0xFFFFFFFFu, count, offset);
    min_key = min(min_key, static_cast<uint64_t>(__shfl_down_sync(0xFFFFFFFFu, min_key, offset)));
    max_key = max(max_key, static_cast<uint64_t>(__shfl_down_sync(0xFFFFFFFFu, max_key, offset)));
  }
  __shared__ uint64_t warp_counts[8];
  __shared__ uint64_t warp_min[8];
  __shared__ uint64_t warp_max[8];
  if (lane == 0) {
    warp_min[warp] = min_key;
    warp_max[warp] = max_key;
    warp_sum_low[warp] = static_cast<uint64_t>(sum.value);
    warp_sum_high[warp] = static_cast<uint64_t>(sum.value >> 64);
    warp_overflow[warp] = sum.overflow ? 1u : 0u;
    warp_counts[warp] = count;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    Sum128 total;
    uint64_t n = 0;
    uint64_t lo = ~uint64_t{0}, hi = 0;
    for (uint32_t w = 0; w < num_warps; ++w) {
      lo = min(lo, warp_min[w]);
      hi = max(hi, warp_max[w]);
      Sum128 s;
      s.value = (static_cast<unsigned __int128>(warp_sum_high[w]) << 64) | warp_sum_low[w];
      s.overflow = warp_overflow[w] != 0;
      total.Merge(s);
      n += warp_counts[w];
    }
    ScanPartial& p = a.partials[blockIdx.x];
    p.count = n;
    p.sum_low = static_cast<uint64_t>(total.value);
    p.sum_high = static_cast<uint64_t>(total.value >> 64);
    p.overflow = total.overflow ? 1 : 0;
    p.min_key = lo;
    p.max_key = hi;
    for (uint32_t k = 0; k < kMaxScanColumnsDevice; ++k) {
      p.rows_out[k] = my_rows_out[k];
      p.values_decoded[k] = block_counters[k];
      p.field_bits[k] = block_counters[kMaxScanColumnsDevice + k];
    }
  }
}

inline constexpr uint32_t kScanReduceThreads = 128;

/// A running total of block partials: counts added, extremes kept, the sum
/// added with its overflow noted.
struct PartialTotal {
  ScanPartial total;
  Sum128 sum;

  __device__ __forceinline__ PartialTotal() {
    total = ScanPartial{};
    total.min_key = ~uint64_t{0};
  }

  __device__ __forceinline__ void Add(const ScanPartial& p) {
    total.count += p.count;
    total.min_key = min(total.min_key, p.min_key);
    total.max_key = max(total.max_key, p.max_key);
    Sum128 s;
    s.value = (static_cast<unsigned __int128>(p.sum_high) << 64) | p.sum_low;
    s.overflow = p.overflow != 0;
    sum.Merge(s);
    for (int k = 0; k < kMaxScanColumnsDevice; ++k) {
      total.rows_out[k] += p.rows_out[k];
      total.values_decoded[k] += p.values_decoded[k];
      total.field_bits[k] += p.field_bits[k];
    }
  }

  __device__ __forceinline__ ScanPartial Finish() const {
    ScanPartial out = total;
    out.sum_low = static_cast<uint64_t>(sum.value);
    out.sum_high = static_cast<uint64_t>(sum.value >> 64);
    out.overflow = sum.overflow ? 1 : 0;
    return out;
  }
};

/// Adds the partials of `num_blocks` blocks in a fixed order into *out (one
/// block of kScanReduceThreads threads): thread t adds partials t, t + 128,
/// ..., then the threads' totals are added in thread order.
__global__ void __launch_bounds__(kScanReduceThreads) ScanReduceKernel(const ScanPartial* partials,
                                                                       uint64_t num_blocks,
                                                                       ScanPartial* out) {
  __shared__ ScanPartial mine[kScanReduceThreads];
  PartialTotal acc;
  for (uint64_t b = threadIdx.x; b < num_blocks; b += blockDim.x) acc.Add(partials[b]);
  mine[threadIdx.x] = acc.Finish();
  __syncthreads();
  if (threadIdx.x == 0) {
    PartialTotal total;
    for (uint32_t t = 0; t < blockDim.x; ++t) total.Add(mine[t]);
    *out = total.Finish();
  }
}

}  // namespace l3::cuda::detail
