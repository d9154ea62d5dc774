// The records a crawl produces and resumes from: frontier rows, pages with
// their links, dead letters, robots.txt outcomes and what a resume needs.
// Plain data, shared by the Frontier's policy, link selection, the messages
// and the store, so none of them needs the SQLite store to name a row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/crawl/crawl_profile.h"
#include "core/crawl/link_list.h"

namespace actorcrawl {

// refused: never fetched, because a rule said no (frontier.refusal names it).
// parked: failed for a reason that may not hold later (transient_failure.h;
// frontier.refusal names it); queued again at the start of the next run.
enum class FrontierState : int { queued = 0, done = 1, failed = 2, refused = 3, parked = 4 };

struct FrontierEntry {
  std::int64_t seq = 0;  // assigned by the Frontier; BFS order
  std::string url;       // normalized
  std::int32_t depth = 0;
  std::string parent_url;  // page it was discovered on; empty for seeds
  // The <lastmod> of the sitemap entry that offered the URL (Unix epoch
  // ms), 0 when none did: kept with the row (frontier.lastmod) for the
  // revisit policy.
  std::int64_t lastmod_ms = 0;
  // The stored page's validators when the URL was fetched before (a
  // revisit): its ETag and Last-Modified as received, which make the next
  // request conditional. Loaded with queued rows (load_queued); never
  // written to the frontier table.
  std::string etag{};
  std::string last_modified{};
  std::string content_digest{};  // the stored body's, for the archive's revisit records
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
  // The stored root page's validators, when it was fetched before: the
  // recrawl asks conditionally.
  std::string etag{};
  std::string last_modified{};
  std::string content_digest{};
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

// What a processor took from a page to keep: an extraction rule's item or
// an external processor's. `kind` is the rule's name or the processor's;
// `json` a JSON object, as text (stored as it is, in the items table).
struct ExtractedItem {
  std::string kind;
  std::string json;
};

// A processor that could not process a page (an external processor that
// crashed, hung past its timeout, answered garbage): the page is kept with
// whatever the other processors found, and this is recorded beside it.
struct ProcessorFailure {
  std::string processor;  // its name in the chain
  std::string reason;     // stable name: crashed, timeout, bad_answer, ...
  std::string detail;     // for people
};

struct ProcessorFailureCount {
  std::string processor;
  std::string reason;
  std::int64_t count = 0;
};

// A fetched body as the crawl database keeps it (keep_bodies; the bodies
// table, once per content digest), for processors to run on again without
// a request (`actorcrawl extract`). Made and opened by core/crawl/
// kept_body.h.
struct KeptBody {
  std::string encoding;   // "deflate" (raw DEFLATE, RFC 1951) or "identity"; "" when none is kept
  std::int64_t size = 0;  // bytes when decoded
  std::string data;
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
  LinkList links;  // outgoing links, document order, unique
  // Distinct host keys of links to other hosts: each adds 1 to the weight of
  // the edge host_key -> it (and creates the target node if needed).
  std::vector<std::string> link_host_keys;
  std::int64_t links_dropped = 0;  // hrefs past max_links_per_page, not read
  std::vector<ExtractedItem> items;                // written with the page, in one transaction
  std::vector<ProcessorFailure> processor_failures;
  // Bit i: the processor chain's processor i took the page, failed on it
  // (PageAnalysis). Not stored: the Storage counts them for the run's
  // summary, whichever node processed the page.
  std::uint64_t processors_took = 0;
  std::uint64_t processors_failed = 0;
  // Freshness (schema version 6): the response's validators as received
  // ("" when absent) and content_digest() of the body as kept.
  std::string etag;
  std::string last_modified;
  std::string content_digest;
  // The charset the response named ("" when none), and with keep_bodies
  // the body itself: what a processor run again from the store is given.
  std::string charset;
  KeptBody body;
  // A 304 Not Modified to the validators the request carried: the stored
  // page, its links and items still hold; only the fetch is recorded
  // (fetched_at, fetch_ms, attempts, validators the 304 repeated).
  bool not_modified = false;
};

// How the pages fetched in one run compare with what earlier runs stored
// (core/crawl/page_change.h): counted from page_changes, by run.
struct PageChangeCounts {
  std::int64_t new_pages = 0;
  std::int64_t changed = 0;
  std::int64_t unchanged = 0;
  std::int64_t gone = 0;
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

// A frontier row as the seen-set keeps it: its URL's fingerprint, the
// depth it may be lowered from (0 for a row settled for good), and whether
// it was fetched (never queued again; its links are offered again when it
// is met closer to a seed).
struct SeenUrl {
  std::uint64_t fingerprint = 0;
  std::int32_t depth = 0;
  bool fetched = false;
};

// What the Frontier needs to continue a crawl that stopped.
struct ResumeState {
  std::vector<SeenUrl> seen;        // every frontier row, and the URLs stored redirect chains requested
  std::int64_t next_seq = 1;        // max(seq) + 1
  std::int64_t queued = 0;          // rows still 'queued'
  std::int64_t settled = 0;         // rows 'done' or 'failed'
};

// What the Frontier asks the store for at start.
struct ResumeQuery {
  CrawlProfile profile = CrawlProfile::site;
  std::string seed_host_key;             // domains: the first seed's host
  std::int64_t max_crawls_per_node = 0;  // domains
};

// What the store tells the Frontier at start, for the crawl's profile:
// `site` for the site profile, `domains` for the domains profile.
struct FrontierResume {
  ResumeState site;
  DomainResume domains;
};

// One sitemap document's outcome (the sitemaps table, docs/sitemaps.md).
// status: fetched (read to its end, or to a named parse error in `reason`
// with the entries before it kept), failed (no body to read: http_404,
// timeout, worker_lost, stopped, ...) or refused (not requested:
// robots_txt, robots_unreachable, sitemap_depth, sitemap_host_cap, ...).
struct SitemapRow {
  std::string url;
  std::string host_key;
  std::string status;
  std::string reason;
  std::int64_t urls_found = 0;     // entries the document named
  std::int64_t urls_accepted = 0;  // page URLs handed to the frontier, or child sitemaps queued
  std::int64_t fetched_at_ms = 0;  // when the outcome was known
  // The robots.txt or index that named it, or the sitemap that redirected
  // to it; "" when the user gave it or a run read it again.
  std::string named_by;
};

// How often one outcome ("fetched", "failed/http_404", "refused/robots_txt",
// "sitemap_seen" for a URL named again) occurred, for metrics.log.
struct SitemapOutcomeCount {
  std::string outcome;
  std::int64_t count = 0;
};

struct StoreSummary {
  std::int64_t nodes_discovered = 0;  // rows in nodes
  std::int64_t nodes_crawled = 0;     // nodes with crawl_count > 0
  std::int64_t edges_recorded = 0;    // rows in edges
  std::int64_t pages_fetched = 0;     // pages with no error, fetched_at >= since
  std::int64_t pages_failed = 0;      // pages with an error, fetched_at >= since
  std::int64_t avg_fetch_time_ms = 0; // over pages_fetched
  std::int64_t links_dropped = 0;     // over pages fetched since: hrefs past max_links_per_page
  std::int64_t urls_parked = 0;       // frontier rows parked after a transient failure, now
  std::int64_t items_stored = 0;      // items of the pages fetched since
  // Pages fetched since whose body was cut at max_body_bytes.
  std::int64_t pages_truncated = 0;
  // Processors' failures on the pages fetched since, by processor and
  // reason, and the pages with at least one (pages that lack some
  // processor's work).
  std::vector<ProcessorFailureCount> processor_failures;
  std::int64_t pages_processor_failed = 0;
  // One per seed URL asked about: why its frontier row was refused for
  // good, or its fetch refused its private address; "" otherwise (fetched,
  // queued, parked, failed with a response, or never offered).
  std::vector<std::string> seed_refusals;
  // Sitemaps: frontier rows first found in a sitemap (over all runs), and
  // this run's sitemap outcomes by status and reason, with the refusals of
  // sitemap URLs that never became documents (named again, too deep).
  std::int64_t sitemap_urls_queued = 0;
  std::vector<SitemapOutcomeCount> sitemap_outcomes;
  // The current run's pages by what their fetch found (new, changed,
  // unchanged, gone), from page_changes.
  PageChangeCounts changes;
  // This run's pages each processor of the chain took and failed on, by
  // its place in the chain, counted as the pages were stored (from
  // PageRow::processors_took and processors_failed, not the database).
  std::vector<std::int64_t> processor_pages;
  std::vector<std::int64_t> processor_pages_failed;
};

}  // namespace actorcrawl
