#include "core/fetch/http_date.h"

#include <catch2/catch.hpp>
#include <string>

using namespace actorcrawl;

namespace {
constexpr std::int64_t kRfcExampleMs = 784111777000;  // 1994-11-06T08:49:37Z, RFC 9110's example
}

TEST_CASE("http date: the three forms a recipient must accept", "[fetch][http_date]") {
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == kRfcExampleMs);
  CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == kRfcExampleMs);
  CHECK(parse_http_date("Sun Nov  6 08:49:37 1994") == kRfcExampleMs);
  CHECK(parse_http_date("Wed Nov 16 08:49:37 1994") == kRfcExampleMs + 10LL * 86400 * 1000);
  // Surrounding whitespace is the header's, not the date's.
  CHECK(parse_http_date("  Sun, 06 Nov 1994 08:49:37 GMT\t") == kRfcExampleMs);
  // RFC 850's two-digit year: 00-69 is this century.
  CHECK(parse_http_date("Thursday, 01-Jan-70 00:00:00 GMT") == 0);
  CHECK(parse_http_date("Saturday, 01-Jan-00 00:00:00 GMT") == 946684800000);
  CHECK(parse_http_date("Friday, 31-Dec-69 23:59:59 GMT") == 3155759999000);
  // The day name is not checked against the date (a wrong one is a
  // server's slip, not a different time).
  CHECK(parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT") == kRfcExampleMs);
}

TEST_CASE("http date: calendar edges", "[fetch][http_date]") {
  CHECK(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT") == 0);
  CHECK(parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT") == 1709208000000);
  CHECK(parse_http_date("Tue, 29 Feb 2000 00:00:00 GMT") == 951782400000);
  CHECK(parse_http_date("Fri, 31 Dec 9999 23:59:59 GMT") == 253402300799000);
  // A leap second is the next second.
  CHECK(parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT") == 1483228800000);
  CHECK(parse_http_date("Wed, 29 Feb 2023 00:00:00 GMT") == -1);
  CHECK(parse_http_date("Mon, 29 Feb 2100 00:00:00 GMT") == -1);
  CHECK(parse_http_date("Sun, 31 Nov 1994 08:49:37 GMT") == -1);
  CHECK(parse_http_date("Sun, 00 Nov 1994 08:49:37 GMT") == -1);
  CHECK(parse_http_date("Sun, 06 Nov 1994 24:00:00 GMT") == -1);
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:60:00 GMT") == -1);
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:61 GMT") == -1);
  // Before 1970 is no time a web server means.
  CHECK(parse_http_date("Wed, 31 Dec 1969 23:59:59 GMT") == -1);
}

TEST_CASE("http date: anything else is no date", "[fetch][http_date]") {
  for (const char* text : {
           "",
           "   ",
           "yesterday",
           "2015",
           "1994-11-06T08:49:37Z",              // ISO 8601 is a sitemap's, not HTTP's
           "Sun, 06 Nov 1994 08:49:37 +0000",   // only GMT
           "Sun, 06 Nov 1994 08:49:37 UTC",
           "Sun, 06 Nov 1994 08:49:37",         // no zone
           "Sun, 6 Nov 1994 08:49:37 GMT",      // IMF-fixdate's day has two digits
           "sun, 06 nov 1994 08:49:37 gmt",     // the names are case-sensitive
           "Sun, 06 Nov 94 08:49:37 GMT",
           "Sun, 06 Nov 1994 8:49:37 GMT",
           "Sun,  06 Nov 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 08:49:37 GMT junk",
           "Sunday, 06-Nov-1994 08:49:37 GMT",
           "Sun, 06-Nov-94 08:49:37 GMT",       // RFC 850 wants the long day name
           "Sun Nov 6 08:49:37 1994",           // asctime pads a one-digit day with a space
           "Sun Nov  6 08:49:37 1994 GMT",
           "Xyz, 06 Nov 1994 08:49:37 GMT",
           "Sun, 06 Foo 1994 08:49:37 GMT",
       }) {
    INFO(text);
    CHECK(parse_http_date(text) == -1);
  }
}

TEST_CASE("http date: IMF-fixdate out, the same instant back in", "[fetch][http_date]") {
  CHECK(format_http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT");
  CHECK(format_http_date(kRfcExampleMs) == "Sun, 06 Nov 1994 08:49:37 GMT");
  // Milliseconds are dropped, not rounded.
  CHECK(format_http_date(kRfcExampleMs + 999) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(format_http_date(1709208000000) == "Thu, 29 Feb 2024 12:00:00 GMT");
  CHECK(format_http_date(253402300799000) == "Fri, 31 Dec 9999 23:59:59 GMT");
  CHECK(format_http_date(-1) == "");
  CHECK(format_http_date(253402300800000) == "");  // year 10000
  // Every weekday and month, across leap years and centuries.
  for (std::int64_t ms = 0; ms < 4102444800000; ms += 86400000LL * 37 + 3723001) {
    const std::string text = format_http_date(ms);
    INFO(ms << " " << text);
    CHECK(parse_http_date(text) == ms - ms % 1000);
  }
}
