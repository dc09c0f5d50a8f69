#include "format/framing.hpp"

#include <cstring>
#include <string>

#include "common/bits.hpp"
#include "common/crc32c.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

namespace l3::internal {
namespace {

// spec §4.1 File_Header field offsets.
constexpr int kHdrFormatMajor = 8;
constexpr int kHdrFormatMinor = 10;
constexpr int kHdrFlags = 12;
constexpr int kHdrReserved = 16;
constexpr int kHdrReservedBytes = 48;

Status Framing(StatusCode code, std::string message) { return Status(code, std::move(message)); }

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

std::string Hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

}  // namespace

void PackFileHeader(uint16_t major, uint16_t minor, uint8_t out[64]) {
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out, kMagic, sizeof(kMagic));
  StoreLE16(out + kHdrFormatMajor, major);
  StoreLE16(out + kHdrFormatMinor, minor);
  // Header_Flags and Reserved stay zero (spec §4.1).
}

void PackPostscript(const Postscript& ps, uint8_t out[64]) {
  std::memset(out, 0, kPostscriptBytes);
  StoreLE64(out + kPsFooterOffset, ps.footer_offset);
  StoreLE64(out + kPsFooterLength, ps.footer_length);
  StoreLE64(out + kPsRequiredFeatures, ps.required_features);
  StoreLE64(out + kPsOptionalFeatures, ps.optional_features);
  StoreLE16(out + kPsFormatMajor, ps.format_major);
  StoreLE16(out + kPsFormatMinor, ps.format_minor);
  out[kPsChecksumType] = ps.checksum_type;
  StoreLE32(out + kPsFooterChecksum, ps.footer_checksum);
  StoreLE32(out + kPsPostscriptChecksum, Crc32c(0, out, kPsChecksummedBytes));
  std::memcpy(out + kPsMagic, kMagic, sizeof(kMagic));
}

