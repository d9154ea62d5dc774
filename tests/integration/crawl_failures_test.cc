// Bad answers from the web: each ends with a named reason in the database,
// the right number of attempts on the server, and the crawl carrying on.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::Response;
using demoweb::LoopbackWeb;

namespace {

Response with_status(int status, std::string body = "") {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

TEST_CASE("a 500 that recovers on retry is a fetched page", "[integration][retry]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/flaky", "/ok"})));
  web.route(h, "/ok", html(page("OK", {})));
  web.route(h, "/flaky", std::function<Response(int)>([](int hit) {
              return hit <= 2 ? with_status(500, "oops") : html(page("Flaky", {}));
            }));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.retry_attempts = 3;
  crawl(config);
  CHECK(web.count(h, "/flaky") == 3);
  CHECK(column(config.db_path, "SELECT status_code || ' ' || title || ' ' || attempts || ' ' || IFNULL(error, '-') "
                               "FROM pages WHERE url LIKE '%/flaky'")
        == std::vector<std::string>{"200 Flaky 3 -"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
}

TEST_CASE("a URL that answers 503 every time is parked with its reason, and the next run fetches it",
          "[integration][retry]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/broken", "/ok"})));
  web.route(h, "/ok", html(page("OK", {})));
  // Down for the whole first run (three tries), back for the second.
  web.route(h, "/broken", std::function<Response(int)>([](int hit) {
              return hit <= 3 ? with_status(503, "down") : html(page("Back", {}));
            }));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.retry_attempts = 2;
  auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(web.count(h, "/broken") == 3);  // the first try and two retries
  // Transient: parked with the reason, not a dead letter, no budget spent.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
  CHECK(column(config.db_path, "SELECT error || ' ' || attempts FROM pages WHERE url LIKE '%/broken'")
        == std::vector<std::string>{"http_503 3"});
  CHECK(column(config.db_path, "SELECT state || ' ' || refusal FROM frontier WHERE url LIKE '%/broken'")
        == std::vector<std::string>{"4 http_503"});
  CHECK(web.count(h, "/ok") == 1);
  CHECK(result.summary.pages_failed == 1);
  CHECK(result.summary.pages_fetched == 2);

  // The next run offers it again, and only it.
  auto again = crawl(config);
  CHECK(again.termination_reason == "queue_empty");
  CHECK(web.count(h, "/broken") == 4);
  CHECK(web.count(h, "/ok") == 1);
  CHECK(column(config.db_path, "SELECT state || ' ' || IFNULL(refusal, '-') FROM frontier WHERE url LIKE '%/broken'")
        == std::vector<std::string>{"1 -"});
  CHECK(column(config.db_path, "SELECT IFNULL(error, '-') || ' ' || title FROM pages WHERE url LIKE '%/broken'")
        == std::vector<std::string>{"- Back"});
}

TEST_CASE("a parked URL is offered again within the run once the host backoff runs out", "[integration][retry]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // Slow pages keep the crawl going while /flaky waits out its backoff.
  Response slow = html(page("Slow", {}));
  slow.delay_ms = 300;
  std::vector<std::string> links = {"/flaky"};
  for (int i = 0; i < 6; ++i) {
    links.push_back("/slow-" + std::to_string(i));
    web.route(h, links.back(), slow);
  }
  web.route(h, "/", html(page("Root", links)));
  web.route(h, "/flaky", std::function<Response(int)>([](int hit) {
              return hit <= 2 ? with_status(502, "bad gateway") : html(page("Flaky", {}));
            }));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.retry_attempts = 1;
  config.host_backoff_ms = 200;
  auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(web.count(h, "/flaky") == 3);
  CHECK(column(config.db_path, "SELECT state || ' ' || IFNULL(refusal, '-') FROM frontier WHERE url LIKE '%/flaky'")
        == std::vector<std::string>{"1 -"});
  CHECK(column(config.db_path, "SELECT title FROM pages WHERE url LIKE '%/flaky'") == std::vector<std::string>{"Flaky"});
}

