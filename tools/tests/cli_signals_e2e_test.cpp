// End-to-end tests of the promise of docs/cli.md, "No partial outputs": an
// interrupted `l3 compress` leaves an existing target byte for byte as it
// was and removes its temporary file, unless the interrupt came after the
// commit point (the rename), in which case the run succeeds. The tests run
// build/bin/l3 and send SIGTERM, SIGINT and SIGKILL at many moments (after
// SIGKILL a temporary file may remain, but the target is the old file or the
// complete new one).
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "e2e_process.hpp"

using namespace l3::e2e;

namespace {

using Clock = std::chrono::steady_clock;

const char kOld[] = "the target before the run\n";

/// 6 MiB of u64 values that take the encoder some work: noisy ramps. (Small
/// enough that the ~40 runs below stay well inside the ctest timeout under
/// AddressSanitizer on a busy machine; the delays scale with the run time.)
std::string MakeInput() {
  std::string bytes(size_t{6} << 20, '\0');
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (size_t i = 0; i < bytes.size() / 8; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const uint64_t v = (uint64_t{i} << 12) + (x & ((uint64_t{1} << ((i >> 14) % 40 + 1)) - 1));
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<char>(v >> (8 * b));
  }
  return bytes;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

ino_t InodeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

struct Fixture {
  ScratchDir dir;
  ScratchDir ref_dir;
  std::string input = dir / "values.bin";
  std::string target = dir / "out.l3";
  std::string reference;  ///< the bytes of an uninterrupted run
  double seconds = 0;     ///< how long that run took

  std::vector<std::string> Command(const std::string& output) const {
    return {Tool("l3"), "compress", "--type", "u64", "--threads", "1", input, "-o", output};
  }

  std::string values = MakeInput();

  Fixture() {
    REQUIRE(dir.ok());
    REQUIRE(ref_dir.ok());
    REQUIRE(WriteFile(input, values));
    const auto start = Clock::now();
    REQUIRE(Run(Command(ref_dir / "ref.l3")) == 0);
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
    reference = ReadFile(ref_dir / "ref.l3");
    REQUIRE(reference.size() > 1000);
    REQUIRE(WriteFile(target, kOld));
  }

  /// Checks one finished run that got `sig`: exit 0 with the new file in
  /// place, or 128 + sig with the old target; never a temporary file.
  /// Returns the shell status.
  int Check(int status, int sig, const std::string& when) {
    const int rc = ShellStatus(status);
    INFO("signal " << sig << " " << when << ": exit " << rc);
    CHECK((rc == 0 || rc == 128 + sig));
    const std::string now = ReadFile(target);
    if (rc == 0) {
      CHECK_MESSAGE(now == reference, "the run succeeded but the target is not the new file");
    } else {
      CHECK_MESSAGE(now == kOld, "the run failed but the target changed");
    }
    CHECK(Join(dir.Files()) == "out.l3 values.bin");  // no temporary file left
    if (rc == 0) REQUIRE(WriteFile(target, kOld));
    return rc;
  }
};

}  // namespace

TEST_SUITE("signals") {

TEST_CASE("SIGTERM and SIGINT at many moments of l3 compress: old target or success") {
  Fixture f;
  MESSAGE("an uninterrupted run takes " << f.seconds << " s");
  // Delays from before the handlers are installed to after the end.
  std::vector<double> delays = {0.0, 0.001, 0.003, 0.01};
  const int steps = 12;
  for (int k = 0; k <= steps; ++k) delays.push_back(f.seconds * 1.1 * k / steps);
  int interrupted = 0, succeeded = 0;
  for (size_t i = 0; i < delays.size(); ++i) {
    const int sig = i % 2 == 0 ? SIGTERM : SIGINT;
    const pid_t pid = Spawn(f.Command(f.target));
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(delays[i]));
    kill(pid, sig);
    const int rc = f.Check(Wait(pid), sig, "after " + std::to_string(delays[i]) + " s");
    (rc == 0 ? succeeded : interrupted)++;
  }
  MESSAGE(interrupted << " runs interrupted, " << succeeded << " finished");
  CHECK(interrupted > 0);
}

TEST_CASE("SIGKILL at many moments of l3 compress: the target is the old file or the new one") {
  // SIGKILL cannot be caught: the temporary file may stay behind, but the
  // target is never partial. It holds the old bytes until the rename and the
  // complete new file after it.
  Fixture f;
  std::vector<double> delays = {0.0, 0.001, 0.003, 0.01};
  const int steps = 8;
  for (int k = 0; k <= steps; ++k) delays.push_back(f.seconds * 1.1 * k / steps);
  int killed = 0, replaced = 0, leftovers = 0;
  for (size_t i = 0; i < delays.size(); ++i) {
    const pid_t pid = Spawn(f.Command(f.target));
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(delays[i]));
    kill(pid, SIGKILL);
    const int rc = ShellStatus(Wait(pid));
    INFO("SIGKILL after " << delays[i] << " s: exit " << rc);
    CHECK((rc == 0 || rc == 128 + SIGKILL));
    const std::string now = ReadFile(f.target);
    if (rc == 0) {
      CHECK_MESSAGE(now == f.reference, "the run succeeded but the target is not the new file");
    } else {
      const bool old_or_new = now == kOld || now == f.reference;
      CHECK_MESSAGE(old_or_new, "a killed run left a target that is neither the old nor the new file");
      ++killed;
    }
    if (now == f.reference) ++replaced;
    // A temporary file may stay behind (nothing runs after SIGKILL); it is
    // removed so that the next run starts from the same state.
    for (const std::string& name : f.dir.Files()) {
      if (name != "out.l3" && name != "values.bin") {
        ++leftovers;
        std::remove((f.dir / name).c_str());
      }
    }
    REQUIRE(WriteFile(f.target, kOld));
  }
  MESSAGE(killed << " runs killed, " << replaced << " left the new file, " << leftovers
                  << " temporary files left behind");
  CHECK(killed > 0);
}

