// The Frontier's bookkeeping, free of actors: the seen-set, a bounded
// in-memory window of queued URLs in BFS order, the spill to the database
// when the window is full, the page budget and the count of URLs in flight.
//
// Persistence protocol (the FrontierActor carries it out): every URL accepted
// by offer() is returned as a FrontierEntry to be written to the database as
// 'queued' before anything else about it happens, and settle() marks it done
// or failed. URLs beyond the window stay only in the database ("spilled");
// refill_request() says which rows to load back, in seq order.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <memory>

#include "core/frontier/crawl_frontier.h"
#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"
#include "core/frontier/fingerprint_set.h"
#include "core/frontier/trap_guard.h"

namespace actorcrawl {

class FrontierWindow : public CrawlFrontier {
 public:
  struct Limits {
    std::size_t window = 10000;   // URLs held in memory
    std::int64_t max_pages = 1000;  // fetches, including earlier runs
    std::int32_t max_depth = 5;
    // Leases out per host at most (0: no limit). BFS order clusters by
    // host; without this, the HostSelector's buffer fills with a few hosts'
    // URLs that can only leave one per politeness delay, while other hosts'
    // URLs wait behind them (Mercator's reason for per-host back queues).
    std::size_t per_host_leases = 0;
  };

  // With `traps`, each new URL must also pass the crawler-trap defences
  // (counted from the start of this run).
  explicit FrontierWindow(Limits limits, std::optional<TrapGuard::Limits> traps = std::nullopt);
  ~FrontierWindow() override;

  // Continues a stopped crawl: every stored URL counts as seen, the queued
  // ones are spilled (loaded through refills), settled ones use up budget.
  void resume(const ResumeState& state);

  // Accepts a URL unless it was seen before or is deeper than max_depth.
  // Returns the row to persist; the URL is queued (in the window or spilled).
  // A URL seen before at a larger depth and still queued (never leased) is
  // queued again at this depth under a new seq (take_lowered() has the row);
  // its older entry is skipped when it comes up. A URL leased or fetched
  // already is never queued again (no page is requested twice in a crawl):
  // once fetched, take_relinks() names it with its smaller depth, so that
  // its stored links are offered again at that depth plus one.
  std::optional<FrontierEntry> offer(std::string_view url, const std::string& host_key,
                                     std::int32_t depth, const std::string& parent_url) override;
  std::vector<FrontierRefusal> take_refused() override;
  std::vector<FrontierEntry> take_lowered() override;
  bool revisit(const FrontierEntry& due) override;
  std::vector<FrontierEntry> take_relinks() override;
  std::vector<std::string> take_redirect_targets() override;

  // Leases up to `n` jobs in BFS order, within the page budget.
  std::vector<CrawlJob> take(std::size_t n) override;

  // A leased job ended: fetched (and its links offered), or dead-lettered.
  void settle(const CrawlJob& job) override;
  void failed(const CrawlJob& job) override;
  void refused(const CrawlJob& job) override;
  void park(const CrawlJob& job, Clock::time_point due) override;
  std::size_t take_due(Clock::time_point now) override;
  std::optional<Clock::time_point> next_due() const override;
  // Leased jobs that were never fetched (a worker died, the crawl is
  // stopping) come back to the front of the window.
  void give_back(std::vector<CrawlJob> jobs) override;

  // Which stored rows to load when the window runs low, if any, and at most
  // one at a time: call refilled() with the rows when they arrive.
  std::optional<RefillRequest> refill_request() override;
  void refilled(const std::vector<FrontierEntry>& rows, std::size_t requested) override;

  bool budget_exhausted() const override;
  // Nothing queued (in memory or spilled) that the budget would allow, and
  // nothing in flight: the crawl is over.
  bool finished() const override;

  std::size_t queued() const override { return held() + spilled_; }
  std::size_t parked() const override { return parked_.size(); }
  std::size_t in_flight() const override { return in_flight_; }
  std::size_t seen() const override { return seen_.size(); }
  std::int64_t settled() const override { return settled_; }
  std::int64_t next_seq() const { return next_seq_; }

 private:
  void enqueue(const FrontierEntry& entry, const std::string& host_key);
  // An entry queued before its URL was met again closer to a seed: the
  // newer entry stands for it.
  bool superseded(const std::string& url, std::int32_t depth) const;

  struct Queued {
    std::int64_t seq;
    std::string url;
    std::string host_key;
    std::int32_t depth;
    std::uint32_t attempts = 0;  // leases of the row so far in this run
    std::string etag{};          // a revisit's validators (FrontierEntry)
    std::string last_modified{};
    std::string stored_digest{};
  };

  Limits limits_;
  std::unique_ptr<TrapGuard> traps_;
  std::vector<FrontierRefusal> refusals_;
  std::vector<FrontierEntry> lowered_;
  std::deque<Queued> window_;
  FingerprintSet seen_;
  // URLs leased and not yet settled, parked or given back (bounded by what
  // is in flight), and those of them met closer to a seed meanwhile.
  std::unordered_set<std::uint64_t> leased_;
  std::unordered_map<std::uint64_t, FrontierEntry> lowered_in_flight_;
  std::vector<FrontierEntry> relinks_;
  // Ends the flight of `fp`: the entry it was lowered to meanwhile, if any.
  std::optional<FrontierEntry> end_flight(std::uint64_t fp);
  // A settled job's redirect hops and final URL, marked fetched.
  void mark_redirect_targets(const CrawlJob& job);
  std::vector<std::string> redirect_targets_;
  // Redirect targets marked fetched -> the URL their page is stored under.
  std::unordered_map<std::uint64_t, std::string> redirect_origin_;
  std::size_t spilled_ = 0;        // queued rows only in the database
  std::int64_t refill_cursor_ = 0; // every spilled row has seq >= this
  bool refill_pending_ = false;
  std::int64_t refill_asked_seq_ = 0;
  std::size_t spilled_since_ask_ = 0;
  void release_lease(const std::string& host_key);
  // URLs in memory, queued: in the window or held back at their host's cap.
  std::size_t held() const { return window_.size() + held_back_count_; }

  std::unordered_map<std::string, std::size_t> leased_per_host_;
  // URLs of hosts at their lease cap wait here, per host and in order, until
  // a lease of theirs ends; so take() never steps over the same URL twice
  // (a BFS window is mostly one host's URLs, and rescanning them per call
  // cost more than the rest of the Frontier together).
  std::unordered_map<std::string, std::deque<Queued>> held_back_;
  std::size_t held_back_count_ = 0;
  // Parked after a transient failure, by the time they are due again.
  std::multimap<Clock::time_point, Queued> parked_;
  std::size_t in_flight_ = 0;
  std::int64_t settled_ = 0;       // fetched or failed, this run and before
  std::int64_t next_seq_ = 1;
};

}  // namespace actorcrawl
