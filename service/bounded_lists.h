// The lists the API answers with — a job's pages and their links, a job's
// domain graph, a job's items, the job list — written as JSON text a record at a time and
// cut at a byte budget at a whole record, with the window where the next
// answer starts. So no body, and no tree behind it, grows with what a job
// holds: a thousand pages of a thousand 950-byte links were a 95 MB body
// built from a JSON tree five times its size.
//
// An answer holds at least one record (a page, a link, a node, an edge, a
// job, an item) whatever its size, so a client always gets on; only a record larger
// than the budget by itself makes an answer larger than the budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/store/crawl_reader.h"

namespace actorcrawl {

// One answer's list at most. 1 MiB: a page of 1,000 links of ~950 bytes
// still fits whole, and the server, which holds each connection's answer
// until the client has read it, holds at most this per connection.
inline constexpr std::size_t kAnswerBudgetBytes = 1u << 20;

// Appends `element` (JSON text) to the array being written in `array` ("["
// and the elements so far) when `used` — the answer's bytes so far, the
// brackets that will close it included — plus what it adds stays within
// `budget`, or when `first_of_answer` (then whatever its size). Returns
// whether it was appended, and counts what it added in `used`.
bool append_within(std::string& array, std::string_view element, std::size_t& used, std::size_t budget,
                   bool first_of_answer);

// GET /crawl/:id's pages: [offset, offset + limit) in crawl order, each
// page's links [links_offset, links_offset + links_limit), but the first
// page's from first_links_offset when it is set (where a page cut by the
// budget goes on).
struct PagesWindow {
  std::int64_t offset = 0;
  std::int64_t limit = 100;
  std::int64_t links_offset = 0;
  std::int64_t links_limit = 100;
  std::optional<std::int64_t> first_links_offset;
};

struct PagesList {
  std::string json;        // a JSON array of page objects
  std::int64_t total = 0;  // the job's pages, all of them
  bool truncated = false;  // the budget ended it before the window did
  // Where the next answer starts (the rest of a cut window, or the window
  // after this one); none when no page is left.
  std::optional<PagesWindow> next;
};

// Throws StoreError when the database cannot be read.
PagesList list_pages(const std::string& db_path, const PagesWindow& window, std::size_t budget);

// GET /crawl/:id/graph: nodes from nodes_offset, then edges from
// edges_offset, in the order they were found.
struct GraphWindow {
  std::int64_t nodes_offset = 0;
  std::int64_t edges_offset = 0;
};

struct GraphLists {
  std::string nodes_json, edges_json;  // JSON arrays
  GraphTotals totals;
  bool truncated = false;
  std::optional<GraphWindow> next;  // none when the answer holds the rest of the graph
};

GraphLists list_graph(const std::string& db_path, const GraphWindow& window, std::size_t budget);

// GET /crawl/:id/items: items [offset, offset + limit) in item_id order, of
// `kind` or of every kind.
struct ItemsWindow {
  std::int64_t offset = 0;
  std::int64_t limit = 100;
  std::optional<std::string> kind;
};

struct ItemsList {
  std::string json;        // a JSON array of {"url", "kind", "item"}
  std::int64_t total = 0;  // the job's items (of the kind, when given)
  bool truncated = false;  // the budget ended it before the window did
  std::optional<ItemsWindow> next;  // the window after this answer; none when no item is left
};

// Throws StoreError when the database cannot be read.
ItemsList list_items(const std::string& db_path, const ItemsWindow& window, std::size_t budget);

}  // namespace actorcrawl
