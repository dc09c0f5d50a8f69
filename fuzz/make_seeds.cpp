// make_seeds.cpp: builds the seed corpora of the targets whose inputs are not
// .l3 files, from what the repository already holds (nothing is committed
// twice). scripts/fuzz.sh and the ctest replay tests call it.
//
//   l3_fuzz_seeds zstd OUTDIR PATH...  every Zstd / ZstdFieldPlanes segment of
//                                      the .l3 files in PATH (files or
//                                      directories) as a fuzz_zstd input
//   l3_fuzz_seeds npy OUTDIR PATH...   a .npy file for every raw writer input
//                                      (NAME.TYPE.bin), little- and big-endian
//   l3_fuzz_seeds csv OUTDIR PATH...   every .csv file in PATH, and a CSV file
//                                      of every raw writer input
//
// Seeds are named after their source, so reruns overwrite them.
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/npy.hpp"
#include "common/values.hpp"
#include "l3/l3.hpp"

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxValues = 2000;  // values per npy / csv seed

std::vector<fs::path> Inputs(const std::vector<std::string>& paths, const std::string& ext) {
  std::vector<fs::path> out;
  for (const std::string& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
      }
    } else if (fs::path(p).extension() == ext) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "l3_fuzz_seeds: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

int ZstdSeeds(const fs::path& out, const std::vector<std::string>& paths) {
  int n = 0;
  for (const fs::path& file : Inputs(paths, ".l3")) {
    const std::string bytes = ReadAll(file);
    l3::ReadOptions options;
    options.allow_unknown = true;
    l3::Result<l3::Reader> reader = l3::Reader::OpenBuffer(bytes.data(), bytes.size(), options);
    if (!reader.ok()) continue;
    for (int c = 0; c < reader->num_columns(); ++c) {
      const auto& chunks = reader->column(c).chunks;
      for (size_t k = 0; k < chunks.size(); ++k) {
        const l3::ChunkInfo& chunk = chunks[k];
        const std::pair<const char*, const l3::SegmentInfo*> segments[] = {
            {"partitions", &chunk.partition_table},
            {"parameters", &chunk.parameters},
            {"payload", &chunk.payload},
            {"bounds", &chunk.bounds}};
        for (const auto& [role, seg] : segments) {
          if (!seg->present || seg->compression == l3::Compression::kNone) continue;
          const std::string stored = bytes.substr(seg->offset, seg->stored_bytes);
          // fuzz_zstd's input: the decoded length (u32, little-endian), then
          // the frame. A field-plane or field-byte frame decodes to its
          // content size.
          uint64_t length = seg->decoded_bytes;
          if (seg->compression == l3::Compression::kZstdFieldPlanes ||
              seg->compression == l3::Compression::kZstdFieldBytes) {
            const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
            if (content <= UINT32_MAX) length = content;
          }
          std::string seed(4, '\0');
          for (int i = 0; i < 4; ++i) seed[i] = static_cast<char>(length >> (8 * i));
          const std::string name = file.stem().string() + ".c" + std::to_string(c) + ".k" +
                                   std::to_string(k) + "." + role;
          WriteAll(out / name, seed + stored);
          ++n;
        }
      }
    }
  }
  return n;
}

/// The raw writer inputs NAME.TYPE.bin: their type and at most kMaxValues values.
struct RawInput {
  std::string stem;
  l3::PhysicalType type;
  std::string values;
};

std::vector<RawInput> RawInputs(const std::vector<std::string>& paths) {
  std::vector<RawInput> out;
  for (const fs::path& file : Inputs(paths, ".bin")) {
    const fs::path stem = file.stem();  // NAME.TYPE
    l3::Result<l3::PhysicalType> type = l3::ParsePhysicalType(stem.extension().string().substr(1));
    if (!type.ok() || *type == l3::PhysicalType::kFloat32 ||
        *type == l3::PhysicalType::kFloat64) {
      continue;
    }
    std::string values = ReadAll(file);
    const size_t width = static_cast<size_t>(l3::PhysicalTypeBytes(*type));
    values.resize(std::min<size_t>(values.size() / width, kMaxValues) * width);
    out.push_back({stem.stem().string(), *type, values});
  }
  return out;
}

int NpySeeds(const fs::path& out, const std::vector<std::string>& paths) {
  int n = 0;
  for (const RawInput& raw : RawInputs(paths)) {
    const int width = l3::PhysicalTypeBytes(raw.type);
    const uint64_t count = raw.values.size() / width;
    std::string little = l3::cli::MakeNpyHeader(raw.type, count);
    WriteAll(out / (raw.stem + ".npy"), little + raw.values);
    ++n;
    if (width == 1) continue;
    // The same values big-endian ('>' descr, swapped bytes).
    std::string big = little;
    big.replace(big.find("'<"), 2, "'>");
    std::string swapped = raw.values;
    l3::cli::ByteSwap(swapped.data(), count, width);
    WriteAll(out / (raw.stem + ".be.npy"), big + swapped);
    ++n;
  }
  return n;
}

int CsvSeeds(const fs::path& out, const std::vector<std::string>& paths) {
  int n = 0;
  for (const fs::path& file : Inputs(paths, ".csv")) {
    WriteAll(out / file.filename(), ReadAll(file));
    ++n;
  }
  for (const RawInput& raw : RawInputs(paths)) {
    std::string text = raw.stem + "\n";
    const uint64_t count = raw.values.size() / l3::PhysicalTypeBytes(raw.type);
    l3::cli::AppendValues(&text, raw.values.data(), count, raw.type, '\n');
    WriteAll(out / (raw.stem + ".csv"), text);
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: l3_fuzz_seeds zstd|npy|csv OUTDIR PATH...\n");
    return 2;
  }
  const std::string kind = argv[1];
  const fs::path out = argv[2];
  const std::vector<std::string> paths(argv + 3, argv + argc);
  fs::create_directories(out);
  int n = -1;
  if (kind == "zstd") n = ZstdSeeds(out, paths);
  if (kind == "npy") n = NpySeeds(out, paths);
  if (kind == "csv") n = CsvSeeds(out, paths);
  if (n < 0) {
    std::fprintf(stderr, "l3_fuzz_seeds: unknown kind '%s'\n", kind.c_str());
    return 2;
  }
  if (n == 0) {
    std::fprintf(stderr, "l3_fuzz_seeds: no %s seeds found\n", kind.c_str());
    return 1;
  }
  std::printf("l3_fuzz_seeds: %d %s seeds in %s\n", n, kind.c_str(), out.c_str());
  return 0;
}
