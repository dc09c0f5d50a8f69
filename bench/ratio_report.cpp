// l3_ratio_report: compression ratios of L3 against zstd and reference
// figures, for every generated dataset and every real integer array.
//
// For each dataset it writes the column with the public Writer (hot and
// archive profiles), reads it back through the public Reader (partition
// statistics, and a byte-for-byte check of ReadRows against the input), and
// compresses the same raw bytes with libzstd at levels 3 and 19. Results go
// to <out>/ratios.md and <out>/ratios.json. Datasets are processed one at a
// time and freed, so peak memory is about three times the largest column.
//
//   l3_ratio_report [--quick] [--datasets a,b,c] [--rows N] [--seed S]
//                   [--out DIR] [--real-dir DIR] [--no-real] [--no-zstd19]
//                   [--zstd-cache FILE] [--command TEXT]
//
// zstd -19 is by far the slowest step (under 1 MB/s per core on random
// 40-bit data, two hours for the full report on 2 cores). --no-zstd19 skips
// it for smoke runs. --zstd-cache keeps zstd results keyed by a hash of the
// raw bytes, the level, the worker count and the zstd version: the datasets
// are deterministic, so a rerun after an SDK change reuses them (the report
// says which figures came from the cache).
//
// Exit status: 0 on success, 1 if any round trip failed or any write or read
// returned an error, 2 on bad usage.
#include <zstd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace {

namespace dg = l3::datagen;
using json = nlohmann::ordered_json;

constexpr int kNumModels = 7;  // spec §8.1: CONSTANT .. RUNS_EF
constexpr uint64_t kQuickRows = 10000000;
constexpr uint64_t kVerifySliceRows = uint64_t{1} << 24;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---------------------------------------------------------------------------
// Reference figures

struct Reference {
  const char* dataset;
  const char* setting;  // what the figure was measured on
  double paper;         // L3 paper, 0 if none
  double original_l3;   // the original L3 code run by us, 64 B per partition
  double parquet;       // pyarrow 25, DELTA_BINARY_PACKED + zstd
};

const Reference kReferences[] = {
    {"linear", "200M u32", 15.4, 15.05, 166.75},
    {"normal", "200M u32", 13.8, 14.40, 116.16},
    {"uniform40", "100M u64", 0, 1.524, 1.55},
    {"cosmos", "100M i32", 0, 1.838, 2.73},
};