TEST_CASE("a DNS failure is not retried at once: the URL is parked for a later try", "[integration][retry]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  // A 64-character label: the resolver refuses it without sending a query,
  // so this fails name resolution with no traffic off the machine.
  const std::string unresolvable = "http://" + std::string(64, 'a') + ".test/";
  web.route(h, "/", html(page("Root", {unresolvable})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.allowed_domains = {"127.0.0.1", "test"};
  config.retry_attempts = 3;
  config.respect_robots_txt = false;  // robots.txt of such a host: see the robots tests
  crawl(config);
  CHECK(column(config.db_path, "SELECT error || ' ' || attempts FROM pages WHERE url = '" + unresolvable + "'")
        == std::vector<std::string>{"dns_failure 1"});
  CHECK(column(config.db_path, "SELECT state || ' ' || refusal FROM frontier WHERE url = '" + unresolvable + "'")
        == std::vector<std::string>{"4 dns_failure"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
}

TEST_CASE("a redirect chain is followed and every hop recorded", "[integration][redirect]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/r1"})));
  web.route(h, "/r1", redirect(301, "/r2"));
  web.route(h, "/r2", redirect(302, LoopbackWeb::url(h, "/final")));
  web.route(h, "/final", html(page("Final", {"relative"})));
  web.route(h, "/relative", html(page("Relative", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(column(config.db_path, "SELECT status_code || ' ' || title || ' ' || final_url FROM pages WHERE url LIKE '%/r1'")
        == std::vector<std::string>{"200 Final " + LoopbackWeb::url(h, "/final")});
  CHECK(column(config.db_path, "SELECT redirect_chain FROM pages WHERE url LIKE '%/r1'")
        == std::vector<std::string>{R"([{"status":301,"url":")" + LoopbackWeb::url(h, "/r1") + R"("},{"status":302,"url":")" +
                                    LoopbackWeb::url(h, "/r2") + R"("}])"});
  // Relative links on the final page resolve against the final URL.
  CHECK(web.count(h, "/relative") == 1);
  CHECK(web.count(h, "/r1") == 1);
}

TEST_CASE("a redirect target is requested once, though a later page links it", "[integration][redirect]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/r"})));
  web.route(h, "/r", redirect(302, "/final"));
  // The chain's page links the hub, which links the chain's target.
  web.route(h, "/final", html(page("Final", {"/hub"})));
  web.route(h, "/hub", html(page("Hub", {"/final", "/leaf"})));
  web.route(h, "/leaf", html(page("Leaf", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(targets_seen(web, h) ==
        std::map<std::string, int>{{"/", 1}, {"/r", 1}, {"/final", 1}, {"/hub", 1}, {"/leaf", 1}});
  CHECK(column(config.db_path, "SELECT final_url FROM pages WHERE url LIKE '%/r'")
        == std::vector<std::string>{LoopbackWeb::url(h, "/final")});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 0") == 0);
}

TEST_CASE("a redirect loop is a dead letter, not a hang", "[integration][redirect]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/loop-a", "/many-0"})));
  web.route(h, "/loop-a", redirect(302, "/loop-b"));
  web.route(h, "/loop-b", redirect(302, "/loop-a"));
  for (int i = 0; i < 10; ++i)
    web.route(h, "/many-" + std::to_string(i), redirect(302, "/many-" + std::to_string(i + 1)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_redirects = 5;
  crawl(config);
  CHECK(column(config.db_path, "SELECT reason || ' ' || attempts FROM dead_letters ORDER BY url")
        == std::vector<std::string>{"redirect_loop 1", "too_many_redirects 1"});
  CHECK(web.count(h, "/loop-a") == 1);
  CHECK(web.count(h, "/loop-b") == 1);
}

TEST_CASE("a body over the limit is cut and the page marked truncated", "[integration][limits]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  std::string big = "<html><head><title>Big</title></head><body><a href=\"/after\">x</a>" + std::string(3 << 20, 'x') +
                    "<a href=\"/never\">y</a></body></html>";
  web.route(h, "/", html(big));
  web.route(h, "/after", html(page("After", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_body_bytes = 1 << 20;
  crawl(config);
  CHECK(column(config.db_path, "SELECT bytes || ' ' || truncated || ' ' || title FROM pages WHERE url = '" +
                                 LoopbackWeb::url(h, "/") + "'")
        == std::vector<std::string>{"1048576 1 Big"});
  // What was read before the cut is used; what came after is not.
  CHECK(web.count(h, "/after") == 1);
  CHECK(web.count(h, "/never") == 0);
}

// Cut pages are no secret: each is marked in its row, the run counts them
// in its final line and metrics.log, and the log says once per host what
// was cut, at which limit, and how to raise it.
TEST_CASE("pages cut at max_body_bytes are counted and told of once per host", "[integration][limits]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  const std::string filler(10000, 'x');
  // The links come first, the filler after: what is cut is the filler.
  web.route(a, "/", html(page("A", {"/big1", "/big2", "/small", LoopbackWeb::url(b, "/")}) + filler));
  web.route(a, "/big1", html(page("Big 1", {}) + filler));
  web.route(a, "/big2", html(page("Big 2", {}) + filler));
  web.route(a, "/small", html(page("Small", {})));
  web.route(b, "/", html(page("B", {}) + filler));
  const std::string log = dir.path("crawl.log");
  ChildProcess cli(ACTORCRAWL_BINARY,
                   {"crawl", "--seed", LoopbackWeb::url(a, "/"), "--db", dir.path("crawl.db"), "--metrics",
                    dir.path("metrics.log"), "--politeness-delay", "0", "--no-sitemaps", "--scope", "any",
                    "--max-body-bytes", "4KiB", "--allow-private-networks"},
                   log);
  REQUIRE(cli.wait(std::chrono::seconds{60}) == 0);
  const std::string out = cli.output();
  INFO(out);
  CHECK(count(dir.path("crawl.db"), "SELECT COUNT(*) FROM pages WHERE truncated = 1 AND bytes = 4096") == 4);
  CHECK(count(dir.path("crawl.db"), "SELECT COUNT(*) FROM pages WHERE truncated = 0") == 1);
  CHECK(out.find("5 pages fetched") != std::string::npos);
  CHECK(out.find("4 cut at max_body_bytes (4096)") != std::string::npos);
  const auto times = [&out](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = out.find(text); at != std::string::npos; at = out.find(text, at + 1))
      ++n;
    return n;
  };
  CHECK(times("are cut at max_body_bytes (4096 bytes)") == 2);
  CHECK(times("pages of " + a + " are cut at max_body_bytes (4096 bytes)") == 1);
  CHECK(times("pages of " + b + " are cut at max_body_bytes (4096 bytes)") == 1);
  CHECK(out.find("raise max_body_bytes (e.g. --max-body-bytes 8MiB)") != std::string::npos);
  std::ifstream metrics(dir.path("metrics.log"));
  std::stringstream text;
  text << metrics.rdbuf();
  CHECK(text.str().find("\"pages_truncated\": 4,") != std::string::npos);
}

TEST_CASE("non-HTML is recorded with its type and not parsed", "[integration][content]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/guide.pdf", "/data.json"})));
  Response pdf;
  pdf.content_type = "application/pdf";
  pdf.body = "%PDF-1.4 <a href=\"/from-pdf\">";
  web.route(h, "/guide.pdf", pdf);
  Response json;
  json.content_type = "application/json";
  json.body = R"({"link": "<a href='/from-json'>"})";
  web.route(h, "/data.json", json);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(column(config.db_path, "SELECT content_type || ' ' || status_code || ' ' || IFNULL(title, '-') FROM pages "
                               "WHERE url NOT LIKE '%/' ORDER BY url")
        == std::vector<std::string>{"application/json 200 -", "application/pdf 200 -"});
  CHECK(web.count(h, "/from-pdf") == 0);
  CHECK(web.count(h, "/from-json") == 0);
}

