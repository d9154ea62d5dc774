// What a crawl database holds, read by another process than its writer
// (the service's API): its pages page by page (a large job must not build
// one huge body), and its domain graph. Read-only and safe while the crawl
// still writes (SQLite WAL). The tables are crawl_schema.sql's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
// Pages [offset, offset + limit) in crawl order, each with its links
// [links_offset, links_offset + links_limit): a page of 80,000 links is
// paged through too.
PageSlice read_pages(const std::string& db_path, std::int64_t offset, std::int64_t limit,
                     std::int64_t links_offset = 0, std::int64_t links_limit = 100);
GraphView read_graph(const std::string& db_path);

struct PageCounts {
  std::int64_t fetched = 0;  // pages without an error
  std::int64_t failed = 0;   // pages with one
};
// Over every run: the counts of a job that ends without a crawl to report
// them (cancelled while the service was down, or before it started).
PageCounts count_pages(const std::string& db_path);

}  // namespace actorcrawl
