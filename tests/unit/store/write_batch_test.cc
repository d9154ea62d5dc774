#include "core/store/write_batch.h"

#include <catch2/catch.hpp>

#include <stdexcept>

#include "core/store/crawl_schema.h"
#include "tests/unit/temp_database.h"

namespace actorcrawl {
namespace {

using testing::scalar;
using testing::TempDbPath;

struct Fixture {
  TempDbPath path;
  SQLite::Database db{path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
  int rollbacks = 0;
  Fixture() { db.exec("CREATE TABLE t (v INTEGER UNIQUE)"); }
  void insert(WriteBatch& batch, int v) {
    batch.write("insert", 1, [&] { db.exec("INSERT INTO t VALUES (" + std::to_string(v) + ")"); });
  }
};

}  // namespace

TEST_CASE("writes commit once the batch is full, or on flush", "[write_batch]") {
  Fixture f;
  WriteBatch batch(f.db, f.path.str(), 3, [&] { ++f.rollbacks; });
  f.insert(batch, 1);
  f.insert(batch, 2);
  CHECK(batch.pending() == 2);
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 0);  // not yet visible to others
  f.insert(batch, 3);
  CHECK(batch.pending() == 0);
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 3);
  f.insert(batch, 4);
  batch.flush("flush");
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 4);
}

// What a caller counts in memory for the batch (the store's edge weights):
// kept for the calls the batch keeps, written inside its transaction just
// before it commits, and dropped with a batch that is rolled back.
TEST_CASE("the hooks: a kept call, the commit, an abandoned batch", "[write_batch]") {
  Fixture f;
  f.db.exec("CREATE TABLE total (n INTEGER)");
  WriteBatch batch(f.db, f.path.str(), 100, [&] { ++f.rollbacks; });
  int in_call = 0, kept = 0, abandoned = 0;
  batch.set_hooks([&] { kept += in_call; in_call = 0; },
                  [&] {
                    f.db.exec("INSERT INTO total VALUES (" + std::to_string(kept) + ")");
                    kept = 0;
                  },
                  [&] {
                    kept = 0;
                    ++abandoned;
                  });
  const auto counted = [&](int v) {
    batch.write("insert", 1, [&] {
      f.db.exec("INSERT INTO t VALUES (" + std::to_string(v) + ")");
      ++in_call;
    });
  };
  counted(1);
  counted(2);
  // A call that fails after counting: undone, its count not kept.
  CHECK_THROWS_AS(batch.write("dup", 1,
                              [&] {
                                ++in_call;
                                f.db.exec("INSERT INTO t VALUES (1)");
                              }),
                  StoreError);
  in_call = 0;  // the caller clears what a failed call counted (on_rollback)
  CHECK(kept == 2);
  batch.flush("flush");
  CHECK(scalar(f.path.str(), "SELECT SUM(n) FROM total") == 2);  // committed with the batch
  CHECK(kept == 0);
  // A hook that throws before the commit abandons the batch: nothing of it
  // stays, and the caller hears of it.
  counted(3);
  batch.set_hooks([&] { kept += in_call; in_call = 0; }, [&] { throw SQLite::Exception("disk gone"); },
                  [&] {
                    kept = 0;
                    ++abandoned;
                  });
  CHECK_THROWS_AS(batch.flush("flush"), StoreError);
  CHECK(abandoned == 1);
  CHECK(kept == 0);
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t WHERE v = 3") == 0);
}

TEST_CASE("a failed call is undone alone, the rest of the batch commits", "[write_batch]") {
  Fixture f;
  WriteBatch batch(f.db, f.path.str(), 100, [&] { ++f.rollbacks; });
  f.insert(batch, 1);
  // Two statements in one call, the second violating UNIQUE: neither stays.
  CHECK_THROWS_AS(batch.write("pair", 1,
                              [&] {
                                f.db.exec("INSERT INTO t VALUES (2)");
                                f.db.exec("INSERT INTO t VALUES (1)");
                              }),
                  StoreError);
  CHECK(f.rollbacks == 1);
  f.insert(batch, 3);
  batch.flush("flush");
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 2);
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t WHERE v = 2") == 0);
}

TEST_CASE("a call that throws something else is undone too", "[write_batch]") {
  Fixture f;
  WriteBatch batch(f.db, f.path.str(), 100, nullptr);
  CHECK_THROWS_AS(batch.write("odd", 1,
                              [&] {
                                f.db.exec("INSERT INTO t VALUES (5)");
                                throw std::runtime_error("not SQLite's");
                              }),
                  std::runtime_error);
  batch.flush("flush");
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 0);
}

