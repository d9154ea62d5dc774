#include "core/hosts/host_scheduler.h"

#include <algorithm>
#include <limits>

#include "core/web/robots_txt.h"

namespace actorcrawl {

namespace {

// "/path?query" of a normalized absolute URL: what robots.txt rules match.
std::string_view path_and_query(const std::string& url) {
  auto scheme_end = url.find("://");
  auto path = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path == std::string::npos)
    return "/";
  return std::string_view{url}.substr(path);
}

std::string scheme_of(const std::string& url) {
  auto end = url.find("://");
  return end == std::string::npos ? "http" : url.substr(0, end);
}

}  // namespace

HostScheduler::HostScheduler(std::chrono::milliseconds delay) {
  settings_.delay = delay;
  settings_.max_delay = std::max(delay, settings_.max_delay);
}

HostScheduler::HostScheduler(Settings settings) : settings_(settings) {}

HostScheduler::~HostScheduler() = default;
HostScheduler::HostScheduler(HostScheduler&&) noexcept = default;
HostScheduler& HostScheduler::operator=(HostScheduler&&) noexcept = default;

bool HostScheduler::full(const Host& host) const {
  if (host.in_flight == 0)
    return false;
  // Several at once only without any delay, and never beside robots.txt.
  if (host.robots == RobotsState::pending || delay_of(host).count() > 0)
    return true;
  return host.in_flight >= std::max(settings_.max_connections_per_host, 1);
}

std::chrono::milliseconds HostScheduler::delay_of(const Host& host) const {
  auto d = std::max({settings_.delay, host.crawl_delay, host.adaptive_delay});
  // The configured delay is a floor the cap never lowers.
  return std::min(d, std::max(settings_.delay, settings_.max_delay));
}

std::chrono::milliseconds HostScheduler::host_delay(const std::string& host_key) const {
  auto it = hosts_.find(host_key);
  return it == hosts_.end() ? settings_.delay : delay_of(it->second);
}

std::vector<HostScheduler::Refusal> HostScheduler::take_refused() {
  std::vector<Refusal> out;
  out.swap(refused_);
  return out;
}

void HostScheduler::add_worker(WorkerId id, std::size_t capacity) {
  workers_[id].capacity = std::max<std::size_t>(capacity, 1);
  wake(unassigned_);
}

void HostScheduler::wake(std::vector<std::string>& keys, std::size_t most) {
  const std::size_t n = std::min(most, keys.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto h = hosts_.find(keys[i]);
    if (h != hosts_.end()) {
      h->second.scheduled = false;
      schedule(keys[i], h->second);
    }
  }
  keys.erase(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
}

bool HostScheduler::has_worker(WorkerId id) const { return workers_.count(id) > 0; }

std::size_t HostScheduler::capacity() const {
  std::size_t total = 0;
  for (const auto& [id, w] : workers_)
    total += w.capacity;
  return total;
}

std::vector<CrawlJob> HostScheduler::remove_worker(WorkerId id, Clock::time_point now) {
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
      auto& host = hosts_[lease->second.job.target_host()];
      request_ended(host);
      host.next_allowed = now + delay_of(host);
      orphaned.push_back(std::move(lease->second.job));
      lease = leases_.erase(lease);
    } else {
      ++lease;
    }
  }
  for (auto& [key, host] : hosts_) {
    if (host.robots_worker == id) {  // its robots.txt fetch died with it
      host.robots_worker.reset();
      host.robots = RobotsState::unknown;
      request_ended(host);
    }
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
  auto& host = hosts_[job.target_host()];
  std::string key = job.target_host();
  host.queue.push_back(std::move(job));
  ++queued_;
  schedule(key, host);
}

void HostScheduler::follow(CrawlJob hop, Clock::time_point now) {
  auto it = leases_.find(hop.seq);
  if (it != leases_.end() && it->second.job.attempt == hop.attempt) {
    it->second.next_hop = std::move(hop);
    return;
  }
  enqueue(std::move(hop), now);
}

void HostScheduler::schedule(const std::string& host_key, Host& host) {
  if (host.scheduled || full(host) || host.queue.empty())
    return;
  host.scheduled = true;
  ready_.emplace(host.next_allowed, host_key);
}

