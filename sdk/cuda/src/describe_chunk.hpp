// The DeviceChunk descriptor of a chunk whose segments were copied to the
// device, shared by MakeDeviceChunk (which validates first) and the host
// layer (whose views the Reader has already validated).
#pragma once

#include "l3/cuda.hpp"

namespace l3::cuda::detail {

inline DeviceChunk DescribeChunk(const ChunkView& view, const void* d_partition_table,
                                 const void* d_parameters, const void* d_payload) {
  DeviceChunk c;
  c.type = view.type;
  c.first_row = view.first_row;
  c.num_rows = view.num_rows;
  c.values_per_lane = view.values_per_lane;
  c.num_partitions = view.num_partitions;
  c.partition_table = d_partition_table;
  c.parameters = d_parameters;
  c.parameters_bytes = view.parameters_bytes;
  c.payload = d_payload;
  c.payload_bytes = view.payload_bytes;
  return c;
}

}  // namespace l3::cuda::detail
