#include "core/web/registrable_domain.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("registrable_domain: ICANN suffixes", "[registrable_domain]") {
  CHECK(registrable_domain("www.example.com") == "example.com");
  CHECK(registrable_domain("example.com") == "example.com");
  CHECK(registrable_domain("a.b.c.example.com") == "example.com");
  CHECK(registrable_domain("a.b.co.uk") == "b.co.uk");
  CHECK(registrable_domain("example.co.uk") == "example.co.uk");
  CHECK(registrable_domain("WWW.Example.COM") == "example.com");
}

TEST_CASE("registrable_domain: a public suffix is its own domain", "[registrable_domain]") {
  CHECK(registrable_domain("co.uk") == "co.uk");
  CHECK(registrable_domain("com") == "com");
  CHECK(registrable_domain("github.io") == "github.io");
}

// github.io is in the private section of the list, which libpsl's built-in
// copy includes: every user site is a separate registrable domain.
TEST_CASE("registrable_domain: private suffixes", "[registrable_domain]") {
  CHECK(registrable_domain("foo.github.io") == "foo.github.io");
  CHECK(registrable_domain("www.foo.github.io") == "foo.github.io");
  CHECK(registrable_domain("bar.github.io") != registrable_domain("foo.github.io"));
}

TEST_CASE("registrable_domain: addresses and single labels", "[registrable_domain]") {
  CHECK(registrable_domain("127.0.0.2") == "127.0.0.2");
  CHECK(registrable_domain("192.168.1.10") == "192.168.1.10");
  CHECK(registrable_domain("::1") == "::1");
  CHECK(registrable_domain("[::1]") == "[::1]");
  CHECK(registrable_domain("2001:db8::1") == "2001:db8::1");
  CHECK(registrable_domain("localhost") == "localhost");
  CHECK(registrable_domain("") == "");
}

}  // namespace actorcrawl
