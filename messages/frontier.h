// Messages to and from the FrontierActor: seeds in, leases out on demand,
// outcomes back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "core/crawl/crawl_job.h"
#include "core/crawl/followed_links.h"
#include "core/crawl/record_packing.h"
#include "messages/packed_fields.h"
#include "messages/storage.h"  // PageRow

namespace actorcrawl {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CrawlJob& x) {
  if constexpr (moves_between_processes<Inspector>) {
    return inspect_packed(
      f, "CrawlJob", x, [](const CrawlJob& job) { return pack_crawl_job(job); },
      [](const std::string& packed, CrawlJob& job) { return unpack_crawl_job(packed, job); });
  } else {
    return f(caf::meta::type_name("CrawlJob"), x.seq, x.url, x.host_key, x.depth, x.attempt, x.fetch_url,
             x.fetch_host_key, x.hop_urls, x.hop_statuses, x.etag, x.last_modified, x.stored_digest);
  }
}

// main -> Frontier: start (or resume) the crawl from these URLs.
struct crawl_seeds {
  std::vector<std::string> urls;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, crawl_seeds& x) {
  return f(caf::meta::type_name("crawl_seeds"), x.urls);
}

// HostSelector -> Frontier: send me up to `slots` more jobs. The Frontier
// owes that many until it has sent them; nothing is sent unasked.
struct work_demand {
  std::int32_t slots = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, work_demand& x) {
  return f(caf::meta::type_name("work_demand"), x.slots);
}

// Frontier -> HostSelector: leases, in BFS order.
struct crawl_batch {
  std::vector<CrawlJob> jobs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, crawl_batch& x) {
  return f(caf::meta::type_name("crawl_batch"), x.jobs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FollowedLink& x) {
  return f(caf::meta::type_name("FollowedLink"), x.link, x.host, x.url, x.host_key);
}

// One fetched page: its lease, and the in-scope links on it to follow, by
// their place in the page's row (followed_links.h); empty for non-HTML,
// nofollow pages and error pages.
struct page_outlinks {
  CrawlJob job;
  std::vector<FollowedLink> links;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, page_outlinks& x) {
  PackedFollowedLinks links{x.links};
  return f(caf::meta::type_name("page_outlinks"), x.job, links);
}

// A lease, by its (seq, attempt).
struct lease_ref {
  std::uint64_t seq = 0;
  std::uint32_t attempt = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lease_ref& x) {
  return f(caf::meta::type_name("lease_ref"), x.seq, x.attempt);
}

// ProcessorLane -> Frontier: a lane's batch (processor_actor.cc) of fetched
// pages: their rows, and one page_outlinks a row, in the same order. The
// rows go on to Storage (store_pages) before the Frontier's delta that
// marks the pages done, so a page is never done without its row; its links
// cross once, in its row. `dead_lettered`: the leases the lane ended with a
// dead letter (a redirect that failed), sent before this. The Frontier then
// tells the HostSelector that every lease of the batch left the lane
// (pages_processed).
struct pages_fetched {
  std::vector<PageRow> rows;
  std::vector<page_outlinks> pages;
  std::vector<lease_ref> dead_lettered;
  std::int64_t sent_us = 0;  // monotonic_us() when sent: mailbox wait
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pages_fetched& x) {
  return f(caf::meta::type_name("pages_fetched"), x.rows, x.pages, x.dead_lettered, x.sent_us);
}

// DeadLetter -> Frontier: the job failed after every retry. A transient
// reason (transient_failure.h) parks the URL; any other settles it as failed.
struct url_failed {
  CrawlJob job;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, url_failed& x) {
  return f(caf::meta::type_name("url_failed"), x.job, x.reason);
}

// HostSelector -> Frontier: the job was refused before any request
// (robots_txt, robots_unreachable, dns_failure, private_address); settled
// without using budget, or parked if the reason is transient.
struct url_refused {
  CrawlJob job;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, url_refused& x) {
  return f(caf::meta::type_name("url_refused"), x.job, x.reason);
}

// HostSelector -> Frontier: leases that ended without a fetch (a worker went
// down, the crawl is stopping); the URLs are queued again.
struct leases_returned {
  std::vector<CrawlJob> jobs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, leases_returned& x) {
  return f(caf::meta::type_name("leases_returned"), x.jobs);
}

// main -> Frontier: stop taking new work; finish what is in flight.
struct stop_crawl {
  std::string reason;  // becomes the termination reason, e.g. "signal"
  // Why the crawl cannot go on, for its user, when something broke (a
  // processor that gave up: reason "processor_failed"); "" for a stop
  // that was asked for.
  std::string error = {};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_crawl& x) {
  return f(caf::meta::type_name("stop_crawl"), x.reason, x.error);
}

// Frontier -> whoever started the crawl: it is over and storage is flushed.
struct crawl_finished {
  std::string reason;  // queue_empty, max_pages, signal, processor_failed
  std::string error = {};  // the stop's error, if it had one
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, crawl_finished& x) {
  return f(caf::meta::type_name("crawl_finished"), x.reason, x.error);
}

// Frontier -> asker (reply to progress_atom): live counters.
struct crawl_progress {
  std::int64_t queued = 0;
  std::int64_t in_flight = 0;
  std::int64_t seen = 0;
  std::int64_t fetched = 0;  // this run
  std::int64_t failed = 0;   // this run
  std::int64_t settled_total = 0;
  bool stopping = false;
  std::int64_t parked = 0;          // waiting after a transient failure
  std::int64_t stale_reports = 0;   // reports of a lease already ended or replaced, ignored
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, crawl_progress& x) {
  return f(caf::meta::type_name("crawl_progress"), x.queued, x.in_flight, x.seen, x.fetched,
           x.failed, x.settled_total, x.stopping, x.parked, x.stale_reports);
}

}  // namespace actorcrawl
