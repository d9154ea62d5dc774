#include "actors/frontier_actor.h"

#include <algorithm>
#include <type_traits>

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/frontier/frontier_lifecycle.h"
#include "core/frontier/lease_ledger.h"
#include "core/crawl/transient_failure.h"
#include "core/report/stage_times.h"
#include "core/web/url.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// Parked URLs fall due by the actor's clock: under CAF's test coordinator it
// is the clock the tests advance.
static_assert(std::is_same<CrawlFrontier::Clock::time_point, caf::actor_clock::time_point>::value,
              "the frontier's clock must be the actor clock's");

struct frontier_state {
  topology actors;
  crawl_observer_actor observer;
  FrontierSettings settings;
  std::unique_ptr<CrawlFrontier> frontier;
  frontier_delta delta;          // rows to persist, sent once per message
  LeaseLedger leases;            // each lease ends once (see lease_ledger.h)
  // Started, stopping, finishing; demand, answers awaited, the end.
  FrontierLifecycle life{FrontierLifecycle::Rules{}};
  StageTimes times{"frontier"};
  bool due_armed = false;  // a tick is on its way for the earliest parked URL
  // Sitemap URLs that came before Storage gave the resume back: the
  // HostSelector reads sitemaps an earlier run left due on its own, so they
  // can beat the resume. Offered once it is in (take_sitemap_links).
  std::vector<sitemap_links> early_sitemaps;
  CrawlFrontier::Clock::time_point due_at{};
  static inline const char* name = "FrontierActor";
};

using frontier_ptr = traced_actor<frontier_state, frontier_actor>*;

// Writes what this message changed. Sent before any lease of a new URL, so
// the row is in the database (in order, same mailbox) before anything can
// happen to the URL elsewhere.
void persist(frontier_ptr self) {
  auto& d = self->state.delta;
  for (auto& r : self->state.frontier->take_refused())
    d.refused.push_back(std::move(r));
  for (auto& e : self->state.frontier->take_lowered())
    d.requeued.push_back(std::move(e));
  // A redirect chain's targets were fetched with it: a row of one still
  // queued is done (a row-less URL changes nothing).
  for (auto& url : self->state.frontier->take_redirect_targets())
    d.done.push_back(std::move(url));
  if (d.added.empty() && d.requeued.empty() && d.done.empty() && d.failed.empty() && d.refused.empty() &&
      d.parked.empty())
    return;
  self->send(self->state.actors.storage, std::move(d));
  self->state.life.delta_sent();
  d = frontier_delta{};
}

// Whether the URL is new to the crawl (and queued).
bool offer(frontier_ptr self, std::string_view url, const std::string& host_key, std::int32_t depth,
           const std::string& parent, std::int64_t lastmod_ms = 0) {
  if (auto entry = self->state.frontier->offer(url, host_key, depth, parent)) {
    entry->lastmod_ms = lastmod_ms;
    self->state.delta.added.push_back(std::move(*entry));
    return true;
  }
  return false;
}

void maybe_finish(frontier_ptr self);
void dispatch_more(frontier_ptr self);

