// The text rendering of the l3dump document.
#include <string>

#include "common/summary.hpp"
#include "dump.hpp"

namespace l3::cli {
namespace {

std::string Num(const Json& j) { return j.is_null() ? "-" : j.dump(); }

std::string Plural(uint64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string FeatureLine(const Json& f) {
  std::string names;
  for (const Json& n : f["names"]) names += (names.empty() ? "" : "|") + n.get<std::string>();
  if (names.empty()) names = "none";
  std::string out = names + Format(" (0x%llx)", static_cast<unsigned long long>(f["bits"].get<uint64_t>()));
  if (f["unknown_bits"].get<uint64_t>() != 0) out += ", includes bits unknown to this reader";
  return out;
}

std::string SegmentLine(const char* name, const Json& s) {
  std::string out = Format("    %-16s ", name);
  if (s.is_null()) return out + "absent\n";
  out += "offset " + Num(s["offset"]) + ", " + Num(s["stored_bytes"]) + " bytes";
  if (s["compression"] != "none") {
    out += " (" + s["compression"].get<std::string>() + ", decoded " + Num(s["decoded_bytes"]) + ")";
  }
  return out + ", crc32c " + s["checksum"].get<std::string>() + "\n";
}

std::string ParamsText(const Json& p) {
  const std::string model = p["model"];
  const Json& params = p["params"];
  std::string out;
  if (model == "CONSTANT" || model == "FOR_BITPACK" || model == "RUNS_EF") {
    if (!params.empty()) out = "base=" + Num(params[0]);
    if (params.size() > 1) out += " runs=" + Num(params[1]);
    return out;
  }
  if (model == "DELTA" || model == "PATCHED_FOR") {
    if (!params.empty()) out = (model == "DELTA" ? "delta_base=" : "base=") + Num(params[0]);
    if (p.value("order", 1) > 1) out += " order=" + Num(p["order"]);
    if (p.contains("exceptions")) {
      out += " exceptions=" + Num(p["exceptions"]) + " exception_width=" + Num(p["exception_width"]);
      if (p.value("signed_highs", false)) out += " signed_highs";
      if (p.value("rows_ef", false)) out += " rows_ef";
    }
    return out;
  }
  static const char* kNames[] = {"a", "b", "c", "d"};
  for (size_t i = 0; i < params.size() && i < 4; ++i) {
    out += (i ? " " : "") + std::string(kNames[i]) + "=" + Num(params[i]);
  }
  return out;
}

std::string PartitionTable(const Json& parts) {
  std::string out = Format("    %6s  %10s  %6s  %-11s  %4s  %8s  %20s  %20s  %s\n", "#", "first_row",
                           "rows", "model", "bits", "payload", "min", "max", "params");
  for (const Json& p : parts) {
    out += Format("    %6s  %10s  %6s  %-11s  %4s  %8s  %20s  %20s  %s\n", Num(p["index"]).c_str(),
                  Num(p["first_row"]).c_str(), Num(p["num_rows"]).c_str(),
                  p["model"].get<std::string>().c_str(), Num(p["bit_width"]).c_str(),
                  Num(p["payload_bytes"]).c_str(), Num(p["min"]).c_str(), Num(p["max"]).c_str(),
                  ParamsText(p).c_str());
  }
  return out;
}

}  // namespace

std::string RenderText(const Json& d) {
  std::string out;
  auto line = [&](const char* key, const std::string& value) {
    out += Format("%-17s%s\n", key, value.c_str());
  };
  line("file", d["file"].get<std::string>());
  line("file size", Num(d["file_bytes"]) + " bytes");
  line("format version", d["format_version"].get<std::string>());
  line("writer", d["writer"]["name"].get<std::string>() + " " +
                     d["writer"]["version"].get<std::string>());
  line("required", FeatureLine(d["required_features"]));
  line("optional", FeatureLine(d["optional_features"]));
  line("footer", Num(d["footer_bytes"]) + " bytes");
  line("rows", Num(d["num_rows"]));
  line("columns", Num(d["num_columns"]));
  for (const Json& kv : d["metadata"]) {
    line("metadata", kv["key"].get<std::string>() + "=" + kv["value"].get<std::string>());
  }
  const std::string segs = d["checksums"]["segments"];
  line("checksums", "postscript ok, footer ok, segments " +
                        (segs == "ok"       ? std::string("ok (all verified)")
                         : segs == "failed" ? std::string("FAILED")
                                            : std::string("not verified (use --verify)")));

  for (const Json& c : d["columns"]) {
    out += "\n";
    const uint64_t width = c.contains("row_width") ? c["row_width"].get<uint64_t>() : 1;
    const std::string type = c["physical_type"].get<std::string>() +
                             (width > 1 ? Format("[%llu]", static_cast<unsigned long long>(width))
                                        : std::string());
    out += Format("column %s \"%s\": %s, %s, %s\n", Num(c["index"]).c_str(),
                  c["name"].get<std::string>().c_str(), type.c_str(),
                  Plural(c["num_rows"].get<uint64_t>(), "row").c_str(),
                  Plural(c["num_chunks"].get<uint64_t>(), "chunk").c_str());
    const Json& logical = c["logical_type"];
    if (logical["kind"] != "none" || c["nullable"].get<bool>()) {
      std::string text = logical["kind"];
      if (logical.contains("time_unit")) {
        text += "[" + logical["time_unit"].get<std::string>();
        if (!logical["timezone"].get<std::string>().empty()) {
          text += ", " + logical["timezone"].get<std::string>();
        }
        text += "]";
      }
      if (logical.contains("precision")) {
        text += "(" + Num(logical["precision"]) + ", " + Num(logical["scale"]) + ")";
      }
      out += Format("  %-15s%s%s\n", "logical type", text.c_str(),
                    c["nullable"].get<bool>() ? ", nullable" : "");
    }
    out += Format("  %-15s%s bytes (raw %s bytes, ratio %.2fx; payload %s bytes)\n", "stored",
                  Num(c["stored_bytes"]).c_str(), Num(c["raw_bytes"]).c_str(),
                  c["ratio"].get<double>(), Num(c["payload_bytes"]).c_str());
    const Json& sizes = c["partition_rows"];
    if (c["num_partitions"].get<uint64_t>() == 0) {
      out += Format("  %-15s0\n", "partitions");
    } else {
      out += Format("  %-15s%s; rows per partition min %s, mean %.1f, max %s\n", "partitions",
                    Num(c["num_partitions"]).c_str(), Num(sizes["min"]).c_str(),
                    sizes["mean"].get<double>(), Num(sizes["max"]).c_str());
    }
    std::string mix;
    for (const Json& m : c["model_mix"]) {
      mix += (mix.empty() ? "" : ", ") + m["model"].get<std::string>() + " " + Num(m["partitions"]) +
             " (" + Num(m["rows"]) + " rows)";
    }
    out += Format("  %-15s%s\n", "model mix", mix.empty() ? "-" : mix.c_str());
    if (c["run_partitions"]["partitions"].get<uint64_t>() > 0) {
      out += Format("  %-15s%s of the CONSTANT partitions hold runs (%s rows)\n", "runs",
                    Num(c["run_partitions"]["partitions"]).c_str(),
                    Num(c["run_partitions"]["rows"]).c_str());
    }
    out += Format("  %-15s%.2f (row-weighted)\n", "mean bit width", c["mean_bit_width"].get<double>());
    if (c.contains("distinct_estimate") && !c["distinct_estimate"].is_null()) {
      const Json& de = c["distinct_estimate"];
      out += Format("  %-15s%s (%s, the chunks' sketches merged)\n", "distinct",
                    Num(de["count"]).c_str(), de["exact"].get<bool>() ? "exact" : "estimate");
    }
    if (!c["bit_widths"].empty()) {
      out += Format("  %-15s%9s  %10s  %10s\n", "bit widths", "bit width", "partitions", "rows");
      for (const Json& w : c["bit_widths"]) {
        out += Format("  %-15s%9s  %10s  %10s\n", "", Num(w["bit_width"]).c_str(),
                      Num(w["partitions"]).c_str(), Num(w["rows"]).c_str());
      }
    }
    for (const Json& k : c["chunks"]) {
      uint64_t first = k["first_row"].get<uint64_t>();
      out += Format("  chunk %s: rows [%llu, %llu), %s, V %s, %s, %s bytes%s\n", Num(k["index"]).c_str(),
                    static_cast<unsigned long long>(first),
                    static_cast<unsigned long long>(first + k["num_rows"].get<uint64_t>()),
                    k["encoding"].get<std::string>().c_str(), Num(k["values_per_lane"]).c_str(),
                    Plural(k["num_partitions"].get<uint64_t>(), "partition").c_str(),
                    Num(k["stored_bytes"]).c_str(),
                    k["opaque"].get<bool>() ? " (opaque: not interpreted by this reader)" : "");
      if (k.contains("dictionary_entries") && k["dictionary_entries"].get<uint64_t>() > 0) {
        out += Format("    %-16s %s entries, then %s codes (partitions cover both, spec §8.10)\n",
                      "dictionary", Num(k["dictionary_entries"]).c_str(), Num(k["num_rows"]).c_str());
      }
      const Json& s = k["segments"];
      out += SegmentLine("partition_table", s["partition_table"]);
      out += SegmentLine("parameters", s["parameters"]);
      out += SegmentLine("payload", s["payload"]);
      out += SegmentLine("bounds", s["bounds"]);
      if (!s["validity"].is_null()) out += SegmentLine("validity", s["validity"]);
      const Json& st = k["statistics"];
      if (st.is_null()) {
        out += Format("    %-16s absent\n", "statistics");
      } else {
        out += Format("    %-16s min %s, max %s, distinct %s (%s), nulls %s\n", "statistics",
                      Num(st["min"]).c_str(), Num(st["max"]).c_str(), Num(st["distinct_count"]).c_str(),
                      st["distinct_count_exact"].get<bool>() ? "exact" : "estimate",
                      Num(st["null_count"]).c_str());
        const Json& sk = st["distinct_sketch"];
        if (!sk.is_null()) {
          out += Format("    %-16s %s, %s bytes, distinct %s\n", "distinct sketch",
                        sk["form"].get<std::string>().c_str(), Num(sk["bytes"]).c_str(),
                        Num(sk["estimate"]).c_str());
        }
      }
      if (k["has_ibp"].get<bool>() || k["has_pgm"].get<bool>()) {
        out += Format("    %-16s %s%s\n", "extras", k["has_ibp"].get<bool>() ? "ibp " : "",
                      k["has_pgm"].get<bool>() ? "pgm" : "");
      }
      if (k.contains("ibp")) {
        const Json& ib = k["ibp"];
        out += Format("    %-16s %s-bit words, %s per row, %s mask%s (threshold %.2f), row index %s bits\n",
                      "ibp", Num(ib["word_bits"]).c_str(), Num(ib["words_per_row"]).c_str(),
                      Num(ib["num_masks"]).c_str(), ib["num_masks"].get<uint64_t>() == 1 ? "" : "s",
                      ib["threshold"].get<double>(), Num(ib["offset_bits"]).c_str());
        out += SegmentLine("ibp.masks", ib["segments"]["masks"]);
        out += SegmentLine("ibp.row_offsets", ib["segments"]["row_offsets"]);
        if (!ib["segments"]["cluster_ids"].is_null()) {
          out += SegmentLine("ibp.cluster_ids", ib["segments"]["cluster_ids"]);
        }
        if (ib.contains("packed_rows")) {
          out += Format("    %-16s %s of %s rows packed (%.1f%%), %.1f bytes per row (raw %s)\n",
                        "ibp rows", Num(ib["packed_rows"]).c_str(), Num(k["num_rows"]).c_str(),
                        100.0 * ib["packed_share"].get<double>(), ib["mean_row_bytes"].get<double>(),
                        Num(ib["raw_row_bytes"]).c_str());
          for (size_t m = 0; m < ib["masks"].size(); ++m) {
            const Json& jm = ib["masks"][m];
            std::string words;
            for (size_t j = 0; j < jm["mask"].size() && j < 4; ++j) {
              words += (j ? " " : "") + jm["mask"][j].get<std::string>() + "/" +
                       jm["bitval"][j].get<std::string>();
            }
            if (jm["mask"].size() > 4) words += " ...";
            out += Format("    %-16s %s invariant bits; mask/bitval %s\n",
                          Format("mask %zu", m).c_str(), Num(jm["invariant_bits"]).c_str(),
                          words.c_str());
          }
        }
      }
      if (k.contains("pgm")) {
        const Json& pg = k["pgm"];
        std::string levels;
        for (const Json& l : pg["levels"]) {
          levels += (levels.empty() ? "" : ", ") + Num(l["segments"]);
        }
        out += Format("    %-16s epsilon %s, recursive %s, segments per level (leaf first) %s, %s bytes\n",
                      "pgm", Num(pg["epsilon"]).c_str(), Num(pg["epsilon_recursive"]).c_str(),
                      levels.c_str(), Num(pg["index_bytes"]).c_str());
      }
      if (k.contains("partitions")) out += PartitionTable(k["partitions"]);
    }
  }
  if (!d["errors"].empty()) {
    out += "\nerrors\n";
    for (const Json& e : d["errors"]) {
      std::string where = e["column"].is_null()
                              ? std::string("file")
                              : "column " + Num(e["column"]) + " chunk " + Num(e["chunk"]);
      out += "  " + where + ": " + e["code"].get<std::string>() + ": " +
             e["message"].get<std::string>() + "\n";
    }
  }
  return out;
}

}  // namespace l3::cli
