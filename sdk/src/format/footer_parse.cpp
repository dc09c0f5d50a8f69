#include "format/footer_parse.hpp"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "codec/ibp/ibp_format.hpp"
#include "common/status_macros.hpp"
#include "common/utf8.hpp"
#include "format/layout.hpp"
#include "l3_generated.h"
#include "pgm/pgm_footer.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kMaxChunkRows = (uint64_t{1} << 32) - 1;  // spec §7.2
constexpr uint8_t kMaxKnownType = 12;                         // spec §6.2: BFloat16
constexpr size_t kMaxNameBytes = 65535;                       // spec §6.2

enum class SegmentKind : uint8_t {
  kPartitionTable,
  kParameters,
  kPayload,
  kBounds,
  kValidity,
  kIbpMasks,
  kIbpRowBitmask,
  kIbpRowOffsets,
  kIbpClusterIds,
  kPgmSegments,
  kTableEntry,  // Footer.segments (spec §4.3.1)
};

const char* SegmentKindName(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::kPartitionTable: return "partition_table";
    case SegmentKind::kParameters: return "parameters";
    case SegmentKind::kPayload: return "payload";
    case SegmentKind::kBounds: return "bounds";
    case SegmentKind::kValidity: return "validity";
    case SegmentKind::kIbpMasks: return "ibp.masks";
    case SegmentKind::kIbpRowBitmask: return "ibp.row_bitmask";
    case SegmentKind::kIbpRowOffsets: return "ibp.row_offsets";
    case SegmentKind::kIbpClusterIds: return "ibp.cluster_ids";
    case SegmentKind::kPgmSegments: return "pgm.segments";
    case SegmentKind::kTableEntry: return "segments";
  }
  return "segment";
}

struct PlacedSegment {
  uint64_t offset;
  uint64_t length;
  uint32_t column;  // for kTableEntry: the entry's index
  uint32_t chunk;
  SegmentKind kind;
  uint32_t checksum;
};

std::string Where(const PlacedSegment& s);

std::string Where(uint32_t column, uint32_t chunk) {
  return "column " + std::to_string(column) + " chunk " + std::to_string(chunk);
}

std::string Where(uint32_t column, uint32_t chunk, SegmentKind kind) {
  if (kind == SegmentKind::kTableEntry) return "Footer.segments[" + std::to_string(column) + "]";
  return Where(column, chunk) + " " + SegmentKindName(kind);
}

std::string Where(const PlacedSegment& s) { return Where(s.column, s.chunk, s.kind); }

class FooterChecker {
 public:
  FooterChecker(const Postscript& ps, const FooterLimits& limits) : ps_(ps), limits_(limits) {}

  Status Run(const fbs::Footer& footer, ParsedFooter* out);
  /// Every placed segment, sorted by offset after Run() succeeded.
  const std::vector<PlacedSegment>& segments() const { return segments_; }

 private:
  Status CheckColumn(const fbs::Column& col, uint32_t c, ColumnInfo* info,
                     std::vector<std::string>* unsupported);
  Status CheckChunk(const fbs::ColumnChunk& chunk, uint32_t c, uint32_t k, uint8_t raw_type,
                    uint32_t row_width, bool nullable, ChunkInfo* info, std::string* unsupported);
  Status CheckIbpTable(const fbs::IbpMasks& ibp, uint8_t raw_type, uint32_t row_width,
                       bool has_row_bitmask, const std::string& where, ChunkInfo* info) const;
  Status CheckSegment(const fbs::SegmentRef* ref, uint32_t c, uint32_t k, SegmentKind kind,
                      SegmentInfo* info, std::string* unsupported);
  Status CheckFeatureBits() const;
  Status CheckLayout();

  const Postscript& ps_;
  const FooterLimits& limits_;
  std::vector<PlacedSegment> segments_;
  bool uses_zstd_ = false;
  bool uses_field_planes_ = false;
  bool uses_validity_ = false;
  bool uses_float_ = false;
  bool uses_bounds_ = false;
  bool uses_pgm_ = false;
  bool uses_distinct_sketch_ = false;
  bool uses_dictionary_ = false;
};

Status Corrupt(std::string message) {
  return Status(StatusCode::kCorruptMetadata, std::move(message));
}

