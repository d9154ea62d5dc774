// FrontierActor: owns what is left to crawl. It keeps the seen-set and a
// bounded BFS window (the rest waits in SQLite), enforces max_depth and
// max_pages, leases URLs to the HostSelector only as fast as it asks, and
// settles each URL exactly once when its outcome comes back. It decides
// when the crawl is over and tells `observer` with crawl_finished once
// Storage has flushed.
#pragma once

#include <caf/fwd.hpp>

#include <optional>
#include <string>

#include "core/frontier/frontier_start.h"
#include "messages/interfaces.h"

namespace actorcrawl {

frontier_actor spawn_frontier(caf::actor_system& sys, FrontierSettings settings, crawl_observer_actor observer);

}  // namespace actorcrawl
