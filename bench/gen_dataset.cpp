// l3_gen: writes a generated dataset as a headerless little-endian array and
// reports how long generation took.
//
//   l3_gen --dataset linear [--rows N] [--seed S] [--out FILE]
//   l3_gen --list
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "l3/datagen.hpp"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: l3_gen --dataset NAME [--rows N] [--seed S] [--out FILE]\n"
               "       l3_gen --list\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  namespace dg = l3::datagen;
  std::string name;
  std::string out;
  uint64_t rows = 0;
  uint64_t seed = dg::kDefaultSeed;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--list") {
      for (const dg::DatasetInfo& d : dg::Datasets()) {
        std::printf("%-14s %-4s paper %11llu  report %11llu  %s\n", d.name,
                    l3::PhysicalTypeName(d.type), static_cast<unsigned long long>(d.paper_rows),
                    static_cast<unsigned long long>(d.report_rows), d.description);
      }
      return 0;
    } else if (arg == "--dataset" && has_value) {
      name = argv[++i];
    } else if (arg == "--rows" && has_value) {
      rows = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--out" && has_value) {
      out = argv[++i];
    } else {
      return Usage();
    }
  }
  const dg::DatasetInfo* info = dg::FindDataset(name);
  if (info == nullptr) {
    std::fprintf(stderr, "l3_gen: unknown dataset '%s' (see --list)\n", name.c_str());
    return 2;
  }
  if (rows == 0) rows = info->report_rows;
  const auto start = std::chrono::steady_clock::now();
  l3::Result<dg::Column> column = dg::Generate(name, rows, seed);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!column.ok()) {
    std::fprintf(stderr, "l3_gen: %s\n", column.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stderr, "%s: %llu %s values (%.1f MB) in %.2f s (%.1f M values/s)\n", name.c_str(),
               static_cast<unsigned long long>(column->size()), l3::PhysicalTypeName(column->type()),
               column->size_bytes() / 1e6, seconds, column->size() / seconds / 1e6);
  if (!out.empty()) {
    std::FILE* f = std::fopen(out.c_str(), "wb");
    if (f == nullptr || std::fwrite(column->data(), 1, column->size_bytes(), f) !=
                            column->size_bytes()) {
      std::fprintf(stderr, "l3_gen: cannot write '%s'\n", out.c_str());
      if (f != nullptr) std::fclose(f);
      return 1;
    }
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "l3_gen: cannot write '%s'\n", out.c_str());
      return 1;
    }
  }
  return 0;
}
