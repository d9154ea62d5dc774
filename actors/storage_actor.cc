#include "actors/storage_actor.h"

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/report/console_log.h"
#include "core/crawl/crawl_events.h"
#include "core/page/processor_page_counts.h"
#include "core/fetch/cookie_jar.h"
#include "core/store/crawl_store.h"
#include "core/report/stage_times.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

struct storage_state {
  std::shared_ptr<CrawlStore> store;
  std::shared_ptr<const CookieJar> cookies;
  std::chrono::steady_clock::time_point cookies_saved{};
  std::shared_ptr<CrawlEvents> events;
  // What the events report, held until the batch that wrote it commits: an
  // event (and the metric it feeds) never tells of a row a crash could
  // still take back.
  std::vector<PageRow> uncommitted_pages;
  std::vector<DeadLetterRow> uncommitted_letters;
  std::chrono::milliseconds flush_interval{};  // storage_commit_interval, given at spawn
  // The pages each processor took and failed on, whichever node processed
  // them (for the run's summary).
  ProcessorPageCounts processor_pages;
  // frontier_delta messages written, and the count last told to the
  // Frontier, which bounds how many may wait here.
  frontier_actor frontier;
  std::int64_t deltas = 0;
  std::int64_t deltas_told = 0;
  bool flush_scheduled = false;
  StageTimes times{"store"};
  static inline const char* name = "StorageActor";
};

using storage_ptr = traced_actor<storage_state, storage_actor>*;

// Often enough that the Frontier never waits on a count it could have had:
// well under FrontierSettings::max_unwritten_deltas.
constexpr std::int64_t kDeltasWrittenEvery = 32;

void tell_deltas_written(storage_ptr self) {
  auto& st = self->state;
  if (st.deltas == st.deltas_told || !st.frontier)
    return;
  st.deltas_told = st.deltas;
  self->send(st.frontier, deltas_written{st.deltas});
}

// Tells the events of every write committed so far.
void tell_committed(storage_ptr self) {
  auto& st = self->state;
  tell_deltas_written(self);
  if (!st.events) {
    st.uncommitted_pages.clear();
    st.uncommitted_letters.clear();
    return;
  }
  for (const auto& page : st.uncommitted_pages)
    st.events->page_stored(page);
  for (const auto& letter : st.uncommitted_letters)
    st.events->url_failed(letter);
  st.uncommitted_pages.clear();
  st.uncommitted_letters.clear();
}

// After each write: a batch that just committed (nothing pending) releases
// its events; the first write after a commit arms one timer, which bounds a
// batch in time.
void after_write(storage_ptr self) {
  if (self->state.store->pending_ops() == 0)
    tell_committed(self);
  if (!self->state.flush_scheduled && self->state.store->pending_ops() > 0) {
    self->state.flush_scheduled = true;
    self->delayed_send(self, self->state.flush_interval, tick_atom_v);
  }
}

// Commits the open batch: before a read is answered, when the timer or a
// flush request asks.
// The crawl's cookie jar goes with a commit at most every 10 s (and with
// the run's end): a run killed with kill -9 loses at most the cookies of its
// last seconds, and a jar of thousands of cookies is not listed four times
// a second.
constexpr std::chrono::seconds kCookieSaveInterval{10};

void commit(storage_ptr self) {
  auto& st = self->state;
  if (st.cookies && std::chrono::steady_clock::now() - st.cookies_saved >= kCookieSaveInterval) {
    st.store->save_cookies(st.cookies->lines());
    st.cookies_saved = std::chrono::steady_clock::now();
  }
  self->state.store->flush();
  tell_committed(self);
}

// The Frontier's rows, written in the order its delta lists them.
void write_delta(storage_ptr self, const frontier_delta& d) {
  self->state.store->write_frontier_changes({d.added, d.requeued, d.done, d.failed, d.refused, d.parked});
  ++self->state.deltas;
  if (self->state.deltas - self->state.deltas_told >= kDeltasWrittenEvery)
    tell_deltas_written(self);
  after_write(self);
}

void write_pages(storage_ptr self, store_pages& m) {
  auto& st = self->state;
  StageTimer timer(st.times, waited_us(m.sent_us));
  st.store->record_pages(m.pages);
  for (auto& page : m.pages) {
    st.processor_pages.add(page.processors_took, page.processors_failed);
    if (st.events) {
      page.links.clear();  // events need the page, not its links
      page.links.shrink_to_fit();
      st.uncommitted_pages.push_back(std::move(page));
    }
  }
  after_write(self);
}

void write_dead_letter(storage_ptr self, store_dead_letter& m) {
  self->state.store->record_dead_letter(m.row);
  if (self->state.events)
    self->state.uncommitted_letters.push_back(std::move(m.row));
  after_write(self);
}

