// l3_conformance_gpu_check: every valid and deep case of the corpus decoded
// by the CUDA backend (l3/cuda.hpp) and compared with the expected values:
// whole columns with several launch shapes (the values must not depend on
// them), a range that starts and ends inside lanes, and Take of every row in
// reverse order. Exits 77 (skipped) without a CUDA device.
//
//   l3_conformance_gpu_check DIR
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "file_io.hpp"
#include "l3/cuda.hpp"
#include "l3/l3.hpp"

namespace {

using Json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

using l3::conformance::ReadFile;

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (cudaMalloc(&ptr, bytes == 0 ? 8 : bytes) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct GpuChecker {
  std::string dir;
  cudaStream_t stream = nullptr;
  int failures = 0;
  int columns = 0;
  int float_integer_form = 0;  // float columns in the integer form (spec §11.2.2), among `columns`
  int skipped_mixed = 0;       // float columns with chunks in both forms
  int ibp_columns = 0;    // IBP float columns decoded and gathered on the GPU

  void Fail(const std::string& id, const std::string& what) {
    std::printf("FAIL %s: %s\n", id.c_str(), what.c_str());
    ++failures;
  }

  // Decodes rows [begin, end) and compares them with want[begin, end).
  bool CheckRange(const std::string& id, const l3::cuda::DeviceColumnBuffer& column,
                  uint64_t begin, uint64_t end, const Bytes& want, int width,
                  const l3::cuda::LaunchConfig& config, const char* what) {
    const size_t bytes = static_cast<size_t>(end - begin) * width;
    DeviceBuffer out(bytes);
    if (out.ptr == nullptr) {
      Fail(id, "cudaMalloc failed");
      return false;
    }
    const auto& chunks = column.chunks();
    l3::Status st = l3::cuda::DecodeRows(chunks.data(), chunks.size(), begin, end, out.ptr, bytes,
                                         nullptr, 0, stream, config);
    if (!st.ok()) {
      Fail(id, std::string(what) + ": DecodeRows: " + st.ToString());
      return false;
    }
    Bytes got(bytes);
    if (cudaMemcpyAsync(got.data(), out.ptr, bytes, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess) {
      Fail(id, std::string(what) + ": CUDA error " + cudaGetErrorString(cudaGetLastError()));
      return false;
    }
    if (std::memcmp(got.data(), want.data() + begin * width, bytes) != 0) {
      size_t row = 0;
      while (std::memcmp(&got[row * width], &want[(begin + row) * width], width) == 0) ++row;
      Fail(id, std::string(what) + ": rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                   ") differ first at row " + std::to_string(begin + row));
      return false;
    }
    return true;
  }

  void CheckTake(const std::string& id, const l3::cuda::DeviceColumnBuffer& column, const Bytes& want,
                 int width) {
    const size_t rows = want.size() / width;
    std::vector<uint64_t> order(rows);
    for (size_t r = 0; r < rows; ++r) order[r] = rows - 1 - r;
    DeviceBuffer d_rows(rows * 8), d_out(rows * width);
    if (d_rows.ptr == nullptr || d_out.ptr == nullptr) {
      Fail(id, "cudaMalloc failed");
      return;
    }
    cudaMemcpyAsync(d_rows.ptr, order.data(), rows * 8, cudaMemcpyHostToDevice, stream);
    const auto& chunks = column.chunks();
    l3::Status st = l3::cuda::Take(chunks.data(), chunks.size(), static_cast<const uint64_t*>(d_rows.ptr),
                                   rows, d_out.ptr, rows * width, nullptr, 0, stream);
    if (!st.ok()) {
      Fail(id, "Take: " + st.ToString());
      return;
    }
    Bytes got(rows * width);
    cudaMemcpyAsync(got.data(), d_out.ptr, got.size(), cudaMemcpyDeviceToHost, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess) {
      Fail(id, std::string("Take: CUDA error ") + cudaGetErrorString(cudaGetLastError()));
      return;
    }
    for (size_t r = 0; r < rows; ++r) {
      if (std::memcmp(&got[r * width], &want[(rows - 1 - r) * width], width) != 0) {
        Fail(id, "Take differs at row " + std::to_string(rows - 1 - r));
        return;
      }
    }
  }

  // An IBP float column (spec §11.2.3): full decode and a reverse-order
  // gather on the GPU, payloads in device and in pinned host memory.
  void CheckIbpColumn(const std::string& id, const l3::Reader& reader, int i, const Bytes& want,
                      size_t width) {
    const uint64_t rows = reader.column(i).num_rows;
    std::vector<uint64_t> ids(rows);
    for (uint64_t r = 0; r < rows; ++r) ids[r] = rows - 1 - r;
    for (auto residency : {l3::cuda::IbpResidency::kDevice, l3::cuda::IbpResidency::kPinnedHost}) {
      auto column = l3::cuda::UploadIbpColumn(reader, i, residency, stream);
      if (!column.ok()) {
        Fail(id, "UploadIbpColumn: " + column.status().ToString());
        return;
      }
      const auto& chunks = column->chunks();
      DeviceBuffer d_out(want.size()), d_ids(ids.size() * 8);
      cudaMemcpyAsync(d_ids.ptr, ids.data(), ids.size() * 8, cudaMemcpyHostToDevice, stream);
      l3::Status st = l3::cuda::DecodeIbpRows(chunks.data(), chunks.size(), 0, rows, d_out.ptr,
                                              want.size(), stream);
      Bytes got(want.size());
      cudaMemcpyAsync(got.data(), d_out.ptr, got.size(), cudaMemcpyDeviceToHost, stream);
      if (!st.ok() || cudaStreamSynchronize(stream) != cudaSuccess || got != want) {
        Fail(id, "DecodeIbpRows differs or failed: " + st.ToString());
        return;
      }
      st = l3::cuda::GatherIbpRows(chunks.data(), chunks.size(),
                                   static_cast<const uint64_t*>(d_ids.ptr), ids.size(), d_out.ptr,
                                   want.size(), stream);
      cudaMemcpyAsync(got.data(), d_out.ptr, got.size(), cudaMemcpyDeviceToHost, stream);
      if (!st.ok() || cudaStreamSynchronize(stream) != cudaSuccess) {
        Fail(id, "GatherIbpRows failed: " + st.ToString());
        return;
      }
      for (uint64_t r = 0; r < rows; ++r) {
        if (std::memcmp(&got[r * width], &want[(rows - 1 - r) * width], width) != 0) {
          Fail(id, "GatherIbpRows differs at row " + std::to_string(rows - 1 - r));
          return;
        }
      }
    }
    ++ibp_columns;
  }

  void CheckCase(const Json& c) {
    const std::string id = c["id"];
    auto reader = l3::Reader::Open(dir + "/" + c["path"].get<std::string>());
    if (!reader.ok()) {
      Fail(id, "Open: " + reader.status().ToString());
      return;
    }
    const Json& cols = c["expected"]["columns"];
    for (int i = 0; i < reader->num_columns(); ++i) {
      const l3::ColumnInfo& info = reader->column(i);
      if (info.num_rows == 0) continue;
      Bytes want;
      if (!ReadFile(dir + "/" + cols[i]["values"].get<std::string>(), &want)) {
        Fail(id, "cannot read the expected values");
        continue;
      }
      if (l3::PhysicalTypeIsFloat(info.type)) {
        bool all_ibp = true;
        for (const l3::ChunkInfo& ch : info.chunks) all_ibp = all_ibp && ch.encoding == 2;
        if (all_ibp) {
          CheckIbpColumn(id, *reader, i, want,
                         static_cast<size_t>(l3::PhysicalTypeBytes(info.type)) * info.row_width);
          continue;
        }
        bool all_integer_form = true;
        for (const l3::ChunkInfo& ch : info.chunks) all_integer_form = all_integer_form && ch.encoding == 1;
        if (!all_integer_form) {
          ++skipped_mixed;  // neither GPU path takes a column mixing both forms
          continue;
        }
        // The integer form (spec §11.2.2): decoded as values, row-major.
        ++float_integer_form;
      }
      auto column = l3::cuda::UploadColumn(*reader, i, stream);
      if (!column.ok()) {
        Fail(id, "UploadColumn: " + column.status().ToString());
        continue;
      }
      ++columns;
      // One row: row_width values (spec §11.2.1); a float column's device
      // chunks count values.
      const bool values = l3::PhysicalTypeIsFloat(info.type);
      const int width = l3::PhysicalTypeBytes(info.type) * (values ? 1 : static_cast<int>(info.row_width));
      const uint64_t rows = values ? info.num_rows * info.row_width : info.num_rows;
      l3::cuda::LaunchConfig defaults;
      l3::cuda::LaunchConfig narrow;  // one warp per block, few blocks, no prefetch
      narrow.block_threads = 32;
      narrow.max_blocks = 2;
      narrow.payload_prefetch = l3::cuda::LaunchConfig::PayloadPrefetch::kOff;
      l3::cuda::LaunchConfig short_spans;
      short_spans.span_rows = 1;
      if (!CheckRange(id, *column, 0, rows, want, width, defaults, "default launch")) continue;
      if (!CheckRange(id, *column, 0, rows, want, width, narrow, "32-thread blocks, 2 blocks")) continue;
      if (!CheckRange(id, *column, 0, rows, want, width, short_spans, "shortest spans")) continue;
      if (rows > 2 && !CheckRange(id, *column, rows / 3 + 1, rows - rows / 5 - 1, want, width, defaults,
                                  "inner range")) {
        continue;
      }
      CheckTake(id, *column, want, width);
    }
  }

  int Run() {
    Bytes text;
    if (!ReadFile(dir + "/manifest.json", &text)) {
      std::printf("cannot read %s/manifest.json\n", dir.c_str());
      return 1;
    }
    if (!l3::cuda::DeviceAvailable()) {
      std::printf("SKIPPED: no CUDA device\n");
      return 77;
    }
    cudaStreamCreate(&stream);
    const Json manifest = Json::parse(text.begin(), text.end());
    int cases = 0;
    for (const Json& c : manifest["cases"]) {
      const std::string kind = c["kind"];
      if (kind != "valid" && kind != "deep") continue;
      ++cases;
      CheckCase(c);
    }
    cudaStreamDestroy(stream);
    std::printf("%d cases, %d integer-form columns (%d of them float, spec §11.2.2) and %d IBP "
                "columns decoded on the GPU, %d float column(s) mixing both forms skipped, "
                "%d failure(s)\n",
                cases, columns, float_integer_form, ibp_columns, skipped_mixed, failures);
    return failures == 0 ? 0 : 1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: l3_conformance_gpu_check DIR\n");
    return 2;
  }
  return GpuChecker{argv[1]}.Run();
}
