// The domains profile's frontier: the unit of work is a host,
// crawled through its root page.
//
//  - A host is queued at a depth at most once ("refuses a host already
//    queued at the same depth"), and only while it has been crawled fewer
//    than max_crawls_per_node times; the count is checked again when it is
//    leased.
//  - At most max_subdomains_per_root hosts per registrable domain are ever
//    queued; the next one is refused as "max_subdomains_per_root".
//  - Targets are queued while depth < max_depth.
//  - Resume: when the seed's host is already a node,
//    every node with crawl_count < max is queued again at depth 0.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/frontier/crawl_frontier.h"

namespace actorcrawl {

class DomainFrontier : public CrawlFrontier {
 public:
  struct Limits {
    std::int32_t max_depth = 5;
    std::int64_t max_pages = 1000;  // root pages fetched, including earlier runs
    std::int64_t max_crawls_per_node = 3;
    std::size_t max_subdomains_per_root = 3;
  };

  explicit DomainFrontier(Limits limits);

  // Call before offering the seeds. Returns true when the crawl continues an
  // earlier one (the seed's host was known): the seeds need not be offered.
  bool resume(const DomainResume& state);

  std::optional<FrontierEntry> offer(std::string_view url, const std::string& host_key, std::int32_t depth,
                                     const std::string& parent_url) override;
  std::vector<FrontierRefusal> take_refused() override;
  std::vector<CrawlJob> take(std::size_t n) override;
  void settle(const CrawlJob& job) override;
  void failed(const CrawlJob& job) override;
  void refused(const CrawlJob& job) override;
  void park(const CrawlJob& job, Clock::time_point due) override;
  std::size_t take_due(Clock::time_point) override { return 0; }
  std::optional<Clock::time_point> next_due() const override { return std::nullopt; }
  // A host is queued at a depth once; it is never lowered.
  std::vector<FrontierEntry> take_lowered() override { return {}; }
  std::vector<FrontierEntry> take_relinks() override { return {}; }
  std::vector<std::string> take_redirect_targets() override { return {}; }
  void give_back(std::vector<CrawlJob> jobs) override;
  std::optional<RefillRequest> refill_request() override { return std::nullopt; }
  void refilled(const std::vector<FrontierEntry>&, std::size_t) override {}
  bool budget_exhausted() const override;
  bool finished() const override;
  std::size_t queued() const override { return queue_.size(); }
  std::size_t parked() const override { return parked_; }
  std::size_t in_flight() const override { return in_flight_; }
  std::size_t seen() const override { return crawls_.size(); }
  std::int64_t settled() const override { return settled_; }

  std::int64_t crawls_of(const std::string& host_key) const;

 private:
  struct Entry {
    std::int64_t seq;
    std::string url;
    std::string host_key;
    std::int32_t depth;
    std::uint32_t attempts = 0;  // leases of the entry so far
    std::string etag{};           // the stored root page's validators (a recrawl)
    std::string last_modified{};
    std::string stored_digest{};
  };

  // Whether the subdomain cap admits the host; registers it when it does.
  bool admit_host(const std::string& host_key);
  void push(Entry entry);

  Limits limits_;
  std::deque<Entry> queue_;
  std::set<std::pair<std::string, std::int32_t>> queued_at_;  // (host, depth) in queue_
  std::unordered_map<std::string, std::int64_t> crawls_;      // leased so far, per host
  std::unordered_map<std::string, std::unordered_set<std::string>> hosts_by_root_;
  std::unordered_set<std::string> refused_hosts_;
  std::vector<FrontierRefusal> refusals_;
  std::size_t in_flight_ = 0;
  std::size_t parked_ = 0;  // roots that failed for now, this run
  std::int64_t settled_ = 0;
  std::int64_t next_seq_ = 1;
};

}  // namespace actorcrawl
