// The crawl's configuration: every key with its default,
// and how the YAML file, environment variables and command-line flags set
// it (in that order of precedence, lowest first).
//
// Each key is declared once, in config_keys(); the YAML loader, the flag
// parser, the environment lookup and --help are all derived from that table,
// so they cannot disagree about names, types, ranges or defaults.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/crawl/crawl_profile.h"

namespace actorcrawl {

// The largest max_pages a service job may ask for, unless the service's
// configuration says otherwise (max_pages_per_job; service/job_request.h).
inline constexpr std::int64_t kDefaultMaxPagesPerJob = 100000;

struct CrawlConfig {
  std::vector<std::string> seeds;  // `seed_url` and `seeds` both land here
  std::string profile = "site";  // one of crawl_profile.h's names; validated
  std::string html_parser = "fast";  // html_document.h's names; validated
  std::int64_t max_depth = 5;
  std::int64_t max_pages = 1000;
  std::int64_t max_crawls_per_node = 3;
  std::int64_t max_subdomains_per_root = 3;
  std::int64_t max_outbound_links = 10;
  std::int64_t concurrent_workers = 3;
  std::int64_t request_timeout_ms = 5000;
  std::int64_t retry_attempts = 3;
  std::int64_t retry_delay_ms = 5000;
  // A URL whose retries ran out on a transient failure (transient_failure.h)
  // is parked this long (doubling with each park in a run) before it is
  // offered again; and a host whose robots.txt stayed unreachable is left
  // alone this long. Heritrix waits 15 minutes, StormCrawler 2 hours.
  std::int64_t host_backoff_ms = 5 * 60 * 1000;
  std::int64_t politeness_delay_ms = 1000;
  std::int64_t max_body_bytes = 1 << 20;
  std::int64_t max_redirects = 5;
  std::string user_agent = "actorcrawl/0.1 (polite web crawler)";
  // What sites require of requests (core/fetch/request_rules.h): key
  // `headers` (header lines, or mappings with `hosts`) and key `auth`
  // (credentials by host), each entry as ConfigKey::object_items keeps it.
  std::vector<std::string> request_headers;
  std::vector<std::string> auth;
  // Every request through this proxy URL; or, with proxy_from_environment,
  // through those the environment names; else none.
  std::string proxy;
  bool proxy_from_environment = false;
  bool respect_robots_txt = true;
  // Key `sitemaps`: read the sitemaps robots.txt names (and a seed host's
  // /sitemap.xml). Its default depends on the profile: sitemaps_enabled().
  bool sitemaps = true;
  // Key `sitemap_urls`: sitemaps to read besides those robots.txt names
  // (docs/sitemaps.md); sitemaps_enabled() unless `sitemaps` is false.
  std::vector<std::string> sitemap_urls;
  // Site profile: which links are followed (link_scope.h's CrawlScope).
  std::string scope = "domain";
  std::vector<std::string> allowed_domains;
  std::vector<std::string> exclude_patterns;
  std::vector<std::string> follow_patterns;  // an allow list; empty: every link
  std::vector<std::string> strip_query_params;
  std::int64_t revisit_after_ms = 0;  // key `revisit_after`; 0 = never
  // Adaptive revisits (core/frontier/revisit_policy.h): each page's interval
  // halves when it changed and grows by half when not, within
  // [revisit_min, revisit_max].
  bool adaptive_revisit = false;
  std::int64_t revisit_min_ms = 3600LL * 1000;
  std::int64_t revisit_max_ms = 30LL * 24 * 3600 * 1000;
  // How often a run asks for pages that fell due while it goes on (site
  // profile); 0: only when a run begins.
  std::int64_t revisit_check_interval_ms = 10LL * 60 * 1000;
  std::string db_path = "actorcrawl.db";
  std::string metrics_path = "metrics.log";
  std::string trace_path;
  // Politeness beyond the fixed delay.
  std::int64_t max_politeness_delay_ms = 30000;  // cap for Crawl-delay, Retry-After, adaptive delay
  std::int64_t politeness_delay_factor_percent = 200;  // delay >= this % of the last response time
  std::int64_t robots_cache_ttl_ms = 24LL * 3600 * 1000;
  // Crawler-trap defences (site profile).
  std::int64_t max_url_length = 1024;
  std::int64_t max_repeated_path_segments = 3;
  std::int64_t max_pages_per_host = 0;  // 0: unlimited
  std::int64_t max_query_variants_per_path = 100;
  // Links kept per page (recorded and offered), in document order. Nutch
  // keeps 100 by default and Heritrix 6000; 1000 keeps every link of nearly
  // every real page while one hostile page adds at most that many rows.
  std::int64_t max_links_per_page = 1000;
  // Domains profile: hosts never crawled nor linked (RE2, searched in the host).
  std::vector<std::string> excluded_domains = {
    R"((^|\.)facebook\.com$)", R"((^|\.)twitter\.com$)", R"((^|\.)instagram\.com$)",
    R"((^|\.)linkedin\.com$)", R"((^|\.)google-analytics\.com$)", R"((^|\.)doubleclick\.net$)",
    R"(^ads\.)", R"(^analytics\.)"};
  // Name resolution overrides, as curl's --resolve: "host:port:address".
  std::vector<std::string> resolve;
  // The processor chain and the actors' sizing.
  // Each entry a processor's name, or an object ({name, exec, ...}: an
  // external processor) kept as its JSON text.
  std::vector<std::string> processors = {"html_links"};
  // Key `extract`: the extraction rules (docs/plugins.md) as JSON text, an
  // array of rule objects; "" for none.
  std::string extract_rules;
  std::string save_pages_dir = "pages";
  // Keys `cookies` (a jar per crawl, core/fetch/cookie_jar.h) and
  // `cookies_file` (a Netscape cookies.txt loaded into it at start).
  bool cookies = true;
  std::string cookies_file;
  // No key: a cookies.txt's text given otherwise (a service job's
  // "cookies"), loaded into the jar after cookies_file.
  std::string cookies_text;
  // Key `keep_bodies`: each fetched body kept in the database, compressed,
  // once per digest: what `actorcrawl extract` and `parse --db` run
  // processors on again. Its default: keep_bodies_enabled().
  bool keep_bodies = true;
  // Key `bodies_dir`: where a worker node keeps the bodies it fetched
  // (core/store/node_bodies.h) rather than send them to the coordinator,
  // and where `extract` and `parse --db` look for a body the database does
  // not hold; "": a node sends its bodies with the pages' rows.
  std::string bodies_dir = "bodies";
  // The `warc` processor's files (docs/warc.md).
  std::string warc_dir = "warc";
  std::string warc_prefix = "actorcrawl";
  std::int64_t warc_max_bytes = 1LL << 30;
  std::int64_t transfers_per_worker = 32;
  std::int64_t parse_lanes = 0;          // parsers behind the ProcessorActor; 0: one per core
  std::int64_t scheduler_threads = 0;    // CAF's scheduler; 0: scheduler_threads() in core/setup
  std::int64_t max_in_flight = 0;        // handed out, unsettled URLs; 0: selector buffer + 2 x slots
  std::int64_t max_connections_per_host = 2;  // at once to one host, only while its delay is 0
  std::int64_t max_leases_per_host = 2;  // site profile: URLs of one host out at once
  std::int64_t frontier_window = 10000;
  std::int64_t storage_batch = 2048;  // a batch also commits storage_commit_interval_ms after its first write
  // At most this long between a batch's first write and its commit: what a
  // crash may make the next run fetch again (docs/schema.md).
  std::int64_t storage_commit_interval_ms = 1000;
  std::int64_t progress_interval_ms = 1000;
  bool report_timings = true;  // the per-stage time table at the end
  // Several nodes (docs/deployment.md).
  std::string listen = "127.0.0.1:7788";  // coordinator: where workers connect
  std::string connect;                    // worker: the coordinator's HOST:PORT
  std::string tls_cert;                   // PEM files; all three set: TLS between nodes
  std::string tls_key;
  std::string tls_ca;
  std::int64_t heartbeat_interval_ms = 1000;
  std::int64_t peer_timeout_ms = 5000;       // silent this long: the peer is gone
  std::int64_t reconnect_timeout_ms = 60000; // worker: how long to look for a lost coordinator
  std::string node_id;                       // names this process in traces; default host:pid
  // Refuse private, loopback and link-local addresses, after name resolution
  // and on every redirect, even the seeds' (the crawl service sets it for
  // submitted jobs unless allow_private_networks). Without either key a
  // crawl reaches them only for the hosts its user named
  // (private_hosts_allowed() in core/setup/crawl_setup.h).
  bool block_private_networks = false;
  // The crawl service (`actorcrawl serve`).
  std::string service_listen = "127.0.0.1:8088";
  std::string service_token;             // bearer token; empty: no token needed
  std::string service_dir = "actorcrawl-service";  // service.db and jobs/
  std::int64_t max_concurrent_jobs = 4;
  std::int64_t max_event_streams = 32;   // open GET /crawl/:id/events streams
  bool allow_private_networks = false;   // any host may be on a private address (crawl and jobs)
  std::int64_t max_request_bytes = 64 * 1024;
  std::int64_t max_pages_per_job = kDefaultMaxPagesPerJob;
  // Who may call the service, and how much of it one caller may hold
  // (docs/service.md, "Limits and safety").
  std::vector<std::string> service_allowed_hosts;    // Host names beyond loopback and the listen address
  std::vector<std::string> service_allowed_origins;  // other sites' pages allowed to call
  bool allow_remote_without_token = false;           // serve beyond loopback with no token
  std::int64_t service_max_connections = 256;        // open at once; more get 503
  std::int64_t service_read_timeout_ms = 10000;      // key `service_read_timeout`: a whole request
  // Of job_request_key_names(): the fields a job body may carry.
  std::vector<std::string> service_job_request_keys;