Status FooterChecker::Run(const fbs::Footer& footer, ParsedFooter* out) {
  // spec §6.1: at least one column (the verifier has checked presence).
  const auto* columns = footer.columns();
  if (columns->size() == 0) return Corrupt("Footer.columns is empty");
  out->info.num_rows = footer.num_rows();
  if (const fbs::WriterInfo* w = footer.writer()) {
    if (w->name() != nullptr) out->info.writer_name = w->name()->str();
    if (w->version() != nullptr) out->info.writer_version = w->version()->str();
  }
  if (const auto* md = footer.metadata()) {
    for (const fbs::KeyValue* kv : *md) {
      out->info.metadata.emplace_back(kv->key()->str(),
                                      kv->value() != nullptr ? kv->value()->str() : std::string());
    }
  }
  out->columns.resize(columns->size());
  out->unsupported.resize(columns->size());
  std::unordered_set<std::string_view> names;
  names.reserve(columns->size());
  for (uint32_t c = 0; c < columns->size(); ++c) {
    const fbs::Column* col = columns->Get(c);
    L3_RETURN_NOT_OK(CheckColumn(*col, c, &out->columns[c], &out->unsupported[c]));
    // spec §6.2: names are unique within the file.
    const std::string_view name(col->name()->c_str(), col->name()->size());
    if (!names.insert(name).second) {
      return Corrupt("column " + std::to_string(c) + ": name '" + std::string(name) +
                     "' is not unique");
    }
    if (out->columns[c].num_rows != footer.num_rows()) {
      return Corrupt("column " + std::to_string(c) + ": chunks cover " +
                     std::to_string(out->columns[c].num_rows) + " rows, Footer.num_rows is " +
                     std::to_string(footer.num_rows()));
    }
  }
  // spec §4.3.1: segment-table entries, whose owner this reader does not know.
  if (const auto* table = footer.segments()) {
    std::string ignored_reason;
    for (uint32_t i = 0; i < table->size(); ++i) {
      // The verifier does not check vector element alignment (spec §6): the
      // entry is copied to an aligned SegmentRef before its fields are read.
      fbs::SegmentRef entry;
      std::memcpy(&entry, table->Data() + i * sizeof(fbs::SegmentRef), sizeof entry);
      SegmentInfo ignored;
      L3_RETURN_NOT_OK(CheckSegment(&entry, i, 0, SegmentKind::kTableEntry, &ignored,
                                    &ignored_reason));
    }
  }
  L3_RETURN_NOT_OK(CheckFeatureBits());
  return CheckLayout();
}

Status FooterChecker::CheckColumn(const fbs::Column& col, uint32_t c, ColumnInfo* info,
                                  std::vector<std::string>* unsupported) {
  const flatbuffers::String* name = col.name();
  if (name->size() == 0 || name->size() > kMaxNameBytes) {
    return Corrupt("column " + std::to_string(c) + ": name has " + std::to_string(name->size()) +
                   " bytes (must be 1..65535)");
  }
  if (!IsValidUtf8(std::string_view(name->c_str(), name->size()))) {
    return Corrupt("column " + std::to_string(c) + ": name is not valid UTF-8");
  }
  info->name = name->str();
  const uint8_t raw_type = static_cast<uint8_t>(col.physical_type());
  info->raw_type = raw_type;
  info->type = static_cast<PhysicalType>(raw_type);
  // spec §6.2: 0 is never a type; values above 12 may come from a newer minor
  // version, which inspection mode lists without decoding.
  if (raw_type == 0 || (raw_type > kMaxKnownType && !limits_.allow_unknown)) {
    return Corrupt("column " + std::to_string(c) + ": physical_type " + std::to_string(raw_type) +
                   " is not defined");
  }
  // spec §11.2: a float column needs IBP_FLOAT; §11.2.1: its row width.
  const bool float_type = raw_type >= 9 && raw_type <= kMaxKnownType;
  const uint64_t row_width = col.row_width() == 0 ? 1 : col.row_width();
  if (float_type) {
    uses_float_ = true;
    if ((ps_.required_features & kRequiredIbpFloat) == 0) {
      return Corrupt("column " + std::to_string(c) + ": a float column but IBP_FLOAT is clear");
    }
    if (row_width > kIbpMaxRowWidth) {
      return Corrupt("column " + std::to_string(c) + ": row_width " + std::to_string(row_width) +
                     " exceeds 2^24");
    }
  } else if (row_width != 1 && raw_type <= kMaxKnownType) {
    return Corrupt("column " + std::to_string(c) + ": row_width " + std::to_string(row_width) +
                   " on an integer column (must be 1)");
  }
  info->row_width = static_cast<uint32_t>(row_width);
  if (const fbs::LogicalType* lt = col.logical_type()) {
    // spec §6.2: a kind this reader does not know is treated as None.
    const uint16_t kind = static_cast<uint16_t>(lt->kind());
    if (kind <= static_cast<uint16_t>(LogicalKind::kDecimal)) {
      info->logical.kind = static_cast<LogicalKind>(kind);
      info->logical.time_unit = static_cast<TimeUnit>(lt->time_unit());
      info->logical.precision = lt->precision();
      info->logical.scale = lt->scale();
      if (lt->timezone() != nullptr) info->logical.timezone = lt->timezone()->str();
    }
  }
  info->nullable = col.nullable();
  const auto* chunks = col.chunks();
  const uint32_t num_chunks = chunks != nullptr ? chunks->size() : 0;
  info->chunks.resize(num_chunks);
  unsupported->resize(num_chunks);
  uint64_t row = 0;
  for (uint32_t k = 0; k < num_chunks; ++k) {
    ChunkInfo& ci = info->chunks[k];
    L3_RETURN_NOT_OK(CheckChunk(*chunks->Get(k), c, k, raw_type, info->row_width, info->nullable,
                                &ci, &(*unsupported)[k]));
    ci.first_row = row;
    // spec §6.2: chunk row counts sum to Footer.num_rows; no overflow.
    if (ci.num_rows > UINT64_MAX - row) {
      return Corrupt(Where(c, k) + ": row count overflows 64 bits");
    }
    row += ci.num_rows;
    info->stored_bytes += ci.stored_bytes;
  }
  info->num_rows = row;
  return Status::OK();
}

