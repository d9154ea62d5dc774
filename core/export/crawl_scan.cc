#include "core/export/crawl_scan.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/store/crawl_schema.h"
#include "core/store/item_kinds.h"
#include "core/export/export_error.h"
#include "core/store/sqlite_statements.h"

namespace actorcrawl {

namespace {

constexpr int kBusyTimeoutMs = 5000;

// The pages columns an export reads, in ExportPage's order after page_id
// and url.
constexpr const char* kPageColumns[] = {"final_url",  "content_type",   "title",     "description",
                                        "error",      "redirect_chain", "canonical_url",
                                        "robots_directives", "status_code", "depth",  "fetched_at",
                                        "fetch_ms",   "bytes",          "truncated", "attempts",
                                        "links_dropped"};

SQLite::Database open_read_only(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw ExportError(ExportError::Kind::missing_database, "no database at '" + path + "'");
  if (std::filesystem::is_directory(path, ec))
    throw ExportError(ExportError::Kind::not_a_crawl_database, "'" + path + "' is a directory, not a crawl database");
  try {
    return SQLite::Database(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
  } catch (const SQLite::Exception& e) {
    throw ExportError(ExportError::Kind::not_a_crawl_database,
                      "cannot open database '" + path + "': " + e.what());
  }
}

OptionalText text_of(const SQLite::Column& c) {
  if (c.isNull())
    return std::nullopt;
  return c.getString();
}

OptionalInt int_of(const SQLite::Column& c) {
  if (c.isNull())
    return std::nullopt;
  return c.getInt64();
}

}  // namespace

CrawlScan::CrawlScan(const std::string& db_path) : path_(db_path), db_(open_read_only(db_path)) {
  const auto refuse = [&](const std::string& why) {
    throw ExportError(ExportError::Kind::not_a_crawl_database, "'" + path_ + "' is not a crawl database: " + why);
  };
  std::set<std::string> tables;
  std::set<std::string> page_columns;
  try {
    // Opening is lazy: a file that is not a database fails on this first read.
    const int version = db_.execAndGet("PRAGMA user_version").getInt();
    if (version > kCrawlSchemaVersion)
      refuse("its schema version " + std::to_string(version) + " is newer than this build reads (" +
             std::to_string(kCrawlSchemaVersion) + ")");
    // Sorts and DISTINCTs of a large export spill to temporary files, not
    // to memory.
    db_.exec("PRAGMA temp_store = FILE");
    // One snapshot for every pass: the node pass and the edge pass of a
    // graph agree even while the crawl commits.
    db_.exec("BEGIN");
    // links is a table up to schema 9 and a view of page_links since.
    SQLite::Statement t(db_, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    while (t.executeStep())
      tables.insert(t.getColumn(0).getString());
    for (const char* table : {"pages", "links", "nodes", "edges"})
      if (!tables.count(table))
        refuse(std::string{"it has no "} + table + " table");
    SQLite::Statement c(db_, "SELECT name FROM pragma_table_info('pages')");
    while (c.executeStep())
      page_columns.insert(c.getColumn(0).getString());
  } catch (const SQLite::Exception& e) {
    throw ExportError(ExportError::Kind::not_a_crawl_database,
                      "'" + path_ + "' is not a crawl database: " + e.what());
  }
  has_items_ = tables.count("items") > 0;
  has_link_targets_ = tables.count("link_targets") > 0;
  has_changes_ = tables.count("page_changes") > 0;
  if (!page_columns.count("page_id") || !page_columns.count("url"))
    refuse("its pages table has no page_id or url column");
  page_columns_ = "page_id, url";
  for (const char* column : kPageColumns)
    page_columns_ += page_columns.count(column) ? std::string{", "} + column : std::string{", NULL"};
}

CrawlScan::~CrawlScan() {
  try {
    db_.exec("ROLLBACK");
  } catch (...) {
    // Nothing was written; closing the connection ends the read anyway.
  }
}

template <typename Body>
void CrawlScan::reading(const char* what, Body&& body) {
  try {
    body();
  } catch (const SQLite::Exception& e) {
    throw ExportError(ExportError::Kind::read_failed,
                      std::string{what} + " failed on database '" + path_ + "': " + e.what());
  }
}

std::int64_t CrawlScan::page_count() {
  std::int64_t n = 0;
  reading("counting pages", [&] { n = db_.execAndGet("SELECT COUNT(*) FROM pages").getInt64(); });
  return n;
}

std::int64_t CrawlScan::node_count() {
  std::int64_t n = 0;
  reading("counting nodes", [&] { n = db_.execAndGet("SELECT COUNT(*) FROM nodes").getInt64(); });
  return n;
}

std::int64_t CrawlScan::edge_count() {
  std::int64_t n = 0;
  reading("counting edges", [&] { n = db_.execAndGet("SELECT COUNT(*) FROM edges").getInt64(); });
  return n;
}

std::int64_t CrawlScan::item_count(const std::optional<std::string>& kind) {
  std::int64_t n = 0;
  if (!has_items_)
    return n;
  reading("counting items", [&] {
    // Items whose page is gone are counted though the export skips them:
    // the count is only the progress's total, and a join would cost a
    // lookup per item. CrawlStore's foreign keys leave none.
    SQLite::Statement q(db_, kind ? "SELECT COUNT(*) FROM items WHERE kind = ?1" : "SELECT COUNT(*) FROM items");
    if (kind)
      q.bind(1, *kind);
    q.executeStep();
    n = q.getColumn(0).getInt64();
  });
  return n;
}

void CrawlScan::pages(bool with_links, const std::function<void(const ExportPage&)>& visit) {
  reading("reading pages", [&] {
    SQLite::Statement pages(db_, "SELECT " + page_columns_ + " FROM pages ORDER BY page_id");
    // The table's own order (its primary key), so no sort: a page's links
    // come together, by target, and are put in document order here.
    SQLite::Statement links(db_, "SELECT from_page_id, to_url, nofollow, position FROM links ORDER BY from_page_id");
    bool link_ready = with_links && links.executeStep();
    ExportPage page;
    while (pages.executeStep()) {
      page.page_id = pages.getColumn(0).getInt64();
      page.url = column_text(pages.getColumn(1));
      OptionalText* texts[] = {&page.final_url, &page.content_type, &page.title,         &page.description,
                               &page.error,     &page.redirect_chain, &page.canonical_url, &page.robots_directives};
      OptionalInt* ints[] = {&page.status_code, &page.depth,     &page.fetched_at, &page.fetch_ms,
                             &page.bytes,       &page.truncated, &page.attempts,   &page.links_dropped};
      int column = 2;
      for (OptionalText* t : texts)
        *t = text_of(pages.getColumn(column++));
      for (OptionalInt* i : ints)
        *i = int_of(pages.getColumn(column++));
      page.links.clear();
      while (link_ready) {
        const std::int64_t from = links.getColumn(0).getInt64();
        if (from > page.page_id)
          break;
        if (from == page.page_id)
          page.links.push_back(ExportLink{column_text(links.getColumn(1)), links.getColumn(2).getInt64() != 0,
                                          links.getColumn(3).getInt64()});
        link_ready = links.executeStep();
      }
      std::stable_sort(page.links.begin(), page.links.end(),
                       [](const ExportLink& a, const ExportLink& b) { return a.position < b.position; });
      visit(page);
    }
  });
}

void CrawlScan::domain_nodes(const std::function<void(const DomainNode&)>& visit) {
  reading("reading nodes", [&] {
    SQLite::Statement q(db_, "SELECT domain_name, crawl_count, description FROM nodes ORDER BY node_id");
    DomainNode node;
    while (q.executeStep()) {
      node.name = column_text(q.getColumn(0));
      node.crawl_count = int_of(q.getColumn(1));
      node.description = text_of(q.getColumn(2));
      visit(node);
    }
  });
}

void CrawlScan::domain_edges(const std::function<void(const DomainEdge&)>& visit) {
  reading("reading edges", [&] {
    SQLite::Statement q(db_,
                        "SELECT f.domain_name, t.domain_name, e.weight FROM edges e "
                        "JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id "
                        "ORDER BY e.edge_id");
    DomainEdge edge;
    while (q.executeStep()) {
      edge.from = column_text(q.getColumn(0));
      edge.to = column_text(q.getColumn(1));
      edge.weight = int_of(q.getColumn(2));
      visit(edge);
    }
  });
}

void CrawlScan::unfetched_targets(const std::function<void(std::string_view)>& visit) {
  reading("reading link targets", [&] {
    // SQLite sorts the targets in a temporary file (temp_store = FILE),
    // once for this export. Files whose last run was written by an earlier
    // version may hold link_targets (schema 10) or idx_links_to (schema 9
    // and before): a walk in target order.
    SQLite::Statement q(db_, std::string{"SELECT DISTINCT l.to_url FROM "} +
                               (has_link_targets_ ? "link_targets" : "links") +
                               " l WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.url = l.to_url)");
    while (q.executeStep())
      visit(column_text(q.getColumn(0)));
  });
}

void CrawlScan::items(const std::optional<std::string>& kind, const std::function<void(const ExportItem&)>& visit) {
  if (!has_items_)
    return;
  reading("reading items", [&] {
    // Items are the outer loop, read in the order of their primary key
    // (or, for one kind, of idx_items_kind), each page found by its key:
    // nothing is sorted. SQLite's planner picks that today; CROSS JOIN
    // fixes it whatever statistics a database carries, since the other
    // order would sort every item in a temporary b-tree.
    SQLite::Statement q(db_, std::string{"SELECT i.item_id, p.url, i.kind, i.item FROM items i "
                                         "CROSS JOIN pages p ON p.page_id = i.page_id"} +
                               (kind ? " WHERE i.kind = ?1" : "") + " ORDER BY i.item_id");
    if (kind)
      q.bind(1, *kind);
    ExportItem item;
    while (q.executeStep()) {
      item.item_id = q.getColumn(0).getInt64();
      item.url = column_text(q.getColumn(1));
      item.kind = column_text(q.getColumn(2));
      item.item = column_text(q.getColumn(3));
      visit(item);
    }
  });
}

std::vector<std::string> CrawlScan::item_kinds(std::size_t limit) {
  std::vector<std::string> kinds;
  if (!has_items_)
    return kinds;
  reading("reading item kinds", [&] { kinds = actorcrawl::item_kinds(db_, limit); });
  return kinds;
}

bool CrawlScan::has_items_of(const std::string& kind) {
  bool found = false;
  if (!has_items_)
    return found;
  reading("reading item kinds", [&] {
    SQLite::Statement q(db_, "SELECT 1 FROM items WHERE kind = ?1 LIMIT 1");
    q.bind(1, kind);
    found = q.executeStep();
  });
  return found;
}

namespace {
constexpr const char* kChangesWhere =
  " WHERE run_id > ?1 AND (change IN ('changed', 'gone') OR (?2 AND change = 'new'))";
}  // namespace

std::int64_t CrawlScan::page_change_count(bool include_new, std::int64_t since_run) {
  std::int64_t n = 0;
  if (!has_changes_)
    return n;
  reading("counting page changes", [&] {
    SQLite::Statement q(db_, std::string{"SELECT COUNT(*) FROM page_changes"} + kChangesWhere);
    q.bind(1, since_run);
    q.bind(2, include_new ? 1 : 0);
    q.executeStep();
    n = q.getColumn(0).getInt64();
  });
  return n;
}

void CrawlScan::page_changes(bool include_new, std::int64_t since_run,
                             const std::function<void(const ExportChange&)>& visit) {
  if (!has_changes_)
    return;
  reading("reading page changes", [&] {
    SQLite::Statement q(db_, std::string{"SELECT url, run_id, change FROM page_changes"} + kChangesWhere +
                               " ORDER BY run_id, rowid");
    q.bind(1, since_run);
    q.bind(2, include_new ? 1 : 0);
    ExportChange change;
    while (q.executeStep()) {
      change.url = q.getColumn(0).getString();
      change.run = q.getColumn(1).getInt64();
      change.change = q.getColumn(2).getString();
      visit(change);
    }
  });
}

}  // namespace actorcrawl
