#include "core/report/metrics_report.h"

#include <nlohmann/json.hpp>

#include "core/clock/utc_time.h"

#include <fstream>
#include <stdexcept>

namespace actorcrawl {

std::string metrics_json(const RunMetrics& m) {
  nlohmann::ordered_json j;
  j["start_time"] = iso8601_utc_ms(m.start_ms);
  j["end_time"] = iso8601_utc_ms(m.end_ms);
  j["duration_ms"] = m.end_ms - m.start_ms;
  j["nodes_discovered"] = m.summary.nodes_discovered;
  j["nodes_crawled"] = m.summary.nodes_crawled;
  j["edges_recorded"] = m.summary.edges_recorded;
  j["pages_fetched"] = m.summary.pages_fetched;
  j["pages_failed"] = m.summary.pages_failed;
  j["avg_fetch_time_ms"] = m.summary.avg_fetch_time_ms;
  j["links_dropped"] = m.summary.links_dropped;
  j["urls_parked"] = m.summary.urls_parked;
  j["items_stored"] = m.summary.items_stored;
  // What this run's fetches found against the stored pages (page_changes).
  j["pages_new"] = m.summary.changes.new_pages;
  j["pages_changed"] = m.summary.changes.changed;
  j["pages_unchanged"] = m.summary.changes.unchanged;
  j["pages_gone"] = m.summary.changes.gone;
  // {"lang": {"timeout": 3}}: each processor's failures by reason.
  auto& failures = j["processor_failures"];
  failures = nlohmann::ordered_json::object();
  for (const auto& f : m.summary.processor_failures)
    failures[f.processor][f.reason] = f.count;
  // URLs first found in a sitemap (frontier rows, over all runs), and this
  // run's sitemap outcomes: {"fetched": 3, "failed/http_404": 1, ...}.
  j["sitemap_urls_queued"] = m.summary.sitemap_urls_queued;
  auto& sitemaps = j["sitemap_outcomes"];
  sitemaps = nlohmann::ordered_json::object();
  for (const auto& o : m.summary.sitemap_outcomes)
    sitemaps[o.outcome] = o.count;
  j["urls_queued_at_end"] = m.urls_queued_at_end;
  j["termination_reason"] = m.termination_reason;
  if (!m.timings.empty()) {
    auto& t = j["timings"];
    for (const auto& s : m.timings)
      t[s.stage] = {{"items", s.count}, {"busy_ms", s.busy_us / 1000}, {"wait_ms", s.wait_us / 1000},
                    {"max_wait_ms", s.max_wait_us / 1000}};
  }
  return j.dump(2) + "\n";
}

void write_metrics_file(const std::string& path, const RunMetrics& m) {
  std::ofstream out(path, std::ios::trunc);
  out << metrics_json(m);
  out.flush();
  if (!out)
    throw std::runtime_error("cannot write metrics file '" + path + "'");
}

}  // namespace actorcrawl
