#include "core/page/link_selection.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/page/domain_link_filter.h"

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
  for (const std::string& s : seeds)
    seed_urls.push_back(url_of(s));
  std::string error;
  std::unique_ptr<LinkScope> scope = LinkScope::make(allowed, excludes, seed_urls, &error);
  INFO(error);
  REQUIRE(scope);
  return scope;
}

PageAnalysis analysis_of(const std::vector<HtmlLink>& links) {
  PageAnalysis a;
  a.links = links;
  return a;
}

using Rows = std::vector<std::pair<std::string, bool>>;
using Crawl = std::vector<std::pair<std::string, std::string>>;

Rows rows_of(const SelectedLinks& s) {
  Rows out;
  for (const auto& l : s.all.rows())
    out.emplace_back(l.url, l.nofollow);
  return out;
}

Crawl crawl_of(const SelectedLinks& s) {
  Crawl out;
  for (const auto& l : s.to_crawl)
    out.emplace_back(l.url, l.host_key);
  return out;
}

const char* const kPage = "http://www.example.com/dir/page.html";

}  // namespace

TEST_CASE("select_links: resolution, scope, other hosts, document order", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({
      {"a.html", false},
      {"/b", false},
      {"http://other.org/x", false},
      {"https://blog.example.com/", false},
      {"mailto:someone@example.com", false},
      {"http://www.example.com:8080/p", false},
      {"../up?q=1#frag", false},
      {"http://OTHER.org/y", false},
  });
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(rows_of(s) == Rows{
                          {"http://www.example.com/dir/a.html", false},
                          {"http://www.example.com/b", false},
                          {"http://other.org/x", false},
                          {"https://blog.example.com/", false},
                          {"http://www.example.com:8080/p", false},
                          {"http://www.example.com/up?q=1", false},
                          {"http://other.org/y", false},
                      });
  // Host keys other than the page's own, each once; a port makes another key.
  CHECK(s.other_hosts ==
        std::vector<std::string>{"other.org", "blog.example.com", "www.example.com:8080"});
  // other.org is outside the seed's registrable domain.
  CHECK(crawl_of(s) == Crawl{
                           {"http://www.example.com/dir/a.html", "www.example.com"},
                           {"http://www.example.com/b", "www.example.com"},
                           {"https://blog.example.com/", "blog.example.com"},
                           {"http://www.example.com:8080/p", "www.example.com:8080"},
                           {"http://www.example.com/up?q=1", "www.example.com"},
                       });
  CHECK(s.canonical.empty());
}

TEST_CASE("select_links: duplicates after normalization are kept once", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({
      {"/x", false},
      {"/x#top", false},
      {"http://WWW.EXAMPLE.COM:80/x", false},
      {"/./y/../x", false},
      {"/z", false},
  });
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(rows_of(s) == Rows{{"http://www.example.com/x", false}, {"http://www.example.com/z", false}});
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com/x", "www.example.com"},
                             {"http://www.example.com/z", "www.example.com"}});
  CHECK(s.other_hosts.empty());
}

// Many links, each met three times in a scrambled order, some first with
// rel=nofollow: each kept once, where it first appears, and followed when
// any of its links may be.
TEST_CASE("select_links: thousands of repeated links are kept once each, in order of first appearance",
          "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  constexpr std::size_t kDistinct = 5000;
  std::vector<HtmlLink> links;
  std::vector<std::size_t> first_seen;
  std::vector<bool> seen(kDistinct, false);
  for (std::size_t round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < kDistinct; ++i) {
      const std::size_t n = (i * 7919 + round * 104729) % kDistinct;
      links.push_back(HtmlLink{"/p/" + std::to_string(n), round == 0 && n % 2 == 0});
      if (!seen[n]) {
        seen[n] = true;
        first_seen.push_back(n);
      }
    }
  const SelectedLinks s = select_links(url_of(kPage), analysis_of(links), *scope, {});
  REQUIRE(s.all.size() == kDistinct);
  REQUIRE(s.to_crawl.size() == kDistinct);
  for (std::size_t i = 0; i < kDistinct; ++i) {
    INFO("link " << i);
    CHECK(s.all.url(i) == "http://www.example.com/p/" + std::to_string(first_seen[i]));
    CHECK(s.all.nofollow(i) == (first_seen[i] % 2 == 0));  // as first met
    CHECK(s.all.followed(i));
  }
}

