#include "core/setup/crawl_setup.h"

#include <algorithm>
#include <thread>

#include "core/page/domain_link_filter.h"
#include "core/page/processor_registry.h"
#include "core/extract/extract_processor.h"
#include "core/extract/extraction_rules.h"
#include "core/fetch/request_rules.h"
#include "core/plugin/external_processor.h"
#include "core/page/link_scope.h"
#include "core/frontier/revisit_policy.h"
#include "core/hosts/work_bounds.h"
#include "core/web/ascii.h"
#include "core/web/robots_txt.h"
#include "core/web/url.h"

namespace actorcrawl {

namespace {

// Stands in for the WARC archive while a configuration is only checked:
// the chain is built to see that it can be, never run.
class ArchiveNotOpened final : public ResponseArchive {
 public:
  void archive(const HttpExchange&) override {}
};

// Stands for an external processor while a configuration is only checked:
// its entry was read (parse_external_processor), nothing was started.
class ExternalProcessorChecked final : public PageProcessor {
 public:
  explicit ExternalProcessorChecked(std::string name) : name_(std::move(name)) {}
  const char* name() const override { return name_.c_str(); }
  // As the processor it stands for: its worker nodes' fetches keep heads.
  bool reads_response_head() const override { return true; }
  void process(const FetchedPage&, PageAnalysis&) override {}

