// Printing strings that come from a file (writer name and version, metadata,
// column names, timezones) or from an error message quoting them. The SDK
// accepts any bytes in most of them, so a file can carry terminal escape
// sequences, line breaks and bytes that are not UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace l3::cli {

/// The length (1 to 4) of the well-formed UTF-8 sequence (RFC 3629) that
/// starts at `text[pos]`, storing its code point in `*code_point`; 0 when
/// the byte there does not start one (a stray continuation byte, a byte that
/// is never UTF-8, a truncated, overlong or surrogate sequence, or a code
/// point above U+10FFFF).
size_t Utf8SequenceAt(std::string_view text, size_t pos, uint32_t* code_point);

/// For text output: `text` with every byte of a C0 control (U+0000-U+001F,
/// newline and tab included), DEL (U+007F) or C1 control (U+0080-U+009F,
/// two bytes in UTF-8) written as \xNN, and every byte that is not part of
/// a well-formed UTF-8 sequence written as \xNN too (a lone 0x9B is CSI on
/// an 8-bit terminal). Everything else passes unchanged. The result holds
/// no control character and is valid UTF-8, so it cannot act on a terminal
/// or break a line.
std::string TerminalSafe(std::string_view text);

/// For JSON output: `text` with every byte that is not part of a
/// well-formed UTF-8 sequence replaced by U+FFFD (one per byte), so the
/// result is valid UTF-8 and the replacement does not depend on the JSON
/// library.
std::string ValidUtf8(std::string_view text);

}  // namespace l3::cli
