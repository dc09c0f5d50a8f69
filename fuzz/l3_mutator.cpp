// l3_mutator.cpp: the structure-aware mutator of the reader target
// (LLVMFuzzerCustomMutator).
//
// A plain byte mutation of an .l3 file almost always breaks a checksum
// (spec §5): the postscript's, the footer's, or the CRC32C of a segment in its
// SegmentRef. The Reader then stops at CHECKSUM_MISMATCH and never reaches
// the semantic checks behind it. Half of the mutations here are therefore
// made with knowledge of the layout, and the checksums they break are
// recomputed as the spec defines them:
//
// - a scalar of the footer (a Footer, Column, ColumnChunk, ChunkStatistics or
//   PgmIndex field, or a field of a SegmentRef other than its checksum) or a
//   feature bit set / Format_Minor of the postscript is set to an
//   interesting value (0, 1, neighbours, extremes, a single bit flipped, the
//   value of another field of the same width);
// - a field of a partition record (spec §7.3) is set the same way;
// - bytes inside a segment or inside the footer are mutated in place by
//   libFuzzer (LLVMFuzzerMutate on that window, length kept).
//
// A zstd segment (spec §9) is decompressed first, its decoded bytes mutated
// and compressed again; the new frame is written back only if it ends in the
// same 64-byte block as the old one, so the canonical layout (§4.3) holds.
// Afterwards the segment's checksum is written into its SegmentRef, then
// Footer_Checksum and Postscript_Checksum (§4.2) are recomputed. The footer
// keeps its length: FlatBuffers fields are edited where they are.
//
// The other half of the mutations are plain LLVMFuzzerMutate calls on the
// whole input, so checksum and framing faults are fuzzed as well.
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/crc32c.hpp"
#include "format/framing.hpp"
#include "fuzz_check.hpp"
#include "l3_generated.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace l3::fuzz {
namespace {

constexpr size_t kPostscriptBytes = 64;
constexpr size_t kFooterChecksumAt = 40;      // within the postscript
constexpr size_t kPostscriptChecksumAt = 52;  // covers postscript bytes 0..51
constexpr size_t kRefChecksumAt = 24;         // within a SegmentRef
constexpr size_t kRefStoredLengthAt = 8;
constexpr uint64_t kMaxDecodedBytes = uint64_t{1} << 20;  // zstd segments the mutator opens

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  uint64_t Next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t s_;
};

