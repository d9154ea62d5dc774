// A web of loopback hosts that misbehave the way real servers do, for
// chaos tests of the crawler: a page for each misbehaviour (slow-loris,
// endless bodies, compression bombs, lying Content-Length, broken chunking,
// resets, redirect loops and chains across hosts, rate limits, a robots.txt
// that fails before it recovers, bad charsets, link floods, pathological
// nesting, huge headers, close-delimited HTTP/1.0, a self-signed TLS host),
// all linked from one index page, so a crawl from the index meets them all.
//
// Most hosts speak HTTP over raw sockets rather than through an HTTP
// library, because the point is to send what a well-behaved library never
// would. Each answers one request per connection and closes it. Every
// request is recorded (method, host, path, client address, when it arrived,
// when the server stopped answering it and why) so tests can assert on what
// a crawler actually did. Every misbehaviour stops by itself within bounded
// time and bytes, and stops at once when its client goes away or the web is
// destroyed; the destructor returns within a fraction of a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace actorcrawl::testweb {

// The web's hosts, each on its own 127.0.0.x address and an ephemeral port.
// Misbehaviours that cost a client time live on hosts of their own, so a
// polite crawler (one request per host at a time) meets them side by side.
enum class FaultHost {
  index,       // the index, charsets, nesting: hostile content, honest HTTP
  slow,        // slow-loris
  stream,      // the endless body and the compression bombs
  wire,        // broken framing: Content-Length, chunking, resets, HTTP/1.0, headers
  busy,        // 429 and 503 with Retry-After
  robots,      // a robots.txt that answers 503 before it recovers
  farm,        // a page of many links into a path robots.txt disallows
  redirect_a,  // redirect loops and chains run across these three
  redirect_b,  // robots.txt disallows /private/
  redirect_c,
  tls,         // https with a self-signed certificate
};

// One page per misbehaviour; FaultWeb::url() says where.
enum class Fault {
  slow_loris,              // the response trickles out a byte a second, 60 s at most
  endless_body,            // a chunked body that goes on while the client reads (60 s, 1 GiB at most)
  gzip_bomb,               // ~1 MB on the wire, 1 GiB of zeros decoded (Content-Encoding: gzip)
  brotli_bomb,             // ~200 KB on the wire, 1 GiB of zeros decoded (Content-Encoding: br)
  content_length_over,     // Content-Length promises 10,000 bytes more than are sent; then close
  content_length_under,    // Content-Length ends before the body does (a link past the end)
  broken_chunked,          // one good chunk, then a chunk-size line that is not hex
  reset_mid_body,          // part of the body, then RST
  http10_close_delimited,  // HTTP/1.0, no Content-Length: the body ends when the socket closes
  huge_headers,            // 1 MiB of response headers before the body
  http09_reply,            // no status line: the body alone, then close (HTTP/0.9)
  status_000,              // "HTTP/1.1 000": a status code no HTTP defines
  giant_header_line,       // one response header line of 300 KB
  redirect_loop,           // a -> b -> a
  redirect_chain,          // a -> b -> c -> c (200): three hops across three hosts
  redirect_chain_too_long, // twelve hops alternating between a and b
  redirect_to_disallowed,  // a -> b/private/secret, which b's robots.txt disallows
  redirect_bounce,         // a -> b -> c -> b -> c (200): b is asked twice within a moment
  too_many_requests,       // 429 with Retry-After on the first request, then 200
  service_unavailable,     // 503 with Retry-After, always
  flaky_robots,            // a page on the host whose robots.txt answers 503 at first
  invalid_utf8,            // declared UTF-8, with bytes invalid in UTF-8
  invalid_shift_jis,       // declared Shift_JIS, with bytes invalid in Shift_JIS
  charset_mismatch,        // header says UTF-8, <meta charset> says windows-1251 (and is right)
  unknown_charset,         // a charset label nobody knows
  many_links,              // 80,000 distinct links, each into a disallowed path
  deep_nesting,            // 100,000 unclosed <div>s, then a link
  foreign_nesting,         // <svg><foreignObject>, 100,000 self-closing <section/>s, then a link
  self_signed_tls,         // https whose certificate no client trusts
};

struct FaultPage {
  Fault fault;
  const char* name;  // "slow_loris": for messages and the index page
  FaultHost host;
  const char* path;
};
// Every misbehaviour with its host and path, in the order of the enum.
const std::vector<FaultPage>& fault_pages();
const FaultPage& fault_page(Fault fault);

