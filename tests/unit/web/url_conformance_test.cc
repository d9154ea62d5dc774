// The URL Standard's conformance data (web-platform-tests, vendored under
// tests/data/wpt-url with its license) against parse_url: every case whose
// base or input is an http(s) URL. A case passes when the parser fails where
// the data says failure, and otherwise gives the same host, port, path and
// query. The crawler's normalization on top (url.h) is tested in
// url_test.cc; here the parser alone must be the standard's.
//
// Cases left out on purpose, by name, each counted so that a case moving
// into or out of its class shows:
//  - a link whose result is not http(s) ("mailto:", "file:",
//    "javascript:", a scheme of letters, ...) is a URL to a browser and
//    unsupported_scheme to the crawler, which fetches http and https only;
//  - hosts whose mapping changed in Unicode's IDNA tables after 15.0, the
//    version of Debian 12's ICU (72): the data expects Unicode 16's
//    (U+1E9E now maps to "ß", not "ss"; U+04C0, U+2183, U+2F868 are mapped
//    instead of disallowed; U+180E and U+206B are ignored instead of
//    disallowed). kNewerIdnaTables lists them.
#include "core/web/url.h"
#include "core/web/url_host.h"
#include "core/web/url_parser.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <vector>
#include <string>

namespace actorcrawl {
namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(ACTORCRAWL_TEST_DATA) + "/wpt-url/" + name);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

bool is_http(const std::string& url) {
  std::string lower;
  for (const char c : url) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // What the parser would read as the scheme, after the leading spaces and
  // controls it strips.
  std::size_t i = 0;
  while (i < lower.size() && static_cast<unsigned char>(lower[i]) <= 0x20) ++i;
  return lower.compare(i, 5, "http:") == 0 || lower.compare(i, 6, "https:") == 0;
}

std::string search_of(const ParsedUrl& u) {
  if (!u.query || u.query->empty()) return "";
  return "?" + *u.query;
}

std::string port_of(const ParsedUrl& u) { return u.port ? std::to_string(*u.port) : ""; }

const std::vector<std::string> kNewerIdnaTables = {
  "look\xE1\xA0\x8Eout.net",  // U+180E
  "look\xE2\x81\xABout.net",  // U+206B
  "\xD3\x80.com",              // U+04C0
  "\xF0\xAF\xA1\xA8.com",     // U+2F868
  "\xE2\x86\x83.com",         // U+2183
  "\xE1\xBA\x9E.com",         // U+1E9E
  "\xE1\xBA\x9E.foo.com",
};

}  // namespace

TEST_CASE("url conformance: the WHATWG URL test data, every http(s) case", "[url][whatwg][conformance]") {
  const nlohmann::json cases = load("urltestdata.json");
  int checked = 0, not_http_results = 0;
  for (const auto& c : cases) {
    if (!c.is_object()) continue;  // comments
    const std::string input = c.at("input").get<std::string>();
    const bool has_base = c.contains("base") && c.at("base").is_string();
    const std::string base_text = has_base ? c.at("base").get<std::string>() : "";
    const bool http_base = has_base && is_http(base_text);
    if (!http_base && !is_http(input)) continue;
    ++checked;

    std::optional<ParsedUrl> base;
    if (http_base) {
      base = parse_url(base_text, nullptr, nullptr);
      REQUIRE(base);
    }
    UrlError why = UrlError::none;
    const auto parsed = parse_url(input, base ? &*base : nullptr, &why);
    INFO("input <" << input << "> base <" << base_text << ">: " << (parsed ? "parsed" : to_string(why)));
    if (c.value("failure", false)) {
      CHECK_FALSE(parsed);
      continue;
    }
    const std::string protocol = c.at("protocol").get<std::string>();
    if (protocol != "http:" && protocol != "https:") {
      ++not_http_results;
      CHECK_FALSE(parsed);
      CHECK(why == UrlError::unsupported_scheme);
      continue;
    }
    CHECK(parsed);
    if (!parsed) continue;
    CHECK(parsed->scheme + ":" == protocol);
    CHECK(parsed->host == c.at("hostname").get<std::string>());
    CHECK(port_of(*parsed) == c.at("port").get<std::string>());
    CHECK(parsed->path == c.at("pathname").get<std::string>());
    CHECK(search_of(*parsed) == c.at("search").get<std::string>());
  }
  CHECK(checked == 481);
  // The named exception above: results a browser has and the crawler
  // refuses as unsupported_scheme.
  CHECK(not_http_results == 36);
}

// Parse and resolve place a URL's parts as they write its text; text from
// elsewhere (from_canonical) has them found by a scan. The two must agree
// on every URL the test data makes.
TEST_CASE("url parts: placed as written, the same as found by a scan", "[url][whatwg]") {
  const nlohmann::json cases = load("urltestdata.json");
  int compared = 0;
  for (const auto& c : cases) {
    if (!c.is_object() || c.value("failure", false)) continue;
    const std::string input = c.at("input").get<std::string>();
    const bool has_base = c.contains("base") && c.at("base").is_string();
    std::optional<Url> url;
    if (has_base) {
      const std::optional<Url> base = Url::parse(c.at("base").get<std::string>());
      if (!base) continue;
      url = base->resolve(input);
    } else {
      url = Url::parse(input);
    }
    if (!url) continue;
    INFO(url->str());
    const Url scanned = Url::from_canonical(url->str());
    CHECK(url->scheme() == scanned.scheme());
    CHECK(url->host() == scanned.host());
    CHECK(url->port() == scanned.port());
    CHECK(url->host_key() == scanned.host_key());
    CHECK(url->path() == scanned.path());
    CHECK(url->has_query() == scanned.has_query());
    CHECK(url->query() == scanned.query());
    ++compared;
  }
  CHECK(compared == 244);
}

TEST_CASE("url conformance: the WHATWG domain to ASCII data", "[url][whatwg][conformance]") {
  const nlohmann::json cases = load("toascii.json");
  int checked = 0, newer_tables = 0;
  for (const auto& c : cases) {
    if (!c.is_object()) continue;
    const std::string input = c.at("input").get<std::string>();
    if (std::find(kNewerIdnaTables.begin(), kNewerIdnaTables.end(), input) != kNewerIdnaTables.end()) {
      ++newer_tables;
      continue;
    }
    // As the data's own test reads it: the host of "https://<input>/x".
    const auto parsed = parse_url("https://" + input + "/x", nullptr, nullptr);
    INFO("input <" << input << ">");
    if (c.at("output").is_null()) {
      CHECK_FALSE(parsed);
    } else {
      CHECK(parsed);
      if (parsed) CHECK(parsed->host == c.at("output").get<std::string>());
    }
    ++checked;
  }
  CHECK(checked == 80);
  CHECK(newer_tables == static_cast<int>(kNewerIdnaTables.size()));
}

TEST_CASE("url host: the Unicode form of a punycode host, for people", "[url][whatwg]") {
  CHECK(host_for_display("xn--mnchen-3ya.de") == "m\xC3\xBCnchen.de");
  CHECK(host_for_display("example.com") == "example.com");
  CHECK(host_for_display("xn--a.com") == "xn--a.com");  // not valid punycode: as it is
  CHECK(host_for_display("127.0.0.1") == "127.0.0.1");
}

}  // namespace actorcrawl
