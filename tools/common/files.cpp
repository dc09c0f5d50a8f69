#include "common/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "common/errors.hpp"

namespace l3::cli {
namespace {

// The signal handler may only use async-signal-safe calls, so the paths to
// remove live in fixed buffers rather than std::strings.
constexpr int kMaxCleanupSlots = 8;
constexpr size_t kMaxCleanupPath = 4096;
char g_cleanup_paths[kMaxCleanupSlots][kMaxCleanupPath];
std::atomic<bool> g_cleanup_used[kMaxCleanupSlots];

volatile std::sig_atomic_t g_defer = 0;
volatile std::sig_atomic_t g_pending_signal = 0;

// Where the process stands with its output. The signal handler and the
// thread that renames the output agree through this one atomic, so that a
// signal handled on any thread either ends the process before the rename
// (kDying: the rename never happens) or comes after it (kCommitted: the run
// succeeds), never both.
enum CommitState : int { kRunning = 0, kCommitting = 1, kCommitted = 2, kDying = 3 };
std::atomic<int> g_state{kRunning};
static_assert(std::atomic<int>::is_always_lock_free, "used in a signal handler");

bool IsInterrupt(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP; }

void RecordPending(int sig) {
  if (g_pending_signal == 0) g_pending_signal = sig;
}

void CleanupAndReraise(int sig) {
  const int saved_errno = errno;
  for (;;) {
    int state = g_state.load();
    // After the commit point the output is in place and the run reports
    // success: an interrupt (or a closed pipe) has nothing left to stop.
    if (state == kCommitted && sig != SIGXFSZ) {
      errno = saved_errno;
      return;
    }
    // During the rename the signal waits: OutputFile::Commit() acts on it
    // if the rename fails and drops it if it succeeds.
    if (state == kCommitting && sig != SIGXFSZ) {
      RecordPending(sig);
      errno = saved_errno;
      return;
    }
    if (g_defer != 0 && sig == SIGXFSZ) {
      // The write that crossed the limit fails with EFBIG; that error ends
      // the run and its cleanup removes the temporary file (also the SDK
      // Writer's, whose name only the SDK knows).
      errno = saved_errno;
      return;
    }
    if (g_defer != 0 && g_pending_signal == 0 && IsInterrupt(sig)) {
      g_pending_signal = sig;
      errno = saved_errno;
      return;
    }
    if (state == kDying || g_state.compare_exchange_strong(state, kDying)) break;
    // The state changed under us (a commit began or ended): look again.
  }
  for (int i = 0; i < kMaxCleanupSlots; ++i) {
    if (g_cleanup_used[i].load()) unlink(g_cleanup_paths[i]);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// Waits for the signal handler on another thread to end the process.
[[noreturn]] void AwaitDeath() {
  for (;;) pause();
}

}  // namespace

void InstallCleanupHandlers() {
  // SIGXFSZ: a file-size limit (ulimit -f) ends the run like a write error
  // would, and the temporary file goes with it.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = CleanupAndReraise;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

DeferInterrupts::DeferInterrupts() { g_defer = 1; }

DeferInterrupts::~DeferInterrupts() {
  if (g_state.load() == kCommitted) return;  // interrupts stay ignored until exit
  g_defer = 0;
  if (g_pending_signal != 0) std::raise(g_pending_signal);
}

void DeferInterrupts::Committed() {
  int state = g_state.load();
  do {
    // kDying: a second signal is ending the process on another thread.
    if (state == kDying) AwaitDeath();
  } while (state != kCommitted && !g_state.compare_exchange_weak(state, kCommitted));
  // A signal recorded after the writer's last look at the cancel flag came
  // too late to stop the rename: the run succeeded.
  g_pending_signal = 0;
}

const volatile std::sig_atomic_t* PendingSignalFlag() { return &g_pending_signal; }

void CheckInterrupted() {
  int sig = g_pending_signal;
  if (sig != 0) {
    // Once reported, the signal is not raised again when the guard ends: the
    // exit code already says what happened.
    g_pending_signal = 0;
    throw CliError(128 + sig, std::string("interrupted by ") + strsignal(sig));
  }
}

int CreateRegisteredTemp(std::string* templ, int* slot) {
  *slot = -1;
  if (templ->size() >= kMaxCleanupPath) return -1;
  for (int i = 0; i < kMaxCleanupSlots; ++i) {
    bool expected = false;
    if (g_cleanup_used[i].load() || !g_cleanup_used[i].compare_exchange_strong(expected, true)) {
      continue;
    }
    // The slot is registered before the file exists, and mkstemp writes the
    // name it tries into the slot itself: a signal handled at any moment,
    // on any thread, finds the file's name there once the file exists (at
    // worst it unlinks a name not created yet, which removes nothing).
    std::memcpy(g_cleanup_paths[i], templ->c_str(), templ->size() + 1);
    const int fd = mkstemp(g_cleanup_paths[i]);
    if (fd < 0) {
      const int err = errno;
      g_cleanup_used[i].store(false);
      errno = err;
      return -1;
    }
    *templ = g_cleanup_paths[i];
    *slot = i;
    return fd;
  }
  // No free slot: an unregistered file (as before the slots filled).
  return mkstemp(templ->data());
}

void UnregisterCleanup(int slot) {
  if (slot >= 0 && slot < kMaxCleanupSlots) g_cleanup_used[slot].store(false);
}

InputFile::InputFile(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdin;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) ThrowIo("cannot open " + path, errno);
    owned_ = true;
  }
  struct stat st;
  if (fstat(fileno(file_), &st) == 0) {
    if (S_ISDIR(st.st_mode)) ThrowIo("cannot read " + path, EISDIR);
    if (S_ISREG(st.st_mode)) size_ = static_cast<int64_t>(st.st_size);
  }
}

InputFile::~InputFile() {
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

size_t InputFile::Read(void* data, size_t bytes) {
  size_t got = std::fread(data, 1, bytes, file_);
  if (got < bytes && std::ferror(file_)) ThrowIo("cannot read " + path_, errno);
  return got;
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdout;
    return;
  }
  // The temporary file sits next to the target so that rename() is atomic.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string templ = dir + "." + base + ".tmp-XXXXXX";
  int fd = CreateRegisteredTemp(&templ, &slot_);
  if (fd < 0) ThrowIo("cannot create " + path, errno);
  temp_path_ = templ;
  // mkstemp creates 0600; give the file the permissions a plain fopen would.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  file_ = fdopen(fd, "wb");
  if (file_ == nullptr) {
    int err = errno;
    close(fd);
    Discard();
    ThrowIo("cannot create " + path, err);
  }
}

OutputFile::~OutputFile() {
  if (!committed_) Discard();
}

void OutputFile::Discard() noexcept {
  if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  file_ = nullptr;
  if (!temp_path_.empty()) {
    unlink(temp_path_.c_str());
    UnregisterCleanup(slot_);
    temp_path_.clear();
  }
}

void OutputFile::Write(const void* data, size_t bytes) {
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    ThrowIo("cannot write " + (path_ == "-" ? std::string("standard output") : path_), errno);
  }
}

void OutputFile::Commit() {
  if (file_ == stdout) {
    if (std::fflush(stdout) != 0) ThrowIo("cannot write standard output", errno);
    committed_ = true;
    return;
  }
  std::FILE* f = file_;
  file_ = nullptr;
  bool ok = std::fflush(f) == 0;
  int err = errno;
  ok = ok && fsync(fileno(f)) == 0;
  if (!ok) err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) ThrowIo("cannot write " + path_, err);
  // An interrupt deferred while the file was finished wins over the commit:
  // the target path never changes after SIGINT, SIGTERM or SIGHUP arrived
  // (the destructor removes the temporary file).
  CheckInterrupted();
  // The commit point is the rename. A signal handled from here on waits for
  // it: it ends the process if the rename fails, and is ignored if it
  // succeeds (the output is in place, the run succeeds).
  int before = g_state.load();
  do {
    if (before == kDying) AwaitDeath();  // a signal is ending the process
  } while (!g_state.compare_exchange_weak(before, kCommitting));
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    g_state.store(before);
    const int sig = g_pending_signal;
    if (sig != 0 && g_defer == 0) {
      Discard();
      std::raise(sig);  // the handler now removes what is left and exits
    }
    ThrowIo("cannot create " + path_, err);
  }
  UnregisterCleanup(slot_);
  temp_path_.clear();
  committed_ = true;
  g_pending_signal = 0;
  g_state.store(kCommitted);
}

std::string Extension(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string Stem(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace l3::cli
