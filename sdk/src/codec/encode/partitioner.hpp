// The cost-optimal partitioner (spec §14): chooses partition boundaries and a
// model per partition for one chunk.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codec/encode/model_fit.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

class FitMemo;  // fit_memo.hpp

/// A partition of the chunk and its model.
struct PlannedPartition {
  uint64_t first_row = 0;  ///< spec First_Row
  PartitionFit fit;
};

/// A partition of the CUDA partitioner's list in device memory
/// (partitioner.cuh), and of its result. Ids tell whether a pair rejected in
/// an earlier merge step has changed since (partitioner.cpp:
/// Node::rejected_right).
struct DeviceNode {
  uint64_t first_row;
  uint64_t id;
  uint64_t rejected_right;
  PartitionFit fit;
};

/// The partitioner's knobs, resolved from PartitionerOptions.
struct PartitionPlanOptions {
  PartitionerOptions partitioner;
  uint32_t values_per_lane = 64;
  /// Smallest half when splitting initial partitions; 0 disables splitting.
  uint32_t split_min_rows = 64;
  bool minimax_lines = false;
  int num_threads = 1;
  /// With PATCHED_FOR enabled: PlanPartitions records here the fits without
  /// it (fit_memo.hpp), for the caller to Seal(). Not owned.
  FitMemo* record_fits = nullptr;
  /// With PATCHED_FOR disabled: fits PlanPartitions takes from here instead
  /// of fitting, where the memo covers these values. Not owned.
  const FitMemo* known_fits = nullptr;
};

struct EncoderConfig;  // encode_chunk.hpp
struct EncodedChunk;

/// Plans, or encodes, a chunk somewhere other than on the CPU (the CUDA
/// backend, l3::cuda::UseGpuWriter and UseGpuPartitioner), with the CPU's
/// result bit for bit. Called from the writer's worker threads: must be
/// thread-safe.
class PartitionPlanner {
 public:
  virtual ~PartitionPlanner() = default;
  /// PlanPartitions(values, n, options) for `n` values of `type` in host
  /// memory. On any error (kUnsupportedFeature where it cannot plan with
  /// these options, kDeviceError, ...) the encoder plans on the CPU.
  virtual Status Plan(PhysicalType type, const void* values, uint64_t n,
                      const PartitionPlanOptions& options,
                      std::vector<PlannedPartition>* plan) const = 0;
  /// EncodeChunk(values, n, config), segments and statistics, tried before
  /// Plan. On any error (kUnsupportedFeature where it only plans, or not
  /// with this config) the encoder goes on with Plan.
  virtual Status Encode(const void* values, uint64_t n, const EncoderConfig& config,
                        EncodedChunk* chunk) const {
    (void)values, (void)n, (void)config, (void)chunk;
    return Status(StatusCode::kUnsupportedFeature, "this planner does not encode");
  }
  /// EncodeDictionaryChunk(values, n, config) (dictionary_encode.hpp): the
  /// dictionary chunk, or std::nullopt where the writer builds none. On any
  /// error the encoder builds it on the CPU.
  virtual Status EncodeDictionary(const void* values, uint64_t n, const EncoderConfig& config,
                                  std::optional<EncodedChunk>* chunk) const {
    (void)values, (void)n, (void)config, (void)chunk;
    return Status(StatusCode::kUnsupportedFeature, "this planner does not encode");
  }
};

/// kInvalidArgument for option values that make no sense (zero sizes,
/// fractions outside [0, 1)).
Status ValidatePartitionerOptions(const PartitionerOptions& options);

/// Partitions values[0, n) (1 <= n <= 2^32 - 1). The result covers the rows in
/// order and does not depend on options.num_threads.
template <typename T>
std::vector<PlannedPartition> PlanPartitions(const T* values, uint64_t n,
                                             const PartitionPlanOptions& options);

/// Steps 2 and 3 of the partitioner: the first rows of the initial
/// partitions of values[0, n), from the delta-bits analysis of its blocks of
/// analysis_block_rows rows (one width per block). Shared with the CUDA
/// partitioner.
std::vector<uint64_t> InitialPartitionStarts(const std::vector<uint8_t>& block_bits, uint64_t n,
                                             const PartitionerOptions& options);

/// The FitOptions the partitioner uses.
FitOptions MakeFitOptions(const PartitionerOptions& options, uint32_t values_per_lane,
                          bool minimax_lines);

}  // namespace l3::internal
