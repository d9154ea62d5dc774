// The HostSelector's bookkeeping, free of actors (the fan-out):
// per-host queues, the per-host politeness clock, host->worker affinity,
// per-worker transfer slots and leases.
//
// Rules it enforces: at most one request in flight per host (up to
// max_connections_per_host while the host's delay is 0, i.e. with politeness
// off); the next request to a host starts no earlier than `delay` after the
// previous one completed (longer when the server asked for it with
// Retry-After); a host stays with one worker while that worker lives,
// unless, idle, it moves to a worker holding two hosts fewer (one that
// joined later); a worker never holds more than its capacity. Every job it hands out is a lease that ends exactly once
// in complete(), abandon() or remove_worker().
//
// With robots.txt respected, a host's first dispatch is its robots.txt
// (kind robots); its URLs wait until robots_done() brings the rules, and
// those the rules refuse come out of take_refused() instead of a worker.
// A host's delay is the largest of: the configured delay, its Crawl-delay,
// a share of its last response time (Heritrix's delay factor), and what the
// server asked for with Retry-After, capped at max_delay.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/crawl/crawl_job.h"

namespace actorcrawl {

class RobotsRules;

class HostScheduler {
 public:
  using Clock = std::chrono::steady_clock;
  using WorkerId = std::uint64_t;

  // sitemap: a sitemap document (a job whose seq carries kSitemapSeqBit,
  // crawl_job.h), queued, gated by robots.txt, paced and leased like a
  // page of its host; its refusals and returns come back with that seq.
  enum class Kind { fetch, robots, sitemap };

  struct Dispatch {
    WorkerId worker;
    CrawlJob job;  // for robots: seq 0, the robots.txt URL, the host key
    Kind kind = Kind::fetch;
  };

  struct Settings {
    std::chrono::milliseconds delay{1000};
    std::chrono::milliseconds max_delay{30000};
    int delay_factor_percent = 0;  // 0: response times do not matter
    bool respect_robots = false;
    std::chrono::milliseconds robots_ttl{24 * 3600 * 1000};
    int robots_attempts = 3;       // tries before the host's URLs are given up on for now
    std::chrono::milliseconds robots_retry_delay{5000};
    // Requests in flight to one host at once while its delay is 0. Any
    // delay (configured, Crawl-delay, adaptive) brings it back to one.
    int max_connections_per_host = 1;
    // After its robots.txt stayed unreachable, how long a host's URLs are
    // refused at once (the Frontier parks them) before robots.txt is tried
    // again.
    std::chrono::milliseconds host_backoff{5 * 60 * 1000};
  };

  // A refused job and why: "robots_txt" or "robots_unreachable".
  struct Refusal {
    CrawlJob job;
    std::string reason;
  };

  explicit HostScheduler(std::chrono::milliseconds delay);
  explicit HostScheduler(Settings settings);
  ~HostScheduler();
  HostScheduler(HostScheduler&&) noexcept;
  HostScheduler& operator=(HostScheduler&&) noexcept;

  void add_worker(WorkerId id, std::size_t capacity);
  // The worker is gone: its hosts lose their affinity and its leases end.
  // Returns the jobs it held, to go back to the frontier.
  std::vector<CrawlJob> remove_worker(WorkerId id, Clock::time_point now);
  bool has_worker(WorkerId id) const;
  std::size_t worker_count() const { return workers_.size(); }

  void enqueue(CrawlJob job, Clock::time_point now);
  // The next hop of a redirect, under the lease that fetched the previous
  // one. A worker reports the result (which the Processor turns into this
  // hop) before it ends the lease, so the hop can arrive first: it then
  // waits for that lease to complete(). If the lease ends otherwise (its
  // worker gone, or given up) the hop is dropped, since the job itself goes
  // back to the frontier as a new attempt.
  void follow(CrawlJob hop, Clock::time_point now);

  // Leases every job that may start now.
  std::vector<Dispatch> take_ready(Clock::time_point now);

  // The lease (seq, attempt) ended after a request was made: the host's
  // clock starts now (plus `server_delay`, e.g. from Retry-After). Returns
  // false for a lease not out (already ended, or replaced by a later
  // attempt). `response_time` feeds the adaptive delay.
  bool complete(std::uint64_t seq, std::uint32_t attempt, Clock::time_point now,
                std::chrono::milliseconds server_delay = std::chrono::milliseconds{0},
                std::chrono::milliseconds response_time = std::chrono::milliseconds{0});

