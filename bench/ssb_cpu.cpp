// l3_ssb_bench: Star Schema Benchmark query flight 1 (Q1.1-Q1.3) on the CPU
// over an .l3 file of lineorder columns (issue 12 §3, the CPU half).
//
//   l3_ssb_bench gen --sf SF [--seed S] [--order dbgen|date] --out FILE.l3 [--bin DIR]
//   l3_ssb_bench run FILE.l3 [--threads T] [--reps R] [--json OUT.json]
//
// gen writes the columns of l3::datagen::GenerateSsbLineorder with the
// default Writer options (hot profile), and with --bin also one raw
// little-endian file per column (DIR/<name>.bin) for other engines.
//
// run times each query three ways, best of R runs, and checks that all three
// give the same revenue (exit 1 if not):
//   scan:      ScanTable: the most selective column first with chunk and
//              partition pruning, the others read only at the rows still
//              selected (late materialization), sum(price * discount) exact;
//   decode:    decode-then-filter: ReadRows of the four whole columns, then
//              a plain loop over the decoded arrays;
//   memory:    the same plain loop over uncompressed arrays already in memory
//              (the CPU roofline: no decode at all).
// With T threads the scan runs T batch workers, the decode T slices per
// column (ReadOptions::num_threads) and the loops T slices.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "l3/datagen.hpp"
#include "l3/l3.hpp"
#include "l3/scan.hpp"
#include "ssb_queries.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace dg = l3::datagen;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "l3_ssb_bench: %s\n", what.c_str());
  std::exit(2);
}

void Check(const l3::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

int Usage() {
  std::fprintf(stderr,
               "usage: l3_ssb_bench gen --sf SF [--seed S] [--order dbgen|date] --out FILE.l3 [--bin DIR]\n"
               "       l3_ssb_bench run FILE.l3 [--threads T] [--reps R] [--json OUT.json]\n");
  return 2;
}

template <typename T>
void WriteBin(const std::string& path, const std::vector<T>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!out) Die("cannot write " + path);
}

int Gen(int argc, char** argv) {
  double sf = 1;
  uint64_t seed = dg::kDefaultSeed;
  dg::SsbOrder order = dg::SsbOrder::kDbgen;
  std::string out, bin;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const std::string value = argv[++i];
    if (arg == "--sf") {
      sf = std::strtod(value.c_str(), nullptr);
    } else if (arg == "--seed") {
      seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (arg == "--order" && (value == "dbgen" || value == "date")) {
      order = value == "date" ? dg::SsbOrder::kDate : dg::SsbOrder::kDbgen;
    } else if (arg == "--out") {
      out = value;
    } else if (arg == "--bin") {
      bin = value;
    } else {
      return Usage();
    }
  }
  if (out.empty() || !(sf > 0)) return Usage();
  Clock::time_point t0 = Clock::now();
  const dg::SsbLineorder t = dg::GenerateSsbLineorder(sf, seed, order);
  const double gen_s = Seconds(t0);
  t0 = Clock::now();
  auto w = l3::Writer::Create(out, {{"lo_orderdate", l3::PhysicalType::kUInt32, {}},
                                    {"lo_discount", l3::PhysicalType::kUInt8, {}},
                                    {"lo_quantity", l3::PhysicalType::kUInt8, {}},
                                    {"lo_extendedprice", l3::PhysicalType::kUInt32, {}}});
  if (!w.ok()) Die(w.status().ToString());
  const uint64_t n = t.orderdate.size();
  Check(w->AppendTyped<uint32_t>(0, t.orderdate.data(), n), "append");
  Check(w->AppendTyped<uint8_t>(1, t.discount.data(), n), "append");
  Check(w->AppendTyped<uint8_t>(2, t.quantity.data(), n), "append");
  Check(w->AppendTyped<uint32_t>(3, t.extendedprice.data(), n), "append");
  Check(w->Close(), "close");
  const double write_s = Seconds(t0);
  if (!bin.empty()) {
    WriteBin(bin + "/lo_orderdate.bin", t.orderdate);
    WriteBin(bin + "/lo_discount.bin", t.discount);
    WriteBin(bin + "/lo_quantity.bin", t.quantity);
    WriteBin(bin + "/lo_extendedprice.bin", t.extendedprice);
  }
  std::printf("{\"rows\": %llu, \"generate_seconds\": %.3f, \"write_seconds\": %.3f}\n",
              static_cast<unsigned long long>(n), gen_s, write_s);
  return 0;
}

using Query = l3::bench::SsbQuery;

struct Columns {
  std::vector<uint32_t> date, price;
  std::vector<uint8_t> disc, qty;
};

