// metrics.log, written when a crawl ends: one JSON
// object with the run's times, graph and page counts, average fetch time and
// why it ended.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "core/crawl/records.h"
#include "core/report/stage_times.h"

namespace actorcrawl {

struct RunMetrics {
  std::int64_t start_ms = 0;  // Unix epoch milliseconds
  std::int64_t end_ms = 0;
  StoreSummary summary;       // counts since start_ms, graph totals
  std::string termination_reason;  // queue_empty, max_pages, signal
  std::int64_t urls_queued_at_end = 0;
  std::vector<StageTimes> timings;  // per stage; empty when not gathered
};

std::string metrics_json(const RunMetrics& m);
// Throws std::runtime_error naming the path when it cannot be written.
void write_metrics_file(const std::string& path, const RunMetrics& m);

}  // namespace actorcrawl
