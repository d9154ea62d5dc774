#include "core/frontier/trap_guard.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

namespace actorcrawl {
namespace {

Url url_of(std::string_view raw) {
  const std::optional<Url> url = Url::parse(raw);
  REQUIRE(url);
  return *url;
}

// "" when admitted, else the rule's name: keeps the checks one-liners.
std::string verdict(TrapGuard& guard, std::string_view raw) {
  return guard.admit(url_of(raw)).value_or("");
}

TrapGuard::Limits only_query_variants(std::size_t n) {
  TrapGuard::Limits limits;
  limits.max_query_variants_per_path = n;
  return limits;
}

// 2020-01-01 plus `day` days, as a calendar widget would link it.
std::string calendar_url(int day) {
  static const int kDaysInMonth[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int year = 2020, month = 0;
  for (;;) {
    const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    const int days = (month == 1 && !leap) ? 28 : kDaysInMonth[month];
    if (day < days) break;
    day -= days;
    if (++month == 12) {
      month = 0;
      ++year;
    }
  }
  char buf[80];
  std::snprintf(buf, sizeof buf, "http://example.com/calendar?date=%04d-%02d-%02d", year,
                month + 1, day + 1);
  return buf;
}

}  // namespace

TEST_CASE("TrapGuard: default limits", "[traps]") {
  const TrapGuard::Limits limits;
  CHECK(limits.max_url_length == 1024);
  CHECK(limits.max_repeated_path_segments == 3);
  CHECK(limits.max_pages_per_host == 0);
  CHECK(limits.max_query_variants_per_path == 100);
  TrapGuard guard(limits);
  CHECK(verdict(guard, "http://example.com/") == "");
  CHECK(verdict(guard, "http://example.com/a/b/c?x=1") == "");
}

TEST_CASE("TrapGuard: max_url_length", "[traps]") {
  TrapGuard guard(TrapGuard::Limits{});
  const std::string base = "http://example.com/";
  const std::string at_limit = base + std::string(1024 - base.size(), 'a');
  REQUIRE(url_of(at_limit).str().size() == 1024);
  CHECK(verdict(guard, at_limit) == "");
  CHECK(verdict(guard, at_limit + "b") == "max_url_length");
  CHECK(verdict(guard, base + std::string(1500, 'x')) == "max_url_length");

  TrapGuard::Limits limits;
  limits.max_url_length = 30;
  TrapGuard small(limits);
  CHECK(verdict(small, "http://example.com/123456789ab") == "");  // 30 characters
  CHECK(verdict(small, "http://example.com/123456789abc") == "max_url_length");
  // The query counts: it is part of the URL.
  CHECK(verdict(small, "http://example.com/?q=123456789") == "max_url_length");

  limits.max_url_length = 0;  // off
  TrapGuard off(limits);
  CHECK(verdict(off, base + std::string(2000, 'x')) == "");
}

TEST_CASE("TrapGuard: max_repeated_path_segments", "[traps]") {
  TrapGuard guard(TrapGuard::Limits{});
  // A relative-link loop: "a" four times.
  CHECK(verdict(guard, "http://example.com/a/b/a/b/a/b/a/b/") == "max_repeated_path_segments");
  CHECK(verdict(guard, "http://example.com/a/b/a/b/a/b/a/") == "max_repeated_path_segments");
  CHECK(verdict(guard, "http://example.com/a/b/a/b/a/b/") == "");  // three times is allowed
  CHECK(verdict(guard, "http://example.com/x/x/x/x") == "max_repeated_path_segments");
  CHECK(verdict(guard, "http://example.com/x/x/x") == "");
  CHECK(verdict(guard, "http://example.com/x/x/x/page.html") == "");
  // Empty segments count, a trailing slash does not repeat anything.
  CHECK(verdict(guard, "http://example.com/a////b") == "");
  CHECK(verdict(guard, "http://example.com/a/////b") == "max_repeated_path_segments");
  // Segments compare exactly; the query is not part of the path.
  CHECK(verdict(guard, "http://example.com/x/X/x/X/x") == "");
  CHECK(verdict(guard, "http://example.com/p?next=/a/a/a/a/a") == "");

  TrapGuard::Limits limits;
  limits.max_repeated_path_segments = 1;
  TrapGuard strict(limits);
  CHECK(verdict(strict, "http://example.com/a/b/c/") == "");
  CHECK(verdict(strict, "http://example.com/a/b/a") == "max_repeated_path_segments");

  limits.max_repeated_path_segments = 0;  // off
  TrapGuard off(limits);
  CHECK(verdict(off, "http://example.com/a/a/a/a/a/a/a/a/a/a/") == "");
}

TEST_CASE("TrapGuard: max_pages_per_host", "[traps]") {
  TrapGuard::Limits limits;
  limits.max_pages_per_host = 3;
  TrapGuard guard(limits);
  CHECK(verdict(guard, "http://example.com/1") == "");
  CHECK(verdict(guard, "https://example.com/2") == "");  // same host key: 443 and 80 are defaults
  CHECK(verdict(guard, "http://example.com/3") == "");
  CHECK(verdict(guard, "http://example.com/4") == "max_pages_per_host");
  CHECK(verdict(guard, "http://example.com/5") == "max_pages_per_host");
  // Other hosts, and the same host on another port, have their own count.
  CHECK(verdict(guard, "http://www.example.com/1") == "");
  CHECK(verdict(guard, "http://example.com:8080/1") == "");

  // 0 (the default) is unlimited.
  TrapGuard unlimited(TrapGuard::Limits{});
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(verdict(unlimited, "http://example.com/p" + std::to_string(i)) == "");
  }
}

TEST_CASE("TrapGuard: max_query_variants_per_path", "[traps]") {
  TrapGuard guard(only_query_variants(3));
  CHECK(verdict(guard, "http://example.com/s?id=1") == "");
  CHECK(verdict(guard, "http://example.com/s?id=2") == "");
  CHECK(verdict(guard, "http://example.com/s?id=3") == "");
  CHECK(verdict(guard, "http://example.com/s?id=4") == "max_query_variants_per_path");
  // The path itself, other paths, hosts and schemes are not affected.
  CHECK(verdict(guard, "http://example.com/s") == "");
  CHECK(verdict(guard, "http://example.com/t?id=4") == "");
  CHECK(verdict(guard, "http://www.example.com/s?id=4") == "");
  CHECK(verdict(guard, "https://example.com/s?id=4") == "");
  CHECK(verdict(guard, "http://example.com/s/?id=4") == "");

  // Before the limit is reached, a repeated query takes no new slot.
  TrapGuard repeats(only_query_variants(2));
  CHECK(verdict(repeats, "http://example.com/s?id=1") == "");
  CHECK(verdict(repeats, "http://example.com/s?id=1") == "");
  CHECK(verdict(repeats, "http://example.com/s?id=2") == "");
  CHECK(verdict(repeats, "http://example.com/s?id=3") == "max_query_variants_per_path");

  TrapGuard off(only_query_variants(0));
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(verdict(off, "http://example.com/s?id=" + std::to_string(i)) == "");
  }
}

