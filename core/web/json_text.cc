#include "core/web/json_text.h"

#include <cstdint>
#include <cstring>

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

constexpr std::uint64_t kEachByte = 0x0101010101010101ULL;
constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

// Whether none of the 8 bytes of `v` needs anything but a copy: none is
// below 0x20, a '"' or a '\\', or starts a multi-byte character (0x80 and
// up). With no high bit set, (x - k) & ~x sets a byte's high bit where the
// byte is below k, so the tests are exact for the word as a whole.
bool needs_no_escape(std::uint64_t v) {
  if (v & kHighBits)
    return false;
  const std::uint64_t quote = v ^ (kEachByte * '"');
  const std::uint64_t backslash = v ^ (kEachByte * '\\');
  const std::uint64_t found = ((v - kEachByte * 0x20) & ~v) | ((quote - kEachByte) & ~quote) |
                              ((backslash - kEachByte) & ~backslash);
  return (found & kHighBits) == 0;
}

bool needs_no_escape(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\' && c < 0x80; }

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // Copy the longest run that needs no escaping in one go, found 8 bytes
    // at a time (a URL or a title is such a run, whole, nearly always).
    std::size_t run = i;
    for (std::uint64_t word = 0; run + 8 <= text.size(); run += 8) {
      std::memcpy(&word, text.data() + run, 8);
      if (!needs_no_escape(word))
        break;
    }
    while (run < text.size() && needs_no_escape(static_cast<unsigned char>(text[run])))
      ++run;
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
