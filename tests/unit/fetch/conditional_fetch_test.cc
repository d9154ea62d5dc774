// Conditional requests (RFC 9110 13.1): which validators a request carries,
// the 304 that answers them, and the validators a response gives for next
// time, against a loopback server that records every request's headers.
#include <httplib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/fetch/fetch_engine.h"
#include "core/fetch/http_date.h"
#include "fetch_test_support.h"

using namespace actorcrawl;
using Clock = std::chrono::steady_clock;
using actorcrawl::testing::fetch;
using actorcrawl::testing::request_for;
using namespace std::chrono_literals;

namespace {

struct Seen {
  std::string target;
  httplib::Headers headers;
  bool has(const std::string& name) const { return headers.count(name) != 0; }
  std::string value(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

// One cpp-httplib server on a loopback address: every request's headers are
// kept, and each path answers through its handler (404 when it has none).
class RecordingServer {
 public:
  explicit RecordingServer(const std::string& ip) {
    server_.set_keep_alive_timeout(1);
    server_.Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      Handler handler;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        seen_.push_back(Seen{req.path, req.headers});
        auto it = handlers_.find(req.path);
        if (it != handlers_.end())
          handler = it->second;
      }
      if (handler)
        handler(req, res);
      else
        res.status = 404;
    });
    port_ = server_.bind_to_any_port(ip);
    if (port_ <= 0)
      throw std::runtime_error("cannot bind " + ip);
    host_ = ip + ":" + std::to_string(port_);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = Clock::now() + 5s;
    while (!server_.is_running() && Clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    if (!server_.is_running()) {
      server_.stop();
      thread_.join();
      throw std::runtime_error("server on " + ip + " did not start");
    }
  }
  ~RecordingServer() {
    server_.stop();
    thread_.join();
  }

