// Messages to the StorageActor: writes (fire and forget, batched there) and
// reads (requests, answered after the open batch is committed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "core/crawl/record_packing.h"
#include "core/crawl/records.h"
#include "core/report/stage_times.h"
#include "messages/packed_fields.h"

namespace actorcrawl {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FrontierEntry& x) {
  return f(caf::meta::type_name("FrontierEntry"), x.seq, x.url, x.depth, x.parent_url, x.lastmod_ms, x.etag,
           x.last_modified, x.content_digest);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FrontierRefusal& x) {
  return f(caf::meta::type_name("FrontierRefusal"), x.entry, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DomainNode& x) {
  return f(caf::meta::type_name("DomainNode"), x.host_key, x.root_url, x.crawl_count, x.etag, x.last_modified,
           x.content_digest);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DomainResume& x) {
  return f(caf::meta::type_name("DomainResume"), x.seed_known, x.nodes, x.saturated, x.pages_fetched,
           x.next_seq);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RobotsRecord& x) {
  return f(caf::meta::type_name("RobotsRecord"), x.host_key, x.url, x.status_code, x.outcome,
           x.crawl_delay_ms, x.sitemaps, x.fetched_at_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LinkRow& x) {
  return f(caf::meta::type_name("LinkRow"), x.url, x.nofollow, x.followed);
}

// A page's links, as the inspectors that do not move messages between
// processes see them (logs, traces, tests): one LinkRow each. Between
// processes they travel inside their packed row, never through this.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LinkList& x) {
  static_assert(Inspector::reads_state, "a LinkList is read from a process only in its packed row");
  auto rows = x.rows();
  return f(caf::meta::type_name("LinkList"), rows);
}

// Between processes a row travels packed, one field
// (core/crawl/record_packing.h); every other inspector sees its fields.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PageRow& x) {
  if constexpr (moves_between_processes<Inspector>) {
    return inspect_packed(
      f, "PageRow", x, [](const PageRow& row) { return pack_page_row(row); },
      [](const std::string& packed, PageRow& row) { return unpack_page_row(packed, row); });
  } else {
    return f(caf::meta::type_name("PageRow"), x.url, x.host_key, x.depth, x.status_code, x.content_type, x.title,
             x.description, x.bytes, x.fetch_ms, x.fetched_at_ms, x.error, x.final_url, x.redirect_chain,
             x.truncated, x.canonical_url, x.attempts, x.robots_directives, x.links, x.link_host_keys,
             x.links_dropped, x.items, x.processor_failures, x.etag, x.last_modified, x.content_digest, x.charset,
             x.body, x.not_modified, x.processors_took, x.processors_failed);
  }
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, KeptBody& x) {
  return f(caf::meta::type_name("KeptBody"), x.encoding, x.size, x.data);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ExtractedItem& x) {
  return f(caf::meta::type_name("ExtractedItem"), x.kind, x.json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ProcessorFailureCount& x) {
  return f(caf::meta::type_name("ProcessorFailureCount"), x.processor, x.reason, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapOutcomeCount& x) {
  return f(caf::meta::type_name("SitemapOutcomeCount"), x.outcome, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ProcessorFailure& x) {
  return f(caf::meta::type_name("ProcessorFailure"), x.processor, x.reason, x.detail);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DeadLetterRow& x) {
  return f(caf::meta::type_name("DeadLetterRow"), x.url, x.depth, x.reason, x.detail, x.attempts,
           x.status_code, x.failed_at_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ResumeState& x) {
  return f(caf::meta::type_name("ResumeState"), x.seen, x.next_seq, x.queued, x.settled);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SeenUrl& x) {
  return f(caf::meta::type_name("SeenUrl"), x.fingerprint, x.depth, x.fetched);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StoreSummary& x) {
  return f(caf::meta::type_name("StoreSummary"), x.nodes_discovered, x.nodes_crawled,
           x.edges_recorded, x.pages_fetched, x.pages_failed, x.avg_fetch_time_ms, x.links_dropped,
           x.urls_parked, x.items_stored, x.pages_truncated, x.processor_failures, x.pages_processor_failed,
           x.seed_refusals, x.sitemap_urls_queued, x.sitemap_outcomes, x.changes, x.processor_pages,
           x.processor_pages_failed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PageChangeCounts& x) {
  return f(caf::meta::type_name("PageChangeCounts"), x.new_pages, x.changed, x.unchanged, x.gone);
}

// Frontier -> Storage: new queued rows, rows queued again under a new seq
// (met again closer to a seed), settled ones, refused ones (with the rule)
// and parked ones (with the transient failure), in one batch.
struct frontier_delta {
  std::vector<FrontierEntry> added;
  std::vector<FrontierEntry> requeued;
  std::vector<std::string> done;
  std::vector<std::string> failed;
  std::vector<FrontierRefusal> refused;
  std::vector<FrontierRefusal> parked;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, frontier_delta& x) {
  return f(caf::meta::type_name("frontier_delta"), x.added, x.requeued, x.done, x.failed, x.refused, x.parked);
}

// Storage -> Frontier: how many frontier_delta messages it has written so
// far, sent every kDeltasWrittenEvery deltas and after each commit; the
// Frontier holds back leases while too many are unwritten
// (FrontierSettings::max_unwritten_deltas).
struct deltas_written {
  std::int64_t count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deltas_written& x) {
  return f(caf::meta::type_name("deltas_written"), x.count);
}

// HostSelector -> Storage: a host's robots.txt, for the record.
struct store_robots {
  RobotsRecord record;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, store_robots& x) {
  return f(caf::meta::type_name("store_robots"), x.record);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ResumeQuery& x) {
  return f(caf::meta::type_name("ResumeQuery"), x.profile, x.seed_host_key, x.max_crawls_per_node);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FrontierResume& x) {
  return f(caf::meta::type_name("FrontierResume"), x.site, x.domains);
}

// Frontier -> Storage (request): how to continue, for the crawl's profile
// -> FrontierResume.
struct resume_request {
  ResumeQuery query;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resume_request& x) {
  return f(caf::meta::type_name("resume_request"), x.query);
}

// Frontier (a lane's pages_fetched, passed on) / DeadLetter (one) ->
// Storage: rows written in this order, in the open write batch.
struct store_pages {
  std::vector<PageRow> pages;
  std::int64_t sent_us = 0;  // monotonic_us() when sent: mailbox wait
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, store_pages& x) {
  return f(caf::meta::type_name("store_pages"), x.pages, x.sent_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StageTimes& x) {
  return f(caf::meta::type_name("StageTimes"), x.stage, x.count, x.busy_us, x.wait_us, x.max_wait_us);
}

struct store_dead_letter {
  DeadLetterRow row;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, store_dead_letter& x) {
  return f(caf::meta::type_name("store_dead_letter"), x.row);
}

// Frontier -> Storage (request): the pages whose revisit interval has passed
// at `now_ms` (revisit_after, or a page's adaptive interval), at most
// `limit`, with their validators; the rows are not changed. Also the
// Frontier's own timer for asking (sent to itself, then to the Storage).
struct due_revisits {
  std::int64_t now_ms = 0;
  std::int64_t revisit_after_ms = 0;
  std::int32_t limit = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, due_revisits& x) {
  return f(caf::meta::type_name("due_revisits"), x.now_ms, x.revisit_after_ms, x.limit);
}

// Frontier -> Storage (request): URLs a sitemap listed with a <lastmod>
// that this crawl had fetched already (`offered`: url, depth, parent and
// lastmod_ms). The reply holds those whose stored fetch is older than the
// <lastmod>, with their validators, once revisit_min has passed since that
// fetch (RevisitPolicy::due_by_lastmod); the rows are not changed: the
// Frontier queues them again under new seqs, as due_revisits'.
struct lastmod_revisits {
  std::int64_t now_ms = 0;
  std::vector<FrontierEntry> offered;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lastmod_revisits& x) {
  return f(caf::meta::type_name("lastmod_revisits"), x.now_ms, x.offered);
}

// Frontier -> Storage (request): queued rows to refill the window.
struct load_frontier {
  std::int64_t from_seq = 0;
  std::int32_t limit = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, load_frontier& x) {
  return f(caf::meta::type_name("load_frontier"), x.from_seq, x.limit);
}

struct frontier_rows {
  std::vector<FrontierEntry> rows;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, frontier_rows& x) {
  return f(caf::meta::type_name("frontier_rows"), x.rows);
}

// Frontier -> Storage (request): a fetched URL met again closer to a seed
// (the entry's depth and parent). Its rows take the smaller depth; the
// reply holds the links its fetch offered, to be offered again.
struct relink_fetched {
  FrontierEntry entry;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, relink_fetched& x) {
  return f(caf::meta::type_name("relink_fetched"), x.entry);
}

struct fetched_links {
  std::vector<std::string> urls;  // document order
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetched_links& x) {
  return f(caf::meta::type_name("fetched_links"), x.urls);
}

// main -> Storage (requests): the run log and the end-of-crawl summary.
struct begin_run {
  std::int64_t started_at_ms = 0;
  std::string seeds_json;
  std::int64_t revisit_after_ms = 0;  // re-queue pages older than this
  bool adaptive_revisit = false;      // ... or than their own interval
  std::int64_t revisit_min_ms = 0;
  std::int64_t revisit_max_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, begin_run& x) {
  return f(caf::meta::type_name("begin_run"), x.started_at_ms, x.seeds_json, x.revisit_after_ms, x.adaptive_revisit,
           x.revisit_min_ms, x.revisit_max_ms);
}

struct end_run {
  std::int64_t run_id = 0;
  std::int64_t ended_at_ms = 0;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, end_run& x) {
  return f(caf::meta::type_name("end_run"), x.run_id, x.ended_at_ms, x.reason);
}

// crawl run -> Storage, when the crawl has ended: the counts since the run
// began, and what became of each of its seed URLs (seed_refusals).
struct summary_request {
  std::int64_t since_ms = 0;
  std::vector<std::string> seed_urls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, summary_request& x) {
  return f(caf::meta::type_name("summary_request"), x.since_ms, x.seed_urls);
}

}  // namespace actorcrawl
