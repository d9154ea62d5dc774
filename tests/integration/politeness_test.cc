// Politeness end to end: robots.txt (RFC 9309) as the crawler fetches and
// obeys it, Crawl-delay and Retry-After measured on the server's clock,
// page-level robots directives, crawler-trap defences and charset conversion.
// Every assertion is on what the database holds afterwards or on what the
// test web was actually asked for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::Response;
using demoweb::ServedRequest;
using demoweb::LoopbackWeb;

namespace {

Response text(std::string body, int status = 200) {
  Response r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

// Every request one host saw, /robots.txt included, in arrival order.
std::vector<ServedRequest> served_on(const LoopbackWeb& web, const std::string& host) {
  std::vector<ServedRequest> out;
  for (auto& r : web.requests())
    if (r.host_key == host)
      out.push_back(r);
  return out;
}

std::vector<std::string> targets_in_order(const std::vector<ServedRequest>& served) {
  std::vector<std::string> out;
  for (const auto& r : served)
    out.push_back(r.target);
  return out;
}

long long ms_between(const ServedRequest& earlier, const ServedRequest& later) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(later.at - earlier.at).count();
}

// The smallest gap between consecutive requests, in ms.
long long smallest_gap_ms(const std::vector<ServedRequest>& served) {
  long long smallest = 1LL << 40;
  for (std::size_t i = 1; i < served.size(); ++i)
    smallest = std::min(smallest, ms_between(served[i - 1], served[i]));
  return smallest;
}

// "<path> <state> <refusal or ->" for each frontier row of one host, by URL.
std::vector<std::string> frontier_rows(const std::string& db, const std::string& host) {
  const std::string base = LoopbackWeb::url(host, "");
  return column(db, "SELECT substr(url, " + std::to_string(base.size() + 1) +
                      ") || ' ' || state || ' ' || IFNULL(refusal, '-') FROM frontier WHERE url LIKE '" + base +
                      "/%' ORDER BY url");
}

// "<status or -> <outcome> <crawl delay or -> <sitemaps or ->" of the host's
// robots_txt row (none if it has no row).
std::vector<std::string> robots_rows(const std::string& db, const std::string& host) {
  return column(db, "SELECT IFNULL(status_code, '-') || ' ' || outcome || ' ' || IFNULL(crawl_delay_ms, '-') || "
                    "' ' || IFNULL(sitemaps, '-') FROM robots_txt WHERE host = '" + host + "'");
}

// Milliseconds from a URL's admission to its frontier row being settled.
std::int64_t ms_to_settle(const std::string& db, const std::string& url) {
  return count(db, "SELECT settled_at - discovered_at FROM frontier WHERE url = '" + url + "'");
}

}  // namespace

// --- robots.txt rules -------------------------------------------------------

TEST_CASE("robots.txt is fetched once per host, first, and its longest match decides", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  // "Allow: /private/ok.html" is longer than "Disallow: /private/", so it
  // wins for that one page whatever the order of the lines.
  web.route(a, "/robots.txt", text("User-agent: *\nDisallow: /private/\nAllow: /private/ok.html\n"));
  web.route(a, "/", html(page("A", {"/private/secret", "/private/ok.html", "/public", LoopbackWeb::url(b, "/")})));
  web.route(a, "/private/secret", html(page("Secret", {})));
  web.route(a, "/private/ok.html", html(page("OK", {})));
  web.route(a, "/public", html(page("Public", {"/private/secret"})));
  web.route(b, "/robots.txt", text("User-agent: *\nDisallow: /private/\n"));
  web.route(b, "/", html(page("B", {"/private/x", "/y"})));
  web.route(b, "/y", html(page("Y", {})));

  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(targets_seen(web, a) == std::map<std::string, int>{{"/", 1}, {"/private/ok.html", 1}, {"/public", 1}});
  CHECK(targets_seen(web, b) == std::map<std::string, int>{{"/", 1}, {"/y", 1}});
  // Once per host, and before any page of that host.
  CHECK(web.count(a, "/robots.txt") == 1);
  CHECK(web.count(b, "/robots.txt") == 1);
  REQUIRE_FALSE(served_on(web, a).empty());
  REQUIRE_FALSE(served_on(web, b).empty());
  CHECK(served_on(web, a).front().target == "/robots.txt");
  CHECK(served_on(web, b).front().target == "/robots.txt");

  const auto db = config.db_path;
  CHECK(frontier_rows(db, a) == std::vector<std::string>{"/ 1 -", "/private/ok.html 1 -",
                                                          "/private/secret 3 robots_txt", "/public 1 -"});
  CHECK(frontier_rows(db, b) == std::vector<std::string>{"/ 1 -", "/private/x 3 robots_txt", "/y 1 -"});
  // A refused URL costs no request, so it has no page row and no dead letter.
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE url LIKE '%/private/secret' OR url LIKE '%/private/x'") == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM dead_letters") == 0);
  CHECK(column(db, "SELECT host || ' ' || url || ' ' || status_code || ' ' || outcome FROM robots_txt ORDER BY host")
        == std::vector<std::string>{a + " " + LoopbackWeb::url(a, "/robots.txt") + " 200 parsed",
                                    b + " " + LoopbackWeb::url(b, "/robots.txt") + " 200 parsed"});
  CHECK(robots_rows(db, a) == std::vector<std::string>{"200 parsed - -"});
  CHECK(result.summary.pages_fetched == 5);
}

