#include "file_builder.hpp"

#include <flatbuffers/flatbuffers.h>

#include <cstring>

#include "l3_future_generated.h"
#include "l3_generated.h"

namespace l3::conformance {

const uint8_t kMagic[8] = {0x89, 0x4C, 0x33, 0x46, 0x0D, 0x0A, 0x1A, 0x0A};

uint32_t Crc32c(const uint8_t* data, size_t size) {
  // spec §5: reflected polynomial 0x82F63B78, init and final XOR 0xFFFFFFFF.
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

HeaderFields::HeaderFields() { std::memcpy(magic, kMagic, 8); }
PostscriptFields::PostscriptFields() { std::memcpy(magic, kMagic, 8); }

namespace {

namespace fbs = l3::fbs;
namespace fut = l3::conformance_future;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using flatbuffers::uoffset_t;

fbs::SegmentRef ToStruct(const SegRef& s) {
  return fbs::SegmentRef(s.offset, s.stored_length, s.decoded_length, s.checksum,
                         static_cast<fbs::Compression>(s.compression), s.reserved_0, s.reserved_1);
}

template <typename T>
void AddIf(FlatBufferBuilder& fbb, flatbuffers::voffset_t vt, const std::optional<T>& v) {
  if (v) fbb.AddElement<T>(vt, *v, T{});
}

void AddSeg(FlatBufferBuilder& fbb, flatbuffers::voffset_t vt, const std::optional<SegRef>& s,
            fbs::SegmentRef* storage) {
  if (!s) return;
  *storage = ToStruct(*s);
  fbb.AddStruct(vt, storage);
}

uoffset_t BuildChunk(FlatBufferBuilder& fbb, const ChunkModel& c, bool future) {
  uoffset_t stats = 0, ibp = 0, pgm = 0, future_table = 0;
  if (c.statistics) {
    const Statistics& s = *c.statistics;
    uoffset_t sketch = 0;
    if (!s.distinct_sketch.empty()) sketch = fbb.CreateVector(s.distinct_sketch).o;
    const uoffset_t start = fbb.StartTable();
    if (sketch != 0) {
      fbb.AddOffset(fbs::ChunkStatistics::VT_DISTINCT_SKETCH, Offset<flatbuffers::Vector<uint8_t>>(sketch));
    }
    fbb.AddElement<uint64_t>(fbs::ChunkStatistics::VT_MIN_VALUE, s.min_value, 0);
    fbb.AddElement<uint64_t>(fbs::ChunkStatistics::VT_MAX_VALUE, s.max_value, 0);
    fbb.AddElement<uint64_t>(fbs::ChunkStatistics::VT_NULL_COUNT, s.null_count, 0);
    fbb.AddElement<uint64_t>(fbs::ChunkStatistics::VT_DISTINCT_COUNT, s.distinct_count, 0);
    if (future) fbb.AddElement<uint64_t>(fut::ChunkStatistics::VT_NAN_COUNT, 0, 1);
    fbb.AddElement<uint8_t>(fbs::ChunkStatistics::VT_HAS_MIN_MAX, s.has_min_max, 0);
    fbb.AddElement<uint8_t>(fbs::ChunkStatistics::VT_DISTINCT_COUNT_EXACT, s.distinct_count_exact, 0);
    stats = fbb.EndTable(start);
  }
  if (c.ibp) {
    fbs::SegmentRef masks, row_bitmask, row_offsets, cluster_ids;
    const uoffset_t start = fbb.StartTable();
    fbb.AddElement<uint64_t>(fbs::IbpMasks::VT_NUM_VECTORS, c.ibp->num_vectors, 0);
    AddSeg(fbb, fbs::IbpMasks::VT_MASKS, c.ibp->masks, &masks);
    // Format 1.1 fields (spec §11.2.3), written only when set.
    AddSeg(fbb, fbs::IbpMasks::VT_ROW_BITMASK, c.ibp->row_bitmask, &row_bitmask);
    AddSeg(fbb, fbs::IbpMasks::VT_ROW_OFFSETS, c.ibp->row_offsets, &row_offsets);
    AddSeg(fbb, fbs::IbpMasks::VT_CLUSTER_IDS, c.ibp->cluster_ids, &cluster_ids);
    fbb.AddElement<uint32_t>(fbs::IbpMasks::VT_VECTOR_LENGTH, c.ibp->vector_length, 0);
    AddIf(fbb, fbs::IbpMasks::VT_THRESHOLD, c.ibp->threshold);
    AddIf(fbb, fbs::IbpMasks::VT_NUM_CLUSTERS, c.ibp->num_clusters);
    fbb.AddElement<uint8_t>(fbs::IbpMasks::VT_ELEMENT_BYTES, c.ibp->element_bytes, 0);
    AddIf(fbb, fbs::IbpMasks::VT_LAYOUT, c.ibp->layout);
    AddIf(fbb, fbs::IbpMasks::VT_OFFSET_BITS, c.ibp->offset_bits);
    ibp = fbb.EndTable(start);
  }
  if (c.pgm) {
    const auto levels = fbb.CreateVector(c.pgm->level_offsets);
    flatbuffers::Offset<flatbuffers::Vector<uint64_t>> keys = 0, intercepts = 0;
    flatbuffers::Offset<flatbuffers::Vector<float>> slopes = 0;
    if (c.pgm->segment_keys) keys = fbb.CreateVector(*c.pgm->segment_keys);
    if (c.pgm->segment_slopes) slopes = fbb.CreateVector(*c.pgm->segment_slopes);
    if (c.pgm->segment_intercepts) intercepts = fbb.CreateVector(*c.pgm->segment_intercepts);
    fbs::SegmentRef segments;
    const uoffset_t start = fbb.StartTable();
    if (!keys.IsNull()) fbb.AddOffset(fbs::PgmIndex::VT_SEGMENT_KEYS, keys);
    if (!slopes.IsNull()) fbb.AddOffset(fbs::PgmIndex::VT_SEGMENT_SLOPES, slopes);
    if (!intercepts.IsNull()) fbb.AddOffset(fbs::PgmIndex::VT_SEGMENT_INTERCEPTS, intercepts);
    if (c.pgm->epsilon_recursive) {
      fbb.AddElement<uint32_t>(fbs::PgmIndex::VT_EPSILON_RECURSIVE, *c.pgm->epsilon_recursive, 0);
    }
    fbb.AddElement<uint64_t>(fbs::PgmIndex::VT_NUM_KEYS, c.pgm->num_keys, 0);
    AddSeg(fbb, fbs::PgmIndex::VT_SEGMENTS, c.pgm->segments, &segments);
    fbb.AddElement<uint32_t>(fbs::PgmIndex::VT_EPSILON, c.pgm->epsilon, 0);
    fbb.AddOffset(fbs::PgmIndex::VT_LEVEL_OFFSETS, levels);
    pgm = fbb.EndTable(start);
  }
  if (future) {
    future_table = fut::CreateFutureInfo(fbb, fbb.CreateString("chunk-level addition"), 7).o;
  }
  fbs::SegmentRef pt, params, payload, bounds, validity;
  const uoffset_t start = fbb.StartTable();
  AddIf(fbb, fbs::ColumnChunk::VT_NUM_ROWS, c.num_rows);
  AddSeg(fbb, fbs::ColumnChunk::VT_PARTITION_TABLE, c.partition_table, &pt);
  AddSeg(fbb, fbs::ColumnChunk::VT_PARAMETERS, c.parameters, &params);
  AddSeg(fbb, fbs::ColumnChunk::VT_PAYLOAD, c.payload, &payload);
  AddSeg(fbb, fbs::ColumnChunk::VT_BOUNDS, c.bounds, &bounds);
  AddSeg(fbb, fbs::ColumnChunk::VT_VALIDITY, c.validity, &validity);
  AddIf(fbb, fbs::ColumnChunk::VT_NUM_PARTITIONS, c.num_partitions);
  AddIf(fbb, fbs::ColumnChunk::VT_DICTIONARY_ENTRIES, c.dictionary_entries);
  if (stats != 0) fbb.AddOffset(fbs::ColumnChunk::VT_STATISTICS, Offset<void>(stats));
  if (ibp != 0) fbb.AddOffset(fbs::ColumnChunk::VT_IBP, Offset<void>(ibp));
  if (pgm != 0) fbb.AddOffset(fbs::ColumnChunk::VT_PGM, Offset<void>(pgm));
  if (future) {
    fbb.AddElement<uint32_t>(fut::ColumnChunk::VT_FUTURE_HINT, 0xC0FFEE, 0);
    fbb.AddOffset(fut::ColumnChunk::VT_FUTURE_TABLE, Offset<void>(future_table));
  }
  AddIf(fbb, fbs::ColumnChunk::VT_ENCODING, c.encoding);
  AddIf(fbb, fbs::ColumnChunk::VT_VALUES_PER_LANE, c.values_per_lane);
  return fbb.EndTable(start);
}

uoffset_t BuildColumn(FlatBufferBuilder& fbb, const ColumnModel& col, bool future) {
  uoffset_t name = 0, logical = 0, chunks = 0, note = 0;
  if (col.name) name = fbb.CreateString(col.name->data(), col.name->size()).o;
  if (col.logical) {
    uoffset_t tz = 0;
    if (col.logical->timezone) tz = fbb.CreateString(*col.logical->timezone).o;
    const uoffset_t start = fbb.StartTable();
    if (tz != 0) fbb.AddOffset(fbs::LogicalType::VT_TIMEZONE, Offset<void>(tz));
    fbb.AddElement<uint16_t>(fbs::LogicalType::VT_KIND, col.logical->kind, 0);
    fbb.AddElement<uint8_t>(fbs::LogicalType::VT_TIME_UNIT, col.logical->time_unit, 0);
    fbb.AddElement<uint8_t>(fbs::LogicalType::VT_PRECISION, col.logical->precision, 0);
    fbb.AddElement<int8_t>(fbs::LogicalType::VT_SCALE, col.logical->scale, 0);
    logical = fbb.EndTable(start);
  }
  if (col.chunks) {
    std::vector<Offset<fbs::ColumnChunk>> offsets;
    for (const ChunkModel& c : *col.chunks) offsets.emplace_back(BuildChunk(fbb, c, future));
    chunks = fbb.CreateVector(offsets).o;
  }
  if (future) note = fbb.CreateString("column-level addition").o;
  const uoffset_t start = fbb.StartTable();
  if (name != 0) fbb.AddOffset(fbs::Column::VT_NAME, Offset<void>(name));
  if (logical != 0) fbb.AddOffset(fbs::Column::VT_LOGICAL_TYPE, Offset<void>(logical));
  if (chunks != 0) fbb.AddOffset(fbs::Column::VT_CHUNKS, Offset<void>(chunks));
  if (future) fbb.AddOffset(fut::Column::VT_FUTURE_NOTE, Offset<void>(note));
  AddIf(fbb, fbs::Column::VT_ROW_WIDTH, col.row_width);
  AddIf(fbb, fbs::Column::VT_PHYSICAL_TYPE, col.physical_type);
  if (col.nullable) fbb.AddElement<uint8_t>(fbs::Column::VT_NULLABLE, *col.nullable, 0);
  if (future) fbb.AddElement<uint8_t>(fut::Column::VT_FUTURE_FLAG, 1, 0);
  return fbb.EndTable(start);
}

}  // namespace

Bytes SerializeFooter(const FooterModel& f) {
  FlatBufferBuilder fbb(4096);
  fbb.ForceDefaults(true);
  uoffset_t columns = 0, writer = 0, metadata = 0, future_table = 0, future_vector = 0,
            segments = 0;
  if (f.columns) {
    std::vector<Offset<fbs::Column>> offsets;
    for (const ColumnModel& c : *f.columns) offsets.emplace_back(BuildColumn(fbb, c, f.future_fields));
    columns = fbb.CreateVector(offsets).o;
  }
  if (f.writer) {
    const auto name = fbb.CreateString(f.writer->first);
    const auto version = fbb.CreateString(f.writer->second);
    const uoffset_t start = fbb.StartTable();
    fbb.AddOffset(fbs::WriterInfo::VT_NAME, name);
    fbb.AddOffset(fbs::WriterInfo::VT_VERSION, version);
    writer = fbb.EndTable(start);
  }
  if (f.metadata) {
    std::vector<Offset<fbs::KeyValue>> kvs;
    for (const KeyValueModel& kv : *f.metadata) {
      uoffset_t key = 0, value = 0;
      if (kv.key) key = fbb.CreateString(kv.key->data(), kv.key->size()).o;
      if (kv.value) value = fbb.CreateString(kv.value->data(), kv.value->size()).o;
      const uoffset_t start = fbb.StartTable();
      if (key != 0) fbb.AddOffset(fbs::KeyValue::VT_KEY, Offset<void>(key));
      if (value != 0) fbb.AddOffset(fbs::KeyValue::VT_VALUE, Offset<void>(value));
      kvs.emplace_back(fbb.EndTable(start));
    }
    metadata = fbb.CreateVector(kvs).o;
  }
  if (f.segments) {
    std::vector<fbs::SegmentRef> refs;
    for (const SegRef& s : *f.segments) refs.push_back(ToStruct(s));
    segments = fbb.CreateVectorOfStructs(refs).o;
  }
  if (f.future_fields) {
    future_table = fut::CreateFutureInfo(fbb, fbb.CreateString("footer-level addition"), 2).o;
    future_vector = fbb.CreateVector(std::vector<uint64_t>{1, 2, 3}).o;
  }
  const uoffset_t start = fbb.StartTable();
  AddIf(fbb, fbs::Footer::VT_NUM_ROWS, f.num_rows);
  if (f.future_fields) {
    fbb.AddElement<uint64_t>(fut::Footer::VT_CREATED_AT, 1795000000, 0);
    fbb.AddOffset(fut::Footer::VT_FUTURE_TABLE, Offset<void>(future_table));
    fbb.AddOffset(fut::Footer::VT_FUTURE_VECTOR, Offset<void>(future_vector));
  }
  if (columns != 0) fbb.AddOffset(fbs::Footer::VT_COLUMNS, Offset<void>(columns));
  if (writer != 0) fbb.AddOffset(fbs::Footer::VT_WRITER, Offset<void>(writer));
  if (metadata != 0) fbb.AddOffset(fbs::Footer::VT_METADATA, Offset<void>(metadata));
  if (segments != 0) fbb.AddOffset(fbs::Footer::VT_SEGMENTS, Offset<void>(segments));
  const uoffset_t root = fbb.EndTable(start);
  if (f.identifier.empty()) {
    fbb.Finish(Offset<void>(root));
  } else {
    if (f.identifier.size() != 4) Fail("footer identifier must have 4 bytes");
    fbb.Finish(Offset<void>(root), f.identifier.c_str());
  }
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

void DeriveFeatureBits(const FooterModel& footer, uint64_t* required, uint64_t* optional) {
  *required = 0;
  *optional = 0;
  if (!footer.columns) return;
  auto zstd = [&](const std::optional<SegRef>& s) {
    if (s && s->compression == 1) *required |= 1;  // ZSTD_SEGMENTS
    // FIELD_PLANES (1.1): ZstdFieldPlanes or ZstdFieldBytes.
    if (s && (s->compression == 2 || s->compression == 3)) *required |= uint64_t{1} << 4;
  };
  for (const ColumnModel& col : *footer.columns) {
    // IBP_FLOAT (format 1.1): a column of a float physical type (spec §4.4).
    if (col.physical_type && *col.physical_type >= 9 && *col.physical_type <= 12) *required |= 4;
    if (!col.chunks) continue;
    for (const ChunkModel& c : *col.chunks) {
      for (const auto* s : {&c.partition_table, &c.parameters, &c.payload, &c.bounds, &c.validity}) zstd(*s);
      if (c.validity) *required |= 2;               // VALIDITY_BITMAPS
      if (c.encoding && *c.encoding == 2) *required |= 4;  // IBP_FLOAT
      if (c.bounds) *optional |= 1;                 // PARTITION_BOUNDS
      if (c.statistics && !c.statistics->distinct_sketch.empty()) {
        *optional |= 4;                             // DISTINCT_SKETCH (1.1)
      }
      if (c.dictionary_entries && *c.dictionary_entries > 0) {
        *required |= uint64_t{1} << 5;              // DICTIONARY (1.1)
      }
      if (c.pgm) {
        *optional |= 2;                             // PGM_INDEX
        zstd(c.pgm->segments);
      }
      if (c.ibp) {
        zstd(c.ibp->masks);
        zstd(c.ibp->row_bitmask);
        zstd(c.ibp->row_offsets);
        zstd(c.ibp->cluster_ids);
      }
    }
  }
  if (footer.segments) {
    for (const SegRef& s : *footer.segments) zstd(s);
  }
}

SegRef FileLayout::Place(const Bytes& stored, uint64_t decoded_length, uint8_t compression,
                         uint64_t extra_gap, uint8_t gap_fill) {
  const uint64_t aligned = (bytes_.size() + 63) / 64 * 64;
  bytes_.resize(aligned, 0);
  bytes_.insert(bytes_.end(), extra_gap, gap_fill);
  SegRef ref;
  ref.offset = bytes_.size();
  ref.stored_length = stored.size();
  ref.decoded_length = decoded_length;
  ref.checksum = Crc32c(stored);
  ref.compression = compression;
  bytes_.insert(bytes_.end(), stored.begin(), stored.end());
  return ref;
}

namespace {

void PackPostscript(const PostscriptFields& ps, uint8_t* out) {
  std::memset(out, 0, 64);
  SetLE(out + 0, ps.footer_offset, 8);
  SetLE(out + 8, ps.footer_length, 8);
  SetLE(out + 16, ps.required_features, 8);
  SetLE(out + 24, ps.optional_features, 8);
  SetLE(out + 32, ps.format_major, 2);
  SetLE(out + 34, ps.format_minor, 2);
  out[36] = ps.checksum_type;
  std::memcpy(out + 37, ps.reserved_1, 3);
  SetLE(out + 40, ps.footer_checksum, 4);
  std::memcpy(out + 44, ps.reserved_2, 8);
  SetLE(out + 52, ps.postscript_checksum ? *ps.postscript_checksum : Crc32c(out, 52), 4);
  std::memcpy(out + 56, ps.magic, 8);
}

}  // namespace

Bytes FinishFile(FileLayout layout, const FooterModel& footer, const FinishOptions& options) {
  Bytes file = std::move(layout.bytes());
  const HeaderFields& h = options.header;
  std::memcpy(file.data(), h.magic, 8);
  SetLE(file.data() + 8, h.format_major, 2);
  SetLE(file.data() + 10, h.format_minor, 2);
  SetLE(file.data() + 12, h.header_flags, 4);
  std::memcpy(file.data() + 16, h.reserved, 48);
  const uint64_t aligned = (file.size() + 63) / 64 * 64;
  file.resize(aligned + options.footer_gap, options.padding_fill);
  const Bytes footer_bytes = options.footer_bytes ? *options.footer_bytes : SerializeFooter(footer);
  PostscriptFields ps;
  ps.footer_offset = file.size();
  ps.footer_length = footer_bytes.size();
  DeriveFeatureBits(footer, &ps.required_features, &ps.optional_features);
  ps.required_features |= options.extra_required;
  ps.format_major = h.format_major;
  ps.format_minor = h.format_minor;
  ps.footer_checksum = Crc32c(footer_bytes);
  if (options.edit_postscript) options.edit_postscript(ps);
  file.insert(file.end(), footer_bytes.begin(), footer_bytes.end());
  uint8_t tail[64];
  PackPostscript(ps, tail);
  file.insert(file.end(), tail, tail + 64);
  return file;
}

PostscriptView ReadPostscript(const Bytes& file) {
  const uint8_t* ps = file.data() + file.size() - 64;
  return PostscriptView{GetLE(ps, 8), GetLE(ps + 8, 8)};
}

void FixPostscriptChecksum(Bytes* file) {
  uint8_t* ps = file->data() + file->size() - 64;
  SetLE(ps + 52, Crc32c(ps, 52), 4);
}

void ReplaceFooter(Bytes* file, const Bytes& footer) {
  const PostscriptView view = ReadPostscript(*file);
  Bytes ps(file->end() - 64, file->end());
  file->resize(view.footer_offset);
  file->insert(file->end(), footer.begin(), footer.end());
  SetLE(ps.data() + 8, footer.size(), 8);
  SetLE(ps.data() + 40, Crc32c(footer), 4);
  file->insert(file->end(), ps.begin(), ps.end());
  FixPostscriptChecksum(file);
}

uint64_t RootTable(const Bytes& footer) { return GetLE(footer.data(), 4); }

uint64_t Follow(const Bytes& footer, uint64_t pos) { return pos + GetLE(footer.data() + pos, 4); }

FbField FindField(const Bytes& footer, uint64_t table, int id) {
  FbField f;
  f.table = table;
  const int32_t soffset = static_cast<int32_t>(GetLE(footer.data() + table, 4));
  f.vtable = static_cast<uint64_t>(static_cast<int64_t>(table) - soffset);
  const uint64_t vt_size = GetLE(footer.data() + f.vtable, 2);
  f.slot = f.vtable + 4 + 2 * static_cast<uint64_t>(id);
  if (f.slot + 2 > f.vtable + vt_size) Fail("FindField: field beyond the vtable");
  const uint64_t off = GetLE(footer.data() + f.slot, 2);
  if (off == 0) Fail("FindField: field absent");
  f.field = table + off;
  return f;
}

}  // namespace l3::conformance
