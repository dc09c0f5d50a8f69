// Dictionary chunks (spec §8.10, format 1.1), the reader's half: the chunk's
// partitions cover M = D + num_rows elements, the D sorted dictionary entries
// and then one code per row; row r decodes to e(e(D + r)). The writer's half
// is dictionary_encode.hpp; decode never depends on it.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

/// The chunk as a sequence of elements: for a dictionary chunk, the same
/// segments with num_rows = D + num_rows and no dictionary (what §7.3–§8.9
/// describe); otherwise `view` itself.
ChunkView ElementView(const ChunkView& view);

/// spec §8.10 rule 1 for a view (the footer checks the same on open):
/// 1 <= D <= num_rows, D + num_rows <= 2^32 - 1, D within what codes of the
/// type address, DICTIONARY set. kCorruptMetadata otherwise.
Status CheckDictionaryShape(const ChunkView& view);

/// Decodes the D dictionary entries (values of view.type, native order) into
/// `entries` and checks rule 2 (strictly increasing, kCorruptPayload).
/// Precondition: ValidateChunkMetadata(view) passed.
Status DecodeDictionary(const ChunkView& view, std::vector<uint8_t>* entries);

/// Replaces `count` codes of view.type at `values` by their entries, checking
/// rule 3 (0 <= code < D, kCorruptPayload) for each.
Status MapCodes(const ChunkView& view, const uint8_t* entries, void* values, uint64_t count);

/// Deep validation of §8.10 (rules 2-4): `view.dictionary` or the decoded
/// entries are strictly increasing, every code is below D, every entry is
/// used. Reads the codes in bounded blocks; holds D bits.
Status DeepValidateDictionary(const ChunkView& view);

}  // namespace l3::internal
