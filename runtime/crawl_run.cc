#include "runtime/crawl_run.h"

#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <set>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "runtime/cluster_link.h"
#include "runtime/crawl_topology.h"
#include "actors/gatekeeper_actor.h"
#include "instrument/message_trace.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/frontier/frontier_start.h"
#include "core/page/link_scope.h"
#include "core/page/processor_page_counts.h"
#include "core/crawl/refusal_reason.h"
#include "core/setup/crawl_setup.h"
#include "core/report/metrics_report.h"
#include "core/report/peak_memory.h"
#include "core/store/crawl_store.h"
#include "core/store/database_files.h"
#include "core/store/database_lock.h"
#include "core/config/shared_config.h"
#include "core/warc/warc_archive.h"
#include "core/web/url.h"
#include "core/web/json_text.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// The trace and metrics.log are opened truncating what is there: one
// named like the database or one of its files (however spelled) would
// destroy the crawl. Refused before anything is opened.
void refuse_outputs_over_database(const CrawlConfig& config) {
  const std::pair<const char*, const std::string*> outputs[] = {{"trace_path", &config.trace_path},
                                                                {"metrics_path", &config.metrics_path}};
  for (const auto& [key, path] : outputs)
    if (const std::string hit = database_file_named(config.db_path, *path); !hit.empty())
      throw ConfigError(std::string{key} + " '" + *path + "' is " + hit +
                        "; writing it would destroy the crawl (choose another file)");
}

// The parts of a crawl whose configuration check_crawl() and
// refuse_outputs_over_database() passed (giving `scope`), the database
// opened last (under `lock` when the caller has
// taken it already).
CrawlParts prepare(const CrawlConfig& config, std::shared_ptr<const LinkScope> scope,
                   std::unique_ptr<DatabaseLock> lock = nullptr) {
  CrawlParts parts;
  // The archive opens (and repairs a torn last file) before the database:
  // a warc_dir that cannot be written stops the crawl before it starts. A
  // coordinator that fetches nothing itself processes nothing either (its
  // worker nodes do): its chain is checked, no plugin started, no archive
  // opened.
  parts.pipeline = config.concurrent_workers > 0
                     ? page_pipeline(config, std::move(scope), open_warc_archive(config))
                     : page_pipeline(config, std::move(scope), check_only_archive(), ChainUse::check);
  const auto batch = static_cast<std::size_t>(config.storage_batch);
  auto* store = lock ? new CrawlStore(std::move(lock), config.db_path, batch) : new CrawlStore(config.db_path, batch);
  // Told once the store is deleted, its database closed and its lock
  // released: the StorageActor holds the last reference, and lets go as it
  // exits, a moment after the run has sent it the exit.
  auto closed = std::make_shared<std::promise<void>>();
  parts.store_closed = closed->get_future().share();
  parts.store = std::shared_ptr<CrawlStore>(store, [closed](CrawlStore* s) {
    delete s;
    closed->set_value();
  });
  // The jar goes on with the cookies the last run kept.
  parts.cookies = cookie_jar(config, config.cookies ? parts.store->load_cookies() : std::vector<std::string>{});
  return parts;
}

// Asks every actor for its stage times; the workers' are summed into one.
std::vector<StageTimes> gather_timings(caf::scoped_actor& self, const CrawlTopology& t) {
  auto ask = [&](const auto& a, StageTimes& into) {
    self->request(a, std::chrono::seconds{2}, timings_atom_v)
      .receive([&](StageTimes& s) { into.merge(s); }, [](caf::error&) {});
  };
  StageTimes fetch{"fetch"}, select{"select"}, parse{"parse"}, frontier{"frontier"}, store{"store"};
  // Every worker the HostSelector knows: local ones, and those of worker
  // nodes still connected.
  std::vector<fetch_worker_actor> workers = t.workers;
  self->request(t.actors.host_selector, std::chrono::seconds{2}, workers_atom_v)
    .receive([&](std::vector<fetch_worker_actor>& all) { workers = std::move(all); }, [](caf::error&) {});
  for (const auto& w : workers)
    ask(w, fetch);
  ask(t.actors.host_selector, select);
  ask(t.actors.processor, parse);
  ask(t.actors.frontier, frontier);
  ask(t.actors.storage, store);
  return {fetch, select, parse, frontier, store};
}

