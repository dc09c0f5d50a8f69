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

Built BuildTable(const std::vector<ColumnSpec>& columns, const BuildOptions& options) {
  std::vector<std::vector<EncodedChunk>> encoded(columns.size());
  std::vector<PendingSegment> pending;
  for (size_t c = 0; c < columns.size(); ++c) {
    for (size_t k = 0; k < columns[c].chunks.size(); ++k) {
      const ChunkSpec& spec = columns[c].chunks[k];
      EncodedChunk chunk = EncodeChunk(columns[c].type, spec.V, spec.values, spec.parts);
      if (spec.dictionary_entries > 0) {
        // spec §8.10: the partitions cover the elements; the chunk's rows
        // and statistics are those of the decoded values.
        chunk.dictionary_entries = spec.dictionary_entries;
        chunk.num_rows = spec.values.size() - spec.dictionary_entries;
        const Ty t = columns[c].type;
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
      if (options.edit_chunk) options.edit_chunk(static_cast<int>(c), static_cast<int>(k), chunk);
      const Bytes* segments[4] = {&chunk.partition_table, &chunk.parameters, &chunk.payload,
                                  &chunk.bounds};
      for (int s = 0; s < (options.bounds ? 4 : 3); ++s) {
        PendingSegment seg{static_cast<int>(c), static_cast<int>(k), static_cast<SegKind>(s),
                           options.zstd ? Zstd(*segments[s]) : *segments[s],
                           segments[s]->size(), static_cast<uint8_t>(options.zstd ? 1 : 0), false};
        if (options.field_planes && seg.kind == SegKind::kPayload) {
          seg.stored = Zstd(FieldPlaneForm(chunk));
          seg.compression = 2;  // ZstdFieldPlanes
        }
        if (options.omit) seg.omit = options.omit(seg.column, seg.chunk, seg.kind);
        if (options.edit_stored) {
          options.edit_stored(seg.column, seg.chunk, seg.kind, seg.stored, seg.decoded, seg.compression);
        }
        pending.push_back(std::move(seg));
      }
      encoded[c].push_back(std::move(chunk));
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
  size_t next = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    ColumnModel col;
    col.name = columns[c].name;
    col.physical_type = static_cast<uint8_t>(columns[c].type);
    col.logical = columns[c].logical;
    if (columns[c].nullable) col.nullable = true;
    col.chunks.emplace();
    uint64_t rows = 0;
    for (const EncodedChunk& e : encoded[c]) {
      ChunkModel chunk;
      chunk.num_rows = e.num_rows;
      chunk.encoding = 1;  // L3Integer
      chunk.values_per_lane = static_cast<uint16_t>(e.values_per_lane);
      chunk.num_partitions = e.num_partitions;
      if (e.dictionary_entries > 0) chunk.dictionary_entries = e.dictionary_entries;
      auto take = [&](std::optional<SegRef>* ref) {
        if (!pending[next].omit) *ref = refs[next];
        ++next;
      };
      take(&chunk.partition_table);
      take(&chunk.parameters);
      take(&chunk.payload);
      if (options.bounds) take(&chunk.bounds);
      if (options.statistics) chunk.statistics = e.statistics;
      rows += e.num_rows;
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
      }
    }
  }
  if (options.field_planes) {
    // spec §9.2 is new in 1.1 (FIELD_PLANES comes from the segment refs).
    if (finish.header.format_minor == 0) finish.header.format_minor = 1;
  }
  // The segment table (spec §4.3.1) is new in 1.1.
  if (footer.segments && finish.header.format_minor == 0) finish.header.format_minor = 1;
  built.file = FinishFile(std::move(layout), footer, finish);
  built.footer = std::move(footer);
  if (options.edit_file) options.edit_file(built.file, built.footer);
  return built;
}

}  // namespace l3::conformance
