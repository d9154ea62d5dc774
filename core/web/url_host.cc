#include "core/web/url_host.h"

#include <unicode/uidna.h>

#include <array>
#include <cstdint>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"

// Domain to ASCII is UTS #46 as the URL Standard sets it: non-transitional,
// CheckHyphens off, CheckBidi and CheckJoiners on, UseSTD3ASCIIRules and
// VerifyDnsLength off. ICU implements UTS #46 (it is what Chromium uses for
// the same step); libidn2 was the other candidate on Debian, but it applies
// the hyphen and STD3 rules the standard turns off, so "a_b.example" and
// "-x.example", which browsers fetch, would be refused.

namespace actorcrawl {
namespace {

using ascii::is_digit;
using ascii::to_lower;

// Forbidden domain code points: the forbidden host code points, C0 controls,
// '%' and DEL (ASCII only; UTS #46 has judged the rest).
bool is_forbidden_domain_byte(unsigned char c) {
  if (c <= 0x20 || c == 0x7F) return true;
  switch (c) {
    case '#': case '%': case '/': case ':': case '<': case '>': case '?': case '@':
    case '[': case '\\': case ']': case '^': case '|':
      return true;
    default:
      return false;
  }
}

const UIDNA* uts46() {
  static const UIDNA* idna = [] {
    UErrorCode status = U_ZERO_ERROR;
    const UIDNA* made = uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII |
                                          UIDNA_NONTRANSITIONAL_TO_UNICODE,
                                        &status);
    return U_FAILURE(status) ? nullptr : made;
  }();
  return idna;
}

// Errors the standard's settings do not count: hyphens (CheckHyphens off)
// and lengths (VerifyDnsLength off).
constexpr std::uint32_t kIgnoredIdnaErrors = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG |
                                             UIDNA_ERROR_DOMAIN_NAME_TOO_LONG | UIDNA_ERROR_LEADING_HYPHEN |
                                             UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;

std::optional<std::string> idna_to_ascii(const std::string& domain) {
  const UIDNA* idna = uts46();
  if (idna == nullptr || domain.size() > 4096) return std::nullopt;
  std::string out(domain.size() * 4 + 64, '\0');
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  UErrorCode status = U_ZERO_ERROR;
  const int32_t n = uidna_nameToASCII_UTF8(idna, domain.data(), static_cast<int32_t>(domain.size()), out.data(),
                                           static_cast<int32_t>(out.size()), &info, &status);
  if (U_FAILURE(status) || (info.errors & ~kIgnoredIdnaErrors) != 0 || n <= 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// "domain to ASCII" with beStrict false. An ASCII domain is only
// lowercased, "xn--" labels included: the standard's current test data
// passes them as written even where they do not decode ("xn--a",
// "xn--zn7c.com"), and a crawler asks DNS for exactly that name anyway.
// Anything else goes through UTS #46.
std::optional<std::string> domain_to_ascii(std::string domain) {
  bool ascii_only = true;
  for (const char c : domain) ascii_only = ascii_only && static_cast<unsigned char>(c) < 0x80;
  if (ascii_only) {
    if (domain.empty()) return std::nullopt;
    for (char& c : domain) c = to_lower(c);
    return domain;
  }
  auto ascii = idna_to_ascii(domain);
  if (!ascii || ascii->empty()) return std::nullopt;
  return ascii;
}

// --- IPv4 -------------------------------------------------------------------

// The IPv4 number parser: decimal, octal ("0" prefix) or hex ("0x").
// Nothing when `part` is not a number in its radix; values past 2^32 are
// kept as "too large" (UINT64_MAX) rather than wrapped.
std::optional<std::uint64_t> ipv4_number(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int radix = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    radix = 16;
    part.remove_prefix(2);
  } else if (part.size() >= 2 && part[0] == '0') {
    radix = 8;
    part.remove_prefix(1);
  }
  std::uint64_t value = 0;
  for (const char c : part) {
    int digit;
    if (radix == 16 && is_hex_digit(c)) {
      digit = hex_digit_value(c);
    } else if (radix == 10 && is_digit(c)) {
      digit = c - '0';
    } else if (radix == 8 && c >= '0' && c <= '7') {
      digit = c - '0';
    } else {
      return std::nullopt;
    }
    if (value <= (std::uint64_t{1} << 40)) value = value * static_cast<std::uint64_t>(radix) + static_cast<std::uint64_t>(digit);
  }
  return value;
}

// A host without the one trailing dot the standard ignores ("a.b." is
// "a.b"); a host that is only "." or "" is left as it is.
std::string_view without_trailing_dot(std::string_view host) {
  if (host.size() > 1 && host.back() == '.') host.remove_suffix(1);
  return host;
}

// "ends in a number": the last label (a trailing empty one aside) is
// digits, or a number by the IPv4 number parser ("0x1f"). Every host of
// every absolute link comes here: it reads the last label in place.
bool ends_in_a_number(std::string_view host) {
  if (host.empty()) return false;
  host = without_trailing_dot(host);
  const std::size_t dot = host.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (!last.empty()) {
    bool digits = true;
    for (const char c : last) digits = digits && is_digit(c);
    if (digits) return true;
  }
  return ipv4_number(last).has_value();
}

std::optional<std::string> parse_ipv4(std::string_view host) {
  host = without_trailing_dot(host);
  std::array<std::uint64_t, 4> numbers{};
  std::size_t count = 0;
  for (std::size_t begin = 0;;) {
    const std::size_t dot = host.find('.', begin);
    const std::string_view part =
      host.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin);
    if (count == numbers.size()) return std::nullopt;  // a fifth part
    const auto n = ipv4_number(part);
    if (!n) return std::nullopt;
    numbers[count++] = *n;
    if (dot == std::string_view::npos) break;
    begin = dot + 1;
  }
  for (std::size_t i = 0; i + 1 < count; ++i)
    if (numbers[i] > 255) return std::nullopt;
  const std::uint64_t limit = std::uint64_t{1} << (8 * (5 - count));
  if (numbers[count - 1] >= limit) return std::nullopt;
  std::uint64_t address = numbers[count - 1];
  for (std::size_t i = 0; i + 1 < count; ++i) address += numbers[i] << (8 * (3 - i));
  // Four decimal bytes by hand: snprintf cost more than the rest of a
  // host's parse, and every link to an address host pays it.
  std::string text;
  text.reserve(15);  // "255.255.255.255"
  for (int shift = 24; shift >= 0; shift -= 8) {
    const auto byte = static_cast<unsigned>((address >> shift) & 0xFF);
    if (byte >= 100) text += static_cast<char>('0' + byte / 100);
    if (byte >= 10) text += static_cast<char>('0' + byte / 10 % 10);
    text += static_cast<char>('0' + byte % 10);
    if (shift > 0) text += '.';
  }
  return text;
}

// --- IPv6 -------------------------------------------------------------------

std::optional<std::array<std::uint16_t, 8>> parse_ipv6(std::string_view in) {
  std::array<std::uint16_t, 8> address{};
  int piece = 0;
  int compress = -1;
  std::size_t p = 0;
  const std::size_t n = in.size();
  auto at = [&](std::size_t i) { return i < n ? in[i] : '\0'; };
  if (at(p) == ':') {
    if (at(p + 1) != ':') return std::nullopt;
    p += 2;
    compress = ++piece;
  }
  while (p < n) {
    if (piece == 8) return std::nullopt;
    if (at(p) == ':') {
      if (compress != -1) return std::nullopt;
      ++p;
      compress = ++piece;
      continue;
    }
    std::uint32_t value = 0;
    int length = 0;
    while (length < 4 && p < n && is_hex_digit(in[p])) {
      value = value * 16 + static_cast<std::uint32_t>(hex_digit_value(in[p]));
      ++p;
      ++length;
    }
    if (at(p) == '.') {
      if (length == 0) return std::nullopt;
      p -= static_cast<std::size_t>(length);
      if (piece > 6) return std::nullopt;
      int numbers_seen = 0;
      while (p < n) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (in[p] == '.' && numbers_seen < 4) {
            ++p;
          } else {
            return std::nullopt;
          }
        }
        if (!is_digit(at(p))) return std::nullopt;
        while (is_digit(at(p))) {
          const int number = in[p] - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return std::nullopt;
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return std::nullopt;
          ++p;
        }
        address[static_cast<std::size_t>(piece)] =
          static_cast<std::uint16_t>(address[static_cast<std::size_t>(piece)] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece;
      }
      if (numbers_seen != 4) return std::nullopt;
      break;
    }
    if (at(p) == ':') {
      ++p;
      if (p >= n) return std::nullopt;
    } else if (p < n) {
      return std::nullopt;
    }
    address[static_cast<std::size_t>(piece)] = static_cast<std::uint16_t>(value);
    ++piece;
  }
  if (compress != -1) {
    int swaps = piece - compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      std::swap(address[static_cast<std::size_t>(piece)], address[static_cast<std::size_t>(compress + swaps - 1)]);
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return std::nullopt;
  }
  return address;
}

