// The host convenience layer of l3/cuda.hpp: Reader -> pinned memory ->
// device. Unlike the device layer it allocates (pinned staging, device
// segment buffers) and waits on events to recycle its staging buffers.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "cuda_status.hpp"
#include "describe_chunk.hpp"
#include "l3/cuda.hpp"

namespace l3::cuda {

namespace {

constexpr uint64_t kSegmentAlignment = 256;

uint64_t AlignUp(uint64_t x) { return (x + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment; }

/// Where a chunk's three segments go in one contiguous device (and staging)
/// region.
struct ChunkLayout {
  uint64_t table_bytes = 0;
  uint64_t params_offset = 0;
  uint64_t payload_offset = 0;
  uint64_t dictionary_offset = 0;  // spec §8.10: the decoded entries, when D > 0
  uint64_t dictionary_bytes = 0;
  uint64_t total_bytes = 0;
};

ChunkLayout LayoutOf(uint64_t num_partitions, uint64_t parameters_bytes, uint64_t payload_bytes,
                     uint64_t dictionary_entries, PhysicalType type) {
  ChunkLayout l;
  l.table_bytes = (num_partitions + 1) * 16;
  l.params_offset = AlignUp(l.table_bytes);
  l.payload_offset = l.params_offset + AlignUp(parameters_bytes);
  l.dictionary_offset = l.payload_offset + AlignUp(payload_bytes);
  l.dictionary_bytes = dictionary_entries * static_cast<uint64_t>(PhysicalTypeBytes(type));
  l.total_bytes = l.dictionary_offset + AlignUp(l.dictionary_bytes);
  return l;
}

ChunkLayout LayoutOf(const ChunkView& view) {
  return LayoutOf(view.num_partitions, view.parameters_bytes, view.payload_bytes,
                  view.dictionary_entries, view.type);
}

/// The layout a chunk's view will have, from the footer alone (the decoded
/// lengths of its segments), so that a column's device region can be sized
/// before any chunk is decompressed. GetChunkView checks these lengths; the
/// upload compares the two layouts.
ChunkLayout LayoutOf(const ChunkInfo& chunk, PhysicalType type) {
  return LayoutOf(chunk.num_partitions, chunk.parameters.decoded_bytes, chunk.payload.decoded_bytes,
                  chunk.dictionary_entries, type);
}

bool SameLayout(const ChunkLayout& a, const ChunkLayout& b) {
  return a.table_bytes == b.table_bytes && a.params_offset == b.params_offset &&
         a.payload_offset == b.payload_offset && a.dictionary_offset == b.dictionary_offset &&
         a.dictionary_bytes == b.dictionary_bytes && a.total_bytes == b.total_bytes;
}

void Stage(const ChunkView& view, const ChunkLayout& l, uint8_t* dst) {
  std::memcpy(dst, view.partition_table, l.table_bytes);
  std::memcpy(dst + l.params_offset, view.parameters, view.parameters_bytes);
  std::memcpy(dst + l.payload_offset, view.payload, view.payload_bytes);
  if (l.dictionary_bytes > 0) std::memcpy(dst + l.dictionary_offset, view.dictionary, l.dictionary_bytes);
}

/// A descriptor of a view the Reader has already validated (GetChunkView
/// runs the spec §10.2 checks and decodes a dictionary), without repeating
/// the O(P) checks.
DeviceChunk DescribeValidated(const ChunkView& view, const ChunkLayout& l, const uint8_t* base) {
  return detail::DescribeChunk(view, base, base + l.params_offset, base + l.payload_offset,
                               base + l.dictionary_offset);
}

/// `float_integer_form`: also accept a float column whose chunks are all in
/// the integer form (spec §11.2.2), decoded as values (UploadColumn).
Status CheckColumn(const Reader& reader, int column, bool float_integer_form = false) {
  if (column < 0 || column >= reader.num_columns()) {
    return Status(StatusCode::kOutOfRange, "column index out of range");
  }
  const ColumnInfo& info = reader.column(column);
  if (PhysicalTypeIsFloat(info.type) && float_integer_form) {
    for (const ChunkInfo& chunk : info.chunks) {
      if (chunk.encoding != 1) {
        return Status(StatusCode::kUnsupportedFeature,
                      "a float column with IbpFloat chunks (spec §11.2.3): use UploadIbpColumn");
      }
    }
    return Status::OK();
  }
  if (!PhysicalTypeIsInteger(info.type)) {
    return Status(StatusCode::kUnsupportedFeature,
                  float_integer_form ? "not an integer or float column"
                                     : "the Loader decodes integer columns only");
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------
// DeviceColumnBuffer

struct DeviceColumnBuffer::Impl {
  PhysicalType type = PhysicalType::kInt64;
  uint64_t num_rows = 0;
  uint64_t compressed_bytes = 0;
  void* device = nullptr;
  std::vector<DeviceChunk> chunks;

  ~Impl() {
    if (device != nullptr) cudaFree(device);
  }
};

DeviceColumnBuffer::DeviceColumnBuffer() : impl_(std::make_unique<Impl>()) {}
DeviceColumnBuffer::DeviceColumnBuffer(DeviceColumnBuffer&&) noexcept = default;
DeviceColumnBuffer& DeviceColumnBuffer::operator=(DeviceColumnBuffer&&) noexcept = default;
DeviceColumnBuffer::~DeviceColumnBuffer() = default;

PhysicalType DeviceColumnBuffer::type() const { return impl_->type; }
uint64_t DeviceColumnBuffer::num_rows() const { return impl_->num_rows; }
const std::vector<DeviceChunk>& DeviceColumnBuffer::chunks() const { return impl_->chunks; }
uint64_t DeviceColumnBuffer::compressed_bytes() const { return impl_->compressed_bytes; }

Result<DeviceColumnBuffer> UploadColumn(const Reader& reader, int column, cudaStream_t stream) {
  try {
    L3_CUDA_RETURN_NOT_OK(CheckColumn(reader, column, /*float_integer_form=*/true));
    const ColumnInfo& info = reader.column(column);
    DeviceColumnBuffer buffer;
    DeviceColumnBuffer::Impl& impl = *buffer.impl_;
    impl.type = info.type;
    // A float column's chunks count values (spec §11.2.2, ChunkView).
    impl.num_rows = PhysicalTypeIsFloat(info.type) ? info.num_rows * info.row_width : info.num_rows;

    // The device region is sized from the footer, then each chunk is
    // loaded, staged and copied in turn: the host holds one chunk's decoded
    // segments at a time (an archive column is not decompressed whole).
    std::vector<ChunkLayout> layouts;
    std::vector<uint64_t> offsets;
    uint64_t total = 0;
    uint64_t largest = 0;
    for (size_t c = 0; c < info.chunks.size(); ++c) {
      // Metadata checks of every chunk (partition table, parameters, and the
      // payload length they imply; no payload is decompressed) before
      // anything is allocated on the device.
      Result<std::vector<PartitionInfo>> parts = reader.Partitions(column, static_cast<int>(c));
      if (!parts.ok()) return parts.status();
      const ChunkInfo& chunk = info.chunks[c];
      layouts.push_back(LayoutOf(chunk, info.type));
      offsets.push_back(total);
      total += layouts.back().total_bytes;
      largest = std::max(largest, layouts.back().total_bytes);
    }
    if (layouts.empty()) return buffer;

    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMalloc(&impl.device, total), "cudaMalloc"));
    void* staging = nullptr;
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMallocHost(&staging, largest), "cudaMallocHost"));
    Status status;
    for (size_t c = 0; c < layouts.size() && status.ok(); ++c) {
      Result<ChunkView> view = reader.GetChunkView(column, static_cast<int>(c));
      if (!view.ok()) {
        status = view.status();
        break;
      }
      if (!SameLayout(LayoutOf(*view), layouts[c])) {
        // GetChunkView checked every decoded length against the footer's;
        // reaching this is a bug, not a property of the file.
        status = Status(StatusCode::kInternal, "chunk view differs from its footer lengths");
        break;
      }
      impl.compressed_bytes += layouts[c].table_bytes + view->parameters_bytes + view->payload_bytes;
      Stage(*view, layouts[c], static_cast<uint8_t*>(staging));
      uint8_t* dst = static_cast<uint8_t*>(impl.device) + offsets[c];
      status = CudaStatus(cudaMemcpyAsync(dst, staging, layouts[c].total_bytes,
                                          cudaMemcpyHostToDevice, stream),
                          "cudaMemcpyAsync");
      if (status.ok()) status = CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      if (status.ok()) impl.chunks.push_back(DescribeValidated(*view, layouts[c], dst));
    }
    cudaFreeHost(staging);
    if (!status.ok()) return status;
    return buffer;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

// ---------------------------------------------------------------------------
// Loader

struct Loader::Impl {
  struct Slot {
    void* pinned = nullptr;
    uint64_t pinned_bytes = 0;
    void* device = nullptr;
    uint64_t device_bytes = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    bool busy = false;
  };
  Slot slots[2];
  cudaEvent_t start = nullptr;

  ~Impl() {
    for (Slot& s : slots) {
      if (s.stream != nullptr) cudaStreamSynchronize(s.stream);
      if (s.pinned != nullptr) cudaFreeHost(s.pinned);
      if (s.device != nullptr) cudaFree(s.device);
      if (s.done != nullptr) cudaEventDestroy(s.done);
      if (s.stream != nullptr) cudaStreamDestroy(s.stream);
    }
    if (start != nullptr) cudaEventDestroy(start);
  }

  Status Reserve(Slot& s, uint64_t bytes) {
    if (s.pinned_bytes < bytes) {
      if (s.pinned != nullptr) cudaFreeHost(s.pinned);
      s.pinned = nullptr;
      s.pinned_bytes = 0;
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMallocHost(&s.pinned, bytes), "cudaMallocHost"));
      s.pinned_bytes = bytes;
    }
    if (s.device_bytes < bytes) {
      if (s.device != nullptr) cudaFree(s.device);
      s.device = nullptr;
      s.device_bytes = 0;
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMalloc(&s.device, bytes), "cudaMalloc"));
      s.device_bytes = bytes;
    }
    return Status::OK();
  }
};

