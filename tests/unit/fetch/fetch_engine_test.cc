#include "core/fetch/fetch_engine.h"
#include "core/clock/clock.h"
#include "core/fetch/http_date.h"
#include "core/fetch/retry_policy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "testweb/fault_web.h"
#include "demoweb/loopback_web.h"
#include "fetch_test_support.h"

using namespace actorcrawl;
using actorcrawl::demoweb::Response;
using actorcrawl::demoweb::LoopbackWeb;
using Clock = std::chrono::steady_clock;
using actorcrawl::testing::drive;
using actorcrawl::testing::fetch;
using actorcrawl::testing::no_proxies;
using actorcrawl::testing::request_for;
using namespace std::chrono_literals;

// Every test declares its LoopbackWeb before its FetchEngine, so the engine (and
// the keep-alive connections it caches) goes away first and the web's
// destructor does not wait for idle clients.

namespace {

Response page(std::string body, std::string content_type = "text/html; charset=utf-8") {
  Response r;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

Response redirect(int status, std::string location) {
  Response r;
  r.status = status;
  r.content_type = "text/html";
  r.body = "moved";
  r.headers = {{"Location", std::move(location)}};
  return r;
}

// A loopback port nobody listens on: bind to get one, then let it go.
int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("bind failed");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

long long ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

}  // namespace

TEST_CASE("fetch: error names are the stored contract", "[fetch]") {
  CHECK(std::string{to_string(FetchError::none)} == "none");
  CHECK(std::string{to_string(FetchError::dns_failure)} == "dns_failure");
  CHECK(std::string{to_string(FetchError::connect_failed)} == "connect_failed");
  CHECK(std::string{to_string(FetchError::timeout)} == "timeout");
  CHECK(std::string{to_string(FetchError::connection_reset)} == "connection_reset");
  CHECK(std::string{to_string(FetchError::tls_error)} == "tls_error");
  CHECK(std::string{to_string(FetchError::too_many_redirects)} == "too_many_redirects");
  CHECK(std::string{to_string(FetchError::redirect_loop)} == "redirect_loop");
  CHECK(std::string{to_string(FetchError::bad_redirect)} == "bad_redirect");
  CHECK(std::string{to_string(FetchError::bad_encoding)} == "bad_encoding");
  CHECK(std::string{to_string(FetchError::protocol_error)} == "protocol_error");
  CHECK(std::string{to_string(FetchError::transfer_failed)} == "transfer_failed");
}

TEST_CASE("fetch: 200 with body, status, content type and charset", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/page", page("<html><body>hello</body></html>", "Text/HTML; Charset=\"ISO-8859-1\""));
  web.route(host, "/doc.pdf", page("%PDF-1.4 not really", "application/pdf"));
  FetchEngine engine;

  const auto url = LoopbackWeb::url(host, "/page");
  auto out = fetch(engine, request_for(url, 42));
  CHECK(out.token == 42);
  CHECK(out.error == FetchError::none);
  CHECK(out.error_detail == "");
  CHECK(out.status_code == 200);
  // Media type and charset are lowercased, parameters and quotes stripped.
  CHECK(out.content_type == "text/html");
  CHECK(out.charset == "iso-8859-1");
  CHECK(out.body == "<html><body>hello</body></html>");
  CHECK_FALSE(out.truncated);
  CHECK(out.final_url == url);
  CHECK(out.redirects.empty());
  CHECK(out.retry_after_ms == -1);
  CHECK(out.elapsed_ms >= 0);

  auto pdf = fetch(engine, request_for(LoopbackWeb::url(host, "/doc.pdf"), 43));
  CHECK(pdf.error == FetchError::none);
  CHECK(pdf.content_type == "application/pdf");
  CHECK(pdf.charset == "");
  CHECK(pdf.body == "%PDF-1.4 not really");
  CHECK(engine.running() == 0);
  CHECK(engine.pending() == 0);
}

TEST_CASE("fetch: a 404 is a response, not an error", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/missing")));
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 404);
  CHECK(out.body == "<html><body>not found</body></html>");
  CHECK(out.content_type == "text/html");
}

