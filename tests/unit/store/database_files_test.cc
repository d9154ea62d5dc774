// The files of a crawl database that a command writing a file the user
// names must not write over (core/store/database_files.h).
#include "core/store/database_files.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/store/crawl_store.h"
#include "tests/unit/temp_path.h"

namespace fs = std::filesystem;
using namespace actorcrawl;

namespace {

// A directory for the database and the names that point at it.
struct ScratchDir {
  ScratchDir() { fs::create_directories(path.str()); }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path.str(), ignored);
  }
  std::string operator/(const std::string& name) const { return path.str() + "/" + name; }
  testing::TempPath path{"database_files", ""};
};

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("database files: the database, its WAL, shm, journal and lock file, however spelled", "[store]") {
  ScratchDir dir;
  const std::string db = dir / "crawl.db";
  CrawlStore store(db);  // open: its -wal, -shm and .lock exist
  REQUIRE(fs::exists(db + "-wal"));
  REQUIRE(fs::exists(db + ".lock"));

  CHECK(database_file_named(db, db) == "the crawl database '" + db + "'");
  CHECK(database_file_named(db, db + "-wal") == "the crawl database's write-ahead log '" + db + "-wal'");
  CHECK(database_file_named(db, db + "-shm") == "the crawl database's shared-memory index '" + db + "-shm'");
  CHECK(database_file_named(db, db + ".lock") == "the crawl database's lock file '" + db + ".lock'");
  // Not there yet, named by its name: SQLite would use what is written.
  REQUIRE_FALSE(fs::exists(db + "-journal"));
  CHECK(database_file_named(db, db + "-journal") == "the crawl database's rollback journal '" + db + "-journal'");

  // Other spellings of one file: a dot, a detour, a hard link, a symbolic
  // link, a link to a file not there yet.
  CHECK(starts_with(database_file_named(db, dir / "./crawl.db"), "the crawl database '"));
  CHECK(starts_with(database_file_named(db, dir / "../" + fs::path(dir.path.str()).filename().string() + "/crawl.db-wal"),
                    "the crawl database's write-ahead log"));
  fs::create_hard_link(db, dir / "hard.csv");
  CHECK(starts_with(database_file_named(db, dir / "hard.csv"), "the crawl database '"));
  fs::create_symlink(db + "-wal", dir / "link.csv");
  CHECK(starts_with(database_file_named(db, dir / "link.csv"), "the crawl database's write-ahead log"));
  fs::create_symlink("crawl.db-journal", dir / "dangling.csv");
  CHECK(starts_with(database_file_named(db, dir / "dangling.csv"), "the crawl database's rollback journal"));
  // The database itself through a link: SQLite's files are beside the file
  // the link names.
  fs::create_symlink(db, dir / "alias.db");
  CHECK(starts_with(database_file_named(dir / "alias.db", db + "-wal"), "the crawl database's write-ahead log"));
  CHECK(starts_with(database_file_named(dir / "alias.db", db), "the crawl database"));

  // Anything else is not.
  std::ofstream(dir / "pages.csv") << "x";
  CHECK(database_file_named(db, dir / "pages.csv").empty());
  CHECK(database_file_named(db, dir / "new.csv").empty());
  CHECK(database_file_named(db, dir / "crawl.db-walrus").empty());
  CHECK(database_file_named(db, "/dev/null").empty());
  CHECK(database_file_named(":memory:", db).empty());
  CHECK(database_file_named(db, "").empty());
}
