// dump.hpp: the l3dump document. Both outputs come from one JSON value: --json
// prints it, the text output renders it, so the two always agree. Its schema
// is documented field by field in docs/cli.md; kSchemaVersion changes when a
// field is removed or changes meaning (adding a field does not change it).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "l3/l3.hpp"

namespace l3::cli {

inline constexpr int kDumpSchemaVersion = 1;

struct DumpOptions {
  std::vector<int> columns;  ///< empty: all
  bool partitions = false;   ///< include every partition record
  bool verify = false;       ///< Reader::Validate(kStructural): every checksum
  bool allow_unknown = false;
};

using Json = nlohmann::ordered_json;

/// Builds the document. Errors found while reading chunks are recorded in
/// it ("errors") rather than thrown, so everything readable is shown.
Json BuildDump(const Reader& reader, const std::string& path, const DumpOptions& options);

/// The human-readable rendering of a document from BuildDump().
std::string RenderText(const Json& dump);

}  // namespace l3::cli
