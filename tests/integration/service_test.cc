// `actorcrawl serve` from the outside: a real HTTP client against the
// service process on an ephemeral port, crawling in-process test webs.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <regex>
#include <map>
#include <set>
#include <atomic>
#include <thread>

#include "child_process.h"
#include "core/clock/clock.h"
#include "core/store/crawl_store.h"
#include "core/store/job_store.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// A web of `pages` pages on one host, each linking to the next, all from
// the root; `delay_ms` per response.
std::string chain_web(LoopbackWeb& web, const std::string& ip, int pages, int delay_ms) {
  auto h = web.add_host(ip);
  std::vector<std::string> links;
  for (int i = 1; i < pages; ++i)
    links.push_back("/p" + std::to_string(i));
  auto root = html(page("Root", links));
  root.delay_ms = delay_ms;
  web.route(h, "/", root);
  for (int i = 1; i < pages; ++i) {
    auto r = html(page("Page " + std::to_string(i), {"/"}));
    r.delay_ms = delay_ms;
    web.route(h, "/p" + std::to_string(i), r);
  }
  return LoopbackWeb::url(h, "/");
}

class Service {
 public:
  Service(const ScratchDir& dir, std::vector<std::string> extra = {}, const std::string& log = "service.log")
      : dir_(dir) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--db-dir", dir.path("service"),
                                     "--politeness-delay-ms", "0", "--retry-delay-ms", "20",
                                     "--request-timeout-ms", "3000"};
    args.insert(args.end(), extra.begin(), extra.end());
    process_ = std::make_unique<ChildProcess>(ACTORCRAWL_BINARY, args, dir.path(log));
    REQUIRE(process_->wait_for_output("service listening on", 20s));
    std::smatch m;
    const auto out = process_->output();
    REQUIRE(std::regex_search(out, m, std::regex{R"(service listening on http://127\.0\.0\.1:([0-9]+))"}));
    port_ = std::stoi(m[1].str());
  }

  httplib::Client client(const std::string& token = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    if (!token.empty())
      c.set_bearer_token_auth(token.c_str());
    return c;
  }
  ChildProcess& process() { return *process_; }
  int port() const { return port_; }

 private:
  const ScratchDir& dir_;
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
};

json body_of(const httplib::Result& r) {
  REQUIRE(r);
  INFO(r->body);
  return json::parse(r->body);
}

std::string start_job(httplib::Client& c, const json& request) {
  auto r = c.Post("/crawl", request.dump(), "application/json");
  REQUIRE(r);
  INFO(r->body);
  REQUIRE(r->status == 202);
  return body_of(r).at("job_id").get<std::string>();
}

json wait_for_status(httplib::Client& c, const std::string& id, const std::set<std::string>& wanted,
                     std::chrono::seconds timeout = 60s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  json last;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get(("/crawl/" + id + "?limit=1000").c_str());
    REQUIRE(r);
    last = json::parse(r->body);
    if (wanted.count(last.at("job").at("status").get<std::string>()))
      return last.at("job");
    std::this_thread::sleep_for(50ms);
  }
  FAIL("job " << id << " never reached the wanted status; last: " << last.dump());
  return {};
}

// An error answer: the status and exactly {"error": {"code", "message"}}.
void check_error(const httplib::Result& r, int status, const std::string& code) {
  REQUIRE(r);
  INFO(r->body);
  CHECK(r->status == status);
  const auto j = json::parse(r->body);
  REQUIRE(j.is_object());
  CHECK(j.size() == 1);
  CHECK(j.at("error").size() == 2);
  CHECK(j.at("error").at("code") == code);
  CHECK(!j.at("error").at("message").get<std::string>().empty());
  CHECK(r->get_header_value("Content-Type") == "application/json");
}

}  // namespace

TEST_CASE("serve: the job API's request and response shapes", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 20, 0);
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();

  const auto before = epoch_ms();
  auto r = c.Post("/crawl", json{{"url", seed}, {"max_pages", 10}}.dump(), "application/json");
  REQUIRE(r);
  CHECK(r->status == 202);
  CHECK(json::parse(r->body) == json{{"job_id", "crawl_1"}, {"status", "started"}});

  const auto job = wait_for_status(c, "crawl_1", {"completed"});
  CHECK(job.at("id") == "crawl_1");
  CHECK(job.at("seed_url") == seed);
  CHECK(job.at("max_pages") == 10);
  const auto& pages = job.at("pages");
  REQUIRE(pages.size() == 10);
  CHECK(pages[0].at("url") == seed);
  CHECK(pages[0].at("status_code") == 200);
  CHECK(pages[0].at("title") == "Root");
  CHECK(pages[0].at("links").size() == 19);
  CHECK(pages[0].at("links")[0] == LoopbackWeb::url(web.requests().front().host_key, "/p1"));
  for (const auto& p : pages) {
    for (const char* key : {"url", "status_code", "title", "links", "links_total", "crawled_at"})
      CHECK(p.contains(key));
    CHECK(p.at("crawled_at").get<std::int64_t>() >= before);
  }
  const auto started = job.at("started_at").get<std::int64_t>();
  const auto ended = job.at("ended_at").get<std::int64_t>();
  CHECK(started >= before);
  CHECK(ended >= started);
  CHECK(ended - before < 60'000);  // milliseconds, as in the seed
  // A crawl without extraction rules or external processors took no items.
  CHECK(job.at("items_total") == 0);
  CHECK(job.at("processor_failures") == json::object());
  // A first crawl: every page new, nothing changed.
  CHECK(job.at("pages_new") == 10);
  CHECK(job.at("pages_changed") == 0);
  CHECK(job.at("pages_unchanged") == 0);
  CHECK(job.at("pages_gone") == 0);
  const auto no_items = body_of(c.Get("/crawl/crawl_1/items"));
  CHECK(no_items.at("items") == json::array());
  CHECK(no_items.at("items_total") == 0);
  CHECK(no_items.at("next").is_null());

  // The list and the health check.
  auto list = body_of(c.Get("/crawl"));
  REQUIRE(list.at("jobs").size() == 1);
  CHECK(list.at("jobs")[0].at("id") == "crawl_1");
  CHECK(list.at("jobs")[0].at("status") == "completed");
  // A page's links are paged through too: a slice, and the whole count.
  auto sliced = body_of(c.Get("/crawl/crawl_1?limit=1&links_offset=5&links_limit=3"));
  const auto& first = sliced.at("job").at("pages").at(0);
  CHECK(first.at("links_total") == 19);
  REQUIRE(first.at("links").size() == 3);
  CHECK(first.at("links")[0] == pages[0].at("links")[5]);
  CHECK(sliced.at("job").at("links_limit") == 3);
  auto too_big = c.Get("/crawl/crawl_1?limit=1000&links_limit=1000");
  REQUIRE(too_big);
  CHECK(too_big->status == 400);
  CHECK(json::parse(too_big->body).at("error").at("code") == "out_of_range");
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  // The dashboard.
  auto home = c.Get("/");
  REQUIRE(home);
  CHECK(home->status == 200);
  CHECK(home->get_header_value("Content-Type").find("text/html") == 0);
}

