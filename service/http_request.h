// A request to the service as its one HTTP parser (RequestFramer, in
// service/request_policy.h) read it while the bytes arrived: the request
// line split, the path and the query decoded, the header fields as sent,
// the body with any chunked framing taken off. Routes read it through the
// accessors below, which answer header names without regard to case.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorcrawl {

struct HttpRequest {
  std::string method;   // as sent: methods are case-sensitive
  std::string target;   // path and query as sent, still encoded (of an absolute-form target, the part after its authority)
  std::string path;     // the target up to '?', percent-decoded
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  // The host[:port] of a target sent in absolute form (`GET http://host/path`,
  // RFC 9112 3.2.2), "" for the usual origin form.
  std::string authority;
  // Every field, in order, names as sent, values without the whitespace
  // around them.
  std::vector<std::pair<std::string, std::string>> headers;
  // The query's parameters, in order, decoded ('+' is a space).
  std::vector<std::pair<std::string, std::string>> params;
  std::string body;

  // How many fields have this name, and the first one's value ("" if none).
  std::size_t header_count(std::string_view name) const;
  bool has_header(std::string_view name) const { return header_count(name) > 0; }
  std::string header(std::string_view name) const;
  // The first parameter of this name.
  std::optional<std::string> param(std::string_view name) const;
  // The host the request is for: an absolute-form target's authority, which
  // a server must take over any Host field (RFC 9112 3.2.2), else the first
  // Host field ("" if none).
  std::string host() const { return authority.empty() ? header("Host") : authority; }
  // Whether the connection ends after the answer: HTTP/1.1 unless the
  // client says `Connection: close`, HTTP/1.0 unless it says `keep-alive`.
  bool closes() const;
};

// `a=1&b=x+y&c`, decoded as a form's fields are: '+' is a space, every
// percent triplet its byte, a name without '=' has an empty value.
std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query);

// `text` quoted for a query's name or value: unreserved characters as they
// are, every other byte as a percent triplet.
std::string query_quoted(std::string_view text);

}  // namespace actorcrawl
