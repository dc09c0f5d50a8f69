// Decodes a column of an .l3 file on the GPU three ways and checks each
// against the CPU reference: the device layer (caller-owned memory and
// stream, two-phase temporary storage), batched random access, and the host
// convenience path (file -> pinned memory -> device).
//
//   build/bin/l3_example_gpu_decode FILE.l3 [COLUMN]
#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "l3/cuda.hpp"
#include "l3/l3.hpp"

namespace {

int Fail(const l3::Status& status) {
  std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
  return 1;
}

int FailCuda(cudaError_t e) {
  std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.l3 [COLUMN]\n", argv[0]);
    return 2;
  }
  if (!l3::cuda::DeviceAvailable()) {
    std::fprintf(stderr, "no CUDA device\n");
    return 77;
  }
  auto reader = l3::Reader::Open(argv[1]);
  if (!reader.ok()) return Fail(reader.status());
  const int column = argc > 2 ? std::stoi(argv[2]) : 0;
  if (column < 0 || column >= reader->num_columns()) return Fail(l3::Status(l3::StatusCode::kOutOfRange, "no such column"));
  const l3::ColumnInfo& info = reader->column(column);
  const size_t value_bytes = l3::PhysicalTypeBytes(info.type);
  const size_t out_bytes = info.num_rows * value_bytes;

  // CPU reference.
  std::vector<uint8_t> expected(out_bytes);
  if (auto st = reader->ReadRows(column, 0, info.num_rows, expected.data(), out_bytes); !st.ok()) {
    return Fail(st);
  }

  cudaStream_t stream;
  if (auto e = cudaStreamCreate(&stream); e != cudaSuccess) return FailCuda(e);

  // 1. Device layer. UploadColumn copies the validated segments of every
  //    chunk to the device; DecodeRows then works on device memory only and
  //    never allocates: ask for the temporary bytes, provide them, call.
  auto column_buffer = l3::cuda::UploadColumn(*reader, column, stream);
  if (!column_buffer.ok()) return Fail(column_buffer.status());
  const auto& chunks = column_buffer->chunks();
  auto temp_bytes = l3::cuda::DecodeRowsTempBytes(chunks.data(), chunks.size(), 0, info.num_rows);
  if (!temp_bytes.ok()) return Fail(temp_bytes.status());
  void* d_temp = nullptr;
  void* d_out = nullptr;
  if (*temp_bytes > 0) {
    if (auto e = cudaMalloc(&d_temp, *temp_bytes); e != cudaSuccess) return FailCuda(e);
  }
  if (auto e = cudaMalloc(&d_out, out_bytes > 0 ? out_bytes : 1); e != cudaSuccess) return FailCuda(e);
  if (auto st = l3::cuda::DecodeRows(chunks.data(), chunks.size(), 0, info.num_rows, d_out,
                                     out_bytes, d_temp, *temp_bytes, stream);
      !st.ok()) {
    return Fail(st);
  }
  std::vector<uint8_t> decoded(out_bytes);
  cudaMemcpyAsync(decoded.data(), d_out, out_bytes, cudaMemcpyDeviceToHost, stream);
  if (auto e = cudaStreamSynchronize(stream); e != cudaSuccess) return FailCuda(e);
  const bool whole_ok = decoded == expected;

  // 2. Batched random access: device row ids in, values out.
  std::vector<uint64_t> rows;
  for (uint64_t i = 0; i < 4096 && info.num_rows > 0; ++i) rows.push_back((i * 2654435761u) % info.num_rows);
  uint64_t* d_rows = nullptr;
  void* d_values = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&d_rows), rows.size() * 8 + 8);
  cudaMalloc(&d_values, rows.size() * value_bytes + 8);
  cudaMemcpyAsync(d_rows, rows.data(), rows.size() * 8, cudaMemcpyHostToDevice, stream);
  auto take_temp = l3::cuda::TakeTempBytes(chunks.data(), chunks.size(), rows.size());
  if (!take_temp.ok()) return Fail(take_temp.status());
  void* d_take_temp = nullptr;
  if (*take_temp > 0) cudaMalloc(&d_take_temp, *take_temp);
  if (auto st = l3::cuda::Take(chunks.data(), chunks.size(), d_rows, rows.size(), d_values,
                               rows.size() * value_bytes, d_take_temp, *take_temp, stream);
      !st.ok()) {
    return Fail(st);
  }
  std::vector<uint8_t> values(rows.size() * value_bytes);
  cudaMemcpyAsync(values.data(), d_values, values.size(), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  bool take_ok = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    take_ok &= std::memcmp(values.data() + i * value_bytes,
                           expected.data() + rows[i] * value_bytes, value_bytes) == 0;
  }

  // 3. Host convenience path: file -> pinned staging -> device -> decode,
  //    chunk by chunk on two streams.
  auto loader = l3::cuda::Loader::Create();
  if (!loader.ok()) return Fail(loader.status());
  cudaMemsetAsync(d_out, 0, out_bytes, stream);
  if (auto st = loader->ReadRows(*reader, column, 0, info.num_rows, d_out, out_bytes, stream);
      !st.ok()) {
    return Fail(st);
  }
  cudaMemcpyAsync(decoded.data(), d_out, out_bytes, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  const bool loader_ok = decoded == expected;

  std::printf("%s column %d (%s, %" PRIu64 " rows): device decode %s, random access %s, loader %s\n",
              argv[1], column, l3::PhysicalTypeName(info.type), info.num_rows,
              whole_ok ? "identical" : "DIFFERS", take_ok ? "identical" : "DIFFERS",
              loader_ok ? "identical" : "DIFFERS");
  cudaFree(d_temp);
  cudaFree(d_out);
  cudaFree(d_rows);
  cudaFree(d_values);
  cudaFree(d_take_temp);
  cudaStreamDestroy(stream);
  return whole_ok && take_ok && loader_ok ? 0 : 1;
}