const Reference* FindReference(const std::string& name) {
  for (const Reference& r : kReferences) {
    if (name == r.dataset) return &r;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// Measurements

struct L3Measure {
  bool ok = false;
  std::string error;
  uint64_t file_bytes = 0;
  double encode_seconds = 0;
  double decode_seconds = 0;
  bool verified = false;
  // Hot profile only: the layout read back through Reader::Partitions.
  uint64_t chunks = 0;
  uint64_t partitions = 0;
  uint64_t partition_table_bytes = 0;
  uint64_t parameter_bytes = 0;
  uint64_t payload_bytes = 0;
  uint64_t bounds_bytes = 0;
  uint64_t footer_bytes = 0;
  std::array<uint64_t, kNumModels> model_partitions{};
  std::array<uint64_t, kNumModels> model_rows{};
  uint64_t residual_rows = 0;      // rows of FOR/LINEAR/POLY partitions
  uint64_t residual_bit_rows = 0;  // sum of rows * Bit_Width over those
};

struct ZstdMeasure {
  bool ok = false;
  bool cached = false;  // taken from --zstd-cache, measured by an earlier run
  uint64_t bytes = 0;
  double seconds = 0;
};

struct DatasetResult {
  std::string name;
  std::string source;  // "generated" or "real"
  l3::PhysicalType type = l3::PhysicalType::kInt64;
  uint64_t rows = 0;
  uint64_t raw_bytes = 0;
  uint64_t seed = 0;
  double generate_seconds = 0;
  L3Measure hot, archive;
  ZstdMeasure zstd3, zstd19;
};

double Ratio(uint64_t raw, uint64_t compressed) {
  return compressed == 0 ? 0.0 : static_cast<double>(raw) / static_cast<double>(compressed);
}

// Decodes the whole column in slices and compares it with the input.
l3::Status VerifyRoundTrip(const l3::Reader& reader, const dg::Column& column) {
  const uint64_t width = static_cast<uint64_t>(l3::PhysicalTypeBytes(column.type()));
  if (reader.num_columns() != 1 || reader.column(0).num_rows != column.size() ||
      reader.column(0).type != column.type()) {
    return l3::Status(l3::StatusCode::kInternal, "schema or row count differs from the input");
  }
  std::vector<uint8_t> slice(std::min(column.size(), kVerifySliceRows) * width);
  const auto* expected = static_cast<const uint8_t*>(column.data());
  for (uint64_t begin = 0; begin < column.size(); begin += kVerifySliceRows) {
    const uint64_t end = std::min(column.size(), begin + kVerifySliceRows);
    const size_t bytes = static_cast<size_t>((end - begin) * width);
    l3::Status s = reader.ReadRows(0, begin, end, slice.data(), bytes);
    if (!s.ok()) return s;
    if (std::memcmp(slice.data(), expected + begin * width, bytes) != 0) {
      uint64_t row = begin;
      while (std::memcmp(slice.data() + (row - begin) * width, expected + row * width, width) == 0) {
        ++row;
      }
      return l3::Status(l3::StatusCode::kInternal,
                        "decoded row " + std::to_string(row) + " differs from the input");
    }
  }
  return l3::Status::OK();
}

L3Measure MeasureL3(const dg::Column& column, l3::Profile profile, bool collect_layout) {
  L3Measure m;
  l3::WriteOptions options;
  options.profile = profile;
  std::vector<uint8_t> file;
  {
    const auto start = std::chrono::steady_clock::now();
    l3::Result<l3::Writer> writer =
        l3::Writer::CreateInMemory({l3::ColumnSpec{column.name(), column.type(), {}}}, options);
    if (!writer.ok()) {
      m.error = "Writer::CreateInMemory: " + writer.status().ToString();
      return m;
    }
    l3::Status s = writer->Append(0, column.data(), column.size());
    if (s.ok()) s = writer->Close();
    if (!s.ok()) {
      m.error = "Writer: " + s.ToString();
      return m;
    }
    file = writer->TakeBuffer();
    m.encode_seconds = Seconds(start);
  }
  m.file_bytes = file.size();

  l3::Result<l3::Reader> reader = l3::Reader::OpenBuffer(file.data(), file.size());
  if (!reader.ok()) {
    m.error = "Reader::OpenBuffer: " + reader.status().ToString();
    return m;
  }
  if (collect_layout) {
    const l3::ColumnInfo& info = reader->column(0);
    m.footer_bytes = reader->info().footer_bytes;
    m.chunks = info.chunks.size();
    for (size_t c = 0; c < info.chunks.size(); ++c) {
      const l3::ChunkInfo& chunk = info.chunks[c];
      m.partitions += chunk.num_partitions;
      m.partition_table_bytes += chunk.partition_table.stored_bytes;
      m.parameter_bytes += chunk.parameters.stored_bytes;
      m.payload_bytes += chunk.payload.stored_bytes;
      m.bounds_bytes += chunk.bounds.present ? chunk.bounds.stored_bytes : 0;
      l3::Result<std::vector<l3::PartitionInfo>> parts =
          reader->Partitions(0, static_cast<int>(c));
      if (!parts.ok()) {
        m.error = "Reader::Partitions: " + parts.status().ToString();
        return m;
      }
      for (const l3::PartitionInfo& p : *parts) {
        const int model = static_cast<int>(p.model);
        if (model < 0 || model >= kNumModels) continue;
        m.model_partitions[model] += 1;
        m.model_rows[model] += p.num_rows;
        if (p.model != l3::ModelType::kConstant) {
          m.residual_rows += p.num_rows;
          m.residual_bit_rows += uint64_t{p.num_rows} * p.bit_width;
        }
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  l3::Status s = VerifyRoundTrip(*reader, column);
  m.decode_seconds = Seconds(start);
  if (!s.ok()) {
    m.error = "round trip: " + s.ToString();
    return m;
  }
  m.verified = true;
  m.ok = true;
  return m;
}

int ZstdWorkers() {
  const ZSTD_bounds bounds = ZSTD_cParam_getBounds(ZSTD_c_nbWorkers);
  if (ZSTD_isError(bounds.error) || bounds.upperBound <= 0) return 0;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::min(hw, bounds.upperBound);
}

ZstdMeasure MeasureZstd(const dg::Column& column, int level, int workers) {
  ZstdMeasure m;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (cctx == nullptr) return m;
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  if (workers > 0) ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, workers);
  std::vector<uint8_t> out(ZSTD_compressBound(column.size_bytes()));
  const auto start = std::chrono::steady_clock::now();
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), column.data(), column.size_bytes());
  m.seconds = Seconds(start);
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) return m;
  m.bytes = n;
  m.ok = true;
  return m;
}

// A 64-bit hash of the raw bytes, the cache key of the zstd results. Not
// cryptographic; it only has to tell different datasets apart.
uint64_t HashBytes(const void* data, uint64_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = 0x243F6A8885A308D3ull ^ size;
  auto mix = [&h](uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  };
  uint64_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    mix(w);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p + i, static_cast<size_t>(size - i));
  mix(tail);
  return h;
}