// The plain loop of the baselines over rows [begin, end).
uint64_t Loop(const Columns& c, const Query& q, uint64_t begin, uint64_t end) {
  uint64_t sum = 0;
  const uint32_t* date = c.date.data();
  const uint8_t* disc = c.disc.data();
  const uint8_t* qty = c.qty.data();
  const uint32_t* price = c.price.data();
  for (uint64_t i = begin; i < end; ++i) {
    const bool m = (date[i] >= q.date_lo) & (date[i] <= q.date_hi) & (disc[i] >= q.disc_lo) &
                   (disc[i] <= q.disc_hi) & (qty[i] >= q.qty_lo) & (qty[i] <= q.qty_hi);
    sum += m ? uint64_t{price[i]} * disc[i] : 0;
  }
  return sum;
}

// Runs f(begin, end) on `threads` slices of [0, n) and adds the results.
template <typename F>
uint64_t Parallel(uint64_t n, int threads, F f) {
  if (threads <= 1) return f(uint64_t{0}, n);
  std::vector<uint64_t> parts(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      parts[t] = f(n / threads * t, t + 1 == threads ? n : n / threads * (t + 1));
    });
  }
  for (std::thread& w : workers) w.join();
  uint64_t sum = 0;
  for (uint64_t p : parts) sum += p;
  return sum;
}

struct Timing {
  double best = 0, median = 0;
};

template <typename F>
Timing Time(int reps, F f) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point t0 = Clock::now();
    f();
    s.push_back(Seconds(t0));
  }
  std::sort(s.begin(), s.end());
  return Timing{s.front(), s[s.size() / 2]};
}

