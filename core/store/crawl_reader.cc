#include "core/store/crawl_reader.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "core/store/sqlite_statements.h"
#include "core/store/store_error.h"

namespace actorcrawl {

namespace {

template <typename Body>
auto read_db(const std::string& path, const char* what, Body&& body) -> decltype(body(std::declval<SQLite::Database&>())) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return {};
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    db.setBusyTimeout(5000);
    return body(db);
  } catch (const SQLite::Exception& e) {
    // A database the crawl has created but not yet given its tables.
    if (std::string_view{e.what()}.find("no such table") != std::string_view::npos)
      return {};
    throw StoreError(std::string{what} + " failed on database '" + path + "': " + e.what());
  }
}

}  // namespace

PageSlice read_pages(const std::string& db_path, std::int64_t offset, std::int64_t limit, std::int64_t links_offset,
                     std::int64_t links_limit) {
  return read_db(db_path, "read pages", [&](SQLite::Database& db) {
    PageSlice out;
    out.total = db.execAndGet("SELECT COUNT(*) FROM pages").getInt64();
    SQLite::Statement q(db,
                        "SELECT page_id, url, status_code, title, fetched_at FROM pages ORDER BY page_id "
                        "LIMIT ? OFFSET ?");
    q.bind(1, limit);
    q.bind(2, offset);
    SQLite::Statement links(db, "SELECT to_url FROM links WHERE from_page_id = ? ORDER BY position LIMIT ? OFFSET ?");
    SQLite::Statement count_links(db, "SELECT COUNT(*) FROM links WHERE from_page_id = ?");
    while (q.executeStep()) {
      PageView p;
      p.url = column_text(q.getColumn(1));
      p.status_code = q.getColumn(2).isNull() ? 0 : q.getColumn(2).getInt();
      p.title = column_text(q.getColumn(3));
      p.crawled_at = q.getColumn(4).isNull() ? 0 : q.getColumn(4).getInt64();
      const std::int64_t page_id = q.getColumn(0).getInt64();
      links.bind(1, page_id);
      links.bind(2, links_limit);
      links.bind(3, links_offset);
      while (links.executeStep())
        p.links.push_back(column_text(links.getColumn(0)));
      links.reset();
      count_links.bind(1, page_id);
      if (count_links.executeStep())
        p.links_total = count_links.getColumn(0).getInt64();
      count_links.reset();
      out.pages.push_back(std::move(p));
    }
    return out;
  });
}

GraphView read_graph(const std::string& db_path) {
  return read_db(db_path, "read graph", [&](SQLite::Database& db) {
    GraphView g;
    SQLite::Statement nodes(db, "SELECT domain_name, crawl_count, description FROM nodes ORDER BY node_id");
    while (nodes.executeStep())
      g.nodes.push_back({column_text(nodes.getColumn(0)), nodes.getColumn(1).getInt64(), column_text(nodes.getColumn(2))});
    SQLite::Statement edges(db,
                            "SELECT f.domain_name, t.domain_name, e.weight FROM edges e "
                            "JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id "
                            "ORDER BY e.edge_id");
    while (edges.executeStep())
      g.edges.push_back({column_text(edges.getColumn(0)), column_text(edges.getColumn(1)), edges.getColumn(2).getInt64()});
    return g;
  });
}

PageCounts count_pages(const std::string& db_path) {
  return read_db(db_path, "count pages", [&](SQLite::Database& db) {
    SQLite::Statement q(db,
                        "SELECT COALESCE(SUM(COALESCE(error, '') = ''), 0), COALESCE(SUM(COALESCE(error, '') <> ''), 0) "
                        "FROM pages");
    q.executeStep();
    return PageCounts{q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
  });
}

}  // namespace actorcrawl
