// l3_pgm_bench: CPU key lookups through the PGM index (spec §11.3) against
// std::lower_bound over the raw array, in the same run. The column is written
// twice: with the default writer (the partitioner picks DELTA, spec §8.9, for
// sorted keys) and with DELTA disabled (PartitionerOptions::enable_delta), and
// each is searched with one Reader::LowerBound call per key and with one
// Reader::LowerBoundBatch call for all keys (also with ReadOptions::num_threads
// = 2). Every answer is checked against std::lower_bound. Prints one JSON
// object.
// Usage: l3_pgm_bench [num_keys] [num_lookups] [epsilon]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "l3/l3.hpp"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

struct VariantResult {
  bool ok = false;
  double file_bytes_per_key = 0;
  uint64_t segments = 0, index_bytes = 0;
  std::string models;  // partitions per model
  double single_per_s = 0, batch_per_s = 0;
  double batch_threads_per_s = 0;  // ReadOptions::num_threads = 2
};

VariantResult RunVariant(const std::vector<uint64_t>& keys, const std::vector<uint64_t>& queries,
                         const std::vector<uint64_t>& expect, uint32_t epsilon, bool delta) {
  VariantResult out;
  const uint64_t n = keys.size();
  const size_t lookups = queries.size();
  l3::WriteOptions options;
  options.pgm = l3::PgmMode::kRequire;
  options.pgm_epsilon = epsilon;
  options.partitioner.enable_delta = delta;
  auto writer = l3::Writer::CreateInMemory({l3::ColumnSpec{"k", l3::PhysicalType::kUInt64, {}}}, options);
  if (!writer.ok() || !writer->AppendTyped<uint64_t>(0, keys.data(), n).ok() || !writer->Close().ok()) {
    std::fprintf(stderr, "write failed\n");
    return out;
  }
  const std::vector<uint8_t> file = writer->TakeBuffer();
  auto reader = l3::Reader::OpenBuffer(file.data(), file.size());
  if (!reader.ok()) {
    std::fprintf(stderr, "open failed: %s\n", reader.status().ToString().c_str());
    return out;
  }
  out.file_bytes_per_key = static_cast<double>(file.size()) / static_cast<double>(n);
  std::map<std::string, uint64_t> models;
  for (size_t k = 0; k < reader->column(0).chunks.size(); ++k) {
    const l3::ChunkInfo& c = reader->column(0).chunks[k];
    out.index_bytes += c.pgm.keys.size() * 20 + c.pgm.level_offsets.size() * 4;
    out.segments += c.pgm.keys.size();
    auto parts = reader->Partitions(0, static_cast<int>(k));
    if (!parts.ok()) return out;
    for (const l3::PartitionInfo& p : *parts) ++models[l3::ModelTypeName(p.model)];
  }
  for (const auto& m : models) {
    out.models += (out.models.empty() ? "" : " ") + m.first + ":" + std::to_string(m.second);
  }
  std::vector<uint64_t> rows(lookups);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < lookups; ++i) {
    const l3::Result<uint64_t> r = reader->LowerBound(0, queries[i]);
    if (!r.ok()) {
      std::fprintf(stderr, "LowerBound failed: %s\n", r.status().ToString().c_str());
      return out;
    }
    rows[i] = *r;
  }
  const double t_single = Seconds(t0);
  if (rows != expect) {
    std::fprintf(stderr, "LowerBound differs from std::lower_bound\n");
    return out;
  }
  std::fill(rows.begin(), rows.end(), 0);
  t0 = std::chrono::steady_clock::now();
  const l3::Status st = reader->LowerBoundBatch(0, queries.data(), lookups, rows.data());
  const double t_batch = Seconds(t0);
  if (!st.ok() || rows != expect) {
    std::fprintf(stderr, "LowerBoundBatch differs from std::lower_bound: %s\n", st.ToString().c_str());
    return out;
  }
  // The same batch on two threads (ReadOptions::num_threads).
  l3::ReadOptions two_threads;
  two_threads.num_threads = 2;
  auto threaded = l3::Reader::OpenBuffer(file.data(), file.size(), two_threads);
  if (!threaded.ok()) return out;
  std::fill(rows.begin(), rows.end(), 0);
  t0 = std::chrono::steady_clock::now();
  const l3::Status st2 = threaded->LowerBoundBatch(0, queries.data(), lookups, rows.data());
  const double t_threads = Seconds(t0);
  if (!st2.ok() || rows != expect) {
    std::fprintf(stderr, "LowerBoundBatch on 2 threads differs from std::lower_bound: %s\n",
                 st2.ToString().c_str());
    return out;
  }
  out.single_per_s = lookups / t_single;
  out.batch_per_s = lookups / t_batch;
  out.batch_threads_per_s = lookups / t_threads;
  out.ok = true;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  const size_t lookups = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  const uint32_t epsilon = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 64;
  if (n == 0 || lookups == 0) {
    std::fprintf(stderr, "usage: l3_pgm_bench [num_keys >= 1] [num_lookups >= 1] [epsilon]\n");
    return 2;
  }
  // Sorted keys with irregular gaps (mostly small, a few large jumps).
  std::mt19937_64 rng(20261123);
  std::vector<uint64_t> keys(n);
  uint64_t v = 1000;
  for (uint64_t i = 0; i < n; ++i) {
    v += 1 + (rng() % 1000 < 5 ? rng() % 100000 : rng() % 64);
    keys[i] = v;
  }
  // Random keys over the whole range: most absent, some present.
  std::vector<uint64_t> queries(lookups);
  for (size_t i = 0; i < lookups; ++i) {
    queries[i] = (i % 2 == 0) ? keys[rng() % n] : keys.front() + rng() % (keys.back() - keys.front() + 2);
  }
  std::vector<uint64_t> expect(lookups);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < lookups; ++i) {
    expect[i] = static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), queries[i]) - keys.begin());
  }
  const double t_std = Seconds(t0);
  // The raw-array baseline given the batch's advantage: the queries sorted
  // (with their positions) first, then searched in key order.
  std::vector<uint64_t> sorted_rows(lookups);
  t0 = std::chrono::steady_clock::now();
  {
    std::vector<std::pair<uint64_t, size_t>> order(lookups);
    for (size_t i = 0; i < lookups; ++i) order[i] = {queries[i], i};
    std::sort(order.begin(), order.end());
    for (const auto& q : order) {
      sorted_rows[q.second] =
          static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), q.first) - keys.begin());
    }
  }
  const double t_std_sorted = Seconds(t0);
  if (sorted_rows != expect) {
    std::fprintf(stderr, "sorted std::lower_bound differs\n");
    return 1;
  }
  const VariantResult with_delta = RunVariant(keys, queries, expect, epsilon, true);
  const VariantResult without_delta = RunVariant(keys, queries, expect, epsilon, false);
  if (!with_delta.ok || !without_delta.ok) return 1;
  const double std_per_s = lookups / t_std;
  std::printf("{\"num_keys\": %llu, \"lookups\": %zu, \"epsilon\": %u,\n"
              " \"std_lower_bound_lookups_per_s\": %.0f, \"sort_then_std_lower_bound_lookups_per_s\": %.0f",
              static_cast<unsigned long long>(n), lookups, epsilon, std_per_s, lookups / t_std_sorted);
  const std::pair<const char*, const VariantResult*> variants[] = {{"default", &with_delta},
                                                                   {"no_delta", &without_delta}};
  for (const auto& variant : variants) {
    const VariantResult& r = *variant.second;
    std::printf(",\n \"%s\": {\"partitions\": \"%s\", \"segments\": %llu, \"index_bytes_per_key\": %.5f,"
                " \"file_bytes_per_key\": %.4f,\n   \"lower_bound_lookups_per_s\": %.0f,"
                " \"batch_lookups_per_s\": %.0f, \"batch_2_threads_lookups_per_s\": %.0f,\n"
                "   \"lower_bound_vs_std\": %.3f, \"batch_vs_std\": %.3f}",
                variant.first, r.models.c_str(), static_cast<unsigned long long>(r.segments),
                static_cast<double>(r.index_bytes) / static_cast<double>(n), r.file_bytes_per_key,
                r.single_per_s, r.batch_per_s, r.batch_threads_per_s, r.single_per_s / std_per_s,
                r.batch_per_s / std_per_s);
  }
  std::printf("}\n");
  return 0;
}