TEST_CASE("fetch: 50 parallel transfers to 5 hosts all complete", "[fetch]") {
  LoopbackWeb web;
  std::vector<std::string> hosts;
  for (int h = 1; h <= 5; ++h)
    hosts.push_back(web.add_host("127.0.0." + std::to_string(h)));
  for (std::size_t h = 0; h < hosts.size(); ++h)
    for (int p = 0; p < 10; ++p)
      web.route(hosts[h], "/p" + std::to_string(p),
                page("host " + std::to_string(h) + " page " + std::to_string(p)));
  FetchEngine engine;

  std::map<std::uint64_t, std::string> expected_body;
  for (int p = 0; p < 10; ++p) {
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const std::uint64_t token = 1000 + h * 100 + p;
      expected_body[token] = "host " + std::to_string(h) + " page " + std::to_string(p);
      engine.start(request_for(LoopbackWeb::url(hosts[h], "/p" + std::to_string(p)), token));
    }
  }
  CHECK(engine.running() == 50);

  const auto done = drive(engine, 50);
  REQUIRE(done.size() == 50);
  std::set<std::uint64_t> seen;
  for (const auto& out : done) {
    INFO("token " << out.token << ": " << to_string(out.error) << " " << out.error_detail);
    CHECK(seen.insert(out.token).second);
    CHECK(out.error == FetchError::none);
    CHECK(out.status_code == 200);
    CHECK(out.body == expected_body.at(out.token));
  }
  CHECK(engine.running() == 0);
  for (const auto& host : hosts)
    for (int p = 0; p < 10; ++p)
      CHECK(web.count(host, "/p" + std::to_string(p)) == 1);
  CHECK(web.requests().size() == 50);
}

TEST_CASE("fetch: a redirect chain records every hop and the final URL", "[fetch]") {
  LoopbackWeb web;
  const auto a = web.add_host("127.0.0.1");
  const auto b = web.add_host("127.0.0.2");
  // A relative Location, then an absolute one to another host.
  web.route(a, "/start", redirect(301, "/next"));
  web.route(a, "/next", redirect(302, LoopbackWeb::url(b, "/final")));
  web.route(b, "/final", page("arrived"));
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(a, "/start")));
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 200);
  CHECK(out.body == "arrived");
  CHECK(out.final_url == LoopbackWeb::url(b, "/final"));
  REQUIRE(out.redirects.size() == 2);
  CHECK(out.redirects[0].url == LoopbackWeb::url(a, "/start"));
  CHECK(out.redirects[0].status == 301);
  CHECK(out.redirects[1].url == LoopbackWeb::url(a, "/next"));
  CHECK(out.redirects[1].status == 302);
}

TEST_CASE("fetch: a redirect loop is stopped before the repeat request", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/a", redirect(301, "/b"));
  web.route(host, "/b", redirect(302, "/a"));
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/a")));
  CHECK(out.error == FetchError::redirect_loop);
  CHECK(out.error_detail == "redirect loop back to " + LoopbackWeb::url(host, "/b"));
  CHECK(out.body.empty());
  REQUIRE(out.redirects.size() == 2);
  CHECK(out.redirects[0].url == LoopbackWeb::url(host, "/a"));
  CHECK(out.redirects[0].status == 301);
  CHECK(out.redirects[1].url == LoopbackWeb::url(host, "/b"));
  CHECK(out.redirects[1].status == 302);
  // The loop is seen from /b's Location, so /a is not asked for twice.
  CHECK(web.count(host, "/a") == 1);
  CHECK(web.count(host, "/b") == 1);

  // A page redirecting to itself is the shortest loop.
  web.route(host, "/self", redirect(307, "/self"));
  auto self = fetch(engine, request_for(LoopbackWeb::url(host, "/self"), 2));
  CHECK(self.error == FetchError::redirect_loop);
  REQUIRE(self.redirects.size() == 1);
  CHECK(self.redirects[0].status == 307);
  CHECK(web.count(host, "/self") == 1);
}