int Run(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string path = argv[2];
  int threads = 1, reps = 5;
  std::string json_path;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const std::string value = argv[++i];
    if (arg == "--threads") {
      threads = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--reps") {
      reps = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--json") {
      json_path = value;
    } else {
      return Usage();
    }
  }
  l3::ReadOptions ro;
  ro.num_threads = 1;  // the scan's own batch workers
  auto scan_reader = l3::Reader::Open(path, ro);
  if (!scan_reader.ok()) Die(scan_reader.status().ToString());
  ro.num_threads = threads;
  auto decode_reader = l3::Reader::Open(path, ro);
  if (!decode_reader.ok()) Die(decode_reader.status().ToString());
  const l3::Reader& r = *scan_reader;
  int col[4];
  const char* names[4] = {"lo_orderdate", "lo_discount", "lo_quantity", "lo_extendedprice"};
  for (int c = 0; c < 4; ++c) {
    auto found = r.FindColumn(names[c]);
    if (!found.ok()) Die(std::string("no column ") + names[c]);
    col[c] = *found;
  }
  const uint64_t n = r.column(col[0]).num_rows;
  uint64_t payload_bytes = 0, stored_bytes = 0, raw_bytes = 0;
  nlohmann::json columns = nlohmann::json::array();
  for (int c = 0; c < 4; ++c) {
    const l3::ColumnInfo& info = r.column(col[c]);
    uint64_t payload = 0;
    for (const l3::ChunkInfo& chunk : info.chunks) payload += chunk.payload.decoded_bytes;
    const uint64_t raw = n * static_cast<uint64_t>(l3::PhysicalTypeBytes(info.type));
    payload_bytes += payload;
    stored_bytes += info.stored_bytes;
    raw_bytes += raw;
    columns.push_back({{"name", names[c]}, {"type", l3::PhysicalTypeName(info.type)},
                       {"raw_bytes", raw}, {"stored_bytes", info.stored_bytes},
                       {"payload_bytes", payload}});
  }

  // Buffers of the decode baseline, touched before timing; the decoded
  // arrays double as the in-memory columns of the roofline.
  Columns mem;
  mem.date.assign(n, 0);
  mem.disc.assign(n, 0);
  mem.qty.assign(n, 0);
  mem.price.assign(n, 0);
  const l3::Reader& dr = *decode_reader;
  auto decode_all = [&](Columns* c) {
    Check(dr.ReadRows(col[0], 0, n, c->date.data(), n * 4), "read");
    Check(dr.ReadRows(col[1], 0, n, c->disc.data(), n), "read");
    Check(dr.ReadRows(col[2], 0, n, c->qty.data(), n), "read");
    Check(dr.ReadRows(col[3], 0, n, c->price.data(), n * 4), "read");
  };
  decode_all(&mem);
  Columns work = mem;  // the decode baseline's target

  std::printf("| query | rows selected | revenue | scan s | decode s | memory s | scan bytes | "
              "decode bytes | memory bytes | partitions pruned (date) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  nlohmann::json queries = nlohmann::json::array();
  bool all_equal = true;
  for (const Query& q : l3::bench::kSsbQueries) {
    const std::vector<l3::ColumnPredicates> where = l3::bench::SsbWhere(q, col);
    const l3::TableScanOptions so = l3::bench::SsbScanOptions(col, threads);
    l3::TableScanResult scan;
    const Timing t_scan = Time(reps, [&] {
      auto s = l3::ScanTable(r, where, so);
      if (!s.ok()) Die(s.status().ToString());
      scan = std::move(*s);
    });
    uint64_t decode_sum = 0, memory_sum = 0;
    const Timing t_decode = Time(reps, [&] {
      decode_all(&work);
      decode_sum = Parallel(n, threads, [&](uint64_t b, uint64_t e) { return Loop(work, q, b, e); });
    });
    const Timing t_memory = Time(reps, [&] {
      memory_sum = Parallel(n, threads, [&](uint64_t b, uint64_t e) { return Loop(mem, q, b, e); });
    });
    const std::string revenue = scan.SumString();
    const bool equal = revenue == std::to_string(decode_sum) && revenue == std::to_string(memory_sum);
    all_equal = all_equal && equal;
    const l3::ColumnScanStats* date_stats = nullptr;
    nlohmann::json per_column = nlohmann::json::array();
    uint64_t pruned = 0, partitions = 0;
    for (const l3::ColumnScanStats& st : scan.columns) {
      if (st.column == col[0]) date_stats = &st;
      pruned += st.partitions_pruned;
      partitions += st.partitions_total;
      per_column.push_back({{"name", names[std::find(col, col + 4, st.column) - col]},
                            {"estimated_selectivity", st.estimated_selectivity},
                            {"rows_in", st.rows_in}, {"rows_out", st.rows_out},
                            {"chunks_total", st.chunks_total}, {"chunks_pruned", st.chunks_pruned},
                            {"partitions_total", st.partitions_total},
                            {"partitions_pruned", st.partitions_pruned},
                            {"partitions_all_match", st.partitions_all_match},
                            {"values_decoded", st.values_decoded}, {"values_taken", st.values_taken},
                            {"payload_bytes_read", st.payload_bytes_read}});
    }
    std::printf("| %s | %llu | %s | %.4f | %.4f | %.4f | %llu | %llu | %llu | %llu / %llu |%s\n", q.name,
                static_cast<unsigned long long>(scan.count), revenue.c_str(), t_scan.best,
                t_decode.best, t_memory.best, static_cast<unsigned long long>(scan.payload_bytes_read),
                static_cast<unsigned long long>(payload_bytes), static_cast<unsigned long long>(raw_bytes),
                static_cast<unsigned long long>(date_stats ? date_stats->partitions_pruned : 0),
                static_cast<unsigned long long>(date_stats ? date_stats->partitions_total : 0),
                equal ? "" : " MISMATCH");
    queries.push_back(
        {{"name", q.name}, {"where", q.sql_where}, {"date_lo", q.date_lo}, {"date_hi", q.date_hi},
         {"rows_selected", scan.count}, {"revenue", revenue},
         {"decode_revenue", std::to_string(decode_sum)}, {"memory_revenue", std::to_string(memory_sum)},
         {"results_equal", equal},
         {"scan", {{"seconds", t_scan.best}, {"median_seconds", t_scan.median},
                   {"bytes_read", scan.payload_bytes_read}, {"partitions_pruned", pruned},
                   {"partitions_total", partitions}, {"columns", per_column}}},
         {"decode", {{"seconds", t_decode.best}, {"median_seconds", t_decode.median}, {"bytes_read", payload_bytes}}},
         {"memory", {{"seconds", t_memory.best}, {"median_seconds", t_memory.median}, {"bytes_read", raw_bytes}}}});
  }
  if (!json_path.empty()) {
    nlohmann::json doc = {{"file", path}, {"rows", n}, {"file_bytes", r.info().file_bytes},
                          {"threads", threads}, {"reps", reps},
                          {"hardware_threads", std::thread::hardware_concurrency()},
                          {"payload_bytes", payload_bytes}, {"stored_bytes", stored_bytes},
                          {"raw_bytes", raw_bytes}, {"columns", columns}, {"queries", queries},
                          {"results_equal", all_equal}};
    std::ofstream out(json_path);
    out << doc.dump(2) << "\n";
    if (!out) Die("cannot write " + json_path);
  }
  if (!all_equal) {
    std::fprintf(stderr, "l3_ssb_bench: the three methods disagree\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "gen") == 0) return Gen(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return Run(argc, argv);
  return Usage();
}
