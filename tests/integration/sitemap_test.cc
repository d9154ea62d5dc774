// Sitemaps in a crawl, end to end: robots.txt names them, the crawl fetches
// each once under its host's robots.txt and politeness, and the pages they
// list (which nothing links to) are crawled. Hostile sitemaps end with named
// outcomes and the crawl still finishes. The test web's record of requests
// is the judge of what was fetched; the database of what was recorded.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "crawl_fixture.h"
#include "tests/unit/sitemap/sitemap_test_support.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::Response;
using demoweb::LoopbackWeb;

namespace {

Response xml(std::string body) { return typed(std::move(body), "application/xml"); }
Response text_response(std::string body) { return typed(std::move(body), "text/plain"); }

// A robots.txt for every agent that disallows `disallow` ("": nothing) and
// names `sitemaps`, one Sitemap: line each.
Response robots_txt(const std::vector<std::string>& sitemaps, const std::string& disallow = "") {
  std::string text = "User-agent: *\nDisallow:" + (disallow.empty() ? "" : " " + disallow) + "\n";
  for (const auto& sitemap : sitemaps)
    text += "Sitemap: " + sitemap + "\n";
  return text_response(std::move(text));
}

// fast_config with sitemaps as the site profile has them by default.
CrawlConfig sitemap_config(const ScratchDir& dir, const std::string& seed) {
  auto config = fast_config(dir, seed);
  config.given.erase("sitemaps");
  REQUIRE(config.sitemaps_enabled());
  return config;
}

// The targets `host` was asked for, in order.
std::vector<std::string> targets_on(const LoopbackWeb& web, const std::string& host) {
  std::vector<std::string> out;
  for (const auto& r : web.requests())
    if (r.host_key == host)
      out.push_back(r.target);
  return out;
}

// "<status>[/<reason>]" -> count, from what the run reported.
std::map<std::string, std::int64_t> outcomes(const CrawlRunResult& result) {
  std::map<std::string, std::int64_t> out;
  for (const auto& o : result.summary.sitemap_outcomes)
    out[o.outcome] += o.count;
  return out;
}

// A gzip of `size` bytes of whitespace inside a <urlset>, made a megabyte
// at a time: about a megabyte compressed, 1 GiB when inflated.
std::string gzip_bomb(std::size_t size) {
  Gzipper g(1);  // fast: the inflated size is what matters
  std::string out = g.add(std::string{"<?xml version=\"1.0\"?><urlset xmlns=\""} + kSitemapNs + "\">");
  const std::string spaces(1 << 20, ' ');
  for (std::size_t done = 0; done < size; done += spaces.size())
    out += g.add(spaces);
  out += g.add("</urlset>");
  return out + g.end();
}

}  // namespace

