#include "core/store/job_store.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <mutex>

#include "core/store/database_lock.h"
#include "core/store/sqlite_statements.h"
#include "core/store/store_error.h"

namespace actorcrawl {

const char* to_string(JobStatus s) {
  switch (s) {
    case JobStatus::queued: return "queued";
    case JobStatus::running: return "running";
    case JobStatus::completed: return "completed";
    case JobStatus::cancelled: return "cancelled";
    case JobStatus::failed: return "failed";
  }
  return "failed";
}

namespace {

JobStatus status_from(const std::string& s) {
  for (auto st : {JobStatus::queued, JobStatus::running, JobStatus::completed, JobStatus::cancelled})
    if (s == to_string(st))
      return st;
  return JobStatus::failed;
}

// PRAGMA user_version of service.db. A newer one is refused; an older one
// is migrated when opened:
//   0 -> 1  jobs.cancel_requested_at (a cancel is written when asked for)
constexpr int kJobSchemaVersion = 1;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY,
    id TEXT UNIQUE NOT NULL,
    status TEXT NOT NULL,
    seed_url TEXT NOT NULL,
    max_pages INTEGER NOT NULL,
    request TEXT NOT NULL,
    db_path TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    error TEXT,
    pages_fetched INTEGER NOT NULL DEFAULT 0,
    pages_failed INTEGER NOT NULL DEFAULT 0,
    cancel_requested_at INTEGER
);
)sql";

constexpr const char* kColumns =
  "id, status, seed_url, max_pages, request, db_path, created_at, started_at, ended_at, error, pages_fetched, "
  "pages_failed, cancel_requested_at";

JobRow row_of(SQLite::Statement& q) {
  JobRow r;
  r.id = q.getColumn(0).getString();
  r.status = status_from(q.getColumn(1).getString());
  r.seed_url = q.getColumn(2).getString();
  r.max_pages = q.getColumn(3).getInt64();
  r.request_json = q.getColumn(4).getString();
  r.db_path = q.getColumn(5).getString();
  r.created_at = q.getColumn(6).getInt64();
  if (!q.getColumn(7).isNull())
    r.started_at = q.getColumn(7).getInt64();
  if (!q.getColumn(8).isNull())
    r.ended_at = q.getColumn(8).getInt64();
  r.error = column_text(q.getColumn(9));
  r.pages_fetched = q.getColumn(10).getInt64();
  r.pages_failed = q.getColumn(11).getInt64();
  if (!q.getColumn(12).isNull())
    r.cancel_requested_at = q.getColumn(12).getInt64();
  return r;
}

}  // namespace

struct JobStore::Impl {
  std::string path;
  std::mutex mutex;  // HTTP handler threads and job threads share it
  // One service per service.db: a second `actorcrawl serve` on the same
  // directory would resume the same jobs. Taken before the file is opened.
  DatabaseLock lock;
  SQLite::Database db;

  explicit Impl(const std::string& p)
      : path(p), lock(p), db(p, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX) {
    db.setBusyTimeout(5000);
    const int version = db.execAndGet("PRAGMA user_version").getInt();
    if (version > kJobSchemaVersion)
      throw SQLite::Exception("schema version " + std::to_string(version) + " is newer than the supported version " +
                              std::to_string(kJobSchemaVersion));
    db.execAndGet("PRAGMA journal_mode = WAL");
    SQLite::Transaction schema(db);
    // A table from before a column was added gains it; CREATE TABLE IF NOT
    // EXISTS would leave it as it is.
    if (version < 1 && db.tableExists("jobs"))
      db.exec("ALTER TABLE jobs ADD COLUMN cancel_requested_at INTEGER");
    db.exec(kSchema);
    if (version != kJobSchemaVersion)
      db.exec("PRAGMA user_version = " + std::to_string(kJobSchemaVersion));
    schema.commit();
  }

  template <typename Body>
  auto guarded(const char* what, Body&& body) -> decltype(body()) {
    std::lock_guard<std::mutex> lock{mutex};
    try {
      return body();
    } catch (const SQLite::Exception& e) {
      throw StoreError(std::string{what} + " failed on database '" + path + "': " + e.what());
    }
  }
};

JobStore::JobStore(const std::string& path) {
  try {
    impl_ = std::make_unique<Impl>(path);
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + path + "': " + e.what());
  }
}

JobStore::~JobStore() = default;

JobRow JobStore::create(const std::string& seed_url, std::int64_t max_pages, const std::string& request_json,
                        const std::string& jobs_dir, std::int64_t now_ms) {
  return impl_->guarded("create job", [&] {
    SQLite::Transaction tx(impl_->db);
    const std::int64_t seq = impl_->db.execAndGet("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").getInt64();
    JobRow r;
    r.id = "crawl_" + std::to_string(seq);
    r.seed_url = seed_url;
    r.max_pages = max_pages;
    r.request_json = request_json;
    r.db_path = jobs_dir + "/" + r.id + ".db";
    r.created_at = now_ms;
    SQLite::Statement q(impl_->db,
                        "INSERT INTO jobs(seq, id, status, seed_url, max_pages, request, db_path, created_at) "
                        "VALUES(?, ?, 'queued', ?, ?, ?, ?, ?)");
    q.bind(1, seq);
    q.bind(2, r.id);
    q.bind(3, seed_url);
    q.bind(4, max_pages);
    q.bind(5, request_json);
    q.bind(6, r.db_path);
    q.bind(7, now_ms);
    q.exec();
    tx.commit();
    return r;
  });
}

