// The domains profile: host-level discovery over named hosts
// (mapped to loopback test servers with `resolve`, so no name is ever
// looked up), with exact nodes, edges, weights and crawl counts.
#include <catch2/catch.hpp>

#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;

namespace {

// A named host: a test server on its own 127.0.0.N, reached by name.
struct NamedHost {
  std::string name;      // e.g. "alpha.test"
  std::string host_key;  // "alpha.test:PORT" — the node's domain_name
  std::string server;    // "127.0.0.N:PORT" — the LoopbackWeb host key
  std::string root() const { return "http://" + host_key + "/"; }
};

class NamedWeb {
 public:
  NamedHost add(const std::string& name) {
    const std::string ip = "127.0.0." + std::to_string(++next_ip_);
    NamedHost h;
    h.name = name;
    h.server = web.add_host(ip);
    const std::string port = h.server.substr(h.server.find(':') + 1);
    h.host_key = name + ":" + port;
    resolve.push_back(name + ":" + port + ":" + ip);
    return h;
  }

  LoopbackWeb web;
  std::vector<std::string> resolve;

 private:
  int next_ip_ = 1;
};

CrawlConfig domains_config(const ScratchDir& dir, const NamedWeb& named, const NamedHost& seed) {
  CrawlConfig c = fast_config(dir, seed.root());
  c.profile = "domains";
  c.resolve = named.resolve;
  return c;
}

std::vector<std::string> edges(const std::string& db) {
  return column(db, R"(SELECT f.domain_name || ' -> ' || t.domain_name || ' ' || e.weight FROM edges e
                       JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id
                       ORDER BY f.domain_name, t.domain_name)");
}

std::vector<std::string> crawl_counts(const std::string& db) {
  return column(db, "SELECT domain_name || ' ' || crawl_count FROM nodes ORDER BY domain_name");
}

}  // namespace

