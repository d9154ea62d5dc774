// What the service accepts of a request before and around its routes, as
// pure functions of the request's text, so they are unit-tested and fuzzed
// (tests/fuzz/service_request_fuzz.cc) without a server:
//
// - which Host headers may reach the service (a web page whose name was
//   rebound to this machine's address still sends its own name as Host),
// - which Origin headers may (a page on another site posting to the API
//   sends its own origin; curl and scripts send none),
// - the media type and content coding of a request body,
// - the request itself, read as its bytes arrive: where it ends (head,
//   then a body of Content-Length bytes or in chunks), whether it is too
//   large or framed in a way two readers could take two ways, and what it
//   says (service/http_request.h): the service's one HTTP parser,
// - which route a path has, query integers,
// - request text clipped whole characters at a time for an error message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api_error.h"
#include "service/http_request.h"

namespace actorcrawl {

// A Host header (or a configured host entry): the name lowercased, without
// a trailing dot and, for IPv6, without brackets; the port if one is given.
struct HostAndPort {
  std::string name;
  std::optional<int> port;
};
// Empty when the text is not `name`, `name:port`, `[v6]` or `[v6]:port`.
std::optional<HostAndPort> parse_host(std::string_view text);

// An Origin header: scheme, host and port (the scheme's default when the
// text has none). Empty when it is not `http(s)://host[:port]`, as "null" is.
struct WebOrigin {
  std::string scheme;
  HostAndPort host;  // the port is always set
};
std::optional<WebOrigin> parse_origin(std::string_view text);

// The Host headers the service answers: the loopback names (localhost,
// 127.0.0.1, [::1]) and the listen address, alone or with the service's
// port, and the configured entries: a name alone matches it on any port, a
// name:port on that port only.
class AllowedHosts {
 public:
  // Throws std::invalid_argument naming an entry that is not a host.
  AllowedHosts(std::string_view listen_host, int port, const std::vector<std::string>& configured);
  bool allows(std::string_view host_header) const;

 private:
  struct Entry {
    std::string name;
    std::optional<int> port;  // empty: any port
  };
  std::vector<Entry> entries_;
};

// Whether a request with this Origin header may go on. The service's own
// origin (the Origin names the same host and port as the request's Host,
// which AllowedHosts has passed) and the configured origins may; any other
// origin, "null" included, may not. Requests without an Origin never get
// here: they do not come from another site's page.
class AllowedOrigins {
 public:
  // Throws std::invalid_argument naming an entry that is not an origin.
  explicit AllowedOrigins(const std::vector<std::string>& configured);
  bool allows(std::string_view origin_header, std::string_view host_header) const;

 private:
  std::vector<WebOrigin> configured_;
};

// `application/json`, with or without parameters (`; charset=utf-8`).
bool is_json_media_type(std::string_view content_type);
// No Content-Encoding, or `identity`: a body read as sent.
bool is_identity_coding(std::string_view content_encoding);

// The request at the start of a connection's bytes (after any empty
// lines), read as the bytes arrive, so the server hands a thread only whole
// requests and refuses one that is too large as soon as that shows. The
// head ends at its blank line
// (CRLF CRLF); the body is Content-Length bytes, or chunks up to the
// zero-sized one and its trailer. Refused, with the ApiError to answer: a
// head over max_head_bytes (431), a request line over 8192 bytes (414), a
// body over max_body_bytes, declared or counted so far (413), and (400) a
// request line that is not `METHOD TARGET HTTP/1.x`, a field line that is
// not `name: value`, and framing that two parsers could read two ways:
// line ends other than CRLF (as soon as one arrives), NUL, folded lines,
// both Content-Length and Transfer-Encoding, a repeated Content-Length, a
// coding other than chunked, a malformed chunk, trailer fields.
class RequestFramer {
 public:
  enum class Progress { incomplete, complete, refused };

  RequestFramer(std::size_t max_head_bytes, std::size_t max_body_bytes);
  // `received`: everything received for this request so far, the same
  // bytes as at the last call and perhaps more; the scan resumes where it
  // stopped, so a request trickling in byte by byte costs linear time.
  Progress advance(std::string_view received);
  // complete: how many bytes of `received` the request is, the empty lines
  // skipped before it included (more may follow: the next, pipelined
  // request).
  std::size_t request_length() const { return skipped_ + end_; }
  // refused: what to answer.
  const std::optional<ApiError>& refusal() const { return refusal_; }
  // The head asked for "100 Continue" and the body has not arrived.
  bool awaits_continue() const { return expects_continue_ && phase_ != Phase::head && phase_ != Phase::done; }
  // Anything of a request but empty lines has arrived (an idle connection
  // has none).
  bool started() const { return started_; }
  // complete: the request as read; its head fields as soon as the head is
  // whole. take_request() moves it out.
  const HttpRequest& request() const { return request_; }
  HttpRequest take_request() { return std::move(request_); }

 private:
  enum class Phase { head, fixed_body, chunk_size, chunk_data, trailer, done };
  Progress refuse(int status, const char* code, std::string message);
  Progress head_too_large();
  Progress body_too_large();
  Progress read_head(std::string_view received);
  Progress read_request_line(std::string_view line);
  bool line_ends_clean(std::string_view head);
  Progress read_chunks(std::string_view received);

  std::size_t max_head_;
  std::size_t max_body_;
  Phase phase_ = Phase::head;
  std::size_t skipped_ = 0;     // empty lines before the request line; every other position is after them
  std::size_t scan_ = 0;        // where the next look starts
  std::size_t checked_ = 0;     // head bytes whose line ends are checked
  std::size_t body_start_ = 0;
  std::size_t end_ = 0;         // fixed_body: where it ends; done: the request's length
  std::size_t chunk_end_ = 0;   // chunk_data: where the chunk's data ends
  std::size_t payload_ = 0;     // body bytes counted so far (chunk data, not framing)
  bool expects_continue_ = false;
  bool started_ = false;
  std::optional<ApiError> refusal_;
  HttpRequest request_;
};

// The API's paths. A job's routes are /crawl/{id} and /crawl/{id}/<what>,
// an id being one or more bytes other than '/' of the decoded path.
enum class Route {
  health,
  dashboard,
  info,
  jobs,
  job,
  job_graph,
  job_items,
  job_events,
  job_redrive,
  job_export,
  metrics,
  none
};
Route route_of(std::string_view path);
// The {id} of a job's route ("crawl_1" of /crawl/crawl_1/graph); empty for
// any other route.
std::string_view job_id_of(std::string_view path);

// A query parameter as a whole number in [min, max]; `fallback` when it is
// absent. Throws ApiError 400 (invalid_parameter, out_of_range).
std::int64_t query_integer(std::string_view name, const std::optional<std::string>& text, std::int64_t fallback,
                           std::int64_t min, std::int64_t max);

// At most `max_bytes` of `text`, cut before a UTF-8 character rather than
// inside one, with "..." when something was cut. Bytes that are not UTF-8
// stay (the JSON writer replaces them).
std::string clip_for_message(std::string_view text, std::size_t max_bytes);

}  // namespace actorcrawl
