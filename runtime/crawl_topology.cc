#include "runtime/crawl_topology.h"

#include <unistd.h>

#include <caf/all.hpp>

#include "actors/dead_letter_actor.h"
#include "runtime/cluster_link.h"
#include "actors/fetch_worker.h"
#include "actors/frontier_actor.h"
#include "actors/host_selector_actor.h"
#include "actors/processor_actor.h"
#include "actors/storage_actor.h"
#include "core/crawl/page_pipeline.h"
#include "core/setup/crawl_setup.h"
#include "messages/catalogue.h"

namespace actorcrawl {

std::vector<caf::actor> CrawlTopology::all() const {
  std::vector<caf::actor> out{frontier, host_selector, processor, storage, dead_letter};
  out.insert(out.end(), workers.begin(), workers.end());
  return out;
}

CrawlTopology spawn_crawl(caf::actor_system& sys, const CrawlConfig& config, CrawlParts parts,
                          caf::actor observer) {
  CrawlTopology t;
  t.storage = spawn_storage(sys, std::move(parts.store), parts.events);
  t.dead_letter = spawn_dead_letter(sys);
  const bool archives = parts.pipeline != nullptr && parts.pipeline->archives();
  const bool reads_heads = parts.pipeline != nullptr && parts.pipeline->reads_response_heads();
  t.processor = spawn_processor(
    sys, ProcessorSettings{std::move(parts.pipeline), config.crawl_profile() == CrawlProfile::domains},
    parse_lanes(config));
  fetch_settings settings;
  settings.user_agent = config.user_agent;
  settings.request_timeout_ms = config.request_timeout_ms;
  settings.max_body_bytes = config.max_body_bytes;
  settings.max_redirects = static_cast<std::int32_t>(config.max_redirects);
  settings.retry_attempts = static_cast<std::int32_t>(config.retry_attempts);
  settings.retry_delay_ms = config.retry_delay_ms;
  settings.politeness_delay_ms = config.politeness_delay_ms;
  settings.resolve = config.resolve;
  settings.block_private_addresses = config.block_private_networks;
  settings.max_connections_per_host = static_cast<std::int32_t>(config.max_connections_per_host);
  settings.capture_http = archives || reads_heads;
  settings.archive_responses = archives;
  t.host_selector = spawn_host_selector(sys, politeness_settings(config), settings);
  t.frontier = spawn_frontier(sys, frontier_settings(config), std::move(observer));

  topology wiring{t.frontier, t.host_selector, t.processor, t.storage, t.dead_letter, node_name(config)};
  for (const auto& a : {t.frontier, t.host_selector, t.processor, t.dead_letter})
    caf::anon_send(a, wiring);

  const std::string node = node_name(config);
  for (std::int64_t i = 1; i <= config.concurrent_workers; ++i)
    t.workers.push_back(spawn_fetch_worker(sys, t.host_selector, "worker-" + std::to_string(i) + "@" + node,
                                           static_cast<int>(config.transfers_per_worker)));
  return t;
}

}  // namespace actorcrawl
