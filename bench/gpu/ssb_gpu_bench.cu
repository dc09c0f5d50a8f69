// l3_ssb_gpu_bench: Star Schema Benchmark query flight 1 (Q1.1-Q1.3) on the
// GPU over an .l3 file of lineorder columns (issue 12 §3). Not a test.
//
//   l3_ssb_gpu_bench FILE.l3 [--reps R] [--json OUT.json]
//
// FILE.l3 is what `l3_ssb_bench gen` writes (lo_orderdate u32, lo_discount
// u8, lo_quantity u8, lo_extendedprice u32). The compressed columns are
// uploaded to device memory (UploadColumn, not timed), and each query is
// timed four ways with CUDA events, median of R runs:
//   fused:   l3::cuda::DeviceTableScan: pruning, late materialization and the
//            aggregate in one kernel, decoded values in shared memory only;
//   decode:  decode-then-filter: DecodeRows of the four whole columns into
//            device arrays, then the plain kernel below;
//   raw:     the plain kernel alone over the uncompressed columns already in
//            device memory (a scan with no decode: the roofline of a
//            scan that reads every row);
// and, once, a device-to-device copy of the raw columns' bytes (the copy
// roofline, GB/s). Every revenue is checked against the CPU reference
// l3::ScanTable (all hardware threads); exit 1 on any difference.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "l3/cuda.hpp"
#include "l3/cuda_scan.hpp"
#include "l3/l3.hpp"
#include "l3/scan.hpp"
#include "../ssb_queries.hpp"

namespace {

#define CUDA_OK(expr)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (expr);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

void Check(const l3::Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "l3_ssb_gpu_bench: %s: %s\n", what, st.ToString().c_str());
    std::exit(2);
  }
}

using Query = l3::bench::SsbQuery;

/// The plain scan: every row's four values read, the predicate tested, the
/// revenue summed (a block reduction, one atomic per block).
__global__ void __launch_bounds__(256) PlainQueryKernel(const uint32_t* __restrict__ date,
                                                        const uint8_t* __restrict__ disc,
                                                        const uint8_t* __restrict__ qty,
                                                        const uint32_t* __restrict__ price, uint64_t n,
                                                        Query q, unsigned long long* revenue) {
  uint64_t sum = 0;
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t d = __ldg(date + i);
    if (d < q.date_lo || d > q.date_hi) continue;
    const uint8_t di = __ldg(disc + i);
    const uint8_t qt = __ldg(qty + i);
    if (di < q.disc_lo || di > q.disc_hi || qt < q.qty_lo || qt > q.qty_hi) continue;
    sum += uint64_t{__ldg(price + i)} * di;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  __shared__ uint64_t warp_sums[8];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t total = 0;
    for (uint32_t w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
    if (total != 0) atomicAdd(revenue, static_cast<unsigned long long>(total));
  }
}