TEST_CASE("serve: every bad request gets a named JSON error and starts nothing", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 3, 0);
  Service service(dir, {"--allow-private-networks", "--max-request-bytes", "1024"});
  auto c = service.client();
  auto post = [&](const std::string& body) { return c.Post("/crawl", body, "application/json"); };

  check_error(post("{not json"), 400, "malformed_json");
  check_error(post("[1, 2]"), 400, "invalid_body");
  check_error(post("{}"), 400, "missing_field");
  check_error(post(json{{"url", "ftp://example.org/"}}.dump()), 400, "invalid_url");
  check_error(post(json{{"url", "not a url"}}.dump()), 400, "invalid_url");
  check_error(post(json{{"url", 42}}.dump()), 400, "invalid_type");
  check_error(post(json{{"url", seed}, {"max_pages", 0}}.dump()), 400, "out_of_range");
  check_error(post(json{{"url", seed}, {"max_pages", 1000000000}}.dump()), 400, "out_of_range");
  check_error(post(json{{"url", seed}, {"max_pages", "ten"}}.dump()), 400, "invalid_type");
  check_error(post(json{{"url", seed}, {"max_depht", 2}}.dump()), 400, "unknown_field");
  check_error(post(json{{"url", seed}, {"profile", "everything"}}.dump()), 400, "out_of_range");
  check_error(post(json{{"url", seed}, {"scope", "everything"}}.dump()), 400, "out_of_range");
  check_error(post(json{{"url", seed}, {"scope", 1}}.dump()), 400, "invalid_type");
  // A number past 2^63 is named as written, not as what it wrapped to.
  auto huge = post(R"({"url": ")" + seed + R"(", "max_pages": 18446744073709551615})");
  check_error(huge, 400, "out_of_range");
  CHECK(huge->body.find("got 18446744073709551615") != std::string::npos);
  // What the crawl would refuse when it starts is refused before the 202,
  // by the same check: host names, ports, patterns, the profile's keys, a
  // seed outside the scope.
  for (const json& domains : {json{"a b"}, json{"[::1"}, json{"127.0.0.1:99999"}}) {
    INFO(domains.dump());
    check_error(post(json{{"url", seed}, {"allowed_domains", domains}}.dump()), 400, "invalid_job");
  }
  check_error(post(json{{"url", seed}, {"allowed_domains", {"127.0.0.2"}}}.dump()), 400, "invalid_job");
  check_error(post(json{{"url", seed}, {"profile", "domains"}, {"scope", "any"}}.dump()), 400, "invalid_job");
  // Extraction rules are the crawl's to check: a bad one is a 400 naming it.
  auto rules = post(json{{"url", seed}, {"extract", {{{"name", "product"}, {"fields", {{"price", {{"xpath", "//span["}}}}}}}}}.dump());
  check_error(rules, 400, "invalid_job");
  CHECK(rules->body.find("'price'") != std::string::npos);
  check_error(post(json{{"url", seed}, {"extract", "h1"}}.dump()), 400, "invalid_type");
  check_error(post(json{{"url", seed}, {"profile", "domains"}, {"allowed_domains", {"127.0.0.1"}}}.dump()), 400,
              "invalid_job");
  check_error(post(json{{"url", seed + std::string(2000, 'a')}}.dump()), 413, "body_too_large");
  // A job is JSON: a form post, which any web page may send, starts nothing.
  check_error(c.Post("/crawl", "url=x", "application/x-www-form-urlencoded"), 415, "unsupported_media_type");
  check_error(c.Get("/crawl/crawl_99"), 404, "job_not_found");
  check_error(c.Get("/crawl/crawl_99/graph"), 404, "job_not_found");
  check_error(c.Delete("/crawl/crawl_99"), 404, "job_not_found");
  check_error(c.Get("/no/such/route"), 404, "not_found");
  // A known path with another method: 405 and the methods it does answer.
  auto put = c.Put("/crawl", "{}", "application/json");
  check_error(put, 405, "method_not_allowed");
  CHECK(put->get_header_value("Allow") == "GET, HEAD, POST");
  auto patch = c.Patch("/crawl/crawl_1", "{}", "application/json");
  check_error(patch, 405, "method_not_allowed");
  CHECK(patch->get_header_value("Allow") == "GET, HEAD, DELETE");
  check_error(c.Delete("/healthz"), 405, "method_not_allowed");
  CHECK(body_of(c.Get("/crawl")).at("jobs").empty());
  CHECK(web.requests().empty());
}

TEST_CASE("serve: concurrent jobs stay apart, beyond the limit a job is refused with 429",
          "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto slow_a = chain_web(web, "127.0.0.1", 12, 100);
  const auto slow_b = chain_web(web, "127.0.0.2", 12, 100);
  Service service(dir, {"--allow-private-networks", "--max-concurrent-jobs", "2"});
  auto c = service.client();
  const auto a = start_job(c, json{{"url", slow_a}, {"max_pages", 12}});
  const auto b = start_job(c, json{{"url", slow_b}, {"max_pages", 12}});
  check_error(c.Post("/crawl", json{{"url", slow_a}}.dump(), "application/json"), 429, "too_many_jobs");

  const auto job_a = wait_for_status(c, a, {"completed"});
  const auto job_b = wait_for_status(c, b, {"completed"});
  // Each job crawled its own web, all of it, and nothing of the other's:
  // separate frontiers, so the same URL in two jobs is fetched by both.
  auto hosts_of = [](const json& job) {
    std::set<std::string> hosts;
    for (const auto& p : job.at("pages"))
      hosts.insert(p.at("url").get<std::string>().substr(0, 17));
    return hosts;
  };
  CHECK(job_a.at("pages").size() == 12);
  CHECK(job_b.at("pages").size() == 12);
  CHECK(hosts_of(job_a) == std::set<std::string>{"http://127.0.0.1:"});
  CHECK(hosts_of(job_b) == std::set<std::string>{"http://127.0.0.2:"});
  // Both ran at once: their crawls overlapped in time.
  CHECK(job_a.at("started_at").get<std::int64_t>() < job_b.at("ended_at").get<std::int64_t>());
  CHECK(job_b.at("started_at").get<std::int64_t>() < job_a.at("ended_at").get<std::int64_t>());
  // Slots are free again.
  const auto again = start_job(c, json{{"url", slow_a}, {"max_pages", 2}});
  wait_for_status(c, again, {"completed"});
  const auto list = body_of(c.Get("/crawl")).at("jobs");
  REQUIRE(list.size() == 3);
  CHECK(list[0].at("id") == again);  // newest first
}

