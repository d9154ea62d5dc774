// The HostSelector's bookkeeping, free of actors (seed 003's fan-out):
// per-host queues, the per-host politeness clock, host->worker affinity,
// per-worker transfer slots and leases.
//
// Rules it enforces: at most one request in flight per host; the next
// request to a host starts no earlier than `delay` after the previous one
// completed (longer when the server asked for it with Retry-After); a host
// stays with one worker while that worker lives; a worker never holds more
// than its capacity. Every job it hands out is a lease that ends exactly once
// in complete(), abandon() or remove_worker().
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/crawl_job.h"

namespace actorcrawl {

class HostScheduler {
 public:
  using Clock = std::chrono::steady_clock;
  using WorkerId = std::uint64_t;

  struct Dispatch {
    WorkerId worker;
    CrawlJob job;
  };

  explicit HostScheduler(std::chrono::milliseconds delay);

  void add_worker(WorkerId id, std::size_t capacity);
  // The worker is gone: its hosts lose their affinity and its leases end.
  // Returns the jobs it held, to go back to the frontier.
  std::vector<CrawlJob> remove_worker(WorkerId id);
  bool has_worker(WorkerId id) const;
  std::size_t worker_count() const { return workers_.size(); }

  void enqueue(CrawlJob job, Clock::time_point now);

  // Leases every job that may start now.
  std::vector<Dispatch> take_ready(Clock::time_point now);

  // The lease on `seq` ended after a request was made: the host's clock
  // starts now (plus `server_delay`, e.g. from Retry-After). Returns false
  // for an unknown lease (already ended).
  bool complete(std::uint64_t seq, Clock::time_point now,
                std::chrono::milliseconds server_delay = std::chrono::milliseconds{0});
  // The lease ended without a request being made (the worker gave it up).
  std::optional<CrawlJob> abandon(std::uint64_t seq, Clock::time_point now);

  // Removes every job not yet leased (the crawl is stopping).
  std::vector<CrawlJob> drain_queued();

  // When take_ready() next has something to hand out, if it waits on a clock.
  std::optional<Clock::time_point> next_wakeup() const;

  std::size_t queued() const { return queued_; }
  std::size_t leased() const { return leases_.size(); }
  std::size_t capacity() const;  // sum of worker slots

 private:
  struct Host {
    std::deque<CrawlJob> queue;
    Clock::time_point next_allowed{};
    std::optional<WorkerId> worker;
    bool busy = false;       // a request is in flight
    bool scheduled = false;  // an entry for it is in ready_ (or a waiting list)
  };
  struct Worker {
    std::size_t capacity = 0;
    std::size_t active = 0;
    std::size_t hosts = 0;
    std::vector<std::string> waiting;  // hosts ready but blocked on a slot
  };
  struct Lease {
    WorkerId worker;
    CrawlJob job;
  };
  using ReadyEntry = std::pair<Clock::time_point, std::string>;

  void schedule(const std::string& host_key, Host& host);
  // Puts hosts parked on a list back into the ready queue; empties the list.
  void wake(std::vector<std::string>& keys);
  std::optional<WorkerId> assign(Host& host);
  void release(const Lease& lease, Clock::time_point now, std::chrono::milliseconds extra);

  std::chrono::milliseconds delay_;
  std::unordered_map<std::string, Host> hosts_;
  std::unordered_map<WorkerId, Worker> workers_;
  std::unordered_map<std::uint64_t, Lease> leases_;
  std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>> ready_;
  std::vector<std::string> unassigned_;  // ready hosts waiting for any worker
  std::size_t queued_ = 0;
};

}  // namespace actorcrawl
