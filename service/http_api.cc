#include "service/http_api.h"

#include "core/web/json_guard.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <algorithm>
#include <exception>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <string>
#include <vector>

#include "core/clock/clock.h"
#include "core/config/crawl_config.h"
#include "core/config/version.h"
#include "core/export/crawl_export.h"
#include "core/web/json_text.h"
#include "service/api_error.h"
#include "service/bounded_lists.h"
#include "service/chunk_stream.h"
#include "service/crawl_service.h"
#include "service/dashboard.h"
#include "service/http_request.h"
#include "service/http_response.h"
#include "service/http_server.h"
#include "service/job_request.h"
#include "service/request_policy.h"

namespace actorcrawl {

namespace {

using nlohmann::json;

constexpr std::int64_t kDefaultPageLimit = 100;
constexpr std::int64_t kMaxPageLimit = 1000;
// Links per page in one answer, and links in one answer at most: a page of
// 80,000 links, or a thousand pages of a thousand, never make one huge body.
constexpr std::int64_t kDefaultLinksLimit = 100;
constexpr std::int64_t kMaxLinksLimit = 1000;
constexpr std::int64_t kMaxLinksPerAnswer = 100000;
// Items in one answer of GET /crawl/:id/items, by default and at most.
constexpr std::int64_t kDefaultItemLimit = 100;
constexpr std::int64_t kMaxItemLimit = 1000;
// Jobs in one answer of GET /crawl at most (and by default).
constexpr std::int64_t kMaxJobLimit = 1000;
constexpr std::int64_t kMaxQueryOffset = std::numeric_limits<std::int32_t>::max();
// What an answer holds around its list — its own fields, `next` — counted
// against the budget before the list (kAnswerBudgetBytes).
constexpr std::size_t kEnvelopeBytes = 1024;
// Exports streaming at once. Each holds a request thread for as long as it
// takes to write (minutes for a million pages), so they are capped well
// below the pool's size.
constexpr std::int64_t kMaxExports = 4;

// Strings from crawled pages may hold invalid UTF-8; JSON must not.
std::string dump(const json& j) { return json_text(j); }

void send_json(HttpResponse& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump(body), "application/json");
}

// A 200 answer whose JSON text is written already (moved, not copied: it
// may be a MiB).
void send_json_text(HttpResponse& res, std::string text) {
  res.status = 200;
  res.set_content(std::move(text), "application/json");
}

// `object` as JSON text, followed by members whose values are JSON text
// written already (the long lists, written within a byte budget); inside
// {"<outer>": ...} when `outer` is given. One buffer: the lists are copied
// once.
std::string with_raw_members(const json& object,
                             std::initializer_list<std::pair<const char*, const std::string*>> members,
                             const char* outer = nullptr) {
  const std::string fields = dump(object);
  std::size_t size = fields.size() + (outer ? std::strlen(outer) + 5 : 0);
  for (const auto& [name, text] : members)
    size += std::strlen(name) + text->size() + 4;
  std::string out;
  out.reserve(size);
  if (outer)
    out.append("{\"").append(outer).append("\":");
  out.append(fields, 0, fields.size() - 1);  // without its closing brace
  bool first = fields == "{}";
  for (const auto& [name, text] : members) {
    if (!first)
      out += ',';
    first = false;
    out.append("\"").append(name).append("\":").append(*text);
  }
  out += '}';
  if (outer)
    out += '}';
  return out;
}

// Where the next answer of a job's items starts: the kind quoted for a
// query (a rule's name may hold any character).
std::string items_link(const std::string& job_id, const ItemsWindow& w) {
  const std::string link = "/crawl/" + job_id + "/items?offset=" + std::to_string(w.offset) +
                           "&limit=" + std::to_string(w.limit);
  return w.kind ? link + "&kind=" + query_quoted(*w.kind) : link;
}

// A job's processor failures as {"processor": {"reason": count}}.
json failures_by_processor(const std::vector<ProcessorFailureCount>& failures) {
  json out = json::object();
  for (const auto& f : failures)
    out[f.processor][f.reason] = f.count;
  return out;
}

// Where the next answer of a job's pages starts.
std::string pages_link(const std::string& job_id, const PagesWindow& w) {
  std::string link = "/crawl/" + job_id + "?offset=" + std::to_string(w.offset) + "&limit=" + std::to_string(w.limit) +
                     "&links_offset=" + std::to_string(w.links_offset) + "&links_limit=" + std::to_string(w.links_limit);
  if (w.first_links_offset)
    link += "&first_links_offset=" + std::to_string(*w.first_links_offset);
  return link;
}

// GET /healthz's answer: it says nothing and changes nothing.
constexpr const char* kHealthBody = R"({"status":"ok"})";

// The body of last resort, for when even an error cannot be described.
constexpr const char* kUndescribedError =
  R"({"error":{"code":"internal_error","message":"the error could not be described"}})";

// Never throws: it is what every error path ends in.
void send_error(HttpResponse& res, const ApiError& e) noexcept {
  res.status = e.status();
  res.streamer = nullptr;
  try {
    res.set_content(e.json(), "application/json");
  } catch (...) {
    res.body = kUndescribedError;
    res.content_type = "application/json";
  }
}

// An exception from wherever, as the error it answers with.
ApiError error_of(std::exception_ptr thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const ApiError& e) {
    return e;
  } catch (const std::exception& e) {
    return ApiError(500, "internal_error", e.what());
  } catch (...) {
    return ApiError(500, "internal_error", "an unknown error");
  }
}

