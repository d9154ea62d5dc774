#include "core/config/crawl_config.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "core/web/ascii.h"
#include "core/web/charset.h"
#include "core/web/json_guard.h"
#include "core/config/tls_files.h"
#include "core/web/url.h"
#include "core/web/json_text.h"
#include "core/web/ip_literal.h"

namespace actorcrawl {

namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kHour = 3600 * 1000;
// How deep a configuration's flow collections may nest ([...], {...}).
constexpr std::size_t kMaxYamlNesting = 64;

using C = CrawlConfig;

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = {
    {"seed_url", ValueKind::text_list, "URL to start from (same as one entry of seeds)", &C::seeds, 0, 0, {}, false, false, "none (the bundled demo web)"},
    {"seeds", ValueKind::text_list, "URLs to start from", &C::seeds, 0, 0, {}, false, false, "none (the bundled demo web)"},
    {"profile", ValueKind::text, "crawl profile: site (URL-level BFS) or domains (domain graph)",
     &C::profile, 0, 0, {to_string(CrawlProfile::site), to_string(CrawlProfile::domains)}},
    {"max_depth", ValueKind::integer, "deepest link level to follow (seeds are depth 0)", &C::max_depth, 0, 1000},
    {"max_pages", ValueKind::integer, "most URLs to fetch, over all runs on this database", &C::max_pages, 1, 1'000'000'000},
    {"max_crawls_per_node", ValueKind::integer, "domains profile: times a host is crawled", &C::max_crawls_per_node, 1, 1000},
    {"max_subdomains_per_root", ValueKind::integer, "domains profile: hosts kept per registrable domain", &C::max_subdomains_per_root, 1, 100000},
    {"max_outbound_links", ValueKind::integer, "domains profile: cross-domain links kept per page", &C::max_outbound_links, 0, 100000},
    {"concurrent_workers", ValueKind::integer, "FetchWorker actors", &C::concurrent_workers, 0, 256},
    {"request_timeout_ms", ValueKind::duration_ms, "timeout of one transfer (50% longer on each retry)", &C::request_timeout_ms, 1, kHour},
    {"retry_attempts", ValueKind::integer, "retries after the first try, for transient failures", &C::retry_attempts, 0, 20},
    {"retry_delay_ms", ValueKind::duration_ms, "wait before the first retry (doubles after each)", &C::retry_delay_ms, 0, kHour},
    {"host_backoff", ValueKind::duration_ms, "a URL whose retries ran out on a transient failure (DNS, connect, 5xx, 429, robots.txt unreachable) is parked this long, doubling per park, then offered again; parked URLs left when a crawl ends are offered on the next run", &C::host_backoff_ms, 1, 24 * kHour},
    {"politeness_delay_ms", ValueKind::duration_ms, "pause between requests to one host (env CRAWL_DELAY_MS)", &C::politeness_delay_ms, 0, kHour},
    {"max_body_bytes", ValueKind::bytes, "body size kept per page; the transfer is cut there", &C::max_body_bytes, 1, 1LL << 30},
    {"max_redirects", ValueKind::integer, "redirect hops followed", &C::max_redirects, 0, 50},
    {"user_agent", ValueKind::text, "User-Agent header", &C::user_agent},
    {"headers", ValueKind::text_list,
     "extra request headers: 'Name: value' for every host, or a mapping of names to values with hosts (RE2, "
     "searched in the host name) for those hosts only (docs/politeness.md, Requests)",
     &C::request_headers, 0, 0, {}, false, true},
    {"auth", ValueKind::text_list,
     "HTTP credentials by host: {hosts: RE2, basic: 'user:password'} or {hosts: RE2, bearer: TOKEN}; sent to "
     "the matching hosts only, never on a redirect to another",
     &C::auth, 0, 0, {}, false, true},
    {"proxy", ValueKind::text,
     "every request through this proxy: an http://, https://, socks5:// or socks5h:// URL (user:password@ "
     "allowed); empty: none",
     &C::proxy},
    {"proxy_from_environment", ValueKind::boolean,
     "use the proxies the environment names (http_proxy, https_proxy, all_proxy, no_proxy; never for loopback); "
     "off, they are ignored",
     &C::proxy_from_environment},
    {"cookies", ValueKind::boolean,
     "keep the cookies sites set and send them back, as a browser does (by domain and path, RFC 6265), in a "
     "jar for the whole crawl, kept in the database between runs; off: no cookie is sent or kept",
     &C::cookies},
    {"cookies_file", ValueKind::text,
     "a Netscape cookies.txt (what curl -c, wget --save-cookies and browser extensions write) loaded into the "
     "jar when the crawl starts: a login or consent cookie; its cookies replace kept ones of the same name",
     &C::cookies_file},
    {"respect_robots_txt", ValueKind::boolean, "obey robots.txt", &C::respect_robots_txt},
    {"sitemaps", ValueKind::boolean, "read the sitemaps each robots.txt names (and a seed host's /sitemap.xml when it names none); their URLs join the frontier at depth 1", &C::sitemaps, 0, 0, {}, false, false, "true in the site profile, false in the domains profile"},
    {"sitemap_urls", ValueKind::text_list, "sitemaps to read besides those robots.txt names (one URL each; turns sitemaps on unless sitemaps is false); each may list any URL of its own host and of the seeds' hosts, within the crawl's scope", &C::sitemap_urls},
    {"scope", ValueKind::text, "site profile: which links are followed: domain (the seeds' registrable domains), host (the seeds' hosts only) or any (every http(s) link, bounded by max_pages and max_depth alone); allowed_domains narrows each",
     &C::scope, 0, 0, {"domain", "host", "any"}},
    {"allowed_domains", ValueKind::text_list, "site profile: hosts (and their subdomains) a link must be within; narrows scope (with scope domain, replaces the seeds' registrable domains)", &C::allowed_domains, 0, 0, {}, true},
    {"exclude_patterns", ValueKind::text_list, "RE2 patterns; matching URLs are not crawled", &C::exclude_patterns},
    {"follow_patterns", ValueKind::text_list,
     "RE2 patterns; when given, a link is followed only when one is found in its URL (the seeds and redirect hops "
     "are not held to them)",
     &C::follow_patterns},
    {"strip_query_params", ValueKind::text_list, "query parameters removed before dedup (utm_* for a prefix)", &C::strip_query_params, 0, 0, {}, true},
    {"revisit_after", ValueKind::duration_ms, "re-fetch pages older than this on the next run (0: never)", &C::revisit_after_ms, 0, std::numeric_limits<std::int64_t>::max() / 2},
    {"adaptive_revisit", ValueKind::boolean, "each page's revisit interval adapts: halved after a fetch that found it changed, 1.5 times after one that found it unchanged, within revisit_min and revisit_max", &C::adaptive_revisit},
    {"revisit_min", ValueKind::duration_ms, "adaptive_revisit: the shortest interval (at most revisit_after)", &C::revisit_min_ms, 0, std::numeric_limits<std::int64_t>::max() / 2},
    {"revisit_max", ValueKind::duration_ms, "adaptive_revisit: the longest interval (at least revisit_after)", &C::revisit_max_ms, 0, std::numeric_limits<std::int64_t>::max() / 2},
    {"revisit_check_interval", ValueKind::duration_ms, "site profile, with revisit_after: how often a run queues again the pages that fell due while it goes on (0: only when a run begins)", &C::revisit_check_interval_ms, 0, 24 * kHour},
    {"db_path", ValueKind::text, "SQLite database", &C::db_path},
    {"metrics_path", ValueKind::text, "metrics written at the end of a crawl", &C::metrics_path},
    {"trace_path", ValueKind::text, "message trace (JSON Lines); empty: off", &C::trace_path},
    {"max_politeness_delay_ms", ValueKind::duration_ms, "upper bound of a host's delay (Crawl-delay, Retry-After, slow responses)", &C::max_politeness_delay_ms, 0, kHour},
    {"politeness_delay_factor_percent", ValueKind::integer, "a host's delay is at least this % of its last response time (0: off)", &C::politeness_delay_factor_percent, 0, 10000},
    {"robots_cache_ttl", ValueKind::duration_ms, "how long a host's robots.txt is trusted before it is fetched again", &C::robots_cache_ttl_ms, 1000, 365LL * 24 * kHour},
    {"max_url_length", ValueKind::integer, "trap defence: longer URLs are refused", &C::max_url_length, 16, 1'000'000},
    {"max_repeated_path_segments", ValueKind::integer, "trap defence: a path segment repeated more often is refused", &C::max_repeated_path_segments, 1, 1000},
    {"max_pages_per_host", ValueKind::integer, "trap defence: URLs queued per host (0: unlimited)", &C::max_pages_per_host, 0, 1'000'000'000},
    {"max_links_per_page", ValueKind::integer, "links kept per page, in document order; the rest are dropped and counted (links_dropped in metrics.log)", &C::max_links_per_page, 1, 1'000'000},
    {"max_query_variants_per_path", ValueKind::integer, "trap defence: distinct query strings per path (0: unlimited)", &C::max_query_variants_per_path, 0, 1'000'000'000},
    {"excluded_domains", ValueKind::text_list, "domains profile: RE2 patterns of hosts never linked or crawled", &C::excluded_domains},
    {"resolve", ValueKind::text_list, "host:port:address entries that bypass DNS (as curl --resolve)", &C::resolve},
    {"html_parser", ValueKind::text, "html_links' HTML parser: fast (a streaming HTML5 tokenizer, no tree) or html5 (gumbo's full HTML5 tree; slower, for tree semantics)",
     &C::html_parser, 0, 0, {"fast", "html5"}},
    {"processors", ValueKind::text_list, "processor chain, in order: html_links, save_pages, warc (every response archived as WARC/1.1), extract (the extraction rules; added last when not listed), or an external processor {name, exec, urls, timeout, instances} (docs/plugins.md)", &C::processors, 0, 0, {}, true, true},
    {"extract", ValueKind::structured, "extraction rules: a list of {name, urls, fields: {field: {css | xpath, all, regex, url}}}; each HTML page a rule matches gives one item (docs/plugins.md)", &C::extract_rules},
    {"keep_bodies", ValueKind::boolean, "keep each fetched body in the database (compressed, once per content digest), so `actorcrawl extract` and `actorcrawl parse --db` run the rules and processors again without a request", &C::keep_bodies, 0, 0, {}, false, false, "true when the crawl has extraction rules or an external processor, else false"},
    {"save_pages_dir", ValueKind::text, "where save_pages writes bodies", &C::save_pages_dir},
    {"warc_dir", ValueKind::text, "where the warc processor writes its .warc.gz files (created if missing)", &C::warc_dir},
    {"warc_prefix", ValueKind::text, "first part of each WARC file's name: PREFIX-TIMESTAMP-SERIAL-RANDOM.warc.gz (letters, digits, '.', '_', '-')", &C::warc_prefix},
    {"warc_max_bytes", ValueKind::bytes, "a WARC file is closed and the next one started before a record would take it past this size", &C::warc_max_bytes, 64 * 1024, 1LL << 40},
    {"transfers_per_worker", ValueKind::integer, "transfers one FetchWorker runs at once", &C::transfers_per_worker, 1, 4096},
    {"max_in_flight", ValueKind::integer, "URLs handed out and not yet processed, at most (0: the HostSelector's buffer, max(1024, 4 x slots), plus 2 x slots)", &C::max_in_flight, 0, 1'000'000},
    {"max_connections_per_host", ValueKind::integer, "requests in flight to one host at once while its delay is 0 (politeness off: politeness_delay_ms and politeness_delay_factor_percent 0, no Crawl-delay); any delay makes it one", &C::max_connections_per_host, 1, 256},
    {"max_leases_per_host", ValueKind::integer, "site profile: URLs of one host handed out at once, so many hosts are crawled side by side (0: strict BFS order)", &C::max_leases_per_host, 0, 1'000'000},
    {"parse_lanes", ValueKind::integer, "parsers working in parallel behind the Processor (0: one per core)", &C::parse_lanes, 0, 64},
    {"scheduler_threads", ValueKind::integer, "threads running this process's actors (0: as many as its parse lanes where it processes pages, 1 for a coordinator that fetches nothing itself)", &C::scheduler_threads, 0, 256},
    {"frontier_window", ValueKind::integer, "queued URLs held in memory (the rest wait in SQLite)", &C::frontier_window, 16, 100'000'000},
    {"storage_batch", ValueKind::integer, "writes per SQLite transaction", &C::storage_batch, 1, 1'000'000},
    {"progress_interval_ms", ValueKind::duration_ms, "progress report period", &C::progress_interval_ms, 100, kHour},
    {"report_timings", ValueKind::boolean, "print where the crawl's time went (fetch, parse, store, mailboxes) at the end", &C::report_timings},
    {"listen", ValueKind::text, "coordinator: HOST:PORT (or PORT, on 127.0.0.1) that worker nodes connect to; port 0 picks a free one", &C::listen},
    {"connect", ValueKind::text, "worker: the coordinator's HOST:PORT", &C::connect},
    {"tls_cert", ValueKind::text, "PEM certificate of this node; with tls_key and tls_ca, nodes talk TLS", &C::tls_cert},
    {"tls_key", ValueKind::text, "PEM private key of tls_cert", &C::tls_key},
    {"tls_ca", ValueKind::text, "PEM CA file that peers' certificates must chain to", &C::tls_ca},
    {"heartbeat_interval_ms", ValueKind::duration_ms, "nodes: how often a quiet connection sends a heartbeat", &C::heartbeat_interval_ms, 10, kHour},
    {"peer_timeout_ms", ValueKind::duration_ms, "nodes: a peer silent this long is dropped (a stopped or cut-off worker; its URLs go to others)", &C::peer_timeout_ms, 100, kHour},
    {"reconnect_timeout_ms", ValueKind::duration_ms, "worker: how long to keep trying to reach a lost coordinator before exiting", &C::reconnect_timeout_ms, 0, 24 * kHour},
    {"node_id", ValueKind::text, "this process's name in traces and logs", &C::node_id, 0, 0, {}, false, false, "HOST:PID"},
    {"service_listen", ValueKind::text, "serve: HOST:PORT of the HTTP API (actorcrawl serve --listen)", &C::service_listen},
    {"service_token", ValueKind::text, "serve: bearer token every route but /healthz requires (env ACTORCRAWL_SERVICE_TOKEN, --token)", &C::service_token},
    {"service_dir", ValueKind::text, "serve: directory of service.db and each job's database (--db-dir)", &C::service_dir},
    {"max_concurrent_jobs", ValueKind::integer, "serve: jobs running at once; more are refused with 429", &C::max_concurrent_jobs, 1, 1000},
    {"max_event_streams", ValueKind::integer, "serve: event streams (GET /crawl/:id/events) open at once; more are refused with 503, so streams never take every request thread", &C::max_event_streams, 1, 1024},
    {"allow_private_networks", ValueKind::boolean, "fetch private, loopback and link-local addresses of any host; without it a crawl reaches them only for the hosts its seeds, sitemap_urls, allowed_domains and resolve entries name, so a public page cannot lead it inside (a link or redirect to 169.254.169.254); serve: jobs reach none without it", &C::allow_private_networks},
    {"max_request_bytes", ValueKind::bytes, "serve: largest request body accepted", &C::max_request_bytes, 256, 1LL << 24},
    {"max_pages_per_job", ValueKind::integer, "serve: largest max_pages a job may ask for", &C::max_pages_per_job, 1, 1'000'000'000},
    {"service_allowed_hosts", ValueKind::text_list, "serve: Host names answered besides localhost, 127.0.0.1, [::1] and the listen address (name: any port; name:port: that port); others get 421, which stops DNS rebinding", &C::service_allowed_hosts, 0, 0, {}, true},
    {"service_allowed_origins", ValueKind::text_list, "serve: origins (https://host[:port]) of other sites whose pages may call the API; a request from any other foreign Origin gets 403", &C::service_allowed_origins, 0, 0, {}, true},
    {"allow_remote_without_token", ValueKind::boolean, "serve: listen beyond loopback without service_token (refused otherwise: anyone who reaches the port could start crawls)", &C::allow_remote_without_token},
    {"service_max_connections", ValueKind::integer, "serve: client connections open at once; more are answered 503 and closed", &C::service_max_connections, 1, 100000},
    {"service_read_timeout", ValueKind::duration_ms, "serve: time a request has to arrive whole (head and body) once its connection is ready; an idle connection is closed then, a partial request answered 408", &C::service_read_timeout_ms, 100, kHour},
    {"service_job_request_keys", ValueKind::text_list, "serve: what sites require that a job body may carry: any of headers, auth, cookies (a cookies.txt's text), proxy; the job's secrets, kept in the job table, never answered back (others are refused with 403)", &C::service_job_request_keys, 0, 0, {}, true},
    {"block_private_networks", ValueKind::boolean, "refuse to fetch private, loopback and link-local addresses, even the seeds' (checked after DNS, for every connection and redirect)", &C::block_private_networks},
  };
  return keys;
}

namespace {

const ConfigKey* find_key(const std::string& name) {
  for (const auto& k : config_keys())
    if (name == k.name)
      return &k;
  return nullptr;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& unknown) {
  const ConfigKey* best = nullptr;
  std::size_t best_d = 4;
  for (const auto& k : config_keys()) {
    auto d = edit_distance(unknown, k.name);
    if (d < best_d) {
      best_d = d;
      best = &k;
    }
  }
  return best ? std::string{" (did you mean '"} + best->name + "'?)" : std::string{};
}

std::int64_t parse_integer(const std::string& raw) {
  std::string text = std::string{ascii::trim(raw)};
  if (text.empty())
    throw ConfigError("expected an integer, got an empty value");
  std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size() || !std::all_of(text.begin() + static_cast<long>(i), text.end(),
                                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw ConfigError("expected an integer, got '" + raw + "'");
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    // Past what 64 bits hold: below any key's minimum or above its maximum.
    return text[0] == '-' ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
}

// A number with an optional unit suffix; `units` maps suffixes to factors.
std::int64_t parse_with_units(const std::string& raw,
                              const std::vector<std::pair<std::string, double>>& units,
                              const char* what) {
  std::string text = ascii::lowercase(ascii::trim(raw));
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0)
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  double number = 0;
  std::size_t used = 0;
  try {
    number = std::stod(text.substr(0, end), &used);
  } catch (const std::exception&) {
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  }
  if (used != end)  // "1.2.3s": stod stops at the second '.'
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  std::string unit = std::string{ascii::trim(text.substr(end))};
  for (const auto& [suffix, factor] : units) {
    if (unit == suffix) {
      double value = number * factor;
      if (value > 9.0e18)
        throw ConfigError(std::string{what} + " out of range: '" + raw + "'");
      return static_cast<std::int64_t>(std::llround(value));
    }
  }
  throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
}

// The value is named as it was written: "got 18446744073709551615", not
// what it became on the way.
void check_range(const ConfigKey& key, std::int64_t v, const std::string& written) {
  if (v < key.min || v > key.max) {
    std::ostringstream msg;
    msg << "must be between " << key.min << " and " << key.max << ", got " << ascii::trim(written);
    if (key.kind != ValueKind::integer)
      msg << " (" << v << (key.kind == ValueKind::duration_ms ? " ms)" : " bytes)");
    throw ConfigError(msg.str());
  }
}

// A YAML value as JSON. Plain scalars take YAML 1.2's core types (true,
// false, null, integers, floats); quoted ones stay strings, so '5' is "5".
// Mappings keep the order they are written in: an extraction rule's fields
// become an item's keys, and CSV columns, in that order.
nlohmann::ordered_json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& item : node)
        out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      for (const auto& item : node) {
        const std::string name = item.first.Scalar();
        if (out.contains(name))
          throw ConfigError("key '" + name + "' is given twice, line " + std::to_string(item.first.Mark().line + 1));
        out[name] = yaml_to_json(item.second);
      }
      return out;
    }
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() != "?")  // quoted, or tagged: a string
    return text;
  if (text == "true" || text == "True" || text == "TRUE")
    return true;
  if (text == "false" || text == "False" || text == "FALSE")
    return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  const auto number = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!number.is_discarded() && number.is_number())
    return number;
  return text;
}

