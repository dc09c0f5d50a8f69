// Value generators shared by the case files. Every value sequence is built
// from a fixed seed, so the corpus is reproducible byte for byte.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "corpus.hpp"

namespace l3::conformance {

inline uint64_t TypeMinWord(Ty t) {
  return TypeSigned(t) ? Canon(t, uint64_t{1} << (TypeBits(t) - 1)) : 0;
}
inline uint64_t TypeMaxWord(Ty t) {
  const int bits = TypeBits(t);
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return TypeSigned(t) ? (all >> 1) : all;
}

/// n values, each Canon(base + u) with u uniform in [0, 2^w - 1]; the first
/// is base and the last base + 2^w - 1 (w > 0), so FOR needs exactly w bits
/// with Base = base (the caller keeps base + 2^w - 1 inside the type).
std::vector<uint64_t> ForValues(Ty t, uint64_t base, uint32_t w, uint32_t n, Rng& rng);

/// Values of a LINEAR/POLY2/POLY3 partition whose minimal residual width is
/// exactly w. Sets *theta. For 64-bit types every |value| stays <= 2^53
/// (spec §8.8 rule 3): wide residuals then come from a prediction far from
/// the values rather than from wide values.
std::vector<uint64_t> PredictedValues(Ty t, Model m, uint32_t V, uint32_t n, uint32_t w, Rng& rng,
                                      std::array<double, 4>* theta);

/// Values of a run partition (CONSTANT, Bit_Width w > 0) with `runs` runs
/// whose values are base + u, u in [0, 2^w - 1] with both extremes used and
/// adjacent runs different.
std::vector<uint64_t> RunValues(Ty t, uint64_t base, uint32_t w, uint32_t n, uint32_t runs, Rng& rng);

/// The small i32 column the deep and invalid cases start from: FOR
/// (Bit_Width 5, Base -10), LINEAR (Bit_Width 4) and runs (5 runs,
/// Bit_Width 3), `rows_per_partition` rows each, values drawn from `seed`.
ColumnSpec ForLinearRunsColumn(uint32_t rows_per_partition, uint64_t seed);

/// The u16 column the RUNS_EF (spec §8.11) invalid and deep cases start
/// from: one RUNS_EF partition of 200 rows, V = 8, whose runs have lengths
/// 2, 1, then 1..5 in turn, with values 10 + (7 r mod 50) (adjacent runs
/// differ). So run 1 starts at row 2 and run 2 at row 3: with l = 1 both
/// have high part 1 and low parts 0 and 1.
ColumnSpec RunsEfColumn();

/// A dictionary chunk (spec §8.10) of `rows`: the elements are the sorted
/// distinct values, then each row's code; `parts` partition all D + n
/// elements. Sets *entries to D.
ColumnSpec DictionaryColumn(std::string name, Ty t, const std::vector<uint64_t>& rows,
                            std::vector<PartSpec> parts, uint32_t V = 64,
                            uint64_t* entries = nullptr);

/// The Bit_Width the encoder chose for partition p.
inline uint32_t WidthOf(const EncodedChunk& chunk, uint32_t p) { return chunk.partition_table[16 * p + 13]; }

/// Aborts unless every partition of the encoded single-column spec has the
/// expected width.
void ExpectWidths(const ColumnSpec& column, const std::vector<uint32_t>& widths);

std::string Str(uint64_t v);
std::string Fmt(const char* format, ...);

}  // namespace l3::conformance