TEST_CASE("fetch: more hops than max_redirects is too_many_redirects", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/h0", redirect(301, "/h1"));
  web.route(host, "/h1", redirect(301, "/h2"));
  web.route(host, "/h2", redirect(301, "/h3"));
  web.route(host, "/h3", page("too far"));
  FetchEngine engine;

  auto request = request_for(LoopbackWeb::url(host, "/h0"));
  request.max_redirects = 2;
  auto out = fetch(engine, request);
  CHECK(out.error == FetchError::too_many_redirects);
  CHECK(out.body.empty());
  REQUIRE(out.redirects.size() == 2);
  CHECK(out.redirects[0].url == LoopbackWeb::url(host, "/h0"));
  CHECK(out.redirects[1].url == LoopbackWeb::url(host, "/h1"));
  CHECK(web.count(host, "/h3") == 0);

  // Exactly max_redirects hops is fine.
  request.max_redirects = 3;
  request.token = 2;
  auto ok = fetch(engine, request);
  CHECK(ok.error == FetchError::none);
  CHECK(ok.body == "too far");
  CHECK(ok.redirects.size() == 3);

  // max_redirects 0 means redirects are not followed: the 301 itself is the
  // response, with no hop and no error.
  request.max_redirects = 0;
  request.token = 3;
  auto unfollowed = fetch(engine, request);
  CHECK(unfollowed.error == FetchError::none);
  CHECK(unfollowed.status_code == 301);
  CHECK(unfollowed.redirects.empty());
  CHECK(unfollowed.final_url == LoopbackWeb::url(host, "/h0"));
  // Its Location, resolved: the crawler takes the hop itself.
  CHECK(unfollowed.location == LoopbackWeb::url(host, "/h1"));
  CHECK(ok.location.empty());
}

TEST_CASE("fetch: a redirect to a non-http scheme is bad_redirect", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  // A numeric host, so nothing could be looked up even if it were followed.
  web.route(host, "/to-ftp", redirect(301, "ftp://127.0.0.1/file"));
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/to-ftp")));
  CHECK(out.error == FetchError::bad_redirect);
  CHECK(out.error != FetchError::none);
  CHECK(out.body.empty());
  REQUIRE(out.redirects.size() == 1);
  CHECK(out.redirects[0].url == LoopbackWeb::url(host, "/to-ftp"));
  CHECK(out.redirects[0].status == 301);
}

TEST_CASE("fetch: a reply that is not HTTP/1.x is protocol_error, final at once", "[fetch]") {
  // HTTP/0.9 (no status line), a status 000, and a header line past curl's
  // 100 KB limit: the server's answer, never a bad URL or a transient
  // failure, so no retry asks again.
  testweb::FaultWebOptions options;
  options.tls = false;
  testweb::FaultWeb web(options);
  FetchEngine engine;
  RetryPolicy::Settings settings;
  settings.retry_attempts = 3;
  const RetryPolicy policy(settings);
  for (const auto fault :
       {testweb::Fault::http09_reply, testweb::Fault::status_000, testweb::Fault::giant_header_line}) {
    INFO(testweb::fault_page(fault).name);
    const auto out = fetch(engine, request_for(web.url(fault)));
    CHECK(out.error == FetchError::protocol_error);
    CHECK_FALSE(out.error_detail.empty());
    CHECK(out.body.empty());
    const RetryDecision d = policy.decide(out, 1);
    CHECK(d.verdict == FetchVerdict::failed);
    CHECK(d.reason == "protocol_error");
  }
}

TEST_CASE("fetch: an unparseable Location is bad_redirect", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/broken", redirect(302, "http://[::1/"));
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/broken")));
  CHECK(out.error == FetchError::bad_redirect);
  CHECK(out.body.empty());
  REQUIRE(out.redirects.size() == 1);
  CHECK(out.redirects[0].status == 302);
}

