// The crawl database's schema (crawl_schema.sql, compiled in) and how a
// file becomes a usable crawl database.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>
#include <string_view>

namespace actorcrawl {

// PRAGMA user_version of a database this build writes. A newer one is
// refused rather than written with an older idea of its tables; an older
// one is migrated when opened:
//   1 -> 2  pages.links_dropped (links past max_links_per_page)
//   2 -> 3  frontier.state 4, parked (the table is rebuilt: a CHECK
//           constraint cannot be altered in place)
//   3 -> 4  links.followed (the links a fetch offered to the Frontier)
//   4 -> 5  items, processor_failures (new tables)
//   5 -> 6  freshness: pages.etag, last_modified, content_digest,
//           revisit_interval_ms; crawl_runs.pages_new, pages_changed,
//           pages_unchanged, pages_gone; page_changes (new table);
//           sitemaps: frontier.lastmod (a sitemap entry's <lastmod>) and
//           the sitemaps table (each sitemap document's outcome)
//   6 -> 7  pages.link_hosts (the edges a page's fetch counted, counted
//           again when a refetch is answered 304)
//   7 -> 8  sitemaps.named_by (what named each document, so a later run
//           knows where an earlier one left sitemaps unread)
//   8 -> 9  bodies (new table: the kept bodies), pages.charset, cookies
//           (new table: the cookie jar between runs)
//   9 -> 10 page_links (a page's links in one row) and the view links
//           over it, in place of the table links; link_targets in place
//           of idx_links_to
constexpr int kCrawlSchemaVersion = 10;

// The text of crawl_schema.sql.
std::string_view crawl_schema_sql();

// "Which pages link to this URL": link_targets, every (to_url,
// from_page_id) of the view links, ordered by target. Kept apart from the
// schema file because it is not kept: a domains resume builds it for the
// one read that searches links by target and drops it (CrawlStore), and
// files of earlier versions, whose runs built it at their end, lose it when
// the next run begins. Builds it when it is missing, in the caller's
// transaction; `again`: drops it first.
void build_link_targets(SQLite::Database& db, bool again = false);

// Opens or creates `path`, proves it is a writable SQLite database of a
// schema version this build knows, configures the connection (WAL, foreign
// keys, busy timeout) and brings the schema up to date. Throws
// SQLite::Exception. The connection has no mutex of its own: one thread
// uses it at a time (the StorageActor's, or a command's), and SQLite would
// otherwise lock it on every call, some 150 times a crawled page.
SQLite::Database open_crawl_database(const std::string& path);

// SQLite's process-wide settings, for main() to call before any database is
// opened (later, SQLite refuses them and keeps its defaults): no memory
// statistics, which nothing reads and for which SQLite takes a global
// mutex on every allocation, about a hundred a crawled page.
void configure_sqlite_for_process();

}  // namespace actorcrawl
