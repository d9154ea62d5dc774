// UTC times as text, one implementation for every place that writes one:
// metrics.log and WARC-Date (milliseconds), the message trace (microseconds),
// a database lock's holder (seconds), WARC file names (digits only). The
// calendar is computed, not asked of gmtime(), so it is the same for any
// time a 64-bit count can hold, before 1970 included.
#pragma once

#include <cstdint>
#include <string>

namespace actorcrawl {

// A proleptic Gregorian date and time of day in UTC.
struct UtcTime {
  std::int64_t year = 1970;
  unsigned month = 1;  // 1-12
  unsigned day = 1;    // 1-31
  unsigned hour = 0, minute = 0, second = 0;
};

// The UTC time `epoch_seconds` after 1970-01-01T00:00:00Z (negative: before).
UtcTime utc_time_of(std::int64_t epoch_seconds);
// Seconds since 1970-01-01T00:00:00Z of a valid date and time (day within
// its month: days_in_month).
std::int64_t epoch_seconds_of(const UtcTime& t);
unsigned days_in_month(std::int64_t year, unsigned month);

// "2025-01-16T10:00:00.123Z"
std::string iso8601_utc_ms(std::int64_t epoch_ms);
// "2026-11-22T21:00:00.123456Z"
std::string iso8601_utc_us(std::int64_t epoch_us);
// "2026-11-25T10:00:00Z"
std::string iso8601_utc_seconds(std::int64_t epoch_seconds);
// "20261125100000": sorts as the time does, and holds no character a file
// name would need quoted.
std::string utc_digits(std::int64_t epoch_seconds);

}  // namespace actorcrawl