Status FooterChecker::CheckSegment(const fbs::SegmentRef* ref, uint32_t c, uint32_t k,
                                   SegmentKind kind, SegmentInfo* info,
                                   std::string* unsupported) {
  if (ref == nullptr) return Status::OK();
  info->present = true;
  info->offset = ref->offset();
  info->stored_bytes = ref->stored_length();
  info->decoded_bytes = ref->decoded_length();
  info->checksum = ref->checksum();
  const uint8_t compression = static_cast<uint8_t>(ref->compression());
  info->compression = static_cast<Compression>(compression);
  // spec §7.1, in its order.
  const std::string where = Where(c, k, kind);
  if (ref->offset() % kSegmentAlignment != 0) {
    return Status(StatusCode::kCorruptFraming,
                  where + ": offset " + std::to_string(ref->offset()) + " is not a multiple of 64");
  }
  if (ref->offset() < kHeaderBytes) {
    return Status(StatusCode::kCorruptFraming,
                  where + ": offset " + std::to_string(ref->offset()) + " is inside the File_Header");
  }
  if (ref->offset() > ps_.footer_offset ||
      ref->stored_length() > ps_.footer_offset - ref->offset()) {
    return Status(StatusCode::kCorruptFraming,
                  where + ": offset " + std::to_string(ref->offset()) + " + stored_length " +
                      std::to_string(ref->stored_length()) + " passes Footer_Offset " +
                      std::to_string(ps_.footer_offset));
  }
  const bool opaque_entry = kind == SegmentKind::kTableEntry;
  // spec §4.3.1: an entry whose owner is unknown is never decoded, so an
  // unknown compression is not an error there.
  if (compression > static_cast<uint8_t>(Compression::kZstdFieldBytes) && !opaque_entry) {
    if (!limits_.allow_unknown) {
      return Status(StatusCode::kUnsupportedFeature,
                    where + ": compression " + std::to_string(compression) + " is not supported");
    }
    if (unsupported->empty()) *unsupported = where + ": unknown compression";
  }
  if (compression == static_cast<uint8_t>(Compression::kZstd)) {
    uses_zstd_ = true;
    if ((ps_.required_features & kRequiredZstdSegments) == 0) {
      return Corrupt(where + ": compression is Zstd but ZSTD_SEGMENTS is clear");
    }
  }
  if (compression == static_cast<uint8_t>(Compression::kZstdFieldPlanes) ||
      compression == static_cast<uint8_t>(Compression::kZstdFieldBytes)) {
    // spec §9.2, §9.3: payload segments only, behind FIELD_PLANES.
    const std::string name =
        compression == static_cast<uint8_t>(Compression::kZstdFieldPlanes) ? "ZstdFieldPlanes"
                                                                            : "ZstdFieldBytes";
    uses_field_planes_ = true;
    if ((ps_.required_features & kRequiredFieldPlanes) == 0) {
      return Corrupt(where + ": compression is " + name + " but FIELD_PLANES is clear");
    }
    if (kind != SegmentKind::kPayload) {
      return Corrupt(where + ": compression " + name + " is allowed on payload segments only");
    }
  }
  if (compression == static_cast<uint8_t>(Compression::kNone) &&
      ref->decoded_length() != ref->stored_length()) {
    return Status(StatusCode::kCorruptFraming,
                  where + ": compression None but decoded_length " +
                      std::to_string(ref->decoded_length()) + " != stored_length " +
                      std::to_string(ref->stored_length()));
  }
  if (ref->reserved_0() != 0 || ref->reserved_1() != 0) {
    return Status(StatusCode::kCorruptFraming, where + ": reserved fields are not zero");
  }
  if (opaque_entry) {
    // Never decoded, so no allocation to bound (spec §4.3.1).
    segments_.push_back(
        PlacedSegment{ref->offset(), ref->stored_length(), c, k, kind, ref->checksum()});
    return Status::OK();
  }
  // Reader limits (spec §13): bound every later allocation for this segment.
  if (ref->decoded_length() > limits_.max_segment_bytes) {
    return Status(StatusCode::kResourceLimit,
                  where + ": decoded_length " + std::to_string(ref->decoded_length()) +
                      " exceeds the limit " + std::to_string(limits_.max_segment_bytes));
  }
  if (compression == static_cast<uint8_t>(Compression::kZstd) ||
      compression == static_cast<uint8_t>(Compression::kZstdFieldPlanes) ||
      compression == static_cast<uint8_t>(Compression::kZstdFieldBytes)) {
    const uint64_t stored = ref->stored_length();
    const uint64_t cap = stored > UINT64_MAX / limits_.max_zstd_expansion
                             ? UINT64_MAX
                             : stored * limits_.max_zstd_expansion;
    if (ref->decoded_length() > cap) {
      return Status(StatusCode::kResourceLimit,
                    where + ": decoded_length " + std::to_string(ref->decoded_length()) +
                        " is more than " + std::to_string(limits_.max_zstd_expansion) +
                        " times stored_length " + std::to_string(stored));
    }
  }
  segments_.push_back(PlacedSegment{ref->offset(), ref->stored_length(), c, k, kind, ref->checksum()});
  return Status::OK();
}

