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
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

class CookieJar;

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

// The longest ETag or Last-Modified value kept from a response (and sent
// back in a conditional request). Real ones are tens of bytes; a longer one
// is dropped rather than cut, since a cut validator matches nothing.
inline constexpr std::size_t kMaxValidatorBytes = 1024;

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
  // FetchError::private_address, but for the hosts the engine was given
  // with set_private_hosts_allowed().
  bool block_private_addresses = false;
  // Keep the request head as sent and the response head as received, and
  // the peer's address (FetchOutcome's request_head, response_head,
  // ip_address), for the WARC archive. Off: nothing is captured or copied.
  bool capture_http = false;
  // Validators from this URL's previous fetch, which make the request
  // conditional (RFC 9110 13.1): a 304 Not Modified answers that the stored
  // page still holds. `if_none_match` is the stored ETag, sent verbatim as
  // If-None-Match (a weak one, W/"x", as is: If-None-Match compares weakly);
  // `if_modified_since_ms` the stored Last-Modified (epoch ms, as
  // FetchOutcome::last_modified_ms), sent as an IMF-fixdate
  // If-Modified-Since, which is the server's own date again whenever it sent
  // an IMF-fixdate. Both go when both are given (a server that knows
  // If-None-Match ignores the other). Empty and -1: none, and the request is
  // exactly what it is without this feature. A value with a control
  // character or longer than kMaxValidatorBytes is not sent.
  //
  // A validator belongs to one URL, so it goes with the request for `url`
  // only, never with a redirect hop: when validators are given the engine
  // takes the first hop itself (curl does not follow the first response),
  // and the hop and every later one are asked unconditionally. A caller that
  // takes hops itself (max_redirects 0) must likewise not pass the first
  // URL's validators to a hop's request.
  std::string if_none_match;
  std::int64_t if_modified_since_ms = -1;
  // What the site requires (core/fetch/request_rules.h chooses them by
  // host): extra header lines ("Name: value"), and HTTP credentials, Basic
  // ("user:password") or Bearer (a token). They go with the request for
  // `url` and with a redirect hop only to the same origin (scheme, host,
  // port): a request carrying any of them with redirects allowed has every
  // hop taken by the engine, since curl would send extra headers on to any
  // host. A header line with a control character is not sent.
  std::vector<std::string> headers;
  std::string basic_auth;
  std::string bearer_token;
  // When set, the body goes here as it arrives instead of into
  // FetchOutcome::body: each piece decoded as curl hands it (gzip, br and
  // zstd inflated), with the status of the response it belongs to. A
  // reader that keeps little of what it reads (a sitemap's parser) then
  // holds little, however large the body or its inflation. It returns
  // false to stop the transfer, which then ends as a complete answer (as
  // a body cut at max_body_bytes does); max_body_bytes still counts the
  // pieces. On a transfer that fails later (a reset, a timeout), the
  // pieces it took are what arrived before the failure.
  std::function<bool(int status, std::string_view piece)> body_sink;
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
  // The final response's validators, which belong to final_url: ETag and
  // Last-Modified as received (trimmed; the first of several), "" when
  // absent or longer than kMaxValidatorBytes; Last-Modified as epoch ms
  // (parse_http_date: IMF-fixdate, RFC 850 or asctime), -1 when absent or
  // no HTTP-date. A 304 carries them too when the server repeats them.
  std::string etag;
  std::string last_modified;
  std::int64_t last_modified_ms = -1;
  // The request was conditional and the answer is 304 Not Modified: a
  // complete response (status_code 304, no error, no body, no redirect,
  // `location` empty) saying the stored page still holds. A 304 to a
  // request without validators leaves it false: it answers nothing asked.
  bool not_modified = false;
  // capture_http only, of the final response (the last hop curl took):
  std::string ip_address;     // the peer's address (CURLINFO_PRIMARY_IP)
  // The request line and header lines as sent, but for the values of the
  // credentials (Authorization, Proxy-Authorization) and of the request's
  // own `headers`, which read "[redacted]": what is kept must hold no secret.
  std::string request_head;
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

  // Host names (lowercase, IPv6 without brackets) whose connections
  // block_private_addresses lets through to any address: those the user
  // named (a crawl's seeds, its resolve entries), so a seed on loopback or
  // an intranet host is crawled while nothing it links or redirects to
  // leads elsewhere inside. Judged by the host of each hop's URL. Applies to
  // transfers started later.
  void set_private_hosts_allowed(const std::vector<std::string>& hosts);

  // Connections to one host at once (1 by default: the HostSelector sends
  // one request per host at a time unless politeness is off). Requests
  // beyond it wait inside curl for a free connection.
  void set_max_host_connections(int n);

  // Where requests go. `direct` (the default): straight to the sites, the
  // environment's http_proxy and the like ignored. `environment`: through
  // the proxies the environment names (libcurl's variables), never for
  // loopback. `url`: every request through that proxy (http://, https://,
  // socks5://, socks5h://: libcurl's), loopback included. A request with
  // block_private_addresses goes direct unless the proxy is a `url`: a proxy
  // the crawl was configured with is trusted to reach the sites, and no
  // address is checked (the crawler connects to the proxy alone, and cannot
  // see where the proxy connects).
  enum class ProxyMode { direct, environment, url };
  void set_proxy(ProxyMode mode, const std::string& url = "");
  // The configuration's keys `proxy` (a URL, or "") and
  // `proxy_from_environment`, as above: a URL wins, then the environment.
  void set_proxy(const std::string& url, bool from_environment) {
    set_proxy(!url.empty() ? ProxyMode::url : from_environment ? ProxyMode::environment : ProxyMode::direct, url);
  }

  // The crawl's cookie jar (core/fetch/cookie_jar.h), shared by every
  // engine of the process: each later transfer takes cookies from it and
  // puts the ones its responses set there. None (the default): no cookie
  // is sent or kept.
  void set_cookie_jar(std::shared_ptr<const CookieJar> jar);

  // Thread-safe: makes a waiting perform() return early.
  void wakeup();

  std::size_t running() const;  // transfers on the wire
  std::size_t pending() const;  // waiting for their start time

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
