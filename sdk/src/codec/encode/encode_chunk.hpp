// The chunk encoder: values in, the decoded bytes of a chunk's segments out
// (spec §7.3–§8.8). Knows nothing about files; the Writer places the segments.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codec/encode/partitioner.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

struct ChunkStatisticsData;

struct EncoderConfig {
  PhysicalType type = PhysicalType::kInt64;
  uint32_t values_per_lane = 64;
  PartitionerOptions partitioner;
  bool compute_bounds = true;
  bool compute_statistics = true;
  int num_threads = 1;  ///< >= 1; output must not depend on it
  /// Plans the partitions instead of PlanPartitions when set (not owned;
  /// same result, see PartitionPlanner).
  const PartitionPlanner* planner = nullptr;
  /// PartitionPlanOptions::record_fits and known_fits, for the CPU
  /// partitioner (fit_memo.hpp). Not owned.
  FitMemo* record_fits = nullptr;
  const FitMemo* known_fits = nullptr;
  /// The statistics of these values where an earlier encoding of them
  /// computed them (they do not depend on the encoding). Not owned.
  const ChunkStatisticsData* known_statistics = nullptr;
};

/// Chunk statistics as stored in the footer (spec §7.6).
struct ChunkStatisticsData {
  bool has_min_max = false;
  uint64_t min_value = 0;  ///< canonical extension
  uint64_t max_value = 0;
  uint64_t distinct_count = 0;
  bool distinct_count_exact = false;
};

/// The decoded contents of one chunk's segments.
struct EncodedChunk {
  uint64_t num_rows = 0;
  uint32_t num_partitions = 0;
  uint32_t values_per_lane = 64;
  std::vector<uint8_t> partition_table;  ///< (P + 1) * 16 bytes, spec §7.3
  std::vector<uint8_t> parameters;       ///< 8 * Param_Offset[P] bytes, spec §7.4
  std::vector<uint8_t> payload;          ///< 8 * Payload_Offset[P] + 32 bytes, spec §8.6
  std::vector<uint8_t> bounds;           ///< 2 * P * N / 8 bytes, or empty, spec §7.5
  ChunkStatisticsData statistics;        ///< meaningful when compute_statistics
  bool uses_delta = false;               ///< some partition is DELTA (spec §8.9)
  bool uses_runs_ef = false;             ///< some partition is RUNS_EF (spec §8.11)
  bool uses_patched_for = false;  ///< some partition is PATCHED_FOR (spec §8.12)
  bool uses_patched_rows_ef = false;  ///< some PATCHED_FOR partition has Rows_EF (§8.12)
  bool uses_delta_orders = false;     ///< some DELTA partition has order K > 1 (§8.9)
  /// spec §8.10: D > 0 for a dictionary chunk, whose partitions cover
  /// D + num_rows elements (the statistics still describe the num_rows values).
  uint64_t dictionary_entries = 0;
};

/// Encodes `num_rows` values (1 <= num_rows <= 2^32 - 1) of `config.type`
/// with the cost-optimal partitioner. Deterministic.
Result<EncodedChunk> EncodeChunk(const void* values, uint64_t num_rows,
                                 const EncoderConfig& config);

/// The ChunkView of an encoded chunk (segments borrowed from `chunk`, bounds
/// included when computed), as a reader would see it; `first_row` within the
/// column.
ChunkView ChunkViewOf(const EncodedChunk& chunk, PhysicalType type, uint64_t first_row = 0);

/// The partitioner options EncodeChunk uses for `config`.
PartitionPlanOptions PlanOptionsFor(const EncoderConfig& config);

/// EncodeChunk with the partitions and fits of `plan` (from PlanPartitions,
/// or the CUDA partitioner) instead of planning: the segments are those
/// EncodeChunk writes when its planner returns `plan`. kInvalidArgument when
/// the plan does not cover [0, num_rows) in order.
Result<EncodedChunk> EncodeChunkWithPlan(const void* values, uint64_t num_rows,
                                         const EncoderConfig& config,
                                         const std::vector<PlannedPartition>& plan);

/// A caller-chosen partition, for tests and the conformance corpus generator.
struct PartitionChoice {
  uint32_t num_rows = 0;
  Model model = Model::kFor;
  /// LINEAR/POLY2/POLY3: use these parameters instead of fitting. The encoder
  /// still computes residuals and the minimal width with the canonical
  /// predictor, so any finite parameters produce a valid partition.
  std::optional<std::array<double, 4>> theta;
  /// DELTA: a Bit_Width that holds every delta, no exceptions (WholeDeltaFit).
  bool delta_without_exceptions = false;
  /// DELTA: the order K (spec §8.9), 1 to 3, with the cheapest fit of that
  /// order (K > 1 needs more than K rows; not with delta_without_exceptions).
  uint32_t delta_order = 1;
};

/// Encodes with an explicit partitioning and model per partition. The rows of
/// `partitions` must sum to `num_rows`. CONSTANT becomes runs when the
/// partition is not constant. kInvalidArgument if a model is not allowed for
/// the data (e.g. LINEAR on 64-bit values beyond 2^53, spec §8.8 rule 3).
Result<EncodedChunk> EncodeChunkWithPartitions(const void* values, uint64_t num_rows,
                                               const EncoderConfig& config,
                                               const std::vector<PartitionChoice>& partitions);

/// EncodeChunkWithPartitions for a candidate that only counts if its
/// segments stay within `byte_limit` bytes: the partitions are fitted a
/// fixed number at a time (the same batches on any thread count), and as
/// soon as those fitted add more than byte_limit (their PartitionCost, a
/// lower bound on the segments' bytes) the result is std::nullopt, without
/// fitting the rest. UINT64_MAX: no limit.
Result<std::optional<EncodedChunk>> EncodeChunkWithPartitionsWithin(
    const void* values, uint64_t num_rows, const EncoderConfig& config,
    const std::vector<PartitionChoice>& partitions, uint64_t byte_limit);

/// The sum of PartitionCost over partitions 0, stride, 2 * stride, ... of
/// `partitions` (the rows before each counted from partition 0), each fitted
/// as EncodeChunkWithPartitions fits it: an estimate of what a candidate
/// would cost from a 1/stride sample of it.
Result<uint64_t> SampledPartitionCost(const void* values, uint64_t num_rows,
                                      const EncoderConfig& config,
                                      const std::vector<PartitionChoice>& partitions,
                                      uint64_t stride);

}  // namespace l3::internal
