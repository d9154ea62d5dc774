// The crawl's SQLite database: the domain graph (nodes, edges — the domain-graph
// schema), the page graph (pages, links), the persistent frontier, dead
// letters and a log of runs. One writer (the StorageActor) owns an instance,
// and one instance at a time may write a database: opening it takes the
// database's lock (database_lock.h), so a second writer, in this process or
// another, is refused with DatabaseInUse before it touches the file.
//
// The tables are in crawl_schema.sql. Writes are batched (write_batch.h):
// the first write opens a transaction, and it commits when `batch_ops`
// writes have accumulated, when flush() is called (the owner calls it on a
// timer, so batches are bounded in time too), or before any read. WAL mode,
// prepared statements only.
//
// Durability contract used for resume: a frontier row is 'queued' until the
// Frontier settles it; a URL that was in flight when the process died is
// still 'queued' and is crawled again on the next run.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "core/crawl/records.h"
#include "core/frontier/revisit_policy.h"
#include "core/store/store_error.h"

namespace actorcrawl {

// Which dead letters a re-drive takes: those of one reason (empty: any)
// that failed before a time.
struct RedriveFilter {
  std::string reason;
  std::int64_t failed_before_ms = std::numeric_limits<std::int64_t>::max();
};

// What a re-drive did, in one transaction.
struct RedriveReport {
  std::int64_t letters = 0;   // dead letters taken (marked re-driven)
  std::int64_t requeued = 0;  // frontier rows queued again
  // Letters whose URL is queued or fetched already (a later run got it):
  // taken, nothing to queue.
  std::int64_t already_queued_or_done = 0;
  std::vector<std::pair<std::string, std::int64_t>> by_reason;  // letters per reason
};

class DatabaseLock;

class CrawlStore {
 public:
  // Takes the database's lock, then opens or creates the database and its
  // schema. Throws DatabaseInUse when another writer holds the lock,
  // StoreError otherwise.
  explicit CrawlStore(const std::string& path, std::size_t batch_ops = 512);
  // The same under the database's lock taken already by the caller, who
  // wants to know the database is free before it opens anything else (a
  // crawl's trace file).
  CrawlStore(std::unique_ptr<DatabaseLock> lock, const std::string& path, std::size_t batch_ops = 512);
  ~CrawlStore();
  CrawlStore(const CrawlStore&) = delete;
  CrawlStore& operator=(const CrawlStore&) = delete;

  // -- cookies ---------------------------------------------------------------
  // The crawl's cookie jar as the last run left it (Netscape lines,
  // core/fetch/cookie_jar.h), and the jar now, replacing it (written with
  // the next commit).
  std::vector<std::string> load_cookies();
  void save_cookies(const std::vector<std::string>& lines);

  // -- frontier ------------------------------------------------------------
  // Inserts rows as 'queued'; a URL already present is left as it is.
  void add_frontier(const std::vector<FrontierEntry>& entries);
  void settle_frontier(const std::string& url, FrontierState state);
  // The same for many URLs in one write call: a call costs a savepoint,
  // which copies every database page it touches once more.
  void settle_frontier(const std::vector<std::string>& urls, FrontierState state);
  // Records refused URLs: inserted as 'refused', or a queued row turned so.
  void refuse_frontier(const std::vector<FrontierRefusal>& refusals);
  // Parks URLs that failed for now (the reason in frontier.refusal).
  void park_frontier(const std::vector<FrontierRefusal>& parked);
  // The writes of one Frontier delta, in this order: add_frontier(added),
  // requeue_frontier(requeued), settle_frontier(done, done),
  // settle_frontier(failed, failed), refuse_frontier(refused) and
  // park_frontier(parked), as one write call (one savepoint, not six).
  struct FrontierChanges {
    const std::vector<FrontierEntry>& added;
    const std::vector<FrontierEntry>& requeued;
    const std::vector<std::string>& done;
    const std::vector<std::string>& failed;
    const std::vector<FrontierRefusal>& refused;
    const std::vector<FrontierRefusal>& parked;
  };
  void write_frontier_changes(const FrontierChanges& changes);
  // Parked rows become 'queued' again: the next run offers them. Returns
  // how many.
  std::int64_t requeue_parked();
  // Up to `limit` queued rows with seq >= from_seq, in seq order.
  std::vector<FrontierEntry> load_queued(std::int64_t from_seq, std::size_t limit);
  ResumeState load_resume_state();
  // The resume of the query's profile: load_resume_state() for site,
  // load_domain_resume() for domains.
  FrontierResume load_frontier_resume(const ResumeQuery& query);
  // The domains profile's resume: nodes below max_crawls_per_node.
  DomainResume load_domain_resume(const std::string& seed_host_key, std::int64_t max_crawls_per_node);
  // Queues rows again under new seqs (URLs met again closer to a seed): a
  // URL present in any state becomes 'queued' with the entry's seq, depth
  // and parent.
  void requeue_frontier(const std::vector<FrontierEntry>& entries);
  // A fetched URL met again closer to a seed (the entry's depth and parent;
  // seq unused): its 'done' row and its page take the smaller depth, and
  // the links the page's fetch offered to the Frontier (links.followed) are
  // returned in document order, to be offered again at that depth plus one.
  // The page is not fetched again.
  std::vector<std::string> relink_fetched(const FrontierEntry& entry);
  // Revisit policy: 'done' rows settled before `cutoff_ms` become 'queued'.
  // Returns how many.
  std::int64_t requeue_fetched_before(std::int64_t cutoff_ms);
  // Revisit policy with each page's own interval: 'done' rows whose page's
  // stored interval (adaptive revisits), or else `revisit_after_ms`, has
  // passed at `now_ms` since they settled become 'queued'. Commits. Returns
  // how many.
  std::int64_t requeue_due(std::int64_t now_ms, std::int64_t revisit_after_ms);
  // Pages due for a revisit in the middle of a run: up to `limit` 'done'
  // rows whose interval (as requeue_due) has passed at `now_ms`, oldest
  // settled first, with their validators as load_queued gives them. The
  // rows are not changed: the Frontier queues them again under new seqs
  // (requeue_frontier).
  std::vector<FrontierEntry> load_due(std::int64_t now_ms, std::int64_t revisit_after_ms, std::size_t limit);
  // Of `offered` (URLs a sitemap listed, each with its <lastmod>), the pages
  // fetched before whose <lastmod> makes them due at `now_ms`
  // (RevisitPolicy::due_by_lastmod under the run's revisit settings), as
  // load_due gives rows: validators with them, the rows not changed. None
  // when revisits are off.
  std::vector<FrontierEntry> load_due_by_lastmod(const std::vector<FrontierEntry>& offered, std::int64_t now_ms);
  // Adaptive revisits store each page's next interval with it (RevisitPolicy::
  // next_interval of what its fetch found); otherwise none is stored.
  void set_revisit_settings(const RevisitSettings& settings);

