// When a page the crawl has fetched is asked for again (`revisit_after`),
// and how the wait adapts to how often the page changes.
//
// Each page waits its own interval after its last fetch. With `adaptive`
// off that is always revisit_after. With it on (the adaptive revisit of
// Heritrix's WaitEvaluator and Nutch/StormCrawler's AdaptiveFetchSchedule)
// the interval starts at revisit_after and moves after every fetch by what
// it found: changed, halved (a page that changes is checked sooner); unchanged,
// times 1.5 (one that does not, later); never below revisit_min or above
// revisit_max. Shrinking faster than it grows keeps a page that changes
// between most fetches near how often it changes, and one that never changes
// reaches revisit_max in a handful of fetches (1 day to 30 in nine).
//
// A sitemap <lastmod> later than the page's last fetch says it changed since:
// the page is due at once, whatever its interval, but still no sooner than
// revisit_min after that fetch, since many sitemaps stamp every URL with the
// time they were generated.
#pragma once

#include <cstdint>

#include "core/crawl/page_change.h"

namespace actorcrawl {

struct RevisitSettings {
  // The base interval (epoch ms apart); 0 or less: a fetched page is never
  // asked for again, sitemap or not.
  std::int64_t revisit_after_ms = 0;
  // The adaptive interval's floor, and the least time between two fetches
  // of a page for any reason. 0: revisit_after; above it: revisit_after.
  std::int64_t revisit_min_ms = 3600LL * 1000;  // 1 hour
  // The adaptive interval's ceiling. 0: revisit_after; below it: revisit_after.
  std::int64_t revisit_max_ms = 30LL * 24 * 3600 * 1000;  // 30 days
  bool adaptive = false;
};

// A page's fetch history, as stored with its row.
struct FetchHistory {
  std::int64_t fetched_at_ms = -1;  // the last fetch that got an answer; -1: never
  std::int64_t interval_ms = 0;     // the interval after it; 0 or less: none yet (revisit_after)
};

class RevisitPolicy {
 public:
  explicit RevisitPolicy(RevisitSettings settings);

  bool enabled() const { return s_.revisit_after_ms > 0; }
  // The settings as applied: min <= revisit_after <= max.
  const RevisitSettings& settings() const { return s_; }

  // The page's wait after its last fetch: revisit_after, or with `adaptive`
  // its own interval within [min, max].
  std::int64_t interval(const FetchHistory& page) const;
  // When the page is next due (epoch ms); -1 when never (revisits off), 0
  // when it was never fetched.
  std::int64_t due_at(const FetchHistory& page) const;
  // A page never fetched is due; a fetched one when revisits are on and its
  // interval has passed.
  bool is_due(const FetchHistory& page, std::int64_t now_ms) const;
  // A sitemap <lastmod> (epoch ms) later than the last fetch, and not in the
  // future, makes a fetched page due once revisit_min has passed since that
  // fetch, whatever its interval. False when revisits are off.
  bool due_by_lastmod(const FetchHistory& page, std::int64_t lastmod_ms, std::int64_t now_ms) const;

  // The interval after a fetch that found `change`, from the current one
  // (0 or less: none yet, revisit_after): changed halves it, unchanged
  // multiplies it by 1.5, within [min, max]; new starts at revisit_after;
  // gone and failed keep it (a page that stays gone is unchanged next time,
  // and grows). Always revisit_after when not adaptive.
  std::int64_t next_interval(std::int64_t current_ms, PageChange change) const;
  // The history after a fetch at `fetched_at_ms` that found `change`. A
  // failed fetch changes nothing: the stored page is still the one fetched
  // before, and the page stays due (retries are paced by parking, not here).
  FetchHistory after_fetch(const FetchHistory& page, PageChange change, std::int64_t fetched_at_ms) const;

 private:
  RevisitSettings s_;
};

}  // namespace actorcrawl
