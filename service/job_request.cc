#include "service/job_request.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

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

std::int64_t integer_value(const json& v, const char* name, std::int64_t min, std::int64_t max) {
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

// The fields a job body may carry besides url and max_pages. Each is the
// config key of its name, and its value is checked as the key's kind,
// range and choices say (config_keys()); the job's own bounds are narrower:
// a maximum from the service's limits, how many entries a list may hold and
// how long each may be. Validating against the one table means a job field
// cannot drift from the key it sets.
struct JobField {
  const char* name;
  std::int64_t JobLimits::*max = nullptr;  // numbers: the job's maximum (else the key's)
  std::size_t max_entries = 0;             // lists
  std::size_t max_entry_bytes = 0;         // lists; 0: bounded by the body alone
  const char* entries = "";                // lists: what the entries are, for messages
  bool urls = false;                       // lists: http(s) URLs, normalized
  bool names = false;                      // lists: host names, so never empty
};
constexpr std::size_t kMaxHostName = 253;
const JobField kJobFields[] = {
  {"max_depth", &JobLimits::max_depth},
  {"profile"},
  {"scope"},
  {"politeness_delay_ms", &JobLimits::max_politeness_delay_ms},
  {"allowed_domains", nullptr, 1000, kMaxHostName, "host names", false, true},
  {"respect_robots_txt"},
  {"sitemaps"},
  {"sitemap_urls", nullptr, 100, 0, "http(s) URLs", true},
  {"extract"},
  {"follow_patterns", nullptr, 100, 4096, "RE2 patterns"},
  {"exclude_patterns", nullptr, 100, 4096, "RE2 patterns"},
  // The requests a site requires (job_request_key_names()): where the
  // operator allows them. Their values are never quoted back (secrets), and
  // their own checks (RequestRules, the cookies' lines, the proxy URL) are
  // the crawl's, run by check_crawl() before the job is accepted.
  {"headers", nullptr, 100, 0, "entries, as the config's"},
  {"auth", nullptr, 100, 0, "entries, as the config's"},
  {"cookies"},
  {"proxy"},
};

// The job's "cookies" is not the config key of its name (a switch) but the
// text of a cookies.txt, which turns the jar on (job_config).
constexpr std::string_view kCookies = "cookies";

bool is_request_key(std::string_view name) {
  const auto& keys = job_request_key_names();
  return std::find(keys.begin(), keys.end(), name) != keys.end();
}

std::string known_fields() {
  std::string out = "url, max_pages";
  for (const auto& f : kJobFields)
    if (!is_request_key(f.name))
      out.append(", ").append(f.name);
  out += ";";
  const char* separator = " ";
  for (const auto& name : job_request_key_names()) {
    out.append(separator).append(name);
    separator = ", ";
  }
  return out + " where the service allows them";
}

std::string in_quotes(std::string_view name) { return "'" + std::string{name} + "'"; }

std::vector<std::string> list_value(const json& v, const JobField& field, const ConfigKey& key) {
  const auto wrong_type = [&] {
    return bad("invalid_type", in_quotes(field.name) + " must be an array of " + field.entries);
  };
  if (!v.is_array())
    throw wrong_type();
  if (v.size() > field.max_entries)
    throw bad("out_of_range", in_quotes(field.name) + " may hold at most " + std::to_string(field.max_entries) + " " +
                                field.entries);
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (field.urls) {
      out.push_back(crawlable_url(e, field.name));
      continue;
    }
    if (e.is_object() && key.object_items) {
      out.push_back(json_text(e));
      continue;
    }
    // Other entries' own checks (an empty header line, a pattern) are the
    // crawl's: check_crawl() names the entry.
    if (!e.is_string() || (field.names && e.get_ref<const std::string&>().empty()))
      throw wrong_type();
    if (field.max_entry_bytes != 0 && e.get_ref<const std::string&>().size() > field.max_entry_bytes)
      throw bad("out_of_range", in_quotes(field.name) + " entries may be at most " +
                                  std::to_string(field.max_entry_bytes) + " bytes");
    out.push_back(e.get<std::string>());
  }
  return out;
}

