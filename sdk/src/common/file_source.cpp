#include "common/file_source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace l3::internal {
namespace {

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status(StatusCode::kIoError, what + " '" + path + "': " + std::strerror(err));
}

// Closes a descriptor on every path out of Open().
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::string& path, bool use_mmap) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open", path, errno);
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError("cannot stat", path, errno);
  if (!S_ISREG(st.st_mode)) {
    return Status(StatusCode::kIoError, "'" + path + "' is not a regular file");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > static_cast<uint64_t>(SIZE_MAX / 2)) {
    return Status(StatusCode::kIoError, "'" + path + "' is too large to address");
  }
  std::unique_ptr<FileSource> source(new FileSource());
  source->size_ = size;
  if (size == 0) {
    // Nothing to map; the framing checks report the file as truncated.
    static const uint64_t kEmpty = 0;
    source->data_ = reinterpret_cast<const uint8_t*>(&kEmpty);
    return source;
  }
  if (use_mmap) {
    void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return IoError("cannot map", path, errno);
    source->mapping_ = p;
    source->mapping_bytes_ = static_cast<size_t>(size);
    source->data_ = static_cast<const uint8_t*>(p);
    return source;
  }
  source->owned_.reset(new uint64_t[(size + 7) / 8]);
  uint8_t* out = reinterpret_cast<uint8_t*>(source->owned_.get());
  uint64_t done = 0;
  while (done < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(size - done, uint64_t{1} << 30));
    const ssize_t got = ::read(fd, out + done, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read", path, errno);
    }
    if (got == 0) {
      return Status(StatusCode::kIoError, "short read of '" + path + "': got " +
                                              std::to_string(done) + " of " +
                                              std::to_string(size) + " bytes");
    }
    done += static_cast<uint64_t>(got);
  }
  source->data_ = out;
  return source;
}

std::unique_ptr<FileSource> FileSource::Borrow(const void* data, size_t size) {
  std::unique_ptr<FileSource> source(new FileSource());
  static const uint64_t kEmpty = 0;
  source->data_ = data != nullptr ? static_cast<const uint8_t*>(data)
                                  : reinterpret_cast<const uint8_t*>(&kEmpty);
  source->size_ = data != nullptr ? size : 0;
  return source;
}

FileSource::~FileSource() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
}

}  // namespace l3::internal
