#include "core/host_scheduler.h"

#include <algorithm>
#include <limits>

namespace actorcrawl {

HostScheduler::HostScheduler(std::chrono::milliseconds delay) : delay_(delay) {}

void HostScheduler::add_worker(WorkerId id, std::size_t capacity) {
  workers_[id].capacity = std::max<std::size_t>(capacity, 1);
  wake(unassigned_);
}

void HostScheduler::wake(std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    auto h = hosts_.find(key);
    if (h != hosts_.end()) {
      h->second.scheduled = false;
      schedule(key, h->second);
    }
  }
  keys.clear();
}

bool HostScheduler::has_worker(WorkerId id) const { return workers_.count(id) > 0; }

std::size_t HostScheduler::capacity() const {
  std::size_t total = 0;
  for (const auto& [id, w] : workers_)
    total += w.capacity;
  return total;
}

std::vector<CrawlJob> HostScheduler::remove_worker(WorkerId id) {
  std::vector<CrawlJob> orphaned;
  auto it = workers_.find(id);
  if (it == workers_.end())
    return orphaned;
  std::vector<std::string> waiting = std::move(it->second.waiting);
  workers_.erase(it);
  for (auto lease = leases_.begin(); lease != leases_.end();) {
    if (lease->second.worker == id) {
      // The request may or may not have reached the host; keep its clock
      // running as if it had, so a retry elsewhere is still polite.
      auto& host = hosts_[lease->second.job.host_key];
      host.busy = false;
      host.next_allowed = Clock::now() + delay_;
      orphaned.push_back(std::move(lease->second.job));
      lease = leases_.erase(lease);
    } else {
      ++lease;
    }
  }
  for (auto& [key, host] : hosts_) {
    if (host.worker == id) {
      host.worker.reset();
      host.scheduled = false;
      schedule(key, host);
    }
  }
  wake(waiting);
  return orphaned;
}

void HostScheduler::enqueue(CrawlJob job, Clock::time_point) {
  auto& host = hosts_[job.host_key];
  std::string key = job.host_key;
  host.queue.push_back(std::move(job));
  ++queued_;
  schedule(key, host);
}

void HostScheduler::schedule(const std::string& host_key, Host& host) {
  if (host.scheduled || host.busy || host.queue.empty())
    return;
  host.scheduled = true;
  ready_.emplace(host.next_allowed, host_key);
}

std::optional<HostScheduler::WorkerId> HostScheduler::assign(Host& host) {
  if (host.worker && workers_.count(*host.worker))
    return host.worker;
  // Affinity: a new host goes to the worker with the fewest hosts, then
  // stays there, so each worker's connection pool serves a stable set.
  std::optional<WorkerId> best;
  std::size_t best_hosts = std::numeric_limits<std::size_t>::max();
  for (const auto& [id, w] : workers_) {
    if (w.hosts < best_hosts || (w.hosts == best_hosts && best && id < *best)) {
      best = id;
      best_hosts = w.hosts;
    }
  }
  if (best) {
    host.worker = best;
    ++workers_[*best].hosts;
  }
  return best;
}

std::vector<HostScheduler::Dispatch> HostScheduler::take_ready(Clock::time_point now) {
  std::vector<Dispatch> out;
  while (!ready_.empty() && ready_.top().first <= now) {
    std::string key = ready_.top().second;
    ready_.pop();
    auto it = hosts_.find(key);
    if (it == hosts_.end())
      continue;
    Host& host = it->second;
    host.scheduled = false;
    if (host.busy || host.queue.empty())
      continue;
    if (host.next_allowed > now) {  // its clock moved since it was queued
      schedule(key, host);
      continue;
    }
    auto worker_id = assign(host);
    if (!worker_id) {  // no worker at all: wait for a registration
      host.scheduled = true;
      unassigned_.push_back(key);
      continue;
    }
    Worker& worker = workers_[*worker_id];
    if (worker.active >= worker.capacity) {
      host.scheduled = true;
      worker.waiting.push_back(key);
      continue;
    }
    CrawlJob job = std::move(host.queue.front());
    host.queue.pop_front();
    --queued_;
    host.busy = true;
    ++worker.active;
    leases_.emplace(job.seq, Lease{*worker_id, job});
    out.push_back(Dispatch{*worker_id, std::move(job)});
  }
  return out;
}

void HostScheduler::release(const Lease& lease, Clock::time_point now,
                            std::chrono::milliseconds extra) {
  auto& host = hosts_[lease.job.host_key];
  host.busy = false;
  host.next_allowed = now + std::max(delay_, extra);
  schedule(lease.job.host_key, host);
  auto w = workers_.find(lease.worker);
  if (w == workers_.end())
    return;
  if (w->second.active > 0)
    --w->second.active;
  // A slot opened: hosts that were ready but blocked on this worker compete
  // for it again in clock order.
  wake(w->second.waiting);
}

bool HostScheduler::complete(std::uint64_t seq, Clock::time_point now,
                             std::chrono::milliseconds server_delay) {
  auto it = leases_.find(seq);
  if (it == leases_.end())
    return false;
  Lease lease = std::move(it->second);
  leases_.erase(it);
  release(lease, now, server_delay);
  return true;
}

std::optional<CrawlJob> HostScheduler::abandon(std::uint64_t seq, Clock::time_point now) {
  auto it = leases_.find(seq);
  if (it == leases_.end())
    return std::nullopt;
  Lease lease = std::move(it->second);
  leases_.erase(it);
  release(lease, now, std::chrono::milliseconds{0});
  return std::move(lease.job);
}

std::vector<CrawlJob> HostScheduler::drain_queued() {
  std::vector<CrawlJob> out;
  for (auto& [key, host] : hosts_) {
    for (auto& job : host.queue)
      out.push_back(std::move(job));
    host.queue.clear();
  }
  queued_ = 0;
  return out;
}

std::optional<HostScheduler::Clock::time_point> HostScheduler::next_wakeup() const {
  if (ready_.empty())
    return std::nullopt;
  return ready_.top().first;
}

}  // namespace actorcrawl
