#include "core/store/kept_pages.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "core/clock/clock.h"
#include "core/store/crawl_schema.h"
#include "core/store/database_lock.h"
#include "core/store/node_bodies.h"
#include "core/store/sqlite_statements.h"
#include "core/store/store_error.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

constexpr int kBusyTimeoutMs = 5000;

// A page a crawl would have kept a body for: fetched with one, not a
// redirect recorded as the page, not noindex.
const std::string kFetchedWithBody =
  "COALESCE(p.error, '') = '' AND COALESCE(p.bytes, 0) > 0 AND COALESCE(p.status_code, 0) NOT BETWEEN 300 AND 399 "
  "AND instr(COALESCE(p.robots_directives, ''), 'noindex') = 0";

// After the page's columns, every query that reads a body reads these:
// the body's three (kept_body_at) from kBodyColumn on, then the digest.
constexpr const char* kBodyColumns = ", b.encoding, b.size, b.body, p.content_digest";
constexpr int kBodyColumn = 11;
constexpr int kDigestColumn = 14;

// The columns every query below reads, in this order; a file from before
// schema 9 (read, not migrated) has no charset column.
std::string page_columns(bool has_charset) {
  return std::string{"p.page_id, p.url, p.final_url, p.depth, p.status_code, p.content_type, "} +
         (has_charset ? "p.charset" : "NULL") + ", p.redirect_chain, p.robots_directives, p.title, p.truncated";
}

SQLite::Database open_database(const std::string& path, KeptPages::Access access) {
  if (access == KeptPages::Access::rewrite)
    return open_crawl_database(path);
  // A reader never creates the file it was asked to read.
  SQLite::Database db(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
  const int version = db.execAndGet("PRAGMA user_version").getInt();
  if (version > kCrawlSchemaVersion)
    throw SQLite::Exception("schema version " + std::to_string(version) + " is newer than the supported version " +
                            std::to_string(kCrawlSchemaVersion));
  if (version == 0)
    throw SQLite::Exception("not a crawl database (no schema version)");
  return db;
}

bool has_bodies_table(SQLite::Database& db) {
  return db.execAndGet("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'bodies'").getInt() == 1;
}

bool has_charset_column(SQLite::Database& db) {
  return db.execAndGet("SELECT COUNT(*) FROM pragma_table_info('pages') WHERE name = 'charset'").getInt() == 1;
}

KeptPage page_from(SQLite::Statement& s, bool with_body) {
  KeptPage page;
  page.page_id = s.getColumn(0).getInt64();
  page.url = column_text(s.getColumn(1));
  page.final_url = column_text(s.getColumn(2));
  if (page.final_url.empty())
    page.final_url = page.url;
  page.depth = s.getColumn(3).getInt();
  page.status_code = s.getColumn(4).getInt();
  page.content_type = column_text(s.getColumn(5));
  page.charset = column_text(s.getColumn(6));
  page.redirect_chain = column_text(s.getColumn(7));
  page.robots_directives = column_text(s.getColumn(8));
  page.title = column_text(s.getColumn(9));
  page.truncated = s.getColumn(10).getInt() != 0;
  if (with_body && !s.getColumn(kBodyColumn).isNull())
    page.body = kept_body_at(s, kBodyColumn);
  return page;
}

// `kinds` as a JSON array, for json_each().
std::string kinds_json(const std::vector<std::string>& kinds) {
  std::string out = "[";
  for (const auto& kind : kinds) {
    if (out.size() > 1)
      out += ',';
    append_json_string(out, kind);
  }
  return out + "]";
}

}  // namespace

struct KeptPages::Impl {
  Impl(const std::string& p, Access access, const std::string& bodies_dir)
      : path(p),
        db(open_database(p, access)),
        bodies(has_bodies_table(db)),
        columns(page_columns(has_charset_column(db))),
        nodes(bodies_dir) {}

