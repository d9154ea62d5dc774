// What a running job tells the service (CrawlEvents), turned into the
// Prometheus metrics of GET /metrics and the job's event log (its SSE
// stream and live counters). One sink per job; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/crawl_events.h"
#include "service/job_log.h"
#include "service/prometheus_metrics.h"

namespace actorcrawl {

// Declares every metric the service exports (the sinks' counters and
// histogram, and the gauges filled when metrics are read).
void declare_service_metrics(PrometheusMetrics& metrics);

class JobEventSink : public CrawlEvents {
 public:
  // `now_ms` stamps progress events (Unix epoch milliseconds); tests pass
  // their own clock.
  JobEventSink(PrometheusMetrics& metrics, std::string job_id, std::shared_ptr<JobLog> log,
               std::int64_t (*now_ms)() = nullptr);

  void started(const std::vector<std::pair<std::string, std::uint64_t>>& actors) override;
  void page_stored(const PageRow& page) override;
  void url_failed(const DeadLetterRow& row) override;
  void progress(const ProgressSnapshot& p) override;

 private:
  PrometheusMetrics& metrics_;
  std::string job_id_;
  std::shared_ptr<JobLog> log_;
  std::int64_t (*now_ms_)();
  // Pages/s over the last few seconds: per snapshot it would jump between 0
  // and bursts, since pages settle in batches.
  static constexpr std::chrono::seconds kRateWindow{3};
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::int64_t>> recent_;  // (when, pages fetched)
};

// The "progress" event's data.
std::string progress_event(const ProgressSnapshot& p, double pages_per_second, std::int64_t time_ms);

}  // namespace actorcrawl
