#include "pgm/pgm_footer.hpp"

#include <cstring>
#include <vector>

#include "common/status_macros.hpp"
#include "pgm/pgm.hpp"

namespace l3::internal {
namespace {

// spec §6: the verifier does not check the alignment of vector elements, so a
// [ulong] may start at any 4-byte boundary. Elements are copied as bytes
// (little-endian, as the host), never loaded through a T pointer.
template <typename T>
std::vector<T> CopyElements(const flatbuffers::Vector<T>& v) {
  std::vector<T> out(v.size());
  if (!out.empty()) std::memcpy(out.data(), v.Data(), out.size() * sizeof(T));
  return out;
}

}  // namespace

Status ReadPgmIndex(const fbs::PgmIndex& table, uint64_t num_rows, const std::string& where,
                    PgmIndexInfo* out) {
  // A table without any of the 1.1 segment vectors is the provisional 1.0
  // table (spec §11.3): no index a reader can use, and nothing to reject.
  if (table.segment_keys() == nullptr && table.segment_slopes() == nullptr &&
      table.segment_intercepts() == nullptr) {
    *out = PgmIndexInfo{};
    return Status::OK();
  }
  PgmIndexInfo pgm;
  pgm.present = true;
  pgm.epsilon = table.epsilon();
  pgm.epsilon_recursive = table.epsilon_recursive();
  pgm.num_keys = table.num_keys();
  if (table.level_offsets() == nullptr || table.segment_keys() == nullptr ||
      table.segment_slopes() == nullptr || table.segment_intercepts() == nullptr) {
    return Status(StatusCode::kCorruptMetadata,
                  where + ": pgm: level_offsets or a segment vector is missing");
  }
  pgm.level_offsets = CopyElements(*table.level_offsets());
  pgm.keys = CopyElements(*table.segment_keys());
  pgm.slopes = CopyElements(*table.segment_slopes());
  pgm.intercepts = CopyElements(*table.segment_intercepts());
  Status st = ValidatePgmIndex(pgm, num_rows);
  if (!st.ok()) return Status(st.code(), where + ": " + st.message());
  *out = std::move(pgm);
  return Status::OK();
}

flatbuffers::Offset<fbs::PgmIndex> BuildPgmIndexTable(flatbuffers::FlatBufferBuilder& fbb,
                                                      const PgmIndexInfo& pgm) {
  if (!pgm.present) return 0;
  const auto offsets = fbb.CreateVector(pgm.level_offsets);
  const auto keys = fbb.CreateVector(pgm.keys);
  const auto slopes = fbb.CreateVector(pgm.slopes);
  const auto intercepts = fbb.CreateVector(pgm.intercepts);
  fbs::PgmIndexBuilder b(fbb);
  b.add_epsilon(pgm.epsilon);
  b.add_epsilon_recursive(pgm.epsilon_recursive);
  b.add_num_keys(pgm.num_keys);
  b.add_level_offsets(offsets);
  b.add_segment_keys(keys);
  b.add_segment_slopes(slopes);
  b.add_segment_intercepts(intercepts);
  return b.Finish();
}

}  // namespace l3::internal
