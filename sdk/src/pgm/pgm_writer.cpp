#include <cstring>
#include <string>
#include <vector>

#include "common/bits.hpp"
#include "common/status_macros.hpp"
#include "pgm/pgm.hpp"

namespace l3::internal {

Result<PgmIndexInfo> BuildChunkPgm(PhysicalType type, const uint8_t* values, uint64_t num_rows,
                                   const WriteOptions& options) {
  if (options.pgm == PgmMode::kOff || num_rows == 0) return PgmIndexInfo{};
  if (options.format_minor < 1) {
    return Status(StatusCode::kInvalidArgument, "PGM indexes need format_minor >= 1 (spec §11.3)");
  }
  if (options.pgm_epsilon > kPgmMaxEpsilon || options.pgm_epsilon_recursive > kPgmMaxEpsilon) {
    return Status(StatusCode::kInvalidArgument, "PGM epsilon above 2^30");
  }
  const size_t bytes = static_cast<size_t>(PhysicalTypeBytes(type));
  const bool is_signed = PhysicalTypeIsSigned(type);
  std::vector<uint64_t> keys(num_rows);
  for (uint64_t i = 0; i < num_rows; ++i) {
    uint64_t u = 0;
    std::memcpy(&u, values + i * bytes, bytes);
    keys[i] = PgmOrderedKey(CanonicalExtend(u, static_cast<uint32_t>(8 * bytes), is_signed), is_signed);
    if (i > 0 && keys[i] < keys[i - 1]) {
      if (options.pgm == PgmMode::kSorted) return PgmIndexInfo{};
      return Status(StatusCode::kInvalidArgument,
                    "a PGM index needs a non-decreasing column; row " + std::to_string(i) +
                        " of a chunk is smaller than the row before it");
    }
  }
  PgmIndexInfo pgm =
      BuildPgmIndex(keys.data(), num_rows, options.pgm_epsilon, options.pgm_epsilon_recursive);
  // §11.3.3: the window of every value and of every value + 1 must hold its
  // lower bound. The exact segmentation guarantees it up to the rounding of
  // the binary32 slope; check rather than assume.
  for (uint64_t i = 0; i < num_rows; ++i) {
    if (i > 0 && keys[i] == keys[i - 1]) continue;
    uint64_t next = i + 1;
    while (next < num_rows && keys[next] == keys[i]) ++next;
    const PgmWindow a = PgmPredict(pgm, keys[i]);
    bool ok = a.lo <= i && i <= a.hi;
    if (keys[i] != UINT64_MAX) {
      const PgmWindow b = PgmPredict(pgm, keys[i] + 1);
      ok = ok && b.lo <= next && next <= b.hi;
    }
    if (!ok) {
      if (options.pgm == PgmMode::kSorted) return PgmIndexInfo{};
      return Status(StatusCode::kInternal, "PGM index window check failed at row " + std::to_string(i));
    }
  }
  return pgm;
}

}  // namespace l3::internal
