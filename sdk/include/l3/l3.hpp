// l3/l3.hpp: the public C++ API of the L3 SDK.
//
// L3 files (spec/l3-format.md) hold integer columns compressed with learned
// per-partition models and bit-packed residuals in the SLAP layout, and float
// columns (format 1.1) in an integer form or with Invariant Bit Packing. This
// header is all a CPU user needs: Writer, Reader, Status/Result and the value
// types. The optional CUDA backend lives in l3/cuda.hpp.
//
// Thread safety: a Reader may be used from several threads at once through its
// const methods. A Writer is used by one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "l3/distinct_sketch.hpp"

#include "l3/status.hpp"

namespace l3 {

// ---------------------------------------------------------------------------
// Versions

/// The SDK's own version (semantic versioning), independent of the format.
const char* LibraryVersion() noexcept;
/// The format version this SDK writes and the highest major it reads.
inline constexpr uint16_t kFormatMajor = 1;
inline constexpr uint16_t kFormatMinor = 1;

// ---------------------------------------------------------------------------
// Value types (spec §6.2)

enum class PhysicalType : uint8_t {
  kInt8 = 1,
  kInt16 = 2,
  kInt32 = 3,
  kInt64 = 4,
  kUInt8 = 5,
  kUInt16 = 6,
  kUInt32 = 7,
  kUInt64 = 8,
  kFloat32 = 9,    ///< IEEE binary32 (spec §11.2; format 1.1 files)
  kFloat64 = 10,   ///< IEEE binary64 (spec §11.2; format 1.1 files)
  kFloat16 = 11,   ///< IEEE binary16 (spec §11.2; format 1.1)
  kBFloat16 = 12,  ///< bfloat16, the upper half of a binary32 (spec §11.2; format 1.1)
};

/// Bytes per value (1, 2, 4 or 8); 0 for an invalid type.
int PhysicalTypeBytes(PhysicalType type) noexcept;
bool PhysicalTypeIsSigned(PhysicalType type) noexcept;
bool PhysicalTypeIsInteger(PhysicalType type) noexcept;
bool PhysicalTypeIsFloat(PhysicalType type) noexcept;
/// Short name: "i8", "i16", "i32", "i64", "u8", ..., "f32", "f64", "f16", "bf16".
const char* PhysicalTypeName(PhysicalType type) noexcept;
/// Parses a short name ("i32") or a long one ("int32", "uint64").
Result<PhysicalType> ParsePhysicalType(std::string_view name);

enum class LogicalKind : uint16_t { kNone = 0, kTimestamp = 1, kDate = 2, kDecimal = 3 };
enum class TimeUnit : uint8_t { kSecond = 0, kMillisecond = 1, kMicrosecond = 2, kNanosecond = 3 };

struct LogicalType {
  LogicalKind kind = LogicalKind::kNone;
  TimeUnit time_unit = TimeUnit::kSecond;  ///< kTimestamp
  uint8_t precision = 0;                   ///< kDecimal
  int8_t scale = 0;                        ///< kDecimal
  std::string timezone;                    ///< kTimestamp, optional
};

/// spec §8.1.
enum class ModelType : uint8_t {
  kConstant = 0,    ///< a single value, or runs when bit_width > 0
  kForBitpack = 1,  ///< frame of reference + unsigned offsets
  kLinear = 2,
  kPoly2 = 3,
  kPoly3 = 4,
  kDelta = 5,  ///< format 1.1: per-row deltas, frame of reference, per-tile seeds (spec §8.9)
  kRunsEf = 6,  ///< format 1.1: runs whose starts are Elias-Fano coded (spec §8.11)
  kPatchedFor = 7,  ///< format 1.1: frame of reference with exceptions (spec §8.12)
};
/// "CONSTANT", "FOR_BITPACK", "LINEAR", "POLY2", "POLY3", "DELTA", "RUNS_EF",
/// "PATCHED_FOR" or "UNKNOWN".
const char* ModelTypeName(ModelType model) noexcept;

/// spec §7.1, §9. kZstdFieldPlanes and kZstdFieldBytes (format 1.1, spec
/// §9.2, §9.3) apply to L3Integer payload segments only.
enum class Compression : uint8_t { kNone = 0, kZstd = 1, kZstdFieldPlanes = 2, kZstdFieldBytes = 3 };

/// Feature bits of the postscript (spec §4.4).
inline constexpr uint64_t kRequiredZstdSegments = 1ull << 0;
inline constexpr uint64_t kRequiredValidityBitmaps = 1ull << 1;
inline constexpr uint64_t kRequiredIbpFloat = 1ull << 2;
inline constexpr uint64_t kRequiredDeltaModel = 1ull << 3;  ///< format 1.1, spec §8.9
inline constexpr uint64_t kRequiredFieldPlanes = 1ull << 4;  ///< format 1.1, spec §9.2, §9.3
inline constexpr uint64_t kRequiredDictionary = 1ull << 5;   ///< format 1.1, spec §8.10
inline constexpr uint64_t kRequiredRunsEfModel = 1ull << 6;  ///< format 1.1, spec §8.11
inline constexpr uint64_t kRequiredPatchedForModel = 1ull << 7;  ///< format 1.1, spec §8.12
/// format 1.1, spec §8.12: a PATCHED_FOR partition's exception rows in the
/// Elias-Fano code (Rows_EF).
inline constexpr uint64_t kRequiredPatchedRowsEf = 1ull << 8;
/// format 1.1, spec §8.9: a DELTA partition of order K > 1 (sums of
/// second or third differences).
inline constexpr uint64_t kRequiredDeltaOrders = 1ull << 9;
inline constexpr uint64_t kOptionalPartitionBounds = 1ull << 0;
inline constexpr uint64_t kOptionalPgmIndex = 1ull << 1;
inline constexpr uint64_t kOptionalDistinctSketch = 1ull << 2;  ///< format 1.1, spec §7.6.1

// ---------------------------------------------------------------------------
// Writing

/// PGM learned indexes on sorted integer chunks (spec §11.3, format 1.1).
enum class PgmMode : uint8_t {
  kOff = 0,      ///< no index
  kSorted = 1,   ///< index every chunk whose values are non-decreasing
  kRequire = 2,  ///< index every chunk; kInvalidArgument if a column is not sorted
};
/// Largest epsilon and epsilon_recursive a PGM index may have (spec §11.3.4).
inline constexpr uint32_t kPgmMaxEpsilon = uint32_t{1} << 30;

struct ColumnSpec {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  LogicalType logical;
  /// Values per row (spec §11.2.1): float columns only, 1..2^24; a 2-D
  /// tensor [rows, R] is a column of row width R. Integer columns have 1.
  uint32_t row_width = 1;
};

/// How the writer encodes a float chunk (spec §11.2).
enum class FloatEncoding : uint8_t {
  kAuto = 0,         ///< the smaller of the two below, per chunk
  kIntegerForm = 1,  ///< L3Integer over order-preserving integers (§11.2.2)
  kIbp = 2,          ///< Invariant Bit Packing (§11.2.3): rows found in O(1)
};

/// The cost-optimal partitioner (spec §14). Defaults follow the L3 paper.
struct PartitionerOptions {
  uint32_t analysis_block_rows = 2048;    ///< block size of the delta-bits analysis
  uint32_t breakpoint_tau = 2;            ///< breakpoint where |delta bits| >= tau
  uint32_t initial_partition_rows = 256;  ///< rounded up to a multiple of 32
  uint32_t max_partition_rows = 8192;     ///< cap on merged partitions
  uint32_t max_merge_rounds = 16;         ///< odd-even merge rounds; 0 = no merging
  /// Merge a pair only if it saves at least this fraction of the pair's bytes.
  double min_merge_benefit = 0.0;
  /// Before merging, an initial partition is halved (at a multiple of 32
  /// rows) while both halves keep at least this many rows and cost less than
  /// the whole; 0 keeps the initial partitions as cut (the L3 paper's
  /// behaviour). Smaller partitions compress noisy curves better (cosmos:
  /// 1.99x -> 2.26x) but give the GPU decoder less work per partition
  /// (cosmos on an H100: 1465 -> 1152 GB/s; docs/results/gpu.md). Unset means
  /// the profile's choice: 0 for Profile::kHot, 64 for Profile::kArchive.
  std::optional<uint32_t> split_min_rows;
  /// LINEAR partitions with narrow least-squares residuals use the minimax
  /// (Chebyshev) line instead, so a quantised line costs 0 bits at any length.
  /// Slows encoding of near-linear data by up to 2x (linear, 10M rows: 0.75 s
  /// -> 1.57 s on 2 cores) and makes it far smaller (25x -> 808x); costs
  /// nothing measurable on other data, so it is on by default.
  bool minimax_lines = true;
  /// A polynomial model must be this much cheaper (as a fraction) than the best
  /// simpler model to be chosen; it decodes slightly slower.
  double poly_min_gain = 0.05;
  bool enable_rle = true;
  /// DELTA partitions (spec §8.9, format 1.1): deltas between consecutive
  /// rows, for sorted keys, ids and timestamps. Files that use them set
  /// DELTA_MODEL, which readers of format 1.0 reject.
  bool enable_delta = true;
  /// RUNS_EF partitions (spec §8.11, format 1.1): runs whose starts cost
  /// 2 + log2(rows per run) bits or fewer instead of bitlen(n_p - 1), for
  /// columns of short runs (repeated values, runs of dictionary codes). Files
  /// that use them set RUNS_EF_MODEL, which readers of format 1.0 reject.
  bool enable_runs_ef = true;
  /// A RUNS_EF partition must cost less than (1 - runs_ef_min_gain) times
  /// the best other model, and in the hot profile a chunk keeps its RUNS_EF
  /// partitions only where it is that much smaller than without them. GPUs
  /// decode very short runs more slowly than the fields of FOR (adult census
  /// Hours_per_week: one RUNS_EF partition in seven, 1500 runs in 2048 rows,
  /// saved 32 bytes and cost 85% -> 58% of the copy roofline), and a launch
  /// over a chunk with RUNS_EF partitions uses a kernel that carries its
  /// decoder, a little slower for the other models. Unset means the
  /// profile's choice: 1/32 for Profile::kHot, 0 (any saving) for
  /// Profile::kArchive.
  std::optional<double> runs_ef_min_gain;
  /// PATCHED_FOR partitions (spec §8.12, format 1.1): a frame of reference
  /// whose few outlying rows keep their high bits as exceptions, tried for
  /// every candidate where no line or polynomial won (adult census ages: 7
  /// bits a row become 6). Files that use it set PATCHED_FOR_MODEL, which
  /// readers of format 1.0 reject.
  bool enable_patched_for = true;
  /// In the hot profile a chunk keeps its PATCHED_FOR partitions only where
  /// it is this much (as a fraction) smaller than without them: the GPU
  /// decodes them with the kernel that carries DELTA's decoder and the
  /// exception patches, slower than FOR (Hours_per_week tiled to 100M
  /// values: 85% -> 66% of the copy roofline for 8% less). Unset means the
  /// profile's choice: 1/32 for Profile::kHot, 0 for Profile::kArchive.
  std::optional<double> patched_for_min_gain;
  /// DELTA and PATCHED_FOR exceptions may store their high parts as signed
  /// numbers (Signed_Highs, spec §8.9) where that is narrower: a delta that
  /// jumps far back (the node references of a new way) then costs its own
  /// bits instead of N - Bit_Width. Unset means the profile's choice: on
  /// for Profile::kHot (OpenStreetMap way refs 3.52x -> 4.83x), off for
  /// Profile::kArchive, where zstd matches the recurring high bits of
  /// unsigned high parts better than it packs the narrower signed ones.
  std::optional<bool> signed_exception_highs;
  /// PATCHED_FOR exception rows may be stored in the Elias-Fano code
  /// (Rows_EF, spec §8.12) where that is smaller than bitlen(n_p - 1) bits a
  /// row: about 2 + log2(rows per exception) bits. Partitions where most
  /// rows share a value then list the others cheaply (adult census
  /// Capital_Loss, 95% zeros: 19.3 -> about 13 bits an exception). Files
  /// that use it set PATCHED_ROWS_EF, which readers of format 1.0, and 1.1
  /// readers written before it, reject.
  bool patched_rows_ef = true;
  bool enable_linear = true;
  bool enable_poly2 = true;
  bool enable_poly3 = true;
};

enum class Profile : uint8_t {
  kHot = 0,      ///< segments stored uncompressed; GPUs decode the payload in place
  kArchive = 1,  ///< every segment also compressed with zstd (spec §9)
};

/// WriteOptions::distinct_sketch.
enum class DistinctSketchMode : uint8_t {
  kNever = 0,
  /// The chunks of columns of more than one chunk, where counts must be
  /// merged. A single-chunk column's distinct_count already counts it, and
  /// its sketch would cost a small file dearly (12 KiB beside a 2 KiB chunk).
  kMultiChunkColumns = 1,
  kAlways = 2,  ///< every integer chunk, for engines that merge across files
};

namespace internal {
class PartitionPlanner;
}  // namespace internal

struct WriteOptions {
  /// Rows per column chunk (the unit of streaming and of GPU residency).
  uint64_t chunk_rows = uint64_t{1} << 26;
  /// V of the SLAP layout (spec §8.5): a power of two in [1, 1024].
  uint32_t values_per_lane = 64;
  PartitionerOptions partitioner;
  Profile profile = Profile::kHot;
  int zstd_level = 19;               ///< kArchive only
  /// kArchive with format_minor >= 1: a payload segment may be stored as
  /// zstd over its field-plane form (spec §9.2) or its field-byte form
  /// (§9.3) where that is smaller, which sets FIELD_PLANES. Costs two trial
  /// zstd passes and one more full-level pass over each payload.
  bool archive_field_planes = true;
  /// kArchive: each chunk is also encoded with long partitions (initial
  /// partitions of at least 8192 rows, merged up to 65536, no splitting),
  /// which suit zstd and field planes better than the short partitions that
  /// minimise bit-packed size. The smaller encoding by trial zstd frames
  /// (level 6) is kept and only it is compressed at zstd_level. With
  /// archive_field_planes, a third encoding is tried: DELTA partitions of
  /// 2^22 rows without exceptions, stored as zstd over field bytes (spec
  /// §9.3), kept where its full-level frames are smaller (columns whose runs
  /// of deltas recur, such as the node references of ways).
  bool archive_large_partitions = true;
  /// format_minor >= 1 and PartitionerOptions::enable_delta: each chunk is
  /// also encoded as DELTA partitions of 4096 rows (or
  /// PartitionerOptions::max_partition_rows, if fewer) and order 2, and of
  /// order 3 (spec §8.9: sums of second or third differences), kept where it
  /// is smaller (kArchive: by trial frames), which sets DELTA_ORDERS.
  /// Smooth curves sampled finely (exponential or polynomial growth, noisy
  /// waves) have small second or third differences where a polynomial over
  /// the row index needs short partitions and four parameters each.
  bool delta_orders = true;
  /// Profile::kHot: an encoding with DELTA orders 2 and 3 is kept only where
  /// it is at least this fraction smaller than the chunk without them,
  /// because the GPU sums their tiles two or three times. In [0, 1).
  double delta_orders_min_saving = 1.0 / 32;
  /// format_minor >= 1: a chunk of few distinct values may be stored as a
  /// dictionary chunk (spec §8.10: the sorted distinct values, then one code
  /// per row, all coded by the partition models) where that is smaller, which
  /// sets DICTIONARY. Chunks with a PGM index never use a dictionary.
  bool dictionary = true;
  /// Hot profile: a dictionary chunk is kept only where it is at least this
  /// fraction smaller than the plain chunk, because the GPU then looks up
  /// every decoded value in the dictionary (a column that gains 0.1% would
  /// decode 30% slower). The archive profile keeps any saving. In [0, 1).
  double dictionary_min_saving = 1.0 / 32;
  /// Per-partition min and max (spec §7.5). Profile::kArchive leaves them
  /// out of a chunk of one partition (not a dictionary chunk) when
  /// write_statistics gives the chunk's min and max, which are the same two
  /// values; that saves about 90 bytes a chunk.
  bool write_partition_bounds = true;
  bool write_statistics = true;
  /// write_statistics with format_minor >= 1: which integer chunks carry a
  /// distinct-count sketch (spec §7.6.1; DistinctSketch, up to about 12 KiB
  /// for a chunk of many distinct values), with which engines merge distinct
  /// counts over chunks, columns and files without reading data.
  DistinctSketchMode distinct_sketch = DistinctSketchMode::kMultiChunkColumns;
  /// Worker threads for encoding; 0 = one per hardware thread. The bytes
  /// written never depend on this.
  int num_threads = 0;
  /// Where the partitions of integer chunks are planned: null, the default,
  /// on the CPU; l3::cuda::UseGpuPartitioner sets the CUDA backend's planner,
  /// which plans on a GPU with the same result (the file's bytes do not
  /// change), and leaves to the CPU what it cannot plan.
  std::shared_ptr<const internal::PartitionPlanner> partition_planner;
  /// Application key/value pairs stored in the footer.
  std::vector<std::pair<std::string, std::string>> metadata;
  /// The newest format minor version the file may need (spec §4.1): 0 writes
  /// files that every format 1.0 reader reads (no DELTA partitions); 1, the
  /// default, allows the 1.1 models. The file records this version.
  uint16_t format_minor = kFormatMinor;
  /// PGM indexes (spec §11.3): need format_minor >= 1. Epsilon bounds the
  /// leaf level's prediction error, epsilon_recursive the upper levels'.
  PgmMode pgm = PgmMode::kOff;
  uint32_t pgm_epsilon = 64;
  uint32_t pgm_epsilon_recursive = 4;
  /// Float columns (spec §11.2, format_minor >= 1). A float chunk holds at
  /// most chunk_rows rows and at most this many bytes of rows (always at
  /// least one row).
  uint64_t float_chunk_bytes = uint64_t{64} << 20;
  FloatEncoding float_encoding = FloatEncoding::kAuto;
  /// IBP masks per chunk (spec §11.2.3 "num_clusters", 1..256): above 1 the
  /// writer also tries this many masks found by a deterministic Hamming
  /// k-means over the rows, with a mask id per row, and keeps it where smaller.
  uint32_t ibp_masks = 1;
  /// When set, Close() reads this flag just before it renames the file into
  /// place; if it is nonzero, Close() removes the temporary file instead,
  /// leaves the target path untouched and returns kIoError. Lets a signal
  /// handler that sets the flag stop a Close() that is still encoding.
  const volatile std::sig_atomic_t* cancel = nullptr;
};

class Writer;
namespace detail {
PhysicalType WriterColumnType(const Writer& writer, int column, bool* ok);
}  // namespace detail

/// Writes an L3 file column chunk by column chunk.
///
/// Values are appended per column in row order; each column buffers at most
/// one chunk (WriteOptions::chunk_rows values), so a column larger than memory
/// can be written batch by batch. The file appears at its path only when
/// Close() succeeds: the writer works on a temporary file in the same
/// directory and renames it into place. A Writer destroyed or aborted before
/// Close() removes the temporary file and leaves the target path untouched.
///
/// The same sequence of calls with the same options always produces the same
/// bytes.
class Writer {
 public:
  /// Starts a file at `path`. Errors: kInvalidArgument (bad schema or options),
  /// kIoError (cannot create the temporary file).
  static Result<Writer> Create(const std::string& path, std::vector<ColumnSpec> columns,
                               const WriteOptions& options = {});
  /// Starts a file held in memory; fetch it with TakeBuffer() after Close().
  static Result<Writer> CreateInMemory(std::vector<ColumnSpec> columns,
                                       const WriteOptions& options = {});

  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  ~Writer();

