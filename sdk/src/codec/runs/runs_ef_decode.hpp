// RUNS_EF (spec §8.11), the CPU reference decoder's half: the run starts
// read from their Elias-Fano code, range and single-row decoding, and the
// payload checks of first use.
//
// Run i >= 1 starts at start_i = (q_i - (i - 1)) * 2^l + low_i, where q_i is
// the position of the i-th 1 bit of the high part H. A range decode walks H
// once from the run of its first row; a single row counts the 1 bits before
// the (x >> l)-th 0 bit of H and compares a few low parts.
#pragma once

#include <cstdint>

#include "codec/decode/partition_decoder.hpp"
#include "codec/runs/runs_ef_layout.hpp"
#include "codec/runs/runs_ef_select.hpp"

namespace l3::internal {

/// The fields of a RUNS_EF partition whose parameters passed the checks of
/// spec §8.11 (RunsEfParamsValid). Every read stays inside the partition's
/// payload words (plus the segment's padding), whatever the payload holds.
class RunsEfReader {
 public:
  explicit RunsEfReader(const Partition& part)
      : payload_(part.payload),
        n_(part.num_rows),
        w_(part.bit_width),
        base_(LoadLE64(part.params)),
        g_(MakeRunsEfLayout(part.num_rows, LoadLE64(part.params + 8), part.bit_width)) {}

  uint64_t num_runs() const { return g_.runs; }
  const RunsEfLayout& layout() const { return g_; }
  /// Field i of the run values, unsigned (before adding "Base").
  uint64_t RawValue(uint64_t i) const { return LoadField(payload_, i * w_, LowMask(w_)); }
  /// ("Base" + field_i) mod 2^64; the caller reduces to N bits.
  uint64_t Value(uint64_t i) const { return base_ + RawValue(i); }
  /// low_i of run i >= 1.
  uint64_t Low(uint64_t i) const {
    return LoadField(payload_, g_.low_bit0 + (i - 1) * g_.low_bits, LowMask(g_.low_bits));
  }
  /// Bits [pos, pos + 64) of H, zero past H_n.
  uint64_t HighWord(uint64_t pos) const {
    if (pos >= g_.high_bits) return 0;
    const uint64_t word = LoadField(payload_, g_.high_bit0 + pos, ~uint64_t{0});
    const uint64_t left = g_.high_bits - pos;
    return left >= 64 ? word : word & LowMask(static_cast<uint32_t>(left));
  }

  /// The position in H of its i-th 1 bit (i >= 1), or H_n when H holds
  /// fewer than i ones: whole words by popcount, then the bits of one word.
  uint64_t Select(uint64_t i) const {
    uint64_t ones = 0;
    for (uint64_t pos = 0; pos < g_.high_bits; pos += 64) {
      uint64_t word = HighWord(pos);
      const uint64_t word_ones = uint64_t{PopCount64(word)};
      if (ones + word_ones < i) {
        ones += word_ones;
        continue;
      }
      return pos + SelectInWord64(word, static_cast<uint32_t>(i - 1 - ones));
    }
    return g_.high_bits;
  }

  /// Walks the run starts in order. A cursor made at `run` has passed the
  /// starts of runs 1 .. run (found by Select, not by walking); Next() gives
  /// the start of run + 1, run + 2, ..., and false once H has no further 1 bit.
  class StartCursor {
   public:
    explicit StartCursor(const RunsEfReader& r, uint64_t run = 0) : r_(r), word_(0), run_(run) {
      const uint64_t q = run == 0 ? 0 : r.Select(run);
      if (run > 0 && q >= r.g_.high_bits) {
        pos_ = r.g_.high_bits;  // fewer ones than run: no further start
        return;
      }
      pos_ = run == 0 ? 0 : q + 1;
      word_ = r.HighWord(pos_);
    }
    /// The start of run `run() + 1`, or false when H has no more 1 bits.
    bool Next(uint64_t* start) {
      while (word_ == 0) {
        pos_ += 64;
        if (pos_ >= r_.g_.high_bits) return false;
        word_ = r_.HighWord(pos_);
      }
      const uint64_t q = pos_ + static_cast<uint64_t>(__builtin_ctzll(word_));
      word_ &= word_ - 1;
      ++run_;
      *start = RunsEfStart(q, run_, run_ <= r_.g_.starts ? r_.Low(run_) : 0, r_.g_.low_bits);
      return true;
    }
    uint64_t run() const { return run_; }

