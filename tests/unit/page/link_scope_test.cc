#include "core/page/link_scope.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace actorcrawl {
namespace {

Url url_of(std::string_view raw) {
  const std::optional<Url> url = Url::parse(raw);
  REQUIRE(url);
  return *url;
}

std::unique_ptr<LinkScope> scope_of(const std::vector<std::string>& allowed,
                                    const std::vector<std::string>& excludes,
                                    const std::vector<std::string>& seeds) {
  std::vector<Url> seed_urls;
  for (const std::string& s : seeds) seed_urls.push_back(url_of(s));
  std::string error;
  std::unique_ptr<LinkScope> scope = LinkScope::make(allowed, excludes, seed_urls, &error);
  INFO(error);
  REQUIRE(scope);
  CHECK(error.empty());
  return scope;
}

std::string verdict(const LinkScope& scope, std::string_view url) {
  return to_string(scope.check(url_of(url)));
}

}  // namespace

TEST_CASE("ScopeVerdict names", "[link_scope]") {
  CHECK(std::string(to_string(ScopeVerdict::in_scope)) == "in_scope");
  CHECK(std::string(to_string(ScopeVerdict::out_of_domain)) == "out_of_domain");
  CHECK(std::string(to_string(ScopeVerdict::excluded)) == "excluded");
  CHECK(std::string(to_string(ScopeVerdict::not_followed)) == "not_followed");
}

TEST_CASE("follow_patterns: an allow list within the domain, after the exclude patterns", "[link_scope]") {
  std::string error;
  auto scope = LinkScope::make(CrawlScope::domain, {}, {"/products/old"}, {url_of("https://shop.example/")}, &error,
                               {"/products/", R"(\?page=\d+$)"});
  INFO(error);
  REQUIRE(scope);
  CHECK(verdict(*scope, "https://shop.example/products/1") == "in_scope");
  CHECK(verdict(*scope, "https://www.shop.example/list?page=2") == "in_scope");
  // Neither pattern is found: the link is not followed.
  CHECK(verdict(*scope, "https://shop.example/about") == "not_followed");
  CHECK(verdict(*scope, "https://shop.example/list?page=2&sort=x") == "not_followed");
  // Excluded beats followed; the domain beats both.
  CHECK(verdict(*scope, "https://shop.example/products/old/1") == "excluded");
  CHECK(verdict(*scope, "https://other.example/products/1") == "out_of_domain");
  // Searched in the normalized URL, as exclude patterns are: not anchored.
  CHECK(verdict(*scope, "https://shop.example/a/products/b") == "in_scope");
}

TEST_CASE("follow_patterns: none given follows every link in scope", "[link_scope]") {
  std::string error;
  auto scope = LinkScope::make(CrawlScope::domain, {}, {}, {url_of("https://shop.example/")}, &error, {});
  REQUIRE(scope);
  CHECK(verdict(*scope, "https://shop.example/anything") == "in_scope");
}

TEST_CASE("follow_patterns: a pattern that does not compile is named with its key", "[link_scope]") {
  std::string error;
  auto scope = LinkScope::make(CrawlScope::domain, {}, {}, {url_of("https://shop.example/")}, &error, {"(unclosed"});
  CHECK(scope == nullptr);
  CHECK(error.rfind("follow_patterns: invalid regular expression '(unclosed': ", 0) == 0);
}

TEST_CASE("no allowed_domains: the seeds' registrable domains", "[link_scope]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/start"});
  CHECK(verdict(*scope, "http://www.example.com/x") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/") == "in_scope");
  CHECK(verdict(*scope, "https://blog.example.com:8443/") == "in_scope");
  CHECK(verdict(*scope, "http://example.org/") == "out_of_domain");
  CHECK(verdict(*scope, "http://notexample.com/") == "out_of_domain");
  CHECK(verdict(*scope, "http://example.com.evil.net/") == "out_of_domain");
}

TEST_CASE("no allowed_domains: several seeds", "[link_scope]") {
  const auto scope = scope_of({}, {}, {"http://a.example.com/", "https://shop.example.co.uk/"});
  CHECK(verdict(*scope, "http://b.example.com/") == "in_scope");
  CHECK(verdict(*scope, "http://example.co.uk/") == "in_scope");
  CHECK(verdict(*scope, "http://other.co.uk/") == "out_of_domain");
}

TEST_CASE("no allowed_domains: a private public suffix seed", "[link_scope]") {
  const auto scope = scope_of({}, {}, {"https://foo.github.io/"});
  CHECK(verdict(*scope, "https://foo.github.io/page") == "in_scope");
  CHECK(verdict(*scope, "https://bar.github.io/") == "out_of_domain");
  CHECK(verdict(*scope, "https://github.io/") == "out_of_domain");
}