YAML::Node yaml_node_of(const std::string& text) {
  // yaml-cpp's parser recurses by the nesting of flow collections: `[[[[`
  // a million deep would overflow the stack (json_guard.h).
  if (!json_nests_within(text, kMaxYamlNesting))
    throw ConfigError("a value nests deeper than " + std::to_string(kMaxYamlNesting) + " levels of [ ] and { }");
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("invalid YAML or JSON: " + e.msg);
  }
}

// A structured key's value as JSON text; nothing (null, an empty list) is "".
std::string structured_json(const YAML::Node& node) {
  const nlohmann::ordered_json value = yaml_to_json(node);
  if (value.is_null() || (value.is_array() && value.empty()))
    return {};
  if (!value.is_array() && !value.is_object())
    throw ConfigError("expected a list or a mapping");
  return json_text(value);
}

// An object item of a list (an external processor's entry) as JSON text.
std::string object_item_json(const YAML::Node& node) {
  const nlohmann::ordered_json value = yaml_to_json(node);
  if (!value.is_object())
    throw ConfigError("expected a name or a mapping");
  return json_text(value);
}

// Parses one scalar for `key` and stores it. `append` adds to a list
// instead of replacing it.
void assign_scalar(const ConfigKey& key, const std::string& text, CrawlConfig& cfg, bool append) {
  switch (key.kind) {
    case ValueKind::integer:
    case ValueKind::duration_ms:
    case ValueKind::bytes: {
      std::int64_t v = key.kind == ValueKind::integer       ? parse_integer(text)
                       : key.kind == ValueKind::duration_ms ? parse_duration_ms(text)
                                                            : parse_byte_size(text);
      check_range(key, v, text);
      cfg.*std::get<std::int64_t C::*>(key.member) = v;
      break;
    }
    case ValueKind::boolean:
      cfg.*std::get<bool C::*>(key.member) = parse_boolean(text);
      break;
    case ValueKind::text: {
      if (!key.choices.empty() && std::find(key.choices.begin(), key.choices.end(), text) == key.choices.end()) {
        std::string all;
        for (const auto& c : key.choices)
          all += (all.empty() ? "" : ", ") + c;
        throw ConfigError("must be one of " + all + ", got '" + text + "'");
      }
      cfg.*std::get<std::string C::*>(key.member) = text;
      break;
    }
    case ValueKind::structured:
      cfg.*std::get<std::string C::*>(key.member) = structured_json(yaml_node_of(text));
      break;
    case ValueKind::text_list: {
      auto& list = cfg.*std::get<std::vector<std::string> C::*>(key.member);
      if (!append)
        list.clear();
      if (key.object_items && !ascii::trim(text).empty() && ascii::trim(text).front() == '{') {
        list.push_back(object_item_json(yaml_node_of(text)));
        break;
      }
      if (!key.comma_separated) {
        list.push_back(text);
        break;
      }
      std::stringstream items{text};
      std::string item;
      while (std::getline(items, item, ','))
        if (!ascii::trim(item).empty())
          list.push_back(std::string{ascii::trim(item)});
      break;
    }
  }
}

