#include "core/fetch/net_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

#include "core/web/ip_literal.h"

namespace actorcrawl {

namespace {

struct Range4 {
  std::uint32_t network;
  int prefix;
};

constexpr std::uint32_t v4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

constexpr Range4 kPrivate4[] = {
    {v4(0, 0, 0, 0), 8},          // "this network"; 0.0.0.0 reaches the local host
    {v4(10, 0, 0, 0), 8},         // RFC 1918 private
    {v4(100, 64, 0, 0), 10},      // RFC 6598 shared space behind carrier-grade NAT
    {v4(127, 0, 0, 0), 8},        // loopback
    {v4(169, 254, 0, 0), 16},     // link-local, home of cloud metadata (169.254.169.254)
    {v4(172, 16, 0, 0), 12},      // RFC 1918 private
    {v4(192, 0, 0, 0), 24},       // IETF protocol assignments (DS-Lite, NAT64 discovery)
    {v4(192, 168, 0, 0), 16},     // RFC 1918 private
    {v4(198, 18, 0, 0), 15},      // benchmarking networks, used inside labs
    {v4(224, 0, 0, 0), 4},        // multicast, never a web server
    {v4(240, 0, 0, 0), 4},        // reserved for future use, not routed
    {v4(255, 255, 255, 255), 32}, // limited broadcast (also inside 240/4)
};

bool private4(std::uint32_t addr) {
  for (const Range4& r : kPrivate4) {
    const std::uint32_t mask = ~std::uint32_t{0} << (32 - r.prefix);  // prefix is 1..32
    if ((addr & mask) == r.network)
      return true;
  }
  return false;
}

std::uint32_t load4(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

bool zeros(const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != 0)
      return false;
  return true;
}

bool private6(const unsigned char* a) {  // 16 bytes
  // ::/96, IPv4-compatible (deprecated), which also holds :: (unspecified)
  // and ::1 (loopback): both land in 0.0.0.0/8 and so count as private.
  if (zeros(a, 12))
    return private4(load4(a + 12));
  // ::ffff:0:0/96, IPv4-mapped: a dual-stack socket connects to the IPv4 address.
  if (zeros(a, 10) && a[10] == 0xff && a[11] == 0xff)
    return private4(load4(a + 12));
  // 64:ff9b::/96, NAT64 well-known prefix: the translator connects to the IPv4 address.
  static constexpr unsigned char kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
  if (std::memcmp(a, kNat64, sizeof kNat64) == 0)
    return private4(load4(a + 12));
  // 2002::/16, 6to4: the relay delivers to the IPv4 address in bits 16..47.
  if (a[0] == 0x20 && a[1] == 0x02)
    return private4(load4(a + 2));
  // 2001:0::/32, Teredo: the packet goes to the server's IPv4 address (bits
  // 32..63) and the client's, stored inverted in the last 32 bits. Either
  // one inside the network makes the address a way in.
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
    const unsigned char client[4] = {static_cast<unsigned char>(~a[12]), static_cast<unsigned char>(~a[13]),
                                     static_cast<unsigned char>(~a[14]), static_cast<unsigned char>(~a[15])};
    return private4(load4(a + 4)) || private4(load4(client));
  }
  // fc00::/7, unique local addresses: IPv6's RFC 1918 (and AWS metadata, fd00:ec2::254).
  if ((a[0] & 0xfe) == 0xfc)
    return true;
  // fe80::/10, link-local: the attached segment only.
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
    return true;
  // fec0::/10, site-local: deprecated, but still the inside of a site where used.
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
    return true;
  // ff00::/8, multicast, never a web server.
  if (a[0] == 0xff)
    return true;
  return false;
}

}  // namespace

bool is_private_address(std::string_view ip) {
  const auto address = parse_ip_literal(ip);
  if (!address)
    return true;  // not a numeric address: fail closed
  return address->v6 ? private6(address->bytes.data()) : private4(load4(address->bytes.data()));
}

}  // namespace actorcrawl