TEST_CASE("errors name the operation and the database", "[write_batch]") {
  Fixture f;
  WriteBatch batch(f.db, f.path.str(), 100, nullptr);
  try {
    batch.write("record_thing", 1, [&] { f.db.exec("INSERT INTO missing VALUES (1)"); });
    FAIL("no error");
  } catch (const StoreError& e) {
    const std::string what = e.what();
    CHECK(what.find("record_thing failed on database '" + f.path.str() + "'") == 0);
    CHECK(what.find("no such table") != std::string::npos);
  }
}

TEST_CASE("reads commit the open batch first", "[write_batch]") {
  Fixture f;
  WriteBatch batch(f.db, f.path.str(), 100, nullptr);
  f.insert(batch, 1);
  const auto n = batch.read("count", [&] { return f.db.execAndGet("SELECT COUNT(*) FROM t").getInt64(); });
  CHECK(n == 1);
  CHECK(scalar(f.path.str(), "SELECT COUNT(*) FROM t") == 1);
}

TEST_CASE("the schema file creates every table, and opening twice changes nothing", "[crawl_schema]") {
  TempDbPath path;
  { auto db = open_crawl_database(path.str()); }
  { auto db = open_crawl_database(path.str()); }
  for (const char* table : {"nodes", "edges", "pages", "page_links", "frontier", "dead_letters", "robots_txt", "crawl_runs"})
    CHECK(scalar(path.str(), std::string("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '") +
                               table + "'") == 1);
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_master WHERE type = 'view' AND name = 'links'") == 1);
  CHECK(crawl_schema_sql().find("CREATE TABLE IF NOT EXISTS frontier") != std::string_view::npos);
}

TEST_CASE("a database of a newer schema version is refused", "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA user_version = " + std::to_string(kCrawlSchemaVersion + 1));
  }
  CHECK_THROWS_WITH(open_crawl_database(path.str()), Catch::Contains("is newer than the supported version"));
}

TEST_CASE("a version 1 database is migrated: pages gains links_dropped", "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE pages (page_id INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, node_id INTEGER, depth INTEGER, "
            "status_code INTEGER, content_type TEXT, title TEXT, description TEXT, bytes INTEGER, fetch_ms INTEGER, "
            "fetched_at INTEGER, error TEXT, final_url TEXT, redirect_chain TEXT, truncated INTEGER, "
            "canonical_url TEXT, attempts INTEGER, robots_directives TEXT)");
    db.exec("INSERT INTO pages(url, status_code) VALUES ('http://old.test/', 200)");
    db.exec("PRAGMA user_version = 1");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pragma_table_info('pages') WHERE name = 'links_dropped'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages WHERE url = 'http://old.test/' AND links_dropped IS NULL") == 1);
}

TEST_CASE("a version 2 database is migrated: the frontier keeps its rows and takes parked ones", "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE frontier (seq INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, depth INTEGER NOT NULL, "
            "parent_url TEXT, state INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2, 3)), discovered_at INTEGER, "
            "settled_at INTEGER, refusal TEXT)");
    db.exec("CREATE INDEX idx_frontier_state ON frontier(state, seq)");
    db.exec("INSERT INTO frontier VALUES (1, 'http://a.test/', 0, NULL, 1, 10, 20, NULL), "
            "(2, 'http://a.test/x', 1, 'http://a.test/', 3, 11, 21, 'robots_txt')");
    db.exec("PRAGMA user_version = 2");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 2 AND state = 3 AND refusal = 'robots_txt' "
                           "AND parent_url = 'http://a.test/' AND settled_at = 21") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idx_frontier_state'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'frontier_v2'") == 0);
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE frontier SET state = 4 WHERE seq = 1");  // the old CHECK refused this
  }
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE seq = 1") == 4);
}

TEST_CASE("a version 3 database is migrated: links gain followed, 0 for what was stored", "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE links (from_page_id INTEGER NOT NULL, to_url TEXT NOT NULL, nofollow INTEGER NOT NULL "
            "DEFAULT 0, position INTEGER NOT NULL, PRIMARY KEY (from_page_id, to_url)) WITHOUT ROWID");
    db.exec("INSERT INTO links VALUES (1, 'http://a.test/x', 0, 0)");
    db.exec("PRAGMA user_version = 3");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM links WHERE to_url = 'http://a.test/x' AND followed = 0") == 1);
}

