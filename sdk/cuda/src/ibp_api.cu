// Float columns with Invariant Bit Packing on the GPU (spec §11.2.3): the
// device layer (MakeDeviceIbpChunk, DecodeIbpRows, GatherIbpRows) and the
// host convenience UploadIbpColumn. The warp decoder lives beside the CPU
// reference in codec/ibp/ibp_decode.cuh.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "codec/ibp/ibp_decode.cuh"
#include "codec/ibp/ibp_decode.hpp"
#include "common/status_macros.hpp"
#include "cuda_status.hpp"
#include "l3/cuda.hpp"

namespace l3::cuda {
namespace {

constexpr uint32_t kIbpBlockThreads = 256;

bool Aligned(const void* p, uint64_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

int SmCount() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 132;
  }
  return sms;
}

uint64_t RowBytes(const DeviceIbpChunk& c) {
  return uint64_t{c.row_width} * static_cast<uint64_t>(PhysicalTypeBytes(c.type));
}

Status CheckIbpChunks(const DeviceIbpChunk* chunks, size_t num_chunks) {
  if (chunks == nullptr || num_chunks == 0) {
    return Status(StatusCode::kInvalidArgument, "no chunks");
  }
  for (size_t i = 0; i < num_chunks; ++i) {
    const DeviceIbpChunk& c = chunks[i];
    if (c.type != chunks[0].type || c.row_width != chunks[0].row_width) {
      return Status(StatusCode::kInvalidArgument, "chunks of different columns");
    }
    if (i > 0 && c.first_row != chunks[i - 1].first_row + chunks[i - 1].num_rows) {
      return Status(StatusCode::kInvalidArgument, "chunks are not consecutive");
    }
    if (c.payload == nullptr || c.masks == nullptr || (c.word_bytes != 4 && c.word_bytes != 8)) {
      return Status(StatusCode::kInvalidArgument, "not a DeviceIbpChunk from MakeDeviceIbpChunk");
    }
  }
  return Status::OK();
}

internal::IbpKernelChunk ToKernel(const DeviceIbpChunk& c) {
  internal::IbpKernelChunk k{};
  k.masks = static_cast<const uint8_t*>(c.masks);
  k.row_offsets = static_cast<const uint64_t*>(c.row_offsets);
  k.mask_ids = static_cast<const uint8_t*>(c.mask_ids);
  k.payload = static_cast<const uint8_t*>(c.payload);
  k.first_row = c.first_row;
  k.num_rows = c.num_rows;
  k.payload_words = c.payload_words;
  k.word_bytes = c.word_bytes;
  k.words_per_row = c.words_per_row;
  k.num_masks = c.num_masks;
  k.offset_bits = c.offset_bits;
  return k;
}

// chunks[0, count) into `set`; returns the store width of the launch: the
// value size or the smallest word size, whichever is smaller (both divide
// every offset written).
uint32_t FillChunkSet(const DeviceIbpChunk* chunks, size_t count, internal::IbpChunkSet* set) {
  set->count = static_cast<uint32_t>(count);
  uint32_t store_bytes = static_cast<uint32_t>(PhysicalTypeBytes(chunks[0].type));
  for (size_t i = 0; i < count; ++i) {
    set->chunk[i] = ToKernel(chunks[i]);
    store_bytes = std::min(store_bytes, chunks[i].word_bytes);
  }
  return store_bytes;
}

// Blocks of a grid-stride launch: `blocks`, at least 1, at most 32 per SM.
uint32_t GridOf(uint64_t blocks) {
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(blocks, uint64_t{32} * SmCount())));
}

struct IbpLaunch {
  internal::IbpChunkSet set;
  uint64_t window_begin, window_end;  // rows this launch's chunks hold
  uint64_t column_begin, column_end;  // rows of all chunks
  bool zero_outside;                  // the first launch zeroes rows outside the column
  const uint64_t* rows;               // gather ids; null for a range
  uint64_t row_begin;                 // range: the first output row's column row
  uint64_t num_out;
  uint8_t* out;
  uint32_t row_bytes;
  uint32_t store_bytes;
  uint32_t group_lanes;               // lanes per row: a power of two, 1..32
};

