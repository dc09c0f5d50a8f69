// l3bench: the GPU benchmark of the L3 CUDA backend (issue 4 §5). Not a test.
//
// In one run it measures the device-to-device copy bandwidth B (bytes read +
// written per second), then for each dataset: the compression ratio, full
// decode throughput (CUDA events after warm-up, median of --reps runs),
// roofline efficiency ((compressed bytes + output bytes) / B / time), random
// access throughput (--queries random row ids), range-decode throughput
// (random ranges of --range-rows rows) and the host path (Loader: pinned
// staging, copy, decode). Every GPU result is compared with the original
// values and with the CPU reader; a mismatch makes the exit status 1.
//
//   l3bench [--datasets linear,normal,...|paper|none] [--real] [--real-dir DIR]
//           [--scale F] [--reps N] [--queries N] [--range-rows N]
//           [--span-rows N] [--max-blocks N] [--block-threads N] [--prefetch auto|off|on]
//           [--wide-staging auto|off|on] [--dictionary-staging auto|off|on] [--sweep]
//           [--split-min-rows N] [--real-rows N] [--dump-dir DIR]
//           [--outliers N] [--patched-for on|off] [--rows-ef on|off]
//           [--delta-orders on|off] [--profile hot|archive] [--json FILE] [--md FILE]
//           [--commit REV]
//
// --outliers N adds a u32 column of N values in [17, 80] with 1% outliers
// up to 2^20 (PATCHED_FOR's case, spec §8.12), written with and without
// PATCHED_FOR partitions (two results); --patched-for off writes
// every column without PATCHED_FOR partitions (enable_patched_for = false),
// to compare the two in one run; --rows-ef off keeps PATCHED_FOR's exception
// rows fixed-width (patched_rows_ef = false, spec §8.12 Rows_EF).
// --delta-orders off writes no DELTA partitions of order 2 or 3
// (WriteOptions::delta_orders = false, spec §8.9), to compare in one run.
// --profile archive writes every column in the archive profile (its chunks
// may use DELTA of order 2 and 3, spec §8.9); the device then holds the
// decompressed segments, which the roofline counts.
// --real-rows N tiles each real array (repeats it end to end) to N values, so
// that small real arrays are measured at a size where the GPU is saturated.
// --dump-dir DIR writes every measured column's raw little-endian values to
// DIR/<name>.bin and lists them in DIR/manifest.json, so that a companion
// (bench/gpu/nvcomp_bench.py) measures other GPU codecs on the same arrays.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "l3/cuda.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
using Prefetch = l3::cuda::LaunchConfig::PayloadPrefetch;
using WideStaging = l3::cuda::LaunchConfig::WideTileStaging;
using DictionaryStaging = l3::cuda::LaunchConfig::DictionaryStaging;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "l3bench: %s\n", what.c_str());
  std::exit(2);
}

void Cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(e));
}