TEST_CASE("a group naming actorcrawl replaces the * group", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // The product token is matched without case and without its version
  // ("actorcrawl/0.1 (...)" is "actorcrawl"); another bot's group is ignored.
  web.route(h, "/robots.txt", text("User-agent: *\n"
                                   "Disallow: /members/\n"
                                   "\n"
                                   "User-agent: OtherBot\n"
                                   "Disallow: /\n"
                                   "\n"
                                   "User-agent: ActorCrawl\n"
                                   "Disallow: /archive/\n"));
  web.route(h, "/", html(page("Root", {"/members/a", "/archive/b", "/c"})));
  web.route(h, "/members/a", html(page("Members", {})));
  web.route(h, "/archive/b", html(page("Archive", {})));
  web.route(h, "/c", html(page("C", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);

  // /members/ is closed only to crawlers without a group of their own.
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/members/a", 1}, {"/c", 1}});
  CHECK(frontier_rows(config.db_path, h)
        == std::vector<std::string>{"/ 1 -", "/archive/b 3 robots_txt", "/c 1 -", "/members/a 1 -"});
  REQUIRE_FALSE(web.requests().empty());
  CHECK(web.requests().front().user_agent == config.user_agent);
}

TEST_CASE("a robots.txt answered with 404 or 403 allows everything, whatever its body says", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  // RFC 9309 2.3.1.3: any 4xx means "no robots.txt", so the rules in these
  // error bodies must not be read.
  web.route(a, "/robots.txt", text("User-agent: *\nDisallow: /\n", 404));
  web.route(b, "/robots.txt", text("User-agent: *\nDisallow: /\n", 403));
  web.route(a, "/", html(page("A", {"/private/x", LoopbackWeb::url(b, "/")})));
  web.route(a, "/private/x", html(page("X", {})));
  web.route(b, "/", html(page("B", {"/private/y"})));
  web.route(b, "/private/y", html(page("Y", {})));
  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  crawl(config);

  CHECK(targets_seen(web, a) == std::map<std::string, int>{{"/", 1}, {"/private/x", 1}});
  CHECK(targets_seen(web, b) == std::map<std::string, int>{{"/", 1}, {"/private/y", 1}});
  CHECK(web.count(a, "/robots.txt") == 1);
  CHECK(web.count(b, "/robots.txt") == 1);
  CHECK(robots_rows(config.db_path, a) == std::vector<std::string>{"404 allow_all - -"});
  CHECK(robots_rows(config.db_path, b) == std::vector<std::string>{"403 allow_all - -"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 3") == 0);
}

TEST_CASE("a robots.txt that fails twice is retried with backoff and then obeyed", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", std::function<Response(int)>([](int hit) {
              return hit <= 2 ? text("overloaded", 500) : text("User-agent: *\nDisallow: /blocked\n");
            }));
  web.route(h, "/", html(page("Root", {"/blocked", "/open"})));
  web.route(h, "/blocked", html(page("Blocked", {})));
  web.route(h, "/open", html(page("Open", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.retry_delay_ms = 30;
  config.retry_attempts = 3;
  crawl(config);

  // The seed waited for the third try: nothing but robots.txt before it.
  const auto served = served_on(web, h);
  CHECK(targets_in_order(served) == std::vector<std::string>{"/robots.txt", "/robots.txt", "/robots.txt", "/", "/open"});
  REQUIRE(served.size() == 5);
  // Backoff doubles from retry_delay_ms: 30 ms, then 60 ms.
  CHECK(ms_between(served[0], served[1]) >= 30);
  CHECK(ms_between(served[1], served[2]) >= 60);
  CHECK(frontier_rows(config.db_path, h) == std::vector<std::string>{"/ 1 -", "/blocked 3 robots_txt", "/open 1 -"});
  CHECK(robots_rows(config.db_path, h) == std::vector<std::string>{"200 parsed - -"});
}

TEST_CASE("a robots.txt that answers 503 parks the host's URLs, the crawl ends, and the next run fetches them",
          "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto good = web.add_host("127.0.0.1");
  auto down = web.add_host("127.0.0.2");
  web.route(good, "/", html(page("Good", {"/next", LoopbackWeb::url(down, "/"), LoopbackWeb::url(down, "/x")})));
  web.route(good, "/next", html(page("Next", {})));
  // Down for the first run's three tries, then back.
  web.route(down, "/robots.txt", std::function<Response(int)>([](int hit) {
              return hit <= 3 ? text("maintenance", 503) : text("User-agent: *\nDisallow:\n");
            }));
  web.route(down, "/", html(page("Down", {})));
  web.route(down, "/x", html(page("X", {})));
  auto config = fast_config(dir, LoopbackWeb::url(good, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.retry_attempts = 2;
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  // retry_attempts + 1 tries, and no page of that host asked for at all.
  CHECK(web.count(down, "/robots.txt") == 3);
  CHECK(targets_seen(web, down).empty());
  CHECK(frontier_rows(config.db_path, down) == std::vector<std::string>{"/ 4 robots_unreachable", "/x 4 robots_unreachable"});
  CHECK(robots_rows(config.db_path, down) == std::vector<std::string>{"503 unreachable - -"});
  // The other host is not held up.
  CHECK(targets_seen(web, good) == std::map<std::string, int>{{"/", 1}, {"/next", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 2);

  // robots.txt answers now: the parked URLs are fetched, nothing else again.
  auto again = crawl(config);
  CHECK(again.termination_reason == "queue_empty");
  CHECK(targets_seen(web, down) == std::map<std::string, int>{{"/", 1}, {"/x", 1}});
  CHECK(targets_seen(web, good) == std::map<std::string, int>{{"/", 1}, {"/next", 1}});
  CHECK(frontier_rows(config.db_path, down) == std::vector<std::string>{"/ 1 -", "/x 1 -"});
}

TEST_CASE("a redirected robots.txt is followed", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", redirect(301, "/real-robots.txt"));
  web.route(h, "/real-robots.txt", text("User-agent: *\nDisallow: /blocked\n"));
  web.route(h, "/", html(page("Root", {"/blocked", "/open"})));
  web.route(h, "/blocked", html(page("Blocked", {})));
  web.route(h, "/open", html(page("Open", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);

  CHECK(targets_in_order(served_on(web, h))
        == std::vector<std::string>{"/robots.txt", "/real-robots.txt", "/", "/open"});
  CHECK(frontier_rows(config.db_path, h) == std::vector<std::string>{"/ 1 -", "/blocked 3 robots_txt", "/open 1 -"});
  // Recorded under the URL that was asked for, with the final status.
  CHECK(column(config.db_path, "SELECT url || ' ' || status_code || ' ' || outcome FROM robots_txt")
        == std::vector<std::string>{LoopbackWeb::url(h, "/robots.txt") + " 200 parsed"});
}

TEST_CASE("a robots.txt that times out is unreachable", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  Response slow = text("User-agent: *\nDisallow:\n");
  slow.delay_ms = 1500;
  web.route(h, "/robots.txt", slow);
  web.route(h, "/", html(page("Root", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.request_timeout_ms = 200;
  config.retry_attempts = 1;
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(web.count(h, "/robots.txt") == 2);
  CHECK(targets_seen(web, h).empty());
  CHECK(frontier_rows(config.db_path, h) == std::vector<std::string>{"/ 4 robots_unreachable"});
  // No response at all: no status code.
  CHECK(robots_rows(config.db_path, h) == std::vector<std::string>{"- unreachable - -"});
}

TEST_CASE("rules expire after robots_cache_ttl_ms and are fetched again", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // The site closes /late between the two fetches of its robots.txt.
  web.route(h, "/robots.txt", std::function<Response(int)>([](int hit) {
              return hit == 1 ? text("User-agent: *\nDisallow:\n") : text("User-agent: *\nDisallow: /late\n");
            }));
  Response slow = html(page("Slow", {}));
  slow.delay_ms = 1200;
  web.route(h, "/", html(page("Root", {"/slow", "/late"})));
  web.route(h, "/slow", slow);
  web.route(h, "/late", html(page("Late", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.robots_cache_ttl_ms = 1000;  // the smallest the configuration accepts
  config.politeness_delay_factor_percent = 0;  // the slow page must not push the next request out
  config.max_connections_per_host = 1;         // /late waits behind /slow, not beside it
  crawl(config);

  // /late is gated after the slow page, when the first rules are over 1.2 s old.
  CHECK(targets_in_order(served_on(web, h)) == std::vector<std::string>{"/robots.txt", "/", "/slow", "/robots.txt"});
  CHECK(frontier_rows(config.db_path, h) == std::vector<std::string>{"/ 1 -", "/late 3 robots_txt", "/slow 1 -"});
}

TEST_CASE("rules are used before they expire even when the host's delay is as long as robots_cache_ttl_ms",
          "[integration][robots][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // Crawl-delay 1 s spaces the first page 1 s from the robots.txt request,
  // exactly when rules trusted for 1 s would run out. Were they then fetched
  // again, the same would happen after every fetch: robots.txt forever and
  // not one page.
  web.route(h, "/robots.txt", text("User-agent: *\nCrawl-delay: 1\n"));
  web.route(h, "/", html(page("Root", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.robots_cache_ttl_ms = 1000;
  // Stops the crawl if it loops, instead of hanging the test run.
  auto result = crawl_until(config, [&] { return web.count(h, "/robots.txt") > 2; });

  CHECK(result.termination_reason == "queue_empty");
  CHECK(targets_in_order(served_on(web, h)) == std::vector<std::string>{"/robots.txt", "/"});
}

TEST_CASE("Sitemap lines are recorded with the host's robots.txt", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const auto sitemap = LoopbackWeb::url(h, "/sitemap.xml");
  const auto news = LoopbackWeb::url(h, "/news-sitemap.xml");
  // Sitemap lines belong to no group, may come anywhere, and repeat.
  web.route(h, "/robots.txt", text("Sitemap: " + sitemap + "\nUser-agent: *\nDisallow:\nsitemap: " + news +
                                   "\nSitemap: " + sitemap + "\n"));
  web.route(h, "/", html(page("Root", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);

  CHECK(robots_rows(config.db_path, h) == std::vector<std::string>{"200 parsed - " + sitemap + "\n" + news});
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}});
}

TEST_CASE("respect_robots_txt false never asks for robots.txt", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", text("User-agent: *\nDisallow: /\n"));
  web.route(h, "/", html(page("Root", {"/private/x"})));
  web.route(h, "/private/x", html(page("X", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.respect_robots_txt = false;
  crawl(config);

  CHECK(web.count(h, "/robots.txt") == 0);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/private/x", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM robots_txt") == 0);
  CHECK(frontier_rows(config.db_path, h) == std::vector<std::string>{"/ 1 -", "/private/x 1 -"});
}

// --- delays ------------------------------------------------------------------

TEST_CASE("Crawl-delay spaces every request to the host", "[integration][robots][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", text("User-agent: *\nCrawl-delay: 0.3\n"));
  web.route(h, "/", html(page("Root", {"/p1", "/p2"})));
  web.route(h, "/p1", html(page("P1", {})));
  web.route(h, "/p2", html(page("P2", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.politeness_delay_ms = 0;
  crawl(config);

  const auto served = served_on(web, h);
  REQUIRE(targets_in_order(served) == std::vector<std::string>{"/robots.txt", "/", "/p1", "/p2"});
  // robots.txt is a request like any other: the first page waits too.
  CHECK(smallest_gap_ms(served) >= 300);
  CHECK(robots_rows(config.db_path, h) == std::vector<std::string>{"200 parsed 300 -"});
}

TEST_CASE("max_politeness_delay_ms caps a large Crawl-delay", "[integration][robots][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", text("User-agent: *\nCrawl-delay: 0.3\n"));
  constexpr int kPages = 6;  // the root and five more
  std::vector<std::string> links;
  for (int i = 1; i < kPages; ++i) {
    links.push_back("/p" + std::to_string(i));
    web.route(h, links.back(), html(page("P", {})));
  }
  web.route(h, "/", html(page("Root", links)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.politeness_delay_ms = 0;
  config.max_politeness_delay_ms = 100;
  auto result = crawl(config);

  const auto served = served_on(web, h);
  REQUIRE(served.size() == kPages + 1);
  CHECK(smallest_gap_ms(served) >= 100);
  // Six gaps: about 600 ms under the cap, at least 1800 ms if Crawl-delay
  // had its way.
  // Crawl-delay would space the six gaps 300 ms apart at least: 1800 ms.
  CHECK(ms_between(served.front(), served.back()) < 1800);
}

TEST_CASE("Retry-After on a 429 holds the host back", "[integration][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  Response busy = text("slow down", 429);
  busy.headers = {{"Retry-After", "1"}};
  web.route(h, "/", html(page("Root", {"/busy", "/after"})));
  web.route(h, "/busy", busy);
  web.route(h, "/after", html(page("After", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.retry_attempts = 1;
  // One request at a time, so /after waits behind /busy: with the delay 0
  // of this web, /after would otherwise go out beside the first /busy,
  // before any 429 said to wait.
  config.max_connections_per_host = 1;
  crawl(config);

  const auto served = served_on(web, h);
  REQUIRE(targets_in_order(served) == std::vector<std::string>{"/robots.txt", "/", "/busy", "/busy", "/after"});
  // The retry waits for Retry-After rather than retry_delay_ms (20 ms), and
  // so does the host's next URL after the second 429.
  CHECK(ms_between(served[2], served[3]) >= 1000);
  CHECK(ms_between(served[3], served[4]) >= 1000);
  CHECK(column(config.db_path, "SELECT error || ' ' || attempts || ' ' || status_code FROM pages WHERE url LIKE '%/busy'")
        == std::vector<std::string>{"http_429 2 429"});
  CHECK(column(config.db_path, "SELECT state || ' ' || refusal FROM frontier WHERE url LIKE '%/busy'")
        == std::vector<std::string>{"4 http_429"});
}

// --- page-level directives ----------------------------------------------------

TEST_CASE("meta robots and X-Robots-Tag: noindex drops the text, nofollow the links", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string description = R"(<meta name="description" content="Words">)";
  auto with_header = [](Response r, const std::string& value) {
    r.headers = {{"X-Robots-Tag", value}};
    return r;
  };
  web.route(h, "/", html(page("Root", {"/meta-noindex", "/meta-nofollow", "/header-noindex", "/header-nofollow",
                                       "/header-none", "/header-otherbot"})));
  web.route(h, "/meta-noindex",
            html(page("MN", {"/from-meta-noindex"}, description + R"(<meta name="robots" content="noindex">)")));
  web.route(h, "/meta-nofollow",
            html(page("MF", {"/from-meta-nofollow"}, description + R"(<meta name="robots" content="nofollow">)")));
  web.route(h, "/header-noindex", with_header(html(page("HN", {"/from-header-noindex"}, description)), "noindex"));
  web.route(h, "/header-nofollow", with_header(html(page("HF", {"/from-header-nofollow"}, description)), "nofollow"));
  web.route(h, "/header-none", with_header(html(page("HX", {"/from-header-none"}, description)), "actorcrawl: none"));
  // Addressed to another crawler only: nothing applies to this one.
  web.route(h, "/header-otherbot",
            with_header(html(page("HO", {"/from-header-otherbot"}, description)), "otherbot: noindex, nofollow"));
  for (const auto* p : {"/from-meta-noindex", "/from-meta-nofollow", "/from-header-noindex", "/from-header-nofollow",
                        "/from-header-none", "/from-header-otherbot"})
    web.route(h, p, html(page("Leaf", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);

  const auto db = config.db_path;
  const auto base = LoopbackWeb::url(h, "");
  CHECK(column(db, "SELECT replace(url, '" + base + "', '') || ' ' || IFNULL(title, 'NULL') || ' ' || "
                   "IFNULL(description, 'NULL') || ' ' || IFNULL(robots_directives, 'NULL') FROM pages "
                   "WHERE url LIKE '%/header-%' OR url LIKE '%/meta-%' ORDER BY url")
        == std::vector<std::string>{"/header-nofollow HF Words nofollow", "/header-noindex NULL NULL noindex",
                                    "/header-none NULL NULL noindex,nofollow", "/header-otherbot HO Words NULL",
                                    "/meta-nofollow MF Words nofollow", "/meta-noindex NULL NULL noindex"});
  // noindex still follows; nofollow does not.
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1},
                                                           {"/meta-noindex", 1},
                                                           {"/meta-nofollow", 1},
                                                           {"/header-noindex", 1},
                                                           {"/header-nofollow", 1},
                                                           {"/header-none", 1},
                                                           {"/header-otherbot", 1},
                                                           {"/from-meta-noindex", 1},
                                                           {"/from-header-noindex", 1},
                                                           {"/from-header-otherbot", 1}});
  // A nofollow page's links are still recorded in the page graph, just never
  // admitted to the frontier.
  CHECK(column(db, "SELECT replace(p.url, '" + base + "', '') || ' -> ' || replace(l.to_url, '" + base +
                     "', '') FROM links l JOIN pages p ON p.page_id = l.from_page_id "
                     "WHERE p.url LIKE '%nofollow' OR p.url LIKE '%none' ORDER BY p.url")
        == std::vector<std::string>{"/header-nofollow -> /from-header-nofollow", "/header-none -> /from-header-none",
                                    "/meta-nofollow -> /from-meta-nofollow"});
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE url LIKE '%/from-%nofollow' OR url LIKE '%/from-header-none'")
        == 0);
}

// --- crawler traps --------------------------------------------------------------

TEST_CASE("a calendar gets max_query_variants_per_path pages", "[integration][traps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> days;
  for (int d = 1; d <= 9; ++d)
    days.push_back("/calendar?date=2024-01-0" + std::to_string(d));
  days.push_back("/calendar?date=2024-01-10");
  web.route(h, "/", html(page("Root", {"/calendar"})));
  // Every day of the calendar (the route ignores the query) links to every day.
  web.route(h, "/calendar", html(page("Calendar", days)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_query_variants_per_path = 5;
  crawl(config);

  std::map<std::string, int> expected{{"/", 1}, {"/calendar", 1}};
  for (int d = 0; d < 5; ++d)
    expected[days[d]] = 1;
  CHECK(targets_seen(web, h) == expected);
  CHECK(column(config.db_path, "SELECT replace(url, '" + LoopbackWeb::url(h, "") +
                                 "', '') FROM frontier WHERE refusal = 'max_query_variants_per_path' ORDER BY url")
        == std::vector<std::string>{days[5], days[6], days[7], days[8], days[9]});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 3") == 5);
}

TEST_CASE("a path repeating a segment beyond max_repeated_path_segments is refused", "[integration][traps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/a/b/a/b/a/b/", "/a/b/a/b/a/b/a/b/", "/x/x/x/x"})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_repeated_path_segments = 3;
  crawl(config);

  // Three of each is the limit and allowed; four is not.
  CHECK(frontier_rows(config.db_path, h)
        == std::vector<std::string>{"/ 1 -", "/a/b/a/b/a/b/ 1 -", "/a/b/a/b/a/b/a/b/ 3 max_repeated_path_segments",
                                    "/x/x/x/x 3 max_repeated_path_segments"});
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/a/b/a/b/a/b/", 1}});
}

TEST_CASE("a URL longer than max_url_length is refused", "[integration][traps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::size_t limit = 1024;
  const std::string base = LoopbackWeb::url(h, "");
  // Exactly at the limit, and one character over it.
  const std::string at_limit = "/" + std::string(limit - base.size() - 1, 'l');
  const std::string over_limit = "/" + std::string(limit - base.size(), 'm');
  web.route(h, "/", html(page("Root", {at_limit, over_limit})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_url_length = static_cast<std::int64_t>(limit);
  crawl(config);

  REQUIRE((base + at_limit).size() == limit);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {at_limit, 1}});
  CHECK(frontier_rows(config.db_path, h)
        == std::vector<std::string>{"/ 1 -", at_limit + " 1 -", over_limit + " 3 max_url_length"});
}

TEST_CASE("max_pages_per_host admits that many URLs of a host", "[integration][traps]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/p1", "/p2", "/p3", "/p4", "/p5"})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_pages_per_host = 3;
  crawl(config);

  // The seed is one of the three.
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/p1", 1}, {"/p2", 1}});
  CHECK(frontier_rows(config.db_path, h)
        == std::vector<std::string>{"/ 1 -", "/p1 1 -", "/p2 1 -", "/p3 3 max_pages_per_host",
                                    "/p4 3 max_pages_per_host", "/p5 3 max_pages_per_host"});
}

// --- charsets --------------------------------------------------------------------

TEST_CASE("pages in windows-1252 and Shift_JIS are stored as UTF-8", "[integration][charset]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/cafe", "/nihongo"})));
  // Declared in the HTTP header only.
  Response cafe;
  cafe.content_type = "text/html; charset=windows-1252";
  cafe.body = "<html><head><title>Caf\xe9 \x93quoted\x94</title>"
              "<meta name=\"description\" content=\"na\xefve\"></head><body></body></html>";
  web.route(h, "/cafe", cafe);
  // Declared in the document only: "日本語テスト" in Shift_JIS.
  Response nihongo;
  nihongo.content_type = "text/html";
  nihongo.body = "<html><head><meta charset=\"shift_jis\"><title>"
                 "\x93\xfa\x96\x7b\x8c\xea\x83\x65\x83\x58\x83\x67"
                 "</title></head><body></body></html>";
  web.route(h, "/nihongo", nihongo);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);

  CHECK(column(config.db_path, "SELECT title FROM pages WHERE url LIKE '%/cafe'")
        == std::vector<std::string>{"Caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d"});
  CHECK(column(config.db_path, "SELECT description FROM pages WHERE url LIKE '%/cafe'")
        == std::vector<std::string>{"na\xc3\xafve"});
  CHECK(column(config.db_path, "SELECT title FROM pages WHERE url LIKE '%/nihongo'")
        == std::vector<std::string>{"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88"});
}

// --- hosts that cannot be reached -------------------------------------------------

TEST_CASE("a host whose name does not resolve is parked at once as dns_failure, and fetched once it resolves",
          "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // A 64-character label: the resolver refuses it without sending a query,
  // so this fails name resolution with no traffic off the machine.
  const std::string host = std::string(64, 'a') + ".test";
  const std::string unresolvable = "http://" + host + "/";
  web.route(h, "/", html(page("Root", {unresolvable, "/next"})));
  web.route(h, "/next", html(page("Next", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.allowed_domains = {"127.0.0.1", "test"};
  config.retry_attempts = 3;
  // Long enough that one retry would show in the time to refusal.
  config.retry_delay_ms = 1000;
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(column(config.db_path, "SELECT state || ' ' || refusal FROM frontier WHERE url = '" + unresolvable + "'")
        == std::vector<std::string>{"4 dns_failure"});
  CHECK(ms_to_settle(config.db_path, unresolvable) < 1000);
  CHECK(robots_rows(config.db_path, host) == std::vector<std::string>{"- unreachable - -"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/next", 1}});
}

// The transient DNS failure of a new user: a seed whose name does not
// resolve yet, and the same crawl once it does (here, through `resolve`).
// The first run must not settle the seed for good.
TEST_CASE("a seed that did not resolve is crawled by the next run once it does", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/next"})));
  web.route(h, "/next", html(page("Next", {})));
  const std::string port = h.substr(h.rfind(':') + 1);
  const std::string name = "not-yet-" + std::string(56, 'a') + ".test";  // 64 characters: never sent to DNS
  const std::string seed = "http://" + name + ":" + port + "/";
  auto config = fast_config(dir, seed);
  config.allowed_domains = {"test"};
  auto first = crawl(config);
  CHECK(first.termination_reason == "queue_empty");
  CHECK(first.summary.pages_fetched == 0);
  CHECK(column(config.db_path, "SELECT state || ' ' || refusal FROM frontier") == std::vector<std::string>{"4 dns_failure"});

  config.resolve = {name + ":" + port + ":127.0.0.1"};
  auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  CHECK(second.summary.pages_fetched == 2);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/next", 1}});
  CHECK(column(config.db_path, "SELECT state FROM frontier ORDER BY seq") == std::vector<std::string>{"1", "1"});
}

TEST_CASE("a host with nobody listening is parked as robots_unreachable after retries", "[integration][robots]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string dead_host = closed_host("127.0.0.2");
  const std::string dead_url = LoopbackWeb::url(dead_host, "/");
  web.route(h, "/", html(page("Root", {dead_url, "/next"})));
  web.route(h, "/next", html(page("Next", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.retry_attempts = 2;
  config.retry_delay_ms = 100;
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(frontier_rows(config.db_path, dead_host) == std::vector<std::string>{"/ 4 robots_unreachable"});
  // Three tries, 100 ms and then 200 ms apart, before it is parked.
  CHECK(ms_to_settle(config.db_path, dead_url) >= 300);
  CHECK(robots_rows(config.db_path, dead_host) == std::vector<std::string>{"- unreachable - -"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/next", 1}});
}

// --- several connections to one host, politeness off --------------------------

namespace {

// The most requests that were certainly in flight at once: each of `served`
// was held `hold_ms` by the server, so requests arriving within less than
// that of one another overlapped.
std::size_t overlapping(const std::vector<ServedRequest>& served, long long hold_ms) {
  std::size_t most = served.empty() ? 0 : 1;
  for (std::size_t i = 0; i < served.size(); ++i)
    for (std::size_t j = i + 1; j < served.size() && ms_between(served[i], served[j]) < hold_ms; ++j)
      most = std::max(most, j - i + 1);
  return most;
}

// One host: a root linking to `pages` pages, each answered after `hold_ms`.
std::string slow_site(LoopbackWeb& web, int pages, int hold_ms) {
  const auto host = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 0; i < pages; ++i) {
    links.push_back("/p" + std::to_string(i));
    auto r = html(page("P" + std::to_string(i), {}));
    r.delay_ms = hold_ms;
    web.route(host, links.back(), r);
  }
  web.route(host, "/", html(page("Root", links)));
  return host;
}

}  // namespace

TEST_CASE("with politeness off, max_connections_per_host requests to one host overlap, never more",
          "[integration][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  const int hold_ms = 80;
  const auto host = slow_site(web, 24, hold_ms);
  auto c = fast_config(dir, LoopbackWeb::url(host, "/"));
  c.politeness_delay_factor_percent = 0;
  c.respect_robots_txt = false;
  c.max_connections_per_host = 4;
  crawl(c);
  CHECK(count(c.db_path, "SELECT COUNT(*) FROM pages WHERE status_code = 200") == 25);

  auto served = served_on(web, host);
  REQUIRE(served.size() == 25);
  served.erase(served.begin());  // the root, answered at once
  const auto most = overlapping(served, hold_ms);
  INFO("at most " << most << " requests overlapped");
  CHECK(most <= 4);
  CHECK(most >= 3);
}

TEST_CASE("any politeness delay keeps one request per host, whatever max_connections_per_host",
          "[integration][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto host = slow_site(web, 5, 0);
  auto c = fast_config(dir, LoopbackWeb::url(host, "/"));
  c.politeness_delay_ms = 60;
  c.politeness_delay_factor_percent = 0;
  c.respect_robots_txt = false;
  c.max_connections_per_host = 4;
  crawl(c);
  CHECK(count(c.db_path, "SELECT COUNT(*) FROM pages WHERE status_code = 200") == 6);
  const auto served = served_on(web, host);
  REQUIRE(served.size() == 6);
  CHECK(smallest_gap_ms(served) >= 59);
}

// --- redirects are hops the crawler takes -------------------------------------

TEST_CASE("a redirect hop obeys its target host's robots.txt, politeness and the scope",
          "[integration][robots][politeness][redirect]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  auto c = web.add_host("127.0.0.3");  // outside allowed_domains
  web.route(a, "/", html(page("A", {"/go-private", "/go-1", "/go-2", "/go-3", "/go-out"})));
  web.route(a, "/go-private", redirect(302, LoopbackWeb::url(b, "/private/x")));
  for (const char* n : {"1", "2", "3"}) {
    web.route(a, std::string{"/go-"} + n, redirect(301, LoopbackWeb::url(b, std::string{"/page"} + n)));
    web.route(b, std::string{"/page"} + n, html(page(std::string{"B"} + n, {})));
  }
  web.route(a, "/go-out", redirect(302, LoopbackWeb::url(c, "/elsewhere")));
  web.route(b, "/robots.txt", text("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n"));
  web.route(b, "/private/x", html(page("Secret", {})));
  web.route(c, "/elsewhere", html(page("C", {})));

  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.politeness_delay_ms = 0;
  auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  const auto db = config.db_path;

  // robots.txt of the hop's host first, and the disallowed hop never taken:
  // the URL that led there is refused by that rule.
  const auto on_b = served_on(web, b);
  REQUIRE_FALSE(on_b.empty());
  CHECK(on_b.front().target == "/robots.txt");
  CHECK(web.count(b, "/private/x") == 0);
  CHECK(frontier_rows(db, a) == std::vector<std::string>{"/ 1 -", "/go-1 1 -", "/go-2 1 -", "/go-3 1 -",
                                                          "/go-out 1 -", "/go-private 3 robots_txt"});
  // Three chains converging on b keep to b's Crawl-delay.
  CHECK(web.count(b, "/robots.txt") == 1);
  CHECK(targets_seen(web, b) == std::map<std::string, int>{{"/page1", 1}, {"/page2", 1}, {"/page3", 1}});
  CHECK(smallest_gap_ms(on_b) >= 300);
  // Each redirected URL is recorded once, with the page it led to and its hop.
  CHECK(column(db, "SELECT status_code || ' ' || title || ' ' || final_url FROM pages WHERE url LIKE '%/go-1'") ==
        std::vector<std::string>{"200 B1 " + LoopbackWeb::url(b, "/page1")});
  CHECK(column(db, "SELECT redirect_chain FROM pages WHERE url LIKE '%/go-1'") ==
        std::vector<std::string>{R"([{"status":301,"url":")" + LoopbackWeb::url(a, "/go-1") + R"("}])"});
  // A hop out of scope is not taken: the redirect itself is the page, its
  // target its one link.
  CHECK(web.count(c, "/elsewhere") == 0);
  CHECK(column(db, "SELECT status_code || ' ' || final_url FROM pages WHERE url LIKE '%/go-out'") ==
        std::vector<std::string>{"302 " + LoopbackWeb::url(c, "/elsewhere")});
  CHECK(column(db, "SELECT to_url FROM links JOIN pages ON page_id = from_page_id WHERE url LIKE '%/go-out'") ==
        std::vector<std::string>{LoopbackWeb::url(c, "/elsewhere")});
  CHECK(count(db, "SELECT COUNT(*) FROM dead_letters") == 0);
}

// A chain's hops and final URL count as requested with it in later runs on
// the same database too, though only the chain's first URL has a frontier
// row.
TEST_CASE("a redirect's hops and target fetched in one run are not requested again when a later run links them",
          "[integration][politeness][redirect]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(a, path); };
  web.route(a, "/", html(page("Root", {"/moved", "/old", "/later"})));
  web.route(a, "/moved", redirect(301, u("/target")));
  web.route(a, "/target", html(page("Target", {})));
  web.route(a, "/old", redirect(301, u("/hop")));
  web.route(a, "/hop", redirect(302, u("/new")));
  web.route(a, "/new", html(page("New", {})));
  web.route(a, "/later", html(page("Later", {"/target", "/hop", "/new"})));

  auto config = fast_config(dir, u("/"));
  config.max_pages = 3;  // "/", "/moved" and "/old" with their hops; "/later" waits
  CHECK(crawl(config).termination_reason == "max_pages");
  CHECK(web.count(a, "/target") == 1);
  CHECK(web.count(a, "/new") == 1);
  CHECK(web.count(a, "/later") == 0);

  config.max_pages = 10;
  CHECK(crawl(config).termination_reason == "queue_empty");
  CHECK(web.count(a, "/later") == 1);
  for (const char* path : {"/moved", "/target", "/old", "/hop", "/new"}) {
    INFO(path);
    CHECK(web.count(a, path) == 1);
  }
}
