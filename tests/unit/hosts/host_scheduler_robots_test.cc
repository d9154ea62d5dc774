// HostScheduler with its Settings: the robots.txt gate, Crawl-delay, the
// adaptive delay and the cap on Retry-After. Time is simulated: every call
// gets an explicit time point, so nothing here sleeps or depends on the
// clock.
#include "core/hosts/host_scheduler.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/web/robots_txt.h"

namespace actorcrawl {
namespace {

using Clock = HostScheduler::Clock;
using Kind = HostScheduler::Kind;
using ms = std::chrono::milliseconds;

// A fixed origin: the scheduler only compares time points, so any will do,
// and a constant one makes every run identical.
const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours{1000};

CrawlJob job(std::uint64_t seq, const std::string& host, const std::string& path,
             const std::string& scheme = "http") {
  return CrawlJob{seq, scheme + "://" + host + path, host, 1};
}

std::shared_ptr<const RobotsRules> rules(const std::string& body) {
  return std::make_shared<const RobotsRules>(RobotsRules::parse(body, "actorcrawl"));
}

// Small, distinct numbers so each expectation below can only come from one
// of the settings.
HostScheduler::Settings robots_settings() {
  HostScheduler::Settings s;
  s.delay = ms{100};
  s.max_delay = ms{2000};
  s.respect_robots = true;
  s.robots_ttl = ms{10000};
  s.robots_attempts = 3;
  s.robots_retry_delay = ms{500};
  return s;
}

using Refused = std::vector<std::pair<std::uint64_t, std::string>>;

Refused refused_of(HostScheduler& s) {
  Refused out;
  for (auto& r : s.take_refused())
    out.emplace_back(r.job.seq, r.reason);
  return out;
}

}  // namespace

TEST_CASE("HostScheduler settings: without respect_robots there is no robots.txt fetch",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings = robots_settings();
  settings.respect_robots = false;
  HostScheduler s(settings);
  // A host never seen runs on the configured delay.
  CHECK(s.host_delay("unknown.test") == ms{100});
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/private"), t0);
  s.enqueue(job(2, "a.test", "/x"), t0);

  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 1);
  CHECK(s.leased() == 1);

  // The delay comes from the settings, not the 1 s default.
  CHECK(s.complete(1, 0, t0 + ms{10}));
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{110});
  CHECK(s.take_ready(t0 + ms{110}).size() == 1);
  CHECK(s.take_refused().empty());
}

TEST_CASE("HostScheduler robots gate: robots.txt goes first and the host's URLs wait for it",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/a"), t0);
  s.enqueue(job(2, "a.test", "/b"), t0);

  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].worker == 1);
  CHECK(ds[0].job.seq == 0);  // not a frontier row
  CHECK(ds[0].job.url == "http://a.test/robots.txt");
  CHECK(ds[0].job.host_key == "a.test");
  // The robots.txt fetch is not a lease, and the URLs are still queued.
  CHECK(s.leased() == 0);
  CHECK(s.queued() == 2);

  // However long it takes, nothing of the host goes out while it is pending,
  // and there is no clock to wake up for: robots_done will wake the host.
  CHECK(s.take_ready(t0 + ms{60000}).empty());
  CHECK_FALSE(s.next_wakeup());

  // The robots.txt request counts as a request to the host: the first URL
  // waits the delay after it.
  s.robots_done("a.test", rules("User-agent: *\nDisallow:\n"), t0 + ms{50});
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{150});
  CHECK(s.take_ready(t0 + ms{149}).empty());
  ds = s.take_ready(t0 + ms{150});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 1);
  CHECK(s.leased() == 1);
  CHECK(s.queued() == 1);

  // Rules in force: the next URL needs no second robots.txt.
  CHECK(s.complete(1, 0, t0 + ms{200}));
  ds = s.take_ready(t0 + ms{300});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 2);
  CHECK(s.take_refused().empty());
}

TEST_CASE("HostScheduler robots gate: robots.txt URL keeps the scheme and port of the host",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "b.test", "/x", "https"), t0);
  s.enqueue(job(2, "c.test:8443", "/y?q=1", "https"), t0);
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 2);
  // Hosts ready at the same time come out in name order.
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.url == "https://b.test/robots.txt");
  CHECK(ds[1].kind == Kind::robots);
  CHECK(ds[1].job.url == "https://c.test:8443/robots.txt");
  CHECK(ds[1].job.host_key == "c.test:8443");
}

