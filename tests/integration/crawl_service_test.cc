// CrawlService in this process: what a start and a shutdown do with the job
// table when a cancel has been asked for (service_test.cc drives the same
// over HTTP, with kill -9).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/store/crawl_store.h"
#include "core/store/job_store.h"
#include "crawl_fixture.h"
#include "service/api_error.h"
#include "service/crawl_service.h"
#include "service/job_request.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using namespace std::chrono_literals;

namespace {

ServiceSettings settings_in(const ScratchDir& dir) {
  ServiceSettings s;
  s.base = fast_config(dir, "http://127.0.0.1:1/");
  s.data_dir = dir.path("service");
  s.allow_private_networks = true;
  return s;
}

JobRequest request_for(const std::string& url, int max_pages) {
  return parse_job_request(nlohmann::json{{"url", url}, {"max_pages", max_pages}}.dump());
}

// A root page linking to `children` pages that each take `delay_ms`.
std::string slow_children(LoopbackWeb& web, int children, int delay_ms) {
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 1; i <= children; ++i) {
    links.push_back("/p" + std::to_string(i));
    auto r = html(page("P" + std::to_string(i), {}));
    r.delay_ms = delay_ms;
    web.route(h, "/p" + std::to_string(i), r);
  }
  web.route(h, "/", html(page("Root", links)));
  return LoopbackWeb::url(h, "/");
}

}  // namespace