TEST_CASE("robots.txt sitemaps lead the crawl to pages nothing links to, each sitemap fetched once",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({u("/sitemap_index.xml"), u("/private/sitemap.xml")}, "/private/"));
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/sitemap_index.xml",
            xml(sitemapindex("<sitemap><loc>" + u("/maps/pages.xml.gz") + "</loc></sitemap>"
                             "<sitemap><loc>" + u("/maps/more.txt") + "</loc></sitemap>")));
  web.route(a, "/maps/pages.xml.gz",
            typed(gzip(urlset(url_entry(u("/hidden/1.html"), "<lastmod>2024-01-02</lastmod>") +
                                url_entry(u("/hidden/2.html")))),
                    "application/gzip"));
  web.route(a, "/maps/more.txt", typed(u("/hidden/3.html") + "\n" + u("/hidden/4.html") + "\n", "text/plain"));
  // Named by robots.txt, but robots.txt disallows it.
  web.route(a, "/private/sitemap.xml", xml(urlset(url_entry(u("/hidden/5.html")))));
  for (int i = 1; i <= 5; ++i)
    web.route(a, "/hidden/" + std::to_string(i) + ".html", html(page("Hidden " + std::to_string(i), {})));

  auto config = sitemap_config(dir, u("/"));
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");

  // Every sitemap once; the disallowed one, and what only it lists, never.
  CHECK(web.count(a, "/sitemap_index.xml") == 1);
  CHECK(web.count(a, "/maps/pages.xml.gz") == 1);
  CHECK(web.count(a, "/maps/more.txt") == 1);
  CHECK(web.count(a, "/private/sitemap.xml") == 0);
  CHECK(web.count(a, "/sitemap.xml") == 0);  // robots.txt named sitemaps: nothing guessed
  CHECK(targets_seen(web, a) == std::map<std::string, int>{{"/", 1},
                                                            {"/hidden/1.html", 1},
                                                            {"/hidden/2.html", 1},
                                                            {"/hidden/3.html", 1},
                                                            {"/hidden/4.html", 1},
                                                            {"/maps/more.txt", 1},
                                                            {"/maps/pages.xml.gz", 1},
                                                            {"/sitemap_index.xml", 1}});

  const auto db = config.db_path;
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE url LIKE '%/hidden/%' AND status_code = 200") == 4);
  // At depth 1, the sitemap as their parent, <lastmod> kept.
  CHECK(column(db, "SELECT depth || ' ' || parent_url || ' ' || IFNULL(lastmod, '-') FROM frontier "
                   "WHERE url LIKE '%/hidden/1.html'") ==
        std::vector<std::string>{"1 " + u("/maps/pages.xml.gz") + " 1704153600000"});
  CHECK(column(db, "SELECT IFNULL(lastmod, '-') FROM frontier WHERE url LIKE '%/hidden/3.html'") ==
        std::vector<std::string>{"-"});
  CHECK(column(db, "SELECT url || ' ' || status || ' ' || IFNULL(reason, '-') || ' ' || urls_found || ' ' || "
                   "urls_accepted FROM sitemaps ORDER BY url") ==
        std::vector<std::string>{u("/maps/more.txt") + " fetched - 2 2", u("/maps/pages.xml.gz") + " fetched - 2 2",
                                 u("/private/sitemap.xml") + " refused robots_txt 0 0",
                                 u("/sitemap_index.xml") + " fetched - 2 2"});
  CHECK(result.summary.sitemap_urls_queued == 4);
  CHECK(outcomes(result) == std::map<std::string, std::int64_t>{{"fetched", 3}, {"refused/robots_txt", 1}});
}

TEST_CASE("a seed host whose robots.txt names no sitemap has its /sitemap.xml read", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  web.route(a, "/robots.txt", robots_txt({}));
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/sitemap.xml", xml(urlset(url_entry(LoopbackWeb::url(a, "/only-in-sitemap")))));
  web.route(a, "/only-in-sitemap", html(page("Listed", {})));

  auto config = sitemap_config(dir, LoopbackWeb::url(a, "/"));
  const auto result = crawl(config);
  CHECK(web.count(a, "/sitemap.xml") == 1);
  CHECK(web.count(a, "/only-in-sitemap") == 1);

  // Off: neither guessed nor read.
  ScratchDir dir2;
  LoopbackWeb web2;
  auto b = web2.add_host("127.0.0.1");
  web2.route(b, "/robots.txt", robots_txt({LoopbackWeb::url(b, "/s.xml")}));
  web2.route(b, "/", html(page("Root", {})));
  web2.route(b, "/s.xml", xml(urlset(url_entry(LoopbackWeb::url(b, "/only-in-sitemap")))));
  auto off = sitemap_config(dir2, LoopbackWeb::url(b, "/"));
  off.sitemaps = false;
  off.given["sitemaps"] = "test";
  crawl(off);
  CHECK(web2.count(b, "/s.xml") == 0);
  CHECK(web2.count(b, "/sitemap.xml") == 0);
  CHECK(web2.count(b, "/only-in-sitemap") == 0);
}