// Pages the misbehaving pages link to, so a test can tell how much of a
// page a client read (and parsed).
struct FaultLinks {
  // On the index host, after the nesting.
  static constexpr const char* after_deep_nesting = "/after-deep-nesting";
  static constexpr const char* after_foreign_nesting = "/after-foreign-nesting";
  // On the wire host: inside and past the lying Content-Length, and at the
  // end of the close-delimited body.
  static constexpr const char* within_content_length = "/within-content-length";
  static constexpr const char* beyond_content_length = "/beyond-content-length";
  static constexpr const char* after_http10 = "/after-http10";
  // On the robots host: disallowed by its robots.txt once that answers.
  static constexpr const char* robots_blocked = "/blocked";
  // On redirect_c: where the chain and the bounce end.
  static constexpr const char* chain_end = "/chain-end";
  static constexpr const char* bounce_end = "/bounce-end";
};

struct FaultWebOptions {
  // robots.txt of the robots host answers 503 to this many requests first.
  int robots_failures = 1;
  // Retry-After (seconds) of the 429 and 503 pages.
  int retry_after_seconds = 1;
  std::chrono::milliseconds slow_loris_interval{1000};  // between bytes
  std::chrono::milliseconds slow_loris_limit{60000};    // then the server gives up
  std::chrono::milliseconds endless_limit{60000};
  std::uint64_t endless_max_bytes = 1ULL << 30;
  // Decoded size of each bomb; whole MiB.
  std::uint64_t bomb_decoded_bytes = 1ULL << 30;
  int many_links = 80000;
  int nesting_depth = 100000;
  std::size_t huge_headers_bytes = 1 << 20;
  bool tls = true;  // start the self-signed TLS host
};

// One request as the server saw it.
struct FaultRequest {
  using Clock = std::chrono::steady_clock;
  std::string host_key;        // "127.0.0.N:PORT"
  std::string method;
  std::string target;          // path with query, as requested
  std::string path;            // without the query
  std::string client_address;  // "127.0.0.1:PORT", as the socket reports it
  std::string user_agent;
  std::string accept_encoding;
  Clock::time_point at;        // when the request head had arrived
  bool finished = false;       // the server is done with it
  Clock::time_point finished_at;
  int status = 0;              // the status line sent, 0 before one was
  std::uint64_t bytes_sent = 0;
  // How the server's side ended: "complete", "client_gone" (the client
  // closed or reset first), "reset" (the server reset on purpose),
  // "time_limit", "byte_limit", "stalled" (the client stopped reading),
  // "stopped" (the web was shut down).
  std::string ending;
};

class FaultWeb {
 public:
  // Starts every host; throws std::runtime_error when one cannot bind.
  explicit FaultWeb(FaultWebOptions options = {});
  ~FaultWeb();  // stops every host and misbehaviour at once
  FaultWeb(const FaultWeb&) = delete;
  FaultWeb& operator=(const FaultWeb&) = delete;

  const FaultWebOptions& options() const;

  std::string index_url() const;
  // Throw std::out_of_range for the TLS host when options().tls is off.
  std::string url(Fault fault) const;
  std::string url(FaultHost host, const std::string& path) const;  // http(s)://key/path
  std::string host_key(FaultHost host) const;                      // "127.0.0.N:PORT"
  // Every host's address without the port: what allowed_domains needs.
  std::vector<std::string> host_names() const;
  std::vector<std::string> host_keys() const;

  // Whether the host's robots.txt (once it answers) disallows `path` for
  // every user agent.
  bool disallowed(const std::string& host_key, const std::string& path) const;

  std::vector<FaultRequest> requests() const;  // in arrival order
  std::vector<FaultRequest> requests(FaultHost host) const;
  int count(FaultHost host, const std::string& path) const;
  // Waits (up to `timeout`) until no request is being answered; false if
  // one still is.
  bool wait_until_idle(std::chrono::milliseconds timeout) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The compression bombs, built once per size and kept for the process:
// `decoded_bytes` (whole MiB) of zeros after a short HTML prefix.
const std::string& gzip_bomb(std::uint64_t decoded_bytes);
const std::string& brotli_bomb(std::uint64_t decoded_bytes);
// What both bombs decode to before the zeros.
extern const char* const kBombPrefix;

}  // namespace actorcrawl::testweb