TEST_CASE("no allowed_domains: an IP seed admits that address on any port", "[link_scope]") {
  const auto scope = scope_of({}, {}, {"http://127.0.0.1:8080/"});
  CHECK(verdict(*scope, "http://127.0.0.1:8080/a") == "in_scope");
  CHECK(verdict(*scope, "http://127.0.0.1:9090/") == "in_scope");
  CHECK(verdict(*scope, "http://127.0.0.1/") == "in_scope");
  CHECK(verdict(*scope, "http://127.0.0.2:8080/") == "out_of_domain");
  CHECK(verdict(*scope, "http://localhost:8080/") == "out_of_domain");

  const auto v6 = scope_of({}, {}, {"http://[::1]:8080/"});
  CHECK(verdict(*v6, "http://[::1]:9/") == "in_scope");
  CHECK(verdict(*v6, "http://[::2]:8080/") == "out_of_domain");
}

TEST_CASE("no allowed_domains and no seeds admits nothing", "[link_scope]") {
  const auto scope = scope_of({}, {}, {});
  CHECK(verdict(*scope, "http://example.com/") == "out_of_domain");
}

TEST_CASE("allowed_domains: host and subdomains", "[link_scope]") {
  const auto scope = scope_of({"Example.COM", "docs.other.org"}, {}, {"http://seed.net/"});
  CHECK(verdict(*scope, "http://example.com/") == "in_scope");
  CHECK(verdict(*scope, "http://a.b.example.com/") == "in_scope");
  CHECK(verdict(*scope, "https://example.com:8443/") == "in_scope");
  CHECK(verdict(*scope, "http://docs.other.org/") == "in_scope");
  CHECK(verdict(*scope, "http://v2.docs.other.org/") == "in_scope");
  CHECK(verdict(*scope, "http://other.org/") == "out_of_domain");
  CHECK(verdict(*scope, "http://badexample.com/") == "out_of_domain");
  // The seeds only matter when allowed_domains is empty.
  CHECK(verdict(*scope, "http://seed.net/") == "out_of_domain");
}

