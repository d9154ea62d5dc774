#include <catch2/catch.hpp>

#include <thread>

#include "core/report/stage_times.h"

using namespace actorcrawl;

TEST_CASE("StageTimes adds items, waits and the largest wait", "[stage_times]") {
  StageTimes t{"parse"};
  t.add(100, 5);
  t.add(300, 20);
  CHECK(t.count == 2);
  CHECK(t.busy_us == 400);
  CHECK(t.wait_us == 25);
  CHECK(t.max_wait_us == 20);
  StageTimes other{"parse"};
  other.add(50, 70);
  t.merge(other);
  CHECK(t.count == 3);
  CHECK(t.busy_us == 450);
  CHECK(t.max_wait_us == 70);
}

TEST_CASE("StageTimer measures the scope it lives in", "[stage_times]") {
  StageTimes t{"store"};
  {
    StageTimer timer(t, 7);
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  CHECK(t.count == 1);
  CHECK(t.busy_us >= 5000);
  CHECK(t.wait_us == 7);
}

TEST_CASE("waited_us: unknown stamps are no wait", "[stage_times]") {
  CHECK(waited_us(0) == 0);
  CHECK(waited_us(monotonic_us() + 10'000'000) == 0);  // a clock ahead of ours
  const auto sent = monotonic_us() - 2000;
  CHECK(waited_us(sent) >= 2000);
}

TEST_CASE("format_stage_times: one aligned line per stage", "[stage_times]") {
  StageTimes parse{"parse"};
  parse.add(2000, 1000);
  parse.add(2000, 3000);
  const std::string text = format_stage_times({parse}, 1500);
  CHECK(text.find("stage") == 0);
  CHECK(text.find("parse             2        0.00     2.000        2.00        3.0") != std::string::npos);
  CHECK(text.find("(wall 1.50 s;") != std::string::npos);
}
