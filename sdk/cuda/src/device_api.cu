// The device layer of l3/cuda.hpp: host-side checks, launch configuration
// and dispatch by value size. Nothing here allocates or synchronizes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>

#include "codec/decode/decode_chunk.hpp"
#include "cuda_status.hpp"
#include "describe_chunk.hpp"
#include "format/layout.hpp"
#include "kernels/decode_kernels.cuh"
#include "launch_common.hpp"
#include "l3/cuda.hpp"

namespace l3::cuda {

namespace {

using detail::ChunkSet;
using detail::KernelChunk;
using detail::kMaxLaunchChunks;
using launch::Aligned;
using launch::CheckChunks;
using launch::CheckDescriptor;
using launch::MakeChunkSet;
using launch::SmCount;

constexpr uint32_t kDefaultBlockThreads = 128;
constexpr uint32_t kDefaultSpanRows = 2048;
// Launches with DELTA partitions (and no dictionary) decode 4096-row spans:
// their warps finish the staged partitions of a block at more uneven times,
// and a longer span evens that out (docs/results/gpu-notes.md, v14).
constexpr uint32_t kDefaultDeltaSpanRows = 4096;
// Launches that copy a dictionary to shared memory run 256-thread blocks: a
// large copy leaves few blocks resident, and larger blocks keep more warps.
constexpr uint32_t kDictionaryStageBlockThreads = 256;

// Shared memory of a dictionary launch (the DELTA + dictionary kernels, with
// or without RUNS_EF) besides the dictionary copy: the warp stages, and the
// kernel's static arrays (queried once from the kernel itself).
size_t DictionaryLaunchWarpStageBytes(int value_bytes, bool has_runs_ef) {
  switch (value_bytes) {
    case 1:
      return has_runs_ef ? detail::WarpStageBytes<uint8_t, true, true>()
                         : detail::WarpStageBytes<uint8_t, true, false>();
    case 2:
      return has_runs_ef ? detail::WarpStageBytes<uint16_t, true, true>()
                         : detail::WarpStageBytes<uint16_t, true, false>();
    case 4:
      return has_runs_ef ? detail::WarpStageBytes<uint32_t, true, true>()
                         : detail::WarpStageBytes<uint32_t, true, false>();
    default:
      return has_runs_ef ? detail::WarpStageBytes<uint64_t, true, true>()
                         : detail::WarpStageBytes<uint64_t, true, false>();
  }
}

size_t DictionaryLaunchStaticSharedBytes() {
  static const size_t bytes = [] {
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes,
                              detail::DecodeRowsKernel<uint64_t, 64, false, true, true, true>) !=
        cudaSuccess) {
      cudaGetLastError();
      return size_t{16 * 1024};  // more than the kernels' static arrays
    }
    return attributes.sharedSizeBytes;
  }();
  return bytes;
}

// An attribute of the current device, or `fallback` when it cannot be read.
size_t CurrentDeviceAttribute(cudaDeviceAttr attribute, size_t fallback) {
  int device = 0;
  int value = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
    cudaGetLastError();
    return fallback;
  }
  return static_cast<size_t>(value);
}

// Shared memory of one SM, what the driver keeps of it per block (1 KiB on
// sm_80 and sm_90), and the most one block may use.
constexpr size_t kReservedSharedBytesPerBlock = 1024;
size_t SharedBytesPerSm() {
  return CurrentDeviceAttribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 228 * 1024);
}
size_t SharedBytesPerBlockOptin() {
  return CurrentDeviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024);
}

// The dynamic shared memory a dictionary launch's block may have: warp
// stages plus the copy of the entries.
size_t DictionaryLaunchDynamicSharedLimit() {
  const size_t optin = SharedBytesPerBlockOptin();
  const size_t fixed = DictionaryLaunchStaticSharedBytes();
  return optin > fixed ? optin - fixed : 0;
}

template <typename U, int kV, bool kStageWide, bool kDelta = false, bool kDictionary = false,
          bool kRunsEf = false, int kMinBlocks = kDelta && !kDictionary ? 3 : 4>
