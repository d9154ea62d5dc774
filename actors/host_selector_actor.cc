#include "actors/host_selector_actor.h"

#include <algorithm>
#include <map>
#include <type_traits>
#include <unordered_map>

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/crawl/host_scheduler.h"
#include "core/crawl/work_bounds.h"
#include "core/crawl/robots_verdict.h"
#include "core/crawl/transient_failure.h"
#include "core/report/stage_times.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// Time comes from the actor's clock, not the system's: the same in a crawl,
// and under CAF's test coordinator it is the clock the tests advance.
using Clock = HostScheduler::Clock;
static_assert(std::is_same<Clock::time_point, caf::actor_clock::time_point>::value,
              "HostScheduler's clock must be the actor clock's");

struct host_selector_state {
  host_selector_state() : scheduler(std::chrono::milliseconds{0}) {}

  topology actors;
  fetch_settings settings;
  std::string product_token;  // what robots.txt groups are matched against
  HostScheduler scheduler;
  std::map<caf::actor_addr, HostScheduler::WorkerId> worker_ids;
  std::unordered_map<HostScheduler::WorkerId, fetch_worker_actor> workers;
  HostScheduler::WorkerId next_worker_id = 1;
  std::int64_t demand_outstanding = 0;  // slots asked of the Frontier, not yet filled
  bool stopping = false;
  bool tick_armed = false;
  StageTimes times{"select"};
  Clock::time_point tick_at{};
  static inline const char* name = "HostSelectorActor";
};

using selector_ptr = traced_actor<host_selector_state, host_selector_actor>*;

// To a FetchWorker, whose handle is dynamically typed (fetch_worker_actor):
// CAF's typed send() refuses such a receiver, and anon_send would hide the
// sender from the worker's trace. The message is one the worker accepts
// (fetch_job, robots_fetch, drain_atom), which nothing here can check.
template <class Message>
void tell_worker(selector_ptr self, const fetch_worker_actor& worker, Message&& message) {
  caf::unsafe_send_as(self, worker, std::forward<Message>(message));
}

void return_to_frontier(selector_ptr self, std::vector<CrawlJob> jobs) {
  if (!jobs.empty())
    self->send(self->state.actors.frontier, leases_returned{std::move(jobs)});
}

// A worker's announced capacity, within what one worker can run: it comes
// from another process, and the demand arithmetic must not overflow.
std::size_t worker_slots(std::int32_t announced) {
  return static_cast<std::size_t>(std::clamp<std::int32_t>(announced, 1, kMaxWorkerTransfers));
}

void ask_for_work(selector_ptr self) {
  auto& st = self->state;
  if (st.stopping || !st.actors.frontier)
    return;
  const auto want = work_to_ask_for(selector_buffer_target(st.scheduler.capacity()), st.scheduler.queued(),
                                    st.demand_outstanding);
  if (want > 0) {
    st.demand_outstanding += want;
    self->send(st.actors.frontier, work_demand{static_cast<std::int32_t>(want)});
  }
}

void dispatch(selector_ptr self) {
  auto& st = self->state;
  const auto now = self->clock().now();
  for (auto& d : st.scheduler.take_ready(now)) {
    auto w = st.workers.find(d.worker);
    if (w == st.workers.end())
      continue;
    if (d.kind == HostScheduler::Kind::robots)
      tell_worker(self, w->second, robots_fetch{d.job.host_key, d.job.url});
    else
      tell_worker(self, w->second, fetch_job{std::move(d.job), monotonic_us()});
  }
  for (auto& r : st.scheduler.take_refused())
    self->send(st.actors.frontier, url_refused{std::move(r.job), std::move(r.reason)});
  // One timer for the earliest host whose politeness clock runs out.
  if (auto wake = st.scheduler.next_wakeup(); wake && *wake > now) {
    if (!st.tick_armed || *wake < st.tick_at) {
      st.tick_armed = true;
      st.tick_at = *wake;
      auto delay = std::chrono::duration_cast<std::chrono::microseconds>(*wake - now) + std::chrono::microseconds{500};
      self->delayed_send(self, delay, tick_atom_v);
    }
  }
  ask_for_work(self);
}

// A FetchWorker registers: it gets an id, its slots, and the topology. A
// hello repeated (a retry after a lost reply) is welcomed again, not
// counted as a second worker with slots nobody fills.
worker_welcome welcome_worker(selector_ptr self, const worker_hello& hello) {
  auto& st = self->state;
  if (st.worker_ids.count(hello.worker.address()) > 0)
    return worker_welcome{st.actors, st.settings};
  auto id = st.next_worker_id++;
  st.worker_ids[hello.worker.address()] = id;
  st.workers[id] = hello.worker;
  // "worker-1@node": traces name the worker by it.
  const auto at = hello.name.find('@');
  name_actor(hello.worker.address(), "fetch_worker/" + hello.name.substr(0, at),
             at == std::string::npos ? std::string{} : hello.name.substr(at + 1));
  st.scheduler.add_worker(id, worker_slots(hello.capacity));
  self->monitor(hello.worker);
  if (hello.worker.node() != self->node())  // local workers joining are no news
    log_line(LogLevel::info, "fetch worker " + hello.name + " joined with " + std::to_string(hello.capacity) +
                               " transfers");
  if (st.stopping)
    tell_worker(self, hello.worker, drain_atom_v);
  dispatch(self);
  return worker_welcome{st.actors, st.settings};
}

// A worker went down: its leases go back to the Frontier for another.
void lose_worker(selector_ptr self, const caf::down_msg& msg) {
  auto& st = self->state;
  auto it = st.worker_ids.find(msg.source);
  if (it == st.worker_ids.end())
    return;
  auto id = it->second;
  st.worker_ids.erase(it);
  st.workers.erase(id);
  auto orphaned = st.scheduler.remove_worker(id, self->clock().now());
  log_line(LogLevel::warn, "fetch worker down (" + to_string(msg.reason) + "); returning " +
                             std::to_string(orphaned.size()) + " leased URLs to the frontier");
  return_to_frontier(self, std::move(orphaned));
  dispatch(self);
}