std::string serialize_ipv6(const std::array<std::uint16_t, 8>& a) {
  // The first longest run of two or more zero pieces is written "::".
  int best = -1, best_len = 1;
  for (int i = 0; i < 8;) {
    if (a[static_cast<std::size_t>(i)] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && a[static_cast<std::size_t>(j)] == 0) ++j;
    if (j - i > best_len) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  bool ignore0 = false;
  for (int i = 0; i < 8; ++i) {
    if (ignore0 && a[static_cast<std::size_t>(i)] == 0) continue;
    ignore0 = false;
    if (i == best) {
      out += i == 0 ? "::" : ":";
      ignore0 = true;
      continue;
    }
    const std::uint16_t v = a[static_cast<std::size_t>(i)];
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int d = (v >> shift) & 0xF;
      if (d != 0 || started || shift == 0) {
        out += lower_hex_digit(static_cast<unsigned>(d));
        started = true;
      }
    }
    if (i != 7) out += ':';
  }
  return out;
}

}  // namespace

std::optional<std::string> parse_url_host(std::string_view input) {
  if (input.empty()) return std::nullopt;
  if (input.front() == '[') {
    if (input.back() != ']' || input.size() < 2) return std::nullopt;
    const auto address = parse_ipv6(input.substr(1, input.size() - 2));
    if (!address) return std::nullopt;
    return "[" + serialize_ipv6(*address) + "]";
  }
  // Most hosts have nothing to decode, and are lowercased in the one copy.
  const auto ascii =
    domain_to_ascii(input.find('%') == std::string_view::npos ? std::string(input) : percent_decode(input));
  if (!ascii) return std::nullopt;
  for (const char c : *ascii)
    if (is_forbidden_domain_byte(static_cast<unsigned char>(c))) return std::nullopt;
  if (ends_in_a_number(*ascii)) return parse_ipv4(*ascii);
  return ascii;
}

std::string host_for_display(std::string_view ascii_host) {
  bool punycode = false;
  for (std::size_t i = 0; i + 4 <= ascii_host.size(); ++i)
    if ((i == 0 || ascii_host[i - 1] == '.') && ascii_host.substr(i, 4) == "xn--") punycode = true;
  const UIDNA* idna = uts46();
  if (!punycode || idna == nullptr || ascii_host.size() > 4096) return std::string(ascii_host);
  std::string out(ascii_host.size() * 4 + 64, '\0');
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  UErrorCode status = U_ZERO_ERROR;
  const int32_t n = uidna_nameToUnicodeUTF8(idna, ascii_host.data(), static_cast<int32_t>(ascii_host.size()),
                                            out.data(), static_cast<int32_t>(out.size()), &info, &status);
  if (U_FAILURE(status) || (info.errors & ~kIgnoredIdnaErrors) != 0 || n <= 0) return std::string(ascii_host);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace actorcrawl
