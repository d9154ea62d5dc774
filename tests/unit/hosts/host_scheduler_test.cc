#include "core/hosts/host_scheduler.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace actorcrawl {
namespace {

using Clock = HostScheduler::Clock;
using ms = std::chrono::milliseconds;

CrawlJob job(std::uint64_t seq, const std::string& host) {
  return CrawlJob{seq, "http://" + host + "/p" + std::to_string(seq), host, 1};
}

std::vector<std::uint64_t> seqs_of(const std::vector<HostScheduler::Dispatch>& ds) {
  std::vector<std::uint64_t> out;
  for (const auto& d : ds)
    out.push_back(d.job.seq);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint64_t> seqs_of(const std::vector<CrawlJob>& jobs) {
  std::vector<std::uint64_t> out;
  for (const auto& j : jobs)
    out.push_back(j.seq);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, HostScheduler::WorkerId> worker_by_host(
    const std::vector<HostScheduler::Dispatch>& ds) {
  std::map<std::string, HostScheduler::WorkerId> out;
  for (const auto& d : ds)
    out[d.job.host_key] = d.worker;
  return out;
}

}  // namespace

TEST_CASE("HostScheduler: one request in flight per host", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 8);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "a.test"), t0);
  s.enqueue(job(3, "a.test"), t0);
  CHECK(s.queued() == 3);

  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 1);  // the host's own queue is FIFO
  CHECK(ds[0].job.url == "http://a.test/p1");
  CHECK(ds[0].worker == 1);
  CHECK(s.queued() == 2);
  CHECK(s.leased() == 1);
  // However late, nothing more for this host while the request is out.
  CHECK(s.take_ready(t0 + ms{10000}).empty());
}

TEST_CASE("HostScheduler: the next request waits for completion plus the delay",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 8);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "a.test"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);

  CHECK(s.complete(1, 0, t0 + ms{30}));
  CHECK(s.leased() == 0);
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{130});
  CHECK(s.take_ready(t0 + ms{129}).empty());
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0 + ms{130});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 2);
}

TEST_CASE("HostScheduler: Retry-After longer than the delay is respected", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 8);
  for (std::uint64_t seq = 1; seq <= 3; ++seq)
    s.enqueue(job(seq, "a.test"), t0);
  REQUIRE(s.take_ready(t0).size() == 1);

  CHECK(s.complete(1, 0, t0 + ms{10}, ms{2000}));
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{2010});
  CHECK(s.take_ready(t0 + ms{2009}).empty());
  REQUIRE(s.take_ready(t0 + ms{2010}).size() == 1);

  // A server delay shorter than our own never shortens the politeness delay.
  CHECK(s.complete(2, 0, t0 + ms{3000}, ms{20}));
  CHECK(*s.next_wakeup() == t0 + ms{3100});
  CHECK(s.take_ready(t0 + ms{3099}).empty());
  CHECK(s.take_ready(t0 + ms{3100}).size() == 1);
}

TEST_CASE("HostScheduler: different hosts are dispatched in parallel", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{1000});
  s.add_worker(1, 8);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "b.test"), t0);
  s.enqueue(job(3, "c.test:8080"), t0);
  s.enqueue(job(4, "a.test"), t0);
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0);
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(s.leased() == 3);
  CHECK(s.queued() == 1);
}

