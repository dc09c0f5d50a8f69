// The CPU reference decoder (spec §7.3–§8.7). Depends on nothing of the
// encoder. Works on a ChunkView: the decoded segments of one chunk.
#pragma once

#include <cstdint>

#include "l3/l3.hpp"

namespace l3::internal {

/// The checks of spec §7.3 (partition table), §7.5 (bounds length) and §8.2
/// (parameters) that need no payload. After they pass, every payload address
/// derived from the metadata lies inside view.payload. O(num_partitions).
Status ValidateChunkMetadata(const ChunkView& view);

/// The checks of spec §7.3 that need only the partition table, run before the
/// parameters and payload segments are decompressed so that no allocation is
/// made from sizes the table cannot justify: First_Row rules, Reserved,
/// Model_Type, Bit_Width, the Param_Offset differences and, for the payload,
/// an upper bound of payload_words(p) over every parameter value. Checks that
/// 8 * Param_Offset[P] == parameters_bytes and that payload_bytes does not
/// exceed 8 * (that bound) + 32. O(num_partitions). `partition_table` holds
/// num_partitions + 1 records.
Status ValidatePartitionTableShape(const uint8_t* partition_table, uint64_t num_partitions,
                                   uint64_t num_rows, uint32_t values_per_lane, PhysicalType type,
                                   uint64_t required_features, uint64_t parameters_bytes,
                                   uint64_t payload_bytes);

/// The run-start rule of spec §8.7 for every run partition of the chunk:
/// starts strictly increasing and in [1, n_p - 1] (kCorruptPayload otherwise).
/// Precondition: ValidateChunkMetadata(view) passed. O(number of runs).
Status ValidateRunStarts(const ChunkView& view);

/// Decodes chunk rows [row_begin, row_end) into `out` (values of view.type,
/// native byte order). Precondition: ValidateChunkMetadata(view) passed and
/// row_begin <= row_end <= view.num_rows. Errors: kCorruptPayload (bad run
/// starts, spec §8.7).
Status DecodeChunkRows(const ChunkView& view, uint64_t row_begin, uint64_t row_end, void* out);

/// Decodes one chunk row; `*value` receives the value's canonical extension.
Status DecodeChunkValue(const ChunkView& view, uint64_t row, uint64_t* value);

struct Partition;

/// DecodeChunkValue when the partition holding `row` is known: `part` is
/// LoadPartition(view, p) of the partition whose rows [First_Row, First_Row +
/// n_p) hold `row`, of a chunk without a dictionary (spec §8.10). Lets a
/// caller that reads several rows of one partition find it once.
Status DecodePartitionValue(const ChunkView& view, const Partition& part, uint64_t row,
                            uint64_t* value);

/// Index of the partition holding chunk row `row` (binary search on First_Row).
uint32_t FindPartition(const ChunkView& view, uint64_t row);

/// Deep checks of spec §10.3 for one chunk: zero padding bits, run starts,
/// bounds against decoded values, minimal bit widths and FOR bases.
Status DeepValidateChunk(const ChunkView& view);

}  // namespace l3::internal
