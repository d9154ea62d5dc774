// The site profile end to end: what lands in the database, and what the
// test web was asked for.
#include <catch2/catch.hpp>

#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::Response;
using demoweb::LoopbackWeb;

TEST_CASE("a 3-host loop gives exactly its nodes, edges and weights", "[integration][graph]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto [a, b, c] = three_host_loop(web);

  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  const auto db = config.db_path;
  CHECK(column(db, "SELECT domain_name FROM nodes ORDER BY domain_name") == std::vector<std::string>{a, b, c});
  CHECK(column(db, R"(SELECT f.domain_name || ' -> ' || t.domain_name || ' ' || e.weight FROM edges e
                      JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id
                      ORDER BY f.domain_name)")
        == std::vector<std::string>{a + " -> " + b + " 1", b + " -> " + c + " 1", c + " -> " + a + " 1"});
  CHECK(column(db, "SELECT crawl_count FROM nodes ORDER BY domain_name") == std::vector<std::string>{"1", "1", "1"});
  CHECK(column(db, "SELECT description FROM nodes ORDER BY domain_name") == std::vector<std::string>{"A", "B", "C"});
  CHECK(column(db, "SELECT url || ' ' || status_code || ' ' || title || ' ' || depth FROM pages ORDER BY depth")
        == std::vector<std::string>{LoopbackWeb::url(a, "/") + " 200 A 0", LoopbackWeb::url(b, "/") + " 200 B 1",
                                    LoopbackWeb::url(c, "/") + " 200 C 2"});
  CHECK(page_requests(web) == 3);
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE state = 1") == 3);
  CHECK(result.summary.pages_fetched == 3);
  CHECK(result.summary.edges_recorded == 3);
}

TEST_CASE("max_depth is honoured exactly", "[integration][budget]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  for (int i = 0; i < 6; ++i)
    web.route(h, "/p" + std::to_string(i), html(page("P" + std::to_string(i), {"/p" + std::to_string(i + 1)})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/p0"));
  config.max_depth = 2;
  crawl(config);
  CHECK(column(config.db_path, "SELECT url FROM pages ORDER BY depth")
        == std::vector<std::string>{LoopbackWeb::url(h, "/p0"), LoopbackWeb::url(h, "/p1"), LoopbackWeb::url(h, "/p2")});
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/p0", 1}, {"/p1", 1}, {"/p2", 1}});
  // Links found at the last level are recorded, not queued.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links WHERE to_url LIKE '%/p3'") == 1);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier") == 3);
}

TEST_CASE("max_pages is honoured exactly", "[integration][budget]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 0; i < 40; ++i) {
    links.push_back("/item/" + std::to_string(i));
    web.route(h, links.back(), html(page("Item", {"/"})));
  }
  web.route(h, "/", html(page("Index", links)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.max_pages = 7;
  auto result = crawl(config);
  CHECK(result.termination_reason == "max_pages");
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 7);
  CHECK(page_requests(web) == 7);
  // BFS: the index first, then the first items in document order.
  CHECK(column(config.db_path, "SELECT url FROM pages ORDER BY page_id")[0] == LoopbackWeb::url(h, "/"));
  // What was discovered but not fetched stays queued for a later run.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 0") == 34);
}

TEST_CASE("no URL is requested twice, however it is spelled", "[integration][dedup]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string abs = LoopbackWeb::url(h, "/a");
  web.route(h, "/", html(page("Root", {"/a", "/a#section", "./a", "/b/../a", "/%61", abs, "/b", "/b?", "/B"})));
  web.route(h, "/a", html(page("A", {"/", "/b", abs})));
  web.route(h, "/b", html(page("B", {"/a", "/"})));
  web.route(h, "/B", html(page("B upper", {"/a"})));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  // Paths are case-sensitive, so /B is a different page; everything else
  // is one of three URLs.
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/a", 1}, {"/b", 1}, {"/B", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 4);
  CHECK(column(config.db_path, "SELECT to_url FROM links l JOIN pages p ON p.page_id = l.from_page_id WHERE p.url = '" +
                                 LoopbackWeb::url(h, "/") + "' ORDER BY position")
        == std::vector<std::string>{LoopbackWeb::url(h, "/a"), LoopbackWeb::url(h, "/b"), LoopbackWeb::url(h, "/B")});
}

TEST_CASE("links resolve against <base href> and nofollow is honoured", "[integration][links]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html("<html><head><base href=\"/docs/\"><link rel=canonical href=\"/home\"></head><body>"
                             "<a href=\"intro\">intro</a><a rel=\"nofollow\" href=\"/private\">p</a>"
                             "<a href=\"http://elsewhere.example/\">out</a></body></html>"));
  web.route(h, "/docs/intro",
            html(page("Intro", {}, "<meta name=robots content=nofollow>") + "<a href=/docs/hidden>h</a>"));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  CHECK(targets_seen(web, h) == std::map<std::string, int>{{"/", 1}, {"/docs/intro", 1}});
  CHECK(column(config.db_path, "SELECT canonical_url FROM pages WHERE url = '" + LoopbackWeb::url(h, "/") + "'")
        == std::vector<std::string>{LoopbackWeb::url(h, "/home")});
  CHECK(column(config.db_path, "SELECT to_url || ' ' || nofollow FROM links ORDER BY from_page_id, position")
        == std::vector<std::string>{LoopbackWeb::url(h, "/docs/intro") + " 0", LoopbackWeb::url(h, "/private") + " 1",
                                    "http://elsewhere.example/ 0", LoopbackWeb::url(h, "/docs/hidden") + " 0"});
  // The off-site link is a node and an edge of the domain graph, not a fetch.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM nodes WHERE domain_name = 'elsewhere.example'") == 1);
  CHECK(count(config.db_path, "SELECT crawl_count FROM nodes WHERE domain_name = 'elsewhere.example'") == 0);
}

