// fuzz_gpu_diff.cpp: fuzz target 5, CPU-versus-GPU differential decode of an
// .l3 file held in memory (needs a CUDA device; built with the CUDA backend).
//
// The input is opened with Reader::OpenBuffer. For every integer column of at
// most kMaxRows rows, the CPU reference (Reader::ReadRows) is compared with
// every GPU path: UploadColumn + l3::cuda::DecodeRows (all rows and a range),
// l3::cuda::Take (rows repeated and out of order), the pinned-memory
// l3::cuda::Loader, and, on columns that carry a PGM index, the batched
// l3::cuda::LowerBound.
//
// Properties (abort on violation, see fuzz_check.hpp):
// - every failure is one of the spec's error classes (§10.1);
// - where the CPU reference decodes the column, every GPU path succeeds and
//   yields the same bytes (bit-exactness on any input the CPU accepts);
// - where the CPU rejects the column, a GPU path may fail with a spec class
//   or return values (a payload fault only the decode itself can see yields
//   unspecified values on the GPU), but never touches memory outside its
//   buffers: that part is for compute-sanitizer, which the GPU machine's run
//   wraps around this driver;
// - on a sorted column that decodes, the GPU lookups give the row a binary
//   search over the decoded values gives.
//
// Without a CUDA device the driver exits 77 (ctest: skipped).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "l3/cuda.hpp"
#include "l3/l3.hpp"

