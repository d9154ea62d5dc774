// The host of an http(s) URL as the WHATWG URL Standard parses it: a
// domain mapped to ASCII by UTS #46 (so "münchen.de", full-width letters and
// the ideographic full stop all name the host a browser would ask for), an
// IPv4 address in any notation the standard's number parser reads
// ("0x7f.1", "2130706433", "127.1" are 127.0.0.1), or an IPv6 address.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace actorcrawl {

// Parses the host part of a special URL's authority, as written (still
// percent-encoded). Returns its serialization: the ASCII domain (lowercase,
// punycode labels "xn--..."), a dotted-decimal IPv4 address, or "[v6]" in
// the standard's compressed form. Nothing for what a browser refuses: a
// forbidden code point, a label UTS #46 disallows, an IPv4-looking host whose
// numbers do not fit ("1.2.3.256", "0x100000000"), a malformed IPv6 address.
std::optional<std::string> parse_url_host(std::string_view input);

// The Unicode form of an ASCII domain for people to read ("xn--mnchen-3ya.de"
// is "münchen.de"); the input itself when it has no punycode label or does
// not convert.
std::string host_for_display(std::string_view ascii_host);

}  // namespace actorcrawl