Status FooterChecker::CheckChunk(const fbs::ColumnChunk& chunk, uint32_t c, uint32_t k,
                                 uint8_t raw_type, uint32_t row_width, bool nullable,
                                 ChunkInfo* info, std::string* unsupported) {
  const std::string where = Where(c, k);
  info->num_rows = chunk.num_rows();
  info->encoding = static_cast<uint16_t>(chunk.encoding());
  info->values_per_lane = chunk.values_per_lane();
  info->num_partitions = chunk.num_partitions();
  if (chunk.num_rows() < 1 || chunk.num_rows() > kMaxChunkRows) {
    return Corrupt(where + ": num_rows " + std::to_string(chunk.num_rows()) +
                   " is outside 1..2^32-1");
  }
  const bool ibp_chunk = info->encoding == static_cast<uint16_t>(fbs::Encoding::IbpFloat);
  // spec §7.2: partition_table, parameters and payload are required; an
  // IbpFloat chunk has a payload and an ibp table instead (§11.2.3).
  if (ibp_chunk) {
    if (chunk.partition_table() != nullptr || chunk.parameters() != nullptr) {
      return Corrupt(where + ": an IbpFloat chunk has a partition_table or parameters");
    }
    if (chunk.ibp() == nullptr) return Corrupt(where + ": an IbpFloat chunk has no ibp table");
  } else {
    if (chunk.partition_table() == nullptr) return Corrupt(where + ": partition_table is missing");
    if (chunk.parameters() == nullptr) return Corrupt(where + ": parameters is missing");
  }
  if (chunk.payload() == nullptr) return Corrupt(where + ": payload is missing");
  L3_RETURN_NOT_OK(CheckSegment(chunk.partition_table(), c, k, SegmentKind::kPartitionTable,
                                &info->partition_table, unsupported));
  L3_RETURN_NOT_OK(CheckSegment(chunk.parameters(), c, k, SegmentKind::kParameters,
                                &info->parameters, unsupported));
  L3_RETURN_NOT_OK(
      CheckSegment(chunk.payload(), c, k, SegmentKind::kPayload, &info->payload, unsupported));
  L3_RETURN_NOT_OK(
      CheckSegment(chunk.bounds(), c, k, SegmentKind::kBounds, &info->bounds, unsupported));
  L3_RETURN_NOT_OK(
      CheckSegment(chunk.validity(), c, k, SegmentKind::kValidity, &info->validity, unsupported));
  if (const fbs::IbpMasks* ibp = chunk.ibp()) {
    info->has_ibp = true;
    IbpInfo& i = info->ibp;
    SegmentInfo row_bitmask;
    L3_RETURN_NOT_OK(CheckSegment(ibp->masks(), c, k, SegmentKind::kIbpMasks, &i.masks, unsupported));
    L3_RETURN_NOT_OK(CheckSegment(ibp->row_bitmask(), c, k, SegmentKind::kIbpRowBitmask,
                                  &row_bitmask, unsupported));
    L3_RETURN_NOT_OK(CheckSegment(ibp->row_offsets(), c, k, SegmentKind::kIbpRowOffsets,
                                  &i.row_offsets, unsupported));
    L3_RETURN_NOT_OK(CheckSegment(ibp->cluster_ids(), c, k, SegmentKind::kIbpClusterIds,
                                  &i.mask_ids, unsupported));
    i.word_bytes = ibp->element_bytes();
    i.words_per_row = ibp->vector_length();
    i.num_rows = ibp->num_vectors();
    i.threshold = ibp->threshold();
    i.num_masks = ibp->num_clusters();
    i.offset_bits = ibp->offset_bits();
    if (ibp_chunk) {
      L3_RETURN_NOT_OK(CheckIbpTable(*ibp, raw_type, row_width, row_bitmask.present, where, info));
    }
  }
  if (const fbs::PgmIndex* pgm = chunk.pgm()) {
    info->has_pgm = true;
    uses_pgm_ = true;
    SegmentInfo ignored;
    L3_RETURN_NOT_OK(
        CheckSegment(pgm->segments(), c, k, SegmentKind::kPgmSegments, &ignored, unsupported));
    L3_RETURN_NOT_OK(ReadPgmIndex(*pgm, info->num_rows, where, &info->pgm));
  }
  for (const SegmentInfo* s : {&info->partition_table, &info->parameters, &info->payload,
                               &info->bounds, &info->validity, &info->ibp.masks,
                               &info->ibp.row_offsets, &info->ibp.mask_ids}) {
    if (s->present) info->stored_bytes += s->stored_bytes;
  }

  // spec §7.2 encoding; §11.2 for float columns.
  const uint16_t encoding = info->encoding;
  const bool known_type = raw_type >= 1 && raw_type <= kMaxKnownType;
  const bool float_type = raw_type >= 9 && raw_type <= kMaxKnownType;
  if (encoding == 0 || encoding > static_cast<uint16_t>(fbs::Encoding::IbpFloat)) {
    if (!limits_.allow_unknown) {
      return Status(StatusCode::kUnsupportedFeature,
                    where + ": encoding " + std::to_string(encoding) + " is not supported");
    }
    if (unsupported->empty()) *unsupported = where + ": unknown encoding " + std::to_string(encoding);
  } else if (known_type) {
    if (encoding == static_cast<uint16_t>(fbs::Encoding::IbpFloat) && !float_type) {
      return Corrupt(where + ": encoding IbpFloat on an integer column");
    }
  }
  if (float_type) {
    // spec §11.2.1: bounds, statistics, pgm and validity are reserved on
    // float chunks; §11.2.2: the integer form has E = num_rows * R <= 2^32-1.
    if (chunk.bounds() != nullptr || chunk.statistics() != nullptr || chunk.pgm() != nullptr ||
        chunk.validity() != nullptr) {
      return Corrupt(where + ": a float chunk has bounds, statistics, pgm or validity");
    }
    if (encoding == static_cast<uint16_t>(fbs::Encoding::L3Integer) &&
        info->num_rows > kMaxChunkRows / row_width) {
      return Corrupt(where + ": num_rows * row_width of a float chunk in the integer form exceeds "
                             "2^32-1");
    }
  }
  if (ibp_chunk && (ps_.required_features & kRequiredIbpFloat) == 0) {
    return Corrupt(where + ": encoding IbpFloat but IBP_FLOAT is clear");
  }
  if (info->has_ibp && encoding != static_cast<uint16_t>(fbs::Encoding::IbpFloat)) {
    return Corrupt(where + ": ibp masks on a chunk whose encoding is not IbpFloat");
  }
  if (!known_type && unsupported->empty()) {
    *unsupported = where + ": unknown physical_type " + std::to_string(raw_type);
  }
  // spec §7.1: field planes are an L3Integer payload's only.
  if (ibp_chunk && info->payload.compression == Compression::kZstdFieldPlanes) {
    return Corrupt(where + ": compression ZstdFieldPlanes on an IbpFloat chunk's payload");
  }
  if (ibp_chunk && info->payload.compression == Compression::kZstdFieldBytes) {
    return Corrupt(where + ": compression ZstdFieldBytes on an IbpFloat chunk's payload");
  }
  if (ibp_chunk && (info->values_per_lane != 0 || info->num_partitions != 0 ||
                    chunk.dictionary_entries() != 0)) {
    return Corrupt(where + ": an IbpFloat chunk has values_per_lane, num_partitions or "
                           "dictionary_entries");
  }
  if (encoding == static_cast<uint16_t>(fbs::Encoding::L3Integer)) {
    if (!IsValidValuesPerLane(info->values_per_lane)) {
      return Corrupt(where + ": values_per_lane " + std::to_string(info->values_per_lane) +
                     " is not a power of two in 1..1024");
    }
    // spec §8.10 rule 1: a dictionary chunk's partitions cover M = D + num_rows
    // elements.
    const uint64_t entries = chunk.dictionary_entries();
    info->dictionary_entries = entries;
    // Values coded: rows, or rows * row_width for a float chunk (§11.2.2).
    const uint64_t values = info->num_rows * (float_type ? row_width : 1);
    if (entries > 0) {
      uses_dictionary_ = true;
      if ((ps_.required_features & kRequiredDictionary) == 0) {
        return Corrupt(where + ": dictionary_entries > 0 but DICTIONARY is clear");
      }
      // A float column's integer form codes values of the unsigned type of
      // the float's width (spec §11.2.2).
      const uint32_t bits =
          known_type ? 8 * static_cast<uint32_t>(PhysicalTypeBytes(static_cast<PhysicalType>(raw_type)))
                     : 64;
      const bool is_signed = raw_type >= 1 && raw_type <= 4;
      const uint64_t most = bits >= 64 ? UINT64_MAX
                                       : (uint64_t{1} << (is_signed ? bits - 1 : bits));
      if (entries > values || entries > most || values + entries > kMaxChunkRows) {
        return Corrupt(where + ": dictionary_entries " + std::to_string(entries) +
                       " is outside 1..num_rows, above what the codes of the type can "
                       "address, or makes num_rows + D exceed 2^32-1");
      }
      if (info->has_pgm) return Corrupt(where + ": a dictionary chunk has a pgm index");
    }
    const uint64_t elements = values + entries;
    if (info->num_partitions < 1 || info->num_partitions > elements) {
      return Corrupt(where + ": num_partitions " + std::to_string(info->num_partitions) +
                     " is outside 1..num_rows + dictionary_entries (" +
                     std::to_string(elements) + ")");
    }
    if (info->num_partitions > limits_.max_partitions_per_chunk) {
      return Status(StatusCode::kResourceLimit,
                    where + ": num_partitions " + std::to_string(info->num_partitions) +
                        " exceeds the limit " + std::to_string(limits_.max_partitions_per_chunk));
    }
  }
  // spec §4.4 and §11.1: features in use need their bits.
  if (info->bounds.present) {
    uses_bounds_ = true;
    if ((ps_.optional_features & kOptionalPartitionBounds) == 0) {
      return Corrupt(where + ": bounds present but PARTITION_BOUNDS is clear");
    }
  }
  if (info->has_pgm && (ps_.optional_features & kOptionalPgmIndex) == 0) {
    return Corrupt(where + ": pgm present but PGM_INDEX is clear");
  }
  if (info->validity.present) {
    uses_validity_ = true;
    if (!nullable) return Corrupt(where + ": validity segment on a column that is not nullable");
    if ((ps_.required_features & kRequiredValidityBitmaps) == 0) {
      return Corrupt(where + ": validity present but VALIDITY_BITMAPS is clear");
    }
    if (unsupported->empty()) *unsupported = where + ": validity bitmaps are not implemented";
  }
  if (const fbs::ChunkStatistics* s = chunk.statistics()) {
    info->statistics.present = true;
    info->statistics.has_min_max = s->has_min_max();
    info->statistics.min_value = s->min_value();
    info->statistics.max_value = s->max_value();
    info->statistics.null_count = s->null_count();
    info->statistics.distinct_count = s->distinct_count();
    info->statistics.distinct_count_exact = s->distinct_count_exact();
    if (const auto* sketch = s->distinct_sketch()) {
      // spec §7.6.1: behind DISTINCT_SKETCH, and well formed.
      uses_distinct_sketch_ = true;
      if ((ps_.optional_features & kOptionalDistinctSketch) == 0) {
        return Corrupt(where + ": statistics.distinct_sketch present but DISTINCT_SKETCH is clear");
      }
      Result<DistinctSketch> parsed = DistinctSketch::FromBytes(sketch->data(), sketch->size());
      if (!parsed.ok()) return Corrupt(where + ": " + parsed.status().message());
      // A HASHES sketch is the exact set: distinct_count must say so.
      if (parsed->exact() && (!s->distinct_count_exact() ||
                              s->distinct_count() != parsed->Estimate())) {
        return Corrupt(where + ": statistics.distinct_sketch holds " +
                       std::to_string(parsed->Estimate()) +
                       " hashes but distinct_count is not that exact count");
      }
      info->statistics.distinct_sketch.assign(sketch->begin(), sketch->end());
    }
  }
  return Status::OK();
}

