// Spawns one crawl's actors and wires them: Storage, DeadLetter, Processor,
// HostSelector, Frontier and `concurrent_workers` local FetchWorkers. Every
// actor learns the others' handles from one `topology` message, and the
// workers join through worker_hello like remote ones would.
#pragma once

#include <future>
#include <memory>
#include <vector>

#include <caf/fwd.hpp>

#include "core/config/crawl_config.h"
#include "messages/topology.h"

namespace actorcrawl {

class CookieJar;
class CrawlEvents;
class CrawlStore;
class PagePipeline;

// One crawl's actors: the roster every actor is wired with, and the local
// FetchWorkers (remote ones join later, through the HostSelector).
struct CrawlTopology {
  topology actors;
  std::vector<fetch_worker_actor> workers;

  // Ends every actor of the crawl, the workers too.
  void send_exit(caf::scoped_actor& self, caf::exit_reason reason) const;
};

struct CrawlParts {
  std::shared_ptr<CrawlStore> store;
  std::shared_future<void> store_closed;  // ready once `store` is deleted (its database closed)
  std::shared_ptr<const PagePipeline> pipeline;
  std::shared_ptr<CrawlEvents> events;  // optional: told of pages and failures
  std::shared_ptr<const CookieJar> cookies;  // the crawl's jar; none when it keeps no cookies
};

CrawlTopology spawn_crawl(caf::actor_system& sys, const CrawlConfig& config, CrawlParts parts,
                          crawl_observer_actor observer);

}  // namespace actorcrawl
