// PATCHED_FOR (spec §8.12), the CPU reference decoder's half: range and
// single-row decoding and the exception-row check.
//
// v(x) = (Base + f(x) + h_i * 2^w) mod 2^N for exception row i, else
// (Base + f(x)) mod 2^N: the FOR_BITPACK decoder (with its per-width kernels)
// then one addition per exception in the range. The exception rows are
// fixed-width fields (found by binary search) or, with Rows_EF, the
// Elias-Fano code of patched_rows_ef.hpp (found by its bucket search, then
// walked along H).
#pragma once

#include <cstdint>

#include "codec/decode/partition_decoder.hpp"
#include "codec/delta/delta_decode.hpp"
#include "codec/patched/patched_for_layout.hpp"
#include "codec/patched/patched_rows_ef.hpp"

namespace l3::internal {

/// The exceptions of a PATCHED_FOR partition whose parameters passed the
/// checks of spec §8.12 (PatchedForExceptionsValid). Every read stays inside
/// the partition's payload words (plus the segment's padding), whatever the
/// payload holds.
class PatchedForExceptionReader {
 public:
  explicit PatchedForExceptionReader(const Partition& part)
      : payload_(part.payload),
        n_(part.num_rows),
        e_(UnpackDeltaExceptions(LoadLE64(part.params + 8))),
        g_(MakePatchedForExceptionLayout(part.num_rows, part.bit_width, e_)),
        fixed_(part, part.payload) {}

  uint32_t count() const { return e_.count; }
  bool rows_ef() const { return e_.rows_ef; }
  /// The stored high-part field of exception i, and the high part h_i it
  /// holds (ExceptionHigh: itself, or zigzag-decoded with Signed_Highs).
  uint64_t StoredHigh(uint64_t i) const {
    return LoadField(payload_, g_.highs_bit + i * e_.width, LowMask(e_.width));
  }
  uint64_t High(uint64_t i) const { return ExceptionHigh(StoredHigh(i), e_.signed_highs); }

  /// Walks the exception rows in order from a starting exception.
  class RowCursor {
   public:
    /// The rows from exception `index` on; `h_pos` (Rows_EF) is a position
    /// of H at or before that exception's 1 bit and after the 1 bits of the
    /// exceptions before it.
    RowCursor(const PatchedForExceptionReader& r, uint64_t index, uint64_t h_pos)
        : r_(r), index_(index), pos_(h_pos) {}
    /// The row of exception index() into *row, then moves on; false once
    /// the E rows are done, or with Rows_EF when H has no further 1 bit.
    bool Next(uint64_t* row) {
      if (index_ >= r_.e_.count) return false;
      if (!r_.e_.rows_ef) {
        *row = r_.fixed_.Row(index_++);
        return true;
      }
      const PatchedForExceptionLayout& g = r_.g_;
      for (;;) {
        if (pos_ >= g.high_bits) return false;
        const uint64_t word = r_.HighWord(pos_);
        if (word != 0) {
          const uint64_t q = pos_ + static_cast<uint64_t>(__builtin_ctzll(word));
          *row = r_.EfRow(q, index_);
          pos_ = q + 1;
          ++index_;
          return true;
        }
        pos_ += 64;
      }
    }
    uint64_t index() const { return index_; }

   private:
    const PatchedForExceptionReader& r_;
    uint64_t index_;
    uint64_t pos_;  // Rows_EF: the next position of H to look at
  };

  /// The first exception whose row is >= x, as a cursor, and whether its row
  /// is x (binary search over fixed-width rows; the bucket search of
  /// patched_rows_ef.hpp over Rows_EF rows). Any bits give an index in [0, E].
  RowCursor LowerBound(uint64_t x, bool* found = nullptr) const {
    if (!e_.rows_ef) {
      const uint64_t i = fixed_.LowerBound(x);
      if (found != nullptr) *found = i < e_.count && fixed_.Row(i) == x;
      return RowCursor(*this, i, 0);
    }
    const PatchedRowLookup at = PatchedRowsEfFind(Stream{payload_}, g_, e_.count, x);
    if (found != nullptr) *found = at.found;
    return RowCursor(*this, at.index, at.h_pos);
  }

  /// Adds (h_i << w) mod 2^N to out[row - lb] for each exception i whose
  /// row lies in [lb, le), in order: DecodePatchedForRange's patch. Fixed-
  /// width rows from their binary search on; Rows_EF rows by AddEfHighs.
  template <typename T>
  void AddHighs(uint64_t lb, uint64_t le, uint32_t w, T* out) const {
    if (!e_.rows_ef) {
      using U = std::make_unsigned_t<T>;
      RowCursor cursor = LowerBound(lb);
      uint64_t row = 0;
      for (uint64_t i = cursor.index(); cursor.Next(&row); ++i) {
        if (row >= le) return;
        if (row >= lb) {  // row < lb only on rows that failed the check
          out[row - lb] = FromBits<T>(static_cast<U>(out[row - lb]) + (High(i) << w));
        }
      }
      return;
    }
    if (e_.signed_highs) {
      g_.low_bits == 0 ? AddEfHighs<true, false>(lb, le, w, out)
                       : AddEfHighs<true, true>(lb, le, w, out);
    } else {
      g_.low_bits == 0 ? AddEfHighs<false, false>(lb, le, w, out)
                       : AddEfHighs<false, true>(lb, le, w, out);
    }
  }