TEST_CASE("hostile sitemaps end with named outcomes and the crawl finishes", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt",
            robots_txt({u("/entities.xml"), u("/loop-a.xml"), u("/bomb.xml.gz"), u("/other.xml")}));
  web.route(a, "/", html(page("Root", {})));
  // Billion laughs: entities that expand to a gigabyte.
  std::string laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n<!ENTITY lol \"lol\">\n";
  for (int i = 1; i <= 9; ++i)
    laughs += "<!ENTITY lol" + std::to_string(i) + " \"" + [&] {
      std::string refs;
      for (int k = 0; k < 10; ++k)
        refs += i == 1 ? "&lol;" : "&lol" + std::to_string(i - 1) + ";";
      return refs;
    }() + "\">\n";
  laughs += "]>\n<urlset xmlns=\"" + std::string{kSitemapNs} + "\"><url><loc>" + u("/x") + "&lol9;</loc></url></urlset>";
  web.route(a, "/entities.xml", xml(laughs));
  // A loop of indexes: each names the other.
  web.route(a, "/loop-a.xml", xml(sitemapindex("<sitemap><loc>" + u("/loop-b.xml") + "</loc></sitemap>")));
  web.route(a, "/loop-b.xml", xml(sitemapindex("<sitemap><loc>" + u("/loop-a.xml") + "</loc></sitemap>")));
  web.route(a, "/bomb.xml.gz", typed(gzip_bomb(std::size_t{1} << 30), "application/gzip"));
  // Pages of another host, which this sitemap may not list.
  web.route(a, "/other.xml", xml(urlset(url_entry(LoopbackWeb::url(b, "/p1")) + url_entry(LoopbackWeb::url(b, "/p2")))));
  web.route(b, "/p1", html(page("P1", {})));
  web.route(b, "/p2", html(page("P2", {})));

  auto config = sitemap_config(dir, u("/"));
  config.scope = "any";  // the crawl's scope would take b: the sitemap protocol must not
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");

  for (const char* path : {"/entities.xml", "/loop-a.xml", "/loop-b.xml", "/bomb.xml.gz", "/other.xml"}) {
    INFO(path);
    CHECK(web.count(a, path) == 1);
  }
  CHECK(web.count(a, "/x") == 0);
  CHECK(web.count(b, "/p1") == 0);
  CHECK(web.count(b, "/p2") == 0);
  const auto db = config.db_path;
  CHECK(column(db, "SELECT url || ' ' || status || ' ' || IFNULL(reason, '-') || ' ' || urls_accepted FROM sitemaps "
                   "ORDER BY url") ==
        std::vector<std::string>{u("/bomb.xml.gz") + " failed gzip_bomb 0", u("/entities.xml") + " failed sitemap_entities 0",
                                 u("/loop-a.xml") + " fetched - 1", u("/loop-b.xml") + " fetched - 0",
                                 u("/other.xml") + " fetched - 0"});
  const auto seen = outcomes(result);
  CHECK(seen.at("not_fetched/sitemap_seen") == 1);
  CHECK(seen.at("not_fetched/url_other_host") == 2);
  CHECK(seen.at("failed/gzip_bomb") == 1);
  CHECK(seen.at("failed/sitemap_entities") == 1);
}

TEST_CASE("a later run on the same database does not fetch a sitemap an earlier run read", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({u("/s.xml")}));
  web.route(a, "/", html(page("Root", {})));
  std::string entries;
  for (int i = 1; i <= 4; ++i) {
    entries += url_entry(u("/listed/" + std::to_string(i)));
    web.route(a, "/listed/" + std::to_string(i), html(page("Listed", {})));
  }
  web.route(a, "/s.xml", xml(urlset(entries)));

  // The first run's budget ends before the listed pages do.
  auto config = sitemap_config(dir, u("/"));
  config.max_pages = 2;
  const auto first = crawl(config);
  CHECK(first.termination_reason == "max_pages");
  CHECK(web.count(a, "/s.xml") == 1);
  // Every URL the sitemap listed is kept for later, though the budget ended.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE url LIKE '%/listed/%'") == 4);
  // The second resumes the queued pages; robots.txt is read again, and the
  // sitemap it names is not.
  config.max_pages = 10;
  const auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  CHECK(web.count(a, "/s.xml") == 1);
  for (int i = 1; i <= 4; ++i)
    CHECK(web.count(a, "/listed/" + std::to_string(i)) == 1);
  CHECK(outcomes(second) == std::map<std::string, std::int64_t>{{"not_fetched/sitemap_read_before", 1}});
}

