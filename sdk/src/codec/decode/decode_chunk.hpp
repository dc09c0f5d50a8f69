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

/// Index of the partition holding chunk row `row` (binary search on First_Row).
uint32_t FindPartition(const ChunkView& view, uint64_t row);

/// Deep checks of spec §10.3 for one chunk: zero padding bits, run starts,
/// bounds against decoded values, minimal bit widths and FOR bases.
Status DeepValidateChunk(const ChunkView& view);

}  // namespace l3::internal