TEST_CASE("serve: cancel ends in-flight work and keeps what was crawled, pages are paginated",
          "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto slow = chain_web(web, "127.0.0.1", 60, 100);
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();
  const auto id = start_job(c, json{{"url", slow}, {"max_pages", 60}});
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (page_requests(web) < 5 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  auto r = c.Delete(("/crawl/" + id).c_str());
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(json::parse(r->body) == json{{"job_id", id}, {"status", "cancelled"}});
  const auto job = wait_for_status(c, id, {"cancelled"});
  const auto kept = job.at("pages").size();
  CHECK(kept >= 4);
  CHECK(kept < 60);
  check_error(c.Delete(("/crawl/" + id).c_str()), 409, "job_finished");
  // No request after the cancel was answered.
  const auto seen = page_requests(web);
  std::this_thread::sleep_for(300ms);
  CHECK(page_requests(web) == seen);

  // Pagination over what it kept.
  auto first = body_of(c.Get(("/crawl/" + id + "?offset=0&limit=2").c_str())).at("job");
  CHECK(first.at("pages").size() == 2);
  CHECK(first.at("pages_total") == kept);
  CHECK(first.at("offset") == 0);
  CHECK(first.at("limit") == 2);
  auto tail = body_of(c.Get(("/crawl/" + id + "?offset=" + std::to_string(kept - 1) + "&limit=10").c_str()));
  CHECK(tail.at("job").at("pages").size() == 1);
  check_error(c.Get(("/crawl/" + id + "?limit=0").c_str()), 400, "out_of_range");
  check_error(c.Get(("/crawl/" + id + "?limit=5000").c_str()), 400, "out_of_range");
  check_error(c.Get(("/crawl/" + id + "?offset=-1").c_str()), 400, "invalid_parameter");
}

TEST_CASE("serve: a job survives a crash of the service and is resumed on restart", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto slow = chain_web(web, "127.0.0.1", 40, 60);
  std::string id;
  {
    Service first(dir, {"--allow-private-networks"}, "first.log");
    auto c = first.client();
    id = start_job(c, json{{"url", slow}, {"max_pages", 40}});
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (page_requests(web) < 10 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
    first.process().signal(SIGKILL);
    REQUIRE(first.process().wait(10s).has_value());
  }
  Service second(dir, {"--allow-private-networks"}, "second.log");
  CHECK(second.process().output().find("resuming job " + id) != std::string::npos);
  auto c = second.client();
  const auto job = wait_for_status(c, id, {"completed"});
  // Every page exactly once, though the crawl spanned two processes.
  CHECK(job.at("pages").size() == 40);
  std::set<std::string> urls;
  for (const auto& p : job.at("pages"))
    CHECK(urls.insert(p.at("url").get<std::string>()).second);
  // A later job gets the next id: the table is the source of truth.
  CHECK(start_job(c, json{{"url", slow}, {"max_pages", 1}}) == "crawl_2");
}

TEST_CASE("serve: a cancel is written at once: killed before the job wound down, the service restarts it cancelled",
          "[integration][service][cancel]") {
  ScratchDir dir;
  LoopbackWeb web;
  // The root links to pages that take 20 s each (the request timeout is
  // 30 s): once the cancel is asked for, the job waits for the page in
  // flight, and the service is killed meanwhile.
  auto h = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 1; i <= 8; ++i) {
    links.push_back("/p" + std::to_string(i));
    auto slow = html(page("P" + std::to_string(i), {}));
    slow.delay_ms = 20000;
    web.route(h, "/p" + std::to_string(i), slow);
  }
  web.route(h, "/", html(page("Root", links)));
  std::string id;
  {
    Service first(dir, {"--allow-private-networks", "--request-timeout-ms", "30000"}, "first.log");
    auto c = first.client();
    id = start_job(c, json{{"url", LoopbackWeb::url(h, "/")}, {"max_pages", 9}});
    auto until = std::chrono::steady_clock::now() + 30s;
    while (page_requests(web) < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
    REQUIRE(page_requests(web) >= 2);
    // DELETE answers once the job has stopped, which the slow page holds
    // up: it is sent from a thread of its own.
    std::thread canceller([&] { first.client().Delete(("/crawl/" + id).c_str()); });
    json job;
    until = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < until) {
      job = body_of(c.Get(("/crawl/" + id).c_str())).at("job");
      if (!job.at("cancel_requested_at").is_null())
        break;
      std::this_thread::sleep_for(10ms);
    }
    INFO(job.dump());
    CHECK(job.at("cancel_requested_at").is_number());
    CHECK(job.at("status") == "running");
    first.process().signal(SIGKILL);
    REQUIRE(first.process().wait(10s).has_value());
    canceller.join();
  }
  const auto requests_before = page_requests(web);

  Service second(dir, {"--allow-private-networks"}, "second.log");
  INFO(second.process().output());
  CHECK(second.process().output().find("resuming job " + id) == std::string::npos);
  CHECK(second.process().output().find("job " + id + " was being cancelled when the service stopped") !=
        std::string::npos);
  auto c = second.client();
  const auto job = body_of(c.Get(("/crawl/" + id).c_str())).at("job");
  CHECK(job.at("status") == "cancelled");
  CHECK(job.at("error") == "cancelled");
  CHECK(job.at("ended_at").is_number());
  CHECK(job.at("cancel_requested_at").is_number());
  CHECK(job.at("pages_fetched") == job.at("pages").size());
  check_error(c.Delete(("/crawl/" + id).c_str()), 409, "job_finished");
  // Nothing more was fetched for it.
  std::this_thread::sleep_for(500ms);
  CHECK(page_requests(web) == requests_before);
}

TEST_CASE("serve: jobs may not fetch private addresses unless the service allows it", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 3, 0);
  Service service(dir);
  auto c = service.client();
  // robots.txt first: the host is refused as a whole before anything is
  // sent, and a job whose every seed is refused has failed, saying why and
  // what would allow it.
  const auto refused = wait_for_status(c, start_job(c, json{{"url", seed}, {"max_pages", 3}}), {"failed", "completed"});
  CHECK(refused.at("status") == "failed");
  CHECK(refused.at("pages").empty());
  const std::string why = refused.at("error");
  CHECK(why.find(seed + ": its address is private, loopback or link-local (private_address)") != std::string::npos);
  CHECK(why.find("--allow-private-networks") != std::string::npos);
  // Without robots.txt the page itself is refused, and counted by reason.
  const auto id = start_job(c, json{{"url", seed}, {"max_pages", 3}, {"respect_robots_txt", false}});
  const auto job = wait_for_status(c, id, {"failed", "completed"});
  CHECK(job.at("status") == "failed");
  CHECK(job.at("error").get<std::string>().find("(private_address)") != std::string::npos);
  CHECK(web.requests().empty());
  CHECK(job.at("pages_failed") == 1);
  auto metrics = c.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->body.find(R"(actorcrawl_pages_failed_total{reason="private_address"} 1)") != std::string::npos);
  // Every spelling of the address is judged by the address it means.
  for (const std::string spelling : {"0x7f.1", "2130706433", "0177.0.0.1", "127.1"}) {
    std::string url = seed;
    url.replace(url.find("127.0.0.1"), 9, spelling);
    INFO(url);
    const auto other = wait_for_status(
      c, start_job(c, json{{"url", url}, {"max_pages", 3}, {"respect_robots_txt", false}}), {"failed"});
    CHECK(other.at("pages_failed") == 1);
    CHECK(other.at("seed_url").get<std::string>().find("127.0.0.1") != std::string::npos);
  }
  CHECK(web.requests().empty());
  const auto log = service.process().output();
  CHECK(log.find("is on a private, loopback or link-local address") != std::string::npos);
  CHECK(log.find("could not register with the host selector") == std::string::npos);
}

