#include "format/file_assembler.hpp"

#include "common/crc32c.hpp"
#include "common/status_macros.hpp"
#include "format/footer_build.hpp"
#include "format/framing.hpp"
#include "format/layout.hpp"

namespace l3::internal {

Status FileAssembler::Start() {
  uint8_t header[kHeaderBytes];
  PackFileHeader(kFormatMajor, format_minor_, header);
  return sink_->Write(header, sizeof(header));
}

Status FileAssembler::PadTo(uint64_t offset) {
  static const uint8_t kZeros[kSegmentAlignment] = {};
  const uint64_t gap = offset - sink_->position();
  return gap == 0 ? Status::OK() : sink_->Write(kZeros, static_cast<size_t>(gap));
}

Result<SegmentInfo> FileAssembler::AppendSegment(const uint8_t* stored, uint64_t stored_bytes,
                                                 uint64_t decoded_bytes,
                                                 Compression compression) {
  SegmentInfo seg;
  seg.present = true;
  seg.offset = AlignUp64(sink_->position());
  seg.stored_bytes = stored_bytes;
  seg.decoded_bytes = decoded_bytes;
  seg.checksum = Crc32c(0, stored, static_cast<size_t>(stored_bytes));
  seg.compression = compression;
  L3_RETURN_NOT_OK(PadTo(seg.offset));
  L3_RETURN_NOT_OK(sink_->Write(stored, static_cast<size_t>(stored_bytes)));
  return seg;
}

Status FileAssembler::Finish(const FileInfo& info, const std::vector<ColumnInfo>& columns) {
  Postscript ps;
  for (const ColumnInfo& col : columns) {
    // spec §4.4, §11.2: IBP_FLOAT marks a float column.
    if (PhysicalTypeIsFloat(col.type)) ps.required_features |= kRequiredIbpFloat;
    for (const ChunkInfo& chunk : col.chunks) {
      for (const SegmentInfo* s : {&chunk.partition_table, &chunk.parameters, &chunk.payload,
                                   &chunk.bounds, &chunk.validity, &chunk.ibp.masks,
                                   &chunk.ibp.row_offsets, &chunk.ibp.mask_ids}) {
        if (s->present && s->compression == Compression::kZstd) {
          ps.required_features |= kRequiredZstdSegments;
        }
        if (s->present && (s->compression == Compression::kZstdFieldPlanes ||
                           s->compression == Compression::kZstdFieldBytes)) {
          ps.required_features |= kRequiredFieldPlanes;
        }
      }
      if (chunk.bounds.present) ps.optional_features |= kOptionalPartitionBounds;
      if (chunk.pgm.present) ps.optional_features |= kOptionalPgmIndex;
      if (!chunk.statistics.distinct_sketch.empty()) {
        ps.optional_features |= kOptionalDistinctSketch;
      }
      if (chunk.validity.present) ps.required_features |= kRequiredValidityBitmaps;
      if (chunk.uses_delta) ps.required_features |= kRequiredDeltaModel;
      if (chunk.uses_runs_ef) ps.required_features |= kRequiredRunsEfModel;
      if (chunk.uses_patched_for) ps.required_features |= kRequiredPatchedForModel;
      if (chunk.uses_patched_rows_ef) ps.required_features |= kRequiredPatchedRowsEf;
      if (chunk.uses_delta_orders) ps.required_features |= kRequiredDeltaOrders;
      if (chunk.dictionary_entries > 0) ps.required_features |= kRequiredDictionary;
    }
  }
  const std::vector<uint8_t> footer = BuildFooter(info, columns);
  ps.footer_offset = AlignUp64(sink_->position());
  ps.footer_length = footer.size();
  ps.format_major = kFormatMajor;
  ps.format_minor = format_minor_;
  ps.checksum_type = kChecksumCrc32c;
  ps.footer_checksum = Crc32c(0, footer.data(), footer.size());
  L3_RETURN_NOT_OK(PadTo(ps.footer_offset));
  L3_RETURN_NOT_OK(sink_->Write(footer.data(), footer.size()));
  uint8_t postscript[kPostscriptBytes];
  PackPostscript(ps, postscript);
  return sink_->Write(postscript, sizeof(postscript));
}

}  // namespace l3::internal
