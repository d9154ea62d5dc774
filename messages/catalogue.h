// The message catalogue: every type that travels between actorcrawl's
// actors, registered once with CAF under one name each. Every binary loads
// exactly this block (register_messages), so a type never has two names on
// two sides of a connection.
//
// This block is the protocol's one list. The message trace names and
// describes types by walking it, the catalogue test round-trips every type
// in it and checks that docs/architecture.md's table names each one, and
// the join handshake's digest is computed from it.
#pragma once

#include <caf/actor_system_config.hpp>
#include <caf/type_id.hpp>

#include <string>

#include "messages/atoms.h"
#include "messages/fetch.h"
#include "messages/frontier.h"
#include "messages/interfaces.h"
#include "messages/sitemap.h"
#include "messages/storage.h"
#include "messages/topology.h"

CAF_BEGIN_TYPE_ID_BLOCK(actorcrawl, caf::first_custom_type_id)

  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::topology))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_settings))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::worker_hello))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::worker_welcome))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::node_welcome))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::node_unfit))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::node_lanes))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::CrawlJob))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::FollowedLink))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::crawl_seeds))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::work_demand))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::crawl_batch))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::page_outlinks))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::pages_fetched))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::url_failed))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::leases_returned))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::stop_crawl))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::crawl_finished))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::crawl_progress))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_jobs))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_result))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_done))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetches_done))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::lease_ref))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::pages_processed))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_failure))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::follow_redirect))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::FrontierEntry))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::LinkRow))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::PageRow))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::DeadLetterRow))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::ResumeState))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::StoreSummary))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::frontier_delta))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::store_pages))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::store_dead_letter))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::load_frontier))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::frontier_rows))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::begin_run))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::end_run))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::summary_request))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::url_refused))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::robots_fetch))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::robots_result))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::FrontierRefusal))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::DomainNode))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::DomainResume))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::RobotsRecord))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::store_robots))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::ResumeQuery))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::FrontierResume))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::resume_request))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::StageTimes))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::deltas_written))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::archive_exchange))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::relink_fetched))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetched_links))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::ExtractedItem))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::ProcessorFailure))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::ProcessorFailureCount))
  // The typed handles (messages/interfaces.h): they travel inside topology
  // and worker_welcome, and the gatekeeper's reply is one.
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::frontier_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::host_selector_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::processor_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::parse_lane_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::storage_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::dead_letter_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::gatekeeper_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::crawl_observer_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::fetch_worker_actor))
  CAF_ADD_TYPE_ID(actorcrawl, (std::vector<actorcrawl::fetch_worker_actor>))
  CAF_ADD_TYPE_ID(actorcrawl, (std::vector<actorcrawl::parse_lane_actor>))
  // Sitemaps (messages/sitemap.h).
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapLink))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapRow))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapOutcomeCount))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::sitemap_fetch))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapCounts))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapReport))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::SitemapParse))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::sitemap_parsed))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::sitemap_links))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::sitemaps_open))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::store_sitemap))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::load_sitemaps))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::sitemap_history))

  // Revisits in the middle of a run (freshness).
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::due_revisits))
  CAF_ADD_TYPE_ID(actorcrawl, (actorcrawl::lastmod_revisits))

CAF_END_TYPE_ID_BLOCK(actorcrawl)


namespace actorcrawl {

// Loads the catalogue (and the middleman, so any binary can go remote).
void register_messages(caf::actor_system_config& config);

// A fingerprint of this catalogue: every type's ID, name and field layout,
// and the version of the packings some records cross in
// (core/crawl/record_packing.h).
// Two processes exchange messages only if their digests are equal: CAF
// itself drops a message whose type differs between the two sides without
// a word, so the join handshake (messages/join.h) compares digests first.
std::string catalogue_digest();

}  // namespace actorcrawl
