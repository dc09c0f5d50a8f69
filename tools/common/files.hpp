// files.hpp: input files and atomically created output files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <csignal>
#include <string>

namespace l3::cli {

/// An input file opened for reading; "-" is standard input.
class InputFile {
 public:
  /// Throws CliError(IO_ERROR) naming the path and the reason.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::FILE* get() const { return file_; }
  const std::string& path() const { return path_; }
  /// The size of a regular file, or -1 (a pipe, standard input).
  int64_t size() const { return size_; }
  /// Reads up to `bytes`; returns how many were read (short only at the end).
  size_t Read(void* data, size_t bytes);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  int64_t size_ = -1;
  bool owned_ = false;
};

/// A file written under a temporary name in the target's directory and
/// renamed into place by Commit(). If Commit() is never reached (an error,
/// an exception, SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGXFSZ) the temporary
/// file is removed and the target path is left as it was. "-" writes to
/// standard output directly. The rename is the commit point of the process:
/// once it succeeded, SIGINT, SIGTERM, SIGHUP and SIGPIPE are ignored until
/// the process ends (one output file per process).
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void Write(const void* data, size_t bytes);
  void Write(const std::string& text) { Write(text.data(), text.size()); }
  /// Flushes, closes and renames the file into place.
  void Commit();

  const std::string& path() const { return path_; }

 private:
  void Discard() noexcept;

  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  int slot_ = -1;  ///< index in the signal-cleanup registry
  bool committed_ = false;
};

/// The signal deferred by DeferInterrupts (0 while none), for
/// WriteOptions::cancel: the Writer never renames its file after an interrupt.
const volatile std::sig_atomic_t* PendingSignalFlag();

/// Installs handlers that remove registered temporary files on SIGINT,
/// SIGTERM, SIGHUP, SIGPIPE and SIGXFSZ, then re-raise the signal (but see
/// DeferInterrupts). Call once, early.
void InstallCleanupHandlers();

/// While a DeferInterrupts object lives, the first SIGINT, SIGTERM or SIGHUP
/// does not end the process: it is recorded, and the next CheckInterrupted()
/// throws, so the code in between can clean up what it cannot name (the
/// SDK Writer's temporary file). A second signal ends the process at once.
/// SIGXFSZ is left to the failing write (EFBIG) and its error path.
class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  /// Marks the commit point: the output has been renamed into place. A
  /// pending interrupt is dropped, and SIGINT, SIGTERM and SIGHUP are
  /// ignored from now until the process ends, so the run reports success
  /// instead of exiting with 128 + N after the target was replaced.
  void Committed();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;
};

/// Throws CliError(128 + signal, "interrupted") if a deferred signal arrived.
void CheckInterrupted();

/// mkstemp(*templ) with the file registered, from before it exists, for
/// removal if the process is killed by one of those signals (so that no
/// signal can leave it behind) until UnregisterCleanup(*slot); *templ
/// becomes its name and *slot its cleanup slot (-1 when all are taken).
/// Returns the descriptor, or -1 with errno set.
int CreateRegisteredTemp(std::string* templ, int* slot);
void UnregisterCleanup(int slot);

/// The file name's extension in lower case without the dot ("npy"), or "".
std::string Extension(const std::string& path);
/// The file name without directory and extension ("/a/b.npy" -> "b").
std::string Stem(const std::string& path);
/// Whether `a` and `b` name the same existing file.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace l3::cli