// spec §11.2.3: the IbpMasks table of an IbpFloat chunk. Lengths that need
// Block_Start[G] (the payload's) are checked on first use.
Status FooterChecker::CheckIbpTable(const fbs::IbpMasks& ibp, uint8_t raw_type,
                                    uint32_t row_width, bool has_row_bitmask,
                                    const std::string& where, ChunkInfo* info) const {
  const IbpInfo& i = info->ibp;
  if (i.word_bytes != 4 && i.word_bytes != 8) {
    return Corrupt(where + ": ibp.element_bytes " + std::to_string(i.word_bytes) + " is not 4 or 8");
  }
  const uint64_t type_bytes =
      raw_type >= 9 && raw_type <= kMaxKnownType
          ? static_cast<uint64_t>(PhysicalTypeBytes(static_cast<PhysicalType>(raw_type)))
          : 0;
  if (type_bytes == 0) return Status::OK();  // not a float column: reported by the caller
  const uint64_t words = IbpWordsPerRow(uint64_t{row_width} * type_bytes, 8 * i.word_bytes);
  if (i.words_per_row != words) {
    return Corrupt(where + ": ibp.vector_length " + std::to_string(i.words_per_row) +
                   " != ceil(8 * B / W) = " + std::to_string(words));
  }
  if (i.num_rows != info->num_rows) {
    return Corrupt(where + ": ibp.num_vectors " + std::to_string(i.num_rows) + " != num_rows " +
                   std::to_string(info->num_rows));
  }
  if (ibp.layout() != fbs::IbpLayout::Condensed) {
    return Corrupt(where + ": ibp.layout is not Condensed");
  }
  if (i.num_masks < 1 || i.num_masks > kIbpMaxMasks) {
    return Corrupt(where + ": ibp.num_clusters " + std::to_string(i.num_masks) +
                   " is outside 1..256");
  }
  if (!i.masks.present) return Corrupt(where + ": ibp.masks is missing");
  if (has_row_bitmask) return Corrupt(where + ": ibp.row_bitmask is reserved and must be absent");
  if (i.mask_ids.present != (i.num_masks > 1)) {
    return Corrupt(where + ": ibp.cluster_ids must be present exactly when num_clusters > 1");
  }
  if (i.row_offsets.present ? (i.offset_bits < 1 || i.offset_bits > kIbpMaxOffsetBits)
                            : i.offset_bits != 0) {
    return Corrupt(where + ": ibp.offset_bits " + std::to_string(i.offset_bits) +
                   " (1..32 with row_offsets, 0 without)");
  }
  return Status::OK();
}

