// File_Header and Postscript (spec §4.1, §4.2): packing for the writer and the
// ordered framing checks for the reader.
#pragma once

#include <cstdint>

#include "l3/status.hpp"

namespace l3::internal {

/// The fields of the 64-byte postscript (spec §4.2).
struct Postscript {
  uint64_t footer_offset = 0;      // spec Footer_Offset
  uint64_t footer_length = 0;      // spec Footer_Length
  uint64_t required_features = 0;  // spec Required_Features
  uint64_t optional_features = 0;  // spec Optional_Features
  uint16_t format_major = 0;       // spec Format_Major
  uint16_t format_minor = 0;       // spec Format_Minor
  uint8_t checksum_type = 0;       // spec Checksum_Type
  uint32_t footer_checksum = 0;    // spec Footer_Checksum
};

/// Writes the 64-byte File_Header of a version `major.minor` file.
void PackFileHeader(uint16_t major, uint16_t minor, uint8_t out[64]);

/// Writes the 64-byte postscript, with zero reserved fields, the
/// Postscript_Checksum and the trailing magic.
void PackPostscript(const Postscript& ps, uint8_t out[64]);

struct FramingOptions {
  /// Accept unknown Required_Features bits (inspection mode).
  bool allow_unknown = false;
  /// RESOURCE_LIMIT when Footer_Length is larger.
  uint64_t max_footer_bytes = uint64_t{64} << 20;
};

/// Runs the checks of spec §4.2 in their normative order (and those of §4.1
/// on the File_Header) on a whole file of `size` bytes, ending with the
/// Footer_Checksum. The footer bytes are file[ps.footer_offset,
/// ps.footer_offset + ps.footer_length) afterwards.
Status ParseFraming(const uint8_t* file, uint64_t size, const FramingOptions& options,
                    Postscript* ps);

}  // namespace l3::internal