Status LaunchDecode(const detail::DecodeArgs& args, uint32_t blocks, uint32_t threads,
                    cudaStream_t stream) {
  const auto kernel =
      detail::DecodeRowsKernel<U, kV, kStageWide, kDelta, kDictionary, kRunsEf, kMinBlocks>;
  size_t stage_bytes = 0;
  if constexpr (kStageWide) {
    stage_bytes = size_t{threads / 32} * args.stage_rows * detail::kStagePitch * sizeof(uint64_t);
    const cudaError_t error = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stage_bytes));
    if (error != cudaSuccess) {
      cudaGetLastError();  // not sticky: later calls must not be blamed for it
      return CudaStatus(error, "cudaFuncSetAttribute (wide tile stage)");
    }
  }
  if constexpr (kDelta || kRunsEf) {
    stage_bytes = size_t{threads / 32} * detail::WarpStageBytes<U, kDelta, kRunsEf>();
  }
  if constexpr (kDictionary) {
    if (args.dictionary_stage_entries != 0) {
      // The block's copy of the entries follows the warp stages (8-byte
      // aligned, as every stage is a whole number of words).
      stage_bytes += size_t{args.dictionary_stage_entries} * sizeof(U);
      // The kernel may take all the dynamic shared memory a block can have,
      // set once per device: the attribute is process-wide, and setting it
      // to each launch's size would lower it under a launch of another
      // thread, or under this kernel's launches without a copy (their warp
      // stages alone exceed a small dictionary's setting).
      static std::mutex mutex;
      static uint64_t devices_done = 0;  // bit d: device d's attribute is set
      int device = 0;
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaGetDevice(&device), "cudaGetDevice"));
      const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
      std::lock_guard<std::mutex> lock(mutex);
      if ((devices_done & bit) == 0) {
        const cudaError_t error =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(DictionaryLaunchDynamicSharedLimit()));
        if (error != cudaSuccess) {
          cudaGetLastError();
          return CudaStatus(error, "cudaFuncSetAttribute (dictionary stage)");
        }
        devices_done |= bit;
      }
      // Persistent blocks: each copies the entries once per chunk it meets,
      // not once per span.
      int resident = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &resident, kernel, static_cast<int>(threads), stage_bytes) != cudaSuccess ||
          resident < 1) {
        cudaGetLastError();
        resident = 1;
      }
      blocks = std::min<uint32_t>(blocks, static_cast<uint32_t>(resident * SmCount()));
    }
  }
  kernel<<<blocks, threads, stage_bytes, stream>>>(args);
  return CheckLaunch("DecodeRowsKernel");
}

template <typename U>
Status LaunchDecodeByV(const detail::DecodeArgs& args, bool all_v64, bool stage_wide,
                       bool has_delta, bool has_dictionary, bool has_runs_ef, bool two_blocks,
                       bool delta_two_blocks, uint32_t blocks, uint32_t threads,
                       cudaStream_t stream) {
  // V = 64 (the writer's default) gets its own instantiation, so that the
  // tile geometry of layout.hpp folds into shifts; only it stages wide tiles.
  // Launches with DELTA partitions use the kernels that carry its decoder;
  // launches with dictionary chunks (rare: low-cardinality columns) those
  // that also look codes up. Each costs the span loop registers, so the
  // plain kernels carry neither. Launches with RUNS_EF partitions use
  // kernels that carry its decoder too: alone, the plain kernel plus
  // RUNS_EF; with DELTA or a dictionary, the DELTA + dictionary kernel plus
  // RUNS_EF (two kernels more per type and V, not four). A dictionary
  // launch at V = 64 whose copy of the entries leaves at most two blocks
  // per SM (`two_blocks`) gets a kernel built for two, with registers to
  // spare instead of spills. So does a DELTA launch (without a dictionary
  // or RUNS_EF) of 32- or 64-bit values at V = 64 that `delta_two_blocks`
  // marks (DecodeRowsImpl says which).
  if (has_runs_ef) {
    if (has_delta || has_dictionary) {
      if (all_v64) return LaunchDecode<U, 64, false, true, true, true>(args, blocks, threads, stream);
      return LaunchDecode<U, 0, false, true, true, true>(args, blocks, threads, stream);
    }
    if (all_v64) return LaunchDecode<U, 64, false, false, false, true>(args, blocks, threads, stream);
    return LaunchDecode<U, 0, false, false, false, true>(args, blocks, threads, stream);
  }
  if (has_dictionary) {
    if (all_v64 && two_blocks) {
      return LaunchDecode<U, 64, false, true, true, false, 2>(args, blocks, threads, stream);
    }
    if (all_v64) return LaunchDecode<U, 64, false, true, true>(args, blocks, threads, stream);
    return LaunchDecode<U, 0, false, true, true>(args, blocks, threads, stream);
  }
  if (has_delta) {
    if constexpr (sizeof(U) >= 4) {
      if (all_v64 && delta_two_blocks) {
        return LaunchDecode<U, 64, false, true, false, false, 2>(args, blocks, threads, stream);
      }
    }
    if (all_v64) return LaunchDecode<U, 64, false, true>(args, blocks, threads, stream);
    return LaunchDecode<U, 0, false, true>(args, blocks, threads, stream);
  }
  if (all_v64) {
    if (stage_wide) return LaunchDecode<U, 64, true>(args, blocks, threads, stream);
    return LaunchDecode<U, 64, false>(args, blocks, threads, stream);
  }
  return LaunchDecode<U, 0, false>(args, blocks, threads, stream);
}