TEST_CASE("serve: a job's scope: domain stays on the seed's site, any follows links to other hosts",
          "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  // Seed 000's example: a page linking to another site.
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  web.route(a, "/", html(page("Example", {LoopbackWeb::url(b, "/domains"), "/about"})));
  web.route(a, "/about", html(page("About", {})));
  web.route(b, "/domains", html(page("Domains", {LoopbackWeb::url(b, "/deeper")})));
  web.route(b, "/deeper", html(page("Deeper", {})));
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();
  const auto seed = LoopbackWeb::url(a, "/");
  auto urls_of = [](const json& job) {
    std::set<std::string> out;
    for (const auto& p : job.at("pages"))
      out.insert(p.at("url").get<std::string>());
    return out;
  };
  const auto domain = wait_for_status(c, start_job(c, json{{"url", seed}, {"max_pages", 10}}), {"completed"});
  CHECK(urls_of(domain) == std::set<std::string>{seed, LoopbackWeb::url(a, "/about")});
  const auto any =
    wait_for_status(c, start_job(c, json{{"url", seed}, {"max_pages", 10}, {"scope", "any"}}), {"completed"});
  CHECK(urls_of(any) == std::set<std::string>{seed, LoopbackWeb::url(a, "/about"), LoopbackWeb::url(b, "/domains"),
                                              LoopbackWeb::url(b, "/deeper")});
  // Bounded by max_depth like any crawl.
  const auto shallow = wait_for_status(
    c, start_job(c, json{{"url", seed}, {"max_pages", 10}, {"scope", "any"}, {"max_depth", 1}}), {"completed"});
  CHECK(urls_of(shallow) == std::set<std::string>{seed, LoopbackWeb::url(a, "/about"), LoopbackWeb::url(b, "/domains")});
  // allowed_domains narrows `any`.
  const auto narrowed = wait_for_status(
    c, start_job(c, json{{"url", seed}, {"max_pages", 10}, {"scope", "any"}, {"allowed_domains", {"127.0.0.1"}}}),
    {"completed"});
  CHECK(urls_of(narrowed) == std::set<std::string>{seed, LoopbackWeb::url(a, "/about")});
  // The request is kept with the job, scope included.
  CHECK(body_of(c.Get("/crawl")).at("jobs").size() == 4);
}

TEST_CASE("serve: a bearer token guards every route but /healthz", "[integration][service]") {
  ScratchDir dir;
  Service service(dir, {"--token", "s3cret"});
  auto anonymous = service.client();
  CHECK(anonymous.Get("/healthz")->status == 200);
  check_error(anonymous.Get("/crawl"), 401, "unauthorized");
  check_error(anonymous.Get("/metrics"), 401, "unauthorized");
  check_error(anonymous.Get("/"), 401, "unauthorized");
  check_error(anonymous.Post("/crawl", "{}", "application/json"), 401, "unauthorized");
  auto wrong = service.client("guess");
  check_error(wrong.Get("/crawl"), 401, "unauthorized");
  auto right = service.client("s3cret");
  CHECK(right.Get("/crawl")->status == 200);
  CHECK(anonymous.Get("/crawl?access_token=s3cret")->status == 200);
}

TEST_CASE("serve: live events, the domain graph and the metrics of a job", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto [a, b, h3] = three_host_loop(web, {"Home of A", "Home of B", "Home of C"}, 150);
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();
  const auto id = start_job(c, json{{"url", LoopbackWeb::url(a, "/")}, {"max_pages", 10},
                                    {"allowed_domains", {"127.0.0.1", "127.0.0.2", "127.0.0.3"}}});
  // The event stream, read to its end.
  std::string stream;
  auto events = service.client();
  auto r = events.Get(("/crawl/" + id + "/events").c_str(), [&](const char* data, std::size_t n) {
    stream.append(data, n);
    return true;
  });
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "text/event-stream");
  INFO(stream);
  CHECK(stream.find("event: progress\n") != std::string::npos);
  CHECK(stream.find("event: page\n") != std::string::npos);
  CHECK(stream.find("\"url\":\"" + LoopbackWeb::url(b, "/") + "\"") != std::string::npos);
  CHECK(stream.find("event: end\ndata: {\"status\":\"completed\"}") != std::string::npos);

  const auto graph = body_of(c.Get(("/crawl/" + id + "/graph").c_str()));
  CHECK(graph.at("nodes").size() == 3);
  std::set<std::string> edges;
  for (const auto& e : graph.at("edges"))
    edges.insert(e.at("from").get<std::string>() + ">" + e.at("to").get<std::string>() + " " +
                 std::to_string(e.at("weight").get<int>()));
  CHECK(edges == std::set<std::string>{a + ">" + b + " 1", b + ">" + h3 + " 1", h3 + ">" + a + " 1"});

  auto metrics = c.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->get_header_value("Content-Type").find("text/plain; version=0.0.4") == 0);
  const auto& text = metrics->body;
  INFO(text);
  // The job is over: its own series ended with it (the next test follows
  // them while a job runs); what it did stays in the totals.
  CHECK(text.find("job=\"" + id + "\"") == std::string::npos);
  CHECK(text.find("actorcrawl_jobs{status=\"completed\"} 1") != std::string::npos);
  CHECK(text.find("actorcrawl_fetch_duration_seconds_count 3") != std::string::npos);
  CHECK(text.find("actorcrawl_fetch_duration_seconds_bucket{le=\"+Inf\"} 3") != std::string::npos);
  CHECK(text.find("# TYPE actorcrawl_mailbox_messages gauge") != std::string::npos);
  CHECK(text.find("# TYPE actorcrawl_bytes_fetched_total counter") != std::string::npos);
}

TEST_CASE("serve: a job's metric series exist while it runs and end with it", "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 40, 100);  // runs for seconds
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();
  const auto id = start_job(c, json{{"url", seed}, {"max_pages", 40}});
  const std::string label = "{job=\"" + id + "\"}";
  std::string text;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until &&
         text.find("actorcrawl_pages_fetched_total" + label) == std::string::npos) {
    text = c.Get("/metrics")->body;
    std::this_thread::sleep_for(20ms);
  }
  INFO(text);
  CHECK(text.find("actorcrawl_pages_fetched_total" + label) != std::string::npos);
  CHECK(text.find("actorcrawl_in_flight" + label) != std::string::npos);
  CHECK(text.find("actorcrawl_frontier_queued" + label) != std::string::npos);

  // Cancelled, it is over: none of its series stays at its last value.
  REQUIRE(c.Delete(("/crawl/" + id).c_str())->status == 200);
  wait_for_status(c, id, {"cancelled"});
  const auto after = c.Get("/metrics")->body;
  INFO(after);
  CHECK(after.find("job=\"" + id + "\"") == std::string::npos);
  CHECK(after.find("actorcrawl_jobs{status=\"cancelled\"} 1") != std::string::npos);
}

