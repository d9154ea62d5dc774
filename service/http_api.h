// The crawl service's HTTP API: one function per route, in one table
// (docs/service.md lists them); before routing, the Host, Origin, token and
// body-type checks (service/request_policy.h); JSON error bodies for every
// error, whatever bytes a request held. Connections, their limits and the
// reading of requests are HttpServer's (service/http_server.h); the jobs
// themselves are CrawlService's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config/crawl_config.h"

namespace actorcrawl {

class CrawlService;

// The bundled demo web, when `serve --demo-web` started one: the dashboard's
// form offers its URL and hosts.
struct DemoWebInfo {
  std::string url;
  std::vector<std::string> hosts;
};

class HttpApi {
 public:
  HttpApi(CrawlService& service, const CrawlConfig& config, DemoWebInfo demo);
  ~HttpApi();
  HttpApi(const HttpApi&) = delete;
  HttpApi& operator=(const HttpApi&) = delete;

  // Binds to host:port (port 0: a free one). Returns the port, or -1 with
  // the reason in `why_not` ("Address already in use": one process per
  // port). The Host allow-list takes the listen address and port from here.
  int bind(const std::string& host, int port, std::string* why_not = nullptr);
  // Serves until stop(), from any thread.
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
