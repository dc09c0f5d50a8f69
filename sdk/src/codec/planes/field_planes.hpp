// Field planes and field bytes (spec §9.2, §9.3, format 1.1): the archive
// profile's transforms of an L3Integer payload segment before zstd.
//
// The bit-packed fields of a payload are not byte aligned, so zstd's matches
// and entropy coder see noise. The field-plane form lists every field of the
// payload in a canonical order (partition by partition; rows in row order,
// not SLAP order), widens each to ceil(width / 8) bytes and splits those bytes
// into planes: plane 0 holds byte 0 of every field, plane 1 byte 1 of every
// field wider than 8 bits, and so on. Residuals of the predicted models are
// zigzag mapped first, so that small negative residuals have zero high bytes.
// The field-byte form lists the same widened fields without splitting them.
//
// Each transform is a bijection between a payload that follows spec §8.5-§8.9
// (zero padding bits) and its form; both directions need only the partition
// table and the parameters. Decoding never depends on encoding: the reader
// calls PayloadFromFieldForm, the writer FieldFormFromPayload.
#pragma once

#include <cstdint>
#include <vector>

#include "l3/l3.hpp"

namespace l3::internal {

/// The two byte-aligned forms of a payload's fields, both zstd compressed:
/// kPlanes (spec §9.2, compression ZstdFieldPlanes) groups byte k of every
/// field; kFieldBytes (spec §9.3, compression ZstdFieldBytes) keeps each
/// field's bytes together, field after field, so that zstd matches repeated
/// runs of whole fields (sequences of deltas that recur).
enum class FieldForm : uint8_t { kPlanes, kFieldBytes };

/// Length in bytes of either form of view's payload: the sum over every
/// field of ceil(width / 8). Needs the partition table and parameters only
/// (view.payload is not read), O(number of partitions). Precondition:
/// ValidateChunkMetadata(view) passed (view.payload may then be any non-null
/// pointer).
uint64_t FieldFormBytes(const ChunkView& view);

/// The form `form` of view.payload. Precondition: ValidateChunkMetadata
/// passed on a view whose payload is the real payload.
std::vector<uint8_t> FieldFormFromPayload(const ChunkView& view, FieldForm form);

/// Rebuilds the payload segment (view.payload_bytes bytes, padding included)
/// from `data`, its form `form`, into `payload`, which must hold
/// view.payload_bytes bytes. `data` holds exactly FieldFormBytes(view)
/// bytes. Precondition: ValidateChunkMetadata(view) passed (view.payload is
/// not read). Every byte of `payload` is written; fields land only inside
/// their partition's payload words. Returns false if a field's top byte has
/// bits set above the field's width (spec §9.2, §9.3: CORRUPT_PAYLOAD); the
/// payload is still fully written, with those bits dropped. With `threads`
/// above 1, groups of partitions of at least 1 MiB of payload are rebuilt on
/// threads of their own; the bytes written do not depend on it.
bool PayloadFromFieldForm(const ChunkView& view, FieldForm form, const uint8_t* data,
                          uint8_t* payload, int threads = 1);

}  // namespace l3::internal
