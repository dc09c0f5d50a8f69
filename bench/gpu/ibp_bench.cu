// l3_ibp_gpu_bench: IBP float columns on the GPU (spec §11.2.3). Not a test;
// writes a Markdown table and JSON (docs/results/ibp-gpu.md).
//
//   l3_ibp_gpu_bench [--real-dir DIR] [--tile-bytes N] [--table-rows N]
//                    [--table-width R] [--reps R] [--commit C] [--md F] [--json F]
//
// Columns: every float array of the real-data directory, its rows repeated up
// to --tile-bytes (default 2 GiB) of raw rows, and a generated embedding
// table of --table-rows rows of --table-width f32 values (default 10M x 128):
// value (i, j) = bf16-rounded N(0, 0.05^2) from a fixed seed, so the low 16
// bits of every value are zero, as in tables trained or stored in bfloat16.
// Each is written with FloatEncoding::kIbp and uploaded twice: payloads in
// device memory and in pinned host memory (zero-copy reads across PCIe).
// Measured in the same run: the device-to-device copy bandwidth (read +
// write) and the pinned host-to-device copy bandwidth; full decode and a
// gather of random rows (1024 rows of each real array, 65536 of the table),
// CUDA events, median of --reps after a warm-up. Every output is compared
// with the CPU reader byte for byte.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "l3/cuda.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace {

#define CUDA_OK(expr)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (expr);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

void Check(const l3::Status& st, const std::string& what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), st.ToString().c_str());
    std::exit(2);
  }
}

struct Options {
  std::string real_dir;
  uint64_t tile_bytes = uint64_t{2} << 30;
  uint64_t table_rows = 10000000;
  uint32_t table_width = 128;
  int reps = 5;
  std::string commit = "unknown";
  std::string md, json;
};

Options Parse(int argc, char** argv) {
  Options o;
  o.real_dir = l3::datagen::RealDataDir();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--real-dir") o.real_dir = next();
    else if (a == "--tile-bytes") o.tile_bytes = std::stoull(next());
    else if (a == "--table-rows") o.table_rows = std::stoull(next());
    else if (a == "--table-width") o.table_width = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--reps") o.reps = std::stoi(next());
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

template <typename F>
double MedianMs(int reps, F&& launch) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  launch();  // warm-up
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    CUDA_OK(cudaEventRecord(a));
    launch();
    CUDA_OK(cudaEventRecord(b));
    CUDA_OK(cudaEventSynchronize(b));
    float t = 0;
    CUDA_OK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CUDA_OK(cudaEventDestroy(a));
  CUDA_OK(cudaEventDestroy(b));
  return ms[ms.size() / 2];
}

// Device-to-device copy (bytes read + written per second) and pinned
// host-to-device copy, each over `bytes`.
void MeasureCopies(uint64_t bytes, int reps, double* d2d_gbs, double* h2d_gbs) {
  void *d_a, *d_b, *h;
  CUDA_OK(cudaMalloc(&d_a, bytes));
  CUDA_OK(cudaMalloc(&d_b, bytes));
  CUDA_OK(cudaMallocHost(&h, bytes));
  std::memset(h, 1, bytes);
  CUDA_OK(cudaMemset(d_a, 1, bytes));
  const double d2d = MedianMs(reps, [&] { CUDA_OK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice)); });
  const double h2d = MedianMs(reps, [&] { CUDA_OK(cudaMemcpyAsync(d_a, h, bytes, cudaMemcpyHostToDevice)); });
  *d2d_gbs = 2.0 * bytes / d2d / 1e6;
  *h2d_gbs = bytes / h2d / 1e6;
  CUDA_OK(cudaFree(d_a));
  CUDA_OK(cudaFree(d_b));
  CUDA_OK(cudaFreeHost(h));
}

struct Dataset {
  std::string name;
  l3::PhysicalType type;
  uint32_t row_width;
  std::vector<uint8_t> bytes;  // rows
  uint64_t gather_rows;
  std::string note;
};

std::vector<uint8_t> Tile(const std::vector<uint8_t>& rows, uint64_t row_bytes, uint64_t target) {
  const uint64_t have = rows.size() / row_bytes;
  const uint64_t want = std::max<uint64_t>(have, target / row_bytes);
  std::vector<uint8_t> out(want * row_bytes);
  for (uint64_t r = 0; r < want; ++r) {
    std::memcpy(out.data() + r * row_bytes, rows.data() + (r % have) * row_bytes, row_bytes);
  }
  return out;
}

