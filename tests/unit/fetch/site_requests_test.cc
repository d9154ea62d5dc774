// What a site requires of a request (FetchRequest::headers, basic_auth,
// bearer_token) goes to that site's origin only, on every hop; and the
// engine's proxy setting decides whether a request goes through a proxy.
#include "core/fetch/fetch_engine.h"

#include "core/fetch/cookie_jar.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "demoweb/loopback_web.h"
#include "fetch_test_support.h"

using namespace actorcrawl;
using actorcrawl::demoweb::LoopbackWeb;
using actorcrawl::demoweb::Response;
using actorcrawl::demoweb::ServedRequest;
using actorcrawl::testing::fetch;
using actorcrawl::testing::request_for;

namespace {

Response page(std::string body) {
  Response r;
  r.body = std::move(body);
  return r;
}

Response redirect(std::string location) {
  Response r;
  r.status = 302;
  r.body = "moved";
  r.headers = {{"Location", std::move(location)}};
  return r;
}

// The requests `web` served for `target` on `host`.
std::vector<ServedRequest> served(const LoopbackWeb& web, const std::string& host, const std::string& target) {
  std::vector<ServedRequest> out;
  for (const auto& r : web.requests())
    if (r.host_key == host && r.target == target)
      out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("site requests: extra headers and basic credentials go with the request", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  // The page needs both: 401 without them, as a site would answer.
  web.route(host, "/private", [](const ServedRequest& r) {
    if (r.header("X-Api-Key") != "k-123" || r.header("Authorization") != "Basic dXNlcjpzM2NyM3Q=") {
      Response denied = page("denied");
      denied.status = 401;
      return denied;
    }
    return page("<p>the private page</p>");
  });
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(host, "/private"));
  request.headers = {"X-Api-Key: k-123", "Accept-Language: de"};
  request.basic_auth = "user:s3cr3t";
  const FetchOutcome out = fetch(engine, request);
  CHECK(out.status_code == 200);
  CHECK(out.body == "<p>the private page</p>");
  const auto asked = served(web, host, "/private");
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].header("Accept-Language") == "de");

  // Without them, the same page is refused: the test's server means it.
  const FetchOutcome bare = fetch(engine, request_for(LoopbackWeb::url(host, "/private")));
  CHECK(bare.status_code == 401);
}

TEST_CASE("site requests: the request head kept for the archive holds no secret", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  web.route(host, "/", page("ok"));
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(host, "/"));
  request.capture_http = true;
  request.headers = {"X-Api-Key: k-SECRET"};
  request.basic_auth = "user:pw-SECRET";
  const FetchOutcome out = fetch(engine, request);
  CHECK(out.status_code == 200);
  CHECK(out.request_head.rfind("GET / HTTP/1.1\r\n", 0) == 0);
  CHECK(out.request_head.find("X-Api-Key: [redacted]\r\n") != std::string::npos);
  CHECK(out.request_head.find("Authorization: [redacted]\r\n") != std::string::npos);
  CHECK(out.request_head.find("User-Agent: actorcrawl-test/1.0\r\n") != std::string::npos);
  CHECK(out.request_head.find("SECRET") == std::string::npos);
  // The server got them, all the same.
  CHECK(web.requests().at(0).header("X-Api-Key") == "k-SECRET");
}

TEST_CASE("site requests: a bearer token is sent as Authorization: Bearer", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  web.route(host, "/api", page("{}"));
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(host, "/api"));
  request.bearer_token = "tok-42";
  CHECK(fetch(engine, request).status_code == 200);
  const auto asked = served(web, host, "/api");
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].header("Authorization") == "Bearer tok-42");
}

TEST_CASE("site requests: a redirect hop to another origin is asked without them", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string home = web.add_host("127.0.0.2");
  const std::string other = web.add_host("127.0.0.3");
  // home /a -> home /b (same origin) -> other /c -> home /d (back home).
  web.route(home, "/a", redirect("/b"));
  web.route(home, "/b", redirect(LoopbackWeb::url(other, "/c")));
  web.route(other, "/c", redirect(LoopbackWeb::url(home, "/d")));
  web.route(home, "/d", page("home again"));
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(home, "/a"));
  request.headers = {"X-Api-Key: k-123"};
  request.basic_auth = "user:s3cr3t";
  const FetchOutcome out = fetch(engine, request);
  CHECK(out.error == FetchError::none);
  CHECK(out.status_code == 200);
  CHECK(out.body == "home again");
  CHECK(out.final_url == LoopbackWeb::url(home, "/d"));
  REQUIRE(out.redirects.size() == 3);
  for (const char* target : {"/a", "/b", "/d"}) {
    INFO(target);
    const auto asked = served(web, home, target);
    REQUIRE(asked.size() == 1);
    CHECK(asked[0].header("X-Api-Key") == "k-123");
    CHECK_FALSE(asked[0].header("Authorization").empty());
  }
  const auto elsewhere = served(web, other, "/c");
  REQUIRE(elsewhere.size() == 1);
  CHECK(elsewhere[0].header("X-Api-Key").empty());
  CHECK(elsewhere[0].header("Authorization").empty());
}