json time_or_null(const std::optional<std::int64_t>& t) { return t ? json(*t) : json(nullptr); }

json job_summary(const JobRow& row) {
  return json{{"id", row.id},
              {"status", to_string(row.status)},
              {"seed_url", row.seed_url},
              {"max_pages", row.max_pages},
              {"pages_fetched", row.pages_fetched},
              {"pages_failed", row.pages_failed},
              {"created_at", row.created_at},
              {"started_at", time_or_null(row.started_at)},
              {"ended_at", time_or_null(row.ended_at)},
              {"cancel_requested_at", time_or_null(row.cancel_requested_at)}};
}

// A running job's live counters over the table's (which it writes at the end).
// Once the row is terminal its counts are final: the job's live counters
// still answer for a moment after the row is written, and they may trail
// the last page (progress is sampled), so they are not read then.
void add_live_counts(json& job, CrawlService& service, const JobRow& row) {
  auto live = has_ended(row.status) ? std::nullopt : service.live(row.id);
  if (!live) {
    job["queued"] = 0;
    job["in_flight"] = 0;
    return;
  }
  job["pages_fetched"] = live->progress.fetched;
  job["pages_failed"] = live->progress.failed;
  job["queued"] = live->progress.queued;
  job["in_flight"] = live->progress.in_flight;
  job["pages_per_second"] = live->pages_per_second;
}

// Constant time, so the token cannot be guessed byte by byte from timings.
bool same_token(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

std::optional<std::string> query_param(const HttpRequest& req, const char* name) { return req.param(name); }

// One of a capped number of streamed answers (event streams, exports),
// each holding a server thread while it lasts: taken when the route admits
// the stream, given back when the last copy of its streamer goes (the
// stream ended, or was never written: a HEAD request).
class StreamSlot {
 public:
  // A slot, if fewer than `max` of `count`'s are taken.
  static std::optional<StreamSlot> take(std::atomic<std::int64_t>& count, std::int64_t max) {
    if (count.fetch_add(1) >= max) {
      count.fetch_sub(1);
      return std::nullopt;
    }
    return StreamSlot(count);
  }

 private:
  explicit StreamSlot(std::atomic<std::int64_t>& count)
      : held_(&count, [](std::atomic<std::int64_t>* c) { c->fetch_sub(1); }) {}
  std::shared_ptr<std::atomic<std::int64_t>> held_;
};

// What the server allows itself: the service's limits as HttpServer's.
HttpServerLimits server_limits(const CrawlConfig& config) {
  HttpServerLimits limits;
  limits.max_connections = static_cast<std::size_t>(config.service_max_connections);
  // Streams get their cap (max_event_streams) and 16 threads stay for
  // everything else, so open dashboards never take every thread.
  limits.worker_threads = static_cast<std::size_t>(config.max_event_streams) + 16;
  limits.read_timeout = std::chrono::milliseconds{config.service_read_timeout_ms};
  limits.max_body_bytes = static_cast<std::size_t>(config.max_request_bytes);
  return limits;
}

}  // namespace

