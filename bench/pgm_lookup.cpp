// l3_pgm_bench: CPU key lookups through the PGM index (spec §11.3) against
// std::lower_bound over the raw array, in the same run. Prints one JSON
// object. Usage: l3_pgm_bench [num_keys] [num_lookups] [epsilon]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "l3/l3.hpp"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  const size_t lookups = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  const uint32_t epsilon = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 64;
  // Sorted keys with irregular gaps (mostly small, a few large jumps).
  std::mt19937_64 rng(20261123);
  std::vector<uint64_t> keys(n);
  uint64_t v = 1000;
  for (uint64_t i = 0; i < n; ++i) {
    v += 1 + (rng() % 1000 < 5 ? rng() % 100000 : rng() % 64);
    keys[i] = v;
  }
  l3::WriteOptions options;
  options.pgm = l3::PgmMode::kRequire;
  options.pgm_epsilon = epsilon;
  auto writer = l3::Writer::CreateInMemory({l3::ColumnSpec{"k", l3::PhysicalType::kUInt64, {}}}, options);
  if (!writer.ok() || !writer->AppendTyped<uint64_t>(0, keys.data(), n).ok() || !writer->Close().ok()) {
    std::fprintf(stderr, "write failed\n");
    return 1;
  }
  const std::vector<uint8_t> file = writer->TakeBuffer();
  auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
  if (!reader.ok()) {
    std::fprintf(stderr, "open failed: %s\n", reader.status().ToString().c_str());
    return 1;
  }
  uint64_t index_bytes = 0, segments = 0;
  for (const l3::ChunkInfo& c : reader->column(0).chunks) {
    index_bytes += c.pgm.keys.size() * 20 + c.pgm.level_offsets.size() * 4;
    segments += c.pgm.keys.size();
  }
  // Random keys over the whole range: most absent, some present.
  std::vector<uint64_t> queries(lookups);
  for (size_t i = 0; i < lookups; ++i) {
    queries[i] = (i % 2 == 0) ? keys[rng() % n] : keys.front() + rng() % (keys.back() - keys.front() + 2);
  }
  std::vector<uint64_t> rows(lookups), expect(lookups);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < lookups; ++i) {
    expect[i] = static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), queries[i]) - keys.begin());
  }
  const double t_std = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  const l3::Status st = reader->LowerBoundBatch(0, queries.data(), lookups, rows.data());
  const double t_pgm = Seconds(t0);
  if (!st.ok() || rows != expect) {
    std::fprintf(stderr, "lookups differ from std::lower_bound: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf(
      "{\"num_keys\": %llu, \"lookups\": %zu, \"epsilon\": %u, \"chunks\": %zu, \"segments\": %llu,\n"
      " \"index_bytes\": %llu, \"index_bytes_per_key\": %.5f, \"file_bytes_per_key\": %.4f,\n"
      " \"pgm_lookups_per_s\": %.0f, \"std_lower_bound_lookups_per_s\": %.0f, \"pgm_vs_std\": %.4f}\n",
      static_cast<unsigned long long>(n), lookups, epsilon, reader->column(0).chunks.size(),
      static_cast<unsigned long long>(segments), static_cast<unsigned long long>(index_bytes),
      static_cast<double>(index_bytes) / static_cast<double>(n),
      static_cast<double>(file.size()) / static_cast<double>(n), lookups / t_pgm, lookups / t_std,
      t_std / t_pgm);
  return 0;
}