// A lane's batch: each page's lease settled and its links offered, read in
// place from its row; then the rows go on to Storage, ahead of the delta
// that marks their pages done (same sender, same receiver: in order), so
// no page is ever done without its row. A report of a lease already ended
// or replaced changes nothing here, but its row is kept like any page's.
// Last, the HostSelector hears that the batch's leases left their node
// (its ProcessingLedger): a node lost after this loses none of them.
void take_pages(frontier_ptr self, pages_fetched& m) {
  auto& st = self->state;
  StageTimer timer(st.times, waited_us(m.sent_us));
  // A lease without its row (a peer's malformed batch) goes back to the
  // queue: its page is fetched again rather than lost.
  if (m.pages.size() > m.rows.size()) {
    log_line(LogLevel::error, "a batch of fetched pages came with " + std::to_string(m.pages.size()) +
                                " leases but " + std::to_string(m.rows.size()) + " rows; the others are queued again");
    std::vector<CrawlJob> rowless;
    for (std::size_t i = m.rows.size(); i < m.pages.size(); ++i)
      if (st.leases.end(m.pages[i].job.seq, m.pages[i].job.attempt))
        rowless.push_back(std::move(m.pages[i].job));
    st.frontier->give_back(std::move(rowless));
  }
  std::size_t unreadable = 0;
  for (std::size_t i = 0; i < m.pages.size() && i < m.rows.size(); ++i) {
    const auto& p = m.pages[i];
    if (!st.leases.end(p.job.seq, p.job.attempt))
      continue;
    st.frontier->settle(p.job);
    st.life.page_fetched();
    st.delta.done.push_back(p.job.url);
    for (const auto& link : p.links) {
      if (auto target = followed_target(m.rows[i], link))
        offer(self, target->url, target->host_key, p.job.depth + 1, p.job.url);
      else
        ++unreadable;
    }
  }
  if (unreadable > 0)
    log_line(LogLevel::warn, std::to_string(unreadable) + " followed links named no link of their page's row");
  if (!m.rows.empty())
    self->send(st.actors.storage, store_pages{std::move(m.rows), monotonic_us()});
  pages_processed left;
  left.leases.reserve(m.pages.size() + m.dead_lettered.size());
  for (const auto& p : m.pages)
    left.leases.push_back(lease_ref{p.job.seq, p.job.attempt});
  left.leases.insert(left.leases.end(), m.dead_lettered.begin(), m.dead_lettered.end());
  if (!left.leases.empty())
    self->send(st.actors.host_selector, std::move(left));
}

// Fetched URLs met again closer to a seed: the Storage lowers their rows and
// hands back the links their fetch offered, which are offered again one
// deeper than the new depth. The page is never fetched again. Until every
// answer is in, the crawl is not finished.
void relink(frontier_ptr self) {
  auto& st = self->state;
  for (auto& entry : st.frontier->take_relinks()) {
    st.life.asked(FrontierLifecycle::Ask::relink);
    const std::int32_t depth = entry.depth;
    std::string url = entry.url;
    self->request(st.actors.storage, caf::infinite, relink_fetched{std::move(entry)})
      .then(
        [self, depth, url = std::move(url)](fetched_links& links) {
          auto& st = self->state;
          st.life.answered(FrontierLifecycle::Ask::relink);
          if (st.life.takes_new_work()) {
            for (const auto& link : links.urls)
              offer(self, link, Url::from_canonical(link).host_key(), depth + 1, url);
          }
          dispatch_more(self);
        },
        [self](caf::error& err) {
          self->state.life.answered(FrontierLifecycle::Ask::relink);
          log_line(LogLevel::error, "relinking a page met closer to a seed failed: " + to_string(err));
          dispatch_more(self);
        });
  }
}

// Pages due for a revisit are asked for at most this many at a time.
constexpr std::int32_t kDueRevisitsPerCheck = 1000;

void arm_revisit_check(frontier_ptr self) {
  const auto& s = self->state.settings;
  if (self->state.life.rules().revisits_during_run)
    self->delayed_send(self, s.revisit_check, due_revisits{0, s.revisit_after_ms, kDueRevisitsPerCheck});
}