std::optional<HostScheduler::WorkerId> HostScheduler::assign(Host& host) {
  const bool placed = host.worker && workers_.count(*host.worker);
  // A request in flight is leased to the host's worker: it stays there.
  if (placed && host.in_flight > 0)
    return host.worker;
  // Affinity: a host goes to the worker serving the fewest hosts, then stays
  // there, so each worker's connection pool serves a stable set...
  std::optional<WorkerId> best;
  std::size_t best_hosts = std::numeric_limits<std::size_t>::max();
  for (const auto& [id, w] : workers_) {
    if (w.hosts < best_hosts || (w.hosts == best_hosts && best && id < *best)) {
      best = id;
      best_hosts = w.hosts;
    }
  }
  if (placed) {
    // ...unless, without this host, its worker would still serve more
    // hosts than another: a worker that joins a running crawl (a node
    // added, or one that came a moment after the first and found every host
    // taken) would otherwise never get one. Only an idle host moves, and a
    // move narrows the gap, so hosts do not go back and forth.
    Worker& mine = workers_[*host.worker];
    const std::size_t others = mine.hosts - (host.counted && mine.hosts > 0 ? 1 : 0);
    if (others <= best_hosts) {
      if (!host.counted) {
        host.counted = true;
        ++mine.hosts;
      }
      return host.worker;
    }
    if (host.counted)
      --mine.hosts;
  }
  if (best) {
    host.worker = best;
    host.counted = true;
    ++workers_[*best].hosts;
  }
  return best;
}

void HostScheduler::request_ended(Host& host) {
  host.in_flight = host.in_flight > 0 ? host.in_flight - 1 : 0;
  if (host.in_flight > 0 || !host.queue.empty() || !host.counted)
    return;
  host.counted = false;
  if (!host.worker)
    return;
  auto w = workers_.find(*host.worker);
  if (w != workers_.end() && w->second.hosts > 0)
    --w->second.hosts;
}

void HostScheduler::dispatch_ready(Clock::time_point now, std::vector<Dispatch>& out) {
  while (!ready_.empty() && ready_.top().first <= now) {
    std::string key = ready_.top().second;
    ready_.pop();
    auto it = hosts_.find(key);
    if (it == hosts_.end())
      continue;
    Host& host = it->second;
    host.scheduled = false;
    if (full(host) || host.queue.empty())
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
    if (settings_.respect_robots && !robots_gate(key, host, now, *worker_id, out))
      continue;
    CrawlJob job = std::move(host.queue.front());
    host.queue.pop_front();
    --queued_;
    ++host.in_flight;
    ++worker.active;
    leases_.emplace(job.seq, Lease{*worker_id, job, std::nullopt});
    const Kind kind = is_sitemap_seq(job.seq) ? Kind::sitemap : Kind::fetch;
    out.push_back(Dispatch{*worker_id, std::move(job), kind});
    // Room for another request to this host now (politeness off): back
    // into the ready queue, due now, so this same pass may take it again.
    schedule(key, host);
  }
}

std::vector<HostScheduler::Dispatch> HostScheduler::take_ready(Clock::time_point now) {
  std::vector<Dispatch> out;
  // Free slots go to hosts parked on their worker, as many as there are
  // slots: waking every parked host on each completion would cost time
  // proportional to the hosts waiting, only to park all but one again. A
  // woken host may not use its slot (its URLs were refused), so this repeats
  // until no worker has both a free slot and a parked host.
  for (int round = 0; round < 64; ++round) {
    dispatch_ready(now, out);
    bool woke = false;
    for (auto& [id, w] : workers_) {
      if (w.active < w.capacity && !w.waiting.empty()) {
        wake(w.waiting, w.capacity - w.active);
        woke = true;
      }
    }
    if (!woke)
      break;
  }
  return out;
}

bool HostScheduler::robots_gate(const std::string& key, Host& host, Clock::time_point now, WorkerId worker_id,
                                std::vector<Dispatch>& out) {
  if (host.robots == RobotsState::ready && host.rules_used && now >= host.rules_expire)
    host.robots = RobotsState::unknown;  // stale: fetch it again first
  if (host.robots == RobotsState::unknown) {
    CrawlJob robots{0, scheme_of(host.queue.front().target_url()) + "://" + key + "/robots.txt", key, 0};
    host.robots = RobotsState::pending;
    host.robots_worker = worker_id;
    ++host.in_flight;
    ++workers_[worker_id].active;
    out.push_back(Dispatch{worker_id, std::move(robots), Kind::robots});
    return false;
  }
  if (host.robots == RobotsState::pending)
    return false;
  // Refusals cost no request, so they do not touch the host's clock.
  host.rules_used = true;
  while (!host.queue.empty()) {
    const CrawlJob& front = host.queue.front();
    const char* reason = nullptr;
    if (!host.rules)
      reason = host.refusal.c_str();
    else if (!host.rules->allowed(path_and_query(front.target_url())))
      reason = "robots_txt";
    if (reason == nullptr)
      return true;
    refused_.push_back(Refusal{std::move(host.queue.front()), reason});
    host.queue.pop_front();
    --queued_;
  }
  return false;
}

