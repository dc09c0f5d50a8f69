// The DeviceChunk descriptor of a chunk whose segments were copied to the
// device, shared by MakeDeviceChunk (which validates first) and the host
// layer (whose views the Reader has already validated).
#pragma once

#include <algorithm>

#include "format/layout.hpp"
#include "l3/cuda.hpp"

namespace l3::cuda::detail {

inline DeviceChunk DescribeChunk(const ChunkView& view, const void* d_partition_table,
                                 const void* d_parameters, const void* d_payload,
                                 const void* d_dictionary) {
  DeviceChunk c;
  c.type = view.type;
  // A float column's chunk in the integer form (spec §11.2.2); any other
  // column_type (an integer column's, or a hand-made view's default) means
  // plain integers.
  c.column_type = PhysicalTypeIsFloat(view.column_type) ? view.column_type : view.type;
  c.first_row = view.first_row;
  c.num_rows = view.num_rows;
  c.values_per_lane = view.values_per_lane;
  c.num_partitions = view.num_partitions;
  c.partition_table = d_partition_table;
  c.parameters = d_parameters;
  c.parameters_bytes = view.parameters_bytes;
  c.payload = d_payload;
  c.payload_bytes = view.payload_bytes;
  c.dictionary_entries = view.dictionary_entries;  // spec §8.10
  c.dictionary = view.dictionary_entries > 0 ? d_dictionary : nullptr;
  // Launch hints (DeviceChunk): rows in full SLAP tiles of fields wider
  // than 32 bits. The kernels check every width against what a launch
  // allocated, so a stale hint cannot make them leave their buffers.
  const uint64_t tile_rows = uint64_t{internal::kLanes} * view.values_per_lane;
  for (uint32_t p = 0; p < view.num_partitions && tile_rows != 0; ++p) {
    const internal::PartitionRecord rec = internal::LoadPartitionRecord(view.partition_table, p);
    const uint32_t next_first = internal::LoadPartitionRecord(view.partition_table, p + 1).first_row;
    const uint64_t rows = next_first > rec.first_row ? next_first - rec.first_row : 0;
    if (rec.model_type == static_cast<uint8_t>(internal::Model::kDelta)) c.delta_rows += rows;
    if (rec.model_type == static_cast<uint8_t>(internal::Model::kRunsEf)) c.runs_ef_rows += rows;
    if (rec.model_type == static_cast<uint8_t>(internal::Model::kPatchedFor)) {
      c.patched_for_rows += rows;
    }
    if (!internal::IsSlapModel(rec.model_type) || rec.bit_width <= 32) continue;
    c.wide_full_tile_rows += rows / tile_rows * tile_rows;
    c.max_wide_bit_width = std::max<uint32_t>(c.max_wide_bit_width, rec.bit_width);
  }
  return c;
}

}  // namespace l3::cuda::detail
