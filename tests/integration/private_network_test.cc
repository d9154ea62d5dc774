// The private-address guard in a whole crawl: a crawl reaches a private,
// loopback or link-local address only for the hosts its user named (seeds,
// sitemap_urls, allowed_domains, resolve). Every test web is on loopback, so
// a second test host stands for "inside": a page link, a redirect, a
// sitemap's redirect and a plugin's link to it must cost it no request at
// all. The inside host's access log is the judge.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using demoweb::Response;

namespace {

// A seed host on 127.0.0.1 whose pages, robots.txt sitemap and plugin all
// lead to `inside` on 127.0.0.2, and to a cloud metadata address.
struct LeadsInside {
  LoopbackWeb web;
  std::string seed_host = web.add_host("127.0.0.1");
  std::string inside = web.add_host("127.0.0.2");
  std::string metadata = "http://169.254.169.254/latest/meta-data/";

  LeadsInside() {
    web.route(seed_host, "/",
              html(page("Public", {LoopbackWeb::url(inside, "/linked"), "/away", "/plugin-page", metadata})));
    web.route(seed_host, "/away", redirect(302, LoopbackWeb::url(inside, "/redirected")));
    web.route(seed_host, "/plugin-page", html(page("Plugin", {})));
    web.route(seed_host, "/robots.txt",
              typed("User-agent: *\nDisallow:\nSitemap: " + LoopbackWeb::url(seed_host, "/sitemap.xml") + "\n",
                    "text/plain"));
    web.route(seed_host, "/sitemap.xml", redirect(302, LoopbackWeb::url(inside, "/sitemap.xml")));
    web.route(inside, "/robots.txt", typed("User-agent: *\nDisallow:\n", "text/plain"));
    for (const char* path : {"/linked", "/redirected", "/listed", "/from-plugin"})
      web.route(inside, path, html(page(std::string{"Inside "} + path, {})));
    web.route(inside, "/sitemap.xml",
              typed("<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>" +
                      LoopbackWeb::url(inside, "/listed") + "</loc></url></urlset>",
                    "application/xml"));
  }

  std::size_t inside_requests() const {
    std::size_t n = 0;
    for (const auto& r : web.requests())
      n += r.host_key == inside ? 1 : 0;
    return n;
  }
};

// A plugin that answers /plugin-page with a link to `target`.
std::string plugin_linking_to(const ScratchDir& dir, const std::string& target) {
  const std::string script = dir.path("links_inside.py");
  std::ofstream(script) << "import actorcrawl_plugin\n"
                           "def process(page):\n"
                           "    if page.url.endswith('/plugin-page'):\n"
                           "        return {'links': ['" << target << "']}\n"
                           "    return {}\n"
                           "actorcrawl_plugin.run(process)\n";
  return nlohmann::json{{"name", "linker"}, {"exec", {"python3", script}}}.dump();
}

CrawlConfig config_for(const ScratchDir& dir, const LeadsInside& w) {
  auto config = fast_config(dir, LoopbackWeb::url(w.seed_host, "/"));
  config.allow_private_networks = false;  // the default: fast_config lifts it
  config.scope = "any";
  config.sitemaps = true;
  config.processors = {"html_links", plugin_linking_to(dir, LoopbackWeb::url(w.inside, "/from-plugin"))};
  return config;
}

}  // namespace

TEST_CASE("a crawl reaches no private address but its seeds' hosts: links, redirects, sitemaps and plugin links "
          "to one are refused private_address",
          "[integration][private]") {
  ScratchDir dir;
  LeadsInside w;
  const auto config = config_for(dir, w);
  const auto result = crawl(config);
  CHECK(w.inside_requests() == 0);
  // The seed's host was crawled as always.
  CHECK(w.web.count(w.seed_host, "/") == 1);
  CHECK(w.web.count(w.seed_host, "/plugin-page") == 1);
  CHECK(w.web.count(w.seed_host, "/sitemap.xml") == 1);
  // Each URL that leads inside is refused with its reason, final; a
  // redirect's refusal is its source's (the hop is that URL's fetch).
  const auto u = [&](const std::string& path) { return LoopbackWeb::url(w.inside, path); };
  CHECK(column(config.db_path, "SELECT url || ' ' || state || ' ' || refusal FROM frontier WHERE refusal != '' "
                               "ORDER BY url") ==
        std::vector<std::string>{LoopbackWeb::url(w.seed_host, "/away") + " 3 private_address",
                                 u("/from-plugin") + " 3 private_address", u("/linked") + " 3 private_address",
                                 "http://169.254.169.254/latest/meta-data/ 3 private_address"});
  CHECK(column(config.db_path, "SELECT url || ' ' || status || ' ' || coalesce(reason, '') FROM sitemaps ORDER BY url") ==
        std::vector<std::string>{LoopbackWeb::url(w.seed_host, "/sitemap.xml") + " redirected http_302",
                                 u("/sitemap.xml") + " refused private_address"});
  CHECK(result.summary.pages_fetched == 2);
}

TEST_CASE("allow_private_networks, allowed_domains or a resolve entry lets a crawl reach a private host",
          "[integration][private]") {
  SECTION("allow_private_networks: every host") {
    ScratchDir dir;
    LeadsInside w;
    auto config = config_for(dir, w);
    config.allow_private_networks = true;
    crawl(config);
    for (const char* path : {"/linked", "/redirected", "/listed", "/from-plugin"})
      CHECK(w.web.count(w.inside, path) == 1);
  }
  SECTION("a name in allowed_domains") {
    ScratchDir dir;
    LeadsInside w;
    auto config = config_for(dir, w);
    config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
    crawl(config);
    CHECK(w.web.count(w.inside, "/linked") == 1);
    CHECK(w.web.count(w.inside, "/listed") == 1);
  }
  SECTION("block_private_networks: not even the seed's host") {
    ScratchDir dir;
    LeadsInside w;
    auto config = config_for(dir, w);
    config.allow_private_networks = true;
    config.block_private_networks = true;
    const auto result = run_crawl(config, CrawlRunOptions{});
    CHECK(w.web.requests().empty());
    CHECK(result.summary.pages_fetched == 0);
  }
}
