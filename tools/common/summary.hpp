// summary.hpp: per-column figures computed from a Reader's metadata (model
// mix, bit-width histogram, partition sizes), shared by `l3 info`,
// `l3 demo` and `l3dump`. Reading partition records touches only the
// partition-table, parameter and bounds segments, never the payload.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "l3/l3.hpp"

namespace l3::cli {

inline constexpr int kNumModels = 8;  ///< CONSTANT .. PATCHED_FOR (spec §8.1)

struct PartitionCount {
  uint64_t partitions = 0;
  uint64_t rows = 0;
};

struct ColumnSummary {
  uint64_t num_partitions = 0;
  /// Index by ModelType value; runs (CONSTANT with Bit_Width > 0) are
  /// counted as CONSTANT here and in `runs` as well.
  std::array<PartitionCount, kNumModels> models{};
  PartitionCount runs;
  std::array<PartitionCount, 65> bit_widths{};  ///< by Bit_Width
  uint64_t min_partition_rows = 0;
  uint64_t max_partition_rows = 0;
  uint64_t payload_bytes = 0;  ///< sum of the partitions' payload bytes (decoded)
  /// The first chunk whose partitions could not be read, and why; -1 if none.
  int failed_chunk = -1;
  Status error;

  double mean_partition_rows() const;
  /// Row-weighted mean of Bit_Width (the L3 paper's "mean residual bits").
  double mean_bit_width() const;
};

/// Adds one partition's figures to `summary`.
void AddPartition(const PartitionInfo& partition, ColumnSummary* summary);

/// Summarizes every chunk of a column; a chunk whose partitions cannot be
/// read is recorded in failed_chunk/error and skipped.
ColumnSummary SummarizeColumn(const Reader& reader, int column);

/// "LINEAR 75.0%, FOR_BITPACK 25.0%": models by share of partitions, most
/// frequent first (ties in ModelType order); "-" when there are none.
std::string ModelMixText(const ColumnSummary& summary);

/// Raw size of a column: rows times the type's width (0 for unknown types).
uint64_t RawBytes(const ColumnInfo& column);
/// raw / stored, 0 when stored is 0.
double Ratio(uint64_t raw_bytes, uint64_t stored_bytes);

/// printf into a std::string.
std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// "PARTITION_BOUNDS|PGM_INDEX", "none", or with unknown bits "ZSTD_SEGMENTS|bit5".
std::string RequiredFeatureNames(uint64_t bits);
std::string OptionalFeatureNames(uint64_t bits);
/// Bits this SDK does not name.
uint64_t UnknownRequiredFeatures(uint64_t bits);
uint64_t UnknownOptionalFeatures(uint64_t bits);

/// "L3Integer", "IbpFloat", or "unknown(7)".
std::string EncodingName(uint16_t encoding);
/// The column type's short name, or "unknown(13)" for a stored type this SDK
/// does not know (only with ReadOptions::allow_unknown).
std::string ColumnTypeName(const ColumnInfo& column);
/// "none", "timestamp[us, UTC]", "date", "decimal(10, 2)" or "unknown(7)".
std::string LogicalTypeText(const LogicalType& logical);

}  // namespace l3::cli
