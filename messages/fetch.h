// Messages around one transfer: the job to a FetchWorker, and its outcome to
// the Processor (content), the HostSelector (completion) or the DeadLetter
// (failure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/meta/type_name.hpp>

#include "core/page/page_pipeline.h"
#include "messages/frontier.h"

namespace actorcrawl {

// HostSelector -> FetchWorker: leases to fetch, the ones one dispatch gave
// this worker (one a message while a trace records).
struct fetch_jobs {
  std::vector<CrawlJob> jobs;
  std::int64_t sent_us = 0;  // monotonic_us() when sent: mailbox wait
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_jobs& x) {
  return f(caf::meta::type_name("fetch_jobs"), x.jobs, x.sent_us);
}

// The facts of a fetch the page pipeline reads (core/page/page_pipeline.h):
// timings, attempts, redirect hops, X-Robots-Tag, a redirect's next hop,
// the validators and whether the answer was a 304. Inspected as part of
// fetch_result, with no type ID of its own.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FetchFacts& x) {
  return f(caf::meta::type_name("FetchFacts"), x.fetch_ms, x.fetched_at_ms, x.attempts, x.redirect_urls,
           x.redirect_statuses, x.x_robots_tag, x.location, x.etag, x.last_modified, x.not_modified);
}

// FetchWorker -> Processor: a response (any status below 500, or a 5xx/429
// kept after the last retry is a failure instead), and the facts of its
// fetch as the pipeline takes them.
struct fetch_result {
  CrawlJob job;
  std::int32_t status_code = 0;
  std::string content_type;  // media type, lowercased
  std::string charset;
  std::string body;          // moved, never copied, inside one process
  bool truncated = false;
  std::string final_url;
  FetchFacts facts;
  std::int64_t sent_us = 0;  // monotonic_us() when sent: mailbox wait
  // With fetch_settings::capture_http only (for the warc processor):
  std::string ip_address;     // the peer's address
  std::string request_head;   // as sent
  std::string response_head;  // as received
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_result& x) {
  return f(caf::meta::type_name("fetch_result"), x.job, x.status_code, x.content_type, x.charset, x.body,
           x.truncated, x.final_url, x.facts, x.sent_us, x.ip_address, x.request_head, x.response_head);
}

// Processor -> HostSelector: a redirect the crawl follows. The job carries
// the hop to fetch next (fetch_url) and the hops before it; the HostSelector
// schedules it like any URL of that host, under its robots.txt and
// politeness, and the lease stays the same.
struct follow_redirect {
  CrawlJob job;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, follow_redirect& x) {
  return f(caf::meta::type_name("follow_redirect"), x.job);
}

// HostSelector -> FetchWorker: fetch a host's robots.txt (no retries here:
// the HostSelector decides when to try again).
struct robots_fetch {
  std::string host_key;
  std::string url;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, robots_fetch& x) {
  return f(caf::meta::type_name("robots_fetch"), x.host_key, x.url);
}

// FetchWorker -> HostSelector: what the robots.txt fetch gave. status 0
// means no response (error names why).
struct robots_result {
  std::string host_key;
  std::string url;
  std::int32_t status_code = 0;
  std::string body;
  std::string error;
  std::int64_t fetch_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, robots_result& x) {
  return f(caf::meta::type_name("robots_result"), x.host_key, x.url, x.status_code, x.body, x.error,
           x.fetch_ms);
}

// FetchWorker -> Processor, with fetch_settings::capture_http only: a
// response that will not come as a fetch_result (robots.txt, a 5xx or 429
// retried or given up on), for the archive alone.
struct archive_exchange {
  std::string url;
  std::int64_t fetched_at_ms = 0;
  std::string ip_address;
  std::string request_head;
  std::string response_head;
  std::string body;
  bool truncated = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, archive_exchange& x) {
  return f(caf::meta::type_name("archive_exchange"), x.url, x.fetched_at_ms, x.ip_address, x.request_head,
           x.response_head, x.body, x.truncated);
}

// FetchWorker -> HostSelector: the lease on `job` ended and the host's
// politeness clock starts. `returned` means the URL was not settled (the
// crawl is stopping and its retry was called off): it goes back to the
// Frontier. `server_delay_ms` is what the server asked for with Retry-After.
// `to_processor`: the response went to a Processor (a fetch_result or
// sitemap_parsed), which reports its outcome (page_processed, a
// follow_redirect, the sitemap_parsed itself); until then the job is the
// worker's still, and returned with its leases if it goes (ProcessingLedger).
struct fetch_done {
  CrawlJob job;
  bool returned = false;
  std::int64_t server_delay_ms = 0;
  std::int64_t response_ms = 0;  // how long the last request took
  bool to_processor = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_done& x) {
  return f(caf::meta::type_name("fetch_done"), x.job, x.returned, x.server_delay_ms, x.response_ms,
           x.to_processor);
}

// FetchWorker -> HostSelector: the leases that ended in one round of the
// worker's transfers (one while a trace records), each sent after its
// fetch_result or sitemap_parsed.
struct fetches_done {
  std::vector<fetch_done> done;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetches_done& x) {
  return f(caf::meta::type_name("fetches_done"), x.done);
}

// Frontier -> HostSelector: the pages of these leases are recorded (their
// rows reached the Frontier in a lane's pages_fetched, or their dead letters
// went before it): nothing of them is left on the node that fetched and
// processed them. The Frontier passes it on, rather than each lane sending
// its own, so that a worker node's batch crosses the link as one message.
struct pages_processed {
  std::vector<lease_ref> leases;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pages_processed& x) {
  return f(caf::meta::type_name("pages_processed"), x.leases);
}

// FetchWorker -> DeadLetter: the job failed after all retries.
struct fetch_failure {
  CrawlJob job;
  std::string reason;  // stable name: timeout, dns_failure, http_503, ...
  std::string detail;
  std::int32_t status_code = 0;
  std::int32_t attempts = 0;
  std::int64_t fetch_ms = 0;
  std::int64_t failed_at_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_failure& x) {
  return f(caf::meta::type_name("fetch_failure"), x.job, x.reason, x.detail, x.status_code,
           x.attempts, x.fetch_ms, x.failed_at_ms);
}

}  // namespace actorcrawl
