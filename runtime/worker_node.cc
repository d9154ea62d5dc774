#include "runtime/worker_node.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include <caf/all.hpp>

#include "runtime/cluster_link.h"
#include "actors/fetch_worker.h"
#include "actors/gatekeeper_actor.h"
#include "actors/processor_actor.h"
#include "core/config/shared_config.h"
#include "core/page/page_pipeline.h"
#include "core/setup/crawl_setup.h"
#include "core/store/node_bodies.h"
#include "core/store/store_error.h"
#include "core/warc/warc_archive.h"
#include "instrument/message_trace.h"
#include "core/report/console_log.h"
#include "messages/catalogue.h"
#include "messages/join.h"

namespace actorcrawl {

namespace {

using Clock = std::chrono::steady_clock;
using Outcome = WorkerNodeResult::Outcome;

// How long a node told to stop waits, in all, for its transfers to end and
// its lanes to process and send the pages it fetched; past it, what is
// left is the coordinator's to give to another node.
constexpr std::chrono::seconds kHandInTimeout{10};

// The context string of an error raised with make_error(code, text).
std::string error_text(const caf::error& err) {
  if (err.context().match_elements<std::string>())
    return err.context().get_as<std::string>(0);
  return to_string(err);
}

struct Joined {
  gatekeeper_actor gatekeeper;
  node_welcome welcome;
};

// The node's own Processor: the coordinator's processors, rules, plugins
// and link selection, with this node's limits; pages its FetchWorkers
// fetch are processed here and only their outcomes cross the link.
struct NodeProcessing {
  std::shared_ptr<const PagePipeline> pipeline;
  processor_actor processor;
  std::shared_ptr<const CookieJar> cookies;  // none when the crawl keeps no cookies
};

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