TEST_CASE("fetch: a body over max_body_bytes is cut there, not an error", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  // Not a text type, so the test web sends it uncompressed.
  std::string big(200000, '\0');
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
  web.route(host, "/big", page(big, "application/octet-stream"));
  web.route(host, "/exact", page(big.substr(0, 1000), "application/octet-stream"));
  FetchEngine engine;

  auto request = request_for(LoopbackWeb::url(host, "/big"));
  request.max_body_bytes = 1000;
  auto out = fetch(engine, request);
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 200);
  CHECK(out.truncated);
  CHECK(out.body.size() == 1000);
  CHECK(out.body == big.substr(0, 1000));

  // A body of exactly the limit is whole.
  request.url = LoopbackWeb::url(host, "/exact");
  auto exact = fetch(engine, request);
  CHECK(exact.error == FetchError::none);
  CHECK_FALSE(exact.truncated);
  CHECK(exact.body == big.substr(0, 1000));
}

TEST_CASE("fetch: compressed bodies are decoded and the limit counts decoded bytes", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  std::string text;
  while (text.size() < 5 * 1024 * 1024)
    text += "all work and no play makes a dull crawler. ";
  text.resize(5 * 1024 * 1024);
  const std::string small = text.substr(0, 300000);
  web.route(host, "/bomb", page(text, "text/plain"));
  web.route(host, "/small", page(small, "text/plain"));
  FetchEngine engine;

  auto request = request_for(LoopbackWeb::url(host, "/small"));
  auto out = fetch(engine, request);
  CHECK(out.error == FetchError::none);
  CHECK_FALSE(out.truncated);
  CHECK(out.body == small);

  request.url = LoopbackWeb::url(host, "/bomb");
  request.max_body_bytes = 1 << 20;
  auto bomb = fetch(engine, request);
  CHECK(bomb.error == FetchError::none);
  CHECK(bomb.truncated);
  CHECK(bomb.body.size() == 1048576);
  CHECK(bomb.body == text.substr(0, 1048576));

  // The engine asked for compression, which is what made the server use it.
  const auto served = web.requests();
  REQUIRE(served.size() == 2);
  for (const auto& r : served) {
    INFO("Accept-Encoding: " << r.accept_encoding);
    CHECK(r.accept_encoding.find("gzip") != std::string::npos);
    // Not br or zstd: their decoders' windows are the server's to choose.
    CHECK(r.accept_encoding.find("br") == std::string::npos);
    CHECK(r.accept_encoding.find("zstd") == std::string::npos);
  }
}

TEST_CASE("fetch: a Content-Encoding that was not asked for (br, zstd) is refused by name, not decoded", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  for (const char* coding : {"br", "zstd", "gzip, br"}) {
    Response r = page("not really compressed", "text/plain");
    r.headers.emplace_back("Content-Encoding", coding);
    web.route(host, std::string{"/"} + (coding[0] == 'g' ? "mixed" : coding), r);
  }
  FetchEngine engine;
  for (const char* path : {"/br", "/zstd", "/mixed"}) {
    INFO(path);
    const auto out = fetch(engine, request_for(LoopbackWeb::url(host, path)));
    CHECK(out.error == FetchError::bad_encoding);
    CHECK(out.error_detail.find("which was not asked for (Accept-Encoding: gzip, deflate)") != std::string::npos);
    CHECK(out.body.empty());
  }
}

TEST_CASE("fetch: a server slower than timeout_ms is a timeout", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  Response slow = page("late");
  slow.delay_ms = 3000;  // the web's destructor cuts this sleep short
  web.route(host, "/slow", slow);
  FetchEngine engine;

  auto request = request_for(LoopbackWeb::url(host, "/slow"));
  request.timeout_ms = 150;
  const auto t0 = Clock::now();
  auto out = fetch(engine, request);
  CHECK(out.error == FetchError::timeout);
  CHECK(out.error_detail != "");
  CHECK(out.status_code == 0);
  CHECK(out.body.empty());
  // It waited for the timeout rather than failing at once; curl's timers
  // work in whole milliseconds, so allow it to fire a hair early.
  CHECK(out.elapsed_ms >= 140);
  CHECK(ms_between(t0, Clock::now()) < 1500);
}

