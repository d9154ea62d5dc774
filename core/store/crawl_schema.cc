#include "core/store/crawl_schema.h"

#include <sqlite3.h>

namespace actorcrawl {

namespace {
constexpr int kBusyTimeoutMs = 5000;

bool has_table(SQLite::Database& db, const char* table) {
  SQLite::Statement q(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
  q.bind(1, table);
  q.executeStep();
  return q.getColumn(0).getInt() == 1;
}

bool has_column(SQLite::Database& db, const char* table, const char* column) {
  SQLite::Statement q(db, "SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2");
  q.bind(1, table);
  q.bind(2, column);
  q.executeStep();
  return q.getColumn(0).getInt() == 1;
}

// Adds a column unless the table has it already: ALTER TABLE ADD COLUMN is
// not idempotent, and a file may have been half migrated by hand.
void add_column(SQLite::Database& db, const char* table, const char* column, const char* type) {
  if (has_table(db, table) && !has_column(db, table, column))
    db.exec(std::string{"ALTER TABLE "} + table + " ADD COLUMN " + column + " " + type);
}
}  // namespace

void build_link_targets(SQLite::Database& db, bool again) {
  if (again)
    db.exec("DROP TABLE IF EXISTS link_targets");
  if (has_table(db, "link_targets"))
    return;
  db.exec(R"sql(
      CREATE TABLE link_targets (
          to_url TEXT NOT NULL,
          from_page_id INTEGER NOT NULL,
          PRIMARY KEY (to_url, from_page_id)
      ) WITHOUT ROWID;
      INSERT OR IGNORE INTO link_targets(to_url, from_page_id)
          SELECT to_url, from_page_id FROM links ORDER BY to_url, from_page_id)sql");
}

void configure_sqlite_for_process() { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

SQLite::Database open_crawl_database(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX, kBusyTimeoutMs);
  // Opening is lazy: a file that is not a database only fails on the first
  // read, which must happen here so the caller learns it at construction.
  const int version = db.execAndGet("PRAGMA user_version").getInt();
  if (sqlite3_db_readonly(db.getHandle(), "main") == 1)
    throw SQLite::Exception("the database is read-only");
  if (version > kCrawlSchemaVersion)
    throw SQLite::Exception("schema version " + std::to_string(version) + " is newer than the supported version " +
                            std::to_string(kCrawlSchemaVersion));
  db.execAndGet("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Every write call runs in a savepoint, whose undo journal would otherwise
  // spill to a temp file past 64 KiB: ten times the write calls per page.
  db.exec("PRAGMA temp_store = MEMORY");
  SQLite::Transaction schema(db);
  // Columns added since: applied before the schema file, whose CREATE TABLE
  // IF NOT EXISTS leaves an existing table as it is.
  if (version >= 1 && version < 2)
    db.exec("ALTER TABLE pages ADD COLUMN links_dropped INTEGER");
  // Version 4: which links a fetch offered to the Frontier. Unknown for the
  // pages of older files (0), whose links are then not offered again when
  // the page is met closer to a seed.
  if (version >= 1 && version < 4 && has_table(db, "links"))
    db.exec("ALTER TABLE links ADD COLUMN followed INTEGER NOT NULL DEFAULT 0");
  // The frontier of version 2 and before: moved aside, the schema file
  // creates the new table and its index, and the rows come back.
  const bool rebuild_frontier = version >= 1 && version < 3 && has_table(db, "frontier");
  if (rebuild_frontier)
    db.exec("DROP INDEX IF EXISTS idx_frontier_state; ALTER TABLE frontier RENAME TO frontier_v2");
  // Version 6, freshness: the validators and digest of each page and the
  // change counts of each run (page_changes is a new table, created by the
  // schema file). Pages stored before have no digest: their first refetch
  // counts as changed unless the server answers 304 (it got no validators).
  if (version >= 1 && version < 6) {
    for (const char* column : {"etag", "last_modified", "content_digest"})
      add_column(db, "pages", column, "TEXT");
    add_column(db, "pages", "revisit_interval_ms", "INTEGER");
    for (const char* column : {"pages_new", "pages_changed", "pages_unchanged", "pages_gone"})
      add_column(db, "crawl_runs", column, "INTEGER");
  }
  // Version 7: the edges each page counted. Unknown for the pages of older
  // files (NULL): a 304 to one of them counts no edge until its body is
  // fetched again.
  if (version >= 1 && version < 7)
    add_column(db, "pages", "link_hosts", "TEXT");
  // Version 9: the charset of a kept body (NULL in older files, whose
  // bodies were not kept). The bodies table comes with the schema file.
  if (version >= 1 && version < 9)
    add_column(db, "pages", "charset", "TEXT");
  // Version 10: a page's links become one row of page_links (in position
  // order; positions are renumbered from 0 without the gaps older files
  // may have). The old table is moved aside, the schema file creates
  // page_links and the view, and the rows come over.
  const bool move_links = version >= 1 && version < 10 && has_table(db, "links");
  if (move_links)
    db.exec("DROP INDEX IF EXISTS idx_links_to; ALTER TABLE links RENAME TO links_v9");
  // Version 8: what named each sitemap document (NULL in older files,
  // whose unread documents are then found only as their hosts are visited).
  // The sitemaps table came with version 6's schema file.
  bool add_named_by = version >= 6 && version < 8;
  // Version 5's items and processor_failures are new tables: the schema
  // file creates them in an older file as in a new one.
  db.exec(std::string{crawl_schema_sql()});
  if (rebuild_frontier)
    db.exec(
      "INSERT INTO frontier(seq, url, depth, parent_url, state, discovered_at, settled_at, refusal) "
      "SELECT seq, url, depth, parent_url, state, discovered_at, settled_at, refusal FROM frontier_v2; "
      "DROP TABLE frontier_v2");
  // Version 6, sitemaps: the <lastmod> of the sitemap entry that offered a
  // frontier row (NULL for rows found otherwise, and for every row of an
  // older file); after the schema file, which rebuilds a version 2
  // frontier. The sitemaps table is new and comes with the schema file.
  if (version >= 1 && version < 6)
    add_column(db, "frontier", "lastmod", "INTEGER");
  if (move_links)
    db.exec(
      "INSERT INTO page_links(page_id, urls, flags) "
      "SELECT from_page_id, json_group_array(to_url), group_concat(nofollow + 2 * followed, '') "
      "FROM (SELECT * FROM links_v9 ORDER BY from_page_id, position) GROUP BY from_page_id; "
      "DROP TABLE links_v9");
  if (add_named_by)
    add_column(db, "sitemaps", "named_by", "TEXT");
  if (version != kCrawlSchemaVersion)
    db.exec("PRAGMA user_version = " + std::to_string(kCrawlSchemaVersion));
  schema.commit();
  return db;
}

}  // namespace actorcrawl