  // Where each key given by the user was set ("config file 'c.yaml', line
  // 3", "option '--max-pages'", "environment variable ACTORCRAWL_X", "job
  // field 'scope'"), by key name: so a key the crawl would ignore can be
  // named with its source. Defaults and values set by code are not here.
  std::map<std::string, std::string> given;

  // `profile` as the enum: what code branches on (never the text).
  CrawlProfile crawl_profile() const { return parse_crawl_profile(profile).value_or(CrawlProfile::site); }
  // `sitemaps` as given, or by default on for the site profile and off for
  // the domains profile, which fetches one root page per host and would
  // gain nothing from a list of every page (docs/sitemaps.md).
  // Sitemaps the user named turn them on in either profile.
  // `keep_bodies` as given, or by default on for a crawl that scrapes (it
  // has extraction rules or an external processor), whose rules are the
  // ones a user changes and runs again; off for a crawl of links alone,
  // which would pay a quarter more CPU a page for bodies nothing reads
  // (docs/performance.md, "Keeping bodies").
  bool keep_bodies_enabled() const {
    if (given.count("keep_bodies") != 0)
      return keep_bodies;
    if (!extract_rules.empty())
      return true;
    for (const auto& entry : processors)
      if (!entry.empty() && entry.front() == '{')
        return true;
    return false;
  }
  bool sitemaps_enabled() const {
    return given.count("sitemaps") != 0 ? sitemaps : crawl_profile() == CrawlProfile::site || !sitemap_urls.empty();
  }
};

// A configuration that cannot be used. The message names the source (file
// and line, flag or environment variable), the key and what was wrong.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `structured`: a YAML value of any shape (the extraction rules), kept as
// JSON text; a flag or variable gives it as YAML or JSON text.
enum class ValueKind { integer, boolean, text, text_list, duration_ms, bytes, structured };

struct ConfigKey {
  const char* name;  // YAML key, snake_case
  ValueKind kind;
  const char* help;
  std::variant<std::int64_t CrawlConfig::*, bool CrawlConfig::*, std::string CrawlConfig::*,
               std::vector<std::string> CrawlConfig::*>
    member;
  std::int64_t min = 0;  // numeric kinds
  std::int64_t max = 0;
  std::vector<std::string> choices = {};  // text kinds with a closed set
  // One rule for every source of a list: the items of a comma_separated
  // list never contain a comma (host names, parameter and processor names),
  // so "a,b" is two items wherever it is written -- a flag, a YAML scalar,
  // an environment variable. The items of the other lists (seeds, patterns,
  // resolve entries) may contain commas: a flag or a YAML scalar is one
  // item, and an environment variable holds one item per line.
  bool comma_separated = false;
  // text_list whose items may also be objects (a YAML mapping, or a flag
  // value starting with '{'), each kept as its JSON text and never split.
  bool object_items = false;
  // How --help shows the default when the value alone would mislead (an
  // empty one that means something, one that depends on the profile).
  const char* shown_default = nullptr;
};

// Every key, in the order --help and configs/default.yaml list them
// (core/config/config_keys.cc); one key by name, nullptr for none.
const std::vector<ConfigKey>& config_keys();
const ConfigKey* find_config_key(std::string_view name);

// The fields of a service job that carry what sites require (headers,
// auth, cookies, proxy): each allowed in a job body only when the
// service's operator lists it in service_job_request_keys. Inline: the
// service's job parser (and its fuzz target) needs no more of config.
inline const std::vector<std::string>& job_request_key_names() {
  static const std::vector<std::string> names = {"headers", "auth", "cookies", "proxy"};
  return names;
}

// Reads a YAML mapping of config keys over `config`. Unknown keys, wrong
// types, out-of-range values and YAML syntax errors throw ConfigError naming
// `source` and the line.
void apply_yaml(const std::string& yaml_text, const std::string& source, CrawlConfig& config);
void apply_yaml_file(const std::string& path, CrawlConfig& config);

// The text of a file the configuration names (the config file itself,
// cookies_file), read whole but never past `max_bytes`. A missing or
// unreadable file, a directory and a larger file (a device that never
// ends) are ConfigErrors: "<label>: cannot be read (<why>)", "<label>: is a
// directory, not <kind>", "<label>: larger than 16 MiB".
std::string read_named_file(const std::string& path, const std::string& label, const char* kind,
                            std::size_t max_bytes = std::size_t{16} << 20);

// ACTORCRAWL_<KEY> for every key (lists split as ConfigKey::comma_separated
// says), plus the seed designs' CRAWL_DELAY_MS (politeness_delay_ms) and
// SEED (seeds).
void apply_environment(CrawlConfig& config,
                       const std::function<const char*(const char*)>& lookup);

// Parses `--flag value` / `--flag=value` arguments. Every key is a flag
// (`max_pages` -> --max-pages; duration keys also without the -ms suffix,
// taking units: --politeness-delay 1s), plus --seed, --workers, --db,
// --metrics, --trace. A repeated list flag appends; the first one replaces
// what the file said. Returns the arguments that are not flags; throws
// ConfigError for an unknown flag or a bad value. `--config` must have been
// taken out by the caller (see config_path_from_args).
std::vector<std::string> apply_command_line(const std::vector<std::string>& args,
                                            CrawlConfig& config);
// The value of --config / -c, if given.
std::string config_path_from_args(const std::vector<std::string>& args);

// Everything a command line says, in order of precedence: the --config
// file, then ACTORCRAWL_* variables of the process's environment, then the
// flags. A leftover argument is a ConfigError pointing at `help_command`.
void apply_config_sources(const std::vector<std::string>& args, CrawlConfig& config,
                          const std::string& help_command);

// Checks that span keys (e.g. at least one seed is a valid http(s) URL).
void validate(const CrawlConfig& config, bool seeds_required);

// The profile that uses `key`, when only one of them does: a site crawl
// ignores max_crawls_per_node, a domain-graph crawl ignores scope.
std::optional<CrawlProfile> profile_using(const std::string& key);
// Throws ConfigError for a key in `config.given`, set to other than its
// default, that the configured profile ignores: naming the key, where it
// was set and the profile that uses it. A value that changes nothing is
// accepted, so a copy of configs/default.yaml works with either profile.
void check_profile_keys(const CrawlConfig& config);

// A node's address: "HOST:PORT", "[v6]:PORT" or "PORT" (host 127.0.0.1).
// Throws ConfigError naming `key` for anything else.
struct NodeAddress {
  std::string host;
  std::uint16_t port = 0;
  // Only this machine can connect: "localhost", 127.0.0.0/8 or ::1.
  bool loopback_only() const;
};
NodeAddress parse_node_address(const std::string& text, const std::string& key);

// Every option with its flag, default and meaning, for --help.
std::string options_help();
// configs/default.yaml: every key at its default, each with its help as a
// comment; loading it gives CrawlConfig{}.
std::string default_config_yaml();
// Every key of `config` as YAML that apply_yaml() reads back to the same
// values, without comments (seed_url is left out: `seeds` holds it).
std::string config_yaml(const CrawlConfig& config);

// Parsers shared by the loaders; exposed for tests. Throw ConfigError with
// a message that does not name the source (the caller adds it).
std::int64_t parse_duration_ms(const std::string& text);
std::int64_t parse_byte_size(const std::string& text);
bool parse_boolean(const std::string& text);

}  // namespace actorcrawl
