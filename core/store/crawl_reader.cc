#include "core/store/crawl_reader.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "core/store/item_kinds.h"
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

struct PageReader::Impl {
  SQLite::Database db;
  SQLite::Statement pages;
  SQLite::Statement links;
  SQLite::Statement count_links;
  std::int64_t page_id = -1;

  Impl(SQLite::Database&& opened, std::int64_t offset)
      : db(std::move(opened)),
        pages(db, "SELECT page_id, url, status_code, title, fetched_at FROM pages ORDER BY page_id LIMIT -1 OFFSET ?"),
        links(db, "SELECT to_url FROM links WHERE from_page_id = ? ORDER BY position LIMIT ? OFFSET ?"),
        count_links(db, "SELECT COUNT(*) FROM links WHERE from_page_id = ?") {
    pages.bind(1, offset);
  }
};

PageReader::PageReader(const std::string& db_path, std::int64_t offset) {
  impl_ = read_db(db_path, "read pages", [&](SQLite::Database& db) -> std::unique_ptr<Impl> {
    total_ = db.execAndGet("SELECT COUNT(*) FROM pages").getInt64();
    return std::make_unique<Impl>(std::move(db), offset);
  });
}

PageReader::~PageReader() = default;

bool PageReader::next(PageView& page) {
  if (!impl_)
    return false;
  try {
    auto& q = impl_->pages;
    if (!q.executeStep())
      return false;
    page = PageView{};
    impl_->page_id = q.getColumn(0).getInt64();
    page.url = column_text(q.getColumn(1));
    page.status_code = q.getColumn(2).isNull() ? 0 : q.getColumn(2).getInt();
    page.title = column_text(q.getColumn(3));
    page.crawled_at = q.getColumn(4).isNull() ? 0 : q.getColumn(4).getInt64();
    StatementUse count(impl_->count_links);
    impl_->count_links.bind(1, impl_->page_id);
    if (impl_->count_links.executeStep())
      page.links_total = impl_->count_links.getColumn(0).getInt64();
    return true;
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string{"read pages failed: "} + e.what());
  }
}

void PageReader::links(std::int64_t from, std::int64_t count, const std::function<bool(const std::string&)>& take) {
  if (!impl_ || impl_->page_id < 0 || count <= 0)
    return;
  try {
    StatementUse use(impl_->links);
    impl_->links.bind(1, impl_->page_id);
    impl_->links.bind(2, count);
    impl_->links.bind(3, from);
    while (impl_->links.executeStep())
      if (!take(column_text(impl_->links.getColumn(0))))
        return;
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string{"read links failed: "} + e.what());
  }
}

PageSlice read_pages(const std::string& db_path, std::int64_t offset, std::int64_t limit, std::int64_t links_offset,
                     std::int64_t links_limit) {
  PageReader reader(db_path, offset);
  PageSlice out;
  out.total = reader.total();
  PageView page;
  while (static_cast<std::int64_t>(out.pages.size()) < limit && reader.next(page)) {
    reader.links(links_offset, links_limit, [&](const std::string& link) {
      page.links.push_back(link);
      return true;
    });
    out.pages.push_back(std::move(page));
  }
  return out;
}

GraphTotals visit_graph(const std::string& db_path, std::int64_t nodes_from, std::int64_t edges_from,
                        const std::function<bool(const GraphView::Node&)>& take_node,
                        const std::function<bool(const GraphView::Edge&)>& take_edge) {
  return read_db(db_path, "read graph", [&](SQLite::Database& db) {
    GraphTotals totals;
    totals.nodes = db.execAndGet("SELECT COUNT(*) FROM nodes").getInt64();
    totals.edges = db.execAndGet("SELECT COUNT(*) FROM edges").getInt64();
    SQLite::Statement nodes(db,
                            "SELECT domain_name, crawl_count, description FROM nodes ORDER BY node_id LIMIT -1 OFFSET ?");
    nodes.bind(1, nodes_from);
    while (nodes.executeStep())
      if (!take_node({column_text(nodes.getColumn(0)), nodes.getColumn(1).getInt64(), column_text(nodes.getColumn(2))}))
        return totals;
    SQLite::Statement edges(db,
                            "SELECT f.domain_name, t.domain_name, e.weight FROM edges e "
                            "JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id "
                            "ORDER BY e.edge_id LIMIT -1 OFFSET ?");
    edges.bind(1, edges_from);
    while (edges.executeStep())
      if (!take_edge({column_text(edges.getColumn(0)), column_text(edges.getColumn(1)), edges.getColumn(2).getInt64()}))
        break;
    return totals;
  });
}

