// values.hpp: values as text (integers, and floats for float columns), type
// ranges and type inference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "l3/l3.hpp"

namespace l3::cli {

/// An integer parsed from text, before a column type is chosen: `bits` is the
/// 64-bit two's complement pattern, sign-extended when `negative`.
struct ParsedInt {
  uint64_t bits = 0;
  bool negative = false;
};

enum class ParseIntError { kOk, kNotInteger, kOutOfRange };

/// Parses an optionally signed decimal integer. An integral decimal such as
/// "42.0" or "42." is accepted (spreadsheets write them); "4.2", "1e3", hex,
/// blanks and empty text are not. Values must fit in i64 (negative) or u64.
ParseIntError ParseInteger(std::string_view text, ParsedInt* out);

/// Parses a decimal or scientific number ("1.5", "-2e-3", "nan", "inf") as
/// the nearest value of a float type (f32 or f64; round to nearest even) and
/// returns its bit pattern. False if the text is not a number.
bool ParseFloatBits(std::string_view text, PhysicalType type, uint64_t* bits);

/// Whether `v` is a value of type `type`.
bool Fits(ParsedInt v, PhysicalType type);
/// "[-128, 127]" for i8.
std::string TypeRangeText(PhysicalType type);
/// The decimal text of `v` ("-5", "18446744073709551615").
std::string ParsedIntText(ParsedInt v);

/// How `l3 compress` picks the type of a CSV column (docs/cli.md).
enum class InferMode {
  kNarrow,  ///< the smallest unsigned type if no value is negative, else the smallest signed
  kWide,    ///< i64, or u64 when a value exceeds the i64 range
};

/// The range of a column's values, for type inference.
struct ValueStats {
  bool any_negative = false;
  int64_t min_negative = 0;      ///< the smallest negative value, when any_negative
  uint64_t max_nonnegative = 0;  ///< the largest non-negative value
  void Add(ParsedInt v);
};

/// The type `mode` picks for values with `stats`. Returns false when no
/// integer type holds them all (a value below 0 and one above 2^63 - 1).
bool InferType(const ValueStats& stats, InferMode mode, PhysicalType* type);

/// Stores the low bytes of `words[i]` as values of `type` in `out`.
void NarrowWords(const uint64_t* words, size_t count, PhysicalType type, void* out);

/// Appends the decimal text of `count` values of `type` at `data`, each
/// followed by `terminator`.
void AppendValues(std::string* out, const void* data, size_t count, PhysicalType type,
                  char terminator);
/// Appends the decimal text of value `index` of `data`. Floats print in the
/// shortest form that reads back as the same value ("nan" and "-nan" lose a
/// NaN's payload; raw and .npy outputs keep every bit).
void AppendValue(std::string* out, const void* data, size_t index, PhysicalType type);
/// The decimal text of a 64-bit canonical-extension word (spec §8.2) of `type`.
std::string CanonicalWordText(uint64_t word, PhysicalType type);

}  // namespace l3::cli