TEST_CASE("HostScheduler robots gate: a robots.txt fetch holds a worker slot until robots_done",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 1);
  s.enqueue(job(1, "a.test", "/"), t0);
  s.enqueue(job(2, "b.test", "/"), t0);

  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.host_key == "a.test");
  // b.test is ready but the only slot is taken by a.test's robots.txt.
  CHECK(s.take_ready(t0 + ms{5000}).empty());

  // The slot frees: b.test's robots.txt takes it before a.test's first URL
  // (whose clock runs until t0 + 5100).
  s.robots_done("a.test", rules(""), t0 + ms{5000});
  ds = s.take_ready(t0 + ms{5000});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.host_key == "b.test");
  CHECK(s.take_ready(t0 + ms{5100}).empty());

  s.robots_done("b.test", rules(""), t0 + ms{5200});
  ds = s.take_ready(t0 + ms{5200});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 1);
}

TEST_CASE("HostScheduler robots gate: disallowed URLs are refused without touching the clock",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/private/x"), t0);
  s.enqueue(job(2, "a.test", "/private/y"), t0);
  s.enqueue(job(3, "a.test", "/public"), t0);
  s.enqueue(job(4, "a.test", "/list?sort=asc"), t0);
  s.enqueue(job(5, "a.test", "/list"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);  // robots.txt
  // Our group wins over "*"; the query is part of what is matched.
  s.robots_done("a.test",
                rules("User-agent: *\nDisallow: /\n\n"
                      "User-agent: actorcrawl\nDisallow: /private\nDisallow: /*?sort=\n"),
                t0 + ms{10});

  // Both refusals and the allowed URL behind them come out in the same call:
  // a refusal makes no request, so it does not delay what follows.
  auto ds = s.take_ready(t0 + ms{110});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 3);
  CHECK(refused_of(s) == Refused{{1, "robots_txt"}, {2, "robots_txt"}});
  CHECK(s.take_refused().empty());  // taken once
  CHECK(s.queued() == 2);
  CHECK(s.leased() == 1);

  CHECK(s.complete(3, 0, t0 + ms{200}));
  ds = s.take_ready(t0 + ms{300});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 5);
  CHECK(refused_of(s) == Refused{{4, "robots_txt"}});
  CHECK(s.queued() == 0);

  // A host whose queue was emptied by refusals alone keeps the clock of its
  // last real request: a new URL goes out as soon as that allows.
  CHECK(s.complete(5, 0, t0 + ms{400}));
  s.enqueue(job(6, "a.test", "/private/z"), t0 + ms{500});
  CHECK(s.take_ready(t0 + ms{500}).empty());
  CHECK(refused_of(s) == Refused{{6, "robots_txt"}});
  CHECK_FALSE(s.next_wakeup());
  s.enqueue(job(7, "a.test", "/ok"), t0 + ms{500});
  ds = s.take_ready(t0 + ms{500});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 7);
}

TEST_CASE("HostScheduler robots gate: an unreachable robots.txt is retried with backoff, then refuses",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);

  // First failure: retried after robots_retry_delay (500 ms > the 100 ms
  // delay), the URL still waiting, nothing refused yet.
  s.robots_done("a.test", nullptr, t0 + ms{10});
  CHECK(s.take_refused().empty());
  CHECK(s.queued() == 1);
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{510});
  CHECK(s.take_ready(t0 + ms{509}).empty());
  auto ds = s.take_ready(t0 + ms{510});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.url == "http://a.test/robots.txt");

  // Second failure: the backoff doubles.
  s.robots_done("a.test", nullptr, t0 + ms{600});
  CHECK(s.take_refused().empty());
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{1600});
  ds = s.take_ready(t0 + ms{1600});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);

  // Third failure is robots_attempts: final. The waiting URL is refused at
  // once, with no further robots.txt request.
  s.robots_done("a.test", nullptr, t0 + ms{1700});
  CHECK(refused_of(s) == Refused{{1, "robots_unreachable"}});
  CHECK(s.queued() == 0);
  CHECK(s.leased() == 0);
  CHECK(s.take_ready(t0 + ms{1800}).empty());

  // Later URLs of the host are refused the same way while that verdict
  // lasts: the host backoff (5 minutes by default, so a long politeness
  // delay cannot outlast it), never longer than robots_ttl — 10 s here...
  const auto verdict_ends = t0 + ms{1700} + ms{10000};
  s.enqueue(job(2, "a.test", "/later"), verdict_ends - ms{1});
  CHECK(s.take_ready(verdict_ends - ms{1}).empty());
  CHECK(refused_of(s) == Refused{{2, "robots_unreachable"}});

  // ...after which robots.txt is tried again.
  s.enqueue(job(3, "a.test", "/again"), verdict_ends);
  ds = s.take_ready(verdict_ends);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(s.take_refused().empty());
  s.robots_done("a.test", rules(""), t0 + ms{5800});
  ds = s.take_ready(t0 + ms{5900});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 3);
}