TEST_CASE("malformed HTML and bad hrefs still give the links a browser would see", "[integration][content]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html("<html><title>Broken <b>markup</title><body><div><p><a href=/one>one<a href='/two'>two"
                         "</div></span><a href=\"http://[bad\">bad</a><a href=\"javascript:alert(1)\">js</a>"
                         "<a href=\"mailto:x@y\">m</a><table><a href=/three>three</table>\xff\xfe garbage"));
  for (const auto* p : {"/one", "/two", "/three"})
    web.route(h, p, html(page("Leaf", {})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/one", 1}, {"/two", 1}, {"/three", 1}});
  CHECK(column(config.db_path, "SELECT title FROM pages WHERE url = '" + LoopbackWeb::url(h, "/") + "'")
        == std::vector<std::string>{"Broken <b>markup"});
}

TEST_CASE("a dead server and a slow one are parked with named reasons", "[integration][retry]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string dead_host = closed_host("127.0.0.2");
  Response slow = html(page("Slow", {}));
  slow.delay_ms = 1500;
  web.route(h, "/slow", slow);
  web.route(h, "/", html(page("Root", {"/slow", LoopbackWeb::url(dead_host, "/")})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.request_timeout_ms = 300;
  config.retry_attempts = 1;
  config.respect_robots_txt = false;  // robots.txt of a dead host: see the robots tests
  auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(column(config.db_path, "SELECT refusal FROM frontier WHERE state = 4 ORDER BY refusal")
        == std::vector<std::string>{"connect_failed", "timeout"});
  CHECK(column(config.db_path, "SELECT error || ' ' || attempts FROM pages WHERE error IS NOT NULL ORDER BY error")
        == std::vector<std::string>{"connect_failed 2", "timeout 2"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters") == 0);
}

TEST_CASE("a robots.txt that redirects in a loop is unavailable: the host is crawled", "[integration][robots]") {
  // RFC 9309 2.3.1.2: past five redirects robots.txt may be taken as
  // unavailable, which allows everything. Never a silent refusal.
  ScratchDir dir;
  LoopbackWeb web;
  auto self_loop = web.add_host("127.0.0.1");
  auto bounce = web.add_host("127.0.0.2");
  web.route(self_loop, "/robots.txt", redirect(302, "/robots.txt"));
  web.route(self_loop, "/", html(page("Self", {"/a", LoopbackWeb::url(bounce, "/")})));
  web.route(self_loop, "/a", html(page("A", {})));
  web.route(bounce, "/robots.txt", redirect(301, "/elsewhere.txt"));
  web.route(bounce, "/elsewhere.txt", redirect(302, "/robots.txt"));
  web.route(bounce, "/", html(page("Bounce", {"/b"})));
  web.route(bounce, "/b", html(page("B", {})));
  auto config = fast_config(dir, LoopbackWeb::url(self_loop, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(targets_seen(web, self_loop) == std::map<std::string, int>{{"/", 1}, {"/a", 1}});
  CHECK(targets_seen(web, bounce) == std::map<std::string, int>{{"/", 1}, {"/b", 1}, {"/elsewhere.txt", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state <> 1") == 0);
  CHECK(column(config.db_path, "SELECT outcome FROM robots_txt ORDER BY host")
        == std::vector<std::string>{"allow_all", "allow_all"});
}

TEST_CASE("a page without Content-Type, or typed as octet-stream or plain text, is sniffed as HTML",
          "[integration][content]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  Response untyped = html("<!DOCTYPE html><title>Untyped</title><a href=\"/from-untyped\">x</a>");
  untyped.content_type.clear();
  web.route(h, "/", untyped);
  Response octets = html("\n  <html><title>Octets</title><a href=\"/from-octets\">x</a>");
  octets.content_type = "application/octet-stream";
  web.route(h, "/from-untyped", octets);
  Response text = html("<p>Text <a href=\"/from-text\">x</a>");
  text.content_type = "text/plain";
  web.route(h, "/from-octets", text);
  Response real_text = html("Not HTML, though it mentions <a href=\"/never\">.");
  real_text.content_type = "text/plain";
  web.route(h, "/from-text", real_text);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(targets_seen(web, h) ==
        std::map<std::string, int>{{"/", 1}, {"/from-untyped", 1}, {"/from-octets", 1}, {"/from-text", 1}});
  CHECK(column(config.db_path, "SELECT title FROM pages WHERE title <> '' ORDER BY title")
        == std::vector<std::string>{"Octets", "Untyped"});
}

TEST_CASE("href=\"\" and href=\"#x\" lead to the <base href> page", "[integration][content]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html("<base href=\"/target/page.html\"><title>Root</title><a href=\"\">e</a><a href=\"#x\">f</a>"));
  web.route(h, "/target/page.html", html("<title>Target</title><a href=\"\">self</a><a href=\"#top\">self</a>"));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/target/page.html", 1}});
  CHECK(column(config.db_path, "SELECT to_url FROM links ORDER BY to_url")
        == std::vector<std::string>{LoopbackWeb::url(h, "/target/page.html")});
}