uint64_t Load(const uint8_t* p, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
void Store(uint8_t* p, int width, uint64_t v) {
  for (int i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

struct Field {
  size_t at;  // file offset of a little-endian scalar
  int width;
};

struct Segment {
  size_t ref_at;  // file offset of the SegmentRef
  uint64_t offset, stored, decoded;
  uint8_t compression;
  bool partition_table;
};

/// The parts of a file the mutator knows how to edit.
struct FileMap {
  uint64_t footer_offset = 0, footer_length = 0;
  bool footer_verified = false;
  std::vector<Field> fields;
  std::vector<Segment> segments;
};

class Mapper {
 public:
  Mapper(const uint8_t* file, size_t size, FileMap* map) : file_(file), size_(size), map_(map) {}

  void Scalar(const void* table, uint16_t vt, int width) {
    if (table == nullptr) return;
    const auto* t = static_cast<const flatbuffers::Table*>(table);
    const uint16_t at = t->GetOptionalFieldOffset(vt);
    if (at != 0) map_->fields.push_back({Pos(t) + at, width});
  }
  template <typename T>
  void Elements(const flatbuffers::Vector<T>* v, int width, size_t most) {
    if (v == nullptr) return;
    for (size_t i = 0; i < v->size() && i < most; ++i) {
      map_->fields.push_back({Pos(v->Data()) + i * width, width});
    }
  }
  // The fields are read as bytes: a SegmentRef in a vector (the segment
  // table) need not be 8-aligned (spec §6).
  void Ref(const fbs::SegmentRef* ref, bool partition_table) {
    if (ref == nullptr) return;
    const size_t at = Pos(ref);
    for (size_t f : {0, 8, 16}) map_->fields.push_back({at + f, 8});
    map_->fields.push_back({at + 28, 1});  // compression
    map_->fields.push_back({at + 29, 1});  // reserved_0
    const uint64_t offset = Load(file_ + at, 8), stored = Load(file_ + at + 8, 8);
    if (offset <= size_ && stored <= size_ - offset) {
      map_->segments.push_back(
          {at, offset, stored, Load(file_ + at + 16, 8), file_[at + 28], partition_table});
    }
  }

 private:
  size_t Pos(const void* p) const {
    return static_cast<size_t>(static_cast<const uint8_t*>(p) - file_);
  }
  const uint8_t* file_;
  size_t size_;
  FileMap* map_;
};

bool MapFile(const uint8_t* file, size_t size, FileMap* map) {
  if (size < 2 * kPostscriptBytes) return false;
  const size_t ps = size - kPostscriptBytes;
  map->footer_offset = Load(file + ps, 8);
  map->footer_length = Load(file + ps + 8, 8);
  if (map->footer_offset < kPostscriptBytes || map->footer_offset > ps ||
      map->footer_length != ps - map->footer_offset) {
    return false;
  }
  map->fields.push_back({ps + 16, 8});  // Required_Features
  map->fields.push_back({ps + 24, 8});  // Optional_Features
  map->fields.push_back({ps + 34, 2});  // Format_Minor (the header's stays)

  const uint8_t* footer = file + map->footer_offset;
  // The mutator's input is libFuzzer's copy, which is at least 8-aligned, and
  // Footer_Offset is a multiple of 64 in any file worth mapping.
  if (map->footer_offset % 64 != 0 || reinterpret_cast<uintptr_t>(file) % 8 != 0) return true;
  flatbuffers::Verifier verifier(footer, static_cast<size_t>(map->footer_length));
  if (!fbs::VerifyFooterBuffer(verifier)) return true;
  map->footer_verified = true;

  Mapper m(file, size, map);
  const fbs::Footer* f = fbs::GetFooter(footer);
  m.Scalar(f, fbs::Footer::VT_NUM_ROWS, 8);
  if (const auto* table = f->segments()) {
    for (uint32_t i = 0; i < table->size(); ++i) {
      m.Ref(reinterpret_cast<const fbs::SegmentRef*>(table->Data() + i * sizeof(fbs::SegmentRef)),
            false);
    }
  }
  for (const fbs::Column* col : *f->columns()) {
    m.Scalar(col, fbs::Column::VT_PHYSICAL_TYPE, 1);
    m.Scalar(col, fbs::Column::VT_NULLABLE, 1);
    if (col->chunks() == nullptr) continue;
    for (const fbs::ColumnChunk* chunk : *col->chunks()) {
      m.Scalar(chunk, fbs::ColumnChunk::VT_NUM_ROWS, 8);
      m.Scalar(chunk, fbs::ColumnChunk::VT_ENCODING, 2);
      m.Scalar(chunk, fbs::ColumnChunk::VT_VALUES_PER_LANE, 2);
      m.Scalar(chunk, fbs::ColumnChunk::VT_NUM_PARTITIONS, 4);
      m.Scalar(chunk, fbs::ColumnChunk::VT_DICTIONARY_ENTRIES, 8);
      m.Ref(chunk->partition_table(), true);
      m.Ref(chunk->parameters(), false);
      m.Ref(chunk->payload(), false);
      m.Ref(chunk->bounds(), false);
      m.Ref(chunk->validity(), false);
      if (const fbs::ChunkStatistics* s = chunk->statistics()) {
        m.Scalar(s, fbs::ChunkStatistics::VT_HAS_MIN_MAX, 1);
        m.Scalar(s, fbs::ChunkStatistics::VT_MIN_VALUE, 8);
        m.Scalar(s, fbs::ChunkStatistics::VT_MAX_VALUE, 8);
        m.Scalar(s, fbs::ChunkStatistics::VT_NULL_COUNT, 8);
        m.Scalar(s, fbs::ChunkStatistics::VT_DISTINCT_COUNT, 8);
        m.Scalar(s, fbs::ChunkStatistics::VT_DISTINCT_COUNT_EXACT, 1);
      }
      if (const fbs::PgmIndex* p = chunk->pgm()) {
        m.Scalar(p, fbs::PgmIndex::VT_EPSILON, 4);
        m.Scalar(p, fbs::PgmIndex::VT_EPSILON_RECURSIVE, 4);
        m.Scalar(p, fbs::PgmIndex::VT_NUM_KEYS, 8);
        m.Elements(p->level_offsets(), 4, 8);
        m.Elements(p->segment_keys(), 8, 16);
        m.Elements(p->segment_slopes(), 4, 16);
        m.Elements(p->segment_intercepts(), 8, 16);
      }
    }
  }
  return true;
}

/// A new value for a scalar of `width` bytes that holds `v`.
uint64_t Interesting(Rng& rng, uint64_t v, int width, const FileMap& map, const uint8_t* file) {
  const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
  uint64_t out = 0;
  switch (rng.Below(11)) {
    case 0: out = 0; break;
    case 1: out = 1; break;
    case 2: out = v + 1 + rng.Below(4); break;
    case 3: out = v - 1 - rng.Below(4); break;
    case 4: out = mask; break;
    case 5: out = uint64_t{1} << (8 * width - 1); break;
    case 6: out = v ^ (uint64_t{1} << rng.Below(8 * width)); break;
    case 7: out = v * 2; break;
    case 8: out = v / 2; break;
    case 9: {  // the value of another field of the same width
      const Field& other = map.fields[rng.Below(map.fields.size())];
      out = other.width == width ? Load(file + other.at, width) : rng.Next();
      break;
    }
    default: out = rng.Next() >> rng.Below(64); break;
  }
  return out & mask;
}

/// Mutates `bytes` (a segment's decoded contents) in place, length kept.
void MutateContents(Rng& rng, uint8_t* bytes, size_t size, bool partition_table,
                    const FileMap& map, const uint8_t* file) {
  if (size == 0) return;
  if (partition_table && size >= 16 && rng.Below(4) != 0) {
    // spec §7.3: First_Row, Payload_Offset, Param_Offset (u32), Model_Type,
    // Bit_Width (u8), Reserved (u16); the last record is the sentinel.
    static constexpr struct {
      size_t at;
      int width;
    } kRecordFields[] = {{0, 4}, {4, 4}, {8, 4}, {12, 1}, {13, 1}, {14, 2}};
    const size_t record = rng.Below(size / 16);
    const auto& field = kRecordFields[rng.Below(6)];
    uint8_t* p = bytes + record * 16 + field.at;
    Store(p, field.width, Interesting(rng, Load(p, field.width), field.width, map, file));
    return;
  }
  const size_t window = 1 + rng.Below(std::min<size_t>(size, 16));
  const size_t at = rng.Below(size - window + 1);
  LLVMFuzzerMutate(bytes + at, window, window);
}

uint64_t Align64(uint64_t n) { return (n + 63) / 64 * 64; }

/// Mutates the contents of `seg` and rewrites its checksum (and, for a zstd
/// segment, its frame and stored_length). False if nothing was changed.
bool MutateSegment(Rng& rng, uint8_t* file, const FileMap& map, const Segment& seg) {
  uint8_t* stored = file + seg.offset;
  if (seg.compression == 0) {
    MutateContents(rng, stored, static_cast<size_t>(seg.stored), seg.partition_table, map, file);
  } else {
    if (seg.decoded > kMaxDecodedBytes || seg.stored == 0) return false;
    std::vector<uint8_t> decoded(static_cast<size_t>(seg.decoded));
    // A ZstdFieldPlanes or ZstdFieldBytes frame holds a field form, whose
    // length is its content size rather than decoded_length (spec §9.2, §9.3).
    const unsigned long long content = ZSTD_getFrameContentSize(stored, seg.stored);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != ZSTD_CONTENTSIZE_ERROR &&
        content <= kMaxDecodedBytes) {
      decoded.resize(static_cast<size_t>(content));
    }
    const size_t n = ZSTD_decompress(decoded.data(), decoded.size(), stored, seg.stored);
    if (ZSTD_isError(n) || n != decoded.size()) return false;
    MutateContents(rng, decoded.data(), decoded.size(), seg.partition_table && seg.compression == 1,
                   map, file);
    std::vector<uint8_t> frame(ZSTD_compressBound(decoded.size()));
    const size_t m = ZSTD_compress(frame.data(), frame.size(), decoded.data(), decoded.size(), 1);
    if (ZSTD_isError(m) || m == 0 || Align64(m) != Align64(seg.stored)) return false;
    std::memcpy(stored, frame.data(), m);
    std::memset(stored + m, 0, static_cast<size_t>(Align64(seg.stored) - m));
    Store(file + seg.ref_at + kRefStoredLengthAt, 8, m);
    Store(file + seg.ref_at + kRefChecksumAt, 4, internal::Crc32c(0, stored, m));
    return true;
  }
  Store(file + seg.ref_at + kRefChecksumAt, 4,
        internal::Crc32c(0, stored, static_cast<size_t>(seg.stored)));
  return true;
}

/// One structure-aware edit; false if it could not be made.
bool MutateOnce(Rng& rng, uint8_t* file, size_t size) {
  FileMap map;
  if (!MapFile(file, size, &map)) return false;
  switch (rng.Below(4)) {
    case 0:
    case 1: {  // a footer or postscript scalar
      if (map.fields.empty()) return false;
      const Field& f = map.fields[rng.Below(map.fields.size())];
      Store(file + f.at, f.width, Interesting(rng, Load(file + f.at, f.width), f.width, map, file));
      break;
    }
    case 2: {  // a segment's contents, a partition table twice as often
      if (map.segments.empty()) return false;
      const Segment* seg = &map.segments[rng.Below(map.segments.size())];
      if (!seg->partition_table && rng.Below(2) == 0) {
        for (const Segment& s : map.segments) {
          if (s.partition_table && rng.Below(2) == 0) seg = &s;
        }
      }
      if (!MutateSegment(rng, file, map, *seg)) return false;
      break;
    }
    default: {  // raw bytes of the footer
      if (map.footer_length == 0) return false;
      const size_t window = 1 + rng.Below(std::min<uint64_t>(map.footer_length, 8));
      const size_t at = map.footer_offset + rng.Below(map.footer_length - window + 1);
      LLVMFuzzerMutate(file + at, window, window);
      break;
    }
  }
  // spec §4.2 and §5: Footer_Checksum, then Postscript_Checksum.
  const size_t ps = size - kPostscriptBytes;
  Store(file + ps + kFooterChecksumAt, 4,
        internal::Crc32c(0, file + map.footer_offset, static_cast<size_t>(map.footer_length)));
  Store(file + ps + kPostscriptChecksumAt, 4, internal::Crc32c(0, file + ps, kPostscriptChecksumAt));
  return true;
}

}  // namespace

/// Up to three structure-aware edits of the .l3 file `data`; the size is
/// kept. Returns 0 when the input is not framed well enough to edit.
size_t MutateL3(uint8_t* data, size_t size, unsigned int seed) {
  Rng rng(seed);
  const int edits = 1 + static_cast<int>(rng.Below(3));
  bool changed = false;
  for (int i = 0; i < edits; ++i) changed = MutateOnce(rng, data, size) || changed;
  if (!changed) return 0;
  // The edits never break the postscript or footer checksum.
  internal::Postscript ps;
  const Status framing = internal::ParseFraming(data, size, internal::FramingOptions{}, &ps);
  L3_FUZZ_CHECK(framing.code() != StatusCode::kChecksumMismatch,
                "the mutator left a wrong checksum: " + framing.ToString());
  return size;
}

}  // namespace l3::fuzz

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  if (seed % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const size_t n = l3::fuzz::MutateL3(data, size, seed / 2);
  return n != 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}