namespace l3::fuzz {
namespace {

constexpr uint64_t kMaxRows = uint64_t{1} << 18;

// What the inputs reached, printed at exit: a corpus that mostly fails to
// open would compare little, and the report says so.
struct Reach {
  uint64_t inputs = 0, opened = 0, columns = 0, cpu_decoded = 0, gpu_uploaded = 0, lookups = 0;
  ~Reach() {
    std::printf("gpu_diff: %llu inputs, %llu opened, %llu integer columns compared "
                "(%llu decoded by the CPU and compared bit for bit, %llu uploaded to the GPU), "
                "%llu with batched GPU lookups checked\n",
                static_cast<unsigned long long>(inputs), static_cast<unsigned long long>(opened),
                static_cast<unsigned long long>(columns), static_cast<unsigned long long>(cpu_decoded),
                static_cast<unsigned long long>(gpu_uploaded), static_cast<unsigned long long>(lookups));
  }
};
Reach g_reach;

/// A device allocation freed on scope exit; every byte set to 0xA5 first, so
/// that a GPU path that skips rows cannot match the CPU by accident.
class DeviceBytes {
 public:
  explicit DeviceBytes(size_t bytes) : bytes_(std::max<size_t>(bytes, 1)) {
    L3_FUZZ_CHECK(cudaMalloc(&ptr_, bytes_) == cudaSuccess, "cudaMalloc");
    L3_FUZZ_CHECK(cudaMemset(ptr_, 0xA5, bytes_) == cudaSuccess, "cudaMemset");
  }
  ~DeviceBytes() { cudaFree(ptr_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  void* get() const { return ptr_; }
  std::vector<uint8_t> ToHost(size_t bytes) const {
    std::vector<uint8_t> out(bytes);
    L3_FUZZ_CHECK(cudaDeviceSynchronize() == cudaSuccess, "a kernel failed");
    if (bytes > 0) {
      L3_FUZZ_CHECK(cudaMemcpy(out.data(), ptr_, bytes, cudaMemcpyDeviceToHost) == cudaSuccess,
                    "cudaMemcpy");
    }
    return out;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

void CheckLookups(const Reader& reader, int c, const cuda::DeviceColumnBuffer& column,
                  const std::vector<uint8_t>& values) {
  const ColumnInfo& col = reader.column(c);
  const uint64_t rows = col.num_rows;
  std::vector<uint64_t> keys(rows);
  for (uint64_t i = 0; i < rows; ++i) keys[i] = OrderedKey(WordAt(values.data(), i, col.type), col.type);
  Result<cuda::DevicePgmBuffer> pgm = cuda::UploadPgmIndex(reader, c, nullptr);
  ExpectClass(pgm.status(), "UploadPgmIndex");
  if (!pgm.ok() || !std::is_sorted(keys.begin(), keys.end())) return;
  ++g_reach.lookups;
  const uint64_t flip = PhysicalTypeIsSigned(col.type) ? uint64_t{1} << 63 : 0;
  std::vector<uint64_t> ordered = {0, ~uint64_t{0}, uint64_t{1} << 63};
  for (uint64_t i = 0; i < rows; i += 1 + rows / 61) {
    ordered.push_back(keys[i]);
    ordered.push_back(keys[i] + 1);
    ordered.push_back(keys[i] - 1);
  }
  std::vector<uint64_t> probes;  // canonical words
  for (uint64_t k : ordered) probes.push_back(k ^ flip);
  DeviceBytes d_keys(probes.size() * 8), d_rows(probes.size() * 8);
  L3_FUZZ_CHECK(cudaMemcpy(d_keys.get(), probes.data(), probes.size() * 8,
                           cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy");
  const auto& chunks = column.chunks();
  Result<size_t> temp = cuda::LowerBoundTempBytes(chunks.data(), pgm->chunks().data(), chunks.size(),
                                                  probes.size());
  ExpectClass(temp.status(), "LowerBoundTempBytes");
  L3_FUZZ_CHECK(temp.ok(), "LowerBoundTempBytes on an uploaded index: " + temp.status().ToString());
  DeviceBytes d_temp(*temp);
  Status st = cuda::LowerBound(chunks.data(), pgm->chunks().data(), chunks.size(),
                               static_cast<const uint64_t*>(d_keys.get()), probes.size(),
                               static_cast<uint64_t*>(d_rows.get()), d_temp.get(), *temp, nullptr);
  ExpectClass(st, "cuda::LowerBound");
  L3_FUZZ_CHECK(st.ok(), "cuda::LowerBound on an uploaded index: " + st.ToString());
  const std::vector<uint8_t> got = d_rows.ToHost(probes.size() * 8);
  for (size_t i = 0; i < probes.size(); ++i) {
    uint64_t row = 0;
    std::memcpy(&row, got.data() + 8 * i, 8);
    const uint64_t expected =
        static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), ordered[i]) - keys.begin());
    L3_FUZZ_CHECK(row == expected, "cuda::LowerBound " + std::to_string(row) + " != " +
                                       std::to_string(expected) + " on a sorted column");
  }
}

void DiffColumn(const Reader& reader, int c) {
  const ColumnInfo& col = reader.column(c);
  const uint64_t rows = col.num_rows;
  if (!PhysicalTypeIsInteger(col.type) || rows == 0 || rows > kMaxRows) return;
  const size_t width = static_cast<size_t>(PhysicalTypeBytes(col.type));
  const size_t bytes = static_cast<size_t>(rows) * width;

  std::vector<uint8_t> cpu(bytes);
  const Status st_cpu = reader.ReadRows(c, 0, rows, cpu.data(), cpu.size());
  ExpectClass(st_cpu, "ReadRows");
  const bool cpu_ok = st_cpu.ok();
  ++g_reach.columns;
  if (cpu_ok) ++g_reach.cpu_decoded;

  // UploadColumn runs the host checks of every chunk (GetChunkView).
  Result<cuda::DeviceColumnBuffer> column = cuda::UploadColumn(reader, c, nullptr);
  ExpectClass(column.status(), "UploadColumn");
  L3_FUZZ_CHECK(column.ok() || !cpu_ok,
                "UploadColumn fails on a column the CPU decodes: " + column.status().ToString());
  if (column.ok()) {
    ++g_reach.gpu_uploaded;
    const auto& chunks = column->chunks();
    DeviceBytes d_all(bytes);
    Status st = cuda::DecodeRows(chunks.data(), chunks.size(), 0, rows, d_all.get(), bytes,
                                 nullptr, 0, nullptr);
    ExpectClass(st, "cuda::DecodeRows");
    L3_FUZZ_CHECK(st.ok() || !cpu_ok, "cuda::DecodeRows fails where the CPU decodes: " + st.ToString());
    const std::vector<uint8_t> gpu = d_all.ToHost(bytes);
    if (cpu_ok) L3_FUZZ_CHECK(gpu == cpu, "cuda::DecodeRows differs from the CPU reference");

    // A range that starts and ends inside partitions and tiles.
    const uint64_t begin = rows / 3, end = rows - rows / 5;
    if (begin < end) {
      const size_t range_bytes = static_cast<size_t>(end - begin) * width;
      DeviceBytes d_range(range_bytes);
      st = cuda::DecodeRows(chunks.data(), chunks.size(), begin, end, d_range.get(), range_bytes,
                            nullptr, 0, nullptr);
      ExpectClass(st, "cuda::DecodeRows (range)");
      const std::vector<uint8_t> range = d_range.ToHost(range_bytes);
      if (cpu_ok) {
        L3_FUZZ_CHECK(st.ok(), "a GPU range read fails: " + st.ToString());
        L3_FUZZ_CHECK(std::memcmp(range.data(), cpu.data() + begin * width, range_bytes) == 0,
                      "a GPU range read differs from the CPU reference");
      }
    }

    // Point reads, repeated and out of order.
    std::vector<uint64_t> points = {rows - 1, 0, rows / 2, rows - 1, rows / 3, 0};
    for (uint64_t i = 1; i < rows; i = i * 3 + 1) points.push_back(rows - 1 - i);
    DeviceBytes d_points(points.size() * 8), d_taken(points.size() * width);
    L3_FUZZ_CHECK(cudaMemcpy(d_points.get(), points.data(), points.size() * 8,
                             cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy");
    st = cuda::Take(chunks.data(), chunks.size(), static_cast<const uint64_t*>(d_points.get()),
                    points.size(), d_taken.get(), points.size() * width, nullptr, 0, nullptr);
    ExpectClass(st, "cuda::Take");
    const std::vector<uint8_t> taken = d_taken.ToHost(points.size() * width);
    if (cpu_ok) {
      L3_FUZZ_CHECK(st.ok(), "cuda::Take fails: " + st.ToString());
      for (size_t i = 0; i < points.size(); ++i) {
        L3_FUZZ_CHECK(std::memcmp(taken.data() + i * width, cpu.data() + points[i] * width, width) == 0,
                      "cuda::Take differs from the CPU reference at row " + std::to_string(points[i]));
      }
      CheckLookups(reader, c, *column, cpu);
    }
  }

  // The pinned-memory path, chunk by chunk on its own streams.
  Result<cuda::Loader> loader = cuda::Loader::Create();
  L3_FUZZ_CHECK(loader.ok(), "Loader::Create: " + loader.status().ToString());
  DeviceBytes d_loaded(bytes);
  const Status st_loader = loader->ReadRows(reader, c, 0, rows, d_loaded.get(), bytes, nullptr);
  ExpectClass(st_loader, "Loader::ReadRows");
  const std::vector<uint8_t> loaded = d_loaded.ToHost(bytes);
  if (cpu_ok) {
    L3_FUZZ_CHECK(st_loader.ok(), "Loader::ReadRows fails where the CPU decodes: " +
                                      st_loader.ToString());
    L3_FUZZ_CHECK(loaded == cpu, "Loader::ReadRows differs from the CPU reference");
  }
}

}  // namespace
}  // namespace l3::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool have_device = [] {
    if (l3::cuda::DeviceAvailable()) return true;
    std::printf("SKIPPED: no CUDA device\n");
    std::exit(77);
  }();
  (void)have_device;
  l3::Result<l3::Reader> reader = l3::Reader::OpenBuffer(data, size, l3::fuzz::FuzzReadOptions());
  l3::fuzz::ExpectClass(reader.status(), "OpenBuffer");
  ++l3::fuzz::g_reach.inputs;
  if (!reader.ok()) return 0;
  ++l3::fuzz::g_reach.opened;
  for (int c = 0; c < reader->num_columns(); ++c) l3::fuzz::DiffColumn(*reader, c);
  return 0;
}