  /// Appends `num_values` values to `column`. `values` points to values of the
  /// column's physical type in native byte order (the SDK assumes a
  /// little-endian host). For a tensor column (row_width R > 1) rows are R
  /// consecutive values; a row may be split across calls, but Close() needs
  /// whole rows. Errors: kInvalidArgument, kIoError.
  Status Append(int column, const void* values, uint64_t num_values);

  /// Typed convenience; kInvalidArgument if T does not match the column type.
  template <typename T>
  Status AppendTyped(int column, const T* values, uint64_t num_values);

  /// Announces that about `num_values` more values will be appended to
  /// `column` (a hint, replacing the last one). The writer then buffers each
  /// chunk of them in one allocation instead of growing its buffer step by
  /// step, which saves a copy of the values and much of the memory's first
  /// touch. Never changes the bytes written. Errors: kInvalidArgument (no
  /// such column, writer closed), kOutOfMemory (the writer stays usable).
  Status Reserve(int column, uint64_t num_values);

  /// Encodes buffered values, writes the footer and postscript, syncs and
  /// renames the file into place. All columns must have the same row count
  /// (kInvalidArgument otherwise). After a failure the target path is
  /// untouched and the writer is aborted.
  Status Close();

  /// Discards everything written so far. Never fails; idempotent.
  void Abort() noexcept;