struct HttpApi::Impl {
  CrawlService& service;
  const CrawlConfig& config;
  DemoWebInfo demo;
  HttpServer http;
  // Event streams open now. Each holds one of the server's request threads
  // for as long as its job runs, so they are capped below the pool's size.
  std::atomic<std::int64_t> open_streams{0};
  std::atomic<std::int64_t> open_exports{0};
  // Who may call: set once bind() knows the port, before any request.
  std::optional<AllowedHosts> allowed_hosts;
  AllowedOrigins allowed_origins;

  Impl(CrawlService& s, const CrawlConfig& c, DemoWebInfo d)
      : service(s), config(c), demo(std::move(d)),
        http(server_limits(c), [this](const HttpRequest& req, HttpResponse& res) { answer(req, res); }),
        allowed_origins(c.service_allowed_origins) {}

  JobRow known_job(const std::string& id) {
    auto row = service.job(id);
    if (!row)
      throw ApiError(404, "job_not_found", "no job '" + clip_for_message(id, 100) + "'");
    return *row;
  }

  // -- before the routes ---------------------------------------------------------

  // Every request but /healthz (which says nothing and changes nothing)
  // passes these, in this order, before a route or a body parser sees it.
  void screen(const HttpRequest& req, HttpResponse& res) const {
    if (route_of(req.path) == Route::health)
      return;
    check_host(req);
    check_origin(req);
    check_token(req, res);
    check_body_type(req);
  }

  // DNS rebinding: a page of evil.example whose name now points here still
  // sends Host: evil.example. Requests without a Host (HTTP/1.0 tools) go on;
  // every browser sends one. A target in absolute form (http://host/...)
  // names its host itself, which is checked in the Host field's place.
  void check_host(const HttpRequest& req) const {
    const auto hosts = req.header_count("Host");
    if (hosts == 0 && req.authority.empty())
      return;
    const auto host = req.host();
    if (hosts > 1 || !allowed_hosts || !allowed_hosts->allows(host))
      throw ApiError(421, "host_not_allowed",
                     "this service does not answer to Host '" + clip_for_message(host, 100) +
                       "' (a name of yours belongs in service_allowed_hosts)");
  }

  // Cross-site requests: a page on another site that posts here sends its
  // own Origin. curl and scripts send none, and go on.
  void check_origin(const HttpRequest& req) const {
    const auto origins = req.header_count("Origin");
    if (origins == 0)
      return;
    const auto origin = req.header("Origin");
    if (origins > 1 || !allowed_origins.allows(origin, req.host()))
      throw ApiError(403, "origin_not_allowed",
                     "requests from pages of '" + clip_for_message(origin, 100) +
                       "' are not accepted (an origin of yours belongs in service_allowed_origins)");
  }

  void check_token(const HttpRequest& req, HttpResponse& res) const {
    if (config.service_token.empty())
      return;
    std::string given;
    const auto auth = req.header("Authorization");
    if (auth.rfind("Bearer ", 0) == 0)
      given = auth.substr(7);
    else if (const auto token = req.param("access_token"))  // EventSource and the first page load cannot set headers
      given = *token;
    if (same_token(given, config.service_token))
      return;
    res.set_header("WWW-Authenticate", "Bearer");
    throw ApiError(401, "unauthorized",
                   given.empty() ? "this service needs a bearer token (Authorization: Bearer ...)"
                                 : "the bearer token is not valid");
  }

  // Bodies are read as sent, never inflated (a small gzip body can inflate
  // a thousandfold), and a job is JSON: a form or text/plain post, which
  // any web page can send without asking, starts nothing.
  static void check_body_type(const HttpRequest& req) {
    if (req.has_header("Content-Encoding") && !is_identity_coding(req.header("Content-Encoding")))
      throw ApiError(415, "unsupported_encoding",
                     "request bodies are read as sent: Content-Encoding '" +
                       clip_for_message(req.header("Content-Encoding"), 40) + "' is not accepted");
    const Route route = route_of(req.path);
    if (req.method == "POST" && (route == Route::jobs || route == Route::job_redrive) &&
        !is_json_media_type(req.header("Content-Type")))
      throw ApiError(415, "unsupported_media_type",
                     "POST " + std::string{route == Route::jobs ? "/crawl" : "/crawl/{id}/redrive"} +
                       " takes Content-Type: application/json, not '" +
                       clip_for_message(req.header("Content-Type"), 60) + "'");
  }

  // -- the routes ----------------------------------------------------------------