// zstd results of earlier runs, in a JSON object keyed by
// "<hash>/<bytes>/<level>/<workers>/<zstd version>".
class ZstdCache {
 public:
  explicit ZstdCache(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    std::ifstream in(path_);
    if (!in) return;
    entries_ = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!entries_.is_object()) entries_ = json::object();
  }

  static std::string Key(uint64_t hash, uint64_t bytes, int level, int workers) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%016llx/%llu/%d/%d/%s", static_cast<unsigned long long>(hash),
                  static_cast<unsigned long long>(bytes), level, workers, ZSTD_versionString());
    return buf;
  }

  bool Find(const std::string& key, ZstdMeasure* m) const {
    if (path_.empty() || !entries_.contains(key)) return false;
    const json& e = entries_[key];
    if (!e.contains("bytes") || !e.contains("seconds")) return false;
    m->ok = true;
    m->cached = true;
    m->bytes = e["bytes"].get<uint64_t>();
    m->seconds = e["seconds"].get<double>();
    return true;
  }

  void Store(const std::string& key, const ZstdMeasure& m) {
    if (path_.empty() || !m.ok) return;
    entries_[key] = {{"bytes", m.bytes}, {"seconds", m.seconds}};
    std::ofstream(path_) << entries_.dump(1) << "\n";
  }

 private:
  std::string path_;
  json entries_ = json::object();
};

// ---------------------------------------------------------------------------
// Environment

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string RunCommand(const char* command) {
  std::string out;
  if (std::FILE* p = popen(command, "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    pclose(p);
  }
  return Trimmed(out);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return Trimmed(line.substr(colon + 2));
    }
  }
  return "unknown";
}

double MemoryGiB() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return static_cast<double>(kib) / (1024.0 * 1024.0);
    in.ignore(256, '\n');
  }
  return 0;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// ---------------------------------------------------------------------------
// Output

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string FmtRatio(double r) {
  if (r <= 0) return "—";
  return Fmt(r < 10 ? "%.3f" : "%.2f", r);
}

