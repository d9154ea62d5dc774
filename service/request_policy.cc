#include "service/request_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <stdexcept>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"
#include "core/web/ip_literal.h"
#include "service/api_error.h"

namespace actorcrawl {

namespace {

constexpr std::size_t kMaxHostName = 253;

bool is_name_char(char c) { return ascii::is_alpha(c) || ascii::is_digit(c) || c == '-' || c == '.' || c == '_'; }

// "8088" -> 8088; empty for anything but 1 to 5 digits up to 65535.
std::optional<int> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5)
    return std::nullopt;
  int port = 0;
  for (char c : text) {
    if (!ascii::is_digit(c))
      return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port > 65535)
    return std::nullopt;
  return port;
}

// An IPv6 address in its one canonical spelling, so "::1" and
// "0:0:0:0:0:0:0:1" are the same host.
std::optional<std::string> canonical_ipv6(std::string_view text) {
  // A Host "%00" decodes to a NUL: parse_ip_literal takes no such text.
  const auto ip = parse_ip_literal(text);
  if (!ip || !ip->v6)
    return std::nullopt;
  return ip->canonical();
}

std::optional<std::string> host_name(std::string_view text) {
  if (!text.empty() && text.back() == '.')
    text.remove_suffix(1);  // "localhost." is localhost
  if (text.empty() || text.size() > kMaxHostName)
    return std::nullopt;
  for (char c : text)
    if (!is_name_char(c))
      return std::nullopt;
  return ascii::lowercase(text);
}

int default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

}  // namespace

std::optional<HostAndPort> parse_host(std::string_view text) {
  HostAndPort out;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    auto v6 = canonical_ipv6(text.substr(1, close - 1));
    if (!v6)
      return std::nullopt;
    out.name = std::move(*v6);
    rest = text.substr(close + 1);
  } else {
    const auto colon = text.find(':');
    auto name = host_name(text.substr(0, colon));
    if (!name)
      return std::nullopt;
    out.name = std::move(*name);
    rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon);
  }
  if (rest.empty())
    return out;
  if (rest.front() != ':')
    return std::nullopt;
  out.port = parse_port(rest.substr(1));
  if (!out.port)
    return std::nullopt;
  return out;
}

std::optional<WebOrigin> parse_origin(std::string_view text) {
  WebOrigin out;
  const auto sep = text.find("://");
  if (sep == std::string_view::npos)
    return std::nullopt;
  out.scheme = ascii::lowercase(text.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https")
    return std::nullopt;
  auto host = parse_host(text.substr(sep + 3));  // a path, query or user part fails here
  if (!host)
    return std::nullopt;
  out.host = std::move(*host);
  if (!out.host.port)
    out.host.port = default_port(out.scheme);
  return out;
}

AllowedHosts::AllowedHosts(std::string_view listen_host, int port, const std::vector<std::string>& configured) {
  auto own = [&](std::string_view name) {
    // The listen address may be a bare IPv6 address ("::1", "::").
    const bool bare_v6 = name.find(':') != std::string_view::npos && name.front() != '[';
    if (auto parsed = parse_host(bare_v6 ? "[" + std::string{name} + "]" : std::string{name}))
      entries_.push_back({parsed->name, port});
  };
  for (std::string_view loopback : {"localhost", "127.0.0.1", "::1"})
    own(loopback);
  if (!listen_host.empty())
    own(listen_host);
  for (const auto& text : configured) {
    auto parsed = parse_host(text);
    if (!parsed)
      throw std::invalid_argument("'" + text + "' is not a host name, address or host:port");
    entries_.push_back({parsed->name, parsed->port});
  }
}

bool AllowedHosts::allows(std::string_view host_header) const {
  const auto host = parse_host(host_header);
  if (!host)
    return false;
  // A Host without a port means the scheme's default, which only the client
  // knows (a proxy in front may listen on 443): the name decides alone.
  for (const auto& e : entries_)
    if (e.name == host->name && (!host->port || !e.port || *e.port == *host->port))
      return true;
  return false;
}

AllowedOrigins::AllowedOrigins(const std::vector<std::string>& configured) {
  for (const auto& text : configured) {
    auto parsed = parse_origin(text);
    if (!parsed)
      throw std::invalid_argument("'" + text + "' is not an origin (http://host or https://host:port)");
    configured_.push_back(std::move(*parsed));
  }
}

bool AllowedOrigins::allows(std::string_view origin_header, std::string_view host_header) const {
  const auto origin = parse_origin(origin_header);
  if (!origin)
    return false;  // "null" (a sandboxed frame, a file) or garbage
  auto same = [&](const WebOrigin& o) {
    return o.host.name == origin->host.name && o.host.port == origin->host.port && o.scheme == origin->scheme;
  };
  for (const auto& o : configured_)
    if (same(o))
      return true;
  // The service's own origin: the page was served by the host the request
  // is addressed to. The scheme may differ (TLS ends at a proxy in front).
  const auto host = parse_host(host_header);
  if (!host)
    return false;
  return host->name == origin->host.name && host->port.value_or(*origin->host.port) == *origin->host.port;
}

bool is_json_media_type(std::string_view content_type) {
  const auto media = ascii::trim(content_type.substr(0, content_type.find(';')));
  return ascii::iequals(media, "application/json");
}

bool is_identity_coding(std::string_view content_encoding) {
  const auto coding = ascii::trim(content_encoding);
  return coding.empty() || ascii::iequals(coding, "identity");
}

// -- request framing ----------------------------------------------------------

namespace {

// A request line longer than this is answered 414, as an URI too long: the
// target is all of it but a few bytes.
constexpr std::size_t kMaxRequestLine = 8192;
// A chunk-size line longer than this is not a size: hex digits and a short
// extension fit many times over.
constexpr std::size_t kMaxChunkLine = 1024;
// Chunk framing a body may add on the wire beyond max_body_bytes of data,
// as a multiple of that plus a constant: room for any sensible chunk size,
// none for a body sent one byte per chunk with padding.
constexpr std::size_t kFramingFactor = 2;
constexpr std::size_t kFramingAllowance = 4096;

// RFC 9110 section 5.6.2: what a method and a field name are made of.
bool is_token_char(char c) {
  return ascii::is_alpha(c) || ascii::is_digit(c) || std::string_view{"!#$%&'*+-.^_`|~"}.find(c) != std::string_view::npos;
}
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_token_char);
}