  /// The finished file of a CreateInMemory() writer, after Close().
  std::vector<uint8_t> TakeBuffer();

  int num_columns() const;
  /// Whole rows appended to `column` so far.
  uint64_t rows_appended(int column) const;

  struct Impl;

 private:
  friend PhysicalType detail::WriterColumnType(const Writer& writer, int column, bool* ok);
  explicit Writer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Reading

struct ReadOptions {
  /// Verify every segment's CRC32C before its first use (spec §5). Postscript
  /// and footer checksums are always verified.
  bool verify_checksums = true;
  /// Map the file rather than reading it into memory (Open(path) only).
  bool use_mmap = true;
  /// Inspection mode (l3dump --allow-unknown): open files with unknown
  /// required features, encodings or types; such chunks cannot be decoded
  /// (kUnsupportedFeature) but their metadata can be listed.
  bool allow_unknown = false;
  /// Threads that decode one ReadRows call: the row range is cut at partition
  /// boundaries into up to this many slices decoded in parallel, straight into
  /// the caller's buffer; a chunk the call loads at a cut also rebuilds its
  /// field-plane payload (spec §9.2) on them, though its zstd frame is
  /// decompressed on one thread. Also the threads of one LowerBoundBatch call, each
  /// answering a slice of the keys in key order. 1 works on the calling
  /// thread; 0 = one per hardware thread. The values read and the rows found
  /// never depend on this.
  int num_threads = 1;
  /// Most bytes of decompressed segments (zstd chunks, spec §9) the Reader
  /// keeps between calls, least recently used chunk out first. Chunks stored
  /// without compression are read in place and cost nothing here. A chunk
  /// larger than this is kept alone while it is the most recently loaded one
  /// (so reading it in pieces decompresses it once); the cache then holds
  /// that one chunk. 0 keeps nothing: every call decompresses what it reads.
  uint64_t max_cached_bytes = uint64_t{256} << 20;
  // Resource limits (spec §13).
  uint64_t max_footer_bytes = uint64_t{64} << 20;
  uint64_t max_partitions_per_chunk = uint64_t{1} << 24;
  uint64_t max_segment_bytes = uint64_t{1} << 36;
  /// Largest allowed decoded_length / stored_length of a zstd segment.
  uint64_t max_zstd_expansion = uint64_t{1} << 20;
  /// Most rows Validate(kDeep) decodes in one call (spec §13): deep
  /// validation costs what the file claims, not what it stores, so a small
  /// file that claims billions of rows is refused (kResourceLimit) before any
  /// value is decoded. Raise it to deep-validate larger files.
  uint64_t max_validation_rows = uint64_t{1} << 30;
};

struct FileInfo {
  uint64_t file_bytes = 0;
  uint16_t format_major = 0;
  uint16_t format_minor = 0;
  uint64_t required_features = 0;
  uint64_t optional_features = 0;
  uint64_t footer_bytes = 0;
  uint64_t num_rows = 0;
  std::string writer_name;
  std::string writer_version;
  std::vector<std::pair<std::string, std::string>> metadata;
};

struct SegmentInfo {
  bool present = false;
  uint64_t offset = 0;
  uint64_t stored_bytes = 0;
  uint64_t decoded_bytes = 0;
  uint32_t checksum = 0;
  Compression compression = Compression::kNone;
};

/// Chunk statistics (spec §7.6). Values are 64-bit canonical extensions:
/// cast to int64_t for signed column types.
struct ChunkStatistics {
  bool present = false;
  bool has_min_max = false;
  uint64_t min_value = 0;
  uint64_t max_value = 0;
  uint64_t null_count = 0;
  uint64_t distinct_count = 0;
  bool distinct_count_exact = false;
  /// spec §7.6.1 (format 1.1): the bytes of the chunk's distinct-count
  /// sketch (DistinctSketch::FromBytes reads them); empty when absent.
  std::vector<uint8_t> distinct_sketch;
};

/// A chunk's PGM learned index (spec §11.3): the footer's PgmIndex table.
/// Keys are order-preserving 64-bit keys (§11.3.1); levels leaf first.
struct PgmIndexInfo {
  bool present = false;
  uint32_t epsilon = 0;
  uint32_t epsilon_recursive = 0;
  uint64_t num_keys = 0;
  std::vector<uint32_t> level_offsets;  ///< "level_offsets": num_levels + 1 entries
  std::vector<uint64_t> keys;           ///< "segment_keys"
  std::vector<float> slopes;            ///< "segment_slopes"
  std::vector<uint64_t> intercepts;     ///< "segment_intercepts"
  size_t num_levels() const { return level_offsets.empty() ? 0 : level_offsets.size() - 1; }
};

/// An IbpFloat chunk's `IbpMasks` table (spec §11.2.3).
struct IbpInfo {
  uint32_t word_bytes = 0;     ///< "element_bytes": 4 or 8
  uint32_t words_per_row = 0;  ///< "vector_length" M
  uint64_t num_rows = 0;       ///< "num_vectors"
  float threshold = 0;         ///< "threshold" (informative)
  uint32_t num_masks = 0;      ///< "num_clusters" K
  uint32_t offset_bits = 0;    ///< "offset_bits" b; 0 when every row is raw
  SegmentInfo masks, row_offsets, mask_ids;  ///< "masks", "row_offsets", "cluster_ids"
};

struct ChunkInfo {
  uint64_t first_row = 0;  ///< within the column
  uint64_t num_rows = 0;
  uint16_t encoding = 0;   ///< 1 = L3Integer, 2 = IbpFloat; others only with allow_unknown
  uint32_t values_per_lane = 0;
  uint32_t num_partitions = 0;
  SegmentInfo partition_table, parameters, payload, bounds, validity;
  ChunkStatistics statistics;
  bool has_ibp = false;
  IbpInfo ibp;  ///< encoding 2 (IbpFloat, spec §11.2.3)
  bool has_pgm = false;
  PgmIndexInfo pgm;  ///< format 1.1 index; present only when valid (§11.3.4)
  /// Some partition uses DELTA (spec §8.9). Known to the writer; a reader
  /// learns it from the partition table.
  bool uses_delta = false;
  /// Some partition uses RUNS_EF (spec §8.11), likewise.
  bool uses_runs_ef = false;
  /// Some partition uses PATCHED_FOR (spec §8.12), likewise.
  bool uses_patched_for = false;
  /// Some PATCHED_FOR partition has Rows_EF (spec §8.12), likewise.
  bool uses_patched_rows_ef = false;
  /// Some DELTA partition has order K > 1 (spec §8.9), likewise.
  bool uses_delta_orders = false;
  /// spec §8.10 (format 1.1): dictionary entries D; 0 = not a dictionary chunk.
  uint64_t dictionary_entries = 0;
  /// Sum of the stored bytes of all of this chunk's segments.
  uint64_t stored_bytes = 0;
};

struct ColumnInfo {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  uint32_t row_width = 1;  ///< values per row (spec §11.2.1)
  uint8_t raw_type = 0;  ///< the stored PhysicalType value (may be unknown with allow_unknown)
  LogicalType logical;
  bool nullable = false;
  uint64_t num_rows = 0;
  std::vector<ChunkInfo> chunks;
  uint64_t stored_bytes = 0;  ///< sum over chunks
};

/// One partition's record, decoded (spec §7.3, §8.1–§8.2).
struct PartitionInfo {
  uint64_t first_row = 0;  ///< within the chunk
  uint32_t num_rows = 0;
  ModelType model = ModelType::kConstant;
  uint8_t bit_width = 0;
  uint8_t num_params = 0;
  /// Raw parameter words (integer words in canonical extension, or binary64
  /// bit patterns for LINEAR/POLY2/POLY3; spec §8.2).
  std::array<uint64_t, 4> params{};
  uint64_t payload_offset_bytes = 0;  ///< within the decoded payload segment
  uint64_t payload_bytes = 0;
  uint64_t num_runs = 0;  ///< CONSTANT with bit_width > 0, and RUNS_EF
  bool has_bounds = false;
  uint64_t min_value = 0;  ///< canonical extension, when has_bounds
  uint64_t max_value = 0;

