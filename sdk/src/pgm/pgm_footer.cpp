#include "pgm/pgm_footer.hpp"

#include "common/status_macros.hpp"
#include "pgm/pgm.hpp"

namespace l3::internal {

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
  pgm.level_offsets.assign(table.level_offsets()->begin(), table.level_offsets()->end());
  pgm.keys.assign(table.segment_keys()->begin(), table.segment_keys()->end());
  pgm.slopes.assign(table.segment_slopes()->begin(), table.segment_slopes()->end());
  pgm.intercepts.assign(table.segment_intercepts()->begin(), table.segment_intercepts()->end());
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
