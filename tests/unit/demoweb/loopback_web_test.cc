#include "demoweb/loopback_web.h"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

using actorcrawl::demoweb::Response;
using actorcrawl::demoweb::LoopbackWeb;
using Clock = std::chrono::steady_clock;

namespace {

httplib::Client client_for(const std::string& host_key) {
  httplib::Client client(LoopbackWeb::url(host_key, ""));
  client.set_read_timeout(std::chrono::seconds(5));
  return client;
}

Response html(std::string body) {
  Response response;
  response.body = std::move(body);
  return response;
}

long long millis_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("routes answer with their status, body, content type and headers", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");

  web.route(host, "/", html("<html><body>home</body></html>"));
  Response moved;
  moved.status = 301;
  moved.headers = {{"Location", "/new"}};
  web.route(host, "/old", moved);
  Response busy;
  busy.status = 503;
  busy.content_type = "text/plain";
  busy.body = "try later";
  busy.headers = {{"Retry-After", "7"}};
  web.route(host, "/busy", busy);

  auto client = client_for(host);
  auto home = client.Get("/");
  REQUIRE(home);
  CHECK(home->status == 200);
  CHECK(home->body == "<html><body>home</body></html>");
  CHECK(home->get_header_value("Content-Type") == "text/html; charset=utf-8");

  auto old = client.Get("/old");
  REQUIRE(old);
  CHECK(old->status == 301);
  CHECK(old->get_header_value("Location") == "/new");

  auto later = client.Get("/busy");
  REQUIRE(later);
  CHECK(later->status == 503);
  CHECK(later->body == "try later");
  CHECK(later->get_header_value("Content-Type") == "text/plain");
  CHECK(later->get_header_value("Retry-After") == "7");
}

TEST_CASE("unrouted paths answer 404 with a small HTML page", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  auto client = client_for(host);

  auto res = client.Get("/nowhere?x=1");
  REQUIRE(res);
  CHECK(res->status == 404);
  CHECK(res->body == "<html><body>not found</body></html>");
  CHECK(res->get_header_value("Content-Type").rfind("text/html", 0) == 0);
}

TEST_CASE("the query is ignored when matching routes", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/search", html("results"));
  auto client = client_for(host);

  auto res = client.Get("/search?q=ferns&page=2");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "results");
}

TEST_CASE("routes can be added while the host is serving", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  auto client = client_for(host);

  auto before = client.Get("/late");
  REQUIRE(before);
  CHECK(before->status == 404);

  web.route(host, "/late", html("here now"));
  auto after = client.Get("/late");
  REQUIRE(after);
  CHECK(after->status == 200);
  CHECK(after->body == "here now");
}

TEST_CASE("a handler sees a 1-based hit count per host and path", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/flaky", [](int hit) {
    Response response;
    response.status = hit <= 2 ? 500 : 200;
    response.body = "hit " + std::to_string(hit);
    return response;
  });
  auto client = client_for(host);

  std::vector<int> statuses;
  std::vector<std::string> bodies;
  for (int i = 0; i < 3; ++i) {
    auto res = client.Get("/flaky");
    REQUIRE(res);
    statuses.push_back(res->status);
    bodies.push_back(res->body);
  }
  CHECK(statuses == std::vector<int>{500, 500, 200});
  CHECK(bodies == std::vector<std::string>{"hit 1", "hit 2", "hit 3"});
}

TEST_CASE("requests are recorded in arrival order with target and headers", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/a", html("a"));
  auto client = client_for(host);
  const httplib::Headers headers = {{"User-Agent", "actorcrawl-test/1.0"},
                                    {"Accept-Encoding", "gzip"}};

  const auto start = Clock::now();
  REQUIRE(client.Get("/a?x=1&y=two", headers));
  REQUIRE(client.Head("/a", headers));
  REQUIRE(client.Get("/missing", headers));
  REQUIRE(client.Get("/a?x=1&y=two", headers));

  const auto served = web.requests();
  REQUIRE(served.size() == 4);
  CHECK(served[0].target == "/a?x=1&y=two");
  CHECK(served[0].method == "GET");
  CHECK(served[1].target == "/a");
  CHECK(served[1].method == "HEAD");
  CHECK(served[2].target == "/missing");
  for (std::size_t i = 0; i < served.size(); ++i) {
    CHECK(served[i].host_key == host);
    CHECK(served[i].user_agent == "actorcrawl-test/1.0");
    CHECK(served[i].accept_encoding == "gzip");
    CHECK(served[i].at >= start);
    if (i > 0) CHECK(served[i].at >= served[i - 1].at);
  }

  CHECK(web.count(host, "/a?x=1&y=two") == 2);
  CHECK(web.count(host, "/a") == 1);
  CHECK(web.count(host, "/missing") == 1);
  CHECK(web.count(host, "/absent") == 0);

  web.clear_requests();
  CHECK(web.requests().empty());
  CHECK(web.count(host, "/a") == 0);
}

