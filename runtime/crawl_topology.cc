#include "runtime/crawl_topology.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include <caf/all.hpp>

#include "actors/dead_letter_actor.h"
#include "runtime/cluster_link.h"
#include "actors/fetch_worker.h"
#include "actors/frontier_actor.h"
#include "actors/host_selector_actor.h"
#include "actors/processor_actor.h"
#include "actors/storage_actor.h"
#include "core/web/robots_txt.h"
#include "messages/catalogue.h"

namespace actorcrawl {

std::vector<caf::actor> CrawlTopology::all() const {
  std::vector<caf::actor> out{frontier, host_selector, processor, storage, dead_letter};
  out.insert(out.end(), workers.begin(), workers.end());
  return out;
}

namespace {

std::size_t parse_lanes(const CrawlConfig& config) {
  if (config.parse_lanes > 0)
    return static_cast<std::size_t>(config.parse_lanes);
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

CrawlTopology spawn_crawl(caf::actor_system& sys, const CrawlConfig& config, CrawlParts parts,
                          caf::actor observer) {
  CrawlTopology t;
  t.storage = spawn_storage(sys, std::move(parts.store), parts.events);
  t.dead_letter = spawn_dead_letter(sys);
  t.processor = spawn_processor(sys, ProcessorSettings{std::move(parts.chain), std::move(parts.scope),
                                                       std::move(parts.domains), config.strip_query_params,
                                                       product_token_of(config.user_agent)},
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
  using std::chrono::milliseconds;
  HostScheduler::Settings politeness;
  politeness.delay = milliseconds{config.politeness_delay_ms};
  politeness.max_delay = milliseconds{config.max_politeness_delay_ms};
  politeness.delay_factor_percent = static_cast<int>(config.politeness_delay_factor_percent);
  politeness.respect_robots = config.respect_robots_txt;
  politeness.robots_ttl = milliseconds{config.robots_cache_ttl_ms};
  politeness.robots_attempts = static_cast<int>(config.retry_attempts) + 1;
  politeness.robots_retry_delay = milliseconds{std::max<std::int64_t>(config.retry_delay_ms, 1)};
  politeness.max_connections_per_host = static_cast<int>(config.max_connections_per_host);
  t.host_selector = spawn_host_selector(sys, politeness, settings);

  FrontierSettings frontier;
  frontier.domains = config.profile == "domains";
  frontier.site.window = static_cast<std::size_t>(config.frontier_window);
  frontier.site.max_pages = config.max_pages;
  frontier.site.max_depth = static_cast<std::int32_t>(config.max_depth);
  // Each connection to a host needs a URL of it out, and one more waiting.
  frontier.site.per_host_leases =
    config.max_leases_per_host == 0
      ? 0
      : static_cast<std::size_t>(std::max(config.max_leases_per_host, config.max_connections_per_host + 1));
  frontier.traps = TrapGuard::Limits{static_cast<std::size_t>(config.max_url_length),
                                     static_cast<std::size_t>(config.max_repeated_path_segments),
                                     static_cast<std::size_t>(config.max_pages_per_host),
                                     static_cast<std::size_t>(config.max_query_variants_per_path)};
  frontier.domain.max_depth = static_cast<std::int32_t>(config.max_depth);
  frontier.domain.max_pages = config.max_pages;
  frontier.domain.max_crawls_per_node = config.max_crawls_per_node;
  frontier.domain.max_subdomains_per_root = static_cast<std::size_t>(config.max_subdomains_per_root);
  // By default: the HostSelector's buffer of waiting URLs (at least 1024,
  // four per transfer slot) plus twice the transfer slots for pages being
  // fetched or parsed.
  const std::int64_t slots = config.concurrent_workers * config.transfers_per_worker;
  frontier.max_in_flight = config.max_in_flight > 0
                             ? static_cast<std::size_t>(config.max_in_flight)
                             : static_cast<std::size_t>(std::max<std::int64_t>(1024, 4 * slots) + 2 * slots);
  t.frontier = spawn_frontier(sys, std::move(frontier), std::move(observer));

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
