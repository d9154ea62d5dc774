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
#include "core/page/page_pipeline.h"
#include "core/setup/crawl_setup.h"
#include "messages/catalogue.h"

namespace actorcrawl {

void CrawlTopology::send_exit(caf::scoped_actor& self, caf::exit_reason reason) const {
  for_each_role(actors, [&](const char*, const auto& actor) { self->send_exit(actor, reason); });
  for (const auto& worker : workers)
    self->send_exit(worker, reason);
}

namespace {

// What every worker of the crawl is told when it registers.
fetch_settings worker_settings(const CrawlConfig& config, const PagePipeline* pipeline) {
  const bool archives = pipeline != nullptr && pipeline->archives();
  const bool reads_heads = pipeline != nullptr && pipeline->reads_response_heads();
  fetch_settings settings;
  settings.user_agent = config.user_agent;
  settings.request_timeout_ms = config.request_timeout_ms;
  settings.max_body_bytes = config.max_body_bytes;
  settings.max_redirects = static_cast<std::int32_t>(config.max_redirects);
  settings.retry_attempts = static_cast<std::int32_t>(config.retry_attempts);
  settings.retry_delay_ms = config.retry_delay_ms;
  settings.politeness_delay_ms = config.politeness_delay_ms;
  settings.resolve = config.resolve;
  // A crawl reaches private, loopback and link-local addresses only where
  // its user pointed it: its seeds' hosts and the names `resolve` maps
  // (all of them with allow_private_networks, none with
  // block_private_networks). So a public site cannot send it inside (a
  // redirect, a sitemap or a plugin's link to 169.254.169.254).
  settings.block_private_addresses = !config.allow_private_networks || config.block_private_networks;
  if (!config.block_private_networks)
    settings.private_hosts_allowed = private_hosts_allowed(config);
  settings.max_connections_per_host = static_cast<std::int32_t>(config.max_connections_per_host);
  settings.capture_http = archives || reads_heads;
  settings.archive_responses = archives;
  settings.headers = config.request_headers;
  settings.auth = config.auth;
  settings.proxy = config.proxy;
  settings.proxy_from_environment = config.proxy_from_environment;
  return settings;
}

}  // namespace

CrawlTopology spawn_crawl(caf::actor_system& sys, const CrawlConfig& config, CrawlParts parts,
                          crawl_observer_actor observer) {
  CrawlTopology t;
  auto& a = t.actors;
  a.node = node_name(config);
  a.storage = spawn_storage(sys, std::move(parts.store), parts.events,
                            std::chrono::milliseconds{config.storage_commit_interval_ms}, parts.cookies);
  a.dead_letter = spawn_dead_letter(sys);
  const auto settings = worker_settings(config, parts.pipeline.get());
  // A robots.txt's Sitemap: lines count for the hosts the crawl crawls.
  SitemapSettings sitemaps = sitemap_settings(config);
  sitemaps.ledger.crawls_host = [pipeline = parts.pipeline](const Url& root) { return pipeline->admits(root); };
  a.processor = spawn_processor(
    sys, ProcessorSettings{std::move(parts.pipeline), config.crawl_profile() == CrawlProfile::domains, nullptr},
    parse_lanes(config));
  a.host_selector = spawn_host_selector(sys, politeness_settings(config), settings, std::move(sitemaps));
  a.frontier = spawn_frontier(sys, frontier_settings(config), std::move(observer));
  // Each actor learns the others from the roster, before any other message.
  for_each_role(a, [&](const char*, const auto& actor) { caf::anon_send(actor, a); });

  for (std::int64_t i = 1; i <= config.concurrent_workers; ++i)
    t.workers.push_back(spawn_fetch_worker(sys, a.host_selector, "worker-" + std::to_string(i) + "@" + a.node,
                                           static_cast<int>(config.transfers_per_worker), {}, parts.cookies));
  return t;
}

}  // namespace actorcrawl
