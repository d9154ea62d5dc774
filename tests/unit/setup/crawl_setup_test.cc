#include "core/setup/crawl_setup.h"

#include <catch2/catch.hpp>

#include "core/page/link_scope.h"
#include "core/report/console_log.h"

namespace actorcrawl {
namespace {

std::shared_ptr<const LinkScope> scope_of(const CrawlConfig& config) {
  std::vector<Url> seeds;
  for (const auto& s : config.seeds)
    seeds.push_back(*Url::parse(s));
  std::string error;
  auto scope = LinkScope::make(config.allowed_domains, config.exclude_patterns, seeds, &error);
  REQUIRE(scope);
  return scope;
}

}  // namespace

TEST_CASE("max_in_flight defaults to the selector's buffer plus two per transfer slot", "[crawl_setup]") {
  CrawlConfig c;
  c.concurrent_workers = 3;
  c.transfers_per_worker = 32;
  CHECK(transfer_slots(c) == 96);
  CHECK(frontier_settings(c).max_in_flight == 1024 + 192);
  c.concurrent_workers = 10;
  c.transfers_per_worker = 100;
  CHECK(frontier_settings(c).max_in_flight == 4000 + 2000);
  c.max_in_flight = 7;
  CHECK(frontier_settings(c).max_in_flight == 7);
}

TEST_CASE("the scheduler runs as many threads as the process has parse lanes, one on a coordinator that fetches nothing",
          "[crawl_setup]") {
  CrawlConfig c;
  c.concurrent_workers = 2;
  c.parse_lanes = 3;
  CHECK(scheduler_threads(c) == 3);
  c.parse_lanes = 0;
  CHECK(scheduler_threads(c) == parse_lanes(c));
  c.concurrent_workers = 0;  // a coordinator whose worker nodes process the pages
  CHECK(scheduler_threads(c) == 1);
  c.scheduler_threads = 5;
  CHECK(scheduler_threads(c) == 5);
}

TEST_CASE("per-host leases leave room for every connection and one waiting URL", "[crawl_setup]") {
  CrawlConfig c;
  c.max_leases_per_host = 2;
  c.max_connections_per_host = 1;
  CHECK(frontier_settings(c).site.per_host_leases == 2);
  c.max_connections_per_host = 4;
  CHECK(frontier_settings(c).site.per_host_leases == 5);
  c.max_leases_per_host = 0;
  CHECK(frontier_settings(c).site.per_host_leases == 0);
}

TEST_CASE("frontier settings carry the profile and both profiles' limits", "[crawl_setup]") {
  CrawlConfig c;
  c.profile = "domains";
  c.max_depth = 4;
  c.max_pages = 77;
  c.max_crawls_per_node = 5;
  c.max_subdomains_per_root = 6;
  const auto f = frontier_settings(c);
  CHECK(f.profile == CrawlProfile::domains);
  CHECK(f.domain.max_depth == 4);
  CHECK(f.domain.max_pages == 77);
  CHECK(f.domain.max_crawls_per_node == 5);
  CHECK(f.domain.max_subdomains_per_root == 6);
  CHECK(f.site.max_pages == 77);
  REQUIRE(f.traps);
  CHECK(f.traps->max_url_length == static_cast<std::size_t>(c.max_url_length));
}

TEST_CASE("politeness settings: robots.txt gets as many tries as a page", "[crawl_setup]") {
  CrawlConfig c;
  c.retry_attempts = 2;
  c.retry_delay_ms = 0;
  c.politeness_delay_ms = 250;
  const auto p = politeness_settings(c);
  CHECK(p.robots_attempts == 3);
  CHECK(p.robots_retry_delay.count() == 1);  // never a zero-delay retry loop
  CHECK(p.delay.count() == 250);
  CHECK(p.respect_robots);
}

TEST_CASE("parse lanes: as configured, else one per core", "[crawl_setup]") {
  CrawlConfig c;
  c.parse_lanes = 3;
  CHECK(parse_lanes(c) == 3);
  c.parse_lanes = 0;
  CHECK(parse_lanes(c) >= 1);
}

TEST_CASE("the page pipeline follows the profile", "[crawl_setup]") {
  CrawlConfig c;
  c.seeds = {"http://a.test/"};
  const FetchedPage page{"http://a.test/", "http://a.test/", 0, 200, "text/html", "",
                         "<a href=/in>in</a><a href=http://b.test/out>out</a>", false, ""};
  const CrawlJob job{1, "http://a.test/", "a.test", 0};
  SECTION("site: links within the seeds' domain") {
    const auto out = page_pipeline(c, scope_of(c))->process(job, page, FetchFacts{});
    REQUIRE(out.to_crawl.size() == 1);
    CHECK(out.to_crawl[0].url == "http://a.test/in");
  }
  SECTION("domains: other hosts' root pages") {
    c.profile = "domains";
    const auto out = page_pipeline(c, scope_of(c))->process(job, page, FetchFacts{});
    REQUIRE(out.to_crawl.size() == 1);
    CHECK(out.to_crawl[0].url == "http://b.test/");
  }
  SECTION("a bad processor or pattern is a configuration error") {
    c.processors = {"html_links", "nope"};
    CHECK_THROWS_AS(page_pipeline(c, scope_of(c)), ConfigError);
    c.processors = {"html_links"};
    c.profile = "domains";
    c.excluded_domains = {"(unclosed"};
    CHECK_THROWS_AS(page_pipeline(c, scope_of(c)), ConfigError);
  }
}

TEST_CASE("the progress line counts URLs, or nodes for the domains profile", "[console_log]") {
  const ProgressSnapshot p{5, 2, 40, 30, 1};
  CHECK(progress_text(p, 12.34, false, CrawlProfile::site) ==
        "queue 5 | in flight 2 | pages 30 (12.3/s) | errors 1 | seen 40");
  CHECK(progress_text(p, 0, true, CrawlProfile::domains) ==
        "queue 5 | in flight 2 | pages 30 (0.0/s) | errors 1 | nodes 40 | stopping");
}

}  // namespace actorcrawl

