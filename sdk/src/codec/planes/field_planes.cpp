// Field planes (spec §9.2). See field_planes.hpp.
#include "codec/planes/field_planes.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "codec/decode/partition_decoder.hpp"
#include "codec/decode/slap_unpack.hpp"
#include "codec/delta/delta_layout.hpp"
#include "codec/patched/patched_for_layout.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "common/bits.hpp"
#include "common/parallel.hpp"
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

// Where a run's fields lie in the payload: packed (field i at base + i *
// width) or a SLAP stream of n rows (spec §8.5) whose row x lies at base +
// SlapFieldBitOffset(n, width, v, x).
struct RunShape {
  uint64_t base = 0;
  bool slap = false;
  uint64_t n = 0;
  uint32_t v = 0;
  uint64_t BitOf(uint64_t i, uint32_t width) const {
    return slap ? base + SlapFieldBitOffset(n, width, v, i) : base + i * width;
  }
};

// Calls group(count, width, zigzag, shape) for every run of same-width
// fields of the payload, in the canonical field order of spec §9.2: the run's
// field i lies at payload bit shape.BitOf(i, width). Runs of width 0 are
// skipped: their fields have no bytes. O(number of partitions), or of the
// partitions [first_partition, end_partition) alone.
template <typename Group>
void ForEachFieldRun(const ChunkView& view, uint32_t first_partition, uint32_t end_partition,
                     Group&& group) {
  const uint32_t v = view.values_per_lane;
  for (uint32_t p = first_partition; p < end_partition; ++p) {
    const Partition part = LoadPartition(view, p);
    const uint64_t n = part.num_rows;
    const uint32_t w = part.bit_width;
    const uint64_t start = 64 * (uint64_t{LoadPartitionRecord(view.partition_table, p).payload_offset});
    const uint8_t model = part.model;
    auto run = [&](uint64_t count, uint32_t width, bool zigzag, const RunShape& shape) {
      if (count != 0 && width != 0) group(count, width, zigzag, shape);
    };
    auto slap = [n, v](uint64_t base) { return RunShape{base, true, n, v}; };
    auto packed = [](uint64_t base) { return RunShape{base, false, 0, 0}; };
    if (model == static_cast<uint8_t>(Model::kConstant)) {
      if (w == 0) continue;
      // spec §8.7: R run values of w bits, then R - 1 run starts of pb bits.
      const uint64_t runs = LoadLE64(part.params + 8);
      const uint32_t pb = RunStartBits(n);
      run(runs, w, false, packed(start));
      run(runs > 0 ? runs - 1 : 0, pb, false, packed(start + runs * w));
    } else if (model == static_cast<uint8_t>(Model::kRunsEf)) {
      // spec §8.11: R run values of w bits, R - 1 low parts of l bits, then
      // the high part H in pieces of 8 bits (the last one shorter).
      const uint64_t runs = LoadLE64(part.params + 8);
      if (!RunsEfParamsValid(n, runs, w)) continue;  // reported by the metadata checks
      const RunsEfLayout g = MakeRunsEfLayout(n, runs, w);
      run(runs, w, false, packed(start));
      run(g.starts, g.low_bits, false, packed(start + g.low_bit0));
      run(g.high_bits / 8, 8, false, packed(start + g.high_bit0));
      run(1, static_cast<uint32_t>(g.high_bits % 8), false,
          packed(start + g.high_bit0 + 8 * (g.high_bits / 8)));
    } else if (model == static_cast<uint8_t>(Model::kDelta) ||
               model == static_cast<uint8_t>(Model::kPatchedFor)) {
      // spec §8.9: seeds, then the SLAP fields, exception rows, high parts;
      // spec §8.12: the same without seeds.
      const uint64_t word = LoadLE64(part.params + 8);
      const DeltaExceptions e = UnpackDeltaExceptions(word);
      const bool delta = model == static_cast<uint8_t>(Model::kDelta);
      if (delta && !DeltaExceptionsValid(word, n, w, 64)) continue;  // reported elsewhere
      const uint64_t seeds = delta ? DeltaSeedWords(n, v, e.order) : 0;
      run(seeds, 64, false, packed(start));
      const uint64_t stream = start + 64 * seeds;
      run(n, w, false, slap(stream));
      const uint64_t rows_bit = stream + n * w;
      if (model == static_cast<uint8_t>(Model::kPatchedFor) && e.rows_ef) {
        // spec §8.12 Rows_EF: E low parts of l bits, then H in pieces of 8
        // bits as for RUNS_EF, then the high parts.
        if (!PatchedForExceptionsValid(word, n, w, 64)) continue;  // reported elsewhere
        const PatchedForExceptionLayout g = MakePatchedForExceptionLayout(n, w, e);
        run(e.count, g.low_bits, false, packed(start + g.rows_bit));
        run(g.high_bits / 8, 8, false, packed(start + g.h_bit));
        run(1, static_cast<uint32_t>(g.high_bits % 8), false,
            packed(start + g.h_bit + 8 * (g.high_bits / 8)));
        run(e.count, e.width, false, packed(start + g.highs_bit));
        continue;
      }
      const uint32_t pb = RunStartBits(n);
      run(e.count, pb, false, packed(rows_bit));
      run(e.count, e.width, false, packed(rows_bit + uint64_t{e.count} * pb));
    } else {
      // spec §8.5: FOR_BITPACK offsets (unsigned), LINEAR/POLY residuals
      // (two's complement, zigzag mapped in the planes), in row order.
      run(n, w, IsPredictedModel(model), slap(start));
    }
  }
}