  // Connects and joins; the crawl's actors and configuration, or an
  // outcome to end on.
  caf::variant<Joined, WorkerNodeResult> join() {
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
        caf::optional<node_welcome> welcome;
        bool refused = false;
        self->request(*gatekeeper, std::chrono::seconds{10}, std::string{kJoinTag}, digest, node_name(config))
          .receive([&](node_welcome& w) { welcome = std::move(w); },
                   [&](caf::error& err) {
                     last_error = error_text(err);
                     // Only an answer is a refusal: a gatekeeper that is
                     // gone (its crawl just ended) is a coordinator not
                     // reached, tried again like one.
                     refused = err != caf::sec::request_timeout && err != caf::sec::request_receiver_down;
                   });
        if (welcome)
          return Joined{*gatekeeper, std::move(*welcome)};
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

  // Builds the node's Processor from the coordinator's configuration; an
  // error text when the node cannot run it (a plugin program missing, a
  // rule this build refuses, a warc_dir or bodies_dir it cannot write).
  caf::variant<NodeProcessing, std::string> start_processing(const Joined& joined) {
    const std::string node = node_name(config);
    try {
      const CrawlConfig crawl = node_crawl_config(config, joined.welcome.config, joined.welcome.given, node);
      auto scope = check_crawl(crawl);
      NodeProcessing out;
      out.pipeline = page_pipeline(crawl, std::move(scope), open_warc_archive(crawl));
      // A jar of the node's own, from cookies_file as this node reads it:
      // the coordinator's database keeps only its own jar between runs.
      out.cookies = cookie_jar(crawl);
      ProcessorSettings settings{out.pipeline, crawl.crawl_profile() == CrawlProfile::domains, nullptr};
      // The bodies it keeps stay on this node (core/store/node_bodies.h).
      if (crawl.keep_bodies_enabled() && !crawl.bodies_dir.empty()) {
        settings.node_bodies = std::make_shared<NodeBodiesWriter>(crawl.bodies_dir, file_safe_node_name(node));
        log_line(LogLevel::notice, "keeping the bodies this node fetches in " + settings.node_bodies->path());
      }
      out.processor = spawn_processor(sys, std::move(settings), parse_lanes(crawl));
      topology actors = joined.welcome.actors;
      actors.processor = out.processor;
      caf::anon_send(out.processor, std::move(actors));
      // The coordinator's traces name the lanes that send it pages.
      self->request(out.processor, std::chrono::seconds{10}, lanes_atom_v)
        .receive([&](std::vector<parse_lane_actor>& lanes) { self->send(joined.gatekeeper, node_lanes{node, std::move(lanes)}); },
                 [](caf::error&) {});
      return out;
    } catch (const ConfigError& e) {
      return std::string{e.what()};
    } catch (const StoreError& e) {
      return "bodies_dir: " + std::string{e.what()};
    }
  }

  // Runs the Processor and the FetchWorkers until the coordinator goes
  // away or a stop; an empty optional means "connection lost: join again".
  caf::optional<WorkerNodeResult> serve(const Joined& joined) {
    const host_selector_actor& selector = joined.welcome.actors.host_selector;
    auto processing = start_processing(joined);
    if (auto* why = caf::get_if<std::string>(&processing)) {
      self->send(joined.gatekeeper, node_unfit{node_name(config), *why});
      return WorkerNodeResult{Outcome::refused, "this node cannot run the crawl's processing: " + *why};
    }
    auto& local = caf::get<NodeProcessing>(processing);
    self->monitor(selector);
    self->monitor(local.processor);
    std::set<caf::actor_addr> workers;
    std::vector<fetch_worker_actor> handles;
    const std::string node = node_name(config);
    for (std::int64_t i = 1; i <= config.concurrent_workers; ++i) {
      auto w = spawn_fetch_worker(sys, selector, "worker-" + std::to_string(i) + "@" + node,
                                  static_cast<int>(config.transfers_per_worker), local.processor, local.cookies);
      self->monitor(w);
      workers.insert(w.address());
      handles.push_back(w);
    }
    log_line(LogLevel::notice, "joined the coordinator at " + address_text + " with " +
                                 std::to_string(config.concurrent_workers) + " fetch workers of " +
                                 std::to_string(config.transfers_per_worker) + " transfers and " +
                                 std::to_string(parse_lanes(config)) + " parse lanes");
    // The pages still in the Processor's lanes need the coordinator: once
    // it is gone nothing of theirs can arrive, and it has taken them back
    // with the node's leases. A node told to stop while the coordinator is
    // there first hands in what it fetched (`hand_in`), so that no page it
    // requested is requested again elsewhere: its workers start nothing
    // new and finish the transfers under way; then its lanes process what
    // they hold and send it; then a request to the HostSelector, answered
    // only after all of that has arrived (one connection, in order), says
    // it reached the coordinator. Only then do the workers go, and with
    // them the leases they never started, which the coordinator gives to
    // another node (a worker that went first would take its pages in the
    // lanes with it: ProcessingLedger). The hand-in is bounded
    // (kHandInTimeout): what is still under way then goes the same way.
    auto stop_workers = [&](bool hand_in) {
      if (hand_in) {
        const auto deadline = Clock::now() + kHandInTimeout;
        const auto left = [&] {
          return std::max(std::chrono::milliseconds{1},
                          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
        };
        // Asked all at once, so they finish their transfers side by side.
        using Answer = decltype(self->request(handles.front(), left(), flush_atom_v));
        std::vector<Answer> answers;
        for (const auto& w : handles)
          answers.push_back(self->request(w, left(), flush_atom_v));
        for (auto& answer : answers)
          answer.receive([](ok_atom) {}, [](caf::error&) {});
        self->request(local.processor, left(), flush_atom_v).receive([](ok_atom) {}, [](caf::error&) {});
        self->request(selector, left(), timings_atom_v).receive([](StageTimes&) {}, [](caf::error&) {});
      }
      local.pipeline->interrupt();
      for (const auto& w : handles)
        self->send_exit(w, caf::exit_reason::user_shutdown);
      // Each ends within its poll interval; wait so none outlives the session.
      const auto until = Clock::now() + std::chrono::seconds{5};
      while (!workers.empty() && Clock::now() < until)
        self->receive([&](caf::down_msg& d) { workers.erase(d.source); },
                      caf::after(std::chrono::milliseconds{100}) >> [] {});
      self->send_exit(local.processor, caf::exit_reason::user_shutdown);
    };
    for (;;) {
      caf::optional<caf::error> selector_down;
      bool processor_down = false;
      self->receive(
        [&](caf::down_msg& d) {
          if (d.source == selector.address())
            selector_down = d.reason;
          else if (d.source == local.processor.address())
            processor_down = true;
          else
            workers.erase(d.source);
        },
        caf::after(std::chrono::milliseconds{100}) >> [] {});
      if (processor_down) {
        stop_workers(false);
        return WorkerNodeResult{Outcome::failed, "this node's Processor stopped (see the errors above)"};
      }
      if (stop_requested()) {
        stop_workers(!selector_down);
        return WorkerNodeResult{Outcome::stopped, "stopped; what it fetched is handed in, the coordinator gives the rest to others"};
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
        stop_workers(false);
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
    if (auto result = s.serve(caf::get<Joined>(joined)))
      return *result;
  }
}

}  // namespace actorcrawl