// "http" or "https" when `target` is in absolute form ("http://..."; the
// scheme without regard to case), else "".
std::string_view absolute_form_scheme(std::string_view target) {
  for (std::string_view scheme : {std::string_view{"http"}, std::string_view{"https"}})
    if (target.size() > scheme.size() + 3 && ascii::iequals(target.substr(0, scheme.size()), scheme) &&
        target.substr(scheme.size(), 3) == "://")
      return target.substr(0, scheme.size());
  return {};
}

bool all_digits(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!ascii::is_digit(c))
      return false;
  return true;
}

}  // namespace

RequestFramer::RequestFramer(std::size_t max_head_bytes, std::size_t max_body_bytes)
    : max_head_(max_head_bytes), max_body_(max_body_bytes) {}

RequestFramer::Progress RequestFramer::refuse(int status, const char* code, std::string message) {
  refusal_.emplace(status, code, message);
  return Progress::refused;
}

RequestFramer::Progress RequestFramer::advance(std::string_view received) {
  if (refusal_)
    return Progress::refused;
  // Empty lines before the request line are skipped (RFC 9112 2.2): some
  // clients end a POST body with a CRLF it does not count. Skipped until
  // the request line's first byte has been checked; they count toward the
  // head's size, so endless empty lines are refused like a large head.
  if (phase_ == Phase::head && checked_ == 0) {
    while (received.compare(skipped_, 2, "\r\n") == 0)
      skipped_ += 2;
    if (skipped_ > max_head_)
      return head_too_large();
  }
  received.remove_prefix(skipped_);
  // A lone CR may be half of one more empty line.
  started_ = started_ || (!received.empty() && received != "\r");
  if (phase_ == Phase::head) {
    const auto progress = read_head(received);
    if (progress != Progress::incomplete || phase_ == Phase::head)
      return progress;
  }
  switch (phase_) {
    case Phase::fixed_body:
      if (received.size() < end_)
        return Progress::incomplete;
      request_.body.assign(received.substr(body_start_, end_ - body_start_));
      phase_ = Phase::done;
      return Progress::complete;
    case Phase::chunk_size:
    case Phase::chunk_data:
    case Phase::trailer:
      return read_chunks(received);
    case Phase::head:
    case Phase::done:
      break;
  }
  return Progress::complete;
}

