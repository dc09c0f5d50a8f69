// l3_gpu_encode_bench: the GPU writer's chunk encoder beside the CPU chunk
// encoder on all cores, on the same columns in one run. Not a test.
//
// Each column is one chunk. For each: input GB/s of l3::cuda::EncodeChunk
// with the values already in device memory (partitioner, packing,
// statistics and checksums; wall time, median of --reps runs after a
// warm-up; the call synchronises) and of the partitioner alone
// (encode::PlanPartitions); input GB/s of the CPU's EncodeChunk with every
// hardware thread; and whether the two chunks are identical byte for byte.
// The options are the hot profile's. Also measures the device-to-device copy
// bandwidth of the same bytes, for scale.
//
// With --writer, also the host path: a whole Writer (hot profile, every
// hardware thread, in memory) from values in pageable host memory, with
// UseGpuWriter and on the CPU, in input GB/s beside the pinned host-to-device
// copy bandwidth of the same bytes, and whether the two files are identical.
//
//   l3_gpu_encode_bench [--datasets a,b,...] [--rows N] [--real] [--real-rows N] [--reps N]
//                       [--writer] [--md FILE] [--json FILE] [--dump-dir DIR] [--commit REV]
//
// --dump-dir DIR writes each column's values to DIR/<name>.bin and lists them
// in DIR/manifest.json (as l3bench does), so that bench/gpu/nvcomp_bench.py
// times nvCOMP's compressors on the same arrays in the same session;
// bench/gpu/gpu_writer_report.py puts the two JSON reports side by side.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/partitioner.hpp"
#include "codec/encode/value_traits.hpp"
#include "gpu_encode.hpp"
#include "l3/cuda.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "l3_gpu_encode_bench: %s\n", what.c_str());
  std::exit(2);
}

void Cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(e));
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Row {
  std::string name;
  std::string type;
  uint64_t rows;
  uint64_t partitions;
  uint64_t raw_bytes;      // the values
  uint64_t encoded_bytes;  // the four segments
  double gpu_plan_gbs, gpu_encode_gbs, cpu_encode_gbs, copy_gbs;
  bool identical;
  // --writer: the host path.
  bool has_writer = false;
  double writer_gpu_gbs = 0, writer_cpu_gbs = 0, pinned_h2d_gbs = 0;
  bool writer_identical = false;
};

// One column written by a whole Writer in memory (hot profile, all threads);
// the file's bytes and the wall seconds.
std::vector<uint8_t> WriteFile(l3::PhysicalType type, const void* values, uint64_t n, bool gpu,
                               double* seconds) {
  l3::WriteOptions options;
  options.num_threads = 0;  // every hardware thread
  if (gpu) {
    const l3::Status s = l3::cuda::UseGpuWriter(&options);
    if (!s.ok()) Die("UseGpuWriter: " + s.ToString());
  }
  const auto t0 = Clock::now();
  l3::Result<l3::Writer> writer =
      l3::Writer::CreateInMemory({l3::ColumnSpec{"v", type, {}}}, options);
  if (!writer.ok()) Die(writer.status().ToString());
  l3::Status s = writer->Append(0, values, n);
  if (s.ok()) s = writer->Close();
  if (!s.ok()) Die(s.ToString());
  *seconds = Seconds(t0, Clock::now());
  return writer->TakeBuffer();
}

// Milliseconds of one cudaMemcpy of `bytes` bytes (after a warm-up copy),
// timed by events.
double CopyMilliseconds(void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind) {
  cudaEvent_t e0, e1;
  Cuda(cudaEventCreate(&e0), "event");
  Cuda(cudaEventCreate(&e1), "event");
  Cuda(cudaMemcpy(dst, src, bytes, kind), "copy");
  Cuda(cudaEventRecord(e0), "event");
  Cuda(cudaMemcpy(dst, src, bytes, kind), "copy");
  Cuda(cudaEventRecord(e1), "event");
  Cuda(cudaEventSynchronize(e1), "event");
  float ms = 0;
  Cuda(cudaEventElapsedTime(&ms, e0, e1), "event");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms;
}