  // GET /healthz. The server's reception answers it (answer_at_reception);
  // this route answers what reaches a worker all the same (HEAD, or the
  // path written with percent-escapes).
  void health(const HttpRequest&, HttpResponse& res) {
    res.set_content(kHealthBody, "application/json");
  }

  // GET /
  void dashboard(const HttpRequest&, HttpResponse& res) {
    res.set_content(std::string{dashboard_html()}, "text/html; charset=utf-8");
  }

  // GET /api/info
  void info(const HttpRequest&, HttpResponse& res) {
    send_json(res, 200, json{{"version", actorcrawl_version()},
                             {"demo_url", demo.url.empty() ? json(nullptr) : json(demo.url)},
                             {"demo_allowed_domains", demo.url.empty() ? json(nullptr) : json(demo.hosts)},
                             {"allow_private_networks", config.allow_private_networks},
                             {"max_concurrent_jobs", config.max_concurrent_jobs},
                             {"max_pages_per_job", config.max_pages_per_job}});
  }

  // POST /crawl
  void submit_job(const HttpRequest& req, HttpResponse& res) {
    // The server refused larger bodies as they arrived; this holds whatever
    // the server in front.
    if (req.body.size() > static_cast<std::size_t>(config.max_request_bytes))
      throw ApiError(413, "body_too_large",
                     "the request body is larger than " + std::to_string(config.max_request_bytes) + " bytes");
    JobLimits limits;
    limits.max_pages = config.max_pages_per_job;
    limits.request_keys = config.service_job_request_keys;
    const auto request = parse_job_request(req.body, limits);
    const auto row = service.submit(request);
    res.set_header("Location", "/crawl/" + row.id);
    send_json(res, 202, json{{"job_id", row.id}, {"status", "started"}});
  }

  // GET /crawl?offset=&limit=
  void list_jobs(const HttpRequest& req, HttpResponse& res) {
    const auto offset = query_integer("offset", query_param(req, "offset"), 0, 0, kMaxQueryOffset);
    const auto limit = query_integer("limit", query_param(req, "limit"), kMaxJobLimit, 1, kMaxJobLimit);
    // Read a batch at a time: a thousand rows with 64 KiB seed URLs are not
    // held at once either.
    constexpr std::int64_t kBatch = 100;
    std::string array = "[";
    std::size_t used = 2 + kEnvelopeBytes;
    std::int64_t listed = 0;
    bool cut = false;
    while (listed < limit && !cut) {
      const std::int64_t wanted = std::min(kBatch, limit - listed);
      const auto rows =
        service.jobs(static_cast<std::size_t>(offset + listed), static_cast<std::size_t>(wanted));
      for (const auto& row : rows) {
        json job = job_summary(row);
        add_live_counts(job, service, row);
        if (!append_within(array, dump(job), used, kAnswerBudgetBytes, listed == 0)) {
          cut = true;
          break;
        }
        ++listed;
      }
      if (static_cast<std::int64_t>(rows.size()) < wanted)
        break;  // no more jobs
    }
    array += ']';
    const std::int64_t next_offset = offset + listed;
    const bool more = next_offset < service.job_count();
    json answer{{"truncated", cut},
                {"next", more ? json("/crawl?offset=" + std::to_string(next_offset) + "&limit=" + std::to_string(limit))
                              : json(nullptr)}};
    send_json_text(res, with_raw_members(answer, {{"jobs", &array}}));
  }