void Ok(const l3::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// "auto", "off" or "on" for the tri-state LaunchConfig options (all three
/// number kAuto, kOff, kOn as 0, 1, 2).
template <typename Mode>
const char* ModeName(Mode m) {
  static const char* const kNames[] = {"auto", "off", "on"};
  const unsigned i = static_cast<unsigned>(m);
  return i < 3 ? kNames[i] : "?";
}

/// The tri-state LaunchConfig option named by `flag` from "auto", "off" or
/// "on"; anything else ends the program.
template <typename Mode>
Mode ParseMode(const std::string& flag, const std::string& v) {
  if (v == "auto") return Mode::kAuto;
  if (v == "off") return Mode::kOff;
  if (v == "on") return Mode::kOn;
  std::fprintf(stderr, "l3bench: %s takes auto, off or on\n", flag.c_str());
  std::exit(2);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Options {
  std::vector<std::string> datasets;
  bool real = false;
  std::string real_dir;
  double scale = 1.0;
  int reps = 10;
  int warmup = 3;
  uint64_t queries = 10'000'000;
  uint64_t range_rows = 1 << 20;
  int ranges = 32;
  l3::cuda::LaunchConfig config;
  bool sweep = false;
  int64_t split_min_rows = -1;  // -1: the writer's default
  bool patched_for = true;      // PartitionerOptions::enable_patched_for
  bool rows_ef = true;          // PartitionerOptions::patched_rows_ef
  bool delta_orders = true;     // WriteOptions::delta_orders
  bool archive = false;         // WriteOptions::profile = kArchive
  uint64_t outliers = 0;        // rows of the "outliers" column, 0: none
  uint64_t real_rows = 0;       // 0: the real arrays as they are
  std::string dump_dir;
  std::string json_path;
  std::string md_path;
  std::string commit = "unknown";
  std::string command;
};

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { Cuda(cudaMalloc(&p, std::max<size_t>(bytes, 1)), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// Times `enqueue` (which enqueues work on `stream`) with CUDA events:
/// `warmup` untimed runs, then `reps` timed ones; returns milliseconds.
template <typename F>
std::vector<double> TimeMs(F&& enqueue, int warmup, int reps, cudaStream_t stream) {
  cudaEvent_t start, stop;
  Cuda(cudaEventCreate(&start), "cudaEventCreate");
  Cuda(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) enqueue();
  Cuda(cudaStreamSynchronize(stream), "warm-up");
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    Cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    enqueue();
    Cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    Cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    Cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

/// B: a large device-to-device copy, counting bytes read plus written.
json MeasureCopyBandwidth(cudaStream_t stream, int reps) {
  const size_t bytes = size_t{2} << 30;
  DeviceBuffer a(bytes), b(bytes);
  Cuda(cudaMemset(a.p, 1, bytes), "cudaMemset");
  std::vector<double> ms = TimeMs(
      [&] { Cuda(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice, stream), "copy"); }, 3,
      std::max(reps, 10), stream);
  const double med = Median(ms);
  json j;
  j["buffer_bytes"] = bytes;
  j["median_ms"] = med;
  j["min_ms"] = *std::min_element(ms.begin(), ms.end());
  j["bytes_per_s"] = 2.0 * bytes / (med * 1e-3);
  return j;
}

struct Column {
  std::string name;
  l3::PhysicalType type;
  const void* data;
  uint64_t rows;
  bool patched_for = true;  // written with PATCHED_FOR (when --patched-for is on)
};

/// Model mix of a file: partitions per model and row-weighted mean width.
json ModelMix(const l3::Reader& reader) {
  std::map<std::string, std::pair<uint64_t, double>> by_model;
  uint64_t partitions = 0;
  uint64_t rows = 0;
  double width_rows = 0;
  for (int c = 0; c < static_cast<int>(reader.column(0).chunks.size()); ++c) {
    auto parts = reader.Partitions(0, c);
    Ok(parts.status(), "Partitions");
    for (const l3::PartitionInfo& p : *parts) {
      std::string name = l3::ModelTypeName(p.model);
      if (p.model == l3::ModelType::kDelta && p.num_params > 1 && (p.params[1] >> 42) != 0) {
        name += " order " + std::to_string(1 + ((p.params[1] >> 42) & 3));  // spec §8.9
      }
      auto& entry = by_model[name];
      entry.first += 1;
      entry.second += p.num_rows;
      ++partitions;
      rows += p.num_rows;
      width_rows += double(p.bit_width) * p.num_rows;
    }
  }
  json j;
  j["partitions"] = partitions;
  j["mean_rows_per_partition"] = partitions ? double(rows) / partitions : 0.0;
  j["mean_bit_width"] = rows ? width_rows / rows : 0.0;
  for (const auto& [model, e] : by_model) {
    j["models"][model] = {{"partitions", e.first}, {"row_fraction", rows ? e.second / rows : 0.0}};
  }
  return j;
}

/// Runs every measurement on one column; returns its JSON record.
json RunColumn(const Column& col, const Options& opt, double copy_bps, cudaStream_t stream,
               bool* all_ok) {
  json r;
  const int vb = l3::PhysicalTypeBytes(col.type);
  const uint64_t n = col.rows;
  const uint64_t raw = n * vb;
  r["dataset"] = col.name;
  r["type"] = l3::PhysicalTypeName(col.type);
  r["rows"] = n;
  r["raw_bytes"] = raw;
  std::printf("== %s (%s, %" PRIu64 " rows)\n", col.name.c_str(), l3::PhysicalTypeName(col.type), n);
  std::fflush(stdout);

  // Encode (default WriteOptions: hot profile, V = 64, 2^26-row chunks),
  // except where --split-min-rows, --patched-for, --rows-ef, --delta-orders
  // or --profile override them.
  auto t0 = Clock::now();
  l3::WriteOptions write_options;
  if (opt.split_min_rows >= 0) {
    write_options.partitioner.split_min_rows = static_cast<uint32_t>(opt.split_min_rows);
  }
  write_options.partitioner.enable_patched_for = opt.patched_for && col.patched_for;
  write_options.partitioner.patched_rows_ef = opt.rows_ef;
  write_options.delta_orders = opt.delta_orders;
  if (opt.archive) write_options.profile = l3::Profile::kArchive;
  auto writer =
      l3::Writer::CreateInMemory({l3::ColumnSpec{col.name, col.type, {}}}, write_options);
  Ok(writer.status(), "CreateInMemory");
  Ok(writer->Append(0, col.data, n), "Append");
  Ok(writer->Close(), "Close");
  const std::vector<uint8_t> file = writer->TakeBuffer();
  auto t1 = Clock::now();
  auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
  Ok(reader.status(), "OpenBuffer");
  r["encode_s"] = Seconds(t0, t1);
  r["file_bytes"] = file.size();
  r["compression_ratio"] = double(raw) / file.size();
  r["chunks"] = reader->column(0).chunks.size();
  r["model_mix"] = ModelMix(*reader);

  // CPU reference: the CPU reader decodes the whole column.
  std::vector<uint8_t> cpu(raw);
  t0 = Clock::now();
  Ok(reader->ReadRows(0, 0, n, cpu.data(), cpu.size()), "CPU ReadRows");
  t1 = Clock::now();
  r["cpu_decode_s"] = Seconds(t0, t1);
  const bool cpu_ok = std::memcmp(cpu.data(), col.data, raw) == 0;
  r["cpu_equals_original"] = cpu_ok;

  auto uploaded = l3::cuda::UploadColumn(*reader, 0, stream);
  Ok(uploaded.status(), "UploadColumn");
  const std::vector<l3::cuda::DeviceChunk>& chunks = uploaded->chunks();
  const uint64_t compressed = uploaded->compressed_bytes();
  r["device_compressed_bytes"] = compressed;

  // Full decode.
  DeviceBuffer out(raw);
  Cuda(cudaMemset(out.p, 0xA5, raw), "cudaMemset");
  auto decode = [&](const l3::cuda::LaunchConfig& cfg) {
    Ok(l3::cuda::DecodeRows(chunks.data(), chunks.size(), 0, n, out.p, raw, nullptr, 0, stream, cfg),
       "DecodeRows");
  };
  std::vector<double> ms = TimeMs([&] { decode(opt.config); }, opt.warmup, opt.reps, stream);
  std::vector<uint8_t> gpu(raw);
  Cuda(cudaMemcpy(gpu.data(), out.p, raw, cudaMemcpyDeviceToHost), "copy back");
  const bool decode_ok = gpu == cpu && cpu_ok;
  const double med = Median(ms);
  const double roof_ms = double(compressed + raw) / copy_bps * 1e3;
  r["decode_ms_median"] = med;
  r["decode_ms_min"] = *std::min_element(ms.begin(), ms.end());
  r["decode_ms_max"] = *std::max_element(ms.begin(), ms.end());
  r["decode_gbps"] = raw / (med * 1e-3) / 1e9;
  r["roofline_ms"] = roof_ms;
  r["roofline_efficiency"] = roof_ms / med;
  r["decode_equals_cpu"] = decode_ok;

  bool sweep_ok = true;
  if (opt.sweep) {
    // A few launch shapes around the default (docs/results/gpu-notes.md).
    struct Shape {
      uint32_t span_rows, block_threads, max_blocks;
      Prefetch prefetch;
      WideStaging staging;
    };
    json sweep = json::array();
    for (const Shape& sh : {Shape{0, 0, 0, Prefetch::kAuto, WideStaging::kAuto},
                            Shape{0, 0, 0, Prefetch::kOff, WideStaging::kAuto},
                            Shape{0, 0, 0, Prefetch::kOn, WideStaging::kAuto},
                            Shape{0, 256, 0, Prefetch::kAuto, WideStaging::kAuto},
                            Shape{4096, 0, 0, Prefetch::kAuto, WideStaging::kAuto},
                            Shape{0, 0, 132 * 16, Prefetch::kAuto, WideStaging::kAuto},
                            Shape{0, 0, 0, Prefetch::kAuto, WideStaging::kOff},
                            Shape{0, 0, 0, Prefetch::kAuto, WideStaging::kOn},
                            Shape{0, 256, 0, Prefetch::kAuto, WideStaging::kOn}}) {
      l3::cuda::LaunchConfig cfg;
      cfg.span_rows = sh.span_rows;
      cfg.block_threads = sh.block_threads;
      cfg.max_blocks = sh.max_blocks;
      cfg.payload_prefetch = sh.prefetch;
      cfg.wide_tile_staging = sh.staging;
      const double m = Median(TimeMs([&] { decode(cfg); }, 2, opt.reps, stream));
      const std::vector<uint8_t> got = [&] {
        std::vector<uint8_t> h(raw);
        Cuda(cudaMemcpy(h.data(), out.p, raw, cudaMemcpyDeviceToHost), "copy sweep output");
        return h;
      }();
      const bool exact = std::memcmp(got.data(), cpu.data(), raw) == 0;
      sweep_ok = sweep_ok && exact;
      sweep.push_back({{"span_rows", sh.span_rows}, {"block_threads", sh.block_threads},
                       {"max_blocks", sh.max_blocks}, {"payload_prefetch", ModeName(sh.prefetch)},
                       {"wide_tile_staging", ModeName(sh.staging)}, {"median_ms", m},
                       {"gbps", raw / (m * 1e-3) / 1e9}, {"exact", exact}});
      std::printf("  sweep span %u threads %u blocks %u prefetch %s staging %s: %.1f GB/s%s\n",
                  sh.span_rows, sh.block_threads, sh.max_blocks, ModeName(sh.prefetch),
                  ModeName(sh.staging), raw / (m * 1e-3) / 1e9, exact ? "" : " WRONG");
    }
    r["launch_sweep"] = sweep;
  }

  // Random access: uniform random row ids, checked against the CPU's Take
  // and the original.
  const uint64_t q = opt.queries;
  std::vector<uint64_t> rows(q);
  std::mt19937_64 rng(12345);
  for (uint64_t& x : rows) x = rng() % n;
  DeviceBuffer d_rows(q * 8), d_vals(q * vb);
  Cuda(cudaMemcpy(d_rows.p, rows.data(), q * 8, cudaMemcpyHostToDevice), "copy rows");
  Cuda(cudaMemset(d_vals.p, 0xA5, q * vb), "cudaMemset");
  std::vector<double> tms = TimeMs(
      [&] {
        Ok(l3::cuda::Take(chunks.data(), chunks.size(), static_cast<const uint64_t*>(d_rows.p), q,
                          d_vals.p, q * vb, nullptr, 0, stream),
           "Take");
      },
      opt.warmup, opt.reps, stream);
  std::vector<uint8_t> taken(q * vb), cpu_taken(q * vb);
  Cuda(cudaMemcpy(taken.data(), d_vals.p, q * vb, cudaMemcpyDeviceToHost), "copy back");
  t0 = Clock::now();
  Ok(reader->Take(0, rows.data(), q, cpu_taken.data(), cpu_taken.size()), "CPU Take");
  t1 = Clock::now();
  uint64_t wrong = 0;
  const uint8_t* orig = static_cast<const uint8_t*>(col.data);
  for (uint64_t i = 0; i < q; ++i) {
    wrong += std::memcmp(&taken[i * vb], &cpu_taken[i * vb], vb) != 0 ||
             std::memcmp(&taken[i * vb], &orig[rows[i] * vb], vb) != 0;
  }
  const double tmed = Median(tms);
  r["take_queries"] = q;
  r["take_ms_median"] = tmed;
  r["take_gqps"] = q / (tmed * 1e-3) / 1e9;
  r["take_wrong"] = wrong;
  r["cpu_take_s"] = Seconds(t0, t1);

  // Range decode: random ranges of range_rows rows, each to its own slot.
  const uint64_t len = std::min<uint64_t>(opt.range_rows, std::max<uint64_t>(n / 4, 1));
  const int nr = opt.ranges;
  std::vector<uint64_t> starts(nr);
  for (uint64_t& s : starts) s = rng() % (n - len + 1);
  DeviceBuffer d_ranges(uint64_t(nr) * len * vb);
  std::vector<double> rms = TimeMs(
      [&] {
        for (int i = 0; i < nr; ++i) {
          Ok(l3::cuda::DecodeRows(chunks.data(), chunks.size(), starts[i], starts[i] + len,
                                  static_cast<uint8_t*>(d_ranges.p) + uint64_t(i) * len * vb, len * vb,
                                  nullptr, 0, stream, opt.config),
             "DecodeRows range");
        }
      },
      opt.warmup, opt.reps, stream);
  std::vector<uint8_t> ranges_host(uint64_t(nr) * len * vb);
  Cuda(cudaMemcpy(ranges_host.data(), d_ranges.p, ranges_host.size(), cudaMemcpyDeviceToHost), "copy back");
  bool ranges_ok = true;
  for (int i = 0; i < nr; ++i) {
    ranges_ok = ranges_ok && std::memcmp(&ranges_host[uint64_t(i) * len * vb], &cpu[starts[i] * vb], len * vb) == 0;
  }
  const double rmed = Median(rms);
  r["range_rows"] = len;
  r["range_count"] = nr;
  r["range_ms_median_per_range"] = rmed / nr;
  r["range_gbps"] = double(nr) * len * vb / (rmed * 1e-3) / 1e9;
  r["range_equals_cpu"] = ranges_ok;

  // Host path: file bytes in host memory -> pinned -> device -> decode.
  auto loader = l3::cuda::Loader::Create();
  Ok(loader.status(), "Loader::Create");
  Cuda(cudaMemset(out.p, 0xA5, raw), "cudaMemset");
  std::vector<double> host_s;
  for (int i = 0; i < 3; ++i) {
    t0 = Clock::now();
    Ok(loader->ReadRows(*reader, 0, 0, n, out.p, raw, stream), "Loader::ReadRows");
    Cuda(cudaStreamSynchronize(stream), "Loader sync");
    t1 = Clock::now();
    host_s.push_back(Seconds(t0, t1));
  }
  Cuda(cudaMemcpy(gpu.data(), out.p, raw, cudaMemcpyDeviceToHost), "copy back");
  const bool loader_ok = gpu == cpu;
  r["host_path_s_median"] = Median(host_s);
  r["host_path_gbps"] = raw / Median(host_s) / 1e9;
  r["host_path_equals_cpu"] = loader_ok;

  const bool ok = cpu_ok && decode_ok && sweep_ok && wrong == 0 && ranges_ok && loader_ok;
  r["all_checks_passed"] = ok;
  *all_ok = *all_ok && ok;
  std::printf("   ratio %.2f  decode %.3f ms = %.0f GB/s (roofline %.0f%%)  take %.2f Gq/s (%" PRIu64
              " wrong)  range %.0f GB/s  host %.1f GB/s  %s\n",
              double(r["compression_ratio"]), med, double(r["decode_gbps"]),
              100 * double(r["roofline_efficiency"]), double(r["take_gqps"]), wrong,
              double(r["range_gbps"]), double(r["host_path_gbps"]), ok ? "OK" : "MISMATCH");
  std::fflush(stdout);
  return r;
}

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string Markdown(const json& report) {
  std::ostringstream md;
  md << "# L3 CUDA backend: GPU benchmark\n\n";
  md << "Generated by `bench/gpu/l3bench` (do not edit by hand; see docs/results/gpu-notes.md).\n\n";
  md << "- GPU: " << std::string(report["device"]["name"]) << " (" << int(report["device"]["sms"])
     << " SMs), driver/runtime " << std::string(report["device"]["driver"]) << "\n";
  md << "- Date: " << std::string(report["date"]) << "; commit " << std::string(report["commit"]) << "\n";
  md << "- Command: `" << std::string(report["command"]) << "`\n";
  md << "- Device-to-device copy bandwidth B (read + write): "
     << Fmt("%.0f", double(report["copy_bandwidth"]["bytes_per_s"]) / 1e9) << " GB/s\n";
  md << "- Decode: uncompressed GB/s, CUDA events, median of " << int(report["reps"])
     << " runs after warm-up. Roofline = (compressed + output bytes) / B. Random access: "
     << uint64_t(report["queries"]) << " uniform random row ids, every value checked against the "
     << "CPU reader. Range: " << int(report["ranges"]) << " random ranges per timing.\n\n";
  md << "| dataset | type | rows | ratio | decode GB/s | decode ms | roofline eff. | random access Gq/s "
        "| wrong | range GB/s | host path GB/s | checks |\n";
  md << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const json& r : report["results"]) {
    md << "| " << std::string(r["dataset"]) << " | " << std::string(r["type"]) << " | "
       << uint64_t(r["rows"]) << " | " << Fmt("%.2f", r["compression_ratio"]) << " | "
       << Fmt("%.0f", r["decode_gbps"]) << " | " << Fmt("%.3f", r["decode_ms_median"]) << " | "
       << Fmt("%.0f%%", 100 * double(r["roofline_efficiency"])) << " | "
       << Fmt("%.2f", r["take_gqps"]) << " | " << uint64_t(r["take_wrong"]) << " | "
       << Fmt("%.0f", r["range_gbps"]) << " | " << Fmt("%.1f", r["host_path_gbps"]) << " | "
       << (bool(r["all_checks_passed"]) ? "pass" : "FAIL") << " |\n";
  }
  return md.str();
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Options Parse(int argc, char** argv) {
  Options o;
  o.datasets = {"linear", "normal", "poisson", "cosmos", "polylog", "exp", "poly", "uniform40"};
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) Die(std::string("missing value for ") + argv[i]);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--datasets") {
      const std::string v = value(i);
      o.datasets = v == "none" ? std::vector<std::string>{} : v == "paper" ? o.datasets : Split(v);
    } else if (a == "--real") {
      o.real = true;
    } else if (a == "--real-dir") {
      o.real_dir = value(i);
      o.real = true;
    } else if (a == "--scale") {
      o.scale = std::stod(value(i));
    } else if (a == "--reps") {
      o.reps = std::stoi(value(i));
    } else if (a == "--queries") {
      o.queries = std::stoull(value(i));
    } else if (a == "--range-rows") {
      o.range_rows = std::stoull(value(i));
    } else if (a == "--span-rows") {
      o.config.span_rows = static_cast<uint32_t>(std::stoul(value(i)));
    } else if (a == "--max-blocks") {
      o.config.max_blocks = static_cast<uint32_t>(std::stoul(value(i)));
    } else if (a == "--block-threads") {
      o.config.block_threads = static_cast<uint32_t>(std::stoul(value(i)));
    } else if (a == "--prefetch") {
      o.config.payload_prefetch = ParseMode<Prefetch>(a, value(i));
    } else if (a == "--wide-staging") {
      o.config.wide_tile_staging = ParseMode<WideStaging>(a, value(i));
    } else if (a == "--dictionary-staging") {
      o.config.dictionary_staging = ParseMode<DictionaryStaging>(a, value(i));
    } else if (a == "--split-min-rows") {
      o.split_min_rows = std::stoll(value(i));
    } else if (a == "--outliers") {
      o.outliers = std::stoull(value(i));
    } else if (a == "--patched-for") {
      const std::string v = value(i);
      if (v != "on" && v != "off") Die("--patched-for takes on or off");
      o.patched_for = v == "on";
    } else if (a == "--rows-ef") {
      const std::string v = value(i);
      if (v != "on" && v != "off") Die("--rows-ef takes on or off");
      o.rows_ef = v == "on";
    } else if (a == "--delta-orders") {
      const std::string v = value(i);
      if (v != "on" && v != "off") Die("--delta-orders takes on or off");
      o.delta_orders = v == "on";
    } else if (a == "--profile") {
      const std::string v = value(i);
      if (v != "hot" && v != "archive") Die("--profile takes hot or archive");
      o.archive = v == "archive";
    } else if (a == "--real-rows") {
      o.real_rows = std::stoull(value(i));
    } else if (a == "--dump-dir") {
      o.dump_dir = value(i);
    } else if (a == "--sweep") {
      o.sweep = true;
    } else if (a == "--json") {
      o.json_path = value(i);
    } else if (a == "--md") {
      o.md_path = value(i);
    } else if (a == "--commit") {
      o.commit = value(i);
    } else {
      Die("unknown argument " + a + " (see the comment at the top of bench/gpu/l3bench.cu)");
    }
  }
  return o;
}

/// Writes a column's raw values to dir/<name>.bin (':' in names becomes '_')
/// and returns its manifest entry.
json DumpColumn(const std::string& dir, const Column& col) {
  std::string file = col.name;
  for (char& ch : file) {
    if (ch == ':' || ch == '/') ch = '_';
  }
  file += ".bin";
  const size_t bytes = col.rows * l3::PhysicalTypeBytes(col.type);
  std::ofstream f(dir + "/" + file, std::ios::binary);
  f.write(static_cast<const char*>(col.data), static_cast<std::streamsize>(bytes));
  if (!f) Die("cannot write " + dir + "/" + file);
  return {{"dataset", col.name}, {"type", l3::PhysicalTypeName(col.type)}, {"rows", col.rows},
          {"file", file}};
}

/// `data` repeated end to end to `rows` values of `value_bytes` each.
std::vector<uint8_t> Tile(const void* data, uint64_t size, uint64_t rows, int value_bytes) {
  std::vector<uint8_t> out(rows * value_bytes);
  const uint64_t have = size * value_bytes;
  for (uint64_t at = 0; at < out.size(); at += have) {
    std::memcpy(out.data() + at, data, std::min<uint64_t>(have, out.size() - at));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = Parse(argc, argv);
  if (!l3::cuda::DeviceAvailable()) Die("no CUDA device");
  int device = 0;
  Cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  Cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaStream_t stream;
  Cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  json report;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  report["date"] = date;
  report["commit"] = opt.commit;
  report["command"] = opt.command;
  report["device"] = {{"name", prop.name},
                      {"sms", prop.multiProcessorCount},
                      {"memory_bytes", prop.totalGlobalMem},
                      {"l2_bytes", prop.l2CacheSize},
                      {"driver", std::to_string(driver) + "/" + std::to_string(runtime)}};
  report["reps"] = opt.reps;
  report["queries"] = opt.queries;
  report["ranges"] = opt.ranges;
  report["launch_config"] = {{"span_rows", opt.config.span_rows},
                             {"max_blocks", opt.config.max_blocks},
                             {"block_threads", opt.config.block_threads},
                             {"payload_prefetch", ModeName(opt.config.payload_prefetch)},
                             {"wide_tile_staging", ModeName(opt.config.wide_tile_staging)},
                             {"dictionary_staging", ModeName(opt.config.dictionary_staging)}};
  std::printf("l3bench on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  report["copy_bandwidth"] = MeasureCopyBandwidth(stream, opt.reps);
  const double copy_bps = report["copy_bandwidth"]["bytes_per_s"];
  std::printf("device-to-device copy: %.0f GB/s (read + write)\n", copy_bps / 1e9);

  bool all_ok = true;
  report["results"] = json::array();
  json manifest = json::array();
  auto run = [&](const Column& col) {
    if (!opt.dump_dir.empty()) manifest.push_back(DumpColumn(opt.dump_dir, col));
    report["results"].push_back(RunColumn(col, opt, copy_bps, stream, &all_ok));
  };
  for (const std::string& name : opt.datasets) {
    const l3::datagen::DatasetInfo* info = l3::datagen::FindDataset(name);
    if (info == nullptr) Die("unknown dataset " + name);
    const uint64_t rows = std::max<uint64_t>(
        1, static_cast<uint64_t>((info->paper_rows ? info->paper_rows : info->report_rows) * opt.scale));
    auto t0 = Clock::now();
    auto column = l3::datagen::Generate(name, rows);
    Ok(column.status(), "Generate");
    std::printf("generated %s in %.1f s\n", name.c_str(), Seconds(t0, Clock::now()));
    run({name, column->type(), column->data(), column->size()});
  }
  if (opt.outliers > 0) {
    // Values in [17, 80] with 1% outliers up to 2^20: FOR needs 20 bits a
    // row, PATCHED_FOR 6 and the exceptions.
    std::mt19937_64 rng(42);
    std::vector<uint32_t> v(opt.outliers);
    for (uint32_t& x : v) {
      x = rng() % 100 == 0 ? static_cast<uint32_t>(rng() % (1u << 20)) : 17 + rng() % 64;
    }
    run({"outliers", l3::PhysicalType::kUInt32, v.data(), v.size()});
    run({"outliers-no-patched-for", l3::PhysicalType::kUInt32, v.data(), v.size(), false});
  }
  if (opt.real) {
    auto columns = l3::datagen::LoadRealIntegerArrays(opt.real_dir.empty() ? l3::datagen::RealDataDir()
                                                                           : opt.real_dir);
    Ok(columns.status(), "LoadRealIntegerArrays");
    for (const auto& c : *columns) {
      if (opt.real_rows == 0 || c.size() == 0) {
        run({"real:" + c.name(), c.type(), c.data(), c.size()});
        continue;
      }
      const std::vector<uint8_t> tiled =
          Tile(c.data(), c.size(), opt.real_rows, l3::PhysicalTypeBytes(c.type()));
      run({"real:" + c.name() + "@" + std::to_string(opt.real_rows), c.type(), tiled.data(),
           opt.real_rows});
    }
  }
  report["all_checks_passed"] = all_ok;
  report["real_rows"] = opt.real_rows;
  if (!opt.dump_dir.empty()) {
    std::ofstream(opt.dump_dir + "/manifest.json") << json{{"columns", manifest}}.dump(2) << "\n";
  }

  const std::string md = Markdown(report);
  std::printf("\n%s", md.c_str());
  if (!opt.json_path.empty()) std::ofstream(opt.json_path) << report.dump(2) << "\n";
  if (!opt.md_path.empty()) std::ofstream(opt.md_path) << md;
  cudaStreamDestroy(stream);
  return all_ok ? 0 : 1;
}