TEST_CASE("fetch: a refused connection is connect_failed", "[fetch]") {
  FetchEngine engine;
  const auto url = "http://127.0.0.1:" + std::to_string(unused_port()) + "/";
  auto out = fetch(engine, request_for(url));
  CHECK(out.error == FetchError::connect_failed);
  CHECK(out.status_code == 0);
  CHECK(out.body.empty());
}

TEST_CASE("fetch: an unresolvable host is dns_failure", "[fetch]") {
  FetchEngine engine;
  // A 64-character label is longer than DNS allows, so the resolver refuses
  // to build the query and nothing leaves the machine.
  const auto url = "http://" + std::string(64, 'a') + ".test/";
  auto out = fetch(engine, request_for(url));
  CHECK(out.error == FetchError::dns_failure);
  CHECK(out.status_code == 0);
}

TEST_CASE("fetch: Retry-After seconds become milliseconds", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  Response busy = page("busy", "text/plain");
  busy.status = 503;
  busy.headers = {{"Retry-After", "7"}};
  web.route(host, "/busy", busy);
  Response past = page("slow down", "text/plain");
  past.status = 429;
  past.headers = {{"Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"}};
  web.route(host, "/past", past);
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/busy")));
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 503);
  CHECK(out.retry_after_ms == 7000);

  // A date already gone means "now".
  auto dated = fetch(engine, request_for(LoopbackWeb::url(host, "/past"), 2));
  CHECK(dated.status_code == 429);
  CHECK(dated.retry_after_ms == 0);

  // A date to come, in any of the three forms an HTTP-date takes (the
  // validators' reader, http_date.h); anything else is no Retry-After.
  const std::string in_an_hour = format_http_date(epoch_ms() + 3'600'000);
  Response later = page("later", "text/plain");
  later.status = 503;
  later.headers = {{"Retry-After", in_an_hour}};
  web.route(host, "/later", later);
  Response odd = page("odd", "text/plain");
  odd.status = 503;
  odd.headers = {{"Retry-After", "soon, maybe"}};
  web.route(host, "/odd", odd);
  const auto hour = fetch(engine, request_for(LoopbackWeb::url(host, "/later"), 3)).retry_after_ms;
  CHECK(hour > 3'500'000);
  CHECK(hour <= 3'600'000);
  CHECK(fetch(engine, request_for(LoopbackWeb::url(host, "/odd"), 4)).retry_after_ms == -1);
}

TEST_CASE("fetch: Retry-After of a redirect hop does not stick to the final response", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  Response hop = redirect(301, "/there");
  hop.headers.push_back({"Retry-After", "9"});
  web.route(host, "/here", hop);
  web.route(host, "/there", page("ok"));
  FetchEngine engine;

  auto out = fetch(engine, request_for(LoopbackWeb::url(host, "/here")));
  CHECK(out.status_code == 200);
  CHECK(out.retry_after_ms == -1);
}

TEST_CASE("fetch: the configured User-Agent is sent", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/", page("home"));
  FetchEngine engine;

  auto request = request_for(LoopbackWeb::url(host, "/"));
  request.user_agent = "polite-bot/2.0 (+http://bot.example/)";
  auto out = fetch(engine, request);
  CHECK(out.error == FetchError::none);
  const auto served = web.requests();
  REQUIRE(served.size() == 1);
  CHECK(served[0].user_agent == "polite-bot/2.0 (+http://bot.example/)");
  CHECK(served[0].method == "GET");
  CHECK(served[0].target == "/");
}

