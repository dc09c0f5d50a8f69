// replay_main.cpp: the main() of the replay drivers.
//
// Each fuzz target is also linked with this file instead of libFuzzer, so that
// any compiler builds it and ctest can run the seed corpus and the committed
// regression inputs through the same LLVMFuzzerTestOneInput (label "fuzz").
//
//   l3_fuzz_replay_<target> [--mutate N] [--min-files K] PATH...
//
// Every PATH is a file or a directory whose regular files (not recursively,
// sorted by name) are fed to the target one by one. A property violation
// aborts, so the run fails. With --mutate N, a target that defines
// LLVMFuzzerCustomMutator (the reader) is also fed N mutations of every
// input, made with fixed seeds: a short, deterministic smoke of the mutator
// and of what it reaches. --min-files K fails the run if fewer than K files
// were found (a moved corpus must not make the test pass vacuously).
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                                                size_t max_size,
                                                                unsigned int seed);

namespace {

uint64_t g_mutate_state = 1;
char g_current[4096];  // the input being run, named when the target aborts

void NameInputOnAbort(int) {
  const char prefix[] = "replay: the failing input is ";
  (void)!write(2, prefix, sizeof(prefix) - 1);
  (void)!write(2, g_current, strlen(g_current));
  (void)!write(2, "\n", 1);
  signal(SIGABRT, SIG_DFL);
}

void SetCurrent(const std::string& path, int mutation) {
  std::string name = path;
  if (mutation >= 0) name += " (mutation " + std::to_string(mutation) + ")";
  std::snprintf(g_current, sizeof(g_current), "%s", name.c_str());
}

}  // namespace

// libFuzzer's own mutator is not linked here: a stand-in that changes one to
// four bytes of the window (length kept), for LLVMFuzzerCustomMutator.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  (void)max_size;
  if (size == 0) return 0;
  const int edits = 1 + static_cast<int>(g_mutate_state % 4);
  for (int i = 0; i < edits; ++i) {
    g_mutate_state = g_mutate_state * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = g_mutate_state >> 17;
    data[r % size] ^= static_cast<uint8_t>(1u << ((r >> 32) % 8));
  }
  return size;
}

namespace {

std::vector<std::string> ListInputs(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      // Dot files (.gitkeep of an empty regression directory) are skipped.
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
        files.push_back(e.path().string());
      }
    }
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    std::fprintf(stderr, "replay: %s: no such file or directory\n", path.c_str());
    std::exit(2);
  }
  return files;
}

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// Feeds `bytes` from a buffer of exactly their size, so that ASan sees
/// reads past the end.
void Run(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() + (bytes.empty() ? 1 : 0)]);
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  LLVMFuzzerTestOneInput(copy.get(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  int mutations = 0;
  size_t min_files = 0;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--mutate" || arg == "--min-files") && i + 1 < argc) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (v < 0) {
        std::fprintf(stderr, "replay: %s wants a count\n", arg.c_str());
        return 2;
      }
      if (arg == "--mutate") {
        mutations = static_cast<int>(v);
      } else {
        min_files = static_cast<size_t>(v);
      }
      continue;
    }
    for (std::string& f : ListInputs(arg)) files.push_back(std::move(f));
  }
  if (files.size() < min_files) {
    std::fprintf(stderr, "replay: %zu inputs, expected at least %zu\n", files.size(), min_files);
    return 1;
  }
  signal(SIGABRT, NameInputOnAbort);
  size_t runs = 0;
  for (const std::string& path : files) {
    const std::vector<uint8_t> bytes = ReadAll(path);
    SetCurrent(path, -1);
    Run(bytes);
    ++runs;
    if (mutations == 0 || LLVMFuzzerCustomMutator == nullptr || bytes.empty()) continue;
    for (int m = 0; m < mutations; ++m) {
      std::vector<uint8_t> mutated = bytes;
      g_mutate_state = static_cast<uint64_t>(m) + 1;
      const size_t n =
          LLVMFuzzerCustomMutator(mutated.data(), mutated.size(), mutated.size(),
                                  static_cast<unsigned int>(m * 2654435761u + runs));
      mutated.resize(n);
      SetCurrent(path, m);
      Run(mutated);
      ++runs;
    }
  }
  std::printf("replay: %zu inputs from %zu files, no property violated\n", runs, files.size());
  return 0;
}