// A revisit check: the Storage names the pages whose interval has passed,
// and each is queued again (a new seq, its validators with it). Only while
// the crawl goes on: a crawl whose queue ran dry ends, and the next run
// queues what is due then.
void check_revisits(frontier_ptr self, due_revisits ask) {
  auto& st = self->state;
  if (!st.life.takes_new_work())
    return;
  ask.now_ms = epoch_ms();
  self->request(st.actors.storage, caf::infinite, ask)
    .then(
      [self](frontier_rows& due) {
        auto& st = self->state;
        if (st.life.takes_new_work()) {
          std::size_t queued = 0;
          for (const auto& row : due.rows)
            queued += st.frontier->revisit(row) ? 1 : 0;
          if (queued > 0)
            log_line(LogLevel::info, std::to_string(queued) + " pages due for a revisit are queued again");
        }
        arm_revisit_check(self);
        dispatch_more(self);
      },
      [self](caf::error& err) {
        log_line(LogLevel::error, "asking for pages due for a revisit failed: " + to_string(err));
        arm_revisit_check(self);
      });
}

// Sitemap URLs the crawl had fetched, with their <lastmod>: the Storage
// names those whose stored fetch is older (and at least revisit_min old),
// and each is queued again like a page whose interval has passed. Until
// the answer is in, the crawl is not finished.
void revisit_lastmod(frontier_ptr self, std::vector<FrontierEntry> known) {
  auto& st = self->state;
  if (known.empty())
    return;
  st.life.asked(FrontierLifecycle::Ask::lastmod);
  self->request(st.actors.storage, caf::infinite, lastmod_revisits{epoch_ms(), std::move(known)})
    .then(
      [self](frontier_rows& due) {
        auto& st = self->state;
        st.life.answered(FrontierLifecycle::Ask::lastmod);
        if (st.life.takes_new_work()) {
          std::size_t queued = 0;
          for (const auto& row : due.rows)
            queued += st.frontier->revisit(row) ? 1 : 0;
          if (queued > 0)
            log_line(LogLevel::info, std::to_string(queued) + " pages a sitemap says changed since they were "
                                                              "fetched are queued again");
        }
        dispatch_more(self);
      },
      [self](caf::error& err) {
        self->state.life.answered(FrontierLifecycle::Ask::lastmod);
        log_line(LogLevel::error, "asking which sitemap pages changed failed: " + to_string(err));
        dispatch_more(self);
      });
}

// A sitemap's page URLs: offered like links found on a page at the host's
// root (depth 1), the sitemap as their parent, with <lastmod>. A URL the
// crawl fetched already whose <lastmod> is later than that fetch may be due
// again (revisit_lastmod).
void take_sitemap_links(frontier_ptr self, sitemap_links& s) {
  auto& st = self->state;
  // Collected only when a <lastmod> can bring a page back at all.
  const bool by_lastmod = st.life.rules().revisits_by_lastmod;
  std::vector<FrontierEntry> known;
  for (const auto& link : s.links)
    if (!offer(self, link.url, link.host_key, 1, s.sitemap_url, link.lastmod_ms) && by_lastmod &&
        link.lastmod_ms > 0)
      known.push_back(FrontierEntry{0, link.url, 1, s.sitemap_url, link.lastmod_ms});
  revisit_lastmod(self, std::move(known));
}

// One tick for the earliest parked URL, re-armed when an earlier one parks.
void arm_due_tick(frontier_ptr self) {
  auto& st = self->state;
  const auto due = st.frontier->next_due();
  if (!due || st.life.stopping() || (st.due_armed && st.due_at <= *due))
    return;
  st.due_armed = true;
  st.due_at = *due;
  const auto now = self->clock().now();
  const auto delay = *due > now ? std::chrono::duration_cast<std::chrono::microseconds>(*due - now)
                                : std::chrono::microseconds{0};
  self->delayed_send(self, delay, tick_atom_v);
}

// A lease that ended without a page: parked if the reason may not hold
// later, settled for good otherwise.
void end_without_page(frontier_ptr self, const CrawlJob& job, std::string reason, bool fetched) {
  auto& st = self->state;
  if (is_transient_failure(reason)) {
    st.frontier->park(job, self->clock().now() + park_delay(st.settings.host_backoff, job.attempt));
    st.delta.parked.push_back(FrontierRefusal{
      FrontierEntry{static_cast<std::int64_t>(job.seq), job.url, job.depth, std::string{}}, std::move(reason)});
    arm_due_tick(self);
    return;
  }
  if (fetched) {
    st.frontier->failed(job);
    st.life.page_failed();
    st.delta.failed.push_back(job.url);
  } else {
    st.frontier->refused(job);
    st.delta.refused.push_back(FrontierRefusal{
      FrontierEntry{static_cast<std::int64_t>(job.seq), job.url, job.depth, std::string{}}, std::move(reason)});
  }
}

