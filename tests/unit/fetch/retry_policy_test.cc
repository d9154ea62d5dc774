#include "core/fetch/retry_policy.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace actorcrawl {
namespace {

using ms = std::chrono::milliseconds;

RetryPolicy::Settings settings() {
  RetryPolicy::Settings s;
  s.retry_attempts = 3;
  s.retry_delay_ms = 1000;
  s.request_timeout_ms = 2000;
  s.politeness_delay_ms = 500;
  s.max_retry_after_ms = 30000;
  return s;
}

FetchOutcome status(int code, std::int64_t retry_after_ms = -1) {
  FetchOutcome o;
  o.status_code = code;
  o.retry_after_ms = retry_after_ms;
  return o;
}

FetchOutcome error(FetchError e) {
  FetchOutcome o;
  o.error = e;
  o.error_detail = "detail from curl";
  return o;
}

}  // namespace

TEST_CASE("RetryPolicy: any response below 500 but 429 is fetched", "[retry_policy]") {
  const RetryPolicy p(settings());
  for (int code : {200, 204, 301, 302, 304, 400, 403, 404, 410, 418, 499}) {
    INFO("status " << code);
    const RetryDecision d = p.decide(status(code), 1);
    CHECK(d.verdict == FetchVerdict::fetched);
    CHECK(d.delay == ms{0});
    CHECK(d.reason.empty());
  }
  // Even on the last attempt, and with a Retry-After header.
  const RetryDecision d = p.decide(status(404, 5000), 4);
  CHECK(d.verdict == FetchVerdict::fetched);
  CHECK(d.delay == ms{0});
}

TEST_CASE("RetryPolicy: 5xx and 429 are retried until the attempts run out", "[retry_policy]") {
  const RetryPolicy p(settings());
  for (int code : {500, 502, 503, 504, 429}) {
    INFO("status " << code);
    // retry_attempts = 3 tries after the first: attempts 1..3 retry.
    for (std::int32_t attempt = 1; attempt <= 3; ++attempt) {
      INFO("attempt " << attempt);
      const RetryDecision d = p.decide(status(code), attempt);
      CHECK(d.verdict == FetchVerdict::retry);
      CHECK(d.reason == "http_" + std::to_string(code));
    }
    const RetryDecision last = p.decide(status(code), 4);
    CHECK(last.verdict == FetchVerdict::failed);
    CHECK(last.reason == "http_" + std::to_string(code));
  }
  CHECK(p.decide(status(503), 4).reason == "http_503");
}

TEST_CASE("RetryPolicy: transient transport errors are retried, then fail with their name",
          "[retry_policy]") {
  const RetryPolicy p(settings());
  const std::pair<FetchError, const char*> cases[] = {
      {FetchError::connect_failed, "connect_failed"},
      {FetchError::timeout, "timeout"},
      {FetchError::connection_reset, "connection_reset"},
  };
  for (const auto& [e, name] : cases) {
    INFO(name);
    for (std::int32_t attempt = 1; attempt <= 3; ++attempt) {
      const RetryDecision d = p.decide(error(e), attempt);
      CHECK(d.verdict == FetchVerdict::retry);
      CHECK(d.reason == name);
    }
    const RetryDecision last = p.decide(error(e), 4);
    CHECK(last.verdict == FetchVerdict::failed);
    CHECK(last.reason == name);
    CHECK(last.delay == ms{0});
  }
}

TEST_CASE("RetryPolicy: permanent errors fail on the first attempt", "[retry_policy]") {
  const RetryPolicy p(settings());
  const std::pair<FetchError, const char*> cases[] = {
      {FetchError::dns_failure, "dns_failure"},
      {FetchError::redirect_loop, "redirect_loop"},
      {FetchError::too_many_redirects, "too_many_redirects"},
      {FetchError::bad_redirect, "bad_redirect"},
      {FetchError::tls_error, "tls_error"},
      {FetchError::bad_encoding, "bad_encoding"},
      // Broken HTTP (a bad chunk size, headers past curl's limit) is the
      // server's answer, final as docs/schema.md says: not retried.
      {FetchError::protocol_error, "protocol_error"},
  };
  for (const auto& [e, name] : cases) {
    INFO(name);
    const RetryDecision d = p.decide(error(e), 1);
    CHECK(d.verdict == FetchVerdict::failed);
    CHECK(d.reason == name);
    CHECK(d.delay == ms{0});
  }
}