TEST_CASE("select_links: base href", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  SECTION("absolute, on another host") {
    PageAnalysis a = analysis_of({{"a.html", false}, {"/root", false}});
    a.base_href = "http://cdn.example.com/base/";
    a.canonical = "canon.html";
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://cdn.example.com/base/a.html", false},
                             {"http://cdn.example.com/root", false}});
    // The page itself is still on www: links to cdn are links to another host.
    CHECK(s.other_hosts == std::vector<std::string>{"cdn.example.com"});
    // The canonical resolves against the base too, as browsers do.
    CHECK(s.canonical == "http://cdn.example.com/base/canon.html");
  }
  SECTION("relative to the page") {
    PageAnalysis a = analysis_of({{"a.html", false}});
    a.base_href = "sub/";
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://www.example.com/dir/sub/a.html", false}});
  }
  SECTION("href=\"\" and href=\"#x\" are the base URL, without the fragment") {
    PageAnalysis a = analysis_of({{"", false}, {"#top", false}, {"#", false}, {"b.html", false}});
    a.base_href = "http://www.example.com/other/page.html?q=1";
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://www.example.com/other/page.html?q=1", false},
                             {"http://www.example.com/other/b.html", false}});
    REQUIRE(s.to_crawl.size() == 2);
    CHECK(s.to_crawl[0].url == "http://www.example.com/other/page.html?q=1");
  }
  SECTION("href=\"\" and href=\"#x\" without a base are the page itself: no link") {
    const SelectedLinks s = select_links(url_of(kPage), analysis_of({{"", false}, {"#top", false}}), *scope, {});
    CHECK(rows_of(s).empty());
    CHECK(s.to_crawl.empty());
  }
  SECTION("unusable: the page URL is the base") {
    PageAnalysis a = analysis_of({{"a.html", false}});
    a.base_href = "javascript:void(0)";
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://www.example.com/dir/a.html", false}});
  }
}

TEST_CASE("select_links: canonical", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  PageAnalysis a = analysis_of({});
  SECTION("relative") {
    a.canonical = "/dir/page.html?ref=x#f";
    CHECK(select_links(url_of(kPage), a, *scope, {}).canonical ==
          "http://www.example.com/dir/page.html?ref=x");
  }
  SECTION("absolute, normalized") {
    a.canonical = "HTTPS://Www.Example.com:443/a/./b";
    CHECK(select_links(url_of(kPage), a, *scope, {}).canonical == "https://www.example.com/a/b");
  }
  SECTION("not an http(s) URL") {
    a.canonical = "mailto:x@example.com";
    CHECK(select_links(url_of(kPage), a, *scope, {}).canonical.empty());
  }
}

TEST_CASE("select_links: rel=nofollow links are recorded but not crawled", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({
      {"/followed", false},
      {"/nf", true},
      {"http://other.example.net/nf", true},
  });
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(rows_of(s) == Rows{{"http://www.example.com/followed", false},
                           {"http://www.example.com/nf", true},
                           {"http://other.example.net/nf", true}});
  // The domain graph still sees the edge.
  CHECK(s.other_hosts == std::vector<std::string>{"other.example.net"});
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com/followed", "www.example.com"}});
  // Which rows were offered to the Frontier (links.followed).
  std::vector<bool> followed;
  for (const LinkRow& row : s.all.rows())
    followed.push_back(row.followed);
  CHECK(followed == std::vector<bool>{true, false, false});
}

