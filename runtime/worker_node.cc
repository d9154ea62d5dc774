#include "runtime/worker_node.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include <caf/all.hpp>

#include "runtime/cluster_link.h"
#include "actors/fetch_worker.h"
#include "actors/gatekeeper_actor.h"
#include "instrument/message_trace.h"
#include "core/report/console_log.h"
#include "messages/catalogue.h"
#include "messages/join.h"

namespace actorcrawl {

namespace {

using Clock = std::chrono::steady_clock;
using Outcome = WorkerNodeResult::Outcome;

// The context string of an error raised with make_error(code, text).
std::string error_text(const caf::error& err) {
  if (err.context().match_elements<std::string>())
    return err.context().get_as<std::string>(0);
  return to_string(err);
}

struct Session {
  caf::actor_system& sys;
  caf::scoped_actor& self;
  const CrawlConfig& config;
  const WorkerNodeOptions& options;
  NodeAddress coordinator;
  std::string address_text;

  bool stop_requested() const { return options.stop_requests && options.stop_requests->load() > 0; }

  // Waits up to `d`, returning early on a stop request.
  void pause(std::chrono::milliseconds d) {
    const auto until = Clock::now() + d;
    while (!stop_requested() && Clock::now() < until)
      self->receive(caf::after(std::chrono::milliseconds{50}) >> [] {});
  }

  // Connects and joins; the HostSelector's handle, or an outcome to end on.
  caf::variant<host_selector_actor, WorkerNodeResult> join() {
    const auto started = Clock::now();
    const auto give_up_after = std::chrono::milliseconds{config.reconnect_timeout_ms};
    auto backoff = std::chrono::milliseconds{100};
    auto next_report = started;
    std::string last_error;
    const std::string digest = options.catalogue.empty() ? catalogue_digest() : options.catalogue;
    // "60 s", "1.5 s": whole seconds unless the timeout has a fraction.
    char timeout_text[32];
    std::snprintf(timeout_text, sizeof timeout_text, config.reconnect_timeout_ms % 1000 == 0 ? "%.0f s" : "%.1f s",
                  static_cast<double>(config.reconnect_timeout_ms) / 1000.0);
    for (;;) {
      if (stop_requested())
        return WorkerNodeResult{Outcome::stopped, "stopped before joining"};
      auto gatekeeper = connect_to_coordinator(sys, coordinator, uses_tls(config));
      if (gatekeeper) {
        host_selector_actor selector;
        bool refused = false;
        self->request(*gatekeeper, std::chrono::seconds{10}, std::string{kJoinTag}, digest, node_name(config))
          .receive([&](host_selector_actor& s) { selector = std::move(s); },
                   [&](caf::error& err) {
                     last_error = error_text(err);
                     // Only an answer is a refusal: a gatekeeper that is
                     // gone (its crawl just ended) is a coordinator not
                     // reached, tried again like one.
                     refused = err != caf::sec::request_timeout && err != caf::sec::request_receiver_down;
                   });
        if (selector)
          return selector;
        if (refused)
          return WorkerNodeResult{Outcome::refused, "the coordinator at " + address_text + " refused this worker: " +
                                                      last_error};
      } else if (gatekeeper.error() == caf::sec::cannot_connect_to_node) {
        last_error = "connection failed";
      } else if (gatekeeper.error() == caf::sec::disconnect_during_handshake) {
        last_error = "the connection closed during the handshake: TLS on one side only, or a certificate the "
                     "other side's tls_ca does not accept";
      } else {
        last_error = error_text(gatekeeper.error());
      }
      if (Clock::now() - started >= give_up_after)
        return WorkerNodeResult{Outcome::coordinator_lost,
                                "cannot reach the coordinator at " + address_text + " (" + last_error + ") after " +
                                  timeout_text + " of trying; giving up"};
      if (Clock::now() >= next_report) {
        log_line(LogLevel::warn, "coordinator at " + address_text + " not reachable (" + last_error +
                                   "); trying again for up to " + timeout_text);
        next_report = Clock::now() + std::chrono::seconds{10};
      }
      pause(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds{5000});
    }
  }