  // A body the database does not hold, from the nodes' files, by the
  // digest the query read last (kBodyColumns); false when none has it.
  bool body_from_nodes(KeptPage& page, SQLite::Statement& s) {
    if (!page.body.encoding.empty())
      return true;
    const SQLite::Column digest = s.getColumn(kDigestColumn);
    if (nodes.empty() || digest.isNull())
      return false;
    auto body = nodes.find(digest.getString());
    if (!body)
      return false;
    page.body = std::move(*body);
    return true;
  }

  // What replace() writes with. `kind` (?2) NULL: every item and failure
  // of the page; else ItemsReplaced::covers, in SQL. Items of keep_kinds
  // (?3, a JSON array) stay either way.
  struct Writes {
    explicit Writes(SQLite::Database& db)
        : items_gone(db, "DELETE FROM items WHERE page_id = ?1 AND (?2 IS NULL OR kind = ?2) AND "
                         "kind NOT IN (SELECT value FROM json_each(?3))"),
          failures_gone(db, R"sql(
              DELETE FROM processor_failures WHERE page_id = ?1 AND (?2 IS NULL OR processor = ?2 OR
                (processor = 'extract' AND substr(detail, 1, length(?3)) = ?3)))sql"),
          add_item(db, "INSERT INTO items(page_id, kind, item) VALUES(?1, ?2, ?3)"),
          add_failure(db, "INSERT INTO processor_failures(page_id, processor, reason, detail, failed_at) "
                          "VALUES(?1, ?2, ?3, ?4, ?5)") {}
    SQLite::Statement items_gone, failures_gone, add_item, add_failure;
  };

  std::string path;
  SQLite::Database db;
  bool bodies;  // a database from before schema 9 has none
  std::string columns;
  NodeBodiesReader nodes;
  // Declared after db: finalized before the connection closes.
  std::optional<Writes> writes;
};

KeptPages::KeptPages(const std::string& db_path, Access access, const std::string& bodies_dir) {
  if (access == Access::rewrite)
    lock_ = std::make_unique<DatabaseLock>(db_path);
  try {
    impl_ = std::make_unique<Impl>(db_path, access, bodies_dir);
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + db_path + "': " + e.what());
  }
}

KeptPages::~KeptPages() = default;

std::vector<KeptPage> KeptPages::next_batch(std::int64_t after, std::size_t limit, bool failed_only) {
  std::vector<KeptPage> out;
  if (!impl_->bodies || limit == 0)
    return out;
  // With nodes' files, a page whose body the database lacks is a candidate
  // too; one no file holds either is passed over, and the query goes on
  // past it until `limit` pages are read or the pages end.
  const bool nodes = !impl_->nodes.empty();
  try {
    const std::string join = nodes ? " LEFT JOIN" : " JOIN";
    const std::string kept_somewhere =
      nodes ? "AND (b.content_digest IS NOT NULL OR (p.content_digest IS NOT NULL AND " + kFetchedWithBody + ")) "
            : std::string{};
    SQLite::Statement s(impl_->db,
                        "SELECT " + impl_->columns + kBodyColumns + " FROM pages p" + join +
                          " bodies b ON b.content_digest = p.content_digest WHERE p.page_id > ?1 " + kept_somewhere +
                          "AND (?2 = 0 OR EXISTS (SELECT 1 FROM processor_failures f WHERE f.page_id = p.page_id)) "
                          "ORDER BY p.page_id LIMIT ?3");
    for (;;) {
      const auto wanted = static_cast<std::int64_t>(limit - out.size());
      s.reset();
      s.bind(1, after);
      s.bind(2, failed_only ? 1 : 0);
      s.bind(3, wanted);
      std::int64_t read = 0;
      while (s.executeStep()) {
        ++read;
        KeptPage page = page_from(s, true);
        after = page.page_id;
        if (impl_->body_from_nodes(page, s))
          out.push_back(std::move(page));
      }
      if (read < wanted || out.size() >= limit)
        break;
    }
  } catch (const SQLite::Exception& e) {
    throw StoreError("reading kept pages of '" + impl_->path + "' failed: " + e.what());
  }
  return out;
}