TEST_CASE("fetch: start_at holds a transfer until its time", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/later", page("later"));
  FetchEngine engine;

  const auto t0 = Clock::now();
  engine.start_at(request_for(LoopbackWeb::url(host, "/later"), 9), t0 + 200ms);
  CHECK(engine.pending() == 1);
  CHECK(engine.running() == 0);

  const auto done = drive(engine, 1);
  REQUIRE(done.size() == 1);
  CHECK(done[0].token == 9);
  CHECK(done[0].error == FetchError::none);
  CHECK(engine.pending() == 0);
  const auto served = web.requests();
  REQUIRE(served.size() == 1);
  CHECK(ms_between(t0, served[0].at) >= 200);
  // ...and not much later: perform() wakes for the due time.
  CHECK(ms_between(t0, served[0].at) < 1000);
}

TEST_CASE("fetch: cancel_pending returns the tokens that have not started", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/now", page("now"));
  web.route(host, "/later", page("later"));
  FetchEngine engine;

  const auto later = Clock::now() + 10s;
  engine.start_at(request_for(LoopbackWeb::url(host, "/later"), 21), later + 1s);
  engine.start_at(request_for(LoopbackWeb::url(host, "/later"), 22), later);
  engine.start(request_for(LoopbackWeb::url(host, "/now"), 23));
  CHECK(engine.pending() == 2);
  CHECK(engine.running() == 1);

  auto cancelled = engine.cancel_pending();
  std::sort(cancelled.begin(), cancelled.end());
  CHECK(cancelled == std::vector<std::uint64_t>{21, 22});
  CHECK(engine.pending() == 0);
  CHECK(engine.cancel_pending().empty());

  // The transfer already on the wire is not affected.
  const auto done = drive(engine, 1);
  REQUIRE(done.size() == 1);
  CHECK(done[0].token == 23);
  CHECK(done[0].body == "now");
  CHECK(engine.perform(20ms).empty());
  CHECK(web.count(host, "/later") == 0);
}

TEST_CASE("fetch: wakeup cuts an idle perform short", "[fetch]") {
  FetchEngine engine;
  const auto t0 = Clock::now();
  std::thread waker([&engine] {
    std::this_thread::sleep_for(50ms);
    engine.wakeup();
  });
  const auto done = engine.perform(5000ms);
  const auto waited = ms_between(t0, Clock::now());
  waker.join();
  CHECK(done.empty());
  CHECK(waited < 1000);
}

// --- block_private_addresses: every test host is on loopback, so with the
// flag set each of them must be refused before a request is sent.

namespace {

FetchRequest blocked_request_for(std::string url, std::uint64_t token = 1) {
  FetchRequest r = request_for(std::move(url), token);
  r.block_private_addresses = true;
  return r;
}

// "127.0.0.1:PORT" -> "PORT"
std::string port_of(const std::string& host_key) { return host_key.substr(host_key.rfind(':') + 1); }

}  // namespace

TEST_CASE("fetch: a malformed or non-http request URL is bad_url, final at once", "[fetch]") {
  FetchEngine engine;
  for (const char* url : {"gopher://127.0.0.1:1/", "http://[::1/"}) {
    auto out = fetch(engine, request_for(url, 3));
    INFO(url);
    CHECK(out.error == FetchError::bad_url);
    CHECK(std::string{to_string(out.error)} == "bad_url");
    RetryPolicy policy{RetryPolicy::Settings{3, 10, 1000, 0}};
    CHECK(policy.decide(out, 1).verdict == FetchVerdict::failed);
  }
}

TEST_CASE("fetch: private_address has its stored name", "[fetch]") {
  CHECK(std::string{to_string(FetchError::private_address)} == "private_address");
  CHECK(FetchRequest{}.block_private_addresses == false);
}

TEST_CASE("fetch: with block_private_addresses a loopback host is refused unasked", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/page", page("secret"));
  FetchEngine engine;

  auto out = fetch(engine, blocked_request_for(LoopbackWeb::url(host, "/page"), 7));
  CHECK(out.token == 7);
  CHECK(out.error == FetchError::private_address);
  CHECK(out.error_detail == "refused to connect to private address 127.0.0.1");
  CHECK(out.status_code == 0);
  CHECK(out.body.empty());
  CHECK(out.redirects.empty());
  CHECK(web.requests().empty());
  CHECK(engine.running() == 0);

  // Without the flag the same URL is fetched as always.
  auto allowed = fetch(engine, request_for(LoopbackWeb::url(host, "/page"), 8));
  CHECK(allowed.error == FetchError::none);
  CHECK(allowed.status_code == 200);
  CHECK(allowed.body == "secret");
  CHECK(web.requests().size() == 1);
}