TEST_CASE("HostScheduler: a host stays with its worker, new hosts go to the least loaded",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 8);
  s.add_worker(2, 8);
  // Hosts become ready in (time, name) order; each new one goes to the
  // worker with the fewest hosts, the lower id on a tie.
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "b.test"), t0);
  s.enqueue(job(3, "c.test"), t0);
  s.enqueue(job(4, "d.test"), t0);
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0);
  REQUIRE(ds.size() == 4);
  const std::map<std::string, HostScheduler::WorkerId> first = worker_by_host(ds);
  CHECK(first == std::map<std::string, HostScheduler::WorkerId>{
                     {"a.test", 1}, {"b.test", 2}, {"c.test", 1}, {"d.test", 2}});

  // Several rounds later every host is still on its worker.
  Clock::time_point now = t0;
  std::uint64_t seq = 10;
  for (int round = 0; round < 3; ++round) {
    for (const auto& d : ds)
      CHECK(s.complete(d.job.seq, 0, now));
    for (const char* h : {"d.test", "c.test", "b.test", "a.test"})
      s.enqueue(job(seq++, h), now);
    now += ms{100};
    ds = s.take_ready(now);
    REQUIRE(ds.size() == 4);
    CHECK(worker_by_host(ds) == first);
  }

  // A new worker has no hosts: new hosts go there until it has as many as
  // the others, then to the lowest id again.
  s.add_worker(3, 8);
  s.enqueue(job(100, "e.test"), now);
  CHECK(worker_by_host(s.take_ready(now)) ==
        std::map<std::string, HostScheduler::WorkerId>{{"e.test", 3}});
  s.enqueue(job(101, "f.test"), now);
  CHECK(worker_by_host(s.take_ready(now)) ==
        std::map<std::string, HostScheduler::WorkerId>{{"f.test", 3}});
  s.enqueue(job(102, "g.test"), now);
  CHECK(worker_by_host(s.take_ready(now)) ==
        std::map<std::string, HostScheduler::WorkerId>{{"g.test", 1}});
}

TEST_CASE("HostScheduler: a worker never holds more than its capacity", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 2);
  CHECK(s.capacity() == 2);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "b.test"), t0);
  s.enqueue(job(3, "c.test"), t0);
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0);
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{1, 2});
  CHECK(s.leased() == 2);
  // c.test is ready but has no slot, however long it waits.
  CHECK(s.take_ready(t0 + ms{5000}).empty());
  CHECK(s.leased() == 2);

  // A slot frees: the waiting host goes out, and the worker is full again.
  CHECK(s.complete(1, 0, t0 + ms{6000}));
  ds = s.take_ready(t0 + ms{6000});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 3);
  CHECK(ds[0].worker == 1);
  CHECK(s.leased() == 2);

  // An abandoned lease frees its slot too.
  s.enqueue(job(4, "d.test"), t0 + ms{6000});
  CHECK(s.take_ready(t0 + ms{6000}).empty());
  REQUIRE(s.abandon(2, 0, t0 + ms{6500}));
  ds = s.take_ready(t0 + ms{6500});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.seq == 4);
}

TEST_CASE("HostScheduler: nothing is dispatched without a worker", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  CHECK(s.worker_count() == 0);
  CHECK(s.capacity() == 0);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "b.test"), t0);
  CHECK(s.take_ready(t0).empty());
  CHECK(s.take_ready(t0 + ms{1000}).empty());
  CHECK(s.queued() == 2);
  // The hosts wait on a registration, not on a clock.
  CHECK_FALSE(s.next_wakeup());

  s.add_worker(7, 4);
  CHECK(s.has_worker(7));
  CHECK(s.worker_count() == 1);
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0 + ms{1000});
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{1, 2});
  for (const auto& d : ds)
    CHECK(d.worker == 7);
}

// A dropped worker's report can arrive after its URL went out again (the
// Frontier's next attempt): it must not end the new lease, free the host or
// the new worker's slot.
TEST_CASE("HostScheduler: a report of an earlier attempt does not end the lease that replaced it",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 4);
  s.add_worker(2, 4);
  CrawlJob first = job(1, "a.test");
  first.attempt = 1;
  s.enqueue(first, t0);
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  const auto old_worker = ds[0].worker;
  auto orphaned = s.remove_worker(old_worker, t0);
  REQUIRE(orphaned.size() == 1);
  CrawlJob second = orphaned[0];
  second.attempt = 2;  // leased again by the Frontier
  s.enqueue(second, t0);
  ds = s.take_ready(t0 + ms{100});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.attempt == 2);
  CHECK(s.leased() == 1);
  // The first attempt's late reports: not this lease.
  CHECK_FALSE(s.complete(1, 1, t0 + ms{150}));
  CHECK_FALSE(s.abandon(1, 1, t0 + ms{150}));
  CHECK(s.leased() == 1);
  CHECK(s.complete(1, 2, t0 + ms{200}));
  CHECK(s.leased() == 0);
}