template <typename U>
void LaunchTake(const detail::TakeArgs& args, uint32_t blocks, cudaStream_t stream) {
  detail::TakeKernel<U><<<blocks, kDefaultBlockThreads, 0, stream>>>(args);
}

Status DecodeRowsImpl(const DeviceChunk* chunks, size_t num_chunks, uint64_t row_begin,
                      uint64_t row_end, void* d_out, size_t out_bytes, cudaStream_t stream,
                      const LaunchConfig& config) {
  L3_CUDA_RETURN_NOT_OK(CheckChunks(chunks, num_chunks));
  const uint64_t column_begin = chunks[0].first_row;
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  if (row_begin > row_end || row_begin < column_begin || row_end > column_end) {
    return Status(StatusCode::kOutOfRange, "row range outside the chunks");
  }
  const int value_bytes = PhysicalTypeBytes(chunks[0].type);
  const uint64_t rows = row_end - row_begin;
  if (rows == 0) return Status::OK();
  if (d_out == nullptr || !Aligned(d_out, value_bytes)) {
    return Status(StatusCode::kInvalidArgument, "output null or misaligned");
  }
  if (out_bytes / value_bytes < rows) {
    return Status(StatusCode::kBufferTooSmall, "output smaller than the row range");
  }
  if (config.block_threads % 32 != 0 || config.block_threads > 256) {
    return Status(StatusCode::kInvalidArgument, "block_threads must be a multiple of 32, <= 256");
  }

  // One launch per group of up to kMaxLaunchChunks chunks that overlap the
  // range.
  size_t first = 0;
  while (chunks[first].first_row + chunks[first].num_rows <= row_begin) ++first;
  while (first < num_chunks && chunks[first].first_row < row_end) {
    size_t last = first;
    bool all_v64 = true;
    uint32_t max_v = 1;
    uint64_t launch_rows = 0;
    uint64_t launch_payload_bytes = 0;
    uint64_t wide_rows = 0;
    uint32_t max_wide_width = 0;
    bool has_delta = false;
    uint64_t delta_kernel_rows = 0;  // rows of DELTA and PATCHED_FOR partitions
    uint64_t launch_partitions = 0;
    bool has_dictionary = false;
    bool has_runs_ef = false;
    while (last < num_chunks && last - first < kMaxLaunchChunks && chunks[last].first_row < row_end) {
      all_v64 = all_v64 && chunks[last].values_per_lane == 64;
      max_v = std::max(max_v, chunks[last].values_per_lane);
      launch_rows += chunks[last].num_rows;
      launch_payload_bytes += chunks[last].payload_bytes;
      wide_rows += chunks[last].wide_full_tile_rows;
      max_wide_width = std::max(max_wide_width, chunks[last].max_wide_bit_width);
      // PATCHED_FOR tiles decode in the kernels that carry DELTA's decoder.
      has_delta = has_delta || chunks[last].delta_rows != 0 || chunks[last].patched_for_rows != 0;
      delta_kernel_rows += chunks[last].delta_rows + chunks[last].patched_for_rows;
      launch_partitions += chunks[last].num_partitions;
      has_dictionary = has_dictionary || chunks[last].dictionary_entries != 0;
      has_runs_ef = has_runs_ef || chunks[last].runs_ef_rows != 0;
      ++last;
    }
    using Staging = LaunchConfig::WideTileStaging;
    const bool stage_wide =
        all_v64 && config.wide_tile_staging != Staging::kOff &&
        (config.wide_tile_staging == Staging::kOn || (max_wide_width > 32 && 2 * wide_rows >= launch_rows));
    // Dictionary launches: the entries each block copies to shared memory
    // (the largest dictionary of the launch that fits the staging rule).
    uint32_t dictionary_stage_entries = 0;
    bool two_blocks = false;
    uint32_t threads = config.block_threads;
    if (has_dictionary && config.dictionary_staging != LaunchConfig::DictionaryStaging::kOff) {
      const uint32_t stage_threads = threads != 0 ? threads : kDictionaryStageBlockThreads;
      const size_t value_size = static_cast<size_t>(value_bytes);
      const size_t warp_stages = size_t{stage_threads / 32} *
                                 DictionaryLaunchWarpStageBytes(value_bytes, has_runs_ef);
      const size_t dynamic_limit = DictionaryLaunchDynamicSharedLimit();
      const size_t shared_left = dynamic_limit > warp_stages ? dynamic_limit - warp_stages : 0;
      const size_t limit =
          config.dictionary_staging == LaunchConfig::DictionaryStaging::kOn
              ? shared_left
              : std::min<size_t>(shared_left, LaunchConfig::kAutoDictionaryStageBytes);
      // The largest dictionary of the launch within the limit. kAuto leaves
      // out chunks whose elements lie mostly in RUNS_EF partitions: they look
      // a code up once per run, too rarely to pay for the blocks the copy
      // keeps from being resident (docs/results/gpu-notes.md, v27).
      uint64_t entries = 0;
      for (size_t i = first; i < last; ++i) {
        const DeviceChunk& chunk = chunks[i];
        const uint64_t d = chunk.dictionary_entries;
        const bool per_run = 2 * chunk.runs_ef_rows > chunk.num_rows + d;
        if (d * value_size <= limit &&
            (config.dictionary_staging == LaunchConfig::DictionaryStaging::kOn || !per_run)) {
          entries = std::max(entries, d);
        }
      }
      dictionary_stage_entries = static_cast<uint32_t>(entries);
      if (entries != 0) {
        threads = stage_threads;
        const size_t block_bytes = DictionaryLaunchStaticSharedBytes() + warp_stages +
                                   entries * value_size + kReservedSharedBytesPerBlock;
        two_blocks = 3 * block_bytes > SharedBytesPerSm();
      }
    }
    if (threads == 0) threads = kDefaultBlockThreads;
    // The DELTA kernel at 80 registers spills in its span loop and, for
    // 64-bit values, in its tile decoder; at 128 (two 256-thread blocks per
    // SM) it does not spill for 32-bit values and spills less for 64-bit
    // ones, but keeps fewer warps resident, which columns of small DELTA
    // partitions need to hide each one's setup. Measured on an H200
    // (docs/results/gpu-notes.md, v38), 128 registers pay where other models
    // hold most rows (their tiles pay for the spills and need no DELTA
    // registers) and for 64-bit values in partitions of 1024 rows or more
    // on average; elsewhere they cost 5-19%.
    const bool delta_two_blocks =
        has_delta && !has_dictionary && !has_runs_ef && value_bytes >= 4 &&
        (2 * delta_kernel_rows < launch_rows ||
         (value_bytes == 8 && launch_rows >= uint64_t{1024} * launch_partitions));
    const uint32_t warps_per_block = threads / 32;
    detail::DecodeArgs args{};
    args.chunks = MakeChunkSet(chunks, first, last);
    args.dictionary_stage_entries = dictionary_stage_entries;
    args.row_begin = std::max(row_begin, chunks[first].first_row);
    args.row_end = std::min(row_end, chunks[last - 1].first_row + chunks[last - 1].num_rows);
    // Spans are whole tiles of the largest V, so that a span holds at least
    // one tile start of every full-tile partition.
    const uint64_t tile_rows = uint64_t{internal::kLanes} * max_v;
    const uint64_t wanted = config.span_rows != 0            ? config.span_rows
                            : has_delta && !has_dictionary ? kDefaultDeltaSpanRows
                                                           : kDefaultSpanRows;
    const uint64_t span_rows = (wanted + tile_rows - 1) / tile_rows * tile_rows;
    if (span_rows > UINT32_MAX) return Status(StatusCode::kInvalidArgument, "span_rows too large");
    args.span_rows = static_cast<uint32_t>(span_rows);
    using Prefetch = LaunchConfig::PayloadPrefetch;
    args.prefetch_payload =
        config.payload_prefetch == Prefetch::kOn ||
        (config.payload_prefetch == Prefetch::kAuto && launch_payload_bytes * 8 <= 16 * launch_rows);
    // Stage rows for the widest field of the launch (the kernel checks each
    // tile's width against it); hints above 64 bits are not trusted.
    args.stage_rows = stage_wide ? std::min<uint32_t>(std::max<uint32_t>(max_wide_width, 33), 64) + 2 : 0;
    const uint64_t block_rows = span_rows * warps_per_block;
    args.num_block_spans = (args.row_end - args.row_begin + block_rows - 1) / block_rows;
    args.out = static_cast<uint8_t*>(d_out) + (args.row_begin - row_begin) * value_bytes;
    uint64_t blocks = args.num_block_spans;
    if (config.max_blocks != 0) blocks = std::min<uint64_t>(blocks, config.max_blocks);
    blocks = std::min<uint64_t>(blocks, INT32_MAX);
    const uint32_t grid = static_cast<uint32_t>(blocks);
    Status launched;
    switch (value_bytes) {
      case 1:
        launched = LaunchDecodeByV<uint8_t>(args, all_v64, stage_wide, has_delta, has_dictionary,
                                        has_runs_ef, two_blocks, delta_two_blocks, grid, threads,
                                        stream);
        break;
      case 2:
        launched = LaunchDecodeByV<uint16_t>(args, all_v64, stage_wide, has_delta, has_dictionary,
                                        has_runs_ef, two_blocks, delta_two_blocks, grid, threads,
                                        stream);
        break;
      case 4:
        launched = LaunchDecodeByV<uint32_t>(args, all_v64, stage_wide, has_delta, has_dictionary,
                                        has_runs_ef, two_blocks, delta_two_blocks, grid, threads,
                                        stream);
        break;
      default:
        launched = LaunchDecodeByV<uint64_t>(args, all_v64, stage_wide, has_delta, has_dictionary,
                                        has_runs_ef, two_blocks, delta_two_blocks, grid, threads,
                                        stream);
        break;
    }
    L3_CUDA_RETURN_NOT_OK(launched);
    first = last;
  }
  if (PhysicalTypeIsFloat(chunks[0].column_type)) {
    // spec §11.2.2: the values are u of the integer form; return f.
    const uint32_t grid = static_cast<uint32_t>(
        std::min<uint64_t>((rows + 255) / 256, uint64_t{8} * SmCount()));
    switch (value_bytes) {
      case 2:
        detail::FloatFromOrderedKernel<<<grid, 256, 0, stream>>>(static_cast<uint16_t*>(d_out), rows);
        break;
      case 4:
        detail::FloatFromOrderedKernel<<<grid, 256, 0, stream>>>(static_cast<uint32_t*>(d_out), rows);
        break;
      default:
        detail::FloatFromOrderedKernel<<<grid, 256, 0, stream>>>(static_cast<uint64_t*>(d_out), rows);
        break;
    }
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("FloatFromOrderedKernel"));
  }
  return Status::OK();
}

