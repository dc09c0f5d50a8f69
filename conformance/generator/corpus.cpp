#include "corpus.hpp"

#include <zstd.h>

#include <algorithm>

namespace l3::conformance {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t Rng::Between(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  const uint64_t r = span == 0 ? Next() : Below(span);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
}

std::vector<uint64_t> Signed(Ty t, const std::vector<int64_t>& v) {
  std::vector<uint64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    out[i] = Canon(t, static_cast<uint64_t>(v[i]));
    if (static_cast<int64_t>(out[i]) != v[i] && TypeSigned(t)) Fail("Signed: value out of range");
  }
  return out;
}

std::vector<PartSpec> Cut(uint64_t n, uint32_t size, Model model, std::array<double, 4> theta) {
  std::vector<PartSpec> parts;
  for (uint64_t row = 0; row < n; row += size) {
    parts.push_back(Part(static_cast<uint32_t>(std::min<uint64_t>(size, n - row)), model, theta));
  }
  return parts;
}

ColumnSpec Column(std::string name, Ty type, std::vector<uint64_t> values,
                  std::vector<PartSpec> parts, uint32_t V) {
  ColumnSpec c;
  c.name = std::move(name);
  c.type = type;
  ChunkSpec chunk;
  chunk.values = std::move(values);
  chunk.V = V;
  chunk.parts = std::move(parts);
  c.chunks.push_back(std::move(chunk));
  return c;
}

std::vector<uint64_t> RowValues(const ChunkSpec& k) {
  if (k.dictionary_entries == 0) return k.values;
  // spec §8.10: row r is e(e(D + r)); the corpus's valid files have codes
  // below D, and the others are never decoded for expectations.
  const uint64_t d = k.dictionary_entries;
  std::vector<uint64_t> rows;
  for (uint64_t i = d; i < k.values.size(); ++i) {
    const uint64_t code = k.values[i];
    rows.push_back(code < d ? k.values[code] : 0);
  }
  return rows;
}

std::vector<ExpectedColumn> ExpectedOf(const std::vector<ColumnSpec>& columns) {
  std::vector<ExpectedColumn> out;
  for (const ColumnSpec& c : columns) {
    ExpectedColumn e;
    e.name = c.name;
    e.type = c.type;
    e.row_width = c.R();
    for (const ChunkSpec& k : c.chunks) {
      const std::vector<uint64_t> rows = RowValues(k);
      e.values.insert(e.values.end(), rows.begin(), rows.end());
    }
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

Bytes Zstd(const Bytes& in) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  // spec §9: one frame with its content size and a content checksum.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  Bytes out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) Fail("zstd compression failed");
  out.resize(n);
  return out;
}

struct PendingSegment {
  int column, chunk;
  SegKind kind;
  Bytes stored;
  uint64_t decoded;
  uint8_t compression;
  bool omit;
};

}  // namespace

Bytes SketchBytes(const SketchContent& content) {
  Bytes out;
  if (content.hashes_form) {
    out.push_back(0);  // Sketch_Form HASHES
    PutLE(&out, content.hashes.size(), 4);
    for (uint64_t h : content.hashes) PutLE(&out, h, 8);
  } else {
    out = {1, 15};  // Sketch_Form REGISTERS, Precision
    const Bytes frame = Zstd(content.registers);
    out.insert(out.end(), frame.begin(), frame.end());
  }
  return out;
}

Bytes SketchBytes(const std::vector<uint64_t>& canonical_values) {
  return SketchBytes(SpecSketch(canonical_values));
}