// rel=nofollow qualifies one link, not the URL: a URL that the page also
// links to without it must be crawled, whichever link comes first.
TEST_CASE("select_links: a URL linked both with and without nofollow is crawled",
          "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  SECTION("nofollow first") {
    const PageAnalysis a = analysis_of({{"/x", true}, {"/x", false}});
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://www.example.com/x", true}});
    CHECK(crawl_of(s) == Crawl{{"http://www.example.com/x", "www.example.com"}});
    CHECK(s.all.followed(0));  // the URL was offered, through its second link
  }
  SECTION("nofollow second") {
    const PageAnalysis a = analysis_of({{"/x", false}, {"/x", true}});
    const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
    CHECK(rows_of(s) == Rows{{"http://www.example.com/x", false}});
    CHECK(crawl_of(s) == Crawl{{"http://www.example.com/x", "www.example.com"}});
  }
}

TEST_CASE("select_links: meta robots nofollow crawls nothing from the page", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  PageAnalysis a = analysis_of({{"/a", false}, {"http://other.org/", false}});
  a.follow_links = false;
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(rows_of(s) == Rows{{"http://www.example.com/a", false}, {"http://other.org/", false}});
  CHECK(s.other_hosts == std::vector<std::string>{"other.org"});
  CHECK(s.to_crawl.empty());
}

TEST_CASE("select_links: scope from allowed_domains and exclude patterns", "[link_selection]") {
  const auto scope = scope_of({"www.example.com", "127.0.0.2:8080"}, {"/private/", "\\.pdf$"},
                              {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({
      {"/public/a", false},
      {"/private/b", false},
      {"/doc.pdf", false},
      {"http://example.com/", false},
      {"http://127.0.0.2:8080/ok", false},
      {"http://127.0.0.2:9090/other-port", false},
  });
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(s.all.size() == 6);
  CHECK(s.other_hosts == std::vector<std::string>{"example.com", "127.0.0.2:8080", "127.0.0.2:9090"});
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com/public/a", "www.example.com"},
                             {"http://127.0.0.2:8080/ok", "127.0.0.2:8080"}});
}

TEST_CASE("SiteLinkSelector: follow_patterns choose the links, redirect hops are not held to them",
          "[link_selection]") {
  std::string error;
  std::shared_ptr<const LinkScope> scope =
    LinkScope::make(CrawlScope::domain, {}, {"/private/"}, {url_of("http://www.example.com/")}, &error, {"/docs/"});
  REQUIRE(scope);
  const SiteLinkSelector selector(scope, {});
  const SelectedLinks s = selector.select(url_of(kPage), analysis_of({
                                                             {"/docs/a", false},
                                                             {"/blog/b", false},
                                                             {"/private/docs/c", false},
                                                           }));
  // Every link is recorded; only the followed one is crawled.
  CHECK(s.all.size() == 3);
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com/docs/a", "www.example.com"}});
  // A hop answers for the link it came from: follow_patterns do not apply,
  // the domain and exclude patterns do.
  CHECK(selector.follows_redirect_to(url_of("http://www.example.com/moved/here")));
  CHECK_FALSE(selector.follows_redirect_to(url_of("http://www.example.com/private/x")));
  CHECK_FALSE(selector.follows_redirect_to(url_of("http://elsewhere.org/docs/")));
}

TEST_CASE("select_links: strip_query_params before dedup and everything else", "[link_selection]") {
  const auto scope = scope_of({}, {"sid="}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({
      {"/p?utm_source=x&id=1&sid=9", false},
      {"/p?id=1", false},
      {"/p?utm_medium=y&id=1", false},
      {"/q?utm_a=1", false},
      {"/r?keep=1&sid=2", false},
  });
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {"utm_*", "sid"});
  CHECK(rows_of(s) == Rows{{"http://www.example.com/p?id=1", false},
                           {"http://www.example.com/q", false},
                           {"http://www.example.com/r?keep=1", false}});
  // "sid=" would have excluded /p and /r, but the parameter is gone first.
  CHECK(crawl_of(s) == Crawl{{"http://www.example.com/p?id=1", "www.example.com"},
                             {"http://www.example.com/q", "www.example.com"},
                             {"http://www.example.com/r?keep=1", "www.example.com"}});
}