Status TakeImpl(const DeviceChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
                size_t num_rows, void* d_out, size_t out_bytes, cudaStream_t stream) {
  L3_CUDA_RETURN_NOT_OK(CheckChunks(chunks, num_chunks));
  if (num_rows == 0) return Status::OK();
  const int value_bytes = PhysicalTypeBytes(chunks[0].type);
  if (d_rows == nullptr || d_out == nullptr || !Aligned(d_rows, 8) ||
      !Aligned(d_out, value_bytes)) {
    return Status(StatusCode::kInvalidArgument, "row ids or output null or misaligned");
  }
  if (out_bytes / value_bytes < num_rows) {
    return Status(StatusCode::kBufferTooSmall, "output smaller than the number of row ids");
  }
  const uint64_t column_begin = chunks[0].first_row;
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  const uint64_t blocks = std::min<uint64_t>((num_rows + kDefaultBlockThreads - 1) / kDefaultBlockThreads,
                                             uint64_t{16} * SmCount());
  for (size_t first = 0; first < num_chunks; first += kMaxLaunchChunks) {
    const size_t last = std::min(num_chunks, first + kMaxLaunchChunks);
    detail::TakeArgs args{};
    args.chunks = MakeChunkSet(chunks, first, last);
    args.window_begin = chunks[first].first_row;
    args.window_end = chunks[last - 1].first_row + chunks[last - 1].num_rows;
    args.column_begin = column_begin;
    args.column_end = column_end;
    args.write_outside = first == 0;
    args.float_order = PhysicalTypeIsFloat(chunks[0].column_type);
    args.rows = d_rows;
    args.num_rows = num_rows;
    args.out = d_out;
    const uint32_t grid = static_cast<uint32_t>(blocks);
    switch (value_bytes) {
      case 1: LaunchTake<uint8_t>(args, grid, stream); break;
      case 2: LaunchTake<uint16_t>(args, grid, stream); break;
      case 4: LaunchTake<uint32_t>(args, grid, stream); break;
      default: LaunchTake<uint64_t>(args, grid, stream); break;
    }
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("TakeKernel"));
  }
  return Status::OK();
}

}  // namespace

