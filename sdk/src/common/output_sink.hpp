// Append-only byte sinks for the Writer: a file that appears atomically at its
// path (temporary file, fsync, rename) or a buffer in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "l3/status.hpp"

namespace l3::internal {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  /// Appends `size` bytes. Errors: kIoError.
  virtual Status Write(const void* data, size_t size) = 0;
  /// Makes the written bytes durable and visible at their destination.
  virtual Status Commit() = 0;
  /// Discards everything; never fails and may be called more than once.
  virtual void Abandon() noexcept = 0;
  /// Bytes written so far.
  uint64_t position() const { return position_; }

 protected:
  uint64_t position_ = 0;
};

/// Writes to `.<name>.tmp-<random>` next to `path`; Commit() fsyncs, closes and
/// renames it onto `path`. Until then `path` is never touched. Abandon() and the
/// destructor remove the temporary file.
class AtomicFileSink final : public OutputSink {
 public:
  static Result<std::unique_ptr<AtomicFileSink>> Create(const std::string& path);
  ~AtomicFileSink() override;

  Status Write(const void* data, size_t size) override;
  Status Commit() override;
  void Abandon() noexcept override;

  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFileSink(std::string path, std::string temp_path, int fd);
  Status Flush();

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool live_ = true;  // the temporary file exists and belongs to us
  std::vector<uint8_t> buffer_;
};

/// Collects the bytes in memory.
class MemorySink final : public OutputSink {
 public:
  Status Write(const void* data, size_t size) override;
  Status Commit() override { return Status::OK(); }
  void Abandon() noexcept override;
  std::vector<uint8_t> Take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace l3::internal