void refill(frontier_ptr self) {
  auto& st = self->state;
  if (st.life.stopping())
    return;
  auto req = st.frontier->refill_request();
  if (!req)
    return;
  self->request(st.actors.storage, caf::infinite, load_frontier{req->from_seq, static_cast<std::int32_t>(req->limit)})
    .then(
      [self, limit = req->limit](frontier_rows& rows) {
        self->state.frontier->refilled(rows.rows, limit);
        dispatch_more(self);
      },
      [self](caf::error& err) {
        log_line(LogLevel::error, "frontier refill failed: " + to_string(err));
        self->state.frontier->refilled({}, 0);
        maybe_finish(self);
      });
}

void dispatch_more(frontier_ptr self) {
  auto& st = self->state;
  persist(self);
  // After persist: the rows a relink lowers are written as done first.
  relink(self);
  const std::size_t in_flight = st.frontier->in_flight();
  const std::size_t room = in_flight >= st.settings.max_in_flight ? 0 : st.settings.max_in_flight - in_flight;
  // None while the store is max_unwritten_deltas behind, so what waits in
  // its mailbox stays bounded.
  if (const std::size_t n = st.life.leasable(room); n > 0) {
    auto jobs = st.frontier->take(n);
    if (!jobs.empty()) {
      for (const auto& job : jobs)
        st.leases.leased(job.seq, job.attempt);
      st.life.leased(jobs.size());
      self->send(st.actors.host_selector, crawl_batch{std::move(jobs)});
    }
  }
  refill(self);
  maybe_finish(self);
}

void maybe_finish(frontier_ptr self) {
  auto& st = self->state;
  const auto next = st.life.next(
    FrontierFacts{st.frontier->finished(), st.frontier->budget_exhausted(), st.frontier->in_flight()});
  // Sitemaps not yet requested end (stopped, so the next run, with more
  // budget, reads them); the rest finish.
  if (next.drain_sitemaps && st.actors.host_selector)
    self->send(st.actors.host_selector, drain_atom_v);
  if (!next.end)
    return;
  if (const auto parked = st.frontier->parked(); parked > 0)
    log_line(LogLevel::warn, std::to_string(parked) + " URLs parked after transient failures (DNS, connection, 5xx, "
                             "429, robots.txt unreachable); the next run on this database offers them again");
  persist(self);
  // The observer hears of the end only once every write before it is
  // committed, so whatever reads the database next sees the whole crawl.
  crawl_finished finished{next.end->reason, next.end->error};
  self->request(st.actors.storage, caf::infinite, flush_atom_v)
    .then([self, finished](ok_atom) { self->send(self->state.observer, finished); },
          [self, finished](caf::error& err) {
            log_line(LogLevel::error, "final flush failed: " + to_string(err));
            self->send(self->state.observer, finished);
          });
}