bool DeviceAvailable() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

Result<DeviceChunk> MakeDeviceChunk(const ChunkView& view, const void* d_partition_table,
                                    const void* d_parameters, const void* d_payload) {
  return MakeDeviceChunk(view, d_partition_table, d_parameters, d_payload, nullptr);
}

Result<DeviceChunk> MakeDeviceChunk(const ChunkView& view, const void* d_partition_table,
                                    const void* d_parameters, const void* d_payload,
                                    const void* d_dictionary) {
  try {
    if (!PhysicalTypeIsInteger(view.type) || view.encoding != 1) {
      // IbpFloat chunks (spec §11.2.3) decode through DecodeIbpRows; float
      // chunks in the integer form (§11.2.2) decode here, as values.
      return Status(StatusCode::kUnsupportedFeature,
                    "not an L3Integer chunk (IbpFloat chunks: MakeDeviceIbpChunk)");
    }
    if (PhysicalTypeIsFloat(view.column_type) &&
        PhysicalTypeBytes(view.column_type) != PhysicalTypeBytes(view.type)) {
      return Status(StatusCode::kInvalidArgument,
                    "ChunkView column_type: a float type of another width than type");
    }
    // spec §10.2: the partition-table and parameter checks, before any
    // kernel sees the chunk.
    L3_CUDA_RETURN_NOT_OK(internal::ValidateChunkMetadata(view));
    if (view.dictionary_entries > 0 && d_dictionary == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    "a dictionary chunk (spec §8.10) needs its decoded entries in device memory");
    }
    const DeviceChunk c =
        detail::DescribeChunk(view, d_partition_table, d_parameters, d_payload, d_dictionary);
    L3_CUDA_RETURN_NOT_OK(CheckDescriptor(c));
    return c;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Result<size_t> DecodeRowsTempBytes(const DeviceChunk* chunks, size_t num_chunks,
                                   uint64_t row_begin, uint64_t row_end) {
  L3_CUDA_RETURN_NOT_OK(CheckChunks(chunks, num_chunks));
  const uint64_t column_end = chunks[num_chunks - 1].first_row + chunks[num_chunks - 1].num_rows;
  if (row_begin > row_end || row_begin < chunks[0].first_row || row_end > column_end) {
    return Status(StatusCode::kOutOfRange, "row range outside the chunks");
  }
  return size_t{0};
}

Status DecodeRows(const DeviceChunk* chunks, size_t num_chunks, uint64_t row_begin,
                  uint64_t row_end, void* d_out, size_t out_bytes, void* /*d_temp*/,
                  size_t /*temp_bytes*/, cudaStream_t stream, const LaunchConfig& config) {
  try {
    return DecodeRowsImpl(chunks, num_chunks, row_begin, row_end, d_out, out_bytes, stream,
                          config);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Result<size_t> TakeTempBytes(const DeviceChunk* chunks, size_t num_chunks, size_t /*num_rows*/) {
  L3_CUDA_RETURN_NOT_OK(CheckChunks(chunks, num_chunks));
  return size_t{0};
}

Status Take(const DeviceChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
            size_t num_rows, void* d_out, size_t out_bytes, void* /*d_temp*/,
            size_t /*temp_bytes*/, cudaStream_t stream) {
  try {
    return TakeImpl(chunks, num_chunks, d_rows, num_rows, d_out, out_bytes, stream);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

}  // namespace l3::cuda