// Gathers of rows of at least this many words use the wide-row decoder
// (IbpDecodeWideRow, four 32-word steps in flight per warp). Measured on the
// H100 (docs/results/gpu-notes.md, v17): 1024-row gathers of Cora, Citeseer
// and Pubmed rows (500-1852 words) ran 1.4-1.6x faster from device memory
// and 1.25-1.45x from pinned memory, while whole-column decodes were no
// faster (-1% to -6%) and gathers of 64-word rows slower (256 -> 190 GB/s).
constexpr uint64_t kWideGatherWords = 2 * 32 * internal::kIbpWideSteps;

// Gathers with a whole warp per row stage each row in shared memory
// (IbpDecodeStagedRow), up to this many bytes of a row per warp; longer rows
// take the row decoders.
constexpr uint32_t kIbpMaxStageBytes = 8192;

// One group of lanes per output row, grid-stride.
// kWide: IbpDecodeWideRow for rows of more than 32 words (its own
// instantiation, so the one-step kernel keeps its registers).
// kStaged: whole warps, each with `stage_bytes` of dynamic shared memory.
// kFieldLoads: whole-warp rows load their fields after the width scan
// (IbpDecodeOpenedWarpRow), for payloads in device memory.
template <bool kWide, bool kStaged, bool kFieldLoads = false>
__global__ void __launch_bounds__(kIbpBlockThreads) IbpRowsKernel(const IbpLaunch args,
                                                                  uint32_t stage_bytes) {
  extern __shared__ uint64_t ibp_stage[];
  internal::IbpGroup g;
  g.size = args.group_lanes;
  g.lane = threadIdx.x & (g.size - 1);
  const uint32_t first_lane = (threadIdx.x & 31) & ~(g.size - 1);
  g.members = g.size == 32 ? 0xFFFFFFFFu : ((1u << g.size) - 1) << first_lane;
  const uint64_t groups = uint64_t{gridDim.x} * (blockDim.x / g.size);
  for (uint64_t o = uint64_t{blockIdx.x} * (blockDim.x / g.size) + threadIdx.x / g.size;
       o < args.num_out; o += groups) {
    const uint64_t row = args.rows != nullptr ? __ldg(args.rows + o) : args.row_begin + o;
    uint8_t* out_row = args.out + o * args.row_bytes;
    if (row < args.column_begin || row >= args.column_end) {
      if (args.zero_outside) internal::IbpZeroRow(out_row, args.row_bytes, args.store_bytes, g);
      continue;
    }
    if (row < args.window_begin || row >= args.window_end) continue;
    if constexpr (kStaged) {
      uint8_t* stage = reinterpret_cast<uint8_t*>(ibp_stage) + (threadIdx.x / 32) * stage_bytes;
      internal::IbpDecodeStagedColumnRow(args.set, row, out_row, args.row_bytes, args.store_bytes,
                                         g, kWide, stage, stage_bytes);
    } else {
      internal::IbpDecodeColumnRow<kFieldLoads>(args.set, row, out_row, args.row_bytes,
                                                args.store_bytes, g, kWide);
    }
  }
}

// Lanes per row: the words of the widest row, rounded up to a power of two,
// at most a warp (rows of a few words share a warp).
uint32_t GroupLanes(const DeviceIbpChunk* chunks, size_t num_chunks) {
  uint64_t widest = 1;
  for (size_t i = 0; i < num_chunks; ++i) widest = std::max<uint64_t>(widest, chunks[i].words_per_row);
  uint32_t group_lanes = 1;
  while (group_lanes < 32 && group_lanes < widest) group_lanes <<= 1;
  return group_lanes;
}

