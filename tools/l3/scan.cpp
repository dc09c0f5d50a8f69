// l3 scan: predicates on a compressed integer column, with chunk and
// partition pruning (l3/scan.hpp).
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/args.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/reading.hpp"
#include "l3/scan.hpp"

namespace l3::cli {
namespace {

// A value of `type` as its canonical extension, range-checked.
uint64_t ParseValue(const std::string& text, PhysicalType type, const std::string& what) {
  const uint64_t lo = TypeMinValue(type), hi = TypeMaxValue(type);
  if (PhysicalTypeIsSigned(type)) {
    return static_cast<uint64_t>(
        ParseSigned(text, what, static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
  }
  return ParseUnsigned(text, what, lo, hi);
}

std::string ValueText(uint64_t canonical, PhysicalType type) {
  return PhysicalTypeIsSigned(type) ? std::to_string(static_cast<int64_t>(canonical))
                                    : std::to_string(canonical);
}

// "COL OP VALUE" with OP one of = == < <= > >=, or "COL in V1,V2,...".
// Spaces around the operator are optional (but "in" needs them).
struct Where {
  std::string column;
  std::string op;
  std::string value;
};

Where SplitWhere(const std::string& text) {
  static const char* const kOps[] = {"<=", ">=", "==", "=", "<", ">", " in "};
  for (const char* op : kOps) {
    const size_t at = text.find(op);
    if (at == std::string::npos || at == 0) continue;
    auto trim = [](std::string s) {
      const size_t b = s.find_first_not_of(' ');
      const size_t e = s.find_last_not_of(' ');
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    Where w{trim(text.substr(0, at)), trim(op), trim(text.substr(at + std::string(op).size()))};
    if (w.column.empty() || w.value.empty()) break;
    return w;
  }
  ThrowUsage("--where '" + text + "': expected 'COLUMN OP VALUE' with OP one of = < <= > >= in");
}

// The predicate of one --where on a column of `type`. Strict comparisons
// at the type's limits select nothing: they become an empty range.
bool ToPredicate(const Where& w, PhysicalType type, ValuePredicate* p) {
  const uint64_t tmin = TypeMinValue(type), tmax = TypeMaxValue(type);
  const std::string what = "--where " + w.column + " " + w.op;
  p->lo = tmin;
  p->hi = tmax;
  if (w.op == "in") {
    size_t start = 0;
    while (start <= w.value.size()) {
      const size_t comma = w.value.find(',', start);
      const std::string item = w.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      p->in.push_back(ParseValue(item, type, what));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return true;
  }
  const uint64_t v = ParseValue(w.value, type, what);
  if (w.op == "=" || w.op == "==") {
    p->lo = p->hi = v;
  } else if (w.op == "<=") {
    p->hi = v;
  } else if (w.op == ">=") {
    p->lo = v;
  } else if (w.op == "<") {
    if (v == tmin) return false;
    p->hi = v - 1;
  } else {  // ">"
    if (v == tmax) return false;
    p->lo = v + 1;
  }
  return true;
}

// The predicates of the --where options that name `column`. A strict
// comparison past the type's limit selects nothing: one empty range.
std::vector<ValuePredicate> ColumnPredicatesOf(const Reader& reader, int column,
                                               const std::vector<Where>& wheres) {
  const ColumnInfo& info = reader.column(column);
  const PhysicalType type = info.type;
  if (!PhysicalTypeIsInteger(type)) ThrowUsage("column '" + info.name + "' is not an integer column");
  std::vector<ValuePredicate> predicates;
  bool empty = false;
  for (const Where& w : wheres) {
    if (w.column != info.name) continue;
    ValuePredicate p;
    if (!ToPredicate(w, type, &p)) empty = true;
    predicates.push_back(std::move(p));
  }
  if (empty) predicates = {ValuePredicate{TypeMaxValue(type), TypeMinValue(type), {}}};
  return predicates;
}

std::string Count(uint64_t n) { return std::to_string(n); }

// Writes the selected rows to --rows (when given), then prints the report.
int Finish(const ArgParser::Parsed& args, const std::vector<uint64_t>& rows, const std::string& report) {
  if (args.Has("rows")) {
    OutputFile file(args.Get("rows"));
    file.Write(rows.data(), rows.size() * sizeof(uint64_t));
    file.Commit();
  }
  std::fputs(report.c_str(), stdout);
  return kExitOk;
}

// --where on several columns, or --sum-product: ScanTable.
int RunTableScan(const Reader& reader, const std::string& path, const std::vector<Where>& wheres,
                 const ArgParser::Parsed& args) {
  std::vector<ColumnPredicates> where;
  for (const Where& w : wheres) {
    const int column = Check(reader.FindColumn(w.column), path);
    bool seen = false;
    for (const ColumnPredicates& c : where) seen = seen || c.column == column;
    if (!seen) where.push_back(ColumnPredicates{column, ColumnPredicatesOf(reader, column, wheres)});
  }
  TableScanOptions options;
  options.collect_rows = args.Has("rows");
  if (args.Has("sum")) options.sum_column = Check(reader.FindColumn(args.Get("sum")), path);
  if (args.Has("sum-product")) {
    const std::string text = args.Get("sum-product");
    const size_t star = text.find('*');
    auto trim = [](std::string x) {
      const size_t b = x.find_first_not_of(' '), e = x.find_last_not_of(' ');
      return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    const std::string a = star == std::string::npos ? "" : trim(text.substr(0, star));
    const std::string b = star == std::string::npos ? "" : trim(text.substr(star + 1));
    if (a.empty() || b.empty()) ThrowUsage("--sum-product '" + text + "': expected 'A*B'");
    options.sum_column = Check(reader.FindColumn(a), path);
    options.product_column = Check(reader.FindColumn(b), path);
  }
  const TableScanResult result = Check(ScanTable(reader, where, options), path);
  std::string out = "count\t" + Count(result.count) + "\n";
  if (options.sum_column >= 0) {
    const PhysicalType sum_type = reader.column(options.sum_column).type;
    out += "sum\t" + result.SumString() + "\n";
    out += "min\t" + (result.has_min_max ? ValueText(result.min_value, sum_type) : std::string("-")) + "\n";
    out += "max\t" + (result.has_min_max ? ValueText(result.max_value, sum_type) : std::string("-")) + "\n";
  }
  for (const ColumnScanStats& st : result.columns) {
    out += "column\t" + reader.column(st.column).name + ": ";
    if (st.filtered) {
      out += Count(st.rows_in) + " -> " + Count(st.rows_out) + " rows";
    } else {
      out += "aggregated";
    }
    out += "; chunks " + Count(st.chunks_total) + " (" + Count(st.chunks_pruned) + " pruned); partitions " +
           Count(st.partitions_total) + " (" + Count(st.partitions_pruned) + " pruned, " +
           Count(st.partitions_all_match) + " all match); values decoded " + Count(st.values_decoded) +
           " in blocks, " + Count(st.values_taken) + " one by one; payload bytes " +
           Count(st.payload_bytes_read) + "\n";
  }
  out += "payload bytes read\t" + Count(result.payload_bytes_read) + "\n";
  return Finish(args, result.rows, out);
}

}  // namespace

int RunScan(int argc, char** argv) {
  ArgParser parser("l3 scan", "l3 scan INPUT.l3 --where 'COL OP VALUE' [--where ...] [options]",
                   "Selects the rows where integer columns satisfy every --where (AND),\n"
                   "skipping chunks by their statistics and partitions by their bounds or\n"
                   "model, and decoding only the partitions that may hold matches; with\n"
                   "several columns, the most selective first and the others only at the rows\n"
                   "it selected. Prints the count, the aggregate asked for, and what was\n"
                   "pruned and read.");
  parser.Option("where", "'COL OP VALUE'",
                "a predicate; OP is =, <, <=, >, >= or in (VALUE then a\n"
                "                            comma-separated list); --where on several columns\n"
                "                            are ANDed, each further column read only at the\n"
                "                            rows still selected",
                0, /*repeatable=*/true)
      .Option("sum", "COL", "also print the sum of COL over the selected rows (decoded\n"
                            "                            only at those rows), and its min and max when\n"
                            "                            every --where names one column")
      .Option("sum-product", "'A*B'", "print the sum of A times B over the selected rows\n"
                                      "                            (exact, 128-bit)")
      .Flag("count", "print only the count line and the scan summary (the default)")
      .Option("rows", "OUT.bin", "write the selected row ids as little-endian u64")
      .Epilog("Examples:\n"
              "  l3 scan orders.l3 --where 'date >= 19940101' --where 'date < 19950101' --sum price\n"
              "  l3 scan lineorder.l3 --where 'lo_orderdate >= 19930101' --where 'lo_orderdate <= 19931231'\n"
              "      --where 'lo_discount >= 1' --where 'lo_discount <= 3' --where 'lo_quantity < 25'\n"
              "      --sum-product 'lo_extendedprice*lo_discount'\n"
              "  l3 scan ids.l3 --where 'ids in 5,17,99' --rows hits.bin\n\n" +
              std::string(ExitCodeHelp()));
  ArgParser::Parsed args = parser.Parse(argc, argv);
  if (PrintHelpOrVersion(parser, args, "l3")) return kExitOk;
  if (args.positionals.size() != 1) ThrowUsage("expected one input .l3 file (see 'l3 scan --help')");
  if (!args.Has("where")) ThrowUsage("at least one --where is required");
  const std::string path = args.positionals[0];
  Reader reader = OpenReader(path);

  std::vector<Where> wheres;
  for (const std::string& text : args.GetAll("where")) wheres.push_back(SplitWhere(text));
  bool one_column = true;
  for (const Where& w : wheres) one_column = one_column && w.column == wheres[0].column;
  if (args.Has("sum-product") && args.Has("sum")) ThrowUsage("--sum and --sum-product exclude each other");
  if (!one_column || args.Has("sum-product")) return RunTableScan(reader, path, wheres, args);
  const int column = Check(reader.FindColumn(wheres[0].column), path);
  const std::vector<ValuePredicate> predicates = ColumnPredicatesOf(reader, column, wheres);
  ScanOptions options;
  options.collect_rows = args.Has("rows");
  int agg = -1;
  if (args.Has("sum")) {
    agg = Check(reader.FindColumn(args.Get("sum")), path);
    options.aggregate = true;
    options.aggregate_column = agg;
  }
  const ScanResult result = Check(Scan(reader, column, predicates, options), path);

  std::string out = "count\t" + std::to_string(result.count) + "\n";
  if (agg >= 0) {
    const PhysicalType agg_type = reader.column(agg).type;
    out += "sum\t" + result.SumString() + "\n";
    out += "min\t" + (result.has_min_max ? ValueText(result.min_value, agg_type) : std::string("-")) + "\n";
    out += "max\t" + (result.has_min_max ? ValueText(result.max_value, agg_type) : std::string("-")) + "\n";
  }
  out += "chunks\t" + std::to_string(result.chunks_total) + " (" +
         std::to_string(result.chunks_pruned) + " pruned by statistics)\n";
  out += "partitions\t" + std::to_string(result.partitions_total) + " (" +
         std::to_string(result.partitions_pruned) + " pruned, " +
         std::to_string(result.partitions_all_match) + " all match, " +
         std::to_string(result.partitions_decoded) + " decoded)\n";
  out += "payload bytes read\t" + std::to_string(result.payload_bytes_read) + "\n";
  if (agg >= 0 && agg != column) {
    out += "values of " + reader.column(agg).name + " decoded\t" +
           std::to_string(result.aggregate_values_decoded) + "\n";
  }
  return Finish(args, result.rows, out);
}

}  // namespace l3::cli