Loader::Loader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Loader::Loader(Loader&&) noexcept = default;
Loader& Loader::operator=(Loader&&) noexcept = default;
Loader::~Loader() = default;

Result<Loader> Loader::Create() {
  try {
    auto impl = std::make_unique<Impl>();
    for (Impl::Slot& s : impl->slots) {
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking),
                                       "cudaStreamCreateWithFlags"));
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming),
                                       "cudaEventCreateWithFlags"));
    }
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaEventCreateWithFlags(&impl->start, cudaEventDisableTiming),
                                     "cudaEventCreateWithFlags"));
    return Loader(std::move(impl));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Status Loader::ReadRows(const Reader& reader, int column, uint64_t row_begin, uint64_t row_end,
                        void* d_out, size_t out_bytes, cudaStream_t stream) {
  try {
    L3_CUDA_RETURN_NOT_OK(CheckColumn(reader, column));
    const ColumnInfo& info = reader.column(column);
    if (row_begin > row_end || row_end > info.num_rows) {
      return Status(StatusCode::kOutOfRange, "row range outside the column");
    }
    const int value_bytes = PhysicalTypeBytes(info.type);
    if (out_bytes / value_bytes < row_end - row_begin) {
      return Status(StatusCode::kBufferTooSmall, "output smaller than the row range");
    }
    if (row_begin == row_end) return Status::OK();

    Impl& impl = *impl_;
    // The decodes write d_out: order them after the caller's earlier work.
    L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaEventRecord(impl.start, stream), "cudaEventRecord"));
    for (Impl::Slot& s : impl.slots) {
      L3_CUDA_RETURN_NOT_OK(
          CudaStatus(cudaStreamWaitEvent(s.stream, impl.start, 0), "cudaStreamWaitEvent"));
    }
    int used = 0;
    for (size_t c = 0; c < info.chunks.size(); ++c) {
      const ChunkInfo& chunk = info.chunks[c];
      const uint64_t begin = std::max(row_begin, chunk.first_row);
      const uint64_t end = std::min(row_end, chunk.first_row + chunk.num_rows);
      if (begin >= end) continue;
      Impl::Slot& s = impl.slots[used++ % 2];
      // The slot's staging buffers are free once its previous copy and
      // decode are done; meanwhile the other slot's work runs.
      if (s.busy) {
        L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaEventSynchronize(s.done), "cudaEventSynchronize"));
        s.busy = false;
      }
      Result<ChunkView> view = reader.GetChunkView(column, static_cast<int>(c));
      if (!view.ok()) return view.status();
      const ChunkLayout layout = LayoutOf(*view);
      L3_CUDA_RETURN_NOT_OK(impl.Reserve(s, layout.total_bytes));
      Stage(*view, layout, static_cast<uint8_t*>(s.pinned));
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaMemcpyAsync(s.device, s.pinned, layout.total_bytes,
                                                       cudaMemcpyHostToDevice, s.stream),
                                       "cudaMemcpyAsync"));
      const DeviceChunk dc = DescribeValidated(*view, layout, static_cast<const uint8_t*>(s.device));
      uint8_t* out = static_cast<uint8_t*>(d_out) + (begin - row_begin) * value_bytes;
      L3_CUDA_RETURN_NOT_OK(DecodeRows(&dc, 1, begin, end, out, (end - begin) * value_bytes,
                                       nullptr, 0, s.stream));
      L3_CUDA_RETURN_NOT_OK(CudaStatus(cudaEventRecord(s.done, s.stream), "cudaEventRecord"));
      s.busy = true;
    }
    for (Impl::Slot& s : impl.slots) {
      if (s.busy) {
        L3_CUDA_RETURN_NOT_OK(
            CudaStatus(cudaStreamWaitEvent(stream, s.done, 0), "cudaStreamWaitEvent"));
      }
    }
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

}  // namespace l3::cuda