TEST_CASE("a version 9 database is migrated: each page's links become one row, read through the view links",
          "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE links (from_page_id INTEGER NOT NULL, to_url TEXT NOT NULL, nofollow INTEGER NOT NULL "
            "DEFAULT 0, position INTEGER NOT NULL, followed INTEGER NOT NULL DEFAULT 0, "
            "PRIMARY KEY (from_page_id, to_url)) WITHOUT ROWID");
    db.exec("CREATE INDEX idx_links_to ON links(to_url)");
    // Stored out of position order, with a gap (a duplicate once dropped)
    // and a target that needs JSON escaping.
    db.exec("INSERT INTO links VALUES (7, 'http://a.test/z', 0, 3, 1), (7, 'http://a.test/a', 1, 0, 0), "
            "(7, 'http://a.test/\"q\"', 0, 1, 1), (9, 'http://b.test/', 1, 0, 1)");
    db.exec("PRAGMA user_version = 9");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM page_links") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('links_v9', 'idx_links_to')") == 0);
  SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT from_page_id || ' ' || to_url || ' ' || nofollow || position || followed "
                          "FROM links ORDER BY from_page_id, position");
  std::vector<std::string> rows;
  while (q.executeStep())
    rows.push_back(q.getColumn(0).getString());
  CHECK(rows == std::vector<std::string>{"7 http://a.test/a 100", "7 http://a.test/\"q\" 011", "7 http://a.test/z 021",
                                         "9 http://b.test/ 101"});
}

TEST_CASE("a version 5 database is migrated: pages gain validators and digest, runs their change counts",
          "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE pages (page_id INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, node_id INTEGER, depth INTEGER, "
            "status_code INTEGER, content_type TEXT, title TEXT, description TEXT, bytes INTEGER, fetch_ms INTEGER, "
            "fetched_at INTEGER, error TEXT, final_url TEXT, redirect_chain TEXT, truncated INTEGER, "
            "canonical_url TEXT, attempts INTEGER, robots_directives TEXT, links_dropped INTEGER)");
    db.exec("CREATE TABLE crawl_runs (run_id INTEGER PRIMARY KEY, started_at INTEGER, ended_at INTEGER, "
            "termination_reason TEXT, seeds TEXT)");
    db.exec("INSERT INTO pages(url, status_code) VALUES ('http://old.test/', 200)");
    db.exec("INSERT INTO crawl_runs(started_at) VALUES (10)");
    db.exec("PRAGMA user_version = 5");
  }
  { auto db = open_crawl_database(path.str()); }
  { auto db = open_crawl_database(path.str()); }  // idempotent
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  for (const char* column : {"etag", "last_modified", "content_digest", "revisit_interval_ms"})
    CHECK(scalar(path.str(), std::string{"SELECT COUNT(*) FROM pragma_table_info('pages') WHERE name = '"} + column +
                               "'") == 1);
  for (const char* column : {"pages_new", "pages_changed", "pages_unchanged", "pages_gone"})
    CHECK(scalar(path.str(), std::string{"SELECT COUNT(*) FROM pragma_table_info('crawl_runs') WHERE name = '"} +
                               column + "'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages WHERE url = 'http://old.test/' AND etag IS NULL "
                           "AND content_digest IS NULL") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM crawl_runs WHERE pages_new IS NULL") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'page_changes'") == 1);
}

TEST_CASE("a half-migrated version 5 database (a column added by hand) still opens", "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE pages (page_id INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, links_dropped INTEGER, "
            "etag TEXT)");
    db.exec("PRAGMA user_version = 5");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pragma_table_info('pages') WHERE name = 'content_digest'") == 1);
}

TEST_CASE("a version 5 database is migrated: frontier gains lastmod (NULL), sitemaps is created, twice is once",
          "[crawl_schema]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE frontier (seq INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, depth INTEGER NOT NULL, "
            "parent_url TEXT, state INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2, 3, 4)), discovered_at "
            "INTEGER, settled_at INTEGER, refusal TEXT)");
    db.exec("INSERT INTO frontier(seq, url, depth) VALUES (1, 'http://a.test/', 0)");
    db.exec("PRAGMA user_version = 5");
  }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 1 AND lastmod IS NULL") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sitemaps") == 0);
  // The step looks for the column, not at the version: a file stamped 5
  // that has it already (a merge of another version 6 change) opens too.
  { SQLite::Database(path.str(), SQLite::OPEN_READWRITE).exec("PRAGMA user_version = 5"); }
  { auto db = open_crawl_database(path.str()); }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pragma_table_info('frontier') WHERE name = 'lastmod'") == 1);
}

}  // namespace actorcrawl