// Every byte of a head may be printable or not (paths are percent-decoded
// later), but line ends are CRLF, and NUL has no place: a bare CR or LF is
// where two parsers (this one and a proxy's in front) could split lines
// differently. RFC 9112 lets a recipient take a bare LF as a line end; this
// one does not. The scan resumes where it stopped; a CR that is the last
// byte so far waits for the next one.
bool RequestFramer::line_ends_clean(std::string_view head) {
  for (; checked_ < head.size(); ++checked_) {
    const char c = head[checked_];
    if (c == '\0')
      return false;
    if (c == '\r') {
      if (checked_ + 1 == head.size())
        return true;
      if (head[checked_ + 1] != '\n')
        return false;
    }
    if (c == '\n' && (checked_ == 0 || head[checked_ - 1] != '\r'))
      return false;
  }
  return true;
}

RequestFramer::Progress RequestFramer::head_too_large() {
  return refuse(431, "headers_too_large",
                "the request line and headers are larger than " + std::to_string(max_head_) + " bytes");
}

RequestFramer::Progress RequestFramer::body_too_large() {
  return refuse(413, "body_too_large", "the request body is larger than " + std::to_string(max_body_) + " bytes");
}

RequestFramer::Progress RequestFramer::read_head(std::string_view received) {
  const auto unclean = [&] {
    return refuse(400, "bad_request", "the request's lines must end in CRLF, and it may not hold NUL bytes");
  };
  const auto blank = received.find("\r\n\r\n", scan_);
  const std::size_t head_end = blank == std::string_view::npos ? received.size() : blank + 4;
  // Line ends are checked as the head arrives, not once it is whole: a
  // head whose lines end in a bare LF never shows the CRLF CRLF that would
  // end it, and would wait for the read timeout instead of its 400. Checked
  // before the size, and only within it, so the answer is the same however
  // the bytes arrive.
  if (!line_ends_clean(received.substr(0, std::min(head_end, max_head_))))
    return unclean();
  if (blank == std::string_view::npos) {
    if (received.size() > max_head_)
      return head_too_large();
    scan_ = received.size() >= 3 ? received.size() - 3 : 0;
    return Progress::incomplete;
  }
  if (head_end > max_head_)
    return head_too_large();

  const auto line_end = received.find("\r\n");
  if (const auto progress = read_request_line(received.substr(0, line_end)); progress == Progress::refused)
    return progress;
  std::optional<std::string_view> length, coding;
  // Header fields: every line after the request line, up to the blank one.
  for (std::size_t at = line_end + 2; at < head_end - 2;) {
    const auto eol = received.find("\r\n", at);
    const auto line = received.substr(at, eol - at);
    at = eol + 2;
    if (line.front() == ' ' || line.front() == '\t')
      return refuse(400, "bad_request", "a header line folded onto the next (obsolete line folding)");
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      return refuse(400, "bad_request", "a header line without a colon");
    const auto name = line.substr(0, colon);
    if (name.empty() || name.back() == ' ' || name.back() == '\t')
      return refuse(400, "bad_request", "whitespace between a header name and its colon");
    if (!is_token(name))
      return refuse(400, "bad_request", "a header name with a character a name may not hold");
    const auto value = ascii::trim(line.substr(colon + 1));
    request_.headers.emplace_back(name, value);
    if (ascii::iequals(name, "Content-Length")) {
      if (length)
        return refuse(400, "bad_request", "more than one Content-Length header");
      length = value;
    } else if (ascii::iequals(name, "Transfer-Encoding")) {
      if (coding)
        return refuse(400, "bad_request", "more than one Transfer-Encoding header");
      coding = value;
    } else if (ascii::iequals(name, "Expect")) {
      expects_continue_ = ascii::iequals(value, "100-continue");
    }
  }

  body_start_ = head_end;
  scan_ = head_end;
  if (length && coding)
    return refuse(400, "bad_request", "both Content-Length and Transfer-Encoding");
  if (coding) {
    if (!ascii::iequals(*coding, "chunked"))
      return refuse(400, "bad_request",
                    "Transfer-Encoding '" + clip_for_message(*coding, 40) + "' is not supported (only chunked)");
    phase_ = Phase::chunk_size;
    return Progress::incomplete;
  }
  if (length) {
    if (!all_digits(*length))
      return refuse(400, "bad_request", "Content-Length '" + clip_for_message(*length, 40) + "' is not a number");
    // More than 18 digits is more than any limit, and more than fits.
    if (length->size() > 18 || std::stoull(std::string{*length}) > max_body_)
      return body_too_large();
    end_ = head_end + std::stoull(std::string{*length});
    phase_ = Phase::fixed_body;
    return Progress::incomplete;
  }
  end_ = head_end;  // no body
  phase_ = Phase::done;
  return Progress::complete;
}

