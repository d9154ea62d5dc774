// Which peer addresses a crawl submitted by an untrusted user must not
// reach: loopback, private, link-local and other non-public ranges (the
// server-side request forgery defence). The fetch engine asks this about the
// address a host name actually resolved to, for every connection it opens,
// so neither a DNS answer nor a redirect can lead a transfer inside.
#pragma once

#include <string_view>

namespace actorcrawl {

// `ip` is a numeric IPv4 or IPv6 address as text, as libcurl reports it in
// CURLINFO_PRIMARY_IP ("192.0.2.7", "2001:db8::1", "::ffff:10.0.0.1").
// True when it lies in a range a crawl of the public web has no business
// connecting to. IPv4 addresses carried in IPv6 (mapped, compatible, NAT64,
// 6to4, Teredo) are judged by the IPv4 address. Text that is not a numeric address
// (host names, shorthand such as "127.1", brackets, zone ids, stray spaces)
// counts as private: the check fails closed.
bool is_private_address(std::string_view ip);

}  // namespace actorcrawl
