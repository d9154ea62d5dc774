// HostSelectorActor (the fan-out selector): hands URLs to
// FetchWorkers so that each host sees at most one request at a time, no
// sooner than its politeness delay after the last one, always from the same
// worker while that worker lives. It asks the Frontier for work only when it
// has room, and every URL it hands out is a lease: completed, returned to the
// Frontier, or — when a worker goes down — returned for someone else.
#pragma once

#include <caf/fwd.hpp>

#include "core/hosts/host_scheduler.h"
#include "core/hosts/sitemap_ledger.h"
#include "messages/topology.h"

namespace actorcrawl {

// `politeness` says how hosts are paced and whether robots.txt gates them;
// `settings` is what every worker receives when it registers; `sitemaps`
// whether (and how) the sitemaps its robots.txt files name are read.
host_selector_actor spawn_host_selector(caf::actor_system& sys, HostScheduler::Settings politeness,
                                        fetch_settings settings, SitemapSettings sitemaps = {});

}  // namespace actorcrawl
