#include "core/frontier/revisit_policy.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

using namespace actorcrawl;

namespace {

constexpr std::int64_t kHour = 3600LL * 1000;
constexpr std::int64_t kDay = 24 * kHour;
constexpr std::int64_t kT0 = 1700000000000;  // a fetch time, epoch ms

RevisitSettings settings(std::int64_t base, bool adaptive, std::int64_t min = kHour, std::int64_t max = 30 * kDay) {
  RevisitSettings s;
  s.revisit_after_ms = base;
  s.revisit_min_ms = min;
  s.revisit_max_ms = max;
  s.adaptive = adaptive;
  return s;
}

}  // namespace

TEST_CASE("revisit: a page is due once its interval has passed since its fetch", "[revisit]") {
  const RevisitPolicy policy(settings(kDay, false));
  CHECK(policy.enabled());
  const FetchHistory page{kT0, 0};
  CHECK(policy.interval(page) == kDay);
  CHECK(policy.due_at(page) == kT0 + kDay);
  CHECK_FALSE(policy.is_due(page, kT0));
  CHECK_FALSE(policy.is_due(page, kT0 + kDay - 1));
  CHECK(policy.is_due(page, kT0 + kDay));
  CHECK(policy.is_due(page, kT0 + 40 * kDay));
  // A clock behind the fetch time is not due.
  CHECK_FALSE(policy.is_due(page, kT0 - kDay));
  // Never fetched: nothing to wait for.
  CHECK(policy.is_due(FetchHistory{}, kT0));
  CHECK(policy.due_at(FetchHistory{}) == 0);
  // Not adaptive: a stored interval is ignored, every page waits the base.
  CHECK(policy.interval(FetchHistory{kT0, 3 * kDay}) == kDay);
  CHECK(policy.is_due(FetchHistory{kT0, 3 * kDay}, kT0 + kDay));
}

TEST_CASE("revisit: off, a fetched page is never due, sitemap or not", "[revisit]") {
  for (std::int64_t base : {std::int64_t{0}, std::int64_t{-1}}) {
    const RevisitPolicy policy(settings(base, true));
    CHECK_FALSE(policy.enabled());
    const FetchHistory page{kT0, kDay};
    CHECK(policy.due_at(page) == -1);
    CHECK_FALSE(policy.is_due(page, kT0 + 1000 * kDay));
    CHECK_FALSE(policy.due_by_lastmod(page, kT0 + kDay, kT0 + 2 * kDay));
    CHECK(policy.is_due(FetchHistory{}, kT0));
    CHECK(policy.after_fetch(page, PageChange::changed, kT0 + 1).fetched_at_ms == kT0 + 1);
  }
}

TEST_CASE("revisit: adaptive halves the interval on a change and grows it by half otherwise", "[revisit]") {
  const RevisitPolicy policy(settings(kDay, true, 6 * kHour, 4 * kDay));
  CHECK(policy.next_interval(kDay, PageChange::changed) == 12 * kHour);
  CHECK(policy.next_interval(12 * kHour, PageChange::changed) == 6 * kHour);
  CHECK(policy.next_interval(6 * kHour, PageChange::changed) == 6 * kHour);  // the floor
  CHECK(policy.next_interval(8 * kHour, PageChange::changed) == 6 * kHour);
  CHECK(policy.next_interval(kDay, PageChange::unchanged) == 36 * kHour);
  CHECK(policy.next_interval(36 * kHour, PageChange::unchanged) == 54 * kHour);
  CHECK(policy.next_interval(3 * kDay, PageChange::unchanged) == 4 * kDay);  // the ceiling
  CHECK(policy.next_interval(4 * kDay, PageChange::unchanged) == 4 * kDay);
  // New starts at the base; gone and failed keep the interval.
  CHECK(policy.next_interval(3 * kDay, PageChange::new_page) == kDay);
  CHECK(policy.next_interval(3 * kDay, PageChange::gone) == 3 * kDay);
  CHECK(policy.next_interval(3 * kDay, PageChange::failed) == 3 * kDay);
  // No interval yet is the base; one out of bounds (the settings changed
  // between runs) is brought inside first.
  CHECK(policy.next_interval(0, PageChange::unchanged) == 36 * kHour);
  CHECK(policy.next_interval(-5, PageChange::changed) == 12 * kHour);
  CHECK(policy.next_interval(100 * kDay, PageChange::gone) == 4 * kDay);
  CHECK(policy.next_interval(kHour, PageChange::gone) == 6 * kHour);
  CHECK(policy.interval(FetchHistory{kT0, 100 * kDay}) == 4 * kDay);
  CHECK(policy.interval(FetchHistory{kT0, kHour}) == 6 * kHour);
  CHECK(policy.interval(FetchHistory{kT0, 2 * kDay}) == 2 * kDay);

  // Not adaptive: always the base.
  const RevisitPolicy fixed(settings(kDay, false, 6 * kHour, 4 * kDay));
  for (auto c : {PageChange::new_page, PageChange::changed, PageChange::unchanged, PageChange::gone,
                 PageChange::failed})
    CHECK(fixed.next_interval(3 * kDay, c) == kDay);
}