// A worker reports a fetch's result before it ends the lease, so a
// redirect's next hop (sent on by the Processor) can arrive first: it waits
// for the lease to end, and is dropped if the lease goes back instead.
TEST_CASE("HostScheduler: a redirect hop that arrives before its lease ended waits for it",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test"), t0);
  auto ds = s.take_ready(t0);
  REQUIRE(ds.size() == 1);
  CrawlJob hop = job(1, "a.test");
  hop.fetch_url = "http://a.test/moved";
  hop.fetch_host_key = "a.test";
  s.follow(hop, t0 + ms{5});
  CHECK(s.queued() == 0);
  CHECK(s.leased() == 1);
  CHECK(s.take_ready(t0 + ms{500}).empty());  // the lease still holds the host
  CHECK(s.complete(1, 0, t0 + ms{10}));
  CHECK(s.queued() == 1);
  CHECK(s.take_ready(t0 + ms{109}).empty());  // and then the host's delay
  ds = s.take_ready(t0 + ms{110});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].job.target_url() == "http://a.test/moved");
  // A hop of a lease that has ended already is queued at once.
  CHECK(s.complete(1, 0, t0 + ms{120}));
  hop.fetch_url = "http://a.test/again";
  s.follow(hop, t0 + ms{120});
  CHECK(s.queued() == 1);

  // The worker dies with a hop waiting: the job goes back, the hop with it.
  HostScheduler d(ms{100});
  d.add_worker(1, 4);
  d.enqueue(job(7, "b.test"), t0);
  REQUIRE(d.take_ready(t0).size() == 1);
  CrawlJob lost = job(7, "b.test");
  lost.fetch_url = "http://b.test/next";
  lost.fetch_host_key = "b.test";
  d.follow(lost, t0);
  const auto back = d.remove_worker(1, t0);
  REQUIRE(back.size() == 1);
  CHECK(back[0].target_url() == "http://b.test/p7");
  CHECK(d.queued() == 0);
  CHECK(d.leased() == 0);
}

TEST_CASE("HostScheduler: remove_worker returns its leases and moves its hosts",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 4);
  s.add_worker(2, 4);
  // a, c -> worker 1; b, d -> worker 2; two jobs per host.
  std::uint64_t seq = 1;
  for (const char* h : {"a.test", "b.test", "c.test", "d.test"}) {
    s.enqueue(job(seq++, h), t0);
    s.enqueue(job(seq++, h), t0);
  }
  std::vector<HostScheduler::Dispatch> ds = s.take_ready(t0);
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{1, 3, 5, 7});
  REQUIRE(worker_by_host(ds) == std::map<std::string, HostScheduler::WorkerId>{
                                    {"a.test", 1}, {"b.test", 2}, {"c.test", 1}, {"d.test", 2}});

  std::vector<CrawlJob> orphaned = s.remove_worker(1, t0);
  CHECK(seqs_of(orphaned) == std::vector<std::uint64_t>{1, 5});
  CHECK_FALSE(s.has_worker(1));
  CHECK(s.leased() == 2);
  CHECK(s.queued() == 4);
  // Its leases are over: a late report about them is not a lease any more.
  CHECK_FALSE(s.complete(1, 0, t0 + ms{10}));
  CHECK_FALSE(s.abandon(5, 0, t0 + ms{10}));
  // Removing it again returns nothing.
  CHECK(s.remove_worker(1, t0).empty());

  // The removed worker's hosts continue on the survivor, once polite: the
  // orphaned request may have reached the host, so its clock is running.
  CHECK(s.take_ready(t0 + ms{99}).empty());
  ds = s.take_ready(t0 + ms{100});
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{2, 6});
  for (const auto& d : ds)
    CHECK(d.worker == 2);
  CHECK(s.leased() == 4);
}