RequestFramer::Progress RequestFramer::read_chunks(std::string_view received) {
  const auto malformed = [&](const char* what) {
    return refuse(400, "bad_request", std::string{"malformed chunked body: "} + what);
  };
  const std::size_t max_wire = kFramingFactor * max_body_ + kFramingAllowance;
  for (;;) {
    // Framing too counts: a body of one-byte chunks is mostly framing. (What
    // is read so far of this request, not what follows it.)
    if (scan_ - body_start_ > max_wire)
      return refuse(413, "body_too_large",
                    "the chunked body, framing included, is larger than " + std::to_string(max_wire) + " bytes");
    switch (phase_) {
      case Phase::chunk_size: {
        const auto eol = received.find("\r\n", scan_);
        if (eol == std::string_view::npos) {
          // The last byte here may be the line's CR.
          if (received.size() - scan_ > kMaxChunkLine + 1)
            return malformed("a chunk-size line is too long");
          return Progress::incomplete;
        }
        const auto line = received.substr(scan_, eol - scan_);
        if (line.size() > kMaxChunkLine)
          return malformed("a chunk-size line is too long");
        std::size_t digits = 0;
        std::uint64_t size = 0;
        for (; digits < line.size() && is_hex_digit(line[digits]); ++digits) {
          size = size * 16 + static_cast<std::uint64_t>(hex_digit_value(line[digits]));
          if (size > max_body_)
            return body_too_large();
        }
        if (digits == 0)
          return malformed("a chunk does not start with its size in hex");
        const auto rest = ascii::trim_if(line.substr(digits), [](char c) { return c == ' ' || c == '\t'; });
        if (!rest.empty() && rest.front() != ';')
          return malformed("a chunk size is followed by something other than an extension");
        payload_ += size;
        if (payload_ > max_body_)
          return body_too_large();
        scan_ = eol + 2;
        if (size == 0) {
          phase_ = Phase::trailer;
        } else {
          chunk_end_ = scan_ + size;
          phase_ = Phase::chunk_data;
        }
        break;
      }
      case Phase::chunk_data:
        if (received.size() < chunk_end_ + 2)
          return Progress::incomplete;
        if (received.substr(chunk_end_, 2) != "\r\n")
          return malformed("a chunk's data is not followed by CRLF");
        request_.body.append(received.substr(scan_, chunk_end_ - scan_));
        scan_ = chunk_end_ + 2;
        phase_ = Phase::chunk_size;
        break;
      case Phase::trailer:
        if (received.size() < scan_ + 2)
          return Progress::incomplete;
        // Nothing here reads trailer fields, so none are taken.
        if (received.substr(scan_, 2) != "\r\n")
          return malformed("trailer fields are not supported");
        end_ = scan_ + 2;
        phase_ = Phase::done;
        return Progress::complete;
      case Phase::head:
      case Phase::fixed_body:
      case Phase::done:
        return Progress::complete;
    }
  }
}

