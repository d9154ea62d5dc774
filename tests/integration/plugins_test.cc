// External processors in a crawl: Python plugins speaking the JSON Lines
// protocol of docs/plugins.md add items and links; one that crashes, hangs
// or prints garbage on some pages leaves the crawl finishing, every other
// page processed, and each failure recorded with its reason.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "core/config/crawl_config.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using nlohmann::json;

namespace {

// tests/data/plugins/misbehaving.py answers each page as its path asks
// (/crash: exits; /hang: never answers; /garbage: a line that is not JSON;
// /links: items and relative links); `urls` gives each entry its pages, so
// which page fails how does not depend on which instance got what.
std::string processor_entry(const std::string& name, const std::string& script, const std::string& urls,
                            const std::string& timeout, int instances) {
  return json{{"name", name},
              {"exec", {"python3", std::string{ACTORCRAWL_SOURCE_DIR} + "/" + script}},
              {"urls", urls},
              {"timeout", timeout},
              {"instances", instances}}
    .dump();
}

}  // namespace

TEST_CASE("external processors: items and links from a plugin, crashes, hangs and garbage are recorded, the crawl "
          "goes on",
          "[integration][plugins]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string base = LoopbackWeb::url(h, "");
  std::vector<std::string> pages = {"/links", "/crash", "/hang", "/garbage", "/a", "/b", "/c", "/d"};
  web.route(h, "/", html(page("Home", pages)));
  for (const auto& p : pages)
    web.route(h, p, html(page("Page " + p, {})));
  web.route(h, "/other.html", html(page("Found by the plugin", {})));
  web.route(h, "/up.html", html(page("Up", {})));

  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  const std::string misbehaving = "tests/data/plugins/misbehaving.py";
  config.processors = {"html_links",
                       processor_entry("linker", misbehaving, "/links$", "30s", 1),
                       processor_entry("crasher", misbehaving, "/crash$", "30s", 1),
                       processor_entry("hanger", misbehaving, "/hang$", "1s", 1),
                       processor_entry("garbler", misbehaving, "/garbage$", "30s", 1),
                       processor_entry("wordcount", "plugins/wordcount.py", "", "30s", 2)};
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  // A plugin that fails costs its page's items, never a second request.
  const auto seen = targets_seen(web, h);
  CHECK(seen.size() == 11);
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times == 1);
  }

  // Every page was stored, those the plugin found too (links resolved
  // against the page's final URL, in scope only).
  const auto urls = column(config.db_path, "SELECT url FROM pages WHERE status_code = 200 ORDER BY url");
  CHECK(std::set<std::string>(urls.begin(), urls.end()) ==
        std::set<std::string>{base + "/", base + "/links", base + "/crash", base + "/hang", base + "/garbage",
                              base + "/a", base + "/b", base + "/c", base + "/d", base + "/other.html",
                              base + "/up.html"});
  // The well-behaved plugin processed every page, those the others failed
  // on too; the linker's item is on its page.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'wordcount'") == 11);
  CHECK(column(config.db_path, "SELECT p.url FROM items i JOIN pages p USING (page_id) WHERE i.kind = 'linker'") ==
        std::vector<std::string>{base + "/links"});
  for (const auto& item : column(config.db_path, "SELECT item FROM items WHERE kind = 'wordcount'")) {
    INFO(item);
    CHECK(json::parse(item).contains("words"));
  }
  // Each failure with its reason, on its page.
  const auto failures = column(config.db_path,
                               "SELECT p.url || ' ' || f.processor || ' ' || f.reason FROM processor_failures f "
                               "JOIN pages p USING (page_id) ORDER BY p.url");
  CHECK(std::set<std::string>(failures.begin(), failures.end()) ==
        std::set<std::string>{base + "/crash crasher crashed", base + "/garbage garbler bad_answer",
                              base + "/hang hanger timeout"});
  // metrics.log counts them by processor and reason.
  std::ifstream metrics_file(config.metrics_path);
  std::stringstream text;
  text << metrics_file.rdbuf();
  const auto metrics = json::parse(text.str());
  CHECK(metrics.at("processor_failures") ==
        json{{"crasher", {{"crashed", 1}}}, {"garbler", {{"bad_answer", 1}}}, {"hanger", {{"timeout", 1}}}});
  CHECK(metrics.at("items_stored") == 12);
}

TEST_CASE("external processors: a plugin that cannot start stops the crawl before it starts", "[integration][plugins]") {
  ScratchDir dir;
  auto config = fast_config(dir, "http://127.0.0.1:1/");
  config.processors = {"html_links", json{{"name", "ghost"}, {"exec", {"no-such-program-here"}}}.dump()};
  try {
    run_crawl(config, {});
    FAIL("the crawl started");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("ghost") != std::string::npos);
    CHECK(what.find("no-such-program-here") != std::string::npos);
  }
  // A bad entry is named with its key, before anything starts.
  config.processors = {json{{"name", "x"}, {"exec", {"python3"}}, {"timeout", "soon"}}.dump()};
  try {
    run_crawl(config, {});
    FAIL("the crawl started");
  } catch (const ConfigError& e) {
    CHECK(std::string{e.what()}.find("timeout") != std::string::npos);
  }
}
