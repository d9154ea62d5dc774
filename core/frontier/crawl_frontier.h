// What the FrontierActor needs from a frontier, whichever profile it runs:
// FrontierWindow (site: URL-level BFS with spill to SQLite) or
// DomainFrontier (domains: host-level discovery).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"

namespace actorcrawl {

struct RefillRequest {
  std::int64_t from_seq;
  std::size_t limit;
};

class CrawlFrontier {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~CrawlFrontier() = default;

  // Accepts a discovered URL, or not. Returns the row to persist as queued.
  // A URL refused by a rule (a trap defence, the subdomain cap) shows up in
  // take_refused() with the rule's name instead.
  // `url` is copied only into what it returns (a page's links are offered
  // as views of its row, most of them known already).
  virtual std::optional<FrontierEntry> offer(std::string_view url, const std::string& host_key,
                                             std::int32_t depth, const std::string& parent_url) = 0;
  virtual std::vector<FrontierRefusal> take_refused() = 0;

  // Leases up to `n` jobs.
  virtual std::vector<CrawlJob> take(std::size_t n) = 0;
  // A leased job ended: fetched. Uses budget.
  virtual void settle(const CrawlJob& job) = 0;
  // A leased job failed for good (a definite answer, transient_failure.h).
  // Uses budget like settle(); the URL is never lowered and fetched again.
  virtual void failed(const CrawlJob& job) = 0;
  // A leased job was refused before any request (robots.txt). No budget.
  virtual void refused(const CrawlJob& job) = 0;
  // A leased job failed for a reason that may not hold later: it waits
  // until `due`, then take_due() queues it again. No budget.
  virtual void park(const CrawlJob& job, Clock::time_point due) = 0;
  // Parked jobs whose time has come go back to the queue; returns how many.
  virtual std::size_t take_due(Clock::time_point now) = 0;
  // When the next parked job is due, if any waits.
  virtual std::optional<Clock::time_point> next_due() const = 0;
  // URLs met again closer to a seed since the last call: each with a new
  // seq and its smaller depth, to be persisted as queued again.
  virtual std::vector<FrontierEntry> take_lowered() = 0;
  // A page fetched before whose revisit interval has passed (the store's
  // due_for_revisit row, with its validators): queued again under a new seq,
  // its row written through take_lowered(). False when it is not a fetched
  // page of this frontier now (leased, queued already, a redirect's target),
  // or the profile revisits only between runs (domains).
  virtual bool revisit(const FrontierEntry& due) {
    (void)due;
    return false;
  }
  // Fetched URLs met again closer to a seed since the last call, each with
  // its smaller depth and new parent (seq unused): the page is not fetched
  // again; its stored links are offered again at that depth plus one.
  virtual std::vector<FrontierEntry> take_relinks() = 0;
  // URLs a settled job also requested (its redirect hops and final URL)
  // since the last call: never requested again in this crawl; a row of one
  // still queued is to be marked done.
  virtual std::vector<std::string> take_redirect_targets() = 0;
  // Leased jobs that were never fetched come back to the front.
  virtual void give_back(std::vector<CrawlJob> jobs) = 0;

  virtual std::optional<RefillRequest> refill_request() = 0;
  virtual void refilled(const std::vector<FrontierEntry>& rows, std::size_t requested) = 0;

  virtual bool budget_exhausted() const = 0;
  virtual bool finished() const = 0;

  virtual std::size_t queued() const = 0;
  // Parked, waiting for their time (not counted in queued(); a crawl may
  // end while URLs are parked: they are offered again on the next run).
  virtual std::size_t parked() const = 0;
  virtual std::size_t in_flight() const = 0;
  virtual std::size_t seen() const = 0;
  virtual std::int64_t settled() const = 0;
};

}  // namespace actorcrawl