TEST_CASE("fetch: with block_private_addresses not even a TCP connection is made", "[fetch]") {
  // A bare listener: the kernel completes handshakes into its backlog
  // without accept(), so any connect at all would be waiting there.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  REQUIRE(::listen(listener, 8) == 0);
  REQUIRE(::fcntl(listener, F_SETFL, O_NONBLOCK) == 0);
  FetchEngine engine;

  const auto url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";
  auto out = fetch(engine, blocked_request_for(url));
  CHECK(out.error == FetchError::private_address);
  const int accepted = ::accept(listener, nullptr, nullptr);
  CHECK(accepted < 0);
  if (accepted >= 0)
    ::close(accepted);
  ::close(listener);
}

TEST_CASE("fetch: block_private_addresses judges the address a resolve entry gives", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.2");
  web.route(host, "/page", page("inside"));
  FetchEngine engine;
  // A public-looking name that resolves to loopback, as a hostile DNS
  // answer (or rebinding) would make it.
  const std::string port = port_of(host);
  engine.set_resolve({"public.test:" + port + ":127.0.0.2"});
  const std::string url = "http://public.test:" + port + "/page";

  auto out = fetch(engine, blocked_request_for(url));
  CHECK(out.error == FetchError::private_address);
  CHECK(out.error_detail == "refused to connect to private address 127.0.0.2");
  CHECK(out.body.empty());
  CHECK(web.requests().empty());

  // The entry itself works: unblocked, the name reaches the host.
  auto allowed = fetch(engine, request_for(url, 2));
  CHECK(allowed.error == FetchError::none);
  CHECK(allowed.body == "inside");
  CHECK(web.requests().size() == 1);
}

TEST_CASE("fetch: a blocked request does not reuse a cached connection to a private address", "[fetch]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/first", page("first"));
  web.route(host, "/second", page("second"));
  FetchEngine engine;

  // An unblocked transfer leaves a keep-alive connection in the cache...
  auto first = fetch(engine, request_for(LoopbackWeb::url(host, "/first"), 1));
  REQUIRE(first.error == FetchError::none);
  // ...which a blocked one to the same host must not use either.
  auto second = fetch(engine, blocked_request_for(LoopbackWeb::url(host, "/second"), 2));
  CHECK(second.error == FetchError::private_address);
  CHECK(second.error_detail == "refused to connect to private address 127.0.0.1");
  CHECK(second.body.empty());
  CHECK(web.count(host, "/first") == 1);
  CHECK(web.count(host, "/second") == 0);
  CHECK(web.requests().size() == 1);
}

TEST_CASE("fetch: blocked and unblocked transfers share the engine", "[fetch]") {
  LoopbackWeb web;
  const auto a = web.add_host("127.0.0.1");
  const auto b = web.add_host("127.0.0.2");
  web.route(a, "/start", redirect(302, LoopbackWeb::url(b, "/final")));
  web.route(b, "/final", page("arrived"));
  web.route(b, "/other", page("other"));
  FetchEngine engine;
  const std::string port_b = port_of(b);
  // Refused at the first hop, so the redirect to b is never even seen; an
  // unblocked transfer to b at the same time is unaffected.
  engine.set_resolve({"public.test:" + port_b + ":127.0.0.2"});

  engine.start(blocked_request_for(LoopbackWeb::url(a, "/start"), 1));
  engine.start(request_for(LoopbackWeb::url(b, "/other"), 2));
  engine.start(blocked_request_for("http://public.test:" + port_b + "/final", 3));
  auto done = drive(engine, 3);
  REQUIRE(done.size() == 3);
  std::map<std::uint64_t, FetchOutcome> by_token;
  for (auto& out : done)
    by_token[out.token] = std::move(out);
  CHECK(by_token.at(1).error == FetchError::private_address);
  CHECK(by_token.at(2).error == FetchError::none);
  CHECK(by_token.at(2).body == "other");
  CHECK(by_token.at(3).error == FetchError::private_address);
  CHECK(web.count(a, "/start") == 0);
  CHECK(web.count(b, "/final") == 0);
  CHECK(web.requests().size() == 1);
}

