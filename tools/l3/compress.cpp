// l3 compress: raw, .npy and CSV inputs to one .l3 file.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#if defined(L3_CLI_HAVE_CUDA)
#include "l3/cuda.hpp"
#endif
#include "common/args.hpp"
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/npy.hpp"
#include "common/progress.hpp"
#include "common/reading.hpp"
#include "common/summary.hpp"
#include "common/values.hpp"

namespace l3::cli {

namespace {

// --gpu: the CUDA backend's chunk encoder where this build has the backend
// and the machine a GPU; otherwise a note on stderr, and the CPU encodes
// (the bytes are the same either way).
void UseGpuIfAvailable(WriteOptions* options) {
#if defined(L3_CLI_HAVE_CUDA)
  const Status status = cuda::UseGpuWriter(options);
  if (status.ok()) return;
  std::fprintf(stderr, "l3: --gpu: %s; compressing on the CPU\n", status.ToString().c_str());
#else
  (void)options;
  std::fprintf(stderr, "l3: --gpu: this l3 was built without the CUDA backend; compressing on the CPU\n");
#endif
}

// The value of a keyword option: one of `choices`, else a usage error
// naming them ("--OPT: 'x' is not a, b or c").
template <typename E>
E ParseChoice(const std::string& option, const std::string& text,
              std::initializer_list<std::pair<const char*, E>> choices) {
  std::string names;
  size_t i = 0;
  for (const auto& choice : choices) {
    if (text == choice.first) return choice.second;
    names += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(choice.first);
    ++i;
  }
  ThrowUsage(option + ": '" + text + "' is not " + names);
}

}  // namespace
namespace {

enum class InputFormat { kRaw, kNpy, kCsv };

/// Values appended per Writer::Append call.
constexpr uint64_t kBatchBytes = uint64_t{8} << 20;

/// One column to write and where its values come from.
struct Source {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  InputFormat format = InputFormat::kRaw;
  std::shared_ptr<InputFile> file;  ///< raw and .npy
  bool byte_swap = false;           ///< big-endian .npy
  int64_t num_values = -1;          ///< -1 until known (standard input)
  uint32_t row_width = 1;           ///< values per row (float tensors, spec §11.2.1)
  std::shared_ptr<CsvTable> table;  ///< CSV
  size_t csv_column = 0;
};

ArgParser MakeParser() {
  ArgParser p("l3 compress", "l3 compress [options] INPUT... -o OUTPUT.l3",
              "Compresses integer and float columns into one .l3 file. Each raw or .npy\n"
              "input is one column (a 2-D float .npy is a tensor column: one row per array\n"
              "row); a CSV input gives one column per selected field. All columns must\n"
              "have the same number of rows. INPUT '-' reads standard input (give --format).");
  p.Option("output", "FILE", "the .l3 file to write (required; '-' writes standard output)", 'o')
      .Option("format", "FMT", "raw|npy|csv, bin = raw (default: from the extension: .npy;\n"
              "                            .csv, .tsv; anything else is raw, as for decompress)")
      .Option("type", "T[,T...]", "value type of raw inputs, one for all or one per raw input:\n"
              "                            i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 f16 bf16; for\n"
              "                            CSV, forces the type of columns without their own\n"
              "                            :TYPE (CSV floats: f32, f64)")
      .Option("row-width", "N[,N...]", "values per row of raw float inputs, one for all or one\n"
              "                            per raw input (default 1): a [rows, N] tensor")
      .Option("float-encoding", "E", "float chunks: auto (default: the smaller), integer (the\n"
              "                            order-preserving integer form) or ibp (Invariant Bit\n"
              "                            Packing: any row found in O(1))")
      .Option("ibp-masks", "K", "IBP: also try K masks with a mask id per row (1..256;\n"
              "                            default 1)")
      .Option("float-chunk-bytes", "N", "most bytes of rows per float chunk (default 67108864)")
      .Option("name", "NAME", "column name, in column order (repeatable; default: the\n"
              "                            input's file name stem, or the CSV header)", 0, true)
      .Option("columns", "LIST", "CSV: the fields to read, comma-separated header names or\n"
              "                            0-based indices, each optionally NAME:TYPE")
      .Option("delimiter", "C", "CSV field delimiter (default ',', or tab for .tsv; 'tab')")
      .Flag("header", "CSV: the first line is a header")
      .Flag("no-header", "CSV: the first line is data (columns are named col0, col1, ...)")
      .Option("infer", "MODE", "CSV type inference: narrow (default: the smallest unsigned\n"
              "                            type if no value is negative, else the smallest signed)\n"
              "                            or wide (i64; u64 above the i64 range)")
      .Option("chunk-rows", "N", "rows per column chunk (default 67108864)")
      .Option("values-per-lane", "V", "V of the SLAP layout, a power of two in [1, 1024]\n"
              "                            (default 64)")
      .Option("partition-rows", "N", "initial partition size of the partitioner (default 256)")
      .Option("max-partition-rows", "N", "largest merged partition (default 8192)")
      .Option("block-rows", "N", "block size of the delta-bits analysis (default 2048)")
      .Option("tau", "N", "breakpoint threshold in bits (default 2)")
      .Option("merge-rounds", "N", "odd-even merge rounds, 0 = no merging (default 16)")
      .Option("split-min-rows", "N", "halve initial partitions down to N rows where cheaper,\n"
              "                            0 = never (default: 0 for hot, 64 for archive)")
      .Option("disable", "LIST", "models not to use: rle, runs-ef, delta, patched-for, linear, poly2, poly3 "
              "(comma-separated); signed-highs keeps DELTA and PATCHED_FOR\n"
              "                            exceptions' high parts unsigned (spec §8.9),\n"
              "                            rows-ef PATCHED_FOR's exception rows fixed-width (§8.12),\n"
              "                            delta-orders DELTA of order 2 and 3 (§8.9; the hot\n"
              "                            profile keeps them where 1/32 smaller)")
      .Flag("no-minimax-lines", "LINEAR keeps the least-squares line even where the minimax line\n"
                                "would be narrower (faster encoding of near-linear data)")
      .Option("format-minor", "M", "newest format minor version the file may need: 0 writes files\n"
                                   "that format 1.0 readers read (no DELTA) (default 1)")
      .Option("profile", "P", "hot (default; GPUs decode in place) or archive (zstd on top)")
      .Option("zstd-level", "N", "zstd level of the archive profile, 1..22 (default 19)")
      .Flag("no-field-planes", "archive: zstd over the bit-packed payload only, never over its\n"
            "                            field planes or field bytes (spec §9.2, §9.3, format 1.1)")
      .Option("distinct-sketch", "MODE", "which chunks carry a distinct-count sketch (spec §7.6.1):\n"
              "                            multi (default: columns of several chunks), always, never")
      .Flag("no-dictionary", "never store a chunk as a dictionary chunk (spec §8.10, format\n"
            "                            1.1; default: where smaller)")
      .Flag("one-pass", "archive: encode each chunk once with the partitioner options given,\n"
            "                            not also with long partitions or whole deltas")
      .Option("threads", "N", "encoder threads, 0 = one per core (default 0); never changes\n"
              "                            the bytes written")
      .Flag("gpu", "plan the partitions of integer chunks on a CUDA GPU (same bytes as on the\n"
            "                            CPU); without a GPU, says so and compresses on the CPU")
      .Flag("pgm", "store a PGM learned index (spec §11.3) in every chunk; fails on a column\n"
            "                            that is not sorted (non-decreasing)")
      .Flag("pgm-sorted", "store a PGM index in every chunk that is sorted; skip the others")
      .Option("pgm-epsilon", "E", "error bound of the PGM leaf level (default 64; implies --pgm\n"
              "                            unless --pgm-sorted)")
      .Flag("no-bounds", "do not store per-partition min/max bounds")
      .Flag("no-stats", "do not store chunk statistics")
      .Option("metadata", "KEY=VALUE", "application key/value pair for the footer (repeatable)", 0,
              true)
      .Flag("verbose", "print a summary on stderr when done", 'v')
      .Epilog(
          "Examples:\n"
          "  l3 compress --type u32 ids.bin -o ids.l3\n"
          "  l3 compress prices.npy volumes.npy -o market.l3\n"
          "  l3 compress --columns ts:i64,price trades.csv -o trades.l3 --profile archive\n"
          "  l3 compress features.npy -o features.l3        (a 2-D float32 array)\n"
          "  l3 compress --type f32 --row-width 1433 cora.bin -o cora.l3 --float-encoding ibp\n\n" +
          std::string(ExitCodeHelp()));
  return p;
}

WriteOptions MakeWriteOptions(const ArgParser::Parsed& args) {
  WriteOptions o;
  PartitionerOptions& part = o.partitioner;
  if (args.Has("chunk-rows")) {
    o.chunk_rows = ParseUnsigned(args.Get("chunk-rows"), "--chunk-rows", 1, UINT32_MAX);
  }
  if (args.Has("values-per-lane")) {
    uint64_t v = ParseUnsigned(args.Get("values-per-lane"), "--values-per-lane", 1, 1024);
    if ((v & (v - 1)) != 0) ThrowUsage("--values-per-lane: " + args.Get("values-per-lane") +
                                       " is not a power of two");
    o.values_per_lane = static_cast<uint32_t>(v);
  }
  if (args.Has("partition-rows")) {
    part.initial_partition_rows =
        static_cast<uint32_t>(ParseUnsigned(args.Get("partition-rows"), "--partition-rows", 1, UINT32_MAX));
  }
  if (args.Has("max-partition-rows")) {
    part.max_partition_rows = static_cast<uint32_t>(
        ParseUnsigned(args.Get("max-partition-rows"), "--max-partition-rows", 1, UINT32_MAX));
  }
  if (args.Has("block-rows")) {
    part.analysis_block_rows =
        static_cast<uint32_t>(ParseUnsigned(args.Get("block-rows"), "--block-rows", 1, UINT32_MAX));
  }
  if (args.Has("tau")) {
    part.breakpoint_tau = static_cast<uint32_t>(ParseUnsigned(args.Get("tau"), "--tau", 0, 64));
  }
  if (args.Has("merge-rounds")) {
    part.max_merge_rounds =
        static_cast<uint32_t>(ParseUnsigned(args.Get("merge-rounds"), "--merge-rounds", 0, 1024));
  }
  if (args.Has("no-minimax-lines")) part.minimax_lines = false;
  if (args.Has("split-min-rows")) {
    part.split_min_rows = static_cast<uint32_t>(
        ParseUnsigned(args.Get("split-min-rows"), "--split-min-rows", 0, UINT32_MAX));
  }
  if (args.Has("disable")) {
    for (const std::string& m : Split(args.Get("disable"), ',')) {
      if (m == "rle") {
        part.enable_rle = false;
      } else if (m == "linear") {
        part.enable_linear = false;
      } else if (m == "poly2") {
        part.enable_poly2 = false;
      } else if (m == "poly3") {
        part.enable_poly3 = false;
      } else if (m == "delta") {
        part.enable_delta = false;
      } else if (m == "runs-ef") {
        part.enable_runs_ef = false;
      } else if (m == "patched-for") {
        part.enable_patched_for = false;
      } else if (m == "signed-highs") {
        part.signed_exception_highs = false;
      } else if (m == "rows-ef") {
        part.patched_rows_ef = false;
      } else if (m == "delta-orders") {
        o.delta_orders = false;
      } else {
        ThrowUsage("--disable: unknown model '" + m +
                   "' (rle, runs-ef, delta, patched-for, linear, poly2, poly3, signed-highs, "
                   "rows-ef, delta-orders)");
      }
    }
  }
  if (args.Has("format-minor")) {
    o.format_minor =
        static_cast<uint16_t>(ParseSigned(args.Get("format-minor"), "--format-minor", 0, kFormatMinor));
  }
  std::string profile = args.Get("profile", "hot");
  if (profile == "hot") {
    o.profile = Profile::kHot;
  } else if (profile == "archive") {
    o.profile = Profile::kArchive;
  } else {
    ThrowUsage("--profile: '" + profile + "' is not hot or archive");
  }
  if (args.Has("zstd-level")) {
    o.zstd_level = static_cast<int>(ParseSigned(args.Get("zstd-level"), "--zstd-level", 1, 22));
  }
  o.archive_field_planes = !args.Has("no-field-planes");
  o.dictionary = !args.Has("no-dictionary");
  if (args.Has("distinct-sketch")) {
    o.distinct_sketch = ParseChoice<DistinctSketchMode>(
        "--distinct-sketch", args.Get("distinct-sketch"),
        {{"multi", DistinctSketchMode::kMultiChunkColumns},
         {"always", DistinctSketchMode::kAlways},
         {"never", DistinctSketchMode::kNever}});
  }
  o.archive_large_partitions = !args.Has("one-pass");
  if (args.Has("threads")) {
    o.num_threads = static_cast<int>(ParseUnsigned(args.Get("threads"), "--threads", 0, 4096));
  }
  if (args.Has("gpu")) UseGpuIfAvailable(&o);
  if (args.Has("float-encoding")) {
    o.float_encoding = ParseChoice<FloatEncoding>(
        "--float-encoding", args.Get("float-encoding"),
        {{"auto", FloatEncoding::kAuto},
         {"integer", FloatEncoding::kIntegerForm},
         {"ibp", FloatEncoding::kIbp}});
  }
  if (args.Has("ibp-masks")) {
    o.ibp_masks = static_cast<uint32_t>(ParseUnsigned(args.Get("ibp-masks"), "--ibp-masks", 1, 256));
  }
  if (args.Has("float-chunk-bytes")) {
    o.float_chunk_bytes =
        ParseUnsigned(args.Get("float-chunk-bytes"), "--float-chunk-bytes", 1, UINT64_MAX);
  }
  if (args.Has("pgm") || args.Has("pgm-epsilon")) o.pgm = PgmMode::kRequire;
  if (args.Has("pgm-sorted")) o.pgm = PgmMode::kSorted;
  if (args.Has("pgm-epsilon")) {
    o.pgm_epsilon = static_cast<uint32_t>(
        ParseUnsigned(args.Get("pgm-epsilon"), "--pgm-epsilon", 0, kPgmMaxEpsilon));
  }
  o.write_partition_bounds = !args.Has("no-bounds");
  o.write_statistics = !args.Has("no-stats");
  for (const std::string& kv : args.GetAll("metadata")) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) ThrowUsage("--metadata: '" + kv + "' is not KEY=VALUE");
    o.metadata.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return o;
}

PhysicalType ParseType(const std::string& text, const std::string& option) {
  Result<PhysicalType> t = ParsePhysicalType(text);
  if (!t.ok()) {
    ThrowUsage(option + ": '" + text +
               "' is not a type (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 f16 bf16)");
  }
  return *t;
}

/// Rows of a source whose value count is known.
int64_t Rows(const Source& s) { return s.num_values / static_cast<int64_t>(s.row_width); }

InputFormat FormatOf(const std::string& path, const std::string& forced) {
  std::string f = forced;
  if (f.empty()) {
    if (path == "-") ThrowUsage("reading standard input needs --format raw|npy|csv");
    std::string ext = Extension(path);
    f = ext == "npy" ? "npy" : (ext == "csv" || ext == "tsv") ? "csv" : "raw";
  }
  if (f == "raw" || f == "bin") return InputFormat::kRaw;
  if (f == "npy") return InputFormat::kNpy;
  if (f == "csv") return InputFormat::kCsv;
  ThrowUsage("--format: '" + f + "' is not raw, npy or csv");
}

/// Reads the values of a raw or .npy source and appends them to the writer.
void AppendFileValues(Writer& writer, int column, Source& src, Progress& progress,
                      uint64_t* bytes_done) {
  const int width = PhysicalTypeBytes(src.type);
  std::vector<uint8_t> buffer(kBatchBytes);
  uint64_t values_left = src.num_values >= 0 ? static_cast<uint64_t>(src.num_values) : UINT64_MAX;
  // One allocation per chunk instead of a buffer that doubles (and is copied)
  // as the values arrive.
  if (values_left != UINT64_MAX) Check(writer.Reserve(column, values_left), src.file->path());
  uint64_t appended = 0;
  size_t carry = 0;  // bytes of an incomplete value kept from the last read
  while (values_left > 0) {
    uint64_t want = std::min<uint64_t>(kBatchBytes - carry, values_left == UINT64_MAX
                                                                ? kBatchBytes
                                                                : values_left * width - carry);
    size_t got = src.file->Read(buffer.data() + carry, want);
    size_t have = carry + got;
    uint64_t n = have / width;
    if (n > 0) {
      if (src.byte_swap) ByteSwap(buffer.data(), n, width);
      Check(writer.Append(column, buffer.data(), n), src.file->path());
      appended += n;
      if (values_left != UINT64_MAX) values_left -= n;
    }
    carry = have - n * width;
    if (carry > 0) std::memmove(buffer.data(), buffer.data() + n * width, carry);
    *bytes_done += got;
    progress.Update(*bytes_done);
    CheckInterrupted();
    if (got < want) break;  // end of input
  }
  if (carry != 0) {
    ThrowBadInput(src.file->path() + ": " + std::to_string(appended * width + carry) +
                  " bytes is not a multiple of " + std::to_string(width) + " (" +
                  PhysicalTypeName(src.type) + ")");
  }
  if (src.num_values >= 0 && appended != static_cast<uint64_t>(src.num_values)) {
    ThrowBadInput(src.file->path() + ": truncated: expected " + std::to_string(src.num_values) +
                  " values, found " + std::to_string(appended));
  }
  if (src.format == InputFormat::kNpy) {
    uint8_t extra;
    if (src.file->Read(&extra, 1) != 0) {
      ThrowBadInput(src.file->path() + ": data continues after the " +
                    std::to_string(src.num_values) + " values the header announces");
    }
  }
  src.num_values = static_cast<int64_t>(appended);
}

void AppendCsvValues(Writer& writer, int column, const Source& src) {
  const CsvColumn& col = src.table->columns[src.csv_column];
  const int width = PhysicalTypeBytes(col.type);
  const uint64_t batch = kBatchBytes / 8;
  std::vector<uint8_t> buffer(batch * width);
  for (uint64_t i = 0; i < col.words.size(); i += batch) {
    uint64_t n = std::min<uint64_t>(batch, col.words.size() - i);
    NarrowWords(col.words.data() + i, n, col.type, buffer.data());
    Check(writer.Append(column, buffer.data(), n), "column '" + src.name + "'");
    CheckInterrupted();
  }
}

}  // namespace

