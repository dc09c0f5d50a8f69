// l3/cuda.hpp: the optional CUDA backend of the L3 SDK (link l3::cuda).
//
// CPU users never include this header; l3/l3.hpp does not include it and
// libl3 does not need CUDA at run time.
//
// Two layers:
//
// 1. The device layer decodes compressed data that is already in device
//    memory. The caller owns every buffer and stream. Nothing in this layer
//    allocates memory or synchronizes the device: each call validates its
//    arguments on the host, enqueues kernels on the caller's stream and
//    returns. Like CUB, each operation first reports how many bytes of
//    temporary device storage it needs (its *TempBytes function); 0 is a
//    valid answer, in which case `d_temp` may be null.
//
// 2. The host convenience layer (UploadColumn, Loader) moves a column from a
//    Reader to the device through pinned memory and streams. It allocates.
//
// Safety (spec §10.2): a DeviceChunk can only be made from chunk metadata
// validated on the host (MakeDeviceChunk). Kernels additionally bound every
// address they compute by the segment sizes recorded in the DeviceChunk, so
// a corrupt payload, or device metadata that differs from what the host
// validated, yields wrong values but never an access outside the buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "l3/l3.hpp"

namespace l3::cuda {

/// True when at least one CUDA device can be used.
bool DeviceAvailable() noexcept;

/// The GPU writer: sets options->partition_planner so that a Writer encodes
/// its integer chunks on CUDA device `device` (EncodeChunk below: the
/// partitioner, every model fit, the packing of the segments and the
/// statistics; and the dictionary candidate), with the CPU writer's bytes
/// (spec §14.1). Each chunk's values are copied to the device and its
/// segments back; the host still places them, compresses them in the
/// archive profile, computes the distinct sketch and writes the footer.
/// What the device does not do is done on the CPU, with the same bytes: the
/// archive profile's halving of partitions (planned and packed on the CPU),
/// float columns, and any chunk the device fails to encode (out of memory,
/// say). kDeviceError without a CUDA device.
Status UseGpuWriter(WriteOptions* options, int device = 0);

/// As UseGpuWriter, but only the partitions are planned on the device; the
/// segments are packed on the CPU (for comparisons).
Status UseGpuPartitioner(WriteOptions* options, int device = 0);

/// One column chunk whose decoded segments lie in device memory.
///
/// Obtain it from MakeDeviceChunk or UploadColumn; the fields are public so
/// that the descriptor can be copied and stored, not to be filled by hand.
struct DeviceChunk {
  PhysicalType type = PhysicalType::kInt64;
  /// The column's type. For a float column's chunk in the integer form
  /// (spec §11.2.2) it is the float type, `type` is the unsigned type of its
  /// width, first_row and num_rows count values (rows * row_width, as
  /// ChunkView does), and DecodeRows and Take return float bit patterns
  /// (the order map undone). Otherwise equal to `type`.
  PhysicalType column_type = PhysicalType::kInt64;
  uint64_t first_row = 0;  ///< within the column
  uint64_t num_rows = 0;
  uint32_t values_per_lane = 0;
  uint32_t num_partitions = 0;
  const void* partition_table = nullptr;  ///< device; (num_partitions + 1) * 16 bytes
  const void* parameters = nullptr;       ///< device; parameters_bytes
  uint64_t parameters_bytes = 0;
  const void* payload = nullptr;  ///< device; payload_bytes, incl. the 32 bytes of padding
  uint64_t payload_bytes = 0;
  /// Launch hints from the host's pass over the partition table; decoded
  /// values never depend on them (a wrong hint only costs speed).
  /// Rows in full tiles of FOR/LINEAR/POLY2/POLY3 partitions whose Bit_Width
  /// is above 32, and the largest such Bit_Width (0 when none).
  uint64_t wide_full_tile_rows = 0;
  uint32_t max_wide_bit_width = 0;
  /// Rows in DELTA partitions (spec §8.9, format 1.1). Unlike the hints
  /// above this one is a contract: a launch whose chunks all report 0 uses a
  /// leaner kernel without the DELTA decoder, which leaves the rows of any
  /// DELTA partition unwritten (it never reads or writes outside its
  /// buffers). MakeDeviceChunk and the Loader set it from the partition table.
  uint64_t delta_rows = 0;
  /// Rows in RUNS_EF partitions (spec §8.11, format 1.1). A contract like
  /// delta_rows: a launch whose chunks all report 0 uses kernels without the
  /// RUNS_EF decoder, which leave the rows of any RUNS_EF partition
  /// unwritten (never reading or writing outside their buffers).
  /// MakeDeviceChunk and the Loader set it from the partition table.
  uint64_t runs_ef_rows = 0;
  /// Rows in PATCHED_FOR partitions (spec §8.12, format 1.1). A contract
  /// like delta_rows: a launch whose chunks all report 0 (and no DELTA rows
  /// or dictionary) uses kernels without the exception decoders, which leave
  /// the rows of any PATCHED_FOR partition unwritten (never reading or
  /// writing outside their buffers). MakeDeviceChunk and the Loader set it
  /// from the partition table.
  uint64_t patched_for_rows = 0;
  /// Dictionary chunks (spec §8.10, format 1.1): D > 0 means the partitions
  /// cover D + num_rows elements, and `dictionary` holds the D decoded entries
  /// (ChunkView::dictionary, D * PhysicalTypeBytes(type) bytes, aligned to the
  /// value size) in device memory. Kernels look every code up in it and
  /// never read past entry D - 1 (a code >= D decodes to 0 on the device; the
  /// CPU reports it as kCorruptPayload).
  uint64_t dictionary_entries = 0;
  const void* dictionary = nullptr;
};

/// Validates `view` on the host (spec §7.3, §8.2) and describes its device
/// copy. The caller has copied (or will copy, before the first decode on the
/// device) view.partition_table, view.parameters and view.payload byte for
/// byte to the three device pointers. `d_partition_table` must be 16-byte
/// aligned, the other two 8-byte aligned. Errors: kCorruptMetadata (and the
/// other codes of the metadata checks), kUnsupportedFeature (a type the
/// backend does not decode), kInvalidArgument (null or misaligned pointers).
Result<DeviceChunk> MakeDeviceChunk(const ChunkView& view, const void* d_partition_table,
                                    const void* d_parameters, const void* d_payload);

/// The same for any chunk, dictionary chunks included (spec §8.10): the
/// caller has also copied view.dictionary (view.dictionary_entries values of
/// view.type, decoded and checked by the Reader) to `d_dictionary`, aligned
/// to the value size; null when view.dictionary_entries is 0. The four-pointer
/// form returns kInvalidArgument for a dictionary chunk.
Result<DeviceChunk> MakeDeviceChunk(const ChunkView& view, const void* d_partition_table,
                                    const void* d_parameters, const void* d_payload,
                                    const void* d_dictionary);

/// Optional launch tuning. The defaults are what the benchmark found best on
/// an H100; results never depend on these values.
struct LaunchConfig {
  /// Rows of output per unit of warp work (rounded up to a multiple of the
  /// tile size 32 * V). 0 = default.
  uint32_t span_rows = 0;
  /// Upper bound on thread blocks per launch; 0 = one warp per span (the
  /// hardware scheduler balances), otherwise warps loop over spans
  /// (persistent warps).
  uint32_t max_blocks = 0;
  /// Threads per block, a multiple of 32 in [32, 256]; 0 = default.
  uint32_t block_threads = 0;
  /// While a block stages its partitions' metadata, it can prefetch into L1
  /// the payload of the partitions smaller than a tile, so that the warps'
  /// first loads hit. That pays while the bytes prefetched by an SM's
  /// resident blocks fit in L1 and thrashes it otherwise: kAuto prefetches
  /// when a launch's payload is at most 16 bits per row.
  enum class PayloadPrefetch : uint8_t { kAuto = 0, kOff = 1, kOn = 2 };
  PayloadPrefetch payload_prefetch = PayloadPrefetch::kAuto;
  /// Full tiles of fields wider than 32 bits (V = 64 only) can be copied to
  /// shared memory with coalesced loads before the lanes read them, instead
  /// of each warp load touching 32 cache lines. kAuto does so when at least
  /// half of a launch's rows lie in such tiles (DeviceChunk hints).
  enum class WideTileStaging : uint8_t { kAuto = 0, kOff = 1, kOn = 2 };
  WideTileStaging wide_tile_staging = WideTileStaging::kAuto;
  /// Dictionary chunks (spec §8.10) look every code up in their entries.
  /// Each block can copy a chunk's entries to shared memory once and look
  /// codes up there, instead of gathering them from L2; larger copies leave
  /// fewer blocks resident. kAuto copies entries of up to
  /// kAutoDictionaryStageBytes, of chunks whose codes are not mostly in
  /// RUNS_EF partitions (which look a code up once per run); kOn copies any
  /// that fit in a block's shared memory. Chunks whose entries are not
  /// copied are looked up in device memory.
  enum class DictionaryStaging : uint8_t { kAuto = 0, kOff = 1, kOn = 2 };
  DictionaryStaging dictionary_staging = DictionaryStaging::kAuto;
  static constexpr uint32_t kAutoDictionaryStageBytes = 96 * 1024;
};

// ---------------------------------------------------------------------------
// Device layer. `chunks` is a host array of consecutive chunks of one column
// (chunks[i + 1].first_row == chunks[i].first_row + chunks[i].num_rows), all
// of one physical type. Rows are column rows, within the covered range.

/// Temporary device bytes DecodeRows needs (currently always 0).
Result<size_t> DecodeRowsTempBytes(const DeviceChunk* chunks, size_t num_chunks,
                                   uint64_t row_begin, uint64_t row_end);

/// Decodes rows [row_begin, row_end) into `d_out` (device memory of at least
/// (row_end - row_begin) * PhysicalTypeBytes(type) bytes, aligned to the
/// value size) on `stream`. Errors (host-side checks only): kInvalidArgument,
/// kOutOfRange, kBufferTooSmall, kDeviceError (a launch failed).
Status DecodeRows(const DeviceChunk* chunks, size_t num_chunks, uint64_t row_begin,
                  uint64_t row_end, void* d_out, size_t out_bytes, void* d_temp,
                  size_t temp_bytes, cudaStream_t stream, const LaunchConfig& config = {});

/// Temporary device bytes Take needs (currently always 0).
Result<size_t> TakeTempBytes(const DeviceChunk* chunks, size_t num_chunks, size_t num_rows);

/// Batched random access: d_out[i] = value of column row d_rows[i], for
/// i < num_rows. d_rows and d_out are device arrays; row ids may repeat and
/// come in any order. A row id outside the chunks' range (which the host
/// cannot see) yields the value 0 and touches no memory outside the buffers.
Status Take(const DeviceChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
            size_t num_rows, void* d_out, size_t out_bytes, void* d_temp, size_t temp_bytes,
            cudaStream_t stream);

// ---------------------------------------------------------------------------
// The GPU writer's device layer: one integer column chunk from values in
// device memory to its segments in device memory (spec §7.3-§7.6, §8),
// byte for byte the CPU writer's chunk for the same options (spec §14.1).
// Unlike the decoders these calls synchronise `stream`: the merge rounds of
// the partitioner read the partition count back to the host, and the
// segment sizes are only known once the partitions are.

/// The chunk encoder's options (WriteOptions' values_per_lane, partitioner,
/// write_partition_bounds and write_statistics; resolve the profile defaults
/// first, as the Writer does).
struct ChunkEncodeOptions {
  PhysicalType type = PhysicalType::kInt64;  ///< an integer type
  uint32_t values_per_lane = 64;             ///< V, spec §8.5
  /// split_min_rows must be unset or 0: the archive profile's halving runs on
  /// the CPU only (kUnsupportedFeature).
  PartitionerOptions partitioner;
  bool partition_bounds = true;  ///< write the bounds segment (spec §7.5)
  bool statistics = true;        ///< compute the chunk statistics (spec §7.6)
};

/// Bytes of a chunk's four segments: Partition_Table, Parameters, Payload
/// (with its 32 bytes of padding) and Bounds.
struct ChunkSegmentSizes {
  uint64_t partition_table = 0;
  uint64_t parameters = 0;
  uint64_t payload = 0;
  uint64_t bounds = 0;
};

/// Caller-owned device buffers for the segments (8-byte aligned), and their
/// capacities in bytes. `bounds` may be null without partition_bounds.
struct ChunkSegmentBuffers {
  void* partition_table = nullptr;
  void* parameters = nullptr;
  void* payload = nullptr;
  void* bounds = nullptr;
  ChunkSegmentSizes capacity;
};

/// What EncodeChunk wrote.
struct EncodedChunkInfo {
  uint64_t num_rows = 0;
  uint32_t num_partitions = 0;
  uint32_t values_per_lane = 0;
  ChunkSegmentSizes sizes;  ///< bytes written to each buffer
  /// Format 1.1 features the chunk needs (spec §8.9, §8.11): the footer's
  /// required feature bits DELTA_MODEL and RUNS_EF_MODEL.
  bool uses_delta = false;
  bool uses_runs_ef = false;
  bool uses_patched_for = false;  ///< PATCHED_FOR_MODEL (spec §8.12)
  bool uses_patched_rows_ef = false;  ///< PATCHED_ROWS_EF (spec §8.12)
  /// spec §7.6 (present with ChunkEncodeOptions::statistics; null_count 0;
  /// no distinct sketch).
  ChunkStatistics statistics;
  /// CRC32C of each segment's bytes (the SegmentRef checksum of a segment
  /// stored uncompressed): table, parameters, payload, bounds (0 when absent).
  uint32_t crc32c[4] = {0, 0, 0, 0};
};

/// Temporary device bytes EncodeChunk needs for num_rows values: the
/// partitioner's lists for the most partitions num_rows rows can have, the
/// minimax line's hulls (8 bytes per row when partitioner.minimax_lines),
/// the packer's offsets, statistics and checksums.
Result<size_t> EncodeChunkTempBytes(uint64_t num_rows, const ChunkEncodeOptions& options);

/// Upper bounds on the segment sizes EncodeChunk can write for num_rows
/// values: buffers of these capacities never see kBufferTooSmall.
Result<ChunkSegmentSizes> EncodeChunkMaxBytes(uint64_t num_rows,
                                              const ChunkEncodeOptions& options);

/// Encodes `num_rows` values (1..2^32 - 1) of options.type at `d_values`
/// (device memory, aligned to the value size) into `out` on `stream`, and
/// reports the result in *info (host memory). Returns after synchronising
/// `stream`. The bytes equal the CPU writer's EncodeChunk with the same
/// options. Errors: kInvalidArgument, kUnsupportedFeature (halving, a
/// non-integer type), kBufferTooSmall (temporary storage, or a segment
/// larger than its capacity: info->sizes then says how large),
/// kDeviceError.
Status EncodeChunk(const void* d_values, uint64_t num_rows, const ChunkEncodeOptions& options,
                   void* d_temp, size_t temp_bytes, const ChunkSegmentBuffers& out,
                   EncodedChunkInfo* info, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Key lookups with the PGM learned index (spec §11.3, format 1.1)

/// Levels of an index that lookups descend (spec §11.3.3 lets a reader
/// descend the upper levels or bisect the leaf); an index with more levels is
/// used through its leaf level only.
inline constexpr uint32_t kMaxDevicePgmLevels = 16;

/// One chunk's PGM index in device memory: "segment_keys", "segment_slopes"
/// and "segment_intercepts" of every level, leaf first, as in the footer.
/// Obtain it from MakeDevicePgmChunk or UploadPgmIndex.
struct DevicePgmChunk {
  const uint64_t* segment_keys = nullptr;        ///< device; level_offsets[num_levels] ordered keys
  const float* segment_slopes = nullptr;         ///< device; as many
  const uint64_t* segment_intercepts = nullptr;  ///< device; as many
  uint32_t num_segments = 0;                     ///< of the leaf level
  uint32_t epsilon = 0;                          ///< "epsilon"
  uint32_t epsilon_recursive = 0;                ///< "epsilon_recursive"
  /// Levels the lookups use: the index's levels when at most
  /// kMaxDevicePgmLevels, otherwise 1 (the leaf).
  uint32_t num_levels = 0;
  uint32_t level_offsets[kMaxDevicePgmLevels + 1] = {};  ///< "level_offsets", num_levels + 1 used
  uint64_t num_keys = 0;                         ///< "num_keys": the chunk's num_rows
  /// The ordered keys (spec §11.3.1) of the chunk's minimum and maximum, from
  /// its statistics: lookups skip a chunk whose maximum is below the key once
  /// the chunk's last row confirms it, as Reader::LowerBound does (wrong
  /// statistics never give a wrong row), and group keys by value range.
  bool has_min_max = false;
  uint64_t min_key = 0;
  uint64_t max_key = 0;
};

/// Checks `chunk.pgm` (spec §11.3.4) on the host and describes its device
/// copy: the caller has copied (or will copy, before the first lookup)
/// chunk.pgm.keys, .slopes and .intercepts, every level, to the three device
/// arrays (8-, 4- and 8-byte aligned).
/// Errors: kUnsupportedFeature (the chunk has no index, or is not an integer
/// chunk), kCorruptMetadata, kInvalidArgument (null or misaligned pointers).
Result<DevicePgmChunk> MakeDevicePgmChunk(const ChunkInfo& chunk, PhysicalType type,
                                          const uint64_t* d_segment_keys,
                                          const float* d_segment_slopes,
                                          const uint64_t* d_segment_intercepts);

/// Temporary device bytes LowerBound needs: with at least
/// kLowerBoundSortMinKeys keys, room to group the keys by value (a radix
/// sort of 20-bit buckets), so that neighbouring threads search neighbouring
/// rows; 0 otherwise. A smaller `temp_bytes` makes LowerBound search the keys
/// in their given order, with the same results.
inline constexpr size_t kLowerBoundSortMinKeys = size_t{1} << 16;
Result<size_t> LowerBoundTempBytes(const DeviceChunk* chunks, const DevicePgmChunk* pgms,
                                   size_t num_chunks, size_t num_keys);

/// LowerBound copies the segments of every level of the chunks it searches
/// into each block's shared memory when there are at most this many (with up
/// to 32 chunks a launch); larger indexes are read through the read-only
/// cache. Either way the rows are the same.
inline constexpr uint32_t kPgmSharedSegments = 512;

/// Batched lookups: d_rows[i] = the first row of the chunks whose value is
/// >= d_keys[i], or the row after the last chunk when there is none; the
/// answer Reader::LowerBound gives. Keys are 64-bit canonical values (cast
/// from int64_t for signed types), in any order; d_keys and d_rows are device
/// arrays of num_keys entries. `pgms[i]` is the index of `chunks[i]`. Only the
/// rows of each key's search window are decoded, by random access into the
/// compressed partitions; a window that does not hold the answer (a corrupt
/// index) costs a bisection of the chunk, never a wrong row. With the
/// temporary storage of LowerBoundTempBytes and chunk statistics, the keys
/// are first grouped by value range on the device and each warp decodes the
/// rows its keys' windows share once (the results do not change; on DELTA
/// partitions this is 10-50x faster for random keys). Errors (host-side
/// checks only): kInvalidArgument, kDeviceError.
Status LowerBound(const DeviceChunk* chunks, const DevicePgmChunk* pgms, size_t num_chunks,
                  const uint64_t* d_keys, size_t num_keys, uint64_t* d_rows, void* d_temp,
                  size_t temp_bytes, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Float columns with Invariant Bit Packing (spec §11.2.3, format 1.1)

/// One IbpFloat chunk whose segments lie in memory the device can read:
/// device memory, or pinned host memory (cudaHostAlloc / cudaHostRegister),
/// which kernels then read across PCIe without a copy ("zero-copy": only the
/// bytes of the rows decoded travel). Obtain it from MakeDeviceIbpChunk or
/// UploadIbpColumn.
struct DeviceIbpChunk {
  PhysicalType type = PhysicalType::kFloat32;
  uint32_t row_width = 1;       ///< values per row
  uint64_t first_row = 0;       ///< within the column
  uint64_t num_rows = 0;
  uint32_t word_bytes = 0;      ///< "element_bytes": 4 or 8
  uint32_t words_per_row = 0;   ///< "vector_length" M
  uint32_t num_masks = 0;       ///< "num_clusters" K
  uint32_t offset_bits = 0;     ///< "offset_bits" b
  const void* masks = nullptr;        ///< 2 * K * M words; word-aligned
  const void* row_offsets = nullptr;  ///< the row index; 8-aligned; null when every row is raw
  const void* mask_ids = nullptr;     ///< num_rows bytes; null when K = 1
  const void* payload = nullptr;      ///< payload_words words + 32 bytes; 8-aligned
  uint64_t payload_words = 0;
};

/// Checks `view` (an IbpFloat chunk from Reader::GetChunkView) on the host
/// (spec §11.2.4) and describes its copy: the caller has copied (or will
/// copy, before the first decode) view.ibp.masks, view.ibp.row_offsets (when
/// not null), view.ibp.mask_ids (when not null) and view.payload byte for
/// byte to the four pointers, which may be device or pinned host memory.
/// Errors: kUnsupportedFeature (not an IbpFloat chunk), kCorruptMetadata,
/// kInvalidArgument (null or misaligned pointers).
Result<DeviceIbpChunk> MakeDeviceIbpChunk(const ChunkView& view, const void* masks,
                                          const void* row_offsets, const void* mask_ids,
                                          const void* payload);

/// Decodes rows [row_begin, row_end) of consecutive IBP chunks of one column
/// into `d_out`: (row_end - row_begin) rows of row_width values, dense, on
/// `stream`. `d_out` is device memory aligned to the value size. Needs no
/// temporary storage. A packed row whose length disagrees with its bitmap
/// (which the CPU reader reports as kCorruptPayload) decodes to zeros.
/// Errors (host-side checks only): kInvalidArgument, kOutOfRange,
/// kBufferTooSmall, kDeviceError.
Status DecodeIbpRows(const DeviceIbpChunk* chunks, size_t num_chunks, uint64_t row_begin,
                     uint64_t row_end, void* d_out, size_t out_bytes, cudaStream_t stream);

/// Gather: row i of `d_out` = column row d_rows[i], for i < num_rows (a dense
/// [num_rows, row_width] tensor). d_rows is a device array; ids may repeat and
/// come in any order; an id outside the chunks gives a row of zeros. Each row
/// is found in O(1) through the row index and only its words are read, so
/// with payloads in pinned host memory only the compressed bytes of the rows
/// asked for cross PCIe.
Status GatherIbpRows(const DeviceIbpChunk* chunks, size_t num_chunks, const uint64_t* d_rows,
                     size_t num_rows, void* d_out, size_t out_bytes, cudaStream_t stream);

/// Where UploadIbpColumn puts the payloads (the rows); masks, row indexes and
/// mask ids always go to device memory.
enum class IbpResidency : uint8_t {
  kDevice = 0,      ///< device memory
  kPinnedHost = 1,  ///< pinned host memory, read by the kernels across PCIe
};

/// A whole IbpFloat column in device (and pinned host) memory, owned here.
class DeviceIbpColumn {
 public:
  DeviceIbpColumn();
  DeviceIbpColumn(DeviceIbpColumn&&) noexcept;
  DeviceIbpColumn& operator=(DeviceIbpColumn&&) noexcept;
  ~DeviceIbpColumn();
  const std::vector<DeviceIbpChunk>& chunks() const;
  uint64_t num_rows() const;
  uint64_t row_bytes() const;          ///< row_width * value bytes
  uint64_t compressed_bytes() const;   ///< payload, masks, index and ids as stored
  uint64_t payload_bytes() const;      ///< the payloads alone (what zero-copy reads from)
  struct Impl;

 private:
  friend Result<DeviceIbpColumn> UploadIbpColumn(const Reader&, int, IbpResidency, cudaStream_t);
  std::unique_ptr<Impl> impl_;
};

/// Copies every chunk of a float column whose chunks are all IbpFloat
/// (WriteOptions::float_encoding = kIbp) to the device, payloads where
/// `residency` says. Returns after the copies completed. Errors: the
/// reader's, kUnsupportedFeature (a chunk in the integer form: UploadColumn
/// decodes columns whose chunks are all in that form; or not a float
/// column), kOutOfMemory, kDeviceError.
Result<DeviceIbpColumn> UploadIbpColumn(const Reader& reader, int column, IbpResidency residency,
                                        cudaStream_t stream);

// ---------------------------------------------------------------------------
// Host convenience layer

/// A whole column resident in device memory, owned by this object.
class DeviceColumnBuffer {
 public:
  DeviceColumnBuffer();
  DeviceColumnBuffer(DeviceColumnBuffer&&) noexcept;
  DeviceColumnBuffer& operator=(DeviceColumnBuffer&&) noexcept;
  ~DeviceColumnBuffer();

  PhysicalType type() const;
  /// Rows; for a float column, values (rows * row_width), as its chunks
  /// count them.
  uint64_t num_rows() const;
  /// Descriptors of every chunk, in row order (pass to DecodeRows / Take).
  const std::vector<DeviceChunk>& chunks() const;
  /// Bytes of the three segments of every chunk as stored (without alignment
  /// padding): the compressed size of the column.
  uint64_t compressed_bytes() const;

  struct Impl;

 private:
  friend Result<DeviceColumnBuffer> UploadColumn(const Reader&, int, cudaStream_t);
  std::unique_ptr<Impl> impl_;
};

/// Copies every chunk of `column` (validated by the reader) into one device
/// allocation, staging through pinned memory on `stream`. Returns after the
/// copies completed. An integer column, or a float column whose chunks are
/// all in the integer form (spec §11.2.2; DecodeRows and Take then return
/// its float bit patterns, value by value in row-major order). Errors: the
/// reader's, kUnsupportedFeature (IbpFloat chunks: UploadIbpColumn),
/// kOutOfMemory, kDeviceError.
Result<DeviceColumnBuffer> UploadColumn(const Reader& reader, int column, cudaStream_t stream);

/// The PGM indexes of a column's chunks in device memory, owned by this
/// object.
class DevicePgmBuffer {
 public:
  DevicePgmBuffer();
  DevicePgmBuffer(DevicePgmBuffer&&) noexcept;
  DevicePgmBuffer& operator=(DevicePgmBuffer&&) noexcept;
  ~DevicePgmBuffer();

  /// One descriptor per chunk, in row order (pass to LowerBound).
  const std::vector<DevicePgmChunk>& chunks() const;
  /// Device bytes of the indexes (segments of every level).
  uint64_t index_bytes() const;

  struct Impl;

 private:
  friend Result<DevicePgmBuffer> UploadPgmIndex(const Reader&, int, cudaStream_t);
  std::unique_ptr<Impl> impl_;
};

/// Copies every chunk's PGM index of `column` (all levels) to the device
/// on `stream`; returns after the copies completed. Errors:
/// kUnsupportedFeature (a chunk without an index), kCorruptMetadata,
/// kOutOfMemory, kDeviceError.
Result<DevicePgmBuffer> UploadPgmIndex(const Reader& reader, int column, cudaStream_t stream);

/// File -> pinned memory -> device -> decode, overlapping the host-side read
/// of one chunk with the copy and decode of the previous one (two internal
/// streams, double-buffered staging). Owns its staging buffers, which grow to
/// the largest chunk read; reuse one Loader for many reads.
class Loader {
 public:
  static Result<Loader> Create();
  Loader(Loader&&) noexcept;
  Loader& operator=(Loader&&) noexcept;
  ~Loader();

  /// Decodes rows [row_begin, row_end) of `column` into `d_out` (device
  /// memory of (row_end - row_begin) * value size bytes). The result is ready
  /// when `stream` reaches the point of this call; the call itself returns
  /// once all work is enqueued. Integer columns only (float columns:
  /// UploadColumn or UploadIbpColumn). Errors: the reader's, kOutOfRange,
  /// kBufferTooSmall, kUnsupportedFeature, kOutOfMemory, kDeviceError.
  Status ReadRows(const Reader& reader, int column, uint64_t row_begin, uint64_t row_end,
                  void* d_out, size_t out_bytes, cudaStream_t stream);

  struct Impl;

 private:
  explicit Loader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace l3::cuda
