// zstd frames for the archive profile (spec §9).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "l3/status.hpp"

namespace l3::internal {

/// Compresses `size` bytes into one zstd frame that records its content size
/// and a content checksum. Deterministic for a given level.
Result<std::vector<uint8_t>> ZstdCompress(const uint8_t* data, size_t size, int level);

/// Decompresses `stored` bytes, which must be exactly one zstd frame whose
/// content is exactly `out_size` bytes, into `out`. The caller has already
/// checked `out_size` against the expected segment length and its limits.
/// Errors: kCorruptPayload.
Status ZstdDecompressExact(const uint8_t* stored, size_t stored_size, uint8_t* out,
                           size_t out_size);

/// The levels zstd accepts.
int ZstdMinLevel();
int ZstdMaxLevel();

}  // namespace l3::internal
