#include "service/http_api.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <regex>
#include <thread>
#include <utility>

#include "core/run/version.h"
#include "core/store/crawl_reader.h"
#include "service/api_error.h"
#include "service/crawl_service.h"
#include "service/dashboard.h"
#include "service/job_request.h"

namespace actorcrawl {

namespace {

using nlohmann::json;

constexpr std::int64_t kDefaultPageLimit = 100;
constexpr std::int64_t kMaxPageLimit = 1000;

// Strings from crawled pages may hold invalid UTF-8; JSON must not.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.status();
  res.set_content(e.json(), "application/json");
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
              {"ended_at", time_or_null(row.ended_at)}};
}

// A running job's live counters over the table's (which it writes at the end).
void add_live_counts(json& job, CrawlService& service, const std::string& id) {
  auto live = service.live(id);
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

std::int64_t query_int(const httplib::Request& req, const char* name, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) {
  if (!req.has_param(name))
    return fallback;
  const std::string text = req.get_param_value(name);
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
    throw ApiError(400, "invalid_parameter", std::string{"'"} + name + "' must be a whole number");
  const auto v = std::stoll(text);
  if (v < min || v > max)
    throw ApiError(400, "out_of_range", std::string{"'"} + name + "' must be between " + std::to_string(min) +
                                          " and " + std::to_string(max));
  return v;
}

// The routes' paths, registered in register_routes() and listed in kRoutes
// with the methods each answers, so a known path asked with another method
// gets 405 and an Allow header instead of "no route".
constexpr const char* kHealthPath = "/healthz";
constexpr const char* kDashboardPath = "/";
constexpr const char* kInfoPath = "/api/info";
constexpr const char* kJobsPath = "/crawl";
constexpr const char* kMetricsPath = "/metrics";
constexpr const char* kJobPath = R"(/crawl/([^/]+))";
constexpr const char* kGraphPath = R"(/crawl/([^/]+)/graph)";
constexpr const char* kEventsPath = R"(/crawl/([^/]+)/events)";

struct RouteMethods {
  const char* path;
  const char* allow;
};
constexpr RouteMethods kRoutes[] = {
    {kHealthPath, "GET, HEAD"},     {kDashboardPath, "GET, HEAD"},     {kInfoPath, "GET, HEAD"},
    {kJobsPath, "GET, HEAD, POST"}, {kJobPath, "GET, HEAD, DELETE"}, {kGraphPath, "GET, HEAD"},
    {kEventsPath, "GET, HEAD"},     {kMetricsPath, "GET, HEAD"},
};

// The methods `path` answers, or nullptr when no route has that path.
const char* allowed_methods(const std::string& path) {
  static const std::vector<std::pair<std::regex, const char*>> compiled = [] {
    std::vector<std::pair<std::regex, const char*>> v;
    for (const auto& r : kRoutes)
      v.emplace_back(std::regex{r.path}, r.allow);
    return v;
  }();
  for (const auto& [pattern, allow] : compiled)
    if (std::regex_match(path, pattern))
      return allow;
  return nullptr;
}

}  // namespace

struct HttpApi::Impl {
  CrawlService& service;
  const CrawlConfig& config;
  DemoWebInfo demo;
  httplib::Server http;
  // Event streams open now. Each holds one of the server's request threads
  // for as long as its job runs, so they are capped below the pool's size.
  std::atomic<std::int64_t> open_streams{0};

  Impl(CrawlService& s, const CrawlConfig& c, DemoWebInfo d) : service(s), config(c), demo(std::move(d)) {}

  JobRow known_job(const std::string& id) {
    auto row = service.job(id);
    if (!row)
      throw ApiError(404, "job_not_found", "no job '" + id.substr(0, 100) + "'");
    return *row;
  }

  // -- before and around the routes -------------------------------------------