TEST_CASE("HostScheduler: abandon and complete end a lease once", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 4);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "b.test"), t0);
  REQUIRE(s.take_ready(t0).size() == 2);

  std::optional<CrawlJob> back = s.abandon(1, 0, t0 + ms{5});
  REQUIRE(back);
  CHECK(back->seq == 1);
  CHECK(back->url == "http://a.test/p1");
  CHECK(back->host_key == "a.test");
  CHECK(back->depth == 1);
  CHECK_FALSE(s.abandon(1, 0, t0 + ms{6}));
  CHECK_FALSE(s.complete(1, 0, t0 + ms{6}));

  CHECK(s.complete(2, 0, t0 + ms{7}));
  CHECK_FALSE(s.complete(2, 0, t0 + ms{8}));
  CHECK_FALSE(s.complete(999, 0, t0 + ms{8}));
  CHECK(s.leased() == 0);
}

TEST_CASE("HostScheduler: drain_queued returns every job not leased", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  s.add_worker(1, 1);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "a.test"), t0);
  s.enqueue(job(3, "b.test"), t0);  // waits for the single slot
  s.enqueue(job(4, "c.test"), t0 + ms{1});
  REQUIRE(s.take_ready(t0).size() == 1);

  std::vector<CrawlJob> drained = s.drain_queued();
  CHECK(seqs_of(drained) == std::vector<std::uint64_t>{2, 3, 4});
  CHECK(s.queued() == 0);
  CHECK(s.leased() == 1);
  CHECK(s.drain_queued().empty());
  // The lease still ends normally, and nothing is left to hand out.
  CHECK(s.complete(1, 0, t0 + ms{10}));
  CHECK(s.take_ready(t0 + ms{10000}).empty());
  CHECK(s.leased() == 0);
}

TEST_CASE("HostScheduler: next_wakeup is the earliest host clock", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{100});
  CHECK_FALSE(s.next_wakeup());
  s.add_worker(1, 8);
  s.enqueue(job(1, "a.test"), t0);
  s.enqueue(job(2, "a.test"), t0);
  s.enqueue(job(3, "b.test"), t0);
  s.enqueue(job(4, "b.test"), t0);
  s.enqueue(job(5, "c.test"), t0);
  // A host never used has no clock to wait on: it is ready at once.
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() <= t0);
  REQUIRE(s.take_ready(t0).size() == 3);
  // Everything left waits for a completion, not a clock.
  CHECK_FALSE(s.next_wakeup());

  CHECK(s.complete(3, 0, t0 + ms{50}, ms{400}));  // b.test: t0 + 450
  CHECK(s.complete(1, 0, t0 + ms{70}));           // a.test: t0 + 170
  CHECK(s.complete(5, 0, t0 + ms{10}));           // c.test: nothing queued
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{170});
  CHECK(seqs_of(s.take_ready(t0 + ms{170})) == std::vector<std::uint64_t>{2});
  REQUIRE(s.next_wakeup());
  CHECK(*s.next_wakeup() == t0 + ms{450});
  CHECK(seqs_of(s.take_ready(t0 + ms{450})) == std::vector<std::uint64_t>{4});
  CHECK_FALSE(s.next_wakeup());
}

// 20 hosts x 10 jobs on 3 workers of capacity 4, in simulated time: the
// scheduler is woken at next_wakeup or when a lease completes, and leases
// complete after random durations, some with a Retry-After. The invariants
// must hold after every step, and every job must go out exactly once.
namespace {

TEST_CASE("HostScheduler: a worker that joins a running crawl gets its share of the hosts",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{0});
  s.add_worker(1, 64);
  // Ten hosts, each with a deep queue, all taken by the only worker.
  std::uint64_t seq = 1;
  for (int round = 0; round < 20; ++round)
    for (int h = 0; h < 10; ++h)
      s.enqueue(job(seq++, "h" + std::to_string(h) + ".test"), t0);
  std::vector<HostScheduler::Dispatch> in_flight = s.take_ready(t0);
  REQUIRE(in_flight.size() == 10);
  for (const auto& d : in_flight)
    CHECK(d.worker == 1);

