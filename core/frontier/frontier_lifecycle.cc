#include "core/frontier/frontier_lifecycle.h"

#include <algorithm>
#include <utility>

namespace actorcrawl {

FrontierLifecycle::Rules FrontierLifecycle::rules_of(const FrontierSettings& settings) {
  Rules rules;
  rules.await_sitemaps = settings.await_sitemaps;
  // Revisits are the site profile's: the domains profile counts crawls of
  // hosts, and a page fetched again would count its host twice.
  const bool site = settings.profile == CrawlProfile::site;
  rules.revisits_by_lastmod = site && settings.revisit_after_ms > 0;
  rules.revisits_during_run = rules.revisits_by_lastmod && settings.revisit_check.count() > 0;
  rules.max_unwritten_deltas = settings.max_unwritten_deltas;
  return rules;
}

std::size_t FrontierLifecycle::leasable(std::size_t room) const {
  const bool store_behind = deltas_sent_ - deltas_written_ >= static_cast<std::int64_t>(rules_.max_unwritten_deltas);
  if (!started_ || stopping_ || demand_ <= 0 || store_behind)
    return 0;
  // What the selector asked for beyond the room stays owed, and is paid as
  // settled URLs make room.
  return std::min(static_cast<std::size_t>(demand_), room);
}

void FrontierLifecycle::deltas_written(std::int64_t count) { deltas_written_ = std::max(deltas_written_, count); }

void FrontierLifecycle::sitemaps_open(std::int64_t count) {
  sitemaps_open_ = std::max<std::int64_t>(count, 0);
  sitemaps_heard_ = true;
}

bool FrontierLifecycle::stop(std::string reason, std::string error) {
  if (stopping_)
    return false;
  stopping_ = true;
  stop_reason_ = std::move(reason);
  stop_error_ = std::move(error);
  demand_ = 0;
  // Stopped before the seeds came: nothing to wait for. Stopped while the
  // resume is on its way: it still comes, and what came early is written
  // before the crawl ends.
  if (!started_ && !resuming_)
    started_ = true;
  return true;
}

FrontierLifecycle::Next FrontierLifecycle::next(const FrontierFacts& now) {
  Next out;
  if (!started_ || finishing_)
    return out;
  // The budget is spent and every lease is in: sitemaps still open could
  // only add URLs that will never be fetched.
  if (!stopping_ && !sitemaps_drained_ && sitemaps_open_ > 0 && now.finished && now.budget_exhausted) {
    sitemaps_drained_ = true;
    out.drain_sitemaps = true;
  }
  // Every sitemap ended, and (when the run waits for them) their count heard.
  const bool sitemaps_done = sitemaps_open_ == 0 && (sitemaps_heard_ || !rules_.await_sitemaps || stopping_);
  // A stop waits for the leases out; an end of work also for the answers
  // that could still queue URLs.
  const bool work_done = stopping_ ? now.in_flight == 0
                                   : now.finished && relinks_pending_ == 0 && lastmod_pending_ == 0;
  if (!sitemaps_done || !work_done)
    return out;
  finishing_ = true;
  if (stopping_)
    out.end = CrawlEnd{stop_reason_, stop_error_};
  else
    out.end = CrawlEnd{now.budget_exhausted ? "max_pages" : "queue_empty", std::string{}};
  return out;
}

}  // namespace actorcrawl
