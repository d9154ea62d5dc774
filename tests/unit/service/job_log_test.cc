#include "service/job_log.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "service/job_event_sink.h"

namespace actorcrawl {
namespace {

using std::chrono::milliseconds;

std::int64_t fixed_clock() { return 1234; }

}  // namespace

TEST_CASE("a job log hands out events after a sequence number", "[job_log]") {
  JobLog log;
  log.push("progress", "{}");
  log.push("page", R"({"url":"http://a/"})");
  auto all = log.since(0, milliseconds{0});
  REQUIRE(all.events.size() == 2);
  CHECK(all.events[0].seq == 1);
  CHECK(all.events[1].kind == "page");
  CHECK_FALSE(all.ended);
  auto later = log.since(1, milliseconds{0});
  REQUIRE(later.events.size() == 1);
  CHECK(later.events[0].seq == 2);
  CHECK(log.since(2, milliseconds{0}).events.empty());
}

TEST_CASE("the end event closes the log", "[job_log]") {
  JobLog log;
  log.end(JobStatus::cancelled);
  const auto batch = log.since(0, milliseconds{0});
  CHECK(batch.ended);
  REQUIRE(batch.events.size() == 1);
  CHECK(batch.events[0].kind == "end");
  CHECK(nlohmann::json::parse(batch.events[0].data)["status"] == "cancelled");
}

TEST_CASE("the log keeps the newest events only", "[job_log]") {
  JobLog log;
  for (std::size_t i = 0; i < JobLog::kEventsKept + 10; ++i)
    log.push("progress", "{}");
  const auto batch = log.since(0, milliseconds{0});
  REQUIRE(batch.events.size() == JobLog::kEventsKept);
  CHECK(batch.events.front().seq == 11);
}

TEST_CASE("a reader waits for the next event", "[job_log]") {
  JobLog log;
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds{50});
    log.push("page", "{}");
  });
  const auto batch = log.since(0, std::chrono::seconds{10});
  writer.join();
  REQUIRE(batch.events.size() == 1);
}

TEST_CASE("a job without a log answers from its table row", "[job_log]") {
  JobRow row;
  row.id = "crawl_1";
  row.status = JobStatus::completed;
  const auto first = events_from_table(row, 0);
  CHECK(first.known);
  CHECK(first.ended);
  REQUIRE(first.events.size() == 1);
  CHECK(nlohmann::json::parse(first.events[0].data)["status"] == "completed");
  CHECK(events_from_table(row, 1).events.empty());
  CHECK_FALSE(events_from_table(std::nullopt, 0).known);
}

TEST_CASE("crawl events become metrics and the job's events", "[job_event_sink]") {
  PrometheusMetrics metrics;
  declare_service_metrics(metrics);
  auto log = std::make_shared<JobLog>();
  JobEventSink sink(metrics, "crawl_7", log, fixed_clock);

  sink.started({{"frontier", 11}, {"storage", 12}});
  CHECK(log->actors().size() == 2);

  PageRow ok;
  ok.url = "http://a.test/";
  ok.status_code = 200;
  ok.title = "bad \xff byte";
  ok.bytes = 100;
  ok.fetch_ms = 20;
  ok.fetched_at_ms = 5;
  sink.page_stored(ok);
  PageRow broken = ok;
  broken.error = "timeout";
  sink.page_stored(broken);
  sink.url_failed(DeadLetterRow{"http://a.test/x", 1, "http_404", "", 1, 404, 0});
  sink.progress(ProgressSnapshot{3, 2, 10, 1, 1});

  const std::string text = metrics.render();
  CHECK(text.find("actorcrawl_pages_fetched_total{job=\"crawl_7\"} 1") != std::string::npos);
  CHECK(text.find("actorcrawl_bytes_fetched_total 100") != std::string::npos);
  CHECK(text.find("actorcrawl_pages_failed_total{reason=\"timeout\"} 1") != std::string::npos);
  CHECK(text.find("actorcrawl_dead_letters_total{reason=\"http_404\"} 1") != std::string::npos);

  const auto batch = log->since(0, milliseconds{0});
  REQUIRE(batch.events.size() == 3);
  CHECK(batch.events[0].kind == "page");
  // Invalid UTF-8 in a title is replaced, so the event is still JSON.
  CHECK(nlohmann::json::parse(batch.events[0].data)["url"] == "http://a.test/");
  CHECK(nlohmann::json::parse(batch.events[1].data)["error"] == "timeout");
  const auto progress = nlohmann::json::parse(batch.events[2].data);
  CHECK(progress["queued"] == 3);
  CHECK(progress["in_flight"] == 2);
  CHECK(progress["time_ms"] == 1234);
  CHECK(log->live().progress.seen == 10);
}

}  // namespace actorcrawl
