// The actors' interfaces: every event-based actor of the topology as a
// caf::typed_actor that lists each message it accepts and what it replies.
// This is the one place that says who takes what. A send through one of
// these handles of a message the receiver does not accept, or a request
// whose reply is taken as the wrong type, fails to compile
// (tests/messages/wrong_receiver.cc); the catalogue test checks that every
// type named here is in the catalogue, and docs/architecture.md's interface
// table is generated from these lists (interface_table) and checked
// against them.
//
// The message structs are declared in frontier.h, fetch.h, storage.h and
// topology.h; `topology` itself carries these handles, so it is declared
// after them (topology.h) and only named here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "core/report/stage_times.h"
#include "messages/atoms.h"
#include "messages/fetch.h"
#include "messages/frontier.h"
#include "messages/sitemap.h"
#include "messages/storage.h"

namespace actorcrawl {

struct topology;
struct worker_hello;
struct worker_welcome;
struct node_welcome;
struct node_unfit;
struct node_lanes;

// FetchWorker: a blocking actor on a thread of its own, since libcurl's
// multi poll must own its thread while it waits. CAF 0.17 has no typed
// blocking actor, so the worker is spawned untyped and handed out only
// behind this typed handle (spawn_fetch_worker): whoever sends to it is
// checked like any other sender, and its own receive takes exactly these.
using fetch_worker_actor = caf::typed_actor<
  caf::reacts_to<fetch_jobs>,
  caf::reacts_to<robots_fetch>,
  caf::reacts_to<sitemap_fetch>,
  caf::reacts_to<drain_atom>,  // the crawl stops: retries are called off
  // Its node leaves: retries called off, no new transfer started (the
  // leases it is sent go back with its others when it goes), answered once
  // the transfers under way have ended and their results are sent.
  caf::replies_to<flush_atom>::with<ok_atom>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// Whoever started the crawl (a crawl run, a test): hears when it is over.
using crawl_observer_actor = caf::typed_actor<caf::reacts_to<crawl_finished>>;

// FrontierActor: seeds in, leases out on demand, outcomes back.
using frontier_actor = caf::typed_actor<
  caf::reacts_to<topology>,
  caf::reacts_to<crawl_seeds>,
  caf::reacts_to<work_demand>,
  caf::reacts_to<pages_fetched>,
  caf::reacts_to<url_failed>,
  caf::reacts_to<url_refused>,
  caf::reacts_to<leases_returned>,
  caf::reacts_to<deltas_written>,
  caf::reacts_to<stop_crawl>,
  caf::reacts_to<sitemap_links>,
  caf::reacts_to<sitemaps_open>,
  caf::reacts_to<tick_atom>,  // its own timer: a parked URL is due
  caf::reacts_to<due_revisits>,  // its own timer: time to ask the Storage for due pages
  caf::replies_to<progress_atom>::with<crawl_progress>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// HostSelectorActor: leases to FetchWorkers, host by host, politely.
using host_selector_actor = caf::typed_actor<
  caf::reacts_to<topology>,
  caf::replies_to<worker_hello>::with<worker_welcome>,
  caf::reacts_to<crawl_batch>,
  caf::reacts_to<follow_redirect>,
  caf::reacts_to<fetches_done>,
  caf::reacts_to<pages_processed>,
  caf::reacts_to<robots_result>,
  caf::reacts_to<sitemap_parsed>,
  caf::reacts_to<drain_atom>,
  caf::reacts_to<tick_atom>,  // its own timer: a host's politeness clock ran out
  caf::replies_to<workers_atom>::with<std::vector<fetch_worker_actor>>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// One parser lane, a child of the ProcessorActor (which wires it at spawn).
using parse_lane_actor = caf::typed_actor<
  caf::reacts_to<fetch_result>,
  caf::reacts_to<archive_exchange>,
  caf::reacts_to<sitemap_parsed>,
  // Everything sent before it is processed and its outcome sent on.
  caf::replies_to<flush_atom>::with<ok_atom>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// ProcessorActor: the fan-in point in front of the parser lanes.
using processor_actor = caf::typed_actor<
  caf::reacts_to<topology>,
  caf::reacts_to<fetch_result>,
  caf::reacts_to<archive_exchange>,
  caf::reacts_to<sitemap_parsed>,
  caf::replies_to<lanes_atom>::with<std::vector<parse_lane_actor>>,  // its lanes, once wired
  // Every page sent before it processed by its lane and its outcome sent
  // on (a worker node stopping hands in what it fetched).
  caf::replies_to<flush_atom>::with<ok_atom>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// StorageActor: writes (one-way, batched) and reads (answered after the
// open batch is committed).
using storage_actor = caf::typed_actor<
  caf::reacts_to<topology>,
  caf::reacts_to<frontier_delta>,
  caf::reacts_to<store_pages>,
  caf::reacts_to<store_dead_letter>,
  caf::reacts_to<store_robots>,
  caf::reacts_to<store_sitemap>,
  caf::reacts_to<tick_atom>,  // its own timer: a batch is due
  caf::replies_to<resume_request>::with<FrontierResume>,
  caf::replies_to<load_frontier>::with<frontier_rows>,
  caf::replies_to<due_revisits>::with<frontier_rows>,
  caf::replies_to<lastmod_revisits>::with<frontier_rows>,
  caf::replies_to<relink_fetched>::with<fetched_links>,
  caf::replies_to<begin_run>::with<std::int64_t>,
  caf::replies_to<end_run>::with<ok_atom>,
  caf::replies_to<summary_request>::with<StoreSummary>,
  caf::replies_to<load_sitemaps>::with<sitemap_history>,
  caf::replies_to<flush_atom>::with<ok_atom>,
  caf::replies_to<timings_atom>::with<StageTimes>>;

// DeadLetterActor: failures after every retry.
using dead_letter_actor = caf::typed_actor<
  caf::reacts_to<topology>,
  caf::reacts_to<fetch_failure>>;

// The coordinator's front door (messages/join.h): a join request of CAF's
// own types, (kJoinTag, catalogue digest, node name), answered with the
// crawl's actors and configuration; and a node's word that it cannot run
// them.
using gatekeeper_actor = caf::typed_actor<
  caf::replies_to<std::string, std::string, std::string>::with<node_welcome>,
  caf::reacts_to<node_lanes>,
  caf::reacts_to<node_unfit>>;

}  // namespace actorcrawl

// Every interface, with the actor it is the interface of: walked by the
// catalogue test and by interface_table (docs/architecture.md).
#define ACTORCRAWL_INTERFACES(X)                   \
  X(frontier_actor, "FrontierActor")               \
  X(host_selector_actor, "HostSelectorActor")      \
  X(fetch_worker_actor, "FetchWorker")             \
  X(processor_actor, "ProcessorActor")             \
  X(parse_lane_actor, "ProcessorLane")             \
  X(storage_actor, "StorageActor")                 \
  X(dead_letter_actor, "DeadLetterActor")          \
  X(gatekeeper_actor, "gatekeeper")                \
  X(crawl_observer_actor, "crawl observer")

namespace actorcrawl {

// The class behind each interface, as logs and errors name it:
// actor_class_name<frontier_actor>::value is "FrontierActor".
template <class Handle>
struct actor_class_name;

#define ACTORCRAWL_CLASS_NAME(handle, text)     \
  template <>                                   \
  struct actor_class_name<handle> {             \
    static constexpr const char* value = text;  \
  };
ACTORCRAWL_INTERFACES(ACTORCRAWL_CLASS_NAME)
#undef ACTORCRAWL_CLASS_NAME

}  // namespace actorcrawl
