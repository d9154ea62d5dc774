// Test support for the store tests: a database path that cleans up after
// itself, and reads through a second connection (so they see only what the
// store has committed).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace actorcrawl::testing {

// A database path unique to this process and test, removed with its WAL
// and shared-memory files at scope exit.
class TempDbPath {
 public:
  TempDbPath() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = (std::filesystem::temp_directory_path() /
             ("actorcrawl_store_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
              std::to_string(stamp) + ".db"))
              .string();
  }
  ~TempDbPath() {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(path_ + suffix, ignored);
  }
  TempDbPath(const TempDbPath&) = delete;
  TempDbPath& operator=(const TempDbPath&) = delete;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// Reads through a separate connection, so it sees only committed data.
inline std::int64_t scalar(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

inline std::string text_or_null(const SQLite::Column& c) { return c.isNull() ? "<null>" : c.getString(); }

}  // namespace actorcrawl::testing
