// The CUDA half of the chunk statistics (chunk_statistics.cpp is the CPU
// half). The device computes what the CPU decides on; the host side
// (sdk/cuda/src/encode_stats_api.cu) makes the same decisions from it:
//
//  - ChunkStatsKernel, one pass over the values: the minimum and maximum
//    (as order keys), the number of adjacent changes and whether the chunk
//    is sorted either way; for 8/16-bit types the bitmap of the values seen;
//    for 32/64-bit types the capped set of distinct canonical values (the
//    CPU's exact attempt): an open-addressing table of 64-bit keys filled
//    with atomicCAS (key 0 is a flag), with a global count of keys. A thread
//    stops inserting once the count passes the limit, and then inserts at
//    most one key more, so the table never holds more than the limit plus
//    one key per thread. Probing is bounded (kStatsMaxProbes), so a
//    pathological table ends the attempt instead of hanging; the host then
//    counts another way.
//  - HyperLogLogKernel, only when the set overflowed: the HyperLogLog
//    registers of HyperLogLog::SlotOf, as 32-bit words raised with atomicMax.
//    The host estimates from them with the CPU's code.
//
// The spec §7.6.1 distinct sketch (ComputeDistinctSketch) takes one pass as
// well, DistinctSketchKernel: its registers, and the same capped set with a
// cap of 256; the host builds the sketch's bytes with the CPU's code.
#pragma once

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "codec/encode/chunk_statistics.hpp"
#include "codec/encode/value_traits.hpp"

namespace l3::internal {

inline constexpr int kStatsThreads = 256;
inline constexpr int kStatsItems = 8;  // values per thread per tile
/// At most this many blocks, so at most kStatsMaxBlocks * kStatsThreads
/// threads insert into the set.
inline constexpr uint32_t kStatsMaxBlocks = 1024;
/// The set's slots: more than twice the most keys it can hold
/// (kExactDistinctLimit + 1 + one per thread).
inline constexpr uint64_t kStatsSetSlots = uint64_t{1} << 20;
static_assert(kStatsSetSlots >=
                  2 * (kExactDistinctLimit + 1 + uint64_t{kStatsMaxBlocks} * kStatsThreads),
              "the capped set must stay at most half full");
inline constexpr int kStatsMaxProbes = 4096;
/// A per-block cache of keys known to be in the set, so that few hot values
/// do not send every row to the same L2 lines.
inline constexpr uint32_t kStatsRecentKeys = 2048;

/// What ChunkStatsKernel leaves for the host (device memory, initialised by
/// InitStatsResultKernel).
struct DeviceStatsResult {
  unsigned long long min_key;  // OrderKey of the minimum
  unsigned long long max_key;
  unsigned long long changes;   // adjacent rows that differ
  unsigned long long set_size;  // nonzero keys inserted into the set
  unsigned int not_ascending;
  unsigned int not_descending;
  unsigned int has_zero;        // canonical value 0 was seen (set types)
  unsigned int set_overflow;    // more than kExactDistinctLimit nonzero keys
  unsigned int probe_overflow;  // a probe ran past kStatsMaxProbes
};

struct DeviceStatsScratch {
  DeviceStatsResult* result;
  uint32_t* bitmap;           // 2^N bits for 8/16-bit types (zeroed)
  unsigned long long* slots;  // kStatsSetSlots keys for 32/64-bit types (zeroed)
};

/// An unsigned 64-bit key in the numeric order of T's values.
template <typename T>
L3_HD uint64_t OrderKey(T v) {
  const uint64_t c = ValueTraits<T>::Canonical(v);
  return ValueTraits<T>::kSigned ? c ^ (uint64_t{1} << 63) : c;
}
/// The canonical extension of the value whose OrderKey is `key`.
template <typename T>
L3_HD uint64_t CanonicalOfOrderKey(uint64_t key) {
  return ValueTraits<T>::kSigned ? key ^ (uint64_t{1} << 63) : key;
}

__global__ void InitStatsResultKernel(DeviceStatsResult* result) {
  DeviceStatsResult r{};
  r.min_key = ~0ull;
  *result = r;
}

struct MinOf {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? a : b;
  }
};
struct MaxOf {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? b : a;
  }
};

