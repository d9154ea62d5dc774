// Runs one crawl from a configuration to its end on a local actor system:
// checks the configuration and opens the database before any actor starts,
// spawns the topology, reports progress, turns a stop request (Ctrl-C,
// SIGTERM) into a graceful stop, and writes metrics.log.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "core/config/crawl_config.h"
#include "core/crawl/crawl_events.h"
#include "core/page/page_processor.h"
#include "core/crawl/records.h"
#include "core/store/store_error.h"
#include "core/report/stage_times.h"

namespace actorcrawl {

class LinkScope;
struct topology;

struct CrawlRunOptions {
  // Set to 1 (by a signal handler, a test) to stop gracefully. Polled.
  const std::atomic<int>* stop_requests = nullptr;
  bool show_progress = true;
  // Also serve worker nodes: publish the gatekeeper on config.listen, so
  // `actorcrawl worker` processes can join the crawl (docs/deployment.md).
  bool coordinator = false;
  // The termination reason a stop request gives ("signal" for Ctrl-C).
  std::string stop_reason = "signal";
  // Told of pages, failures and progress (every progress_interval) as the
  // crawl goes; optional.
  std::shared_ptr<CrawlEvents> events;
  // Handed the topology's actors (messages/topology.h) once they run;
  // optional. For whoever must reach them from outside, such as a test
  // that stops one.
  std::function<void(const topology&)> on_started;
  // The scope check_crawl() returned for this configuration, when the
  // caller checked it already (the service, before it accepts a job): the
  // run then does not check it again. Null: the run checks.
  std::shared_ptr<const LinkScope> checked_scope;
};

struct CrawlRunResult {
  // queue_empty, max_pages, signal, error (`error` says what broke, e.g.
  // "the FrontierActor stopped: ..." when an actor of the topology died),
  // seeds_refused (nothing fetched: every seed was refused, `error` says
  // why and what lifts it), processor_failed (a processor gave up, a
  // plugin in a crash loop: the crawl stopped gracefully, `error` names it
  // and the remedy)
  std::string termination_reason;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  StoreSummary summary;
  std::vector<StageTimes> timings;  // fetch, select, parse, frontier, store
  // Each processor of this node's chain: the pages it took and failed.
  std::vector<ProcessorTally> processors;
  std::string error;  // set when the crawl ended because something broke
};

// A coordinator's listen address that cannot be listened on (another
// process holds the port): not a mistake in the configuration, which may
// be right once the port is free.
struct ListenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ConfigError, StoreError or ListenError for a configuration,
// database or listen address that cannot be used; nothing has been crawled
// then.
CrawlRunResult run_crawl(const CrawlConfig& config, const CrawlRunOptions& options = {});

// The same on an actor system the caller owns and shares (the crawl
// service runs one crawl per job on one system); `sys` must have been
// configured with configure_node().
CrawlRunResult run_crawl_on(caf::actor_system& sys, const CrawlConfig& config, const CrawlRunOptions& options);

}  // namespace actorcrawl
