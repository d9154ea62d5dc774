#include "core/report/metrics_report.h"

#include <nlohmann/json.hpp>

#include "core/clock/utc_time.h"

#include <cstdio>
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
  j["pages_truncated"] = m.summary.pages_truncated;
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
  j["pages_processor_failed"] = m.summary.pages_processor_failed;
  // {"lang": {"pages": 200, "failed": 1}}: what each processor took.
  auto& processors = j["processors"];
  processors = nlohmann::ordered_json::object();
  for (const auto& p : m.processors)
    processors[p.processor] = {{"pages", p.pages}, {"failed", p.failed}};
  // URLs first found in a sitemap (frontier rows, over all runs), and this
  // run's sitemap outcomes: {"fetched": 3, "failed/http_404": 1, ...}.
  j["sitemap_urls_queued"] = m.summary.sitemap_urls_queued;
  auto& sitemaps = j["sitemap_outcomes"];
  sitemaps = nlohmann::ordered_json::object();
  for (const auto& o : m.summary.sitemap_outcomes)
    sitemaps[o.outcome] = o.count;
  j["urls_queued_at_end"] = m.urls_queued_at_end;
  j["termination_reason"] = m.termination_reason;
  if (m.peak_rss_kib > 0)
    j["peak_rss_kib"] = m.peak_rss_kib;
  if (!m.timings.empty()) {
    auto& t = j["timings"];
    for (const auto& s : m.timings)
      t[s.stage] = {{"items", s.count}, {"busy_ms", s.busy_us / 1000}, {"wait_ms", s.wait_us / 1000},
                    {"max_wait_ms", s.max_wait_us / 1000}};
  }
  return j.dump(2) + "\n";
}

std::string final_line(const std::string& termination_reason, const StoreSummary& summary, std::int64_t elapsed_ms,
                       std::int64_t max_body_bytes) {
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  const PageChangeCounts& c = summary.changes;
  // The breakdown counts fetches; a page fetched more than once in the run
  // (the domains profile's max_crawls_per_node) counts once in "pages", so
  // the number of fetches is said when it is larger.
  const std::int64_t fetches = c.new_pages + c.changed + c.unchanged + c.gone;
  std::string line = "crawl finished (" + termination_reason + "): " + n(summary.pages_fetched) + " pages fetched" +
                     (fetches > summary.pages_fetched ? " in " + n(fetches) + " fetches" : std::string{}) + " (" +
                     n(c.new_pages) + " new, " + n(c.changed) + " changed, " + n(c.unchanged) + " unchanged, " +
                     n(c.gone) + " gone), " + n(summary.pages_failed) + " failed to fetch";
  if (summary.pages_processor_failed > 0)
    line += ", " + n(summary.pages_processor_failed) + " failed by a processor";
  if (summary.pages_truncated > 0)
    line += ", " + n(summary.pages_truncated) + " cut at max_body_bytes (" + n(max_body_bytes) + ")";
  char tail[160];
  std::snprintf(tail, sizeof tail, ", %lld URLs parked to try again, %lld nodes, %lld edges in %.1f s",
                static_cast<long long>(summary.urls_parked), static_cast<long long>(summary.nodes_discovered),
                static_cast<long long>(summary.edges_recorded), static_cast<double>(elapsed_ms) / 1000.0);
  return line + tail;
}

std::string processors_line(const std::vector<ProcessorTally>& processors,
                            const std::vector<ProcessorFailureCount>& failures) {
  const bool only_html_links = processors.size() == 1 && processors.front().processor == "html_links";
  if (processors.empty() || (only_html_links && processors.front().failed == 0))
    return "";
  std::string line = "processors:";
  for (std::size_t i = 0; i < processors.size(); ++i) {
    const ProcessorTally& p = processors[i];
    line += (i ? "; " : " ") + p.processor + " took " + std::to_string(p.pages) + (i ? "" : " pages");
    if (p.failed == 0)
      continue;
    line += ", failed " + std::to_string(p.failed);
    std::string reasons;
    for (const auto& f : failures)
      if (f.processor == p.processor)
        reasons += (reasons.empty() ? "" : ", ") + f.reason + " " + std::to_string(f.count);
    if (!reasons.empty())
      line += " (" + reasons + ")";
  }
  return line;
}

void write_metrics_file(const std::string& path, const RunMetrics& m) {
  std::ofstream out(path, std::ios::trunc);
  out << metrics_json(m);
  out.flush();
  if (!out)
    throw std::runtime_error("cannot write metrics file '" + path + "'");
}

}  // namespace actorcrawl