TEST_CASE("serve: event streams are capped, so open dashboards never take every request thread",
          "[integration][service]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 40, 300);  // runs for seconds
  Service service(dir, {"--allow-private-networks", "--max-event-streams", "2"});
  auto c = service.client();
  const auto id = start_job(c, json{{"url", seed}, {"max_pages", 40}});

  // Two streams held open until `close` (the server writes at least once a
  // second, which is when a receiver can say stop).
  std::atomic<bool> close{false};
  std::atomic<int> opened{0};
  auto hold = [&] {
    auto client = service.client();
    client.Get(("/crawl/" + id + "/events").c_str(), [&](const char*, std::size_t) {
      if (opened.load() < 3)
        ++opened;
      return !close.load();
    });
  };
  std::thread s1(hold), s2(hold);
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (opened.load() < 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  REQUIRE(opened.load() >= 2);

  // A third is refused at once, with the reason and when to retry...
  auto third = service.client();
  auto refused = third.Get(("/crawl/" + id + "/events").c_str());
  check_error(refused, 503, "too_many_streams");
  CHECK(refused->get_header_value("Retry-After") == "5");
  // ...and every other route still answers, many at once.
  std::vector<std::thread> callers;
  std::atomic<int> ok{0};
  for (int i = 0; i < 20; ++i)
    callers.emplace_back([&] {
      auto client = service.client();
      if (auto r = client.Get(("/crawl/" + id).c_str()); r && r->status == 200)
        ++ok;
    });
  for (auto& t : callers)
    t.join();
  CHECK(ok.load() == 20);
  CHECK(c.Get("/healthz")->status == 200);

  // Closed streams give their places back.
  close = true;
  s1.join();
  s2.join();
  bool reopened = false;
  for (int attempt = 0; attempt < 50 && !reopened; ++attempt) {
    auto again = service.client();
    std::string got;
    auto r = again.Get(("/crawl/" + id + "/events").c_str(), [&](const char* data, std::size_t n) {
      got.append(data, n);
      return false;  // the first chunk is enough
    });
    reopened = got.find("event: ") != std::string::npos;
    if (!reopened)
      std::this_thread::sleep_for(100ms);
  }
  CHECK(reopened);
  c.Delete(("/crawl/" + id).c_str());
}

TEST_CASE("serve: POST /crawl/{id}/redrive queues a finished job's dead letters and runs it again",
          "[integration][service][redrive]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/moved"})));
  web.route(h, "/moved", std::function<demoweb::Response(int)>([](int hit) {
              return hit == 1 ? redirect(302, "/moved") : html(page("Moved", {}));
            }));
  auto slow = chain_web(web, "127.0.0.2", 30, 200);
  Service service(dir, {"--allow-private-networks"});
  auto c = service.client();
  const auto id = start_job(c, json{{"url", LoopbackWeb::url(h, "/")}, {"max_pages", 10}});
  auto job = wait_for_status(c, id, {"completed"});
  REQUIRE(job.at("pages_failed") == 1);
  const std::string path = "/crawl/" + id + "/redrive";

  // A running job owns its database.
  const auto busy = start_job(c, json{{"url", slow}, {"max_pages", 30}});
  check_error(c.Post(("/crawl/" + busy + "/redrive").c_str(), "{}", "application/json"), 409, "job_running");
  c.Delete(("/crawl/" + busy).c_str());
  // Bad requests change nothing.
  check_error(c.Post("/crawl/crawl_99/redrive", "{}", "application/json"), 404, "job_not_found");
  check_error(c.Post(path.c_str(), "reason=redirect_loop", "application/x-www-form-urlencoded"), 415,
              "unsupported_media_type");
  check_error(c.Post(path.c_str(), R"({"reasons": "x"})", "application/json"), 400, "unknown_field");
  check_error(c.Post(path.c_str(), R"({"reason": 404})", "application/json"), 400, "invalid_type");
  check_error(c.Post(path.c_str(), R"({"older_than": "soon"})", "application/json"), 400, "invalid_type");
  check_error(c.Post(path.c_str(), "[1]", "application/json"), 400, "invalid_body");
  check_error(c.Post(path.c_str(), "{", "application/json"), 400, "malformed_json");
  auto other = body_of(c.Post(path.c_str(), R"({"reason": "http_500"})", "application/json"));
  CHECK(other.at("letters") == 0);
  CHECK(other.at("restarted") == false);

  auto r = c.Post(path.c_str(), R"({"reason": "redirect_loop", "older_than": "0s"})", "application/json");
  REQUIRE(r);
  INFO(r->body);
  CHECK(r->status == 200);
  const auto report = json::parse(r->body);
  CHECK(report.at("letters") == 1);
  CHECK(report.at("requeued") == 1);
  CHECK(report.at("by_reason").at("redirect_loop") == 1);
  CHECK(report.at("restarted") == true);
  // The job is queued again before the answer (JobStore::reopen), so this
  // waits for the re-driven run, not the first one's "completed".
  job = wait_for_status(c, id, {"completed"});
  CHECK(web.count(h, "/moved") == 2);
  CHECK(job.at("pages").size() == 2);
  bool moved = false;
  for (const auto& p : job.at("pages"))
    moved = moved || (p.at("url") == LoopbackWeb::url(h, "/moved") && p.at("title") == "Moved");
  CHECK(moved);
}

TEST_CASE("serve: a second service on the same directory exits 1, naming the first", "[integration][service][lock]") {
  ScratchDir dir;
  Service first(dir, {}, "first.log");
  ChildProcess second(ACTORCRAWL_BINARY, {"serve", "--listen", "127.0.0.1:0", "--db-dir", dir.path("service")},
                      dir.path("second.log"));
  const auto code = second.wait(20s);
  REQUIRE(code.has_value());
  INFO(second.output());
  CHECK(*code == 1);
  CHECK(second.output().find("service.db' is in use by another actorcrawl (pid " +
                             std::to_string(first.process().pid()) + " on host ") != std::string::npos);
  // The first goes on serving.
  auto health = first.client().Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
}

TEST_CASE("serve: a second service on the same port exits 1, naming the address", "[integration][service][lock]") {
  ScratchDir dir;
  Service first(dir, {}, "first.log");
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  // Another directory, so only the port is shared.
  ChildProcess second(ACTORCRAWL_BINARY, {"serve", "--listen", address, "--db-dir", dir.path("other")},
                      dir.path("second.log"));
  const auto code = second.wait(20s);
  INFO(second.output());
  REQUIRE(code.has_value());
  CHECK(*code == 1);
  CHECK(second.output().find("cannot listen on " + address + ": Address already in use") != std::string::npos);
  CHECK(second.output().find("service listening on") == std::string::npos);
  // Every connection still reaches the first.
  for (int i = 0; i < 8; ++i) {
    auto health = first.client().Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
  }
}

namespace {

// A finished job of `pages` pages on `host` (http://host/0, /1, ...),
// written straight into a service directory, as a crawl would have left
// it, `fill` giving page `p` what the test needs (links, items, processor
// failures); returns its id. The service must not run yet: it holds the
// job table.
std::string seed_finished_job(const std::string& service_dir, const std::string& host, int pages,
                              const std::function<void(int p, PageRow& page)>& fill) {
  std::filesystem::create_directories(service_dir + "/jobs");
  JobStore jobs(service_dir + "/service.db");
  const auto now = epoch_ms();
  const std::string seed = "http://" + host + "/";
  const auto row = jobs.create(seed, pages, json{{"url", seed}}.dump(), service_dir + "/jobs", now);
  REQUIRE(jobs.set_running(row.id, now));
  CrawlStore db(row.db_path);
  for (int p = 0; p < pages; ++p) {
    PageRow page;
    page.url = seed + std::to_string(p);
    page.host_key = host;
    page.status_code = 200;
    page.title = "Page " + std::to_string(p);
    page.fetched_at_ms = now;
    fill(p, page);
    db.record_page(page);
  }
  db.flush();
  jobs.set_finished(row.id, JobStatus::completed, now, "", pages, 0);
  return row.id;
}

// ... of `pages` pages with `links` links of about 950 bytes each.
std::string seed_finished_job(const std::string& service_dir, int pages, int links) {
  return seed_finished_job(service_dir, "long.test", pages, [links](int p, PageRow& page) {
    for (int l = 0; l < links; ++l)
      page.links.push_back({"http://long.test/" + std::to_string(p) + "/" + std::to_string(l) + "/" +
                              std::string(920, 'x'),
                            false});
  });
}

// Reads answers from `first` on, following `next` until it is null (at
// most 10,000 answers: a loop that never ends is a failure too); every
// body is checked against the 1 MiB budget, and each answer (its "job"
// object when it has one) handed to `take`. Returns how many answers.
std::size_t follow_next(int port, const std::string& first, const std::function<void(const json&)>& take) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(60, 0);
  std::string target = first;
  std::size_t n = 0;
  while (!target.empty() && n < 10000) {
    auto r = c.Get(target.c_str());
    REQUIRE(r);
    REQUIRE(r->status == 200);
    CHECK(r->body.size() <= std::size_t{1} << 20);
    auto answer = json::parse(r->body);
    if (answer.contains("job"))
      answer = answer.at("job");
    take(answer);
    target = answer.at("next").is_null() ? "" : answer.at("next").get<std::string>();
    ++n;
  }
  return n;
}