Status FooterChecker::CheckFeatureBits() const {
  // spec §4.4: a writer sets a feature bit if and only if the file uses the
  // feature. A used feature with a clear bit was reported per chunk; here a
  // set bit without any use. Unknown optional bits are ignored.
  struct Bit {
    uint64_t set;
    uint64_t mask;
    bool used;
    const char* name;
  };
  const Bit bits[] = {
      {ps_.required_features, kRequiredZstdSegments, uses_zstd_, "Required_Features ZSTD_SEGMENTS"},
      {ps_.required_features, kRequiredDictionary, uses_dictionary_,
       "Required_Features DICTIONARY"},
      {ps_.required_features, kRequiredFieldPlanes, uses_field_planes_,
       "Required_Features FIELD_PLANES"},
      {ps_.required_features, kRequiredValidityBitmaps, uses_validity_,
       "Required_Features VALIDITY_BITMAPS"},
      {ps_.required_features, kRequiredIbpFloat, uses_float_, "Required_Features IBP_FLOAT"},
      {ps_.optional_features, kOptionalPartitionBounds, uses_bounds_,
       "Optional_Features PARTITION_BOUNDS"},
      {ps_.optional_features, kOptionalPgmIndex, uses_pgm_, "Optional_Features PGM_INDEX"},
      {ps_.optional_features, kOptionalDistinctSketch, uses_distinct_sketch_,
       "Optional_Features DISTINCT_SKETCH"},
  };
  for (const Bit& b : bits) {
    if ((b.set & b.mask) != 0 && !b.used) {
      return Corrupt(std::string(b.name) + " is set but no chunk uses the feature");
    }
  }
  return Status::OK();
}

