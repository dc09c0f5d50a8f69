// Writing one partition's payload: SLAP fields (spec §8.5) and runs (§8.7).
#pragma once

#include <cstdint>

#include "codec/encode/model_fit.hpp"

namespace l3::internal {

/// Writes the payload of a partition whose model is `fit` and whose values are
/// values[0, fit.num_rows) into `out`, which must hold fit.payload_words
/// zero-initialised 8-byte words. Bits past the last field stay zero.
/// Returns false if a value does not fit fit.bit_width, which means the
/// fitter and the emitter disagree: an encoder bug, never silent corruption.
template <typename T>
bool EmitPartitionPayload(const T* values, const PartitionFit& fit, uint32_t values_per_lane,
                          uint8_t* out);

}  // namespace l3::internal