Built BuildTable(const std::vector<ColumnSpec>& columns, const BuildOptions& options) {
  // One encoded chunk: L3Integer (a float column's in the integer form,
  // spec §11.2.2) or IbpFloat (§11.2.3).
  struct Encoded {
    EncodedChunk integer;
    std::optional<EncodedIbp> ibp;
    bool is_float = false;
    int seg[7] = {-1, -1, -1, -1, -1, -1, -1};  // pending index per SegKind
  };
  std::vector<std::vector<Encoded>> encoded(columns.size());
  std::vector<PendingSegment> pending;
  auto add_segment = [&](Encoded& e, int c, int k, SegKind kind, const Bytes& decoded, bool zstd) {
    PendingSegment seg{c, k, kind, zstd ? Zstd(decoded) : decoded, decoded.size(),
                       static_cast<uint8_t>(zstd ? 1 : 0), false};
    if (options.field_planes && kind == SegKind::kPayload && !e.ibp) {
      seg.stored = Zstd(FieldPlaneForm(e.integer));
      seg.compression = 2;  // ZstdFieldPlanes
    }
    if (options.field_bytes && kind == SegKind::kPayload && !e.ibp) {
      seg.stored = Zstd(FieldByteForm(e.integer));
      seg.compression = 3;  // ZstdFieldBytes
    }
    if (options.omit) seg.omit = options.omit(seg.column, seg.chunk, seg.kind);
    if (options.edit_stored) {
      options.edit_stored(seg.column, seg.chunk, seg.kind, seg.stored, seg.decoded, seg.compression);
    }
    e.seg[static_cast<int>(kind)] = static_cast<int>(pending.size());
    pending.push_back(std::move(seg));
  };
  for (size_t c = 0; c < columns.size(); ++c) {
    const ColumnSpec& col = columns[c];
    const bool is_float = TypeIsFloat(col.type);
    for (size_t k = 0; k < col.chunks.size(); ++k) {
      const ChunkSpec& spec = col.chunks[k];
      Encoded e;
      e.is_float = is_float;
      const int ci = static_cast<int>(c), ki = static_cast<int>(k);
      if (spec.ibp) {
        EncodedIbp ibp = EncodeIbp(col.type, col.R(), spec.values, *spec.ibp);
        if (options.edit_ibp) options.edit_ibp(ci, ki, ibp);
        e.ibp = std::move(ibp);
        add_segment(e, ci, ki, SegKind::kIbpMasks, e.ibp->masks, options.zstd);
        if (e.ibp->has_row_offsets) {
          add_segment(e, ci, ki, SegKind::kIbpRowOffsets, e.ibp->row_offsets, options.zstd);
        }
        if (e.ibp->has_cluster_ids) {
          add_segment(e, ci, ki, SegKind::kIbpClusterIds, e.ibp->cluster_ids, options.zstd);
        }
        add_segment(e, ci, ki, SegKind::kPayload, e.ibp->payload, options.zstd);
        encoded[c].push_back(std::move(e));
        continue;
      }
      std::vector<uint64_t> values = spec.values;
      Ty coded = col.type;
      if (is_float) {
        // spec §11.2.2: the chunk codes the mapped values as type U.
        coded = IntegerFormType(col.type);
        for (uint64_t& v : values) v = OrderedFromFloat(col.type, v);
      }
      EncodedChunk chunk = EncodeChunk(coded, spec.V, values, spec.parts);
      if (spec.dictionary_entries > 0) {
        if (is_float) Fail("BuildTable: float dictionary chunks are not supported");
        // spec §8.10: the partitions cover the elements; the chunk's rows
        // and statistics are those of the decoded values.
        chunk.dictionary_entries = spec.dictionary_entries;
        chunk.num_rows = spec.values.size() - spec.dictionary_entries;
        const Ty t = col.type;
        const std::vector<uint64_t> rows = RowValues(spec);
        Statistics& st = chunk.statistics;
        st.min_value = st.max_value = rows.at(0);
        std::vector<uint64_t> sorted = rows;
        std::sort(sorted.begin(), sorted.end(), [t](uint64_t a, uint64_t b) { return Less(t, a, b); });
        st.min_value = sorted.front();
        st.max_value = sorted.back();
        st.distinct_count = static_cast<uint64_t>(
            std::unique(sorted.begin(), sorted.end()) - sorted.begin());
        st.distinct_count_exact = true;
      }
      if (is_float) chunk.num_rows = spec.values.size() / col.R();  // rows, not values
      if (options.distinct_sketch && !is_float) {
        chunk.statistics.distinct_sketch = SketchBytes(RowValues(spec));
      }
      if (options.edit_chunk) options.edit_chunk(ci, ki, chunk);
      e.integer = std::move(chunk);
      const bool bounds = options.bounds && (!is_float || options.float_bounds);
      add_segment(e, ci, ki, SegKind::kPartitionTable, e.integer.partition_table, options.zstd);
      add_segment(e, ci, ki, SegKind::kParameters, e.integer.parameters, options.zstd);
      add_segment(e, ci, ki, SegKind::kPayload, e.integer.payload, options.zstd);
      if (bounds) add_segment(e, ci, ki, SegKind::kBounds, e.integer.bounds, options.zstd);
      encoded[c].push_back(std::move(e));
    }
  }
  std::vector<int> order(pending.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  if (options.reorder) options.reorder(order);

  FileLayout layout;
  std::vector<SegRef> refs(pending.size());
  for (int i : order) {
    const PendingSegment& seg = pending[i];
    if (seg.omit) continue;
    const uint64_t gap = options.gap_before ? options.gap_before(seg.column, seg.chunk, seg.kind) : 0;
    refs[i] = layout.Place(seg.stored, seg.decoded, seg.compression, gap, options.gap_fill);
  }
  std::vector<SegRef> extra;
  for (const Bytes& b : options.extra_segments) extra.push_back(layout.Place(b, b.size(), 0));

  FooterModel footer;
  footer.columns.emplace();
  uint64_t num_rows = 0;
  bool any_float = false;
  for (size_t c = 0; c < columns.size(); ++c) {
    ColumnModel col;
    col.name = columns[c].name;
    col.physical_type = static_cast<uint8_t>(columns[c].type);
    col.logical = columns[c].logical;
    if (columns[c].nullable) col.nullable = true;
    if (columns[c].row_width != 0) col.row_width = columns[c].row_width;
    any_float = any_float || TypeIsFloat(columns[c].type);
    col.chunks.emplace();
    uint64_t rows = 0;
    for (const Encoded& e : encoded[c]) {
      ChunkModel chunk;
      auto take = [&](SegKind kind, std::optional<SegRef>* ref) {
        const int i = e.seg[static_cast<int>(kind)];
        if (i >= 0 && !pending[i].omit) *ref = refs[i];
      };
      if (e.ibp) {
        // spec §11.2.3: payload and ibp only; values_per_lane, num_partitions
        // and dictionary_entries absent (0).
        const EncodedIbp& b = *e.ibp;
        chunk.num_rows = b.num_rows;
        chunk.encoding = 2;  // IbpFloat
        take(SegKind::kPayload, &chunk.payload);
        IbpModel ibp;
        ibp.element_bytes = static_cast<uint8_t>(b.word_bits / 8);
        ibp.vector_length = b.words_per_row;
        ibp.num_vectors = b.num_rows;
        ibp.threshold = b.threshold;
        ibp.layout = 1;  // Condensed
        ibp.num_clusters = b.num_masks;
        take(SegKind::kIbpMasks, &ibp.masks);
        take(SegKind::kIbpRowOffsets, &ibp.row_offsets);
        take(SegKind::kIbpClusterIds, &ibp.cluster_ids);
        if (b.has_row_offsets) ibp.offset_bits = static_cast<uint8_t>(b.offset_bits);
        chunk.ibp = ibp;
        rows += b.num_rows;
        col.chunks->push_back(chunk);
        continue;
      }
      const EncodedChunk& k = e.integer;
      chunk.num_rows = k.num_rows;
      chunk.encoding = 1;  // L3Integer
      chunk.values_per_lane = static_cast<uint16_t>(k.values_per_lane);
      chunk.num_partitions = k.num_partitions;
      if (k.dictionary_entries > 0) chunk.dictionary_entries = k.dictionary_entries;
      take(SegKind::kPartitionTable, &chunk.partition_table);
      take(SegKind::kParameters, &chunk.parameters);
      take(SegKind::kPayload, &chunk.payload);
      take(SegKind::kBounds, &chunk.bounds);
      if (options.statistics && (!e.is_float || options.float_statistics)) chunk.statistics = k.statistics;
      rows += k.num_rows;
      col.chunks->push_back(chunk);
    }
    if (c == 0) num_rows = rows;
    footer.columns->push_back(std::move(col));
  }
  footer.num_rows = num_rows;
  if (options.writer_info) footer.writer = std::make_pair("l3-conformance-gen", "1");
  if (!options.metadata.empty()) footer.metadata = options.metadata;
  if (options.attach) options.attach(footer, extra);
  if (options.edit_footer) options.edit_footer(footer);
  Built built;
  // spec §4.4, §8.9: a DELTA partition needs DELTA_MODEL, and the file is
  // format 1.1.
  FinishOptions finish = options.finish;
  for (const ColumnSpec& col : columns) {
    for (const ChunkSpec& k : col.chunks) {
      // spec §8.10 is new in 1.1 (DICTIONARY comes from the footer).
      if (k.dictionary_entries > 0 && finish.header.format_minor == 0) {
        finish.header.format_minor = 1;
      }
      for (const PartSpec& p : k.parts) {
        if (p.model == kDelta) {
          finish.extra_required |= uint64_t{1} << 3;
          if (finish.header.format_minor == 0) finish.header.format_minor = 1;
        }
        if (p.model == kRunsEf) {  // spec §8.11: RUNS_EF_MODEL
          finish.extra_required |= uint64_t{1} << 6;
          if (finish.header.format_minor == 0) finish.header.format_minor = 1;
        }
        if (p.model == kPatchedFor) {  // spec §8.12: PATCHED_FOR_MODEL
          finish.extra_required |= uint64_t{1} << 7;
          if (finish.header.format_minor == 0) finish.header.format_minor = 1;
        }
        if (p.model == kPatchedFor && p.rows_ef) {  // spec §8.12: PATCHED_ROWS_EF
          finish.extra_required |= uint64_t{1} << 8;
        }
        if (p.model == kDelta && p.delta_order > 1) {  // spec §8.9: DELTA_ORDERS
          finish.extra_required |= uint64_t{1} << 9;
        }
      }
    }
  }
  if (options.field_planes || options.field_bytes || options.distinct_sketch) {
    // spec §9.2, §9.3 and §7.6.1 are new in 1.1 (FIELD_PLANES and
    // DISTINCT_SKETCH come from the footer).
    if (finish.header.format_minor == 0) finish.header.format_minor = 1;
  }
  // Float columns (spec §11.2; IBP_FLOAT comes from the footer) and the
  // segment table (spec §4.3.1) are new in 1.1.
  if (any_float && finish.header.format_minor == 0) finish.header.format_minor = 1;
  if (footer.segments && finish.header.format_minor == 0) finish.header.format_minor = 1;
  built.file = FinishFile(std::move(layout), footer, finish);
  built.footer = std::move(footer);
  if (options.edit_file) options.edit_file(built.file, built.footer);
  return built;
}

}  // namespace l3::conformance