Status FooterChecker::CheckLayout() {
  // spec §4.3: sorted by offset, each segment starts at align64(end of the
  // previous one), the first at 64, and the footer at align64(last end).
  // Zero-length segments sort first among equal offsets.
  std::sort(segments_.begin(), segments_.end(), [](const PlacedSegment& a, const PlacedSegment& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    if (a.length != b.length) return a.length < b.length;
    if (a.column != b.column) return a.column < b.column;
    if (a.chunk != b.chunk) return a.chunk < b.chunk;
    return a.kind < b.kind;
  });
  uint64_t end = kHeaderBytes;
  for (const PlacedSegment& s : segments_) {
    const uint64_t expected = AlignUp64(end);
    if (s.offset != expected) {
      const char* what = s.offset < end ? "overlaps the previous segment" : "leaves a gap";
      return Status(StatusCode::kCorruptFraming,
                    Where(s) + " at offset " + std::to_string(s.offset) +
                        " " + what + " (canonical offset " + std::to_string(expected) + ")");
    }
    end = s.offset + s.length;  // bounded by Footer_Offset (CheckSegment)
  }
  if (ps_.footer_offset != AlignUp64(end)) {
    return Status(StatusCode::kCorruptFraming,
                  "Footer_Offset " + std::to_string(ps_.footer_offset) +
                      " is not align64(end of the last segment) = " +
                      std::to_string(AlignUp64(end)));
  }
  return Status::OK();
}

}  // namespace

