// Field planes (spec §9.2, format 1.1): the archive profile's transform of an
// L3Integer payload segment before zstd.
//
// The bit-packed fields of a payload are not byte aligned, so zstd's matches
// and entropy coder see noise. The field-plane form lists every field of the
// payload in a canonical order (partition by partition; rows in row order,
// not SLAP order), widens each to ceil(width / 8) bytes and splits those bytes
// into planes: plane 0 holds byte 0 of every field, plane 1 byte 1 of every
// field wider than 8 bits, and so on. Residuals of the predicted models are
// zigzag mapped first, so that small negative residuals have zero high bytes.
//
// The transform is a bijection between a payload that follows spec §8.5-§8.9
// (zero padding bits) and its field-plane form; both directions need only the
// partition table and the parameters. Decoding never depends on encoding: the
// reader calls PayloadFromFieldPlanes, the writer FieldPlanesFromPayload.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

/// Length in bytes of the field-plane form of view's payload: the sum over
/// every field of ceil(width / 8). Needs the partition table and parameters
/// only (view.payload is not read), O(number of partitions). Precondition:
/// ValidateChunkMetadata(view) passed (view.payload may then be any non-null
/// pointer).
uint64_t FieldPlaneBytes(const ChunkView& view);

/// The field-plane form of view.payload. Precondition: ValidateChunkMetadata
/// passed on a view whose payload is the real payload.
std::vector<uint8_t> FieldPlanesFromPayload(const ChunkView& view);

/// Rebuilds the payload segment (view.payload_bytes bytes, padding included)
/// from its field-plane form into `payload`, which must hold
/// view.payload_bytes bytes. `planes` holds exactly FieldPlaneBytes(view)
/// bytes. Precondition: ValidateChunkMetadata(view) passed (view.payload is
/// not read). Every byte of `payload` is written; fields land only inside
/// their partition's payload words. Returns false if a field's top byte has
/// bits set above the field's width (spec §9.2: CORRUPT_PAYLOAD); the payload
/// is still fully written, with those bits dropped.
bool PayloadFromFieldPlanes(const ChunkView& view, const uint8_t* planes, uint8_t* payload);

}  // namespace l3::internal
