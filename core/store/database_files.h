// The files a crawl database is made of: the database itself, SQLite's
// write-ahead log, shared-memory index and rollback journal beside it
// (`-wal`, `-shm`, `-journal`), and the writers' lock file
// (database_lock.h). A command that writes a file the user names (an
// export's --output, the crawl's trace and metrics files) asks first
// whether that file is one of them: writing over any of them would lose the
// crawl, or corrupt one still running.
#pragma once

#include <string>

namespace actorcrawl {

// Which of the database `db_path`'s files `path` is, as a phrase for an
// error message ("the crawl database 'crawl.db'", "the crawl database's
// write-ahead log 'crawl.db-wal'"), or "" when it is none of them.
//
// The same file however it is spelled: where `path` exists, by device and
// inode with links followed (a symbolic link, a hard link, `./crawl.db`);
// where it does not yet (a WAL SQLite would create later), by its resolved
// name. ":memory:" and "" name no file.
std::string database_file_named(const std::string& db_path, const std::string& path);

}  // namespace actorcrawl