std::vector<uint8_t> EmbeddingTable(uint64_t rows, uint32_t width) {
  std::vector<uint8_t> out(rows * width * 4);
  std::mt19937_64 rng(2026);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  for (uint64_t i = 0; i < rows * width; ++i) {
    const float x = normal(rng);
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits = (bits + 0x7FFFu + ((bits >> 16) & 1)) & 0xFFFF0000u;  // round to bf16, nearest even
    std::memcpy(out.data() + 4 * i, &bits, 4);
  }
  return out;
}

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof(b), f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (!l3::cuda::DeviceAvailable()) {
    std::fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  double d2d = 0, h2d = 0;
  MeasureCopies(uint64_t{1} << 30, o.reps, &d2d, &h2d);
  std::printf("device %s: copy %.0f GB/s (read + write), pinned host-to-device %.1f GB/s\n",
              prop.name, d2d, h2d);

  std::vector<Dataset> sets;
  auto arrays = l3::datagen::LoadRealFloatArrays(o.real_dir);
  if (!arrays.ok()) {
    std::fprintf(stderr, "real float arrays: %s\n", arrays.status().ToString().c_str());
  } else {
    for (auto& a : *arrays) {
      const uint64_t row_bytes = uint64_t{a.row_width} * l3::PhysicalTypeBytes(a.type);
      Dataset d{a.name, a.type, a.row_width, Tile(a.bytes, row_bytes, o.tile_bytes), 1024,
                "tiled from " + std::to_string(a.rows) + " rows"};
      sets.push_back(std::move(d));
    }
  }
  if (o.table_rows > 0) {
    sets.push_back({"embedding_bf16_in_f32", l3::PhysicalType::kFloat32, o.table_width,
                    EmbeddingTable(o.table_rows, o.table_width), 65536, "generated"});
  }

  nlohmann::json results = nlohmann::json::array();
  std::string md;
  md += "# IBP float columns on the GPU\n\n";
  md += "Generated by `bench/gpu/ibp_bench.cu` (`l3_ibp_gpu_bench`); do not edit by hand.\n\n";
  md += std::string("- Device: ") + prop.name + "; commit " + o.commit + "\n";
  md += "- Device-to-device copy (read + write): " + Fmt("%.0f", d2d) +
        " GB/s; pinned host-to-device copy: " + Fmt("%.1f", h2d) + " GB/s (same run)\n";
  md += "- Decode GB/s counts decoded bytes. *roof*: (compressed + decoded bytes) / copy bandwidth "
        "/ time. *pinned bound*: min(ratio x pinned copy, device roofline). Every output was "
        "compared with the CPU reader.\n\n";
  md += "| dataset | rows x width | raw MB | ratio | packed rows | decode GB/s | roof | pinned "
        "decode GB/s | of pinned bound | gather rows | gather GB/s | pinned gather GB/s | of "
        "pinned bound | checks |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  bool all_ok = true;
  for (Dataset& d : sets) {
    const uint64_t row_bytes = uint64_t{d.row_width} * l3::PhysicalTypeBytes(d.type);
    const uint64_t rows = d.bytes.size() / row_bytes;
    l3::WriteOptions wo;
    wo.float_encoding = l3::FloatEncoding::kIbp;
    const auto t0 = std::chrono::steady_clock::now();
    auto writer = l3::Writer::CreateInMemory({{"x", d.type, {}, d.row_width}}, wo);
    Check(writer.status(), "writer");
    Check(writer->Append(0, d.bytes.data(), d.bytes.size() / l3::PhysicalTypeBytes(d.type)), "append");
    Check(writer->Close(), "close");
    const double encode_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<uint8_t> file = writer->TakeBuffer();
    auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
    Check(reader.status(), "open");
    uint64_t packed = 0;
    for (size_t k = 0; k < reader->column(0).chunks.size(); ++k) {
      auto st = reader->IbpStats(0, static_cast<int>(k));
      Check(st.status(), "stats");
      packed += st->packed_rows;
    }
    const double ratio = static_cast<double>(d.bytes.size()) / file.size();
    void* d_out;
    CUDA_OK(cudaMalloc(&d_out, d.bytes.size()));
    std::vector<uint64_t> ids(d.gather_rows);
    std::mt19937_64 rng(7);
    for (uint64_t& id : ids) id = rng() % rows;
    uint64_t* d_ids;
    CUDA_OK(cudaMalloc(&d_ids, ids.size() * 8));
    CUDA_OK(cudaMemcpy(d_ids, ids.data(), ids.size() * 8, cudaMemcpyHostToDevice));
    std::vector<uint8_t> expected_gather(ids.size() * row_bytes);
    Check(reader->Take(0, ids.data(), ids.size(), expected_gather.data(), expected_gather.size()), "take");
    nlohmann::json r;
    bool ok = true;
    double decode_ms[2] = {0, 0}, gather_ms[2] = {0, 0};
    uint64_t compressed = 0;
    for (int residency = 0; residency < 2; ++residency) {
      auto column = l3::cuda::UploadIbpColumn(
          *reader, 0, residency == 0 ? l3::cuda::IbpResidency::kDevice : l3::cuda::IbpResidency::kPinnedHost,
          nullptr);
      Check(column.status(), "upload");
      compressed = column->compressed_bytes();
      const auto& chunks = column->chunks();
      decode_ms[residency] = MedianMs(o.reps, [&] {
        Check(l3::cuda::DecodeIbpRows(chunks.data(), chunks.size(), 0, rows, d_out, d.bytes.size(), nullptr),
              "decode");
      });
      std::vector<uint8_t> got(d.bytes.size());
      CUDA_OK(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
      ok = ok && got == d.bytes;
      gather_ms[residency] = MedianMs(o.reps, [&] {
        Check(l3::cuda::GatherIbpRows(chunks.data(), chunks.size(), d_ids, ids.size(), d_out,
                                      d.bytes.size(), nullptr),
              "gather");
      });
      std::vector<uint8_t> g(ids.size() * row_bytes);
      CUDA_OK(cudaMemcpy(g.data(), d_out, g.size(), cudaMemcpyDeviceToHost));
      ok = ok && g == expected_gather;
    }
    all_ok = all_ok && ok;
    const double out_gb = d.bytes.size() / 1e9;
    const double decode_gbs = out_gb / (decode_ms[0] / 1e3);
    const double roof = (static_cast<double>(compressed) + d.bytes.size()) / 1e9 / (d2d) /
                        (decode_ms[0] / 1e3);
    const double pinned_decode_gbs = out_gb / (decode_ms[1] / 1e3);
    const double pinned_bound = std::min(ratio * h2d, d2d / (1.0 + 1.0 / ratio));
    const double gather_gb = ids.size() * row_bytes / 1e9;
    const double gather_gbs = gather_gb / (gather_ms[0] / 1e3);
    const double pinned_gather_gbs = gather_gb / (gather_ms[1] / 1e3);
    r["dataset"] = d.name;
    r["note"] = d.note;
    r["rows"] = rows;
    r["row_width"] = d.row_width;
    r["type"] = l3::PhysicalTypeName(d.type);
    r["raw_bytes"] = d.bytes.size();
    r["file_bytes"] = file.size();
    r["ratio"] = ratio;
    r["packed_rows"] = packed;
    r["encode_seconds"] = encode_s;
    r["decode_gbs"] = decode_gbs;
    r["decode_roofline"] = roof;
    r["pinned_decode_gbs"] = pinned_decode_gbs;
    r["pinned_bound_gbs"] = pinned_bound;
    r["gather_rows"] = ids.size();
    r["gather_gbs"] = gather_gbs;
    r["pinned_gather_gbs"] = pinned_gather_gbs;
    r["checks_passed"] = ok;
    results.push_back(r);
    std::printf("%-48s ratio %6.2f  decode %7.1f GB/s (%3.0f%%)  pinned %6.1f GB/s (%3.0f%% of %.1f)  "
                "gather %ld rows %7.1f GB/s, pinned %6.1f GB/s  encode %.1f s  %s\n",
                d.name.c_str(), ratio, decode_gbs, 100 * roof, pinned_decode_gbs,
                100 * pinned_decode_gbs / pinned_bound, pinned_bound, static_cast<long>(ids.size()),
                gather_gbs, pinned_gather_gbs, encode_s, ok ? "pass" : "MISMATCH");
    md += "| " + d.name + " (" + d.note + ") | " + std::to_string(rows) + " x " +
          std::to_string(d.row_width) + " " + l3::PhysicalTypeName(d.type) + " | " +
          Fmt("%.0f", d.bytes.size() / 1e6) + " | " + Fmt("%.2f", ratio) + " | " +
          Fmt("%.1f%%", 100.0 * packed / rows) + " | " + Fmt("%.0f", decode_gbs) + " | " +
          Fmt("%.0f%%", 100 * roof) + " | " + Fmt("%.1f", pinned_decode_gbs) + " | " +
          Fmt("%.0f%%", 100 * pinned_decode_gbs / pinned_bound) + " | " + std::to_string(ids.size()) +
          " | " + Fmt("%.1f", gather_gbs) + " | " + Fmt("%.1f", pinned_gather_gbs) + " | " +
          Fmt("%.0f%%", 100 * pinned_gather_gbs / pinned_bound) + " | " + (ok ? "pass" : "MISMATCH") +
          " |\n";
    CUDA_OK(cudaFree(d_out));
    CUDA_OK(cudaFree(d_ids));
  }
  nlohmann::json j;
  j["device"] = prop.name;
  j["commit"] = o.commit;
  j["copy_gbs"] = d2d;
  j["pinned_h2d_gbs"] = h2d;
  j["results"] = results;
  j["all_checks_passed"] = all_ok;
  if (!o.json.empty()) std::ofstream(o.json) << j.dump(2) << "\n";
  if (!o.md.empty()) std::ofstream(o.md) << md;
  return all_ok ? 0 : 1;
}
