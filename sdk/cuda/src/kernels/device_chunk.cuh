// Device-side view of chunks and partitions, and the bounded lookups every
// kernel shares. Every address computed here is checked against the segment
// sizes recorded on the host, so device metadata that differs from what the
// host validated (or a corrupt payload) cannot make a kernel leave its
// buffers (spec §8.7: a decoder that cannot report errors MUST still not
// access memory outside its buffers).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/predictor.hpp"
#include "common/bits.hpp"
#include "codec/delta/delta_layout.hpp"
#include "codec/patched/patched_for_layout.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "format/layout.hpp"

namespace l3::cuda::detail {

/// Chunks per launch: their descriptors travel as a kernel parameter
/// (72 bytes each, well inside the 4 KiB parameter limit).
inline constexpr int kMaxLaunchChunks = 32;

/// One chunk as the kernels see it. Filled by the host from a DeviceChunk.
struct KernelChunk {
  const uint4* table;        // spec §7.3: P + 1 records of 16 bytes
  const uint64_t* params;    // spec §7.4: parameter words
  const uint64_t* payload;   // spec §8.6: payload words, padding included
  uint64_t first_row;        // column row of chunk row 0
  uint64_t param_words;
  uint64_t payload_words;    // 8 * payload_words == payload segment length
  uint32_t num_rows;         // elements: D + rows of the chunk (spec §8.10)
  uint32_t num_partitions;
  uint32_t values_per_lane;  // spec values_per_lane (V)
  uint32_t dictionary_entries;  // D, 0 for a chunk without a dictionary
  const void* dictionary;       // D decoded entries (device), null when D = 0
};
static_assert(sizeof(KernelChunk) == 72, "KernelChunk is passed by value in kernel parameters");

/// Rows of the chunk (its elements less the dictionary's, spec §8.10).
__host__ __device__ __forceinline__ uint32_t ChunkRows(const KernelChunk& c) {
  return c.num_rows - c.dictionary_entries;
}

/// spec §8.10: a decoded element of a dictionary chunk is a code; its value
/// is the dictionary entry. A code >= D (a corrupt payload) gives 0 and never
/// reads outside the dictionary. Chunks without a dictionary pass through;
/// kernels instantiated without kMap (launches without dictionary chunks)
/// skip the test. The entries may lie in device memory or in the block's
/// shared copy (DecodeRowsKernel), so the load is a generic one.
template <bool kMap = true, typename U>
__device__ __forceinline__ U MapCode(const KernelChunk& c, U element) {
  if constexpr (!kMap) {
    return element;
  } else {
    if (c.dictionary == nullptr) return element;
    return element < c.dictionary_entries ? static_cast<const U*>(c.dictionary)[element] : U{0};
  }
}

struct ChunkSet {
  KernelChunk chunk[kMaxLaunchChunks];
  uint32_t count;
};

/// Index of the chunk holding column row `row`, given chunks[0].first_row <=
/// row. Linear: a launch holds at most kMaxLaunchChunks chunks.
__device__ __forceinline__ uint32_t FindChunk(const ChunkSet& set, uint64_t row) {
  uint32_t c = 0;
  while (c + 1 < set.count && set.chunk[c + 1].first_row <= row) ++c;
  return c;
}

/// One partition record, checked (spec §7.3, §8.1, §8.6, §8.7, §8.9, §8.11, §8.12).
struct DevicePartition {
  uint32_t first;        // First_Row, chunk-local
  uint32_t rows;         // n_p
  uint64_t word_offset;  // Payload_Offset
  uint32_t param_offset; // Param_Offset
  uint8_t model;         // Model_Type
  uint8_t width;         // Bit_Width
  bool ok;               // every address below is inside the segments
};

/// Loads partition `p` (< num_partitions) and checks, against the segment
/// sizes, every quantity a kernel derives an address from. All lanes of a
/// warp pass the same `p`, so the loads are broadcasts.
template <uint32_t kTypeBits>
__device__ __forceinline__ DevicePartition LoadPartition(const KernelChunk& c, uint32_t p) {
  const uint4 r = __ldg(c.table + p);
  const uint32_t next_first = __ldg(&c.table[p + 1].x);
  DevicePartition d;
  d.first = r.x;
  d.rows = next_first - r.x;
  d.word_offset = r.y;
  d.param_offset = r.z;
  d.model = static_cast<uint8_t>(r.w & 0xFF);
  d.width = static_cast<uint8_t>((r.w >> 8) & 0xFF);
  d.ok = false;
  if (next_first <= r.x || next_first > c.num_rows) return d;
  if (d.model >= internal::kNumModels || d.width > kTypeBits) return d;
  const uint32_t params = internal::ParamCount(d.model, d.width);
  if (uint64_t{d.param_offset} + params > c.param_words) return d;
  uint64_t words = 0;
  if (d.model == static_cast<uint8_t>(internal::Model::kDelta)) {
    // spec §8.9 Exceptions word, checked as the host checked it.
    const uint64_t e = __ldg(c.params + d.param_offset + 1);
    if (!internal::DeltaExceptionsValid(e, d.rows, d.width, kTypeBits)) return d;
    words = internal::DeltaPayloadWords(d.rows, d.width, c.values_per_lane,
                                        internal::UnpackDeltaExceptions(e));
  } else if (d.model == static_cast<uint8_t>(internal::Model::kPatchedFor)) {
    // spec §8.12: DELTA's Exceptions word (word 1) with Rows_EF, checked as
    // the host checked it; the exception lists follow the n SLAP fields.
    const uint64_t e = __ldg(c.params + d.param_offset + 1);
    if (!internal::PatchedForExceptionsValid(e, d.rows, d.width, kTypeBits)) return d;
    words = internal::PatchedForPayloadWords(d.rows, d.width, internal::UnpackDeltaExceptions(e));
  } else if (d.model == static_cast<uint8_t>(internal::Model::kRunsEf)) {
    // spec §8.11 parameters, checked as the host checked them.
    const uint64_t runs = __ldg(c.params + d.param_offset + 1);  // spec §8.2 Num_Runs
    if (!internal::RunsEfParamsValid(d.rows, runs, d.width)) return d;
    // payload_words(p) (RunsEfPayloadWords, whose used_bits() is host-only).
    const internal::RunsEfLayout g = internal::MakeRunsEfLayout(d.rows, runs, d.width);
    words = (g.high_bit0 + g.high_bits + 63) / 64;
  } else if (internal::IsSlapModel(d.model)) {
    words = internal::SlapPayloadWords(d.rows, d.width);
  } else if (d.width > 0) {
    const uint64_t runs = __ldg(c.params + d.param_offset + 1);  // spec §8.2 Num_Runs
    if (runs < 1 || runs > d.rows) return d;
    words = internal::RunPayloadWords(d.rows, d.width, runs);
  }
  // spec §8.6: 4 words of padding follow the last partition; readers load up
  // to two words past a partition's last field.
  if (d.word_offset + words + internal::kPayloadPaddingBytes / 8 > c.payload_words) return d;
  d.ok = true;
  return d;
}

/// The partition holding chunk row `x` (spec §7.3: binary search on
/// First_Row), found by the whole warp at once: each round samples 32
/// records and narrows the range 32-fold, so a lookup costs ceil(log32 P)
/// dependent loads. Always returns a value < num_partitions.
__device__ __forceinline__ uint32_t WarpFindPartition(const KernelChunk& c, uint32_t x,
                                                      uint32_t lane) {
  uint32_t lo = 0;
  uint32_t hi = c.num_partitions;
  while (hi - lo > 1) {
    const uint32_t step = (hi - lo + 31) / 32;
    const uint32_t pos = lo + lane * step;
    const bool le = pos < hi && __ldg(&c.table[pos].x) <= x;
    const uint32_t mask = __ballot_sync(0xFFFFFFFFu, le);
    if (mask == 0) break;  // only with an inconsistent table; lo stays valid
    lo += (31 - __clz(static_cast<int>(mask))) * step;
    hi = min(hi, lo + step);
  }
  return lo;
}

/// The same lookup by one thread (random access).
__device__ __forceinline__ uint32_t FindPartition(const KernelChunk& c, uint32_t x) {
  uint32_t lo = 0;
  uint32_t hi = c.num_partitions;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (__ldg(&c.table[mid].x) <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The `w`-bit field (w <= 64) at stream bit `bit` (spec §8.5 bit order).
/// Loads the word holding the field's first bit and the next one; the
/// caller guarantees both lie in the payload segment.
__device__ __forceinline__ uint64_t LoadField(const uint64_t* words, uint64_t bit, uint32_t w) {
  const uint64_t* p = words + (bit >> 6);
  const uint32_t s = static_cast<uint32_t>(bit & 63);
  const uint64_t lo = __ldg(p);
  const uint64_t hi = __ldg(p + 1);
  const uint64_t v = s == 0 ? lo : (lo >> s) | (hi << (64 - s));
  return v & internal::LowMask(w);
}

/// The sequential bit reader of one lane over its contiguous run of fields
/// (spec §8.5: lane-major). It holds a 128-bit window (two words) and the bit
/// position inside the first; each field is cut out with 32-bit funnel
/// shifts, without branches. It loads the next word when the position
/// passes 64, so it reads each payload word once. kStride is the distance
/// between a lane's consecutive words: 1 in global memory, the row pitch in
/// a transposed shared-memory stage.
template <uint32_t kStride>
struct LaneBitReader {
  const uint64_t* next;
  uint64_t cur;
  uint64_t nxt;
  uint32_t pos;

  __device__ __forceinline__ static uint64_t Load(const uint64_t* p) {
    if constexpr (kStride == 1) {
      return __ldg(p);
    } else {
      return *p;
    }
  }

  /// `first` holds the lane's first word, `bit` (< 64) the position in it.
  __device__ __forceinline__ void Init(const uint64_t* first, uint32_t bit) {
    pos = bit;
    cur = Load(first);
    nxt = Load(first + kStride);
    next = first + 2 * kStride;
  }

  __device__ __forceinline__ void Advance(uint32_t w) {
    pos += w;
    if (pos >= 64) {
      pos -= 64;
      cur = nxt;
      nxt = Load(next);
      next += kStride;
    }
  }

  /// A field of w <= 32 bits: it lies in the 64-bit window starting at the
  /// 32-bit word that holds bit `pos`.
  __device__ __forceinline__ uint32_t Take32(uint32_t w, uint32_t mask) {
    const uint32_t c_lo = static_cast<uint32_t>(cur);
    const uint32_t c_hi = static_cast<uint32_t>(cur >> 32);
    const uint32_t n_lo = static_cast<uint32_t>(nxt);
    const bool upper = pos >= 32;
    const uint32_t a = upper ? c_hi : c_lo;
    const uint32_t b = upper ? n_lo : c_hi;
    const uint32_t f = __funnelshift_r(a, b, pos) & mask;  // shift is pos mod 32
    Advance(w);
    return f;
  }

  /// The 64 stream bits from `pos`: three 32-bit words of the 128-bit
  /// window, cut with two funnel shifts.
  __device__ __forceinline__ uint64_t Window64() const {
    const uint32_t c_lo = static_cast<uint32_t>(cur);
    const uint32_t c_hi = static_cast<uint32_t>(cur >> 32);
    const uint32_t n_lo = static_cast<uint32_t>(nxt);
    const uint32_t n_hi = static_cast<uint32_t>(nxt >> 32);
    const bool upper = pos >= 32;
    const uint32_t a = upper ? c_hi : c_lo;
    const uint32_t b = upper ? n_lo : c_hi;
    const uint32_t d = upper ? n_hi : n_lo;
    const uint32_t lo = __funnelshift_r(a, b, pos);
    const uint32_t hi = __funnelshift_r(b, d, pos);
    return (uint64_t{hi} << 32) | lo;
  }

  /// G consecutive fields of w <= 64 / G bits each (G = 2 or 4): the 64 bits
  /// from `pos` are cut out once and the fields shifted out of them, so the
  /// refill check runs once per G fields.
  template <int G>
  __device__ __forceinline__ void TakeGroup(uint32_t w, uint32_t mask, uint32_t (&f)[G]) {
    const uint64_t window = Window64();
    f[0] = static_cast<uint32_t>(window) & mask;
#pragma unroll
    for (int i = 1; i < G; ++i) f[i] = static_cast<uint32_t>(window >> (i * w)) & mask;
    Advance(G * w);
  }

  /// A field of w <= 64 bits, from the 128-bit window.
  __device__ __forceinline__ uint64_t Take64(uint32_t w, uint64_t mask) {
    const uint64_t f = Window64() & mask;
    Advance(w);
    return f;
  }
};

/// A hint to bring the line holding `p` into L1; never faults.
__device__ __forceinline__ void PrefetchL1(const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#endif
}

/// Parameter word `i` of a partition as binary64 (spec §8.2 float words).
__device__ __forceinline__ double ThetaAt(const KernelChunk& c, const DevicePartition& d,
                                          uint32_t i) {
  return __longlong_as_double(static_cast<long long>(__ldg(c.params + d.param_offset + i)));
}

}  // namespace l3::cuda::detail