  void on(const std::string& path, Handler handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    handlers_[path] = std::move(handler);
  }
  std::string url(const std::string& path) const { return "http://" + host_ + path; }
  std::vector<Seen> seen() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  int count(const std::string& path) const {
    int n = 0;
    for (const auto& s : seen())
      n += s.target == path ? 1 : 0;
    return n;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string host_;
  mutable std::mutex mutex_;
  std::map<std::string, Handler> handlers_;
  std::vector<Seen> seen_;
};

const std::string kLastModified = "Sun, 06 Nov 1994 08:49:37 GMT";
constexpr std::int64_t kLastModifiedMs = 784111777000;

// A page with both validators that answers 304 when either matches, as
// RFC 9110 13.2.2 orders them (If-None-Match decides when present).
Handler validated_page(std::string etag, std::string body) {
  return [etag, body](const httplib::Request& req, httplib::Response& res) {
    res.set_header("ETag", etag);
    res.set_header("Last-Modified", kLastModified);
    const bool unchanged = req.has_header("If-None-Match")
                               ? req.get_header_value("If-None-Match") == etag ||
                                     req.get_header_value("If-None-Match") == "W/" + etag
                               : req.get_header_value("If-Modified-Since") == kLastModified;
    if (unchanged) {
      res.status = 304;
      return;
    }
    res.set_content(body, "text/html");
  };
}

Handler redirect_to(std::string location, int status = 301) {
  return [location, status](const httplib::Request&, httplib::Response& res) {
    res.status = status;
    res.set_header("Location", location);
    res.set_header("ETag", "\"hop\"");
    res.set_header("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT");
    res.set_content("moved", "text/html");
  };
}

Handler plain_page(std::string body) {
  return [body](const httplib::Request&, httplib::Response& res) { res.set_content(body, "text/html"); };
}

}  // namespace

TEST_CASE("conditional: no validator, no conditional header, the head as before", "[fetch][conditional]") {
  RecordingServer server("127.0.0.1");
  server.on("/p", plain_page("hello"));
  FetchEngine engine;

  FetchRequest plain = request_for(server.url("/p"));
  plain.capture_http = true;
  CHECK(plain.if_none_match.empty());
  CHECK(plain.if_modified_since_ms == -1);
  const FetchOutcome off = fetch(engine, plain);
  CHECK(off.status_code == 200);
  CHECK_FALSE(off.not_modified);

  // Validators that cannot be sent leave the request as it was: an ETag
  // with a line break (it would end the header), one over the bound, and a
  // date before 1970.
  FetchRequest unsendable = plain;
  unsendable.token = 2;
  unsendable.if_none_match = "\"a\"\r\nX-Injected: 1";
  unsendable.if_modified_since_ms = -5000;
  const FetchOutcome still_off = fetch(engine, unsendable);
  unsendable.token = 3;
  unsendable.if_none_match = "\"" + std::string(kMaxValidatorBytes, 'x') + "\"";
  const FetchOutcome too_long = fetch(engine, unsendable);
  CHECK(still_off.status_code == 200);
  CHECK(still_off.request_head == off.request_head);
  CHECK(too_long.request_head == off.request_head);
  CHECK_FALSE(still_off.not_modified);

  // With validators: the same head, the two lines added before its end.
  FetchRequest conditional = plain;
  conditional.token = 4;
  conditional.if_none_match = "W/\"v1\"";
  conditional.if_modified_since_ms = kLastModifiedMs + 999;  // an HTTP-date has no milliseconds
  const FetchOutcome on = fetch(engine, conditional);
  const std::string base = off.request_head.substr(0, off.request_head.size() - 2);
  CHECK(on.request_head == base + "If-None-Match: W/\"v1\"\r\nIf-Modified-Since: " + kLastModified + "\r\n\r\n");

  const auto seen = server.seen();
  REQUIRE(seen.size() == 4);
  for (int i = 0; i < 3; ++i) {
    INFO("request " << i);
    CHECK_FALSE(seen[i].has("If-None-Match"));
    CHECK_FALSE(seen[i].has("If-Modified-Since"));
    CHECK_FALSE(seen[i].has("X-Injected"));
  }
  // Sent verbatim: a weak ETag as is.
  CHECK(seen[3].value("If-None-Match") == "W/\"v1\"");
  CHECK(seen[3].value("If-Modified-Since") == kLastModified);
}

TEST_CASE("conditional: a 304 is a complete response, not an error and not a redirect", "[fetch][conditional]") {
  RecordingServer server("127.0.0.1");
  server.on("/page", validated_page("\"v1\"", "<html>one</html>"));
  FetchEngine engine;

  // The first fetch gives the validators...
  const FetchOutcome first = fetch(engine, request_for(server.url("/page")));
  CHECK(first.status_code == 200);
  CHECK(first.body == "<html>one</html>");
  CHECK(first.etag == "\"v1\"");
  CHECK(first.last_modified == kLastModified);
  CHECK(first.last_modified_ms == kLastModifiedMs);
  CHECK_FALSE(first.not_modified);

  // ...the next one sends them back, and each alone is enough.
  SECTION("If-None-Match") {
    FetchRequest again = request_for(server.url("/page"), 2);
    again.if_none_match = first.etag;
    const FetchOutcome out = fetch(engine, again);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 304);
    CHECK(out.not_modified);
    CHECK(out.body.empty());
    CHECK_FALSE(out.truncated);
    CHECK(out.redirects.empty());
    CHECK(out.location.empty());
    CHECK(out.final_url == server.url("/page"));
    // The server repeated its validators, which stay the ones to send.
    CHECK(out.etag == "\"v1\"");
    CHECK(out.last_modified_ms == kLastModifiedMs);
    CHECK(server.seen().back().value("If-None-Match") == "\"v1\"");
    CHECK_FALSE(server.seen().back().has("If-Modified-Since"));
  }
  SECTION("If-Modified-Since, the server's own date sent back") {
    FetchRequest again = request_for(server.url("/page"), 2);
    again.if_modified_since_ms = first.last_modified_ms;
    const FetchOutcome out = fetch(engine, again);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 304);
    CHECK(out.not_modified);
    CHECK(out.body.empty());
    CHECK(server.seen().back().value("If-Modified-Since") == kLastModified);
    CHECK_FALSE(server.seen().back().has("If-None-Match"));
  }
  SECTION("a weak ETag matches weakly") {
    FetchRequest again = request_for(server.url("/page"), 2);
    again.if_none_match = "W/\"v1\"";
    const FetchOutcome out = fetch(engine, again);
    CHECK(out.status_code == 304);
    CHECK(out.not_modified);
  }
  SECTION("a validator that no longer matches gets the page") {
    FetchRequest again = request_for(server.url("/page"), 2);
    again.if_none_match = "\"v0\"";
    again.if_modified_since_ms = kLastModifiedMs;  // ignored: If-None-Match is there
    const FetchOutcome out = fetch(engine, again);
    CHECK(out.status_code == 200);
    CHECK_FALSE(out.not_modified);
    CHECK(out.body == "<html>one</html>");
  }
}