TEST_CASE("TrapGuard: a calendar trap is cut at 100 dates", "[traps]") {
  TrapGuard guard(TrapGuard::Limits{});
  int admitted = 0;
  for (int day = 0; day < 500; ++day) {
    const std::string url = calendar_url(day);
    const std::optional<std::string> refused = guard.admit(url_of(url));
    if (!refused) {
      ++admitted;
    } else {
      CHECK(*refused == "max_query_variants_per_path");
    }
  }
  CHECK(calendar_url(0) == "http://example.com/calendar?date=2020-01-01");
  CHECK(calendar_url(499) == "http://example.com/calendar?date=2021-05-14");
  CHECK(admitted == 100);
  // The first 100 days were the ones admitted.
  CHECK(verdict(guard, calendar_url(100)) == "max_query_variants_per_path");
}

TEST_CASE("TrapGuard: only accepted URLs are counted", "[traps]") {
  TrapGuard::Limits limits;
  limits.max_url_length = 40;
  limits.max_pages_per_host = 3;
  limits.max_query_variants_per_path = 1;
  TrapGuard guard(limits);
  // Refused by other rules: not counted for the host.
  for (int i = 0; i < 5; ++i) {
    CHECK(verdict(guard, "http://example.com/" + std::string(40, static_cast<char>('a' + i))) == "max_url_length");
    CHECK(verdict(guard, "http://example.com/z/z/z/z/" + std::to_string(i)) ==
          "max_repeated_path_segments");
  }
  CHECK(verdict(guard, "http://example.com/p?a") == "");
  CHECK(verdict(guard, "http://example.com/p?b") == "max_query_variants_per_path");
  CHECK(verdict(guard, "http://example.com/q") == "");
  CHECK(verdict(guard, "http://example.com/r") == "");
  CHECK(verdict(guard, "http://example.com/s?a") == "max_pages_per_host");
}

TEST_CASE("TrapGuard: the first rule that refuses is reported", "[traps]") {
  TrapGuard::Limits limits;
  limits.max_url_length = 40;
  limits.max_pages_per_host = 1;
  limits.max_query_variants_per_path = 1;
  TrapGuard guard(limits);
  CHECK(verdict(guard, "http://example.com/c?d=1") == "");
  CHECK(verdict(guard, "http://example.com/c/c/c/c?d=2") == "max_repeated_path_segments");
  CHECK(verdict(guard, "http://example.com/c/c/c/c/c/c/c/c/c/c/c/c?d=2") == "max_url_length");
  CHECK(verdict(guard, "http://example.com/c?d=2") == "max_pages_per_host");
}

TEST_CASE("TrapGuard: remember counts without checks", "[traps]") {
  TrapGuard::Limits limits;
  limits.max_url_length = 40;
  limits.max_pages_per_host = 2;
  TrapGuard guard(limits);
  // Not checked: a URL the rules would refuse still counts.
  guard.remember(url_of("http://example.com/" + std::string(100, 'a')));
  guard.remember(url_of("http://example.com/a/a/a/a/a/"));
  guard.remember(url_of("http://example.com/third"));  // over the limit: allowed here
  CHECK(verdict(guard, "http://example.com/new") == "max_pages_per_host");
  CHECK(verdict(guard, "http://other.example/new") == "");

  TrapGuard calendar(TrapGuard::Limits{});
  for (int day = 0; day < 100; ++day) calendar.remember(url_of(calendar_url(day)));
  CHECK(verdict(calendar, calendar_url(100)) == "max_query_variants_per_path");
  CHECK(verdict(calendar, "http://example.com/calendar") == "");

  TrapGuard partly(TrapGuard::Limits{});
  for (int day = 0; day < 60; ++day) partly.remember(url_of(calendar_url(day)));
  int admitted = 0;
  for (int day = 0; day < 200; ++day) admitted += !partly.admit(url_of(calendar_url(60 + day)));
  CHECK(admitted == 40);
}

}  // namespace actorcrawl
