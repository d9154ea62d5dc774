// What the external processor's tests share: plugins to run, pages to
// send, and a log to read.
#pragma once

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/plugin/external_processor.h"

namespace actorcrawl::testing {

// Only a hang would take this long; nothing is asserted about speed.
inline constexpr auto kEventually = std::chrono::seconds(40);

inline const std::string kTestPlugins = std::string{ACTORCRAWL_TEST_DATA} + "/plugins/";
inline const std::string kPlugins = std::string{ACTORCRAWL_SOURCE_DIR} + "/plugins/";

class CapturedLog {
 public:
  PluginLogSink sink() {
    return [this](LogLevel, const std::string& text) {
      std::lock_guard<std::mutex> lock{mutex_};
      lines_.push_back(text);
    };
  }
  bool contains(const std::string& part) const {
    std::lock_guard<std::mutex> lock{mutex_};
    for (const auto& line : lines_)
      if (line.find(part) != std::string::npos)
        return true;
    return false;
  }
  std::size_t count_containing(const std::string& part) const {
    std::lock_guard<std::mutex> lock{mutex_};
    std::size_t n = 0;
    for (const auto& line : lines_)
      n += line.find(part) != std::string::npos ? 1 : 0;
    return n;
  }
  // Lines come from the plugin's reader thread, in their own time.
  bool eventually_contains(const std::string& part) const {
    const auto deadline = std::chrono::steady_clock::now() + kEventually;
    while (!contains(part)) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// Timeouts only a hang would reach (python starting on a loaded machine
// included); the tests of timeouts set their own.
inline ExternalProcessorSpec plugin_spec(const std::string& name, std::vector<std::string> exec) {
  ExternalProcessorSpec spec;
  spec.name = name;
  spec.exec = std::move(exec);
  spec.timeout = std::chrono::seconds(30);
  spec.start_timeout = std::chrono::seconds(30);
  return spec;
}

inline FetchedPage html_page(const std::string& final_url) {
  FetchedPage page;
  page.url = "https://example.com/start";
  page.final_url = final_url;
  page.status_code = 200;
  page.content_type = "text/html";
  return page;
}

inline PageAnalysis process(ExternalProcessor& p, const std::string& path) {
  PageAnalysis a;
  p.process(html_page("https://example.com" + path), a);
  return a;
}

inline ProcessorFailure only_failure(const PageAnalysis& a) {
  REQUIRE(a.processor_failures.size() == 1);
  CHECK(a.items.empty());
  return a.processor_failures.front();
}

inline nlohmann::json first_item(const PageAnalysis& a) {
  REQUIRE_FALSE(a.items.empty());
  return nlohmann::json::parse(a.items.front().json);
}

}  // namespace actorcrawl::testing