// One kernel launch over chunks[0, count) (at most kMaxIbpLaunchChunks, the
// window), for gather ids `d_rows` or the range of `num_out` rows from
// `row_begin` (inside the window). `group_lanes` is the same for every
// launch of a call, so every launch of a gather names its rows alike.
Status LaunchIbpWindow(const DeviceIbpChunk* chunks, size_t count, uint64_t column_begin,
                       uint64_t column_end, bool zero_outside, const uint64_t* d_rows,
                       uint64_t row_begin, uint64_t num_out, uint8_t* d_out,
                       uint32_t group_lanes, bool wide, uint32_t stage_bytes,
                       bool field_loads, cudaStream_t stream) {
  const uint64_t row_bytes = RowBytes(chunks[0]);
  IbpLaunch args{};
  const uint32_t store_bytes = FillChunkSet(chunks, count, &args.set);
  args.window_begin = chunks[0].first_row;
  args.window_end = chunks[count - 1].first_row + chunks[count - 1].num_rows;
  args.column_begin = column_begin;
  args.column_end = column_end;
  args.zero_outside = zero_outside;
  args.rows = d_rows;
  args.row_begin = row_begin;
  args.num_out = num_out;
  args.out = d_out;
  args.row_bytes = static_cast<uint32_t>(row_bytes);
  args.store_bytes = store_bytes;
  args.group_lanes = group_lanes;
  const uint64_t rows_per_block = kIbpBlockThreads / group_lanes;
  const uint32_t grid = GridOf((num_out + rows_per_block - 1) / rows_per_block);
  if (stage_bytes > 0 && group_lanes == 32) {
    const uint32_t shared = stage_bytes * (kIbpBlockThreads / 32);
    auto kernel = wide ? IbpRowsKernel<true, true> : IbpRowsKernel<false, true>;
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared),
        "cudaFuncSetAttribute (IBP stage)"));
    kernel<<<grid, kIbpBlockThreads, shared, stream>>>(args, stage_bytes);
  } else if (wide && group_lanes == 32) {
    IbpRowsKernel<true, false><<<grid, kIbpBlockThreads, 0, stream>>>(args, 0);
  } else if (field_loads && group_lanes == 32) {
    IbpRowsKernel<false, false, true><<<grid, kIbpBlockThreads, 0, stream>>>(args, 0);
  } else {
    IbpRowsKernel<false, false><<<grid, kIbpBlockThreads, 0, stream>>>(args, 0);
  }
  return CheckLaunch("IbpRowsKernel");
}

// Rows of 17..64 words with one mask (IbpDecodeShortRowsBlock): one warp
// per index block of 64 rows, blocks of 128 threads (the kernel keeps each
// lane's mask words and two rows' loads in registers).
constexpr uint32_t kIbpShortRowsThreads = 128;

// block_begin numbers the launch's index blocks chunk after chunk; chunk i's
// first block in the range is first_block[i].
struct IbpShortRowsLaunch {
  internal::IbpChunkSet set;
  uint64_t block_begin[internal::kMaxIbpLaunchChunks + 1];
  uint64_t first_block[internal::kMaxIbpLaunchChunks];
  uint64_t row_begin, row_end;  // column rows; out holds row_begin at offset 0
  uint8_t* out;
  uint32_t row_bytes;
  uint32_t store_bytes;
};

template <typename Word, int kSteps>
__global__ void __launch_bounds__(kIbpShortRowsThreads)
    IbpShortRowsKernel(const IbpShortRowsLaunch args) {
  const uint32_t lane = threadIdx.x & 31;
  const uint64_t warps = uint64_t{gridDim.x} * (blockDim.x / 32);
  const uint64_t total = args.block_begin[args.set.count];
  internal::IbpShortRowMeta<Word, kSteps> meta;
  uint32_t loaded = ~0u;
  uint32_t c = 0;
  for (uint64_t u = uint64_t{blockIdx.x} * (blockDim.x / 32) + threadIdx.x / 32; u < total;
       u += warps) {
    // u only grows, so the chunk index only moves forward.
    while (c + 1 < args.set.count && args.block_begin[c + 1] <= u) ++c;
    if (c != loaded) {
      internal::IbpLoadShortRowMeta<Word, kSteps>(args.set.chunk[c], lane, &meta);
      loaded = c;
    }
    internal::IbpDecodeShortRowsBlock<Word, kSteps>(
        args.set.chunk[c], args.first_block[c] + (u - args.block_begin[c]), args.row_begin,
        args.row_end, meta, args.out, args.row_bytes, args.store_bytes, lane);
  }
}

// Diagnostic switches, to compare decoders' speed or output in one build:
// L3_IBP_SHORT_ROWS=0 decodes short rows with the row kernel,
// L3_IBP_STAGED_GATHERS=0 and L3_IBP_STAGED_RANGES=0 decode rows without the
// shared-memory stage, L3_IBP_NARROW_STAGES=0 stages pinned gathers' rows
// only from kWideGatherWords words on, L3_IBP_FIELD_LOADS=0 rows in device
// memory with the stream loads before the scan.
bool SwitchedOn(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::strcmp(v, "0") != 0;
}
bool ShortRowsAllowed() {
  static const bool allowed = SwitchedOn("L3_IBP_SHORT_ROWS");
  return allowed;
}
bool FieldLoadsAllowed() {
  static const bool allowed = SwitchedOn("L3_IBP_FIELD_LOADS");
  return allowed;
}
bool StagedGathersAllowed() {
  static const bool allowed = SwitchedOn("L3_IBP_STAGED_GATHERS");
  return allowed;
}
bool NarrowStagesAllowed() {
  static const bool allowed = SwitchedOn("L3_IBP_NARROW_STAGES");
  return allowed;
}
bool StagedRangesAllowed() {
  static const bool allowed = SwitchedOn("L3_IBP_STAGED_RANGES");
  return allowed;
}

