#include "demoweb/loopback_web.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace actorcrawl::demoweb {
namespace {

// A crawler opens many connections per host at once; httplib's default pool
// (a handful of threads) would serialise them and distort timing tests.
constexpr std::size_t kThreadsPerHost = 16;
// Keep-alive stays on, but an idle connection pins one pool thread and the
// server only notices stop() between requests, so this also bounds how long
// the destructor waits for clients that keep connections open.
constexpr time_t kKeepAliveTimeoutSec = 1;
constexpr std::size_t kKeepAliveMaxRequests = 100;

const char* const kNotFoundBody = "<html><body>not found</body></html>";

using Handler = std::function<Response(int hit, const ServedRequest& request)>;

struct Route {
  Handler handler;
  int hits = 0;
};

struct Host {
  std::string key;
  httplib::Server server;
  std::thread thread;
  std::atomic<bool> finished{false};  // listen_after_bind returned
};

Response not_found() {
  Response response;
  response.status = 404;
  response.body = kNotFoundBody;
  return response;
}

void write_response(const Response& from, httplib::Response& to) {
  to.status = from.status;
  if (from.content_type.empty()) {
    to.body = from.body;
  } else {
    to.set_content(from.body, from.content_type.c_str());
  }
  for (const auto& [name, value] : from.headers) to.set_header(name.c_str(), value);
}

}  // namespace

struct LoopbackWeb::Impl {
  mutable std::mutex mutex;
  std::condition_variable stop_signal;  // wakes handlers sleeping on delay_ms
  bool stopping = false;
  std::map<std::string, std::map<std::string, Route>> routes;  // host -> path
  std::vector<ServedRequest> served;
  std::vector<std::unique_ptr<Host>> hosts;

  // Records the request and returns the handler to run, its hit number and
  // the record; the handler itself runs outside the lock so it may call
  // back into LoopbackWeb. `target`: the path and query asked for (of the
  // absolute URL, through a proxy).
  std::tuple<Handler, int, ServedRequest> take_route(const std::string& host_key, const httplib::Request& req,
                                                     const std::string& target, const std::string& via_proxy) {
    std::lock_guard<std::mutex> lock(mutex);
    ServedRequest record{host_key, target, req.method, std::chrono::steady_clock::now(),
                         req.get_header_value("User-Agent"), req.get_header_value("Accept-Encoding"),
                         req.remote_addr, {}, via_proxy};
    for (const auto& [name, value] : req.headers)
      record.headers.emplace_back(name, value);
    served.push_back(record);
    auto host = routes.find(host_key);
    if (host == routes.end()) return {nullptr, 0, record};
    // The path exactly as it came over the wire (still percent-encoded), so
    // a route registered with the crawler's canonical form matches it.
    const auto query = target.find('?');
    auto route = host->second.find(target.substr(0, query));
    if (route == host->second.end() && via_proxy.empty()) route = host->second.find(req.path);
    if (route == host->second.end()) return {nullptr, 0, record};
    return {route->second.handler, ++route->second.hits, record};
  }

  // Sleeps for `delay_ms` unless the web is being torn down meanwhile, so a
  // slow route never holds up the destructor.
  void delay(int delay_ms) {
    if (delay_ms <= 0) return;
    std::unique_lock<std::mutex> lock(mutex);
    stop_signal.wait_for(lock, std::chrono::milliseconds(delay_ms), [this] { return stopping; });
  }

  // `target`: the path and query asked for; `via_proxy`: the proxy it came
  // through, if any (proxy()).
  httplib::Server::HandlerResponse serve(const std::string& host_key, const httplib::Request& req,
                                         httplib::Response& res, const std::string& target,
                                         const std::string& via_proxy = "") {
    auto [handler, hit, record] = take_route(host_key, req, target, via_proxy);
    const Response response = handler ? handler(hit, record) : not_found();
    delay(response.delay_ms);
    write_response(response, res);
    return httplib::Server::HandlerResponse::Handled;
  }

