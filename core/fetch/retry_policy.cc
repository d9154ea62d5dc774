#include "core/fetch/retry_policy.h"

#include <algorithm>

namespace actorcrawl {

namespace {

bool retryable(FetchError e) {
  switch (e) {
    case FetchError::connect_failed:
    case FetchError::timeout:
    case FetchError::connection_reset:
    case FetchError::transfer_failed:
      return true;
    default:
      return false;
  }
}

bool retryable_status(int status) { return status >= 500 || status == 429; }

}  // namespace

std::string RetryPolicy::failure_reason(const FetchOutcome& outcome) {
  if (outcome.error != FetchError::none)
    return to_string(outcome.error);
  return "http_" + std::to_string(outcome.status_code);
}

std::int64_t RetryPolicy::timeout_for(std::int32_t attempt) const {
  std::int64_t t = s_.request_timeout_ms;
  for (std::int32_t i = 1; i < attempt; ++i)
    t += t / 2;
  return t;
}

RetryDecision RetryPolicy::decide(const FetchOutcome& outcome, std::int32_t attempt) const {
  RetryDecision d;
  if (outcome.error == FetchError::none && !retryable_status(outcome.status_code))
    return d;  // fetched
  d.reason = failure_reason(outcome);
  const bool transient = outcome.error == FetchError::none || retryable(outcome.error);
  if (!transient || attempt > s_.retry_attempts) {
    d.verdict = FetchVerdict::failed;
    return d;
  }
  d.verdict = FetchVerdict::retry;
  std::int64_t backoff = s_.retry_delay_ms;
  for (std::int32_t i = 1; i < attempt && backoff < s_.max_retry_after_ms; ++i)
    backoff *= 2;
  backoff = std::max(backoff, s_.politeness_delay_ms);
  if (outcome.retry_after_ms >= 0)
    backoff = std::max(backoff, std::min(outcome.retry_after_ms, s_.max_retry_after_ms));
  d.delay = std::chrono::milliseconds{backoff};
  return d;
}

}  // namespace actorcrawl
