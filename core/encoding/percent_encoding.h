// Hex digits and percent-encoding (RFC 3986 section 2.1), one home for the
// URL parser, the crawler's canonical URLs, robots.txt matching, IPv6
// hosts and the trace's text escapes: one digit table, uppercase and
// lowercase served from it, so no two places can disagree on how a byte
// is written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace actorcrawl {

// Locale-free: '0'-'9', 'a'-'f', 'A'-'F'.
inline bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// The value of a hex digit; is_hex_digit(c) must hold.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return c - 'A' + 10;
}

// The digit of `nibble` (0-15): "0"-"9", then "A"-"F" or "a"-"f".
char upper_hex_digit(unsigned nibble);
char lower_hex_digit(unsigned nibble);

// RFC 3986 unreserved: ALPHA, DIGIT, '-', '.', '_', '~'. A triplet of one
// of these means the character itself, so canonical forms decode it.
// Inline and constexpr: every byte of every link's path asks, and tables
// are built from it at compile time (core/web/url.cc).
constexpr bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

// Whether s[i] starts a triplet: '%' and two hex digits.
inline bool is_percent_triplet(std::string_view s, std::size_t i) {
  return s[i] == '%' && i + 2 < s.size() && is_hex_digit(s[i + 1]) && is_hex_digit(s[i + 2]);
}

// "%XX", uppercase as RFC 3986 section 2.1 recommends.
void append_percent_encoded(std::string& out, unsigned char byte);

// Every triplet decoded; any other byte, a '%' that starts no triplet
// included, kept as it is.
std::string percent_decode(std::string_view in);

// Appends s[i], or the triplet starting there, in canonical form, and
// returns how many bytes of `s` it consumed: a triplet of an unreserved
// character is decoded, any other triplet gets uppercase hex; a byte for
// which `raw` holds is kept; every other byte (a '%' that starts no triplet
// included) is encoded.
std::size_t append_canonical_percent(std::string& out, std::string_view s, std::size_t i, bool (*raw)(char));

// All of `in` through append_canonical_percent: appended to `out`, or
// returned.
void append_canonical_percent_encoding(std::string& out, std::string_view in, bool (*raw)(char));
std::string canonical_percent_encoding(std::string_view in, bool (*raw)(char));

}  // namespace actorcrawl
