// The corpus: case descriptions and the table builder that turns columns of
// values into files (spec-literal encoding, canonical layout), with hooks at
// each stage for the cases that break one rule on purpose.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "file_builder.hpp"
#include "spec_encode.hpp"
#include "spec_float.hpp"

namespace l3::conformance {

/// One chunk of a column: its values and how to partition them.
struct ChunkSpec {
  /// The rows' values; for a dictionary chunk (dictionary_entries = D > 0,
  /// spec §8.10) the M = D + rows elements: the entries, then the codes.
  std::vector<uint64_t> values;
  uint64_t dictionary_entries = 0;
  uint32_t V = 64;
  std::vector<PartSpec> parts;
  /// Float columns (spec §11.2): `values` are the chunk's num_rows * R bit
  /// patterns, row-major. Without `ibp` the chunk is in the integer form
  /// (§11.2.2; `parts` partition the mapped values), with it an IbpFloat
  /// chunk (§11.2.3).
  std::optional<IbpSpec> ibp;
};

struct ColumnSpec {
  std::string name;
  Ty type = Ty::kI64;
  std::vector<ChunkSpec> chunks;
  std::optional<LogicalModel> logical;
  bool nullable = false;
  /// Column.row_width (spec §11.2.1); 0: the field is absent (R = 1).
  uint32_t row_width = 0;
  uint32_t R() const { return row_width == 0 ? 1 : row_width; }
};

/// A column with one chunk.
ColumnSpec Column(std::string name, Ty type, std::vector<uint64_t> values,
                  std::vector<PartSpec> parts, uint32_t V = 64);

enum class SegKind {
  kPartitionTable = 0, kParameters = 1, kPayload = 2, kBounds = 3,
  // IbpFloat chunks (spec §11.2.3): IbpMasks.masks, row_offsets, cluster_ids.
  kIbpMasks = 4, kIbpRowOffsets = 5, kIbpClusterIds = 6,
};

struct BuildOptions {
  bool bounds = true;
  bool statistics = true;
  bool zstd = false;  ///< every segment compressed (the archive profile, spec §9)
  /// Payload segments stored as ZstdFieldPlanes (spec §9.2; sets FIELD_PLANES
  /// and format 1.1). The other segments follow `zstd`.
  bool field_planes = false;
  /// Payload segments stored as ZstdFieldBytes instead (spec §9.3; also sets
  /// FIELD_PLANES and format 1.1).
  bool field_bytes = false;
  /// Chunk statistics carry the distinct-count sketch (spec §7.6.1; sets
  /// DISTINCT_SKETCH and format 1.1).
  bool distinct_sketch = false;
  std::vector<KeyValueModel> metadata;
  bool writer_info = true;
  /// Edits a chunk's decoded segments before they are placed.
  std::function<void(int column, int chunk, EncodedChunk&)> edit_chunk;
  /// The same for IbpFloat chunks (spec §11.2.3).
  std::function<void(int column, int chunk, EncodedIbp&)> edit_ibp;
  /// Float chunks in the integer form get bounds and statistics only when
  /// these are set (spec §11.2.1 reserves them; the invalid cases set them).
  bool float_bounds = false;
  bool float_statistics = false;
  /// Edits the bytes to store for a segment (after compression) and its
  /// reference fields, before it is placed (the checksum is then computed).
  std::function<void(int column, int chunk, SegKind kind, Bytes& stored, uint64_t& decoded,
                     uint8_t& compression)>
      edit_stored;
  /// Segments left out of the file and the footer.
  std::function<bool(int column, int chunk, SegKind kind)> omit;
  /// Extra bytes placed before a segment (a non-canonical gap).
  std::function<uint64_t(int column, int chunk, SegKind kind)> gap_before;
  uint8_t gap_fill = 0;
  /// Reorders the segments in the file (a permutation of their indices in
  /// column, chunk, kind order).
  std::function<void(std::vector<int>& order)> reorder;
  /// Further segments placed after the chunks' segments (e.g. a validity
  /// bitmap or an index); `attach` receives their references.
  std::vector<Bytes> extra_segments;
  std::function<void(FooterModel&, const std::vector<SegRef>& extra)> attach;
  /// Edits the footer model after the segments are placed.
  std::function<void(FooterModel&)> edit_footer;
  FinishOptions finish;
  /// Edits the finished bytes (the footer model gives segment positions).
  std::function<void(Bytes&, const FooterModel&)> edit_file;
};

struct Built {
  Bytes file;
  FooterModel footer;
};

Built BuildTable(const std::vector<ColumnSpec>& columns, const BuildOptions& options = {});

/// A column's expected decoded values.
struct ExpectedColumn {
  std::string name;
  Ty type = Ty::kI64;
  std::vector<uint64_t> values;  ///< num_rows * row_width values, row-major
  uint32_t row_width = 1;
};

std::vector<ExpectedColumn> ExpectedOf(const std::vector<ColumnSpec>& columns);

/// A chunk's decoded row values (a dictionary chunk's codes looked up,
/// spec §8.10; a code at or above D gives 0).
std::vector<uint64_t> RowValues(const ChunkSpec& chunk);

/// spec §7.6.1: the bytes of the sketch of `canonical_values` (the registers
/// as one zstd frame).
Bytes SketchBytes(const std::vector<uint64_t>& canonical_values);
Bytes SketchBytes(const SketchContent& content);

struct Case {
  std::string name;  ///< file stem; the id is kind + "/" + name
  std::string kind;  ///< valid, deep, invalid, future
  std::vector<std::string> sections;
  std::string description;
  Bytes file;
  /// valid and deep: the decoded values. future: the values a reader that
  /// implements `feature` decodes.
  std::vector<ExpectedColumn> columns;
  /// deep: the class deep validation reports. invalid, future: the class a
  /// reader reports.
  std::string error_class;
  /// Other classes a conforming reader may report (documented per case).
  std::vector<std::string> also_acceptable;
  /// invalid, future: the column to read, and where the reference detects
  /// the error ("open" or "read").
  std::string read_column;
  std::string stage;
  /// Reader capabilities the case needs to fail as expected, e.g.
  /// "segment_checksums" (a reader that verifies segment checksums).
  std::vector<std::string> requires_;
  /// future: the feature bit a reader may implement, and what such a reader
  /// must do (decode `columns`, honouring `validity`).
  std::string feature;
  /// What a reader that implements `feature` reports; empty: it decodes
  /// `columns`.
  std::string error_class_with_feature;
  std::vector<Bytes> validity;  ///< per column (empty when none)
};

void AddValidCases(std::vector<Case>* cases);
void AddDeepCases(std::vector<Case>* cases);
void AddInvalidCases(std::vector<Case>* cases);
void AddFutureCases(std::vector<Case>* cases);
/// Float columns (spec §11.2, cases_float.cpp), called at the end of the
/// three above.
void AddFloatValidCases(std::vector<Case>* cases);
void AddFloatDeepCases(std::vector<Case>* cases);
void AddFloatInvalidCases(std::vector<Case>* cases);

/// Raw inputs for third-party writers (conformance/writer-inputs/).
struct WriterInput {
  std::string name;
  Ty type;
  std::vector<uint64_t> values;
  std::string description;
};
std::vector<WriterInput> WriterInputs();

// Data helpers ---------------------------------------------------------------

/// A deterministic generator (splitmix64), so the corpus never depends on a
/// standard library's distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  /// Uniform in [0, bound) for bound > 0 (bias is irrelevant here).
  uint64_t Below(uint64_t bound) { return Next() % bound; }
  int64_t Between(int64_t lo, int64_t hi);  ///< inclusive

 private:
  uint64_t state_;
};

/// Canonical words of signed values.
std::vector<uint64_t> Signed(Ty t, const std::vector<int64_t>& v);
/// A partition list of one model cutting n rows into pieces of `size`.
std::vector<PartSpec> Cut(uint64_t n, uint32_t size, Model model, std::array<double, 4> theta = {});

}  // namespace l3::conformance
