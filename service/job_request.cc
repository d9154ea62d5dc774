#include "service/job_request.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/crawl/crawl_profile.h"
#include "core/page/crawl_scope.h"
#include "core/web/json_guard.h"
#include "core/web/url.h"
#include "core/web/json_text.h"
#include "service/request_policy.h"

namespace actorcrawl {

std::string ApiError::json() const {
  // Messages quote what the client sent, which may be any bytes: invalid
  // UTF-8 becomes U+FFFD instead of an exception out of an error path.
  return json_text(nlohmann::json{{"error", {{"code", code_}, {"message", message_}}}});
}

namespace {

// Ordered: a rule's fields keep the order the client wrote them in, which
// is the order of an item's keys and of its CSV columns.
using json = nlohmann::ordered_json;

ApiError bad(const std::string& code, const std::string& message) { return ApiError(400, code, message); }

std::int64_t integer_field(const json& body, const char* name, std::int64_t min, std::int64_t max) {
  const json& v = body.at(name);
  if (!v.is_number_integer())
    throw bad("invalid_type", std::string{"'"} + name + "' must be an integer");
  // Past 2^63 - 1 the number is unsigned to the parser, and would read as
  // negative: it is above every maximum, and named as the client wrote it.
  const bool too_large =
    v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const auto n = too_large ? std::numeric_limits<std::int64_t>::max() : v.get<std::int64_t>();
  if (n < min || n > max)
    throw bad("out_of_range", std::string{"'"} + name + "' must be between " + std::to_string(min) + " and " +
                                std::to_string(max) + ", got " + v.dump());
  return n;
}

std::string crawlable_url(const json& v, const char* name) {
  if (!v.is_string())
    throw bad("invalid_type", std::string{"'"} + name + "' must be a string");
  const auto text = v.get<std::string>();
  UrlError why = UrlError::none;
  auto url = Url::parse(text, &why);
  if (!url)
    throw bad("invalid_url", std::string{"'"} + name + "' is not an http(s) URL: '" + clip_for_message(text, 200) +
                               "' (" + to_string(why) + ")");
  return url->str();
}

// An array of at most `max` strings of at most `max_bytes` each.
std::vector<std::string> string_list(const json& v, const char* name, std::size_t max, std::size_t max_bytes,
                                     const char* what) {
  if (!v.is_array())
    throw bad("invalid_type", std::string{"'"} + name + "' must be an array of " + what);
  if (v.size() > max)
    throw bad("out_of_range", std::string{"'"} + name + "' may hold at most " + std::to_string(max) + " " + what);
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string())
      throw bad("invalid_type", std::string{"'"} + name + "' must be an array of " + what);
    if (e.get_ref<const std::string&>().size() > max_bytes)
      throw bad("out_of_range", std::string{"'"} + name + "' entries may be at most " + std::to_string(max_bytes) +
                                  " bytes");
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

JobRequest parse_job_request(std::string_view body, const JobLimits& limits) {
  // Before anything recurses or looks keys up (json_guard.h).
  if (const std::string problem = json_shape_problem(body); !problem.empty())
    throw bad("invalid_body", "the body's JSON is " + problem);
  json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded())
    throw bad("malformed_json", "the body is not valid JSON");
  if (!doc.is_object())
    throw bad("invalid_body", "the body must be a JSON object");
  static const char* const known[] = {"url", "max_pages", "max_depth", "profile", "scope", "politeness_delay_ms",
                                      "allowed_domains", "respect_robots_txt", "sitemaps", "sitemap_urls",
                                      "extract", "follow_patterns", "exclude_patterns"};
  const auto& secret_keys = job_request_key_names();
  for (const auto& item : doc.items()) {
    bool ok = false;
    for (const char* k : known)
      ok = ok || item.key() == k;
    const bool secret = std::find(secret_keys.begin(), secret_keys.end(), item.key()) != secret_keys.end();
    if (secret && std::find(limits.request_keys.begin(), limits.request_keys.end(), item.key()) ==
                    limits.request_keys.end())
      throw ApiError(403, "not_allowed",
                     "'" + item.key() + "' is not allowed in a job by this service (its operator allows it with "
                     "service_job_request_keys)");
    if (!ok && !secret)
      throw bad("unknown_field", "unknown field '" + clip_for_message(item.key(), 100) +
                                   "' (known: url, max_pages, max_depth, profile, scope, "
                                   "politeness_delay_ms, allowed_domains, respect_robots_txt, sitemaps, "
                                   "sitemap_urls, extract, follow_patterns, exclude_patterns; headers, auth, "
                                   "cookies, proxy where the service allows them)");
  }
  if (!doc.contains("url"))
    throw bad("missing_field", "'url' is required");
  JobRequest r;
  r.url = crawlable_url(doc.at("url"), "url");
  if (doc.contains("max_pages"))
    r.max_pages = integer_field(doc, "max_pages", 1, limits.max_pages);
  if (doc.contains("max_depth"))
    r.max_depth = integer_field(doc, "max_depth", 0, limits.max_depth);
  if (doc.contains("politeness_delay_ms"))
    r.politeness_delay_ms = integer_field(doc, "politeness_delay_ms", 0, limits.max_politeness_delay_ms);
  if (doc.contains("profile")) {
    const json& v = doc.at("profile");
    if (!v.is_string())
      throw bad("invalid_type", "'profile' must be a string");
    const auto p = v.get<std::string>();
    if (!parse_crawl_profile(p))
      throw bad("out_of_range", "'profile' must be \"site\" or \"domains\", got '" + clip_for_message(p, 50) + "'");
    r.profile = p;
  }
  if (doc.contains("scope")) {
    const json& v = doc.at("scope");
    if (!v.is_string())
      throw bad("invalid_type", "'scope' must be a string");
    const auto scope = v.get<std::string>();
    if (!parse_crawl_scope(scope))
      throw bad("out_of_range",
                "'scope' must be \"domain\", \"host\" or \"any\", got '" + clip_for_message(scope, 50) + "'");
    r.scope = scope;
  }
  if (doc.contains("extract")) {
    // The rules' own checks (selectors, patterns, options) are the crawl's:
    // check_crawl() runs them before the job is accepted.
    const json& v = doc.at("extract");
    if (!v.is_array())
      throw bad("invalid_type", "'extract' must be an array of rules ({name, urls, fields}, as in the config)");
    if (!v.empty())
      r.extract = json_text(v);
  }
  if (doc.contains("respect_robots_txt")) {
    const json& v = doc.at("respect_robots_txt");
    if (!v.is_boolean())
      throw bad("invalid_type", "'respect_robots_txt' must be true or false");
    r.respect_robots_txt = v.get<bool>();
  }
  if (doc.contains("sitemaps")) {
    const json& v = doc.at("sitemaps");
    if (!v.is_boolean())
      throw bad("invalid_type", "'sitemaps' must be true or false");
    r.sitemaps = v.get<bool>();
  }
  if (doc.contains("sitemap_urls")) {
    const json& v = doc.at("sitemap_urls");
    if (!v.is_array())
      throw bad("invalid_type", "'sitemap_urls' must be an array of http(s) URLs");
    if (v.size() > 100)
      throw bad("out_of_range", "'sitemap_urls' may hold at most 100 URLs");
    std::vector<std::string> urls;
    for (const auto& u : v)
      urls.push_back(crawlable_url(u, "sitemap_urls"));
    if (r.sitemaps && !*r.sitemaps && !urls.empty())
      throw bad("out_of_range", "'sitemap_urls' names sitemaps to read, and 'sitemaps' is false");
    r.sitemap_urls = std::move(urls);
  }
  if (doc.contains("allowed_domains")) {
    const json& v = doc.at("allowed_domains");
    if (!v.is_array())
      throw bad("invalid_type", "'allowed_domains' must be an array of host names");
    std::vector<std::string> hosts;
    for (const auto& h : v) {
      if (!h.is_string() || h.get<std::string>().empty() || h.get<std::string>().size() > 253)
        throw bad("invalid_type", "'allowed_domains' must be an array of host names");
      hosts.push_back(h.get<std::string>());
    }
    if (hosts.size() > 1000)
      throw bad("out_of_range", "'allowed_domains' may hold at most 1000 names");
    r.allowed_domains = std::move(hosts);
  }
  for (const char* name : {"follow_patterns", "exclude_patterns"})
    if (doc.contains(name)) {
      // The patterns' own check (RE2) is the crawl's: check_crawl().
      auto patterns = string_list(doc.at(name), name, 100, 4096, "RE2 patterns");
      (std::string{name} == "follow_patterns" ? r.follow_patterns : r.exclude_patterns) = std::move(patterns);
    }
  // The request keys: their values are never quoted back (secrets), and
  // their own checks (RequestRules, the cookies' lines, the proxy URL) are
  // the crawl's, run by check_crawl() before the job is accepted.
  for (const char* name : {"headers", "auth"})
    if (doc.contains(name)) {
      const json& v = doc.at(name);
      if (!v.is_array() || v.size() > 100)
        throw bad("invalid_type", std::string{"'"} + name + "' must be an array of at most 100 entries, as the config's");
      std::vector<std::string> entries;
      for (const auto& e : v) {
        if (e.is_string())
          entries.push_back(e.get<std::string>());
        else if (e.is_object())
          entries.push_back(json_text(e));
        else
          throw bad("invalid_type", std::string{"'"} + name + "' entries must be strings or objects, as the config's");
      }
      (std::string{name} == "headers" ? r.headers : r.auth) = std::move(entries);
    }
  for (const char* name : {"cookies", "proxy"})
    if (doc.contains(name)) {
      const json& v = doc.at(name);
      if (!v.is_string())
        throw bad("invalid_type", std::string{"'"} + name + "' must be a string" +
                                    (std::string{name} == "cookies" ? " (a Netscape cookies.txt's text)" : ""));
      (std::string{name} == "cookies" ? r.cookies : r.proxy) = v.get<std::string>();
    }
  return r;
}

std::string to_json(const JobRequest& r) {
  json j{{"url", r.url}, {"max_pages", r.max_pages}};
  if (r.max_depth)
    j["max_depth"] = *r.max_depth;
  if (r.profile)
    j["profile"] = *r.profile;
  if (r.scope)
    j["scope"] = *r.scope;
  if (r.politeness_delay_ms)
    j["politeness_delay_ms"] = *r.politeness_delay_ms;
  if (r.allowed_domains)
    j["allowed_domains"] = *r.allowed_domains;
  if (r.respect_robots_txt)
    j["respect_robots_txt"] = *r.respect_robots_txt;
  if (r.sitemaps)
    j["sitemaps"] = *r.sitemaps;
  if (r.sitemap_urls)
    j["sitemap_urls"] = *r.sitemap_urls;
  if (r.extract)
    j["extract"] = json::parse(*r.extract);
  if (r.follow_patterns)
    j["follow_patterns"] = *r.follow_patterns;
  if (r.exclude_patterns)
    j["exclude_patterns"] = *r.exclude_patterns;
  for (const auto& [name, entries] : {std::pair{"headers", &r.headers}, std::pair{"auth", &r.auth}})
    if (*entries) {
      json list = json::array();
      for (const auto& e : **entries)
        list.push_back(!e.empty() && e.front() == '{' ? json::parse(e, nullptr, false) : json(e));
      j[name] = std::move(list);
    }
  if (r.cookies)
    j["cookies"] = *r.cookies;
  if (r.proxy)
    j["proxy"] = *r.proxy;
  return json_text(j);
}

JobRequest job_request_from_json(std::string_view text) {
  // Stored by to_json, so it parses under the widest limits.
  JobLimits any;
  any.max_pages = std::numeric_limits<std::int64_t>::max();
  any.max_depth = std::numeric_limits<std::int64_t>::max();
  any.max_politeness_delay_ms = std::numeric_limits<std::int64_t>::max();
  // Allowed when the job was accepted; the operator may have changed the
  // list since, and a resumed job is the job that was accepted.
  any.request_keys = job_request_key_names();
  return parse_job_request(text, any);
}

CrawlConfig job_config(const CrawlConfig& base, const JobRequest& r) {
  CrawlConfig c = base;
  // What the job asked for is what a profile may refuse to ignore; the
  // service's own keys serve jobs of either profile.
  // `sitemaps` set in the service's configuration stays set (its default
  // depends on the profile, so what was given must be known).
  const auto sitemaps_given = base.given.find("sitemaps");
  c.given.clear();
  if (sitemaps_given != base.given.end())
    c.given.insert(*sitemaps_given);
  const auto set = [&c](const char* key) { c.given[key] = std::string{"job field '"} + key + "'"; };
  c.seeds = {r.url};
  c.max_pages = r.max_pages;
  if (r.max_depth) {
    c.max_depth = *r.max_depth;
    set("max_depth");
  }
  if (r.profile) {
    c.profile = *r.profile;
    set("profile");
  }
  if (r.scope) {
    c.scope = *r.scope;
    set("scope");
  }
  if (r.politeness_delay_ms) {
    c.politeness_delay_ms = *r.politeness_delay_ms;
    set("politeness_delay_ms");
  }
  if (r.allowed_domains) {
    c.allowed_domains = *r.allowed_domains;
    set("allowed_domains");
  }
  if (r.respect_robots_txt) {
    c.respect_robots_txt = *r.respect_robots_txt;
    set("respect_robots_txt");
  }
  if (r.sitemaps) {
    c.sitemaps = *r.sitemaps;
    set("sitemaps");
  }
  if (r.sitemap_urls) {
    c.sitemap_urls = *r.sitemap_urls;
    set("sitemap_urls");
  }
  if (r.extract) {
    c.extract_rules = *r.extract;
    set("extract");
  }
  if (r.follow_patterns) {
    c.follow_patterns = *r.follow_patterns;
    set("follow_patterns");
  }
  if (r.exclude_patterns) {
    c.exclude_patterns = *r.exclude_patterns;
    set("exclude_patterns");
  }
  if (r.headers) {
    c.request_headers = *r.headers;
    set("headers");
  }
  if (r.auth) {
    c.auth = *r.auth;
    set("auth");
  }
  if (r.cookies) {
    c.cookies_text = *r.cookies;
    c.cookies = true;
  }
  if (r.proxy) {
    c.proxy = *r.proxy;
    set("proxy");
  }
  return c;
}

}  // namespace actorcrawl
