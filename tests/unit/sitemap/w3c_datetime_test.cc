#include "core/sitemap/w3c_datetime.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("w3c datetime: the six forms", "[sitemap][lastmod]") {
  CHECK(parse_w3c_datetime("1997") == 852076800000);
  CHECK(parse_w3c_datetime("1997-07") == 867715200000);
  CHECK(parse_w3c_datetime("1997-07-16") == 869011200000);
  CHECK(parse_w3c_datetime("1997-07-16T19:20+01:00") == 869077200000);
  CHECK(parse_w3c_datetime("1997-07-16T19:20:30+01:00") == 869077230000);
  CHECK(parse_w3c_datetime("1997-07-16T19:20:30.45+01:00") == 869077230450);
  CHECK(parse_w3c_datetime("1997-07-16T18:20:30.45Z") == 869077230450);
  CHECK(parse_w3c_datetime("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_w3c_datetime("1969-12-31T23:59:59Z") == -1000);
}

TEST_CASE("w3c datetime: offsets, fractions and surrounding whitespace", "[sitemap][lastmod]") {
  CHECK(parse_w3c_datetime("2024-01-01T00:00:00-05:30") == parse_w3c_datetime("2024-01-01T05:30:00Z"));
  CHECK(parse_w3c_datetime("2024-01-01T00:00:00.123456789Z") == *parse_w3c_datetime("2024-01-01") + 123);
  CHECK(parse_w3c_datetime("  \n2024-01-01\t ") == parse_w3c_datetime("2024-01-01"));
  CHECK(parse_w3c_datetime("2024-02-29") == 1709164800000);  // a leap day
  CHECK(parse_w3c_datetime("2000-02-29"));
  CHECK(parse_w3c_datetime("2016-12-31T23:59:60Z") == parse_w3c_datetime("2016-12-31T23:59:59Z"));
  // Written often, meaning clear: no offset is UTC; +hhmm and +hh.
  CHECK(parse_w3c_datetime("2024-01-01T10:00:00") == parse_w3c_datetime("2024-01-01T10:00:00Z"));
  CHECK(parse_w3c_datetime("2024-01-01T10:00:00+0200") == parse_w3c_datetime("2024-01-01T08:00:00Z"));
  CHECK(parse_w3c_datetime("2024-01-01T10:00+02") == parse_w3c_datetime("2024-01-01T08:00Z"));
}

TEST_CASE("w3c datetime: what is not a date is refused", "[sitemap][lastmod]") {
  for (const char* bad : {"", "yesterday", "97", "1997-7", "1997-07-1", "1997-13", "1997-00", "1997-02-29",
                          "2100-02-29", "1997-04-31", "1997-07-16T24:00Z", "1997-07-16T19:60Z", "1997-07-16T19",
                          "1997-07-16 19:20Z", "1997-07-16T19:20:30.Z", "1997-07-16T19:20+15:00",
                          "1997-07-16T19:20+01:60", "1997-07-16T19:20+1", "1997-07-16Z", "1997-07-16x",
                          "Wed, 16 Jul 1997 19:20:30 GMT", "1997-07-16T19:20:30+01:00 junk", "+1997"}) {
    INFO(bad);
    CHECK_FALSE(parse_w3c_datetime(bad));
  }
}

}  // namespace actorcrawl