// Leases from the Frontier, queued by host.
void take_batch(selector_ptr self, crawl_batch& batch) {
  auto& st = self->state;
  st.demand_outstanding =
    std::max<std::int64_t>(0, st.demand_outstanding - static_cast<std::int64_t>(batch.jobs.size()));
  if (st.stopping) {  // crossed the drain in the mail
    return_to_frontier(self, std::move(batch.jobs));
    return;
  }
  const auto now = self->clock().now();
  for (auto& job : batch.jobs)
    st.scheduler.enqueue(std::move(job), now);
  dispatch(self);
}

// The next hop of a redirect: the same lease, now for the hop's host,
// behind its robots.txt and politeness clock like any URL of it. It may
// come before the worker's fetch_done for the previous hop: then it waits
// for it (HostScheduler::follow).
void follow(selector_ptr self, follow_redirect& hop) {
  auto& st = self->state;
  if (st.stopping) {
    return_to_frontier(self, {std::move(hop.job)});
    return;
  }
  st.scheduler.follow(std::move(hop.job), self->clock().now());
  dispatch(self);
}

// A lease ended at its worker: the host's politeness clock starts, or the
// URL goes back to the Frontier unsettled.
void end_lease(selector_ptr self, const fetch_done& done) {
  auto& st = self->state;
  StageTimer timer(st.times);
  const auto now = self->clock().now();
  if (!done.returned) {
    st.scheduler.complete(done.job.seq, done.job.attempt, now, std::chrono::milliseconds{done.server_delay_ms},
                          std::chrono::milliseconds{done.response_ms});
    if (st.stopping)  // a redirect's hop that waited on this lease
      return_to_frontier(self, st.scheduler.drain_queued());
  } else if (auto job = st.scheduler.abandon(done.job.seq, done.job.attempt, now)) {
    return_to_frontier(self, {std::move(*job)});
  }
  dispatch(self);
}

// A host's robots.txt came back: judged, recorded, and its URLs released
// or refused.
void take_robots(selector_ptr self, robots_result& r) {
  auto& st = self->state;
  auto verdict = judge_robots(RobotsAnswer{r.host_key, r.url, r.status_code, std::move(r.body), r.error},
                              st.product_token, epoch_ms());
  if (!verdict.unavailable_because.empty())
    log_line(LogLevel::warn, "robots.txt of " + r.host_key + " is unavailable (" + verdict.unavailable_because +
                               "): every URL of the host is allowed, as RFC 9309 2.3.1.2 says");
  const bool unreachable = !verdict.rules;
  self->send(st.actors.storage, store_robots{std::move(verdict.record)});
  const std::string refusal = st.scheduler.robots_done(r.host_key, std::move(verdict.rules), self->clock().now(),
                                                       std::chrono::milliseconds{r.fetch_ms}, verdict.final_reason);
  // Not a robots.txt that failed: the crawl refuses the host's address.
  if (refusal == "private_address")
    log_line(LogLevel::warn, r.host_key + " is a private, loopback or link-local address, which this crawl "
                             "does not fetch (block_private_networks): its URLs are refused as private_address");
  else if (unreachable)
    log_line(LogLevel::warn, "robots.txt of " + r.host_key + " unreachable (" +
                               (r.error.empty() ? "http_" + std::to_string(r.status_code) : r.error) + "); " +
                               (refusal.empty() ? "its URLs wait for another try"
                                                : "its URLs are refused as " + refusal +
                                                    (is_transient_failure(refusal) ? " (parked, tried again later)"
                                                                                   : " (final)")));
  dispatch(self);
}

// Stopping: queued leases go back, workers call off their retries.
void drain(selector_ptr self) {
  auto& st = self->state;
  st.stopping = true;
  st.demand_outstanding = 0;
  return_to_frontier(self, st.scheduler.drain_queued());
  for (auto& [id, worker] : st.workers)
    tell_worker(self, worker, drain_atom_v);
}

host_selector_actor::behavior_type host_selector_behavior(selector_ptr self, HostScheduler::Settings politeness,
                                                          fetch_settings settings) {
  self->state.settings = settings;
  self->state.product_token = product_token_of(settings.user_agent);
  self->state.scheduler = HostScheduler{politeness};
  self->set_down_handler([self](caf::down_msg& msg) { lose_worker(self, msg); });
  return {
    [self](topology& t) {
      self->state.actors = std::move(t);
      ask_for_work(self);
    },
    [self](worker_hello& hello) { return welcome_worker(self, hello); },
    [self](crawl_batch& batch) { take_batch(self, batch); },
    [self](follow_redirect& hop) { follow(self, hop); },
    [self](fetch_done& done) { end_lease(self, done); },
    [self](robots_result& r) { take_robots(self, r); },
    [self](drain_atom) { drain(self); },
    [self](tick_atom) {
      self->state.tick_armed = false;
      dispatch(self);
    },
    [self](timings_atom) { return self->state.times; },
    // Every FetchWorker registered now, local or on other nodes.
    [self](workers_atom) {
      std::vector<fetch_worker_actor> out;
      for (const auto& [id, worker] : self->state.workers)
        out.push_back(worker);
      return out;
    },
  };
}

}  // namespace

host_selector_actor spawn_host_selector(caf::actor_system& sys, HostScheduler::Settings politeness,
                                        fetch_settings settings) {
  return sys.spawn(host_selector_behavior, politeness, std::move(settings));
}

}  // namespace actorcrawl