TEST_CASE("HostScheduler robots gate: a success between failures starts the count again",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings = robots_settings();
  settings.robots_ttl = ms{1000};
  HostScheduler s(settings);
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  s.robots_done("a.test", nullptr, t0);                   // failure 1: retry at +500
  REQUIRE(s.take_ready(t0 + ms{500}).size() == 1);
  s.robots_done("a.test", nullptr, t0 + ms{500});         // failure 2: retry at +1500
  REQUIRE(s.take_ready(t0 + ms{1500}).size() == 1);
  s.robots_done("a.test", rules(""), t0 + ms{1500});      // valid until +2500
  CHECK(s.take_refused().empty());
  auto ds = s.take_ready(t0 + ms{1600});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 1);
  CHECK(s.complete(1, 0, t0 + ms{1600}));

  // The rules expire and the next robots.txt fails once: that is a first
  // failure again, retried, not a third one that would refuse.
  s.enqueue(job(2, "a.test", "/"), t0 + ms{2500});
  ds = s.take_ready(t0 + ms{2500});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  s.robots_done("a.test", nullptr, t0 + ms{2500});
  CHECK(s.take_ready(t0 + ms{2500}).empty());
  CHECK(s.take_refused().empty());
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{3000});
}

TEST_CASE("HostScheduler robots gate: a final reason refuses at once with that reason",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  s.enqueue(job(2, "a.test", "/b"), t0);
  s.enqueue(job(3, "ok.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 2);

  s.robots_done("a.test", nullptr, t0 + ms{10}, ms{0}, "dns_failure");
  s.robots_done("ok.test", rules(""), t0 + ms{10});
  // No retry of a.test's robots.txt: its URLs are refused, ok.test goes on.
  auto ds = s.take_ready(t0 + ms{110});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 3);
  CHECK(refused_of(s) == Refused{{1, "dns_failure"}, {2, "dns_failure"}});
  CHECK(s.queued() == 0);
  CHECK(s.take_ready(t0 + ms{60000}).empty());
}

TEST_CASE("HostScheduler robots gate: rules expire after robots_ttl and are fetched again",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/page"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  s.robots_done("a.test", rules(""), t0 + ms{10});  // valid until t0 + 10010
  REQUIRE(s.take_ready(t0 + ms{110}).size() == 1);
  CHECK(s.complete(1, 0, t0 + ms{200}));

  // Just before expiry the rules still answer.
  s.enqueue(job(2, "a.test", "/page"), t0 + ms{10009});
  auto ds = s.take_ready(t0 + ms{10009});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 2);
  CHECK(s.complete(2, 0, t0 + ms{10009}));

  // At expiry robots.txt is fetched again before the next URL...
  s.enqueue(job(3, "a.test", "/page"), t0 + ms{10109});
  ds = s.take_ready(t0 + ms{10109});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.url == "http://a.test/robots.txt");
  CHECK(s.queued() == 1);

  // ...and the new rules decide.
  s.robots_done("a.test", rules("User-agent: *\nDisallow: /page\n"), t0 + ms{10200});
  CHECK(s.take_ready(t0 + ms{10300}).empty());
  CHECK(refused_of(s) == Refused{{3, "robots_txt"}});
}

