#include "core/web/url_fingerprint.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace actorcrawl {

TEST_CASE("url_fingerprint: deterministic", "[url_fingerprint]") {
  const std::string url = "https://example.com/path?q=1";
  CHECK(url_fingerprint(url) == url_fingerprint(url));
  CHECK(url_fingerprint(url) == url_fingerprint(std::string(url)));
}

// Fingerprints are stored and recomputed on resume, so the function must
// never change. These literals pin today's output.
TEST_CASE("url_fingerprint: pinned values", "[url_fingerprint]") {
  CHECK(url_fingerprint("") == 0x5d90ed8dc82a2988ULL);
  CHECK(url_fingerprint("http://example.com/") == 0xff96d5104f7873c6ULL);
  CHECK(url_fingerprint("https://example.com/") == 0x70c8c52c5884d9d9ULL);
  CHECK(url_fingerprint("https://example.com/a?b=1") == 0x09fb75d64f345a4eULL);
  CHECK(url_fingerprint("https://example.com/a?b=2") == 0x49c30a4468915176ULL);
}

TEST_CASE("url_fingerprint: near-identical URLs differ", "[url_fingerprint]") {
  CHECK(url_fingerprint("https://example.com/a") != url_fingerprint("https://example.com/b"));
  CHECK(url_fingerprint("https://example.com/a") != url_fingerprint("https://example.com/a/"));
  CHECK(url_fingerprint("http://example.com/") != url_fingerprint("https://example.com/"));
  CHECK(url_fingerprint("https://example.com/?p=10") != url_fingerprint("https://example.com/?p=01"));
  // Only the string is hashed: a string_view into a longer buffer must not
  // see the bytes after it.
  const std::string longer = "https://example.com/ab";
  CHECK(url_fingerprint(std::string_view(longer).substr(0, longer.size() - 1)) ==
        url_fingerprint("https://example.com/a"));
}

// URLs sharing a long prefix and differing in a counter are what a crawl of
// a paginated site produces; 64 bits should keep them all apart.
TEST_CASE("url_fingerprint: no collisions among 200000 similar URLs", "[url_fingerprint]") {
  std::vector<std::uint64_t> fingerprints;
  fingerprints.reserve(200000);
  for (int i = 0; i < 100000; ++i) {
    fingerprints.push_back(url_fingerprint("https://example.com/page?id=" + std::to_string(i)));
    fingerprints.push_back(url_fingerprint("https://www.example.org/" + std::to_string(i) + "/"));
  }
  std::sort(fingerprints.begin(), fingerprints.end());
  CHECK(std::adjacent_find(fingerprints.begin(), fingerprints.end()) == fingerprints.end());
}

}  // namespace actorcrawl
