// l3_pgm_gpu_bench: batched key lookups with the PGM index on the GPU
// (l3::cuda::LowerBound, spec §11.3) beside thrust::lower_bound over the same
// keys uncompressed in device memory, in one run. Not a test; writes a
// Markdown table and JSON (docs/results/pgm-gpu.md).
//
//   l3_pgm_gpu_bench [--keys N] [--lookups M] [--epsilon E] [--reps R]
//                    [--seed S] [--commit C] [--md FILE] [--json FILE]
//
// The column: N sorted u64 keys with irregular gaps (1 + a geometric gap of
// mean 64, and one gap in 1000 of up to 2^30), written in memory with a PGM
// index in every chunk: with the default model set (DELTA allowed) at
// values_per_lane 64, 8 and 4, and without DELTA. The lookups: M keys uniform over [min, max] (mostly
// absent), in random order, searched as given and grouped by value first
// (LowerBoundTempBytes). Every L3 answer is compared with thrust's.
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "l3/cuda.hpp"
#include "l3/l3.hpp"

namespace {

#define CUDA_OK(expr)                                                               \
  do {                                                                              \
    cudaError_t e_ = (expr);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                 \
    }                                                                               \
  } while (0)

void Fail(const l3::Status& st, const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
  std::exit(2);
}