Status ParseFooter(const uint8_t* footer, uint64_t footer_length, const Postscript& ps,
                   const FooterLimits& limits, ParsedFooter* out) {
  // spec §6: verify before reading any field, with bounded depth and table
  // count. FlatBuffers cannot address buffers of 2 GiB or more.
  if (footer_length >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Status(StatusCode::kCorruptFooter,
                  "Footer_Length " + std::to_string(footer_length) +
                      " is too large for a FlatBuffers buffer");
  }
  const uint64_t max_tables = std::min<uint64_t>(8 * footer_length, UINT32_MAX);
  flatbuffers::Verifier verifier(footer, static_cast<size_t>(footer_length), 64,
                                 static_cast<flatbuffers::uoffset_t>(max_tables));
  if (footer_length >= 8 && !fbs::FooterBufferHasIdentifier(footer)) {
    return Status(StatusCode::kCorruptFooter, "footer file identifier is not \"L3FT\"");
  }
  if (!fbs::VerifyFooterBuffer(verifier)) {
    return Status(StatusCode::kCorruptFooter,
                  "footer is not a valid FlatBuffers Footer (verifier failed)");
  }
  FooterChecker checker(ps, limits);
  L3_RETURN_NOT_OK(checker.Run(*fbs::GetFooter(footer), out));
  out->segment_extents.reserve(checker.segments().size());
  for (const PlacedSegment& s : checker.segments()) {
    out->segment_extents.emplace_back(s.offset, s.length);
    // spec §5, §10.3 step 3: segments the reader does not decode.
    switch (s.kind) {
      case SegmentKind::kPartitionTable:
      case SegmentKind::kParameters:
      case SegmentKind::kPayload:
      case SegmentKind::kBounds:
      case SegmentKind::kIbpMasks:
      case SegmentKind::kIbpRowOffsets:
      case SegmentKind::kIbpClusterIds:
        break;
      default:
        out->opaque_segments.push_back({s.offset, s.length, s.checksum, Where(s)});
    }
  }
  return Status::OK();
}

}  // namespace l3::internal