  // GET /crawl/:id?offset=&limit=&links_offset=&links_limit=&first_links_offset=
  void read_job(const HttpRequest& req, HttpResponse& res) {
    const auto row = known_job(std::string{job_id_of(req.path)});
    PagesWindow window;
    window.offset = query_integer("offset", query_param(req, "offset"), 0, 0, kMaxQueryOffset);
    window.limit = query_integer("limit", query_param(req, "limit"), kDefaultPageLimit, 1, kMaxPageLimit);
    window.links_offset = query_integer("links_offset", query_param(req, "links_offset"), 0, 0, kMaxQueryOffset);
    window.links_limit =
      query_integer("links_limit", query_param(req, "links_limit"), kDefaultLinksLimit, 0, kMaxLinksLimit);
    if (window.limit * window.links_limit > kMaxLinksPerAnswer)
      throw ApiError(400, "out_of_range",
                     "limit x links_limit must be at most " + std::to_string(kMaxLinksPerAnswer) + ", got " +
                       std::to_string(window.limit * window.links_limit));
    if (const auto first = query_param(req, "first_links_offset"))
      window.first_links_offset = query_integer("first_links_offset", first, 0, window.links_offset,
                                                window.links_offset + window.links_limit);
    json job = job_summary(row);
    job["offset"] = window.offset;
    job["limit"] = window.limit;
    job["links_offset"] = window.links_offset;
    job["links_limit"] = window.links_limit;
    job["error"] = row.error.empty() ? json(nullptr) : json(row.error);
    add_live_counts(job, service, row);
    // What the processors left: counts only (one COUNT, one GROUP BY of a
    // handful of rows); the items themselves are GET /crawl/:id/items's.
    const auto items = count_items(row.db_path);
    job["items_total"] = items.items;
    job["item_kinds"] = items.kinds;
    job["processor_failures"] = failures_by_processor(items.failures);
    // What the fetches found against the pages stored before (every run of
    // the job's database): a recrawl's new, changed, unchanged, gone.
    const PageChangeCounts changes = count_changes(row.db_path);
    job["pages_new"] = changes.new_pages;
    job["pages_changed"] = changes.changed;
    job["pages_unchanged"] = changes.unchanged;
    job["pages_gone"] = changes.gone;
    // The job's own fields are small but for its seed URL and error: the
    // pages get what they leave of the budget.
    const std::size_t fields = dump(job).size() + kEnvelopeBytes;
    const auto pages =
      list_pages(row.db_path, window, kAnswerBudgetBytes > fields ? kAnswerBudgetBytes - fields : 0);
    job["pages_total"] = pages.total;
    job["truncated"] = pages.truncated;
    job["next"] = pages.next ? json(pages_link(row.id, *pages.next)) : json(nullptr);
    send_json_text(res, with_raw_members(job, {{"pages", &pages.json}}, "job"));
  }

  // GET /crawl/:id/items?offset=&limit=&kind=
  void read_job_items(const HttpRequest& req, HttpResponse& res) {
    const auto row = known_job(std::string{job_id_of(req.path)});
    ItemsWindow window;
    window.offset = query_integer("offset", query_param(req, "offset"), 0, 0, kMaxQueryOffset);
    window.limit = query_integer("limit", query_param(req, "limit"), kDefaultItemLimit, 1, kMaxItemLimit);
    window.kind = query_param(req, "kind");
    if (window.kind && window.kind->empty())
      throw ApiError(400, "invalid_parameter",
                     "'kind' must name a kind of item (an extraction rule's or a processor's name), or be left out");
    json answer{{"job_id", row.id}, {"offset", window.offset}, {"limit", window.limit},
                {"kind", window.kind ? json(*window.kind) : json(nullptr)}};
    // The answer's fields, its longest possible next link among them (the
    // kind, quoted, may be long), leave the rest of the budget to the items.
    ItemsWindow longest = window;
    longest.offset = kMaxQueryOffset;
    const std::size_t fields = dump(answer).size() + items_link(row.id, longest).size() + kEnvelopeBytes;
    const auto items = list_items(row.db_path, window, kAnswerBudgetBytes > fields ? kAnswerBudgetBytes - fields : 0);
    answer["items_total"] = items.total;
    answer["truncated"] = items.truncated;
    answer["next"] = items.next ? json(items_link(row.id, *items.next)) : json(nullptr);
    send_json_text(res, with_raw_members(answer, {{"items", &items.json}}));
  }