  // The robots.txt fetch for `host_key` ended. `rules` is null when it could
  // not be obtained (unreachable, 5xx): the host waits and tries again up to
  // robots_attempts times, then its URLs are refused as robots_unreachable
  // for host_backoff (the Frontier parks them: transient_failure.h). A
  // `final_reason` (e.g. "dns_failure", which a retry seconds later will not
  // change) skips the retries: the host's URLs are refused with that reason
  // at once, for host_backoff too. Returns the reason the host's URLs are
  // now refused with, empty when rules are in force or another try waits.
  std::string robots_done(const std::string& host_key, std::shared_ptr<const RobotsRules> rules,
                   Clock::time_point now, std::chrono::milliseconds response_time = std::chrono::milliseconds{0},
                   const std::string& final_reason = {});
  // Jobs that robots.txt refused since the last call.
  std::vector<Refusal> take_refused();
  // The delay now in force for a host (for tests and reports).
  std::chrono::milliseconds host_delay(const std::string& host_key) const;
  // The lease ended without a request being made (the worker gave it up).
  std::optional<CrawlJob> abandon(std::uint64_t seq, std::uint32_t attempt, Clock::time_point now);

  // Removes every job not yet leased (the crawl is stopping).
  std::vector<CrawlJob> drain_queued();

  // When take_ready() next has something to hand out, if it waits on a clock.
  std::optional<Clock::time_point> next_wakeup() const;

  std::size_t queued() const { return queued_; }
  std::size_t leased() const { return leases_.size(); }
  std::size_t capacity() const;  // sum of worker slots

 private:
  enum class RobotsState { unknown, pending, ready };

  struct Host {
    std::deque<CrawlJob> queue;
    Clock::time_point next_allowed{};
    std::optional<WorkerId> worker;
    // Counted in its worker's `hosts`: it has URLs queued or in flight.
    bool counted = false;
    int in_flight = 0;       // requests (robots.txt included) in flight
    bool scheduled = false;  // an entry for it is in ready_ (or a waiting list)
    std::chrono::milliseconds adaptive_delay{0};
    std::chrono::milliseconds crawl_delay{0};
    RobotsState robots = RobotsState::unknown;
    std::shared_ptr<const RobotsRules> rules;
    Clock::time_point rules_expire{};
    // The rules have decided a URL since they were fetched. Until then they
    // are not stale: the host's delay after the robots.txt request may be as
    // long as robots_ttl, and expiring unused rules would fetch robots.txt
    // again and again without ever fetching a page.
    bool rules_used = false;
    int robots_failures = 0;
    std::optional<WorkerId> robots_worker;  // who fetches it now
    std::string refusal = "robots_unreachable";  // when rules are null
  };
  struct Worker {
    std::size_t capacity = 0;
    std::size_t active = 0;
    std::size_t hosts = 0;  // hosts with work (queued or in flight) it serves
    std::vector<std::string> waiting;  // hosts ready but blocked on a slot
  };
  struct Lease {
    WorkerId worker;
    CrawlJob job;
    std::optional<CrawlJob> next_hop;  // follow()ed before the lease ended
  };
  using ReadyEntry = std::pair<Clock::time_point, std::string>;

  void schedule(const std::string& host_key, Host& host);
  // One pass over the ready hosts whose clocks have run out.
  void dispatch_ready(Clock::time_point now, std::vector<Dispatch>& out);
  std::chrono::milliseconds delay_of(const Host& host) const;
  // No further request to the host may start until one in flight ends.
  bool full(const Host& host) const;
  // One request to the host ended (or never will).
  // One request to the host ended; a host left with nothing queued or in
  // flight no longer counts towards its worker's share (it keeps the
  // worker, for when it has URLs again).
  void request_ended(Host& host);
  // Robots gate for the host's next job: true if it may go on to a worker.
  // May dispatch the robots.txt fetch instead, or refuse jobs.
  bool robots_gate(const std::string& key, Host& host, Clock::time_point now, WorkerId worker,
                   std::vector<Dispatch>& out);
  // Puts up to `most` hosts parked on a list (the first ones) back into the
  // ready queue and removes them from the list.
  void wake(std::vector<std::string>& keys, std::size_t most = static_cast<std::size_t>(-1));
  std::optional<WorkerId> assign(Host& host);
  void release(const Lease& lease, Clock::time_point now, std::chrono::milliseconds extra);

  Settings settings_;
  std::vector<Refusal> refused_;
  std::unordered_map<std::string, Host> hosts_;
  std::unordered_map<WorkerId, Worker> workers_;
  std::unordered_map<std::uint64_t, Lease> leases_;
  std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>> ready_;
  std::vector<std::string> unassigned_;  // ready hosts waiting for any worker
  std::size_t queued_ = 0;
};

}  // namespace actorcrawl
