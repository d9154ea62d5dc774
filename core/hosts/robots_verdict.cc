#include "core/hosts/robots_verdict.h"

#include "core/crawl/transient_failure.h"

namespace actorcrawl {

const char* robots_outcome_name(const RobotsRules* rules) {
  if (rules == nullptr)
    return "unreachable";
  switch (rules->source()) {
    case RobotsRules::Source::parsed: return "parsed";
    case RobotsRules::Source::allow_all: return "allow_all";
    case RobotsRules::Source::disallow_all: return "disallow_all";
  }
  return "parsed";
}

RobotsVerdict judge_robots(const RobotsAnswer& a, const std::string& product_token, std::int64_t now_ms) {
  RobotsVerdict v;
  // RFC 9309 2.3.1.2: past five redirects robots.txt may be taken as
  // unavailable. A loop or a Location that cannot be followed ends the
  // same way, and neither clears on a retry.
  const bool redirects_failed =
    a.error == "redirect_loop" || a.error == "too_many_redirects" || a.error == "bad_redirect";
  const bool unreachable = a.status_code == 0 || a.status_code >= 500 || a.status_code == 429;
  if (redirects_failed) {
    v.unavailable_because = a.error;
    v.rules = std::make_shared<const RobotsRules>(RobotsRules::allow_all());
  } else if (!unreachable) {
    v.rules = std::make_shared<const RobotsRules>(RobotsRules::from_response(a.status_code, a.body, product_token));
  }
  v.record = RobotsRecord{a.host_key, a.url, a.status_code, robots_outcome_name(v.rules.get()), -1, {}, now_ms};
  if (v.rules) {
    v.record.crawl_delay_ms = v.rules->crawl_delay_ms().value_or(-1);
    v.record.sitemaps = v.rules->sitemaps();
  }
  // Retries seconds apart are for failures that may clear that fast. A name
  // that does not resolve will not resolve a second later (but may next
  // hour: dns_failure is transient, and its URLs are parked); a private
  // address, a certificate nobody trusts, broken HTTP are answers (final,
  // and its URLs are refused).
  if (!redirects_failed && !a.error.empty() && (a.error == "dns_failure" || !is_transient_failure(a.error)))
    v.final_reason = a.error;
  return v;
}

}  // namespace actorcrawl
