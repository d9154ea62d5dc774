// A crawl job as the service's POST /crawl asks for it, validated.
//
// The body is a JSON object with "url" (required, http or https),
// "max_pages" and optional fields that are config keys of the same name,
// validated by the key's entry in the config key table (its kind, range and
// choices: core/config/config_keys.cc) within the job's own bounds
// (job_request.cc lists the fields and the bounds): "max_depth", "profile",
// "scope", "politeness_delay_ms", "allowed_domains" (at most 1000),
// "respect_robots_txt", "sitemaps", "sitemap_urls" (at most 100), "extract"
// (extraction rules, as the config's), "follow_patterns" and
// "exclude_patterns" (RE2, at most 100 each), and the requests the site
// requires where the service's operator allows them
// (service_job_request_keys): "headers", "auth" (as the config's keys),
// "cookies" (a Netscape cookies.txt's text) and "proxy". Anything else is
// refused: an unknown field is more often a typo than an extension, and a
// crawl started with a silently ignored limit is worse than no crawl.
//
// headers, auth, cookies and proxy are the job's secrets: kept in the job
// table (a job resumed after a restart sends them again), never in an API
// answer, the job's log, its database's exports or its trace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "service/api_error.h"
#include "core/config/crawl_config.h"

namespace actorcrawl {

// A job field's value as its config key holds it: a whole number (integer
// and duration keys, durations in ms), a boolean, a text (the extraction
// rules: their JSON text; cookies: a cookies.txt's text), a list of texts
// (an object entry of headers or auth: its JSON text).
using JobValue = std::variant<std::int64_t, bool, std::string, std::vector<std::string>>;

struct JobRequest {
  std::string url;  // normalized
  std::int64_t max_pages = 10;
  // The optional fields the body gave, by name. URLs are normalized; an
  // empty list of extraction rules is no field.
  std::map<std::string, JobValue> fields;

  // A field's value; nullptr when the body did not give it.
  template <class T>
  const T* field(const std::string& name) const {
    const auto it = fields.find(name);
    return it == fields.end() ? nullptr : std::get_if<T>(&it->second);
  }
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