RequestFramer::Progress RequestFramer::read_request_line(std::string_view line) {
  if (line.size() > kMaxRequestLine)
    return refuse(414, "uri_too_long",
                  "the request line is longer than " + std::to_string(kMaxRequestLine) + " bytes");
  const auto first_space = line.find(' ');
  const auto last_space = line.rfind(' ');
  const auto method = line.substr(0, first_space);
  const auto target = first_space == std::string_view::npos
                        ? std::string_view{}
                        : line.substr(first_space + 1, last_space - first_space - 1);
  const auto version = line.substr(last_space + 1);
  if (first_space == std::string_view::npos || first_space == last_space || !is_token(method) || target.empty() ||
      target.find(' ') != std::string_view::npos || (version != "HTTP/1.1" && version != "HTTP/1.0"))
    return refuse(400, "bad_request", "the request line is not METHOD TARGET HTTP/1.1 (or HTTP/1.0)");
  // A fragment is the client's own business and never sent (RFC 9112 3.2):
  // a target holding one is a broken client, not a path to look up.
  if (target.find('#') != std::string_view::npos)
    return refuse(400, "bad_request", "the request target holds a '#' fragment, which a client never sends");
  request_.method = method;
  request_.version = version;
  // The absolute form, `http://host:port/path?query`, which a server must
  // accept (RFC 9112 3.2.2): its authority stands for the Host field, the
  // rest is read as the origin form is.
  auto origin_form = target;
  if (const auto scheme = absolute_form_scheme(target); !scheme.empty()) {
    const auto rest = target.substr(scheme.size() + 3);
    const auto authority = rest.substr(0, rest.find_first_of("/?"));
    if (authority.empty() || authority.find('@') != std::string_view::npos)
      return refuse(400, "bad_request", "an absolute request target needs a host, and no user name or password");
    request_.authority = authority;
    origin_form = rest.substr(authority.size());
  }
  request_.target = origin_form;
  const auto question = origin_form.find('?');
  request_.path = percent_decode(origin_form.substr(0, question));
  if (request_.path.empty() && !request_.authority.empty())
    request_.path = "/";  // `http://host` and `http://host?q` name the root
  if (question != std::string_view::npos)
    request_.params = parse_query(origin_form.substr(question + 1));
  return Progress::incomplete;
}

// -- paths, queries, messages --------------------------------------------------

namespace {

constexpr std::string_view kJobPrefix = "/crawl/";

// "/crawl/ID", "/crawl/ID/graph", "/crawl/ID/events", ...: an ID is one or
// more bytes other than '/'.
Route job_route(std::string_view rest) {
  const auto slash = rest.find('/');
  if (slash == 0)
    return Route::none;
  if (slash == std::string_view::npos)
    return rest.empty() ? Route::none : Route::job;
  const auto tail = rest.substr(slash);
  if (tail == "/graph")
    return Route::job_graph;
  if (tail == "/items")
    return Route::job_items;
  if (tail == "/events")
    return Route::job_events;
  if (tail == "/redrive")
    return Route::job_redrive;
  if (tail == "/export")
    return Route::job_export;
  return Route::none;
}

}  // namespace

Route route_of(std::string_view path) {
  if (path == "/healthz")
    return Route::health;
  if (path == "/")
    return Route::dashboard;
  if (path == "/api/info")
    return Route::info;
  if (path == "/crawl")
    return Route::jobs;
  if (path == "/metrics")
    return Route::metrics;
  if (path.substr(0, kJobPrefix.size()) == kJobPrefix)
    return job_route(path.substr(kJobPrefix.size()));
  return Route::none;
}

std::string_view job_id_of(std::string_view path) {
  switch (route_of(path)) {
    case Route::job:
    case Route::job_graph:
    case Route::job_items:
    case Route::job_events:
    case Route::job_redrive:
    case Route::job_export: {
      const auto rest = path.substr(kJobPrefix.size());
      return rest.substr(0, rest.find('/'));
    }
    default:
      return {};
  }
}

std::int64_t query_integer(std::string_view name, const std::optional<std::string>& text, std::int64_t fallback,
                           std::int64_t min, std::int64_t max) {
  if (!text)
    return fallback;
  const std::string quoted = "'" + std::string{name} + "'";
  if (text->empty() || text->find_first_not_of("0123456789") != std::string::npos)
    throw ApiError(400, "invalid_parameter", quoted + " must be a whole number");
  const auto out_of_range = [&] {
    return ApiError(400, "out_of_range",
                    quoted + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  };
  // Any number of digits is a whole number; one past `max` (which fits in
  // 64 bits) is out of range, found before the value could overflow.
  std::int64_t v = 0;
  for (char c : *text) {
    const int digit = c - '0';
    if (v > (max - digit) / 10)
      throw out_of_range();
    v = v * 10 + digit;
  }
  if (v < min || v > max)
    throw out_of_range();
  return v;
}

std::string clip_for_message(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes)
    return std::string{text};
  std::size_t cut = max_bytes;
  // Back over continuation bytes (10xxxxxx) to the start of the character
  // the cut falls in; a UTF-8 character is at most 4 bytes.
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80; ++back)
    --cut;
  return std::string{text.substr(0, cut)} + "...";
}

}  // namespace actorcrawl