  /// spec §8.12: the rows are strictly increasing and below n, and Rows_EF's
  /// H holds exactly E ones.
  bool RowsValid() const {
    if (!e_.rows_ef) {
      RowCursor cursor(*this, 0, 0);
      uint64_t row = 0, previous = 0;
      for (uint64_t i = 0; i < e_.count; ++i) {
        if (!cursor.Next(&row) || row >= n_ || (i > 0 && row <= previous)) return false;
        previous = row;
      }
      return true;
    }
    const uint32_t l = g_.low_bits;
    if (l == 0) {
      // Row i is q_i - i for the i-th 1 bit q_i, so rows strictly increase
      // exactly when no two 1 bits are neighbours, and the last is at most
      // H_n - 1 - (E - 1) = n - 1: the check is E ones, none adjacent.
      uint64_t ones = 0, carry = 0;
      for (uint64_t pos = 0; pos < g_.high_bits; pos += 64) {
        const uint64_t word = HighWord(pos);
        if ((word & ((word << 1) | carry)) != 0) return false;
        ones += PopCount64(word);
        carry = word >> 63;
      }
      return ones == e_.count;
    }
    // One pass over H, a word at a time: the rows of its first E 1 bits
    // (their low parts at a running stream position), each in [next, n)
    // for next = the previous row + 1, and all its 1 bits counted.
    const uint64_t count = e_.count;
    const uint64_t low_mask = LowMask(l);
    uint64_t i = 0, ones = 0, next = 0, low_bit = g_.rows_bit;
    for (uint64_t pos = 0; pos < g_.high_bits; pos += 64) {
      uint64_t word = HighWord(pos);
      ones += PopCount64(word);
      for (; word != 0 && i < count; word &= word - 1, ++i) {
        const uint64_t q = pos + static_cast<uint64_t>(__builtin_ctzll(word));
        const uint64_t row = ((q - i) << l) + ShortField(payload_, low_bit, low_mask);
        low_bit += l;
        if (row - next >= n_ - next) return false;
        next = row + 1;
      }
    }
    return i == count && ones == count;
  }

 private:
  /// The payload as runs_ef_select.hpp reads it.
  struct Stream {
    const uint8_t* payload;
    uint64_t Field(uint64_t bit, uint32_t width) const {
      return LoadField(payload, bit, LowMask(width));
    }
  };

  /// Rows_EF: the row of exception i, whose 1 bit in H is at q (spec
  /// §8.12): (q - i) << l, plus its l-bit low part. Wraps only on corrupt H.
  uint64_t EfRow(uint64_t q, uint64_t i) const {
    const uint32_t l = g_.low_bits;
    const uint64_t low = l == 0 ? 0 : LoadField(payload_, g_.rows_bit + i * l, LowMask(l));
    return ((q - i) << l) + low;
  }

  /// AddHighs over Rows_EF rows, with Signed_Highs (kSigned) and l > 0
  /// (kLows) known at compile time: from the bucket search's position, H
  /// is read one 64-bit word at a time and its 1 bits taken lowest first
  /// (the rows RowCursor::Next gives, without reloading H for every
  /// exception); the low parts and the high-part fields of exceptions
  /// i, i + 1, ... lie at running stream positions, and everything the loop
  /// reads is held in locals (a store to `out` may alias no member then).
  /// The loop stops after E exceptions, whatever H holds.
  template <bool kSigned, bool kLows, typename T>
  void AddEfHighs(uint64_t lb, uint64_t le, uint32_t w, T* out) const {
    using U = std::make_unsigned_t<T>;
    const PatchedRowLookup at = PatchedRowsEfFind(Stream{payload_}, g_, e_.count, lb);
    const uint8_t* const payload = payload_;
    const uint64_t count = e_.count;
    const uint64_t span = le - lb;
    const uint32_t l = kLows ? g_.low_bits : 0;
    const uint32_t width = e_.width;
    const uint64_t low_mask = LowMask(l);
    const uint64_t high_mask = LowMask(width);
    uint64_t i = at.index;
    uint64_t low_bit = g_.rows_bit + i * l;
    uint64_t high_bit = g_.highs_bit + i * width;
    if (i >= count) return;
    for (uint64_t pos = at.h_pos; pos < g_.high_bits; pos += 64) {
      for (uint64_t word = HighWord(pos); word != 0; word &= word - 1) {
        const uint64_t q = pos + static_cast<uint64_t>(__builtin_ctzll(word));
        uint64_t row = q - i;  // (q_i - i) << l, plus its low part
        if constexpr (kLows) {
          row = (row << l) + ShortField(payload, low_bit, low_mask);
          low_bit += l;
        }
        const uint64_t stored = width <= kOneLoadBits
                                    ? ShortField(payload, high_bit, high_mask)
                                    : LoadField(payload, high_bit, high_mask);
        high_bit += width;
        const uint64_t high = kSigned ? ExceptionHigh(stored, true) : stored;
        if (row - lb < span) {
          out[row - lb] = FromBits<T>(static_cast<U>(out[row - lb]) + (high << w));
        } else if (row >= le) {
          return;  // row < lb only on rows that failed the check
        }
        if (++i >= count) return;
      }
    }
  }