TEST_CASE("revisit: a page that never changes reaches the ceiling, one that always does the floor", "[revisit]") {
  const RevisitPolicy policy(settings(kDay, true, kHour, 30 * kDay));
  FetchHistory page = policy.after_fetch(FetchHistory{}, PageChange::new_page, kT0);
  CHECK(page.fetched_at_ms == kT0);
  CHECK(page.interval_ms == kDay);
  int fetches = 0;
  while (page.interval_ms < 30 * kDay) {
    const std::int64_t now = policy.due_at(page);
    REQUIRE(policy.is_due(page, now));
    page = policy.after_fetch(page, PageChange::unchanged, now);
    CHECK(page.fetched_at_ms == now);
    REQUIRE(++fetches < 20);
  }
  CHECK(fetches == 9);  // 1.5^9 > 30
  page = policy.after_fetch(page, PageChange::unchanged, policy.due_at(page));
  CHECK(page.interval_ms == 30 * kDay);

  page = FetchHistory{kT0, kDay};
  fetches = 0;
  while (page.interval_ms > kHour) {
    page = policy.after_fetch(page, PageChange::changed, policy.due_at(page));
    REQUIRE(++fetches < 20);
  }
  CHECK(fetches == 5);  // 24 h / 2^5 < 1 h
  CHECK(page.interval_ms == kHour);
}

TEST_CASE("revisit: a failed fetch leaves the history as it was", "[revisit]") {
  const RevisitPolicy policy(settings(kDay, true));
  const FetchHistory page{kT0, 2 * kDay};
  const FetchHistory after = policy.after_fetch(page, PageChange::failed, kT0 + 3 * kDay);
  CHECK(after.fetched_at_ms == kT0);
  CHECK(after.interval_ms == 2 * kDay);
  CHECK(policy.is_due(after, kT0 + 3 * kDay));
  const FetchHistory gone = policy.after_fetch(page, PageChange::gone, kT0 + 3 * kDay);
  CHECK(gone.fetched_at_ms == kT0 + 3 * kDay);
  CHECK(gone.interval_ms == 2 * kDay);
}

TEST_CASE("revisit: a sitemap lastmod after the fetch makes the page due, past the floor", "[revisit]") {
  const RevisitPolicy policy(settings(30 * kDay, false, 6 * kHour, 60 * kDay));
  const FetchHistory page{kT0, 0};
  const std::int64_t now = kT0 + 2 * kDay;
  CHECK_FALSE(policy.is_due(page, now));
  CHECK(policy.due_by_lastmod(page, kT0 + kDay, now));
  CHECK(policy.due_by_lastmod(page, kT0 + 1, now));
  // Not after the fetch: what was fetched is at least that new.
  CHECK_FALSE(policy.due_by_lastmod(page, kT0, now));
  CHECK_FALSE(policy.due_by_lastmod(page, kT0 - kDay, now));
  // A lastmod in the future is a broken sitemap, not a change.
  CHECK_FALSE(policy.due_by_lastmod(page, now + 1, now));
  CHECK(policy.due_by_lastmod(page, now, now));
  // Not sooner than revisit_min after the fetch: sitemaps that stamp every
  // URL with their own generation time would otherwise refetch everything.
  CHECK_FALSE(policy.due_by_lastmod(page, kT0 + kHour, kT0 + 6 * kHour - 1));
  CHECK(policy.due_by_lastmod(page, kT0 + kHour, kT0 + 6 * kHour));
  // A page never fetched has nothing to compare; a lastmod of -1 is none.
  CHECK_FALSE(policy.due_by_lastmod(FetchHistory{}, kT0, now));
  CHECK_FALSE(policy.due_by_lastmod(page, -1, now));
}

TEST_CASE("revisit: bounds on the wrong side of the base are the base", "[revisit]") {
  // min above the base, max below it: the base holds, nothing adapts past it.
  const RevisitPolicy odd(settings(kDay, true, 2 * kDay, kHour));
  CHECK(odd.settings().revisit_min_ms == kDay);
  CHECK(odd.settings().revisit_max_ms == kDay);
  CHECK(odd.next_interval(kDay, PageChange::changed) == kDay);
  CHECK(odd.next_interval(kDay, PageChange::unchanged) == kDay);
  // 0: the base.
  const RevisitPolicy zero(settings(kDay, true, 0, 0));
  CHECK(zero.settings().revisit_min_ms == kDay);
  CHECK(zero.settings().revisit_max_ms == kDay);
  // Defaults: an hour to thirty days, not adaptive.
  const RevisitSettings defaults;
  CHECK(defaults.revisit_after_ms == 0);
  CHECK(defaults.revisit_min_ms == kHour);
  CHECK(defaults.revisit_max_ms == 30 * kDay);
  CHECK_FALSE(defaults.adaptive);
}

TEST_CASE("revisit: far times saturate instead of overflowing", "[revisit]") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  const RevisitPolicy policy(settings(kMax / 2, true, kHour, kMax));
  const FetchHistory page{kMax - 10, kMax};
  CHECK(policy.due_at(page) == kMax);
  CHECK(policy.next_interval(kMax, PageChange::unchanged) == kMax);
  CHECK(policy.next_interval(kMax / 3 * 2 + 10, PageChange::unchanged) == kMax);
  CHECK(policy.next_interval(kMax / 2, PageChange::unchanged) == kMax / 2 + kMax / 4);
  CHECK_FALSE(policy.due_by_lastmod(page, kMax - 5, kMax - 1));
}
