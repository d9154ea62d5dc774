// How a crawl's frontier starts, whichever its profile: the seeds turned
// into the URLs to offer, what to ask the store for to resume, and the
// frontier built from its answer. The FrontierActor calls these in that
// order and never looks at the profile itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/frontier/crawl_frontier.h"
#include "core/crawl/crawl_profile.h"
#include "core/frontier/domain_frontier.h"
#include "core/frontier/frontier_window.h"
#include "core/crawl/records.h"
#include "core/frontier/trap_guard.h"

namespace actorcrawl {

struct FrontierSettings {
  CrawlProfile profile = CrawlProfile::site;
  FrontierWindow::Limits site;
  std::optional<TrapGuard::Limits> traps;
  DomainFrontier::Limits domain;
  // URLs leased and not yet settled, at most: bounds the fetched pages that
  // can wait for the Processor, whatever the HostSelector asks for.
  std::size_t max_in_flight = 256;
  // frontier_delta messages sent and not yet written by the Storage actor,
  // at most: past it the Frontier leases nothing until the store catches up
  // (deltas_written). Without it a store slower than the fetches (a web of
  // many new links a page, a slow disk) lets its mailbox, and the process,
  // grow without bound. Each delta is one settled page's rows.
  std::size_t max_unwritten_deltas = 512;
  // How long a URL parked after a transient failure waits at first
  // (transient_failure.h's park_delay doubles it).
  std::chrono::milliseconds host_backoff{5 * 60 * 1000};
  // Revisits in the middle of a run: every `revisit_check` the Frontier
  // asks the Storage for fetched pages whose interval (revisit_after, or
  // the page's adaptive one) has passed, and queues them again. Zero
  // revisit_after_ms or revisit_check: pages are revisited only when a run
  // begins.
  std::int64_t revisit_after_ms = 0;
  std::chrono::milliseconds revisit_check{0};
  // Sitemaps with revisits on: the HostSelector reads again at the start of
  // a run the sitemaps an earlier run read, and the crawl is not over
  // before it has said how many sitemaps are open (sitemaps_open), though
  // nothing else may be queued.
  bool await_sitemaps = false;
};

struct SeedTarget {
  std::string url;  // normalized
  std::string host_key;
};

// site: each seed URL, normalized. domains: seeds are hosts, so each
// becomes its host's root page with the seed's scheme, once per host.
// Seeds that do not parse are left out (the configuration was validated).
std::vector<SeedTarget> seed_targets(CrawlProfile profile, const std::vector<std::string>& seed_urls);

// What the store is asked for before the seeds are offered.
ResumeQuery resume_query(const FrontierSettings& settings, const std::vector<SeedTarget>& seeds);

// The frontier of the settings' profile, continuing from `resume`; `note`
// is a line for the log when an earlier crawl is continued. The seeds are
// offered after this either way (a known one is not queued twice).
struct StartedFrontier {
  std::unique_ptr<CrawlFrontier> frontier;
  std::string note;
};
StartedFrontier start_frontier(const FrontierSettings& settings, const FrontierResume& resume);

}  // namespace actorcrawl
