// What a crawl promises beyond fetching pages: a URL found again closer to a
// seed gets its smaller depth (and its subtree), an actor of the topology
// that dies ends the run with its name instead of a hang, and what the
// crawl reports (page events, metrics) is already in the database.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <caf/all.hpp>

#include "core/report/console_log.h"
#include "crawl_fixture.h"
#include "messages/topology.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using namespace std::chrono_literals;

TEST_CASE("a URL found again closer to a seed after its fetch gives its subtree the smaller depth, fetched once",
          "[integration][depth][politeness]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  const std::string x = LoopbackWeb::url(a, "/x");
  // Seed a: a chain that reaches /x at depth 3, quickly.
  web.route(a, "/", html(page("A", {"/1"})));
  web.route(a, "/1", html(page("A1", {"/2"})));
  web.route(a, "/2", html(page("A2", {"/x"})));
  web.route(a, "/x", html(page("X", {"/y"})));
  web.route(a, "/y", html(page("Y", {"/z"})));
  web.route(a, "/z", html(page("Z", {})));
  // Seed b links to /x directly (depth 1), but answers late: /x is fetched
  // by then, at depth 3.
  auto slow = html(page("B", {x}));
  slow.delay_ms = 1500;
  web.route(b, "/", slow);
  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.seeds.push_back(LoopbackWeb::url(b, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2"};
  config.max_depth = 3;
  crawl(config);

  CHECK(column(config.db_path, "SELECT depth || ' ' || parent_url FROM frontier WHERE url = '" + x + "'") ==
        std::vector<std::string>{"1 " + LoopbackWeb::url(b, "/")});
  CHECK(column(config.db_path, "SELECT depth FROM pages WHERE url = '" + x + "'") == std::vector<std::string>{"1"});
  // /y (depth 2 through b) and /z (depth 3): within max_depth only because
  // /x's stored links were offered again at its smaller depth. Met first
  // through a, /y would be depth 4.
  CHECK(column(config.db_path, "SELECT depth FROM frontier WHERE url = '" + LoopbackWeb::url(a, "/y") + "'") ==
        std::vector<std::string>{"2"});
  CHECK(column(config.db_path, "SELECT state FROM frontier WHERE url LIKE '%/z'") == std::vector<std::string>{"1"});
  // The server's record is the judge: every page asked for once, /x too.
  CHECK(targets_seen(web, a) ==
        std::map<std::string, int>{{"/", 1}, {"/1", 1}, {"/2", 1}, {"/x", 1}, {"/y", 1}, {"/z", 1}});
  CHECK(targets_seen(web, b) == std::map<std::string, int>{{"/", 1}});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state = 0") == 0);
}

namespace {

// A web slow enough that the crawl is still running when an actor dies:
// its host key.
std::string slow_web(LoopbackWeb& web, int delay_ms = 100) {
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 0; i < 40; ++i) {
    links.push_back("/p" + std::to_string(i));
    auto r = html(page("P", {}));
    r.delay_ms = delay_ms;
    web.route(h, links.back(), r);
  }
  web.route(h, "/", html(page("Root", links)));
  return h;
}

}  // namespace

TEST_CASE("an actor of the topology that dies ends the run with its name", "[integration][supervision]") {
  set_quiet(true);
  for (const auto& [role, name] : std::vector<std::pair<std::string, std::string>>{
         {"frontier", "FrontierActor"},
         {"host_selector", "HostSelectorActor"},
         {"processor", "ProcessorActor"},
         {"storage", "StorageActor"},
         {"dead_letter", "DeadLetterActor"}}) {
    INFO(role);
    ScratchDir dir;
    LoopbackWeb web;
    const auto host = slow_web(web);
    auto config = fast_config(dir, LoopbackWeb::url(host, "/"));
    config.concurrent_workers = 1;
    config.transfers_per_worker = 1;
    caf::actor victim;
    std::mutex m;
    CrawlRunOptions options;
    options.show_progress = false;
    options.on_started = [&, role = role](const topology& actors) {
      std::lock_guard<std::mutex> lock{m};
      for_each_role(actors, [&](const std::string& r, const auto& a) {
        if (r == role)
          victim = caf::actor_cast<caf::actor>(a);
      });
    };
    std::atomic<bool> done{false};
    std::thread killer([&] {
      while (!done && web.count(host, "/") == 0)
        std::this_thread::sleep_for(5ms);
      std::this_thread::sleep_for(200ms);
      std::lock_guard<std::mutex> lock{m};
      if (victim)
        caf::anon_send_exit(victim, caf::exit_reason::kill);
    });
    const auto result = run_crawl(config, options);
    done = true;
    killer.join();
    CHECK(result.termination_reason == "error");
    CHECK(result.error.find("the " + name + " stopped") == 0);
    // It ended by itself: a hang would meet CTest's timeout instead.
  }
}

namespace {

// Checks, as each event arrives, that the database already holds it.
class CommittedCheck : public CrawlEvents {
 public:
  explicit CommittedCheck(std::string db) : db_(std::move(db)) {}
  void page_stored(const PageRow& page) override {
    SQLite::Database d(db_, SQLite::OPEN_READONLY);
    SQLite::Statement q(d, "SELECT COUNT(*) FROM pages WHERE url = ?1");
    q.bind(1, page.url);
    q.executeStep();
    (q.getColumn(0).getInt() == 1 ? committed_ : uncommitted_)++;
  }
  std::atomic<int> committed_{0};
  std::atomic<int> uncommitted_{0};

 private:
  std::string db_;
};

}  // namespace

TEST_CASE("page events are told only once their batch has committed", "[integration][events]") {
  set_quiet(true);
  ScratchDir dir;
  LoopbackWeb web;
  auto config = fast_config(dir, LoopbackWeb::url(slow_web(web, 0), "/"));
  // Batches that stay open long: an event told at the write would come
  // before the commit.
  config.storage_batch = 100000;
  auto events = std::make_shared<CommittedCheck>(config.db_path);
  CrawlRunOptions options;
  options.show_progress = false;
  options.events = events;
  const auto result = run_crawl(config, options);
  REQUIRE(result.error.empty());
  CHECK(events->uncommitted_ == 0);
  CHECK(events->committed_ == 41);
}