GraphView read_graph(const std::string& db_path) {
  GraphView g;
  visit_graph(
    db_path, 0, 0,
    [&](const GraphView::Node& n) {
      g.nodes.push_back(n);
      return true;
    },
    [&](const GraphView::Edge& e) {
      g.edges.push_back(e);
      return true;
    });
  return g;
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

struct ItemReader::Impl {
  SQLite::Database db;
  SQLite::Statement items;

  // A LEFT JOIN, so every item the count counts is read: an item's page is
  // written in the same transaction, but a reader must not lose rows to a
  // database that says otherwise.
  Impl(SQLite::Database&& opened, std::int64_t offset, const std::optional<std::string>& kind)
      : db(std::move(opened)),
        items(db, kind ? "SELECT p.url, i.kind, i.item FROM items i LEFT JOIN pages p ON p.page_id = i.page_id "
                         "WHERE i.kind = ?2 ORDER BY i.item_id LIMIT -1 OFFSET ?1"
                       : "SELECT p.url, i.kind, i.item FROM items i LEFT JOIN pages p ON p.page_id = i.page_id "
                         "ORDER BY i.item_id LIMIT -1 OFFSET ?1") {
    items.bind(1, offset);
    if (kind)
      items.bind(2, *kind);
  }
};

ItemReader::ItemReader(const std::string& db_path, std::int64_t offset, const std::optional<std::string>& kind) {
  impl_ = read_db(db_path, "read items", [&](SQLite::Database& db) -> std::unique_ptr<Impl> {
    if (kind) {
      SQLite::Statement count(db, "SELECT COUNT(*) FROM items WHERE kind = ?");
      count.bind(1, *kind);
      count.executeStep();
      total_ = count.getColumn(0).getInt64();
    } else {
      total_ = db.execAndGet("SELECT COUNT(*) FROM items").getInt64();
    }
    return std::make_unique<Impl>(std::move(db), offset, kind);
  });
}

ItemReader::~ItemReader() = default;

bool ItemReader::next(ItemView& item) {
  if (!impl_)
    return false;
  try {
    auto& q = impl_->items;
    if (!q.executeStep())
      return false;
    item.url = column_text(q.getColumn(0));
    item.kind = column_text(q.getColumn(1));
    item.item = column_text(q.getColumn(2));
    return true;
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string{"read items failed: "} + e.what());
  }
}

PageChangeCounts count_changes(const std::string& db_path) {
  return read_db(db_path, "count page changes", [&](SQLite::Database& db) {
    PageChangeCounts out;
    if (!db.tableExists("page_changes"))
      return out;
    SQLite::Statement q(db, "SELECT change, COUNT(*) FROM page_changes GROUP BY change");
    while (q.executeStep()) {
      const std::string change = column_text(q.getColumn(0));
      const std::int64_t n = q.getColumn(1).getInt64();
      if (change == "new")
        out.new_pages = n;
      else if (change == "changed")
        out.changed = n;
      else if (change == "unchanged")
        out.unchanged = n;
      else if (change == "gone")
        out.gone = n;
    }
    return out;
  });
}

ItemCounts count_items(const std::string& db_path) {
  return read_db(db_path, "count items", [&](SQLite::Database& db) {
    ItemCounts out;
    out.items = db.execAndGet("SELECT COUNT(*) FROM items").getInt64();
    out.kinds = item_kinds(db, ItemCounts::kKindsCounted);
    SQLite::Statement q(db,
                        "SELECT processor, reason, COUNT(*) FROM processor_failures GROUP BY processor, reason "
                        "ORDER BY processor, reason");
    while (q.executeStep())
      out.failures.push_back({column_text(q.getColumn(0)), column_text(q.getColumn(1)), q.getColumn(2).getInt64()});
    return out;
  });
}

}  // namespace actorcrawl
