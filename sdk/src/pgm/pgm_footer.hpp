// The footer's PgmIndex table (spec §11.3) to and from PgmIndexInfo.
#pragma once

#include <cstdint>
#include <string>

#include <flatbuffers/flatbuffers.h>

#include "l3/l3.hpp"
#include "l3_generated.h"

namespace l3::internal {

/// Copies and validates (§11.3.4) a chunk's index; kCorruptMetadata on failure.
Status ReadPgmIndex(const fbs::PgmIndex& table, uint64_t num_rows, const std::string& where,
                    PgmIndexInfo* out);

/// The table of a present index, or a null offset.
flatbuffers::Offset<fbs::PgmIndex> BuildPgmIndexTable(flatbuffers::FlatBufferBuilder& fbb,
                                                      const PgmIndexInfo& pgm);

}  // namespace l3::internal