TEST_CASE("consecutive requests to one host are at least the politeness delay apart", "[integration][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  auto g = web.add_host("127.0.0.2");
  std::vector<std::string> links;
  for (int i = 0; i < 5; ++i) {
    links.push_back("/p" + std::to_string(i));
    web.route(h, links.back(), html(page("P", {})));
    web.route(g, links.back(), html(page("Q", {})));
  }
  std::vector<std::string> root_links = links;
  for (const auto& l : links)
    root_links.push_back(LoopbackWeb::url(g, l));
  web.route(h, "/", html(page("Root", root_links)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.politeness_delay_ms = 150;
  config.sitemaps = true;  // the seed host's /sitemap.xml is paced too
  auto start = std::chrono::steady_clock::now();
  crawl(config);
  auto elapsed = std::chrono::steady_clock::now() - start;
  for (const auto& host : {h, g}) {
    std::vector<std::chrono::steady_clock::time_point> times;
    for (const auto& r : web.requests())
      if (r.host_key == host)
        times.push_back(r.at);
    // The pages and the host's robots.txt, and for the seed's host the
    // /sitemap.xml tried because its robots.txt names none: each paced like
    // any request.
    REQUIRE(times.size() == (host == h ? 8u : 6u));
    for (std::size_t i = 1; i < times.size(); ++i)
      CHECK(times[i] - times[i - 1] >= std::chrono::milliseconds{150});
  }
  // The two hosts were crawled side by side, not one after the other: each
  // host's first request came before the other's last (an order, not a
  // bound on time).
  std::vector<std::chrono::steady_clock::time_point> of_h, of_g;
  for (const auto& r : web.requests())
    (r.host_key == h ? of_h : of_g).push_back(r.at);
  CHECK(*std::min_element(of_h.begin(), of_h.end()) < *std::max_element(of_g.begin(), of_g.end()));
  CHECK(*std::min_element(of_g.begin(), of_g.end()) < *std::max_element(of_h.begin(), of_h.end()));
  (void)elapsed;
}

// Links spelled the ways the URL Standard reads and RFC 3986 does not: an
// internationalized host, IPv4 addresses in hex and as one number, and
// backslashes. Each leads to the host a browser would ask (names mapped to
// loopback with `resolve`); a number out of range is no link at all.
TEST_CASE("links are resolved as browsers resolve them: IDN, numeric IPv4, backslashes",
          "[integration][links][whatwg]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  auto c = web.add_host("127.0.0.3");
  auto d = web.add_host("127.0.0.4");
  const auto port_of = [](const std::string& key) { return key.substr(key.find(':') + 1); };
  const std::string idn_host = "xn--mnchen-3ya.test:" + port_of(d);
  web.route(a, "/", html(page("Seed", {"http://0x7f.0.0.2:" + port_of(b) + "/hex",
                                        "http://2130706435:" + port_of(c) + "/number",
                                        "\\\\127.0.0.3:" + port_of(c) + "\\back\\slash",
                                        "http://M\xC3\x9CNCHEN.test:" + port_of(d) + "/idn",
                                        "http://1.2.3.256:" + port_of(b) + "/out-of-range"})));
  web.route(b, "/hex", html(page("Hex", {})));
  web.route(c, "/number", html(page("Number", {})));
  web.route(c, "/back/slash", html(page("Backslash", {})));
  web.route(d, "/idn", html(page("IDN", {})));

  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.resolve = {idn_host + ":127.0.0.4"};
  // Scope entries are read the same way: a Unicode name, a hex address.
  config.allowed_domains = {"127.0.0.1", "0x7f.0.0.2", "2130706435", "m\xC3\xBCnchen.test"};
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(column(config.db_path, "SELECT url || ' ' || title FROM pages WHERE depth = 1 ORDER BY url") ==
        std::vector<std::string>{"http://" + b + "/hex Hex", "http://" + c + "/back/slash Backslash",
                                 "http://" + c + "/number Number", "http://" + idn_host + "/idn IDN"});
  CHECK(targets_seen(web, b) == std::map<std::string, int>{{"/hex", 1}});
  CHECK(targets_seen(web, c) == std::map<std::string, int>{{"/back/slash", 1}, {"/number", 1}});
  CHECK(targets_seen(web, d) == std::map<std::string, int>{{"/idn", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links WHERE to_url LIKE '%out-of-range%'") == 0);
}