  /// Parameter `i` as binary64 (for LINEAR/POLY2/POLY3).
  double param_as_double(int i) const;
};

/// A chunk's decoded and validated segments (spec §7.3–§8.7), for backends
/// that decode elsewhere (the CUDA backend). The pointers stay valid while
/// the Reader and this view (or a copy of it) live, whatever the Reader's
/// cache evicts meanwhile. Every metadata-derived payload address is in
/// bounds.
/// An IbpFloat chunk's decoded segments (spec §11.2.3), all validated.
struct IbpChunkView {
  uint32_t word_bytes = 0;       ///< W / 8: 4 or 8
  uint32_t words_per_row = 0;    ///< M
  uint32_t num_masks = 0;        ///< K
  uint32_t offset_bits = 0;      ///< b; 0 when every row is raw
  const uint8_t* masks = nullptr;        ///< per mask: Mask[M] then Bitval[M]
  const uint8_t* row_offsets = nullptr;  ///< Block_Start[G + 1] then Row_Offset; null when all raw
  uint64_t row_offsets_bytes = 0;
  const uint8_t* mask_ids = nullptr;     ///< one byte per row when K > 1, else null
};

struct ChunkView {
  /// The type the integer decoder produces. For a float column's chunk in
  /// the integer form (spec §11.2.2) this is the unsigned type of the float's
  /// width; `column_type` is then the float type, and first_row and num_rows
  /// count values (rows * row_width), not rows.
  PhysicalType type = PhysicalType::kInt64;
  PhysicalType column_type = PhysicalType::kInt64;
  uint16_t encoding = 1;   ///< 1 = L3Integer, 2 = IbpFloat (then `ibp` and `payload` only)
  uint32_t row_width = 1;  ///< values per row of the column
  IbpChunkView ibp;
  uint64_t first_row = 0;  ///< within the column
  uint64_t num_rows = 0;
  uint32_t values_per_lane = 0;
  uint32_t num_partitions = 0;
  const uint8_t* partition_table = nullptr;  ///< (num_partitions + 1) * 16 bytes
  const uint8_t* parameters = nullptr;
  uint64_t parameters_bytes = 0;
  const uint8_t* payload = nullptr;  ///< includes the 32 bytes of padding
  uint64_t payload_bytes = 0;
  const uint8_t* bounds = nullptr;   ///< null when absent
  uint64_t bounds_bytes = 0;
  /// Dictionary chunks (spec §8.10, format 1.1): D = `dictionary_entries` > 0
  /// means the partition table covers D + num_rows elements, the D sorted
  /// dictionary entries and then one code per row. `dictionary` holds the D
  /// entries decoded (D * PhysicalTypeBytes(type) bytes, strictly increasing);
  /// when null, decoders decode them from the payload on each call.
  uint64_t dictionary_entries = 0;
  const uint8_t* dictionary = nullptr;
  /// The file's Required_Features (spec §4.4): a DELTA, RUNS_EF or
  /// PATCHED_FOR partition in a file without DELTA_MODEL, RUNS_EF_MODEL or
  /// PATCHED_FOR_MODEL, a PATCHED_FOR partition with Rows_EF without
  /// PATCHED_ROWS_EF, or a DELTA partition of order K > 1 without
  /// DELTA_ORDERS, is CORRUPT_METADATA.
  uint64_t required_features = kRequiredDeltaModel | kRequiredRunsEfModel |
                               kRequiredPatchedForModel | kRequiredPatchedRowsEf |
                               kRequiredDeltaOrders;
  /// Keeps decompressed segments alive; null when every pointer is into the
  /// file itself.
  std::shared_ptr<const void> owner;
};

/// What an IbpFloat chunk's rows look like (spec §11.2.3), from its row
/// index: how many rows are packed and how large rows are on average.
struct IbpRowStats {
  uint64_t num_rows = 0;
  uint64_t packed_rows = 0;     ///< rows stored packed (L_r < M); the others are raw
  uint64_t payload_words = 0;   ///< Payload_Words
  uint32_t word_bytes = 0;
  uint32_t words_per_row = 0;   ///< M
  /// Per mask: Mask then Bitval words (W / 8 bytes each, little-endian).
  std::vector<std::vector<uint64_t>> masks, bitvals;
  double mean_row_bytes() const {
    return num_rows == 0 ? 0.0 : static_cast<double>(payload_words) * word_bytes / num_rows;
  }
};

enum class ValidationLevel : uint8_t {
  kStructural = 0,  ///< spec §10.2 for every chunk: checksums and metadata
  kDeep = 1,        ///< spec §10.3: also decode everything and check padding, bounds, stats
};

/// Reads an L3 file.
class Reader {
 public:
  /// Opens and structurally validates a file (spec §10.2, on-open checks).
  /// Errors: kIoError, kNotL3, kTruncated, kChecksumMismatch,
  /// kUnsupportedVersion, kUnsupportedFeature, kCorruptFraming,
  /// kCorruptFooter, kCorruptMetadata, kResourceLimit.
  static Result<Reader> Open(const std::string& path, const ReadOptions& options = {});
  /// Opens a file held in memory. The bytes are borrowed and must outlive the
  /// Reader.
  static Result<Reader> OpenBuffer(const void* data, size_t size, const ReadOptions& options = {});

  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  const FileInfo& info() const;
  int num_columns() const;
  /// Precondition: 0 <= column < num_columns().
  const ColumnInfo& column(int column) const;
  /// kOutOfRange if no column has that name.
  Result<int> FindColumn(std::string_view name) const;

