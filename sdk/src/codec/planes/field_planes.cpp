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

// Calls group(count, width, zigzag, bit_of) for every run of same-width
// fields of the payload, in the canonical field order of spec §9.2: the run's
// field i lies at payload bit bit_of(i). Runs of width 0 are skipped: their
// fields have no bytes. O(number of partitions).
template <typename Group>
void ForEachFieldRun(const ChunkView& view, Group&& group) {
  const uint32_t v = view.values_per_lane;
  for (uint32_t p = 0; p < view.num_partitions; ++p) {
    const Partition part = LoadPartition(view, p);
    const uint64_t n = part.num_rows;
    const uint32_t w = part.bit_width;
    const uint64_t start = 64 * (uint64_t{LoadPartitionRecord(view.partition_table, p).payload_offset});
    const uint8_t model = part.model;
    auto run = [&](uint64_t count, uint32_t width, bool zigzag, auto bit_of) {
      if (count != 0 && width != 0) group(count, width, zigzag, bit_of);
    };
    auto slap = [n, w, v](uint64_t base) {
      return [=](uint64_t x) { return base + SlapFieldBitOffset(n, w, v, x); };
    };
    auto packed = [](uint64_t base, uint32_t width) {
      return [=](uint64_t i) { return base + i * width; };
    };
    if (model == static_cast<uint8_t>(Model::kConstant)) {
      if (w == 0) continue;
      // spec §8.7: R run values of w bits, then R - 1 run starts of pb bits.
      const uint64_t runs = LoadLE64(part.params + 8);
      const uint32_t pb = RunStartBits(n);
      run(runs, w, false, packed(start, w));
      run(runs > 0 ? runs - 1 : 0, pb, false, packed(start + runs * w, pb));
    } else if (model == static_cast<uint8_t>(Model::kDelta)) {
      // spec §8.9: seeds, then the SLAP fields, exception rows, high parts.
      const uint64_t seeds = DeltaSeedWords(n, v);
      run(seeds, 64, false, packed(start, 64));
      const uint64_t stream = start + 64 * seeds;
      run(n, w, false, slap(stream));
      const DeltaExceptions e = UnpackDeltaExceptions(LoadLE64(part.params + 8));
      const uint32_t pb = RunStartBits(n);
      const uint64_t rows_bit = stream + n * w;
      run(e.count, pb, false, packed(rows_bit, pb));
      run(e.count, e.width, false, packed(rows_bit + uint64_t{e.count} * pb, e.width));
    } else {
      // spec §8.5: FOR_BITPACK offsets (unsigned), LINEAR/POLY residuals
      // (two's complement, zigzag mapped in the planes), in row order.
      run(n, w, IsPredictedModel(model), slap(start));
    }
  }
}

// Calls fn(bit, width, zigzag) for every field, in canonical field order.
template <typename Fn>
void ForEachField(const ChunkView& view, Fn&& fn) {
  ForEachFieldRun(view, [&](uint64_t count, uint32_t width, bool zigzag, auto bit_of) {
    for (uint64_t i = 0; i < count; ++i) fn(bit_of(i), width, zigzag);
  });
}

// Where each plane starts (plane k after the bytes k' < k of every field),
// and the length of the whole form; from the field runs alone.
struct PlaneLayout {
  std::array<uint64_t, kPlanes> start{};
  uint64_t bytes = 0;
};

PlaneLayout LayoutPlanes(const ChunkView& view) {
  std::array<uint64_t, kPlanes + 1> count{};  // count[b]: fields of b bytes
  ForEachFieldRun(view, [&](uint64_t n, uint32_t width, bool, auto) { count[FieldBytes(width)] += n; });
  PlaneLayout layout;
  for (int k = 0; k < kPlanes; ++k) {
    layout.start[k] = layout.bytes;
    for (int b = k + 1; b <= kPlanes; ++b) layout.bytes += count[b];
  }
  return layout;
}

}  // namespace

uint64_t FieldPlaneBytes(const ChunkView& view) { return LayoutPlanes(view).bytes; }

std::vector<uint8_t> FieldPlanesFromPayload(const ChunkView& view) {
  const PlaneLayout layout = LayoutPlanes(view);
  std::vector<uint8_t> planes(static_cast<size_t>(layout.bytes));
  std::array<uint64_t, kPlanes> cursor = layout.start;
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
  std::array<uint64_t, kPlanes> cursor = LayoutPlanes(view).start;
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
