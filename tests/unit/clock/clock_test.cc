#include "core/clock/clock.h"

#include <catch2/catch.hpp>

using namespace actorcrawl;

TEST_CASE("monotonic_us never goes back", "[clock]") {
  const std::int64_t first = monotonic_us();
  const std::int64_t second = monotonic_us();
  CHECK(first > 0);
  CHECK(second >= first);
}

TEST_CASE("waited_us: unknown or foreign stamps are no wait", "[clock]") {
  CHECK(waited_us(0) == 0);
  CHECK(waited_us(-5) == 0);
  CHECK(waited_us(monotonic_us() + 10'000'000) == 0);  // a clock ahead of ours
  const std::int64_t sent = monotonic_us();
  CHECK(waited_us(sent) >= 0);
}

TEST_CASE("epoch_ms and epoch_us read one clock", "[clock]") {
  const std::int64_t ms = epoch_ms();
  const std::int64_t us = epoch_us();
  CHECK(ms > 1'600'000'000'000);  // after 2020
  CHECK(us / 1000 >= ms);
}
