#include "core/web/ip_literal.h"

#include <catch2/catch.hpp>
#include <string>

using namespace actorcrawl;

TEST_CASE("ip literal: dotted-quad IPv4 and bracketless IPv6, one spelling each", "[ip_literal]") {
  const auto four = parse_ip_literal("192.168.1.20");
  REQUIRE(four);
  CHECK_FALSE(four->v6);
  CHECK(four->bytes[0] == 192);
  CHECK(four->bytes[3] == 20);
  CHECK(four->canonical() == "192.168.1.20");
  CHECK_FALSE(four->loopback());
  CHECK(parse_ip_literal("127.9.9.9")->loopback());

  const auto six = parse_ip_literal("0:0:0:0:0:0:0:1");
  REQUIRE(six);
  CHECK(six->v6);
  CHECK(six->loopback());
  CHECK(six->canonical() == "::1");
  CHECK(parse_ip_literal("::ffff:10.0.0.1")->canonical() == "::ffff:10.0.0.1");
  CHECK_FALSE(parse_ip_literal("::")->loopback());
}

TEST_CASE("ip literal: names, legacy forms, brackets and hidden suffixes are no address", "[ip_literal]") {
  for (const char* text : {"", "localhost", "example.com", "[::1]", "0x7f.1", "2130706433", "1.2.3",
                                 "1.2.3.4.5", "256.1.1.1", "1.2.3.4 ", "::1%eth0"})
    CHECK_FALSE(parse_ip_literal(text));
  CHECK_FALSE(parse_ip_literal(std::string("127.0.0.1\0.evil", 15)));
  CHECK_FALSE(parse_ip_literal(std::string(100, '1')));
}
