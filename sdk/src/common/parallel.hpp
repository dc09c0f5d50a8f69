// Running independent slices of work on threads, for the reader's
// multi-threaded paths (ReadRows with ReadOptions::num_threads,
// LowerBoundBatch).
#pragma once

#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace l3::internal {

/// Calls run(i) once for every i < slices: slice 0 and any slice whose
/// thread could not be started on the calling thread, the others on threads
/// of their own; returns when all are done. `run` must not throw.
template <typename F>
void RunSlices(size_t slices, F&& run) {
  std::vector<std::thread> workers;
  if (slices > 1) workers.reserve(slices - 1);
  size_t next = 1;
  try {
    for (; next < slices; ++next) workers.emplace_back([&run, next] { run(next); });
  } catch (const std::system_error&) {
    // No more threads: the calling thread runs the slices not started.
  }
  if (slices > 0) run(size_t{0});
  for (size_t i = next; i < slices; ++i) run(i);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace l3::internal
