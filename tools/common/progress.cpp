#include "common/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace l3::cli {
namespace {
constexpr double kDelaySeconds = 1.0;
constexpr double kRedrawSeconds = 0.1;
constexpr int kWidth = 60;
}  // namespace

std::string RenderProgress(const std::string& label, uint64_t done, uint64_t total,
                           double elapsed_s, int width) {
  char tail[64];
  std::string out = label + "  ";
  if (total > 0) {
    double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    std::snprintf(tail, sizeof(tail), "  %3d%%  %.1f s", static_cast<int>(fraction * 100.0),
                  elapsed_s);
    int bar = std::max(10, width - static_cast<int>(out.size()) - static_cast<int>(
                                                                      std::string(tail).size()) - 2);
    int filled = static_cast<int>(fraction * bar);
    out += "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]";
  } else {
    std::snprintf(tail, sizeof(tail), "%llu  %.1f s", static_cast<unsigned long long>(done),
                  elapsed_s);
  }
  return out + tail;
}

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { Finish(); }

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kDelaySeconds) return;
  if (drawn_ && std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds) return;
  last_draw_ = now;
  Draw(RenderProgress(label_, done, total_, elapsed, kWidth));
}

void Progress::Draw(const std::string& line) {
  drawn_ = true;
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
}

void Progress::Pulse(const std::string& phase) {
  if (!enabled_ || pulse_.joinable()) return;
  pulse_ = std::thread([this, phase] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_cv_.wait_for(lock, std::chrono::duration<double>(kRedrawSeconds),
                              [this] { return stop_; })) {
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (elapsed >= kDelaySeconds) {
        char tail[32];
        std::snprintf(tail, sizeof(tail), "  %.1f s", elapsed);
        Draw(label_ + "  " + phase + tail);
      }
    }
  });
}

void Progress::Finish() {
  if (pulse_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    pulse_.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) {
    std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace l3::cli
