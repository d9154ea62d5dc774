#include "service/crawl_service.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <caf/all.hpp>

#include "runtime/cluster_link.h"
#include "runtime/crawl_run.h"
#include "instrument/mailbox_gauges.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/store/crawl_reader.h"
#include "core/store/crawl_store.h"
#include "core/setup/crawl_setup.h"
#include "service/api_error.h"
#include "service/job_event_sink.h"
#include "service/job_log.h"
#include "service/prometheus_metrics.h"

namespace actorcrawl {

namespace {

// Event logs of ended jobs kept for late readers; older ones are answered
// from the job table (a single "end" event).
constexpr std::size_t kEndedLogsKept = 16;

const char* const kStatuses[] = {"queued", "running", "completed", "cancelled", "failed"};

}  // namespace

struct CrawlService::Impl {
  ServiceSettings settings;
  std::string jobs_dir;
  JobStore store;
  PrometheusMetrics metrics;
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> sys;

  struct Running {
    std::string id;
    std::atomic<int> stop{0};
    // Set with `stop` by a cancel, so a shutdown that comes before the job
    // has wound down does not leave it to be resumed.
    std::atomic<bool> cancelled{false};
    std::shared_ptr<JobLog> log = std::make_shared<JobLog>();
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::atomic<bool> shutting_down{false};
  std::mutex mutex;  // jobs
  std::map<std::string, std::shared_ptr<Running>> running;
  std::map<std::string, std::shared_ptr<JobLog>> finished_logs;  // ended jobs' last events
  std::deque<std::string> finished_order;                          // oldest first

  explicit Impl(ServiceSettings s)
      : settings(std::move(s)), jobs_dir(settings.data_dir + "/jobs"), store(open_store(settings.data_dir)) {
    declare_service_metrics(metrics);
    std::filesystem::create_directories(jobs_dir);
    cfg = std::make_unique<caf::actor_system_config>();
    configure_node(*cfg, settings.base);
    sys = std::make_unique<caf::actor_system>(*cfg);
  }

  static std::string open_store(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw StoreError("cannot create the service directory '" + dir + "': " + ec.message());
    return dir + "/service.db";
  }

  CrawlConfig config_for(const JobRow& row, const JobRequest& request) const {
    CrawlConfig c = job_config(settings.base, request);
    c.db_path = row.db_path;
    c.metrics_path = jobs_dir + "/" + row.id + ".metrics.log";
    c.trace_path.clear();
    c.progress_interval_ms = 500;
    // A job is a stranger's: it reaches no private address, not even its
    // seeds', unless the service was started allowing them all.
    c.block_private_networks = !settings.allow_private_networks;
    c.allow_private_networks = settings.allow_private_networks;
    return c;
  }

  // Starts the job's thread. Caller holds `mutex`. `scope` is what
  // check_crawl() found when the job was submitted; a job resumed after a
  // restart is checked as it starts.
  void launch(const JobRow& row, const JobRequest& request, std::shared_ptr<const LinkScope> scope = nullptr) {
    auto job = std::make_shared<Running>();
    job->id = row.id;
    running[row.id] = job;
    CrawlConfig config = config_for(row, request);
    job->thread = std::thread([this, job, config, scope] { run(job, config, scope); });
  }