// The steps of 32 words of a run of chunks that the short-row decoder takes
// (every chunk indexed, one mask, the same word size and 17..64 words a row
// in the same number of steps), or 0.
int ShortRowSteps(const DeviceIbpChunk* chunks, size_t count) {
  int steps = 0;
  for (size_t i = 0; i < count; ++i) {
    const DeviceIbpChunk& c = chunks[i];
    const uint32_t m = c.words_per_row;
    if (c.row_offsets == nullptr || c.mask_ids != nullptr || c.num_masks != 1 ||
        c.word_bytes != chunks[0].word_bytes || m < internal::kIbpShortRowsMinWords ||
        m > 32 * internal::kIbpShortRowsMaxSteps) {
      return 0;
    }
    const int s = static_cast<int>((m + 31) / 32);
    if (i > 0 && s != steps) return 0;
    steps = s;
  }
  return steps;
}

// Column rows [lo, hi) of chunks[0, count) (inside them) into `out` (row lo
// at offset 0) with IbpShortRowsKernel; `steps` from ShortRowSteps.
Status LaunchIbpShortRows(const DeviceIbpChunk* chunks, size_t count, int steps, uint64_t lo,
                          uint64_t hi, uint8_t* out, cudaStream_t stream) {
  IbpShortRowsLaunch args{};
  args.store_bytes = FillChunkSet(chunks, count, &args.set);
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    const DeviceIbpChunk& c = chunks[i];
    const uint64_t a = std::max(lo, c.first_row), b = std::min(hi, c.first_row + c.num_rows);
    args.block_begin[i] = total;
    if (a < b) {
      args.first_block[i] = (a - c.first_row) / internal::kIbpBlockRows;
      total += (b - 1 - c.first_row) / internal::kIbpBlockRows - args.first_block[i] + 1;
    }
  }
  args.block_begin[count] = total;
  args.row_begin = lo;
  args.row_end = hi;
  args.out = out;
  args.row_bytes = static_cast<uint32_t>(RowBytes(chunks[0]));
  if (total == 0) return Status::OK();
  const uint64_t warps_per_block = kIbpShortRowsThreads / 32;
  const uint32_t grid = GridOf((total + warps_per_block - 1) / warps_per_block);
  const bool wide_words = chunks[0].word_bytes == 8;
  if (wide_words && steps == 2) {
    IbpShortRowsKernel<uint64_t, 2><<<grid, kIbpShortRowsThreads, 0, stream>>>(args);
  } else if (wide_words) {
    IbpShortRowsKernel<uint64_t, 1><<<grid, kIbpShortRowsThreads, 0, stream>>>(args);
  } else if (steps == 2) {
    IbpShortRowsKernel<uint32_t, 2><<<grid, kIbpShortRowsThreads, 0, stream>>>(args);
  } else {
    IbpShortRowsKernel<uint32_t, 1><<<grid, kIbpShortRowsThreads, 0, stream>>>(args);
  }
  return CheckLaunch("IbpShortRowsKernel");
}

// A chunk without a row index holds every row raw (spec §11.2.3): row r is
// the M words at r * M, whose first row_bytes bytes (little-endian words)
// are the row's values. Its rows are a strided copy, at copy bandwidth.
bool IsPlainRawChunk(const DeviceIbpChunk& c) {
  constexpr uint64_t kMaxCopyPitch = uint64_t{1} << 30;
  return c.row_offsets == nullptr &&
         uint64_t{c.words_per_row} * c.word_bytes <= kMaxCopyPitch;
}

