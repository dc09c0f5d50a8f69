// The CUDA half of CRC32C (crc32c.cpp is the CPU half): the CRC of a device
// buffer, equal to Crc32c(0, data, bytes).
//
// The buffer is cut into tiles of kCrc32cThreads pieces of `piece` bytes,
// counted from the 16-byte boundary at or below the buffer's start, so that
// every piece but the first and the last is read in aligned 16-byte words.
// Each thread takes one piece of a tile at a time and computes the
// uninverted, zero-start register of it with slicing-by-8 tables in shared
// memory. crc32c_combine.hpp gives the rest: the register of the whole
// buffer is the XOR of every piece's register shifted by the number of
// bytes after the piece, and the CRC is that XOR the inversion term. A
// tile's pieces are shifted to the tile's end with one multiplication each
// (the factors depend only on the thread for a full tile), the block folds
// its tiles' sums shifted to the buffer's end into one word, and the blocks
// XOR theirs into the result. XOR is order-free, so the result does not
// depend on the grid.
#pragma once

#include <cstdint>

#include "common/crc32c_combine.hpp"

namespace l3::internal {

inline constexpr int kCrc32cThreads = 256;

/// x^(8 * 2^k) mod P (crc32c_combine.hpp), in constant memory.
__constant__ const Crc32cPowerTable kCrc32cDevicePowers = MakeCrc32cPowerTable();

/// Slicing-by-8 tables: table[0] feeds one byte, table[s] a byte followed by
/// s zero bytes.
struct Crc32cSliceTables {
  uint32_t table[8][256];
};

__device__ __forceinline__ void BuildCrc32cTables(Crc32cSliceTables& t) {
  // blockDim.x == kCrc32cThreads == 256: one entry of each table per thread.
  const uint32_t i = threadIdx.x;
  uint32_t c = i;
  for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ kCrc32cPolyReflected : c >> 1;
  t.table[0][i] = c;
  __syncthreads();
  for (int s = 1; s < 8; ++s) {
    const uint32_t previous = t.table[s - 1][i];
    t.table[s][i] = (previous >> 8) ^ t.table[0][previous & 0xFF];
    __syncthreads();
  }
}

__device__ __forceinline__ uint32_t Crc32cFeedWord(const Crc32cSliceTables& t, uint32_t state,
                                                   uint64_t word) {
  word ^= state;
  const auto lo = static_cast<uint32_t>(word), hi = static_cast<uint32_t>(word >> 32);
  return t.table[7][lo & 0xFF] ^ t.table[6][(lo >> 8) & 0xFF] ^ t.table[5][(lo >> 16) & 0xFF] ^
         t.table[4][lo >> 24] ^ t.table[3][hi & 0xFF] ^ t.table[2][(hi >> 8) & 0xFF] ^
         t.table[1][(hi >> 16) & 0xFF] ^ t.table[0][hi >> 24];
}

__device__ __forceinline__ uint32_t Crc32cFeedByte(const Crc32cSliceTables& t, uint32_t state,
                                                   uint8_t byte) {
  return (state >> 8) ^ t.table[0][(state ^ byte) & 0xFF];
}

/// The zero-start register of base[begin, end), base 16-byte aligned.
__device__ __forceinline__ uint32_t Crc32cRegister(const Crc32cSliceTables& t,
                                                   const uint8_t* __restrict__ base, uint64_t begin,
                                                   uint64_t end) {
  uint32_t state = 0;
  while (begin < end && (begin & 15) != 0) state = Crc32cFeedByte(t, state, base[begin++]);
  const auto* words = reinterpret_cast<const uint4*>(base);
#pragma unroll 4
  for (; begin + 16 <= end; begin += 16) {
    const uint4 w = __ldg(words + begin / 16);
    state = Crc32cFeedWord(t, state, (uint64_t{w.y} << 32) | w.x);
    state = Crc32cFeedWord(t, state, (uint64_t{w.w} << 32) | w.z);
  }
  while (begin < end) state = Crc32cFeedByte(t, state, base[begin++]);
  return state;
}

__device__ __forceinline__ uint32_t Crc32cZerosOperatorDevice(uint64_t bytes) {
  return Crc32cZerosOperator(bytes, kCrc32cDevicePowers);
}

/// XOR of `value` over the block (valid in thread 0). `scratch`: one word per
/// warp.
__device__ __forceinline__ uint32_t BlockXor(uint32_t value, uint32_t* scratch) {
  for (int offset = 16; offset > 0; offset /= 2)
    value ^= __shfl_xor_sync(0xFFFFFFFFu, value, offset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = 0;
  if (warp == 0) {
    value = lane < kCrc32cThreads / 32 ? scratch[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
      value ^= __shfl_xor_sync(0xFFFFFFFFu, value, offset);
  }
  __syncthreads();
  return value;
}

/// XORs into *crc (zeroed before) the Crc32c of data[0, bytes) (bytes > 0).
/// `piece`: a multiple of 16. blockDim.x == kCrc32cThreads.
__global__ void __launch_bounds__(kCrc32cThreads)
    Crc32cKernel(const uint8_t* data, uint64_t bytes, uint32_t piece, uint32_t* crc) {
  __shared__ Crc32cSliceTables tables;
  __shared__ uint32_t scratch[kCrc32cThreads / 32];
  BuildCrc32cTables(tables);

  // Positions count from `base`, the 16-byte boundary at or below `data`.
  const uint64_t head = reinterpret_cast<uintptr_t>(data) & 15;
  const uint8_t* base = data - head;
  const uint64_t end = head + bytes;
  const uint64_t tile_bytes = uint64_t{piece} * kCrc32cThreads;
  const uint64_t tiles = (end + tile_bytes - 1) / tile_bytes;
  // The shift of this thread's piece to the end of a full tile.
  const uint32_t full_tile_factor =
      Crc32cZerosOperatorDevice(uint64_t{kCrc32cThreads - 1 - threadIdx.x} * piece);

  uint32_t block_sum = 0;  // meaningful in thread 0
  for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const uint64_t tile_begin = tile * tile_bytes;
    const uint64_t tile_end = min(tile_begin + tile_bytes, end);
    const uint64_t piece_begin = tile_begin + uint64_t{threadIdx.x} * piece;
    const uint64_t lo = max(piece_begin, head), hi = min(piece_begin + piece, tile_end);
    uint32_t term = 0;
    if (lo < hi) {
      const uint32_t reg = Crc32cRegister(tables, base, lo, hi);
      const uint32_t factor = tile_end == tile_begin + tile_bytes
                                  ? full_tile_factor
                                  : Crc32cZerosOperatorDevice(tile_end - hi);
      term = Crc32cMultiply(reg, factor);
    }
    const uint32_t tile_sum = BlockXor(term, scratch);
    if (threadIdx.x == 0 && tile_sum != 0) {
      block_sum ^= Crc32cMultiply(tile_sum, Crc32cZerosOperatorDevice(end - tile_end));
    }
  }
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0)
      block_sum ^= ~Crc32cMultiply(0xFFFFFFFFu, Crc32cZerosOperatorDevice(bytes));
    if (block_sum != 0) atomicXor(crc, block_sum);
  }
}

}  // namespace l3::internal