// A crawl that fetched nothing because every seed was refused did not do
// what it was asked: its error names each seed's reason and the remedy.
// "" when a seed was fetched (now or in an earlier run) or is still due.
std::string every_seed_refused(const std::vector<std::string>& seed_urls, const StoreSummary& summary) {
  if (seed_urls.empty() || summary.pages_fetched > 0 ||
      summary.seed_refusals.size() != seed_urls.size())
    return {};
  std::string why;
  for (std::size_t i = 0; i < seed_urls.size(); ++i) {
    if (summary.seed_refusals[i].empty())
      return {};
    why += (why.empty() ? "" : "; ") + seed_urls[i] + ": " + explain_refusal(summary.seed_refusals[i]);
  }
  return "nothing was fetched: " + why;
}

// Runs the crawl `parts` were prepared for; defined below.
CrawlRunResult run_prepared(caf::actor_system& sys, const CrawlConfig& config, const CrawlRunOptions& options,
                            CrawlParts parts);

}  // namespace

CrawlRunResult run_crawl(const CrawlConfig& config, const CrawlRunOptions& options) {
  // Checked before the actor system starts, so a bad configuration costs
  // nothing.
  if (config.concurrent_workers == 0 && !options.coordinator)
    throw ConfigError("concurrent_workers is 0: nothing would fetch (only a coordinator may run without local workers)");
  if (options.coordinator)
    parse_node_address(config.listen, "listen");
  auto scope = check_crawl(config);
  refuse_outputs_over_database(config);
  // The database's lock before anything is opened: a crawl refused because
  // another process writes the database (DatabaseInUse) must not have
  // truncated that process's trace file either.
  auto lock = std::make_unique<DatabaseLock>(config.db_path);
  const auto trace = TraceSession::open(config.trace_path, node_name(config));
  CrawlParts parts = prepare(config, std::move(scope), std::move(lock));
  caf::actor_system_config cfg;
  configure_node(cfg, config);
  caf::actor_system sys{cfg};
  return run_prepared(sys, config, options, std::move(parts));
}

CrawlRunResult run_crawl_on(caf::actor_system& sys, const CrawlConfig& config, const CrawlRunOptions& options) {
  if (config.concurrent_workers == 0 && !options.coordinator)
    throw ConfigError("concurrent_workers is 0: nothing would fetch (only a coordinator may run without local workers)");
  if (options.coordinator)
    parse_node_address(config.listen, "listen");
  auto scope = options.checked_scope ? options.checked_scope : check_crawl(config);
  refuse_outputs_over_database(config);
  return run_prepared(sys, config, options, prepare(config, std::move(scope)));
}

