#include "core/hosts/work_bounds.h"

#include <catch2/catch.hpp>

#include <limits>

namespace actorcrawl {

TEST_CASE("the selector's buffer: four URLs a slot, never fewer than the minimum", "[work_bounds]") {
  CHECK(selector_buffer_target(0) == kMinSelectorBuffer);
  CHECK(selector_buffer_target(96) == kMinSelectorBuffer);
  CHECK(selector_buffer_target(256) == kMinSelectorBuffer);
  CHECK(selector_buffer_target(257) == 1028);
  CHECK(selector_buffer_target(1000) == 4000);
}

TEST_CASE("demand goes out once a quarter of the buffer is missing", "[work_bounds]") {
  CHECK(work_to_ask_for(1024, 0, 0) == 1024);
  CHECK(work_to_ask_for(1024, 800, 0) == 0);     // 224 missing: below a quarter
  CHECK(work_to_ask_for(1024, 768, 0) == 256);   // exactly a quarter
  CHECK(work_to_ask_for(1024, 500, 300) == 0);   // asked already, not yet here
  CHECK(work_to_ask_for(1024, 2000, 0) == 0);    // over-full
  CHECK(work_to_ask_for(2, 0, 0) == 2);          // a tiny buffer still asks
  // Never more than one work_demand message can carry.
  CHECK(work_to_ask_for(std::size_t{1} << 40, 0, 0) == std::numeric_limits<std::int32_t>::max());
}

TEST_CASE("in flight by default: the buffer and two URLs per slot", "[work_bounds]") {
  CHECK(default_max_in_flight(96) == 1024 + 192);
  CHECK(default_max_in_flight(1000) == 4000 + 2000);
}

}  // namespace actorcrawl