std::string describe(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer: return "an integer";
    case ValueKind::boolean: return "true or false";
    case ValueKind::text: return "a string";
    case ValueKind::text_list: return "a list of strings";
    case ValueKind::duration_ms: return "a duration (250ms, 2s, 1m; a bare number is milliseconds)";
    case ValueKind::bytes: return "a size (1MiB, 512KiB; a bare number is bytes)";
    case ValueKind::structured: return "a list or a mapping";
  }
  return "a value";
}

std::string flag_of(const std::string& key) {
  std::string f = "--" + key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

// 24h for 86400000 ms, 30d for 2592000000: the largest unit that divides
// it (days from two on), as a flag takes it.
std::string duration_text(std::int64_t ms) {
  static const std::pair<const char*, std::int64_t> units[] = {
    {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
  for (const auto& [unit, size] : units)
    if (ms != 0 && ms % size == 0 && (size != 86400000 || ms >= 2 * size))
      return std::to_string(ms / size) + unit;
  return std::to_string(ms) + "ms";
}

// 1MiB for 1048576 bytes, as a flag takes it.
std::string size_text(std::int64_t bytes) {
  static const std::pair<const char*, std::int64_t> units[] = {
    {"GiB", std::int64_t{1} << 30}, {"MiB", std::int64_t{1} << 20}, {"KiB", std::int64_t{1} << 10}};
  for (const auto& [unit, size] : units)
    if (bytes != 0 && bytes % size == 0)
      return std::to_string(bytes / size) + unit;
  return std::to_string(bytes);
}

std::string default_text(const ConfigKey& key) {
  static const CrawlConfig defaults;
  if (key.shown_default != nullptr)
    return key.shown_default;
  switch (key.kind) {
    case ValueKind::integer:
      return std::to_string(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::bytes:
      return size_text(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::duration_ms:
      return duration_text(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::boolean:
      return defaults.*std::get<bool C::*>(key.member) ? "true" : "false";
    case ValueKind::text: {
      const auto& v = defaults.*std::get<std::string C::*>(key.member);
      return v.empty() ? "(none)" : "\"" + v + "\"";
    }
    case ValueKind::structured:
      return "(none)";
    case ValueKind::text_list: {
      const auto& v = defaults.*std::get<std::vector<std::string> C::*>(key.member);
      if (v.empty())
        return "none";
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + v[i];
      return out + "]";
    }
  }
  return {};
}

// Flags that are not a key's own name.
struct Alias {
  const char* flag;
  const char* key;
};
const std::vector<Alias>& aliases() {
  static const std::vector<Alias> a = {
    {"--seed", "seeds"}, {"--workers", "concurrent_workers"}, {"--db", "db_path"},
    {"--metrics", "metrics_path"}, {"--trace", "trace_path"}, {"--token", "service_token"},
    {"--db-dir", "service_dir"}, {"--header", "headers"},
  };
  return a;
}

const ConfigKey* key_for_flag(const std::string& flag) {
  for (const auto& a : aliases())
    if (flag == a.flag)
      return find_key(a.key);
  for (const auto& k : config_keys()) {
    std::string own = flag_of(k.name);
    if (flag == own)
      return &k;
    // Duration keys also answer to their name without "_ms", with units.
    if (k.kind == ValueKind::duration_ms && own.size() > 3 && own.compare(own.size() - 3, 3, "-ms") == 0
        && flag == own.substr(0, own.size() - 3))
      return &k;
  }
  return nullptr;
}

}  // namespace

std::int64_t parse_duration_ms(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> units = {
    {"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000},
  };
  return parse_with_units(text, units, "a duration");
}

std::int64_t parse_byte_size(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> units = {
    {"", 1}, {"b", 1}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
    {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"k", 1024.0}, {"m", 1048576.0},
  };
  return parse_with_units(text, units, "a size");
}

bool parse_boolean(const std::string& raw) {
  std::string t = ascii::lowercase(ascii::trim(raw));
  if (t == "true" || t == "yes" || t == "on" || t == "1")
    return true;
  if (t == "false" || t == "no" || t == "off" || t == "0")
    return false;
  throw ConfigError("expected true or false, got '" + raw + "'");
}

void apply_yaml(const std::string& yaml_text, const std::string& source, CrawlConfig& config) {
  if (!json_nests_within(yaml_text, kMaxYamlNesting))
    throw ConfigError(source + ": a value nests deeper than " + std::to_string(kMaxYamlNesting) +
                      " levels of [ ] and { }");
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ", line " + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (root.IsNull())
    return;  // an empty file keeps every default
  if (!root.IsMap())
    throw ConfigError(source + ": expected a mapping of config keys at the top level");
  bool seeds_cleared = false;
  std::map<std::string, int> first_line;  // a key given twice is a mistake, not an override
  for (const auto& item : root) {
    const std::string name = item.first.Scalar();
    const int line = item.first.Mark().line + 1;
    if (auto [it, fresh] = first_line.emplace(name, line); !fresh)
      throw ConfigError(source + ", line " + std::to_string(line) + ": key '" + name + "' is given twice (first on line " +
                        std::to_string(it->second) + ")");
    const std::string where = source + ", line " + std::to_string(line) + ": key '" + name + "': ";
    const ConfigKey* key = find_key(name);
    if (key == nullptr)
      throw ConfigError(source + ", line " + std::to_string(line) + ": unknown key '" + name + "'" + suggestion(name));
    config.given[name] = source + ", line " + std::to_string(line);
    const YAML::Node& value = item.second;
    try {
      if (key->kind == ValueKind::text_list) {
        // seed_url and seeds fill one list: the first of them replaces the
        // defaults, the second adds to it.
        bool is_seed_list = key->member == find_key("seeds")->member;
        bool append = is_seed_list && seeds_cleared;
        if (is_seed_list)
          seeds_cleared = true;
        auto& list = config.*std::get<std::vector<std::string> C::*>(key->member);
        if (!append)
          list.clear();
        if (value.IsScalar()) {
          assign_scalar(*key, value.Scalar(), config, true);
        } else if (value.IsSequence()) {
          for (const auto& v : value) {
            if (v.IsMap() && key->object_items)
              list.push_back(object_item_json(v));
            else if (!v.IsScalar())
              throw ConfigError(key->object_items ? "expected a list of names and mappings" : "expected a list of strings");
            else
              list.push_back(v.Scalar());
          }
        } else if (!value.IsNull()) {
          throw ConfigError("expected a list of strings");
        }
      } else if (key->kind == ValueKind::structured) {
        config.*std::get<std::string C::*>(key->member) = structured_json(value);
      } else {
        if (!value.IsScalar())
          throw ConfigError("expected " + describe(key->kind));
        assign_scalar(*key, value.Scalar(), config, false);
      }
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    }
  }
}

std::string read_named_file(const std::string& path, const std::string& label, const char* kind,
                            std::size_t max_bytes) {
  // fopen() opens a directory, and reading it gives nothing: that must not
  // be an empty file (a config with every default, a jar with no cookie).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw ConfigError(label + ": cannot be read (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode))
    throw ConfigError(label + ": is a directory, not " + kind);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    throw ConfigError(label + ": cannot be read (" + std::strerror(errno) + ")");
  std::string text;
  char buf[65536];
  std::size_t n;
  // Bounded as it is read: a device that never ends (/dev/zero) is refused
  // at the limit, not read until memory runs out.
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > max_bytes) {
      std::fclose(f);
      throw ConfigError(label + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  if (failed)
    throw ConfigError(label + ": cannot be read (" + std::strerror(read_errno) + ")");
  return text;
}

void apply_yaml_file(const std::string& path, CrawlConfig& config) {
  const std::string label = "config file '" + path + "'";
  apply_yaml(read_named_file(path, label, "a YAML file"), label, config);
}

void apply_environment(CrawlConfig& config, const std::function<const char*(const char*)>& lookup) {
  auto apply = [&](const ConfigKey& key, const std::string& var, const char* raw) {
    try {
      if (key.kind == ValueKind::text_list) {
        // Items that may hold a comma come one per line (see
        // ConfigKey::comma_separated); assign_scalar splits the others.
        auto& list = config.*std::get<std::vector<std::string> C::*>(key.member);
        list.clear();
        std::stringstream ss{raw};
        std::string item;
        while (std::getline(ss, item, '\n'))
          if (!ascii::trim(item).empty())
            assign_scalar(key, std::string{ascii::trim(item)}, config, true);
      } else {
        assign_scalar(key, raw, config, false);
      }
      config.given[key.name] = "environment variable " + var;
    } catch (const ConfigError& e) {
      throw ConfigError("environment variable " + var + ": " + e.what());
    }
  };
  for (const auto& key : config_keys()) {
    std::string var = "ACTORCRAWL_" + std::string{key.name};
    for (auto& c : var)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* raw = lookup(var.c_str()))
      apply(key, var, raw);
  }
  // Variables older crawlers of this family read: kept for their users.
  if (const char* raw = lookup("CRAWL_DELAY_MS"))
    apply(*find_key("politeness_delay_ms"), "CRAWL_DELAY_MS", raw);
  if (const char* raw = lookup("SEED"); raw != nullptr && *raw != '\0')
    apply(*find_key("seeds"), "SEED", raw);
}

std::string config_path_from_args(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--config" || args[i] == "-c") && i + 1 < args.size())
      return args[i + 1];
    if (args[i].rfind("--config=", 0) == 0)
      return args[i].substr(9);
  }
  return {};
}

std::vector<std::string> apply_command_line(const std::vector<std::string>& args, CrawlConfig& config) {
  std::vector<std::string> rest;
  // By member, not key: --seed-url, --seeds and --seed all fill `seeds`.
  std::vector<std::vector<std::string> C::*> lists_replaced;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      if (arg == "-c" && i + 1 < args.size()) {
        ++i;  // --config was read already
        continue;
      }
      rest.push_back(arg);
      continue;
    }
    std::string flag = arg;
    std::optional<std::string> value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (flag == "--config") {
      if (!value)
        ++i;
      continue;
    }
    const ConfigKey* key = key_for_flag(flag);
    bool negated = false;
    if (key == nullptr && flag.rfind("--no-", 0) == 0) {
      key = key_for_flag("--" + flag.substr(5));
      negated = key != nullptr && key->kind == ValueKind::boolean;
      if (!negated)
        key = nullptr;
    }
    if (key == nullptr)
      throw ConfigError("unknown option '" + flag + "' (see actorcrawl --help)");
    if (key->kind == ValueKind::boolean && !value) {
      config.*std::get<bool C::*>(key->member) = !negated;
      config.given[key->name] = "option '" + flag + "'";
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size())
        throw ConfigError("option '" + flag + "' needs a value");
      value = args[++i];
    }
    bool append = false;
    if (key->kind == ValueKind::text_list) {
      auto member = std::get<std::vector<std::string> C::*>(key->member);
      append = std::find(lists_replaced.begin(), lists_replaced.end(), member) != lists_replaced.end();
      if (!append)
        lists_replaced.push_back(member);
    }
    try {
      assign_scalar(*key, *value, config, append);
    } catch (const ConfigError& e) {
      throw ConfigError("option '" + flag + "': " + e.what());
    }
    config.given[key->name] = "option '" + flag + "'";
  }
  return rest;
}

namespace {

// The value with every byte outside printable ASCII as \xNN: safe to print
// and to put in JSON, whatever the user typed.
std::string escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

// Text reaches HTTP headers, SQLite and JSON (the database, traces, the
// service), all of which expect UTF-8.
// Keys whose values may be secrets: no message repeats them.
bool holds_secrets(const ConfigKey& key) {
  for (const char* name : {"auth", "headers", "proxy", "service_token"})
    if (std::string_view{key.name} == name)
      return true;
  return false;
}

void require_utf8(const ConfigKey& key, const std::string& value) {
  const std::size_t bad = valid_utf8_prefix(value);
  if (bad == value.size())
    return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(value[bad]));
  throw ConfigError(std::string{"key '"} + key.name + "': " +
                    (holds_secrets(key) ? std::string{"a value"} : "'" + escaped(value) + "'") +
                    " is not valid UTF-8 (byte " + byte + " at offset " + std::to_string(bad) + ")");
}

// IPv4, or IPv6 in brackets (curl's --resolve spelling).
bool is_ip_literal(const std::string& text) {
  if (const auto ip = parse_ip_literal(text))
    return !ip->v6;
  return text.size() > 2 && text.front() == '[' && text.back() == ']' &&
         parse_ip_literal(std::string_view{text}.substr(1, text.size() - 2)).has_value();
}

// curl's --resolve syntax, [+]HOST:PORT:ADDRESS[,ADDRESS]..., checked here:
// curl takes a malformed entry without a word and then resolves nothing
// through it, so a typo would fail every fetch of the crawl.
void check_resolve_entry(const std::string& entry) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigError("resolve: '" + escaped(entry) + "' " + why +
                      " (an entry is HOST:PORT:ADDRESS as curl --resolve takes it, e.g. example.com:443:127.0.0.1; "
                      "addresses of one name are comma-separated, [IPv6] in brackets; each name its own entry)");
  };
  std::string_view rest = entry;
  if (!rest.empty() && rest.front() == '+')
    rest.remove_prefix(1);
  const auto first = rest.find(':');
  if (first == std::string_view::npos || first == 0)
    refuse("has no HOST:PORT: before the address");
  const auto second = rest.find(':', first + 1);
  if (second == std::string_view::npos)
    refuse("has no address");
  const std::string port{rest.substr(first + 1, second - first - 1)};
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stol(port) < 1 || std::stol(port) > 65535)
    refuse("has no port from 1 to 65535");
  std::stringstream addresses{std::string{rest.substr(second + 1)}};
  std::string address;
  bool any = false;
  while (std::getline(addresses, address, ',')) {
    if (!is_ip_literal(address))
      refuse("names '" + escaped(address) + "', which is not an IP address");
    any = true;
  }
  if (!any)
    refuse("has no address");
}

}  // namespace