TEST_CASE("service start: jobs whose cancel was asked for end cancelled and are not resumed",
          "[integration][service][cancel]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = slow_children(web, 3, 0);
  const auto settings = settings_in(dir);
  const std::string jobs_dir = settings.data_dir + "/jobs";
  std::filesystem::create_directories(jobs_dir);
  std::string queued, running, resumed;
  {
    // What a service that died mid-cancel leaves: one job cancelled while
    // still queued, one while running (two pages stored), and one job
    // nobody cancelled.
    JobStore jobs(settings.data_dir + "/service.db");
    const std::string request = to_json(request_for(seed, 4));
    queued = jobs.create(seed, 4, request, jobs_dir, 1000).id;
    running = jobs.create(seed, 4, request, jobs_dir, 1000).id;
    resumed = jobs.create(seed, 4, request, jobs_dir, 1000).id;
    REQUIRE(jobs.set_running(running, 1100));
    {
      CrawlStore store(jobs.get(running)->db_path);
      PageRow ok, failed;
      ok.url = seed;
      ok.host_key = "127.0.0.1";
      ok.status_code = 200;
      failed.url = seed + "p1";
      failed.host_key = "127.0.0.1";
      failed.error = "timeout";
      store.record_page(ok);
      store.record_page(failed);
    }
    REQUIRE(jobs.request_cancel(queued, 1200));
    REQUIRE(jobs.request_cancel(running, 1300));
  }

  CrawlService service(settings);
  const auto q = *service.job(queued);
  CHECK(q.status == JobStatus::cancelled);
  CHECK(q.ended_at.has_value());
  CHECK(q.error == "cancelled");
  CHECK(q.pages_fetched == 0);
  const auto r = *service.job(running);
  CHECK(r.status == JobStatus::cancelled);
  CHECK(*r.cancel_requested_at == 1300);
  CHECK(r.pages_fetched == 1);
  CHECK(r.pages_failed == 1);
  CHECK_FALSE(service.live(running).has_value());
  // The job nobody cancelled is resumed, and is the only one that fetches.
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (service.job(resumed)->status != JobStatus::completed && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  CHECK(service.job(resumed)->status == JobStatus::completed);
  CHECK(targets_seen(web, web.requests().front().host_key) ==
        std::map<std::string, int>{{"/", 1}, {"/p1", 1}, {"/p2", 1}, {"/p3", 1}});
}

TEST_CASE("service shutdown: a job cancelled but still winding down ends cancelled, not to be resumed",
          "[integration][service][cancel]") {
  ScratchDir dir;
  LoopbackWeb web;
  // The children answer after 1.2 s (the request timeout is 2 s): the
  // cancelled job waits for the one in flight.
  const auto seed = slow_children(web, 4, 1200);
  const auto settings = settings_in(dir);
  std::string id;
  {
    CrawlService service(settings);
    id = service.submit(request_for(seed, 5)).id;
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (page_requests(web) < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(5ms);
    REQUIRE(page_requests(web) >= 2);
    REQUIRE(service.cancel(id));
    // Written at once, while the job still waits for its page.
    const auto row = *service.job(id);
    CHECK(row.cancel_requested_at.has_value());
    CHECK(row.status == JobStatus::running);
  }  // the service stops here, before the job has wound down
  JobStore jobs(settings.data_dir + "/service.db");
  CHECK(jobs.get(id)->status == JobStatus::cancelled);
  CHECK(jobs.unfinished().empty());
  CHECK(jobs.unfinished_cancels().empty());
}

TEST_CASE("service redrive: a job the table says has ended is re-driven, never refused as running",
          "[integration][service][redrive]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = slow_children(web, 1, 0);
  CrawlService service(settings_in(dir));
  // Many times: the window between the table's update and the thread's
  // end is short.
  for (int i = 0; i < 25; ++i) {
    const auto id = service.submit(request_for(seed, 2)).id;
    // Asked the moment the table says the job ended, when its thread may
    // still be on its last steps.
    const auto until = std::chrono::steady_clock::now() + 30s;
    auto status = JobStatus::queued;
    while ((status == JobStatus::queued || status == JobStatus::running) && std::chrono::steady_clock::now() < until)
      status = service.job(id)->status;
    REQUIRE(status == JobStatus::completed);
    try {
      const auto done = service.redrive(id, RedriveFilter{});
      CHECK(done.report.letters == 0);
      CHECK_FALSE(done.restarted);
    } catch (const ApiError& e) {
      FAIL("the re-drive of job " << id << ", completed in the table, was refused: " << e.code() << ": "
                                  << e.message());
    }
  }

  // A job that runs is refused, in the words of the table.
  const auto slow = slow_children(web, 3, 1000);
  const auto id = service.submit(request_for(slow, 4)).id;
  try {
    service.redrive(id, RedriveFilter{});
    FAIL("a running job was re-driven");
  } catch (const ApiError& e) {
    CHECK(e.code() == "job_running");
    const std::string table = to_string(service.job(id)->status);
    CHECK((table == "queued" || table == "running"));
    CHECK((e.message().find("is queued") != std::string::npos || e.message().find("is running") != std::string::npos));
  }
  service.cancel(id);
}

TEST_CASE("service jobs: the headers and cookies a job carries open the site's pages, and no answer repeats them",
          "[integration][service][site_requests]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto h = web.add_host("127.0.0.1");
  const auto needs = [](const demoweb::ServedRequest& r) {
    const bool ok = r.header("X-Api-Key") == "k-JOB-SECRET" && r.header("Cookie").find("s=c-JOB-SECRET") != std::string::npos;
    return ok ? html(page("Page", {"/a", "/b"})) : html("denied", 403);
  };
  for (const char* path : {"/", "/a", "/b"})
    web.route(h, path, needs);
  const std::string body = nlohmann::json{{"url", LoopbackWeb::url(h, "/")},
                                          {"max_pages", 5},
                                          {"headers", {nlohmann::json{{"hosts", "^127\\.0\\.0\\.1$"}, {"X-Api-Key", "k-JOB-SECRET"}}}},
                                          {"cookies", "127.0.0.1\tFALSE\t/\tFALSE\t0\ts\tc-JOB-SECRET\n"}}
                             .dump();
  JobLimits allowed;
  allowed.request_keys = {"headers", "cookies"};
  CrawlService service(settings_in(dir));
  const auto id = service.submit(parse_job_request(body, allowed)).id;
  const auto until = std::chrono::steady_clock::now() + 30s;
  auto row = service.job(id);
  while ((row->status == JobStatus::queued || row->status == JobStatus::running) && std::chrono::steady_clock::now() < until)
    row = service.job(id);
  REQUIRE(row->status == JobStatus::completed);
  CHECK(count(row->db_path, "SELECT COUNT(*) FROM pages WHERE status_code = 200") == 3);
  CHECK(count(row->db_path, "SELECT COUNT(*) FROM pages WHERE status_code <> 200") == 0);
  // What the service tells about the job holds neither secret: its row's
  // answer fields, its event stream, its metrics.
  std::string told = row->error + row->seed_url + service.metrics_text();
  const auto events = service.events(id, 0, 0ms);
  CHECK(!events.events.empty());
  for (const auto& e : events.events)
    told += e.kind + e.data;
  CHECK(told.find("JOB-SECRET") == std::string::npos);
  // The job table keeps them (a resumed job sends them again).
  CHECK(row->request_json.find("k-JOB-SECRET") != std::string::npos);
}
