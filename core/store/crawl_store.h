// The crawl's SQLite database: the domain graph (nodes, edges — seed 004's
// schema), the page graph (pages, links), the persistent frontier, dead
// letters and a log of runs. One writer (the StorageActor) owns an instance.
//
// Writes are batched: the first write opens a transaction, and it commits
// when `batch_ops` writes have accumulated, when flush() is called (the
// owner calls it on a timer, so batches are bounded in time too), or before
// any read. WAL mode, prepared statements only.
//
// Durability contract used for resume: a frontier row is 'queued' until the
// Frontier settles it; a URL that was in flight when the process died is
// still 'queued' and is crawled again on the next run.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorcrawl {

// Thrown for an unusable database (cannot open, cannot create the schema,
// disk errors). The message names the path and SQLite's reason.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// refused: never fetched, because a rule said no (frontier.refusal names it).
enum class FrontierState : int { queued = 0, done = 1, failed = 2, refused = 3 };

struct FrontierEntry {
  std::int64_t seq = 0;  // assigned by the Frontier; BFS order
  std::string url;       // normalized
  std::int32_t depth = 0;
  std::string parent_url;  // page it was discovered on; empty for seeds
};

// A URL the crawl will not fetch, and the rule that said so: robots_txt,
// robots_unreachable, max_url_length, max_repeated_path_segments,
// max_pages_per_host, max_query_variants_per_path, max_subdomains_per_root.
struct FrontierRefusal {
  FrontierEntry entry;
  std::string reason;
};

// A host of the domain graph, as the domains profile resumes it.
struct DomainNode {
  std::string host_key;
  std::string root_url;  // with the scheme it was discovered with
  std::int64_t crawl_count = 0;
};

struct DomainResume {
  bool seed_known = false;         // the seed's host is already a node
  std::vector<DomainNode> nodes;   // nodes with crawl_count < max
  // Nodes crawled max times already: not queued, but their counts must be
  // known so a link to them does not queue them again.
  std::vector<DomainNode> saturated;
  std::int64_t pages_fetched = 0;  // rows in pages: the budget used so far
  std::int64_t next_seq = 1;
};

// A host's robots.txt as fetched, for the record.
struct RobotsRecord {
  std::string host_key;
  std::string url;
  std::int32_t status_code = 0;  // 0: unreachable
  std::string outcome;           // parsed, allow_all, disallow_all
  std::int64_t crawl_delay_ms = -1;
  std::vector<std::string> sitemaps;
  std::int64_t fetched_at_ms = 0;
};

struct LinkRow {
  std::string url;  // resolved and normalized
  bool nofollow = false;
};

struct PageRow {
  std::string url;       // the URL that was requested (normalized)
  std::string host_key;  // node of the page: host[:port]
  std::int32_t depth = 0;
  std::int32_t status_code = 0;  // final status after redirects; 0 = none
  std::string content_type;
  std::string title;
  std::string description;
  std::int64_t bytes = 0;  // body bytes kept (decoded)
  std::int64_t fetch_ms = 0;
  std::int64_t fetched_at_ms = 0;  // Unix epoch milliseconds
  std::string error;               // empty when fetched
  std::string final_url;           // after redirects
  std::string redirect_chain;      // JSON array of {"url","status"} hops
  bool truncated = false;          // body cut at max_body_bytes
  std::string canonical_url;
  std::int32_t attempts = 1;
  std::string robots_directives;  // "noindex", "nofollow" from meta or X-Robots-Tag
  std::vector<LinkRow> links;  // outgoing links, document order, unique
  // Distinct host keys of links to other hosts: each adds 1 to the weight of
  // the edge host_key -> it (and creates the target node if needed).
  std::vector<std::string> link_host_keys;
};

struct DeadLetterRow {
  std::string url;
  std::int32_t depth = 0;
  std::string reason;  // stable name, e.g. "timeout", "http_500", "dns_failure"
  std::string detail;  // human-readable, e.g. curl's message
  std::int32_t attempts = 0;
  std::int32_t status_code = 0;
  std::int64_t failed_at_ms = 0;
};

// What the Frontier needs to continue a crawl that stopped.
struct ResumeState {
  std::vector<std::uint64_t> seen;  // url_fingerprint of every frontier row
  std::int64_t next_seq = 1;        // max(seq) + 1
  std::int64_t queued = 0;          // rows still 'queued'
  std::int64_t settled = 0;         // rows 'done' or 'failed'
};

struct StoreSummary {
  std::int64_t nodes_discovered = 0;  // rows in nodes
  std::int64_t nodes_crawled = 0;     // nodes with crawl_count > 0
  std::int64_t edges_recorded = 0;    // rows in edges
  std::int64_t pages_fetched = 0;     // pages with no error, fetched_at >= since
  std::int64_t pages_failed = 0;      // pages with an error, fetched_at >= since
  std::int64_t avg_fetch_time_ms = 0; // over pages_fetched
};

class CrawlStore {
 public:
  // Opens or creates the database and its schema. Throws StoreError.
  explicit CrawlStore(const std::string& path, std::size_t batch_ops = 512);
  ~CrawlStore();
  CrawlStore(const CrawlStore&) = delete;
  CrawlStore& operator=(const CrawlStore&) = delete;

  // -- frontier ------------------------------------------------------------
  // Inserts rows as 'queued'; a URL already present is left as it is.
  void add_frontier(const std::vector<FrontierEntry>& entries);
  void settle_frontier(const std::string& url, FrontierState state);
  // Records refused URLs: inserted as 'refused', or a queued row turned so.
  void refuse_frontier(const std::vector<FrontierRefusal>& refusals);
  // Up to `limit` queued rows with seq >= from_seq, in seq order.
  std::vector<FrontierEntry> load_queued(std::int64_t from_seq, std::size_t limit);
  ResumeState load_resume_state();
  // The domains profile's resume (seed 004 section 7).
  DomainResume load_domain_resume(const std::string& seed_host_key, std::int64_t max_crawls_per_node);
  // Queues rows again under new seqs (re-driven dead letters): a URL present
  // in any state becomes 'queued' with the entry's seq and depth.
  void requeue_frontier(const std::vector<FrontierEntry>& entries);
  // Revisit policy: 'done' rows settled before `cutoff_ms` become 'queued'.
  // Returns how many.
  std::int64_t requeue_fetched_before(std::int64_t cutoff_ms);

  // -- results -------------------------------------------------------------
  // Upserts the page (by url), replaces its links, upserts its node
  // (crawl_count += 1; description from title/description when the node has
  // none yet or the page is the host's root "/"), upserts every target node
  // and edge in link_host_keys (weight += 1).
  void record_page(const PageRow& page);
  void record_dead_letter(const DeadLetterRow& row);
  void record_robots(const RobotsRecord& record);
  // Dead letters not yet re-driven; marks them re-driven.
  std::vector<DeadLetterRow> take_dead_letters_for_redrive();

  // -- runs ------------------------------------------------------------------
  // Returns the run id.
  std::int64_t begin_run(std::int64_t started_at_ms, const std::string& seeds_json);
  void end_run(std::int64_t run_id, std::int64_t ended_at_ms, const std::string& reason);

  StoreSummary summary(std::int64_t since_ms);

  // Commits the open batch, if any.
  void flush();
  std::size_t pending_ops() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