  // DELETE /crawl/:id
  void cancel_job(const HttpRequest& req, HttpResponse& res) {
    const std::string id = std::string{job_id_of(req.path)};
    auto row = known_job(id);
    if (has_ended(row.status))
      throw ApiError(409, "job_finished",
                     "job '" + clip_for_message(id, 100) + "' is already " + to_string(row.status));
    service.cancel(id);
    // The cancel is in the job table now, so no restart resumes the job.
    // In-flight transfers end (bounded by the request timeout); answer with
    // the final state when it comes soon enough.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds{30};
    while (std::chrono::steady_clock::now() < until) {
      row = known_job(id);
      if (has_ended(row.status))
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    const bool over = has_ended(row.status);
    send_json(res, over ? 200 : 202, json{{"job_id", id}, {"status", over ? to_string(row.status) : "cancelling"}});
  }

  // POST /crawl/:id/redrive  {"reason": "http_404", "older_than": "2h"}, both optional
  void redrive_job(const HttpRequest& req, HttpResponse& res) {
    const std::string id = std::string{job_id_of(req.path)};
    known_job(id);
    RedriveFilter filter;
    if (!req.body.empty()) {
      if (const std::string problem = json_shape_problem(req.body); !problem.empty())
        throw ApiError(400, "invalid_body", "the body's JSON is " + problem);
      const json body = json::parse(req.body, nullptr, false);
      if (body.is_discarded())
        throw ApiError(400, "malformed_json", "the body is not JSON");
      if (!body.is_object())
        throw ApiError(400, "invalid_body", "the body is not a JSON object");
      for (const auto& [key, value] : body.items()) {
        if (key != "reason" && key != "older_than")
          throw ApiError(400, "unknown_field",
                         "'" + clip_for_message(key, 40) + "' is not a field of a re-drive (reason and older_than are)");
        if (!value.is_string())
          throw ApiError(400, "invalid_type", "'" + key + "' is a string");
        if (key == "reason") {
          filter.reason = value.get<std::string>();
          continue;
        }
        std::int64_t age = 0;
        try {
          age = parse_duration_ms(value.get<std::string>());
        } catch (const ConfigError& e) {
          throw ApiError(400, "invalid_type", std::string{"older_than: "} + e.what());
        }
        filter.failed_before_ms = epoch_ms() - std::max<std::int64_t>(age, 0);
      }
    }
    const auto done = service.redrive(id, filter);
    json by_reason = json::object();
    for (const auto& [reason, n] : done.report.by_reason)
      by_reason[reason] = n;
    send_json(res, 200, json{{"job_id", id},
                             {"letters", done.report.letters},
                             {"requeued", done.report.requeued},
                             {"already_queued_or_done", done.report.already_queued_or_done},
                             {"by_reason", by_reason},
                             {"restarted", done.restarted}});
  }

  // GET /crawl/:id/graph?nodes_offset=&edges_offset=
  void read_job_graph(const HttpRequest& req, HttpResponse& res) {
    const auto row = known_job(std::string{job_id_of(req.path)});
    GraphWindow window;
    window.nodes_offset = query_integer("nodes_offset", query_param(req, "nodes_offset"), 0, 0, kMaxQueryOffset);
    window.edges_offset = query_integer("edges_offset", query_param(req, "edges_offset"), 0, 0, kMaxQueryOffset);
    const auto graph = list_graph(row.db_path, window, kAnswerBudgetBytes - kEnvelopeBytes);
    json answer{{"job_id", row.id},
                {"nodes_total", graph.totals.nodes},
                {"edges_total", graph.totals.edges},
                {"truncated", graph.truncated},
                {"next", graph.next ? json("/crawl/" + row.id + "/graph?nodes_offset=" +
                                           std::to_string(graph.next->nodes_offset) + "&edges_offset=" +
                                           std::to_string(graph.next->edges_offset))
                                    : json(nullptr)}};
    send_json_text(res, with_raw_members(answer, {{"nodes", &graph.nodes_json}, {"edges", &graph.edges_json}}));
  }

  // GET /crawl/:id/events (Server-Sent Events)
  void stream_events(const HttpRequest& req, HttpResponse& res) {
    const auto row = known_job(std::string{job_id_of(req.path)});
    const std::string id = row.id;
    std::uint64_t start = 0;
    if (req.has_header("Last-Event-ID")) {
      const auto text = req.header("Last-Event-ID");
      if (!text.empty() && text.size() < 19 && text.find_first_not_of("0123456789") == std::string::npos)
        start = std::stoull(text);
    }
    auto slot = StreamSlot::take(open_streams, config.max_event_streams);
    if (!slot) {
      res.set_header("Retry-After", "5");
      throw ApiError(503, "too_many_streams",
                     std::to_string(config.max_event_streams) +
                       " event streams are open (max_event_streams); try again when one closes");
    }
    std::uint64_t after = start;
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_stream("text/event-stream", [this, id, after, slot = *slot](ChunkSink& sink) mutable {
      // Runs while the response is written, past the route's guard: an
      // exception here ends the stream, not the process.
      CrawlService::EventBatch batch;
      try {
        batch = service.events(id, after, std::chrono::milliseconds{1000});
      } catch (...) {
        return false;
      }
      std::string out;
      for (const auto& e : batch.events) {
        out += "id: " + std::to_string(e.seq) + "\nevent: " + e.kind + "\ndata: " + e.data + "\n\n";
        after = e.seq;
      }
      if (out.empty())
        out = ": keep-alive\n\n";  // also finds a closed connection
      if (!sink.write(out.data(), out.size()))
        return false;
      if (batch.ended) {
        sink.done();
        return false;
      }
      return true;
    });
  }

  // GET /crawl/:id/export?format=jsonl|csv|graphml|gexf|dot|items|items-csv|changes[&graph=domains|pages][&kind=KIND]
  //   [&include_new=true|false][&since=RUN] (the last two: changes only, as `actorcrawl export`'s flags)
  void export_job(const HttpRequest& req, HttpResponse& res) {
    const auto format_text = query_param(req, "format");
    if (!format_text)
      throw ApiError(400, "missing_parameter",
                     std::string{"format is required: one of "} + export_format_names());
    const auto format = export_format_named(*format_text);
    if (!format)
      throw ApiError(400, "invalid_parameter",
                     "format: '" + clip_for_message(*format_text, 40) + "' is not one of " + export_format_names());
    ExportGraph graph = ExportGraph::domains;
    if (const auto graph_text = query_param(req, "graph")) {
      const auto named = export_graph_named(*graph_text);
      if (!named)
        throw ApiError(400, "invalid_parameter",
                       "graph: '" + clip_for_message(*graph_text, 40) + "' is not one of " + export_graph_names());
      if (!is_graph_format(*format))
        throw ApiError(400, "invalid_parameter",
                       "graph: applies to graphml, gexf and dot, not to " + std::string{export_format_name(*format)});
      graph = *named;
    }
    const auto kind = query_param(req, "kind");
    if (kind && !is_items_format(*format))
      throw ApiError(400, "invalid_parameter",
                     "kind: applies to items and items-csv, not to " + std::string{export_format_name(*format)});
    if (kind && kind->empty())
      throw ApiError(400, "invalid_parameter", "kind: names a kind of items (a rule's or a processor's)");
    ChangesFilter changes;
    const auto include_new = query_param(req, "include_new");
    const auto since = query_param(req, "since");
    if ((include_new || since) && *format != ExportFormat::changes)
      throw ApiError(400, "invalid_parameter", std::string{include_new ? "include_new" : "since"} +
                                                 ": applies to changes, not to " + export_format_name(*format));
    if (include_new) {
      if (*include_new != "true" && *include_new != "false")
        throw ApiError(400, "invalid_parameter",
                       "include_new: '" + clip_for_message(*include_new, 40) + "' is not true or false");
      changes.include_new = *include_new == "true";
    }
    changes.since_run = query_integer("since", since, 0, 0, std::numeric_limits<std::int64_t>::max());
    const auto row = known_job(std::string{job_id_of(req.path)});
    // Opened before the answer starts, so a database that cannot be read
    // is an error status, not a cut body.
    std::shared_ptr<CrawlExport> source;
    try {
      source = std::make_shared<CrawlExport>(row.db_path);
    } catch (const ExportError& e) {
      if (e.kind() == ExportError::Kind::missing_database)
        throw ApiError(409, "no_database", "job '" + row.id + "' has no crawl database yet");
      throw ApiError(500, "export_failed", e.what());
    }
    if (*format == ExportFormat::items_csv && !kind) {
      const std::string kinds = source->item_kinds_listed();
      throw ApiError(400, "missing_parameter",
                     "kind is required for items-csv (its columns are one kind's fields): " +
                       (kinds.empty() ? std::string{"the crawl has no items"} : "one of " + kinds));
    }
    auto slot = StreamSlot::take(open_exports, kMaxExports);
    if (!slot) {
      res.set_header("Retry-After", "5");
      throw ApiError(503, "too_many_exports",
                     std::to_string(kMaxExports) + " exports are streaming; try again when one ends");
    }
    // crawl_1.jsonl, crawl_1.graphml, crawl_1_pages.graphml, crawl_1_items.csv,
    // crawl_1_changes.jsonl: the job's id is the service's own "crawl_<n>",
    // nothing to quote.
    const std::string file = row.id + (is_graph_format(*format) && graph == ExportGraph::pages ? "_pages" : "") +
                             (is_items_format(*format) ? "_items" : "") +
                             (*format == ExportFormat::changes ? "_changes" : "") + "." + file_extension(*format);
    res.set_header("Content-Disposition", "attachment; filename=\"" + file + "\"");
    res.set_header("Cache-Control", "no-store");
    res.set_stream(media_type(*format), [source, format = *format, graph, kind, changes,
                                         slot = *slot](ChunkSink& sink) {
      // The whole export in one call, written as it is read. Past the
      // route's guard: a failure (the client gone, the database unreadable
      // midway) ends the body without its last chunk, so the client sees
      // it cut, never a truncated file that looks whole.
      ChunkStreamBuf chunks(sink);
      std::ostream out(&chunks);
      try {
        source->write(format, graph, out, {}, kind, changes);
      } catch (...) {
        return false;
      }
      out.flush();
      sink.done();
      return false;
    });
  }

  // GET /metrics (Prometheus text format)
  void metrics(const HttpRequest&, HttpResponse& res) {
    res.set_content(service.metrics_text(), "text/plain; version=0.0.4; charset=utf-8");
  }

  // -- the route table ------------------------------------------------------------

  // Every route, declared once: the path's kind (route_of), the method and
  // what answers it. HEAD is answered as GET, without the body; a path
  // with another method gets 405 and the methods of its rows.
  struct RouteEntry {
    Route route;
    std::string_view method;
    void (Impl::*answer)(const HttpRequest&, HttpResponse&);
  };
  static constexpr RouteEntry kRoutes[] = {
    {Route::health, "GET", &Impl::health},
    {Route::dashboard, "GET", &Impl::dashboard},
    {Route::info, "GET", &Impl::info},
    {Route::jobs, "GET", &Impl::list_jobs},
    {Route::jobs, "POST", &Impl::submit_job},
    {Route::job, "GET", &Impl::read_job},
    {Route::job, "DELETE", &Impl::cancel_job},
    {Route::job_redrive, "POST", &Impl::redrive_job},
    {Route::job_graph, "GET", &Impl::read_job_graph},
    {Route::job_items, "GET", &Impl::read_job_items},
    {Route::job_events, "GET", &Impl::stream_events},
    {Route::job_export, "GET", &Impl::export_job},
    {Route::metrics, "GET", &Impl::metrics},
  };

  // "GET, HEAD, POST": the methods a route answers, for 405's Allow; empty
  // for a path that is no route.
  static std::string allowed_methods(Route route) {
    std::string out;
    for (const auto& entry : kRoutes) {
      if (entry.route != route)
        continue;
      out.append(out.empty() ? "" : ", ").append(entry.method);
      if (entry.method == "GET")
        out += ", HEAD";
    }
    return out;
  }

  // The server's one call: screened, routed, answered; every error, thrown
  // or not, as a JSON body.
  void answer(const HttpRequest& req, HttpResponse& res) noexcept {
    try {
      screen(req, res);
      const Route route = route_of(req.path);
      const std::string_view method = req.method == "HEAD" ? std::string_view{"GET"} : std::string_view{req.method};
      for (const auto& entry : kRoutes)
        if (entry.route == route && entry.method == method) {
          (this->*entry.answer)(req, res);
          return;
        }
      if (const std::string allow = allowed_methods(route); !allow.empty()) {
        res.set_header("Allow", allow);
        throw ApiError(405, "method_not_allowed",
                       clip_for_message(req.method, 20) + " is not allowed on " + clip_for_message(req.path, 200) +
                         " (allowed: " + allow + ")");
      }
      throw ApiError(404, "not_found",
                     "no route " + clip_for_message(req.method, 20) + " " + clip_for_message(req.path, 200));
    } catch (...) {
      send_error(res, error_of(std::current_exception()));
    }
  }
};

HttpApi::HttpApi(CrawlService& service, const CrawlConfig& config, DemoWebInfo demo)
    : impl_(std::make_unique<Impl>(service, config, std::move(demo))) {
  impl_->http.answer_at_reception("/healthz", kHealthBody);
}

HttpApi::~HttpApi() = default;

int HttpApi::bind(const std::string& host, int port, std::string* why_not) {
  const int bound = impl_->http.bind(host, port, why_not);
  if (bound > 0)
    impl_->allowed_hosts.emplace(host, bound, impl_->config.service_allowed_hosts);
  return bound;
}

void HttpApi::listen() { impl_->http.serve(); }

void HttpApi::stop() { impl_->http.stop(); }

}  // namespace actorcrawl