void validate(const CrawlConfig& config, bool seeds_required) {
  // seed_url and seeds share one list, named by its own key: backwards,
  // seeds comes first.
  std::vector<decltype(ConfigKey::member)> checked;
  const auto& keys = config_keys();
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const ConfigKey& key = *it;
    if (std::find(checked.begin(), checked.end(), key.member) != checked.end())
      continue;
    checked.push_back(key.member);
    if (key.kind == ValueKind::text)
      require_utf8(key, config.*std::get<std::string C::*>(key.member));
    else if (key.kind == ValueKind::text_list)
      for (const auto& item : config.*std::get<std::vector<std::string> C::*>(key.member))
        require_utf8(key, item);
  }
  if (seeds_required && config.seeds.empty())
    throw ConfigError("no seed: give --seed URL, seed_url in the config file, or SEED=URL");
  for (const auto& seed : config.seeds) {
    UrlError why = UrlError::none;
    if (!Url::parse(seed, &why))
      throw ConfigError("seed '" + seed + "' is not a crawlable URL (" + to_string(why) + ")");
  }
  for (const auto& sitemap : config.sitemap_urls) {
    UrlError why = UrlError::none;
    if (!Url::parse(sitemap, &why))
      throw ConfigError("sitemap_urls: '" + escaped(sitemap) + "' is not a crawlable URL (" + to_string(why) + ")");
  }
  if (!config.sitemap_urls.empty() && !config.sitemaps_enabled())
    throw ConfigError("sitemap_urls names sitemaps to read, and sitemaps is false (" +
                      config.given.at("sitemaps") + ")");
  for (const auto& entry : config.resolve)
    check_resolve_entry(entry);
  if (config.db_path.empty())
    throw ConfigError("db_path must not be empty");
  if (config.revisit_min_ms > 0 && config.revisit_max_ms > 0 && config.revisit_min_ms > config.revisit_max_ms)
    throw ConfigError("revisit_min (" + std::to_string(config.revisit_min_ms) + " ms) must not exceed revisit_max (" +
                      std::to_string(config.revisit_max_ms) + " ms)");
  if (config.adaptive_revisit && config.revisit_after_ms == 0)
    throw ConfigError("adaptive_revisit needs revisit_after: the interval it starts from");
  if (config.warc_dir.empty())
    throw ConfigError("warc_dir must not be empty");
  // The prefix names files: nothing that could leave warc_dir or need quoting.
  if (config.warc_prefix.empty() ||
      config.warc_prefix.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
        std::string::npos ||
      config.warc_prefix[0] == '.')
    throw ConfigError("warc_prefix: '" + escaped(config.warc_prefix) +
                      "' is not a file name prefix (letters, digits, '.', '_', '-'; not starting with '.')");
  if (!config.proxy.empty()) {
    // Never repeated in a message: a proxy URL may hold a password.
    static const char* const schemes[] = {"http://", "https://", "socks4://", "socks4a://", "socks5://", "socks5h://"};
    const bool known = std::any_of(std::begin(schemes), std::end(schemes), [&](const char* scheme) {
      return config.proxy.rfind(scheme, 0) == 0 && config.proxy.size() > std::strlen(scheme);
    });
    const bool one_token = std::none_of(config.proxy.begin(), config.proxy.end(), [](char c) {
      return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
    });
    if (!known || !one_token)
      throw ConfigError("proxy: not a proxy URL (http://, https://, socks4://, socks5:// or socks5h:// and HOST:PORT)");
    if (config.proxy_from_environment)
      throw ConfigError("proxy and proxy_from_environment: give one (a proxy, or those the environment names)");
    if (config.block_private_networks)
      throw ConfigError("proxy: block_private_networks cannot hold through a proxy, which connects to the sites "
                        "itself; give one of them");
  }
  for (const auto& key : config.service_job_request_keys)
    if (std::find(job_request_key_names().begin(), job_request_key_names().end(), key) == job_request_key_names().end())
      throw ConfigError("service_job_request_keys: '" + escaped(key) + "' is not one of headers, auth, cookies, proxy");
  if (!config.cookies_file.empty() && !config.cookies)
    throw ConfigError("cookies_file names cookies to send, and cookies is false (" +
                      (config.given.count("cookies") != 0 ? config.given.at("cookies") : std::string{"set"}) +
                      "): give one of them");
  const int tls_parts = !config.tls_cert.empty() + !config.tls_key.empty() + !config.tls_ca.empty();
  if (tls_parts != 0 && tls_parts != 3)
    throw ConfigError("TLS needs all of tls_cert, tls_key and tls_ca (--tls-cert, --tls-key, --tls-ca)");
  if (tls_parts == 3)
    if (auto error = check_tls_files(config.tls_cert, config.tls_key, config.tls_ca); !error.empty())
      throw ConfigError(error);
}

