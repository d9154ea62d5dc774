// The HostSelector's side of a crawl's sitemaps, free of actors: one
// SitemapWalk (core/sitemap/sitemap_walk.h) decides which documents to
// fetch; this ledger turns each into a lease the HostScheduler schedules
// like a page (kSitemapSeqBit seqs), and makes sure every document ends
// exactly once with an outcome for the sitemaps table (SitemapRow):
// fetched (with its counts), failed (no body: http_404, timeout,
// worker_lost, stopped), redirected (http_301, ...: its target is a
// document of its own, with a row of its own) or refused (robots_txt,
// sitemap_depth, ...).
//
// A later run on the same database does not fetch again what an earlier one
// read (history_loaded); until that history is in, nothing is handed out.
// A document whose lease died with its worker is tried again, up to
// max_attempts leases, then fails as worker_lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"
#include "core/sitemap/sitemap_walk.h"

namespace actorcrawl {

struct SitemapLedgerSettings {
  SitemapWalkLimits limits;
  // The seeds (URLs): when a seed host's robots.txt names no sitemap, its
  // /sitemap.xml is tried.
  std::vector<std::string> seeds;
  // Sitemaps the user named (key sitemap_urls), read from the start of the
  // run. The user vouches for them as a robots.txt would: each may list
  // any URL of its own host and of the seeds' hosts (the crawl's scope
  // still applies to every page URL).
  std::vector<std::string> given;
  // Whether the crawl may crawl the host of `root` (its "/" URL): the
  // Sitemap: lines of a robots.txt are read only then. A host fetched only
  // because a sitemap of another host lives there (its robots.txt gates
  // that fetch) does not bring its own sitemaps into the crawl. Unset:
  // every host's.
  std::function<bool(const Url& root)> crawls_host;
  std::uint32_t max_attempts = 3;
  // The crawl's max_pages: a sitemap request is a request, so a run hands
  // out no more documents once it has handed out this many, or once its
  // sitemaps have given the Frontier this many page URLs. The documents
  // left end as failed/max_pages, and each index above one that did not
  // end read is marked `children_unread` (so is one above a document that
  // ended `stopped`): the next run reads that index again, and what it
  // names that no run has read yet. 0: no bound.
  std::int64_t max_pages = 0;
};

// What a parse lane made of one document (sitemap_parsed, as values).
struct SitemapParse {
  std::string failure;  // set: no body was read (http_404, timeout, ...)
  // Set when the transfer failed after part of the body had come (a reset,
  // a timeout): what came was read, its entries kept, and this names why
  // the rest did not come.
  std::string cut_short;
  std::string redirect_to;  // with a failure http_3xx: the Location, followed as a document of its own
  SitemapReport report;
  std::vector<SitemapLink> links;  // children of an index, or in-scope page URLs
  std::uint64_t out_of_scope = 0;  // page URLs the crawl's scope refused
};

class SitemapLedger {
 public:
  // Queues the given sitemaps (those that are no http(s) URL are counted
  // as sitemap_bad_url).
  explicit SitemapLedger(SitemapLedgerSettings settings = {});

  // The sitemap URLs an earlier run read (load_sitemaps): not fetched again.
  void history_loaded(const std::vector<std::string>& read_before);
  bool history_ready() const { return history_ready_; }
  // Sitemaps an earlier run read long enough ago to be read again (with
  // revisits on), or left unread (sitemaps_unfinished): queued now, without
  // waiting for their robots.txt to name them, so a run with nothing else
  // due still reads them. Each may list any URL of its own host.
  void reread(const std::vector<std::string>& due);

  // A host's robots.txt at `robots_url` was read and named `sitemaps`
  // (ignored, counted as sitemap_host_not_crawled, for a host the crawl
  // does not crawl).
  void on_robots(const std::string& robots_url, const std::vector<std::string>& sitemaps);

  // Documents to schedule now, each a lease (seq with kSitemapSeqBit,
  // attempt 1). Nothing until the history is loaded. Past the max_pages
  // bound the documents end instead (take_refused_rows()).
  std::vector<CrawlJob> take_jobs(std::int64_t now_ms = 0);

  // Whether `seq` is a document that has not ended yet.
  bool is_open(std::uint64_t seq) const { return open_.count(seq) != 0; }
  // The grants of where the document's URLs may point (for the parse lane).
  const SitemapScope* scope_of(std::uint64_t seq) const;

