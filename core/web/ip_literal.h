// A numeric IP address written as text, read the one way every part of the
// crawler reads one (the network guard, the configuration's resolve
// entries and node addresses, the service's Host check, registrable
// domains): dotted-quad IPv4, four decimal parts, or IPv6 without
// brackets, as inet_pton(3) takes them. URL hosts are not read here: the
// WHATWG URL parser (url_host.h) also takes IPv4's legacy forms (0x7f.1,
// 2130706433) and writes the canonical one, which this reads.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace actorcrawl {

struct IpLiteral {
  bool v6 = false;
  std::array<unsigned char, 16> bytes{};  // network order; the first 4 for IPv4

  // 127.0.0.0/8 or ::1.
  bool loopback() const;
  // The address's one spelling ("::1" for "0:0:0:0:0:0:0:1").
  std::string canonical() const;
};

// The address `text` is, or none: anything else, text longer than an
// address, or with a NUL in it (inet_pton would stop there and read what
// came before as the whole).
std::optional<IpLiteral> parse_ip_literal(std::string_view text);

}  // namespace actorcrawl
