#include "service/job_event_sink.h"

#include <nlohmann/json.hpp>

#include "core/clock/clock.h"
#include "core/web/json_text.h"

namespace actorcrawl {

using nlohmann::json;

void declare_service_metrics(PrometheusMetrics& metrics) {
  metrics.declare_counter("actorcrawl_pages_fetched_total", "Pages fetched and stored, by job");
  metrics.declare_counter("actorcrawl_pages_failed_total",
                          "fetches that failed after every retry, by reason (transient ones are parked and tried again)");
  metrics.declare_counter("actorcrawl_dead_letters_total", "URLs that failed for good, by reason (actorcrawl redrive)");
  metrics.declare_counter("actorcrawl_bytes_fetched_total", "Body bytes kept, over all jobs");
  metrics.declare_histogram("actorcrawl_fetch_duration_seconds", "Time to fetch a page (all attempts)",
                            {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
  metrics.declare_gauge("actorcrawl_frontier_queued", "URLs waiting in a running job's frontier");
  metrics.declare_gauge("actorcrawl_in_flight", "URLs handed out and not yet settled, by running job");
  metrics.declare_gauge("actorcrawl_mailbox_messages", "Messages waiting in an actor's mailbox, by job and actor");
  metrics.declare_gauge("actorcrawl_jobs", "Jobs by status");
}

std::string progress_event(const ProgressSnapshot& p, double pages_per_second, std::int64_t time_ms) {
  return json{{"status", "running"},
              {"pages_fetched", p.fetched},
              {"pages_failed", p.failed},
              {"queued", p.queued},
              {"in_flight", p.in_flight},
              {"pages_per_second", pages_per_second},
              {"time_ms", time_ms}}
    .dump();
}

JobEventSink::JobEventSink(PrometheusMetrics& metrics, std::string job_id, std::shared_ptr<JobLog> log,
                           std::int64_t (*now_ms)())
    : metrics_(metrics), job_id_(std::move(job_id)), log_(std::move(log)), now_ms_(now_ms ? now_ms : epoch_ms) {
  recent_.emplace_back(std::chrono::steady_clock::now(), 0);
}

void JobEventSink::started(const std::vector<std::pair<std::string, std::uint64_t>>& actors) {
  log_->set_actors(actors);
}

void JobEventSink::page_stored(const PageRow& page) {
  if (page.error.empty()) {
    metrics_.add("actorcrawl_pages_fetched_total", {{"job", job_id_}});
    metrics_.add("actorcrawl_bytes_fetched_total", {}, static_cast<double>(page.bytes));
    metrics_.observe("actorcrawl_fetch_duration_seconds", {}, static_cast<double>(page.fetch_ms) / 1000.0);
  } else {
    metrics_.add("actorcrawl_pages_failed_total", {{"reason", page.error}});
  }
  // Crawled text may hold invalid UTF-8; the event must still be JSON.
  log_->push("page", json_text(json{{"url", page.url},
                                    {"status_code", page.status_code},
                                    {"title", page.title},
                                    {"crawled_at", page.fetched_at_ms},
                                    {"error", page.error}}));
}

void JobEventSink::url_failed(const DeadLetterRow& row) {
  metrics_.add("actorcrawl_dead_letters_total", {{"reason", row.reason}});
}

void JobEventSink::progress(const ProgressSnapshot& p) {
  const auto now = std::chrono::steady_clock::now();
  while (recent_.size() > 1 && now - recent_[1].first >= kRateWindow)
    recent_.pop_front();
  double rate = 0;
  const double secs = std::chrono::duration<double>(now - recent_.front().first).count();
  if (secs > 0)
    rate = static_cast<double>(p.fetched - recent_.front().second) / secs;
  recent_.emplace_back(now, p.fetched);
  log_->set_live(JobLive{p, rate});
  log_->push("progress", progress_event(p, rate, now_ms_()));
}

}  // namespace actorcrawl
