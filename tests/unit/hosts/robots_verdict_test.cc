#include "core/hosts/robots_verdict.h"

#include <catch2/catch.hpp>

namespace actorcrawl {
namespace {

RobotsAnswer answer(std::int32_t status, std::string body = {}, std::string error = {}) {
  return RobotsAnswer{"a.test", "http://a.test/robots.txt", status, std::move(body), std::move(error)};
}

}  // namespace

TEST_CASE("a 2xx robots.txt is parsed and recorded with its delay and sitemaps", "[robots_verdict]") {
  const auto v = judge_robots(
    answer(200, "User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: http://a.test/s.xml\n"), "actorcrawl", 42);
  REQUIRE(v.rules);
  CHECK_FALSE(v.rules->allowed("/private/x"));
  CHECK(v.rules->allowed("/public"));
  CHECK(v.final_reason.empty());
  CHECK(v.record.host_key == "a.test");
  CHECK(v.record.outcome == "parsed");
  CHECK(v.record.crawl_delay_ms == 2000);
  CHECK(v.record.sitemaps == std::vector<std::string>{"http://a.test/s.xml"});
  CHECK(v.record.fetched_at_ms == 42);
}

TEST_CASE("a 4xx robots.txt allows everything", "[robots_verdict]") {
  for (int status : {400, 401, 403, 404, 410}) {
    const auto v = judge_robots(answer(status, "User-agent: *\nDisallow: /\n"), "actorcrawl", 0);
    REQUIRE(v.rules);
    CHECK(v.rules->allowed("/anything"));
    CHECK(v.record.outcome == "allow_all");
    CHECK(v.record.crawl_delay_ms == -1);
  }
}

TEST_CASE("5xx, 429 and no answer are unreachable: no rules, retried", "[robots_verdict]") {
  for (int status : {0, 429, 500, 503, 599}) {
    const auto v = judge_robots(answer(status, "User-agent: *\nAllow: /\n", status == 0 ? "timeout" : ""), "ac", 0);
    CHECK_FALSE(v.rules);
    CHECK(v.final_reason.empty());
    CHECK(v.record.outcome == "unreachable");
    CHECK(v.record.status_code == status);
  }
}

TEST_CASE("a name that does not resolve or a definite failure ends the robots.txt retries at once",
          "[robots_verdict]") {
  CHECK(judge_robots(answer(0, "", "dns_failure"), "ac", 0).final_reason == "dns_failure");
  CHECK(judge_robots(answer(0, "", "private_address"), "ac", 0).final_reason == "private_address");
  CHECK(judge_robots(answer(0, "", "tls_error"), "ac", 0).final_reason == "tls_error");
  CHECK(judge_robots(answer(0, "", "protocol_error"), "ac", 0).final_reason == "protocol_error");
  // These may clear within seconds: tried again first.
  CHECK(judge_robots(answer(0, "", "connect_failed"), "ac", 0).final_reason.empty());
  CHECK(judge_robots(answer(0, "", "timeout"), "ac", 0).final_reason.empty());
  CHECK(judge_robots(answer(503, "", ""), "ac", 0).final_reason.empty());
}

TEST_CASE("outcome names", "[robots_verdict]") {
  CHECK(std::string{robots_outcome_name(nullptr)} == "unreachable");
  const auto none = RobotsRules::disallow_all();
  CHECK(std::string{robots_outcome_name(&none)} == "disallow_all");
}

TEST_CASE("robots.txt whose redirects lead nowhere is unavailable: everything allowed", "[robots_verdict]") {
  // RFC 9309 2.3.1.2: past five redirects robots.txt may be assumed
  // unavailable; a loop and a Location that is no URL end the same way.
  // Never a refusal of the whole host.
  for (const char* error : {"redirect_loop", "too_many_redirects", "bad_redirect"}) {
    INFO(error);
    const auto v = judge_robots(answer(302, {}, error), "actorcrawl", 7);
    REQUIRE(v.rules);
    CHECK(v.rules->allowed("/anything"));
    CHECK(v.final_reason.empty());
    CHECK(v.unavailable_because == error);
    CHECK(v.record.outcome == "allow_all");
    CHECK(v.record.fetched_at_ms == 7);
  }
  const auto refused = judge_robots(answer(0, {}, "private_address"), "actorcrawl", 0);
  CHECK(refused.unavailable_because.empty());
  CHECK(refused.final_reason == "private_address");
}

}  // namespace actorcrawl
