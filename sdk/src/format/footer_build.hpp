// Serialises the footer (spec §6) from the public metadata structures.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

/// Builds the FlatBuffers footer, identifier "L3FT", from `info` (num_rows,
/// writer_name, writer_version, metadata) and `columns` (name, type, logical,
/// nullable and, per chunk, num_rows, values_per_lane, num_partitions, the
/// present segments and statistics; encoding L3Integer). Tables are built in
/// a fixed order, so equal inputs give equal bytes.
std::vector<uint8_t> BuildFooter(const FileInfo& info, const std::vector<ColumnInfo>& columns);

}  // namespace l3::internal