TEST_CASE("conditional: a 304 with a Location is not followed", "[fetch][conditional]") {
  RecordingServer server("127.0.0.1");
  server.on("/page", [&server](const httplib::Request&, httplib::Response& res) {
    res.status = 304;
    res.set_header("Location", server.url("/elsewhere"));
  });
  server.on("/elsewhere", plain_page("no"));
  FetchEngine engine;

  FetchRequest r = request_for(server.url("/page"));
  r.if_none_match = "\"v1\"";
  const FetchOutcome out = fetch(engine, r);
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 304);
  CHECK(out.not_modified);
  CHECK(out.redirects.empty());
  CHECK(out.location.empty());
  CHECK(server.count("/elsewhere") == 0);

  // A 304 to a request that asked nothing conditional is a response of its
  // own, and not "not modified".
  server.on("/odd", [](const httplib::Request&, httplib::Response& res) { res.status = 304; });
  const FetchOutcome odd = fetch(engine, request_for(server.url("/odd"), 2));
  CHECK(odd.error == FetchError::none);
  CHECK(odd.status_code == 304);
  CHECK_FALSE(odd.not_modified);
}

TEST_CASE("conditional: validators go with the first request only, never with a hop", "[fetch][conditional]") {
  RecordingServer a("127.0.0.1");
  RecordingServer b("127.0.0.2");
  a.on("/old", redirect_to(b.url("/new")));
  b.on("/new", validated_page("\"v1\"", "<html>new home</html>"));
  FetchEngine engine;

  SECTION("the engine takes the hops") {
    FetchRequest r = request_for(a.url("/old"));
    r.if_none_match = "\"v1\"";  // the hop's own ETag: would match there if sent
    r.if_modified_since_ms = kLastModifiedMs;
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 200);
    CHECK_FALSE(out.not_modified);
    CHECK(out.body == "<html>new home</html>");
    CHECK(out.final_url == b.url("/new"));
    REQUIRE(out.redirects.size() == 1);
    CHECK(out.redirects[0].url == a.url("/old"));
    CHECK(out.redirects[0].status == 301);
    // The final response's validators (final_url's), not the hop's.
    CHECK(out.etag == "\"v1\"");
    CHECK(out.last_modified == kLastModified);
    const auto at_a = a.seen();
    const auto at_b = b.seen();
    REQUIRE(at_a.size() == 1);
    REQUIRE(at_b.size() == 1);
    CHECK(at_a[0].value("If-None-Match") == "\"v1\"");
    CHECK(at_a[0].value("If-Modified-Since") == kLastModified);
    CHECK_FALSE(at_b[0].has("If-None-Match"));
    CHECK_FALSE(at_b[0].has("If-Modified-Since"));
  }
  SECTION("the hops after the first are curl's, and unconditional too") {
    a.on("/one", redirect_to("/two", 302));
    a.on("/two", redirect_to(b.url("/new"), 307));
    FetchRequest r = request_for(a.url("/one"));
    r.if_none_match = "\"v1\"";
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.status_code == 200);
    CHECK_FALSE(out.not_modified);
    REQUIRE(out.redirects.size() == 2);
    CHECK(out.redirects[0].url == a.url("/one"));
    CHECK(out.redirects[0].status == 302);
    CHECK(out.redirects[1].url == a.url("/two"));
    CHECK(out.redirects[1].status == 307);
    CHECK(out.final_url == b.url("/new"));
    const auto at_a = a.seen();
    REQUIRE(at_a.size() == 2);
    CHECK(at_a[0].target == "/one");
    CHECK(at_a[0].has("If-None-Match"));
    CHECK(at_a[1].target == "/two");
    CHECK_FALSE(at_a[1].has("If-None-Match"));
    REQUIRE(b.seen().size() == 1);
    CHECK_FALSE(b.seen()[0].has("If-None-Match"));
  }
  SECTION("max_redirects counts the engine's hop with curl's") {
    a.on("/one", redirect_to("/two", 302));
    a.on("/two", redirect_to(b.url("/new"), 307));
    FetchRequest r = request_for(a.url("/one"));
    r.if_none_match = "\"v1\"";
    r.max_redirects = 1;
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::too_many_redirects);
    CHECK(out.body.empty());
    CHECK(out.etag.empty());
    CHECK(out.redirects.size() == 1);
    CHECK(b.seen().empty());
  }
  SECTION("a hop answered 304 is not \"not modified\"") {
    a.on("/to-odd", redirect_to("/odd"));
    a.on("/odd", [](const httplib::Request&, httplib::Response& res) { res.status = 304; });
    FetchRequest r = request_for(a.url("/to-odd"));
    r.if_none_match = "\"v1\"";
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 304);
    CHECK_FALSE(out.not_modified);
    CHECK(out.redirects.size() == 1);
  }
  SECTION("a loop is stopped before the repeat request") {
    a.on("/x", redirect_to("/y"));
    a.on("/y", redirect_to("/x", 302));
    FetchRequest r = request_for(a.url("/x"));
    r.if_none_match = "\"v1\"";
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::redirect_loop);
    CHECK(out.redirects.size() == 2);
    CHECK(a.count("/x") == 1);
    CHECK(a.count("/y") == 1);
  }
  SECTION("a Location that is no http(s) URL is bad_redirect") {
    a.on("/to-ftp", redirect_to("ftp://127.0.0.1/file"));
    FetchRequest r = request_for(a.url("/to-ftp"));
    r.if_none_match = "\"v1\"";
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::bad_redirect);
    CHECK(out.body.empty());
    REQUIRE(out.redirects.size() == 1);
    CHECK(out.redirects[0].status == 301);
  }
  SECTION("max_redirects 0: the redirect itself is the response, asked once") {
    FetchRequest r = request_for(a.url("/old"));
    r.if_none_match = "\"v1\"";
    r.max_redirects = 0;
    const FetchOutcome out = fetch(engine, r);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 301);
    CHECK(out.location == b.url("/new"));
    CHECK(out.redirects.empty());
    // The redirect's own validators: they belong to /old.
    CHECK(out.etag == "\"hop\"");
    CHECK(b.seen().empty());
    REQUIRE(a.seen().size() == 1);
    CHECK(a.seen()[0].has("If-None-Match"));
  }
}