   private:
    const RunsEfReader& r_;
    uint64_t pos_ = 0;  // H position of word_'s bit 0
    uint64_t word_;     // the 1 bits of H at pos_.. not yet returned
    uint64_t run_ = 0;  // runs whose start has been returned
  };

  /// spec §8.11: H holds exactly m ones, and the starts are strictly
  /// increasing in [1, n - 1].
  bool StartsValid() const {
    StartCursor cursor(*this);
    uint64_t previous = 0, start = 0;
    while (cursor.Next(&start)) {
      if (start <= previous || start > n_ - 1) return false;
      previous = start;
    }
    return cursor.run() == g_.starts;  // every 1 bit of H was walked
  }

  /// The run holding local row x: max { i : start_i <= x }, by the rank of
  /// runs_ef_select.hpp (shared with the CUDA decoder). Any bits give an
  /// index in [0, R - 1].
  uint64_t Find(uint64_t x) const { return RunsEfRunOfRow(Stream{payload_}, g_, x); }

 private:
  /// The payload as runs_ef_select.hpp reads it.
  struct Stream {
    const uint8_t* payload;
    uint64_t Field(uint64_t bit, uint32_t width) const {
      return LoadField(payload, bit, LowMask(width));
    }
  };

  const uint8_t* payload_;
  uint64_t n_;
  uint32_t w_;
  uint64_t base_;
  RunsEfLayout g_;
};

/// RUNS_EF over local rows [lb, le); out[0] receives local row lb. Returns
/// false when a run start read on the way is out of order or out of range
/// (CORRUPT_PAYLOAD).
template <typename T>
bool DecodeRunsEfRange(const Partition& part, uint64_t lb, uint64_t le, T* out) {
  const RunsEfReader runs(part);
  const uint64_t first = runs.Find(lb);
  // One cursor: run `first`'s start (run 0 starts at row 0), then the ends.
  RunsEfReader::StartCursor cursor(runs, first == 0 ? 0 : first - 1);
  uint64_t start = 0;
  if (first > 0 && (!cursor.Next(&start) || start < 1 || start > lb)) return false;
  uint64_t x = lb;
  uint64_t i = first;
  while (x < le) {
    uint64_t end = part.num_rows;
    if (i + 1 < runs.num_runs()) {
      if (!cursor.Next(&end) || end <= start || end > part.num_rows - 1) return false;
    }
    if (end <= x) return false;  // the run of lb must reach past it
    x = WriteRunRows(FromBits<T>(runs.Value(i)), x, end < le ? end : le, lb, le, out);
    start = end;
    ++i;
  }
  return true;
}

/// The value of local row x, or false on bad run starts around it.
inline bool DecodeRunsEfValue(const Partition& part, uint64_t x, uint64_t* raw) {
  const RunsEfReader runs(part);
  const uint64_t i = runs.Find(x);
  // Check the starts that bracket x (spec §8.11): run i's and run i + 1's.
  RunsEfReader::StartCursor cursor(runs, i == 0 ? 0 : i - 1);
  uint64_t start = 0, next = 0;
  if (i > 0 && (!cursor.Next(&start) || start < 1 || start > x)) return false;
  if (i + 1 < runs.num_runs() && (!cursor.Next(&next) || next <= x || next > part.num_rows - 1)) {
    return false;
  }
  *raw = runs.Value(i);
  return true;
}

}  // namespace l3::internal