struct Events {
  cudaEvent_t start, stop;
  Events() {
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

/// Median milliseconds of `reps` runs of f on the default stream (one
/// untimed warm-up run first).
template <typename F>
double MedianMs(int reps, F f) {
  Events ev;
  f();
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    CUDA_OK(cudaEventRecord(ev.start));
    f();
    CUDA_OK(cudaEventRecord(ev.stop));
    CUDA_OK(cudaEventSynchronize(ev.stop));
    float t = 0;
    CUDA_OK(cudaEventElapsedTime(&t, ev.start, ev.stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: l3_ssb_gpu_bench FILE.l3 [--reps R] [--json OUT.json]\n");
    return 2;
  }
  const std::string path = argv[1];
  int reps = 10;
  std::string json_path;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--reps") {
      reps = std::max(1, std::atoi(argv[i + 1]));
    } else if (arg == "--json") {
      json_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "l3_ssb_gpu_bench: unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  l3::ReadOptions ro;
  ro.num_threads = 0;
  auto opened = l3::Reader::Open(path, ro);
  if (!opened.ok()) Check(opened.status(), "open");
  const l3::Reader& r = *opened;
  const char* names[4] = {"lo_orderdate", "lo_discount", "lo_quantity", "lo_extendedprice"};
  int col[4];
  for (int c = 0; c < 4; ++c) {
    auto found = r.FindColumn(names[c]);
    if (!found.ok()) Check(found.status(), names[c]);
    col[c] = *found;
  }
  const uint64_t n = r.column(col[0]).num_rows;

  // Compressed columns in device memory.
  std::vector<l3::cuda::DeviceColumnBuffer> buffers;
  std::vector<l3::cuda::DeviceScanColumn> device_columns;
  uint64_t compressed = 0, raw_bytes = 0;
  for (int c = 0; c < 4; ++c) {
    auto b = l3::cuda::UploadColumn(r, col[c], nullptr);
    if (!b.ok()) Check(b.status(), "upload");
    compressed += b->compressed_bytes();
    raw_bytes += n * l3::PhysicalTypeBytes(r.column(col[c]).type);
    buffers.push_back(std::move(*b));
  }
  for (int c = 0; c < 4; ++c) {
    device_columns.push_back({col[c], buffers[c].chunks().data(), buffers[c].chunks().size()});
  }
  // Raw columns in device memory (decoded once; the decode baseline's target).
  void* raw[4];
  size_t raw_size[4];
  for (int c = 0; c < 4; ++c) {
    raw_size[c] = n * l3::PhysicalTypeBytes(r.column(col[c]).type);
    CUDA_OK(cudaMalloc(&raw[c], raw_size[c]));
  }
  auto decode_all = [&]() {
    for (int c = 0; c < 4; ++c) {
      Check(l3::cuda::DecodeRows(buffers[c].chunks().data(), buffers[c].chunks().size(), 0, n, raw[c],
                                 raw_size[c], nullptr, 0, nullptr),
            "DecodeRows");
    }
  };
  decode_all();
  CUDA_OK(cudaDeviceSynchronize());
  void* copy_target = nullptr;
  CUDA_OK(cudaMalloc(&copy_target, raw_size[0]));
  unsigned long long* d_revenue = nullptr;
  CUDA_OK(cudaMalloc(&d_revenue, sizeof(unsigned long long)));
  int sms = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const uint32_t plain_blocks = static_cast<uint32_t>(
      std::min<uint64_t>((n + 255) / 256, static_cast<uint64_t>(sms) * 8));
  // The copy roofline: the raw bytes of all four columns, device to device.
  const double copy_ms = MedianMs(reps, [&] {
    for (int c = 0; c < 4; ++c) CUDA_OK(cudaMemcpyAsync(copy_target, raw[c], raw_size[c], cudaMemcpyDeviceToDevice));
  });
  const double copy_gbps = 2.0 * static_cast<double>(raw_bytes) / (copy_ms * 1e6);  // read + write

  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU %s, %llu rows, raw %.1f MB, compressed %.1f MB, D2D copy %.0f GB/s (read + write)\n",
              prop.name, static_cast<unsigned long long>(n), raw_bytes / 1e6, compressed / 1e6, copy_gbps);
  std::printf("| query | rows | revenue | fused ms | decode+filter ms | raw scan ms | fused bytes read | "
              "fused vs decode | fused vs raw |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  nlohmann::json queries = nlohmann::json::array();
  bool all_equal = true;
  for (const Query& q : l3::bench::kSsbQueries) {
    const std::vector<l3::ColumnPredicates> where = l3::bench::SsbWhere(q, col);
    const l3::TableScanOptions so = l3::bench::SsbScanOptions(col, 0);
    auto cpu = l3::ScanTable(r, where, so);
    if (!cpu.ok()) Check(cpu.status(), "CPU ScanTable");

    auto plan = l3::cuda::DeviceTableScan::Plan(r, where, so, device_columns);
    if (!plan.ok()) Check(plan.status(), "plan");
    void* temp = nullptr;
    l3::cuda::DeviceScanTotals* d_totals = nullptr;
    CUDA_OK(cudaMalloc(&temp, plan->temp_bytes()));
    CUDA_OK(cudaMalloc(&d_totals, sizeof *d_totals));
    Check(plan->Upload(temp, plan->temp_bytes(), nullptr), "upload plan");
    const double fused_ms = MedianMs(reps, [&] {
      Check(plan->Run(temp, plan->temp_bytes(), d_totals, nullptr, 0, nullptr), "run");
    });
    l3::cuda::DeviceScanTotals totals{};
    CUDA_OK(cudaMemcpy(&totals, d_totals, sizeof totals, cudaMemcpyDeviceToHost));
    auto fused = plan->ToResult(totals);
    if (!fused.ok()) Check(fused.status(), "result");

    auto plain = [&]() {
      CUDA_OK(cudaMemsetAsync(d_revenue, 0, sizeof *d_revenue));
      PlainQueryKernel<<<plain_blocks, 256>>>(static_cast<const uint32_t*>(raw[0]),
                                              static_cast<const uint8_t*>(raw[1]),
                                              static_cast<const uint8_t*>(raw[2]),
                                              static_cast<const uint32_t*>(raw[3]), n, q, d_revenue);
    };
    const double raw_ms = MedianMs(reps, plain);
    unsigned long long raw_revenue = 0;
    CUDA_OK(cudaMemcpy(&raw_revenue, d_revenue, sizeof raw_revenue, cudaMemcpyDeviceToHost));
    const double decode_ms = MedianMs(reps, [&] {
      decode_all();
      plain();
    });
    unsigned long long decode_revenue = 0;
    CUDA_OK(cudaMemcpy(&decode_revenue, d_revenue, sizeof decode_revenue, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(temp));
    CUDA_OK(cudaFree(d_totals));

    const std::string revenue = cpu->SumString();
    const bool equal = fused->SumString() == revenue && fused->count == cpu->count &&
                       std::to_string(raw_revenue) == revenue && std::to_string(decode_revenue) == revenue;
    all_equal = all_equal && equal;
    nlohmann::json per_column = nlohmann::json::array();
    for (const l3::ColumnScanStats& st : fused->columns) {
      per_column.push_back({{"name", names[std::find(col, col + 4, st.column) - col]},
                            {"rows_in", st.rows_in}, {"rows_out", st.rows_out},
                            {"partitions_total", st.partitions_total},
                            {"partitions_pruned", st.partitions_pruned},
                            {"partitions_all_match", st.partitions_all_match},
                            {"values_decoded", st.values_decoded},
                            {"payload_bytes_read", st.payload_bytes_read}});
    }
    std::printf("| %s | %llu | %s | %.3f | %.3f | %.3f | %llu | %.2fx | %.2fx |%s\n", q.name,
                static_cast<unsigned long long>(fused->count), revenue.c_str(), fused_ms, decode_ms, raw_ms,
                static_cast<unsigned long long>(fused->payload_bytes_read), decode_ms / fused_ms,
                raw_ms / fused_ms, equal ? "" : " MISMATCH");
    queries.push_back({{"name", q.name}, {"rows_selected", fused->count}, {"revenue", revenue},
                       {"results_equal", equal},
                       {"fused", {{"ms", fused_ms}, {"bytes_read", fused->payload_bytes_read},
                                  {"columns", per_column}}},
                       {"decode", {{"ms", decode_ms}, {"bytes_read", compressed}}},
                       {"raw", {{"ms", raw_ms}, {"bytes_read", raw_bytes}}}});
  }
  if (!json_path.empty()) {
    nlohmann::json doc = {{"file", path}, {"rows", n}, {"gpu", prop.name}, {"reps", reps},
                          {"raw_bytes", raw_bytes}, {"compressed_bytes", compressed},
                          {"copy_ms", copy_ms}, {"copy_gbps", copy_gbps}, {"queries", queries},
                          {"results_equal", all_equal}};
    std::ofstream out(json_path);
    out << doc.dump(2) << "\n";
  }
  for (int c = 0; c < 4; ++c) cudaFree(raw[c]);
  cudaFree(copy_target);
  cudaFree(d_revenue);
  if (!all_equal) {
    std::fprintf(stderr, "l3_ssb_gpu_bench: the methods disagree\n");
    return 1;
  }
  return 0;
}
