// The configuration's keys: one table that the YAML file, the environment,
// the flags, --help, the man page, configs/default.yaml and the service's
// job bodies all read (core/config/crawl_config.h, service/job_request.cc).
#include <cstdint>
#include <limits>
#include <string_view>

#include "core/config/crawl_config.h"
#include "core/crawl/crawl_profile.h"

namespace actorcrawl {

namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kHour = 3600 * 1000;

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
    {"bodies_dir", ValueKind::text, "where a worker node keeps the bodies it fetched (keep_bodies), in actorcrawl-bodies-NODE.db, instead of sending them to the coordinator; where `actorcrawl extract` and `actorcrawl parse --db` look for a body the database does not hold. Empty: a node sends its bodies to the coordinator's database", &C::bodies_dir},
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
    {"storage_batch", ValueKind::integer, "writes per SQLite transaction, at most (a transaction also commits within storage_commit_interval of its first write)", &C::storage_batch, 1, 1'000'000},
    {"storage_commit_interval", ValueKind::duration_ms, "a SQLite transaction commits at most this long after its first write: what a crash may make the next run fetch again; longer writes less a page when pages come slowly", &C::storage_commit_interval_ms, 10, kHour},
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

const ConfigKey* find_config_key(std::string_view name) {
  for (const auto& k : config_keys())
    if (name == k.name)
      return &k;
  return nullptr;
}

}  // namespace actorcrawl
