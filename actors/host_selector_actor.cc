#include "actors/host_selector_actor.h"

#include <algorithm>
#include <map>
#include <type_traits>
#include <unordered_map>

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/hosts/host_scheduler.h"
#include "core/hosts/processing_ledger.h"
#include "core/hosts/work_bounds.h"
#include "core/hosts/robots_verdict.h"
#include "core/hosts/sitemap_ledger.h"
#include "core/web/robots_txt.h"
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
  // Pages fetched whose outcome the Processor has not reported yet: a
  // worker node that dies takes them with it (core/hosts/processing_ledger.h).
  ProcessingLedger processing;
  std::map<caf::actor_addr, HostScheduler::WorkerId> worker_ids;
  std::unordered_map<HostScheduler::WorkerId, fetch_worker_actor> workers;
  HostScheduler::WorkerId next_worker_id = 1;
  std::int64_t demand_outstanding = 0;  // slots asked of the Frontier, not yet filled
  bool stopping = false;
  bool tick_armed = false;
  // Sitemaps (docs/sitemaps.md): which documents to fetch and how each ended.
  SitemapSettings sitemap_settings;
  SitemapLedger sitemaps;
  // The last count the Frontier heard; -1: none yet, so the first count is
  // sent even when it is 0 (the Frontier may wait for it: FrontierSettings).
  std::int64_t sitemaps_open_told = -1;
  std::vector<SitemapRow> sitemap_rows;  // outcomes not yet sent to Storage
  StageTimes times{"select"};
  Clock::time_point tick_at{};
  static inline const char* name = "HostSelectorActor";
};

using selector_ptr = traced_actor<host_selector_state, host_selector_actor>*;


void return_to_frontier(selector_ptr self, std::vector<CrawlJob> jobs) {
  if (!jobs.empty())
    self->send(self->state.actors.frontier, leases_returned{std::move(jobs)});
}

// Outcomes to Storage, then the count of open documents to the Frontier:
// after any sitemap_links of the same documents, so the Frontier never sees
// the count drop to zero before their URLs.
void report_sitemaps(selector_ptr self) {
  auto& st = self->state;
  for (auto& row : st.sitemaps.take_refused_rows())
    st.sitemap_rows.push_back(std::move(row));
  auto refusals = st.sitemaps.take_refusals();
  if (!st.sitemap_rows.empty() || !refusals.empty()) {
    self->send(st.actors.storage, store_sitemap{std::move(st.sitemap_rows), std::move(refusals)});
    st.sitemap_rows.clear();
  }
  // Not before the history is in: the sitemaps an earlier run left unread
  // are queued then, and the Frontier must not hear "none open" first.
  const auto open = static_cast<std::int64_t>(st.sitemaps.open());
  if (st.sitemap_settings.enabled && st.sitemaps.history_ready() && open != st.sitemaps_open_told &&
      st.actors.frontier) {
    st.sitemaps_open_told = open;
    self->send(st.actors.frontier, sitemaps_open{open});
  }
}

void keep_row(selector_ptr self, std::optional<SitemapRow> row) {
  if (row)
    self->state.sitemap_rows.push_back(std::move(*row));
}

// Documents the walk queued go to their hosts' queues, behind robots.txt
// and the politeness clock like pages; when stopping they end as stopped.
void schedule_sitemaps(selector_ptr self) {
  auto& st = self->state;
  if (st.stopping) {
    for (auto& row : st.sitemaps.stop(epoch_ms()))
      st.sitemap_rows.push_back(std::move(row));
  } else {
    const auto now = self->clock().now();
    for (auto& job : st.sitemaps.take_jobs(epoch_ms()))
      st.scheduler.enqueue(std::move(job), now);
  }
  report_sitemaps(self);
}

// Leases that go back unfetched (stopping): pages to the Frontier, sitemap
// documents end as stopped (the next run fetches them).
void give_back(selector_ptr self, std::vector<CrawlJob> jobs) {
  auto& st = self->state;
  std::vector<CrawlJob> pages;
  for (auto& job : jobs) {
    if (is_sitemap_seq(job.seq))
      keep_row(self, st.sitemaps.failed(job.seq, "stopped", epoch_ms()));
    else
      pages.push_back(std::move(job));
  }
  return_to_frontier(self, std::move(pages));
  report_sitemaps(self);
}

