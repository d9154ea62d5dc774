// `actorcrawl serve`: the crawl service's HTTP API, Prometheus metrics and
// dashboard (docs/service.md).
#pragma once

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl serve --help` prints (the manual page shows it too).
void serve_usage(std::ostream& out);

// `stop_requests` > 0 stops the server (Ctrl-C); running jobs stay
// "running" in the job table and resume on the next start.
int serve_command(std::vector<std::string> args, const std::atomic<int>& stop_requests);

}  // namespace actorcrawl
