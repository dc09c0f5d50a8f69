// Lays out a file canonically (spec §4.3): File_Header, segments in append
// order each at align64(end of the previous one) with zero padding, then the
// footer at align64(end of the last segment) and the postscript.
#pragma once

#include <cstdint>
#include <vector>

#include "common/output_sink.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

class FileAssembler {
 public:
  /// Does not own `sink`.
  /// `format_minor` is the Format_Minor written in the header and the
  /// postscript (spec §4.1, §4.2).
  explicit FileAssembler(OutputSink* sink, uint16_t format_minor = kFormatMinor)
      : sink_(sink), format_minor_(format_minor) {}

  /// Writes the File_Header. Call once, first.
  Status Start();

  /// Appends one segment's stored bytes and returns its reference (offset,
  /// lengths, CRC32C of the stored bytes, compression).
  Result<SegmentInfo> AppendSegment(const uint8_t* stored, uint64_t stored_bytes,
                                    uint64_t decoded_bytes, Compression compression);

  /// Writes the footer built from `info` and `columns` and the postscript,
  /// whose feature bits are derived from what `columns` use (spec §4.4). Does
  /// not commit the sink.
  Status Finish(const FileInfo& info, const std::vector<ColumnInfo>& columns);

 private:
  Status PadTo(uint64_t offset);

  OutputSink* sink_;
  uint16_t format_minor_;
};

}  // namespace l3::internal