std::string FmtCount(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string FmtSeconds(double s) { return Fmt(s < 1 ? "%.3f" : "%.2f", s); }

std::string FmtRows(uint64_t rows) {
  if (rows >= 1000000 && rows % 100000 == 0) return Fmt("%.1fM", rows / 1e6);
  return FmtCount(rows);
}

double RatioOf(const L3Measure& m, uint64_t raw) { return m.ok ? Ratio(raw, m.file_bytes) : 0; }

// The size the original L3 code's benchmark would report for the same
// partitioning: 64 bytes per partition plus the payload words.
double Ratio64(const DatasetResult& r) {
  if (!r.hot.ok) return 0;
  return Ratio(r.raw_bytes, r.hot.partitions * 64 + r.hot.payload_bytes);
}

bool BelowOriginalL3(const DatasetResult& r) {
  const Reference* ref = FindReference(r.name);
  return ref != nullptr && r.source == "generated" && r.hot.ok &&
         RatioOf(r.hot, r.raw_bytes) < ref->original_l3;
}

json MeasureJson(const L3Measure& m, uint64_t raw, bool layout) {
  json j;
  j["ok"] = m.ok;
  if (!m.error.empty()) j["error"] = m.error;
  j["file_bytes"] = m.file_bytes;
  j["ratio"] = RatioOf(m, raw);
  j["encode_seconds"] = m.encode_seconds;
  j["decode_seconds"] = m.decode_seconds;
  j["verified"] = m.verified;
  if (!layout) return j;
  j["chunks"] = m.chunks;
  j["partitions"] = m.partitions;
  j["partition_table_bytes"] = m.partition_table_bytes;
  j["parameter_bytes"] = m.parameter_bytes;
  j["payload_bytes"] = m.payload_bytes;
  j["bounds_bytes"] = m.bounds_bytes;
  j["footer_bytes"] = m.footer_bytes;
  j["metadata_bytes_per_partition"] =
      m.partitions ? static_cast<double>(m.partition_table_bytes + m.parameter_bytes) / m.partitions
                   : 0.0;
  json models = json::object();
  for (int k = 0; k < kNumModels; ++k) {
    models[l3::ModelTypeName(static_cast<l3::ModelType>(k))] = {
        {"partitions", m.model_partitions[k]}, {"rows", m.model_rows[k]}};
  }
  j["models"] = models;
  j["mean_bit_width"] =
      m.residual_rows ? static_cast<double>(m.residual_bit_rows) / m.residual_rows : 0.0;
  return j;
}

json ResultJson(const DatasetResult& r) {
  json j;
  j["name"] = r.name;
  j["source"] = r.source;
  j["type"] = l3::PhysicalTypeName(r.type);
  j["rows"] = r.rows;
  j["raw_bytes"] = r.raw_bytes;
  if (r.source == "generated") {
    j["seed"] = r.seed;
    j["generate_seconds"] = r.generate_seconds;
  }
  j["l3_hot"] = MeasureJson(r.hot, r.raw_bytes, true);
  j["l3_hot"]["ratio_64b_per_partition"] = Ratio64(r);
  j["l3_hot"]["avg_partition_rows"] =
      r.hot.partitions ? static_cast<double>(r.rows) / r.hot.partitions : 0.0;
  j["l3_hot"]["payload_bits_per_row"] =
      r.rows ? 8.0 * static_cast<double>(r.hot.payload_bytes) / r.rows : 0.0;
  j["l3_archive"] = MeasureJson(r.archive, r.raw_bytes, false);
  auto zstd_json = [&](const ZstdMeasure& z) {
    return json{{"ok", z.ok},
                {"bytes", z.bytes},
                {"ratio", z.ok ? Ratio(r.raw_bytes, z.bytes) : 0.0},
                {"seconds", z.seconds},
                {"cached", z.cached}};
  };
  j["zstd3"] = zstd_json(r.zstd3);
  j["zstd19"] = zstd_json(r.zstd19);
  if (const Reference* ref = FindReference(r.name); ref && r.source == "generated") {
    j["reference"] = {{"setting", ref->setting},
                      {"paper", ref->paper > 0 ? json(ref->paper) : json(nullptr)},
                      {"original_l3_64b_per_partition", ref->original_l3},
                      {"parquet_delta_zstd", ref->parquet}};
    j["below_original_l3"] = BelowOriginalL3(r);
  }
  return j;
}

struct RunInfo {
  std::string command;
  std::string date;
  std::string commit;
  std::string cpu;
  unsigned threads = 0;
  double memory_gib = 0;
  int zstd_workers = 0;
  bool quick = false;
  bool zstd19 = true;
  std::string zstd_cache;
  std::string real_dir;
  std::string real_status;  // empty when loaded
};

void WriteMarkdown(const std::string& path, const RunInfo& run,
                   const std::vector<DatasetResult>& results) {
  std::ostringstream md;
  md << "# Compression ratios\n\n"
     << "Generated by `" << run.command << "` (bench/ratio_report.cpp); do not edit by hand.\n\n"
     << "- Date: " << run.date << "\n"
     << "- Git commit: `" << run.commit << "`\n"
     << "- Machine: " << run.cpu << ", " << run.threads << " hardware threads, "
     << Fmt("%.0f", run.memory_gib) << " GiB memory\n"
     << "- SDK " << l3::LibraryVersion() << ", libzstd " << ZSTD_versionString() << " ("
     << (run.zstd_workers > 0
             ? std::to_string(run.zstd_workers) +
                   " worker threads, which compress jobs of several MiB independently and "
                   "so lose a little ratio against one thread"
             : std::string("single-threaded"))
     << (run.zstd19 ? "" : "; zstd -19 skipped (`--no-zstd19`)") << ")\n"
     << "- L3 settings: default `WriteOptions` (hot profile); archive = `profile = kArchive` "
        "(zstd level 19 per segment)\n"
     << "- Generated datasets: " << (run.quick ? "`--quick`, 10M rows each" : "paper sizes where listed")
     << "; real arrays from the directory `L3_REAL_DATA_DIR` names"
     << (run.real_status.empty() ? "" : " (not loaded: " + run.real_status + ")") << "\n\n";

  md << "## Ratios\n\n"
     << "Ratio = raw bytes / compressed bytes. **L3** counts the whole `.l3` file (header, "
        "segments, partition table, parameters, bounds, statistics, footer, postscript). "
        "**L3 @64B** counts the same partitioning the way the original L3 code's benchmark "
        "does: 64 bytes per partition plus the payload. zstd compresses the raw "
        "little-endian array. Every L3 file was decoded through `Reader::ReadRows` and compared "
        "byte for byte with the input.\n\n"
     << "| dataset | type | rows | raw MB | L3 hot | L3 @64B | L3 archive | zstd -3 | zstd -19 | "
        "round trip |\n"
     << "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const DatasetResult& r : results) {
    const bool ok = r.hot.ok && r.archive.ok;
    md << "| " << r.name << " | " << l3::PhysicalTypeName(r.type) << " | " << FmtRows(r.rows)
       << " | " << Fmt("%.1f", r.raw_bytes / 1e6) << " | " << FmtRatio(RatioOf(r.hot, r.raw_bytes))
       << " | " << FmtRatio(Ratio64(r)) << " | " << FmtRatio(RatioOf(r.archive, r.raw_bytes))
       << " | " << FmtRatio(r.zstd3.ok ? Ratio(r.raw_bytes, r.zstd3.bytes) : 0) << " | "
       << FmtRatio(r.zstd19.ok ? Ratio(r.raw_bytes, r.zstd19.bytes) : 0) << " | "
       << (ok ? "ok" : "**FAILED**") << " |\n";
  }

  md << "\n## Against reference figures\n\n"
     << "Paper: the L3 paper. Original L3: the authors' code run by us, its size counted "
        "as 64 B per partition plus payload. Parquet: pyarrow 25, DELTA_BINARY_PACKED + zstd. "
        "Our generators follow the same constructions but not the same random streams "
        "(datagen/README.md). A flag marks an L3 hot ratio below the original L3 code's.\n\n"
     << "| dataset | reference setting | L3 hot | L3 @64B | paper | original L3 | Parquet | flag |\n"
     << "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const DatasetResult& r : results) {
    const Reference* ref = FindReference(r.name);
    if (ref == nullptr || r.source != "generated") continue;
    md << "| " << r.name << " (" << FmtRows(r.rows) << ") | " << ref->setting << " | "
       << FmtRatio(RatioOf(r.hot, r.raw_bytes)) << " | " << FmtRatio(Ratio64(r)) << " | "
       << FmtRatio(ref->paper) << " | " << FmtRatio(ref->original_l3) << " | "
       << FmtRatio(ref->parquet) << " | " << (BelowOriginalL3(r) ? "**below original L3**" : "")
       << " |\n";
  }

  md << "\n## Partitioning (L3 paper, Table 4)\n\n"
     << "From `Reader::Partitions` on the hot-profile file. Model mix: share of partitions / "
        "share of rows. Mean bits: row-weighted `Bit_Width` over FOR_BITPACK, LINEAR and POLY "
        "partitions. Metadata: partition table + parameter bytes per partition (bounds listed "
        "separately).\n\n"
     << "| dataset | partitions | avg rows | CONSTANT | FOR | LINEAR | POLY2 | POLY3 | DELTA | RUNS_EF "
        "| mean bits | payload bits/row | metadata B/part | bounds B/part | footer B |\n"
     << "|---|---:|---:|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const DatasetResult& r : results) {
    const L3Measure& m = r.hot;
    if (!m.ok || m.partitions == 0) {
      md << "| " << r.name << " | — | — | — | — | — | — | — | — | — | — | — | — | — | — |\n";
      continue;
    }
    md << "| " << r.name << " | " << FmtCount(m.partitions) << " | "
       << Fmt("%.0f", static_cast<double>(r.rows) / m.partitions);
    for (int k = 0; k < kNumModels; ++k) {
      md << " | " << Fmt("%.1f", 100.0 * m.model_partitions[k] / m.partitions) << " / "
         << Fmt("%.1f", 100.0 * m.model_rows[k] / r.rows);
    }
    md << " | "
       << Fmt("%.2f", m.residual_rows ? static_cast<double>(m.residual_bit_rows) / m.residual_rows
                                      : 0.0)
       << " | " << Fmt("%.2f", 8.0 * m.payload_bytes / r.rows) << " | "
       << Fmt("%.1f", static_cast<double>(m.partition_table_bytes + m.parameter_bytes) /
                          m.partitions)
       << " | " << Fmt("%.1f", static_cast<double>(m.bounds_bytes) / m.partitions) << " | "
       << FmtCount(m.footer_bytes) << " |\n";
  }

  int cached = 0;
  for (const DatasetResult& r : results) cached += r.zstd3.cached + r.zstd19.cached;
  md << "\n## Times (seconds, this machine)\n\n"
     << "L3 encode: `Writer` append + close into memory (all hardware threads). L3 decode: "
        "`Reader::ReadRows` over the whole column on one thread (the CPU reference "
        "decoder, not the GPU path). Archive encode includes zstd -19 of every segment.";
  if (cached > 0) {
    md << " zstd figures marked * (" << cached
       << " of them) come from `--zstd-cache`: the same bytes, zstd version and worker count, "
          "measured by an earlier run of this program on this machine.";
  }
  md << "\n\n| dataset | generate | L3 encode | L3 decode | archive encode | zstd -3 | zstd -19 |\n"
     << "|---|---:|---:|---:|---:|---:|---:|\n";
  auto zstd_time = [](const ZstdMeasure& z) {
    return z.ok ? FmtSeconds(z.seconds) + (z.cached ? "*" : "") : std::string("—");
  };
  for (const DatasetResult& r : results) {
    md << "| " << r.name << " | "
       << (r.source == "generated" ? FmtSeconds(r.generate_seconds) : std::string("—")) << " | "
       << FmtSeconds(r.hot.encode_seconds) << " | " << FmtSeconds(r.hot.decode_seconds) << " | "
       << FmtSeconds(r.archive.encode_seconds) << " | " << zstd_time(r.zstd3) << " | "
       << zstd_time(r.zstd19) << " |\n";
  }

  bool any_error = false;
  for (const DatasetResult& r : results) {
    for (const L3Measure* m : {&r.hot, &r.archive}) {
      if (m->error.empty()) continue;
      if (!any_error) md << "\n## Errors\n\n";
      any_error = true;
      md << "- " << r.name << " (" << (m == &r.hot ? "hot" : "archive") << "): " << m->error
         << "\n";
    }
  }

  std::ofstream out(path);
  out << md.str();
}