struct Options {
  uint64_t keys = 200000000;
  uint64_t lookups = 100000000;
  uint32_t epsilon = 64;
  int reps = 5;
  uint64_t seed = 42;
  std::string commit = "unknown";
  std::string md, json;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--keys") o.keys = std::stoull(next());
    else if (a == "--lookups") o.lookups = std::stoull(next());
    else if (a == "--epsilon") o.epsilon = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--reps") o.reps = std::stoi(next());
    else if (a == "--seed") o.seed = std::stoull(next());
    else if (a == "--commit") o.commit = next();
    else if (a == "--md") o.md = next();
    else if (a == "--json") o.json = next();
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

/// Median of `reps` timings (ms) of `fn` on `stream`, after one warm-up.
template <typename Fn>
double TimeMs(int reps, cudaStream_t stream, Fn&& fn) {
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  fn();
  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    CUDA_OK(cudaEventRecord(start, stream));
    fn();
    CUDA_OK(cudaEventRecord(stop, stream));
    CUDA_OK(cudaEventSynchronize(stop));
    float t = 0;
    CUDA_OK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  std::printf("== %llu sorted u64 keys, %llu lookups, epsilon %u on %s\n",
              static_cast<unsigned long long>(o.keys), static_cast<unsigned long long>(o.lookups),
              o.epsilon, prop.name);
  std::mt19937_64 rng(o.seed);
  std::vector<uint64_t> keys(o.keys);
  std::geometric_distribution<uint64_t> gap(1.0 / 64);
  uint64_t cur = 1000;
  for (uint64_t i = 0; i < o.keys; ++i) {
    keys[i] = cur;
    cur += 1 + gap(rng) + (rng() % 1000 == 0 ? rng() % (uint64_t{1} << 30) : 0);
  }
  std::vector<uint64_t> queries(o.lookups);
  {
    std::uniform_int_distribution<uint64_t> pick(keys.front(), keys.back());
    for (uint64_t& q : queries) q = pick(rng);
  }

  uint64_t *d_raw = nullptr, *d_queries = nullptr, *d_expected = nullptr, *d_rows = nullptr;
  CUDA_OK(cudaMalloc(&d_raw, o.keys * 8));
  CUDA_OK(cudaMalloc(&d_queries, o.lookups * 8));
  CUDA_OK(cudaMalloc(&d_expected, o.lookups * 8));
  CUDA_OK(cudaMalloc(&d_rows, o.lookups * 8));
  CUDA_OK(cudaMemcpy(d_raw, keys.data(), o.keys * 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_queries, queries.data(), o.lookups * 8, cudaMemcpyHostToDevice));

  // The baseline: a binary search over the raw keys in device memory.
  const double thrust_ms = TimeMs(o.reps, stream, [&] {
    thrust::lower_bound(thrust::cuda::par.on(stream), d_raw, d_raw + o.keys, d_queries,
                        d_queries + o.lookups, d_expected);
  });
  const double thrust_gq = o.lookups / (thrust_ms * 1e-3) / 1e9;
  std::printf("   thrust::lower_bound over raw keys: %.3f ms, %.2f G lookups/s\n", thrust_ms, thrust_gq);
  std::vector<uint64_t> expected(o.lookups);
  CUDA_OK(cudaMemcpy(expected.data(), d_expected, o.lookups * 8, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_raw));

  nlohmann::json report;
  report["gpu"] = prop.name;
  report["commit"] = o.commit;
  report["keys"] = o.keys;
  report["lookups"] = o.lookups;
  report["epsilon"] = o.epsilon;
  report["thrust_ms"] = thrust_ms;
  report["thrust_glookups"] = thrust_gq;
  report["variants"] = nlohmann::json::array();
  std::string md_rows;
  int status = 0;
  struct Variant {
    bool delta;
    uint32_t values_per_lane;
  };
  // The default model set, the same with short SLAP tiles (a DELTA row
  // depends on the rows before it in its tile of 32 * V rows), and no DELTA.
  for (const Variant variant : {Variant{true, 64}, Variant{true, 8}, Variant{true, 4},
                                Variant{false, 64}}) {
    const bool delta = variant.delta;
    l3::WriteOptions w;
    w.pgm = l3::PgmMode::kRequire;
    w.pgm_epsilon = o.epsilon;
    w.partitioner.enable_delta = delta;
    w.values_per_lane = variant.values_per_lane;
    const auto t0 = std::chrono::steady_clock::now();
    auto writer = l3::Writer::CreateInMemory({l3::ColumnSpec{"key", l3::PhysicalType::kUInt64, {}}}, w);
    if (!writer.ok()) Fail(writer.status(), "writer");
    l3::Status st = writer->AppendTyped<uint64_t>(0, keys.data(), keys.size());
    if (st.ok()) st = writer->Close();
    if (!st.ok()) Fail(st, "write");
    const std::vector<uint8_t> file = writer->TakeBuffer();
    const double write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
    if (!reader.ok()) Fail(reader.status(), "open");
    uint64_t delta_rows = 0, index_bytes_footer = 0, segments = 0;
    for (const l3::ChunkInfo& c : reader->column(0).chunks) {
      segments += c.pgm.keys.size();
      index_bytes_footer += c.pgm.keys.size() * 20 + c.pgm.level_offsets.size() * 4;
    }
    auto column = l3::cuda::UploadColumn(*reader, 0, stream);
    if (!column.ok()) Fail(column.status(), "upload column");
    for (const l3::cuda::DeviceChunk& c : column->chunks()) delta_rows += c.delta_rows;
    auto pgm = l3::cuda::UploadPgmIndex(*reader, 0, stream);
    if (!pgm.ok()) Fail(pgm.status(), "upload index");
    // Keys searched in their order (no temporary storage), then grouped by
    // value first (the temporary storage LowerBoundTempBytes asks for).
    auto temp_bytes = l3::cuda::LowerBoundTempBytes(column->chunks().data(), pgm->chunks().data(),
                                                    column->chunks().size(), o.lookups);
    if (!temp_bytes.ok()) Fail(temp_bytes.status(), "LowerBoundTempBytes");
    void* d_temp = nullptr;
    CUDA_OK(cudaMalloc(&d_temp, std::max<size_t>(*temp_bytes, 1)));
    auto lookups = [&](void* temp, size_t bytes) {
      return TimeMs(o.reps, stream, [&] {
        const l3::Status s = l3::cuda::LowerBound(column->chunks().data(), pgm->chunks().data(),
                                                  column->chunks().size(), d_queries, o.lookups,
                                                  d_rows, temp, bytes, stream);
        if (!s.ok()) Fail(s, "LowerBound");
      });
    };
    const double unsorted_ms = lookups(nullptr, 0);
    std::vector<uint64_t> unsorted_rows(o.lookups);
    CUDA_OK(cudaMemcpy(unsorted_rows.data(), d_rows, o.lookups * 8, cudaMemcpyDeviceToHost));
    const double ms = lookups(d_temp, *temp_bytes);
    CUDA_OK(cudaFree(d_temp));
    std::vector<uint64_t> rows(o.lookups);
    CUDA_OK(cudaMemcpy(rows.data(), d_rows, o.lookups * 8, cudaMemcpyDeviceToHost));
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < o.lookups; ++i) wrong += (rows[i] != expected[i]) + (unsorted_rows[i] != expected[i]);
    const double unsorted_gq = o.lookups / (unsorted_ms * 1e-3) / 1e9;
    if (wrong != 0) status = 1;
    const double gq = o.lookups / (ms * 1e-3) / 1e9;
    const double ratio = static_cast<double>(o.keys * 8) / static_cast<double>(file.size());
    const std::string label = std::string(delta ? "default models (DELTA allowed)" : "without DELTA") +
                              ", V = " + std::to_string(variant.values_per_lane);
    const char* name = label.c_str();
    std::printf("   L3 %s: ratio %.2f, DELTA rows %.0f%%, %llu segments, index %.3f B/key, "
                "write %.1f s; lookups in key order %.3f ms (%.2f G/s), grouped by value %.3f ms, "
                "%.2f G lookups/s (%.2fx thrust), wrong %llu\n",
                name, ratio, 100.0 * delta_rows / o.keys, static_cast<unsigned long long>(segments),
                static_cast<double>(pgm->index_bytes()) / o.keys, write_s, unsorted_ms, unsorted_gq,
                ms, gq, gq / thrust_gq, static_cast<unsigned long long>(wrong));
    nlohmann::json v;
    v["variant"] = name;
    v["ratio"] = ratio;
    v["file_bytes"] = file.size();
    v["delta_rows"] = delta_rows;
    v["leaf_and_upper_segments"] = segments;
    v["device_index_bytes"] = pgm->index_bytes();
    v["footer_index_bytes"] = index_bytes_footer;
    v["write_s"] = write_s;
    v["lookup_ms"] = ms;
    v["lookup_ms_key_order"] = unsorted_ms;
    v["glookups_key_order"] = unsorted_gq;
    v["temp_bytes"] = *temp_bytes;
    v["glookups"] = gq;
    v["wrong"] = wrong;
    report["variants"].push_back(v);
    char line[512];
    std::snprintf(line, sizeof line,
                  "| L3 %s | %.2f | %.0f%% | %.3f | %.3f | %.2f | %.3f | %.2f | %.2fx | %llu |\n", name,
                  ratio, 100.0 * delta_rows / o.keys, static_cast<double>(pgm->index_bytes()) / o.keys,
                  unsorted_ms, unsorted_gq, ms, gq, gq / thrust_gq,
                  static_cast<unsigned long long>(wrong));
    md_rows += line;
  }
  if (!o.json.empty()) std::ofstream(o.json) << report.dump(2) << "\n";
  if (!o.md.empty()) {
    std::ofstream md(o.md);
    md << "| lookups over | ratio | DELTA rows | device index B/key | keys as given: ms | G lookups/s "
          "| keys grouped by value first: ms | G lookups/s | grouped vs thrust | wrong |\n"
       << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    char line[256];
    std::snprintf(line, sizeof line,
                  "| thrust::lower_bound, raw keys in device memory | 1.00 | - | 8 (the keys) | %.3f | "
                  "%.2f | - | - | 1.00x | - |\n",
                  thrust_ms, thrust_gq);
    md << line << md_rows;
  }
  cudaFree(d_queries);
  cudaFree(d_expected);
  cudaFree(d_rows);
  return status;
}
