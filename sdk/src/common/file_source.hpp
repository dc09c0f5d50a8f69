// Read-only access to the bytes of a file: mapped, read into memory, or
// borrowed from the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "l3/status.hpp"

namespace l3::internal {

class FileSource {
 public:
  /// Maps `path` (use_mmap) or reads all of it into memory. Errors: kIoError,
  /// including a short read (the file shrank while it was being read).
  static Result<std::unique_ptr<FileSource>> Open(const std::string& path, bool use_mmap);
  /// Borrows `size` bytes at `data`; they must outlive the source.
  static std::unique_ptr<FileSource> Borrow(const void* data, size_t size);

  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource();

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  FileSource() = default;

  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction when set
  size_t mapping_bytes_ = 0;
  std::unique_ptr<uint64_t[]> owned_;  // 8-aligned copy for read-into-memory
};

}  // namespace l3::internal
