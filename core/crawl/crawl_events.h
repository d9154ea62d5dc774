// What a running crawl tells whoever embeds it (the crawl service), as it
// happens: each page recorded, each URL given up on, and progress. Called
// from actor threads; implementations must be thread-safe and quick.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/records.h"

namespace actorcrawl {

struct ProgressSnapshot {
  std::int64_t queued = 0;
  std::int64_t in_flight = 0;
  std::int64_t seen = 0;
  std::int64_t fetched = 0;
  std::int64_t failed = 0;
};

class CrawlEvents {
 public:
  virtual ~CrawlEvents() = default;
  // The crawl's actors: role name and actor id (for mailbox gauges).
  virtual void started(const std::vector<std::pair<std::string, std::uint64_t>>& actors) {}
  // A page row was written (fetched, or recorded with its error).
  virtual void page_stored(const PageRow& page) {}
  // A URL failed after every retry.
  virtual void url_failed(const DeadLetterRow& row) {}
  virtual void progress(const ProgressSnapshot& snapshot) {}
};

}  // namespace actorcrawl