  // A forward proxy's request: "GET http://127.0.0.N:PORT/path HTTP/1.1",
  // served by that host of this web as if it had come to it.
  httplib::Server::HandlerResponse proxy(const std::string& proxy_key, const httplib::Request& req,
                                         httplib::Response& res) {
    const std::string prefix = "http://";
    const std::string& target = req.target;
    const auto path_at = target.find('/', prefix.size());
    std::string host_key;
    if (target.rfind(prefix, 0) == 0)
      host_key = target.substr(prefix.size(), path_at == std::string::npos ? std::string::npos : path_at - prefix.size());
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      known = !host_key.empty() && routes.count(host_key) != 0;
    }
    if (!known) {
      Response bad;
      bad.status = 502;
      bad.body = "<html><body>proxy: no such host</body></html>";
      write_response(bad, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    return serve(host_key, req, res, path_at == std::string::npos ? "/" : target.substr(path_at), proxy_key);
  }

  void add_route(const std::string& host_key, const std::string& path, Handler handler) {
    std::lock_guard<std::mutex> lock(mutex);
    auto host = routes.find(host_key);
    if (host == routes.end()) throw std::invalid_argument("loopback web: unknown host " + host_key);
    host->second[path] = Route{std::move(handler), 0};
  }
};

namespace {

void configure(httplib::Server& server) {
  server.new_task_queue = [] { return new httplib::ThreadPool(kThreadsPerHost); };
  server.set_keep_alive_timeout(kKeepAliveTimeoutSec);
  // Small responses on a kept-alive connection would otherwise wait out the
  // client's delayed ACK (~40 ms each), which is not how real servers behave.
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(kKeepAliveMaxRequests);
}

// listen_after_bind marks the server running as its first step, so this
// either sees it running within a moment or sees the thread give up.
bool wait_until_running(const Host& host) {
  while (!host.server.is_running()) {
    if (host.finished) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

LoopbackWeb::LoopbackWeb() : impl_(std::make_unique<Impl>()) {}

LoopbackWeb::~LoopbackWeb() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stop_signal.notify_all();
  // Stop every host first so they all wind down in parallel, then join.
  for (auto& host : impl_->hosts) host->server.stop();
  for (auto& host : impl_->hosts) {
    if (host->thread.joinable()) host->thread.join();
  }
}

std::string LoopbackWeb::add_host(const std::string& ip) { return start_host(ip, false); }

std::string LoopbackWeb::add_proxy(const std::string& ip) { return start_host(ip, true); }

std::string LoopbackWeb::start_host(const std::string& ip, bool is_proxy) {
  auto host = std::make_unique<Host>();
  configure(host->server);
  const int port = host->server.bind_to_any_port(ip);
  if (port <= 0) throw std::runtime_error("loopback web: cannot bind " + ip);
  host->key = ip + ":" + std::to_string(port);

  // Every method goes through one pre-routing handler so that requests are
  // recorded even when unrouted and routes can be added while serving.
  const std::string key = host->key;
  Impl* impl = impl_.get();
  host->server.set_pre_routing_handler(
      [impl, key, is_proxy](const httplib::Request& req, httplib::Response& res) {
        return is_proxy ? impl->proxy(key, req, res) : impl->serve(key, req, res, req.target);
      });
  Host& started = *host;
  host->thread = std::thread([&started] {
    started.server.listen_after_bind();
    started.finished = true;
  });
  if (!wait_until_running(started)) {
    host->thread.join();
    throw std::runtime_error("loopback web: host " + key + " did not start");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!is_proxy)
    impl_->routes[key];
  impl_->hosts.push_back(std::move(host));
  return key;
}

void LoopbackWeb::route(const std::string& host_key, const std::string& path, Response response) {
  impl_->add_route(host_key, path, [response = std::move(response)](int, const ServedRequest&) { return response; });
}

void LoopbackWeb::route(const std::string& host_key, const std::string& path,
                    std::function<Response(int hit)> handler) {
  impl_->add_route(host_key, path,
                   [handler = std::move(handler)](int hit, const ServedRequest&) { return handler(hit); });
}

void LoopbackWeb::route(const std::string& host_key, const std::string& path,
                        std::function<Response(const ServedRequest& request)> handler) {
  impl_->add_route(host_key, path,
                   [handler = std::move(handler)](int, const ServedRequest& request) { return handler(request); });
}

std::string ServedRequest::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) ==
                                               std::tolower(static_cast<unsigned char>(b)); }))
      return value;
  return "";
}

std::string LoopbackWeb::url(const std::string& host_key, const std::string& path) {
  return "http://" + host_key + path;
}

std::vector<ServedRequest> LoopbackWeb::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->served;
}

int LoopbackWeb::count(const std::string& host_key, const std::string& target) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  int n = 0;
  for (const auto& request : impl_->served) {
    if (request.host_key == host_key && request.target == target) ++n;
  }
  return n;
}

void LoopbackWeb::clear_requests() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->served.clear();
}

}  // namespace actorcrawl::demoweb