TEST_CASE("HostScheduler robots gate: a worker removed during the robots.txt fetch",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.add_worker(2, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  REQUIRE(ds[0].kind == Kind::robots);
  REQUIRE(ds[0].worker == 1);

  // The robots.txt fetch was no lease: nothing comes back to the frontier.
  CHECK(s.remove_worker(1, t0).empty());
  CHECK(s.queued() == 1);
  // The host is not stuck on a fetch that will never report: it asks the
  // surviving worker for robots.txt again (it had no request clock yet).
  ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].worker == 2);
  CHECK(ds[0].job.url == "http://a.test/robots.txt");

  s.robots_done("a.test", rules(""), t0 + ms{10});
  ds = s.take_ready(t0 + ms{110});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 1);
  CHECK(ds[0].worker == 2);
}

TEST_CASE("HostScheduler delay: Crawl-delay raises the host delay within its bounds",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());  // delay 100 ms, max_delay 2000 ms
  s.add_worker(1, 8);
  s.enqueue(job(1, "slow.test", "/1"), t0);
  s.enqueue(job(2, "slow.test", "/2"), t0);
  s.enqueue(job(3, "huge.test", "/"), t0);
  s.enqueue(job(4, "tiny.test", "/"), t0);
  s.enqueue(job(5, "none.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 4);

  s.robots_done("slow.test", rules("User-agent: *\nCrawl-delay: 0.5\n"), t0 + ms{10});
  s.robots_done("huge.test", rules("User-agent: *\nCrawl-delay: 60\n"), t0 + ms{10});
  s.robots_done("tiny.test", rules("User-agent: *\nCrawl-delay: 0.05\n"), t0 + ms{10});
  s.robots_done("none.test", rules("User-agent: *\nDisallow:\n"), t0 + ms{10});
  CHECK(s.host_delay("slow.test") == ms{500});
  CHECK(s.host_delay("huge.test") == ms{2000});  // capped by max_delay
  CHECK(s.host_delay("tiny.test") == ms{100});   // never below delay
  CHECK(s.host_delay("none.test") == ms{100});

  // The Crawl-delay already spaces the first URL from the robots.txt fetch.
  auto ds = s.take_ready(t0 + ms{110});
  CHECK(ds.size() == 2);  // tiny.test and none.test
  CHECK(s.take_ready(t0 + ms{509}).empty());
  ds = s.take_ready(t0 + ms{510});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 1);
  CHECK(s.complete(1, 0, t0 + ms{600}));
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{1100});
  CHECK(s.take_ready(t0 + ms{1099}).empty());
  ds = s.take_ready(t0 + ms{1100});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 2);
  ds = s.take_ready(t0 + ms{2010});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 3);
}

TEST_CASE("HostScheduler delay: a robots.txt without Crawl-delay drops the old one",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  s.robots_done("a.test", rules("User-agent: *\nCrawl-delay: 1\n"), t0);
  CHECK(s.host_delay("a.test") == ms{1000});
  REQUIRE(s.take_ready(t0 + ms{1000}).size() == 1);
  CHECK(s.complete(1, 0, t0 + ms{1000}));

  // After robots_ttl the file is fetched again and no longer asks for a
  // delay: the host is back on the configured one.
  s.enqueue(job(2, "a.test", "/"), t0 + ms{10000});
  auto ds = s.take_ready(t0 + ms{10000});
  REQUIRE(ds.size() == 1);
  REQUIRE(ds[0].kind == Kind::robots);
  s.robots_done("a.test", rules("User-agent: *\nDisallow:\n"), t0 + ms{10000});
  CHECK(s.host_delay("a.test") == ms{100});
  ds = s.take_ready(t0 + ms{10100});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 2);
}

TEST_CASE("HostScheduler delay: the configured delay is a floor that max_delay never lowers",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings = robots_settings();
  settings.delay = ms{3000};
  settings.max_delay = ms{1000};
  HostScheduler s(settings);
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  s.robots_done("a.test", rules("User-agent: *\nCrawl-delay: 5\n"), t0);
  // The cap cannot go below the floor; Crawl-delay cannot exceed it either.
  CHECK(s.host_delay("a.test") == ms{3000});
}