  // What one document's reading ended with. `pages` go to the Frontier.
  struct Read {
    SitemapRow row;
    std::vector<SitemapLink> pages;
  };
  // The parse lane's answer for `seq` (any attempt: the first answer ends
  // the document; a later one finds it closed and gives nothing).
  std::optional<Read> read(std::uint64_t seq, SitemapParse parse, std::int64_t now_ms);
  // The document ended without a request: robots.txt refused it (or could
  // not be read), or the crawl is stopping.
  std::optional<SitemapRow> refused(std::uint64_t seq, const std::string& reason, std::int64_t now_ms);
  std::optional<SitemapRow> failed(std::uint64_t seq, const std::string& reason, std::int64_t now_ms);
  // Its lease went with its worker: another attempt to schedule, or (after
  // max_attempts) the failure row. Nothing for a document already ended.
  struct Lost {
    std::optional<CrawlJob> retry;
    std::optional<SitemapRow> row;
  };
  Lost lost(const CrawlJob& job, std::int64_t now_ms);
  // Stopping: documents not yet scheduled end as failed/stopped (the next
  // run fetches them).
  std::vector<SitemapRow> stop(std::int64_t now_ms);

  // Refusals of sitemap URLs that became no document (sitemap_seen,
  // sitemap_bad_url, a child dropped by its index's scope), since the last
  // call, by name.
  std::vector<SitemapOutcomeCount> take_refusals();
  // Rows written without a request, since the last call: URLs refused
  // before they became documents (sitemap_depth, sitemap_host_cap),
  // documents past the max_pages bound, and indexes read again as
  // children_unread.
  std::vector<SitemapRow> take_refused_rows();

  // Documents that have not ended: queued in the walk, waiting for the
  // history, scheduled, fetching or being parsed.
  std::size_t open() const { return walk_.queued() + open_.size(); }
  const SitemapWalkCounts& counts() const { return walk_.counts(); }

 private:
  struct Open {
    SitemapFetch fetch;
    std::uint32_t attempt = 1;
  };
  SitemapRow row_of(const SitemapFetch& fetch, std::string status, std::string reason, std::int64_t now_ms) const;
  std::optional<SitemapRow> end(std::uint64_t seq, const std::string& status, const std::string& reason,
                                std::int64_t now_ms);
  // The walk's refusal counts grew: which names, by how much.
  void note_refusals(const std::map<std::string, std::uint64_t>& before);
  // Runs `queue`, which offers the sitemap URL `url` to the walk, and books
  // a refusal: a row when it is about the URL itself (refusal_has_row),
  // counted by name otherwise. True when the walk queued it.
  bool book(const std::string& url, std::int64_t now_ms, const std::function<void()>& queue);
  // Whether this run has read as much as max_pages can use.
  bool budget_spent() const;
  // The document named by `named_by` did not end read: that index, and
  // each above it, is to be read again by the next run.
  void mark_unread(std::string named_by);

  SitemapLedgerSettings settings_;
  SitemapWalk walk_;
  std::unordered_set<std::string> seed_hosts_;
  std::unordered_set<std::string> read_before_;
  bool history_ready_ = false;
  std::unordered_map<std::uint64_t, Open> open_;
  std::uint64_t next_seq_ = 1;
  std::map<std::string, std::int64_t> refusals_;
  std::vector<SitemapRow> refused_rows_;
  // Indexes this run read whole (status fetched): their rows, and what
  // named each, for mark_unread().
  struct IndexRead {
    SitemapRow row;
    std::string named_by;
    bool unread = false;
  };
  std::unordered_map<std::string, IndexRead> indexes_read_;
  std::int64_t documents_handed_out_ = 0;
  std::int64_t urls_accepted_ = 0;
};

}  // namespace actorcrawl

namespace actorcrawl {

// The crawl's sitemap settings (key `sitemaps`), for the HostSelector.
struct SitemapSettings {
  bool enabled = false;
  SitemapLedgerSettings ledger;
  // A sitemap an earlier run read is fetched again once this much time has
  // passed since (0: never again). With revisits on it is revisit_min, the
  // least time between two fetches of a page: a sitemap is how a site says
  // which pages changed, so it is read as often as a page may be fetched,
  // and its <lastmod>s bring changed pages back before revisit_after would.
  std::int64_t revisit_after_ms = 0;
};

}  // namespace actorcrawl