TEST_CASE("select_links: without strip_query_params the query is kept as is", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({{"/p?utm_source=x&id=1", false}, {"/p?id=1", false}});
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(rows_of(s) == Rows{{"http://www.example.com/p?utm_source=x&id=1", false},
                           {"http://www.example.com/p?id=1", false}});
}

TEST_CASE("select_links: links of a page reached through a redirect", "[link_selection]") {
  // page_url is the final URL: relative links and "other host" follow it.
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({{"next", false}, {"http://www.example.com/", false}});
  const SelectedLinks s = select_links(url_of("https://shop.example.com/cat/item"), a, *scope, {});
  CHECK(rows_of(s) == Rows{{"https://shop.example.com/cat/next", false},
                           {"http://www.example.com/", false}});
  CHECK(s.other_hosts == std::vector<std::string>{"www.example.com"});
  CHECK(crawl_of(s) == Crawl{{"https://shop.example.com/cat/next", "shop.example.com"},
                             {"http://www.example.com/", "www.example.com"}});
}

TEST_CASE("select_links: nothing usable", "[link_selection]") {
  const auto scope = scope_of({}, {}, {"http://www.example.com/"});
  const PageAnalysis a = analysis_of({{"mailto:a@b.c", false}, {"ftp://example.com/f", false},
                                      {"http://", false}, {"javascript:x()", false}});
  const SelectedLinks s = select_links(url_of(kPage), a, *scope, {});
  CHECK(s.all.empty());
  CHECK(s.other_hosts.empty());
  CHECK(s.to_crawl.empty());
  CHECK(s.canonical.empty());
}

TEST_CASE("select_links: at most max_links distinct links are read, the rest counted", "[link_selection]") {
  const auto scope = scope_of({}, {}, {kPage});
  std::vector<HtmlLink> links;
  // Duplicates do not use up the cap; distinct links do, in document order.
  links.push_back(HtmlLink{"/a", false});
  links.push_back(HtmlLink{"/a", false});
  for (int i = 0; i < 80000; ++i)
    links.push_back(HtmlLink{"http://host" + std::to_string(i) + ".example.com/p" + std::to_string(i), false});
  const SelectedLinks s = select_links(url_of(kPage), analysis_of(links), *scope, {}, 3);
  CHECK(rows_of(s) == Rows{{"http://www.example.com/a", false},
                           {"http://host0.example.com/p0", false},
                           {"http://host1.example.com/p1", false}});
  CHECK(s.other_hosts == std::vector<std::string>{"host0.example.com", "host1.example.com"});
  CHECK(crawl_of(s).size() == 3);
  CHECK(s.links_dropped == 80000 - 2);
  // Under the cap nothing is dropped.
  CHECK(select_links(url_of(kPage), analysis_of({HtmlLink{"/a", false}}), *scope, {}, 3).links_dropped == 0);
}

TEST_CASE("the domains profile's filter reads no further than max_links either", "[link_selection]") {
  std::string error;
  std::vector<HtmlLink> links;
  for (int i = 0; i < 1000; ++i)
    links.push_back(HtmlLink{"http://www.example.com/local" + std::to_string(i), false});
  links.push_back(HtmlLink{"http://other.test/", false});
  const auto capped = DomainLinkFilter::make({}, 10, &error, 100);
  const SelectedLinks s = capped->select(url_of(kPage), analysis_of(links));
  CHECK(s.all.size() == 100);
  CHECK(s.links_dropped == 901);
  CHECK(s.to_crawl.empty());  // other.test stands after the cap
  const auto uncapped = DomainLinkFilter::make({}, 10, &error);
  CHECK(uncapped->select(url_of(kPage), analysis_of(links)).to_crawl.size() == 1);
}

}  // namespace actorcrawl