TEST_CASE("HostScheduler delay: adaptive delay is a share of the last response time",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings;
  settings.delay = ms{100};
  settings.max_delay = ms{2000};
  settings.delay_factor_percent = 300;
  HostScheduler s(settings);
  s.add_worker(1, 4);
  for (std::uint64_t seq = 1; seq <= 4; ++seq)
    s.enqueue(job(seq, "a.test", "/" + std::to_string(seq)), t0);
  REQUIRE(s.take_ready(t0).size() == 1);

  // 200 ms to answer: wait 300% of it.
  CHECK(s.complete(1, 0, t0 + ms{200}, ms{0}, ms{200}));
  CHECK(s.host_delay("a.test") == ms{600});
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{800});
  CHECK(s.take_ready(t0 + ms{799}).empty());
  REQUIRE(s.take_ready(t0 + ms{800}).size() == 1);

  // A fast answer brings it back down, but not below the configured delay:
  // it follows the last response, not the slowest.
  CHECK(s.complete(2, 0, t0 + ms{810}, ms{0}, ms{10}));
  CHECK(s.host_delay("a.test") == ms{100});
  CHECK(*s.next_wakeup() == t0 + ms{910});
  REQUIRE(s.take_ready(t0 + ms{910}).size() == 1);

  // A very slow answer is capped by max_delay.
  CHECK(s.complete(3, 0, t0 + ms{5910}, ms{0}, ms{5000}));
  CHECK(s.host_delay("a.test") == ms{2000});
  CHECK(*s.next_wakeup() == t0 + ms{7910});
}

TEST_CASE("HostScheduler delay: without a delay factor response times do not matter",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings;
  settings.delay = ms{100};
  settings.max_delay = ms{2000};
  settings.delay_factor_percent = 0;
  HostScheduler s(settings);
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/1"), t0);
  s.enqueue(job(2, "a.test", "/2"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  CHECK(s.complete(1, 0, t0 + ms{1000}, ms{0}, ms{900}));
  CHECK(s.host_delay("a.test") == ms{100});
  CHECK(*s.next_wakeup() == t0 + ms{1100});
}

TEST_CASE("HostScheduler delay: the robots.txt response time feeds the adaptive delay",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings = robots_settings();
  settings.delay_factor_percent = 50;
  HostScheduler s(settings);
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);
  s.robots_done("a.test", rules(""), t0 + ms{400}, ms{400});
  CHECK(s.host_delay("a.test") == ms{200});
  CHECK(s.take_ready(t0 + ms{599}).empty());
  CHECK(s.take_ready(t0 + ms{600}).size() == 1);
}

TEST_CASE("HostScheduler delay: Retry-After is capped at max_delay and lasts one request",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings;
  settings.delay = ms{100};
  settings.max_delay = ms{2000};
  HostScheduler s(settings);
  s.add_worker(1, 4);
  for (std::uint64_t seq = 1; seq <= 3; ++seq)
    s.enqueue(job(seq, "a.test", "/" + std::to_string(seq)), t0);
  REQUIRE(s.take_ready(t0).size() == 1);

  // A server asking for an hour gets max_delay.
  CHECK(s.complete(1, 0, t0 + ms{10}, ms{3600 * 1000}));
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{2010});
  // It is not the host's standing delay.
  CHECK(s.host_delay("a.test") == ms{100});
  CHECK(s.take_ready(t0 + ms{2009}).empty());
  REQUIRE(s.take_ready(t0 + ms{2010}).size() == 1);

  CHECK(s.complete(2, 0, t0 + ms{2020}));
  CHECK(*s.next_wakeup() == t0 + ms{2120});
}

TEST_CASE("HostScheduler delay: the delay-only constructor caps Retry-After at 30 s",
          "[host_scheduler][robots_gate]") {
  HostScheduler s(ms{100});
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test", "/1"), t0);
  s.enqueue(job(2, "a.test", "/2"), t0);
  // Without robots settings there is no robots.txt fetch.
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(s.complete(1, 0, t0, ms{3600 * 1000}));
  CHECK(*s.next_wakeup() == t0 + ms{30000});
}

