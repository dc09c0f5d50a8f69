// Helpers of the GPU tests: device buffers, GPU decode and take into host
// vectors, and the CPU-versus-GPU comparison of a whole column.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/model_fit.hpp"
#include "l3/cuda.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace l3::cuda::testing {

/// An owned device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  DeviceBuffer(const void* host, size_t bytes);  // allocates and copies
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* data() const { return data_; }
  size_t size() const { return size_; }
  std::vector<uint8_t> ToHost() const;

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

/// A chunk's three segments copied to the device, and its descriptor.
struct UploadedChunk {
  DeviceBuffer table, params, payload;
  DeviceBuffer dictionary;  // spec §8.10: the decoded entries, when D > 0
  DeviceChunk chunk;
};

/// The ChunkView of an encoder result (first_row within the column).
ChunkView ViewOf(const internal::EncodedChunk& encoded, PhysicalType type, uint64_t first_row);

/// Copies the view's segments to the device and calls MakeDeviceChunk
/// (which must succeed).
UploadedChunk Upload(const ChunkView& view);

/// Rows [row_begin, row_end) decoded by DecodeRows, as bytes. The output is
/// poisoned first so that an unwritten row cannot pass.
std::vector<uint8_t> GpuDecode(const std::vector<DeviceChunk>& chunks, uint64_t row_begin,
                               uint64_t row_end, const LaunchConfig& config = {});

/// Values of `rows` fetched by Take, as bytes (poisoned first).
std::vector<uint8_t> GpuTake(const std::vector<DeviceChunk>& chunks,
                             const std::vector<uint64_t>& rows);

/// Writes one column into an in-memory L3 file.
std::vector<uint8_t> WriteColumn(const std::string& name, PhysicalType type, const void* values,
                                 uint64_t num_rows, const WriteOptions& options);

/// Decodes column `column` of `reader` on the GPU (whole column, random
/// ranges through DecodeRows and through Loader, random rows through Take)
/// and checks each result byte for byte against the CPU reader and, when
/// `original` is not null, against the original values.
void CheckColumnAgainstCpu(const Reader& reader, int column, const void* original,
                           uint64_t seed);

/// Two partition fits equal field for field (Theta by its bits), as the
/// GPU writer must reproduce the CPU writer's.
bool SamePartitionFit(const internal::PartitionFit& a, const internal::PartitionFit& b);

/// The integer arrays of the real-data directory (datagen::RealDataDir());
/// none, with a "skipped" message, where the directory is missing.
std::vector<datagen::Column> RealIntegerArrays();

/// Calls fn(values) with the typed values of an integer column.
template <typename Fn>
void WithValues(const datagen::Column& column, Fn&& fn) {
  if (const auto* v = column.values<int8_t>()) fn(*v);
  if (const auto* v = column.values<int16_t>()) fn(*v);
  if (const auto* v = column.values<int32_t>()) fn(*v);
  if (const auto* v = column.values<int64_t>()) fn(*v);
  if (const auto* v = column.values<uint8_t>()) fn(*v);
  if (const auto* v = column.values<uint16_t>()) fn(*v);
  if (const auto* v = column.values<uint32_t>()) fn(*v);
  if (const auto* v = column.values<uint64_t>()) fn(*v);
}

/// Partitioner settings the GPU writer tests run: the hot profile's, and
/// others that reach other code paths (no DELTA, no minimax line, no
/// PATCHED_FOR, V = 8 and
/// V = 1, long partitions, a merge benefit).
struct Setting {
  const char* name;
  bool delta;
  bool minimax;
  uint32_t values_per_lane;
  uint32_t initial_rows;
  uint32_t max_rows;
  double min_merge_benefit;
  bool patched_for = true;  // PartitionerOptions::enable_patched_for (spec §8.12)
};

inline constexpr Setting kSettings[] = {
    {"hot profile", true, true, 64, 256, 8192, 0.0},
    {"no DELTA, no minimax line, no PATCHED_FOR", false, false, 64, 256, 8192, 0.0, false},
    {"V=8, long partitions", true, true, 8, 1024, 65536, 0.0},
    {"V=1, merge benefit 2%, no minimax line", true, false, 1, 256, 8192, 0.02},
};

/// The chunk encoder's configuration for `type` with `setting` (no halving).
internal::EncoderConfig ConfigFor(PhysicalType type, const Setting& setting);

}  // namespace l3::cuda::testing
