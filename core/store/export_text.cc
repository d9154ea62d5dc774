#include "core/store/export_text.h"

#include <cstdint>

#include "core/web/charset.h"

namespace actorcrawl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_control(std::int32_t cp) { return cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r'; }

bool forbidden_in_xml(std::int32_t cp) { return is_control(cp) || cp == 0xFFFE || cp == 0xFFFF; }

// Walks `text` code point by code point: `special(cp, out)` writes the
// code points it wants written differently and returns true; the others go
// out as they came. Each byte that does not begin a well-formed sequence
// becomes U+FFFD.
template <typename Special>
void transcribe(std::string& out, std::string_view text, Special&& special) {
  out.reserve(out.size() + text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Step step = utf8_step(text, i);
    if (!step.valid) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (!special(static_cast<std::int32_t>(utf8_code_point(text, i, step.length)), out))
      out.append(text.data() + i, step.length);
    i += step.length;
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