TEST_CASE("allowed_domains: an entry with a port admits only that port", "[link_scope]") {
  const auto scope = scope_of({"127.0.0.2:8080", "example.com:443"}, {}, {});
  CHECK(verdict(*scope, "http://127.0.0.2:8080/x") == "in_scope");
  CHECK(verdict(*scope, "http://127.0.0.2/") == "out_of_domain");
  CHECK(verdict(*scope, "http://127.0.0.2:8081/") == "out_of_domain");
  CHECK(verdict(*scope, "https://example.com/") == "in_scope");
  CHECK(verdict(*scope, "https://www.example.com/") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/") == "out_of_domain");
}

// Looked up by name, not tried one by one: thousands of entries, the same
// name on two ports, and a name under another entry all answer as a scan did.
TEST_CASE("allowed_domains: many entries, one name on several ports", "[link_scope]") {
  std::vector<std::string> allowed;
  for (int i = 0; i < 5000; ++i)
    allowed.push_back("site" + std::to_string(i) + ".example");
  allowed.push_back("shop.test:8080");
  allowed.push_back("shop.test:8443");
  allowed.push_back("b.shop.test");
  const auto scope = scope_of(allowed, {}, {});
  CHECK(verdict(*scope, "http://site4999.example/") == "in_scope");
  CHECK(verdict(*scope, "http://www.site0.example/") == "in_scope");
  CHECK(verdict(*scope, "http://site5000.example/") == "out_of_domain");
  CHECK(verdict(*scope, "http://example/") == "out_of_domain");
  CHECK(verdict(*scope, "http://shop.test:8080/") == "in_scope");
  CHECK(verdict(*scope, "http://a.shop.test:8443/") == "in_scope");
  CHECK(verdict(*scope, "http://a.shop.test/") == "out_of_domain");
  CHECK(verdict(*scope, "http://a.b.shop.test/") == "in_scope");
  CHECK(verdict(*scope, "http://ab.shop.test/") == "out_of_domain");
}

TEST_CASE("allowed_domains: IPv6 entries", "[link_scope]") {
  const auto bracketed = scope_of({"[::1]:8080"}, {}, {});
  CHECK(verdict(*bracketed, "http://[::1]:8080/") == "in_scope");
  CHECK(verdict(*bracketed, "http://[::1]:8081/") == "out_of_domain");

  const auto bare = scope_of({"::1"}, {}, {});
  CHECK(verdict(*bare, "http://[::1]:9/") == "in_scope");
  CHECK(verdict(*bare, "http://[::2]/") == "out_of_domain");
}

TEST_CASE("allowed_domains: invalid entries", "[link_scope]") {
  for (const std::string entry : {"", "example.com:", "example.com:http", "example.com:70000",
                                  "[::1", "[::1]x", ":8080"}) {
    std::string error;
    CHECK_FALSE(LinkScope::make({entry}, {}, {}, &error));
    CHECK(error == "allowed_domains: invalid entry '" + entry + "'");
  }
}

TEST_CASE("scope names", "[link_scope]") {
  for (const CrawlScope s : {CrawlScope::domain, CrawlScope::host, CrawlScope::any})
    CHECK(parse_crawl_scope(to_string(s)) == s);
  CHECK_FALSE(parse_crawl_scope("Domain"));
  CHECK_FALSE(parse_crawl_scope(""));
  CHECK_FALSE(parse_crawl_scope("site"));
}

std::unique_ptr<LinkScope> scope_with(CrawlScope mode, const std::vector<std::string>& allowed,
                                      const std::vector<std::string>& seeds) {
  std::vector<Url> seed_urls;
  for (const std::string& s : seeds) seed_urls.push_back(url_of(s));
  std::string error;
  auto scope = LinkScope::make(mode, allowed, {}, seed_urls, &error);
  INFO(error);
  REQUIRE(scope);
  return scope;
}

TEST_CASE("scope host: the seeds' hosts only, on any port", "[link_scope]") {
  const auto scope = scope_with(CrawlScope::host, {}, {"http://www.example.com/start", "https://127.0.0.1:8080/"});
  CHECK(verdict(*scope, "http://www.example.com/x") == "in_scope");
  CHECK(verdict(*scope, "https://www.example.com:8443/") == "in_scope");
  CHECK(verdict(*scope, "http://127.0.0.1/") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/") == "out_of_domain");
  CHECK(verdict(*scope, "http://blog.example.com/") == "out_of_domain");
  CHECK(verdict(*scope, "http://a.www.example.com/") == "out_of_domain");
  CHECK(verdict(*scope, "http://127.0.0.2:8080/") == "out_of_domain");
  CHECK(verdict(*scope_with(CrawlScope::host, {}, {}), "http://example.com/") == "out_of_domain");
}

TEST_CASE("scope any: every http(s) URL", "[link_scope]") {
  const auto scope = scope_with(CrawlScope::any, {}, {"http://example.com/"});
  CHECK(verdict(*scope, "http://www.iana.org/domains") == "in_scope");
  CHECK(verdict(*scope, "https://127.0.0.9:1/") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/") == "in_scope");
  // Even with no seed: the bound is max_pages and max_depth.
  CHECK(verdict(*scope_with(CrawlScope::any, {}, {}), "http://x.test/") == "in_scope");
}

TEST_CASE("allowed_domains narrows every scope", "[link_scope]") {
  const auto any = scope_with(CrawlScope::any, {"iana.org"}, {"http://example.com/"});
  CHECK(verdict(*any, "http://www.iana.org/") == "in_scope");
  CHECK(verdict(*any, "http://example.com/") == "out_of_domain");
  CHECK(verdict(*any, "http://other.net/") == "out_of_domain");

  const auto host = scope_with(CrawlScope::host, {"example.com:80"}, {"http://www.example.com/", "http://other.net/"});
  CHECK(verdict(*host, "http://www.example.com/") == "in_scope");
  CHECK(verdict(*host, "https://www.example.com/") == "out_of_domain");  // port 443
  CHECK(verdict(*host, "http://other.net/") == "out_of_domain");
  CHECK(verdict(*host, "http://example.com/") == "out_of_domain");  // not a seed's host

  // `domain` with allowed_domains: the entries, not the seeds' domains.
  const auto domain = scope_with(CrawlScope::domain, {"iana.org"}, {"http://example.com/"});
  CHECK(verdict(*domain, "http://www.iana.org/") == "in_scope");
  CHECK(verdict(*domain, "http://example.com/") == "out_of_domain");
}

TEST_CASE("exclude patterns", "[link_scope]") {
  const auto scope =
      scope_of({}, {"/private/", "\\.pdf$", "[?&]action=logout"}, {"http://example.com/"});
  CHECK(verdict(*scope, "http://example.com/private/x") == "excluded");
  CHECK(verdict(*scope, "http://www.example.com/a/private/") == "excluded");
  CHECK(verdict(*scope, "http://example.com/private") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/doc.pdf") == "excluded");
  CHECK(verdict(*scope, "http://example.com/doc.pdf?x=1") == "in_scope");
  CHECK(verdict(*scope, "http://example.com/?a=1&action=logout") == "excluded");
  CHECK(verdict(*scope, "http://example.com/") == "in_scope");
  // Out of domain wins over excluded.
  CHECK(verdict(*scope, "http://other.org/private/") == "out_of_domain");
}

TEST_CASE("exclude patterns see the normalized URL", "[link_scope]") {
  const auto scope = scope_of({}, {"^https://example\\.com/~"}, {"https://example.com/"});
  CHECK(verdict(*scope, "HTTPS://EXAMPLE.COM:443/%7euser") == "excluded");
  CHECK(verdict(*scope, "http://example.com/~user") == "in_scope");
}

TEST_CASE("an invalid exclude pattern is reported", "[link_scope]") {
  std::string error;
  CHECK_FALSE(LinkScope::make({}, {"ok", "a(b"}, {url_of("http://example.com/")}, &error));
  CHECK(error == "exclude_patterns: invalid regular expression 'a(b': missing ): a(b");

  error.clear();
  CHECK_FALSE(LinkScope::make({}, {"x{2,1}"}, {}, &error));
  CHECK(error.rfind("exclude_patterns: invalid regular expression 'x{2,1}': ", 0) == 0);

  CHECK_FALSE(LinkScope::make({}, {"("}, {}, nullptr));
}

}  // namespace actorcrawl
