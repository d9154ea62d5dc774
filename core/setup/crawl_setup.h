// What a crawl's configuration becomes before any actor starts: the
// settings each part of the topology runs with, and the page pipeline of
// the configured profile. Kept apart from the actors so every derived value
// (a default computed from other keys, a minimum, a profile's choice) is
// unit-tested.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/frontier/frontier_start.h"
#include "core/hosts/host_scheduler.h"
#include "core/page/page_pipeline.h"
#include "core/hosts/sitemap_ledger.h"
#include "core/config/crawl_config.h"
#include "core/fetch/cookie_jar.h"

namespace actorcrawl {

// Everything a crawl checks before it starts, one function for `actorcrawl
// crawl`, the coordinator and the service (which answers a job it would
// refuse with 400 before accepting it): validate(), the keys the profile
// ignores (check_profile_keys), the scope and allowed_domains, the exclude
// and excluded-domain patterns, the processor chain and parser, and that
// each seed is within the scope. Throws ConfigError naming what is wrong.
// Returns the scope the crawl's links are judged by.
std::shared_ptr<const LinkScope> check_crawl(const CrawlConfig& config);

// Transfers all local FetchWorkers run at once.
std::size_t transfer_slots(const CrawlConfig& config);

// Parser lanes behind the Processor: the configured number, or one per core.
std::size_t parse_lanes(const CrawlConfig& config);

// Threads of the actor system's scheduler: scheduler_threads when given;
// else the parse lanes of a process that processes pages (the lanes are
// its CPU-bound actors, and the rest wait on them or on the network), and
// 1 for a coordinator that fetches nothing itself (its actors' work is the
// store's and the bookkeeping's, one after another). Not CAF's default
// (max(cores, 4)): each thread more is a hand-off more per message, and a
// small node pays for them in its CPU share (docs/performance.md, "The
// scheduler").
std::size_t scheduler_threads(const CrawlConfig& config);

HostScheduler::Settings politeness_settings(const CrawlConfig& config);

FrontierSettings frontier_settings(const CrawlConfig& config);
// Key `sitemaps` and what bounds them: seed hosts (whose /sitemap.xml is
// tried), max_pages, revisit_after.
SitemapSettings sitemap_settings(const CrawlConfig& config);

// The hosts a crawl may reach on a private, loopback or link-local
// address when it blocks the rest (FetchEngine::set_private_hosts_allowed):
// those its user named: the hosts of its seeds and sitemap_urls, the names
// in allowed_domains (exactly: not their subdomains) and resolve entries.
// Lowercase host names, IPv6 without brackets, each once.
std::vector<std::string> private_hosts_allowed(const CrawlConfig& config);

// The crawl's cookie jar (core/fetch/cookie_jar.h), or none when `cookies`
// is false: the cookies an earlier run kept (`kept`, CookieJar::lines()),
// then cookies_file's, which replace kept ones of the same name. Throws
// ConfigError naming the file and the first line that is no cookie (never
// its value), or a file that cannot be read.
std::shared_ptr<CookieJar> cookie_jar(const CrawlConfig& config, const std::vector<std::string>& kept = {});

// What the processor chain is built for: to run (external processors are
// started), or only to be checked (their entries are read, nothing starts).
enum class ChainUse { run, check };

// What `warc` writes to in a chain built only to be checked: nothing.
std::shared_ptr<ResponseArchive> check_only_archive();

// The processor entries of a crawl, in order: `processors`, and `extract`
// at the end when rules are given and `extract` is not listed.
std::vector<std::string> processor_entries(const CrawlConfig& config);

// The processor chain of processor_entries(config): the built-ins, `extract`
// with the configured rules, external processors (started, with
// ChainUse::run). Throws ConfigError naming what is wrong.
ProcessorChain processor_chain(const CrawlConfig& config, ChainUse use,
                               std::shared_ptr<ResponseArchive> archive = nullptr);

// The processor chain, the profile's link selection (within `scope` for the
// site profile) and page directives. Throws ConfigError naming what is
// wrong (an unknown processor, an extraction rule that does not compile, an
// external processor that cannot start, an excluded-domain pattern that
// does not compile, `warc` without an archive). `archive`: where the `warc`
// processor writes (core/warc/warc_archive.h opens it).
std::shared_ptr<const PagePipeline> page_pipeline(const CrawlConfig& config, std::shared_ptr<const LinkScope> scope,
                                                  std::shared_ptr<ResponseArchive> archive = nullptr,
                                                  ChainUse use = ChainUse::run);

}  // namespace actorcrawl
