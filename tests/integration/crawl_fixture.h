// What the integration tests share: a scratch directory, a config tuned for
// fast loopback crawls, and exact queries on the database a crawl leaves.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include "runtime/crawl_run.h"
#include "core/config/crawl_config.h"
#include "demoweb/loopback_web.h"

namespace actorcrawl::testing {

class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

// Politeness, retries and timeouts shortened so a test crawl takes well
// under a second per host, and sitemaps off (the test webs have none);
// everything else is the shipped default.
CrawlConfig fast_config(const ScratchDir& dir, const std::string& seed);

// Runs a crawl quietly; REQUIREs that it ended without an error.
CrawlRunResult crawl(const CrawlConfig& config);

// Runs a crawl and asks it to stop once `stop_when()` turns true.
CrawlRunResult crawl_until(const CrawlConfig& config, const std::function<bool()>& stop_when);

// Single-column query results, and a count.
std::vector<std::string> column(const std::string& db, const std::string& sql);
std::int64_t count(const std::string& db, const std::string& sql);

// HTML with the given title and links.
std::string page(const std::string& title, const std::vector<std::string>& hrefs,
                 const std::string& extra_head = "");

// A response with an HTML body.
demoweb::Response html(std::string body, int status = 200);
// A 200 with `body` as `content_type` (robots.txt, sitemaps, ...).
demoweb::Response typed(std::string body, std::string content_type);
// A redirect to `location`.
demoweb::Response redirect(int status, const std::string& location);

// host key "127.0.0.N:PORT" -> "127.0.0.N"
std::string ip_of(const std::string& host_key);

// The 3-host loop: hosts on 127.0.0.1, .2 and .3 whose roots link a -> b ->
// c -> a, each titled by `titles` and answered after `delay_ms`.
struct HostLoop {
  std::string a, b, c;
  std::vector<std::string> ips() const { return {ip_of(a), ip_of(b), ip_of(c)}; }
};
HostLoop three_host_loop(demoweb::LoopbackWeb& web, const std::vector<std::string>& titles = {"A", "B", "C"},
                         int delay_ms = 0);

// A host key on `ip` whose port nobody listens on: taken from a test host
// that is dropped at once, so connecting to it is refused.
std::string closed_host(const std::string& ip);

// Requests the web saw for pages, per target, for one host: /robots.txt
// (fetched once per host by default) and /sitemap.xml (tried once for a seed
// host whose robots.txt names no sitemap) are left out; robots and sitemap
// tests look at them themselves.
std::map<std::string, int> targets_seen(const demoweb::LoopbackWeb& web, const std::string& host_key);
// How many page requests (not /robots.txt or /sitemap.xml) the web saw.
std::size_t page_requests(const demoweb::LoopbackWeb& web);

}  // namespace actorcrawl::testing
