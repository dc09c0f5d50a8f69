// A minimal deterministic parallel loop for the row-independent generators.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace l3::datagen::internal {

/// Calls fn(block) for every block in [0, num_blocks) on up to one thread per
/// hardware thread. Each block must write only its own rows, so the result
/// never depends on the thread count or the scheduling.
template <typename Fn>
void ParallelForBlocks(uint64_t num_blocks, Fn fn) {
  const uint64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t num_threads = std::min<uint64_t>(hw, num_blocks);
  if (num_threads <= 1) {
    for (uint64_t b = 0; b < num_blocks; ++b) fn(b);
    return;
  }
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    for (uint64_t b = next.fetch_add(1); b < num_blocks; b = next.fetch_add(1)) fn(b);
  };
  std::vector<std::thread> threads;
  threads.reserve(num_threads - 1);
  for (uint64_t t = 1; t < num_threads; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
}

}  // namespace l3::datagen::internal
