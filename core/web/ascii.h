// Locale-free ASCII character handling. URLs, HTTP headers, robots.txt and
// config keys are defined over ASCII bytes; <cctype> would consult the
// process locale and is undefined for negative chars, so these stand in.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl::ascii {

inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
// The C locale's isspace(): the set HTTP header values and config text are
// trimmed of.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
// The WHATWG "ASCII whitespace" (no vertical tab): HTML attributes, token
// lists and encoding labels.
inline bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

inline char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline char to_upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = to_lower(c);
  return out;
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (to_lower(a[i]) != to_lower(b[i]))
      return false;
  return true;
}

inline bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Without the leading and trailing characters for which `drop` holds. Each
// format names its own whitespace, so the set is the caller's.
template <class Predicate>
std::string_view trim_if(std::string_view s, Predicate drop) {
  while (!s.empty() && drop(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && drop(s.back()))
    s.remove_suffix(1);
  return s;
}

// Without leading and trailing is_space() characters.
inline std::string_view trim(std::string_view s) { return trim_if(s, is_space); }

}  // namespace actorcrawl::ascii
