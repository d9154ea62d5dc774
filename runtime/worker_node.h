// `actorcrawl worker`: a process that lends FetchWorkers to a coordinator.
// It connects to the coordinator's gatekeeper (retrying with backoff),
// joins with its message-catalogue digest, spawns its FetchWorkers, which
// register with the coordinator's HostSelector like local ones, and stays
// until the crawl ends, it is stopped, or the coordinator has been gone for
// reconnect_timeout.
#pragma once

#include <atomic>
#include <string>

#include "core/config/crawl_config.h"

namespace actorcrawl {

struct WorkerNodeOptions {
  // Set to 1 (a signal handler, a test) to leave: the FetchWorkers stop and
  // the coordinator hands their URLs to others. Polled.
  const std::atomic<int>* stop_requests = nullptr;
  // The digest sent when joining; empty: this build's catalogue_digest().
  std::string catalogue;
};

struct WorkerNodeResult {
  enum class Outcome {
    crawl_finished,     // the coordinator ended the crawl
    stopped,            // stop_requests
    refused,            // the coordinator refused to take this worker
    coordinator_lost,   // unreachable for longer than reconnect_timeout
    failed,             // the FetchWorkers could not run
  };
  Outcome outcome = Outcome::failed;
  std::string message;  // one line for the user
};

// Throws ConfigError for an unusable configuration (no --connect, ...).
WorkerNodeResult run_worker_node(const CrawlConfig& config, const WorkerNodeOptions& options = {});

}  // namespace actorcrawl
