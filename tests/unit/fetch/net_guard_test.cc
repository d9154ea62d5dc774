#include "core/fetch/net_guard.h"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorcrawl {
namespace {

// Each range as its first and last address (private), and the addresses
// just below and just above it (public, unless another range starts there).
struct Boundary {
  const char* below;
  const char* first;
  const char* last;
  const char* above;
};

void check_boundary(const Boundary& b) {
  INFO("range " << b.first << " - " << b.last);
  if (b.below != nullptr)
    CHECK_FALSE(is_private_address(b.below));
  CHECK(is_private_address(b.first));
  CHECK(is_private_address(b.last));
  if (b.above != nullptr)
    CHECK_FALSE(is_private_address(b.above));
}

}  // namespace

TEST_CASE("net_guard: ordinary public addresses are allowed", "[net_guard]") {
  for (const char* ip : {"1.1.1.1", "8.8.8.8", "93.184.216.34", "223.255.255.254", "1.0.0.0",
                         "2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450:4001:82b::200e",
                         "2001:db8::1"}) {
    INFO(ip);
    CHECK_FALSE(is_private_address(ip));
  }
}

TEST_CASE("net_guard: every IPv4 range, first and last address, and just outside", "[net_guard]") {
  const Boundary ranges[] = {
      {nullptr, "0.0.0.0", "0.255.255.255", "1.0.0.0"},               // 0.0.0.0/8
      {"9.255.255.255", "10.0.0.0", "10.255.255.255", "11.0.0.0"},    // 10/8
      {"100.63.255.255", "100.64.0.0", "100.127.255.255", "100.128.0.0"},  // 100.64/10
      {"126.255.255.255", "127.0.0.0", "127.255.255.255", "128.0.0.0"},    // 127/8
      {"169.253.255.255", "169.254.0.0", "169.254.255.255", "169.255.0.0"},  // 169.254/16
      {"172.15.255.255", "172.16.0.0", "172.31.255.255", "172.32.0.0"},      // 172.16/12
      {"191.255.255.255", "192.0.0.0", "192.0.0.255", "192.0.1.0"},          // 192.0.0/24
      {"192.167.255.255", "192.168.0.0", "192.168.255.255", "192.169.0.0"},  // 192.168/16
      {"198.17.255.255", "198.18.0.0", "198.19.255.255", "198.20.0.0"},      // 198.18/15
      {"223.255.255.255", "224.0.0.0", "239.255.255.255", nullptr},          // 224/4
      {nullptr, "240.0.0.0", "255.255.255.254", nullptr},                    // 240/4
      {nullptr, "255.255.255.255", "255.255.255.255", nullptr},              // broadcast
  };
  for (const Boundary& b : ranges)
    check_boundary(b);
  // The well-known targets inside them.
  for (const char* ip : {"127.0.0.1", "10.1.2.3", "192.168.1.1", "172.20.0.5", "169.254.169.254",
                         "100.100.100.200", "0.0.0.0", "239.255.255.250"}) {
    INFO(ip);
    CHECK(is_private_address(ip));
  }
}

