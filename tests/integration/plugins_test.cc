// External processors in a crawl: Python plugins speaking the JSON Lines
// protocol of docs/plugins.md add items and links; one that crashes, hangs
// or prints garbage on some pages leaves the crawl finishing, every other
// page processed, and each failure recorded with its reason.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <set>
#include <sstream>

#include "core/config/crawl_config.h"
#include "core/report/console_log.h"
#include "child_process.h"
#include "crawl_fixture.h"
#include "tests/support/process_gone.h"

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

// A host whose home links `count` pages (/p/0, /p/1, ...), each served.
std::vector<std::string> serve_pages(LoopbackWeb& web, const std::string& host, int count) {
  std::vector<std::string> pages;
  for (int i = 0; i < count; ++i)
    pages.push_back("/p/" + std::to_string(i));
  web.route(host, "/", html(page("Home", pages)));
  for (const auto& p : pages)
    web.route(host, p, html(page("Page " + p, {})));
  return pages;
}

// tests/data/plugins/exits_on.py as the processor "dies": it exits on the
// page whose path ends in `path` ("*": on every page); `more` adds keys.
std::string dies_on(const std::string& path, json more = json::object()) {
  json entry{{"name", "dies"},
             {"exec", {"python3", std::string{ACTORCRAWL_SOURCE_DIR} + "/tests/data/plugins/exits_on.py", path}}};
  entry.update(more);
  return entry.dump();
}

nlohmann::json metrics_of(const CrawlConfig& config) {
  std::ifstream file(config.metrics_path);
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
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
        std::set<std::string>{base + "/crash crasher crashed", base + "/hang hanger timeout"});
  // A line on stdout that is no answer is the plugin's own output: logged,
  // and the page it then answered has its item.
  CHECK(column(config.db_path, "SELECT p.url FROM items i JOIN pages p USING (page_id) WHERE i.kind = 'garbler'") ==
        std::vector<std::string>{base + "/garbage"});
  // metrics.log counts them by processor and reason, and what each took.
  const auto metrics = metrics_of(config);
  CHECK(metrics.at("processor_failures") == json{{"crasher", {{"crashed", 1}}}, {"hanger", {{"timeout", 1}}}});
  CHECK(metrics.at("items_stored") == 13);
  CHECK(metrics.at("pages_processor_failed") == 2);
  CHECK(metrics.at("processors") == json{{"html_links", {{"pages", 11}, {"failed", 0}}},
                                         {"linker", {{"pages", 1}, {"failed", 0}}},
                                         {"crasher", {{"pages", 1}, {"failed", 1}}},
                                         {"hanger", {{"pages", 1}, {"failed", 1}}},
                                         {"garbler", {{"pages", 1}, {"failed", 0}}},
                                         {"wordcount", {{"pages", 11}, {"failed", 0}}}});
  CHECK(result.summary.pages_processor_failed == 2);
}

// A web of 200 pages served with no delay, and a plugin that dies on one of
// them: the pages that reach it while it restarts wait for it, those it
// held when it died are given to it again, and only the page it dies on
// lacks its work. Nothing here depends on timing: however the pages fall
// (in flight together or one by one, before or during the restart), the
// outcome is the same.
TEST_CASE("external processors: a plugin that dies on one page of 200 costs that page alone",
          "[integration][plugins]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string base = LoopbackWeb::url(h, "");
  serve_pages(web, h, 199);

  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.processors = {"html_links", dies_on("/p/57")};
  const auto result = crawl(config);
  CHECK(result.termination_reason == "queue_empty");
  CHECK(result.summary.pages_fetched == 200);
  CHECK(page_requests(web) == 200);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 199);
  CHECK(column(config.db_path, "SELECT p.url || ' ' || f.processor || ' ' || f.reason FROM processor_failures f "
                               "JOIN pages p USING (page_id)") == std::vector<std::string>{base + "/p/57 dies crashed"});
  CHECK(result.summary.pages_processor_failed == 1);
  const auto metrics = metrics_of(config);
  CHECK(metrics.at("processors").at("dies") == json{{"pages", 200}, {"failed", 1}});
  CHECK(metrics.at("pages_processor_failed") == 1);
}

