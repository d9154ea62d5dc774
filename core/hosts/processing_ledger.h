// The HostSelector's record of pages between fetch and record: a worker's
// fetch_done ends the lease at the host (its politeness clock starts), but
// the page is not safe until the Processor has sent its outcome on (store
// and links, a redirect's next hop, a sitemap's URLs). On a worker node the
// Processor runs beside the FetchWorkers, so a node that dies takes with it
// the pages it fetched and had not yet processed: those go back to the
// Frontier with the node's leases, as if never fetched. The Frontier's
// LeaseLedger drops the return of one whose outcome did arrive.
//
// The two reports come from different actors and may arrive in either
// order; an outcome reported first is remembered until its fetch_done.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/crawl/crawl_job.h"

namespace actorcrawl {

class ProcessingLedger {
 public:
  using WorkerId = std::uint64_t;

  // The lease of `job` ended at `worker` and its response went to a
  // Processor (fetch_done::to_processor).
  void fetched(WorkerId worker, const CrawlJob& job);
  // The Processor reported the outcome of (seq, attempt): page_processed,
  // a follow_redirect, a sitemap_parsed.
  void reported(std::uint64_t seq, std::uint32_t attempt);
  // `worker` is gone: the jobs it fetched whose outcome was not reported.
  std::vector<CrawlJob> worker_lost(WorkerId worker);

  std::size_t awaiting() const { return open_.size(); }  // fetched, not reported
  std::size_t reported_early() const { return early_.size(); }

 private:
  struct Open {
    WorkerId worker = 0;
    CrawlJob job;
  };
  std::unordered_map<std::uint64_t, Open> open_;            // by seq
  std::unordered_map<std::uint64_t, std::uint32_t> early_;  // seq -> attempt, reported before fetched
};

}  // namespace actorcrawl
