#include "core/sitemap/sitemap_walk.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sitemap_test_support.h"

namespace actorcrawl {
namespace {

using testing::gzip;
using testing::sitemapindex;
using testing::url;
using testing::url_entry;
using testing::urlset;

std::string index_of(const std::vector<std::string>& children) {
  std::string body;
  for (const auto& c : children) body += "<sitemap><loc>" + c + "</loc></sitemap>";
  return sitemapindex(body);
}

// A little web of sitemap documents: URL -> body (absent: a 404; a body
// "redirect:<URL>": a redirect there).
using Web = std::map<std::string, std::string>;
const std::string kRedirect = "redirect:";

struct Crawl {
  std::vector<std::string> fetched;             // sitemap URLs, in order
  std::vector<SitemapEntry> pages;              // for the frontier
};

// Drives `walk` over `web` as an integration would: fetch, feed in small
// chunks, take after each, finish.
Crawl run(SitemapWalk& walk, const Web& web, std::size_t chunk = 5) {
  Crawl crawl;
  while (auto fetch = walk.next()) {
    crawl.fetched.push_back(fetch->url);
    const auto found = web.find(fetch->url);
    if (found == web.end()) {
      walk.fetch_failed(*fetch, "http_404");
      continue;
    }
    if (found->second.rfind(kRedirect, 0) == 0) {
      walk.redirected(*fetch, found->second.substr(kRedirect.size()));
      continue;
    }
    SitemapParser parser(fetch->scope);
    const std::string& body = found->second;
    for (std::size_t at = 0; at < body.size(); at += chunk) {
      parser.feed(std::string_view(body).substr(at, chunk));
      for (auto& page : walk.take(*fetch, parser)) crawl.pages.push_back(std::move(page));
    }
    parser.finish();
    for (auto& page : walk.take(*fetch, parser)) crawl.pages.push_back(std::move(page));
    walk.finish(*fetch, parser.report());
  }
  CHECK(walk.idle());
  return crawl;
}

std::vector<std::string> urls_of(const std::vector<SitemapEntry>& pages) {
  std::vector<std::string> out;
  for (const auto& p : pages) out.push_back(p.url);
  return out;
}

}  // namespace

TEST_CASE("walk: robots.txt's sitemaps, an index and its children give pages with lastmod", "[sitemap][walk]") {
  const Web web = {
      {"https://example.com/sitemap_index.xml",
       index_of({"https://example.com/posts.xml.gz", "https://example.com/sitemaps/pages.txt"})},
      {"https://example.com/posts.xml.gz",
       gzip(urlset(url_entry("https://example.com/p/1", "<lastmod>2024-03-01</lastmod>") +
                   url_entry("https://example.com/p/2")))},
      {"https://example.com/sitemaps/pages.txt", "https://example.com/about\nhttps://example.com/contact\n"},
  };
  SitemapWalk walk;
  walk.on_robots(url("https://example.com/robots.txt"), {"https://example.com/sitemap_index.xml"}, true);
  CHECK(walk.queued() == 1);
  const Crawl crawl = run(walk, web);
  CHECK(crawl.fetched == std::vector<std::string>{"https://example.com/sitemap_index.xml",
                                                  "https://example.com/posts.xml.gz",
                                                  "https://example.com/sitemaps/pages.txt"});
  CHECK(urls_of(crawl.pages) == std::vector<std::string>{"https://example.com/p/1", "https://example.com/p/2",
                                                         "https://example.com/about", "https://example.com/contact"});
  CHECK(crawl.pages[0].lastmod_ms == 1709251200000);
  const auto& c = walk.counts();
  CHECK(c.sitemaps_queued == 3);
  CHECK(c.sitemaps_fetched == 3);
  CHECK(c.indexes == 1);
  CHECK(c.urlsets == 2);
  CHECK(c.urls_found == 4);
  CHECK(c.urls_accepted == 4);
  CHECK(c.urls_with_lastmod == 1);
  CHECK(c.document_errors.empty());
  CHECK(c.urls_dropped.empty());
}

TEST_CASE("walk: with no Sitemap: line, a seed host's /sitemap.xml is tried", "[sitemap][walk]") {
  SitemapWalk walk;
  walk.on_robots(url("http://example.com:8080/robots.txt"), {}, true);
  walk.on_robots(url("https://other.example/robots.txt"), {}, false);
  auto fetch = walk.next();
  REQUIRE(fetch);
  CHECK(fetch->url == "http://example.com:8080/sitemap.xml");
  CHECK(fetch->host_key == "example.com:8080");
  CHECK(fetch->guessed);
  CHECK(fetch->depth == 0);
  CHECK(fetch->named_by == "http://example.com:8080/robots.txt");
  CHECK_FALSE(walk.next());
  walk.fetch_failed(*fetch, "http_404");
  CHECK(walk.idle());
  CHECK(walk.counts().sitemaps_failed == 1);
  CHECK(walk.counts().document_errors.at("http_404") == 1);
  walk.on_robots(url("http://[::1]:8080/robots.txt"), {}, true);
  const auto v6 = walk.next();
  REQUIRE(v6);
  CHECK(v6->url == "http://[::1]:8080/sitemap.xml");
  walk.fetch_failed(*v6, "http_404");
  // robots.txt read again: nothing is queued twice.
  walk.on_robots(url("http://example.com:8080/robots.txt"), {}, true);
  CHECK_FALSE(walk.next());
  CHECK(walk.counts().sitemaps_refused.at("sitemap_seen") == 1);
}

TEST_CASE("walk: a loop of indexes ends, each sitemap fetched once", "[sitemap][walk]") {
  const Web web = {
      {"https://example.com/a.xml", index_of({"https://example.com/b.xml", "https://example.com/a.xml"})},
      {"https://example.com/b.xml", index_of({"https://example.com/a.xml", "https://example.com/./b.xml",
                                              "https://example.com/c.xml"})},
      {"https://example.com/c.xml", urlset(url_entry("https://example.com/page"))},
  };
  SitemapWalk walk;
  walk.on_robots(url("https://example.com/robots.txt"), {"https://example.com/a.xml", "https://EXAMPLE.com/a.xml"},
                 true);
  const Crawl crawl = run(walk, web);
  CHECK(crawl.fetched == std::vector<std::string>{"https://example.com/a.xml", "https://example.com/b.xml",
                                                  "https://example.com/c.xml"});
  CHECK(urls_of(crawl.pages) == std::vector<std::string>{"https://example.com/page"});
  CHECK(walk.counts().sitemaps_refused.at("sitemap_seen") == 4);
}

TEST_CASE("walk: indexes nest at most max_depth deep", "[sitemap][walk]") {
  Web web;
  for (int i = 0; i < 6; ++i)
    web["https://example.com/i" + std::to_string(i) + ".xml"] =
        index_of({"https://example.com/i" + std::to_string(i + 1) + ".xml"});
  SitemapWalk walk;  // max_depth 3
  walk.add_sitemap("https://example.com/i0.xml");
  const Crawl crawl = run(walk, web);
  CHECK(crawl.fetched.size() == 4);  // depths 0 to 3
  CHECK(crawl.fetched.back() == "https://example.com/i3.xml");
  CHECK(walk.counts().sitemaps_refused.at("sitemap_depth") == 1);

  SitemapWalkLimits flat;
  flat.max_depth = 0;
  SitemapWalk none(flat);
  none.add_sitemap("https://example.com/i0.xml");
  CHECK(run(none, web).fetched.size() == 1);
}

TEST_CASE("walk: per-host caps on documents and on URLs", "[sitemap][walk]") {
  SitemapWalkLimits limits;
  limits.max_documents_per_host = 3;
  limits.max_urls_per_host = 5;
  std::vector<std::string> children;
  Web web;
  for (int i = 0; i < 10; ++i) {
    const std::string child = "https://example.com/s" + std::to_string(i) + ".xml";
    children.push_back(child);
    std::string body;
    for (int j = 0; j < 4; ++j) body += url_entry("https://example.com/p" + std::to_string(i) + "_" + std::to_string(j));
    web[child] = urlset(body);
  }
  web["https://example.com/index.xml"] = index_of(children);
  SitemapWalk walk(limits);
  walk.on_robots(url("https://example.com/robots.txt"), {"https://example.com/index.xml"}, true);
  const Crawl crawl = run(walk, web);
  CHECK(crawl.fetched.size() == 3);  // the index and two children
  CHECK(walk.counts().sitemaps_refused.at("sitemap_host_cap") == 8);
  CHECK(crawl.pages.size() == 5);
  CHECK(walk.counts().urls_found == 8);
  CHECK(walk.counts().urls_accepted == 5);
  CHECK(walk.counts().urls_dropped.at("sitemap_url_cap") == 3);
}

TEST_CASE("walk: cross-submission - scopes pass from an index to its children", "[sitemap][walk]") {
  const Web web = {
      // shop.example's robots.txt names an index kept on a sitemap host.
      {"https://maps.example/shop/index.xml", index_of({"https://maps.example/shop/part/1.xml",
                                                        "https://elsewhere.example/2.xml"})},
      {"https://maps.example/shop/part/1.xml",
       urlset(url_entry("https://shop.example/product/1") + url_entry("https://maps.example/shop/part/x") +
              url_entry("https://maps.example/shop/y") + url_entry("https://maps.example/other") +
              url_entry("https://third.example/"))},
  };
  SitemapWalk walk;
  walk.on_robots(url("https://shop.example/robots.txt"), {"https://maps.example/shop/index.xml"}, true);
  const Crawl crawl = run(walk, web);
  CHECK(crawl.fetched.size() == 2);
  // The index's grants: shop.example (its robots.txt) and /shop/ on
  // maps.example; the child's own directory is inside them.
  CHECK(urls_of(crawl.pages) == std::vector<std::string>{"https://shop.example/product/1",
                                                         "https://maps.example/shop/part/x",
                                                         "https://maps.example/shop/y"});
  CHECK(walk.counts().sitemaps_refused.at("other_host") == 1);  // elsewhere.example in the index
  CHECK(walk.counts().urls_dropped.at("outside_path") == 1);
  CHECK(walk.counts().urls_dropped.at("other_host") == 1);
}

TEST_CASE("walk: a redirect is followed as a document of its own, with the grants of the one that redirected",
          "[sitemap][walk]") {
  const Web web = {
      {"https://shop.example/sitemap.xml", kRedirect + "https://cdn.example/maps/s.xml"},
      {"https://cdn.example/maps/s.xml",
       urlset(url_entry("https://shop.example/p") + url_entry("https://cdn.example/maps/q") +
              url_entry("https://cdn.example/other"))},
  };
  SitemapWalk walk;
  walk.on_robots(url("https://shop.example/robots.txt"), {"https://shop.example/sitemap.xml"}, false);
  auto first = walk.next();
  REQUIRE(first);
  walk.redirected(*first, "https://cdn.example/maps/s.xml");
  const auto target = walk.next();
  REQUIRE(target);
  CHECK(target->url == "https://cdn.example/maps/s.xml");
  CHECK(target->host_key == "cdn.example");
  CHECK(target->depth == 0);  // a redirect is no level of the tree
  CHECK(target->named_by == "https://shop.example/sitemap.xml");
  CHECK(target->redirects == 1);
  CHECK(walk.counts().sitemaps_redirected == 1);

  // The same, driven to the end: shop.example's pages (the grant its
  // robots.txt gave the sitemap it named) and the target's own directory.
  SitemapWalk again;
  again.on_robots(url("https://shop.example/robots.txt"), {"https://shop.example/sitemap.xml"}, false);
  const Crawl crawl = run(again, web);
  CHECK(crawl.fetched ==
        std::vector<std::string>{"https://shop.example/sitemap.xml", "https://cdn.example/maps/s.xml"});
  CHECK(urls_of(crawl.pages) == std::vector<std::string>{"https://shop.example/p", "https://cdn.example/maps/q"});
  CHECK(again.counts().urls_dropped.at("outside_path") == 1);
}

TEST_CASE("walk: redirects end: a loop, a chain past max_redirects, a Location that is no URL", "[sitemap][walk]") {
  SECTION("a loop: each URL fetched once") {
    const Web web = {{"https://a.example/1.xml", kRedirect + "https://a.example/2.xml"},
                     {"https://a.example/2.xml", kRedirect + "https://a.example/1.xml"}};
    SitemapWalk walk;
    walk.on_robots(url("https://a.example/robots.txt"), {"https://a.example/1.xml"}, false);
    CHECK(run(walk, web).fetched == std::vector<std::string>{"https://a.example/1.xml", "https://a.example/2.xml"});
    CHECK(walk.counts().sitemaps_refused.at("sitemap_seen") == 1);
  }
  SECTION("a chain: max_redirects hops followed, the next refused") {
    Web web;
    for (int i = 0; i < 10; ++i)
      web["https://a.example/" + std::to_string(i) + ".xml"] =
        kRedirect + "https://a.example/" + std::to_string(i + 1) + ".xml";
    SitemapWalkLimits limits;
    limits.max_redirects = 3;
    SitemapWalk walk(limits);
    walk.on_robots(url("https://a.example/robots.txt"), {"https://a.example/0.xml"}, false);
    CHECK(run(walk, web).fetched.size() == 4);  // 0.xml and three hops
    CHECK(walk.counts().sitemaps_redirected == 4);
    CHECK(walk.counts().sitemaps_refused.at("sitemap_redirects") == 1);
  }
  SECTION("a Location that names a page, not a sitemap document") {
    const Web web = {{"https://a.example/sitemap.xml", kRedirect + "https://a.example/"},
                     {"https://a.example/maps/1", kRedirect + "https://a.example/maps/1.XML"},
                     {"https://a.example/maps/1.XML", urlset("")},
                     {"https://a.example/maps/2", kRedirect + "https://a.example/Sitemap?part=2"},
                     {"https://a.example/Sitemap?part=2", urlset("")},
                     {"https://a.example/maps/3", kRedirect + "https://a.example/maps/3.txt"},
                     {"https://a.example/maps/4", kRedirect + "https://a.example/maps/4.xml.gz"},
                     {"https://a.example/maps/5", kRedirect + "https://a.example/about.html"}};
    SitemapWalk walk;
    walk.on_robots(url("https://a.example/robots.txt"), {}, true);  // the guess: /sitemap.xml
    for (int i = 1; i <= 5; ++i)
      walk.add_sitemap("https://a.example/maps/" + std::to_string(i));
    const auto fetched = run(walk, web).fetched;
    CHECK(std::count(fetched.begin(), fetched.end(), "https://a.example/") == 0);
    CHECK(std::count(fetched.begin(), fetched.end(), "https://a.example/about.html") == 0);
    CHECK(fetched.size() == 6 + 4);  // the six named, four targets
    CHECK(walk.counts().sitemaps_refused.at("sitemap_redirect_to_page") == 2);
  }
  SECTION("a Location that is no http(s) URL") {
    const Web web = {{"https://a.example/1.xml", kRedirect + "ftp://a.example/1.xml"}};
    SitemapWalk walk;
    walk.on_robots(url("https://a.example/robots.txt"), {"https://a.example/1.xml"}, false);
    CHECK(run(walk, web).fetched.size() == 1);
    CHECK(walk.counts().sitemaps_refused.at("sitemap_bad_url") == 1);
  }
}

TEST_CASE("walk: a sitemap named again while queued gains the new grant", "[sitemap][walk]") {
  SitemapWalk walk;
  walk.on_robots(url("https://a.example/robots.txt"), {"https://maps.example/all.xml"}, false);
  walk.on_robots(url("https://b.example/robots.txt"), {"https://maps.example/all.xml"}, false);
  const auto fetch = walk.next();
  REQUIRE(fetch);
  CHECK_FALSE(fetch->scope.check(url("https://a.example/x")));
  CHECK_FALSE(fetch->scope.check(url("https://b.example/x")));
  CHECK(fetch->scope.check(url("https://c.example/x")) == SitemapDrop::other_host);
}

TEST_CASE("walk: bad Sitemap: lines and parser errors are counted by name", "[sitemap][walk]") {
  const Web web = {
      {"https://example.com/broken.xml", urlset(url_entry("https://example.com/ok")).substr(0, 150)},
      {"https://example.com/html.xml", "<!DOCTYPE html><html><body>Not found</body></html>"},
  };
  SitemapWalk walk;
  walk.on_robots(url("https://example.com/robots.txt"),
                 {"not a url", "ftp://example.com/x.xml", "https://example.com/broken.xml",
                  "https://example.com/html.xml", "https://example.com/missing.xml"},
                 true);
  CHECK_FALSE(walk.add_sitemap("mailto:x@example.com"));
  const Crawl crawl = run(walk, web);
  CHECK(urls_of(crawl.pages) == std::vector<std::string>{"https://example.com/ok"});
  const auto& c = walk.counts();
  CHECK(c.sitemaps_refused.at("sitemap_bad_url") == 3);
  CHECK(c.document_errors.at("sitemap_malformed") == 1);
  CHECK(c.document_errors.at("sitemap_not_sitemap") == 1);
  CHECK(c.document_errors.at("http_404") == 1);
  CHECK(c.sitemaps_fetched == 2);
  CHECK(c.sitemaps_failed == 1);
}

TEST_CASE("walk: take() on plain values, as a message would carry them", "[sitemap][walk]") {
  SitemapWalk walk;
  walk.add_sitemap("https://example.com/index.xml");
  const auto fetch = walk.next();
  REQUIRE(fetch);
  SitemapEntry child;
  child.url = "https://example.com/child.xml";
  CHECK(walk.take(*fetch, SitemapKind::index, {child}).empty());
  SitemapReport report;
  report.kind = SitemapKind::index;
  report.counts.urls_found = 1;
  report.counts.urls_accepted = 1;
  walk.finish(*fetch, report);
  const auto next = walk.next();
  REQUIRE(next);
  CHECK(next->url == "https://example.com/child.xml");
  CHECK(next->depth == 1);
  CHECK(next->named_by == "https://example.com/index.xml");
  CHECK(walk.in_flight() == 1);
}

}  // namespace actorcrawl