// b is outside the crawl: its robots.txt is read only to fetch a's sitemap
// there, and the sitemaps it names for itself are not read.
TEST_CASE("a sitemap on another host waits for that host's robots.txt and may list the naming host's pages",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  // a's robots.txt vouches for a sitemap kept on b (cross-submission).
  web.route(a, "/robots.txt", robots_txt({LoopbackWeb::url(b, "/cross.xml")}));
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/from-b", html(page("Listed on b", {})));
  web.route(b, "/robots.txt", robots_txt({LoopbackWeb::url(b, "/own.xml")}, "/private/"));
  web.route(b, "/cross.xml", xml(urlset(url_entry(LoopbackWeb::url(a, "/from-b")))));
  web.route(b, "/own.xml", xml(urlset(url_entry(LoopbackWeb::url(b, "/b-page")))));

  auto config = sitemap_config(dir, LoopbackWeb::url(a, "/"));
  const auto result = crawl(config);
  CHECK(outcomes(result).at("not_fetched/sitemap_host_not_crawled") == 1);
  CHECK(targets_on(web, b) == std::vector<std::string>{"/robots.txt", "/cross.xml"});
  CHECK(web.count(a, "/from-b") == 1);
}

// A sitemap's redirect is followed the way a page's would be, but through
// the HostSelector: the target is a document of its own, fetched under its
// own host's robots.txt and politeness; a loop of redirects ends; and a
// later run requests neither the redirect nor its target again.
TEST_CASE("a sitemap's redirect is followed under the target host's robots.txt, every request once",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({u("/sitemap.xml"), u("/loop-1.xml")}));
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/from-map", html(page("Listed on b", {})));
  web.route(a, "/sitemap.xml", redirect(301, LoopbackWeb::url(b, "/maps/s.xml")));
  web.route(a, "/loop-1.xml", redirect(302, u("/loop-2.xml")));
  web.route(a, "/loop-2.xml", redirect(302, u("/loop-1.xml")));
  web.route(b, "/robots.txt", robots_txt({}, "/private/"));
  // a's page by the grant of a's robots.txt, which named the sitemap that
  // redirected here.
  web.route(b, "/maps/s.xml", xml(urlset(url_entry(u("/from-map")))));

  auto config = sitemap_config(dir, u("/"));
  const auto first = crawl(config);
  CHECK(first.termination_reason == "queue_empty");
  CHECK(targets_on(web, b) == std::vector<std::string>{"/robots.txt", "/maps/s.xml"});
  for (const char* path : {"/sitemap.xml", "/loop-1.xml", "/loop-2.xml", "/from-map", "/"}) {
    INFO(path);
    CHECK(web.count(a, path) == 1);
  }
  CHECK(column(config.db_path, "SELECT url || ' ' || status || ' ' || IFNULL(reason, '-') FROM sitemaps ORDER BY url") ==
        std::vector<std::string>{u("/loop-1.xml") + " redirected http_302", u("/loop-2.xml") + " redirected http_302",
                                 u("/sitemap.xml") + " redirected http_301",
                                 LoopbackWeb::url(b, "/maps/s.xml") + " fetched -"});
  const auto seen = outcomes(first);
  CHECK(seen.at("redirected/http_301") == 1);
  CHECK(seen.at("redirected/http_302") == 2);
  CHECK(seen.at("not_fetched/sitemap_seen") == 1);

  const auto requests = web.requests().size();
  const auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  // Only robots.txt, which each run reads anew.
  std::vector<std::string> again;
  for (std::size_t i = requests; i < web.requests().size(); ++i)
    if (web.requests()[i].target != "/robots.txt")
      again.push_back(web.requests()[i].target);
  CHECK(again.empty());
}

// Sites often answer a missing /sitemap.xml with a redirect to their home
// page: that page is the crawl's, and is not requested as a sitemap too.
TEST_CASE("a guessed /sitemap.xml that redirects to the home page does not request it twice",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({}));
  web.route(a, "/", html(page("Root", {"/about"})));
  web.route(a, "/about", html(page("About", {})));
  web.route(a, "/sitemap.xml", redirect(302, u("/")));
  auto config = sitemap_config(dir, u("/"));
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(web.count(a, "/") == 1);
  CHECK(web.count(a, "/about") == 1);
  CHECK(web.count(a, "/sitemap.xml") == 1);
  const auto seen = outcomes(result);
  CHECK(seen.at("redirected/http_302") == 1);
  CHECK(seen.at("not_fetched/sitemap_redirect_to_page") == 1);
}

