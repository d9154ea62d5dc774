#include "core/web/html_char_refs.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>

#include "core/web/ascii.h"

namespace actorcrawl {
namespace {

struct NamedRef {
  const char* name;
  const char* text;
};

constexpr NamedRef kNamedRefs[] = {
#include "core/web/html_entity_table.inc"
};

constexpr std::size_t kLongestName = 32;  // "CounterClockwiseContourIntegral;"

const std::unordered_map<std::string_view, std::string_view>& named_refs() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, std::string_view>;
    t->reserve(std::size(kNamedRefs));
    for (const auto& r : kNamedRefs) t->emplace(r.name, r.text);
    return t;
  }();
  return *table;
}

bool is_alnum(char c) { return ascii::is_alpha(c) || ascii::is_digit(c); }

// Numeric references to C1 controls mean the Windows-1252 character of that
// byte, as in browsers (the standard's table).
constexpr char32_t kWindows1252[32] = {
  0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
  0x2039, 0x0152, 0x8D,   0x017D, 0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
  0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};

void append_utf8(char32_t cp, std::string& out);

std::size_t decode_numeric(std::string_view in, std::string& out) {
  // in[0] == '#'
  std::size_t i = 1;
  const bool hex = i < in.size() && (in[i] == 'x' || in[i] == 'X');
  if (hex) ++i;
  const std::size_t digits_begin = i;
  std::uint32_t value = 0;
  bool overflow = false;
  while (i < in.size()) {
    const char c = in[i];
    int digit;
    if (ascii::is_digit(c)) {
      digit = c - '0';
    } else if (hex && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (hex && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      break;
    }
    if (!overflow) {
      value = value * (hex ? 16 : 10) + static_cast<std::uint32_t>(digit);
      overflow = value > 0x10FFFF;
    }
    ++i;
  }
  if (i == digits_begin) return 0;  // "&#" or "&#x" without digits: text
  if (i < in.size() && in[i] == ';') ++i;
  char32_t cp = value;
  if (overflow || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
  } else if (cp >= 0x80 && cp <= 0x9F) {
    cp = kWindows1252[cp - 0x80];
  }
  append_utf8(cp, out);
  return i;
}

void append_utf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

std::size_t decode_char_ref(std::string_view in, CharRefContext context, std::string& out) {
  if (in.empty()) return 0;
  if (in[0] == '#') return decode_numeric(in, out);
  if (!is_alnum(in[0])) return 0;
  // The longest name in the table that the input starts with.
  std::size_t run = 0;
  while (run < in.size() && run < kLongestName && is_alnum(in[run])) ++run;
  const auto& table = named_refs();
  if (run < in.size() && in[run] == ';') {
    auto it = table.find(in.substr(0, run + 1));
    if (it != table.end()) {
      out.append(it->second);
      return run + 1;
    }
  }
  // Only the legacy names may go without ';' (and so match a prefix).
  for (std::size_t len = std::min<std::size_t>(run, 6); len > 0; --len) {
    auto it = table.find(in.substr(0, len));
    if (it == table.end()) continue;
    if (context == CharRefContext::attribute && len < in.size() && (in[len] == '=' || is_alnum(in[len])))
      return 0;
    out.append(it->second);
    return len;
  }
  return 0;
}

}  // namespace actorcrawl
