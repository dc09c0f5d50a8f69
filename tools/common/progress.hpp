// progress.hpp: a progress bar on stderr for long-running work.
//
// The bar appears only when stderr is a terminal and the work has already
// taken longer than a second, so short runs, pipes, logs and tests stay
// quiet. It redraws at most ten times a second and erases itself when done.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace l3::cli {

class Progress {
 public:
  /// `total` is in arbitrary units (bytes, rows); 0 means unknown.
  Progress(std::string label, uint64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  /// For a long call that reports nothing (the SDK writer's Close()): until
  /// Finish(), a thread redraws "LABEL  PHASE  12.3 s" every tenth of a second
  /// (subject to the same terminal and one-second rules).
  void Pulse(const std::string& phase);
  /// Stops pulsing and erases the bar if it was drawn.
  void Finish();

  /// Forces the bar on or off regardless of the terminal (for tests).
  void set_enabled(bool enabled) { enabled_ = enabled; }

 private:
  void Draw(const std::string& line);

  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;  ///< guards drawing between the caller and the pulse thread
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread pulse_;
};

/// The bar's text for `done` of `total` units after `elapsed_s` seconds,
/// `width` columns wide: "compress  [#####.....]  42%  3.1 s".
std::string RenderProgress(const std::string& label, uint64_t done, uint64_t total,
                           double elapsed_s, int width);

}  // namespace l3::cli
