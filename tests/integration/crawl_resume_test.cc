// Stop and resume: a crawl interrupted half-way and run again covers the
// whole site, and no page is fetched twice.
#include <catch2/catch.hpp>

#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;

namespace {

// A site of `n` pages where page i links to the next three, so the frontier
// always holds work when the crawl is stopped.
void build_site(LoopbackWeb& web, const std::string& h, int n) {
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> links;
    for (int k = 1; k <= 3; ++k)
      if (i + k < n)
        links.push_back("/p" + std::to_string(i + k));
    web.route(h, "/p" + std::to_string(i), html(page("Page " + std::to_string(i), links)));
  }
}

}  // namespace

TEST_CASE("an interrupted crawl resumes where it stopped", "[integration][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const int n = 30;
  build_site(web, h, n);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/p0"));
  config.politeness_delay_ms = 20;
  config.max_depth = 100;

  auto first = crawl_until(config, [&] { return page_requests(web) >= 8; });
  CHECK(first.termination_reason == "signal");
  const auto after_first = page_requests(web);
  CHECK(after_first < static_cast<std::size_t>(n));
  const auto fetched_first = count(config.db_path, "SELECT COUNT(*) FROM pages");
  CHECK(fetched_first == static_cast<std::int64_t>(after_first));
  // Everything discovered but not fetched waits in the frontier.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 0") > 0);

  auto second = crawl(config);
  CHECK(second.termination_reason == "queue_empty");
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == n);
  auto seen = targets_seen(web, h);
  CHECK(seen.size() == static_cast<std::size_t>(n));
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times == 1);
  }
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 0") == 0);
  CHECK(column(config.db_path, "SELECT termination_reason FROM crawl_runs ORDER BY run_id")
        == std::vector<std::string>{"signal", "queue_empty"});
}

TEST_CASE("a finished crawl run again fetches nothing", "[integration][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  build_site(web, h, 10);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/p0"));
  crawl(config);
  CHECK(page_requests(web) == 10);
  auto again = crawl(config);
  CHECK(again.termination_reason == "queue_empty");
  CHECK(page_requests(web) == 10);
}

TEST_CASE("max_pages counts over runs, so a resumed crawl completes the budget", "[integration][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  build_site(web, h, 30);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/p0"));
  config.max_pages = 12;
  config.politeness_delay_ms = 20;
  crawl_until(config, [&] { return page_requests(web) >= 5; });
  auto second = crawl(config);
  CHECK(second.termination_reason == "max_pages");
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 12);
  CHECK(page_requests(web) == 12);
}

TEST_CASE("revisit_after re-fetches pages older than the interval", "[integration][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  build_site(web, h, 4);
  auto config = fast_config(dir, LoopbackWeb::url(h, "/p0"));
  crawl(config);
  CHECK(page_requests(web) == 4);
  config.revisit_after_ms = 1;  // everything fetched before now is stale
  std::this_thread::sleep_for(std::chrono::milliseconds{5});
  crawl(config);
  CHECK(page_requests(web) == 8);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 4);
}

TEST_CASE("a frontier larger than the window spills to SQLite and loses nothing", "[integration][frontier]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 0; i < 300; ++i) {
    links.push_back("/leaf/" + std::to_string(i));
    web.route(h, links.back(), html(page("Leaf", {})));
  }
  web.route(h, "/", html(page("Hub", links)));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.frontier_window = 16;
  config.max_connections_per_host = 1;  // one fetch at a time, so fetch order is dispatch order
  crawl(config);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == 301);
  auto seen = targets_seen(web, h);
  CHECK(seen.size() == 301);
  for (const auto& [target, times] : seen)
    CHECK(times == 1);
  // BFS order survives the spill: the server is asked for every leaf in
  // document order (its own record, in arrival order: the database's
  // fetch times tie within a millisecond).
  std::vector<std::string> asked;
  for (const auto& r : web.requests())
    if (r.host_key == h && r.target.rfind("/leaf/", 0) == 0)
      asked.push_back(r.target);
  CHECK(asked == links);
}
