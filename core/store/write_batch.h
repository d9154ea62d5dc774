// Batched writes on one SQLite connection. Committing a transaction costs a
// WAL append and a sync; a crawl writes a few rows per page, so writes are
// grouped: the first write opens a transaction, and it commits when
// `batch_ops` writes have accumulated, on flush(), or before any read.
//
// Each write call is atomic on its own: it runs in a savepoint, so a call
// that fails is undone without losing the rest of the batch (unless SQLite
// itself dropped the transaction, as it may on disk-full, I/O, busy or
// out-of-memory errors; then the whole batch is gone and on_rollback says
// so). A call is never split across two transactions.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <string>

#include "core/store/store_error.h"

namespace actorcrawl {

class WriteBatch {
 public:
  // `path` names the database in errors. `on_rollback` runs whenever writes
  // are undone, so caches of ids handed out by them can be dropped.
  WriteBatch(SQLite::Database& db, std::string path, std::size_t batch_ops, std::function<void()> on_rollback);

  // Runs one write call inside the batch, counting `ops` toward its size;
  // the commit check comes after the whole call. Throws StoreError naming
  // `operation`.
  template <typename Body>
  void write(const char* operation, std::size_t ops, Body&& body);

  // Commits first: reads see the connection's own writes anyway, but the
  // commit publishes them to other readers and keeps the write lock short.
  template <typename Body>
  auto read(const char* operation, Body&& body) -> decltype(body());

  // Commits the open batch, if any. Throws StoreError naming `operation`.
  void flush(const char* operation);
  // Commits the open batch; throws SQLite::Exception.
  void commit();

  // Hooks for what a caller holds in memory for the batch: `call_done`
  // after a write call whose changes the batch keeps, `before_commit` inside
  // the batch's transaction just before it commits (what it writes commits
  // with the batch; an exception abandons the batch), `abandoned` when the
  // whole batch is rolled back. A failed call that the batch survives is
  // on_rollback's alone.
  void set_hooks(std::function<void()> call_done, std::function<void()> before_commit,
                 std::function<void()> abandoned);

  std::size_t pending() const { return pending_; }
  StoreError failure(const char* operation, const std::exception& e) const;

 private:
  void open();
  void abandon() noexcept;
  void undo_call(int error_code) noexcept;
  void begin_call();
  void end_call(std::size_t ops);

  SQLite::Database& db_;
  std::string path_;
  std::size_t batch_ops_;
  std::function<void()> on_rollback_;
  std::function<void()> call_done_;
  std::function<void()> before_commit_;
  std::function<void()> abandoned_;
  bool in_batch_ = false;
  std::size_t pending_ = 0;
  SQLite::Statement begin_;
  SQLite::Statement commit_;
  SQLite::Statement savepoint_;
  SQLite::Statement release_;
};

template <typename Body>
void WriteBatch::write(const char* operation, std::size_t ops, Body&& body) {
  try {
    begin_call();
    try {
      body();
    } catch (const SQLite::Exception& e) {
      undo_call(e.getErrorCode());
      throw;
    } catch (...) {
      undo_call(SQLITE_ERROR);
      throw;
    }
    end_call(ops);
  } catch (const SQLite::Exception& e) {
    throw failure(operation, e);
  }
}

template <typename Body>
auto WriteBatch::read(const char* operation, Body&& body) -> decltype(body()) {
  try {
    commit();
    return body();
  } catch (const SQLite::Exception& e) {
    throw failure(operation, e);
  }
}

}  // namespace actorcrawl