// A job's pages read from `first` through `next`: each page's links in the
// order they came.
std::map<std::string, std::vector<std::string>> read_all_pages(int port, const std::string& first,
                                                              std::size_t* answers = nullptr) {
  std::map<std::string, std::vector<std::string>> links;
  const auto n = follow_next(port, first, [&](const json& job) {
    for (const auto& p : job.at("pages"))
      for (const auto& l : p.at("links"))
        links[p.at("url").get<std::string>()].push_back(l.get<std::string>());
  });
  if (answers)
    *answers = n;
  return links;
}

// Peak resident memory of a process so far (VmHWM), in KiB.
std::int64_t peak_rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stoll(line.substr(6));
  return -1;
}

}  // namespace

TEST_CASE("serve: an answer's body is bounded in bytes, and next reads the rest, every link once",
          "[integration][service][budget]") {
  ScratchDir dir;
  constexpr int kPages = 100, kLinks = 1000;
  const auto id = seed_finished_job(dir.path("service"), kPages, kLinks);
  Service service(dir);

  // The largest window the API takes: 100 pages of 1,000 links, ~95 MB.
  std::size_t answers = 0;
  const auto links = read_all_pages(service.port(), "/crawl/" + id + "?limit=100&links_limit=1000", &answers);
  CHECK(answers >= kPages * kLinks * 950 / (1 << 20));  // ~95 MB in answers of 1 MiB at most
  REQUIRE(links.size() == kPages);
  for (int p = 0; p < kPages; ++p) {
    const auto& got = links.at("http://long.test/" + std::to_string(p));
    REQUIRE(got.size() == kLinks);
    for (int l = 0; l < kLinks; ++l)
      CHECK(got[l].rfind("http://long.test/" + std::to_string(p) + "/" + std::to_string(l) + "/", 0) == 0);
  }

  // A page cut by the budget goes on in the next answer, from the link
  // where it stopped.
  auto c = service.client();
  const auto cut = body_of(c.Get(("/crawl/" + id + "?limit=2&links_limit=1000").c_str())).at("job");
  CHECK(cut.at("truncated") == true);
  CHECK(cut.at("limit") == 2);
  CHECK(cut.at("pages_total") == kPages);
  const auto& cut_pages = cut.at("pages");
  REQUIRE(!cut_pages.empty());
  const auto next = cut.at("next").get<std::string>();
  const auto rest = body_of(c.Get(next.c_str())).at("job");
  if (cut_pages.back().at("links").size() < kLinks) {
    CHECK(next.find("first_links_offset=" + std::to_string(cut_pages.back().at("links").size())) !=
          std::string::npos);
    CHECK(rest.at("pages").at(0).at("url") == cut_pages.back().at("url"));
  }
  // Small windows are whole, with the window after them as next.
  const auto small = body_of(c.Get(("/crawl/" + id + "?offset=98&limit=1&links_limit=3").c_str())).at("job");
  CHECK(small.at("truncated") == false);
  CHECK(small.at("pages").size() == 1);
  CHECK(small.at("next") == "/crawl/" + id + "?offset=99&limit=1&links_offset=0&links_limit=3");
  const auto last = body_of(c.Get(small.at("next").get<std::string>().c_str())).at("job");
  CHECK(last.at("next").is_null());
  check_error(c.Get(("/crawl/" + id + "?links_limit=10&first_links_offset=11").c_str()), 400, "out_of_range");

  // Four such reads at once, twice: the service holds a few answers at a
  // time, never a job's worth of them. (95 MB bodies built from a JSON tree
  // took it past 1 GB; a generous bound well below that.)
  for (int round = 0; round < 2; ++round) {
    std::vector<std::thread> readers;
    std::atomic<int> complete{0};
    for (int r = 0; r < 4; ++r)
      readers.emplace_back([&] {
        if (read_all_pages(service.port(), "/crawl/" + id + "?limit=100&links_limit=1000").size() == kPages)
          ++complete;
      });
    for (auto& t : readers)
      t.join();
    CHECK(complete.load() == 4);
  }
  const auto peak_kib = peak_rss_kib(service.process().pid());
  INFO("peak RSS " << peak_kib << " KiB");
  CHECK(peak_kib > 0);
  CHECK(peak_kib < 256 * 1024);
}

TEST_CASE("serve: the job list and a job's graph are bounded in bytes too", "[integration][service][budget]") {
  ScratchDir dir;
  const std::string service_dir = dir.path("service");
  std::filesystem::create_directories(service_dir + "/jobs");
  std::string graph_job;
  {
    // 1,200 jobs whose seed URLs are 2 KB: 2.4 MB of job list.
    JobStore jobs(service_dir + "/service.db");
    const auto now = epoch_ms();
    for (int i = 0; i < 1200; ++i) {
      const std::string url = "http://long.test/" + std::to_string(i) + "/" + std::string(2000, 'j');
      const auto row = jobs.create(url, 1, json{{"url", url}}.dump(), service_dir + "/jobs", now);
      jobs.set_running(row.id, now);
      jobs.set_finished(row.id, JobStatus::completed, now, "", 0, 0);
      graph_job = row.id;
    }
    // A graph of 3,000 hosts with long descriptions (~1.5 MB), in a chain.
    CrawlStore db(service_dir + "/jobs/" + graph_job + ".db");
    for (int h = 0; h < 3000; ++h) {
      PageRow page;
      page.host_key = "h" + std::to_string(h) + ".test";
      page.url = "http://" + page.host_key + "/";
      page.status_code = 200;
      page.description = std::string(500, 'd');
      page.links = {{"http://h" + std::to_string(h + 1) + ".test/", false}};
      page.link_host_keys = {"h" + std::to_string(h + 1) + ".test"};
      db.record_page(page);
    }
    db.flush();
  }
  Service service(dir);

  std::set<std::string> listed;
  const auto list_answers = follow_next(service.port(), "/crawl", [&](const json& answer) {
    for (const auto& job : answer.at("jobs"))
      CHECK(listed.insert(job.at("id").get<std::string>()).second);
  });
  CHECK(listed.size() == 1200);
  CHECK(list_answers >= 3);

  std::set<std::string> nodes, edges;
  const auto graph_answers = follow_next(service.port(), "/crawl/" + graph_job + "/graph", [&](const json& graph) {
    CHECK(graph.at("nodes_total") == 3001);
    for (const auto& n : graph.at("nodes"))
      CHECK(nodes.insert(n.at("id").get<std::string>()).second);
    for (const auto& e : graph.at("edges"))
      CHECK(edges.insert(e.at("from").get<std::string>() + ">" + e.at("to").get<std::string>()).second);
  });
  CHECK(nodes.size() == 3001);
  CHECK(edges.size() == 3000);
  CHECK(graph_answers >= 2);
}

