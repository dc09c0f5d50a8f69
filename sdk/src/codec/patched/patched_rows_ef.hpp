// PATCHED_FOR exception rows in the Elias-Fano code (spec §8.12, Rows_EF):
// the lookup of one row, shared by the CPU reference decoder
// (patched_for_decode.hpp) and the CUDA decoder (patched_for_decode.cuh).
//
// Row r_i = (q_i - i) * 2^l + low_i, q_i the position of the (i+1)-th 1 bit
// of H: the rows are RUNS_EF's run starts shifted by one index (spec §8.11),
// so the bucket search of runs_ef_select.hpp finds them. The payload is
// untrusted: every loop is bounded by H_n and E, and indices stay in [0, E].
#pragma once

#include <cstdint>

#include "codec/patched/patched_for_layout.hpp"
#include "codec/runs/runs_ef_select.hpp"

namespace l3::internal {

/// Where row x falls among the exception rows: `index` exceptions have a
/// row below x (the lower bound), `found` says whether exception `index` is
/// row x itself, and `h_pos` is a position of H after the 1 bits of the
/// `index` exceptions before it and at or before exception index's own.
struct PatchedRowLookup {
  uint64_t index = 0;
  uint64_t h_pos = 0;
  bool found = false;
};

/// Row x among the Rows_EF rows of a partition (layout g, E = count >= 1):
/// the bucket of h = x >> l (the 1 bits of H after its h-th 0 bit; the ones
/// before it are the rows of smaller high part), then the low parts of that
/// bucket's rows in order. Reads at most ceil_div(H_n, 64) words of H.
L3_RUNS_EF_HD_TEMPLATE
template <typename Stream>
L3_HD PatchedRowLookup PatchedRowsEfFind(const Stream& stream, const PatchedForExceptionLayout& g,
                                         uint64_t count, uint64_t x) {
  const RunsEfHighPart<Stream> high{stream, g.h_bit, g.high_bits};
  const RunsEfBucket bucket = RunsEfFindBucket(high, x >> g.low_bits);
  const uint64_t x_low = x & LowMask(g.low_bits);
  PatchedRowLookup at;
  at.index = bucket.starts_below < count ? bucket.starts_below : count;
  at.h_pos = bucket.first_bit;
  for (; at.h_pos < g.high_bits && at.index < count && high.Bit(at.h_pos); ++at.h_pos) {
    const uint64_t low =
        g.low_bits == 0 ? 0 : stream.Field(g.rows_bit + at.index * g.low_bits, g.low_bits);
    if (low >= x_low) {
      at.found = low == x_low;
      return at;
    }
    ++at.index;
  }
  return at;
}

}  // namespace l3::internal