Status ParseFraming(const uint8_t* file, uint64_t size, const FramingOptions& options,
                    Postscript* ps) {
  // Step 1: room for a header and a postscript.
  if (size < kMinFileBytes) {
    return Framing(StatusCode::kTruncated, "file has " + std::to_string(size) +
                                               " bytes, fewer than the minimum " +
                                               std::to_string(kMinFileBytes));
  }
  const uint8_t* tail = file + size - kPostscriptBytes;
  const bool head_magic = std::memcmp(file, kMagic, sizeof(kMagic)) == 0;
  const bool tail_magic = std::memcmp(tail + kPsMagic, kMagic, sizeof(kMagic)) == 0;
  // Step 2: the postscript Magic. A good leading magic with a bad trailing one
  // is most likely a file cut short.
  if (!tail_magic) {
    if (head_magic) {
      return Framing(StatusCode::kTruncated,
                     "postscript Magic missing although File_Header Magic is present");
    }
    return Framing(StatusCode::kNotL3, "postscript Magic is not the L3 magic");
  }
  if (!head_magic) return Framing(StatusCode::kNotL3, "File_Header Magic is not the L3 magic");
  // Step 3.
  const uint32_t ps_crc = LoadLE32(tail + kPsPostscriptChecksum);
  const uint32_t ps_actual = Crc32c(0, tail, kPsChecksummedBytes);
  if (ps_crc != ps_actual) {
    return Framing(StatusCode::kChecksumMismatch, "Postscript_Checksum " + Hex(ps_crc) +
                                                      " != computed " + Hex(ps_actual));
  }
  ps->footer_offset = LoadLE64(tail + kPsFooterOffset);
  ps->footer_length = LoadLE64(tail + kPsFooterLength);
  ps->required_features = LoadLE64(tail + kPsRequiredFeatures);
  ps->optional_features = LoadLE64(tail + kPsOptionalFeatures);
  ps->format_major = LoadLE16(tail + kPsFormatMajor);
  ps->format_minor = LoadLE16(tail + kPsFormatMinor);
  ps->checksum_type = tail[kPsChecksumType];
  ps->footer_checksum = LoadLE32(tail + kPsFooterChecksum);
  // Step 4. Any Format_Minor is accepted.
  if (ps->format_major != kFormatMajor) {
    return Framing(StatusCode::kUnsupportedVersion,
                   "Format_Major " + std::to_string(ps->format_major) + " (this reader reads " +
                       std::to_string(kFormatMajor) + ")");
  }
  // spec §4.2: the header is compared with the postscript after step 4.
  const uint16_t hdr_major = LoadLE16(file + kHdrFormatMajor);
  const uint16_t hdr_minor = LoadLE16(file + kHdrFormatMinor);
  if (hdr_major != ps->format_major || hdr_minor != ps->format_minor) {
    return Framing(StatusCode::kCorruptFraming,
                   "File_Header version " + std::to_string(hdr_major) + "." +
                       std::to_string(hdr_minor) + " != postscript version " +
                       std::to_string(ps->format_major) + "." + std::to_string(ps->format_minor));
  }
  // Step 5.
  if (ps->checksum_type != kChecksumCrc32c) {
    return Framing(StatusCode::kUnsupportedFeature,
                   "Checksum_Type " + std::to_string(ps->checksum_type) + " is not CRC32C (0)");
  }
  // Step 6.
  const uint64_t unknown_required = ps->required_features & ~kKnownRequiredFeatures;
  if (unknown_required != 0 && !options.allow_unknown) {
    return Framing(StatusCode::kUnsupportedFeature,
                   "Required_Features has bits this reader does not implement: " +
                       Hex(unknown_required));
  }
  // Step 7, with the File_Header's reserved fields (spec §4.1).
  if (!AllZero(tail + kPsReserved1, 3)) {
    return Framing(StatusCode::kCorruptFraming, "postscript Reserved_1 is not zero");
  }
  if (!AllZero(tail + kPsReserved2, 8)) {
    return Framing(StatusCode::kCorruptFraming, "postscript Reserved_2 is not zero");
  }
  if (LoadLE32(file + kHdrFlags) != 0) {
    return Framing(StatusCode::kCorruptFraming, "File_Header Header_Flags is not zero");
  }
  if (!AllZero(file + kHdrReserved, kHdrReservedBytes)) {
    return Framing(StatusCode::kCorruptFraming, "File_Header Reserved is not zero");
  }
  // Step 8: the file-size rule, without overflow.
  if (ps->footer_offset % kSegmentAlignment != 0) {
    return Framing(StatusCode::kCorruptFraming,
                   "Footer_Offset " + std::to_string(ps->footer_offset) + " is not a multiple of 64");
  }
  if (ps->footer_offset < kHeaderBytes) {
    return Framing(StatusCode::kCorruptFraming,
                   "Footer_Offset " + std::to_string(ps->footer_offset) + " is inside the File_Header");
  }
  const uint64_t body = size - kPostscriptBytes;  // size >= 128 here
  if (ps->footer_offset > body || ps->footer_length != body - ps->footer_offset) {
    return Framing(StatusCode::kCorruptFraming,
                   "Footer_Offset " + std::to_string(ps->footer_offset) + " + Footer_Length " +
                       std::to_string(ps->footer_length) + " + 64 != file size " +
                       std::to_string(size));
  }
  // A reader limit (spec §13), checked before the footer bytes are touched.
  if (ps->footer_length > options.max_footer_bytes) {
    return Framing(StatusCode::kResourceLimit,
                   "Footer_Length " + std::to_string(ps->footer_length) + " exceeds the limit " +
                       std::to_string(options.max_footer_bytes));
  }
  // Step 9.
  const uint32_t footer_actual =
      Crc32c(0, file + ps->footer_offset, static_cast<size_t>(ps->footer_length));
  if (footer_actual != ps->footer_checksum) {
    return Framing(StatusCode::kChecksumMismatch, "Footer_Checksum " + Hex(ps->footer_checksum) +
                                                      " != computed " + Hex(footer_actual));
  }
  return Status::OK();
}

}  // namespace l3::internal
