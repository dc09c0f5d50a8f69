#include "format/footer_build.hpp"

#include <flatbuffers/flatbuffers.h>

#include "l3_generated.h"
#include "pgm/pgm_footer.hpp"

namespace l3::internal {
namespace {

fbs::SegmentRef ToRef(const SegmentInfo& s) {
  return fbs::SegmentRef(s.offset, s.stored_bytes, s.decoded_bytes, s.checksum,
                         static_cast<fbs::Compression>(s.compression), 0, 0);
}

flatbuffers::Offset<fbs::ColumnChunk> BuildChunk(flatbuffers::FlatBufferBuilder& fbb,
                                                 const ChunkInfo& chunk) {
  flatbuffers::Offset<fbs::ChunkStatistics> stats = 0;
  if (chunk.statistics.present) {
    const ChunkStatistics& s = chunk.statistics;
    const auto sketch =
        s.distinct_sketch.empty() ? 0 : fbb.CreateVector(s.distinct_sketch);
    stats = fbs::CreateChunkStatistics(fbb, s.has_min_max, s.min_value, s.max_value, s.null_count,
                                       s.distinct_count, s.distinct_count_exact, sketch);
  }
  const fbs::SegmentRef partition_table = ToRef(chunk.partition_table);
  const fbs::SegmentRef parameters = ToRef(chunk.parameters);
  const fbs::SegmentRef payload = ToRef(chunk.payload);
  const fbs::SegmentRef bounds = ToRef(chunk.bounds);
  const fbs::SegmentRef validity = ToRef(chunk.validity);
  const auto pgm = BuildPgmIndexTable(fbb, chunk.pgm);
  flatbuffers::Offset<fbs::IbpMasks> ibp = 0;
  if (chunk.has_ibp) {
    // spec §11.2.3: the IbpMasks table of an IbpFloat chunk.
    const IbpInfo& i = chunk.ibp;
    const fbs::SegmentRef masks = ToRef(i.masks);
    const fbs::SegmentRef row_offsets = ToRef(i.row_offsets);
    const fbs::SegmentRef mask_ids = ToRef(i.mask_ids);
    fbs::IbpMasksBuilder ib(fbb);
    ib.add_element_bytes(static_cast<uint8_t>(i.word_bytes));
    ib.add_vector_length(i.words_per_row);
    ib.add_num_vectors(i.num_rows);
    ib.add_threshold(i.threshold);
    ib.add_layout(fbs::IbpLayout::Condensed);
    ib.add_num_clusters(i.num_masks);
    ib.add_masks(&masks);
    if (i.row_offsets.present) ib.add_row_offsets(&row_offsets);
    if (i.mask_ids.present) ib.add_cluster_ids(&mask_ids);
    if (i.offset_bits > 0) ib.add_offset_bits(static_cast<uint8_t>(i.offset_bits));
    ibp = ib.Finish();
  }
  const bool integer = chunk.encoding == 1;
  fbs::ColumnChunkBuilder b(fbb);
  b.add_num_rows(chunk.num_rows);
  b.add_encoding(static_cast<fbs::Encoding>(chunk.encoding));
  if (integer) {
    b.add_values_per_lane(static_cast<uint16_t>(chunk.values_per_lane));
    b.add_num_partitions(chunk.num_partitions);
    b.add_partition_table(&partition_table);
    b.add_parameters(&parameters);
  }
  b.add_payload(&payload);
  if (chunk.has_ibp) b.add_ibp(ibp);
  if (chunk.bounds.present) b.add_bounds(&bounds);
  if (chunk.validity.present) b.add_validity(&validity);
  if (chunk.statistics.present) b.add_statistics(stats);
  if (chunk.pgm.present) b.add_pgm(pgm);
  if (chunk.dictionary_entries > 0) b.add_dictionary_entries(chunk.dictionary_entries);
  return b.Finish();
}

}  // namespace

std::vector<uint8_t> BuildFooter(const FileInfo& info, const std::vector<ColumnInfo>& columns) {
  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<flatbuffers::Offset<fbs::Column>> column_offsets;
  column_offsets.reserve(columns.size());
  for (const ColumnInfo& col : columns) {
    const auto name = fbb.CreateString(col.name);
    flatbuffers::Offset<fbs::LogicalType> logical = 0;
    if (col.logical.kind != LogicalKind::kNone) {
      const auto tz = col.logical.timezone.empty() ? 0 : fbb.CreateString(col.logical.timezone);
      logical = fbs::CreateLogicalType(fbb, static_cast<fbs::LogicalKind>(col.logical.kind),
                                       static_cast<fbs::TimeUnit>(col.logical.time_unit),
                                       col.logical.precision, col.logical.scale, tz);
    }
    std::vector<flatbuffers::Offset<fbs::ColumnChunk>> chunk_offsets;
    chunk_offsets.reserve(col.chunks.size());
    for (const ChunkInfo& chunk : col.chunks) chunk_offsets.push_back(BuildChunk(fbb, chunk));
    const auto chunks = fbb.CreateVector(chunk_offsets);
    // "row_width" (spec §11.2.1) only where it is not 1, so that integer
    // columns keep their 1.0 bytes.
    column_offsets.push_back(fbs::CreateColumn(fbb, name,
                                               static_cast<fbs::PhysicalType>(col.type), logical,
                                               col.nullable, chunks,
                                               col.row_width > 1 ? col.row_width : 0));
  }
  const auto columns_vec = fbb.CreateVector(column_offsets);
  const auto writer_name = fbb.CreateString(info.writer_name);
  const auto writer_version = fbb.CreateString(info.writer_version);
  const auto writer = fbs::CreateWriterInfo(fbb, writer_name, writer_version);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::KeyValue>>> metadata = 0;
  if (!info.metadata.empty()) {
    std::vector<flatbuffers::Offset<fbs::KeyValue>> kvs;
    kvs.reserve(info.metadata.size());
    for (const auto& kv : info.metadata) {
      const auto key = fbb.CreateString(kv.first);
      const auto value = fbb.CreateString(kv.second);
      kvs.push_back(fbs::CreateKeyValue(fbb, key, value));
    }
    metadata = fbb.CreateVector(kvs);
  }
  const auto footer = fbs::CreateFooter(fbb, info.num_rows, columns_vec, writer, metadata);
  fbs::FinishFooterBuffer(fbb, footer);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace l3::internal
