#include "core/report/metrics_report.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace actorcrawl {
namespace {

namespace fs = std::filesystem;

RunMetrics sample() {
  RunMetrics m;
  m.start_ms = 1737021600123;  // 2025-01-16T10:00:00.123Z
  m.end_ms = 1737021725456;
  m.summary.nodes_discovered = 42;
  m.summary.nodes_crawled = 7;
  m.summary.edges_recorded = 55;
  m.summary.pages_fetched = 300;
  m.summary.pages_failed = 4;
  m.summary.avg_fetch_time_ms = 87;
  m.summary.links_dropped = 79000;
  m.summary.urls_parked = 12;
  m.summary.items_stored = 250;
  m.summary.pages_truncated = 2;
  m.summary.pages_processor_failed = 5;
  m.processors = {{"html_links", 290, 0}, {"lang", 280, 4}, {"wordcount", 280, 2}};
  m.summary.changes = PageChangeCounts{116, 30, 150, 4};  // 300 fetches: one a page
  m.summary.processor_failures = {{"lang", "crashed", 1}, {"lang", "timeout", 3}, {"wordcount", "bad_answer", 2}};
  m.summary.sitemap_urls_queued = 480;
  m.summary.sitemap_outcomes = {{"failed/http_404", 1}, {"fetched", 3}, {"not_fetched/sitemap_seen", 2}};
  m.termination_reason = "max_pages";
  m.urls_queued_at_end = 1234;
  return m;
}

// The file format is read by people and scripts: field names, order and
// layout are the contract.
const char* const kSampleJson = R"({
  "start_time": "2025-01-16T10:00:00.123Z",
  "end_time": "2025-01-16T10:02:05.456Z",
  "duration_ms": 125333,
  "nodes_discovered": 42,
  "nodes_crawled": 7,
  "edges_recorded": 55,
  "pages_fetched": 300,
  "pages_failed": 4,
  "avg_fetch_time_ms": 87,
  "links_dropped": 79000,
  "urls_parked": 12,
  "items_stored": 250,
  "pages_truncated": 2,
  "pages_new": 116,
  "pages_changed": 30,
  "pages_unchanged": 150,
  "pages_gone": 4,
  "processor_failures": {
    "lang": {
      "crashed": 1,
      "timeout": 3
    },
    "wordcount": {
      "bad_answer": 2
    }
  },
  "pages_processor_failed": 5,
  "processors": {
    "html_links": {
      "pages": 290,
      "failed": 0
    },
    "lang": {
      "pages": 280,
      "failed": 4
    },
    "wordcount": {
      "pages": 280,
      "failed": 2
    }
  },
  "sitemap_urls_queued": 480,
  "sitemap_outcomes": {
    "failed/http_404": 1,
    "fetched": 3,
    "not_fetched/sitemap_seen": 2
  },
  "urls_queued_at_end": 1234,
  "termination_reason": "max_pages"
}
)";

