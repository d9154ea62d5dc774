// What may go into a request's header line (RFC 9110 5.1, 5.5): a field
// name is a token; a field value holds no control character but tab, so it
// cannot end its line (CR, LF) or be refused (NUL). One check for what the
// engine sends (validators, a request's own headers) and for what the
// configuration asks it to send (request_rules.h).
#pragma once

#include <string_view>

#include "core/web/ascii.h"

namespace actorcrawl {

inline bool is_field_name(std::string_view name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!ascii::is_alpha(c) && !ascii::is_digit(c) && std::string_view{"!#$%&'*+-.^_`|~"}.find(c) == std::string_view::npos)
      return false;
  return true;
}

inline bool is_field_value(std::string_view value) {
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f)
      return false;
  }
  return true;
}

// "Name: value" as a whole: a name before the first colon, a value after.
inline bool is_header_line(std::string_view line) {
  const auto colon = line.find(':');
  return colon != std::string_view::npos && is_field_name(line.substr(0, colon)) &&
         is_field_value(line.substr(colon + 1));
}

}  // namespace actorcrawl