std::string HostScheduler::robots_done(const std::string& host_key, std::shared_ptr<const RobotsRules> rules,
                                       Clock::time_point now, std::chrono::milliseconds response_time,
                                       const std::string& final_reason) {
  auto it = hosts_.find(host_key);
  if (it == hosts_.end())
    return {};
  Host& host = it->second;
  request_ended(host);
  if (host.robots_worker) {
    auto w = workers_.find(*host.robots_worker);
    if (w != workers_.end()) {
      if (w->second.active > 0)
        --w->second.active;
    }
    host.robots_worker.reset();
  }
  if (settings_.delay_factor_percent > 0)
    host.adaptive_delay = response_time * settings_.delay_factor_percent / 100;
  host.next_allowed = now + delay_of(host);
  if (rules) {
    host.robots = RobotsState::ready;
    host.rules = std::move(rules);
    host.rules_expire = now + settings_.robots_ttl;
    host.rules_used = false;
    host.robots_failures = 0;
    // The Crawl-delay of the file now in force (none: no longer any), and it
    // already spaces the next request from this robots.txt request.
    host.crawl_delay = std::chrono::milliseconds{host.rules->crawl_delay_ms().value_or(0)};
    host.next_allowed = now + delay_of(host);
  } else if (final_reason.empty() && ++host.robots_failures < settings_.robots_attempts) {
    // RFC 9309 2.3.1.3: unreachable means disallow all, for now. The URLs
    // wait while the robots.txt is tried again with backoff.
    host.robots = RobotsState::unknown;
    auto backoff = settings_.robots_retry_delay * (1 << std::min(host.robots_failures - 1, 10));
    host.next_allowed = now + std::max(delay_of(host), backoff);
  } else {
    // Given up on for now: what waits is refused at once (and parked by the
    // Frontier). The verdict holds for the host backoff (not for a
    // politeness delay, which could expire it before the host's turn comes),
    // then robots.txt is tried again.
    host.robots = RobotsState::ready;
    host.rules.reset();
    host.refusal = final_reason.empty() ? "robots_unreachable" : final_reason;
    host.rules_expire = now + std::min<std::chrono::milliseconds>(settings_.host_backoff, settings_.robots_ttl);
    host.robots_failures = 0;
    host.rules_used = true;  // applied at once to what waits, just below
    for (auto& job : host.queue)
      refused_.push_back(Refusal{std::move(job), host.refusal});
    queued_ -= host.queue.size();
    host.queue.clear();
  }
  host.scheduled = false;
  schedule(host_key, host);
  return host.rules || host.robots == RobotsState::unknown ? std::string{} : host.refusal;
}

void HostScheduler::release(const Lease& lease, Clock::time_point now,
                            std::chrono::milliseconds extra) {
  auto& host = hosts_[lease.job.target_host()];
  request_ended(host);
  host.next_allowed = now + std::max(delay_of(host), std::min(extra, std::max(settings_.delay, settings_.max_delay)));
  schedule(lease.job.target_host(), host);
  auto w = workers_.find(lease.worker);
  if (w == workers_.end())
    return;
  if (w->second.active > 0)
    --w->second.active;
  // The freed slot goes to a parked host at the end of the next take_ready.
}

bool HostScheduler::complete(std::uint64_t seq, std::uint32_t attempt, Clock::time_point now,
                             std::chrono::milliseconds server_delay, std::chrono::milliseconds response_time) {
  auto it = leases_.find(seq);
  if (it == leases_.end() || it->second.job.attempt != attempt)
    return false;
  Lease lease = std::move(it->second);
  leases_.erase(it);
  if (settings_.delay_factor_percent > 0) {
    // A slow answer means a busy server: give it more room (Heritrix's
    // delay factor), within the configured bounds.
    auto h = hosts_.find(lease.job.target_host());
    if (h != hosts_.end())
      h->second.adaptive_delay = response_time * settings_.delay_factor_percent / 100;
  }
  release(lease, now, server_delay);
  if (lease.next_hop)
    enqueue(std::move(*lease.next_hop), now);
  return true;
}

std::optional<CrawlJob> HostScheduler::abandon(std::uint64_t seq, std::uint32_t attempt, Clock::time_point now) {
  auto it = leases_.find(seq);
  if (it == leases_.end() || it->second.job.attempt != attempt)
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
