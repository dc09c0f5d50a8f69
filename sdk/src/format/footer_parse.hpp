// Verifies the footer (spec §6) and checks its semantics on open: §6.1–§6.2,
// the segment checks of §7.1, the chunk fields of §7.2, feature bits (§4.4)
// and the canonical layout (§4.3).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/framing.hpp"
#include "l3/l3.hpp"

namespace l3::internal {

struct FooterLimits {
  bool allow_unknown = false;
  uint64_t max_partitions_per_chunk = uint64_t{1} << 24;
  uint64_t max_segment_bytes = uint64_t{1} << 36;
  uint64_t max_zstd_expansion = uint64_t{1} << 20;
};

struct ParsedFooter {
  /// num_rows, writer_name, writer_version and metadata; the framing fields
  /// are the caller's.
  FileInfo info;
  std::vector<ColumnInfo> columns;
  /// Per column, per chunk: why this reader cannot decode the chunk (only
  /// with allow_unknown), or empty when it can.
  std::vector<std::vector<std::string>> unsupported;
  /// Every segment the footer references, as (offset, stored_length), sorted
  /// by offset: the bytes between them are padding (spec §4.3).
  std::vector<std::pair<uint64_t, uint64_t>> segment_extents;
  /// Segments this reader never decodes (validity, IbpMasks and
  /// PgmIndex.segments segments, segment-table entries, spec §4.3.1), sorted
  /// by offset: their checksums are verified by deep validation (spec §5,
  /// §10.3 step 3).
  struct OpaqueSegment {
    uint64_t offset;
    uint64_t length;
    uint32_t checksum;
    std::string where;
  };
  std::vector<OpaqueSegment> opaque_segments;
};

/// Verifies and parses the footer. `footer` must be 8-byte aligned. Errors:
/// kCorruptFooter, kCorruptMetadata, kCorruptFraming, kUnsupportedFeature,
/// kResourceLimit.
Status ParseFooter(const uint8_t* footer, uint64_t footer_length, const Postscript& ps,
                   const FooterLimits& limits, ParsedFooter* out);

}  // namespace l3::internal
