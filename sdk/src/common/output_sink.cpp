#include "common/output_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace l3::internal {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status(StatusCode::kIoError, what + " '" + path + "': " + std::strerror(err));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseNameOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::Create(const std::string& path) {
  const std::string base = BaseNameOf(path);
  if (base.empty() || base == "." || base == "..") {
    return Status(StatusCode::kInvalidArgument, "'" + path + "' does not name a file");
  }
  const std::string dir = DirectoryOf(path);
  // The name only has to be unlikely to collide; O_EXCL makes it safe. It
  // never reaches the file's bytes, so determinism is not affected.
  std::random_device entropy;
  std::mt19937_64 rng((uint64_t{entropy()} << 32) ^ entropy());
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  int last_errno = 0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::string suffix(12, 'x');
    for (char& c : suffix) c = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
    const std::string temp = path.substr(0, path.size() - base.size()) + "." + base + ".tmp-" + suffix;
    // 0666 filtered by the umask: the final file gets ordinary permissions.
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(path, std::move(temp), fd));
    }
    last_errno = errno;
    if (last_errno != EEXIST) break;
  }
  return IoError("cannot create a temporary file in", dir, last_errno);
}

AtomicFileSink::AtomicFileSink(std::string path, std::string temp_path, int fd)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {
  buffer_.reserve(kBufferBytes);
}

AtomicFileSink::~AtomicFileSink() { Abandon(); }

Status AtomicFileSink::Flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot write", temp_path_, errno);
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
  return Status::OK();
}

Status AtomicFileSink::Write(const void* data, size_t size) {
  if (!live_) return Status(StatusCode::kIoError, "write after the file was closed");
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const size_t room = kBufferBytes - buffer_.size();
    const size_t n = size < room ? size : room;
    buffer_.insert(buffer_.end(), p, p + n);
    p += n;
    size -= n;
    position_ += n;
    if (buffer_.size() == kBufferBytes) {
      Status st = Flush();
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
}

Status AtomicFileSink::Commit() {
  if (!live_) return Status(StatusCode::kIoError, "commit after the file was closed");
  Status st = Flush();
  if (!st.ok()) return st;
  if (::fsync(fd_) != 0) return IoError("cannot fsync", temp_path_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return IoError("cannot close", temp_path_, errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return IoError("cannot rename the temporary file onto", path_, errno);
  }
  live_ = false;
  // Persist the directory entry. Some file systems refuse fsync on a
  // directory; the file itself is complete and in place by now, so a failure
  // here is not reported (the target path must not change after an error).
  const int dir_fd = ::open(DirectoryOf(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

void AtomicFileSink::Abandon() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (live_) {
    ::unlink(temp_path_.c_str());
    live_ = false;
  }
  buffer_.clear();
  buffer_.shrink_to_fit();
}

Status MemorySink::Write(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  bytes_.insert(bytes_.end(), p, p + size);
  position_ += size;
  return Status::OK();
}

void MemorySink::Abandon() noexcept {
  bytes_.clear();
  bytes_.shrink_to_fit();
}

}  // namespace l3::internal
