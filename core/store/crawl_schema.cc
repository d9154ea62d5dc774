#include "core/store/crawl_schema.h"

#include <sqlite3.h>

namespace actorcrawl {

namespace {
constexpr int kBusyTimeoutMs = 5000;

bool has_column(SQLite::Database& db, const char* table, const char* column) {
  SQLite::Statement info(db, std::string{"PRAGMA table_info("} + table + ")");
  while (info.executeStep())
    if (info.getColumn(1).getString() == column)
      return true;
  return false;
}

// Version 6: the <lastmod> of the sitemap entry that offered a frontier row
// (NULL for rows found otherwise, and for every row of an older file). Its
// own step, by the column's presence, so it is idempotent and independent
// of the other version 6 changes; the sitemaps table is new and comes with
// the schema file.
void add_frontier_lastmod(SQLite::Database& db) {
  if (!has_column(db, "frontier", "lastmod"))
    db.exec("ALTER TABLE frontier ADD COLUMN lastmod INTEGER");
}
}  // namespace

SQLite::Database open_crawl_database(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
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
  if (version >= 1 && version < 4 &&
      db.execAndGet("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'links'").getInt() == 1)
    db.exec("ALTER TABLE links ADD COLUMN followed INTEGER NOT NULL DEFAULT 0");
  // The frontier of version 2 and before: moved aside, the schema file
  // creates the new table and its index, and the rows come back.
  const bool rebuild_frontier =
    version >= 1 && version < 3 &&
    db.execAndGet("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'frontier'").getInt() == 1;
  if (rebuild_frontier)
    db.exec("DROP INDEX IF EXISTS idx_frontier_state; ALTER TABLE frontier RENAME TO frontier_v2");
  // Version 5's items and processor_failures are new tables: the schema
  // file creates them in an older file as in a new one.
  db.exec(std::string{crawl_schema_sql()});
  if (rebuild_frontier)
    db.exec(
      "INSERT INTO frontier(seq, url, depth, parent_url, state, discovered_at, settled_at, refusal) "
      "SELECT seq, url, depth, parent_url, state, discovered_at, settled_at, refusal FROM frontier_v2; "
      "DROP TABLE frontier_v2");
  if (version >= 1 && version < 6)
    add_frontier_lastmod(db);
  if (version == 0)
    db.exec(kCreateLinksToIndex);
  if (version != kCrawlSchemaVersion)
    db.exec("PRAGMA user_version = " + std::to_string(kCrawlSchemaVersion));
  schema.commit();
  return db;
}

}  // namespace actorcrawl
