#include "crawl_fixture.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "core/report/console_log.h"

namespace actorcrawl::testing {

ScratchDir::ScratchDir() {
  std::random_device rd;
  dir_ = std::filesystem::temp_directory_path() / ("actorcrawl-test-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

CrawlConfig fast_config(const ScratchDir& dir, const std::string& seed) {
  CrawlConfig c;
  c.seeds = {seed};
  c.db_path = dir.path("crawl.db");
  c.metrics_path = dir.path("metrics.log");
  c.politeness_delay_ms = 0;
  c.retry_delay_ms = 20;
  c.request_timeout_ms = 2000;
  c.progress_interval_ms = 100000;
  // The test webs serve no sitemaps: a seed host's /sitemap.xml, tried when
  // its robots.txt names none, would be one more request in every exact
  // list of requests. Tests of sitemaps (and of their politeness) turn them on.
  c.sitemaps = false;
  c.given["sitemaps"] = "test fixture";
  // Every test web is on loopback, its hosts linked from the seed's: the
  // tests of the private-address guard turn this off.
  c.allow_private_networks = true;
  return c;
}

CrawlRunResult crawl(const CrawlConfig& config) {
  set_quiet(true);
  CrawlRunOptions options;
  options.show_progress = false;
  auto result = run_crawl(config, options);
  REQUIRE(result.error == "");
  return result;
}

CrawlRunResult crawl_until(const CrawlConfig& config, const std::function<bool()>& stop_when) {
  set_quiet(true);
  std::atomic<int> stop{0};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done && !stop_when())
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
    stop = 1;
  });
  CrawlRunOptions options;
  options.show_progress = false;
  options.stop_requests = &stop;
  auto result = run_crawl(config, options);
  done = true;
  watcher.join();
  REQUIRE(result.error == "");
  return result;
}

std::vector<std::string> column(const std::string& db, const std::string& sql) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  SQLite::Statement q(d, sql);
  std::vector<std::string> out;
  while (q.executeStep())
    out.push_back(q.getColumn(0).isNull() ? "NULL" : q.getColumn(0).getString());
  return out;
}

std::int64_t count(const std::string& db, const std::string& sql) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  SQLite::Statement q(d, sql);
  REQUIRE(q.executeStep());
  return q.getColumn(0).getInt64();
}

std::string page(const std::string& title, const std::vector<std::string>& hrefs, const std::string& extra_head) {
  std::string html = "<!doctype html><html><head><title>" + title + "</title>" + extra_head + "</head><body>";
  for (const auto& h : hrefs)
    html += "<p><a href=\"" + h + "\">" + h + "</a></p>";
  return html + "</body></html>";
}

demoweb::Response html(std::string body, int status) {
  demoweb::Response r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  return r;
}

demoweb::Response typed(std::string body, std::string content_type) {
  demoweb::Response r;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

demoweb::Response redirect(int status, const std::string& location) {
  demoweb::Response r;
  r.status = status;
  r.headers = {{"Location", location}};
  return r;
}

HostLoop three_host_loop(demoweb::LoopbackWeb& web, const std::vector<std::string>& titles, int delay_ms) {
  HostLoop loop{web.add_host("127.0.0.1"), web.add_host("127.0.0.2"), web.add_host("127.0.0.3")};
  const std::string hosts[] = {loop.a, loop.b, loop.c};
  for (int i = 0; i < 3; ++i) {
    auto r = html(page(titles.at(static_cast<std::size_t>(i)), {demoweb::LoopbackWeb::url(hosts[(i + 1) % 3], "/")}));
    r.delay_ms = delay_ms;
    web.route(hosts[i], "/", r);
  }
  return loop;
}

std::string closed_host(const std::string& ip) {
  demoweb::LoopbackWeb gone;
  return gone.add_host(ip);
}

std::string ip_of(const std::string& host_key) { return host_key.substr(0, host_key.find(':')); }

std::map<std::string, int> targets_seen(const demoweb::LoopbackWeb& web, const std::string& host_key) {
  std::map<std::string, int> seen;
  for (const auto& r : web.requests())
    if (r.host_key == host_key && r.target != "/robots.txt" && r.target != "/sitemap.xml")
      ++seen[r.target];
  return seen;
}

std::size_t page_requests(const demoweb::LoopbackWeb& web) {
  std::size_t n = 0;
  for (const auto& r : web.requests())
    n += r.target != "/robots.txt" && r.target != "/sitemap.xml";
  return n;
}

}  // namespace actorcrawl::testing
