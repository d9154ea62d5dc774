#include "core/frontier/frontier_lifecycle.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

namespace {

constexpr FrontierFacts kWorkLeft{false, false, 3};
constexpr FrontierFacts kQueueEmpty{true, false, 0};
constexpr FrontierFacts kBudgetSpent{true, true, 0};

FrontierLifecycle started(FrontierLifecycle::Rules rules = {}) {
  FrontierLifecycle life{rules};
  life.resume_asked();
  life.resumed();
  return life;
}

}  // namespace

TEST_CASE("FrontierLifecycle: nothing ends before the resume is in", "[frontier_lifecycle]") {
  FrontierLifecycle life{FrontierLifecycle::Rules{}};
  CHECK_FALSE(life.next(kQueueEmpty).end);
  life.resume_asked();
  CHECK_FALSE(life.next(kQueueEmpty).end);
  life.resumed();
  CHECK(life.started());
  const auto next = life.next(kQueueEmpty);
  REQUIRE(next.end);
  CHECK(next.end->reason == "queue_empty");
  CHECK(next.end->error.empty());
}

TEST_CASE("FrontierLifecycle: the queue runs dry, or the budget is spent, once", "[frontier_lifecycle]") {
  auto life = started();
  CHECK_FALSE(life.next(kWorkLeft).end);
  CHECK(life.takes_new_work());
  SECTION("queue_empty") {
    REQUIRE(life.next(kQueueEmpty).end);
    CHECK(life.finishing());
  }
  SECTION("max_pages") {
    const auto next = life.next(kBudgetSpent);
    REQUIRE(next.end);
    CHECK(next.end->reason == "max_pages");
  }
  // Ended once: asked again, the rule says nothing more.
  CHECK_FALSE(life.next(kQueueEmpty).end);
  CHECK_FALSE(life.takes_new_work());
}

TEST_CASE("FrontierLifecycle: an unanswered relink or lastmod ask keeps the crawl going", "[frontier_lifecycle]") {
  auto life = started();
  const auto ask = GENERATE(FrontierLifecycle::Ask::relink, FrontierLifecycle::Ask::lastmod);
  life.asked(ask);
  life.asked(ask);
  CHECK_FALSE(life.next(kQueueEmpty).end);
  life.answered(ask);
  CHECK_FALSE(life.next(kQueueEmpty).end);
  life.answered(ask);
  CHECK(life.next(kQueueEmpty).end);
}

TEST_CASE("FrontierLifecycle: open sitemaps keep the crawl going, and are drained once the budget is spent",
          "[frontier_lifecycle]") {
  auto life = started();
  life.sitemaps_open(2);
  const auto first = life.next(kQueueEmpty);
  CHECK_FALSE(first.end);
  CHECK_FALSE(first.drain_sitemaps);  // budget left: their URLs may still be fetched
  const auto spent = life.next(kBudgetSpent);
  CHECK(spent.drain_sitemaps);
  CHECK_FALSE(spent.end);
  CHECK_FALSE(life.next(kBudgetSpent).drain_sitemaps);  // drained once
  life.sitemaps_open(0);
  const auto last = life.next(kBudgetSpent);
  REQUIRE(last.end);
  CHECK(last.end->reason == "max_pages");
}

TEST_CASE("FrontierLifecycle: a run that awaits sitemaps ends only once their count was heard",
          "[frontier_lifecycle]") {
  FrontierLifecycle::Rules rules;
  rules.await_sitemaps = true;
  auto life = started(rules);
  CHECK_FALSE(life.next(kQueueEmpty).end);
  life.sitemaps_open(-4);  // a peer's nonsense reads as none open
  CHECK(life.next(kQueueEmpty).end);
}

TEST_CASE("FrontierLifecycle: a stop waits for the leases out and ends with its own reason",
          "[frontier_lifecycle]") {
  FrontierLifecycle::Rules rules;
  rules.await_sitemaps = true;  // a stop does not wait to hear of sitemaps
  auto life = started(rules);
  life.demand(8);
  CHECK(life.stop("signal", "interrupted"));
  CHECK_FALSE(life.stop("service", "later"));  // the first stop's words stay
  CHECK(life.stopping());
  CHECK_FALSE(life.takes_new_work());
  CHECK(life.leasable(100) == 0);
  CHECK_FALSE(life.next(FrontierFacts{false, false, 2}).end);
  life.sitemaps_open(1);
  const auto open = life.next(FrontierFacts{true, true, 0});
  CHECK_FALSE(open.end);
  CHECK_FALSE(open.drain_sitemaps);  // a stop drains them itself
  life.sitemaps_open(0);
  const auto next = life.next(FrontierFacts{false, false, 0});  // queued URLs wait for the next run
  REQUIRE(next.end);
  CHECK(next.end->reason == "signal");
  CHECK(next.end->error == "interrupted");
}

TEST_CASE("FrontierLifecycle: a stop before the seeds ends at once, one during the resume waits for it",
          "[frontier_lifecycle]") {
  SECTION("before the seeds") {
    FrontierLifecycle life{FrontierLifecycle::Rules{}};
    life.stop("service", "");
    REQUIRE(life.next(FrontierFacts{}).end);
  }
  SECTION("while the resume is on its way") {
    FrontierLifecycle life{FrontierLifecycle::Rules{}};
    life.resume_asked();
    life.stop("service", "");
    CHECK_FALSE(life.next(FrontierFacts{}).end);
    life.resumed();
    REQUIRE(life.next(FrontierFacts{}).end);
  }
}

TEST_CASE("FrontierLifecycle: leases follow demand and room, and wait for a store behind", "[frontier_lifecycle]") {
  FrontierLifecycle::Rules rules;
  rules.max_unwritten_deltas = 2;
  FrontierLifecycle life{rules};
  life.demand(10);
  CHECK(life.leasable(100) == 0);  // not started
  life.resume_asked();
  life.resumed();
  CHECK(life.leasable(100) == 10);
  CHECK(life.leasable(4) == 4);  // the rest stays owed
  life.leased(4);
  CHECK(life.leasable(100) == 6);
  life.delta_sent();
  CHECK(life.leasable(100) == 6);
  life.delta_sent();
  CHECK(life.leasable(100) == 0);  // two deltas unwritten
  life.deltas_written(1);
  CHECK(life.leasable(100) == 6);
  life.deltas_written(0);  // an older count changes nothing
  CHECK(life.leasable(100) == 6);
  life.leased(6);
  CHECK(life.leasable(100) == 0);
}

TEST_CASE("FrontierLifecycle: the profile decides revisits once, in the rules", "[frontier_lifecycle]") {
  FrontierSettings s;
  s.revisit_after_ms = 60000;
  s.revisit_check = std::chrono::milliseconds{1000};
  s.max_unwritten_deltas = 7;
  auto site = FrontierLifecycle::rules_of(s);
  CHECK(site.revisits_during_run);
  CHECK(site.revisits_by_lastmod);
  CHECK(site.max_unwritten_deltas == 7);
  s.revisit_check = std::chrono::milliseconds{0};
  site = FrontierLifecycle::rules_of(s);
  CHECK_FALSE(site.revisits_during_run);
  CHECK(site.revisits_by_lastmod);
  s.profile = CrawlProfile::domains;
  s.revisit_check = std::chrono::milliseconds{1000};
  const auto domains = FrontierLifecycle::rules_of(s);
  CHECK_FALSE(domains.revisits_during_run);
  CHECK_FALSE(domains.revisits_by_lastmod);
  s.await_sitemaps = true;
  CHECK(FrontierLifecycle::rules_of(s).await_sitemaps);
}

}  // namespace actorcrawl
