// What a crawl database holds, read by another process than its writer
// (the service's API): its pages page by page (a large job must not build
// one huge body), its domain graph, and the items its processors took from
// the pages. Read-only and safe while the crawl still writes (SQLite WAL).
// The tables are crawl_schema.sql's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/crawl/records.h"

namespace actorcrawl {

struct PageView {
  std::string url;
  std::int32_t status_code = 0;
  std::string title;
  std::vector<std::string> links;  // document order: one slice of them
  std::int64_t links_total = 0;     // all of the page's links
  std::int64_t crawled_at = 0;     // epoch ms
};

struct PageSlice {
  std::vector<PageView> pages;  // in crawl order
  std::int64_t total = 0;
};

struct GraphView {
  struct Node {
    std::string id;  // host key
    std::int64_t crawl_count = 0;
    std::string description;
  };
  struct Edge {
    std::string from, to;
    std::int64_t weight = 0;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

// A database that does not exist yet (the job has not started) reads as
// empty. Throws StoreError when it exists but cannot be read.

// Pages read a row at a time in crawl order, each one's links as they are
// asked for: what lets a reader stop at a byte budget holding one row, not
// the slice (a thousand pages of a thousand long links are ~1 GB).
class PageReader {
 public:
  // Pages from `offset` (0-based, in crawl order).
  PageReader(const std::string& db_path, std::int64_t offset);
  ~PageReader();
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;

  // All of the database's pages.
  std::int64_t total() const { return total_; }
  // The next page with its links_total, its links not read (`links` is
  // left empty); false after the last.
  bool next(PageView& page);
  // Links [from, from + count) of the page next() gave last, in document
  // order, one at a time until `take` returns false.
  void links(std::int64_t from, std::int64_t count, const std::function<bool(const std::string&)>& take);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::int64_t total_ = 0;
};

// Pages [offset, offset + limit) in crawl order, each with its links
// [links_offset, links_offset + links_limit): the whole slice in memory,
// for callers that know it is small.
PageSlice read_pages(const std::string& db_path, std::int64_t offset, std::int64_t limit,
                     std::int64_t links_offset = 0, std::int64_t links_limit = 100);

// The domain graph a row at a time: nodes from `nodes_from` (0-based, in
// the order they were found) until `take_node` returns false; then, if
// every node was taken, edges from `edges_from` until `take_edge` does.
struct GraphTotals {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
};
GraphTotals visit_graph(const std::string& db_path, std::int64_t nodes_from, std::int64_t edges_from,
                        const std::function<bool(const GraphView::Node&)>& take_node,
                        const std::function<bool(const GraphView::Edge&)>& take_edge);
// The whole graph in memory.
GraphView read_graph(const std::string& db_path);

struct PageCounts {
  std::int64_t fetched = 0;  // pages without an error
  std::int64_t failed = 0;   // pages with one
};
// Over every run: the counts of a job that ends without a crawl to report
// them (cancelled while the service was down, or before it started).
PageCounts count_pages(const std::string& db_path);

// One row of the items table with its page's URL.
struct ItemView {
  std::string url;   // the page the item was taken from
  std::string kind;  // the extraction rule's or the processor's name
  std::string item;  // a JSON object, as text, as it was stored
};

// Items read a row at a time in item_id order (the order they were
// stored), of one kind or of all: a job of a million items is read in the
// memory of one. A database from before the items table (schema 4) reads
// as having none.
class ItemReader {
 public:
  // Items from `offset` (0-based, in item_id order) of `kind`, or of every
  // kind when none is given.
  ItemReader(const std::string& db_path, std::int64_t offset, const std::optional<std::string>& kind);
  ~ItemReader();
  ItemReader(const ItemReader&) = delete;
  ItemReader& operator=(const ItemReader&) = delete;

  // All of the database's items (of `kind`, when given).
  std::int64_t total() const { return total_; }
  // The next item; false after the last.
  bool next(ItemView& item);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::int64_t total_ = 0;
};

// What the processors left beside the pages: the items, and the failures
// counted by processor and reason (a handful of rows: processors are the
// configuration's, reasons stable names), processor then reason in order.
struct ItemCounts {
  std::int64_t items = 0;
  std::vector<ProcessorFailureCount> failures;
  std::vector<std::string> kinds;  // the first kKindsCounted, sorted (item_kinds.h)
  static constexpr std::size_t kKindsCounted = 20;
};
ItemCounts count_items(const std::string& db_path);

// What the fetches of every run of the database found against the stored
// pages (page_changes): new, changed, unchanged, gone. Zeros for a database
// from before schema 6.
PageChangeCounts count_changes(const std::string& db_path);

}  // namespace actorcrawl
