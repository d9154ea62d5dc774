#include "core/clock/utc_time.h"

#include <cstdio>

namespace actorcrawl {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date, and back
// (H. Hinnant's algorithms).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

// Floor division and its remainder, written so that no step can overflow:
// a time before 1970 still has a fraction in [0, unit).
void split(std::int64_t value, std::int64_t unit, std::int64_t& whole, std::int64_t& fraction) {
  whole = value / unit;
  fraction = value % unit;
  if (fraction < 0) {
    fraction += unit;
    --whole;
  }
}

// "YYYY-MM-DDTHH:MM:SS", then `fraction_digits` digits of `fraction` after a
// '.' (none: no '.'), then "Z".
std::string iso8601(std::int64_t epoch_seconds, std::int64_t fraction, int fraction_digits) {
  const UtcTime t = utc_time_of(epoch_seconds);
  char buffer[80];
  int n = std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02u:%02u:%02u", static_cast<long long>(t.year),
                        t.month, t.day, t.hour, t.minute, t.second);
  if (fraction_digits > 0)
    n += std::snprintf(buffer + n, sizeof buffer - static_cast<std::size_t>(n), ".%0*lld", fraction_digits,
                       static_cast<long long>(fraction));
  std::snprintf(buffer + n, sizeof buffer - static_cast<std::size_t>(n), "Z");
  return buffer;
}

}  // namespace

UtcTime utc_time_of(std::int64_t epoch_seconds) {
  std::int64_t days = 0, in_day = 0;
  split(epoch_seconds, 86400, days, in_day);
  UtcTime t;
  civil_from_days(days, t.year, t.month, t.day);
  t.hour = static_cast<unsigned>(in_day / 3600);
  t.minute = static_cast<unsigned>(in_day / 60 % 60);
  t.second = static_cast<unsigned>(in_day % 60);
  return t;
}

std::int64_t epoch_seconds_of(const UtcTime& t) {
  return days_from_civil(t.year, t.month, t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
}

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::string iso8601_utc_ms(std::int64_t epoch_ms) {
  std::int64_t seconds = 0, ms = 0;
  split(epoch_ms, 1000, seconds, ms);
  return iso8601(seconds, ms, 3);
}

std::string iso8601_utc_us(std::int64_t epoch_us) {
  std::int64_t seconds = 0, us = 0;
  split(epoch_us, 1'000'000, seconds, us);
  return iso8601(seconds, us, 6);
}

std::string iso8601_utc_seconds(std::int64_t epoch_seconds) { return iso8601(epoch_seconds, 0, 0); }

std::string utc_digits(std::int64_t epoch_seconds) {
  const UtcTime t = utc_time_of(epoch_seconds);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04lld%02u%02u%02u%02u%02u", static_cast<long long>(t.year), t.month, t.day,
                t.hour, t.minute, t.second);
  return buffer;
}

}  // namespace actorcrawl