TEST_CASE("HEAD answers with headers and no body", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/page", html("<html><body>some page</body></html>"));
  auto client = client_for(host);

  auto res = client.Head("/page");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body.empty());
  CHECK(res->get_header_value("Content-Type") == "text/html; charset=utf-8");
}

TEST_CASE("text responses are compressed when the client accepts it", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  const std::string page = "<html><body>" + std::string(2000, 'x') + "</body></html>";
  web.route(host, "/big", html(page));
  auto client = client_for(host);

  auto res = client.Get("/big", {{"Accept-Encoding", "gzip"}});
  REQUIRE(res);
  CHECK(res->get_header_value("Content-Encoding") == "gzip");
  CHECK(res->body == page);  // the client inflated it
}

TEST_CASE("delay_ms holds the answer back, arrival time is taken before it", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  Response slow = html("slow");
  slow.delay_ms = 200;
  web.route(host, "/slow", slow);
  auto client = client_for(host);

  const auto start = Clock::now();
  auto res = client.Get("/slow");
  REQUIRE(res);
  CHECK(res->body == "slow");
  CHECK(millis_since(start) >= 200);

  const auto served = web.requests();
  REQUIRE(served.size() == 1);
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(served[0].at - start).count() < 150);
}

TEST_CASE("hosts on different loopback addresses serve at the same time", "[loopback_web]") {
  LoopbackWeb web;
  const auto two = web.add_host("127.0.0.2");
  const auto three = web.add_host("127.0.0.3");
  CHECK(two.rfind("127.0.0.2:", 0) == 0);
  CHECK(three.rfind("127.0.0.3:", 0) == 0);
  web.route(two, "/", html("two"));
  web.route(three, "/", html("three"));
  web.route(three, "/only-three", html("only three"));

  auto client_two = client_for(two);
  auto client_three = client_for(three);
  auto from_two = client_two.Get("/");
  auto from_three = client_three.Get("/");
  auto not_on_two = client_two.Get("/only-three");
  REQUIRE(from_two);
  REQUIRE(from_three);
  REQUIRE(not_on_two);
  CHECK(from_two->body == "two");
  CHECK(from_three->body == "three");
  CHECK(not_on_two->status == 404);

  CHECK(web.count(two, "/") == 1);
  CHECK(web.count(three, "/") == 1);
  CHECK(web.count(two, "/only-three") == 1);
  CHECK(web.count(three, "/only-three") == 0);
}

TEST_CASE("many parallel connections are served concurrently", "[loopback_web]") {
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  Response slow = html("ok");
  slow.delay_ms = 300;
  web.route(host, "/slow", slow);

  const auto start = Clock::now();
  std::vector<std::future<int>> answers;
  for (int i = 0; i < 8; ++i) {
    answers.push_back(std::async(std::launch::async, [&host] {
      auto client = client_for(host);
      auto res = client.Get("/slow");
      return res ? res->status : -1;
    }));
  }
  for (auto& answer : answers) CHECK(answer.get() == 200);
  // Served one after another this would take 8 * 300 ms.
  CHECK(millis_since(start) < 1500);
}

TEST_CASE("routing on an unknown host and binding a foreign address fail loudly", "[loopback_web]") {
  LoopbackWeb web;
  CHECK_THROWS_AS(web.route("127.0.0.1:1", "/", html("x")), std::invalid_argument);
  // 192.0.2.0/24 is reserved for documentation, so no local interface has it.
  CHECK_THROWS_AS(web.add_host("192.0.2.1"), std::runtime_error);
}

TEST_CASE("url joins host key and path", "[loopback_web]") {
  CHECK(LoopbackWeb::url("127.0.0.2:8080", "/a?b=c") == "http://127.0.0.2:8080/a?b=c");
}

TEST_CASE("the destructor returns promptly while a client keeps a connection open",
          "[loopback_web]") {
  auto web = std::make_unique<LoopbackWeb>();
  const auto host = web->add_host("127.0.0.1");
  web->route(host, "/", html("home"));
  auto client = client_for(host);
  client.set_keep_alive(true);
  REQUIRE(client.Get("/"));

  const auto start = Clock::now();
  web.reset();
  // The server only notices stop() once the idle connection's keep-alive
  // window (1 s) has passed.
  CHECK(millis_since(start) < 2500);
}

TEST_CASE("the destructor does not wait for a slow route to finish its delay", "[loopback_web]") {
  auto web = std::make_unique<LoopbackWeb>();
  const auto host = web->add_host("127.0.0.1");
  Response stuck = html("late");
  stuck.delay_ms = 30000;
  web->route(host, "/stuck", stuck);

  auto pending = std::async(std::launch::async, [&host] {
    auto client = client_for(host);
    return static_cast<bool>(client.Get("/stuck"));
  });
  while (web->requests().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  const auto start = Clock::now();
  web.reset();
  CHECK(millis_since(start) < 2500);
  pending.get();
}