std::optional<CrawlProfile> profile_using(const std::string& key) {
  // Read by the site profile's frontier (traps, leases) and link selection
  // (scope, patterns, parameters) only.
  static const char* const site_only[] = {
    "scope", "allowed_domains", "exclude_patterns", "follow_patterns", "strip_query_params", "max_leases_per_host",
    "revisit_check_interval", "max_url_length", "max_repeated_path_segments", "max_pages_per_host",
    "max_query_variants_per_path"};
  // Read by the domain graph's frontier and link filter only.
  static const char* const domains_only[] = {"max_crawls_per_node", "max_subdomains_per_root", "max_outbound_links",
                                             "excluded_domains"};
  for (const char* k : site_only)
    if (key == k)
      return CrawlProfile::site;
  for (const char* k : domains_only)
    if (key == k)
      return CrawlProfile::domains;
  return std::nullopt;
}

void check_profile_keys(const CrawlConfig& config) {
  static const CrawlConfig defaults;
  const CrawlProfile profile = config.crawl_profile();
  for (const auto& [name, where] : config.given) {
    const auto user = profile_using(name);
    if (!user || *user == profile)
      continue;
    const ConfigKey& key = *find_key(name);
    const bool is_default = std::visit(
      [&](auto member) { return config.*member == defaults.*member; }, key.member);
    if (is_default)
      continue;
    throw ConfigError(where + ": key '" + name + "' is used only by the " + to_string(*user) +
                      " profile, and this crawl's profile is " + to_string(profile) + " (set profile: " +
                      to_string(*user) + ", or remove the key)");
  }
}