template <typename Group>
void ForEachFieldRun(const ChunkView& view, Group&& group) {
  ForEachFieldRun(view, 0, static_cast<uint32_t>(view.num_partitions), group);
}

// Calls fn(bit, width, zigzag) for every field, in canonical field order.
template <typename Fn>
void ForEachField(const ChunkView& view, Fn&& fn) {
  ForEachFieldRun(view, [&](uint64_t count, uint32_t width, bool zigzag, const RunShape& shape) {
    for (uint64_t i = 0; i < count; ++i) fn(shape.BitOf(i, width), width, zigzag);
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
  ForEachFieldRun(view, [&](uint64_t n, uint32_t width, bool, const RunShape&) {
    count[FieldBytes(width)] += n;
  });
  PlaneLayout layout;
  for (int k = 0; k < kPlanes; ++k) {
    layout.start[k] = layout.bytes;
    for (int b = k + 1; b <= kPlanes; ++b) layout.bytes += count[b];
  }
  return layout;
}

}  // namespace

uint64_t FieldFormBytes(const ChunkView& view) { return LayoutPlanes(view).bytes; }

std::vector<uint8_t> FieldFormFromPayload(const ChunkView& view, FieldForm form) {
  const PlaneLayout layout = LayoutPlanes(view);
  std::vector<uint8_t> out(static_cast<size_t>(layout.bytes));
  std::array<uint64_t, kPlanes> cursor = layout.start;
  uint64_t at = 0;  // kFieldBytes: the next field's first byte
  ForEachField(view, [&](uint64_t bit, uint32_t w, bool zigzag) {
    uint64_t value = ReadField(view.payload, bit, w);
    if (zigzag) value = ZigzagEncode(value, w);
    const uint32_t bytes = FieldBytes(w);
    if (form == FieldForm::kPlanes) {
      for (uint32_t k = 0; k < bytes; ++k) out[cursor[k]++] = static_cast<uint8_t>(value >> (8 * k));
    } else {
      for (uint32_t k = 0; k < bytes; ++k) out[at++] = static_cast<uint8_t>(value >> (8 * k));
    }
  });
  return out;
}

namespace {

// Appends fields to a zeroed LSB-first bit stream (spec §8.5) from any start
// bit, one 64-bit OR per word filled.
class BitAppender {
 public:
  BitAppender(uint8_t* stream, uint64_t bit)
      : stream_(stream), word_(bit >> 6), fill_(static_cast<uint32_t>(bit & 63)) {}
  // value < 2^w, 1 <= w <= 64.
  void Put(uint64_t value, uint32_t w) {
    acc_ |= value << fill_;  // fill_ < 64
    fill_ += w;
    if (fill_ >= 64) {
      Or(word_++, acc_);
      fill_ -= 64;
      acc_ = fill_ == 0 ? 0 : value >> (w - fill_);
    }
  }
  void Flush() {
    if (fill_ != 0) Or(word_, acc_);
  }

 private:
  void Or(uint64_t word, uint64_t bits) {
    uint8_t* p = stream_ + 8 * word;
    StoreLE64(p, LoadLE64(p) | bits);
  }
  uint8_t* stream_;
  uint64_t word_;
  uint32_t fill_;
  uint64_t acc_ = 0;
};

}  // namespace

namespace {

// Packs the 64 fields f[0], f[kLanes], ..., f[63 * kLanes] (each below 2^W)
// of one SLAP lane block (spec §8.5: 64 fields of W bits, LSB first, exactly
// W 64-bit words) into `words`, storing every word: the inverse of
// UnpackLaneBlock (codec/decode/slap_unpack.hpp). After unrolling every
// shift is a constant.
template <uint32_t W>
void PackLaneBlock(const uint64_t* f, uint8_t* words) {
  if constexpr (W != 0) {
    uint64_t acc = 0;
#pragma GCC unroll 64
    for (uint32_t k = 0; k < kSlapBlockFields; ++k) {
      const uint32_t bit = k * W;
      const uint32_t shift = bit % 64;
      const uint64_t value = f[kLanes * k];
      acc |= value << shift;
      if (shift + W >= 64) {
        StoreLE64(words + 8 * (bit / 64), acc);
        acc = shift + W == 64 ? 0 : value >> (64 - shift);
      }
    }
  }
}

using PackLaneBlockFn = void (*)(const uint64_t* f, uint8_t* words);

template <uint32_t... Ws>
constexpr std::array<PackLaneBlockFn, sizeof...(Ws)> MakePackTable(
    std::integer_sequence<uint32_t, Ws...>) {
  return {&PackLaneBlock<Ws>...};
}

PackLaneBlockFn PackKernelFor(uint32_t w) {
  static constexpr auto kTable = MakePackTable(std::make_integer_sequence<uint32_t, 65>{});
  return kTable[w];
}

// Rows a SLAP stream is rebuilt by at a time: one lane block of every lane.
constexpr uint32_t kBlockRows = kLanes * kSlapBlockFields;

// One run of fields of kBytes bytes each (see PayloadFromFieldForm): byte k
// of the run's field i is plane[k][i * kStride] (kStride 1 in the planes,
// kBytes in the field bytes). ORs into `stray` the bits above the width
// found in the top bytes.
template <uint32_t kBytes, uint32_t kStride, bool kZigzag>
void RebuildRun(const uint8_t* const* plane, uint64_t count, uint32_t w, const RunShape& shape,
                uint8_t* payload, uint64_t* stray) {
  const uint64_t mask = LowMask(w);
  uint64_t high = 0;
  auto field = [&](uint64_t i) {
    uint64_t value = 0;
    for (uint32_t k = 0; k < kBytes; ++k) value |= uint64_t{plane[k][i * kStride]} << (8 * k);
    high |= value & ~mask;
    value &= mask;
    return kZigzag ? ZigzagDecode(value, w) : value;
  };
  if (!shape.slap) {
    BitAppender out(payload, shape.base);
    for (uint64_t i = 0; i < count; ++i) out.Put(field(i), w);
    out.Flush();
    *stray |= high;
    return;
  }
  // spec §8.5 stream order: tile by tile, lane by lane, row by row within
  // the lane (rows lane, lane + 32, ... of the tile). In whole lane blocks
  // the fields are read in row order, kBlockRows at a time, into `rows`, and
  // packed lane by lane from there.
  const uint64_t tile_rows = uint64_t{kLanes} * shape.v;
  const uint64_t full_tiles = count / tile_rows;
  // In a full tile, lane L's fields are V / 64 lane blocks of exactly w
  // words from bit base + (tile * 32 * V + L * V) * w on: whole words where
  // the stream starts on one.
  const bool whole_blocks = shape.v % kSlapBlockFields == 0 && shape.base % 64 == 0;
  const PackLaneBlockFn pack = PackKernelFor(w);
  uint64_t rows[kBlockRows];
  for (uint64_t tile = 0, first = 0; first < count; ++tile, first += tile_rows) {
    const uint64_t n = count - first < tile_rows ? count - first : tile_rows;
    if (tile < full_tiles && whole_blocks) {
      uint8_t* tile_words = payload + (shape.base + first * w) / 8;
      for (uint64_t b = 0; b < n / kBlockRows; ++b) {
        for (uint32_t i = 0; i < kBlockRows; ++i) rows[i] = field(first + b * kBlockRows + i);
        for (uint32_t lane = 0; lane < kLanes; ++lane) {
          pack(rows + lane, tile_words + w * (uint64_t{lane} * shape.v + b * 64) / 8);
        }
      }
      continue;
    }
    BitAppender out(payload, shape.base + first * w);
    for (uint32_t lane = 0; lane < kLanes && lane < n; ++lane) {
      for (uint64_t x = first + lane; x < first + n; x += kLanes) out.Put(field(x), w);
    }
    out.Flush();
  }
  *stray |= high;
}

template <uint32_t kBytes>
void RebuildRun(const uint8_t* const* plane, FieldForm form, uint64_t count, uint32_t w,
                bool zigzag, const RunShape& shape, uint8_t* payload, uint64_t* stray) {
  if (form == FieldForm::kPlanes) {
    if (zigzag) {
      RebuildRun<kBytes, 1, true>(plane, count, w, shape, payload, stray);
    } else {
      RebuildRun<kBytes, 1, false>(plane, count, w, shape, payload, stray);
    }
  } else if (zigzag) {
    RebuildRun<kBytes, kBytes, true>(plane, count, w, shape, payload, stray);
  } else {
    RebuildRun<kBytes, kBytes, false>(plane, count, w, shape, payload, stray);
  }
}

// Where the rebuild of partitions [first_partition, ...) starts reading:
// the plane cursors (kPlanes) or the field byte (kFieldBytes).
struct FormCursor {
  std::array<uint64_t, kPlanes> plane{};
  uint64_t at = 0;
};

// Zeroes the payload words of partitions [first, end) (and, for the last
// partition, everything after them: the padding) and writes their fields
// from the form, starting at `cursor`. Returns the stray bits found.
uint64_t RebuildPartitions(const ChunkView& view, FieldForm form, const uint8_t* data,
                           uint32_t first, uint32_t end, FormCursor cursor, uint8_t* payload) {
  const auto byte_of = [&](uint32_t p) {
    return 8 * uint64_t{LoadPartitionRecord(view.partition_table, p).payload_offset};
  };
  const uint64_t from = first == 0 ? 0 : byte_of(first);
  const uint64_t to = end == view.num_partitions ? view.payload_bytes : byte_of(end);
  std::memset(payload + from, 0, static_cast<size_t>(to - from));
  uint64_t stray = 0;  // bits above a field's width in its top byte (spec §9.2)
  ForEachFieldRun(view, first, end,
                  [&](uint64_t count, uint32_t w, bool zigzag, const RunShape& shape) {
    // In the planes, the run's fields are consecutive in every plane it
    // has: field i's byte k is data[cursor.plane[k] + i]. In the field bytes
    // they are consecutive fields: byte k of field i is data[at + i * bytes
    // + k]. The payload is written in stream order; the stray bits are
    // dropped either way, so no byte of the form sets padding.
    const uint32_t bytes = FieldBytes(w);
    const uint8_t* plane[kPlanes];
    for (uint32_t k = 0; k < bytes; ++k) {
      plane[k] = form == FieldForm::kPlanes ? data + cursor.plane[k] : data + cursor.at + k;
    }
    switch (bytes) {
      case 1: RebuildRun<1>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 2: RebuildRun<2>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 3: RebuildRun<3>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 4: RebuildRun<4>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 5: RebuildRun<5>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 6: RebuildRun<6>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      case 7: RebuildRun<7>(plane, form, count, w, zigzag, shape, payload, &stray); break;
      default: RebuildRun<8>(plane, form, count, w, zigzag, shape, payload, &stray); break;
    }
    for (uint32_t k = 0; k < bytes; ++k) cursor.plane[k] += count;
    cursor.at += count * bytes;
  });
  return stray;
}

}  // namespace

bool PayloadFromFieldForm(const ChunkView& view, FieldForm form, const uint8_t* data,
                          uint8_t* payload, int threads) {
  const auto partitions = static_cast<uint32_t>(view.num_partitions);
  if (partitions == 0) {
    std::memset(payload, 0, static_cast<size_t>(view.payload_bytes));
    return true;
  }
  // Groups of consecutive partitions with about the same payload words,
  // each rebuilt by one thread from the cursors where its first partition
  // starts (one pass over the field runs finds them).
  constexpr uint64_t kMinGroupBytes = uint64_t{1} << 20;
  uint64_t groups = threads > 1 ? static_cast<uint64_t>(threads) : 1;
  groups = std::min<uint64_t>({groups, partitions, view.payload_bytes / kMinGroupBytes + 1});
  std::vector<uint32_t> first{0};
  std::vector<FormCursor> cursors{FormCursor{LayoutPlanes(view).start, 0}};
  if (groups > 1) {
    FormCursor cursor = cursors[0];
    const uint64_t total_words = view.payload_bytes / 8;
    for (uint32_t p = 0; p < partitions; ++p) {
      const uint64_t word = LoadPartitionRecord(view.partition_table, p).payload_offset;
      if (p > first.back() && word >= total_words / groups * first.size()) {
        first.push_back(p);
        cursors.push_back(cursor);
        if (first.size() == groups) break;
      }
      ForEachFieldRun(view, p, p + 1, [&](uint64_t count, uint32_t w, bool, const RunShape&) {
        for (uint32_t k = 0; k < FieldBytes(w); ++k) cursor.plane[k] += count;
        cursor.at += count * FieldBytes(w);
      });
    }
  }
  first.push_back(partitions);
  std::vector<uint64_t> stray(first.size() - 1, 0);
  RunSlices(stray.size(), [&](size_t g) {
    stray[g] = RebuildPartitions(view, form, data, first[g], first[g + 1], cursors[g], payload);
  });
  for (uint64_t bits : stray) {
    if (bits != 0) return false;
  }
  return true;
}

}  // namespace l3::internal
