// RUNS_EF (spec §8.11): the payload geometry shared by the CPU reference
// decoder, the writer and the CUDA backend.
//
// A RUNS_EF partition of n rows holds R runs. Its payload is one bit stream
// (spec §8.5 bit order): the R run values (Bit_Width bits each), then the
// m = R - 1 low parts of the run starts (l bits each), then the high part H
// (H_n bits), the unary code of the starts' high parts: for run i >= 1, bit
// (start_i >> l) + (i - 1) of H is 1.
#pragma once

#include <cstdint>

#include "format/layout.hpp"

namespace l3::internal {

/// spec §8.11: a RUNS_EF partition has at most this many rows.
inline constexpr uint64_t kRunsEfMaxRows = 65536;

/// The geometry of one RUNS_EF partition, derived from n, R and w.
struct RunsEfLayout {
  uint64_t runs = 0;       // R = "Num_Runs"
  uint64_t starts = 0;     // m = R - 1
  uint32_t low_bits = 0;   // l = bitlen(floor((n - 1) / m)) - 1
  uint64_t low_bit0 = 0;   // stream bit of low_1: R * w
  uint64_t high_bit0 = 0;  // stream bit of H: R * w + m * l
  uint64_t high_bits = 0;  // H_n = m + floor((n - 1) / 2^l)
  L3_HD uint64_t used_bits() const { return high_bit0 + high_bits; }
};

/// spec §8.11: the parameters are valid for a partition of n rows:
/// 2 <= R <= n, n <= 65536 and w >= 1 (w <= N is checked with the record).
L3_HD bool RunsEfParamsValid(uint64_t n, uint64_t runs, uint32_t w) {
  return runs >= 2 && runs <= n && n <= kRunsEfMaxRows && w >= 1;
}

/// Precondition: RunsEfParamsValid(n, runs, w).
L3_HD RunsEfLayout MakeRunsEfLayout(uint64_t n, uint64_t runs, uint32_t w) {
  RunsEfLayout g;
  g.runs = runs;
  g.starts = runs - 1;
  g.low_bits = BitLength((n - 1) / g.starts) - 1;
  g.low_bit0 = runs * w;
  g.high_bit0 = g.low_bit0 + g.starts * g.low_bits;
  g.high_bits = g.starts + ((n - 1) >> g.low_bits);
  return g;
}

/// spec §8.11: payload_words(p) = ceil_div(R * w + m * l + H_n, 64).
L3_HD uint64_t RunsEfPayloadWords(uint64_t n, uint64_t runs, uint32_t w) {
  return (MakeRunsEfLayout(n, runs, w).used_bits() + 63) / 64;
}

/// The start of run i >= 1 from the position q of its 1 bit in H (q >= i - 1
/// when the bits before it hold i - 1 ones) and its low part.
L3_HD uint64_t RunsEfStart(uint64_t q, uint64_t i, uint64_t low, uint32_t low_bits) {
  return ((q - (i - 1)) << low_bits) + low;
}

}  // namespace l3::internal
