// l3/cuda_scan.hpp: the host half of the GPU table scan. The plan is
// ScanTable's (scan/table_plan.hpp); this file turns it into the tables the
// kernel reads (chunk descriptors, one pruning verdict per partition, IN
// lists as ordered keys) and launches TableScanKernel and ScanReduceKernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>

#include "cuda_status.hpp"
#include "kernels/scan_kernels.cuh"
#include "launch_common.hpp"
#include "l3/cuda_scan.hpp"
#include "scan/table_plan.hpp"

namespace l3::cuda {

namespace {

using detail::KernelChunk;
using detail::ScanArgs;
using detail::ScanColumnArgs;
using detail::ScanPartial;

static_assert(kMaxScanColumns == detail::kMaxScanColumnsDevice, "one column limit");
static_assert(sizeof(DeviceScanTotals) == sizeof(ScanPartial), "totals are the reduced partial");

using detail::kScanThreads;
// Rows per block: a block's tiles of V = 64 (2048 rows) are decoded whole,
// so a tile cut by the block's edge is decoded by both blocks; 8192 rows
// bound that to a quarter of a block's decode at worst. Buffers of wide
// columns halve it (shared memory).
constexpr uint32_t kScanBlockRows = 8192;
constexpr size_t kScanMaxDynamicShared = 112 * 1024;

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

uint64_t OrderedKey(uint64_t canonical, bool is_signed) {
  return is_signed ? canonical ^ (uint64_t{1} << 63) : canonical;
}

/// A warp's DELTA stage for values of `bytes` bytes (DeltaStageBytes).
uint32_t StageBytes(uint32_t bytes) {
  return bytes == 8 ? detail::DeltaStageBytes<uint64_t>() : detail::DeltaStageBytes<uint32_t>();
}

size_t DynamicShared(uint32_t block_rows, uint32_t a_bytes, uint32_t b_bytes, uint32_t stage_bytes) {
  return size_t{kScanThreads / 32} * stage_bytes + 2 * size_t{block_rows / 32} * sizeof(uint32_t) +
         size_t{block_rows} * (a_bytes + b_bytes);
}

/// Lets TableScanKernel use up to kScanMaxDynamicShared bytes of dynamic
/// shared memory on the current device; set once per device, since the call
/// costs host time that a timed Run would otherwise include.
Status AllowScanSharedMemory() {
  constexpr int kDevices = 64;
  static std::atomic<bool> done[kDevices] = {};
  int device = 0;
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaGetDevice(&device), "cudaGetDevice"));
  if (device >= 0 && device < kDevices && done[device].load(std::memory_order_acquire)) return Status::OK();
  const cudaError_t error = cudaFuncSetAttribute(
      detail::TableScanKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kScanMaxDynamicShared));
  if (error != cudaSuccess) {
    cudaGetLastError();
    return CudaStatus(error, "cudaFuncSetAttribute (scan buffers)");
  }
  if (device >= 0 && device < kDevices) done[device].store(true, std::memory_order_release);
  return Status::OK();
}

}  // namespace

struct DeviceTableScan::Impl {
  internal::TableScanPlan plan;
  std::vector<uint8_t> tables;  // uploaded after the partials
  size_t tables_offset = 0;     // in the temporary storage
  size_t temp_bytes = 0;
  uint64_t num_blocks = 0;       // blocks launched
  bool all_blocks = true;        // false: block_list names the row blocks launched
  std::vector<uint32_t> block_list;
  size_t block_list_offset = 0;  // in the tables
  size_t dynamic_shared = 0;
  ScanArgs args{};              // `plan`, `selection` and `partials` set by Run
};

DeviceTableScan::DeviceTableScan() = default;
DeviceTableScan::DeviceTableScan(DeviceTableScan&&) noexcept = default;
DeviceTableScan& DeviceTableScan::operator=(DeviceTableScan&&) noexcept = default;
DeviceTableScan::~DeviceTableScan() = default;

size_t DeviceTableScan::temp_bytes() const { return impl_ ? impl_->temp_bytes : 0; }
uint64_t DeviceTableScan::num_rows() const { return impl_ ? impl_->plan.num_rows : 0; }