bool JobStore::set_running(const std::string& id, std::int64_t now_ms) {
  return impl_->guarded("start job", [&] {
    SQLite::Statement q(impl_->db,
                        "UPDATE jobs SET status = 'running', started_at = COALESCE(started_at, ?), ended_at = NULL, "
                        "error = NULL WHERE id = ? AND cancel_requested_at IS NULL");
    q.bind(1, now_ms);
    q.bind(2, id);
    return q.exec() > 0;
  });
}

bool JobStore::request_cancel(const std::string& id, std::int64_t now_ms) {
  return impl_->guarded("cancel job", [&] {
    SQLite::Statement q(impl_->db,
                        "UPDATE jobs SET cancel_requested_at = COALESCE(cancel_requested_at, ?) "
                        "WHERE id = ? AND status IN ('queued', 'running')");
    q.bind(1, now_ms);
    q.bind(2, id);
    return q.exec() > 0;
  });
}

bool JobStore::reopen(const std::string& id) {
  return impl_->guarded("reopen job", [&] {
    SQLite::Statement q(impl_->db,
                        "UPDATE jobs SET status = 'queued', cancel_requested_at = NULL, ended_at = NULL, "
                        "error = NULL WHERE id = ? AND status NOT IN ('queued', 'running')");
    q.bind(1, id);
    return q.exec() > 0;
  });
}

void JobStore::set_finished(const std::string& id, JobStatus status, std::int64_t now_ms, const std::string& error,
                            std::int64_t pages_fetched, std::int64_t pages_failed) {
  impl_->guarded("finish job", [&] {
    SQLite::Statement q(impl_->db,
                        "UPDATE jobs SET status = ?, ended_at = ?, error = ?, pages_fetched = ?, pages_failed = ? "
                        "WHERE id = ?");
    q.bind(1, to_string(status));
    q.bind(2, now_ms);
    bind_text(q, 3, error);
    q.bind(4, pages_fetched);
    q.bind(5, pages_failed);
    q.bind(6, id);
    q.exec();
  });
}

std::optional<JobRow> JobStore::get(const std::string& id) {
  return impl_->guarded("read job", [&]() -> std::optional<JobRow> {
    SQLite::Statement q(impl_->db, std::string{"SELECT "} + kColumns + " FROM jobs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep())
      return std::nullopt;
    return row_of(q);
  });
}

std::vector<JobRow> JobStore::list(std::size_t limit, std::size_t offset) {
  return impl_->guarded("list jobs", [&] {
    SQLite::Statement q(impl_->db, std::string{"SELECT "} + kColumns + " FROM jobs ORDER BY seq DESC LIMIT ? OFFSET ?");
    q.bind(1, static_cast<std::int64_t>(limit));
    q.bind(2, static_cast<std::int64_t>(offset));
    std::vector<JobRow> out;
    while (q.executeStep())
      out.push_back(row_of(q));
    return out;
  });
}

std::vector<std::pair<JobStatus, std::int64_t>> JobStore::count_by_status() {
  return impl_->guarded("count jobs", [&] {
    SQLite::Statement q(impl_->db, "SELECT status, COUNT(*) FROM jobs GROUP BY status");
    std::vector<std::pair<JobStatus, std::int64_t>> out;
    while (q.executeStep())
      out.emplace_back(status_from(q.getColumn(0).getString()), q.getColumn(1).getInt64());
    return out;
  });
}

std::vector<JobRow> JobStore::unfinished() {
  return impl_->guarded("list unfinished jobs", [&] {
    SQLite::Statement q(impl_->db, std::string{"SELECT "} + kColumns +
                                     " FROM jobs WHERE status IN ('queued', 'running') AND cancel_requested_at IS NULL "
                                     "ORDER BY seq");
    std::vector<JobRow> out;
    while (q.executeStep())
      out.push_back(row_of(q));
    return out;
  });
}

std::vector<JobRow> JobStore::unfinished_cancels() {
  return impl_->guarded("list unfinished cancels", [&] {
    SQLite::Statement q(impl_->db, std::string{"SELECT "} + kColumns +
                                     " FROM jobs WHERE status IN ('queued', 'running') AND cancel_requested_at IS NOT "
                                     "NULL ORDER BY seq");
    std::vector<JobRow> out;
    while (q.executeStep())
      out.push_back(row_of(q));
    return out;
  });
}

}  // namespace actorcrawl