TEST_CASE("conditional: ETag and Last-Modified are captured, bounded and parsed", "[fetch][conditional]") {
  RecordingServer server("127.0.0.1");
  const std::string longest = "\"" + std::string(kMaxValidatorBytes - 2, 'e') + "\"";
  server.on("/longest", [&](const httplib::Request&, httplib::Response& res) {
    res.set_header("ETag", longest);
    res.set_content("ok", "text/plain");
  });
  server.on("/too-long", [&](const httplib::Request&, httplib::Response& res) {
    res.set_header("ETag", longest + "x");
    res.set_header("Last-Modified", kLastModified + std::string(kMaxValidatorBytes, ' ') + "x");
    res.set_content("ok", "text/plain");
  });
  server.on("/two-etags", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("ETag", "\"first\"");
    res.set_header("ETag", "\"second\"");
    res.set_content("ok", "text/plain");
  });
  server.on("/rfc850", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Last-Modified", "Sunday, 06-Nov-94 08:49:37 GMT");
    res.set_content("ok", "text/plain");
  });
  server.on("/asctime", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Last-Modified", "Sun Nov  6 08:49:37 1994");
    res.set_content("ok", "text/plain");
  });
  server.on("/bad-date", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Last-Modified", "yesterday, around noon");
    res.set_content("ok", "text/plain");
  });
  server.on("/none", plain_page("ok"));
  server.on("/hop", redirect_to("/none"));
  FetchEngine engine;

  const auto longest_out = fetch(engine, request_for(server.url("/longest")));
  CHECK(longest_out.etag == longest);
  CHECK(longest_out.etag.size() == kMaxValidatorBytes);

  const auto too_long = fetch(engine, request_for(server.url("/too-long")));
  CHECK(too_long.status_code == 200);
  CHECK(too_long.etag.empty());
  CHECK(too_long.last_modified.empty());
  CHECK(too_long.last_modified_ms == -1);

  CHECK(fetch(engine, request_for(server.url("/two-etags"))).etag == "\"first\"");

  const auto rfc850 = fetch(engine, request_for(server.url("/rfc850")));
  CHECK(rfc850.last_modified == "Sunday, 06-Nov-94 08:49:37 GMT");
  CHECK(rfc850.last_modified_ms == kLastModifiedMs);
  const auto asctime = fetch(engine, request_for(server.url("/asctime")));
  CHECK(asctime.last_modified_ms == kLastModifiedMs);
  // Not a date: the text is kept as sent, the time is unknown.
  const auto bad = fetch(engine, request_for(server.url("/bad-date")));
  CHECK(bad.last_modified == "yesterday, around noon");
  CHECK(bad.last_modified_ms == -1);

  const auto none = fetch(engine, request_for(server.url("/none")));
  CHECK(none.etag.empty());
  CHECK(none.last_modified.empty());
  CHECK(none.last_modified_ms == -1);
  // A redirect hop's validators do not stick to the final response.
  const auto hopped = fetch(engine, request_for(server.url("/hop")));
  CHECK(hopped.redirects.size() == 1);
  CHECK(hopped.etag.empty());
  CHECK(hopped.last_modified_ms == -1);

  // An RFC 850 Last-Modified goes back as the same instant in IMF-fixdate.
  FetchRequest again = request_for(server.url("/none"), 9);
  again.if_modified_since_ms = rfc850.last_modified_ms;
  fetch(engine, again);
  CHECK(server.seen().back().value("If-Modified-Since") == kLastModified);
}
