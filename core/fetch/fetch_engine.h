// HTTP transfers for one FetchWorker over libcurl's multi interface: one
// thread drives many hosts' transfers at once (a worker holds up to its
// capacity in flight), reusing connections per host.
//
// The engine is plain C++ with no actor in sight. The worker feeds it
// requests, calls perform() in its loop, and may call wakeup() from any
// thread to cut a wait short when a message arrives.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace actorcrawl {

// Why a transfer produced no usable HTTP response. The names are stored in
// the database (dead_letters.reason, pages.error), so they are a contract.
enum class FetchError {
  none,
  dns_failure,         // host name did not resolve (never retried)
  connect_failed,      // refused, unreachable
  timeout,             // request_timeout_ms elapsed
  connection_reset,    // the peer closed or reset mid-transfer
  tls_error,
  too_many_redirects,  // more than max_redirects hops
  redirect_loop,       // a hop led back to a URL already visited
  bad_redirect,        // Location to a non-http(s) URL, or unparseable
  bad_encoding,        // Content-Encoding could not be decoded
  protocol_error,      // a reply that is not HTTP/1.x: HTTP/0.9, status 000, headers past curl's limits, bad chunks
  transfer_failed,     // anything else curl reports
  private_address,     // block_private_addresses refused the peer (never retried)
  bad_url,             // the request's own URL is malformed or not http(s) (never retried)
};
const char* to_string(FetchError e);

struct FetchRequest {
  std::uint64_t token = 0;  // the caller's key; returned in the outcome
  std::string url;
  std::int64_t timeout_ms = 5000;
  std::int64_t max_body_bytes = 1 << 20;
  std::int32_t max_redirects = 5;
  std::string user_agent;
  // Refuse to connect to loopback, private, link-local and other non-public
  // addresses (see core/fetch/net_guard.h), judged by the address a name resolved
  // to, for the first request and every redirect hop, before any request
  // bytes are sent; no proxy is used. The outcome is then
  // FetchError::private_address. For crawls submitted by untrusted users.
  bool block_private_addresses = false;
  // Keep the request head as sent and the response head as received, and
  // the peer's address (FetchOutcome's request_head, response_head,
  // ip_address), for the WARC archive. Off: nothing is captured or copied.
  bool capture_http = false;
};

struct RedirectHop {
  std::string url;  // the URL that answered with a redirect
  int status = 0;
};

struct FetchOutcome {
  std::uint64_t token = 0;
  FetchError error = FetchError::none;
  std::string error_detail;  // curl's message when error != none
  int status_code = 0;       // final response, 0 when there was none
  std::string content_type;  // lowercased media type without parameters
  std::string charset;       // from Content-Type, lowercased, may be empty
  std::string body;          // decoded; at most max_body_bytes
  bool truncated = false;    // the body was cut at max_body_bytes
  std::string final_url;     // after redirects
  std::vector<RedirectHop> redirects;
  // A redirect not followed (max_redirects reached, or 0: the caller takes
  // hops itself): its Location resolved against final_url and normalized;
  // empty when the final response is no redirect or its Location is unusable.
  std::string location;
  std::int64_t elapsed_ms = 0;
  std::int64_t retry_after_ms = -1;  // from Retry-After (seconds or a date)
  std::string x_robots_tag;          // the final response's X-Robots-Tag
  // capture_http only, of the final response (the last hop curl took):
  std::string ip_address;     // the peer's address (CURLINFO_PRIMARY_IP)
  std::string request_head;   // request line and header lines, as sent
  std::string response_head;  // status line and header lines, as received
};

class FetchEngine {
 public:
  using Clock = std::chrono::steady_clock;

  FetchEngine();
  ~FetchEngine();
  FetchEngine(const FetchEngine&) = delete;
  FetchEngine& operator=(const FetchEngine&) = delete;

  // Starts a transfer now, or at `not_before` (a retry's backoff).
  void start(FetchRequest request);
  void start_at(FetchRequest request, Clock::time_point not_before);
  // Drops transfers that have not started yet and returns their tokens.
  std::vector<std::uint64_t> cancel_pending();

  // Drives transfers and returns those that finished. Waits up to
  // `max_wait` for network activity, a due retry, or wakeup().
  std::vector<FetchOutcome> perform(std::chrono::milliseconds max_wait);

  // Name resolution overrides for every later transfer, as curl --resolve
  // ("host:port:address"): how a crawl reaches test hosts by name.
  void set_resolve(const std::vector<std::string>& entries);

  // Connections to one host at once (1 by default: the HostSelector sends
  // one request per host at a time unless politeness is off). Requests
  // beyond it wait inside curl for a free connection.
  void set_max_host_connections(int n);

  // Thread-safe: makes a waiting perform() return early.
  void wakeup();

  std::size_t running() const;  // transfers on the wire
  std::size_t pending() const;  // waiting for their start time

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
