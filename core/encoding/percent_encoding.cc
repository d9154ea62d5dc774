#include "core/encoding/percent_encoding.h"

namespace actorcrawl {

namespace {

// The only hex digit table: lowercase is the same digit with the ASCII
// case bit set (a digit has it set already).
constexpr char kHexDigits[] = "0123456789ABCDEF";

}  // namespace

char upper_hex_digit(unsigned nibble) { return kHexDigits[nibble & 0xF]; }

char lower_hex_digit(unsigned nibble) { return static_cast<char>(kHexDigits[nibble & 0xF] | 0x20); }

void append_percent_encoded(std::string& out, unsigned char byte) {
  out += '%';
  out += upper_hex_digit(byte >> 4);
  out += upper_hex_digit(byte & 0xF);
}

std::string percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (is_percent_triplet(in, i)) {
      out.push_back(static_cast<char>(hex_digit_value(in[i + 1]) * 16 + hex_digit_value(in[i + 2])));
      i += 2;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

std::size_t append_canonical_percent(std::string& out, std::string_view s, std::size_t i, bool (*raw)(char)) {
  const char c = s[i];
  if (is_percent_triplet(s, i)) {
    const int high = hex_digit_value(s[i + 1]);
    const int low = hex_digit_value(s[i + 2]);
    const char decoded = static_cast<char>(high * 16 + low);
    if (is_unreserved(decoded)) {
      out += decoded;
    } else {
      out += '%';
      out += upper_hex_digit(static_cast<unsigned>(high));
      out += upper_hex_digit(static_cast<unsigned>(low));
    }
    return 3;
  }
  if (raw(c))
    out += c;
  else
    append_percent_encoded(out, static_cast<unsigned char>(c));
  return 1;
}

void append_canonical_percent_encoding(std::string& out, std::string_view in, bool (*raw)(char)) {
  for (std::size_t i = 0; i < in.size();) {
    // A run of bytes that stay as they are goes in at once; most of a URL
    // is one.
    std::size_t run = i;
    while (run < in.size() && in[run] != '%' && raw(in[run]))
      ++run;
    out.append(in.data() + i, run - i);
    i = run;
    if (i < in.size())
      i += append_canonical_percent(out, in, i, raw);
  }
}

std::string canonical_percent_encoding(std::string_view in, bool (*raw)(char)) {
  std::string out;
  out.reserve(in.size());
  append_canonical_percent_encoding(out, in, raw);
  return out;
}

}  // namespace actorcrawl