  /// The partition records of one chunk, with bounds when present.
  Result<std::vector<PartitionInfo>> Partitions(int column, int chunk) const;

  /// The distinct-count sketch (spec §7.6.1) of the values of `chunks` of
  /// `column` (every chunk when `chunks` is empty), merged from the footer's
  /// chunk statistics: no data is read. Merge sketches of several columns or
  /// files with DistinctSketch::Merge; Estimate() gives the count.
  /// kUnsupportedFeature if one of the chunks has no sketch (a float chunk,
  /// or a file written without statistics or by a format 1.0 writer);
  /// kOutOfRange for a bad column or chunk index.
  Result<DistinctSketch> MergedDistinctSketch(int column, const std::vector<int>& chunks = {}) const;

  /// Decodes rows [row_begin, row_end) of `column` into `out`, which must hold
  /// (row_end - row_begin) * row_width * PhysicalTypeBytes(type) bytes. Errors:
  /// kOutOfRange, kBufferTooSmall, kChecksumMismatch, kCorrupt*,
  /// kUnsupportedFeature.
  Status ReadRows(int column, uint64_t row_begin, uint64_t row_end, void* out,
                  size_t out_bytes) const;

  /// Point lookups: out[i] = value of row rows[i] (row_width values for a
  /// tensor column). Rows may repeat and come in any order.
  Status Take(int column, const uint64_t* rows, size_t num_rows, void* out,
              size_t out_bytes) const;

