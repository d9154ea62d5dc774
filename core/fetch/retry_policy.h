// What a FetchWorker does with a finished transfer: keep it, try again, or
// give up and hand the URL to the dead letters.
//
//  - A response below 500 (other than 429) is a fetched page, whatever its
//    status: a 404 is a fact about the web worth recording, not a failure.
//  - Connection failures, timeouts, resets, 5xx and 429 are retried up to
//    `retry_attempts` times, waiting retry_delay_ms * 2^(n-1) (never less
//    than the politeness delay, and as long as Retry-After asks, up to a
//    cap), with the timeout 50% longer on each attempt.
//  - DNS failures, redirect loops, bad redirects, TLS and decoding errors,
//    and refused private addresses are final at once: trying again would
//    get the same answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "core/fetch/fetch_engine.h"

namespace actorcrawl {

enum class FetchVerdict { fetched, retry, failed };

struct RetryDecision {
  FetchVerdict verdict = FetchVerdict::fetched;
  std::chrono::milliseconds delay{0};  // before the next attempt
  std::string reason;                  // why it failed, for dead letters
};

class RetryPolicy {
 public:
  struct Settings {
    std::int32_t retry_attempts = 3;  // tries after the first
    std::int64_t retry_delay_ms = 5000;
    std::int64_t request_timeout_ms = 5000;
    std::int64_t politeness_delay_ms = 1000;
    std::int64_t max_retry_after_ms = 60000;
  };

  explicit RetryPolicy(Settings settings) : s_(settings) {}

  // `attempt` is the 1-based number of the try that produced `outcome`.
  RetryDecision decide(const FetchOutcome& outcome, std::int32_t attempt) const;
  // The timeout for the 1-based attempt.
  std::int64_t timeout_for(std::int32_t attempt) const;

  // The stable name of a failure: the FetchError's name, or "http_<code>".
  static std::string failure_reason(const FetchOutcome& outcome);

 private:
  Settings s_;
};

}  // namespace actorcrawl