sitemap_fetch sitemap_request(const SitemapLedger& ledger, CrawlJob job) {
  sitemap_fetch out;
  if (const SitemapScope* scope = ledger.scope_of(job.seq))
    out.grants = scope->grants();
  out.job = std::move(job);
  return out;
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

// The batch of `worker` among a dispatch's batches: a few workers, looked
// up in order.
fetch_jobs& jobs_for(std::vector<std::pair<fetch_worker_actor, fetch_jobs>>& jobs, const fetch_worker_actor& worker) {
  for (auto& [w, batch] : jobs)
    if (w == worker)
      return batch;
  return jobs.emplace_back(worker, fetch_jobs{}).second;
}

void dispatch(selector_ptr self) {
  auto& st = self->state;
  const auto now = self->clock().now();
  // Each worker's pages go in one message, after the loop (each alone while
  // a trace records, so that a trace's message tells one page's story).
  const bool one_each = active_trace() != nullptr;
  std::vector<std::pair<fetch_worker_actor, fetch_jobs>> jobs;
  // A sitemap lease whose document already ended (its first attempt's
  // answer came after the worker was given up on) ends unrequested, which
  // may free its host for what waits behind it: hence the loop.
  for (bool again = true; again;) {
    again = false;
    for (auto& d : st.scheduler.take_ready(now)) {
      if (d.kind == HostScheduler::Kind::sitemap && !st.sitemaps.is_open(d.job.seq)) {
        st.scheduler.abandon(d.job.seq, d.job.attempt, now);
        again = true;
        continue;
      }
      auto w = st.workers.find(d.worker);
      if (w == st.workers.end())
        continue;
      if (d.kind == HostScheduler::Kind::robots)
        self->send(w->second, robots_fetch{d.job.host_key, d.job.url});
      else if (d.kind == HostScheduler::Kind::sitemap)
        self->send(w->second, sitemap_request(st.sitemaps, std::move(d.job)));
      else if (one_each)
        self->send(w->second, fetch_jobs{{std::move(d.job)}, monotonic_us()});
      else
        jobs_for(jobs, w->second).jobs.push_back(std::move(d.job));
    }
  }
  for (auto& [worker, batch] : jobs) {
    batch.sent_us = monotonic_us();
    self->send(worker, std::move(batch));
  }
  bool sitemap_refused = false;
  for (auto& r : st.scheduler.take_refused()) {
    if (is_sitemap_seq(r.job.seq)) {
      keep_row(self, st.sitemaps.refused(r.job.seq, r.reason, epoch_ms()));
      sitemap_refused = true;
    } else {
      self->send(st.actors.frontier, url_refused{std::move(r.job), std::move(r.reason)});
    }
  }
  if (sitemap_refused)
    report_sitemaps(self);
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
    self->send(hello.worker, drain_atom_v);
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
  // And what it fetched that its node's Processor had not yet sent on.
  for (auto& job : st.processing.worker_lost(id))
    orphaned.push_back(std::move(job));
  // Sitemap documents it held are scheduled again (or, after their last
  // attempt, fail as worker_lost); pages go back to the Frontier.
  std::vector<CrawlJob> pages;
  for (auto& job : orphaned) {
    if (!is_sitemap_seq(job.seq)) {
      pages.push_back(std::move(job));
      continue;
    }
    auto lost = st.sitemaps.lost(job, epoch_ms());
    if (lost.retry && !st.stopping)
      st.scheduler.enqueue(std::move(*lost.retry), self->clock().now());
    else if (lost.retry)
      keep_row(self, st.sitemaps.failed(job.seq, "stopped", epoch_ms()));
    keep_row(self, std::move(lost.row));
  }
  log_line(LogLevel::warn, "fetch worker down (" + to_string(msg.reason) + "); returning " +
                             std::to_string(pages.size()) + " leased URLs to the frontier");
  return_to_frontier(self, std::move(pages));
  report_sitemaps(self);
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
  st.processing.reported(hop.job.seq, hop.job.attempt);
  if (st.stopping) {
    return_to_frontier(self, {std::move(hop.job)});
    return;
  }
  st.scheduler.follow(std::move(hop.job), self->clock().now());
  dispatch(self);
}

// A lease ended at its worker: the host's politeness clock starts, or the
// URL goes back to the Frontier unsettled. The caller dispatches, once for
// all the leases a worker's round ended.
void end_lease(selector_ptr self, const fetch_done& done) {
  auto& st = self->state;
  StageTimer timer(st.times);
  const auto now = self->clock().now();
  if (!done.returned) {
    const bool ended = st.scheduler.complete(done.job.seq, done.job.attempt, now,
                                             std::chrono::milliseconds{done.server_delay_ms},
                                             std::chrono::milliseconds{done.response_ms});
    if (ended && done.to_processor) {
      const auto worker = st.worker_ids.find(caf::actor_cast<caf::actor_addr>(self->current_sender()));
      if (worker != st.worker_ids.end())
        st.processing.fetched(worker->second, done.job);
    }
    if (st.stopping)  // a redirect's hop that waited on this lease
      give_back(self, st.scheduler.drain_queued());
  } else if (auto job = st.scheduler.abandon(done.job.seq, done.job.attempt, now)) {
    return_to_frontier(self, {std::move(*job)});
  }
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
  // The sitemaps it names (or a seed host's /sitemap.xml) are queued before
  // the host's URLs are released, so the Frontier hears of them before any
  // of those URLs can end.
  if (st.sitemap_settings.enabled && verdict.rules) {
    st.sitemaps.on_robots(r.url, verdict.rules->sitemaps());
    schedule_sitemaps(self);
  }
  self->send(st.actors.storage, store_robots{std::move(verdict.record)});
  const std::string refusal = st.scheduler.robots_done(r.host_key, std::move(verdict.rules), self->clock().now(),
                                                       std::chrono::milliseconds{r.fetch_ms}, verdict.final_reason);
  // Not a robots.txt that failed: the crawl refuses the host's address.
  if (refusal == "private_address")
    log_line(LogLevel::warn, r.host_key + " is on a private, loopback or link-local address, which this crawl "
                             "fetches only for the hosts its user named (allow_private_networks, "
                             "block_private_networks): its URLs are refused as private_address");
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
  give_back(self, st.scheduler.drain_queued());
  schedule_sitemaps(self);
  for (auto& [id, worker] : st.workers)
    self->send(worker, drain_atom_v);
}

// A parse lane read a sitemap document: its page URLs go to the Frontier,
// its child sitemaps to their hosts' queues, its outcome to Storage.
void take_sitemap(selector_ptr self, sitemap_parsed& p) {
  auto& st = self->state;
  st.processing.reported(p.job.seq, p.job.attempt);
  auto read = st.sitemaps.read(p.job.seq, std::move(p.parse), epoch_ms());
  if (!read)
    return;  // an answer for a document that already ended
  if (!read->pages.empty())
    self->send(st.actors.frontier, sitemap_links{read->row.url, std::move(read->pages)});
  if (!read->row.reason.empty())
    log_line(LogLevel::info, "sitemap " + read->row.url + ": " + read->row.status + " (" + read->row.reason + ")");
  st.sitemap_rows.push_back(std::move(read->row));
  schedule_sitemaps(self);
  dispatch(self);
}

void load_sitemap_history(selector_ptr self) {
  auto& st = self->state;
  const std::int64_t since =
    st.sitemap_settings.revisit_after_ms > 0 ? epoch_ms() - st.sitemap_settings.revisit_after_ms : 0;
  self->request(st.actors.storage, caf::infinite, load_sitemaps{since})
    .then(
      [self](sitemap_history& h) {
        self->state.sitemaps.history_loaded(h.urls);
        self->state.sitemaps.reread(h.due);
        self->state.sitemaps.reread(h.unfinished);
        schedule_sitemaps(self);
        dispatch(self);
      },
      [self](caf::error& err) {
        // Without the history every sitemap is fetched once more: a cost,
        // never a loss.
        log_line(LogLevel::error, "reading which sitemaps earlier runs read failed: " + to_string(err));
        self->state.sitemaps.history_loaded({});
        schedule_sitemaps(self);
        dispatch(self);
      });
}

host_selector_actor::behavior_type host_selector_behavior(selector_ptr self, HostScheduler::Settings politeness,
                                                          fetch_settings settings, SitemapSettings sitemaps) {
  self->state.settings = settings;
  self->state.sitemaps = SitemapLedger{sitemaps.ledger};
  self->state.sitemap_settings = std::move(sitemaps);
  self->state.product_token = product_token_of(settings.user_agent);
  self->state.scheduler = HostScheduler{politeness};
  self->set_down_handler([self](caf::down_msg& msg) { lose_worker(self, msg); });
  return {
    [self](topology& t) {
      self->state.actors = std::move(t);
      if (self->state.sitemap_settings.enabled)
        load_sitemap_history(self);
      ask_for_work(self);
    },
    [self](worker_hello& hello) { return welcome_worker(self, hello); },
    [self](crawl_batch& batch) { take_batch(self, batch); },
    [self](follow_redirect& hop) { follow(self, hop); },
    [self](fetches_done& m) {
      for (const auto& done : m.done)
        end_lease(self, done);
      dispatch(self);
    },
    [self](pages_processed& p) {
      for (const auto& lease : p.leases)
        self->state.processing.reported(lease.seq, lease.attempt);
    },
    [self](robots_result& r) { take_robots(self, r); },
    [self](sitemap_parsed& p) { take_sitemap(self, p); },
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
                                        fetch_settings settings, SitemapSettings sitemaps) {
  return sys.spawn(host_selector_behavior, politeness, std::move(settings), std::move(sitemaps));
}

}  // namespace actorcrawl
