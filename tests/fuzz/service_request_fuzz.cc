// libFuzzer target for what the crawl service reads of a request before
// anything else does: the job body (service/job_request), and the pure
// request rules of service/request_policy — framing a request as its bytes
// arrive, the Host and Origin checks, routes by path, query integers, text
// quoted in messages. The properties:
//
// - nothing crashes, and nothing throws but ApiError;
// - every ApiError renders as JSON that parses back to {"error": {"code",
//   "message"}} — its body is what a client gets, whatever bytes it sent;
// - an accepted job request survives the trip through the job table
//   (to_json, job_request_from_json) unchanged;
// - reading a request (framing it, and what it says) gives the same answer
//   however the bytes were split on arrival;
// - route_of and job_id_of agree with the routes' patterns as docs/service.md
//   writes them, as regular expressions.
//
// Input: any bytes. The whole input is a job body, a request's bytes, a
// path and a query value; split at its first newline it is a Host header
// and an Origin header.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <regex>
#include <string>
#include <string_view>

#include "service/api_error.h"
#include "service/job_request.h"
#include "service/request_policy.h"
#include "core/web/charset.h"

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "service_request_fuzz: %s\n  %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_error_body(const ApiError& e) {
  const auto body = nlohmann::json::parse(e.json(), nullptr, false);
  if (body.is_discarded())
    fail("an error body is not JSON", e.json());
  if (!body.is_object() || body.size() != 1 || !body.contains("error") || body.at("error").size() != 2 ||
      !body.at("error").at("code").is_string() || body.at("error").at("code") != e.code() ||
      !body.at("error").at("message").is_string())
    fail("an error body is not {\"error\": {\"code\", \"message\"}}", e.json());
  if (e.status() < 400 || e.status() > 599)
    fail("an error with a status that is not an error", e.json());
}

// Runs `f`; an ApiError must render, anything else is a finding.
template <class F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const ApiError& e) {
    check_error_body(e);
    return false;
  } catch (const std::exception& e) {
    fail("an exception other than ApiError", e.what());
  }
}

void check_job_request(std::string_view body) {
  JobRequest request;
  if (!accepted([&] { request = parse_job_request(body); }))
    return;
  const std::string stored = to_json(request);
  JobRequest again;
  if (!accepted([&] { again = job_request_from_json(stored); }))
    fail("a stored request does not read back", stored);
  if (to_json(again) != stored)
    fail("a stored request reads back changed", stored);
  accepted([&] { job_request_from_json(body); });
}

void check_framing(std::string_view bytes) {
  RequestFramer whole(512, 256);
  const auto at_once = whole.advance(bytes);
  // The same bytes in three arrivals.
  RequestFramer pieces(512, 256);
  auto progress = RequestFramer::Progress::incomplete;
  for (std::size_t end : {bytes.size() / 3, bytes.size() / 2, bytes.size()}) {
    progress = pieces.advance(bytes.substr(0, end));
    if (progress != RequestFramer::Progress::incomplete)
      break;
  }
  // Where a request ends, and whether it is refused, depends on its bytes,
  // not on how they arrived.
  using P = RequestFramer::Progress;
  if (progress != at_once)
    fail("framing in pieces and at once disagree", bytes);
  if (at_once == P::complete) {
    if (whole.request_length() == 0 || whole.request_length() > bytes.size())
      fail("a request longer than its bytes", bytes);
    if (pieces.request_length() != whole.request_length())
      fail("framing in pieces found another end", bytes);
    const HttpRequest& a = whole.request();
    const HttpRequest& b = pieces.request();
    if (a.method != b.method || a.target != b.target || a.path != b.path || a.version != b.version ||
        a.headers != b.headers || a.params != b.params || a.body != b.body)
      fail("reading in pieces found another request", bytes);
    if (a.method.empty() || a.target.empty() || a.body.size() > 256)
      fail("a request read without a method, a target, or with a body over the limit", bytes);
  }
  if (at_once == P::refused) {
    check_error_body(*whole.refusal());
    if (pieces.refusal()->code() != whole.refusal()->code())
      fail("framing in pieces refused for another reason", bytes);
  }
}

void check_route(std::string_view path) {
  if (path.size() > 256)
    return;  // std::regex recurses per character
  static const std::regex job{R"(/crawl/([^/]+))"}, graph{R"(/crawl/([^/]+)/graph)"},
    items{R"(/crawl/([^/]+)/items)"}, events{R"(/crawl/([^/]+)/events)"};
  const std::string text{path};
  const Route route = route_of(path);
  std::smatch m;
  const bool regex_job = std::regex_match(text, m, job) || std::regex_match(text, m, graph) ||
                         std::regex_match(text, m, items) || std::regex_match(text, m, events);
  const bool regex_graph = std::regex_match(text, graph), regex_items = std::regex_match(text, items),
             regex_events = std::regex_match(text, events);
  if (regex_job && job_id_of(path) != m[1].str())
    fail("job_id_of disagrees with the pattern's id", path);
  // A path like /crawl/x/graph matches job_graph only: [^/]+ stops at '/'.
  const bool route_job = route == Route::job || route == Route::job_graph || route == Route::job_items ||
                         route == Route::job_events;
  if (route_job != regex_job || (route == Route::job_graph) != regex_graph ||
      (route == Route::job_items) != regex_items || (route == Route::job_events) != regex_events)
    fail("route_of disagrees with the routes' patterns", path);
}


void check_message_text(std::string_view text) {
  const std::size_t max = text.size() / 2;
  const std::string clipped = clip_for_message(text, max);
  if (clipped.size() > max + 3)
    fail("a clipped text is longer than asked", text);
  // Only the shape of UTF-8 is checked here (not overlong forms), which is
  // what cutting can break.
  if (is_valid_utf8(text) && !is_valid_utf8(clipped))
    fail("clipping cut inside a character", text);
  check_error_body(ApiError(404, "not_found", "no route GET " + clipped));
}

void check_callers(std::string_view input) {
  const auto newline = input.find('\n');
  const std::string host{input.substr(0, newline)};
  const std::string origin{newline == std::string_view::npos ? input : input.substr(newline + 1)};
  static const AllowedHosts hosts("127.0.0.1", 8088, {"crawler.example", "ui.example:8443"});
  static const AllowedOrigins origins({"https://ui.example:8443"});
  const bool host_ok = hosts.allows(host);
  (void)origins.allows(origin, host);
  // Whatever else passes, a foreign name does not.
  if (host_ok) {
    const auto parsed = parse_host(host);
    if (!parsed || (parsed->name != "localhost" && parsed->name != "127.0.0.1" && parsed->name != "::1" &&
                    parsed->name != "crawler.example" && parsed->name != "ui.example"))
      fail("a foreign Host was allowed", host);
  }
  (void)is_json_media_type(input);
  (void)is_identity_coding(input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_job_request(input);
  check_framing(input);
  check_route(input);
  check_message_text(input);
  check_callers(input);
  accepted([&] { query_integer("limit", std::string{input}, 100, 1, 1000); });
  return 0;
}
