#include "demoweb/demo_web.h"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <chrono>
#include <string>

using actorcrawl::demoweb::DemoWeb;
using actorcrawl::demoweb::LoopbackWeb;
using actorcrawl::demoweb::start_demo_web;

namespace {

httplib::Client client_for(const std::string& host_key) {
  httplib::Client client(LoopbackWeb::url(host_key, ""));
  client.set_read_timeout(std::chrono::seconds(5));
  return client;
}

}  // namespace

TEST_CASE("the demo web is three linked hosts with the awkward cases on host 1",
          "[demo_web]") {
  DemoWeb demo = start_demo_web();
  REQUIRE(demo.host_keys.size() == 3);
  CHECK(demo.host_keys[0].rfind("127.0.0.1:", 0) == 0);
  CHECK(demo.host_keys[1].rfind("127.0.0.2:", 0) == 0);
  CHECK(demo.host_keys[2].rfind("127.0.0.3:", 0) == 0);
  CHECK(demo.seed_url == LoopbackWeb::url(demo.host_keys[0], "/"));

  for (std::size_t i = 0; i < 3; ++i) {
    auto client = client_for(demo.host_keys[i]);
    auto root = client.Get("/");
    REQUIRE(root);
    CHECK(root->status == 200);
    CHECK(root->body.find("<title>") != std::string::npos);
    CHECK(root->body.find("<meta name=\"description\"") != std::string::npos);
    const auto next_root = LoopbackWeb::url(demo.host_keys[(i + 1) % 3], "/");
    CHECK(root->body.find("href=\"" + next_root + "\"") != std::string::npos);
  }

  auto gardens = client_for(demo.host_keys[0]);
  auto seed = gardens.Get("/");
  REQUIRE(seed);
  CHECK(seed->body.find("Actor Gardens") != std::string::npos);
  CHECK(seed->body.find("href=\"/about\"") != std::string::npos);

  auto missing = gardens.Get("/missing");
  REQUIRE(missing);
  CHECK(missing->status == 404);

  auto pdf = gardens.Get("/docs/guide.pdf");
  REQUIRE(pdf);
  CHECK(pdf->status == 200);
  CHECK(pdf->get_header_value("Content-Type") == "application/pdf");
  CHECK(pdf->body.rfind("%PDF-1.4", 0) == 0);

  auto old = gardens.Get("/old-page");
  REQUIRE(old);
  CHECK(old->status == 301);
  CHECK(old->get_header_value("Location") == "/about");

  auto about = gardens.Get("/about");
  REQUIRE(about);
  CHECK(about->status == 200);
  CHECK(about->body.find("href=\"http://example.invalid/\"") != std::string::npos);

  auto visit = gardens.Get("/visit");
  REQUIRE(visit);
  CHECK(visit->body.find("href=\"/docs/guide.pdf\"") != std::string::npos);
  auto events = gardens.Get("/events");
  REQUIRE(events);
  CHECK(events->body.find("href=\"/missing\"") != std::string::npos);
}
