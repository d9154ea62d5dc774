// DomainLinkFilter: which hosts a page leads the domains profile to.
#include "core/page/domain_link_filter.h"

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config/crawl_config.h"

namespace actorcrawl {
namespace {

Url url_of(std::string_view raw) {
  const std::optional<Url> url = Url::parse(raw);
  REQUIRE(url);
  return *url;
}

// The filter with the shipped default exclusions, so the tests check the
// list users actually get.
std::unique_ptr<DomainLinkFilter> default_filter(std::size_t max_outbound_links = 10) {
  std::string error;
  std::unique_ptr<DomainLinkFilter> f =
      DomainLinkFilter::make(CrawlConfig{}.excluded_domains, max_outbound_links, &error);
  INFO(error);
  REQUIRE(f);
  CHECK(error.empty());
  return f;
}

PageAnalysis analysis_of(const std::vector<HtmlLink>& links) {
  PageAnalysis a;
  a.links = links;
  return a;
}

using Crawl = std::vector<std::pair<std::string, std::string>>;  // (root url, host key)
using Rows = std::vector<std::pair<std::string, bool>>;          // (url, nofollow)

Crawl crawl_of(const SelectedLinks& s) {
  Crawl out;
  for (const auto& l : s.to_crawl)
    out.emplace_back(l.url, l.host_key);
  return out;
}

Rows rows_of(const SelectedLinks& s) {
  Rows out;
  for (const auto& l : s.all.rows())
    out.emplace_back(l.url, l.nofollow);
  return out;
}

const char* const kPage = "http://www.example.com/dir/page.html";

}  // namespace

TEST_CASE("DomainLinkFilter: the default excluded domains", "[domain_link_filter]") {
  const auto f = default_filter();
  // Anchored on a label boundary: the domain and its subdomains only.
  CHECK(f->excluded("facebook.com"));
  CHECK(f->excluded("www.facebook.com"));
  CHECK(f->excluded("m.facebook.com"));
  CHECK_FALSE(f->excluded("notfacebook.com"));
  CHECK_FALSE(f->excluded("facebook.com.example.org"));
  CHECK(f->excluded("twitter.com"));
  CHECK(f->excluded("www.instagram.com"));
  CHECK(f->excluded("de.linkedin.com"));
  CHECK(f->excluded("ssl.google-analytics.com"));
  CHECK(f->excluded("ad.doubleclick.net"));
  // ads. and analytics. as the first label, under any domain.
  CHECK(f->excluded("ads.example.com"));
  CHECK(f->excluded("analytics.example.com"));
  CHECK_FALSE(f->excluded("example-ads.com"));
  CHECK_FALSE(f->excluded("www.ads.example.com"));
  CHECK_FALSE(f->excluded("example.com"));
  // Patterns ignore case, should a host reach it unnormalized.
  CHECK(f->excluded("WWW.FaceBook.COM"));
}

TEST_CASE("DomainLinkFilter: an invalid pattern is reported by name", "[domain_link_filter]") {
  std::string error;
  CHECK(DomainLinkFilter::make({R"(^ok\.)", "(unclosed"}, 10, &error) == nullptr);
  CHECK(error.rfind("excluded_domains: invalid regular expression '(unclosed': ", 0) == 0);
  // No patterns: nothing excluded.
  error.clear();
  const auto none = DomainLinkFilter::make({}, 10, &error);
  REQUIRE(none);
  CHECK(error.empty());
  CHECK_FALSE(none->excluded("facebook.com"));
}

TEST_CASE("DomainLinkFilter: other hosts, one root URL each, in document order", "[domain_link_filter]") {
  const auto f = default_filter();
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({
                                                       {"/local", false},
                                                       {"https://blog.example.com/post?id=1", false},
                                                       {"http://www.facebook.com/share", false},
                                                       {"http://blog.example.com/other", false},
                                                       {"//cdn.test:8080/x.js", false},
                                                       {"mailto:someone@example.com", false},
                                                       {"https://ads.example.com/banner", false},
                                                       {"HTTPS://NotFacebook.com", false},
                                                       {"../up", false},
                                                       {"http://example.com/about", false},
                                                   }));
  // Same-host links, excluded hosts and a second link to a chosen host are
  // not targets. The root keeps the scheme of the first link to the host
  // and the port of its host key.
  CHECK(crawl_of(s) == Crawl{{"https://blog.example.com/", "blog.example.com"},
                             {"http://cdn.test:8080/", "cdn.test:8080"},
                             {"https://notfacebook.com/", "notfacebook.com"},
                             {"http://example.com/", "example.com"}});
  CHECK(s.other_hosts ==
        std::vector<std::string>{"blog.example.com", "cdn.test:8080", "notfacebook.com", "example.com"});
  // Every usable link is still recorded for the page graph, excluded or not.
  CHECK(rows_of(s) == Rows{{"http://www.example.com/local", false},
                           {"https://blog.example.com/post?id=1", false},
                           {"http://www.facebook.com/share", false},
                           {"http://blog.example.com/other", false},
                           {"http://cdn.test:8080/x.js", false},
                           {"https://ads.example.com/banner", false},
                           {"https://notfacebook.com/", false},
                           {"http://www.example.com/up", false},
                           {"http://example.com/about", false}});
}

