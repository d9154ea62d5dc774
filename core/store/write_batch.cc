#include "core/store/write_batch.h"

#include <sqlite3.h>

#include <algorithm>
#include <utility>

#include "core/store/sqlite_statements.h"

namespace actorcrawl {

WriteBatch::WriteBatch(SQLite::Database& db, std::string path, std::size_t batch_ops,
                       std::function<void()> on_rollback)
    : db_(db),
      path_(std::move(path)),
      batch_ops_(std::max<std::size_t>(batch_ops, 1)),
      on_rollback_(std::move(on_rollback)),
      // IMMEDIATE takes the write lock at once, so a busy database is waited
      // for (busy_timeout) instead of failing at the first write of a batch.
      begin_(db, "BEGIN IMMEDIATE"),
      commit_(db, "COMMIT"),
      savepoint_(db, "SAVEPOINT store_call"),
      release_(db, "RELEASE store_call") {}

void WriteBatch::set_hooks(std::function<void()> call_done, std::function<void()> before_commit,
                           std::function<void()> abandoned) {
  call_done_ = std::move(call_done);
  before_commit_ = std::move(before_commit);
  abandoned_ = std::move(abandoned);
}

StoreError WriteBatch::failure(const char* operation, const std::exception& e) const {
  return StoreError(std::string(operation) + " failed on database '" + path_ + "': " + e.what());
}

void WriteBatch::open() {
  if (in_batch_)
    return;
  run(begin_);
  in_batch_ = true;
}

void WriteBatch::commit() {
  if (!in_batch_)
    return;
  try {
    if (before_commit_)
      before_commit_();
    run(commit_);
  } catch (...) {
    abandon();
    throw;
  }
  in_batch_ = false;
  pending_ = 0;
}

void WriteBatch::flush(const char* operation) {
  try {
    commit();
  } catch (const SQLite::Exception& e) {
    throw failure(operation, e);
  }
}

void WriteBatch::abandon() noexcept {
  db_.tryExec("ROLLBACK");
  in_batch_ = false;
  pending_ = 0;
  if (on_rollback_)
    on_rollback_();
  if (abandoned_)
    abandoned_();
}

// Undoes one failed call and keeps the rest of the batch, unless SQLite may
// already have dropped the transaction: after disk-full, I/O, busy or
// out-of-memory errors its advice is to roll back, and the batch is lost.
void WriteBatch::undo_call(int error_code) noexcept {
  if (on_rollback_)
    on_rollback_();
  const int primary = error_code & 0xff;
  const bool batch_lost =
    primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_BUSY || primary == SQLITE_NOMEM;
  const bool in_transaction = sqlite3_get_autocommit(db_.getHandle()) == 0;
  if (!batch_lost && in_transaction && db_.tryExec("ROLLBACK TO store_call") == SQLITE_OK &&
      db_.tryExec("RELEASE store_call") == SQLITE_OK)
    return;
  abandon();
}

void WriteBatch::begin_call() {
  open();
  run(savepoint_);
}

void WriteBatch::end_call(std::size_t ops) {
  run(release_);
  if (call_done_)
    call_done_();
  pending_ += ops;
  if (pending_ >= batch_ops_)
    commit();
}

}  // namespace actorcrawl
