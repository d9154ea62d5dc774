#include "core/export/export_text.h"

#include <algorithm>
#include <cstdint>

#include "core/web/charset.h"

namespace actorcrawl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The C0 controls XML 1.0 forbids: all but tab, LF and CR.
bool is_control(std::int32_t cp) { return cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r'; }

// Unicode's control characters (general category Cc): C0, DEL and C1.
bool is_unicode_control(std::int32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

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
  // Read as UTF-8 first: a quote, a backslash, a line feed and NUL are then
  // single bytes that no multi-byte sequence holds, so bytes can be looked
  // at one by one.
  thread_local std::string valid;
  valid.clear();
  append_utf8(valid, text);
  out += '"';
  // Whether Graphviz's scanner starts a token here: after the opening
  // quote and after each backslash escape. A line feed that is a token of
  // its own there is dropped by Graphviz 2.43 (newer ones keep it).
  bool token_start = true;
  for (std::size_t i = 0; i < valid.size();) {
    if (valid[i] == '\\') {
      const std::size_t run_end = std::min(valid.find_first_not_of('\\', i), valid.size());
      const std::size_t run = run_end - i;
      // Pairs stay pairs; a last odd one escapes what follows it, and
      // before a quote, a line feed or the closing quote that is fatal.
      const bool escapes_next =
        run % 2 == 1 && (run_end == valid.size() || valid[run_end] == '"' || valid[run_end] == '\n');
      out.append(escapes_next ? run - 1 : run, '\\');
      if (escapes_next)
        out += kReplacement;
      token_start = !escapes_next;
      i = run_end;
      continue;
    }
    const char c = valid[i];
    const bool before_edge = i + 1 == valid.size() || valid[i + 1] == '"' || valid[i + 1] == '\\';
    if (c == '"') {
      out += "\\\"";
      token_start = true;
    } else if (c == '\0' || (c == '\n' && token_start && before_edge)) {
      out += kReplacement;
      token_start = false;
    } else {
      out += c;
      token_start = false;
    }
    ++i;
  }
  out += '"';
}

void append_csv_text(std::string& out, std::string_view text) {
  // A leading quote is guarded like a formula: then every field that
  // begins with one had it added, and a reader can drop it.
  const bool guarded = !text.empty() && (text[0] == '\'' || text[0] == '=' || text[0] == '+' || text[0] == '-' ||
                                         text[0] == '@' || text[0] == '\t' || text[0] == '\r');
  const bool quoted = guarded || text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (quoted)
    out += '"';
  if (guarded)
    out += '\'';
  transcribe(out, text, [](std::int32_t cp, std::string& o) {
    if (cp == '"') {
      o += "\"\"";
      return true;
    }
    if (!is_unicode_control(cp) || cp == '\t' || cp == '\n' || cp == '\r')
      return false;
    o += kReplacement;
    return true;
  });
  if (quoted)
    out += '"';
}

}  // namespace actorcrawl