Status CopyRawRows(const DeviceIbpChunk& c, uint64_t lo, uint64_t hi, uint8_t* d_out,
                   cudaStream_t stream) {
  const uint64_t row_bytes = RowBytes(c);
  const uint64_t pitch = uint64_t{c.words_per_row} * c.word_bytes;
  const uint8_t* src = static_cast<const uint8_t*>(c.payload) + (lo - c.first_row) * pitch;
  // cudaMemcpyDefault: the payload may be device memory or mapped pinned
  // host memory (IbpResidency::kPinnedHost).
  const cudaError_t e =
      pitch == row_bytes
          ? cudaMemcpyAsync(d_out, src, (hi - lo) * row_bytes, cudaMemcpyDefault, stream)
          : cudaMemcpy2DAsync(d_out, row_bytes, src, pitch, row_bytes, hi - lo, cudaMemcpyDefault,
                              stream);
  return CudaStatus(e, "cudaMemcpyAsync (raw IBP rows)");
}

uint64_t NarrowestRow(const DeviceIbpChunk* chunks, size_t num_chunks) {
  uint64_t narrowest = UINT64_MAX;
  for (size_t i = 0; i < num_chunks; ++i) {
    narrowest = std::min<uint64_t>(narrowest, chunks[i].words_per_row);
  }
  return narrowest;
}

// The per-warp stage of a launch over chunks[0, num_chunks), or 0 for none.
// Rows of whole warps with at least `min_words` words in every chunk are
// staged: the stage holds a raw row of the widest chunk, at most
// kIbpMaxStageBytes. Measured on the H100 (docs/results/gpu-notes.md, v24):
// 1024-row gathers of Citeseer and Cora from pinned memory 1.07-1.32x
// faster; the 250-word rows of Pubmed and the 64-word rows of the table 10%
// slower from device memory, so device gathers stage rows of at least
// kWideGatherWords words only. Pinned gathers stage every whole-warp row:
// one PCIe round trip a row instead of one a step (gpu-notes.md v35: 65,536
// rows of a 2M x 128 table 63-81 -> 98-101 GB/s on an H200; of the 10M-row
// table 38 either way).
uint32_t StageBytes(const DeviceIbpChunk* chunks, size_t num_chunks, uint32_t group_lanes,
                    uint64_t min_words = kWideGatherWords) {
  if (group_lanes != 32 || NarrowestRow(chunks, num_chunks) < min_words) return 0;
  uint64_t widest_bytes = 0;
  for (size_t i = 0; i < num_chunks; ++i) {
    widest_bytes = std::max<uint64_t>(widest_bytes,
                                      uint64_t{chunks[i].words_per_row} * chunks[i].word_bytes);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(widest_bytes, kIbpMaxStageBytes));
}

