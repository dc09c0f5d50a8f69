#include "common/text_safety.hpp"

namespace l3::cli {

size_t Utf8SequenceAt(std::string_view text, size_t pos, uint32_t* code_point) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(pos);
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  }
  size_t len;
  uint32_t cp;
  uint32_t min_cp;
  if ((lead & 0xE0) == 0xC0) {
    len = 2, cp = lead & 0x1F, min_cp = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    len = 3, cp = lead & 0x0F, min_cp = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    len = 4, cp = lead & 0x07, min_cp = 0x10000;
  } else {
    return 0;  // a continuation byte, or 0xF8-0xFF
  }
  if (text.size() - pos < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    const uint8_t cont = byte(pos + k);
    if ((cont & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cont & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return len;
}

namespace {

void AppendHex(std::string& out, uint8_t byte) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

bool IsControl(uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

}  // namespace

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    uint32_t cp = 0;
    const size_t len = Utf8SequenceAt(text, pos, &cp);
    if (len == 0) {
      AppendHex(out, static_cast<uint8_t>(text[pos]));
      pos += 1;
      continue;
    }
    if (IsControl(cp)) {
      for (size_t k = 0; k < len; ++k) AppendHex(out, static_cast<uint8_t>(text[pos + k]));
    } else {
      out.append(text.substr(pos, len));
    }
    pos += len;
  }
  return out;
}

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    uint32_t cp = 0;
    const size_t len = Utf8SequenceAt(text, pos, &cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      pos += 1;
    } else {
      out.append(text.substr(pos, len));
      pos += len;
    }
  }
  return out;
}

}  // namespace l3::cli