// A sitemap the user names (sitemap_urls) is read though no robots.txt
// names it, under its own host's robots.txt; it may list the seeds' pages,
// and the crawl's scope still holds for each.
TEST_CASE("a sitemap the user names is read under its host's robots.txt and may list the seeds' pages",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({}));
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/only-in-the-map", html(page("Listed", {})));
  web.route(b, "/robots.txt", robots_txt({}, "/private/"));
  web.route(b, "/maps/all.xml", xml(urlset(url_entry(u("/only-in-the-map")) +
                                           url_entry(LoopbackWeb::url(b, "/maps/b-page")))));
  web.route(b, "/private/s.xml", xml(urlset(url_entry(u("/never")))));

  auto config = sitemap_config(dir, u("/"));
  config.scope = "host";  // b's pages are outside the crawl
  config.sitemap_urls = {LoopbackWeb::url(b, "/maps/all.xml"), LoopbackWeb::url(b, "/private/s.xml")};
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(targets_on(web, b) == std::vector<std::string>{"/robots.txt", "/maps/all.xml"});
  CHECK(web.count(a, "/only-in-the-map") == 1);
  CHECK(web.count(a, "/never") == 0);
  CHECK(web.count(a, "/sitemap.xml") == 1);  // a's robots.txt names none: the seed host's guess
  const auto seen = outcomes(result);
  CHECK(seen.at("refused/robots_txt") == 1);
  CHECK(seen.at("not_fetched/url_out_of_scope") == 1);
}

TEST_CASE("without robots.txt, the sitemaps the user names are still read", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/", html(page("Root", {})));
  web.route(a, "/listed", html(page("Listed", {})));
  web.route(a, "/maps.xml", xml(urlset(url_entry(u("/listed")))));
  auto config = sitemap_config(dir, u("/"));
  config.respect_robots_txt = false;
  config.sitemap_urls = {u("/maps.xml")};
  CHECK(crawl(config).termination_reason == "queue_empty");
  CHECK(web.count(a, "/robots.txt") == 0);
  CHECK(web.count(a, "/maps.xml") == 1);
  CHECK(web.count(a, "/listed") == 1);
}

// A <lastmod> later than the page's last fetch brings the page back in a
// later run, before revisit_after would: the sitemap is read again once
// revisit_min has passed, and only the page it says changed is fetched.
TEST_CASE("a sitemap's later <lastmod> brings back only the page it says changed", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/robots.txt", robots_txt({u("/s.xml")}));
  web.route(a, "/", html(page("Root", {})));
  const auto sitemap = [&](const std::string& second_lastmod) {
    std::string entries;
    for (int i = 1; i <= 3; ++i)
      entries += url_entry(u("/listed/" + std::to_string(i)),
                           "<lastmod>" + (i == 2 ? second_lastmod : std::string{"2020-01-01"}) + "</lastmod>");
    return xml(urlset(entries));
  };
  for (int i = 1; i <= 3; ++i)
    web.route(a, "/listed/" + std::to_string(i), html(page("Listed", {})));
  web.route(a, "/s.xml", sitemap("2020-01-01"));

  auto config = sitemap_config(dir, u("/"));
  config.revisit_after_ms = 24LL * 3600 * 1000;  // no page is due by its interval in this test
  config.revisit_min_ms = 1;
  CHECK(crawl(config).termination_reason == "queue_empty");
  for (int i = 1; i <= 3; ++i)
    CHECK(web.count(a, "/listed/" + std::to_string(i)) == 1);

  // The site says /listed/2 changed after the first run fetched it (a
  // <lastmod> a second later than the run's end, in whole seconds, and no
  // later than now when the second run reads it).
  const auto changed_at = std::chrono::system_clock::now() + std::chrono::seconds{1};
  const std::time_t t = std::chrono::system_clock::to_time_t(changed_at);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  web.route(a, "/s.xml", sitemap(stamp));
  std::this_thread::sleep_until(changed_at + std::chrono::milliseconds{100});

  const auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  std::string told;
  for (const auto& [outcome, n] : outcomes(second))
    told += outcome + "=" + std::to_string(n) + " ";
  INFO("sitemap outcomes of the second run: " << told);
  CHECK(web.count(a, "/s.xml") == 2);
  CHECK(web.count(a, "/listed/1") == 1);
  CHECK(web.count(a, "/listed/2") == 2);
  CHECK(web.count(a, "/listed/3") == 1);
  CHECK(web.count(a, "/") == 1);
}

