// l3_cpu_bench: CPU decode and encode throughput of the reference SDK (issue
// 14). For each synthetic column it reports, in one run:
//   - the partition models and widths the writer chose,
//   - encode values/s with one thread and with all threads,
//   - single-core decode values/s and GB/s of output beside a single-core
//     memcpy of the same output bytes (fraction of memcpy),
//   - single-core decode values/s into a 64 Ki-row buffer that stays in the
//     L2 cache (the column read slice by slice): the decoder's own speed,
//     without the DRAM write bandwidth that bounds a whole u64 column,
//   - decode values/s over 1..T threads (ReadOptions::num_threads).
// Every decode is checked against the generated values. Prints a Markdown
// table. Usage: l3_cpu_bench [--rows N] [--threads T] [--reps R] [--only NAME]
//
// With --file F.l3 it times instead the decode of an existing file's first
// column (ReadRows of every row into one buffer, touched first; the reader's
// chunk cache off, so that an archive file is decompressed on every run),
// with 1 and with T threads, best of R runs, and prints one JSON object:
//   {"rows": N, "row_width": R, "value_bytes": B, "seconds_1": s, "seconds_T": s,
//    "threads": T}
// (R values of B bytes a row: R > 1 for a tensor column).
// With --expect RAW it also compares the decoded bytes of both runs with the
// file RAW and fails (exit 1) if they differ. With --take N it times
// Reader::Take of N random rows of that column instead (in increasing order
// and shuffled; checked against a full decode) and prints
//   {"rows": N, "take": N, "ns_per_value_increasing": t, "ns_per_value_shuffled": t}
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "l3/l3.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

struct Case {
  std::string name;
  std::vector<uint64_t> values;
};

// Uniform values in [base, base + 2^w): the partitioner picks FOR of width w.
Case MakeFor(uint32_t w, uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{"for_w" + std::to_string(w), std::vector<uint64_t>(n)};
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  for (uint64_t i = 0; i < n; ++i) c.values[i] = 1000000007ull + (rng() & mask);
  return c;
}

// A steep line plus uniform noise of about w bits: LINEAR partitions.
Case MakeLinear(uint32_t w, uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{"linear_w" + std::to_string(w), std::vector<uint64_t>(n)};
  const uint64_t mask = (uint64_t{1} << (w - 1)) - 1;
  for (uint64_t i = 0; i < n; ++i) c.values[i] = 5000000000ull + i * 977 + (rng() & mask);
  return c;
}

// Sorted keys with small random gaps: the default partitioner's pick.
Case MakeSortedKeys(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{"sorted_keys", std::vector<uint64_t>(n)};
  uint64_t v = 1u << 20;
  for (uint64_t i = 0; i < n; ++i) c.values[i] = v += 1 + (rng() % 64);
  return c;
}

std::string ModelMix(const l3::Reader& reader) {
  std::map<std::string, uint64_t> rows;
  uint64_t total = 0;
  for (size_t chunk = 0; chunk < reader.column(0).chunks.size(); ++chunk) {
    auto parts = reader.Partitions(0, static_cast<int>(chunk));
    if (!parts.ok()) return "?";
    for (const l3::PartitionInfo& p : *parts) {
      const std::string key =
          std::string(l3::ModelTypeName(p.model)) + "/" + std::to_string(p.bit_width);
      rows[key] += p.num_rows;
      total += p.num_rows;
    }
  }
  // The two most common model/width pairs by rows.
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [k, v] : rows) order.push_back({v, k});
  std::sort(order.rbegin(), order.rend());
  std::string text;
  for (size_t i = 0; i < order.size() && i < 2; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%s%s %.0f%%", i ? ", " : "", order[i].second.c_str(),
                  100.0 * order[i].first / total);
    text += buf;
  }
  return text;
}

bool Encode(const Case& c, int threads, std::vector<uint8_t>* file, double* seconds) {
  l3::WriteOptions options;
  options.num_threads = threads;
  const auto t0 = Clock::now();
  auto writer = l3::Writer::CreateInMemory({l3::ColumnSpec{"v", l3::PhysicalType::kUInt64, {}}},
                                           options);
  if (!writer.ok() || !writer->AppendTyped<uint64_t>(0, c.values.data(), c.values.size()).ok() ||
      !writer->Close().ok()) {
    return false;
  }
  *seconds = Seconds(t0);
  *file = writer->TakeBuffer();
  return true;
}

// Best of `reps` runs of fn(), in seconds.
template <typename Fn>
double Best(int reps, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    if (!fn()) return -1;
    best = std::min(best, Seconds(t0));
  }
  return best;
}