// Input GB/s of a host-to-device copy of `bytes` bytes from pinned memory.
double PinnedH2dGbs(const void* values, uint64_t bytes) {
  void* pinned = nullptr;
  void* device = nullptr;
  Cuda(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  Cuda(cudaMalloc(&device, bytes), "cudaMalloc");
  std::memcpy(pinned, values, bytes);
  const double ms = CopyMilliseconds(device, pinned, bytes, cudaMemcpyHostToDevice);
  cudaFreeHost(pinned);
  cudaFree(device);
  return static_cast<double>(bytes) / (ms / 1e3) / 1e9;
}

// The median wall time of `reps` calls of fn after one warm-up.
template <typename Fn>
double MedianSeconds(int reps, Fn&& fn) {
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    if (r > 0) times.push_back(Seconds(t0, t1));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<uint8_t> Download(const void* device, uint64_t bytes) {
  std::vector<uint8_t> host(bytes);
  if (bytes > 0) Cuda(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost), "download");
  return host;
}

std::vector<uint8_t> Tile(const void* data, uint64_t bytes, uint64_t out_bytes) {
  std::vector<uint8_t> out(out_bytes);
  for (uint64_t at = 0; at < out_bytes; at += bytes) {
    std::memcpy(out.data() + at, data, std::min(bytes, out_bytes - at));
  }
  return out;
}

// Writes the column's raw values to dir/<name>.bin and returns its manifest
// entry (the format of l3bench --dump-dir).
nlohmann::json DumpColumn(const std::string& dir, const std::string& name, l3::PhysicalType type,
                          const void* values, uint64_t n) {
  std::string file = name;
  for (char& ch : file) {
    if (ch == ':' || ch == '/' || ch == '@') ch = '_';
  }
  file += ".bin";
  std::ofstream out(dir + "/" + file, std::ios::binary);
  out.write(static_cast<const char*>(values),
            static_cast<std::streamsize>(n * static_cast<uint64_t>(l3::PhysicalTypeBytes(type))));
  if (!out) Die("cannot write " + dir + "/" + file);
  return {{"dataset", name}, {"type", l3::PhysicalTypeName(type)}, {"rows", n}, {"file", file}};
}

Row Measure(const std::string& name, l3::PhysicalType type, const void* values, uint64_t n,
            int reps, bool writer) {
  const int value_bytes = l3::PhysicalTypeBytes(type);
  const uint64_t bytes = n * static_cast<uint64_t>(value_bytes);
  l3::internal::EncoderConfig config;
  config.type = type;
  config.partitioner.split_min_rows = 0u;          // the hot profile's
  config.partitioner.runs_ef_min_gain = 1.0 / 32;  // the hot profile's
  config.num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const l3::internal::PartitionPlanOptions options = l3::internal::PlanOptionsFor(config);

  l3::cuda::ChunkEncodeOptions encode_options;
  encode_options.type = type;
  encode_options.values_per_lane = config.values_per_lane;
  encode_options.partitioner = config.partitioner;
  const l3::Result<size_t> temp_bytes = l3::cuda::EncodeChunkTempBytes(n, encode_options);
  const l3::Result<l3::cuda::ChunkSegmentSizes> max =
      l3::cuda::EncodeChunkMaxBytes(n, encode_options);
  if (!temp_bytes.ok() || !max.ok()) Die(name + ": cannot size the encoder");

  void* d_values = nullptr;
  void* d_copy = nullptr;
  void* d_temp = nullptr;
  Cuda(cudaMalloc(&d_values, bytes), "cudaMalloc");
  Cuda(cudaMalloc(&d_copy, bytes), "cudaMalloc");
  Cuda(cudaMalloc(&d_temp, *temp_bytes), "cudaMalloc");
  l3::cuda::ChunkSegmentBuffers out;
  out.capacity = *max;
  Cuda(cudaMalloc(&out.partition_table, max->partition_table), "cudaMalloc");
  Cuda(cudaMalloc(&out.parameters, max->parameters), "cudaMalloc");
  Cuda(cudaMalloc(&out.payload, max->payload), "cudaMalloc");
  Cuda(cudaMalloc(&out.bounds, max->bounds), "cudaMalloc");
  Cuda(cudaMemcpy(d_values, values, bytes, cudaMemcpyHostToDevice), "upload");

  std::vector<l3::internal::PlannedPartition> gpu_plan;
  const double plan_s = MedianSeconds(reps, [&] {
    const l3::Status s =
        l3::cuda::encode::PlanPartitions(type, d_values, n, options, &gpu_plan, nullptr);
    if (!s.ok()) Die(name + ": " + s.ToString());
  });
  l3::cuda::EncodedChunkInfo info;
  const double encode_s = MedianSeconds(reps, [&] {
    const l3::Status s = l3::cuda::EncodeChunk(d_values, n, encode_options, d_temp, *temp_bytes,
                                               out, &info, nullptr);
    if (!s.ok()) Die(name + ": " + s.ToString());
  });
  const std::vector<uint8_t> gpu_segments[4] = {
      Download(out.partition_table, info.sizes.partition_table),
      Download(out.parameters, info.sizes.parameters), Download(out.payload, info.sizes.payload),
      Download(out.bounds, info.sizes.bounds)};

  const double copy_ms = CopyMilliseconds(d_copy, d_values, bytes, cudaMemcpyDeviceToDevice);
  for (void* p :
       {d_values, d_copy, d_temp, out.partition_table, out.parameters, out.payload, out.bounds}) {
    cudaFree(p);
  }

  const auto c0 = Clock::now();
  l3::Result<l3::internal::EncodedChunk> cpu = l3::internal::EncodeChunk(values, n, config);
  const auto c1 = Clock::now();
  if (!cpu.ok()) Die(name + ": " + cpu.status().ToString());
  const bool identical = gpu_segments[0] == cpu->partition_table &&
                         gpu_segments[1] == cpu->parameters && gpu_segments[2] == cpu->payload &&
                         gpu_segments[3] == cpu->bounds &&
                         info.statistics.distinct_count == cpu->statistics.distinct_count &&
                         info.statistics.min_value == cpu->statistics.min_value &&
                         info.statistics.max_value == cpu->statistics.max_value;

  Row row;
  row.name = name;
  row.type = l3::PhysicalTypeName(type);
  row.rows = n;
  row.partitions = info.num_partitions;
  row.raw_bytes = bytes;
  row.encoded_bytes =
      info.sizes.partition_table + info.sizes.parameters + info.sizes.payload + info.sizes.bounds;
  row.gpu_plan_gbs = static_cast<double>(bytes) / plan_s / 1e9;
  row.gpu_encode_gbs = static_cast<double>(bytes) / encode_s / 1e9;
  row.cpu_encode_gbs = static_cast<double>(bytes) / Seconds(c0, c1) / 1e9;
  row.copy_gbs = static_cast<double>(bytes) / (copy_ms / 1e3) / 1e9;
  row.identical = identical && gpu_plan.size() == info.num_partitions;
  std::printf(
      "%-52s %-4s %10llu rows %8llu partitions ratio %6.2f  GPU encode %7.2f GB/s (plan %7.2f)  "
      "CPU(%d thr) %6.3f GB/s  %s\n",
      name.c_str(), row.type.c_str(), static_cast<unsigned long long>(n),
      static_cast<unsigned long long>(row.partitions),
      static_cast<double>(bytes) / static_cast<double>(row.encoded_bytes), row.gpu_encode_gbs,
      row.gpu_plan_gbs, config.num_threads, row.cpu_encode_gbs,
      row.identical ? "identical" : "DIFFERENT");
  if (writer) {
    double gpu_s = 0, cpu_s = 0;
    const std::vector<uint8_t> gpu_file = WriteFile(type, values, n, true, &gpu_s);
    const std::vector<uint8_t> cpu_file = WriteFile(type, values, n, false, &cpu_s);
    row.has_writer = true;
    row.writer_gpu_gbs = static_cast<double>(bytes) / gpu_s / 1e9;
    row.writer_cpu_gbs = static_cast<double>(bytes) / cpu_s / 1e9;
    row.pinned_h2d_gbs = PinnedH2dGbs(values, bytes);
    row.writer_identical = gpu_file == cpu_file;
    std::printf(
        "%-52s host path: Writer GPU %6.2f GB/s  CPU %6.2f GB/s  pinned H2D %6.1f GB/s  %s\n",
        name.c_str(), row.writer_gpu_gbs, row.writer_cpu_gbs, row.pinned_h2d_gbs,
        row.writer_identical ? "identical files" : "DIFFERENT FILES");
  }
  std::fflush(stdout);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string datasets = "linear,normal,poisson,cosmos,polylog,exp,poly,uniform40,timestamps";
  uint64_t rows = 0;  // 0: the dataset's report size
  bool real = false;
  bool writer = false;
  uint64_t real_rows = 100000000;
  int reps = 3;
  std::string md, json_path, dump_dir, commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--datasets")
      datasets = next();
    else if (a == "--rows")
      rows = std::stoull(next());
    else if (a == "--real")
      real = true;
    else if (a == "--real-rows")
      real_rows = std::stoull(next());
    else if (a == "--reps")
      reps = std::stoi(next());
    else if (a == "--md")
      md = next();
    else if (a == "--json")
      json_path = next();
    else if (a == "--dump-dir")
      dump_dir = next();
    else if (a == "--writer")
      writer = true;
    else if (a == "--commit")
      commit = next();
    else
      Die("unknown option " + a);
  }
  cudaDeviceProp prop{};
  Cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::vector<Row> results;
  nlohmann::json manifest = nlohmann::json::array();
  std::stringstream list(datasets);
  for (std::string name; std::getline(list, name, ',');) {
    if (name.empty() || name == "none") continue;
    const l3::datagen::DatasetInfo* info = l3::datagen::FindDataset(name);
    if (info == nullptr) Die("unknown dataset " + name);
    const uint64_t n = rows > 0 ? rows : std::min<uint64_t>(info->report_rows, 200000000);
    l3::Result<l3::datagen::Column> column = l3::datagen::Generate(name, n);
    if (!column.ok()) Die(column.status().ToString());
    if (!dump_dir.empty()) {
      manifest.push_back(
          DumpColumn(dump_dir, name, column->type(), column->data(), column->size()));
    }
    results.push_back(Measure(name, column->type(), column->data(), column->size(), reps, writer));
  }
  if (real) {
    l3::Result<std::vector<l3::datagen::Column>> columns = l3::datagen::LoadRealIntegerArrays();
    if (!columns.ok()) Die(columns.status().ToString());
    for (const l3::datagen::Column& c : *columns) {
      const std::vector<uint8_t> tiled =
          Tile(c.data(), c.size_bytes(),
               real_rows * static_cast<uint64_t>(l3::PhysicalTypeBytes(c.type())));
      const std::string name = "real:" + c.name() + "@" + std::to_string(real_rows);
      if (!dump_dir.empty()) {
        manifest.push_back(DumpColumn(dump_dir, name, c.type(), tiled.data(), real_rows));
      }
      results.push_back(Measure(name, c.type(), tiled.data(), real_rows, reps, writer));
    }
  }
  if (!dump_dir.empty()) {
    std::ofstream(dump_dir + "/manifest.json")
        << nlohmann::json{{"columns", manifest}}.dump(2) << "\n";
  }
  if (!json_path.empty()) {
    nlohmann::json report = {{"device", prop.name},
                             {"cpu_threads", std::thread::hardware_concurrency()},
                             {"commit", commit},
                             {"results", nlohmann::json::array()}};
    for (const Row& r : results) {
      report["results"].push_back({{"dataset", r.name},
                                   {"type", r.type},
                                   {"rows", r.rows},
                                   {"partitions", r.partitions},
                                   {"encoded_bytes", r.encoded_bytes},
                                   {"gpu_plan_gbps", r.gpu_plan_gbs},
                                   {"gpu_encode_gbps", r.gpu_encode_gbs},
                                   {"cpu_encode_gbps", r.cpu_encode_gbs},
                                   {"copy_gbps", r.copy_gbs},
                                   {"identical", r.identical}});
    }
    std::ofstream(json_path) << report.dump(2) << "\n";
  }
  if (!md.empty()) {
    std::ofstream out(md);
    out << "- GPU: " << prop.name << "; CPU threads: " << std::thread::hardware_concurrency()
        << "; commit " << commit << "\n\n";
    out << "| column | type | rows | partitions | ratio | GPU encode GB/s | GPU plan GB/s | "
           "CPU encode GB/s (all threads) | GPU / CPU | D2D copy GB/s | chunks identical "
           "|\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const Row& r : results) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "| %s | %s | %llu | %llu | %.2f | %.2f | %.2f | %.3f | %.1fx | %.0f | %s |\n",
                    r.name.c_str(), r.type.c_str(), static_cast<unsigned long long>(r.rows),
                    static_cast<unsigned long long>(r.partitions),
                    static_cast<double>(r.raw_bytes) / static_cast<double>(r.encoded_bytes),
                    r.gpu_encode_gbs, r.gpu_plan_gbs, r.cpu_encode_gbs,
                    r.gpu_encode_gbs / r.cpu_encode_gbs, r.copy_gbs,
                    r.identical ? "yes" : "**no**");
      out << line;
    }
    bool any_writer = false;
    for (const Row& r : results) any_writer |= r.has_writer;
    if (any_writer) {
      out << "\nHost path (Writer, hot profile, all threads, values in pageable host memory):\n\n"
             "| column | Writer with UseGpuWriter GB/s | CPU Writer GB/s | pinned H2D GB/s | "
             "GPU Writer / pinned H2D | files identical |\n|---|---:|---:|---:|---:|---|\n";
      for (const Row& r : results) {
        if (!r.has_writer) continue;
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %.2f | %.2f | %.1f | %.1f%% | %s |\n",
                      r.name.c_str(), r.writer_gpu_gbs, r.writer_cpu_gbs, r.pinned_h2d_gbs,
                      100.0 * r.writer_gpu_gbs / r.pinned_h2d_gbs,
                      r.writer_identical ? "yes" : "**no**");
        out << line;
      }
    }
  }
  for (const Row& r : results) {
    if (!r.identical || (r.has_writer && !r.writer_identical)) return 1;
  }
  return 0;
}
