#include "core/store/job_store.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <map>

#include "core/store/crawl_store.h"
#include "core/store/crawl_reader.h"
#include "tests/unit/temp_database.h"

namespace actorcrawl {

using testing::TempDbPath;
using testing::scalar;

std::vector<std::string> ids_of(const std::vector<JobRow>& rows) {
  std::vector<std::string> ids;
  for (const auto& r : rows)
    ids.push_back(r.id);
  return ids;
}

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

TEST_CASE("job store: a cancel is written when asked for, and no restart resumes the job", "[job_store]") {
  TempDbPath path;
  {
    JobStore jobs(path.str());
    const auto queued = jobs.create("http://a.test/", 10, "{}", "jobs", 1000).id;
    const auto running = jobs.create("http://b.test/", 10, "{}", "jobs", 1000).id;
    const auto done = jobs.create("http://c.test/", 10, "{}", "jobs", 1000).id;
    const auto untouched = jobs.create("http://d.test/", 10, "{}", "jobs", 1000).id;
    REQUIRE(jobs.set_running(running, 1100));
    REQUIRE(jobs.set_running(done, 1100));
    REQUIRE(jobs.set_running(untouched, 1100));
    jobs.set_finished(done, JobStatus::completed, 1200, "", 3, 0);

    // A queued job cancelled before its thread came to it never starts.
    CHECK(jobs.request_cancel(queued, 1300));
    CHECK_FALSE(jobs.set_running(queued, 1310));
    CHECK(jobs.get(queued)->status == JobStatus::queued);
    CHECK(*jobs.get(queued)->cancel_requested_at == 1300);
    // A running one keeps running until its crawl winds down; a second
    // request keeps the first time.
    CHECK(jobs.request_cancel(running, 1400));
    CHECK(jobs.request_cancel(running, 1500));
    CHECK(jobs.get(running)->status == JobStatus::running);
    CHECK(*jobs.get(running)->cancel_requested_at == 1400);
    // Over, or unknown: nothing to cancel, nothing changes.
    CHECK_FALSE(jobs.request_cancel(done, 1600));
    CHECK_FALSE(jobs.get(done)->cancel_requested_at.has_value());
    CHECK(jobs.get(done)->status == JobStatus::completed);
    CHECK_FALSE(jobs.request_cancel("crawl_99", 1600));
    CHECK_FALSE(jobs.get(untouched)->cancel_requested_at.has_value());
    // The process dies here: neither cancelled job has ended.
  }
  JobStore jobs(path.str());
  CHECK(ids_of(jobs.unfinished()) == std::vector<std::string>{"crawl_4"});
  CHECK(ids_of(jobs.unfinished_cancels()) == std::vector<std::string>{"crawl_1", "crawl_2"});
  jobs.set_finished("crawl_2", JobStatus::cancelled, 2000, "cancelled", 1, 0);
  CHECK(ids_of(jobs.unfinished_cancels()) == std::vector<std::string>{"crawl_1"});
  const auto row = *jobs.get("crawl_2");
  CHECK(row.status == JobStatus::cancelled);
  CHECK(*row.cancel_requested_at == 1400);
  CHECK(*row.ended_at == 2000);
  // A re-drive runs a cancelled job again: the cancel is taken back, and
  // only for a job that has ended.
  CHECK_FALSE(jobs.reopen("crawl_1"));
  CHECK(jobs.get("crawl_1")->cancel_requested_at.has_value());
  CHECK_FALSE(jobs.reopen("crawl_99"));
  CHECK(jobs.reopen("crawl_2"));
  CHECK_FALSE(jobs.get("crawl_2")->cancel_requested_at.has_value());
  // Queued again at once: a reader after the re-drive sees it will run,
  // before its thread has started it, and a second re-drive is refused.
  CHECK(jobs.get("crawl_2")->status == JobStatus::queued);
  CHECK_FALSE(jobs.get("crawl_2")->ended_at.has_value());
  CHECK_FALSE(jobs.reopen("crawl_2"));
  CHECK(jobs.set_running("crawl_2", 2100));
  CHECK(jobs.get("crawl_2")->status == JobStatus::running);
}

TEST_CASE("job store: a job table from before cancel_requested_at opens and gains it", "[job_store]") {
  TempDbPath path;
  {
    // The first released schema, with a job running when it stopped.
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
      CREATE TABLE jobs (
          seq INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, status TEXT NOT NULL, seed_url TEXT NOT NULL,
          max_pages INTEGER NOT NULL, request TEXT NOT NULL, db_path TEXT NOT NULL, created_at INTEGER NOT NULL,
          started_at INTEGER, ended_at INTEGER, error TEXT,
          pages_fetched INTEGER NOT NULL DEFAULT 0, pages_failed INTEGER NOT NULL DEFAULT 0);
      INSERT INTO jobs(seq, id, status, seed_url, max_pages, request, db_path, created_at, started_at)
      VALUES(1, 'crawl_1', 'running', 'http://a.test/', 5, '{}', 'jobs/crawl_1.db', 1000, 1100);)sql");
  }
  {
    JobStore jobs(path.str());
    const auto row = *jobs.get("crawl_1");
    CHECK(row.status == JobStatus::running);
    CHECK(row.seed_url == "http://a.test/");
    CHECK(*row.started_at == 1100);
    CHECK_FALSE(row.cancel_requested_at.has_value());
    CHECK(ids_of(jobs.unfinished()) == std::vector<std::string>{"crawl_1"});
    CHECK(jobs.request_cancel("crawl_1", 1200));
    CHECK(jobs.create("http://b.test/", 1, "{}", "jobs", 1300).id == "crawl_2");
  }
  CHECK(scalar(path.str(), "PRAGMA user_version") == 1);
  CHECK(scalar(path.str(), "SELECT cancel_requested_at FROM jobs WHERE id = 'crawl_1'") == 1200);
  // Opened again: migrated once, not twice.
  JobStore jobs(path.str());
  CHECK(ids_of(jobs.unfinished_cancels()) == std::vector<std::string>{"crawl_1"});
}

TEST_CASE("job store: a newer job table is refused", "[job_store]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA user_version = 99");
  }
  CHECK_THROWS_AS(JobStore(path.str()), StoreError);
}

TEST_CASE("job results: pages in crawl order, a page at a time, with links, the graph", "[job_store]") {
  TempDbPath path;
  CHECK(read_pages(path.str() + ".missing", 0, 10).pages.empty());  // not started yet
  CHECK(count_pages(path.str() + ".missing").fetched == 0);
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
      if (i == 4)
        p.error = "http_500";
      store.record_page(p);
    }
    store.flush();
  }
  CHECK(count_pages(path.str()).fetched == 4);
  CHECK(count_pages(path.str()).failed == 1);
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