/// Inserts a nonzero key into a set capped at `limit` keys; false once the
/// set overflowed or probing failed (the flag is set for everyone).
__device__ __forceinline__ bool InsertStatsKey(const DeviceStatsScratch& s, uint64_t key,
                                               uint64_t limit, unsigned long long* recent) {
  const uint64_t hash = StatisticsHash(key);
  unsigned long long* cached = &recent[(hash >> 40) % kStatsRecentKeys];
  if (*cached == key) return true;
  uint64_t slot = hash & (kStatsSetSlots - 1);
  for (int probe = 0; probe < kStatsMaxProbes; ++probe) {
    unsigned long long current = __ldcg(&s.slots[slot]);
    if (current == 0) {
      current = atomicCAS(&s.slots[slot], 0ull, static_cast<unsigned long long>(key));
      if (current == 0) {
        *cached = key;
        if (atomicAdd(&s.result->set_size, 1ull) >= limit) {
          atomicOr(&s.result->set_overflow, 1u);
          return false;
        }
        return true;
      }
    }
    if (current == key) {
      *cached = key;
      return true;
    }
    slot = (slot + 1) & (kStatsSetSlots - 1);
  }
  atomicOr(&s.result->probe_overflow, 1u);
  return false;
}

/// The one pass (see the top of the file). blockDim.x == kStatsThreads.
/// This thread's kStatsItems rows of the tile starting at `first` (row i
/// at first + k * kStatsThreads + threadIdx.x) and the row before each (the
/// row itself for row 0); rows at or past n are left unset.
template <typename T>
__device__ __forceinline__ void LoadStatsTile(const T* __restrict__ v, uint64_t n, uint64_t first,
                                              T (&x)[kStatsItems], T (&prev)[kStatsItems]) {
#pragma unroll
  for (int k = 0; k < kStatsItems; ++k) {
    const uint64_t i = first + static_cast<uint64_t>(k) * kStatsThreads + threadIdx.x;
    if (i < n) {
      x[k] = v[i];
      prev[k] = i > 0 ? v[i - 1] : x[k];
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kStatsThreads)
    ChunkStatsKernel(const T* __restrict__ v, uint64_t n, DeviceStatsScratch s) {
  using Traits = ValueTraits<T>;
  using Unsigned = typename Traits::Unsigned;
  constexpr bool kBitmap = Traits::kBits <= 16;
  constexpr uint32_t kWords = kBitmap ? (1u << Traits::kBits) / 32 : 1;
  constexpr uint32_t kRecent = kBitmap ? 1 : kStatsRecentKeys;
  __shared__ uint32_t bitmap[kWords];
  __shared__ unsigned long long recent[kRecent];
  const uint32_t tid = threadIdx.x;
  if constexpr (kBitmap) {
    for (uint32_t w = tid; w < kWords; w += kStatsThreads) bitmap[w] = 0;
  } else {
    for (uint32_t w = tid; w < kRecent; w += kStatsThreads) recent[w] = 0;
  }
  __syncthreads();

  uint64_t min_key = ~uint64_t{0}, max_key = 0, changes = 0;
  bool up = true, down = true;
  bool inserting = !kBitmap, seen_zero = false;
  constexpr uint64_t kTile = uint64_t{kStatsThreads} * kStatsItems;
  for (uint64_t first = uint64_t{blockIdx.x} * kTile; first < n;
       first += uint64_t{gridDim.x} * kTile) {
    if (!kBitmap && inserting) {
      const volatile DeviceStatsResult* r = s.result;
      inserting = (r->set_overflow | r->probe_overflow) == 0;
    }
    T x[kStatsItems], prev[kStatsItems];
#pragma unroll
    for (int k = 0; k < kStatsItems; ++k) {
      const uint64_t i = first + static_cast<uint64_t>(k) * kStatsThreads + tid;
      if (i < n) {
        x[k] = v[i];
        prev[k] = i > 0 ? v[i - 1] : x[k];
      }
    }
#pragma unroll
    for (int k = 0; k < kStatsItems; ++k) {
      const uint64_t i = first + static_cast<uint64_t>(k) * kStatsThreads + tid;
      if (i >= n) break;
      const uint64_t key = OrderKey(x[k]);
      min_key = min(min_key, key);
      max_key = max(max_key, key);
      changes += x[k] != prev[k] ? 1 : 0;
      up &= x[k] >= prev[k];
      down &= x[k] <= prev[k];
      if constexpr (kBitmap) {
        const uint32_t u = static_cast<Unsigned>(x[k]);
        const uint32_t bit = 1u << (u & 31);
        if ((static_cast<volatile uint32_t*>(bitmap)[u >> 5] & bit) == 0) {
          atomicOr(&bitmap[u >> 5], bit);
        }
      } else {
        if (inserting && (i == 0 || x[k] != prev[k])) {
          const uint64_t c = Traits::Canonical(x[k]);
          if (c == 0) {
            if (!seen_zero) {
              seen_zero = true;
              atomicOr(&s.result->has_zero, 1u);
            }
          } else {
            inserting = InsertStatsKey(s, c, kExactDistinctLimit, recent);
          }
        }
      }
    }
  }

  using Reduce = cub::BlockReduce<unsigned long long, kStatsThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long block_min = Reduce(temp).Reduce(min_key, MinOf());
  __syncthreads();
  const unsigned long long block_max = Reduce(temp).Reduce(max_key, MaxOf());
  __syncthreads();
  const unsigned long long block_changes = Reduce(temp).Sum(changes);
  const int block_not_up = __syncthreads_or(!up);
  const int block_not_down = __syncthreads_or(!down);
  if (tid == 0) {
    atomicMin(&s.result->min_key, block_min);
    atomicMax(&s.result->max_key, block_max);
    if (block_changes != 0) atomicAdd(&s.result->changes, block_changes);
    if (block_not_up) atomicOr(&s.result->not_ascending, 1u);
    if (block_not_down) atomicOr(&s.result->not_descending, 1u);
  }
  if constexpr (kBitmap) {
    for (uint32_t w = tid; w < kWords; w += kStatsThreads) {
      if (bitmap[w] != 0) atomicOr(&s.bitmap[w], bitmap[w]);
    }
  }
}

/// Raises registers[SlotOf(value).index] to its rank for every value
/// (registers: HyperLogLog::kRegisters words, zeroed).
template <typename T>
__global__ void __launch_bounds__(kStatsThreads)
    HyperLogLogKernel(const T* __restrict__ v, uint64_t n, uint32_t* registers) {
  constexpr uint64_t kTile = uint64_t{kStatsThreads} * kStatsItems;
  for (uint64_t first = uint64_t{blockIdx.x} * kTile; first < n;
       first += uint64_t{gridDim.x} * kTile) {
    T x[kStatsItems], prev[kStatsItems];
    LoadStatsTile(v, n, first, x, prev);
#pragma unroll
    for (int k = 0; k < kStatsItems; ++k) {
      const uint64_t i = first + static_cast<uint64_t>(k) * kStatsThreads + threadIdx.x;
      if (i >= n) break;
      // A repeat of the previous row changes no register.
      if (i > 0 && x[k] == prev[k]) continue;
      const HyperLogLog::Slot slot = HyperLogLog::SlotOf(ValueTraits<T>::Canonical(x[k]));
      // A stale (smaller) read only costs an atomic that changes nothing.
      if (registers[slot.index] < slot.rank) atomicMax(&registers[slot.index], slot.rank);
    }
  }
}

/// The spec §7.6.1 distinct sketch's inputs, one pass: the registers
/// (DistinctSketch::kRegisters words, zeroed; raised with atomicMax) and the
/// set of distinct canonical values capped at DistinctSketch::kMaxExactHashes
/// (the result's set fields, s.slots zeroed). blockDim.x == kStatsThreads.
template <typename T>
__global__ void __launch_bounds__(kStatsThreads)
    DistinctSketchKernel(const T* __restrict__ v, uint64_t n, DeviceStatsScratch s,
                         uint32_t* registers) {
  __shared__ unsigned long long recent[kStatsRecentKeys];
  for (uint32_t w = threadIdx.x; w < kStatsRecentKeys; w += kStatsThreads) recent[w] = 0;
  __syncthreads();
  bool inserting = true, seen_zero = false;
  constexpr uint64_t kTile = uint64_t{kStatsThreads} * kStatsItems;
  for (uint64_t first = uint64_t{blockIdx.x} * kTile; first < n;
       first += uint64_t{gridDim.x} * kTile) {
    if (inserting) {
      const volatile DeviceStatsResult* r = s.result;
      inserting = (r->set_overflow | r->probe_overflow) == 0;
    }
    T x[kStatsItems], prev[kStatsItems];
    LoadStatsTile(v, n, first, x, prev);
#pragma unroll
    for (int k = 0; k < kStatsItems; ++k) {
      const uint64_t i = first + static_cast<uint64_t>(k) * kStatsThreads + threadIdx.x;
      if (i >= n) break;
      if (i > 0 && x[k] == prev[k]) continue;  // a repeat adds nothing
      const uint64_t c = ValueTraits<T>::Canonical(x[k]);
      const SketchSlot slot = SketchSlotOf(StatisticsHash(c));
      // A stale (smaller) read only costs an atomic that changes nothing.
      if (registers[slot.index] < slot.rho) atomicMax(&registers[slot.index], slot.rho);
      if (!inserting) continue;
      if (c == 0) {
        if (!seen_zero) {
          seen_zero = true;
          atomicOr(&s.result->has_zero, 1u);
        }
      } else {
        inserting = InsertStatsKey(s, c, DistinctSketch::kMaxExactHashes, recent);
      }
    }
  }
}

/// Appends every key of the set to keys[] (*count zeroed; room for all).
__global__ void CollectKeysKernel(const unsigned long long* __restrict__ slots, uint64_t num_slots,
                                  unsigned long long* __restrict__ keys,
                                  unsigned long long* count) {
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < num_slots;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const unsigned long long key = slots[i];
    if (key != 0) keys[atomicAdd(count, 1ull)] = key;
  }
}

}  // namespace l3::internal