namespace {

// A server on raw sockets that answers /sitemap.xml with a 200 promising
// ten megabytes, sends the head of a urlset of `entries` whole <url>s and
// part of one more, then resets the connection (RST). Every other path is
// a 404. One connection at a time, until destroyed.
class CutShortServer {
 public:
  CutShortServer(const std::string& ip, std::string entries) : body_(std::move(entries)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int on = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    ::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    host_key_ = ip + ":" + std::to_string(ntohs(addr.sin_port));
    thread_ = std::thread([this] { serve(); });
  }
  ~CutShortServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  const std::string& host_key() const { return host_key_; }
  int sitemap_requests() const { return sitemap_requests_; }

 private:
  void serve() {
    while (!stop_) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0)
        return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
        if (n <= 0)
          break;
        request.append(buffer, static_cast<std::size_t>(n));
      }
      const auto send_all = [client](const std::string& bytes) {
        for (std::size_t at = 0; at < bytes.size();) {
          const ssize_t n = ::send(client, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
          if (n <= 0)
            return;
          at += static_cast<std::size_t>(n);
        }
      };
      if (request.rfind("GET /sitemap.xml ", 0) == 0) {
        ++sitemap_requests_;
        send_all("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 10000000\r\n\r\n" + body_);
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        const linger reset{1, 0};  // close with RST, not FIN
        ::setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      } else {
        send_all("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      }
      ::close(client);
    }
  }

  std::string body_;
  int fd_ = -1;
  std::string host_key_;
  std::atomic<bool> stop_{false};
  std::atomic<int> sitemap_requests_{0};
  std::thread thread_;
};

}  // namespace

// A sitemap whose transfer breaks off keeps every entry that came whole
// before the break: 1,000 <url>s, then a connection reset.
TEST_CASE("a sitemap cut off by a connection reset keeps the 1,000 URLs that came before it",
          "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/", html(page("Root", {})));
  std::string body = std::string{"<?xml version=\"1.0\"?><urlset xmlns=\""} + kSitemapNs + "\">";
  for (int i = 0; i < 1000; ++i)
    body += "<url><loc>" + u("/p/" + std::to_string(i)) + "</loc></url>";
  body += "<url><loc>" + u("/never");  // cut inside the next entry
  CutShortServer cut("127.0.0.9", body);
  const std::string sitemap = "http://" + cut.host_key() + "/sitemap.xml";
  auto config = sitemap_config(dir, u("/"));
  config.sitemap_urls = {sitemap};
  config.max_pages = 2000;
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(cut.sitemap_requests() == 1);
  const auto db = config.db_path;
  CHECK(column(db, "SELECT status || ' ' || reason || ' ' || urls_found || ' ' || urls_accepted FROM sitemaps "
                   "WHERE url = '" + sitemap + "'") == std::vector<std::string>{"failed connection_reset 1000 1000"});
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE parent_url = '" + sitemap + "'") == 1000);
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE url LIKE '%/never'") == 0);
  CHECK(web.count(a, "/p/999") == 1);
}

// Sitemaps sent with Content-Encoding: gzip are read as they inflate, never
// held: forty hosts each serving a gzip bomb (a megabyte that inflates to a
// gigabyte) at once cost the crawler a few megabytes each, not the 50 MiB a
// held body could take (1.88 GB for forty when bodies were held whole).
TEST_CASE("forty gzip-encoded sitemap bombs at once keep the crawler under 100 MB", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  const std::string bomb = gzip_bomb(std::size_t{1} << 30);
  std::vector<std::string> hosts;
  std::vector<std::string> roots;
  for (int i = 0; i < 40; ++i) {
    const auto h = web.add_host("127.0.0." + std::to_string(10 + i));
    hosts.push_back(h);
    roots.push_back(LoopbackWeb::url(h, "/"));
    web.route(h, "/robots.txt", robots_txt({LoopbackWeb::url(h, "/sitemap.xml")}));
    web.route(h, "/", html(page("Root", {})));
    Response encoded = typed(bomb, "application/xml");
    encoded.headers.emplace_back("Content-Encoding", "gzip");
    web.route(h, "/sitemap.xml", encoded);
  }
  auto seed = web.add_host("127.0.0.9");
  web.route(seed, "/", html(page("Seed", roots)));
  std::vector<std::string> args = {"crawl", "--seed", LoopbackWeb::url(seed, "/"), "--db", dir.path("crawl.db"),
                                   "--metrics", dir.path("metrics.log"), "--politeness-delay", "0", "--scope", "any",
                                   "--max-depth", "1", "--quiet", "--allow-private-networks"};
  ChildProcess crawler(ACTORCRAWL_BINARY, args, dir.path("crawl.log"));
  REQUIRE(crawler.wait(std::chrono::seconds{100}) == 0);
  INFO(crawler.output());
  const auto db = dir.path("crawl.db");
  CHECK(count(db, "SELECT COUNT(*) FROM sitemaps WHERE status = 'failed' AND reason = 'sitemap_too_large'") == 40);
  for (const auto& h : hosts) {
    INFO(h);
    CHECK(web.count(h, "/sitemap.xml") == 1);
  }
  // The crawler's own peak (VmHWM: since its program started, not what
  // the forked test process held before the exec), from metrics.log.
  std::ifstream metrics(dir.path("metrics.log"));
  std::stringstream text;
  text << metrics.rdbuf();
  const auto at = text.str().find("\"peak_rss_kib\": ");
  REQUIRE(at != std::string::npos);
  const long peak_kib = std::atol(text.str().c_str() + at + 16);
  INFO("peak resident set: " << peak_kib / 1024 << " MiB");
  CHECK(peak_kib > 0);
  CHECK(peak_kib < 100 * 1024);
}