namespace {

// Every actor of the topology is watched: if one dies (a bug, a database
// that fails), nothing would ever finish the crawl, so its death ends the
// run with its name. Fetch workers are watched by the HostSelector, which
// leases their URLs again. Whoever listens hears which actors run.
void watch_topology(caf::scoped_actor& self, const topology& actors, const CrawlRunOptions& options) {
  std::vector<std::pair<std::string, std::uint64_t>> ids;
  for_each_role(actors, [&](const char* role, const auto& actor) {
    self->monitor(actor);
    ids.emplace_back(role, actor.id());
  });
  if (options.events)
    options.events->started(ids);
  if (options.on_started)
    options.on_started(actors);
}

// "FrontierActor" for the frontier's address: what a down message names.
std::string class_of(const topology& actors, const caf::actor_addr& who) {
  std::string name = "an actor of the crawl";
  for_each_role(actors, [&](const char*, const auto& actor) {
    if (actor.address() == who)
      name = actor_class_name<std::decay_t<decltype(actor)>>::value;
  });
  return name;
}

// A coordinator publishes its gatekeeper, so worker nodes can join; a port
// that cannot be listened on ends the crawl before it starts.
gatekeeper_actor open_to_workers(caf::actor_system& sys, caf::scoped_actor& self, const CrawlTopology& t,
                                 const CrawlConfig& config, const NodeAddress& listen) {
  // A joining node gets the crawl's actors and configuration: it runs the
  // same page processing, in a Processor of its own.
  auto gatekeeper = spawn_gatekeeper(
    sys, node_welcome{t.actors, shared_config_text(config), given_keys(config)}, catalogue_digest());
  auto port = publish_gatekeeper(gatekeeper, listen, uses_tls(config));
  if (!port) {
    t.send_exit(self, caf::exit_reason::user_shutdown);
    self->send_exit(gatekeeper, caf::exit_reason::user_shutdown);
    throw ListenError("cannot listen on " + config.listen + ": " + why_publish_failed(listen, port.error()));
  }
  // Printed even with --quiet: whoever starts workers needs the port.
  log_line(LogLevel::notice, "coordinator " + node_name(config) + " listening on " + listen.host + ":" +
                             std::to_string(*port) + (uses_tls(config) ? " (TLS)" : "") +
                             "; workers join with: actorcrawl worker --connect " + listen.host + ":" +
                             std::to_string(*port));
  if (!uses_tls(config) && !listen.loopback_only())
    log_line(LogLevel::warn,
             "listening on " + listen.host + " without TLS: anyone who can reach this port can join as a "
             "worker, and one malformed message can make this process allocate gigabytes (CAF's BASP trusts "
             "each message's length field); use --tls-cert/--tls-key/--tls-ca or a network only your nodes "
             "reach (docs/deployment.md)");
  return gatekeeper;
}

// Logs the run (crawl_runs) and hands the Frontier its seeds; 0 and
// result.error set when the run cannot be recorded.
std::int64_t start_run(caf::scoped_actor& self, const CrawlTopology& t, const CrawlConfig& config,
                       CrawlRunResult& result) {
  nlohmann::json seeds_json = config.seeds;
  std::int64_t run_id = 0;
  self->request(t.actors.storage, caf::infinite,
                begin_run{result.start_ms, json_text(seeds_json),
                          config.revisit_after_ms, config.adaptive_revisit, config.revisit_min_ms,
                          config.revisit_max_ms})
    .receive([&](std::int64_t id) { run_id = id; },
             [&](caf::error& err) { result.error = "cannot record the run: " + to_string(err); });
  if (!result.error.empty())
    return 0;
  log_line(LogLevel::info, "starting crawl from " + config.seeds.front() +
                             (config.seeds.size() > 1 ? " and " + std::to_string(config.seeds.size() - 1) + " more" : "") +
                             " with " + std::to_string(config.concurrent_workers) + " workers, database " + config.db_path);
  self->send(t.actors.frontier, crawl_seeds{config.seeds});
  return run_id;
}

// Waits for the crawl's end (crawl_finished, or an actor's death), passing
// a stop request on and reporting progress on the way. Returns the last
// progress counters.
crawl_progress follow_crawl(caf::scoped_actor& self, const CrawlTopology& t, const CrawlConfig& config,
                            const CrawlRunOptions& options, const PagePipeline* pipeline, CrawlRunResult& result,
                            std::string& stop_error) {
  using Clock = std::chrono::steady_clock;
  // A log file gets a progress line every 5 s at most; a terminal, and
  // whoever listens for events, every progress_interval.
  const auto event_interval = std::chrono::milliseconds{config.progress_interval_ms};
  const auto log_interval = std::chrono::milliseconds{stderr_is_terminal() ? config.progress_interval_ms
                                                                           : std::max<std::int64_t>(config.progress_interval_ms, 5000)};
  auto last_poll = Clock::now();
  auto last_report = Clock::now();
  std::int64_t last_fetched = 0;
  crawl_progress last{};
  bool finished = !result.error.empty();
  bool stop_sent = false;
  while (!finished) {
    self->receive(
      [&](crawl_finished& f) {
        finished = true;
        result.termination_reason = f.reason;
        stop_error = std::move(f.error);
      },
      [&](caf::down_msg& d) {
        finished = true;
        result.termination_reason = "error";
        result.error = "the " + class_of(t.actors, d.source) + " stopped: " + to_string(d.reason);
        log_line(LogLevel::error, result.error);
      },
      caf::after(std::chrono::milliseconds{100}) >> [] {});
    if (finished)
      break;
    if (!stop_sent && options.stop_requests && options.stop_requests->load() > 0) {
      stop_sent = true;
      self->send(t.actors.frontier, stop_crawl{options.stop_reason});
      // The pages in flight are still processed, but a costly extraction
      // or a hung plugin does not hold the stop up (PageProcessor::interrupt).
      if (pipeline != nullptr)
        pipeline->interrupt();
    }
    const auto now = Clock::now();
    const bool log_due = options.show_progress && now - last_report >= log_interval;
    const bool event_due = options.events && now - last_poll >= event_interval;
    if (!log_due && !event_due)
      continue;
    last_poll = now;
    self->request(t.actors.frontier, std::chrono::seconds{2}, progress_atom_v)
      .receive(
        [&](crawl_progress& p) {
          const ProgressSnapshot snapshot{p.queued, p.in_flight, p.seen, p.fetched, p.failed};
          if (options.events)
            options.events->progress(snapshot);
          if (log_due) {
            const double secs = std::chrono::duration<double>(now - last_report).count();
            show_progress(progress_text(snapshot, static_cast<double>(p.fetched - last_fetched) / secs, p.stopping,
                                        config.crawl_profile()));
            last_report = now;
            last_fetched = p.fetched;
          }
          last = p;
        },
        [&](caf::error&) {});
  }
  if (options.show_progress)
    end_progress();
  return last;
}

// The crawl is over: the summary, whether every seed was refused, and the
// run's end in crawl_runs. `last` takes the final progress counters.
void summarize(caf::scoped_actor& self, const CrawlTopology& t, const CrawlConfig& config, std::int64_t run_id,
               CrawlRunResult& result, crawl_progress& last) {
  self->request(t.actors.frontier, std::chrono::seconds{5}, progress_atom_v)
    .receive([&](crawl_progress& p) { last = p; }, [&](caf::error&) {});
  std::vector<std::string> seed_urls;
  for (const auto& target : seed_targets(config.crawl_profile(), config.seeds))
    seed_urls.push_back(target.url);
  self->request(t.actors.storage, caf::infinite, summary_request{result.start_ms, seed_urls})
    .receive([&](StoreSummary& s) { result.summary = s; },
             [&](caf::error& err) { result.error = "cannot read the summary: " + to_string(err); });
  if (result.error.empty()) {
    result.error = every_seed_refused(seed_urls, result.summary);
    if (!result.error.empty())
      result.termination_reason = "seeds_refused";
  }
  self->request(t.actors.storage, caf::infinite, end_run{run_id, result.end_ms, result.termination_reason})
    .receive([](ok_atom) {}, [&](caf::error& err) { result.error = "cannot record the run: " + to_string(err); });
}

// Ends the topology. Worker nodes end when they hear that the HostSelector
// ended the crawl (user_shutdown). This process waits, a few seconds at
// most, until their fetch workers are gone, so it does not exit before that
// news has left: a node that heard only a lost link would try to join
// again. Then it waits for the database to close.
void shut_down(caf::scoped_actor& self, const CrawlTopology& t, const gatekeeper_actor& gatekeeper,
               const std::shared_future<void>& store_closed) {
  std::set<caf::actor_addr> remote_workers;
  self->request(t.actors.host_selector, std::chrono::seconds{2}, workers_atom_v)
    .receive(
      [&](std::vector<fetch_worker_actor>& all) {
        for (const auto& w : all)
          if (w && w.node() != self->node()) {
            self->monitor(w);
            remote_workers.insert(w.address());
          }
      },
      [](caf::error&) {});
  t.send_exit(self, caf::exit_reason::user_shutdown);
  if (gatekeeper)
    self->send_exit(gatekeeper, caf::exit_reason::user_shutdown);
  const auto nodes_until = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  while (!remote_workers.empty() && std::chrono::steady_clock::now() < nodes_until)
    self->receive([&](caf::down_msg& d) { remote_workers.erase(d.source); },
                  caf::after(std::chrono::milliseconds{100}) >> [] {});
  // The run ends once its database is closed. On an actor system shared
  // with other runs (the service's) nothing else waits for the
  // StorageActor's exit, and whatever follows the run — the service
  // re-driving the job, or running it again — would find the database
  // still open for writing. (Bounded only against a hang: what is left is
  // one commit.)
  if (store_closed.valid())
    store_closed.wait_for(std::chrono::seconds{60});
}

// metrics.log, the final line, and the table of where the time went.
void report(const CrawlConfig& config, const crawl_progress& last, CrawlRunResult& result) {
  if (!config.metrics_path.empty()) {
    RunMetrics m{result.start_ms, result.end_ms, result.summary, result.termination_reason, last.queued,
                 result.timings, result.processors, peak_resident_kib()};
    try {
      write_metrics_file(config.metrics_path, m);
    } catch (const std::exception& e) {
      log_line(LogLevel::error, e.what());
      if (result.error.empty())
        result.error = e.what();
    }
  }
  log_line(LogLevel::info, final_line(result.termination_reason, result.summary, result.end_ms - result.start_ms,
                                      config.max_body_bytes));
  if (const std::string processors = processors_line(result.processors, result.summary.processor_failures);
      !processors.empty())
    log_line(result.summary.pages_processor_failed > 0 ? LogLevel::warn : LogLevel::info, processors);
  if (config.report_timings && !result.timings.empty())
    log_line(LogLevel::info, "where the time went:\n" + format_stage_times(result.timings, result.end_ms - result.start_ms));
}

CrawlRunResult run_prepared(caf::actor_system& sys, const CrawlConfig& config, const CrawlRunOptions& options,
                            CrawlParts parts) {
  const NodeAddress listen = options.coordinator ? parse_node_address(config.listen, "listen") : NodeAddress{};
  parts.events = options.events;
  caf::scoped_actor self{sys};
  name_actor(self->address(), "crawl_run", node_name(config));

  CrawlRunResult result;
  result.start_ms = epoch_ms();
  const std::shared_future<void> store_closed = parts.store_closed;
  const std::shared_ptr<const PagePipeline> pipeline = parts.pipeline;
  const CrawlTopology t = spawn_crawl(sys, config, std::move(parts), caf::actor_cast<crawl_observer_actor>(self));
  watch_topology(self, t.actors, options);
  const gatekeeper_actor gatekeeper =
    options.coordinator ? open_to_workers(sys, self, t, config, listen) : gatekeeper_actor{};

  const std::int64_t run_id = start_run(self, t, config, result);
  std::string stop_error;
  crawl_progress last = follow_crawl(self, t, config, options, pipeline.get(), result, stop_error);
  result.end_ms = epoch_ms();
  if (result.error.empty())
    summarize(self, t, config, run_id, result, last);
  // A crawl a processor stopped ended gracefully (its summary is whole),
  // but did not do what it was asked: its error says why.
  if (!stop_error.empty())
    result.error = std::move(stop_error);
  if (pipeline) {
    // Counted by the Storage from every stored page, whichever node
    // processed it; named by this node's chain (every node runs the same).
    std::vector<std::string> names;
    for (const auto& tally : pipeline->processor_tallies())
      names.push_back(tally.processor);
    result.processors =
      processor_tallies(names, result.summary.processor_pages, result.summary.processor_pages_failed);
  }
  result.timings = gather_timings(self, t);
  shut_down(self, t, gatekeeper, store_closed);
  report(config, last, result);
  return result;
}

}  // namespace

}  // namespace actorcrawl
