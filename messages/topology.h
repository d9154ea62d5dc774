// Wiring: how the actors of one crawl learn each other's handles, and how a
// FetchWorker (in this process or another) joins the HostSelector.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

// The handles of one crawl's actors: the roster, the one list of the
// topology's roles. Sent to each of them once, before any other message,
// and to every worker that registers.
struct topology {
  frontier_actor frontier;
  host_selector_actor host_selector;
  processor_actor processor;
  storage_actor storage;
  dead_letter_actor dead_letter;
  std::string node;  // the process they run in (names them in traces)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topology& x) {
  return f(caf::meta::type_name("topology"), x.frontier, x.host_selector, x.processor, x.storage,
           x.dead_letter, x.node);
}

// Calls f(role, handle) for each actor of the roster, in the order above;
// role is the name traces and the crawl run give it ("frontier", ...).
template <class F>
void for_each_role(const topology& t, F&& f) {
  f("frontier", t.frontier);
  f("host_selector", t.host_selector);
  f("processor", t.processor);
  f("storage", t.storage);
  f("dead_letter", t.dead_letter);
}

// What a FetchWorker needs to know about how to fetch. Comes from the
// coordinator's config, so every worker of a crawl behaves alike.
struct fetch_settings {
  std::string user_agent;
  std::int64_t request_timeout_ms = 5000;
  std::int64_t max_body_bytes = 1 << 20;
  std::int32_t max_redirects = 5;
  std::int32_t retry_attempts = 3;
  std::int64_t retry_delay_ms = 5000;
  std::int64_t politeness_delay_ms = 1000;
  std::vector<std::string> resolve;  // host:port:address, as curl --resolve
  // Refuse connections to private, loopback and link-local addresses
  // (core/fetch/net_guard.h), but for the hosts in `private_hosts_allowed`
  // (host keys: the seeds' hosts and those named in `resolve`, unless
  // block_private_networks said none).
  bool block_private_addresses = false;
  std::vector<std::string> private_hosts_allowed;
  std::int32_t max_connections_per_host = 1;  // connections one worker opens to a host
  // Keep request and response heads: for the warc processor, or for a
  // processor that reads the response's headers (an external processor).
  bool capture_http = false;
  // The warc processor is on: responses that are no page (robots.txt, a
  // retried 5xx) go to the archive too.
  bool archive_responses = false;
  // What the sites require (config keys headers, auth: RequestRules'
  // entries) and where requests go (proxy, proxy_from_environment). The
  // credentials travel to worker nodes, which send them; no trace or log
  // shows them.
  std::vector<std::string> headers;
  std::vector<std::string> auth;
  std::string proxy;
  bool proxy_from_environment = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_settings& x) {
  return f(caf::meta::type_name("fetch_settings"), x.user_agent, x.request_timeout_ms,
           x.max_body_bytes, x.max_redirects, x.retry_attempts, x.retry_delay_ms,
           x.politeness_delay_ms, x.resolve, x.block_private_addresses, x.private_hosts_allowed,
           x.max_connections_per_host,
           x.capture_http, x.archive_responses, x.headers, x.auth, x.proxy, x.proxy_from_environment);
}

// FetchWorker -> HostSelector (request): I can run `capacity` transfers.
struct worker_hello {
  fetch_worker_actor worker;
  std::string name;
  std::int32_t capacity = 1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_hello& x) {
  return f(caf::meta::type_name("worker_hello"), x.worker, x.name, x.capacity);
}

// HostSelector -> FetchWorker: the reply to worker_hello.
struct worker_welcome {
  topology actors;
  fetch_settings settings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_welcome& x) {
  return f(caf::meta::type_name("worker_welcome"), x.actors, x.settings);
}

// Gatekeeper -> worker node: the answer to a join request (messages/join.h).
// The crawl's actors, and its configuration (core/config/shared_config.h):
// the node runs the coordinator's page processing in a Processor of its
// own, fed by its FetchWorkers, so only pages' outcomes cross the link.
struct node_welcome {
  topology actors;
  std::string config;              // shared_config_text()
  std::vector<std::string> given;  // given_keys()
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_welcome& x) {
  return f(caf::meta::type_name("node_welcome"), x.actors, x.config, x.given);
}

// Worker node -> gatekeeper: the parser lanes of the node's Processor,
// which send pages' outcomes to the coordinator's actors: named in the
// coordinator's traces as the node names them ("parse_lane/12").
struct node_lanes {
  std::string node;
  std::vector<parse_lane_actor> lanes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_lanes& x) {
  return f(caf::meta::type_name("node_lanes"), x.node, x.lanes);
}

// Worker node -> gatekeeper: the node cannot run the crawl's processing (a
// plugin program missing, a WARC directory it cannot write) and leaves;
// the coordinator logs why.
struct node_unfit {
  std::string node;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_unfit& x) {
  return f(caf::meta::type_name("node_unfit"), x.node, x.reason);
}

}  // namespace actorcrawl
