#include "core/store/export_text.h"

#include <cstdint>

namespace actorcrawl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

struct Decoded {
  std::int32_t code_point;  // -1: the byte at the start is not well-formed UTF-8
  std::size_t length;       // bytes taken (1 when invalid)
};

// The code point at `i`, by RFC 3629's table of well-formed sequences.
Decoded decode(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80)
    return {b0, 1};
  std::size_t length;
  std::uint32_t cp;
  std::uint8_t low = 0x80, high = 0xBF;  // the second byte's range
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0)
      low = 0xA0;  // no overlongs
    if (b0 == 0xED)
      high = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0)
      low = 0x90;
    if (b0 == 0xF4)
      high = 0x8F;  // nothing past U+10FFFF
  } else {
    return {-1, 1};
  }
  if (i + length > s.size())
    return {-1, 1};
  for (std::size_t k = 1; k < length; ++k) {
    const std::uint8_t b = byte(i + k);
    if (k == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF))
      return {-1, 1};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {static_cast<std::int32_t>(cp), length};
}

bool forbidden_in_xml(std::int32_t cp) {
  return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF;
}

bool is_control(std::int32_t cp) { return cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r'; }

// Walks `text` code point by code point: `special(cp, out)` writes the
// code points it wants written differently and returns true; the others go
// out as they came. Invalid bytes become U+FFFD.
template <typename Special>
void transcribe(std::string& out, std::string_view text, Special&& special) {
  out.reserve(out.size() + text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Decoded d = decode(text, i);
    if (d.code_point < 0)
      out += kReplacement;
    else if (!special(d.code_point, out))
      out.append(text.data() + i, d.length);
    i += d.length;
  }
}

}  // namespace

void append_utf8(std::string& out, std::string_view text, bool xml_chars) {
  transcribe(out, text, [&](std::int32_t cp, std::string& o) {
    if (!xml_chars || !forbidden_in_xml(cp))
      return false;
    o += kReplacement;
    return true;
  });
}

void append_xml(std::string& out, std::string_view text) {
  transcribe(out, text, [](std::int32_t cp, std::string& o) {
    switch (cp) {
      case '&': o += "&amp;"; return true;
      case '<': o += "&lt;"; return true;
      case '>': o += "&gt;"; return true;
      case '"': o += "&quot;"; return true;
      case '\t': o += "&#9;"; return true;
      case '\n': o += "&#10;"; return true;
      case '\r': o += "&#13;"; return true;
      default:
        if (!forbidden_in_xml(cp))
          return false;
        o += kReplacement;
        return true;
    }
  });
}

void append_dot_quoted(std::string& out, std::string_view text) {
  out += '"';
  transcribe(out, text, [](std::int32_t cp, std::string& o) {
    switch (cp) {
      case '"': o += "\\\""; return true;
      case '\\': o += "\\\\"; return true;
      case '\n': o += "\\n"; return true;
      default:
        if (cp >= 0x20 && cp != 0x7F)
          return false;
        o += kReplacement;  // tab and CR too: DOT has no escape for them
        return true;
    }
  });
  out += '"';
}

void append_csv_text(std::string& out, std::string_view text) {
  const bool formula = !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' ||
                                         text[0] == '\t' || text[0] == '\r');
  const bool quoted = formula || text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (quoted)
    out += '"';
  if (formula)
    out += '\'';
  transcribe(out, text, [](std::int32_t cp, std::string& o) {
    if (cp == '"') {
      o += "\"\"";
      return true;
    }
    if (!is_control(cp))
      return false;
    o += kReplacement;
    return true;
  });
  if (quoted)
    out += '"';
}

}  // namespace actorcrawl
