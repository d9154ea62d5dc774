#include "service/prometheus_metrics.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("prometheus: counters, gauges and a histogram in the text format", "[prometheus]") {
  PrometheusMetrics m;
  m.declare_counter("pages_total", "Pages.");
  m.declare_gauge("queued", "Queued URLs.");
  m.declare_histogram("fetch_seconds", "Fetch time.", {0.1, 1});
  m.add("pages_total", {{"job", "crawl_1"}});
  m.add("pages_total", {{"job", "crawl_1"}}, 2);
  m.set("queued", {{"job", "a\"b\\c\nd"}}, 7);
  m.observe("fetch_seconds", {}, 0.05);
  m.observe("fetch_seconds", {}, 0.5);
  m.observe("fetch_seconds", {}, 5);
  CHECK(m.render() ==
        "# HELP fetch_seconds Fetch time.\n"
        "# TYPE fetch_seconds histogram\n"
        "fetch_seconds_bucket{le=\"0.1\"} 1\n"
        "fetch_seconds_bucket{le=\"1\"} 2\n"
        "fetch_seconds_bucket{le=\"+Inf\"} 3\n"
        "fetch_seconds_sum 5.55\n"
        "fetch_seconds_count 3\n"
        "# HELP pages_total Pages.\n"
        "# TYPE pages_total counter\n"
        "pages_total{job=\"crawl_1\"} 3\n"
        "# HELP queued Queued URLs.\n"
        "# TYPE queued gauge\n"
        "queued{job=\"a\\\"b\\\\c\\nd\"} 7\n");
  m.clear("queued");
  CHECK(m.render().find("queued{") == std::string::npos);
  CHECK_THROWS_AS(m.add("queued", {}), std::logic_error);
  CHECK_THROWS_AS(m.set("nope", {}, 1), std::logic_error);
}

TEST_CASE("prometheus: a job's series, of every family, end with it, other jobs' stay", "[prometheus]") {
  PrometheusMetrics m;
  m.declare_counter("pages_total", "Pages.");
  m.declare_gauge("in_flight", "In flight.");
  m.declare_gauge("mailbox", "Mailbox.");
  m.declare_histogram("seconds", "Time.", {1});
  for (const char* job : {"crawl_1", "crawl_11"}) {
    m.add("pages_total", {{"job", job}});
    m.set("in_flight", {{"job", job}}, 3);
    m.set("mailbox", {{"actor", "storage"}, {"job", job}}, 2);
    m.observe("seconds", {{"job", job}}, 0.5);
  }
  m.add("pages_total", {{"reason", "crawl_1"}});
  m.drop_series_labelled("job", "crawl_1");
  const auto text = m.render();
  INFO(text);
  CHECK(text.find("job=\"crawl_1\"") == std::string::npos);
  CHECK(text.find("pages_total{job=\"crawl_11\"} 1") != std::string::npos);
  CHECK(text.find("in_flight{job=\"crawl_11\"} 3") != std::string::npos);
  CHECK(text.find("mailbox{actor=\"storage\",job=\"crawl_11\"} 2") != std::string::npos);
  CHECK(text.find("seconds_count{job=\"crawl_11\"} 1") != std::string::npos);
  CHECK(text.find("pages_total{reason=\"crawl_1\"} 1") != std::string::npos);
  CHECK(text.find("# TYPE in_flight gauge") != std::string::npos);  // the family stays
}

}  // namespace actorcrawl