// A new run: pages older than revisit_after (or, with adaptive revisits,
// than their own interval) and the URLs an earlier run parked are queued
// again, then the run is logged.
std::int64_t open_run(CrawlStore& db, const begin_run& m) {
  db.set_revisit_settings(RevisitSettings{m.revisit_after_ms, m.revisit_min_ms, m.revisit_max_ms, m.adaptive_revisit});
  if (m.revisit_after_ms > 0)
    db.requeue_due(m.started_at_ms, m.revisit_after_ms);
  if (const auto parked = db.requeue_parked(); parked > 0)
    log_line(LogLevel::info, std::to_string(parked) + " URLs parked by an earlier run are queued again");
  return db.begin_run(m.started_at_ms, m.seeds_json);
}

// A database that fails mid-crawl cannot keep the resume contract: the
// actor stops with the reason, and whoever monitors it ends the crawl. The
// last batch is committed when the actor ends.
void guard_store(storage_ptr self) {
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& eptr) -> caf::error {
    try {
      std::rethrow_exception(eptr);
    } catch (const std::exception& e) {
      log_line(LogLevel::error, std::string{"storage failed: "} + e.what());
      return caf::make_error(caf::sec::runtime_error, e.what());
    }
  });
  // The functor holds the store itself: CAF destroys the actor's state
  // before it runs attachables.
  self->attach_functor([store = self->state.store] {
    try {
      store->flush();
    } catch (const std::exception& e) {
      log_line(LogLevel::error, std::string{"final flush failed: "} + e.what());
    }
  });
}

storage_actor::behavior_type storage_behavior(storage_ptr self, std::shared_ptr<CrawlStore> store,
                                              std::shared_ptr<CrawlEvents> events,
                                              std::chrono::milliseconds flush_interval,
                                              std::shared_ptr<const CookieJar> cookies) {
  self->state.store = std::move(store);
  self->state.cookies = std::move(cookies);
  self->state.events = std::move(events);
  self->state.flush_interval = flush_interval;
  guard_store(self);
  auto& db = *self->state.store;
  return {
    [self](topology& t) { self->state.frontier = std::move(t.frontier); },
    // Writes: batched, committed by size, by the timer, or before a read.
    [self](frontier_delta& d) { write_delta(self, d); },
    [self](store_pages& m) { write_pages(self, m); },
    [self](store_dead_letter& m) { write_dead_letter(self, m); },
    [self, &db](store_robots& m) {
      db.record_robots(m.record);
      after_write(self);
    },
    [self, &db](store_sitemap& m) {
      db.record_sitemaps(m.rows, m.refusals);
      after_write(self);
    },
    [self, &db](load_sitemaps& m) {
      sitemap_history h{db.sitemaps_read(m.fetched_since_ms), db.sitemaps_due(m.fetched_since_ms),
                        db.sitemaps_unfinished()};
      tell_committed(self);
      return h;
    },
    [self](tick_atom) {
      self->state.flush_scheduled = false;
      commit(self);
    },
    // Reads: each commits the open batch first (write_batch.h).
    [&db](resume_request& m) { return db.load_frontier_resume(m.query); },
    [self, &db](due_revisits& m) {
      frontier_rows rows{db.load_due(m.now_ms, m.revisit_after_ms, static_cast<std::size_t>(std::max(m.limit, 0)))};
      tell_committed(self);
      return rows;
    },
    [self, &db](lastmod_revisits& m) {
      frontier_rows rows{db.load_due_by_lastmod(m.offered, m.now_ms)};
      tell_committed(self);
      return rows;
    },
    [self, &db](relink_fetched& m) {
      fetched_links links{db.relink_fetched(m.entry)};
      after_write(self);
      return links;
    },
    [self, &db](load_frontier& m) {
      frontier_rows rows{db.load_queued(m.from_seq, static_cast<std::size_t>(std::max(m.limit, 0)))};
      tell_committed(self);
      return rows;
    },
    // The run log.
    [&db](begin_run& m) { return open_run(db, m); },
    [self, &db](end_run& m) {
      if (self->state.cookies)
        db.save_cookies(self->state.cookies->lines());
      db.end_run(m.run_id, m.ended_at_ms, m.reason);
      commit(self);
      return ok_atom_v;
    },
    [self, &db](summary_request& m) {
      auto summary = db.summary(m.since_ms, m.seed_urls);
      summary.processor_pages = self->state.processor_pages.pages();
      summary.processor_pages_failed = self->state.processor_pages.failed();
      tell_committed(self);
      return summary;
    },
    [self](flush_atom) {
      commit(self);
      return ok_atom_v;
    },
    [self](timings_atom) { return self->state.times; },
  };
}

}  // namespace

storage_actor spawn_storage(caf::actor_system& sys, std::shared_ptr<CrawlStore> store,
                            std::shared_ptr<CrawlEvents> events, std::chrono::milliseconds flush_interval,
                            std::shared_ptr<const CookieJar> cookies) {
  return sys.spawn(storage_behavior, std::move(store), std::move(events), flush_interval, std::move(cookies));
}

}  // namespace actorcrawl
