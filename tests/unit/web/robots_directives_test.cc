#include <catch2/catch.hpp>

#include "core/web/robots_directives.h"

using namespace actorcrawl;

namespace {

std::string directives(const char* header) {
  RobotsDirectives d;
  read_x_robots_tag(header, "actorcrawl", d);
  return d.text();
}

}  // namespace

TEST_CASE("X-Robots-Tag: bare directives apply to every crawler", "[robots_directives]") {
  CHECK(directives("noindex") == "noindex");
  CHECK(directives("nofollow") == "nofollow");
  CHECK(directives("noindex, nofollow") == "noindex,nofollow");
  CHECK(directives("NONE") == "noindex,nofollow");
  CHECK(directives("all") == "");
  CHECK(directives("") == "");
}

TEST_CASE("X-Robots-Tag: agent prefixes address one crawler until the next", "[robots_directives]") {
  CHECK(directives("googlebot: noindex") == "");
  CHECK(directives("googlebot: noindex, nofollow") == "");
  CHECK(directives("ActorCrawl: nofollow") == "nofollow");
  CHECK(directives("googlebot: noindex, actorcrawl: nofollow") == "nofollow");
  CHECK(directives("actorcrawl: noindex, otherbot: nofollow") == "noindex");
}

TEST_CASE("X-Robots-Tag: valued directives are not agents", "[robots_directives]") {
  CHECK(directives("max-snippet: 20, noindex") == "noindex");
  CHECK(directives("unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow") == "nofollow");
}
