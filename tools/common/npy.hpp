// npy.hpp: reading and writing NumPy .npy files of one-dimensional integer
// and float arrays, and of 2-D float arrays (format versions 1.0, 2.0, 3.0).
//
// Only what an L3 column can hold is accepted: dtypes i1..i8, u1..u8, f2, f4
// and f8 in either byte order, shape (N,), or (N, R) in C order for floats (a
// tensor column of row width R). Anything else is rejected with a one-line
// reason (CliError, kExitBadInput).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "l3/l3.hpp"

namespace l3::cli {

struct NpyHeader {
  PhysicalType type = PhysicalType::kInt64;
  bool big_endian = false;  ///< values need a byte swap on this (little-endian) host
  uint64_t num_values = 0;   ///< rows * row_width
  uint32_t row_width = 1;    ///< shape[1] of a 2-D float array
  uint64_t data_offset = 0;  ///< bytes before the first value
};

/// Parses the preamble at the start of `bytes` (which must hold the whole
/// preamble; NpyPreambleBytes() tells how much that is). `source` names the
/// file in error messages.
NpyHeader ParseNpyHeader(const std::string& bytes, const std::string& source);

/// The total preamble length announced by the first 12 bytes of a .npy file,
/// or throws if they are not a .npy signature.
uint64_t NpyPreambleBytes(const std::string& first_bytes, const std::string& source);

/// Reads and parses the preamble from `file` (positioned at its start).
NpyHeader ReadNpyHeader(std::FILE* file, const std::string& source);

/// The version 1.0 preamble NumPy itself writes for an array of `type` with
/// `num_rows` rows of `row_width` values (1-D when row_width is 1), padded
/// with spaces to a multiple of 64 bytes.
std::string MakeNpyHeader(PhysicalType type, uint64_t num_rows, uint32_t row_width = 1);

/// The NumPy descr of a type in little-endian order: "<i4", "|u1", "<f4", ...
/// bfloat16 has no NumPy dtype: callers refuse .npy for it.
std::string NpyDescr(PhysicalType type);

/// Reverses the byte order of `num_values` values of `value_bytes` each.
void ByteSwap(void* data, uint64_t num_values, int value_bytes);

}  // namespace l3::cli