int RunCompress(int argc, char** argv) {
  ArgParser parser = MakeParser();
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.empty()) ThrowUsage("no input (see 'l3 compress --help')");
  if (!args.Has("output")) ThrowUsage("no output file: give -o OUTPUT.l3");
  const std::string output = args.Get("output");
  WriteOptions options = MakeWriteOptions(args);
  if (args.Has("header") && args.Has("no-header")) ThrowUsage("--header and --no-header conflict");

  std::vector<PhysicalType> types;
  if (args.Has("type")) {
    for (const std::string& t : Split(args.Get("type"), ',')) types.push_back(ParseType(t, "--type"));
  }
  std::vector<InputFormat> formats;
  size_t num_raw = 0, num_csv = 0;
  for (const std::string& in : args.positionals) {
    formats.push_back(FormatOf(in, args.Get("format")));
    num_raw += formats.back() == InputFormat::kRaw;
    num_csv += formats.back() == InputFormat::kCsv;
  }
  if (!types.empty() && num_raw == 0 && num_csv == 0) {
    ThrowUsage("--type applies to raw and CSV inputs; a .npy input has its own dtype");
  }
  if (num_raw > 0 && types.empty()) {
    ThrowUsage("raw input needs --type (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 f16 bf16)");
  }
  std::vector<uint32_t> row_widths;
  if (args.Has("row-width")) {
    for (const std::string& w : Split(args.Get("row-width"), ',')) {
      row_widths.push_back(
          static_cast<uint32_t>(ParseUnsigned(w, "--row-width", 1, uint64_t{1} << 24)));
    }
    if (num_raw == 0) ThrowUsage("--row-width applies to raw inputs (a 2-D .npy has its own)");
    if (row_widths.size() > 1 && row_widths.size() != num_raw) {
      ThrowUsage("--row-width: " + std::to_string(row_widths.size()) + " widths for " +
                 std::to_string(num_raw) + " raw inputs");
    }
  }
  if (types.size() > 1 && types.size() != num_raw) {
    ThrowUsage("--type: " + std::to_string(types.size()) + " types for " + std::to_string(num_raw) +
               " raw inputs");
  }
  if (args.Has("columns") && num_csv == 0) ThrowUsage("--columns applies to CSV inputs");
  if (std::count(args.positionals.begin(), args.positionals.end(), "-") > 1) {
    ThrowUsage("standard input can be read only once");
  }
  for (const std::string& in : args.positionals) {
    if (in != "-" && output != "-" && SameFile(in, output)) {
      ThrowUsage("the output " + output + " is also an input");
    }
  }

  // Open every input and work out its columns, types and row counts before
  // anything is written, so that most errors leave no trace.
  uint64_t total_bytes = 0;
  std::vector<Source> sources;
  size_t raw_index = 0;
  for (size_t i = 0; i < args.positionals.size(); ++i) {
    const std::string& path = args.positionals[i];
    auto file = std::make_shared<InputFile>(path);
    std::string stem = path == "-" ? "values" : Stem(path);
    if (file->size() > 0) total_bytes += static_cast<uint64_t>(file->size());
    if (formats[i] == InputFormat::kCsv) {
      CsvOptions csv;
      std::string delim = args.Get("delimiter", Extension(path) == "tsv" ? "tab" : ",");
      if (delim == "tab" || delim == "\\t") delim = "\t";
      if (delim.size() != 1 || delim == "\"" || delim == "\n") {
        ThrowUsage("--delimiter: '" + delim + "' is not a single character");
      }
      csv.delimiter = delim[0];
      csv.header = args.Has("header") ? CsvHeader::kYes
                   : args.Has("no-header") ? CsvHeader::kNo : CsvHeader::kAuto;
      std::string infer = args.Get("infer", "narrow");
      if (infer != "narrow" && infer != "wide") ThrowUsage("--infer: '" + infer + "' is not narrow or wide");
      csv.infer = infer == "wide" ? InferMode::kWide : InferMode::kNarrow;
      if (types.size() == 1) csv.type = types[0];
      if (args.Has("columns")) {
        for (const std::string& item : Split(args.Get("columns"), ',')) {
          size_t colon = item.rfind(':');
          CsvSelection sel{item, std::nullopt};
          if (colon != std::string::npos) {
            sel.column = item.substr(0, colon);
            sel.type = ParseType(item.substr(colon + 1), "--columns");
          }
          if (sel.column.empty()) ThrowUsage("--columns: empty column name in '" + args.Get("columns") + "'");
          csv.columns.push_back(sel);
        }
      }
      Progress progress("reading " + path, file->size() > 0 ? static_cast<uint64_t>(file->size()) : 0);
      csv.progress = [&](uint64_t bytes) { progress.Update(bytes); };
      auto table = std::make_shared<CsvTable>(ReadCsv(file->get(), path, csv));
      for (size_t c = 0; c < table->columns.size(); ++c) {
        Source s;
        s.format = InputFormat::kCsv;
        s.name = table->columns[c].name;
        s.type = table->columns[c].type;
        s.table = table;
        s.csv_column = c;
        s.num_values = static_cast<int64_t>(table->num_rows);
        sources.push_back(s);
      }
      continue;
    }
    Source s;
    s.format = formats[i];
    s.name = stem;
    s.file = file;
    if (formats[i] == InputFormat::kRaw) {
      s.type = types.size() == 1 ? types[0] : types[raw_index];
      if (!row_widths.empty()) {
        s.row_width = row_widths.size() == 1 ? row_widths[0] : row_widths[raw_index];
        if (s.row_width > 1 && !PhysicalTypeIsFloat(s.type)) {
          ThrowUsage("--row-width " + std::to_string(s.row_width) + " for " + path + ": only " +
                     "float columns have rows of several values");
        }
      }
      ++raw_index;
      int width = PhysicalTypeBytes(s.type);
      if (file->size() >= 0) {
        if (file->size() % width != 0) {
          ThrowBadInput(path + ": " + std::to_string(file->size()) + " bytes is not a multiple of " +
                        std::to_string(width) + " (" + PhysicalTypeName(s.type) + ")");
        }
        s.num_values = file->size() / width;
      }
    } else {
      NpyHeader h = ReadNpyHeader(file->get(), path);
      s.type = h.type;
      s.byte_swap = h.big_endian;
      s.num_values = static_cast<int64_t>(h.num_values);
      s.row_width = h.row_width;
      int width = PhysicalTypeBytes(s.type);
      if (file->size() >= 0) {
        uint64_t data = static_cast<uint64_t>(file->size()) - h.data_offset;
        if (h.num_values > data / width) {
          ThrowBadInput(path + ": truncated: the header announces " + std::to_string(h.num_values) +
                        " values (" + std::to_string(h.num_values * width) + " bytes) but " +
                        std::to_string(data) + " bytes follow");
        }
        if (data != h.num_values * width) {
          ThrowBadInput(path + ": " + std::to_string(data - h.num_values * width) +
                        " bytes follow the " + std::to_string(h.num_values) +
                        " values the header announces");
        }
      }
    }
    sources.push_back(s);
  }

  const std::vector<std::string>& names = args.GetAll("name");
  if (names.size() > sources.size()) {
    ThrowUsage("--name given " + std::to_string(names.size()) + " times for " +
               std::to_string(sources.size()) + " columns");
  }
  for (size_t i = 0; i < names.size(); ++i) sources[i].name = names[i];
  std::set<std::string> seen;
  for (const Source& s : sources) {
    if (s.name.empty()) ThrowUsage("a column name is empty");
    if (!seen.insert(s.name).second) {
      ThrowUsage("two columns are named '" + s.name + "' (rename them with --name)");
    }
  }
  for (const Source& s : sources) {
    if (s.num_values >= 0 && s.num_values % s.row_width != 0) {
      ThrowBadInput("'" + s.name + "' has " + std::to_string(s.num_values) +
                    " values, not a whole number of rows of " + std::to_string(s.row_width));
    }
  }
  for (const Source& s : sources) {
    if (s.num_values >= 0 && sources[0].num_values >= 0 && Rows(s) != Rows(sources[0])) {
      ThrowBadInput("columns differ in length: '" + sources[0].name + "' has " +
                    std::to_string(Rows(sources[0])) + " rows, '" + s.name + "' has " +
                    std::to_string(Rows(s)));
    }
  }

  // The Writer's temporary file has a name only the SDK knows, so a signal
  // must not end the process while it exists: it is deferred, noticed
  // between batches, and the Writer is destroyed (which removes the file).
  DeferInterrupts defer;
  options.cancel = PendingSignalFlag();
  std::vector<ColumnSpec> specs;
  for (const Source& s : sources) specs.push_back(ColumnSpec{s.name, s.type, {}, s.row_width});
  Writer writer = output == "-" ? Check(Writer::CreateInMemory(specs, options), "l3 compress")
                                : Check(Writer::Create(output, specs, options), output);
  Progress progress("compress", total_bytes);
  uint64_t bytes_done = 0;
  for (size_t c = 0; c < sources.size(); ++c) {
    if (sources[c].format == InputFormat::kCsv) {
      AppendCsvValues(writer, static_cast<int>(c), sources[c]);
    } else {
      AppendFileValues(writer, static_cast<int>(c), sources[c], progress, &bytes_done);
    }
  }
  for (const Source& s : sources) {
    if (s.num_values % s.row_width != 0) {
      ThrowBadInput("'" + s.name + "' has " + std::to_string(s.num_values) +
                    " values, not a whole number of rows of " + std::to_string(s.row_width));
    }
    if (Rows(s) != Rows(sources[0])) {
      ThrowBadInput("columns differ in length: '" + sources[0].name + "' has " +
                    std::to_string(Rows(sources[0])) + " rows, '" + s.name + "' has " +
                    std::to_string(Rows(s)));
    }
  }
  progress.Pulse("encoding");
  // The commit point is the rename inside Close(). Close() looks at the
  // cancel flag (a deferred interrupt) just before it: if one arrived, it
  // removes the temporary file and fails, and the target is untouched. If
  // Close() succeeds, the file is in place and the run reports success, also
  // when an interrupt arrived after that last look (it came too late).
  const Status closed = writer.Close();
  if (closed.ok() && output != "-") {
    defer.Committed();
  } else {
    CheckInterrupted();  // an interrupt before the commit point: exit 128 + N
    Check(closed, output);
  }
  progress.Finish();
  uint64_t file_bytes = 0;
  if (output == "-") {
    std::vector<uint8_t> bytes = writer.TakeBuffer();
    file_bytes = bytes.size();
    OutputFile out("-");
    out.Write(bytes.data(), bytes.size());
    out.Commit();
  }
  if (args.Has("verbose")) {
    uint64_t raw = 0;
    for (const Source& s : sources) raw += static_cast<uint64_t>(s.num_values) * PhysicalTypeBytes(s.type);
    if (output != "-") {
      InputFile written(output);
      file_bytes = static_cast<uint64_t>(std::max<int64_t>(0, written.size()));
    }
    std::fprintf(stderr, "l3: wrote %s: %zu column%s, %lld rows, %llu raw bytes -> %llu bytes (%.2fx)\n",
                 output == "-" ? "standard output" : output.c_str(), sources.size(),
                 sources.size() == 1 ? "" : "s", static_cast<long long>(Rows(sources[0])),
                 static_cast<unsigned long long>(raw), static_cast<unsigned long long>(file_bytes),
                 Ratio(raw, file_bytes));
  }
  return kExitOk;
}

}  // namespace l3::cli