void WriteJson(const std::string& path, const RunInfo& run,
               const std::vector<DatasetResult>& results) {
  json j;
  j["command"] = run.command;
  j["date"] = run.date;
  j["git_commit"] = run.commit;
  j["machine"] = {{"cpu", run.cpu}, {"hardware_threads", run.threads},
                  {"memory_gib", run.memory_gib}};
  j["sdk_version"] = l3::LibraryVersion();
  j["zstd_version"] = ZSTD_versionString();
  j["zstd_workers"] = run.zstd_workers;
  j["quick"] = run.quick;
  if (!run.real_status.empty()) j["real_data_status"] = run.real_status;
  j["datasets"] = json::array();
  for (const DatasetResult& r : results) j["datasets"].push_back(ResultJson(r));
  std::ofstream out(path);
  out << j.dump(2) << "\n";
}

// ---------------------------------------------------------------------------

void Measure(const dg::Column& column, const RunInfo& run, ZstdCache* cache, DatasetResult* r) {
  r->name = column.name();
  r->type = column.type();
  r->rows = column.size();
  r->raw_bytes = column.size_bytes();
  std::fprintf(stderr, "[%s] %s rows of %s (%.1f MB)\n", r->name.c_str(),
               FmtCount(r->rows).c_str(), l3::PhysicalTypeName(r->type), r->raw_bytes / 1e6);
  r->hot = MeasureL3(column, l3::Profile::kHot, true);
  std::fprintf(stderr, "  L3 hot      %s  %.2f s  %s\n", FmtRatio(RatioOf(r->hot, r->raw_bytes)).c_str(),
               r->hot.encode_seconds, r->hot.ok ? "verified" : r->hot.error.c_str());
  r->archive = MeasureL3(column, l3::Profile::kArchive, false);
  std::fprintf(stderr, "  L3 archive  %s  %.2f s  %s\n",
               FmtRatio(RatioOf(r->archive, r->raw_bytes)).c_str(), r->archive.encode_seconds,
               r->archive.ok ? "verified" : r->archive.error.c_str());
  const uint64_t hash = HashBytes(column.data(), column.size_bytes());
  for (int level : {3, 19}) {
    if (level == 19 && !run.zstd19) continue;
    ZstdMeasure& z = level == 3 ? r->zstd3 : r->zstd19;
    const std::string key = ZstdCache::Key(hash, r->raw_bytes, level, run.zstd_workers);
    if (!cache->Find(key, &z)) {
      z = MeasureZstd(column, level, run.zstd_workers);
      cache->Store(key, z);
    }
    std::fprintf(stderr, "  zstd -%-2d    %s  %.2f s%s\n", level,
                 FmtRatio(Ratio(r->raw_bytes, z.bytes)).c_str(), z.seconds,
                 z.cached ? " (cached)" : "");
  }
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Usage() {
  std::fprintf(stderr,
               "usage: l3_ratio_report [--quick] [--datasets a,b,c] [--rows N] [--seed S]\n"
               "                       [--out DIR] [--real-dir DIR] [--no-real] [--no-zstd19]\n"
               "                       [--zstd-cache FILE] [--command TEXT]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  RunInfo run;
  std::string out_dir = "docs/results";
  std::vector<std::string> wanted;
  uint64_t rows_override = 0;
  uint64_t seed = dg::kDefaultSeed;
  bool use_real = true;
  run.real_dir = dg::RealDataDir();
  for (int i = 0; i < argc; ++i) run.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--quick") {
      run.quick = true;
    } else if (arg == "--datasets" && has_value) {
      wanted = SplitList(argv[++i]);
    } else if (arg == "--rows" && has_value) {
      rows_override = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--out" && has_value) {
      out_dir = argv[++i];
    } else if (arg == "--real-dir" && has_value) {
      run.real_dir = argv[++i];
    } else if (arg == "--no-real") {
      use_real = false;
    } else if (arg == "--no-zstd19") {
      run.zstd19 = false;
    } else if (arg == "--zstd-cache" && has_value) {
      run.zstd_cache = argv[++i];
    } else if (arg == "--command" && has_value) {
      run.command = argv[++i];
    } else {
      return Usage();
    }
  }
  auto is_wanted = [&](const std::string& name) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end();
  };

  // The real arrays are small (tens of MB in all): load them first so that
  // every requested name can be checked before the long measurements start.
  std::vector<dg::Column> real;
  if (use_real) {
    l3::Result<std::vector<dg::Column>> loaded = dg::LoadRealIntegerArrays(run.real_dir);
    if (loaded.ok()) {
      for (dg::Column& c : *loaded) {
        if (is_wanted(c.name())) real.push_back(std::move(c));
      }
    } else {
      run.real_status = loaded.status().ToString();
      std::fprintf(stderr, "l3_ratio_report: real arrays skipped: %s\n", run.real_status.c_str());
    }
  }
  for (const std::string& name : wanted) {
    const bool is_real = std::any_of(real.begin(), real.end(),
                                     [&](const dg::Column& c) { return c.name() == name; });
    if (dg::FindDataset(name) == nullptr && !is_real) {
      std::fprintf(stderr, "l3_ratio_report: unknown dataset '%s'\n", name.c_str());
      return 2;
    }
  }

  {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(run.real_dir, ec);
    if (!ec) run.real_dir = canonical.string();
  }
  run.date = UtcNow();
  run.commit = RunCommand("git rev-parse HEAD 2>/dev/null");
  if (run.commit.empty()) run.commit = "unknown";
  if (!RunCommand("git status --porcelain --untracked-files=no 2>/dev/null").empty()) {
    run.commit += " (with uncommitted changes)";
  }
  run.cpu = CpuModel();
  run.threads = std::max(1u, std::thread::hardware_concurrency());
  run.memory_gib = MemoryGiB();
  run.zstd_workers = ZstdWorkers();

  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "l3_ratio_report: cannot create '%s': %s\n", out_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }

  ZstdCache cache(run.zstd_cache);
  std::vector<DatasetResult> results;
  bool failed = false;
  for (const dg::DatasetInfo& info : dg::Datasets()) {
    if (!is_wanted(info.name)) continue;
    const uint64_t rows = rows_override ? rows_override : run.quick ? kQuickRows : info.report_rows;
    DatasetResult r;
    r.source = "generated";
    r.seed = seed;
    const auto start = std::chrono::steady_clock::now();
    l3::Result<dg::Column> column = dg::Generate(info.name, rows, seed);
    r.generate_seconds = Seconds(start);
    if (!column.ok()) {
      std::fprintf(stderr, "l3_ratio_report: %s: %s\n", info.name,
                   column.status().ToString().c_str());
      return 1;
    }
    Measure(*column, run, &cache, &r);
    failed |= !r.hot.ok || !r.archive.ok;
    results.push_back(std::move(r));
    WriteMarkdown(out_dir + "/ratios.md", run, results);
    WriteJson(out_dir + "/ratios.json", run, results);
  }

  for (dg::Column& column : real) {
    DatasetResult r;
    r.source = "real";
    Measure(column, run, &cache, &r);
    column.Clear();
    failed |= !r.hot.ok || !r.archive.ok;
    results.push_back(std::move(r));
  }
  WriteMarkdown(out_dir + "/ratios.md", run, results);
  WriteJson(out_dir + "/ratios.json", run, results);
  std::fprintf(stderr, "wrote %s/ratios.md and %s/ratios.json\n", out_dir.c_str(), out_dir.c_str());
  if (failed) {
    std::fprintf(stderr, "l3_ratio_report: FAILED: at least one L3 write, read or round trip "
                         "failed (see the Errors section)\n");
    return 1;
  }
  return 0;
}