TEST_CASE("an interrupt while the temporary file exists leaves the target untouched") {
  Fixture f;
  for (int sig : {SIGTERM, SIGINT}) {
    const pid_t pid = Spawn(f.Command(f.target));
    REQUIRE(pid > 0);
    // Wait until the writer's temporary file appears, then interrupt.
    bool seen = false;
    int status = 0;
    bool exited = false;
    while (!seen && !exited) {
      seen = f.dir.Files().size() > 2;
      if (!seen) exited = waitpid(pid, &status, WNOHANG) == pid;
    }
    if (seen) {
      kill(pid, sig);
      status = Wait(pid);
    }
    REQUIRE_MESSAGE(seen, "the run ended before its temporary file was seen");
    CHECK(f.Check(status, sig, "with the temporary file present") == 128 + sig);
  }
}

TEST_CASE("an interrupt right after the rename: the run reports success") {
  // The target's inode changes at the rename (the commit point); a signal
  // sent as soon as that is seen arrives after the commit point, so the run
  // must exit 0 with the new file in place, not 128 + N.
  Fixture f;
  int hits = 0;
  for (int round = 0; round < 6; ++round) {
    const int sig = round % 2 == 0 ? SIGTERM : SIGINT;
    const ino_t old_inode = InodeOf(f.target);
    const pid_t pid = Spawn(f.Command(f.target));
    REQUIRE(pid > 0);
    int status = 0;
    bool exited = false;
    bool renamed = false;
    while (!renamed && !exited) {
      renamed = InodeOf(f.target) != old_inode;
      if (!renamed) exited = waitpid(pid, &status, WNOHANG) == pid;
    }
    if (renamed) {
      kill(pid, sig);
      status = Wait(pid);
      ++hits;
    }
    CHECK(f.Check(status, sig, "right after the rename") == 0);
  }
  MESSAGE(hits << " of 6 signals sent right after the rename");
  CHECK(hits > 0);
}

TEST_CASE("l3 decompress: SIGTERM/SIGINT at many moments and right after the rename") {
  // decompress renames its own temporary file; the same promise holds.
  Fixture f;
  const std::string target = f.ref_dir / "back.bin";
  REQUIRE(WriteFile(target, kOld));
  const std::vector<std::string> command = {Tool("l3"), "decompress", "--threads", "1",
                                            f.ref_dir / "ref.l3", "-o", target};
  int hits = 0, interrupted = 0;
  for (int round = 0; round < 16; ++round) {
    const int sig = round % 2 == 0 ? SIGTERM : SIGINT;
    const ino_t old_inode = InodeOf(target);
    const pid_t pid = Spawn(command);
    REQUIRE(pid > 0);
    int status = 0;
    bool exited = false;
    if (round < 6) {
      // Right after the rename (the commit point): the run must succeed.
      bool renamed = false;
      while (!renamed && !exited) {
        renamed = InodeOf(target) != old_inode;
        if (!renamed) exited = waitpid(pid, &status, WNOHANG) == pid;
      }
      if (renamed) ++hits;
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(2000 * (round - 6) * (round - 6)));
    }
    if (!exited) {
      kill(pid, sig);
      status = Wait(pid);
    }
    const int rc = ShellStatus(status);
    INFO("round " << round << ", signal " << sig << ": exit " << rc);
    CHECK((rc == 0 || rc == 128 + sig));
    if (round < 6) CHECK(rc == 0);
    CHECK(ReadFile(target) == (rc == 0 ? f.values : std::string(kOld)));
    CHECK(Join(f.ref_dir.Files()) == "back.bin ref.l3");
    if (rc != 0) ++interrupted;
    REQUIRE(WriteFile(target, kOld));
  }
  MESSAGE(hits << " of 6 signals sent right after the rename, " << interrupted << " runs interrupted");
  CHECK(hits > 0);
}

TEST_CASE("SIGXFSZ: a file-size limit removes the temporary file") {
  Fixture f;
  struct rlimit old_limit;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 1 << 20;  // the child inherits it
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const pid_t compress = Spawn(f.Command(f.target));
  const int compress_status = compress > 0 ? Wait(compress) : -1;
  // decompress of the reference file into an existing raw file
  const std::string raw = f.dir / "raw.bin";
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  REQUIRE(WriteFile(raw, kOld));
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const pid_t decompress =
      Spawn({Tool("l3"), "decompress", f.ref_dir / "ref.l3", "-o", raw});
  const int decompress_status = decompress > 0 ? Wait(decompress) : -1;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);

  // compress: the failed write is an IO_ERROR (exit 12); decompress may also
  // end by the signal itself. Either way no temporary file, old targets.
  CHECK(ShellStatus(compress_status) == 12);
  const int rc = ShellStatus(decompress_status);
  CHECK((rc == 12 || rc == 128 + SIGXFSZ));
  CHECK(ReadFile(f.target) == kOld);
  CHECK(ReadFile(raw) == kOld);
  CHECK(Join(f.dir.Files()) == "out.l3 raw.bin values.bin");
}

}  // TEST_SUITE
