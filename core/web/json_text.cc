#include "core/web/json_text.h"

#include "core/encoding/percent_encoding.h"

namespace actorcrawl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF), or 0.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  const std::size_t left = text.size() - i;
  if (c >= 0xC2 && c <= 0xDF)
    return left >= 2 && is_continuation(byte(i + 1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3)
      return 0;
    const unsigned char c1 = byte(i + 1);
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return c1 >= lo && c1 <= hi && is_continuation(byte(i + 2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4)
      return 0;
    const unsigned char c1 = byte(i + 1);
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return c1 >= lo && c1 <= hi && is_continuation(byte(i + 2)) && is_continuation(byte(i + 3)) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // Copy the longest run that needs no escaping in one go.
    std::size_t run = i;
    while (run < text.size()) {
      const auto c = static_cast<unsigned char>(text[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
        break;
      ++run;
    }
    out.append(text.data() + i, run - i);
    i = run;
    if (i == text.size())
      break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if (const std::size_t length = utf8_sequence_length(text, i)) {
        out.append(text.data() + i, length);
        i += length;
      } else {
        out += kReplacement;
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += lower_hex_digit(c >> 4);
        out += lower_hex_digit(c & 0x0F);
    }
    ++i;
  }
  out += '"';
}

}  // namespace actorcrawl