// Whether the chunk's payload lies in host memory (mapped pinned memory,
// read across PCIe: IbpResidency::kPinnedHost). Range decodes stage wide
// rows only there. Measured on the H100 (gpu-notes.md v24), staging the
// rows of a whole-column decode took pinned decodes of Cora, Citeseer and
// Pubmed 1.16-1.40x faster, and device decodes -8% to +3%.
bool PayloadInHostMemory(const DeviceIbpChunk& c) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, c.payload) != cudaSuccess) {
    cudaGetLastError();  // not a pointer CUDA knows: decode it unstaged
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

Status LaunchIbpGather(const DeviceIbpChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
                       uint64_t num_out, void* d_out, cudaStream_t stream) {
  const uint64_t column_begin = chunks[0].first_row;
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  const uint32_t group_lanes = GroupLanes(chunks, num_chunks);
  const bool wide = NarrowestRow(chunks, num_chunks) >= kWideGatherWords;
  for (size_t first = 0; first < num_chunks; first += internal::kMaxIbpLaunchChunks) {
    const size_t count = std::min<size_t>(num_chunks - first, internal::kMaxIbpLaunchChunks);
    const bool in_host_memory = PayloadInHostMemory(chunks[first]);
    const bool field_loads = FieldLoadsAllowed() && !in_host_memory;
    // Gathers from pinned memory stage every whole-warp row (one PCIe round
    // trip a row); from device memory only the wide ones.
    const uint64_t min_words = in_host_memory && NarrowStagesAllowed() ? 0 : kWideGatherWords;
    const uint32_t stage_bytes =
        StagedGathersAllowed() ? StageBytes(chunks, num_chunks, group_lanes, min_words) : 0u;
    L3_CUDA_RETURN_NOT_OK(LaunchIbpWindow(chunks + first, count, column_begin, column_end,
                                          /*zero_outside=*/first == 0, d_rows, 0, num_out,
                                          static_cast<uint8_t*>(d_out), group_lanes, wide,
                                          stage_bytes, field_loads, stream));
  }
  return Status::OK();
}

// Rows [row_begin, row_begin + num_out), inside the column: chunks without a
// row index by copies, runs of the other chunks (at most
// kMaxIbpLaunchChunks each) by one kernel launch over their rows.
Status LaunchIbpRange(const DeviceIbpChunk* chunks, size_t num_chunks, uint64_t row_begin,
                      uint64_t num_out, void* d_out, cudaStream_t stream) {
  const uint64_t row_bytes = RowBytes(chunks[0]);
  const uint64_t row_end = row_begin + num_out;
  const uint64_t column_begin = chunks[0].first_row;
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  const uint32_t group_lanes = GroupLanes(chunks, num_chunks);
  uint8_t* out = static_cast<uint8_t*>(d_out);
  size_t k = 0;
  while (k < num_chunks) {
    const DeviceIbpChunk& c = chunks[k];
    const uint64_t c_end = c.first_row + c.num_rows;
    if (c_end <= row_begin) {
      ++k;
      continue;
    }
    if (c.first_row >= row_end) break;
    if (IsPlainRawChunk(c)) {
      const uint64_t lo = std::max(row_begin, c.first_row);
      const uint64_t hi = std::min(row_end, c_end);
      L3_CUDA_RETURN_NOT_OK(CopyRawRows(c, lo, hi, out + (lo - row_begin) * row_bytes, stream));
      ++k;
      continue;
    }
    size_t last = k + 1;
    while (last < num_chunks && last - k < internal::kMaxIbpLaunchChunks &&
           chunks[last].first_row < row_end && !IsPlainRawChunk(chunks[last])) {
      ++last;
    }
    const uint64_t lo = std::max(row_begin, c.first_row);
    const uint64_t hi = std::min(row_end, chunks[last - 1].first_row + chunks[last - 1].num_rows);
    const int short_steps = ShortRowsAllowed() ? ShortRowSteps(chunks + k, last - k) : 0;
    if (short_steps > 0) {
      L3_CUDA_RETURN_NOT_OK(LaunchIbpShortRows(chunks + k, last - k, short_steps, lo, hi,
                                               out + (lo - row_begin) * row_bytes, stream));
      k = last;
      continue;
    }
    const bool in_host_memory = PayloadInHostMemory(c);
    L3_CUDA_RETURN_NOT_OK(LaunchIbpWindow(chunks + k, last - k, column_begin, column_end,
                                          /*zero_outside=*/false, nullptr, lo, hi - lo,
                                          out + (lo - row_begin) * row_bytes, group_lanes,
                                          /*wide=*/false,
                                          StagedRangesAllowed() && in_host_memory
                                              ? StageBytes(chunks + k, last - k, group_lanes)
                                              : 0u,
                                          FieldLoadsAllowed() && !in_host_memory, stream));
    k = last;
  }
  return Status::OK();
}

Status CheckOutput(const DeviceIbpChunk* chunks, uint64_t rows, const void* d_out,
                   size_t out_bytes) {
  const uint64_t row_bytes = RowBytes(chunks[0]);
  if (row_bytes > UINT32_MAX) return Status(StatusCode::kInvalidArgument, "rows too wide");
  if (d_out == nullptr || !Aligned(d_out, static_cast<uint64_t>(PhysicalTypeBytes(chunks[0].type)))) {
    return Status(StatusCode::kInvalidArgument, "output null or not aligned to the value size");
  }
  if (out_bytes / row_bytes < rows) {
    return Status(StatusCode::kBufferTooSmall, "output smaller than the rows asked for");
  }
  return Status::OK();
}

}  // namespace

