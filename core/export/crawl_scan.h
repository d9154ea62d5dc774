// A crawl database read row by row, for exports: whatever its size, memory
// holds one row (and one page's links) at a time. Opened read-only, in one
// read transaction, so every pass of an export sees the same snapshot even
// while a crawl writes the file (WAL); the tables are crawl_schema.sql's.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

// A column as stored: absent is NULL, never '' or 0.
using OptionalText = std::optional<std::string>;
using OptionalInt = std::optional<std::int64_t>;

struct ExportLink {
  std::string url;
  bool nofollow = false;
  std::int64_t position = 0;
};

// A `pages` row with its links in document order (`position`).
struct ExportPage {
  std::int64_t page_id = 0;
  std::string url;
  OptionalText final_url, content_type, title, description, error, redirect_chain, canonical_url, robots_directives;
  OptionalInt status_code, depth, fetched_at, fetch_ms, bytes, truncated, attempts, links_dropped;
  std::vector<ExportLink> links;
};

// An `items` row with its page's URL.
struct ExportItem {
  std::int64_t item_id = 0;
  std::string url;   // pages.url of the item's page
  std::string kind;  // the rule's or the processor's name
  std::string item;  // the stored text: a JSON object as its processor wrote it
};

// A `page_changes` row: what one run's fetch of a page found.
struct ExportChange {
  std::string url;
  std::int64_t run = 0;
  std::string change;  // new, changed, unchanged, gone
};

struct DomainNode {
  std::string name;  // nodes.domain_name
  OptionalInt crawl_count;
  OptionalText description;
};

struct DomainEdge {
  std::string from, to;  // domain names
  OptionalInt weight;
};

class CrawlScan {
 public:
  // Throws ExportError: missing_database, not_a_crawl_database (not SQLite,
  // no pages/links/nodes/edges tables, a schema newer than this build's).
  // A database of an older schema is read as it is: a column it lacks
  // reads as NULL.
  explicit CrawlScan(const std::string& db_path);
  ~CrawlScan();
  CrawlScan(const CrawlScan&) = delete;
  CrawlScan& operator=(const CrawlScan&) = delete;

  std::int64_t page_count();
  std::int64_t node_count();
  std::int64_t edge_count();
  // Items of `kind`, or of every kind (nullopt); 0 for a database from
  // before schema 5, which has no items table.
  std::int64_t item_count(const std::optional<std::string>& kind);

  // Every page in page_id order, with its links when `with_links`: one pass
  // over `pages` merged with one over `links` in its own key order
  // (from_page_id, to_url), each page's links then put in document order.
  // Links of a page_id without a row are skipped. Throws ExportError
  // (read_failed).
  void pages(bool with_links, const std::function<void(const ExportPage&)>& visit);
  // `nodes` in node_id order; `edges` in edge_id order, an edge whose node
  // is missing skipped.
  void domain_nodes(const std::function<void(const DomainNode&)>& visit);
  void domain_edges(const std::function<void(const DomainEdge&)>& visit);
  // Each link target without a `pages` row, once.
  void unfetched_targets(const std::function<void(std::string_view)>& visit);
  // The items of `kind` (nullopt: of every kind) in item_id order, each
  // with its page's URL; an item whose page has no row is skipped. Nothing
  // for a database without an items table.
  void items(const std::optional<std::string>& kind, const std::function<void(const ExportItem&)>& visit);
  // The distinct kinds of items, sorted, at most `limit` of them (for
  // messages that name them). Each is one seek of idx_items_kind, so the
  // cost grows with the kinds asked for, not with the items.
  std::vector<std::string> item_kinds(std::size_t limit);
  // Whether an item of `kind` exists: one seek, where a count reads them all.
  bool has_items_of(const std::string& kind);
  // The recorded changes of runs after `since_run`, by run then in the order
  // recorded: changed and gone, and new too when `include_new`. Nothing for
  // a database from before schema 6, which records none.
  void page_changes(bool include_new, std::int64_t since_run, const std::function<void(const ExportChange&)>& visit);
  std::int64_t page_change_count(bool include_new, std::int64_t since_run);

 private:
  template <typename Body>
  void reading(const char* what, Body&& body);

  std::string path_;
  SQLite::Database db_;
  std::string page_columns_;  // the SELECT list, NULL for a column the file lacks
  bool has_items_ = false;    // schema 5 and later
  bool has_link_targets_ = false;  // schema 10, between runs
  bool has_changes_ = false;  // schema 6 and later
};

}  // namespace actorcrawl
