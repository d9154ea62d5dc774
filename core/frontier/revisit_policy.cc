#include "core/frontier/revisit_policy.h"

#include <algorithm>
#include <limits>

namespace actorcrawl {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

std::int64_t saturating_add(std::int64_t a, std::int64_t b) { return a > kNever - b ? kNever : a + b; }

}  // namespace

RevisitPolicy::RevisitPolicy(RevisitSettings settings) : s_(settings) {
  if (!enabled())
    return;
  const std::int64_t base = s_.revisit_after_ms;
  // Bounds on the wrong side of the base are read as the base: the base is
  // what the user asked for by name, the bounds only limit adapting it.
  s_.revisit_min_ms = s_.revisit_min_ms <= 0 ? base : std::min(s_.revisit_min_ms, base);
  s_.revisit_max_ms = s_.revisit_max_ms <= 0 ? base : std::max(s_.revisit_max_ms, base);
}

std::int64_t RevisitPolicy::interval(const FetchHistory& page) const {
  if (!enabled() || !s_.adaptive || page.interval_ms <= 0)
    return s_.revisit_after_ms;
  return std::clamp(page.interval_ms, s_.revisit_min_ms, s_.revisit_max_ms);
}

std::int64_t RevisitPolicy::due_at(const FetchHistory& page) const {
  if (page.fetched_at_ms < 0)
    return 0;
  if (!enabled())
    return -1;
  return saturating_add(page.fetched_at_ms, interval(page));
}

bool RevisitPolicy::is_due(const FetchHistory& page, std::int64_t now_ms) const {
  const std::int64_t at = due_at(page);
  return at >= 0 && now_ms >= at;
}

bool RevisitPolicy::due_by_lastmod(const FetchHistory& page, std::int64_t lastmod_ms, std::int64_t now_ms) const {
  if (!enabled() || page.fetched_at_ms < 0 || lastmod_ms < 0)
    return false;
  return lastmod_ms > page.fetched_at_ms && lastmod_ms <= now_ms &&
         now_ms >= saturating_add(page.fetched_at_ms, s_.revisit_min_ms);
}

std::int64_t RevisitPolicy::next_interval(std::int64_t current_ms, PageChange change) const {
  if (!enabled() || !s_.adaptive || change == PageChange::new_page)
    return s_.revisit_after_ms;
  current_ms = current_ms <= 0 ? s_.revisit_after_ms : std::clamp(current_ms, s_.revisit_min_ms, s_.revisit_max_ms);
  switch (change) {
    case PageChange::changed: return std::max(current_ms / 2, s_.revisit_min_ms);
    case PageChange::unchanged: return std::min(saturating_add(current_ms, current_ms / 2), s_.revisit_max_ms);
    case PageChange::new_page:
    case PageChange::gone:
    case PageChange::failed: break;
  }
  return current_ms;
}

FetchHistory RevisitPolicy::after_fetch(const FetchHistory& page, PageChange change, std::int64_t fetched_at_ms) const {
  if (change == PageChange::failed)
    return page;
  return FetchHistory{fetched_at_ms, next_interval(interval(page), change)};
}

}  // namespace actorcrawl
