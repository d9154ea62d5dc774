// Test support for the store tests: a database path that cleans up after
// itself, and reads through a second connection (so they see only what the
// store has committed).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <string>

#include "tests/unit/temp_path.h"

namespace actorcrawl::testing {

// A database path unique to this process and test, removed with its WAL
// and shared-memory files at scope exit.
class TempDbPath : public TempPath {
 public:
  TempDbPath() : TempPath("store_test", ".db") {}
};

// Reads through a separate connection, so it sees only committed data.
inline std::int64_t scalar(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

inline std::string text_or_null(const SQLite::Column& c) { return c.isNull() ? "<null>" : c.getString(); }

// The first column of the first row as text ("<null>" for NULL).
inline std::string text(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return text_or_null(db.execAndGet(sql));
}

}  // namespace actorcrawl::testing
