// l3 demo: the README quick-start job. Generates sample columns with
// l3::datagen, compresses them into one .l3 file, reads every column back,
// checks it is identical byte for byte and prints ratio and model mix.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/reading.hpp"
#include "common/summary.hpp"

#if defined(L3_CLI_HAVE_DATAGEN)
#include "l3/datagen.hpp"
#endif

namespace l3::cli {

#if defined(L3_CLI_HAVE_DATAGEN)
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// The sample columns: two smooth curves (LeCo linear/normal), a noisy
/// periodic signal (cosmos), sensor event times (poisson), event timestamps
/// with bursts, runs of repeated values, and incompressible 40-bit noise.
std::vector<datagen::Column> MakeColumns(uint64_t rows, uint64_t seed) {
  std::vector<datagen::Column> cols;
  cols.emplace_back("linear", datagen::GenerateLinear(rows));
  cols.emplace_back("normal", datagen::GenerateNormal(rows));
  cols.emplace_back("cosmos", datagen::GenerateCosmos(rows, seed));
  cols.emplace_back("poisson", datagen::GeneratePoisson(rows, seed));
  cols.emplace_back("timestamps", datagen::GenerateTimestamps(rows, seed));
  cols.emplace_back("runs", datagen::GenerateRuns(rows, 64, seed));
  cols.emplace_back("uniform40", datagen::GenerateUniformBits(rows, 40, seed));
  return cols;
}

std::string MakeTempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/l3-demo-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) ThrowIo("cannot create a directory in " + templ, errno);
  return templ;
}

}  // namespace
#endif

int RunDemo(int argc, char** argv) {
  ArgParser parser("l3 demo", "l3 demo [options]",
                   "Generates sample integer columns (linear, normal, cosmos, poisson,\n"
                   "timestamps, runs, uniform40), compresses them into one .l3 file, reads\n"
                   "every column back and checks it is identical, and prints per column the\n"
                   "rows, raw and stored bytes, ratio, partitions, payload bits per row and model\n"
                   "mix. Exits with 4 if any column does not read back identically.");
  parser.Option("rows", "N", "rows per column (default 1000000)")
      .Option("seed", "N", "seed of the random generators (default 42)")
      .Option("out", "FILE", "where to write the .l3 file (default: a temporary directory,\n"
              "                            removed afterwards)")
      .Option("profile", "P", "hot (default) or archive")
      .Option("threads", "N", "encoder threads, 0 = one per core (default 0)")
      .Epilog(std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (!args.positionals.empty()) ThrowUsage("unexpected argument '" + args.positionals[0] + "'");
#if !defined(L3_CLI_HAVE_DATAGEN)
  throw CliError(kExitFailure, "demo: this build has no l3::datagen library");
#else
  const uint64_t rows = args.Has("rows") ? ParseUnsigned(args.Get("rows"), "--rows", 1, uint64_t{1} << 32)
                                         : 1000000;
  const uint64_t seed = args.Has("seed") ? ParseUnsigned(args.Get("seed"), "--seed") : datagen::kDefaultSeed;
  WriteOptions options;
  std::string profile = args.Get("profile", "hot");
  if (profile != "hot" && profile != "archive") ThrowUsage("--profile: '" + profile + "' is not hot or archive");
  options.profile = profile == "archive" ? Profile::kArchive : Profile::kHot;
  if (args.Has("threads")) {
    options.num_threads = static_cast<int>(ParseUnsigned(args.Get("threads"), "--threads", 0, 4096));
  }

  std::string dir, path = args.Get("out");
  if (path.empty()) {
    dir = MakeTempDir();
    path = dir + "/demo.l3";
  }
  // Removes the temporary directory however this function ends.
  struct Cleanup {
    std::string dir, path;
    ~Cleanup() {
      if (!dir.empty()) {
        std::remove(path.c_str());
        rmdir(dir.c_str());
      }
    }
  } cleanup{dir, path};

  std::fprintf(stderr, "l3 demo: generating %zu columns of %llu rows...\n", size_t{7},
               static_cast<unsigned long long>(rows));
  std::vector<datagen::Column> cols = MakeColumns(rows, seed);
  std::vector<ColumnSpec> specs;
  uint64_t raw_total = 0;
  for (const datagen::Column& c : cols) {
    specs.push_back(ColumnSpec{c.name(), c.type(), {}});
    raw_total += c.size_bytes();
  }

  auto t0 = Clock::now();
  Writer writer = Check(Writer::Create(path, specs, options), path);
  for (size_t c = 0; c < cols.size(); ++c) {
    Check(writer.Append(static_cast<int>(c), cols[c].data(), cols[c].size()), cols[c].name());
  }
  Check(writer.Close(), path);
  auto t1 = Clock::now();

  Reader reader = OpenReader(path);
  std::vector<bool> lossless(cols.size());
  std::vector<uint8_t> back;
  for (size_t c = 0; c < cols.size(); ++c) {
    back.assign(cols[c].size_bytes(), 0);
    Status st = reader.ReadRows(static_cast<int>(c), 0, rows, back.data(), back.size());
    lossless[c] = st.ok() && std::memcmp(back.data(), cols[c].data(), back.size()) == 0;
    if (!st.ok()) std::fprintf(stderr, "l3 demo: %s: %s\n", cols[c].name().c_str(), st.ToString().c_str());
  }
  auto t2 = Clock::now();

  std::string out;
  out += Format("%-10s  %-4s  %9s  %11s  %11s  %8s  %10s  %9s  %-8s  %s\n", "column", "type", "rows",
                "raw bytes", "file bytes", "ratio", "partitions", "bits/row", "lossless",
                "model mix");
  bool all_ok = true;
  for (size_t c = 0; c < cols.size(); ++c) {
    const ColumnInfo& info = reader.column(static_cast<int>(c));
    ColumnSummary s = SummarizeColumn(reader, static_cast<int>(c));
    all_ok = all_ok && lossless[c];
    out += Format("%-10s  %-4s  %9llu  %11llu  %11llu  %7.2fx  %10llu  %9.2f  %-8s  %s\n",
                  info.name.c_str(), PhysicalTypeName(info.type),
                  static_cast<unsigned long long>(info.num_rows),
                  static_cast<unsigned long long>(RawBytes(info)),
                  static_cast<unsigned long long>(info.stored_bytes),
                  Ratio(RawBytes(info), info.stored_bytes),
                  static_cast<unsigned long long>(s.num_partitions),
                  info.num_rows == 0 ? 0.0
                                     : 8.0 * static_cast<double>(s.payload_bytes) /
                                           static_cast<double>(info.num_rows),
                  lossless[c] ? "yes" : "NO", ModelMixText(s).c_str());
  }
  uint64_t file_bytes = reader.info().file_bytes;
  out += Format("%-10s  %-4s  %9llu  %11llu  %11llu  %7.2fx\n", "file", "", static_cast<unsigned long long>(rows),
                static_cast<unsigned long long>(raw_total), static_cast<unsigned long long>(file_bytes),
                Ratio(raw_total, file_bytes));
  out += Format("\ncompressed %.1f MB in %.2f s, read back and compared in %.2f s (%s profile)\n",
                static_cast<double>(raw_total) / 1e6, Seconds(t0, t1), Seconds(t1, t2),
                profile.c_str());
  out += dir.empty() ? "file: " + path + "\n" : std::string();
  out += all_ok ? "all columns are lossless\n" : "LOSSLESS CHECK FAILED\n";
  std::fputs(out.c_str(), stdout);
  return all_ok ? kExitOk : kExitMismatch;
#endif
}

}  // namespace l3::cli