TEST_CASE("RetryPolicy: a refused private address is final at once", "[retry_policy]") {
  const RetryPolicy p(settings());
  for (std::int32_t attempt = 1; attempt <= 4; ++attempt) {
    INFO("attempt " << attempt);
    const RetryDecision d = p.decide(error(FetchError::private_address), attempt);
    CHECK(d.verdict == FetchVerdict::failed);
    CHECK(d.reason == "private_address");
    CHECK(d.delay == ms{0});
  }
  CHECK(RetryPolicy::failure_reason(error(FetchError::private_address)) == "private_address");
}

TEST_CASE("RetryPolicy: with no retries configured the first failure is final",
          "[retry_policy]") {
  RetryPolicy::Settings s = settings();
  s.retry_attempts = 0;
  const RetryPolicy p(s);
  CHECK(p.decide(status(503), 1).verdict == FetchVerdict::failed);
  CHECK(p.decide(error(FetchError::timeout), 1).verdict == FetchVerdict::failed);
  CHECK(p.decide(status(200), 1).verdict == FetchVerdict::fetched);
}

TEST_CASE("RetryPolicy: backoff doubles with each attempt", "[retry_policy]") {
  RetryPolicy::Settings s = settings();
  s.retry_attempts = 5;
  const RetryPolicy p(s);
  CHECK(p.decide(status(503), 1).delay == ms{1000});
  CHECK(p.decide(status(503), 2).delay == ms{2000});
  CHECK(p.decide(status(503), 3).delay == ms{4000});
  CHECK(p.decide(status(503), 4).delay == ms{8000});
  CHECK(p.decide(error(FetchError::timeout), 5).delay == ms{16000});
}

TEST_CASE("RetryPolicy: backoff is never below the politeness delay", "[retry_policy]") {
  RetryPolicy::Settings s = settings();
  s.retry_attempts = 5;
  s.retry_delay_ms = 100;
  s.politeness_delay_ms = 500;
  const RetryPolicy p(s);
  CHECK(p.decide(status(500), 1).delay == ms{500});  // 100
  CHECK(p.decide(status(500), 2).delay == ms{500});  // 200
  CHECK(p.decide(status(500), 3).delay == ms{500});  // 400
  CHECK(p.decide(status(500), 4).delay == ms{800});
  CHECK(p.decide(error(FetchError::connect_failed), 1).delay == ms{500});
}

TEST_CASE("RetryPolicy: Retry-After is honoured up to the cap", "[retry_policy]") {
  const RetryPolicy p(settings());
  // Longer than the backoff: the server's word wins.
  CHECK(p.decide(status(503, 7000), 1).delay == ms{7000});
  CHECK(p.decide(status(429, 7000), 2).delay == ms{7000});
  // Shorter than the backoff: the backoff stands.
  CHECK(p.decide(status(503, 200), 1).delay == ms{1000});
  CHECK(p.decide(status(503, 0), 2).delay == ms{2000});
  // Absurd values are capped, so a hostile server cannot park a worker.
  CHECK(p.decide(status(503, 3600000), 1).delay == ms{30000});
  CHECK(p.decide(status(429, 30001), 1).delay == ms{30000});
  // The verdict and reason are unaffected.
  const RetryDecision d = p.decide(status(429, 3600000), 2);
  CHECK(d.verdict == FetchVerdict::retry);
  CHECK(d.reason == "http_429");
  // Once the attempts are used up there is no next attempt to delay.
  const RetryDecision last = p.decide(status(503, 7000), 4);
  CHECK(last.verdict == FetchVerdict::failed);
  CHECK(last.delay == ms{0});
}

TEST_CASE("RetryPolicy: the timeout grows 50% per attempt", "[retry_policy]") {
  const RetryPolicy p(settings());
  CHECK(p.timeout_for(1) == 2000);
  CHECK(p.timeout_for(2) == 3000);
  CHECK(p.timeout_for(3) == 4500);
  CHECK(p.timeout_for(4) == 6750);
}

TEST_CASE("RetryPolicy: failure_reason names", "[retry_policy]") {
  CHECK(RetryPolicy::failure_reason(status(503)) == "http_503");
  CHECK(RetryPolicy::failure_reason(status(429)) == "http_429");
  CHECK(RetryPolicy::failure_reason(error(FetchError::timeout)) == "timeout");
  CHECK(RetryPolicy::failure_reason(error(FetchError::dns_failure)) == "dns_failure");
  // A transport error wins over whatever status was seen before it.
  FetchOutcome both = error(FetchError::connection_reset);
  both.status_code = 200;
  CHECK(RetryPolicy::failure_reason(both) == "connection_reset");
}

}  // namespace actorcrawl
