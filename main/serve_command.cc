#include "main/serve_command.h"

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "core/report/console_log.h"
#include "core/config/crawl_config.h"
#include "core/store/store_error.h"
#include "service/crawl_service.h"
#include "service/http_api.h"
#include "service/request_policy.h"
#include "demoweb/demo_web.h"

namespace actorcrawl {

void serve_usage(std::ostream& out) {
  out << "usage: actorcrawl serve [--listen HOST:PORT] [--token TOKEN] [--db-dir DIR]\n"
         "                        [--max-concurrent-jobs N] [--allow-private-networks] [--demo-web]\n"
         "                        [--service-allowed-hosts NAMES] [--allow-remote-without-token]\n"
         "                        [--config FILE] [crawl options: defaults for every job]\n\n"
         "Runs the crawl service: POST /crawl starts a job, GET /crawl/:id reads it,\n"
         "GET / is the dashboard, GET /metrics the Prometheus metrics. Listens on\n"
         "127.0.0.1:8088 unless told otherwise; port 0 picks a free one. Beyond loopback\n"
         "it needs --token (or --allow-remote-without-token). Jobs may not fetch private,\n"
         "loopback or link-local addresses unless --allow-private-networks.\n"
         "--demo-web also starts the bundled demo web on loopback to try it on.\n"
         "See docs/service.md; every option: actorcrawl --help.\n";
}

namespace {

// The Host and Origin allow-lists, read now so that a typo stops the start
// instead of locking every caller out.
void check_callers(const CrawlConfig& config, const NodeAddress& where) {
  try {
    AllowedHosts(where.host, where.port, config.service_allowed_hosts);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string{"service_allowed_hosts: "} + e.what());
  }
  try {
    AllowedOrigins{config.service_allowed_origins};
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string{"service_allowed_origins: "} + e.what());
  }
}

}  // namespace

int serve_command(std::vector<std::string> args, const std::atomic<int>& stop_requests) {
  bool demo = false;
  bool quiet = false;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "--help" || *it == "-h") {
      serve_usage(std::cout);
      return 0;
    }
    if (*it == "--demo-web" || *it == "--quiet" || *it == "-q") {
      (*it == "--demo-web" ? demo : quiet) = true;
      it = args.erase(it);
      continue;
    }
    // In this command --listen is the HTTP API's address.
    if (*it == "--listen")
      *it = "--service-listen";
    else if (it->rfind("--listen=", 0) == 0)
      *it = "--service-listen=" + it->substr(9);
    ++it;
  }
  set_quiet(quiet);
#ifdef __GLIBC__
  // Buffers of 256 KiB or more — the API's answers of up to a MiB and their
  // copies — get mappings of their own, handed back to the system when
  // freed. By default glibc raises this threshold to the largest block
  // freed so far (up to 32 MiB), after which such buffers come from the
  // malloc arenas and the memory stays with the process (docs/service.md,
  // Memory).
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  CrawlConfig config;
  NodeAddress where;
  try {
    apply_config_sources(args, config, "actorcrawl serve --help");
    where = parse_node_address(config.service_listen, "service_listen");
    validate(config, false);
    check_callers(config, where);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl: configuration error: %s\n", e.what());
    return 2;
  }
  if (!where.loopback_only() && config.service_token.empty()) {
    if (!config.allow_remote_without_token) {
      std::fprintf(stderr,
                   "actorcrawl: refusing to serve on %s without a token: anyone who can reach that address could "
                   "start crawls from this machine and read every job. Give --token (or ACTORCRAWL_SERVICE_TOKEN), "
                   "listen on 127.0.0.1, or, on a network only you reach, pass --allow-remote-without-token\n",
                   config.service_listen.c_str());
      return 2;
    }
    log_line(LogLevel::warn, "serving on " + config.service_listen +
                               " WITHOUT A TOKEN (--allow-remote-without-token): anyone who can reach this address "
                               "can start crawls from this machine and read every job");
  }

  std::unique_ptr<demoweb::LoopbackWeb> demo_web;
  std::string demo_url;
  std::vector<std::string> demo_hosts;
  if (demo) {
    auto web = demoweb::start_demo_web();
    demo_web = std::move(web.web);
    demo_url = web.seed_url;
    demo_hosts = web.host_names();
    log_line(LogLevel::notice, "demo web at " + demo_url);
    if (!config.allow_private_networks)
      log_line(LogLevel::warn, "the demo web is on loopback: jobs can crawl it only with --allow-private-networks");
  }

  try {
    ServiceSettings settings;
    settings.base = config;
    settings.data_dir = config.service_dir;
    settings.max_concurrent_jobs = static_cast<std::size_t>(config.max_concurrent_jobs);
    settings.allow_private_networks = config.allow_private_networks;
    settings.limits.max_pages = config.max_pages_per_job;
    CrawlService service(std::move(settings));
    HttpApi api(service, config, DemoWebInfo{demo_url, demo_hosts});
    std::string why_not;
    const int port = api.bind(where.host, where.port, &why_not);
    if (port < 0) {
      std::fprintf(stderr, "actorcrawl: cannot listen on %s: %s\n", config.service_listen.c_str(), why_not.c_str());
      return 1;
    }
    log_line(LogLevel::notice, "service listening on http://" + where.host + ":" + std::to_string(port) +
                                 (config.service_token.empty() ? "" : " (bearer token required)"));
    std::atomic<bool> serving{true};
    std::thread watcher([&] {
      while (serving && stop_requests.load() == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
      api.stop();
    });
    api.listen();
    serving = false;
    watcher.join();
    log_line(LogLevel::info, "service stopping: running jobs keep what they have and resume on the next start");
    return 0;
  } catch (const StoreError& e) {
    std::fprintf(stderr, "actorcrawl: database error: %s\n", e.what());
    return 1;
  }
}

}  // namespace actorcrawl