int TimeFile(const std::string& path, const std::string& expect_path, int max_threads, int reps) {
  double seconds[2] = {0, 0};
  uint64_t rows = 0, value_bytes = 0, row_width = 1;  // values per row: a tensor column's width
  std::vector<uint8_t> out, expect;
  if (!expect_path.empty()) {
    std::FILE* f = std::fopen(expect_path.c_str(), "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "%s: cannot read\n", expect_path.c_str());
      return 1;
    }
    uint8_t buf[1 << 16];
    for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) expect.insert(expect.end(), buf, buf + got);
    std::fclose(f);
  }
  for (int k = 0; k < 2; ++k) {
    l3::ReadOptions ro;
    ro.num_threads = k == 0 ? 1 : max_threads;
    ro.max_cached_bytes = 0;
    auto reader = l3::Reader::Open(path, ro);
    if (!reader.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), reader.status().ToString().c_str());
      return 1;
    }
    rows = reader->column(0).num_rows;
    row_width = reader->column(0).row_width;
    value_bytes = static_cast<uint64_t>(l3::PhysicalTypeBytes(reader->column(0).type));
    out.assign(rows * row_width * value_bytes, 0);
    seconds[k] = Best(reps, [&] { return reader->ReadRows(0, 0, rows, out.data(), out.size()).ok(); });
    if (seconds[k] < 0) {
      std::fprintf(stderr, "%s: decode failed\n", path.c_str());
      return 1;
    }
    if (!expect_path.empty() && out != expect) {
      std::fprintf(stderr, "%s: decoded with %d thread(s), differs from %s\n", path.c_str(),
                   static_cast<int>(ro.num_threads), expect_path.c_str());
      return 1;
    }
  }
  std::printf("{\"rows\": %llu, \"row_width\": %llu, \"value_bytes\": %llu, \"seconds_1\": %.6f, "
              "\"seconds_T\": %.6f, \"threads\": %d}\n",
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(row_width),
              static_cast<unsigned long long>(value_bytes), seconds[0], seconds[1], max_threads);
  return 0;
}