namespace actorcrawl {
namespace {

std::string check_error(const CrawlConfig& c) {
  try {
    check_crawl(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("check_crawl: what a crawl would stop on is refused before it starts", "[crawl_setup]") {
  CrawlConfig c;
  c.seeds = {"http://127.0.0.1:8080/"};
  CHECK(check_error(c) == "(no error)");
  c.processors = {"html_links", "warc"};  // the archive is opened later, not checked here
  CHECK(check_error(c) == "(no error)");

  for (const std::string entry : {"a b", "[::1", "127.0.0.1:99999"}) {
    CrawlConfig bad = c;
    bad.allowed_domains = {"127.0.0.1", entry};
    CHECK(check_error(bad) == "allowed_domains: invalid entry '" + entry + "'");
  }
  CrawlConfig pattern = c;
  pattern.exclude_patterns = {"("};
  CHECK(check_error(pattern).rfind("exclude_patterns: invalid regular expression '('", 0) == 0);
  CrawlConfig processor = c;
  processor.processors = {"html_link"};
  CHECK(check_error(processor) == "processors: unknown processor 'html_link' (known: extract, html_links, save_pages, warc)");
  CrawlConfig domains = c;
  domains.profile = "domains";
  domains.excluded_domains = {"["};
  CHECK(check_error(domains) != "(no error)");
  // A plugin's items are of its name's kind, a rule's of the rule's: one
  // name for both is refused before any plugin starts.
  CrawlConfig shared = c;
  shared.extract_rules = R"([{"name": "product", "fields": {"title": {"css": "h1"}}}])";
  shared.processors = {R"({"name": "product", "exec": ["python3", "plugin.py"]})"};
  CHECK(check_error(shared) ==
        "processors: external processor 'product': an extraction rule has that name, and items of both would be "
        "one kind of two shapes (the kind is the name): rename one");
  shared.processors = {R"({"name": "reviews", "exec": ["python3", "plugin.py"]})"};
  CHECK(check_error(shared) == "(no error)");
  CrawlConfig none = c;
  none.seeds.clear();
  CHECK(check_error(none) == "no seed: give --seed URL, seed_url in the config file, or SEED=URL");
}

TEST_CASE("check_crawl: each seed must be within the scope", "[crawl_setup]") {
  CrawlConfig c;
  c.seeds = {"http://127.0.0.1:8080/", "http://127.0.0.2/"};
  c.allowed_domains = {"127.0.0.1"};
  CHECK(check_error(c) ==
        "seed 'http://127.0.0.2/' is outside the crawl's scope: its host 127.0.0.2 is not within allowed_domains");
  c.allowed_domains.clear();
  c.exclude_patterns = {"8080"};
  CHECK(check_error(c) == "seed 'http://127.0.0.1:8080/' matches one of exclude_patterns");
  c.exclude_patterns.clear();
  // A seed need not match follow_patterns: they choose the links followed
  // from it. A bad one is named.
  c.follow_patterns = {"/docs/"};
  CHECK(check_error(c) == "(no error)");
  c.follow_patterns = {"("};
  CHECK(check_error(c).rfind("follow_patterns: invalid regular expression '('", 0) == 0);
  c.follow_patterns.clear();
  c.scope = "host";
  auto scope = check_crawl(c);
  CHECK(scope->check(*Url::parse("http://127.0.0.2:9/")) == ScopeVerdict::in_scope);
  CHECK(scope->check(*Url::parse("http://127.0.0.3/")) == ScopeVerdict::out_of_domain);
  c.scope = "any";
  CHECK(check_crawl(c)->check(*Url::parse("http://example.org/")) == ScopeVerdict::in_scope);
  // The domains profile has no scope: its seeds are hosts to start from.
  CrawlConfig d;
  d.profile = "domains";
  d.seeds = {"http://127.0.0.2/"};
  d.allowed_domains = {"127.0.0.1"};  // set by code (the demo web), not given
  CHECK(check_error(d) == "(no error)");
  d.given["allowed_domains"] = "option '--allowed-domains'";
  CHECK(check_error(d) ==
        "option '--allowed-domains': key 'allowed_domains' is used only by the site profile, and this crawl's "
        "profile is domains (set profile: site, or remove the key)");
}

TEST_CASE("private_hosts_allowed: the hosts the user named, each once", "[crawl_setup]") {
  CrawlConfig c;
  c.seeds = {"http://Intranet.Example:8080/a", "http://intranet.example/b", "http://[::1]:9/"};
  c.sitemap_urls = {"https://10.0.0.7/sitemap.xml"};
  c.allowed_domains = {"Wiki.Example"};
  c.resolve = {"+Test.Local:443:127.0.0.2", "other.local:80:127.0.0.3,127.0.0.4"};
  CHECK(private_hosts_allowed(c) ==
        std::vector<std::string>{"intranet.example", "::1", "10.0.0.7", "wiki.example", "test.local", "other.local"});
  CHECK(private_hosts_allowed(CrawlConfig{}).empty());
}

}  // namespace actorcrawl
