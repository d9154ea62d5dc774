// The W3C datetime profile of ISO 8601 (https://www.w3.org/TR/NOTE-datetime),
// the format of a sitemap's <lastmod>, read as Unix epoch milliseconds.
//
// Its six forms, each accepted:
//   YYYY                          1997
//   YYYY-MM                       1997-07
//   YYYY-MM-DD                    1997-07-16
//   YYYY-MM-DDThh:mmTZD           1997-07-16T19:20+01:00
//   YYYY-MM-DDThh:mm:ssTZD        1997-07-16T19:20:30+01:00
//   YYYY-MM-DDThh:mm:ss.sTZD      1997-07-16T19:20:30.45+01:00
// TZD is "Z" or +hh:mm / -hh:mm. A date without a time is its first
// millisecond in UTC (a month, its first day). Fractions of a second past
// the millisecond are truncated.
//
// Leniencies, because sitemap generators write them often and their meaning
// is not in doubt: a missing TZD after a time is UTC, and "+hhmm" and "+hh"
// are read as "+hh:mm". Anything else (a space for the "T", a day that does
// not exist in its month, an hour of 24, an offset past 14:00, text around
// the value other than whitespace) is refused, so that a page is never
// revisited on a misread date.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace actorcrawl {

// Milliseconds since 1970-01-01T00:00:00Z (negative before), or nothing
// when `text` (surrounding ASCII whitespace aside) is none of the forms.
std::optional<std::int64_t> parse_w3c_datetime(std::string_view text);

}  // namespace actorcrawl
