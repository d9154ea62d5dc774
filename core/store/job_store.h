// The crawl service's job table: one SQLite file (service.db) listing every
// job ever submitted, its request, status and times. Each job's pages live
// in a database of its own (the path is in the row), so jobs never share a
// frontier; this table is what survives a restart of the service and what
// GET /crawl lists.
//
// A cancel is written here the moment it is asked for
// (cancel_requested_at), not when the job's crawl has wound down: a job
// whose cancel was requested is never resumed by a restart, whether the
// service stopped gracefully or died meanwhile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace actorcrawl {

enum class JobStatus { queued, running, completed, cancelled, failed };
const char* to_string(JobStatus s);
// Completed, cancelled or failed: the job has ended, and its row's counts
// are final.
inline bool has_ended(JobStatus s) { return s != JobStatus::queued && s != JobStatus::running; }

struct JobRow {
  std::string id;  // "crawl_<n>"
  JobStatus status = JobStatus::queued;
  std::string seed_url;
  std::int64_t max_pages = 0;
  std::string request_json;  // the validated request (service/job_request.h)
  std::string db_path;       // the job's own crawl database
  std::int64_t created_at = 0;  // epoch ms
  std::optional<std::int64_t> started_at;
  std::optional<std::int64_t> ended_at;
  std::string error;  // why it failed, or the termination reason
  std::int64_t pages_fetched = 0;
  std::int64_t pages_failed = 0;
  // When a cancel was asked for (epoch ms); the status says whether the
  // job has ended since.
  std::optional<std::int64_t> cancel_requested_at;
};

class JobStore {
 public:
  // Takes the database's lock (database_lock.h), then opens or creates
  // `path`. Throws DatabaseInUse when another service holds it, StoreError
  // otherwise.
  explicit JobStore(const std::string& path);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Inserts a queued job with the next id; `db_path_for(id)` names its
  // database. Returns the row.
  JobRow create(const std::string& seed_url, std::int64_t max_pages, const std::string& request_json,
                const std::string& jobs_dir, std::int64_t now_ms);
  // Marks the job running, unless its cancel was requested first (a queued
  // job cancelled before its thread came to it): then nothing changes and
  // it returns false, and the job must not start.
  bool set_running(const std::string& id, std::int64_t now_ms);
  // Records at once that the job is to be cancelled. True when the job is
  // queued or running (a second request keeps the first time); false for an
  // unknown or finished job, which is left as it is.
  bool request_cancel(const std::string& id, std::int64_t now_ms);
  // A job that has ended queued again (a re-drive asked for that): its
  // status is 'queued' from here on, so whoever reads the job next sees it
  // will run (and a second re-drive is refused as running), and an earlier
  // cancel is taken back. False for an unknown job or one still queued or
  // running, which keeps its cancel.
  bool reopen(const std::string& id);
  // A final status, with the counts the crawl ended with.
  void set_finished(const std::string& id, JobStatus status, std::int64_t now_ms, const std::string& error,
                    std::int64_t pages_fetched, std::int64_t pages_failed);
  std::optional<JobRow> get(const std::string& id);
  // Newest first, at most `limit`, after skipping the `offset` newest.
  std::vector<JobRow> list(std::size_t limit = 1000, std::size_t offset = 0);
  // Jobs that were queued or running, and not asked to cancel: what a
  // restart takes up again.
  std::vector<JobRow> unfinished();
  // Jobs asked to cancel that never ended (the service stopped first): what
  // a restart finishes as cancelled instead of resuming.
  std::vector<JobRow> unfinished_cancels();
  // How many jobs have each status (statuses with none are left out).
  std::vector<std::pair<JobStatus, std::int64_t>> count_by_status();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