std::string temp_file_path(const std::string& name) {
  return (fs::temp_directory_path() /
          ("metrics_report_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("metrics_json: every field, in order", "[metrics_report]") {
  CHECK(metrics_json(sample()) == kSampleJson);
}

TEST_CASE("metrics_json: a run with nothing done", "[metrics_report]") {
  RunMetrics m;
  m.start_ms = 1704067200000;
  m.end_ms = 1704067200000;
  m.termination_reason = "queue_empty";
  CHECK(metrics_json(m) == R"({
  "start_time": "2024-01-01T00:00:00.000Z",
  "end_time": "2024-01-01T00:00:00.000Z",
  "duration_ms": 0,
  "nodes_discovered": 0,
  "nodes_crawled": 0,
  "edges_recorded": 0,
  "pages_fetched": 0,
  "pages_failed": 0,
  "avg_fetch_time_ms": 0,
  "links_dropped": 0,
  "urls_parked": 0,
  "items_stored": 0,
  "pages_truncated": 0,
  "pages_new": 0,
  "pages_changed": 0,
  "pages_unchanged": 0,
  "pages_gone": 0,
  "processor_failures": {},
  "pages_processor_failed": 0,
  "processors": {},
  "sitemap_urls_queued": 0,
  "sitemap_outcomes": {},
  "urls_queued_at_end": 0,
  "termination_reason": "queue_empty"
}
)");
}

TEST_CASE("metrics_json: the reason is escaped as JSON", "[metrics_report]") {
  RunMetrics m = sample();
  m.termination_reason = "signal \"TERM\"\n";
  const std::string json = metrics_json(m);
  CHECK(json.find(R"("termination_reason": "signal \"TERM\"\n")") != std::string::npos);
}

TEST_CASE("the final line says what failed to fetch, what a processor failed and what was cut", "[metrics_report]") {
  RunMetrics m = sample();
  CHECK(final_line("queue_empty", m.summary, 125333, 1048576) ==
        "crawl finished (queue_empty): 300 pages fetched (116 new, 30 changed, 150 unchanged, 4 gone), 4 failed to "
        "fetch, 5 failed by a processor, 2 cut at max_body_bytes (1048576), 12 URLs parked to try again, 42 nodes, "
        "55 edges in 125.3 s");
  // Nothing failed by a processor, nothing cut: no word of either.
  StoreSummary quiet = m.summary;
  quiet.pages_processor_failed = 0;
  quiet.pages_truncated = 0;
  quiet.pages_failed = 0;
  CHECK(final_line("max_pages", quiet, 1000, 1048576) ==
        "crawl finished (max_pages): 300 pages fetched (116 new, 30 changed, 150 unchanged, 4 gone), 0 failed to "
        "fetch, 12 URLs parked to try again, 42 nodes, 55 edges in 1.0 s");
}

TEST_CASE("the final line says how many fetches when a page was fetched more than once", "[metrics_report]") {
  // Three home pages, each crawled twice for its node (max_crawls_per_node):
  // three pages, six fetches, and the breakdown adds up to the fetches.
  StoreSummary s;
  s.pages_fetched = 3;
  s.changes = PageChangeCounts{3, 0, 3, 0};
  s.nodes_discovered = 3;
  s.edges_recorded = 3;
  CHECK(final_line("queue_empty", s, 4200, 1048576) ==
        "crawl finished (queue_empty): 3 pages fetched in 6 fetches (3 new, 0 changed, 3 unchanged, 0 gone), 0 "
        "failed to fetch, 0 URLs parked to try again, 3 nodes, 3 edges in 4.2 s");
}

TEST_CASE("the processors line: each processor's pages and failures, with reasons", "[metrics_report]") {
  const RunMetrics m = sample();
  CHECK(processors_line(m.processors, m.summary.processor_failures) ==
        "processors: html_links took 290 pages; lang took 280, failed 4 (crashed 1, timeout 3); wordcount took 280, "
        "failed 2 (bad_answer 2)");
  // html_links alone, nothing failed: nothing to say.
  CHECK(processors_line({{"html_links", 12, 0}}, {}).empty());
  CHECK(processors_line({}, {}).empty());
}

TEST_CASE("write_metrics_file", "[metrics_report]") {
  const std::string path = temp_file_path("metrics.log");
  {
    std::ofstream old(path);
    old << "an older, longer file that must be replaced entirely\n" << std::string(1000, 'x');
  }
  write_metrics_file(path, sample());
  CHECK(read_file(path) == kSampleJson);
  std::error_code ignored;
  fs::remove(path, ignored);
}

TEST_CASE("write_metrics_file: an unwritable path throws, naming it", "[metrics_report]") {
  const std::string path = temp_file_path("no_such_dir") + "/metrics.log";
  try {
    write_metrics_file(path, sample());
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot write metrics file '" + path + "'");
  }
  CHECK_FALSE(fs::exists(path));
}

}  // namespace actorcrawl