void apply_config_sources(const std::vector<std::string>& args, CrawlConfig& config,
                          const std::string& help_command) {
  if (auto path = config_path_from_args(args); !path.empty())
    apply_yaml_file(path, config);
  apply_environment(config, [](const char* name) { return std::getenv(name); });
  auto leftover = apply_command_line(args, config);
  if (!leftover.empty())
    throw ConfigError("unexpected argument '" + leftover.front() + "' (see " + help_command + ")");
}

bool NodeAddress::loopback_only() const {
  if (host == "localhost")
    return true;
  // A numeric address in 127.0.0.0/8 or ::1; anything else (0.0.0.0, ::, a
  // name, another address) may be reachable from elsewhere.
  const auto ip = parse_ip_literal(host);
  return ip && ip->loopback();
}

NodeAddress parse_node_address(const std::string& text, const std::string& key) {
  NodeAddress out;
  std::string port_text = text;
  if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    out.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']')
      out.host = out.host.substr(1, out.host.size() - 2);  // [::1]:7788
  }
  if (out.host.empty())
    out.host = "127.0.0.1";
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos || std::stol(port_text) > 65535)
    throw ConfigError(key + ": '" + text + "' is not HOST:PORT (a port from 0 to 65535)");
  out.port = static_cast<std::uint16_t>(std::stol(port_text));
  return out;
}