Result<DeviceTableScan> DeviceTableScan::Plan(const Reader& reader,
                                              const std::vector<ColumnPredicates>& where,
                                              const TableScanOptions& options,
                                              const std::vector<DeviceScanColumn>& columns) {
  try {
    auto impl = std::make_unique<Impl>();
    Result<internal::TableScanPlan> planned = internal::PlanTableScan(reader, where, options);
    if (!planned.ok()) return planned.status();
    impl->plan = std::move(planned).value();
    const internal::TableScanPlan& plan = impl->plan;
    if (plan.columns.size() > static_cast<size_t>(kMaxScanColumns)) {
      return Status(StatusCode::kUnsupportedFeature,
                    "a GPU scan reads at most " + std::to_string(kMaxScanColumns) + " columns");
    }
    std::vector<uint8_t>& tables = impl->tables;
    auto append = [&](const void* data, size_t bytes) {
      const size_t at = AlignUp(tables.size(), 8);
      tables.resize(at + bytes);
      if (bytes != 0) std::memcpy(tables.data() + at, data, bytes);
      return static_cast<uint64_t>(at);
    };
    ScanArgs& args = impl->args;
    args.num_columns = static_cast<uint32_t>(plan.columns.size());
    args.num_filtered = static_cast<uint32_t>(plan.num_filtered);
    args.sum_column = options.sum_column >= 0 ? static_cast<int32_t>(plan.sum_plan) : -1;
    args.product_column = plan.product ? static_cast<int32_t>(plan.product_plan) : -1;
    args.num_rows = plan.num_rows;

    for (size_t k = 0; k < plan.columns.size(); ++k) {
      const internal::ColumnPlan& cp = plan.columns[k];
      const ColumnInfo& info = reader.column(cp.column);
      auto found = std::find_if(columns.begin(), columns.end(),
                                [&](const DeviceScanColumn& c) { return c.column == cp.column; });
      if (found == columns.end()) {
        return Status(StatusCode::kInvalidArgument,
                      "column " + info.name + " is read by the scan but not among the device columns");
      }
      if (found->num_chunks != info.chunks.size()) {
        return Status(StatusCode::kInvalidArgument,
                      "column " + info.name + ": device chunks differ from the file's");
      }
      L3_CUDA_RETURN_NOT_OK(launch::CheckChunks(found->chunks, found->num_chunks));
      std::vector<KernelChunk> kernel_chunks;
      bool all_v64 = true;
      bool has_runs_ef = false;
      for (size_t i = 0; i < found->num_chunks; ++i) {
        const DeviceChunk& dc = found->chunks[i];
        const ChunkInfo& ci = info.chunks[i];
        if (dc.type != info.type || dc.column_type != info.type || dc.first_row != ci.first_row ||
            dc.num_rows != ci.num_rows || dc.num_partitions != ci.num_partitions ||
            dc.dictionary_entries != ci.dictionary_entries) {
          return Status(StatusCode::kInvalidArgument, "column " + info.name + " chunk " +
                                                          std::to_string(i) +
                                                          ": device descriptor differs from the file");
        }
        kernel_chunks.push_back(launch::ToKernelChunk(dc));
        all_v64 = all_v64 && dc.values_per_lane == 64;
        has_runs_ef = has_runs_ef || dc.runs_ef_rows != 0;
      }
      ScanColumnArgs& col = args.col[k];
      col = ScanColumnArgs{};
      col.num_chunks = static_cast<uint32_t>(kernel_chunks.size());
      col.chunks_offset = append(kernel_chunks.data(), kernel_chunks.size() * sizeof(KernelChunk));
      col.bytes = static_cast<uint8_t>(PhysicalTypeBytes(info.type));
      col.is_signed = PhysicalTypeIsSigned(info.type) ? 1 : 0;
      col.all_v64 = all_v64 ? 1 : 0;
      col.has_runs_ef = has_runs_ef ? 1 : 0;
      if (!cp.filtered) continue;

      // One verdict per partition: a segment that covers a whole chunk (its
      // statistics decided, or a dictionary chunk) gives all its partitions
      // its verdict; otherwise the chunk's segments are its partitions.
      std::vector<uint64_t> chunk_verdicts(info.chunks.size());
      std::vector<uint8_t> verdicts;
      size_t s = 0;
      for (size_t i = 0; i < info.chunks.size(); ++i) {
        const ChunkInfo& ci = info.chunks[i];
        chunk_verdicts[i] = verdicts.size();
        const uint64_t end = ci.first_row + ci.num_rows;
        auto code = [](internal::Verdict v) {
          return v == internal::Verdict::kNone  ? detail::kVerdictNone
                 : v == internal::Verdict::kAll ? detail::kVerdictAll
                                                : detail::kVerdictSome;
        };
        if (s < cp.segments.size() && cp.segments[s].begin == ci.first_row && cp.segments[s].end == end) {
          verdicts.insert(verdicts.end(), ci.num_partitions, code(cp.segments[s].verdict));
          ++s;
          continue;
        }
        if (s + ci.num_partitions > cp.segments.size()) {
          return Status(StatusCode::kCorruptMetadata, "column " + info.name + ": partitions and plan disagree");
        }
        for (uint32_t p = 0; p < ci.num_partitions; ++p) verdicts.push_back(code(cp.segments[s++].verdict));
      }
      const uint64_t base = append(verdicts.data(), verdicts.size());
      for (uint64_t& v : chunk_verdicts) v += base;
      col.verdict_offset = append(chunk_verdicts.data(), chunk_verdicts.size() * sizeof(uint64_t));
      const bool is_signed = col.is_signed != 0;
      if (cp.filter.empty) {
        col.lo_key = 1;
        col.hi_key = 0;
      } else {
        col.lo_key = OrderedKey(cp.filter.lo, is_signed);
        col.hi_key = OrderedKey(cp.filter.hi, is_signed);
      }
      if (cp.filter.has_set && !cp.filter.empty) {
        std::vector<uint64_t> keys;
        for (uint64_t v : cp.filter.set) keys.push_back(OrderedKey(v, is_signed));
        std::sort(keys.begin(), keys.end());
        col.has_set = 1;
        col.set_size = static_cast<uint32_t>(keys.size());
        col.set_offset = append(keys.data(), keys.size() * sizeof(uint64_t));
      }
    }

    // Shared memory: buffer A holds every filtered column and the sum,
    // buffer B a product column that is not the sum column.
    uint32_t a_bytes = 1, b_bytes = 0;
    for (size_t k = 0; k < plan.num_filtered; ++k) a_bytes = std::max<uint32_t>(a_bytes, args.col[k].bytes);
    if (args.sum_column >= 0) a_bytes = std::max<uint32_t>(a_bytes, args.col[args.sum_column].bytes);
    if (args.product_column >= 0 && args.product_column != args.sum_column) {
      b_bytes = args.col[args.product_column].bytes;
    }
    uint32_t widest = 1;
    for (size_t k = 0; k < plan.columns.size(); ++k) widest = std::max<uint32_t>(widest, args.col[k].bytes);
    const uint32_t stage_bytes = StageBytes(widest);
    args.stage_words = stage_bytes / 8;
    uint32_t block_rows = kScanBlockRows;
    while (block_rows > 2048 &&
           DynamicShared(block_rows, a_bytes, b_bytes, stage_bytes) > kScanMaxDynamicShared) {
      block_rows /= 2;
    }
    args.block_rows = block_rows;
    args.buffer_a_bytes = a_bytes;
    impl->dynamic_shared = DynamicShared(block_rows, a_bytes, b_bytes, stage_bytes);
    const uint64_t row_blocks = (plan.num_rows + block_rows - 1) / block_rows;
    if (row_blocks > INT32_MAX) return Status(StatusCode::kUnsupportedFeature, "too many rows");
    // Launch only the row blocks that meet a segment of the first filtered
    // column that its pruning verdict does not exclude.
    std::vector<uint8_t> live(static_cast<size_t>(row_blocks), 0);
    for (const internal::Segment& s : plan.columns[0].segments) {
      if (s.verdict == internal::Verdict::kNone || s.end <= s.begin) continue;
      for (uint64_t b = s.begin / block_rows; b < row_blocks && b * block_rows < s.end; ++b) live[b] = 1;
    }
    for (uint64_t b = 0; b < row_blocks; ++b) {
      if (live[b]) impl->block_list.push_back(static_cast<uint32_t>(b));
    }
    impl->all_blocks = impl->block_list.size() == row_blocks;
    if (!impl->all_blocks) {
      impl->block_list_offset = append(impl->block_list.data(), impl->block_list.size() * sizeof(uint32_t));
    }
    impl->num_blocks = impl->block_list.size();
    // Temporary storage: the block partials, then the tables.
    impl->tables_offset = AlignUp(std::max<uint64_t>(impl->num_blocks, 1) * sizeof(ScanPartial), 256);
    impl->temp_bytes = impl->tables_offset + AlignUp(std::max<size_t>(tables.size(), 8), 8);
    DeviceTableScan scan;
    scan.impl_ = std::move(impl);
    return Result<DeviceTableScan>(std::move(scan));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Status DeviceTableScan::Upload(void* d_temp, size_t temp_bytes, cudaStream_t stream) const {
  if (!impl_) return Status(StatusCode::kInvalidArgument, "scan not planned");
  if (d_temp == nullptr || !launch::Aligned(d_temp, 8)) {
    return Status(StatusCode::kInvalidArgument, "temporary storage null or misaligned");
  }
  if (temp_bytes < impl_->temp_bytes) return Status(StatusCode::kBufferTooSmall, "temporary storage too small");
  if (impl_->tables.empty()) return Status::OK();
  return CudaStatus(cudaMemcpyAsync(static_cast<uint8_t*>(d_temp) + impl_->tables_offset,
                                    impl_->tables.data(), impl_->tables.size(),
                                    cudaMemcpyHostToDevice, stream),
                    "cudaMemcpyAsync (scan tables)");
}

Status DeviceTableScan::Run(void* d_temp, size_t temp_bytes, DeviceScanTotals* d_totals,
                            uint32_t* d_selection, size_t selection_words, cudaStream_t stream) const {
  if (!impl_) return Status(StatusCode::kInvalidArgument, "scan not planned");
  if (d_temp == nullptr || !launch::Aligned(d_temp, 8) || d_totals == nullptr ||
      !launch::Aligned(d_totals, 8) || (d_selection != nullptr && !launch::Aligned(d_selection, 4))) {
    return Status(StatusCode::kInvalidArgument, "temporary storage or outputs null or misaligned");
  }
  if (temp_bytes < impl_->temp_bytes) return Status(StatusCode::kBufferTooSmall, "temporary storage too small");
  if (d_selection != nullptr && selection_words < (impl_->plan.num_rows + 31) / 32) {
    return Status(StatusCode::kBufferTooSmall, "selection smaller than (num_rows + 31) / 32 words");
  }
  ScanArgs args = impl_->args;
  args.plan = static_cast<const uint8_t*>(d_temp) + impl_->tables_offset;
  args.partials = static_cast<ScanPartial*>(d_temp);
  args.selection = d_selection;
  args.block_list = impl_->all_blocks ? nullptr
                                      : reinterpret_cast<const uint32_t*>(args.plan + impl_->block_list_offset);
  if (d_selection != nullptr && !impl_->all_blocks) {
    // Row blocks not launched select nothing.
    L3_CUDA_RETURN_NOT_OK(CudaStatus(
        cudaMemsetAsync(d_selection, 0, (impl_->plan.num_rows + 31) / 32 * sizeof(uint32_t), stream),
        "cudaMemsetAsync (selection)"));
  }
  L3_CUDA_RETURN_NOT_OK(AllowScanSharedMemory());
  if (impl_->num_blocks > 0) {
    detail::TableScanKernel<<<static_cast<uint32_t>(impl_->num_blocks), kScanThreads,
                              impl_->dynamic_shared, stream>>>(args);
    L3_CUDA_RETURN_NOT_OK(CheckLaunch("TableScanKernel"));
  }
  detail::ScanReduceKernel<<<1, detail::kScanReduceThreads, 0, stream>>>(
      args.partials, impl_->num_blocks, reinterpret_cast<ScanPartial*>(d_totals));
  return CheckLaunch("ScanReduceKernel");
}

Result<TableScanResult> DeviceTableScan::ToResult(const DeviceScanTotals& totals) const {
  if (!impl_) return Status(StatusCode::kInvalidArgument, "scan not planned");
  if (totals.overflow != 0) return Status(StatusCode::kOutOfRange, "the sum does not fit 128 bits");
  try {
    const internal::TableScanPlan& plan = impl_->plan;
    TableScanResult result;
    result.count = totals.count;
    result.sum_low = totals.sum_low;
    result.sum_high = static_cast<int64_t>(totals.sum_high);
    if (impl_->args.sum_column >= 0 && totals.count > 0) {
      const bool is_signed = impl_->args.col[impl_->args.sum_column].is_signed != 0;
      result.has_min_max = true;
      result.min_value = OrderedKey(totals.min_key, is_signed);  // the map is its own inverse
      result.max_value = OrderedKey(totals.max_key, is_signed);
    }
    for (size_t k = 0; k < plan.columns.size(); ++k) {
      ColumnScanStats st = plan.columns[k].stats;
      if (st.filtered) {
        st.rows_in = k == 0 ? plan.num_rows : totals.rows_out[k - 1];
        st.rows_out = totals.rows_out[k];
      }
      st.values_decoded = totals.values_decoded[k];
      st.values_taken = 0;
      st.payload_bytes_read = (totals.field_bits[k] + 7) / 8;
      result.payload_bytes_read += st.payload_bytes_read;
      result.columns.push_back(st);
    }
    return result;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Result<TableScanResult> ScanTable(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                  const TableScanOptions& options,
                                  const std::vector<DeviceScanColumn>& columns, cudaStream_t stream) {
  Result<DeviceTableScan> planned = DeviceTableScan::Plan(reader, where, options, columns);
  if (!planned.ok()) return planned.status();
  DeviceTableScan scan = std::move(planned).value();
  const size_t words = static_cast<size_t>((scan.num_rows() + 31) / 32);
  // One allocation: temporary storage, totals, selection.
  const size_t totals_at = AlignUp(scan.temp_bytes(), 256);
  const size_t selection_at = AlignUp(totals_at + sizeof(DeviceScanTotals), 256);
  const size_t bytes = selection_at + (options.collect_rows ? words * sizeof(uint32_t) : 0);
  void* device = nullptr;
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMalloc(&device, bytes), "cudaMalloc"));
  std::unique_ptr<void, void (*)(void*)> owner(device, [](void* p) { cudaFree(p); });
  uint8_t* base = static_cast<uint8_t*>(device);
  auto* d_totals = reinterpret_cast<DeviceScanTotals*>(base + totals_at);
  uint32_t* d_selection = options.collect_rows ? reinterpret_cast<uint32_t*>(base + selection_at) : nullptr;
  L3_CUDA_RETURN_NOT_OK(scan.Upload(device, scan.temp_bytes(), stream));
  L3_CUDA_RETURN_NOT_OK(scan.Run(device, scan.temp_bytes(), d_totals, d_selection, words, stream));
  DeviceScanTotals totals{};
  std::vector<uint32_t> selection;
  try {
    selection.resize(options.collect_rows ? words : 0);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
  L3_CUDA_RETURN_NOT_OK(CudaStatus(
      cudaMemcpyAsync(&totals, d_totals, sizeof totals, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync"));
  if (!selection.empty()) {
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemcpyAsync(selection.data(), d_selection,
                                                     words * sizeof(uint32_t),
                                                     cudaMemcpyDeviceToHost, stream),
                                     "cudaMemcpyAsync"));
  }
  L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
  Result<TableScanResult> result = scan.ToResult(totals);
  if (!result.ok() || !options.collect_rows) return result;
  TableScanResult out = std::move(result).value();
  try {
    out.rows.reserve(static_cast<size_t>(out.count));
    for (size_t i = 0; i < words; ++i) {
      for (uint32_t bits = selection[i]; bits != 0; bits &= bits - 1) {
        out.rows.push_back(uint64_t{i} * 32 + static_cast<uint64_t>(__builtin_ctz(bits)));
      }
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
  return out;
}

}  // namespace l3::cuda
