// Spawns one crawl's actors and wires them: Storage, DeadLetter, Processor,
// HostSelector, Frontier and `concurrent_workers` local FetchWorkers. Every
// actor learns the others' handles from one `topology` message, and the
// workers join through worker_hello like remote ones would.
#pragma once

#include <future>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "core/config/crawl_config.h"

namespace actorcrawl {

class CrawlEvents;
class CrawlStore;
class PagePipeline;

struct CrawlTopology {
  caf::actor frontier;
  caf::actor host_selector;
  caf::actor processor;
  caf::actor storage;
  caf::actor dead_letter;
  std::vector<caf::actor> workers;

  std::vector<caf::actor> all() const;
};

struct CrawlParts {
  std::shared_ptr<CrawlStore> store;
  std::shared_future<void> store_closed;  // ready once `store` is deleted (its database closed)
  std::shared_ptr<const PagePipeline> pipeline;
  std::shared_ptr<CrawlEvents> events;  // optional: told of pages and failures
};

CrawlTopology spawn_crawl(caf::actor_system& sys, const CrawlConfig& config, CrawlParts parts,
                          caf::actor observer);

}  // namespace actorcrawl