  // A second worker joins a moment later. Hosts with a request in flight
  // stay where their lease is; as each one comes back idle, hosts move until
  // both workers serve five, and then nothing moves again.
  s.add_worker(2, 64);
  Clock::time_point now = t0;
  std::map<std::string, std::vector<HostScheduler::WorkerId>> history;
  for (int step = 0; step < 15; ++step) {
    now += ms{10};
    for (const auto& d : in_flight)
      REQUIRE(s.complete(d.job.seq, 0, now));
    in_flight = s.take_ready(now);
    REQUIRE(in_flight.size() == 10);
    std::map<HostScheduler::WorkerId, int> hosts_on;
    for (const auto& d : in_flight) {
      ++hosts_on[d.worker];
      auto& h = history[d.job.host_key];
      if (h.empty() || h.back() != d.worker)
        h.push_back(d.worker);
    }
    CHECK(hosts_on[1] == 5);
    CHECK(hosts_on[2] == 5);
  }
  // Five hosts moved once, to the new worker; none came back.
  int moved = 0;
  for (const auto& [host, workers] : history) {
    CHECK(workers.size() == 1);
    moved += workers.front() == 2;
  }
  CHECK(moved == 5);
}

TEST_CASE("HostScheduler: hosts that ran dry do not count towards their worker's share",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(ms{0});
  s.add_worker(1, 64);
  // Worker 1 crawled eight hosts to the end...
  for (std::uint64_t i = 1; i <= 8; ++i)
    s.enqueue(job(i, "done" + std::to_string(i) + ".test"), t0);
  for (const auto& d : s.take_ready(t0))
    REQUIRE(s.complete(d.job.seq, 0, t0));
  // ...then worker 2 joins and two busy hosts arrive: one each, not both on
  // the newcomer because worker 1 once served eight.
  s.add_worker(2, 64);
  s.enqueue(job(20, "a.test"), t0);
  s.enqueue(job(21, "b.test"), t0);
  CHECK(worker_by_host(s.take_ready(t0)) ==
        std::map<std::string, HostScheduler::WorkerId>{{"a.test", 1}, {"b.test", 2}});
}