  httplib::Server::HandlerResponse authorize(const httplib::Request& req, httplib::Response& res) {
    if (config.service_token.empty() || req.path == kHealthPath)
      return httplib::Server::HandlerResponse::Unhandled;
    std::string given;
    const auto auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) == 0)
      given = auth.substr(7);
    else if (req.has_param("access_token"))  // EventSource and the first page load cannot set headers
      given = req.get_param_value("access_token");
    if (same_token(given, config.service_token))
      return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, ApiError(401, "unauthorized",
                             given.empty() ? "this service needs a bearer token (Authorization: Bearer ...)"
                                           : "the bearer token is not valid"));
    return httplib::Server::HandlerResponse::Handled;
  }

  // Whatever httplib answers on its own (no route, body too large) gets a
  // JSON error body too.
  static httplib::Server::HandlerResponse json_error(const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty())
      return httplib::Server::HandlerResponse::Unhandled;
    switch (res.status) {
      case 404:
        if (const char* allow = allowed_methods(req.path)) {
          res.set_header("Allow", allow);
          send_error(res, ApiError(405, "method_not_allowed",
                                   req.method.substr(0, 20) + " is not allowed on " + req.path.substr(0, 200) +
                                     " (allowed: " + allow + ")"));
        } else {
          send_error(res, ApiError(404, "not_found", "no route " + req.method + " " + req.path.substr(0, 200)));
        }
        break;
      case 400:
        // httplib could not read the request: most often a body without
        // Content-Length or chunked encoding.
        send_error(res, ApiError(400, "bad_request",
                                 "the HTTP request could not be read (a body needs Content-Length or "
                                 "chunked Transfer-Encoding)"));
        break;
      case 413:
        send_error(res, ApiError(413, "body_too_large", "the request body is larger than the service accepts"));
        break;
      default:
        send_error(res, ApiError(res.status, "http_" + std::to_string(res.status), "the request failed"));
    }
    return httplib::Server::HandlerResponse::Handled;
  }

  // -- the routes ----------------------------------------------------------------

  // GET /healthz
  static void health(const httplib::Request&, httplib::Response& res) { send_json(res, 200, json{{"status", "ok"}}); }

  // GET /
  static void dashboard(const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string{dashboard_html()}, "text/html; charset=utf-8");
  }

  // GET /api/info
  void info(const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, json{{"version", actorcrawl_version()},
                             {"demo_url", demo.url.empty() ? json(nullptr) : json(demo.url)},
                             {"demo_allowed_domains", demo.url.empty() ? json(nullptr) : json(demo.hosts)},
                             {"allow_private_networks", config.allow_private_networks},
                             {"max_concurrent_jobs", config.max_concurrent_jobs},
                             {"max_pages_per_job", config.max_pages_per_job}});
  }

  // POST /crawl
  void submit_job(const httplib::Request& req, httplib::Response& res) {
    if (req.body.size() > static_cast<std::size_t>(config.max_request_bytes))
      throw ApiError(413, "body_too_large",
                     "the request body is larger than " + std::to_string(config.max_request_bytes) + " bytes");
    // The body is read as JSON whatever Content-Type says: `curl -d` sends
    // form encoding by default, and the parse is the real check.
    JobLimits limits;
    limits.max_pages = config.max_pages_per_job;
    const auto request = parse_job_request(req.body, limits);
    const auto row = service.submit(request);
    res.set_header("Location", "/crawl/" + row.id);
    send_json(res, 202, json{{"job_id", row.id}, {"status", "started"}});
  }

  // GET /crawl
  void list_jobs(const httplib::Request&, httplib::Response& res) {
    json jobs = json::array();
    for (const auto& row : service.jobs()) {
      json job = job_summary(row);
      add_live_counts(job, service, row.id);
      jobs.push_back(std::move(job));
    }
    send_json(res, 200, json{{"jobs", jobs}});
  }

  // GET /crawl/:id?offset=&limit=
  void read_job(const httplib::Request& req, httplib::Response& res) {
    const auto row = known_job(req.matches[1]);
    const auto offset = query_int(req, "offset", 0, 0, std::numeric_limits<std::int32_t>::max());
    const auto limit = query_int(req, "limit", kDefaultPageLimit, 1, kMaxPageLimit);
    const auto slice = read_pages(row.db_path, offset, limit);
    json pages = json::array();
    for (const auto& p : slice.pages)
      pages.push_back(json{{"url", p.url},
                           {"status_code", p.status_code},
                           {"title", p.title},
                           {"links", p.links},
                           {"crawled_at", p.crawled_at}});
    json job = job_summary(row);
    job["pages"] = std::move(pages);
    job["pages_total"] = slice.total;
    job["offset"] = offset;
    job["limit"] = limit;
    job["error"] = row.error.empty() ? json(nullptr) : json(row.error);
    add_live_counts(job, service, row.id);
    send_json(res, 200, json{{"job", job}});
  }

  // DELETE /crawl/:id
  void cancel_job(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    auto row = known_job(id);
    if (row.status != JobStatus::queued && row.status != JobStatus::running)
      throw ApiError(409, "job_finished", "job '" + id + "' is already " + to_string(row.status));
    service.cancel(id);
    // In-flight transfers end (bounded by the request timeout); answer with
    // the final state when it comes soon enough.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds{30};
    while (std::chrono::steady_clock::now() < until) {
      row = known_job(id);
      if (row.status != JobStatus::queued && row.status != JobStatus::running)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    const bool over = row.status != JobStatus::queued && row.status != JobStatus::running;
    send_json(res, over ? 200 : 202, json{{"job_id", id}, {"status", over ? to_string(row.status) : "cancelling"}});
  }

  // GET /crawl/:id/graph
  void read_job_graph(const httplib::Request& req, httplib::Response& res) {
    const auto row = known_job(req.matches[1]);
    const auto graph = read_graph(row.db_path);
    json nodes = json::array(), edges = json::array();
    for (const auto& n : graph.nodes)
      nodes.push_back(json{{"id", n.id}, {"crawl_count", n.crawl_count}, {"description", n.description}});
    for (const auto& e : graph.edges)
      edges.push_back(json{{"from", e.from}, {"to", e.to}, {"weight", e.weight}});
    send_json(res, 200, json{{"job_id", row.id}, {"nodes", nodes}, {"edges", edges}});
  }

  // GET /crawl/:id/events (Server-Sent Events)
  void stream_events(const httplib::Request& req, httplib::Response& res) {
    const auto row = known_job(req.matches[1]);
    const std::string id = row.id;
    std::uint64_t start = 0;
    if (req.has_header("Last-Event-ID")) {
      const auto text = req.get_header_value("Last-Event-ID");
      if (!text.empty() && text.size() < 19 && text.find_first_not_of("0123456789") == std::string::npos)
        start = std::stoull(text);
    }
    if (open_streams.fetch_add(1) >= config.max_event_streams) {
      open_streams.fetch_sub(1);
      res.set_header("Retry-After", "5");
      throw ApiError(503, "too_many_streams",
                     std::to_string(config.max_event_streams) +
                       " event streams are open (max_event_streams); try again when one closes");
    }
    auto after = std::make_shared<std::uint64_t>(start);
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
      "text/event-stream",
      [this, id, after](std::size_t, httplib::DataSink& sink) {
        auto batch = service.events(id, *after, std::chrono::milliseconds{1000});
        std::string out;
        for (const auto& e : batch.events) {
          out += "id: " + std::to_string(e.seq) + "\nevent: " + e.kind + "\ndata: " + e.data + "\n\n";
          *after = e.seq;
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
      },
      // Once per stream, even if httplib copies the response (each copy's
      // destructor calls its releaser).
      [this, released = std::make_shared<std::atomic<bool>>(false)](bool) {
        if (!released->exchange(true))
          open_streams.fetch_sub(1);
      });
  }

  // GET /metrics (Prometheus text format)
  void metrics(const httplib::Request&, httplib::Response& res) {
    res.set_content(service.metrics_text(), "text/plain; version=0.0.4; charset=utf-8");
  }

  // -- registration ---------------------------------------------------------------

  // A route whose errors (ApiError, or anything else as a 500) are answered
  // as JSON.
  template <void (Impl::*Route)(const httplib::Request&, httplib::Response&)>
  httplib::Server::Handler guarded() {
    return [this](const httplib::Request& req, httplib::Response& res) {
      try {
        (this->*Route)(req, res);
      } catch (const ApiError& e) {
        send_error(res, e);
      } catch (const std::exception& e) {
        send_error(res, ApiError(500, "internal_error", e.what()));
      }
    };
  }

  void register_routes() {
    // httplib's default pool (8 threads on a small machine) would let eight
    // open dashboards take every thread; streams get their cap, and 16
    // threads stay for everything else.
    http.new_task_queue = [this] {
      return new httplib::ThreadPool(static_cast<std::size_t>(config.max_event_streams) + 16);
    };
    http.set_payload_max_length(static_cast<std::size_t>(config.max_request_bytes));
    http.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return authorize(req, res); });
    http.set_error_handler(httplib::Server::HandlerWithResponse{json_error});
    http.Get(kHealthPath, health);
    http.Get(kDashboardPath, dashboard);
    http.Get(kInfoPath, guarded<&Impl::info>());
    http.Post(kJobsPath, guarded<&Impl::submit_job>());
    http.Get(kJobsPath, guarded<&Impl::list_jobs>());
    http.Get(kJobPath, guarded<&Impl::read_job>());
    http.Delete(kJobPath, guarded<&Impl::cancel_job>());
    http.Get(kGraphPath, guarded<&Impl::read_job_graph>());
    http.Get(kEventsPath, guarded<&Impl::stream_events>());
    http.Get(kMetricsPath, guarded<&Impl::metrics>());
  }
};

HttpApi::HttpApi(CrawlService& service, const CrawlConfig& config, DemoWebInfo demo)
    : impl_(std::make_unique<Impl>(service, config, std::move(demo))) {
  impl_->register_routes();
}

HttpApi::~HttpApi() = default;

int HttpApi::bind(const std::string& host, int port) {
  if (port == 0)
    return impl_->http.bind_to_any_port(host);
  return impl_->http.bind_to_port(host, port) ? port : -1;
}

void HttpApi::listen() { impl_->http.listen_after_bind(); }

void HttpApi::stop() { impl_->http.stop(); }

}  // namespace actorcrawl
