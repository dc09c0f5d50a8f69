// l3/cuda_scan.hpp: table scans on the GPU (link l3::cuda): predicates on
// compressed integer columns fused with their decode, late materialization
// and aggregates, the device half of l3/scan.hpp's ScanTable.
//
// A scan runs the plan ScanTable builds on the CPU (the same filters, pruning
// verdicts from chunk statistics, partition bounds and model ranges, and the
// same evaluation order) over columns already in device memory. One kernel
// does the whole scan: each thread block owns a run of rows, drops the rows of
// partitions that cannot match without decoding them, decodes into shared
// memory only the tiles of the other partitions that still hold a selected row
// (a later column is read only where the earlier ones selected rows), tests
// the predicates there, and adds up the count and the sum (or the sum of
// products) of its selected rows. The decoded columns are never written to
// device memory; the optional selection bitmap is the only per-row output.
//
// Like the device layer of l3/cuda.hpp, DeviceTableScan never allocates or
// synchronizes: the caller owns the temporary storage and the stream.
// ScanTable below is the host convenience that does both.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "l3/cuda.hpp"
#include "l3/scan.hpp"

namespace l3::cuda {

/// Columns one scan may touch (filtered and aggregated, counted once each).
inline constexpr int kMaxScanColumns = 8;

/// One column of a table scan: the Reader's column index and the device
/// descriptors of all its chunks, in row order (DeviceColumnBuffer::chunks(),
/// or MakeDeviceChunk for each chunk).
struct DeviceScanColumn {
  int column = -1;
  const DeviceChunk* chunks = nullptr;
  size_t num_chunks = 0;
};

/// What DeviceTableScan::Run writes to device memory.
struct DeviceScanTotals {
  uint64_t count;     ///< rows selected
  uint64_t sum_low;   ///< the sum as a 128-bit two's complement number
  uint64_t sum_high;  ///< (sum_high:sum_low)
  uint64_t overflow;  ///< nonzero: a partial sum or a product left 128 bits
  /// The smallest and largest value of the sum column over the selection as
  /// ordered keys (the canonical value, its sign bit flipped for signed
  /// types); ~0 and 0 when nothing is selected (ToResult converts them).
  uint64_t min_key;
  uint64_t max_key;
  /// Per column of the plan (ToResult's order): rows still selected after
  /// its predicates, rows of the tiles decoded, and those rows times their
  /// partitions' Bit_Width (the payload bits decoded).
  uint64_t rows_out[kMaxScanColumns];
  uint64_t values_decoded[kMaxScanColumns];
  uint64_t field_bits[kMaxScanColumns];
};

/// A planned table scan over device-resident columns. Plan once, Upload its
/// tables into temporary storage once, Run any number of times.
class DeviceTableScan {
 public:
  /// Checks and plans the scan exactly as l3::ScanTable does (same errors),
  /// and checks that `columns` holds every column the scan reads, with chunk
  /// descriptors that agree with the reader's chunks (rows, partitions,
  /// integer type). options.num_threads does not apply (the GPU runs the
  /// scan). Errors: ScanTable's; kInvalidArgument (a column missing from
  /// `columns`, or descriptors that do not match the file);
  /// kUnsupportedFeature (more than kMaxScanColumns columns).
  static Result<DeviceTableScan> Plan(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                      const TableScanOptions& options,
                                      const std::vector<DeviceScanColumn>& columns);

  DeviceTableScan();
  DeviceTableScan(DeviceTableScan&&) noexcept;
  DeviceTableScan& operator=(DeviceTableScan&&) noexcept;
  ~DeviceTableScan();

  /// Bytes of temporary device storage Upload and Run need (8-byte aligned).
  size_t temp_bytes() const;
  uint64_t num_rows() const;

  /// Copies the plan's tables (chunk descriptors, pruning verdicts, IN lists)
  /// into `d_temp` on `stream`. Required before the first Run on that storage.
  Status Upload(void* d_temp, size_t temp_bytes, cudaStream_t stream) const;

  /// Enqueues the scan on `stream`: writes *d_totals (device memory) and, when
  /// `d_selection` is not null, the selection as bits, row r at bit r % 32 of
  /// word r / 32, (num_rows + 31) / 32 words. Errors (host-side checks only):
  /// kInvalidArgument, kBufferTooSmall, kDeviceError.
  Status Run(void* d_temp, size_t temp_bytes, DeviceScanTotals* d_totals, uint32_t* d_selection,
             size_t selection_words, cudaStream_t stream) const;

  /// The scan's result from totals copied back to the host, in the form
  /// ScanTable returns (without rows): count, sum, min and max, and per column the
  /// static pruning statistics with the rows and values of this run.
  /// kOutOfRange when the totals report an overflow.
  Result<TableScanResult> ToResult(const DeviceScanTotals& totals) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Plans, allocates, uploads, runs and waits: the result of l3::ScanTable,
/// rows included when options.collect_rows. Errors: Plan's and Run's,
/// kOutOfMemory.
Result<TableScanResult> ScanTable(const Reader& reader, const std::vector<ColumnPredicates>& where,
                                  const TableScanOptions& options,
                                  const std::vector<DeviceScanColumn>& columns, cudaStream_t stream);

}  // namespace l3::cuda