Result<DeviceIbpChunk> MakeDeviceIbpChunk(const ChunkView& view, const void* masks,
                                          const void* row_offsets, const void* mask_ids,
                                          const void* payload) {
  try {
    if (view.encoding != 2 || !PhysicalTypeIsFloat(view.type)) {
      return Status(StatusCode::kUnsupportedFeature, "not an IbpFloat chunk (spec §11.2.3)");
    }
    const IbpChunkView& ibp = view.ibp;
    if (masks == nullptr || payload == nullptr || !Aligned(masks, ibp.word_bytes) ||
        !Aligned(payload, 8) || (ibp.row_offsets != nullptr) != (row_offsets != nullptr) ||
        (row_offsets != nullptr && !Aligned(row_offsets, 8)) ||
        (ibp.mask_ids != nullptr) != (mask_ids != nullptr)) {
      return Status(StatusCode::kInvalidArgument,
                    "IBP segment pointers null, misaligned or not matching the chunk");
    }
    // spec §11.2.4 step 3 again, on the view the copies were made from.
    L3_CUDA_RETURN_NOT_OK(internal::ValidateIbpIndex(view));
    DeviceIbpChunk c;
    c.type = view.type;
    c.row_width = view.row_width;
    c.first_row = view.first_row;
    c.num_rows = view.num_rows;
    c.word_bytes = ibp.word_bytes;
    c.words_per_row = ibp.words_per_row;
    c.num_masks = ibp.num_masks;
    c.offset_bits = ibp.offset_bits;
    c.masks = masks;
    c.row_offsets = row_offsets;
    c.mask_ids = mask_ids;
    c.payload = payload;
    c.payload_words = internal::IbpPayloadWords(view);
    return c;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Status DecodeIbpRows(const DeviceIbpChunk* chunks, size_t num_chunks, uint64_t row_begin,
                     uint64_t row_end, void* d_out, size_t out_bytes, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(CheckIbpChunks(chunks, num_chunks));
  const uint64_t column_begin = chunks[0].first_row;
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  if (row_begin > row_end || row_begin < column_begin || row_end > column_end) {
    return Status(StatusCode::kOutOfRange, "rows outside the chunks");
  }
  if (row_begin == row_end) return Status::OK();
  L3_CUDA_RETURN_NOT_OK(CheckOutput(chunks, row_end - row_begin, d_out, out_bytes));
  return LaunchIbpRange(chunks, num_chunks, row_begin, row_end - row_begin, d_out, stream);
}

Status GatherIbpRows(const DeviceIbpChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
                     size_t num_rows, void* d_out, size_t out_bytes, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(CheckIbpChunks(chunks, num_chunks));
  if (num_rows == 0) return Status::OK();
  if (d_rows == nullptr || !Aligned(d_rows, 8)) {
    return Status(StatusCode::kInvalidArgument, "row ids null or misaligned");
  }
  L3_CUDA_RETURN_NOT_OK(CheckOutput(chunks, num_rows, d_out, out_bytes));
  return LaunchIbpGather(chunks, num_chunks, d_rows, num_rows, d_out, stream);
}

// ---------------------------------------------------------------------------
// Host convenience layer

struct DeviceIbpColumn::Impl {
  std::vector<DeviceIbpChunk> chunks;
  void* device = nullptr;   // masks, indexes, ids (and payloads for kDevice)
  void* pinned = nullptr;   // payloads for kPinnedHost
  uint64_t num_rows = 0;
  uint64_t row_bytes = 0;
  uint64_t compressed_bytes = 0;
  uint64_t payload_bytes = 0;
  ~Impl() {
    if (device != nullptr) cudaFree(device);
    if (pinned != nullptr) cudaFreeHost(pinned);
  }
};

DeviceIbpColumn::DeviceIbpColumn() : impl_(std::make_unique<Impl>()) {}
DeviceIbpColumn::DeviceIbpColumn(DeviceIbpColumn&&) noexcept = default;
DeviceIbpColumn& DeviceIbpColumn::operator=(DeviceIbpColumn&&) noexcept = default;
DeviceIbpColumn::~DeviceIbpColumn() = default;
const std::vector<DeviceIbpChunk>& DeviceIbpColumn::chunks() const { return impl_->chunks; }
uint64_t DeviceIbpColumn::num_rows() const { return impl_->num_rows; }
uint64_t DeviceIbpColumn::row_bytes() const { return impl_->row_bytes; }
uint64_t DeviceIbpColumn::compressed_bytes() const { return impl_->compressed_bytes; }
uint64_t DeviceIbpColumn::payload_bytes() const { return impl_->payload_bytes; }

Result<DeviceIbpColumn> UploadIbpColumn(const Reader& reader, int column, IbpResidency residency,
                                        cudaStream_t stream) {
  try {
    if (column < 0 || column >= reader.num_columns()) {
      return Status(StatusCode::kOutOfRange, "column index out of range");
    }
    const ColumnInfo& col = reader.column(column);
    if (!PhysicalTypeIsFloat(col.type)) {
      return Status(StatusCode::kUnsupportedFeature, "not a float column");
    }
    constexpr uint64_t kAlign = 256;
    auto align = [](uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; };
    // Sizes from the footer first: one device region, one pinned region.
    uint64_t device_bytes = 0, pinned_bytes = 0;
    for (size_t k = 0; k < col.chunks.size(); ++k) {
      const ChunkInfo& ch = col.chunks[k];
      if (ch.encoding != 2) {
        return Status(StatusCode::kUnsupportedFeature,
                      "chunk " + std::to_string(k) +
                          " is in the integer form (spec §11.2.2): a column whose chunks are all "
                          "in that form decodes through UploadColumn and DecodeRows");
      }
      device_bytes += align(ch.ibp.masks.decoded_bytes) + align(ch.ibp.row_offsets.decoded_bytes) +
                      align(ch.ibp.mask_ids.decoded_bytes);
      (residency == IbpResidency::kDevice ? device_bytes : pinned_bytes) +=
          align(ch.payload.decoded_bytes);
    }
    DeviceIbpColumn out;
    DeviceIbpColumn::Impl& impl = *out.impl_;
    impl.num_rows = col.num_rows;
    impl.row_bytes = uint64_t{col.row_width} * static_cast<uint64_t>(PhysicalTypeBytes(col.type));
    if (device_bytes > 0) {
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMalloc(&impl.device, device_bytes), "cudaMalloc"));
    }
    if (pinned_bytes > 0) {
      L3_CUDA_RETURN_NOT_OK(
          CudaStatus(cudaHostAlloc(&impl.pinned, pinned_bytes, cudaHostAllocMapped), "cudaHostAlloc"));
    }
    uint8_t* device = static_cast<uint8_t*>(impl.device);
    uint8_t* pinned = static_cast<uint8_t*>(impl.pinned);
    for (size_t k = 0; k < col.chunks.size(); ++k) {
      L3_ASSIGN_OR_RETURN(ChunkView view, reader.GetChunkView(column, static_cast<int>(k)));
      const IbpChunkView& ibp = view.ibp;
      auto put_device = [&](const void* src, uint64_t bytes) -> Result<void*> {
        void* at = device;
        if (bytes > 0) {
          L3_CUDA_RETURN_NOT_OK(CudaStatus(
              cudaMemcpyAsync(at, src, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync"));
          // The view's bytes must stay until the copy is done.
          L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
        }
        device += align(bytes);
        return at;
      };
      const uint64_t word_row_bytes = uint64_t{ibp.words_per_row} * ibp.word_bytes;
      const uint64_t masks_bytes = 2 * uint64_t{ibp.num_masks} * word_row_bytes;
      L3_ASSIGN_OR_RETURN(void* d_masks, put_device(ibp.masks, masks_bytes));
      void* d_index = nullptr;
      if (ibp.row_offsets != nullptr) {
        L3_ASSIGN_OR_RETURN(d_index, put_device(ibp.row_offsets, ibp.row_offsets_bytes));
      }
      void* d_ids = nullptr;
      if (ibp.mask_ids != nullptr) {
        L3_ASSIGN_OR_RETURN(d_ids, put_device(ibp.mask_ids, view.num_rows));
      }
      void* d_payload = nullptr;
      if (residency == IbpResidency::kDevice) {
        L3_ASSIGN_OR_RETURN(d_payload, put_device(view.payload, view.payload_bytes));
      } else {
        std::memcpy(pinned, view.payload, view.payload_bytes);
        void* mapped = nullptr;
        L3_CUDA_RETURN_NOT_OK(
            CudaStatus(cudaHostGetDevicePointer(&mapped, pinned, 0), "cudaHostGetDevicePointer"));
        d_payload = mapped;
        pinned += align(view.payload_bytes);
      }
      L3_ASSIGN_OR_RETURN(DeviceIbpChunk chunk,
                          MakeDeviceIbpChunk(view, d_masks, d_index, d_ids, d_payload));
      impl.chunks.push_back(chunk);
      impl.compressed_bytes += view.payload_bytes + masks_bytes + ibp.row_offsets_bytes +
                               (ibp.mask_ids != nullptr ? view.num_rows : 0);
      impl.payload_bytes += view.payload_bytes;
    }
    return std::move(out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

}  // namespace l3::cuda
