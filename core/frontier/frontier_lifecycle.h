// The FrontierActor's life as a plain class: when it may lease, which
// answers it still waits for, and when the crawl is over (the termination
// rule). The actor receives, tells this class what happened, asks it what
// to do, and sends; every path to the end is unit-tested here without CAF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/frontier/frontier_start.h"

namespace actorcrawl {

// What the crawl's frontier says at the moment the rule is asked.
struct FrontierFacts {
  bool finished = false;          // nothing queued, leased or left to load (CrawlFrontier::finished)
  bool budget_exhausted = false;  // max_pages leased
  std::size_t in_flight = 0;      // leased and not yet settled
};

// How a crawl ended: the reason the run records (max_pages, queue_empty,
// or the stop's own) and, for a stop, its error.
struct CrawlEnd {
  std::string reason;
  std::string error;
};

class FrontierLifecycle {
 public:
  // What the configuration decides about the life; the profile is read
  // here, so no actor branches on it.
  struct Rules {
    bool await_sitemaps = false;       // not over before sitemaps_open was heard once
    bool revisits_during_run = false;  // ask the Storage for due pages every revisit_check
    bool revisits_by_lastmod = false;  // a sitemap's <lastmod> may bring a fetched page back
    std::size_t max_unwritten_deltas = 512;
  };
  static Rules rules_of(const FrontierSettings& settings);

  explicit FrontierLifecycle(Rules rules) : rules_(rules) {}
  const Rules& rules() const { return rules_; }

  // -- start: the seeds come, the Storage answers the resume ---------------
  void resume_asked() { resuming_ = true; }
  void resumed() {
    resuming_ = false;
    started_ = true;
  }
  bool started() const { return started_; }

  // -- leasing ---------------------------------------------------------------
  void demand(std::int64_t slots) { demand_ += slots; }
  // How many jobs may be leased now, given `room` below max_in_flight:
  // none before the start, after a stop, or while the Storage is
  // max_unwritten_deltas behind; never more than the HostSelector asked for.
  std::size_t leasable(std::size_t room) const;
  void leased(std::size_t jobs) { demand_ -= static_cast<std::int64_t>(jobs); }
  void delta_sent() { ++deltas_sent_; }
  void deltas_written(std::int64_t count);

  // -- requests whose answers may queue URLs: the crawl waits for them ------
  enum class Ask { relink, lastmod };
  void asked(Ask ask) { ++pending(ask); }
  void answered(Ask ask) { --pending(ask); }
  // Whether an answer or a due revisit may still queue URLs: not once the
  // crawl stops or ends.
  bool takes_new_work() const { return !stopping_ && !finishing_; }

  // -- sitemaps ----------------------------------------------------------------
  void sitemaps_open(std::int64_t count);

  // -- pages -----------------------------------------------------------------
  void page_fetched() { ++fetched_; }
  void page_failed() { ++failed_; }
  std::int64_t fetched() const { return fetched_; }
  std::int64_t failed() const { return failed_; }

  // -- the end ---------------------------------------------------------------
  // A stop (a signal, the service, a processor that gave up): false when
  // one came already. In-flight leases finish; nothing new is leased.
  bool stop(std::string reason, std::string error);
  bool stopping() const { return stopping_; }
  bool finishing() const { return finishing_; }

  // What to do now; asked after every message. `drain_sitemaps`: the
  // budget is spent and sitemaps are still open, so the HostSelector ends
  // those not yet requested (once). `end`: the crawl is over (once; the
  // lifecycle is then finishing).
  struct Next {
    bool drain_sitemaps = false;
    std::optional<CrawlEnd> end;
  };
  Next next(const FrontierFacts& now);

 private:
  std::int64_t& pending(Ask ask) { return ask == Ask::relink ? relinks_pending_ : lastmod_pending_; }

  Rules rules_;
  bool started_ = false;
  bool resuming_ = false;
  bool stopping_ = false;
  bool finishing_ = false;
  bool sitemaps_heard_ = false;
  bool sitemaps_drained_ = false;
  std::int64_t sitemaps_open_ = 0;
  std::int64_t demand_ = 0;
  std::int64_t deltas_sent_ = 0;
  std::int64_t deltas_written_ = 0;
  std::int64_t relinks_pending_ = 0;
  std::int64_t lastmod_pending_ = 0;
  std::int64_t fetched_ = 0;
  std::int64_t failed_ = 0;
  std::string stop_reason_;
  std::string stop_error_;
};

}  // namespace actorcrawl
