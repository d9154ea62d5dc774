#include "core/web/ip_literal.h"

#include <arpa/inet.h>

#include <cstring>

namespace actorcrawl {

bool IpLiteral::loopback() const {
  if (!v6)
    return bytes[0] == 127;
  static const std::array<unsigned char, 16> kLoopback6 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return bytes == kLoopback6;
}

std::string IpLiteral::canonical() const {
  char out[INET6_ADDRSTRLEN];
  if (::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), out, sizeof out) == nullptr)
    return {};
  return out;
}

std::optional<IpLiteral> parse_ip_literal(std::string_view text) {
  char z[INET6_ADDRSTRLEN];
  if (text.empty() || text.size() >= sizeof z || text.find('\0') != std::string_view::npos)
    return std::nullopt;
  std::memcpy(z, text.data(), text.size());
  z[text.size()] = '\0';
  IpLiteral ip;
  if (::inet_pton(AF_INET, z, ip.bytes.data()) == 1)
    return ip;
  ip.v6 = true;
  if (::inet_pton(AF_INET6, z, ip.bytes.data()) == 1)
    return ip;
  return std::nullopt;
}

}  // namespace actorcrawl
