// Field planes (spec §9.2). See field_planes.hpp.
#include "codec/planes/field_planes.hpp"

#include <array>
#include <cstring>

#include "codec/decode/partition_decoder.hpp"
#include "codec/delta/delta_layout.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"

namespace l3::internal {
namespace {

constexpr int kPlanes = 8;

uint32_t FieldBytes(uint32_t width) { return (width + 7) / 8; }

// spec §9.2 "Residuals": the zigzag map of a w-bit two's complement field,
// a bijection on w-bit values that sends 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
uint64_t ZigzagEncode(uint64_t field, uint32_t w) {
  const int64_t s = SignExtend(field, w);
  return ((static_cast<uint64_t>(s) << 1) ^ static_cast<uint64_t>(s >> 63)) & LowMask(w);
}
uint64_t ZigzagDecode(uint64_t z, uint32_t w) {
  return ((z >> 1) ^ (uint64_t{0} - (z & 1))) & LowMask(w);
}

// Calls fn(bit, width, zigzag) for every field of the payload in the
// canonical field order of spec §9.2. `bit` counts from the first bit of the
// payload segment. Fields of width 0 are skipped: they have no bytes.
template <typename Fn>
void ForEachField(const ChunkView& view, Fn&& fn) {
  const uint32_t v = view.values_per_lane;
  for (uint32_t p = 0; p < view.num_partitions; ++p) {
    const Partition part = LoadPartition(view, p);
    const uint64_t n = part.num_rows;
    const uint32_t w = part.bit_width;
    const uint64_t start = 64 * (uint64_t{LoadPartitionRecord(view.partition_table, p).payload_offset});
    const uint8_t model = part.model;
    if (model == static_cast<uint8_t>(Model::kConstant)) {
      if (w == 0) continue;
      // spec §8.7: R run values of w bits, then R - 1 run starts of pb bits.
      const uint64_t runs = LoadLE64(part.params + 8);
      const uint32_t pb = RunStartBits(n);
      for (uint64_t i = 0; i < runs; ++i) fn(start + i * w, w, false);
      if (pb == 0) continue;
      for (uint64_t i = 1; i < runs; ++i) fn(start + runs * w + (i - 1) * pb, pb, false);
    } else if (model == static_cast<uint8_t>(Model::kDelta)) {
      // spec §8.9: seeds, then the SLAP fields, exception rows, high parts.
      const uint64_t seeds = DeltaSeedWords(n, v);
      for (uint64_t t = 0; t < seeds; ++t) fn(start + 64 * t, 64, false);
      const uint64_t stream = start + 64 * seeds;
      if (w > 0) {
        for (uint64_t x = 0; x < n; ++x) fn(stream + SlapFieldBitOffset(n, w, v, x), w, false);
      }
      const DeltaExceptions e = UnpackDeltaExceptions(LoadLE64(part.params + 8));
      const uint32_t pb = RunStartBits(n);
      const uint64_t rows_bit = stream + n * w;
      if (pb > 0) {
        for (uint64_t i = 0; i < e.count; ++i) fn(rows_bit + i * pb, pb, false);
      }
      const uint64_t highs_bit = rows_bit + uint64_t{e.count} * pb;
      if (e.width > 0) {
        for (uint64_t i = 0; i < e.count; ++i) fn(highs_bit + i * e.width, e.width, false);
      }
    } else if (w > 0) {
      // spec §8.5: FOR_BITPACK offsets (unsigned), LINEAR/POLY residuals
      // (two's complement, zigzag mapped in the planes), in row order.
      const bool zigzag = IsPredictedModel(model);
      for (uint64_t x = 0; x < n; ++x) fn(start + SlapFieldBitOffset(n, w, v, x), w, zigzag);
    }
  }
}

// Plane k starts at the sum over j < k of the number of fields with more than
// j bytes.
std::array<uint64_t, kPlanes> PlaneStarts(const ChunkView& view) {
  std::array<uint64_t, kPlanes + 1> count{};  // count[b]: fields of b bytes
  ForEachField(view, [&](uint64_t, uint32_t w, bool) { ++count[FieldBytes(w)]; });
  std::array<uint64_t, kPlanes> start{};
  uint64_t offset = 0;
  for (int k = 0; k < kPlanes; ++k) {
    start[k] = offset;
    for (int b = k + 1; b <= kPlanes; ++b) offset += count[b];
  }
  return start;
}

}  // namespace

uint64_t FieldPlaneBytes(const ChunkView& view) {
  uint64_t total = 0;
  ForEachField(view, [&](uint64_t, uint32_t w, bool) { total += FieldBytes(w); });
  return total;
}

std::vector<uint8_t> FieldPlanesFromPayload(const ChunkView& view) {
  std::vector<uint8_t> planes(static_cast<size_t>(FieldPlaneBytes(view)));
  std::array<uint64_t, kPlanes> cursor = PlaneStarts(view);
  ForEachField(view, [&](uint64_t bit, uint32_t w, bool zigzag) {
    uint64_t value = ReadField(view.payload, bit, w);
    if (zigzag) value = ZigzagEncode(value, w);
    const uint32_t bytes = FieldBytes(w);
    for (uint32_t k = 0; k < bytes; ++k) planes[cursor[k]++] = static_cast<uint8_t>(value >> (8 * k));
  });
  return planes;
}

bool PayloadFromFieldPlanes(const ChunkView& view, const uint8_t* planes, uint8_t* payload) {
  bool canonical = true;
  std::memset(payload, 0, static_cast<size_t>(view.payload_bytes));
  std::array<uint64_t, kPlanes> cursor = PlaneStarts(view);
  ForEachField(view, [&](uint64_t bit, uint32_t w, bool zigzag) {
    const uint32_t bytes = FieldBytes(w);
    uint64_t value = 0;
    for (uint32_t k = 0; k < bytes; ++k) value |= uint64_t{planes[cursor[k]++]} << (8 * k);
    // spec §9.2: the bits of a field's top byte above its width are zero.
    // They are dropped either way, so no plane bytes can set padding bits.
    if ((value & ~LowMask(w)) != 0) canonical = false;
    value &= LowMask(w);
    if (zigzag) value = ZigzagDecode(value, w);
    WriteField(payload, bit, w, value);
  });
  return canonical;
}

}  // namespace l3::internal