frontier_actor::behavior_type frontier_behavior(frontier_ptr self, FrontierSettings settings,
                                                crawl_observer_actor observer) {
  self->state.life = FrontierLifecycle{FrontierLifecycle::rules_of(settings)};
  self->state.settings = std::move(settings);
  self->state.observer = std::move(observer);
  // Until the seeds arrive (and resume decides), an empty frontier answers.
  self->state.frontier = std::make_unique<FrontierWindow>(FrontierWindow::Limits{});
  return {
    [self](topology& t) { self->state.actors = std::move(t); },
    [self](crawl_seeds& seeds) {
      auto& st = self->state;
      auto targets = seed_targets(st.settings.profile, seeds.urls);
      st.life.resume_asked();
      self->request(st.actors.storage, caf::infinite, resume_request{resume_query(st.settings, targets)})
        .then([self, targets = std::move(targets)](FrontierResume& resume) {
          auto& st = self->state;
          auto started = start_frontier(st.settings, resume);
          st.frontier = std::move(started.frontier);
          if (!started.note.empty())
            log_line(LogLevel::info, started.note);
          for (const auto& seed : targets)
            offer(self, seed.url, seed.host_key, 0, "");
          st.life.resumed();
          for (auto& early : st.early_sitemaps)
            take_sitemap_links(self, early);
          st.early_sitemaps.clear();
          arm_revisit_check(self);
          dispatch_more(self);
        });
    },
    [self](deltas_written& w) {
      self->state.life.deltas_written(w.count);
      dispatch_more(self);
    },
    [self](work_demand& d) {
      self->state.life.demand(d.slots);
      dispatch_more(self);
    },
    [self](pages_fetched& m) {
      take_pages(self, m);
      dispatch_more(self);
    },
    [self](sitemap_links& s) {
      auto& st = self->state;
      if (st.life.finishing())
        return;
      if (!st.life.started()) {
        st.early_sitemaps.push_back(std::move(s));
        return;
      }
      take_sitemap_links(self, s);
      dispatch_more(self);
    },
    [self](sitemaps_open& o) {
      self->state.life.sitemaps_open(o.count);
      dispatch_more(self);
    },
    [self](url_failed& f) {
      if (!self->state.leases.end(f.job.seq, f.job.attempt))
        return;
      end_without_page(self, f.job, std::move(f.reason), true);
      dispatch_more(self);
    },
    [self](url_refused& r) {
      if (!self->state.leases.end(r.job.seq, r.job.attempt))
        return;
      end_without_page(self, r.job, std::move(r.reason), false);
      dispatch_more(self);
    },
    [self](leases_returned& r) {
      auto& jobs = r.jobs;
      jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                                [self](const CrawlJob& job) { return !self->state.leases.end(job.seq, job.attempt); }),
                 jobs.end());
      self->state.frontier->give_back(std::move(jobs));
      dispatch_more(self);
    },
    // The earliest parked URL is due (maybe more).
    [self](tick_atom) {
      auto& st = self->state;
      st.due_armed = false;
      if (!st.life.stopping())
        st.frontier->take_due(self->clock().now());
      arm_due_tick(self);
      dispatch_more(self);
    },
    [self](due_revisits& ask) { check_revisits(self, ask); },
    [self](stop_crawl& s) {
      auto& st = self->state;
      if (!st.life.stop(s.reason, s.error))
        return;
      log_line(LogLevel::info, "stopping (" + s.reason + "): letting " + std::to_string(st.frontier->in_flight()) +
                                 " URLs in flight finish");
      if (st.actors.host_selector)
        self->send(st.actors.host_selector, drain_atom_v);
      maybe_finish(self);
    },
    [self](timings_atom) { return self->state.times; },
    [self](progress_atom) {
      auto& st = self->state;
      return crawl_progress{static_cast<std::int64_t>(st.frontier->queued()),
                            static_cast<std::int64_t>(st.frontier->in_flight()),
                            static_cast<std::int64_t>(st.frontier->seen()),
                            st.life.fetched(),
                            st.life.failed(),
                            st.frontier->settled(),
                            st.life.stopping(),
                            static_cast<std::int64_t>(st.frontier->parked()),
                            st.leases.stale()};
    },
  };
}

}  // namespace

frontier_actor spawn_frontier(caf::actor_system& sys, FrontierSettings settings, crawl_observer_actor observer) {
  return sys.spawn(frontier_behavior, std::move(settings), std::move(observer));
}

}  // namespace actorcrawl
