#include "common/summary.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <vector>

namespace l3::cli {

double ColumnSummary::mean_partition_rows() const {
  uint64_t rows = 0;
  for (const PartitionCount& m : models) rows += m.rows;
  return num_partitions == 0 ? 0.0 : static_cast<double>(rows) / static_cast<double>(num_partitions);
}

double ColumnSummary::mean_bit_width() const {
  double weighted = 0.0;
  uint64_t rows = 0;
  for (size_t w = 0; w < bit_widths.size(); ++w) {
    weighted += static_cast<double>(w) * static_cast<double>(bit_widths[w].rows);
    rows += bit_widths[w].rows;
  }
  return rows == 0 ? 0.0 : weighted / static_cast<double>(rows);
}

void AddPartition(const PartitionInfo& p, ColumnSummary* s) {
  int model = static_cast<int>(p.model);
  if (model >= 0 && model < kNumModels) {
    s->models[model].partitions++;
    s->models[model].rows += p.num_rows;
  }
  if (p.model == ModelType::kConstant && p.bit_width > 0) {
    s->runs.partitions++;
    s->runs.rows += p.num_rows;
  }
  if (p.bit_width < s->bit_widths.size()) {
    s->bit_widths[p.bit_width].partitions++;
    s->bit_widths[p.bit_width].rows += p.num_rows;
  }
  if (s->num_partitions == 0 || p.num_rows < s->min_partition_rows) {
    s->min_partition_rows = p.num_rows;
  }
  s->max_partition_rows = std::max<uint64_t>(s->max_partition_rows, p.num_rows);
  s->payload_bytes += p.payload_bytes;
  s->num_partitions++;
}

ColumnSummary SummarizeColumn(const Reader& reader, int column) {
  ColumnSummary s;
  const ColumnInfo& info = reader.column(column);
  for (size_t c = 0; c < info.chunks.size(); ++c) {
    Result<std::vector<PartitionInfo>> parts = reader.Partitions(column, static_cast<int>(c));
    if (!parts.ok()) {
      if (s.failed_chunk < 0) {
        s.failed_chunk = static_cast<int>(c);
        s.error = parts.status();
      }
      continue;
    }
    for (const PartitionInfo& p : *parts) AddPartition(p, &s);
  }
  return s;
}

std::string ModelMixText(const ColumnSummary& summary) {
  if (summary.num_partitions == 0) return "-";
  std::vector<int> order;
  for (int m = 0; m < kNumModels; ++m) {
    if (summary.models[m].partitions > 0) order.push_back(m);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return summary.models[a].partitions > summary.models[b].partitions;
  });
  std::string out;
  for (int m : order) {
    if (!out.empty()) out += ", ";
    out += Format("%s %.1f%%", ModelTypeName(static_cast<ModelType>(m)),
                  100.0 * static_cast<double>(summary.models[m].partitions) /
                      static_cast<double>(summary.num_partitions));
  }
  return out;
}

uint64_t RawBytes(const ColumnInfo& column) {
  return column.num_rows * column.row_width *
         static_cast<uint64_t>(std::max(0, PhysicalTypeBytes(column.type)));
}

double Ratio(uint64_t raw_bytes, uint64_t stored_bytes) {
  return stored_bytes == 0 ? 0.0
                           : static_cast<double>(raw_bytes) / static_cast<double>(stored_bytes);
}

std::string Format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

namespace {

struct NamedBit {
  uint64_t bit;
  const char* name;
};
constexpr NamedBit kRequired[] = {{kRequiredZstdSegments, "ZSTD_SEGMENTS"},
                                  {kRequiredValidityBitmaps, "VALIDITY_BITMAPS"},
                                  {kRequiredIbpFloat, "IBP_FLOAT"},
                                  {kRequiredDeltaModel, "DELTA_MODEL"},
                                  {kRequiredFieldPlanes, "FIELD_PLANES"},
                                  {kRequiredDictionary, "DICTIONARY"},
                                  {kRequiredRunsEfModel, "RUNS_EF_MODEL"},
                                  {kRequiredPatchedForModel, "PATCHED_FOR_MODEL"},
                                  {kRequiredPatchedRowsEf, "PATCHED_ROWS_EF"},
                                  {kRequiredDeltaOrders, "DELTA_ORDERS"}};
constexpr NamedBit kOptional[] = {{kOptionalPartitionBounds, "PARTITION_BOUNDS"},
                                  {kOptionalPgmIndex, "PGM_INDEX"},
                                  {kOptionalDistinctSketch, "DISTINCT_SKETCH"}};

template <size_t N>
std::string Names(uint64_t bits, const NamedBit (&table)[N]) {
  if (bits == 0) return "none";
  std::string out;
  uint64_t known = 0;
  for (const NamedBit& b : table) {
    known |= b.bit;
    if (bits & b.bit) out += (out.empty() ? "" : "|") + std::string(b.name);
  }
  for (int i = 0; i < 64; ++i) {
    uint64_t bit = uint64_t{1} << i;
    if ((bits & bit) && !(known & bit)) out += (out.empty() ? "" : "|") + Format("bit%d", i);
  }
  return out;
}

template <size_t N>
uint64_t Unknown(uint64_t bits, const NamedBit (&table)[N]) {
  for (const NamedBit& b : table) bits &= ~b.bit;
  return bits;
}

}  // namespace

std::string RequiredFeatureNames(uint64_t bits) { return Names(bits, kRequired); }
std::string OptionalFeatureNames(uint64_t bits) { return Names(bits, kOptional); }
uint64_t UnknownRequiredFeatures(uint64_t bits) { return Unknown(bits, kRequired); }
uint64_t UnknownOptionalFeatures(uint64_t bits) { return Unknown(bits, kOptional); }

std::string EncodingName(uint16_t encoding) {
  switch (encoding) {
    case 1: return "L3Integer";
    case 2: return "IbpFloat";
    default: return Format("unknown(%u)", static_cast<unsigned>(encoding));
  }
}

std::string ColumnTypeName(const ColumnInfo& column) {
  // Every type this SDK knows (f16 and bf16 included) has a value size.
  if (PhysicalTypeBytes(static_cast<PhysicalType>(column.raw_type)) != 0) {
    return PhysicalTypeName(column.type);
  }
  return Format("unknown(%u)", static_cast<unsigned>(column.raw_type));
}

std::string LogicalTypeText(const LogicalType& logical) {
  static const char* kUnits[] = {"s", "ms", "us", "ns"};
  switch (logical.kind) {
    case LogicalKind::kNone: return "none";
    case LogicalKind::kTimestamp: {
      int unit = static_cast<int>(logical.time_unit);
      std::string out = "timestamp[" + std::string(unit >= 0 && unit < 4 ? kUnits[unit] : "?");
      if (!logical.timezone.empty()) out += ", " + logical.timezone;
      return out + "]";
    }
    case LogicalKind::kDate: return "date";
    case LogicalKind::kDecimal:
      return Format("decimal(%d, %d)", logical.precision, logical.scale);
  }
  return Format("unknown(%u)", static_cast<unsigned>(logical.kind));
}

}  // namespace l3::cli
