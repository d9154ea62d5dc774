// An in-process web of loopback hosts: what the demo web (demo_web.h) is
// served from, and what the tests and benchmarks serve their webs from.
// Each host is a cpp-httplib server with a thread pool bound to its own
// 127.0.0.N address on an ephemeral port; every request it serves is
// recorded (host, path, time on a steady clock, headers) so tests can
// assert on what the crawler actually asked for, not on what it logged.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace actorcrawl::demoweb {

struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Location
  int delay_ms = 0;  // sleep before answering (slow servers, timeouts)
};

struct ServedRequest {
  std::string host_key;  // "127.0.0.N:PORT"
  std::string target;    // path with query, as requested
  std::string method;
  std::chrono::steady_clock::time_point at;  // when the request arrived
  std::string user_agent;
  std::string accept_encoding;
  std::string remote_addr;  // the client's address, as the socket reports it
  // Every header of the request, as received (names in the client's case).
  std::vector<std::pair<std::string, std::string>> headers;
  // The proxy host ("127.0.0.N:PORT") the request came through; empty when
  // the client connected to this host itself.
  std::string via_proxy;

  // The first value of header `name` (any case); "" when absent.
  std::string header(const std::string& name) const;
};

class LoopbackWeb {
 public:
  LoopbackWeb();
  ~LoopbackWeb();  // stops every host
  LoopbackWeb(const LoopbackWeb&) = delete;
  LoopbackWeb& operator=(const LoopbackWeb&) = delete;

  // Starts a host listening on `ip` (any 127.0.0.0/8 address) and an
  // ephemeral port; returns its host key "ip:port". Throws std::runtime_error
  // when it cannot bind.
  std::string add_host(const std::string& ip);

  // Serves `response` at `path` (exact match on the path; the query is
  // ignored for matching). Unrouted paths answer 404 with a small HTML body.
  void route(const std::string& host_key, const std::string& path, Response response);
  // Serves whatever `handler` returns; `hit` counts requests to this path on
  // this host, starting at 1 (for "fails twice, then succeeds").
  void route(const std::string& host_key, const std::string& path,
             std::function<Response(int hit)> handler);

  // Serves whatever `handler` returns for the request (its headers: a page
  // that needs a header, a cookie, credentials).
  void route(const std::string& host_key, const std::string& path,
             std::function<Response(const ServedRequest& request)> handler);

  // Starts an HTTP forward proxy on `ip` (a plain-http one: absolute-form
  // requests, "GET http://host:port/path"), which serves them from this
  // web's own hosts; a request it serves is recorded once, for the target
  // host, with `via_proxy` set. Anything but an absolute http URL of one of
  // this web's hosts answers 502. Returns the proxy's "ip:port".
  std::string add_proxy(const std::string& ip);

  // "http://<host_key><path>"
  static std::string url(const std::string& host_key, const std::string& path);

  std::vector<ServedRequest> requests() const;  // in arrival order
  int count(const std::string& host_key, const std::string& target) const;  // exact target
  void clear_requests();

 private:
  std::string start_host(const std::string& ip, bool is_proxy);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl::demoweb
