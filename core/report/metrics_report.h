// metrics.log, written when a crawl ends: one JSON
// object with the run's times, graph and page counts, average fetch time and
// why it ended.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "core/page/page_processor.h"
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
  std::vector<ProcessorTally> processors;  // each processor's pages and failures; may be empty
  std::int64_t peak_rss_kib = 0;  // the process's peak resident set (peak_memory.h); 0: not known
};

std::string metrics_json(const RunMetrics& m);

// The line a crawl ends with: why it ended, pages fetched and what they
// were against the stored ones, failed to fetch, failed by a processor and
// cut at max_body_bytes (those two when there are any), URLs parked, the
// graph, the time.
std::string final_line(const std::string& termination_reason, const StoreSummary& summary, std::int64_t elapsed_ms,
                       std::int64_t max_body_bytes);

// "processors: html_links took 200 pages; lang took 200, failed 1 (crashed
// 1)": each processor's pages and failures, the reasons from `failures`;
// "" when the chain is html_links alone and nothing failed.
std::string processors_line(const std::vector<ProcessorTally>& processors,
                            const std::vector<ProcessorFailureCount>& failures);
// Throws std::runtime_error naming the path when it cannot be written.
void write_metrics_file(const std::string& path, const RunMetrics& m);

}  // namespace actorcrawl
