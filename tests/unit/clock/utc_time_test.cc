#include "core/clock/utc_time.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <ctime>
#include <limits>

using namespace actorcrawl;

TEST_CASE("iso8601_utc_ms: metrics.log's and WARC-Date's form", "[utc_time]") {
  CHECK(iso8601_utc_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(iso8601_utc_ms(1) == "1970-01-01T00:00:00.001Z");
  CHECK(iso8601_utc_ms(999) == "1970-01-01T00:00:00.999Z");
  CHECK(iso8601_utc_ms(1000) == "1970-01-01T00:00:01.000Z");
  CHECK(iso8601_utc_ms(1737021600123) == "2025-01-16T10:00:00.123Z");
  CHECK(iso8601_utc_ms(951825600000) == "2000-02-29T12:00:00.000Z");  // leap day
  CHECK(iso8601_utc_ms(1704067199999) == "2023-12-31T23:59:59.999Z");
  CHECK(iso8601_utc_ms(1704067200000) == "2024-01-01T00:00:00.000Z");
  // Before the epoch the milliseconds still count forward within the second.
  CHECK(iso8601_utc_ms(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(iso8601_utc_ms(-1000) == "1969-12-31T23:59:59.000Z");
  CHECK(iso8601_utc_ms(-1500) == "1969-12-31T23:59:58.500Z");
}

TEST_CASE("iso8601_utc_us: the trace's form", "[utc_time]") {
  constexpr std::int64_t kT0 = 1795381200000000;  // 2026-11-22T21:00:00Z
  CHECK(iso8601_utc_us(kT0) == "2026-11-22T21:00:00.000000Z");
  CHECK(iso8601_utc_us(kT0 + 123456) == "2026-11-22T21:00:00.123456Z");
  CHECK(iso8601_utc_us(-1) == "1969-12-31T23:59:59.999999Z");
  // The extremes of the count: computed, never an overflow.
  CHECK(iso8601_utc_us(std::numeric_limits<std::int64_t>::max()) == "294247-01-10T04:00:54.775807Z");
  CHECK(iso8601_utc_us(std::numeric_limits<std::int64_t>::min()) == "-290308-12-21T19:59:05.224192Z");
}

TEST_CASE("iso8601_utc_seconds: a database lock holder's start", "[utc_time]") {
  CHECK(iso8601_utc_seconds(0) == "1970-01-01T00:00:00Z");
  CHECK(iso8601_utc_seconds(1795381200) == "2026-11-22T21:00:00Z");
  CHECK(iso8601_utc_seconds(-1) == "1969-12-31T23:59:59Z");
}

TEST_CASE("utc_digits: a WARC file name's stamp", "[utc_time]") {
  CHECK(utc_digits(0) == "19700101000000");
  CHECK(utc_digits(1795381200) == "20261122210000");
  CHECK(utc_digits(951825600) == "20000229120000");
}

TEST_CASE("the calendar agrees with gmtime over four centuries", "[utc_time]") {
  // Every 7 days and 13 hours, from 1800 to 2200: leap years, centuries
  // and the year 2000 included.
  for (std::int64_t s = -5364662400; s < 7258118400; s += 7 * 86400 + 13 * 3600 + 17) {
    const std::time_t t = static_cast<std::time_t>(s);
    std::tm tm{};
    REQUIRE(gmtime_r(&t, &tm) != nullptr);
    const UtcTime u = utc_time_of(s);
    REQUIRE(u.year == tm.tm_year + 1900);
    REQUIRE(u.month == static_cast<unsigned>(tm.tm_mon + 1));
    REQUIRE(u.day == static_cast<unsigned>(tm.tm_mday));
    REQUIRE(u.hour == static_cast<unsigned>(tm.tm_hour));
    REQUIRE(u.minute == static_cast<unsigned>(tm.tm_min));
    REQUIRE(u.second == static_cast<unsigned>(tm.tm_sec));
    REQUIRE(epoch_seconds_of(u) == s);
  }
}

TEST_CASE("days_in_month: leap years by the Gregorian rule", "[utc_time]") {
  CHECK(days_in_month(2024, 2) == 29);
  CHECK(days_in_month(2023, 2) == 28);
  CHECK(days_in_month(1900, 2) == 28);
  CHECK(days_in_month(2000, 2) == 29);
  CHECK(days_in_month(2026, 4) == 30);
  CHECK(days_in_month(2026, 12) == 31);
}