namespace {

// A YAML double-quoted scalar: JSON's string syntax is a subset of it.
std::string yaml_quoted(const std::string& text) {
  return json_text(nlohmann::json(text));
}

std::string yaml_value(const ConfigKey& key, const CrawlConfig& c) {
  switch (key.kind) {
    case ValueKind::integer:
    case ValueKind::bytes:
    case ValueKind::duration_ms:
      return std::to_string(c.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::boolean:
      return c.*std::get<bool C::*>(key.member) ? "true" : "false";
    case ValueKind::text:
      return yaml_quoted(c.*std::get<std::string C::*>(key.member));
    case ValueKind::text_list: {
      std::string out = "[";
      const auto& v = c.*std::get<std::vector<std::string> C::*>(key.member);
      for (std::size_t i = 0; i < v.size(); ++i) {
        // An object item is JSON, which YAML reads as a flow mapping.
        const bool object = key.object_items && !v[i].empty() && v[i].front() == '{';
        out += (i ? ", " : "") + (object ? v[i] : yaml_quoted(v[i]));
      }
      return out + "]";
    }
    case ValueKind::structured: {
      const auto& v = c.*std::get<std::string C::*>(key.member);
      return v.empty() ? "[]" : v;
    }
  }
  return {};
}

}  // namespace

std::string default_config_yaml() {
  const CrawlConfig defaults;
  std::ostringstream out;
  out << "# actorcrawl configuration: every key, at its default, in the order of\n"
         "# `actorcrawl --help`. Generated by `actorcrawl --default-config`; a unit\n"
         "# test keeps this file equal to it. Copy and edit, then\n"
         "#   actorcrawl crawl --config my.yaml\n"
         "# Flags (--max-pages 50) and environment variables (ACTORCRAWL_MAX_PAGES=50,\n"
         "# CRAWL_DELAY_MS, SEED) override what is written here. Unknown keys, wrong\n"
         "# types and impossible values are refused with the key and line named.\n"
         "# Durations are milliseconds unless given a unit (500ms, 2s, 1m, 24h); sizes\n"
         "# are bytes unless given one (64KiB, 1MiB).\n";
  for (const auto& key : config_keys())
    out << "\n# " << key.help << (key.shown_default ? std::string{" (default: "} + key.shown_default + ")" : "")
        << "\n"
        << key.name << ": " << yaml_value(key, defaults) << "\n";
  return out.str();
}

std::string config_yaml(const CrawlConfig& config) {
  std::ostringstream out;
  for (const auto& key : config_keys())
    if (std::string_view{key.name} != "seed_url")
      out << key.name << ": " << yaml_value(key, config) << "\n";
  return out.str();
}

std::string options_help() {
  std::ostringstream out;
  for (const auto& key : config_keys()) {
    std::string flags = flag_of(key.name);
    if (key.kind == ValueKind::duration_ms && flags.size() > 3 && flags.compare(flags.size() - 3, 3, "-ms") == 0)
      flags = flags.substr(0, flags.size() - 3) + ", " + flags;
    for (const auto& a : aliases())
      if (std::string{a.key} == key.name && std::string{key.name} != "seed_url")
        flags = std::string{a.flag} + ", " + flags;
    out << "  " << flags << "\n      " << key.help << " [" << key.name << ", default " << default_text(key) << "]\n";
  }
  return out.str();
}

}  // namespace actorcrawl
