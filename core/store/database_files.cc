#include "core/store/database_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <vector>

#include "core/store/database_lock.h"

namespace actorcrawl {

namespace {

namespace fs = std::filesystem;

// `path` absolute, with its links resolved, the part that does not exist
// as written; "" when that fails. A link to a file that does not exist yet
// is followed too: opening it to write creates that file.
// (weakly_canonical alone neither follows such a link nor makes a relative
// path that does not exist absolute.)
std::string resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec)
    return {};
  // 40: the kernel's own limit on links followed in one lookup.
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)) && !fs::exists(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec)
      return {};
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path out = fs::weakly_canonical(p, ec);
  return ec ? std::string{} : out.string();
}

struct DatabaseFile {
  std::string path;
  const char* what;
};

// Every file of the database, under each spelling of its path that SQLite
// or the lock may use: as given (the lock file, and SQLite's files when the
// path is no link) and resolved (SQLite puts its files beside the file a
// link points to).
std::vector<DatabaseFile> files_of(const std::string& db_path) {
  std::vector<std::string> spellings{db_path};
  if (const std::string real = resolved(db_path); !real.empty() && real != db_path)
    spellings.push_back(real);
  std::vector<DatabaseFile> out;
  for (const auto& db : spellings) {
    out.push_back({db, "the crawl database"});
    out.push_back({db + "-wal", "the crawl database's write-ahead log"});
    out.push_back({db + "-shm", "the crawl database's shared-memory index"});
    out.push_back({db + "-journal", "the crawl database's rollback journal"});
    out.push_back({DatabaseLock::lock_path_of(db), "the crawl database's lock file"});
  }
  return out;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

std::string database_file_named(const std::string& db_path, const std::string& path) {
  if (db_path.empty() || db_path == ":memory:" || path.empty())
    return {};
  struct stat target {};
  const bool exists = ::stat(path.c_str(), &target) == 0;
  const std::string named = exists ? std::string{} : resolved(path);
  for (const auto& file : files_of(db_path)) {
    struct stat st {};
    const bool same = exists ? ::stat(file.path.c_str(), &st) == 0 && same_file(st, target)
                             : !named.empty() && resolved(file.path) == named;
    if (same)
      return std::string{file.what} + " '" + file.path + "'";
  }
  return {};
}

}  // namespace actorcrawl