// A crawl of 20 hosts x 10 jobs on 3 workers, with random response times and
// Retry-Afters, checked at every step: at most `connections` requests per host
// in flight (one whenever there is a delay), politeness since the last
// completion, host affinity, worker capacity, and every job leased once.
void simulate(HostScheduler::Settings settings) {
  constexpr int kHosts = 20;
  constexpr int kJobsPerHost = 10;
  constexpr std::size_t kCapacity = 4;
  const ms delay = settings.delay;
  const std::size_t per_host = delay.count() > 0 ? 1 : static_cast<std::size_t>(settings.max_connections_per_host);
  const Clock::time_point t0 = Clock::now();
  std::mt19937 rng(2024);

  HostScheduler s(settings);
  for (HostScheduler::WorkerId w = 1; w <= 3; ++w)
    s.add_worker(w, kCapacity);
  std::uint64_t seq = 1;
  // Interleaved, so every host's jobs are spread over the whole seq range.
  for (int j = 0; j < kJobsPerHost; ++j)
    for (int h = 0; h < kHosts; ++h)
      s.enqueue(job(seq++, "h" + std::to_string(h) + ".test"), t0);
  REQUIRE(s.queued() == static_cast<std::size_t>(kHosts * kJobsPerHost));

  struct Running {
    HostScheduler::WorkerId worker;
    std::string host;
    Clock::time_point ends;
    ms server_delay;
  };
  std::map<std::uint64_t, Running> running;                // by seq
  std::map<std::string, Clock::time_point> allowed_again;  // host -> earliest next start
  std::map<std::string, HostScheduler::WorkerId> affinity;
  std::set<std::uint64_t> dispatched;
  std::size_t most_per_host = 0;
  int moves = 0;

  Clock::time_point now = t0;
  int steps = 0;
  while (dispatched.size() < static_cast<std::size_t>(kHosts * kJobsPerHost) || !running.empty()) {
    REQUIRE(++steps < 10000);
    // Complete whatever has finished by now.
    for (auto it = running.begin(); it != running.end();) {
      if (it->second.ends <= now) {
        REQUIRE(s.complete(it->first, 0, now, it->second.server_delay));
        allowed_again[it->second.host] = now + std::max(delay, it->second.server_delay);
        it = running.erase(it);
      } else {
        ++it;
      }
    }

    for (auto& d : s.take_ready(now)) {
      const std::string& host = d.job.host_key;
      REQUIRE(dispatched.insert(d.job.seq).second);
      std::size_t same_host = 1;
      for (const auto& entry : running)
        same_host += entry.second.host == host;
      REQUIRE(same_host <= per_host);  // one in flight per host, or `connections` with no delay
      most_per_host = std::max(most_per_host, same_host);
      auto allowed = allowed_again.find(host);
      if (allowed != allowed_again.end())
        REQUIRE(now >= allowed->second);  // politeness since the last completion
      // A host's requests in flight are all with one worker; it may move
      // only while idle (and with workers that share hosts evenly it does
      // not move at all: moves are counted below).
      for (const auto& entry : running)
        if (entry.second.host == host)
          REQUIRE(entry.second.worker == d.worker);
      const auto aff = affinity.emplace(host, d.worker).first;
      if (aff->second != d.worker) {
        ++moves;
        aff->second = d.worker;
      }
      const ms duration{1 + rng() % 300};
      const ms server_delay{rng() % 5 == 0 ? 150 + rng() % 400 : 0};
      running[d.job.seq] = Running{d.worker, host, now + duration, server_delay};
    }

    std::map<HostScheduler::WorkerId, std::size_t> per_worker;
    for (const auto& entry : running)
      REQUIRE(++per_worker[entry.second.worker] <= kCapacity);
    REQUIRE(s.leased() == running.size());
    REQUIRE(s.leased() + s.queued() + dispatched.size() - running.size() ==
            static_cast<std::size_t>(kHosts * kJobsPerHost));

    // Advance to the next event: a host clock or a completion.
    std::optional<Clock::time_point> next = s.next_wakeup();
    if (next)
      REQUIRE(*next > now);  // take_ready left nothing due behind
    for (const auto& entry : running)
      if (!next || entry.second.ends < *next)
        next = entry.second.ends;
    if (!next)
      break;
    now = *next;
  }

  CHECK(dispatched.size() == static_cast<std::size_t>(kHosts * kJobsPerHost));
  CHECK(*dispatched.begin() == 1);
  CHECK(*dispatched.rbegin() == static_cast<std::uint64_t>(kHosts * kJobsPerHost));
  CHECK(s.queued() == 0);
  CHECK(s.leased() == 0);
  CHECK(affinity.size() == static_cast<std::size_t>(kHosts));
  // With a delay d and 10 jobs a host, the crawl cannot be faster than 9 d.
  CHECK(now - t0 >= 9 * delay);
  CHECK(most_per_host == per_host);  // the limit was reached, not just kept
  // Hosts move when they come back from running dry to a worker that then
  // serves more than another, not back and forth: 3 to 6 moves here.
  CHECK(moves <= kHosts);
}

}  // namespace

TEST_CASE("HostScheduler: randomized simulation keeps every invariant", "[host_scheduler]") {
  HostScheduler::Settings polite;
  polite.delay = ms{100};
  polite.delay_factor_percent = 0;
  polite.max_connections_per_host = 4;  // no effect: there is a delay
  simulate(polite);
}

TEST_CASE("HostScheduler: randomized simulation with politeness off and 3 connections a host",
          "[host_scheduler]") {
  HostScheduler::Settings off;
  off.delay = ms{0};
  off.delay_factor_percent = 0;
  off.max_connections_per_host = 3;
  simulate(off);
}


