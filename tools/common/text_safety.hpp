// Printing strings that come from a file (writer name, metadata, column
// names, timezones) without letting them act on the terminal: the SDK
// accepts any bytes there, so a file can carry escape sequences.
#pragma once

#include <string>
#include <string_view>

namespace l3::cli {

/// `text` with every control byte other than newline and tab (0x00-0x1F,
/// 0x7F) written as \xNN, so that escape sequences from a file are shown,
/// not executed. Other bytes, UTF-8 or not, pass unchanged.
inline std::string EscapeControlBytes(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace l3::cli
