// How the answer to a robots.txt request is read (RFC 9309 section 2.3.1):
// a 2xx body is parsed; a 4xx, and redirects that cannot be followed to an
// answer (more than five, a loop, a Location that is no URL), make it
// "unavailable", which allows everything; a server error, a 429 or no
// answer at all is "unreachable": retried before it is believed. Some
// failures are final for the host (its name does not resolve, its address
// is private), so its URLs are refused at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/crawl/records.h"
#include "core/web/robots_txt.h"

namespace actorcrawl {

// What a robots.txt fetch brought back. status 0: no HTTP answer, and
// `error` names why (dns_failure, connect_failed, timeout, ...).
struct RobotsAnswer {
  std::string host_key;
  std::string url;
  std::int32_t status_code = 0;
  std::string body;
  std::string error;
};

struct RobotsVerdict {
  std::shared_ptr<const RobotsRules> rules;  // null: unreachable
  // Set: no retries now; the host's URLs are refused with this reason at
  // once (and parked by the Frontier when it is transient, as dns_failure).
  std::string final_reason;
  // Set: the file is unavailable because of this failure of its redirects
  // (redirect_loop, too_many_redirects, bad_redirect); `rules` allow all.
  std::string unavailable_because;
  RobotsRecord record;                       // for the robots_txt table
};

// `product_token` selects the group (product_token_of the User-Agent);
// `now_ms` stamps the record.
RobotsVerdict judge_robots(const RobotsAnswer& answer, const std::string& product_token, std::int64_t now_ms);

// "parsed", "allow_all", "disallow_all", or "unreachable" for no rules.
const char* robots_outcome_name(const RobotsRules* rules);

}  // namespace actorcrawl