TEST_CASE("HostScheduler robots gate: a woken host that uses no slot does not strand the next parked one",
          "[host_scheduler][robots_gate]") {
  HostScheduler::Settings settings = robots_settings();
  settings.delay = ms{0};
  HostScheduler s(settings);
  s.add_worker(1, 1);  // one slot: every other host parks while it is taken

  // b's robots.txt (refusing /private*) and c's (allowing all) are known;
  // b's clock runs out first, so b parks ahead of c below.
  s.enqueue(job(1, "b.test", "/private"), t0);
  auto ds = s.take_ready(t0);
  REQUIRE((ds.size() == 1 && ds[0].kind == Kind::robots));
  s.robots_done("b.test", rules("User-agent: *\nDisallow: /private\n"), t0);
  CHECK(s.take_ready(t0).empty());
  CHECK(refused_of(s) == Refused{{1, "robots_txt"}});
  s.enqueue(job(5, "c.test", "/first"), t0);
  ds = s.take_ready(t0);
  REQUIRE((ds.size() == 1 && ds[0].kind == Kind::robots));
  s.robots_done("c.test", rules(""), t0 + ms{10});
  ds = s.take_ready(t0 + ms{10});
  REQUIRE(ds.size() == 1);
  CHECK(s.complete(5, 0, t0 + ms{10}));

  // a's robots.txt takes the only slot; b, then c, park behind it.
  const auto t1 = t0 + ms{20};
  s.enqueue(job(2, "a.test", "/x"), t1);
  s.enqueue(job(3, "b.test", "/private2"), t1);
  s.enqueue(job(4, "c.test", "/x"), t1);
  ds = s.take_ready(t1);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.host_key == "a.test");
  s.robots_done("a.test", rules(""), t1);
  ds = s.take_ready(t1);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 2);

  // a completes. b is woken first but its URL is refused, so the slot is
  // still free: c must get it now, with nothing else in flight to wake it.
  CHECK(s.complete(2, 0, t1));
  ds = s.take_ready(t1);
  CHECK(refused_of(s) == Refused{{3, "robots_txt"}});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].kind == Kind::fetch);
  CHECK(ds[0].job.seq == 4);
}



TEST_CASE("HostScheduler robots gate: with politeness off, robots.txt goes alone and Crawl-delay means one at a time",
          "[host_scheduler][robots]") {
  auto settings = robots_settings();
  settings.delay = ms{0};
  settings.delay_factor_percent = 0;
  settings.max_connections_per_host = 3;
  HostScheduler s(settings);
  s.add_worker(1, 8);
  for (std::uint64_t seq = 1; seq <= 4; ++seq) {
    s.enqueue(job(seq, "a.test", "/p" + std::to_string(seq)), t0);
    s.enqueue(job(10 + seq, "b.test", "/p" + std::to_string(seq)), t0);
  }
  auto first = s.take_ready(t0);
  REQUIRE(first.size() == 2);  // each host's robots.txt, nothing beside it
  for (const auto& d : first)
    CHECK(d.kind == Kind::robots);
  CHECK(s.take_ready(t0 + ms{10}).empty());

  // a.test has no Crawl-delay: three at once. b.test asks for one second.
  s.robots_done("a.test", rules("User-agent: *\nDisallow:\n"), t0 + ms{10});
  s.robots_done("b.test", rules("User-agent: *\nCrawl-delay: 1\n"), t0 + ms{10});
  std::vector<std::uint64_t> seqs;
  for (const auto& d : s.take_ready(t0 + ms{1010}))
    seqs.push_back(d.job.seq);
  std::sort(seqs.begin(), seqs.end());
  CHECK(seqs == std::vector<std::uint64_t>{1, 2, 3, 11});
}

TEST_CASE("HostScheduler: a redirect hop is scheduled under its target host's rules", "[host_scheduler][robots]") {
  HostScheduler s(robots_settings());
  s.add_worker(1, 4);
  CrawlJob hop = job(1, "a.test", "/go");
  hop.fetch_url = "http://b.test/private/x";
  hop.fetch_host_key = "b.test";
  hop.hop_urls = {"http://a.test/go"};
  hop.hop_statuses = {302};
  s.enqueue(hop, t0);
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  // b.test's robots.txt is asked for, not a.test's.
  CHECK(ds[0].kind == Kind::robots);
  CHECK(ds[0].job.url == "http://b.test/robots.txt");
  s.robots_done("b.test", rules("User-agent: *\nDisallow: /private/\n"), t0 + ms{10});
  CHECK(s.take_ready(t0 + ms{1000}).empty());
  auto refused = s.take_refused();
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].job.url == "http://a.test/go");  // the lease's own URL is what is refused
  CHECK(refused[0].reason == "robots_txt");
}

}  // namespace actorcrawl