namespace {

// Politeness off: no delay of any kind, several requests to a host allowed.
HostScheduler::Settings politeness_off(int connections) {
  HostScheduler::Settings s;
  s.delay = ms{0};
  s.delay_factor_percent = 0;
  s.max_connections_per_host = connections;
  return s;
}

}  // namespace

TEST_CASE("HostScheduler: with politeness off, up to max_connections_per_host requests to one host",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(politeness_off(3));
  s.add_worker(1, 8);
  for (std::uint64_t seq = 1; seq <= 5; ++seq)
    s.enqueue(job(seq, "a.test"), t0);
  s.enqueue(job(6, "b.test"), t0);
  auto ds = s.take_ready(t0);
  // Three of a.test, in its FIFO order, and b.test beside them.
  CHECK(seqs_of(ds) == std::vector<std::uint64_t>{1, 2, 3, 6});
  CHECK(s.take_ready(t0 + ms{1000}).empty());
  // Each completion lets exactly one more start.
  CHECK(s.complete(2, 0, t0 + ms{5}));
  CHECK(seqs_of(s.take_ready(t0 + ms{5})) == std::vector<std::uint64_t>{4});
  CHECK(s.take_ready(t0 + ms{5}).empty());
  CHECK(s.abandon(1, 0, t0 + ms{6}));
  CHECK(seqs_of(s.take_ready(t0 + ms{6})) == std::vector<std::uint64_t>{5});
  CHECK(s.leased() == 4);
  CHECK(s.queued() == 0);
}

TEST_CASE("HostScheduler: per-host connections never exceed the worker's capacity", "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  HostScheduler s(politeness_off(8));
  s.add_worker(1, 2);
  for (std::uint64_t seq = 1; seq <= 5; ++seq)
    s.enqueue(job(seq, "a.test"), t0);
  CHECK(seqs_of(s.take_ready(t0)) == std::vector<std::uint64_t>{1, 2});
  CHECK(s.complete(1, 0, t0 + ms{1}));
  CHECK(seqs_of(s.take_ready(t0 + ms{1})) == std::vector<std::uint64_t>{3});
  // A dead worker's leases all come back, and the host's count with them.
  CHECK(seqs_of(s.remove_worker(1, t0 + ms{1})) == std::vector<std::uint64_t>{2, 3});
  s.add_worker(2, 8);
  for (auto seq : {2, 3})
    s.enqueue(job(static_cast<std::uint64_t>(seq), "a.test"), t0 + ms{2});
  CHECK(seqs_of(s.take_ready(t0 + ms{2})) == std::vector<std::uint64_t>{2, 3, 4, 5});
}

TEST_CASE("HostScheduler: any delay keeps one request per host whatever max_connections_per_host",
          "[host_scheduler]") {
  const Clock::time_point t0 = Clock::now();
  auto settings = politeness_off(4);
  settings.delay = ms{50};
  HostScheduler delayed(settings);
  delayed.add_worker(1, 8);
  for (std::uint64_t seq = 1; seq <= 3; ++seq)
    delayed.enqueue(job(seq, "a.test"), t0);
  CHECK(delayed.take_ready(t0).size() == 1);
  CHECK(delayed.take_ready(t0 + ms{1000}).empty());

  // The adaptive delay counts too: after a slow answer the host has a delay.
  settings = politeness_off(4);
  settings.delay_factor_percent = 100;
  HostScheduler adaptive(settings);
  adaptive.add_worker(1, 8);
  for (std::uint64_t seq = 1; seq <= 6; ++seq)
    adaptive.enqueue(job(seq, "a.test"), t0);
  CHECK(adaptive.take_ready(t0).size() == 4);  // no response yet: no delay
  for (std::uint64_t seq = 1; seq <= 4; ++seq)
    CHECK(adaptive.complete(seq, 0, t0 + ms{40}, ms{0}, ms{40}));
  CHECK(adaptive.host_delay("a.test") == ms{40});
  CHECK(adaptive.take_ready(t0 + ms{79}).empty());
  CHECK(adaptive.take_ready(t0 + ms{80}).size() == 1);
}

}  // namespace actorcrawl