TEST_CASE("serve: GET /crawl/{id}/export streams what actorcrawl export writes", "[integration][service][export]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto seed = chain_web(web, "127.0.0.1", 12, 0);
  Service service(dir, {"--allow-private-networks", "--token", "s3cret"});
  auto c = service.client("s3cret");
  const auto id = start_job(c, json{{"url", seed}, {"max_pages", 12}});
  wait_for_status(c, id, {"completed"});

  // Read as it arrives, in chunks: the body is never one Content-Length.
  std::string body;
  std::size_t chunks = 0;
  auto r = c.Get(("/crawl/" + id + "/export?format=jsonl").c_str(), [&](const char* data, std::size_t n) {
    body.append(data, n);
    ++chunks;
    return true;
  });
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "application/x-ndjson; charset=utf-8");
  CHECK(r->get_header_value("Content-Disposition") == "attachment; filename=\"crawl_1.jsonl\"");
  CHECK(r->get_header_value("Transfer-Encoding") == "chunked");
  CHECK_FALSE(r->has_header("Content-Length"));
  CHECK(chunks >= 1);

  // The same bytes as the command line's export of the job's database.
  const auto db = dir.path("service") + "/jobs/" + id + ".db";
  REQUIRE(std::filesystem::exists(db));
  const std::string cli_out = dir.path("cli.jsonl");
  REQUIRE(std::system((std::string{ACTORCRAWL_BINARY} + " export --db " + db + " --format jsonl --output " +
                       cli_out).c_str()) == 0);
  std::ifstream cli(cli_out);
  std::stringstream expected;
  expected << cli.rdbuf();
  CHECK(body == expected.str());
  CHECK(std::count(body.begin(), body.end(), '\n') == 12);

  auto graph = c.Get(("/crawl/" + id + "/export?format=graphml&graph=pages").c_str());
  REQUIRE(graph);
  CHECK(graph->status == 200);
  CHECK(graph->get_header_value("Content-Type") == "application/graphml+xml; charset=utf-8");
  CHECK(graph->get_header_value("Content-Disposition") == "attachment; filename=\"crawl_1_pages.graphml\"");
  CHECK(graph->body.rfind("</graphml>\n") == graph->body.size() - 11);

  // Errors name the parameter; the API's token, Host and Origin rules hold.
  check_error(c.Get(("/crawl/" + id + "/export").c_str()), 400, "missing_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=xlsx").c_str()), 400, "invalid_parameter");
  CHECK(json::parse(c.Get(("/crawl/" + id + "/export?format=xlsx").c_str())->body).at("error").at("message") ==
        "format: 'xlsx' is not one of jsonl, csv, graphml, gexf, dot, items, items-csv, changes");
  check_error(c.Get(("/crawl/" + id + "/export?format=dot&graph=hosts").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=csv&graph=pages").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=csv&kind=product").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=items&graph=pages").c_str()), 400, "invalid_parameter");
  // The item formats: this crawl ran no extraction rule, so it has none.
  check_error(c.Get(("/crawl/" + id + "/export?format=items-csv").c_str()), 400, "missing_parameter");
  CHECK(json::parse(c.Get(("/crawl/" + id + "/export?format=items-csv").c_str())->body).at("error").at("message") ==
        "kind is required for items-csv (its columns are one kind's fields): the crawl has no items");
  auto items = c.Get(("/crawl/" + id + "/export?format=items-csv&kind=product").c_str());
  REQUIRE(items);
  CHECK(items->status == 200);
  CHECK(items->get_header_value("Content-Type") == "text/csv; charset=utf-8; header=present");
  CHECK(items->get_header_value("Content-Disposition") == "attachment; filename=\"crawl_1_items.csv\"");
  CHECK(items->body == "url\r\n");
  items = c.Get(("/crawl/" + id + "/export?format=items").c_str());
  REQUIRE(items);
  CHECK(items->status == 200);
  CHECK(items->get_header_value("Content-Disposition") == "attachment; filename=\"crawl_1_items.jsonl\"");
  CHECK(items->body.empty());
  // What changed, as `actorcrawl export --format changes` writes it: one run,
  // every page new, so nothing unless new pages are asked for, and none
  // after run 1.
  const auto changes_of = [&](const std::string& query) {
    auto r = c.Get(("/crawl/" + id + "/export?format=changes" + query).c_str());
    REQUIRE(r);
    CHECK(r->status == 200);
    return r->body;
  };
  CHECK(changes_of("").empty());
  CHECK(changes_of("&include_new=false").empty());
  const std::string with_new = changes_of("&include_new=true");
  CHECK(std::count(with_new.begin(), with_new.end(), '\n') == 12);
  for (std::size_t at = 0, end; (end = with_new.find('\n', at)) != std::string::npos; at = end + 1) {
    const auto line = json::parse(with_new.substr(at, end - at));
    CHECK(line.at("change") == "new");
    CHECK(line.at("run") == 1);
  }
  CHECK(changes_of("&include_new=true&since=1").empty());
  check_error(c.Get(("/crawl/" + id + "/export?format=jsonl&since=1").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=csv&include_new=true").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=changes&include_new=yes").c_str()), 400, "invalid_parameter");
  check_error(c.Get(("/crawl/" + id + "/export?format=changes&since=-1").c_str()), 400, "invalid_parameter");
  check_error(c.Get("/crawl/crawl_99/export?format=csv"), 404, "job_not_found");
  check_error(c.Post(("/crawl/" + id + "/export?format=csv").c_str(), "", "text/plain"), 405, "method_not_allowed");
  auto anonymous = service.client();
  check_error(anonymous.Get(("/crawl/" + id + "/export?format=csv").c_str()), 401, "unauthorized");
  CHECK(anonymous.Get(("/crawl/" + id + "/export?format=csv&access_token=s3cret").c_str())->status == 200);
  check_error(c.Get(("/crawl/" + id + "/export?format=csv").c_str(), {{"Host", "evil.example"}}), 421,
              "host_not_allowed");
  check_error(c.Get(("/crawl/" + id + "/export?format=csv").c_str(), {{"Origin", "http://evil.example"}}), 403,
              "origin_not_allowed");
}

namespace {

// Every item of a job read from `first` through `next`, in the order they came.
std::vector<json> read_all_items(int port, const std::string& first, std::size_t* answers = nullptr) {
  std::vector<json> items;
  const auto n = follow_next(port, first, [&](const json& answer) {
    for (const auto& item : answer.at("items"))
      items.push_back(item);
  });
  if (answers)
    *answers = n;
  return items;
}

}  // namespace