TEST_CASE("DomainLinkFilter: an excluded host is excluded on any port", "[domain_link_filter]") {
  const auto f = default_filter();
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({{"http://ads.example.com:8080/x", false},
                                                                {"https://facebook.com:8443/", false},
                                                                {"http://ok.test:8080/", false}}));
  CHECK(crawl_of(s) == Crawl{{"http://ok.test:8080/", "ok.test:8080"}});
}

TEST_CASE("DomainLinkFilter: a different port of the page's host is another host", "[domain_link_filter]") {
  const auto f = default_filter();
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({{"http://www.example.com:80/same", false},
                                                                {"https://www.example.com/tls", false},
                                                                {"http://www.example.com:8080/", false}}));
  // Port 80 is the default: the page's own host. https makes no host of its
  // own either, since the key has no scheme.
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com:8080/", "www.example.com:8080"}});
}

TEST_CASE("DomainLinkFilter: the first max_outbound_links hosts", "[domain_link_filter]") {
  const auto f = default_filter(2);
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({
                                                       {"http://one.test/a", false},
                                                       {"http://ads.example.com/", false},  // takes no place
                                                       {"http://one.test/b", false},        // nor does a repeat
                                                       {"http://two.test/", false},
                                                       {"http://three.test/", false},
                                                       {"http://four.test/", false},
                                                   }));
  CHECK(crawl_of(s) == Crawl{{"http://one.test/", "one.test"}, {"http://two.test/", "two.test"}});
  CHECK(s.other_hosts == std::vector<std::string>{"one.test", "two.test"});
  // The cap limits targets, not the page's recorded links.
  CHECK(s.all.size() == 6);
}

TEST_CASE("DomainLinkFilter: max_outbound_links 0 selects nothing", "[domain_link_filter]") {
  const auto f = default_filter(0);
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({{"http://one.test/", false}}));
  CHECK(s.to_crawl.empty());
  CHECK(s.other_hosts.empty());
  CHECK(s.all.size() == 1);
}

TEST_CASE("DomainLinkFilter: rel=nofollow links are recorded but not followed", "[domain_link_filter]") {
  const auto f = default_filter(2);
  const SelectedLinks s = f->select(url_of(kPage), analysis_of({
                                                       {"http://one.test/", true},
                                                       {"http://two.test/", true},
                                                       {"http://three.test/", false},
                                                       {"https://one.test/again", false},
                                                       {"http://four.test/", false},
                                                   }));
  // nofollow links take no place; a followable link to the same host later
  // on selects it, with that link's scheme.
  CHECK(crawl_of(s) == Crawl{{"http://three.test/", "three.test"}, {"https://one.test/", "one.test"}});
  CHECK(rows_of(s) == Rows{{"http://one.test/", true},
                           {"http://two.test/", true},
                           {"http://three.test/", false},
                           {"https://one.test/again", false},
                           {"http://four.test/", false}});
}

TEST_CASE("DomainLinkFilter: meta robots nofollow selects no host", "[domain_link_filter]") {
  const auto f = default_filter();
  PageAnalysis a = analysis_of({{"http://one.test/", false}, {"/local", false}});
  a.follow_links = false;
  const SelectedLinks s = f->select(url_of(kPage), a);
  CHECK(s.to_crawl.empty());
  CHECK(s.other_hosts.empty());
  CHECK(rows_of(s) == Rows{{"http://one.test/", false}, {"http://www.example.com/local", false}});
}

TEST_CASE("DomainLinkFilter: relative links resolve against base href", "[domain_link_filter]") {
  const auto f = default_filter();
  PageAnalysis a = analysis_of({{"page.html", false}, {"https://www.example.com/x", false}});
  a.base_href = "https://mirror.test/dir/";
  a.canonical = "/canonical";
  const SelectedLinks s = f->select(url_of(kPage), a);
  // The page's own host is where it came from, not its base.
  CHECK(crawl_of(s) == Crawl{{"https://mirror.test/", "mirror.test"}});
  CHECK(rows_of(s) == Rows{{"https://mirror.test/dir/page.html", false}, {"https://www.example.com/x", false}});
  CHECK(s.canonical == "https://mirror.test/canonical");
}

TEST_CASE("DomainLinkFilter: a page with no usable link", "[domain_link_filter]") {
  const auto f = default_filter();
  const SelectedLinks s =
      f->select(url_of(kPage), analysis_of({{"javascript:void(0)", false}, {"mailto:a@b.test", false}}));
  CHECK(s.all.empty());
  CHECK(s.to_crawl.empty());
  CHECK(s.other_hosts.empty());
}

}  // namespace actorcrawl
