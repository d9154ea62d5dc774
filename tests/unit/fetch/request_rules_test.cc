#include "core/fetch/request_rules.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace actorcrawl;

namespace {

FetchRequest applied(const RequestRules& rules, const std::string& url) {
  FetchRequest request;
  rules.apply(*Url::parse(url), request);
  return request;
}

std::string error_of(const std::vector<std::string>& headers, const std::vector<std::string>& auth) {
  std::string error;
  auto rules = RequestRules::make(headers, auth, &error);
  CHECK(rules == nullptr);
  return error;
}

}  // namespace

TEST_CASE("request rules: headers for every host and for the hosts a pattern matches", "[request_rules]") {
  std::string error;
  auto rules = RequestRules::make(
    {"Accept-Language:  en ", R"({"hosts": "(^|\\.)shop\\.example$", "X-Api-Key": "k-1", "X-Count": 5})"}, {},
    &error);
  INFO(error);
  REQUIRE(rules);
  CHECK_FALSE(rules->empty());
  CHECK(applied(*rules, "https://shop.example/a").headers ==
        std::vector<std::string>{"Accept-Language: en", "X-Api-Key: k-1", "X-Count: 5"});
  CHECK(applied(*rules, "https://www.shop.example:8443/a").headers ==
        std::vector<std::string>{"Accept-Language: en", "X-Api-Key: k-1", "X-Count: 5"});
  // The pattern is searched in the host name, not the URL.
  CHECK(applied(*rules, "https://other.example/shop.example").headers ==
        std::vector<std::string>{"Accept-Language: en"});
  CHECK(applied(*rules, "https://shop.example.evil/").headers == std::vector<std::string>{"Accept-Language: en"});
}

TEST_CASE("request rules: a mapping's headers go in the order written", "[request_rules]") {
  std::string error;
  auto rules = RequestRules::make({R"({"Z-Last": "1", "A-First": "2", "M-Mid": "3"})"}, {}, &error);
  REQUIRE(rules);
  CHECK(applied(*rules, "http://a/").headers == std::vector<std::string>{"Z-Last: 1", "A-First: 2", "M-Mid: 3"});
}

TEST_CASE("request rules: the first matching credentials, for their hosts only", "[request_rules]") {
  std::string error;
  auto rules = RequestRules::make({},
                                  {R"({"hosts": "^intra\\.example$", "basic": "user:pa:ss"})",
                                   R"({"hosts": "example$", "bearer": "tok"})"},
                                  &error);
  INFO(error);
  REQUIRE(rules);
  FetchRequest intra = applied(*rules, "http://intra.example/");
  CHECK(intra.basic_auth == "user:pa:ss");
  CHECK(intra.bearer_token.empty());
  FetchRequest api = applied(*rules, "http://api.example/");
  CHECK(api.basic_auth.empty());
  CHECK(api.bearer_token == "tok");
  FetchRequest none = applied(*rules, "http://example.org/");
  CHECK(none.basic_auth.empty());
  CHECK(none.bearer_token.empty());
  CHECK(none.headers.empty());
}

TEST_CASE("request rules: none given changes no request", "[request_rules]") {
  std::string error;
  auto rules = RequestRules::make({}, {}, &error);
  REQUIRE(rules);
  CHECK(rules->empty());
  FetchRequest r = applied(*rules, "http://example.org/");
  CHECK(r.headers.empty());
  CHECK(r.basic_auth.empty());
}

TEST_CASE("request rules: each wrong entry is named, and no value is ever repeated", "[request_rules]") {
  CHECK(error_of({"no colon here"}, {}) == "headers: entry 1: a header is 'Name: value' or a mapping of names to values");
  CHECK(error_of({"A: b", "Bad Name: secret-1"}, {}) == "headers: entry 2: 'Bad Name' is not a header name");
  CHECK(error_of({"X-Key: secret-1\r\nX-Evil: 1"}, {}) == "headers: entry 1: the value of X-Key holds a control character");
  CHECK(error_of({R"({"hosts": "(", "X-Key": "secret-1"})"}, {}).rfind("headers: entry 1: 'hosts': invalid regular expression '(': ", 0) == 0);
  CHECK(error_of({R"({"hosts": "a"})"}, {}) == "headers: entry 1: no header");
  CHECK(error_of({R"({"X-Key": {"nested": 1}})"}, {}) == "headers: entry 1: the value of X-Key must be text");
  CHECK(error_of({}, {R"({"basic": "user:secret-1"})"}) ==
        "auth: entry 1: 'hosts' is required: credentials go only to the hosts it matches");
  CHECK(error_of({}, {R"({"hosts": "a", "basic": "secret-1"})"}) == "auth: entry 1: 'basic' is user:password");
  CHECK(error_of({}, {R"({"hosts": "a", "basic": "u:secret-1", "bearer": "secret-2"})"}) ==
        "auth: entry 1: give one of 'basic' (user:password) and 'bearer' (a token)");
  CHECK(error_of({}, {R"({"hosts": "a", "password": "secret-1"})"}) ==
        "auth: entry 1: unknown field 'password' (known: hosts, basic, bearer)");
  CHECK(error_of({}, {"secret-1"}).rfind("auth: entry 1: an entry is a mapping", 0) == 0);
  // No message repeats a value: they may be secrets.
  for (const auto& e : {error_of({"Bad Name: secret-1"}, {}), error_of({}, {R"({"hosts": "a", "basic": "secret-1"})"}),
                        error_of({"X-Key: secret-1\n"}, {})})
    CHECK(e.find("secret-1") == std::string::npos);
}