  // Runs the FetchWorkers until the coordinator goes away or a stop; an
  // empty optional means "connection lost: join again".
  caf::optional<WorkerNodeResult> serve(const host_selector_actor& selector) {
    self->monitor(selector);
    std::set<caf::actor_addr> workers;
    std::vector<fetch_worker_actor> handles;
    const std::string node = node_name(config);
    for (std::int64_t i = 1; i <= config.concurrent_workers; ++i) {
      auto w = spawn_fetch_worker(sys, selector, "worker-" + std::to_string(i) + "@" + node,
                                  static_cast<int>(config.transfers_per_worker));
      self->monitor(w);
      workers.insert(w.address());
      handles.push_back(w);
    }
    log_line(LogLevel::notice, "joined the coordinator at " + address_text + " with " +
                                 std::to_string(config.concurrent_workers) + " fetch workers of " +
                                 std::to_string(config.transfers_per_worker) + " transfers");
    auto stop_workers = [&] {
      for (const auto& w : handles)
        self->send_exit(w, caf::exit_reason::user_shutdown);
      // Each ends within its poll interval; wait so none outlives the session.
      const auto until = Clock::now() + std::chrono::seconds{5};
      while (!workers.empty() && Clock::now() < until)
        self->receive([&](caf::down_msg& d) { workers.erase(d.source); },
                      caf::after(std::chrono::milliseconds{100}) >> [] {});
    };
    for (;;) {
      caf::optional<caf::error> selector_down;
      self->receive(
        [&](caf::down_msg& d) {
          if (d.source == selector.address())
            selector_down = d.reason;
          else
            workers.erase(d.source);
        },
        caf::after(std::chrono::milliseconds{100}) >> [] {});
      if (stop_requested()) {
        stop_workers();
        return WorkerNodeResult{Outcome::stopped, "stopped; the coordinator gives this worker's URLs to others"};
      }
      if (workers.empty() && !selector_down) {
        // Workers end when they see the HostSelector go, which this node
        // may hear of a moment later: wait for that news before calling it
        // a failure.
        self->receive([&](caf::down_msg& d) {
                        if (d.source == selector.address())
                          selector_down = d.reason;
                      },
                      caf::after(std::chrono::seconds{2}) >> [] {});
        if (!selector_down)
          return WorkerNodeResult{Outcome::failed, "every fetch worker stopped (see the errors above)"};
      }
      if (selector_down) {
        stop_workers();
        const auto& reason = *selector_down;
        if (reason == caf::exit_reason::user_shutdown || reason == caf::exit_reason::normal)
          return WorkerNodeResult{Outcome::crawl_finished, "the coordinator ended the crawl"};
        log_line(LogLevel::warn, "lost the coordinator at " + address_text + " (" + to_string(reason) +
                                   "); joining again");
        return caf::none;
      }
    }
  }
};

}  // namespace

WorkerNodeResult run_worker_node(const CrawlConfig& config, const WorkerNodeOptions& options) {
  if (config.connect.empty())
    throw ConfigError("a worker needs the coordinator's address: --connect HOST:PORT");
  if (config.concurrent_workers < 1)
    throw ConfigError("a worker needs at least one fetch worker (--workers N)");
  validate(config, false);
  const auto trace = TraceSession::open(config.trace_path, node_name(config));
  caf::actor_system_config cfg;
  configure_node(cfg, config);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  Session s{sys, self, config, options, parse_node_address(config.connect, "connect"), config.connect};
  for (;;) {
    auto joined = s.join();
    if (auto* result = caf::get_if<WorkerNodeResult>(&joined))
      return *result;
    if (auto result = s.serve(caf::get<host_selector_actor>(joined)))
      return *result;
  }
}

}  // namespace actorcrawl