// Reader::Take of `count` uniformly random rows of the file's first column,
// in increasing order and shuffled, each checked against a full decode.
int TimeTake(const std::string& path, uint64_t count, int reps) {
  auto reader = l3::Reader::Open(path);
  if (!reader.ok()) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), reader.status().ToString().c_str());
    return 1;
  }
  const uint64_t rows = reader->column(0).num_rows;
  const size_t value_bytes = static_cast<size_t>(l3::PhysicalTypeBytes(reader->column(0).type)) *
                             reader->column(0).row_width;
  std::vector<uint8_t> all(rows * value_bytes);
  if (rows == 0 || !reader->ReadRows(0, 0, rows, all.data(), all.size()).ok()) {
    std::fprintf(stderr, "%s: empty or cannot be decoded\n", path.c_str());
    return 1;
  }
  std::mt19937_64 rng(1);
  std::vector<uint64_t> shuffled(count);
  for (uint64_t& r : shuffled) r = rng() % rows;
  std::vector<uint64_t> increasing = shuffled;
  std::sort(increasing.begin(), increasing.end());
  std::vector<uint8_t> got(count * value_bytes);
  double seconds[2];
  for (int k = 0; k < 2; ++k) {
    const std::vector<uint64_t>& ids = k == 0 ? increasing : shuffled;
    seconds[k] = Best(reps, [&] { return reader->Take(0, ids.data(), count, got.data(), got.size()).ok(); });
    for (uint64_t i = 0; i < count && seconds[k] >= 0; ++i) {
      if (std::memcmp(&got[i * value_bytes], &all[ids[i] * value_bytes], value_bytes) != 0) {
        std::fprintf(stderr, "%s: Take differs from the full decode at row %llu\n", path.c_str(),
                     static_cast<unsigned long long>(ids[i]));
        return 1;
      }
    }
    if (seconds[k] < 0) {
      std::fprintf(stderr, "%s: Take failed\n", path.c_str());
      return 1;
    }
  }
  std::printf("{\"rows\": %llu, \"take\": %llu, \"ns_per_value_increasing\": %.1f, "
              "\"ns_per_value_shuffled\": %.1f}\n",
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(count),
              seconds[0] * 1e9 / count, seconds[1] * 1e9 / count);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 20000000;
  int max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int reps = 5;
  std::string only, file, expect;
  uint64_t take = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rows") n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--threads") max_threads = std::atoi(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--only") only = argv[i + 1];
    else if (a == "--file") file = argv[i + 1];
    else if (a == "--expect") expect = argv[i + 1];
    else if (a == "--take") take = std::strtoull(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: l3_cpu_bench [--rows N] [--threads T] [--reps R] [--only NAME]\n"
                           "       l3_cpu_bench --file F.l3 [--expect RAW] [--threads T] [--reps R]\n"
                           "       l3_cpu_bench --file F.l3 --take N [--reps R]\n");
      return 2;
    }
  }
  if (!file.empty() && take > 0) return TimeTake(file, take, reps);
  if (!file.empty()) return TimeFile(file, expect, max_threads, reps);
  const uint64_t out_bytes = n * sizeof(uint64_t);

  // Single-core memcpy of the output bytes (both buffers touched first).
  std::vector<uint64_t> src(n, 1), dst(n, 0);
  const double t_memcpy = Best(reps, [&] {
    std::memcpy(dst.data(), src.data(), out_bytes);
    return dst[n / 2] == 1;
  });
  const double memcpy_gbs = out_bytes / t_memcpy / 1e9;
  std::printf("rows per column: %llu (u64); memcpy of %llu output bytes, one core: %.2f GB/s\n\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(out_bytes),
              memcpy_gbs);

  std::vector<Case> cases;
  auto want = [&](const std::string& name) { return only.empty() || name == only; };
  for (uint32_t w : {4u, 8u, 12u, 16u, 32u, 48u}) {
    if (want("for_w" + std::to_string(w))) cases.push_back(MakeFor(w, n, 11 + w));
  }
  for (uint32_t w : {8u, 12u, 16u, 32u}) {
    if (want("linear_w" + std::to_string(w))) cases.push_back(MakeLinear(w, n, 31 + w));
  }
  if (want("sorted_keys")) cases.push_back(MakeSortedKeys(n, 7));

  std::printf("| column | partitions (by rows) | encode 1 thr M val/s | encode %d thr M val/s | "
              "decode 1 thr M val/s | GB/s | of memcpy | in-cache 1 thr M val/s |",
              max_threads);
  for (int t = 2; t <= max_threads; ++t) std::printf(" decode %d thr M val/s |", t);
  std::printf("\n|---|---|---|---|---|---|---|---|");
  for (int t = 2; t <= max_threads; ++t) std::printf("---|");
  std::printf("\n");

  std::vector<uint64_t> out(n);
  for (const Case& c : cases) {
    std::vector<uint8_t> file;
    double t_enc1 = 1e30, t_encn = 1e30, t;
    for (int r = 0; r < 1; ++r) {
      if (!Encode(c, 1, &file, &t)) { std::fprintf(stderr, "%s: write failed\n", c.name.c_str()); return 1; }
      t_enc1 = std::min(t_enc1, t);
      if (!Encode(c, max_threads, &file, &t)) return 1;
      t_encn = std::min(t_encn, t);
    }
    std::vector<double> decode_s;
    std::string mix;
    for (int threads = 1; threads <= max_threads; ++threads) {
      l3::ReadOptions ro;
      ro.num_threads = threads;
      auto reader = l3::Reader::OpenBuffer(file.data(), file.size(), ro);
      if (!reader.ok()) { std::fprintf(stderr, "open failed\n"); return 1; }
      if (threads == 1) mix = ModelMix(*reader);
      std::fill(out.begin(), out.end(), 0);
      const double s = Best(reps, [&] {
        return reader->ReadRows(0, 0, n, out.data(), out_bytes).ok();
      });
      if (s < 0 || out != c.values) {
        std::fprintf(stderr, "%s: decode with %d threads differs from the input\n", c.name.c_str(),
                     threads);
        return 1;
      }
      decode_s.push_back(s);
    }
    // Slices of 64 Ki rows into one small buffer, checked against the input.
    double cached_s = -1;
    {
      constexpr uint64_t kSlice = uint64_t{1} << 16;
      auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
      if (!reader.ok()) return 1;
      std::vector<uint64_t> slice(kSlice);
      bool same = true;
      cached_s = Best(reps, [&] {
        for (uint64_t b = 0; b < n; b += kSlice) {
          const uint64_t e = std::min(n, b + kSlice);
          if (!reader->ReadRows(0, b, e, slice.data(), kSlice * 8).ok()) return false;
          same = same && slice[e - b - 1] == c.values[e - 1] && slice[0] == c.values[b];
        }
        return true;
      });
      if (cached_s < 0 || !same) {
        std::fprintf(stderr, "%s: sliced decode differs from the input\n", c.name.c_str());
        return 1;
      }
    }
    const double vps = n / decode_s[0];
    std::printf("| %s | %s | %.0f | %.0f | %.0f | %.2f | %.0f%% | %.0f |", c.name.c_str(),
                mix.c_str(), n / t_enc1 / 1e6, n / t_encn / 1e6, vps / 1e6, vps * 8 / 1e9,
                100.0 * (vps * 8 / 1e9) / memcpy_gbs, n / cached_s / 1e6);
    for (size_t i = 1; i < decode_s.size(); ++i) std::printf(" %.0f |", n / decode_s[i] / 1e6);
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
