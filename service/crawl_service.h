// The crawl service behind `actorcrawl serve`: jobs submitted over HTTP,
// each its own topology of actors (its own Frontier, HostSelector, ...,
// Storage and database file) on one shared actor system, so jobs run side
// by side and never see each other's frontier. The job table (service.db)
// is the source of truth: it survives a restart, and jobs that were queued
// or running when the service stopped are resumed from their databases,
// unless their cancel had been asked for: those end cancelled.
//
// Thread-safe: HTTP handler threads call it; each job runs on a thread of
// its own that drives the crawl (run_crawl_on).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/crawl_config.h"
#include "core/crawl/crawl_events.h"
#include "service/job_log.h"
#include "service/job_request.h"
#include "core/store/crawl_store.h"
#include "core/store/job_store.h"

namespace actorcrawl {

struct ServiceSettings {
  CrawlConfig base;          // every job starts from this (seeds and db_path are the job's)
  std::string data_dir;      // service.db, and jobs/<id>.db
  std::size_t max_concurrent_jobs = 4;
  bool allow_private_networks = false;  // else jobs may not fetch private addresses
  JobLimits limits;
};

class CrawlService {
 public:
  // Opens (or creates) the data directory and service.db, and resumes the
  // jobs a previous run left unfinished. Throws StoreError.
  explicit CrawlService(ServiceSettings settings);
  // Stops every running job (they keep what they have) and waits for them.
  ~CrawlService();
  CrawlService(const CrawlService&) = delete;
  CrawlService& operator=(const CrawlService&) = delete;

  // Starts a job. Throws ApiError(429, "too_many_jobs") at the limit.
  JobRow submit(const JobRequest& request);
  std::optional<JobRow> job(const std::string& id);
  // Newest first: `limit` jobs after the `offset` newest.
  std::vector<JobRow> jobs(std::size_t offset, std::size_t limit);
  std::int64_t job_count();
  // Cancels a queued or running job: the cancel is written to the job table
  // at once (so no restart resumes the job), then in-flight transfers end;
  // what was crawled stays. False for an unknown id. Throws StoreError when
  // the cancel cannot be written (then nothing was stopped).
  bool cancel(const std::string& id);
  // Live counters of a running job.
  std::optional<JobLive> live(const std::string& id);

  // Re-drives the dead letters of a job that is not running, in its own
  // database (CrawlStore::redrive_dead_letters: one transaction), and starts
  // the job again when that queued any URL, so they are fetched. Throws
  // ApiError: 404 unknown_job, 409 job_running, 429 too_many_jobs.
  struct Redrive {
    RedriveReport report;
    bool restarted = false;
  };
  Redrive redrive(const std::string& id, const RedriveFilter& filter);

  // Events after `after_seq`, waiting up to `wait` for one. `ended` is set
  // once the job is over and every event has been handed out.
  using EventBatch = JobEventBatch;
  EventBatch events(const std::string& id, std::uint64_t after_seq, std::chrono::milliseconds wait);

  std::string metrics_text();
  const ServiceSettings& settings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