 private:
  std::string name_;
};

// Entries {name, exec, ...}: external processors (core/plugin), started
// when the chain is to run; a program that cannot start is an error then.
// `rule_names`: the extraction rules' names. A plugin's items take its
// name as their kind, a rule's items the rule's: one name for both would
// make one kind of two shapes in the store and the exports.
void register_external_processors(ProcessorRegistry& registry, ChainUse use, std::vector<std::string> rule_names) {
  registry.add_object_kind("exec", [use, rule_names](const std::string& entry,
                                                     const ProcessorChain::Options&) -> std::shared_ptr<PageProcessor> {
    // parse_external_processor refuses the built-ins' names; `extract` is
    // registered per crawl, so it is refused here.
    ExternalProcessorSpec spec = parse_external_processor(entry);
    if (spec.name == "extract")
      throw ConfigError("external processor 'extract': the name is the extraction rules' processor's");
    if (std::find(rule_names.begin(), rule_names.end(), spec.name) != rule_names.end())
      throw ConfigError("external processor '" + spec.name + "': an extraction rule has that name, and items of "
                        "both would be one kind of two shapes (the kind is the name): rename one");
    if (use == ChainUse::check)
      return std::make_shared<ExternalProcessorChecked>(spec.name);
    // A Python plugin imports the helper module wherever it lives.
    spec.python_path = plugin_helper_dirs();
    try {
      return ExternalProcessor::start(std::move(spec));
    } catch (const PluginStartError& e) {
      throw ConfigError(e.what());
    }
  });
}

}  // namespace

std::shared_ptr<const LinkScope> check_crawl(const CrawlConfig& config) {
  validate(config, true);
  check_profile_keys(config);
  const auto mode = parse_crawl_scope(config.scope);
  if (!mode)
    throw ConfigError("scope: '" + config.scope + "' is not a scope (known: domain, host, any)");
  std::vector<Url> seeds;
  for (const auto& s : config.seeds)
    seeds.push_back(*Url::parse(s));
  std::string error;
  std::shared_ptr<const LinkScope> scope =
    LinkScope::make(*mode, config.allowed_domains, config.exclude_patterns, seeds, &error, config.follow_patterns);
  if (!scope)
    throw ConfigError(error);
  // A seed outside the scope would be fetched and then none of its links:
  // surely not what was meant. (The domains profile has no such scope.)
  if (config.crawl_profile() == CrawlProfile::site) {
    for (const Url& seed : seeds) {
      switch (scope->check(seed)) {
        case ScopeVerdict::in_scope:
          break;
        case ScopeVerdict::out_of_domain:
          throw ConfigError("seed '" + seed.str() + "' is outside the crawl's scope: its host " + seed.host_key() +
                            " is not within allowed_domains" +
                            (*mode == CrawlScope::host ? " and the seeds' hosts" : std::string{}));
        case ScopeVerdict::excluded:
          throw ConfigError("seed '" + seed.str() + "' matches one of exclude_patterns");
        case ScopeVerdict::not_followed:
          break;  // a seed is where the crawl begins, whatever follow_patterns say
      }
    }
  }
  page_pipeline(config, scope, check_only_archive(), ChainUse::check);
  // The cookies file, read and checked line by line.
  (void)cookie_jar(config);
  if (!RequestRules::make(config.request_headers, config.auth, &error))
    throw ConfigError(error);
  return scope;
}

std::size_t transfer_slots(const CrawlConfig& config) {
  return static_cast<std::size_t>(std::max<std::int64_t>(config.concurrent_workers * config.transfers_per_worker, 0));
}

std::size_t parse_lanes(const CrawlConfig& config) {
  if (config.parse_lanes > 0)
    return static_cast<std::size_t>(config.parse_lanes);
  return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t scheduler_threads(const CrawlConfig& config) {
  if (config.scheduler_threads > 0)
    return static_cast<std::size_t>(config.scheduler_threads);
  return config.concurrent_workers > 0 ? parse_lanes(config) : 1;
}

HostScheduler::Settings politeness_settings(const CrawlConfig& config) {
  using std::chrono::milliseconds;
  HostScheduler::Settings s;
  s.delay = milliseconds{config.politeness_delay_ms};
  s.max_delay = milliseconds{config.max_politeness_delay_ms};
  s.delay_factor_percent = static_cast<int>(config.politeness_delay_factor_percent);
  s.respect_robots = config.respect_robots_txt;
  s.robots_ttl = milliseconds{config.robots_cache_ttl_ms};
  // robots.txt gets as many tries as a page.
  s.robots_attempts = static_cast<int>(config.retry_attempts) + 1;
  s.robots_retry_delay = milliseconds{std::max<std::int64_t>(config.retry_delay_ms, 1)};
  s.max_connections_per_host = static_cast<int>(config.max_connections_per_host);
  s.host_backoff = milliseconds{config.host_backoff_ms};
  return s;
}

std::shared_ptr<ResponseArchive> check_only_archive() { return std::make_shared<ArchiveNotOpened>(); }

std::vector<std::string> private_hosts_allowed(const CrawlConfig& config) {
  std::vector<std::string> hosts;
  const auto add = [&](std::string host) {
    if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end())
      hosts.push_back(std::move(host));
  };
  for (const auto& list : {&config.seeds, &config.sitemap_urls})
    for (const auto& text : *list)
      if (auto url = Url::parse(text))
        add(url->host());
  for (const auto& name : config.allowed_domains)
    add(ascii::lowercase(name));
  // [+]HOST:PORT:ADDRESS (validate() checked the form): the name before
  // the first colon, which a URL's host matches lowercased.
  for (const auto& entry : config.resolve) {
    std::string_view rest = entry;
    if (!rest.empty() && rest.front() == '+')
      rest.remove_prefix(1);
    add(ascii::lowercase(rest.substr(0, rest.find(':'))));
  }
  return hosts;
}

SitemapSettings sitemap_settings(const CrawlConfig& config) {
  SitemapSettings s;
  s.enabled = config.sitemaps_enabled();
  // The per-host URL cap stays the walk's (100,000), not max_pages: a later
  // run with a larger budget resumes from the frontier and does not read a
  // sitemap again, so URLs left out now would be lost to it.
  s.ledger.seeds = config.seeds;
  s.ledger.given = config.sitemap_urls;
  s.ledger.max_pages = config.max_pages;
  if (config.revisit_after_ms > 0)
    s.revisit_after_ms = RevisitPolicy{RevisitSettings{config.revisit_after_ms, config.revisit_min_ms,
                                                       config.revisit_max_ms, config.adaptive_revisit}}
                           .settings()
                           .revisit_min_ms;
  return s;
}

FrontierSettings frontier_settings(const CrawlConfig& config) {
  FrontierSettings f;
  f.profile = config.crawl_profile();
  // Sitemaps that are read whatever the seeds find (read again, named by
  // the user, or left unread by an earlier run): the Frontier must not end
  // before it hears of them.
  f.await_sitemaps = config.sitemaps_enabled();
  f.site.window = static_cast<std::size_t>(config.frontier_window);
  f.site.max_pages = config.max_pages;
  f.site.max_depth = static_cast<std::int32_t>(config.max_depth);
  // Each connection to a host needs a URL of it out, and one more waiting.
  f.site.per_host_leases =
    config.max_leases_per_host == 0
      ? 0
      : static_cast<std::size_t>(std::max(config.max_leases_per_host, config.max_connections_per_host + 1));
  f.traps = TrapGuard::Limits{static_cast<std::size_t>(config.max_url_length),
                              static_cast<std::size_t>(config.max_repeated_path_segments),
                              static_cast<std::size_t>(config.max_pages_per_host),
                              static_cast<std::size_t>(config.max_query_variants_per_path)};
  f.domain.max_depth = static_cast<std::int32_t>(config.max_depth);
  f.domain.max_pages = config.max_pages;
  f.domain.max_crawls_per_node = config.max_crawls_per_node;
  f.domain.max_subdomains_per_root = static_cast<std::size_t>(config.max_subdomains_per_root);
  f.host_backoff = std::chrono::milliseconds{config.host_backoff_ms};
  f.revisit_after_ms = config.revisit_after_ms;
  f.revisit_check = std::chrono::milliseconds{config.revisit_check_interval_ms};
  f.max_in_flight = config.max_in_flight > 0 ? static_cast<std::size_t>(config.max_in_flight)
                                             : default_max_in_flight(transfer_slots(config));
  return f;
}

std::vector<std::string> processor_entries(const CrawlConfig& config) {
  std::vector<std::string> entries = config.processors;
  if (!config.extract_rules.empty() && std::find(entries.begin(), entries.end(), "extract") == entries.end())
    entries.push_back("extract");
  return entries;
}

namespace {

// The registry of this crawl's chain: the built-ins, `extract` with the
// configured rules (compiled once, shared by every parser lane), and
// external processors.
ProcessorRegistry crawl_registry(const CrawlConfig& config, ChainUse use) {
  ProcessorRegistry registry = ProcessorRegistry::builtin();
  std::shared_ptr<const ExtractionRules> rules;
  if (!config.extract_rules.empty()) {
    try {
      rules = ExtractionRules::compile(config.extract_rules);
    } catch (const ExtractionRuleError& e) {
      throw ConfigError(e.what());
    }
  }
  registry.add("extract", [rules](const std::string&, const ProcessorChain::Options&) -> std::shared_ptr<PageProcessor> {
    if (!rules)
      throw std::runtime_error("extract has no rules to run (give them as extract:)");
    return std::make_shared<ExtractProcessor>(rules);
  });
  register_external_processors(registry, use, rules ? rules->names() : std::vector<std::string>{});
  return registry;
}

}  // namespace

std::shared_ptr<CookieJar> cookie_jar(const CrawlConfig& config, const std::vector<std::string>& kept) {
  if (!config.cookies)
    return nullptr;
  auto jar = std::make_shared<CookieJar>();
  jar->load_lines(kept);
  if (!config.cookies_text.empty()) {
    try {
      jar->load_text(config.cookies_text);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string{"cookies: "} + e.what());
    }
  }
  if (config.cookies_file.empty())
    return jar;
  const std::string label = "cookies_file '" + config.cookies_file + "'";
  try {
    jar->load_text(read_named_file(config.cookies_file, label, "a cookies.txt"));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(label + ": " + e.what());
  }
  return jar;
}

