// A minimal fork-join loop for the writer. Work items write only to their own
// slots, so results never depend on how many threads ran them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace l3::internal {

/// Runs fn(i) for every i in [0, count) on up to `num_threads` threads,
/// handing out `grain` consecutive indices at a time. Rethrows the first
/// exception a worker raised, after all workers stopped.
template <typename Fn>
void ParallelFor(uint64_t count, int num_threads, uint64_t grain, Fn&& fn) {
  if (count == 0) return;
  grain = std::max<uint64_t>(grain, 1);
  const uint64_t blocks = (count + grain - 1) / grain;
  const int workers = static_cast<int>(std::min<uint64_t>(std::max(num_threads, 1), blocks));
  if (workers <= 1) {
    for (uint64_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&]() {
    try {
      while (!failed.load(std::memory_order_relaxed)) {
        const uint64_t block = next.fetch_add(1, std::memory_order_relaxed);
        if (block >= blocks) break;
        const uint64_t end = std::min(count, (block + 1) * grain);
        for (uint64_t i = block * grain; i < end; ++i) fn(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true);
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers - 1));
  try {
    for (int t = 1; t < workers; ++t) threads.emplace_back(work);
  } catch (...) {
    // Could not start every thread: the ones that did start and this thread
    // still finish the loop.
  }
  work();
  for (auto& thread : threads) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace l3::internal
