// Assembles L3 files for the corpus: a footer model that can hold what a
// conforming writer never writes (absent required fields, unknown enum
// values), the canonical segment layout of spec §4.3 with optional gaps,
// and the File_Header and Postscript of spec §4.1–§4.2 with every field
// overridable. Checksums (CRC32C, spec §5) are recomputed after each edit
// unless a case asks otherwise, so that the check a case targets is the one
// that fires.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spec_encode.hpp"

namespace l3::conformance {

/// spec §5 CRC32C, bit by bit from the definition.
uint32_t Crc32c(const uint8_t* data, size_t size);
inline uint32_t Crc32c(const Bytes& b) { return Crc32c(b.data(), b.size()); }

extern const uint8_t kMagic[8];

/// spec §7.1 SegmentRef.
struct SegRef {
  uint64_t offset = 0, stored_length = 0, decoded_length = 0;
  uint32_t checksum = 0;
  uint8_t compression = 0, reserved_0 = 0;
  uint16_t reserved_1 = 0;
};

struct LogicalModel {
  uint16_t kind = 0;
  uint8_t time_unit = 0, precision = 0;
  int8_t scale = 0;
  std::optional<std::string> timezone;
};

/// IbpMasks (spec §11.2.3). The first four fields are always written (as
/// the 1.0 cases wrote them); the others only when set.
struct IbpModel {
  uint8_t element_bytes = 4;
  uint32_t vector_length = 0;
  uint64_t num_vectors = 0;
  std::optional<SegRef> masks;
  std::optional<float> threshold;
  std::optional<uint8_t> layout;
  std::optional<uint32_t> num_clusters;
  std::optional<SegRef> row_bitmask, row_offsets, cluster_ids;
  std::optional<uint8_t> offset_bits;  ///< format 1.1 (id 10)
};

struct PgmModel {
  uint32_t epsilon = 0;
  uint64_t num_keys = 0;
  std::vector<uint32_t> level_offsets;
  std::optional<SegRef> segments;
  // Format 1.1 (spec §11.3): the inline segment vectors.
  std::optional<uint32_t> epsilon_recursive;
  std::optional<std::vector<uint64_t>> segment_keys, segment_intercepts;
  std::optional<std::vector<float>> segment_slopes;
};

/// Every scalar is optional: unset means the field is absent from the table
/// (a reader then sees the schema default); set means it is written, even
/// when it equals the default.
struct ChunkModel {
  std::optional<uint64_t> num_rows;
  std::optional<uint16_t> encoding;
  std::optional<uint16_t> values_per_lane;
  std::optional<uint32_t> num_partitions;
  std::optional<SegRef> partition_table, parameters, payload, bounds, validity;
  std::optional<Statistics> statistics;
  std::optional<IbpModel> ibp;
  std::optional<PgmModel> pgm;
  std::optional<uint64_t> dictionary_entries;  ///< format 1.1, spec §8.10
};

struct ColumnModel {
  std::optional<std::string> name;
  std::optional<uint8_t> physical_type;
  std::optional<LogicalModel> logical;
  std::optional<bool> nullable;
  std::optional<std::vector<ChunkModel>> chunks;
  std::optional<uint32_t> row_width;  ///< format 1.1 (spec §11.2.1)
};

struct KeyValueModel {
  std::optional<std::string> key;
  std::optional<std::string> value;
};

struct FooterModel {
  std::optional<uint64_t> num_rows;
  std::optional<std::vector<ColumnModel>> columns;
  std::optional<std::pair<std::string, std::string>> writer;
  std::optional<std::vector<KeyValueModel>> metadata;
  /// Footer.segments, the segment table of format 1.1 (spec §4.3.1).
  std::optional<std::vector<SegRef>> segments;
  std::string identifier = "L3FT";
  /// Serialise with the extended schema (l3_future.fbs), adding the fields
  /// a later minor version might append.
  bool future_fields = false;
};

/// Serialises the footer (FlatBuffers, spec §6).
Bytes SerializeFooter(const FooterModel& footer);

struct HeaderFields {
  uint8_t magic[8];
  uint16_t format_major = 1, format_minor = 0;
  uint32_t header_flags = 0;
  uint8_t reserved[48] = {};
  HeaderFields();
};

struct PostscriptFields {
  uint64_t footer_offset = 0, footer_length = 0, required_features = 0, optional_features = 0;
  uint16_t format_major = 1, format_minor = 0;
  uint8_t checksum_type = 0;
  uint8_t reserved_1[3] = {};
  uint32_t footer_checksum = 0;
  uint8_t reserved_2[8] = {};
  std::optional<uint32_t> postscript_checksum;  ///< unset: computed
  uint8_t magic[8];
  PostscriptFields();
};

/// The feature bits (spec §4.4) a footer uses.
void DeriveFeatureBits(const FooterModel& footer, uint64_t* required, uint64_t* optional);

/// A file under construction: segments are appended canonically.
class FileLayout {
 public:
  FileLayout() : bytes_(64, 0) {}
  /// Appends a segment at align64(end) plus `extra_gap` bytes of `gap_fill`
  /// (0 for a canonical file), returning its reference.
  SegRef Place(const Bytes& stored, uint64_t decoded_length, uint8_t compression,
               uint64_t extra_gap = 0, uint8_t gap_fill = 0);
  uint64_t end() const { return bytes_.size(); }
  Bytes& bytes() { return bytes_; }

 private:
  Bytes bytes_;
};

struct FinishOptions {
  HeaderFields header;
  uint64_t footer_gap = 0;     ///< extra bytes between align64(end) and the footer
  uint8_t padding_fill = 0;    ///< value of the padding bytes before the footer
  /// The footer bytes to store; unset: SerializeFooter(footer).
  std::optional<Bytes> footer_bytes;
  std::function<void(PostscriptFields&)> edit_postscript;
  /// Required_Features bits the footer cannot show (DELTA_MODEL: a DELTA
  /// partition, spec §4.4, §8.9), set before edit_postscript runs.
  uint64_t extra_required = 0;
};

/// Header, padding, footer and postscript around the placed segments.
Bytes FinishFile(FileLayout layout, const FooterModel& footer, const FinishOptions& options);

// Edits of finished files --------------------------------------------------

struct PostscriptView {
  uint64_t footer_offset, footer_length;
};
PostscriptView ReadPostscript(const Bytes& file);
/// Recomputes the Postscript_Checksum.
void FixPostscriptChecksum(Bytes* file);
/// Replaces the footer bytes (any length) and fixes Footer_Length, the
/// Footer_Checksum and the Postscript_Checksum.
void ReplaceFooter(Bytes* file, const Bytes& footer);

// FlatBuffers navigation, for crafting verifier failures.
struct FbField {
  uint64_t table = 0;    ///< position of the table in the footer
  uint64_t vtable = 0;   ///< position of its vtable
  uint64_t slot = 0;     ///< position of the field's vtable entry
  uint64_t field = 0;    ///< position of the field (0 if absent)
};
FbField FindField(const Bytes& footer, uint64_t table, int id);
uint64_t RootTable(const Bytes& footer);
/// The target of the uoffset stored at `pos`.
uint64_t Follow(const Bytes& footer, uint64_t pos);

}  // namespace l3::conformance