// A field's value, checked as its config key's kind says. nullopt: a value
// that stands for no field (an empty list of extraction rules).
std::optional<JobValue> field_value(const json& v, const JobField& field, const JobLimits& limits) {
  if (field.name == kCookies) {
    if (!v.is_string())
      throw bad("invalid_type", "'cookies' must be a string (a Netscape cookies.txt's text)");
    return v.get<std::string>();
  }
  const ConfigKey& key = *find_config_key(field.name);
  switch (key.kind) {
    case ValueKind::integer:
    case ValueKind::duration_ms:
    case ValueKind::bytes:
      return integer_value(v, field.name, key.min, field.max ? limits.*field.max : key.max);
    case ValueKind::boolean:
      if (!v.is_boolean())
        throw bad("invalid_type", in_quotes(field.name) + " must be true or false");
      return v.get<bool>();
    case ValueKind::text: {
      if (!v.is_string())
        throw bad("invalid_type", in_quotes(field.name) + " must be a string");
      const auto text = v.get<std::string>();
      if (!key.choices.empty() && std::find(key.choices.begin(), key.choices.end(), text) == key.choices.end()) {
        std::string choices;
        for (const auto& c : key.choices)
          choices += (choices.empty() ? "\"" : ", \"") + c + "\"";
        throw bad("out_of_range", in_quotes(field.name) + " must be one of " + choices + ", got '" +
                                    clip_for_message(text, 50) + "'");
      }
      return text;
    }
    case ValueKind::text_list:
      return list_value(v, field, key);
    case ValueKind::structured:
      // The rules' own checks (selectors, patterns, options) are the
      // crawl's: check_crawl() runs them before the job is accepted.
      if (!v.is_array())
        throw bad("invalid_type", in_quotes(field.name) + " must be an array of rules ({name, urls, fields}, as in the config)");
      if (v.empty())
        return std::nullopt;
      return json_text(v);
  }
  return std::nullopt;
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
  for (const auto& item : doc.items()) {
    const std::string& name = item.key();
    if (is_request_key(name) &&
        std::find(limits.request_keys.begin(), limits.request_keys.end(), name) == limits.request_keys.end())
      throw ApiError(403, "not_allowed",
                     in_quotes(name) + " is not allowed in a job by this service (its operator allows it with "
                                    "service_job_request_keys)");
    const bool known = name == "url" || name == "max_pages" ||
                       std::any_of(std::begin(kJobFields), std::end(kJobFields),
                                   [&](const JobField& f) { return name == f.name; });
    if (!known)
      throw bad("unknown_field", "unknown field '" + clip_for_message(name, 100) + "' (known: " + known_fields() + ")");
  }
  if (!doc.contains("url"))
    throw bad("missing_field", "'url' is required");
  JobRequest r;
  r.url = crawlable_url(doc.at("url"), "url");
  if (doc.contains("max_pages"))
    r.max_pages = integer_value(doc.at("max_pages"), "max_pages", find_config_key("max_pages")->min, limits.max_pages);
  for (const auto& field : kJobFields)
    if (doc.contains(field.name))
      if (auto value = field_value(doc.at(field.name), field, limits))
        r.fields.emplace(field.name, std::move(*value));
  const bool* sitemaps = r.field<bool>("sitemaps");
  const auto* sitemap_urls = r.field<std::vector<std::string>>("sitemap_urls");
  if (sitemaps && !*sitemaps && sitemap_urls && !sitemap_urls->empty())
    throw bad("out_of_range", "'sitemap_urls' names sitemaps to read, and 'sitemaps' is false");
  return r;
}

std::string to_json(const JobRequest& r) {
  json j{{"url", r.url}, {"max_pages", r.max_pages}};
  for (const auto& field : kJobFields) {
    const auto it = r.fields.find(field.name);
    if (it == r.fields.end())
      continue;
    const ConfigKey* key = field.name == kCookies ? nullptr : find_config_key(field.name);
    std::visit(
      [&](const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          json list = json::array();
          for (const auto& e : value)
            list.push_back(key->object_items && !e.empty() && e.front() == '{' ? json::parse(e, nullptr, false)
                                                                               : json(e));
          j[field.name] = std::move(list);
        } else if constexpr (std::is_same_v<T, std::string>) {
          j[field.name] = key && key->kind == ValueKind::structured ? json::parse(value, nullptr, false) : json(value);
        } else {
          j[field.name] = value;
        }
      },
      it->second);
  }
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
  c.seeds = {r.url};
  c.max_pages = r.max_pages;
  for (const auto& [name, value] : r.fields) {
    if (name == kCookies) {
      c.cookies_text = std::get<std::string>(value);
      c.cookies = true;
      continue;
    }
    // The value has the type of the key's member (parse_job_request).
    std::visit(
      [&c](auto member, const auto& v) {
        using Member = std::decay_t<decltype(c.*member)>;
        if constexpr (std::is_same_v<Member, std::decay_t<decltype(v)>>)
          c.*member = v;
      },
      find_config_key(name)->member, value);
    c.given[name] = "job field '" + name + "'";
  }
  return c;
}

}  // namespace actorcrawl