  /// The validated, decoded segments of a chunk (see ChunkView).
  Result<ChunkView> GetChunkView(int column, int chunk) const;

  /// Key lookups on a column whose chunks all carry a PGM index (spec
  /// §11.3). `key` is a 64-bit canonical value (cast from int64_t for signed
  /// types). LowerBound gives the first row whose value is >= key, or the row
  /// count; only the rows of the index's search window are decoded. Errors:
  /// kOutOfRange, kUnsupportedFeature (a chunk without an index), kCorrupt*.
  Result<uint64_t> LowerBound(int column, uint64_t key) const;
  /// The first row whose value equals `key`, or nullopt.
  Result<std::optional<uint64_t>> Find(int column, uint64_t key) const;
  /// rows[i] = LowerBound(column, keys[i]).
  Status LowerBoundBatch(int column, const uint64_t* keys, size_t num_keys,
                         uint64_t* rows) const;

  /// An IbpFloat chunk's row statistics and masks (kInvalidArgument for a
  /// chunk of another encoding). Reads the masks and the row index only.
  Result<IbpRowStats> IbpStats(int column, int chunk) const;

  /// Validates every chunk at the given level; returns the first failure.
  Status Validate(ValidationLevel level) const;

  /// Bytes of decompressed segments the Reader holds in its cache now (at
  /// most ReadOptions::max_cached_bytes, or one larger chunk).
  uint64_t cached_bytes() const;

