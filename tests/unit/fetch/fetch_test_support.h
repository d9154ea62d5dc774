// What the fetch tests share: requests to the loopback servers they start
// (no proxy from the environment), and driving the engine until the
// outcomes are in.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/fetch/fetch_engine.h"

namespace actorcrawl::testing {

// libcurl honours http_proxy and friends from the environment; these tests
// must only ever talk to the loopback servers they start.
inline void no_proxies() {
  static const bool done = [] {
    for (const char* var : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
      ::unsetenv(var);
    return true;
  }();
  (void)done;
}

inline FetchRequest request_for(std::string url, std::uint64_t token = 1, std::int32_t max_redirects = 5) {
  no_proxies();
  FetchRequest r;
  r.token = token;
  r.url = std::move(url);
  r.timeout_ms = 3000;
  r.max_body_bytes = 1 << 20;
  r.max_redirects = max_redirects;
  r.user_agent = "actorcrawl-test/1.0";
  return r;
}

// Calls perform() until `expected` outcomes arrived or the budget passed.
inline std::vector<FetchOutcome> drive(FetchEngine& engine, std::size_t expected,
                                       std::chrono::milliseconds budget = std::chrono::milliseconds{5000}) {
  std::vector<FetchOutcome> done;
  const auto deadline = std::chrono::steady_clock::now() + budget;
  while (done.size() < expected && std::chrono::steady_clock::now() < deadline) {
    for (auto& outcome : engine.perform(std::chrono::milliseconds{50}))
      done.push_back(std::move(outcome));
  }
  return done;
}

// One request, to its outcome.
inline FetchOutcome fetch(FetchEngine& engine, FetchRequest request) {
  engine.start(std::move(request));
  auto done = drive(engine, 1);
  REQUIRE(done.size() == 1);
  return std::move(done.front());
}

}  // namespace actorcrawl::testing
