// progress.hpp: a progress bar on stderr for long-running work.
//
// The bar appears only when stderr is a terminal and the work has already
// taken longer than a second, so short runs, pipes, logs and tests stay
// quiet. It redraws at most ten times a second and erases itself when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace l3::cli {

class Progress {
 public:
  /// `total` is in arbitrary units (bytes, rows); 0 means unknown.
  Progress(std::string label, uint64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  /// Erases the bar if it was drawn.
  void Finish();

  /// Forces the bar on or off regardless of the terminal (for tests).
  void set_enabled(bool enabled) { enabled_ = enabled; }

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// The bar's text for `done` of `total` units after `elapsed_s` seconds,
/// `width` columns wide: "compress  [#####.....]  42%  3.1 s".
std::string RenderProgress(const std::string& label, uint64_t done, uint64_t total,
                           double elapsed_s, int width);

}  // namespace l3::cli