TEST_CASE("net_guard: every IPv6 range, first and last address, and just outside", "[net_guard]") {
  CHECK(is_private_address("::"));
  CHECK(is_private_address("::1"));
  CHECK(is_private_address("0:0:0:0:0:0:0:1"));
  const Boundary ranges[] = {
      // fc00::/7, unique local
      {"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       "fe00::"},
      // fe80::/10 link-local and fec0::/10 site-local, back to back
      {"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       nullptr},
      // ff00::/8, multicast (site-local ends just below it)
      {nullptr, "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", nullptr},
  };
  for (const Boundary& b : ranges)
    check_boundary(b);
  for (const char* ip : {"fd00:ec2::254", "fe80::1", "fec0::1", "ff02::1", "fd12:3456:789a::1"}) {
    INFO(ip);
    CHECK(is_private_address(ip));
  }
}

TEST_CASE("net_guard: IPv4 inside IPv6 is judged by the IPv4 address", "[net_guard]") {
  const std::pair<const char*, bool> cases[] = {
      // IPv4-mapped, ::ffff:0:0/96, dotted and hex spellings.
      {"::ffff:127.0.0.1", true},
      {"::ffff:7f00:1", true},
      {"::ffff:10.0.0.1", true},
      {"::ffff:169.254.169.254", true},
      {"::ffff:0.0.0.0", true},
      {"::ffff:255.255.255.255", true},
      {"::ffff:8.8.8.8", false},
      {"::ffff:808:808", false},
      {"0:0:0:0:0:ffff:93.184.216.34", false},
      // Just outside the mapped block: plain (unlisted) IPv6, public.
      {"::fffe:7f00:1", false},
      {"::1:ffff:7f00:1", false},
      // IPv4-compatible, ::/96; :: and ::1 are its 0.0.0.0/8 end.
      {"::127.0.0.1", true},
      {"::192.168.0.1", true},
      {"::0.0.0.2", true},
      {"::8.8.8.8", false},
      {"::1.0.0.0", false},
      {"::255.255.255.255", true},
      // Just outside the compatible block.
      {"::1:0:0", false},
      {"::1:7f00:1", false},
      // NAT64, 64:ff9b::/96.
      {"64:ff9b::127.0.0.1", true},
      {"64:ff9b::a00:1", true},
      {"64:ff9b::192.168.10.10", true},
      {"64:ff9b::", true},  // 0.0.0.0
      {"64:ff9b::8.8.8.8", false},
      {"64:ff9b::ffff:ffff", true},  // 255.255.255.255
      // Just outside the NAT64 block: the IPv4 part is not an address there.
      {"64:ff9b::1:7f00:1", false},
      {"64:ff9a:ffff:ffff:ffff:ffff:7f00:1", false},
      {"64:ff9c::7f00:1", false},
      // 6to4, 2002::/16: the IPv4 address follows the prefix.
      {"2002:7f00:1::", true},
      {"2002:a9fe:a9fe::1", true},  // 169.254.169.254
      {"2002:c0a8:101:1::1", true},  // 192.168.1.1
      {"2002:808:808::1", false},
      {"2003:7f00:1::", false},
      // Teredo, 2001:0::/32: server address in bits 32..63, client address
      // inverted in the last 32 bits.
      {"2001:0:7f00:1:0:0:f7f7:f7f7", true},  // server 127.0.0.1
      {"2001:0:808:808:0:0:80ff:fffe", true},  // client ~ = 127.0.0.1
      {"2001:0:808:808:0:0:f7f7:f7f7", false},  // both 8.8.8.8
      {"2001:1:7f00:1::", false},  // not Teredo
  };
  for (const auto& [ip, expected] : cases) {
    INFO(ip);
    CHECK(is_private_address(ip) == expected);
  }
}

TEST_CASE("net_guard: anything that is not a numeric address fails closed", "[net_guard]") {
  for (const char* text :
       {"", " ", "localhost", "example.com", "127.1", "10.1", "1.2.3", "1.2.3.4.5", "256.0.0.1",
        "8.8.8.256", "08.8.8.8", "0x7f.0.0.1", "0x08080808", "2130706433", "134744072", " 8.8.8.8",
        "8.8.8.8 ", "8.8.8.8/32", "8.8.8.8:80", "[2001:db8::1]", "2001:db8::1%eth0", "2001:db8::1/64",
        ":::", "2001:db8:::1", "1:2:3:4:5:6:7:8:9", "gggg::1", "::ffff:8.8.8", "http://8.8.8.8/"}) {
    INFO("'" << text << "'");
    CHECK(is_private_address(text));
  }
  // A NUL must not hide a suffix, nor may text longer than any address.
  CHECK(is_private_address(std::string_view{"8.8.8.8\0junk", 12}));
  CHECK(is_private_address(std::string_view{"8.8.8.8\0", 8}));
  CHECK(is_private_address(std::string(200, '1')));
  // The longest valid spelling (45 characters) is still understood, and
  // so is a fully written-out mapped address.
  CHECK_FALSE(is_private_address("2001:4860:4860:0000:0000:0000:255.255.255.255"));
  CHECK(is_private_address("0000:0000:0000:0000:0000:ffff:127.0.0.1"));
  CHECK_FALSE(is_private_address("0000:0000:0000:0000:0000:ffff:8.8.8.8"));
  // The view need not end at a NUL: only its own characters count.
  const std::string padded = "8.8.8.8 and more";
  CHECK_FALSE(is_private_address(std::string_view{padded}.substr(0, 7)));
}

}  // namespace actorcrawl
