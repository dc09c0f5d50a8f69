// The CUDA writer's building blocks, callable from host code: the partition
// fit (codec/encode/fit_partition.cuh) and the partitioner
// (codec/encode/partitioner.cuh). Internal: the public GPU writer API is
// built on them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "codec/encode/encode_chunk.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/partitioner.hpp"
#include "temp_arena.hpp"
#include "l3/cuda.hpp"
#include "l3/l3.hpp"
#include "l3/status.hpp"

namespace l3::cuda::encode {

/// Fits each of `count` partitions of an integer column in device memory
/// (`values`: `num_values` values of `type`) and writes the model
/// FitBestModel would choose for it, field for field, to fits[i] (device
/// memory), in stream order on `stream`.
///
/// `spans` is host memory (it is checked: every span inside the column, at
/// least one row); it is copied to `span_scratch`, device memory of
/// count * sizeof(PartitionSpan) bytes owned by the caller.
///
/// `hull_scratch`: device memory of 2 * num_values words for the minimax
/// line's hulls (FitOptions::minimax_lines; may be null without it); the
/// spans must then be in row order and disjoint.
///
/// kInvalidArgument for bad arguments.
Status FitPartitions(PhysicalType type, const void* values, uint64_t num_values,
                     const l3::internal::PartitionSpan* spans, uint64_t count,
                     l3::internal::PartitionSpan* span_scratch, uint32_t* hull_scratch,
                     const l3::internal::FitOptions& options, l3::internal::PartitionFit* fits,
                     cudaStream_t stream);

/// The partitions PlanPartitions(values, n, options) computes on the CPU,
/// computed on the device from `n` values of `type` in device memory (the
/// delta-bits analysis, the initial fits and the merge rounds run there; the
/// host cuts the initial partitions from the analysis, a few bytes per 2048
/// rows, with the CPU's InitialPartitionStarts). Allocates its working
/// memory (about 250 bytes per initial partition, and 8 bytes per row with
/// the minimax line) with cudaMallocAsync on `stream` and synchronises
/// `stream` before returning.
///
/// kUnsupportedFeature where the options ask for what the device does not
/// do yet: halving (split_min_rows > 0, the archive profile's).
Status PlanPartitions(PhysicalType type, const void* values, uint64_t n,
                      const l3::internal::PartitionPlanOptions& options,
                      std::vector<l3::internal::PlannedPartition>* plan, cudaStream_t stream);

/// The most initial partitions InitialPartitionStarts cuts from n rows (each
/// run of analysis blocks between breakpoints adds at most one partition to
/// its share of n / initial rows); merging only lowers the count.
uint64_t MaxInitialPartitions(uint64_t n, const PartitionerOptions& options);

/// PlanPartitions with its working memory taken from `arena` and its result
/// left in device memory: *nodes (inside the arena) holds *count partitions
/// in row order. Synchronises `stream` (once after the analysis and once per
/// merge step, to read the partition count). With a counting arena it only
/// sizes its memory, for the most partitions n rows can have (values, nodes
/// and count may then be null), and launches nothing. Arguments are checked
/// by the caller (PlanPartitions' rules).
Status PlanOnDevice(PhysicalType type, const void* values, uint64_t n,
                    const l3::internal::PartitionPlanOptions& options, TempArena* arena,
                    l3::internal::DeviceNode** nodes, uint64_t* count, cudaStream_t stream);

/// The device chunk encoder's options for an EncoderConfig (its type, V,
/// partitioner, bounds and statistics), so that EncodeChunk writes what
/// internal::EncodeChunk(values, n, config) writes.
ChunkEncodeOptions ChunkEncodeOptionsOf(const l3::internal::EncoderConfig& config);

/// The CPU writer's BuildDictionary (dictionary_encode.hpp) on the device:
/// with the same sample rule and limit (max_entries: DictionaryEntryLimit),
/// *built says whether a dictionary is kept; if so *elements points to D +
/// n values of `type` (device memory from cudaMallocAsync on `stream`; the
/// caller frees it): the D sorted distinct values, then each row's code.
/// Synchronises `stream`.
Status BuildDictionary(PhysicalType type, const void* values, uint64_t n, uint64_t max_entries,
                       void** elements, uint64_t* entries, bool* built, cudaStream_t stream);

}  // namespace l3::cuda::encode
