// A crawl job as the service's POST /crawl asks for it, validated.
//
// The body is a JSON object with "url" (required, http or https) and
// optional "max_pages", "max_depth", "profile", "scope",
// "politeness_delay_ms", "allowed_domains", "respect_robots_txt", "sitemaps",
// "sitemap_urls" (at most 100), "extract" (extraction rules, as the
// config's `extract`), "follow_patterns" and "exclude_patterns" (RE2, at
// most 100 each), and the requests the site requires where the service's
// operator allows them (service_job_request_keys): "headers", "auth" (as
// the config's keys), "cookies" (a Netscape cookies.txt's text) and
// "proxy". Anything else is refused: an unknown field is more often a typo
// than an extension, and a crawl started with a silently ignored limit is
// worse than no crawl.
//
// headers, auth, cookies and proxy are the job's secrets: kept in the job
// table (a job resumed after a restart sends them again), never in an API
// answer, the job's log, its database's exports or its trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api_error.h"
#include "core/config/crawl_config.h"

namespace actorcrawl {

struct JobRequest {
  std::string url;  // normalized
  std::int64_t max_pages = 10;
  std::optional<std::int64_t> max_depth;
  std::optional<std::string> profile;
  std::optional<std::string> scope;  // link_scope.h's CrawlScope names
  std::optional<std::int64_t> politeness_delay_ms;
  std::optional<std::vector<std::string>> allowed_domains;
  std::optional<bool> respect_robots_txt;
  std::optional<bool> sitemaps;
  std::optional<std::vector<std::string>> sitemap_urls;  // normalized
  std::optional<std::string> extract;  // the rules as JSON text (an array)
  std::optional<std::vector<std::string>> follow_patterns;
  std::optional<std::vector<std::string>> exclude_patterns;
  // Secrets (see above): entries as the config keys hold them (an object
  // entry as its JSON text), a cookies.txt's text, a proxy URL.
  std::optional<std::vector<std::string>> headers;
  std::optional<std::vector<std::string>> auth;
  std::optional<std::string> cookies;
  std::optional<std::string> proxy;
};


// The service's limits on what one job may ask for. The service sets
// max_pages from its configuration's max_pages_per_job, whose default is
// this one's.
struct JobLimits {
  std::int64_t max_pages = kDefaultMaxPagesPerJob;
  std::int64_t max_depth = 100;
  std::int64_t max_politeness_delay_ms = 60000;
  // Of job_request_key_names(): those a job body may carry (the operator's
  // service_job_request_keys); the others are refused with 403.
  std::vector<std::string> request_keys;
};

// Throws ApiError (400, with code malformed_json, invalid_body,
// unknown_field, invalid_type, missing_field, invalid_url or out_of_range;
// 403 not_allowed for a request key the operator did not allow).
JobRequest parse_job_request(std::string_view body, const JobLimits& limits = {});

// The request as JSON (for the job table), and back.
std::string to_json(const JobRequest& request);
JobRequest job_request_from_json(std::string_view json);

// The crawl configuration of a job: the service's base configuration with
// the request's fields over it, those fields alone in `given` (so a field
// the job's profile ignores is refused by check_crawl(), the function the
// crawl itself runs, before the job is accepted).
CrawlConfig job_config(const CrawlConfig& base, const JobRequest& request);

}  // namespace actorcrawl