std::int64_t KeptPages::pages_without_body() {
  try {
    if (!impl_->bodies)
      return impl_->db.execAndGet("SELECT COUNT(*) FROM pages p WHERE " + kFetchedWithBody).getInt64();
    const std::string unkept = "FROM pages p WHERE " + kFetchedWithBody +
                               " AND NOT EXISTS (SELECT 1 FROM bodies b WHERE b.content_digest = p.content_digest)";
    if (impl_->nodes.empty())
      return impl_->db.execAndGet("SELECT COUNT(*) " + unkept).getInt64();
    std::int64_t n = 0;
    SQLite::Statement s(impl_->db, "SELECT p.content_digest " + unkept);
    while (s.executeStep())
      if (s.getColumn(0).isNull() || !impl_->nodes.holds(s.getColumn(0).getString()))
        ++n;
    return n;
  } catch (const SQLite::Exception& e) {
    throw StoreError("counting pages of '" + impl_->path + "' failed: " + e.what());
  }
}

std::optional<KeptPage> KeptPages::find(const std::string& url) {
  const std::string body_columns = impl_->bodies ? kBodyColumns : "";
  const std::string join =
    impl_->bodies ? " LEFT JOIN bodies b ON b.content_digest = p.content_digest" : std::string{};
  try {
    for (const char* column : {"p.url", "p.final_url"}) {
      SQLite::Statement s(impl_->db, "SELECT " + impl_->columns + body_columns + " FROM pages p" + join +
                                       " WHERE " + column + " = ?1 ORDER BY p.page_id LIMIT 1");
      s.bind(1, url);
      if (s.executeStep()) {
        KeptPage page = page_from(s, impl_->bodies);
        if (impl_->bodies)
          impl_->body_from_nodes(page, s);
        return page;
      }
    }
  } catch (const SQLite::Exception& e) {
    throw StoreError("reading page " + url + " of '" + impl_->path + "' failed: " + e.what());
  }
  return std::nullopt;
}

std::int64_t KeptPages::replace(std::int64_t page_id, const ItemsReplaced& which, const std::vector<ExtractedItem>& items,
                                const std::vector<ProcessorFailure>& failures) {
  try {
    // Prepared at the first page and kept: a run replaces every page's items.
    if (!impl_->writes)
      impl_->writes.emplace(impl_->db);
    auto& w = *impl_->writes;
    SQLite::Transaction tx(impl_->db);
    std::int64_t before = 0;
    {
      StatementUse use(w.items_gone);
      w.items_gone.bind(1, page_id);
      if (which.kind)
        w.items_gone.bind(2, *which.kind);
      w.items_gone.bind(3, kinds_json(which.keep_kinds));
      before = w.items_gone.exec();
    }
    {
      StatementUse use(w.failures_gone);
      w.failures_gone.bind(1, page_id);
      if (which.kind)
        w.failures_gone.bind(2, *which.kind);
      w.failures_gone.bind(3, which.rule_prefix());
      w.failures_gone.exec();
    }
    for (const auto& item : items) {
      StatementUse use(w.add_item);
      w.add_item.bind(1, page_id);
      w.add_item.bind(2, item.kind);
      w.add_item.bind(3, item.json);
      w.add_item.exec();
    }
    const std::int64_t now = epoch_ms();
    for (const auto& failure : failures) {
      StatementUse use(w.add_failure);
      w.add_failure.bind(1, page_id);
      w.add_failure.bind(2, failure.processor);
      w.add_failure.bind(3, failure.reason);
      bind_text(w.add_failure, 4, failure.detail);
      w.add_failure.bind(5, now);
      w.add_failure.exec();
    }
    tx.commit();
    return before;
  } catch (const SQLite::Exception& e) {
    throw StoreError("replacing the items of page " + std::to_string(page_id) + " in '" + impl_->path +
                     "' failed: " + e.what());
  }
}

}  // namespace actorcrawl
