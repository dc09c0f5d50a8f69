#include "dump.hpp"

#include <charconv>
#include <optional>

#include "common/errors.hpp"
#include "common/summary.hpp"

namespace l3::cli {
namespace {

Json FeatureJson(uint64_t bits, const std::string& names, uint64_t unknown) {
  Json j;
  j["bits"] = bits;
  Json list = Json::array();
  if (bits != 0) {
    size_t start = 0;
    while (start <= names.size()) {
      size_t bar = names.find('|', start);
      if (bar == std::string::npos) bar = names.size();
      list.push_back(names.substr(start, bar - start));
      start = bar + 1;
    }
  }
  j["names"] = list;
  j["unknown_bits"] = unknown;
  return j;
}

Json SegmentJson(const SegmentInfo& s) {
  if (!s.present) return nullptr;
  Json j;
  j["offset"] = s.offset;
  j["stored_bytes"] = s.stored_bytes;
  j["decoded_bytes"] = s.decoded_bytes;
  j["checksum"] = Format("0x%08x", s.checksum);
  j["compression"] = s.compression == Compression::kNone ? "none"
                     : s.compression == Compression::kZstd ? "zstd"
                     : s.compression == Compression::kZstdFieldPlanes ? "zstd+field-planes"
                     : s.compression == Compression::kZstdFieldBytes  ? "zstd+field-bytes"
                         : Format("unknown(%u)", static_cast<unsigned>(s.compression));
  return j;
}

/// A value in canonical extension (spec §8.2) as a JSON number of the
/// column's signedness.
Json ValueJson(uint64_t word, const ColumnInfo& column) {
  if (PhysicalTypeIsSigned(column.type)) return static_cast<int64_t>(word);
  return word;
}

Json StatusJson(const Status& status) {
  Json j;
  j["code"] = StatusCodeName(status.code());
  j["message"] = status.message();
  return j;
}

Json LogicalJson(const LogicalType& logical) {
  static const char* kUnits[] = {"s", "ms", "us", "ns"};
  Json j;
  switch (logical.kind) {
    case LogicalKind::kNone: j["kind"] = "none"; break;
    case LogicalKind::kTimestamp: {
      j["kind"] = "timestamp";
      int unit = static_cast<int>(logical.time_unit);
      j["time_unit"] = unit >= 0 && unit < 4 ? kUnits[unit] : "unknown";
      j["timezone"] = logical.timezone;
      break;
    }
    case LogicalKind::kDate: j["kind"] = "date"; break;
    case LogicalKind::kDecimal:
      j["kind"] = "decimal";
      j["precision"] = logical.precision;
      j["scale"] = logical.scale;
      break;
    default: j["kind"] = Format("unknown(%u)", static_cast<unsigned>(logical.kind)); break;
  }
  return j;
}

Json PartitionJson(const PartitionInfo& p, size_t index, const ColumnInfo& column) {
  Json j;
  j["index"] = index;
  j["first_row"] = p.first_row;
  j["num_rows"] = p.num_rows;
  j["model"] = ModelTypeName(p.model);
  j["bit_width"] = p.bit_width;
  Json params = Json::array();
  for (int i = 0; i < p.num_params && i < 4; ++i) {
    bool is_float = p.model == ModelType::kLinear || p.model == ModelType::kPoly2 ||
                    p.model == ModelType::kPoly3;
    if (is_float) {
      params.push_back(p.param_as_double(i));
    } else if ((p.model == ModelType::kConstant || p.model == ModelType::kDelta ||
                p.model == ModelType::kPatchedFor) &&
               i == 1) {
      // Num_Runs, or the Exceptions word of DELTA and PATCHED_FOR (unsigned)
      params.push_back(p.params[i]);
    } else {
      params.push_back(ValueJson(p.params[i], column));  // Base
    }
  }
  j["params"] = params;
  if (p.model == ModelType::kDelta || p.model == ModelType::kPatchedFor) {
    // spec §8.9, §8.12 Exceptions word: Num_Exceptions, Exception_Width,
    // Signed_Highs, PATCHED_FOR's Rows_EF and DELTA's order K = 1 +
    // Extra_Orders.
    j["exceptions"] = p.params[1] & 0xFFFFFFFFull;
    j["exception_width"] = (p.params[1] >> 32) & 0xFF;
    j["signed_highs"] = ((p.params[1] >> 40) & 1) != 0;
    if (p.model == ModelType::kPatchedFor) j["rows_ef"] = ((p.params[1] >> 41) & 1) != 0;
    if (p.model == ModelType::kDelta) j["order"] = 1 + ((p.params[1] >> 42) & 3);
  }
  j["payload_offset"] = p.payload_offset_bytes;
  j["payload_bytes"] = p.payload_bytes;
  if ((p.model == ModelType::kConstant && p.bit_width > 0) || p.model == ModelType::kRunsEf) {
    j["num_runs"] = p.num_runs;
  }
  j["min"] = p.has_bounds ? ValueJson(p.min_value, column) : Json(nullptr);
  j["max"] = p.has_bounds ? ValueJson(p.max_value, column) : Json(nullptr);
  return j;
}

}  // namespace

Json BuildDump(const Reader& reader, const std::string& path, const DumpOptions& options) {
  const FileInfo& info = reader.info();
  Json d;
  d["schema_version"] = kDumpSchemaVersion;
  d["file"] = path;
  d["file_bytes"] = info.file_bytes;
  d["format_version"] = Format("%u.%u", info.format_major, info.format_minor);
  Json writer;
  writer["name"] = info.writer_name;
  writer["version"] = info.writer_version;
  d["writer"] = writer;
  d["required_features"] = FeatureJson(info.required_features,
                                       RequiredFeatureNames(info.required_features),
                                       UnknownRequiredFeatures(info.required_features));
  d["optional_features"] = FeatureJson(info.optional_features,
                                       OptionalFeatureNames(info.optional_features),
                                       UnknownOptionalFeatures(info.optional_features));
  d["footer_bytes"] = info.footer_bytes;
  d["num_rows"] = info.num_rows;
  d["num_columns"] = reader.num_columns();
  Json metadata = Json::array();
  for (const auto& [key, value] : info.metadata) {
    Json kv;
    kv["key"] = key;
    kv["value"] = value;
    metadata.push_back(kv);
  }
  d["metadata"] = metadata;

  Json errors = Json::array();
  Json checksums;
  checksums["postscript"] = "ok";  // Reader::Open verifies both (spec §5)
  checksums["footer"] = "ok";
  if (options.verify) {
    Status st = reader.Validate(ValidationLevel::kStructural);
    checksums["segments"] = st.ok() ? "ok" : "failed";
    if (!st.ok()) {
      Json e = StatusJson(st);
      e["column"] = nullptr;
      e["chunk"] = nullptr;
      e["check"] = "verify";
      errors.push_back(e);
    }
  } else {
    checksums["segments"] = "not_verified";
  }
  d["checksums"] = checksums;

  std::vector<int> columns = options.columns;
  if (columns.empty()) {
    for (int c = 0; c < reader.num_columns(); ++c) columns.push_back(c);
  }
  Json cols = Json::array();
  for (int c : columns) {
    const ColumnInfo& col = reader.column(c);
    Json jc;
    jc["index"] = c;
    jc["name"] = col.name;
    jc["physical_type"] = ColumnTypeName(col);
    jc["physical_type_id"] = col.raw_type;
    jc["row_width"] = col.row_width;  // values per row (spec §11.2.1)
    jc["logical_type"] = LogicalJson(col.logical);
    jc["nullable"] = col.nullable;
    jc["num_rows"] = col.num_rows;
    jc["num_chunks"] = col.chunks.size();
    jc["raw_bytes"] = RawBytes(col);
    jc["stored_bytes"] = col.stored_bytes;
    jc["ratio"] = Ratio(RawBytes(col), col.stored_bytes);

    ColumnSummary sum;
    Json chunks = Json::array();
    // The column's merged distinct sketch, while every chunk has one.
    std::optional<DistinctSketch> column_sketch;
    for (size_t k = 0; k < col.chunks.size(); ++k) {
      const ChunkInfo& ch = col.chunks[k];
      Json jk;
      jk["index"] = k;
      jk["first_row"] = ch.first_row;
      jk["num_rows"] = ch.num_rows;
      jk["encoding"] = EncodingName(ch.encoding);
      jk["encoding_id"] = ch.encoding;
      jk["values_per_lane"] = ch.values_per_lane;
      jk["num_partitions"] = ch.num_partitions;
      // spec §8.10: D > 0 for a dictionary chunk, whose partitions cover
      // D entries and then num_rows codes.
      jk["dictionary_entries"] = ch.dictionary_entries;
      jk["stored_bytes"] = ch.stored_bytes;
      Json segs;
      segs["partition_table"] = SegmentJson(ch.partition_table);
      segs["parameters"] = SegmentJson(ch.parameters);
      segs["payload"] = SegmentJson(ch.payload);
      segs["bounds"] = SegmentJson(ch.bounds);
      segs["validity"] = SegmentJson(ch.validity);
      jk["segments"] = segs;
      if (ch.statistics.present) {
        Json st;
        st["min"] = ch.statistics.has_min_max ? ValueJson(ch.statistics.min_value, col) : Json(nullptr);
        st["max"] = ch.statistics.has_min_max ? ValueJson(ch.statistics.max_value, col) : Json(nullptr);
        st["null_count"] = ch.statistics.null_count;
        st["distinct_count"] = ch.statistics.distinct_count;
        st["distinct_count_exact"] = ch.statistics.distinct_count_exact;
        // spec §7.6.1: the distinct sketch's form, size and count.
        const std::vector<uint8_t>& sketch_bytes = ch.statistics.distinct_sketch;
        st["distinct_sketch"] = nullptr;
        if (!sketch_bytes.empty()) {
          Result<DistinctSketch> sketch =
              DistinctSketch::FromBytes(sketch_bytes.data(), sketch_bytes.size());
          if (sketch.ok()) {
            Json js;
            js["form"] = sketch->exact() ? "hashes" : "registers";
            js["bytes"] = sketch_bytes.size();
            js["estimate"] = sketch->Estimate();
            st["distinct_sketch"] = js;
            if (k == 0 || column_sketch.has_value()) {
              if (!column_sketch) column_sketch = DistinctSketch();
              column_sketch->Merge(*sketch);
            }
          }
        }
        if (sketch_bytes.empty()) column_sketch.reset();
        jk["statistics"] = st;
      } else {
        jk["statistics"] = nullptr;
      }
      jk["has_ibp"] = ch.has_ibp;
      if (ch.encoding == 2) {
        // spec §11.2.3: the IbpMasks table, and what the row index says.
        const IbpInfo& i = ch.ibp;
        Json ibp;
        ibp["word_bits"] = 8 * i.word_bytes;
        ibp["words_per_row"] = i.words_per_row;
        ibp["threshold"] = i.threshold;
        ibp["num_masks"] = i.num_masks;
        ibp["offset_bits"] = i.offset_bits;
        Json isegs;
        isegs["masks"] = SegmentJson(i.masks);
        isegs["row_offsets"] = SegmentJson(i.row_offsets);
        isegs["cluster_ids"] = SegmentJson(i.mask_ids);
        ibp["segments"] = isegs;
        Result<IbpRowStats> rs = reader.IbpStats(c, static_cast<int>(k));
        if (rs.ok()) {
          ibp["packed_rows"] = rs->packed_rows;
          ibp["packed_share"] = rs->num_rows == 0 ? 0.0
                                                  : static_cast<double>(rs->packed_rows) / rs->num_rows;
          ibp["mean_row_bytes"] = rs->mean_row_bytes();
          ibp["raw_row_bytes"] = static_cast<uint64_t>(col.row_width) * PhysicalTypeBytes(col.type);
          Json masks = Json::array();
          for (size_t m = 0; m < rs->masks.size(); ++m) {
            Json jm;
            uint64_t invariant = 0;
            Json mw = Json::array(), bw = Json::array();
            for (size_t j = 0; j < rs->masks[m].size(); ++j) {
              invariant += static_cast<uint64_t>(__builtin_popcountll(rs->masks[m][j]));
              mw.push_back(Format(i.word_bytes == 8 ? "%016llx" : "%08llx",
                                  static_cast<unsigned long long>(rs->masks[m][j])));
              bw.push_back(Format(i.word_bytes == 8 ? "%016llx" : "%08llx",
                                  static_cast<unsigned long long>(rs->bitvals[m][j])));
            }
            jm["invariant_bits"] = invariant;
            jm["mask"] = mw;
            jm["bitval"] = bw;
            masks.push_back(jm);
          }
          ibp["masks"] = masks;
        } else {
          Json e = StatusJson(rs.status());
          e["column"] = c;
          e["chunk"] = k;
          e["check"] = "ibp";
          errors.push_back(e);
        }
        jk["ibp"] = ibp;
      }
      jk["has_pgm"] = ch.has_pgm;
      if (ch.pgm.present) {
        // spec §11.3: levels leaf first.
        Json pgm;
        pgm["epsilon"] = ch.pgm.epsilon;
        pgm["epsilon_recursive"] = ch.pgm.epsilon_recursive;
        Json levels = Json::array();
        for (size_t l = 0; l < ch.pgm.num_levels(); ++l) {
          Json level;
          level["segments"] = ch.pgm.level_offsets[l + 1] - ch.pgm.level_offsets[l];
          levels.push_back(level);
        }
        pgm["levels"] = levels;
        pgm["index_bytes"] = static_cast<uint64_t>(ch.pgm.keys.size() * 20 + ch.pgm.level_offsets.size() * 4);
        jk["pgm"] = pgm;
      }

      Result<std::vector<PartitionInfo>> parts = reader.Partitions(c, static_cast<int>(k));
      // With --allow-unknown, a chunk in an encoding or type this SDK cannot
      // interpret is listed as an opaque record: its segments, no partitions.
      bool opaque = !parts.ok() && options.allow_unknown &&
                    parts.status().code() == StatusCode::kUnsupportedFeature;
      jk["opaque"] = opaque;
      if (!parts.ok() && !opaque) {
        Json e = StatusJson(parts.status());
        e["column"] = c;
        e["chunk"] = k;
        e["check"] = "partitions";
        errors.push_back(e);
      }
      if (parts.ok()) {
        Json jp = Json::array();
        for (size_t i = 0; i < parts->size(); ++i) {
          const PartitionInfo& p = (*parts)[i];
          AddPartition(p, &sum);
          if (options.partitions) jp.push_back(PartitionJson(p, i, col));
        }
        if (options.partitions) jk["partitions"] = jp;
      }
      chunks.push_back(jk);
    }

    jc["num_partitions"] = sum.num_partitions;
    Json mix = Json::array();
    for (int m = 0; m < kNumModels; ++m) {
      if (sum.models[m].partitions == 0) continue;
      Json jm;
      jm["model"] = ModelTypeName(static_cast<ModelType>(m));
      jm["partitions"] = sum.models[m].partitions;
      jm["rows"] = sum.models[m].rows;
      mix.push_back(jm);
    }
    jc["model_mix"] = mix;
    Json runs;
    runs["partitions"] = sum.runs.partitions;
    runs["rows"] = sum.runs.rows;
    jc["run_partitions"] = runs;
    Json widths = Json::array();
    for (size_t w = 0; w < sum.bit_widths.size(); ++w) {
      if (sum.bit_widths[w].partitions == 0) continue;
      Json jw;
      jw["bit_width"] = w;
      jw["partitions"] = sum.bit_widths[w].partitions;
      jw["rows"] = sum.bit_widths[w].rows;
      widths.push_back(jw);
    }
    jc["bit_widths"] = widths;
    jc["mean_bit_width"] = sum.mean_bit_width();
    Json sizes;
    sizes["min"] = sum.min_partition_rows;
    sizes["max"] = sum.max_partition_rows;
    sizes["mean"] = sum.mean_partition_rows();
    jc["partition_rows"] = sizes;
    jc["payload_bytes"] = sum.payload_bytes;
    // spec §7.6.1: every chunk's sketch merged; null unless all have one.
    jc["distinct_estimate"] = nullptr;
    if (column_sketch && !col.chunks.empty()) {
      Json de;
      de["count"] = column_sketch->Estimate();
      de["exact"] = column_sketch->exact();
      jc["distinct_estimate"] = de;
    }
    jc["chunks"] = chunks;
    cols.push_back(jc);
  }
  d["columns"] = cols;
  d["errors"] = errors;
  return d;
}

}  // namespace l3::cli
