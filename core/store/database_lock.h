// One writer per database. Two processes writing one crawl database would
// both number frontier rows from MAX(seq) + 1, collide on frontier.seq,
// fetch the same URLs twice and then abort; so whoever opens a database to
// write it (CrawlStore, JobStore) first takes an advisory lock on the file
// `<db>.lock` beside it, and a second writer is refused with DatabaseInUse
// naming the first, before it touches the database.
//
// Why a lock file taken with flock(2) rather than SQLite's own locks:
// - PRAGMA locking_mode = EXCLUSIVE would bind readers too: in WAL mode it
//   keeps the WAL index in the writer's memory instead of the -shm file, so
//   no other connection could read the database while a crawl runs (the
//   service's GET /crawl/:id, `sqlite3`, reports). This lock binds writers
//   only; readers never look at it.
// - SQLite's write lock (BEGIN IMMEDIATE) lasts one transaction, not one
//   run: a second writer gets in between two batches.
// - flock and not fcntl: a POSIX record lock belongs to the process, so a
//   second open in the same process would be granted, and closing any
//   descriptor of the file would drop it. A flock lock belongs to the open
//   file description: a second store in the same process is refused too,
//   and only this object's descriptor (close-on-exec, so no child process
//   inherits it) releases it.
// - The kernel releases the lock when its holder dies, however it dies
//   (kill -9 included). A lock file left behind is a file, not a lock: the
//   next writer takes it over, so a lock is never stale.
//
// The file holds the holder's pid, host name, start time and command, for
// the error message only; it is removed when the lock is released. Made for
// local file systems; over NFS, Linux turns flock into fcntl locks, which
// still keep two hosts apart but not two stores of one process.
#pragma once

#include <string>

namespace actorcrawl {

class DatabaseLock {
 public:
  // Takes the lock of the database at `db_path` and records this process
  // in `<db_path>.lock`. Throws DatabaseInUse when another writer holds it,
  // StoreError when the lock file cannot be made (the directory is missing
  // or not writable). ":memory:" and "" name no file and take no lock.
  explicit DatabaseLock(const std::string& db_path);
  // Removes the lock file, then releases the lock.
  ~DatabaseLock();
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;

  // "<db_path>.lock"
  static std::string lock_path_of(const std::string& db_path);

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace actorcrawl