  void run(const std::shared_ptr<Running>& job, const CrawlConfig& config, std::shared_ptr<const LinkScope> scope) {
    JobStatus status = JobStatus::failed;
    std::string error;
    std::int64_t fetched = 0, failed = 0;
    try {
      if (!store.set_running(job->id, epoch_ms())) {
        // Cancelled while it was queued: it never starts.
        const auto counts = counts_of(job->id, config.db_path);
        finish(job, JobStatus::cancelled, "cancelled", counts.fetched, counts.failed);
        return;
      }
      job->log->push("progress", progress_event(ProgressSnapshot{}, 0, epoch_ms()));
      CrawlRunOptions options;
      options.stop_requests = &job->stop;
      options.show_progress = false;
      options.stop_reason = "cancelled";
      options.events = std::make_shared<JobEventSink>(metrics, job->id, job->log);
      options.checked_scope = std::move(scope);
      auto result = run_crawl_on(*sys, config, options);
      fetched = result.summary.pages_fetched;
      failed = result.summary.pages_failed;
      if (!result.error.empty()) {
        error = result.error;
      } else if (job->cancelled) {
        // Before the shutdown case: the table already says cancel.
        status = JobStatus::cancelled;
        error = "cancelled";
      } else if (job->stop.load() > 0 && shutting_down) {
        // Interrupted by the service's own shutdown: the row stays
        // "running", and the next start resumes the job.
        log_line(LogLevel::info, "job " + job->id + " interrupted by the shutdown; it resumes on the next start");
        job->log->end(JobStatus::running);
        job->done = true;
        return;
      } else if (job->stop.load() > 0) {
        status = JobStatus::cancelled;
        error = "cancelled";
      } else {
        status = JobStatus::completed;
        error.clear();
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    finish(job, status, error, fetched, failed);
  }

  // The job's final status, in the table and its event log.
  void finish(const std::shared_ptr<Running>& job, JobStatus status, const std::string& error, std::int64_t fetched,
              std::int64_t failed) {
    try {
      store.set_finished(job->id, status, epoch_ms(), error, fetched, failed);
    } catch (const std::exception& e) {
      log_line(LogLevel::error, std::string{"job "} + job->id + ": " + e.what());
    }
    if (status == JobStatus::failed)
      log_line(LogLevel::warn, "job " + job->id + " failed: " + error);
    // Its series end with it (docs/service.md, Metrics); its totals stay
    // in the job table.
    metrics.drop_series_labelled("job", job->id);
    job->log->end(status);
    job->done = true;
  }

  // What a job's database holds, for a job that ends with no crawl to
  // report it; a database that cannot be read counts nothing.
  static PageCounts counts_of(const std::string& id, const std::string& db_path) {
    try {
      return count_pages(db_path);
    } catch (const StoreError& e) {
      log_line(LogLevel::warn, "job " + id + ": " + e.what());
      return {};
    }
  }

  // A job asked to cancel that has no crawl to wind down: cancelled now.
  void finish_cancelled(const JobRow& row) {
    const auto counts = counts_of(row.id, row.db_path);
    store.set_finished(row.id, JobStatus::cancelled, epoch_ms(), "cancelled", counts.fetched, counts.failed);
  }

  // Joins jobs that ended; keeps their logs for late SSE readers. Caller
  // holds `mutex`.
  void reap() {
    for (auto it = running.begin(); it != running.end();)
      it = it->second->done ? retire(it) : std::next(it);
  }

  // Joins a job's thread, which has ended or is about to (it has written
  // its final status), and keeps its log. Caller holds `mutex`.
  std::map<std::string, std::shared_ptr<Running>>::iterator retire(
    std::map<std::string, std::shared_ptr<Running>>::iterator it) {
    if (it->second->thread.joinable())
      it->second->thread.join();
    finished_logs[it->first] = it->second->log;
    finished_order.push_back(it->first);
    if (finished_order.size() > kEndedLogsKept) {
      finished_logs.erase(finished_order.front());
      finished_order.pop_front();
    }
    return running.erase(it);
  }

  std::shared_ptr<JobLog> log_of(const std::string& id) {
    std::lock_guard<std::mutex> lock{mutex};
    if (auto it = running.find(id); it != running.end())
      return it->second->log;
    if (auto it = finished_logs.find(id); it != finished_logs.end())
      return it->second;
    return nullptr;
  }
};

CrawlService::CrawlService(ServiceSettings settings) : impl_(std::make_unique<Impl>(std::move(settings))) {
  std::lock_guard<std::mutex> lock{impl_->mutex};
  // Asked to cancel, but the service stopped before they had wound down:
  // the cancel stands, they are not resumed.
  for (const auto& row : impl_->store.unfinished_cancels()) {
    log_line(LogLevel::info, "job " + row.id + " was being cancelled when the service stopped: it is cancelled");
    impl_->finish_cancelled(row);
  }
  for (const auto& row : impl_->store.unfinished()) {
    try {
      const auto request = job_request_from_json(row.request_json);
      log_line(LogLevel::info, "resuming job " + row.id + " (" + to_string(row.status) +
                                 " when the service stopped) from " + row.db_path);
      impl_->launch(row, request);
    } catch (const std::exception& e) {
      impl_->store.set_finished(row.id, JobStatus::failed, epoch_ms(),
                                std::string{"could not be resumed after a restart: "} + e.what(), 0, 0);
    }
  }
}

CrawlService::~CrawlService() {
  std::vector<std::shared_ptr<Impl::Running>> jobs;
  {
    std::lock_guard<std::mutex> lock{impl_->mutex};
    for (auto& [id, job] : impl_->running)
      jobs.push_back(job);
  }
  // Stopped, not cancelled: a job interrupted by the service's own shutdown
  // is still "running" in the table, so the next start resumes it.
  impl_->shutting_down = true;
  for (auto& job : jobs)
    job->stop = 1;
  for (auto& job : jobs)
    if (job->thread.joinable())
      job->thread.join();
}

JobRow CrawlService::submit(const JobRequest& request) {
  // Checked by the function the crawl runs, once: a job accepted is a job
  // that can start, and its run takes the check's scope instead of checking
  // again. (Only the row's paths differ from the probe's, and check_crawl
  // asks no more of a path than that it is given; the outputs are checked
  // when the job starts.)
  std::shared_ptr<const LinkScope> scope;
  try {
    JobRow probe;
    probe.id = "check";
    probe.db_path = impl_->jobs_dir + "/check.db";
    scope = check_crawl(impl_->config_for(probe, request));
  } catch (const ConfigError& e) {
    throw ApiError(400, "invalid_job", e.what());
  }
  std::lock_guard<std::mutex> lock{impl_->mutex};
  impl_->reap();
  if (impl_->running.size() >= impl_->settings.max_concurrent_jobs)
    throw ApiError(429, "too_many_jobs",
                   std::to_string(impl_->running.size()) + " jobs are running, the most this service runs at once (" +
                     std::to_string(impl_->settings.max_concurrent_jobs) + "); try again when one has ended");
  auto row = impl_->store.create(request.url, request.max_pages, to_json(request), impl_->jobs_dir, epoch_ms());
  impl_->launch(row, request, std::move(scope));
  return row;
}

std::optional<JobRow> CrawlService::job(const std::string& id) { return impl_->store.get(id); }

std::vector<JobRow> CrawlService::jobs(std::size_t offset, std::size_t limit) {
  return impl_->store.list(limit, offset);
}

std::int64_t CrawlService::job_count() {
  std::int64_t total = 0;
  for (const auto& [status, n] : impl_->store.count_by_status())
    total += n;
  return total;
}

bool CrawlService::cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock{impl_->mutex};
  // Written before anything is stopped: from now on no restart, graceful
  // or after a crash, resumes the job.
  const bool requested = impl_->store.request_cancel(id, epoch_ms());
  auto it = impl_->running.find(id);
  if (it == impl_->running.end() || it->second->done) {
    // No thread of this process will end it (it is over, or was never
    // launched): a cancel that took ends it here.
    if (requested)
      if (auto row = impl_->store.get(id))
        impl_->finish_cancelled(*row);
    return impl_->store.get(id).has_value();
  }
  it->second->cancelled = true;
  it->second->stop = 1;
  return true;
}

CrawlService::Redrive CrawlService::redrive(const std::string& id, const RedriveFilter& filter) {
  std::lock_guard<std::mutex> lock{impl_->mutex};
  impl_->reap();
  const auto row = impl_->store.get(id);
  if (!row)
    throw ApiError(404, "job_not_found", "no job '" + id + "'");
  // The running crawl owns its database: its dead letters are re-driven
  // once it has ended. The job table decides, and the answer names the
  // status it decided by.
  if (!has_ended(row->status))
    throw ApiError(409, "job_running",
                   "job '" + id + "' is " + to_string(row->status) +
                     ": re-drive its dead letters once it has ended (or cancel it first)");
  // Ended in the table, while its thread may still be on its last steps
  // (it writes its status, then ends): it is over, and waited for.
  if (auto it = impl_->running.find(id); it != impl_->running.end())
    impl_->retire(it);
  // Checked before anything changes: letters taken must be fetched.
  if (impl_->running.size() >= impl_->settings.max_concurrent_jobs)
    throw ApiError(429, "too_many_jobs",
                   std::to_string(impl_->running.size()) + " jobs are running, the most this service runs at once; "
                   "try again when one has ended");
  Redrive out;
  {
    CrawlStore db(row->db_path);
    out.report = db.redrive_dead_letters(filter);
  }
  if (out.report.requeued > 0) {
    log_line(LogLevel::info, "job " + id + ": " + std::to_string(out.report.requeued) +
                               " dead letters queued again; the job runs again to fetch them");
    impl_->store.reopen(id);  // a job cancelled before runs again: asked for
    impl_->launch(*row, job_request_from_json(row->request_json));
    out.restarted = true;
  }
  return out;
}

std::optional<JobLive> CrawlService::live(const std::string& id) {
  std::lock_guard<std::mutex> lock{impl_->mutex};
  auto it = impl_->running.find(id);
  if (it == impl_->running.end() || it->second->done)
    return std::nullopt;  // over: the job table has the final counts
  return it->second->log->live();
}

CrawlService::EventBatch CrawlService::events(const std::string& id, std::uint64_t after_seq,
                                              std::chrono::milliseconds wait) {
  if (auto log = impl_->log_of(id))
    return log->since(after_seq, wait);
  return events_from_table(impl_->store.get(id), after_seq);
}

std::string CrawlService::metrics_text() {
  auto& m = impl_->metrics;
  m.clear("actorcrawl_frontier_queued");
  m.clear("actorcrawl_in_flight");
  m.clear("actorcrawl_mailbox_messages");
  m.clear("actorcrawl_jobs");
  std::map<std::string, int> by_status;
  for (const char* s : kStatuses)
    by_status[s] = 0;
  for (const auto& [status, n] : impl_->store.count_by_status())
    by_status[to_string(status)] += static_cast<int>(n);
  for (const auto& [status, n] : by_status)
    m.set("actorcrawl_jobs", {{"status", status}}, n);
  std::lock_guard<std::mutex> lock{impl_->mutex};
  for (auto& [id, job] : impl_->running) {
    if (job->done)
      continue;  // ended, not yet reaped: its series ended with it
    const auto live = job->log->live();
    m.set("actorcrawl_frontier_queued", {{"job", id}}, static_cast<double>(live.progress.queued));
    m.set("actorcrawl_in_flight", {{"job", id}}, static_cast<double>(live.progress.in_flight));
    for (const auto& [role, actor_id] : job->log->actors())
      if (auto n = mailbox_size(actor_id))
        m.set("actorcrawl_mailbox_messages", {{"job", id}, {"actor", role}}, static_cast<double>(*n));
  }
  return m.render();
}

const ServiceSettings& CrawlService::settings() const { return impl_->settings; }

}  // namespace actorcrawl