TEST_CASE("site requests: hops the engine takes still count against max_redirects", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  for (int i = 0; i < 6; ++i)
    web.route(host, "/r" + std::to_string(i), redirect("/r" + std::to_string(i + 1)));
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(host, "/r0"), 1, 3);
  request.headers = {"X-Api-Key: k-123"};
  const FetchOutcome out = fetch(engine, request);
  CHECK(out.error == FetchError::too_many_redirects);
  // Three hops followed, the fourth redirect refused: as without headers.
  CHECK(web.count(host, "/r3") == 1);
  CHECK(web.count(host, "/r4") == 0);
}

TEST_CASE("site requests: a header line that would start another line is not sent", "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  web.route(host, "/", page("ok"));
  FetchEngine engine;
  FetchRequest request = request_for(LoopbackWeb::url(host, "/"));
  request.headers = {"X-Good: yes", "X-Bad: a\r\nX-Injected: 1", "No colon", "Bad Name: x"};
  CHECK(fetch(engine, request).status_code == 200);
  const auto asked = served(web, host, "/");
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].header("X-Good") == "yes");
  CHECK(asked[0].header("X-Bad").empty());
  CHECK(asked[0].header("X-Injected").empty());
}

TEST_CASE("site requests: a configured proxy carries every request, the environment's only when asked",
          "[fetch][site_requests]") {
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.2");
  const std::string proxy = web.add_proxy("127.0.0.4");
  web.route(host, "/page", page("via whatever"));
  FetchEngine engine;
  engine.set_proxy(FetchEngine::ProxyMode::url, "http://" + proxy);
  FetchRequest request = request_for(LoopbackWeb::url(host, "/page"));
  request.headers = {"X-Api-Key: k-123"};
  // The private-network guard does not stand between the crawler and the
  // proxy it was given.
  request.block_private_addresses = true;
  FetchOutcome out = fetch(engine, request);
  CHECK(out.status_code == 200);
  CHECK(out.body == "via whatever");
  auto asked = served(web, host, "/page");
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].via_proxy == proxy);
  CHECK(asked[0].header("X-Api-Key") == "k-123");

  // The environment's proxy, for a host name that is not loopback's (the
  // name resolves to 127.0.0.2 by set_resolve): used only when the engine
  // is told to; the proxy answers 502 for a host it does not serve.
  const std::string port = host.substr(host.find(':') + 1);
  const std::string named = "http://site.test:" + port + "/page";
  ::setenv("http_proxy", ("http://" + proxy).c_str(), 1);
  FetchEngine from_environment;
  from_environment.set_resolve({"site.test:" + port + ":127.0.0.2"});
  from_environment.set_proxy(FetchEngine::ProxyMode::environment);
  const FetchOutcome proxied = fetch(from_environment, request_for(named));
  FetchEngine direct;  // the default
  direct.set_resolve({"site.test:" + port + ":127.0.0.2"});
  const FetchOutcome straight = fetch(direct, request_for(named));
  ::unsetenv("http_proxy");
  CHECK(proxied.status_code == 502);
  CHECK(straight.status_code == 200);
  CHECK(straight.body == "via whatever");
}

TEST_CASE("site requests: one jar for every engine, each cookie to its own host, none in the kept head",
          "[fetch][site_requests][cookie_jar]") {
  LoopbackWeb web;
  const std::string shop = web.add_host("127.0.0.2");
  const std::string other = web.add_host("127.0.0.3");
  Response sets = page("welcome");
  sets.headers = {{"Set-Cookie", "consent=c-SECRET; Path=/"}, {"Set-Cookie", "deep=d; Path=/deep"}};
  web.route(shop, "/", sets);
  web.route(shop, "/next", page("next"));
  web.route(shop, "/deep/page", page("deep"));
  web.route(other, "/", page("other"));
  auto jar = std::make_shared<CookieJar>();
  FetchEngine first, second, without;
  first.set_cookie_jar(jar);
  second.set_cookie_jar(jar);
  CHECK(fetch(first, request_for(LoopbackWeb::url(shop, "/"))).status_code == 200);
  // The other engine (another FetchWorker) sends what the first was given.
  FetchRequest next = request_for(LoopbackWeb::url(shop, "/next"));
  next.capture_http = true;
  const FetchOutcome out = fetch(second, next);
  CHECK(out.status_code == 200);
  CHECK(served(web, shop, "/next").at(0).header("Cookie") == "consent=c-SECRET");
  CHECK(out.request_head.find("Cookie: [redacted]\r\n") != std::string::npos);
  CHECK(out.request_head.find("SECRET") == std::string::npos);
  // By path, and never to another host or from an engine without the jar.
  CHECK(fetch(second, request_for(LoopbackWeb::url(shop, "/deep/page"))).status_code == 200);
  const std::string deep = served(web, shop, "/deep/page").at(0).header("Cookie");
  CHECK(deep.find("deep=d") != std::string::npos);
  CHECK(deep.find("consent=c-SECRET") != std::string::npos);
  CHECK(fetch(first, request_for(LoopbackWeb::url(other, "/"))).status_code == 200);
  CHECK(served(web, other, "/").at(0).header("Cookie").empty());
  CHECK(fetch(without, request_for(LoopbackWeb::url(shop, "/next"))).status_code == 200);
  CHECK(served(web, shop, "/next").at(1).header("Cookie").empty());
  CHECK(jar->lines().size() == 2);
}
