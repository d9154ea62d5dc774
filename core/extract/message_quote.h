// User text (selectors, expressions, patterns, field names) as an error
// message quotes it.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

// `text` with each NUL written as \0: a NUL would end the message for
// whoever reads it as a C string.
inline std::string quote_for_message(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\0')
      out += "\\0";
    else
      out += c;
  }
  return out;
}

}  // namespace actorcrawl