TEST_CASE("fetch: a host the user named may be private, and a redirect from it to another may not", "[fetch]") {
  LoopbackWeb web;
  const auto named = web.add_host("127.0.0.1");
  const auto inside = web.add_host("127.0.0.2");
  web.route(named, "/page", page("named"));
  web.route(named, "/away", redirect(302, LoopbackWeb::url(inside, "/secret")));
  web.route(inside, "/secret", page("secret"));
  FetchEngine engine;
  engine.set_private_hosts_allowed({"127.0.0.1"});

  auto own = fetch(engine, blocked_request_for(LoopbackWeb::url(named, "/page"), 1));
  CHECK(own.error == FetchError::none);
  CHECK(own.body == "named");

  // Curl follows this one itself (as robots.txt's redirects): the hop to the
  // other host is judged by that host, before it is connected to.
  FetchRequest followed = blocked_request_for(LoopbackWeb::url(named, "/away"), 2);
  followed.max_redirects = 3;
  auto away = fetch(engine, followed);
  CHECK(away.error == FetchError::private_address);
  CHECK(away.error_detail == "refused to connect to private address 127.0.0.2");
  CHECK(away.body.empty());
  CHECK(web.count(inside, "/secret") == 0);

  auto direct = fetch(engine, blocked_request_for(LoopbackWeb::url(inside, "/secret"), 3));
  CHECK(direct.error == FetchError::private_address);
  CHECK(web.count(inside, "/secret") == 0);

  // Allowed by name: a resolve entry's host, not the address it maps to.
  const std::string port = port_of(inside);
  engine.set_resolve({"intranet.test:" + port + ":127.0.0.2"});
  engine.set_private_hosts_allowed({"intranet.test"});
  auto by_name = fetch(engine, blocked_request_for("http://intranet.test:" + port + "/secret", 4));
  CHECK(by_name.error == FetchError::none);
  CHECK(by_name.body == "secret");
  auto by_address = fetch(engine, blocked_request_for(LoopbackWeb::url(named, "/page"), 5));
  CHECK(by_address.error == FetchError::private_address);
  CHECK(web.count(inside, "/secret") == 1);
  CHECK(web.count(named, "/page") == 1);
}

TEST_CASE("capture_http keeps the request head as sent, the response head as received and the peer address",
          "[fetch][warc]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.1");
  Response r = page("<html>hello</html>");
  r.headers = {{"X-Probe", "1"}};
  web.route(host, "/p", r);
  FetchEngine engine;

  FetchRequest plain = request_for(LoopbackWeb::url(host, "/p?q=1"));
  const FetchOutcome off = fetch(engine, plain);
  CHECK(off.status_code == 200);
  CHECK(off.request_head.empty());
  CHECK(off.response_head.empty());
  CHECK(off.ip_address.empty());

  FetchRequest capturing = request_for(LoopbackWeb::url(host, "/p?q=1"), 2);
  capturing.capture_http = true;
  const FetchOutcome on = fetch(engine, capturing);
  CHECK(on.body == "<html>hello</html>");
  CHECK(on.ip_address == "127.0.0.1");
  CHECK(on.request_head.rfind("GET /p?q=1 HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: actorcrawl-test/1.0\r\n", 0) == 0);
  CHECK(on.request_head.size() >= 4);
  CHECK(on.request_head.substr(on.request_head.size() - 4) == "\r\n\r\n");
  CHECK(on.response_head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(on.response_head.find("\r\nX-Probe: 1\r\n") != std::string::npos);
  CHECK(on.response_head.substr(on.response_head.size() - 4) == "\r\n\r\n");
}