// A sitemap request is a request: a crawl asked for max_pages pages reads
// no more sitemap documents than it could use. An index names 900
// sitemaps of one page each; a 50-page crawl reads at most 50 of them (all
// when the walk read every document it was given), and the rest end as
// failed/max_pages, read by the next run on the database.
TEST_CASE("sitemap documents read in a run are bounded by max_pages", "[integration][sitemaps]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  constexpr int kSitemaps = 900;  // the index and these: within one host's 1,000 documents
  constexpr std::int64_t kMaxPages = 50;
  std::string children;
  for (int i = 0; i < kSitemaps; ++i) {
    const std::string n = std::to_string(i);
    children += "<sitemap><loc>" + u("/maps/" + n + ".xml") + "</loc></sitemap>";
    web.route(a, "/maps/" + n + ".xml", xml(urlset(url_entry(u("/p/" + n)))));
    web.route(a, "/p/" + n, html(page("Page " + n, {})));
  }
  web.route(a, "/robots.txt", robots_txt({u("/index.xml")}));
  web.route(a, "/index.xml", xml(sitemapindex(children)));
  web.route(a, "/", html(page("Home", {})));
  auto config = sitemap_config(dir, u("/"));
  config.max_pages = kMaxPages;
  const auto result = crawl(config);
  CHECK(result.termination_reason == "max_pages");
  std::int64_t sitemap_requests = 0;
  for (const auto& r : web.requests())
    sitemap_requests += r.target.rfind("/maps/", 0) == 0 ? 1 : 0;
  CHECK(sitemap_requests <= kMaxPages);
  CHECK(page_requests(web) <= static_cast<std::size_t>(kMaxPages) + static_cast<std::size_t>(sitemap_requests) + 1);
  // Nothing is lost: the documents not read wait for the next run, and
  // the index that names them is marked to be read again.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM sitemaps WHERE url LIKE '%/maps/%'") == kSitemaps);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM sitemaps WHERE status = 'fetched' AND url LIKE '%/maps/%'") ==
        sitemap_requests);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM sitemaps WHERE status = 'failed' AND reason IN ('max_pages', "
                              "'stopped') AND url LIKE '%/maps/%'") == kSitemaps - sitemap_requests);
  CHECK(column(config.db_path, "SELECT status || ' ' || reason FROM sitemaps WHERE url = '" + u("/index.xml") + "'") ==
        std::vector<std::string>{"fetched children_unread"});

  // A run with room for them all reads the index again and every document
  // no run read, each once; every page is fetched once.
  config.max_pages = 5000;
  crawl(config);
  CHECK(web.count(a, "/index.xml") == 2);
  for (int i = 0; i < kSitemaps; ++i) {
    INFO(i);
    REQUIRE(web.count(a, "/maps/" + std::to_string(i) + ".xml") == 1);
    REQUIRE(web.count(a, "/p/" + std::to_string(i)) == 1);
  }
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM sitemaps WHERE status = 'fetched' AND reason IS NULL") ==
        kSitemaps + 1);
}