  // -- results -------------------------------------------------------------
  // Compares the fetch with the stored page (classify_change) and records
  // what it found in page_changes under the current run, in the same
  // transaction as the page. A 304 (page.not_modified) to a stored page
  // keeps its row, links and items and updates only the fetch's fields and
  // the validators the 304 sent; its node counts the crawl. Otherwise:
  // upserts the page (by url), replaces its links, upserts its node
  // (crawl_count += 1; description from title/description when the node has
  // none yet or the page is the host's root "/"), upserts every target node
  // and edge in link_host_keys (weight += 1).
  void record_page(const PageRow& page);
  // record_page for each page, in order, as one write call: all of them or,
  // when one fails, none (and StoreError). One savepoint for the lot: SQLite
  // copies each database page a call first changes into the savepoint's
  // journal, and the pages of one batch share most of theirs.
  void record_pages(const std::vector<PageRow>& pages);
  void record_dead_letter(const DeadLetterRow& row);
  void record_robots(const RobotsRecord& record);
  // Sitemap outcomes (rows of the sitemaps table), and this run's refusals
  // of sitemap URLs that never became documents (kept for summary()).
  void record_sitemaps(const std::vector<SitemapRow>& rows, const std::vector<SitemapOutcomeCount>& refusals);
  // Sitemaps read (status fetched or redirected) at or after
  // `fetched_since_ms`: a later run does not fetch them again
  // (docs/sitemaps.md). An index marked children_unread is not among them.
  std::vector<std::string> sitemaps_read(std::int64_t fetched_since_ms);
  // The sitemaps an earlier run read before `fetched_since_ms` (none when it
  // is 0): due to be read again.
  std::vector<std::string> sitemaps_due(std::int64_t fetched_since_ms);
  // Where earlier runs left sitemaps unread: documents ended `stopped` or
  // by the max_pages bound, and indexes marked children_unread, each the
  // topmost of its chain. A run reads them from its start.
  std::vector<std::string> sitemaps_unfinished();
  // Re-drive: the dead letters the filter takes are marked re-driven and
  // their URLs' frontier rows queued again, in one transaction, so a crash
  // either keeps both or neither. A URL with no frontier row gets one. The
  // next run (or resume) fetches them. Commits.
  RedriveReport redrive_dead_letters(const RedriveFilter& filter);

  // -- runs ------------------------------------------------------------------
  // Returns the run id.
  std::int64_t begin_run(std::int64_t started_at_ms, const std::string& seeds_json);
  // Also writes the run's change counts to its crawl_runs row.
  void end_run(std::int64_t run_id, std::int64_t ended_at_ms, const std::string& reason);
  // The run begin_run opened (0 before any); its page_changes counts.
  std::int64_t current_run() const;
  PageChangeCounts change_counts(std::int64_t run_id);

  // Counts since `since_ms`, and for each of `seed_urls` (normalized) the
  // refusal of its frontier row if it was refused for good.
  StoreSummary summary(std::int64_t since_ms, const std::vector<std::string>& seed_urls = {});

  // Commits the open batch, if any.
  void flush();
  std::size_t pending_ops() const;

 private:
  struct Impl;
  // Declared first: taken before the database is opened, released after it
  // is closed.
  std::unique_ptr<DatabaseLock> lock_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