// A plugin that dies on every page is in a crash loop: after
// max_failures_in_a_row failures with no good answer between, it gives up
// and the crawl stops gracefully, saying why and what to do; every page
// fetched is recorded as lacking its work.
TEST_CASE("external processors: a plugin in a crash loop stops the crawl, naming it, its stderr and the remedy",
          "[integration][plugins]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  serve_pages(web, h, 100);

  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.processors = {"html_links", dies_on("*", {{"max_failures_in_a_row", 3}})};
  set_quiet(true);
  CrawlRunOptions options;
  options.show_progress = false;
  const auto result = run_crawl(config, options);
  CHECK(result.termination_reason == "processor_failed");
  INFO(result.error);
  CHECK(result.error.find("plugin 'dies' failed 3 times in a row with no good answer between (the last time: exited "
                          "with status 3)") == 0);
  CHECK(result.error.find("its last lines on stderr: dying on /") != std::string::npos);
  CHECK(result.error.find("The crawl stops. Run 'python3 ") != std::string::npos);
  CHECK(result.error.find("processor_failures") != std::string::npos);
  // It stopped: not every page was fetched, and each one fetched is
  // recorded as lacking the plugin's work (crashed, or unavailable once it
  // gave up), so a later run or a reprocessing can give it to the plugin.
  CHECK(result.summary.pages_fetched < 101);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == result.summary.pages_fetched);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages p WHERE NOT EXISTS (SELECT 1 FROM processor_failures f "
                              "WHERE f.page_id = p.page_id AND f.processor = 'dies')") == 0);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items") == 0);
  CHECK(metrics_of(config).at("termination_reason") == "processor_failed");
  // Run as a command, it exits 1 with the message.
  ChildProcess cli(ACTORCRAWL_BINARY,
                   {"crawl", "--seed", LoopbackWeb::url(h, "/"), "--db", dir.path("cli.db"), "--metrics",
                    dir.path("cli-metrics.log"), "--politeness-delay", "0", "--no-sitemaps", "--processors", "html_links",
                    "--processors", config.processors[1]},
                   dir.path("cli.log"));
  CHECK(cli.wait(std::chrono::seconds{60}) == 1);
  CHECK(cli.output().find("actorcrawl: plugin 'dies' failed 3 times in a row") != std::string::npos);
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

// A crawler killed with SIGKILL cannot stop its plugins; the kernel does:
// each was started with PR_SET_PDEATHSIG by a thread that lives as long as
// the crawler.
TEST_CASE("external processors: a plugin does not outlive a crawler killed with SIGKILL", "[integration][plugins]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  serve_pages(web, h, 50);
  const std::string pids = dir.path("pids.txt");
  const std::string entry =
    json{{"name", "daemon"},
         {"exec", {"python3", std::string{ACTORCRAWL_SOURCE_DIR} + "/tests/data/plugins/starts_daemon.py", pids}}}
      .dump();
  // Slow enough to be killed mid-crawl: a second between requests.
  ChildProcess cli(ACTORCRAWL_BINARY,
                   {"crawl", "--seed", LoopbackWeb::url(h, "/"), "--db", dir.path("crawl.db"), "--politeness-delay",
                    "1s", "--no-sitemaps", "--processors", "html_links", "--processors", entry},
                   dir.path("cli.log"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
  while (!std::filesystem::exists(pids) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  REQUIRE(std::filesystem::exists(pids));
  long plugin = 0, child = 0;
  std::ifstream(pids) >> plugin >> child;
  REQUIRE(plugin > 0);
  cli.signal(SIGKILL);
  REQUIRE(cli.wait(std::chrono::seconds{10}).has_value());
  CHECK(testing::process_gone_within(plugin, std::chrono::seconds{10}));
  // Its setsid() child is beyond what a crashed crawler can reach (no
  // cgroup): cleaned up here, and said so in docs/plugins.md.
  if (child > 0)
    ::kill(static_cast<pid_t>(child), SIGKILL);
}