ProcessorChain processor_chain(const CrawlConfig& config, ChainUse use, std::shared_ptr<ResponseArchive> archive) {
  std::string error;
  const auto parser = html_parser_from_name(config.html_parser);
  if (!parser)
    throw ConfigError("html_parser: '" + config.html_parser + "' is not a parser (known: fast, html5)");
  auto chain = crawl_registry(config, use).make_chain(
    processor_entries(config), ProcessorChain::Options{config.save_pages_dir, *parser, std::move(archive)}, &error);
  if (!error.empty())
    throw ConfigError(error);
  return chain;
}

std::shared_ptr<const PagePipeline> page_pipeline(const CrawlConfig& config, std::shared_ptr<const LinkScope> scope,
                                                  std::shared_ptr<ResponseArchive> archive, ChainUse use) {
  std::string error;
  auto chain = processor_chain(config, use, std::move(archive));
  std::shared_ptr<const LinkSelector> links;
  switch (config.crawl_profile()) {
    case CrawlProfile::site:
      links = std::make_shared<const SiteLinkSelector>(std::move(scope), config.strip_query_params,
                                                       static_cast<std::size_t>(config.max_links_per_page));
      break;
    case CrawlProfile::domains:
      links = DomainLinkFilter::make(config.excluded_domains, static_cast<std::size_t>(config.max_outbound_links),
                                     &error, static_cast<std::size_t>(config.max_links_per_page));
      if (!links)
        throw ConfigError(error);
      break;
  }
  return std::make_shared<const PagePipeline>(std::make_shared<const ProcessorChain>(std::move(chain)),
                                              std::move(links), product_token_of(config.user_agent),
                                              static_cast<std::size_t>(config.max_redirects), config.max_body_bytes,
                                              config.keep_bodies_enabled());
}

}  // namespace actorcrawl