  struct Impl;

 private:
  explicit Reader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Template definitions

namespace detail {
template <typename T>
constexpr bool kMatches(PhysicalType t) {
  switch (t) {
    case PhysicalType::kInt8: return std::is_same<T, int8_t>::value;
    case PhysicalType::kInt16: return std::is_same<T, int16_t>::value;
    case PhysicalType::kInt32: return std::is_same<T, int32_t>::value;
    case PhysicalType::kInt64: return std::is_same<T, int64_t>::value;
    case PhysicalType::kUInt8: return std::is_same<T, uint8_t>::value;
    case PhysicalType::kUInt16: return std::is_same<T, uint16_t>::value;
    case PhysicalType::kUInt32: return std::is_same<T, uint32_t>::value;
    case PhysicalType::kUInt64: return std::is_same<T, uint64_t>::value;
    case PhysicalType::kFloat32: return std::is_same<T, float>::value;
    case PhysicalType::kFloat64: return std::is_same<T, double>::value;
    // Half-precision values travel as their 16-bit patterns.
    case PhysicalType::kFloat16:
    case PhysicalType::kBFloat16: return std::is_same<T, uint16_t>::value;
    default: return false;
  }
}
Status TypeMismatch(const char* what);
PhysicalType WriterColumnType(const Writer& writer, int column, bool* ok);
}  // namespace detail

template <typename T>
Status Writer::AppendTyped(int column, const T* values, uint64_t num_values) {
  bool ok = false;
  PhysicalType t = detail::WriterColumnType(*this, column, &ok);
  if (!ok) return Status(StatusCode::kInvalidArgument, "column index out of range");
  if (!detail::kMatches<T>(t)) return detail::TypeMismatch("AppendTyped");
  return Append(column, values, num_values);
}

}  // namespace l3