  /// LoadField of a field of at most kOneLoadBits bits (a low part: l <= 16
  /// as n <= 65536), from the 8 bytes at its first byte: inside the 16
  /// bytes LoadField reads.
  static constexpr uint32_t kOneLoadBits = 57;
  static uint64_t ShortField(const uint8_t* payload, uint64_t bit, uint64_t mask) {
    return LoadLE64(payload + (bit >> 3)) >> (bit & 7) & mask;
  }

  /// Bits [pos, pos + 64) of H, zero past H_n.
  uint64_t HighWord(uint64_t pos) const {
    if (pos >= g_.high_bits) return 0;
    const uint64_t word = LoadField(payload_, g_.h_bit + pos, ~uint64_t{0});
    const uint64_t left = g_.high_bits - pos;
    return left >= 64 ? word : word & LowMask(static_cast<uint32_t>(left));
  }

  const uint8_t* payload_;
  uint64_t n_;
  DeltaExceptions e_;
  PatchedForExceptionLayout g_;
  DeltaExceptionReader fixed_;  // fixed-width rows: DELTA's lists (spec §8.9)
};

/// Local rows [lb, le) of a PATCHED_FOR partition; out[0] is local row lb.
/// The exception rows must have passed PatchedForExceptionRowsValid.
template <typename T>
void DecodePatchedForRange(const Partition& part, uint32_t values_per_lane, uint64_t lb,
                           uint64_t le, T* out) {
  DecodeSlapRange<T, static_cast<uint8_t>(Model::kFor)>(part, values_per_lane, lb, le, out);
  const uint32_t w = part.bit_width;
  const PatchedForExceptionReader exceptions(part);
  if (exceptions.count() == 0 || w >= 64) return;  // w + hw <= N: no high bits at w = 64
  exceptions.AddHighs(lb, le, w, out);
}

/// Local row x of a PATCHED_FOR partition, mod 2^64 (the caller keeps N
/// bits): its field, plus its high part if x is among the exception rows.
inline uint64_t DecodePatchedForValue(const Partition& part, uint32_t values_per_lane,
                                      uint64_t x) {
  const uint32_t w = part.bit_width;
  uint64_t value = LoadLE64(part.params) +
                   LoadField(part.payload,
                             SlapFieldBitOffset(part.num_rows, w, values_per_lane, x), LowMask(w));
  const PatchedForExceptionReader exceptions(part);
  if (exceptions.count() == 0 || w >= 64) return value;
  bool found = false;
  const PatchedForExceptionReader::RowCursor at = exceptions.LowerBound(x, &found);
  if (found) value += exceptions.High(at.index()) << w;
  return value;
}

/// spec §8.12: the exception rows are strictly increasing and below n, and
/// with Rows_EF H holds exactly E ones (CORRUPT_PAYLOAD otherwise).
inline bool PatchedForExceptionRowsValid(const Partition& part) {
  return PatchedForExceptionReader(part).RowsValid();
}

/// spec §8.12 writer rules, checked by deep validation (§10.3): every stored
/// high part is nonzero and Exception_Width is the bit length of the
/// largest. (With w + hw <= N, a nonzero h_i gives u(x) >= 2^w, unsigned or
/// with Signed_Highs, so the rows whose u(x) needs more than w bits are then
/// exactly the exception rows.) "" when they hold.
inline const char* PatchedForRuleViolation(const Partition& part) {
  const PatchedForExceptionReader exceptions(part);
  const uint32_t width = UnpackDeltaExceptions(LoadLE64(part.params + 8)).width;
  uint32_t widest = 0;
  for (uint64_t i = 0; i < exceptions.count(); ++i) {
    const uint64_t high = exceptions.StoredHigh(i);
    if (high == 0) return "PATCHED_FOR exception high part is zero";
    widest = BitLength(high) > widest ? BitLength(high) : widest;
  }
  if (widest != width) return "PATCHED_FOR Exception_Width is not bitlen(max high part)";
  return "";
}

/// Bits of a PATCHED_FOR payload that hold fields: the n fields, then the
/// exception rows and high parts (spec §8.12).
inline uint64_t PatchedForUsedBits(const Partition& part) {
  return part.num_rows * part.bit_width +
         PatchedForExceptionBits(part.num_rows, UnpackDeltaExceptions(LoadLE64(part.params + 8)));
}

}  // namespace l3::internal