TEST_CASE("domains: a 3-host loop gives its exact graph", "[integration][domains]") {
  ScratchDir dir;
  NamedWeb named;
  auto a = named.add("alpha.test");
  auto b = named.add("beta.test");
  auto c = named.add("gamma.test");
  named.web.route(a.server, "/", html(page("Alpha", {b.root(), "/about"}, "<meta name=description content=\"first\">")));
  named.web.route(b.server, "/", html(page("Beta", {c.root()})));
  named.web.route(c.server, "/", html(page("Gamma", {a.root()})));
  auto config = domains_config(dir, named, a);
  config.max_crawls_per_node = 1;
  auto result = crawl(config);

  CHECK(result.termination_reason == "queue_empty");
  CHECK(edges(config.db_path) == std::vector<std::string>{a.host_key + " -> " + b.host_key + " 1",
                                                          b.host_key + " -> " + c.host_key + " 1",
                                                          c.host_key + " -> " + a.host_key + " 1"});
  CHECK(crawl_counts(config.db_path) ==
        std::vector<std::string>{a.host_key + " 1", b.host_key + " 1", c.host_key + " 1"});
  CHECK(column(config.db_path, "SELECT description FROM nodes ORDER BY domain_name") ==
        std::vector<std::string>{"Alpha", "Beta", "Gamma"});
  // Only root pages are crawled: the same-host link is recorded, not followed.
  CHECK(targets_seen(named.web, a.server) == std::map<std::string, int>{{"/", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links WHERE to_url LIKE '%/about'") == 1);
}

TEST_CASE("domains: hosts are crawled again up to max_crawls_per_node, weights accumulate", "[integration][domains]") {
  ScratchDir dir;
  NamedWeb named;
  auto a = named.add("alpha.test");
  auto b = named.add("beta.test");
  auto c = named.add("gamma.test");
  named.web.route(a.server, "/", html(page("Alpha", {b.root()})));
  named.web.route(b.server, "/", html(page("Beta", {c.root()})));
  named.web.route(c.server, "/", html(page("Gamma", {a.root()})));
  auto config = domains_config(dir, named, a);
  config.max_crawls_per_node = 3;
  config.max_depth = 5;
  crawl(config);
  // Depths 0..5 walk the loop twice: each host twice, each edge twice; the
  // seventh step (alpha at depth 6) is beyond max_depth.
  CHECK(crawl_counts(config.db_path) ==
        std::vector<std::string>{a.host_key + " 2", b.host_key + " 2", c.host_key + " 2"});
  CHECK(edges(config.db_path) == std::vector<std::string>{a.host_key + " -> " + b.host_key + " 2",
                                                          b.host_key + " -> " + c.host_key + " 2",
                                                          c.host_key + " -> " + a.host_key + " 2"});
  CHECK(named.web.count(a.server, "/") == 2);
}

TEST_CASE("domains: outbound links are filtered, deduplicated by host, the first N kept", "[integration][domains]") {
  ScratchDir dir;
  NamedWeb named;
  auto seed = named.add("seed.test");
  std::vector<std::string> hrefs = {"/same-host", "http://www.facebook.com/share", "http://ads.example.test/banner",
                                    "http://analytics.tracker.test/pixel"};
  for (int i = 0; i < 15; ++i) {
    hrefs.push_back("http://site" + std::to_string(i) + ".test/a");
    hrefs.push_back("http://site" + std::to_string(i) + ".test/b");  // same host: one edge
  }
  std::string body = page("Seed", hrefs);
  body += "<a rel=nofollow href=\"http://sponsor.test/\">s</a>";
  named.web.route(seed.server, "/", html(body));
  auto config = domains_config(dir, named, seed);
  config.max_outbound_links = 10;
  config.max_depth = 0;  // record the graph of the seed only: no target is fetched
  crawl(config);
  std::vector<std::string> expected;
  for (int i = 0; i < 10; ++i)
    expected.push_back(seed.host_key + " -> site" + std::to_string(i) + ".test 1");
  std::sort(expected.begin(), expected.end());
  CHECK(edges(config.db_path) == expected);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM nodes") == 11);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM nodes WHERE domain_name LIKE '%facebook%' OR "
                              "domain_name LIKE 'ads.%' OR domain_name LIKE 'analytics.%' OR domain_name = 'sponsor.test'") == 0);
  // Every link is still part of the page graph.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links") == static_cast<std::int64_t>(hrefs.size()) + 1);
}

TEST_CASE("domains: at most max_subdomains_per_root hosts per registrable domain", "[integration][domains]") {
  ScratchDir dir;
  NamedWeb named;
  auto seed = named.add("seed.test");
  std::vector<NamedHost> subs;
  for (const char* name : {"a.example.test", "b.example.test", "c.example.test", "d.example.test"})
    subs.push_back(named.add(name));
  std::vector<std::string> hrefs;
  for (const auto& s : subs) {
    hrefs.push_back(s.root());
    named.web.route(s.server, "/", html(page(s.name, {})));
  }
  named.web.route(seed.server, "/", html(page("Seed", hrefs)));
  auto config = domains_config(dir, named, seed);
  config.max_subdomains_per_root = 3;
  config.max_crawls_per_node = 1;
  crawl(config);
  for (int i = 0; i < 3; ++i)
    CHECK(named.web.count(subs[static_cast<std::size_t>(i)].server, "/") == 1);
  CHECK(targets_seen(named.web, subs[3].server).empty());
  // The fourth is in the graph (it was linked) but never crawled, and the
  // frontier says why.
  CHECK(crawl_counts(config.db_path) ==
        std::vector<std::string>{subs[0].host_key + " 1", subs[1].host_key + " 1", subs[2].host_key + " 1",
                                 subs[3].host_key + " 0", seed.host_key + " 1"});
  CHECK(column(config.db_path, "SELECT url || ' ' || refusal FROM frontier WHERE state = 3") ==
        std::vector<std::string>{subs[3].root() + " max_subdomains_per_root"});

  // Resuming queues nodes below max_crawls_per_node again — but not one the
  // cap kept out.
  config.max_crawls_per_node = 2;
  crawl(config);
  CHECK(targets_seen(named.web, subs[3].server).empty());
  CHECK(named.web.count(subs[0].server, "/") == 2);
}

TEST_CASE("domains: a resumed run adds to the graph instead of restarting it", "[integration][domains][resume]") {
  ScratchDir dir;
  NamedWeb named;
  auto a = named.add("alpha.test");
  auto b = named.add("beta.test");
  auto c = named.add("gamma.test");
  named.web.route(a.server, "/", html(page("Alpha", {b.root()})));
  named.web.route(b.server, "/", html(page("Beta", {c.root()})));
  named.web.route(c.server, "/", html(page("Gamma", {a.root()})));
  auto config = domains_config(dir, named, a);
  config.max_crawls_per_node = 1;
  config.max_pages = 2;
  auto first = crawl(config);
  CHECK(first.termination_reason == "max_pages");
  CHECK(crawl_counts(config.db_path) ==
        std::vector<std::string>{a.host_key + " 1", b.host_key + " 1", c.host_key + " 0"});

  // Resume: the seed is known, so every node below
  // max_crawls_per_node is queued again at depth 0; the rest is not redone.
  config.max_pages = 100;
  auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  CHECK(crawl_counts(config.db_path) ==
        std::vector<std::string>{a.host_key + " 1", b.host_key + " 1", c.host_key + " 1"});
  CHECK(edges(config.db_path) == std::vector<std::string>{a.host_key + " -> " + b.host_key + " 1",
                                                          b.host_key + " -> " + c.host_key + " 1",
                                                          c.host_key + " -> " + a.host_key + " 1"});
  CHECK(named.web.count(a.server, "/") == 1);
  CHECK(named.web.count(b.server, "/") == 1);
  CHECK(named.web.count(c.server, "/") == 1);
  CHECK(column(config.db_path, "SELECT termination_reason FROM crawl_runs ORDER BY run_id") ==
        std::vector<std::string>{"max_pages", "queue_empty"});
}
