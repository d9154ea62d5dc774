// What the FrontierActor needs from a frontier, whichever profile it runs:
// FrontierWindow (site: URL-level BFS with spill to SQLite) or
// DomainFrontier (domains: host-level discovery).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"

namespace actorcrawl {

struct RefillRequest {
  std::int64_t from_seq;
  std::size_t limit;
};

class CrawlFrontier {
 public:
  virtual ~CrawlFrontier() = default;

  // Accepts a discovered URL, or not. Returns the row to persist as queued.
  // A URL refused by a rule (a trap defence, the subdomain cap) shows up in
  // take_refused() with the rule's name instead.
  virtual std::optional<FrontierEntry> offer(const std::string& url, const std::string& host_key,
                                             std::int32_t depth, const std::string& parent_url) = 0;
  virtual std::vector<FrontierRefusal> take_refused() = 0;
  // Queues a URL again although it was seen (re-drive of a dead letter).
  virtual std::optional<FrontierEntry> requeue(const std::string& url, const std::string& host_key,
                                               std::int32_t depth) = 0;

  // Leases up to `n` jobs.
  virtual std::vector<CrawlJob> take(std::size_t n) = 0;
  // A leased job ended: fetched or dead-lettered. Uses budget.
  virtual void settle(const CrawlJob& job) = 0;
  // A leased job was refused before any request (robots.txt). No budget.
  virtual void refused(const CrawlJob& job) = 0;
  // Leased jobs that were never fetched come back to the front.
  virtual void give_back(std::vector<CrawlJob> jobs) = 0;

  virtual std::optional<RefillRequest> refill_request() = 0;
  virtual void refilled(const std::vector<FrontierEntry>& rows, std::size_t requested) = 0;

  virtual bool budget_exhausted() const = 0;
  virtual bool finished() const = 0;

  virtual std::size_t queued() const = 0;
  virtual std::size_t in_flight() const = 0;
  virtual std::size_t seen() const = 0;
  virtual std::int64_t settled() const = 0;
};

}  // namespace actorcrawl
