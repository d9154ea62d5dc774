#include "core/store/job_store.h"

#include <catch2/catch.hpp>

#include <map>

#include "core/store/crawl_store.h"
#include "core/store/crawl_reader.h"
#include "tests/unit/temp_database.h"

namespace actorcrawl {

using testing::TempDbPath;

TEST_CASE("job store: ids, states and what a restart takes up again", "[job_store]") {
  TempDbPath path;
  {
    JobStore jobs(path.str());
    const auto a = jobs.create("http://a.test/", 10, R"({"url":"http://a.test/"})", "jobs", 1000);
    const auto b = jobs.create("http://b.test/", 20, R"({"url":"http://b.test/"})", "jobs", 2000);
    CHECK(a.id == "crawl_1");
    CHECK(b.id == "crawl_2");
    CHECK(a.db_path == "jobs/crawl_1.db");
    jobs.set_running(a.id, 1100);
    jobs.set_running(b.id, 2100);
    jobs.set_finished(a.id, JobStatus::completed, 1500, "", 9, 1);
    const auto row = *jobs.get(a.id);
    CHECK(row.status == JobStatus::completed);
    CHECK(*row.started_at == 1100);
    CHECK(*row.ended_at == 1500);
    CHECK(row.pages_fetched == 9);
    CHECK(row.pages_failed == 1);
    CHECK_FALSE(jobs.get("crawl_9").has_value());
  }
  // Reopened, as after a restart: the table is the source of truth.
  JobStore jobs(path.str());
  const auto list = jobs.list();
  REQUIRE(list.size() == 2);
  CHECK(list[0].id == "crawl_2");  // newest first
  const auto open = jobs.unfinished();
  REQUIRE(open.size() == 1);
  CHECK(open[0].id == "crawl_2");
  CHECK(open[0].status == JobStatus::running);
  CHECK(jobs.create("http://c.test/", 1, "{}", "jobs", 3000).id == "crawl_3");
  jobs.set_finished("crawl_2", JobStatus::failed, 4000, "boom", 0, 0);
  CHECK(jobs.get("crawl_2")->error == "boom");
  CHECK(std::string{to_string(JobStatus::cancelled)} == "cancelled");
  const auto counts = jobs.count_by_status();
  std::map<std::string, std::int64_t> by_name;
  for (const auto& [status, n] : counts)
    by_name[to_string(status)] = n;
  CHECK(by_name == std::map<std::string, std::int64_t>{{"completed", 1}, {"failed", 1}, {"queued", 1}});
}

TEST_CASE("job results: pages in crawl order, a page at a time, with links; the graph", "[job_store]") {
  TempDbPath path;
  CHECK(read_pages(path.str() + ".missing", 0, 10).pages.empty());  // not started yet
  {
    CrawlStore store(path.str());
    for (int i = 0; i < 5; ++i) {
      PageRow p;
      p.url = "http://a.test/" + std::to_string(i);
      p.host_key = "a.test";
      p.status_code = 200;
      p.title = "Page " + std::to_string(i);
      p.fetched_at_ms = 1000 + i;
      p.links = {{"http://a.test/x", false}, {"http://b.test/", false}};
      p.link_host_keys = {"b.test"};
      store.record_page(p);
    }
    store.flush();
  }
  const auto slice = read_pages(path.str(), 3, 10);
  CHECK(slice.total == 5);
  REQUIRE(slice.pages.size() == 2);
  CHECK(slice.pages[0].url == "http://a.test/3");
  CHECK(slice.pages[0].title == "Page 3");
  CHECK(slice.pages[0].crawled_at == 1003);
  CHECK(slice.pages[0].links == std::vector<std::string>{"http://a.test/x", "http://b.test/"});
  const auto graph = read_graph(path.str());
  REQUIRE(graph.nodes.size() == 2);
  REQUIRE(graph.edges.size() == 1);
  CHECK(graph.edges[0].from == "a.test");
  CHECK(graph.edges[0].to == "b.test");
  CHECK(graph.edges[0].weight == 5);
}

}  // namespace actorcrawl