TEST_CASE("serve: GET /crawl/{id}/items pages through a job's items, of one kind or all",
          "[integration][service][items]") {
  ScratchDir dir;
  // 30 pages, three items each: two products, one of a kind whose name
  // needs quoting in a query; every third page has processor failures.
  const std::string odd_kind = "a&b c=d";
  int n = 0;
  const auto id = seed_finished_job(dir.path("service"), "shop.test", 30, [&](int p, PageRow& page) {
    for (int i = 0; i < 2; ++i)
      page.items.push_back({"product", json{{"n", n++},
                                            {"name", "Thing " + std::to_string(p) + "." + std::to_string(i)},
                                            {"price", {{"amount", 9.5}, {"currency", "EUR"}}},
                                            {"tags", {"<b>", "ünïcode"}}}
                                         .dump()});
    page.items.push_back({odd_kind, json{{"n", n++}, {"page", p}}.dump()});
    if (p % 3 == 0)
      page.processor_failures.push_back({"classifier", "timeout", "no answer within 5 s"});
    if (p % 5 == 0)
      page.processor_failures.push_back({"classifier", "crashed", "exit 134"});
    if (p == 7)
      page.processor_failures.push_back({"summarizer", "bad_answer", "not JSON"});
  });
  Service service(dir);
  auto c = service.client();

  // The job's counts.
  const auto job = body_of(c.Get(("/crawl/" + id + "?limit=1").c_str())).at("job");
  CHECK(job.at("items_total") == 90);
  CHECK(job.at("processor_failures") ==
        json{{"classifier", {{"crashed", 6}, {"timeout", 10}}}, {"summarizer", {{"bad_answer", 1}}}});

  // The first answer's shape.
  const auto first = body_of(c.Get(("/crawl/" + id + "/items?limit=4").c_str()));
  CHECK(first.at("job_id") == id);
  CHECK(first.at("offset") == 0);
  CHECK(first.at("limit") == 4);
  CHECK(first.at("kind").is_null());
  CHECK(first.at("items_total") == 90);
  CHECK(first.at("truncated") == false);
  CHECK(first.at("next") == "/crawl/" + id + "/items?offset=4&limit=4");
  REQUIRE(first.at("items").size() == 4);
  const auto& item0 = first.at("items")[0];
  CHECK(item0.size() == 3);
  CHECK(item0.at("url") == "http://shop.test/0");
  CHECK(item0.at("kind") == "product");
  CHECK(item0.at("item") == json{{"n", 0},
                                 {"name", "Thing 0.0"},
                                 {"price", {{"amount", 9.5}, {"currency", "EUR"}}},
                                 {"tags", {"<b>", "ünïcode"}}});
  CHECK(first.at("items")[2].at("kind") == odd_kind);
  CHECK(first.at("items")[3].at("url") == "http://shop.test/1");

  // Following next from offset 0 reads every item once, in the order stored.
  std::size_t answers = 0;
  const auto all = read_all_items(service.port(), "/crawl/" + id + "/items?limit=7", &answers);
  REQUIRE(all.size() == 90);
  CHECK(answers == 13);
  for (int i = 0; i < 90; ++i)
    CHECK(all[i].at("item").at("n") == i);

  // One kind: its own total, and next keeps the kind (quoted).
  const auto products = read_all_items(service.port(), "/crawl/" + id + "/items?kind=product&limit=25");
  REQUIRE(products.size() == 60);
  for (const auto& item : products)
    CHECK(item.at("kind") == "product");
  const auto odd = body_of(c.Get(("/crawl/" + id + "/items?limit=10&kind=a%26b%20c%3Dd").c_str()));
  CHECK(odd.at("kind") == odd_kind);
  CHECK(odd.at("items_total") == 30);
  REQUIRE(odd.at("items").size() == 10);
  CHECK(odd.at("items")[9].at("item") == json{{"n", 29}, {"page", 9}});
  const auto odd_next = odd.at("next").get<std::string>();
  CHECK(odd_next.find("offset=10") != std::string::npos);
  CHECK(odd_next.find("kind=a%26b%20c%3Dd") != std::string::npos);
  CHECK(read_all_items(service.port(), odd_next).size() == 20);
  const auto none = body_of(c.Get(("/crawl/" + id + "/items?kind=review").c_str()));
  CHECK(none.at("items").empty());
  CHECK(none.at("items_total") == 0);
  CHECK(none.at("next").is_null());

  // The end of the list, and past it.
  const auto tail = body_of(c.Get(("/crawl/" + id + "/items?offset=85&limit=10").c_str()));
  CHECK(tail.at("items").size() == 5);
  CHECK(tail.at("next").is_null());
  const auto past = body_of(c.Get(("/crawl/" + id + "/items?offset=500").c_str()));
  CHECK(past.at("items").empty());
  CHECK(past.at("limit") == 100);
  CHECK(past.at("next").is_null());

  // Bad parameters are named; an unknown job is 404.
  const std::string items = "/crawl/" + id + "/items";
  check_error(c.Get((items + "?limit=0").c_str()), 400, "out_of_range");
  check_error(c.Get((items + "?limit=1001").c_str()), 400, "out_of_range");
  check_error(c.Get((items + "?offset=-1").c_str()), 400, "invalid_parameter");
  check_error(c.Get((items + "?limit=ten").c_str()), 400, "invalid_parameter");
  check_error(c.Get((items + "?kind=").c_str()), 400, "invalid_parameter");
  check_error(c.Get("/crawl/crawl_99/items"), 404, "job_not_found");
  auto post = c.Post(items.c_str(), "{}", "application/json");
  check_error(post, 405, "method_not_allowed");
  CHECK(post->get_header_value("Allow") == "GET, HEAD");
}

TEST_CASE("serve: a job's items are bounded in bytes, every item once, and text that is not a JSON object stays readable",
          "[integration][service][items][budget]") {
  ScratchDir dir;
  // 400 items of ~30 KB: ~12 MB, in answers of 1 MiB at most.
  constexpr int kPages = 40, kPerPage = 10, kItemBytes = 30000;
  const auto big = seed_finished_job(dir.path("service"), "shop.test", kPages, [](int p, PageRow& page) {
    for (int i = 0; i < kPerPage; ++i)
      page.items.push_back({"blob", json{{"n", p * kPerPage + i}, {"text", std::string(kItemBytes, 'x')}}.dump()});
  });
  // One item larger than an answer, and items a foreign writer left that
  // are not JSON objects.
  const auto odd = seed_finished_job(dir.path("service"), "odd.test", 1, [](int, PageRow& page) {
    page.items = {{"huge", json{{"text", std::string(1500000, 'h')}}.dump()},
                  {"broken", "{\"a\": "},
                  {"array", "[1, 2]"},
                  {"bytes", "{\"a\": \"\xff\"}"},
                  {"deep", "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}"},
                  {"spaced", " \n{\"a\": 1}\n"}};
  });
  Service service(dir);

  std::size_t answers = 0;
  std::vector<int> seen;
  answers = follow_next(service.port(), "/crawl/" + big + "/items?limit=1000", [&](const json& answer) {
    CHECK(answer.at("items_total") == kPages * kPerPage);
    CHECK(answer.at("truncated") == !answer.at("next").is_null());
    for (const auto& item : answer.at("items"))
      seen.push_back(item.at("item").at("n").get<int>());
  });
  CHECK(answers >= kPages * kPerPage * kItemBytes / (1 << 20));
  REQUIRE(seen.size() == kPages * kPerPage);
  for (int i = 0; i < kPages * kPerPage; ++i)
    CHECK(seen[i] == i);

  auto c = service.client();
  // The huge item comes alone (an answer holds at least one), and the next
  // answer goes on after it.
  const auto huge = body_of(c.Get(("/crawl/" + odd + "/items?limit=2").c_str()));
  REQUIRE(huge.at("items").size() == 1);
  CHECK(huge.at("items")[0].at("item").at("text").get<std::string>().size() == 1500000);
  CHECK(huge.at("truncated") == true);
  CHECK(huge.at("next") == "/crawl/" + odd + "/items?offset=1&limit=2");
  // Held, never copied: a copy of a deep tree recurses.
  const auto rest_answer = body_of(c.Get(("/crawl/" + odd + "/items?offset=1").c_str()));
  const auto& rest = rest_answer.at("items");
  REQUIRE(rest.size() == 5);
  for (int i = 0; i < 3; ++i) {
    INFO(rest[i].dump());
    CHECK(rest[i].at("item").is_null());
    CHECK(rest[i].at("item_text").is_string());
  }
  CHECK(rest[0].at("item_text") == "{\"a\": ");
  CHECK(rest[1].at("item_text") == "[1, 2]");
  CHECK(rest[2].at("item_text") == "{\"a\": \"\xef\xbf\xbd\"}");
  // Nesting is no danger to the service (it checks items without a tree,
  // and without recursion): a deep object passes as it is. (Not dumped
  // here: the test's own writer recurses.)
  CHECK(rest[3].at("item").is_object());
  CHECK(rest[3].at("item").contains("a"));
  CHECK(rest[4].at("item") == json{{"a", 1}});
  CHECK_FALSE(rest[4].contains("item_text"));
}
