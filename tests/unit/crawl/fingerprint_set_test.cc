#include "core/crawl/fingerprint_set.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

using namespace actorcrawl;

TEST_CASE("FingerprintSet: insert says whether a value is new; contains finds it", "[fingerprint_set]") {
  FingerprintSet s;
  CHECK(s.size() == 0);
  CHECK_FALSE(s.contains(42));
  CHECK(s.insert(42));
  CHECK_FALSE(s.insert(42));
  CHECK(s.contains(42));
  CHECK_FALSE(s.contains(43));
  CHECK(s.size() == 1);
}

TEST_CASE("FingerprintSet: 0 and the all-ones value are values like any other", "[fingerprint_set]") {
  FingerprintSet s;
  CHECK_FALSE(s.contains(0));
  CHECK(s.insert(0));
  CHECK_FALSE(s.insert(0));
  CHECK(s.contains(0));
  CHECK(s.insert(~std::uint64_t{0}));
  CHECK(s.contains(~std::uint64_t{0}));
  CHECK(s.size() == 2);
  // Growing keeps 0 apart from the empty slots.
  for (std::uint64_t v = 1; v <= 1000; ++v)
    s.insert(v << 40);
  CHECK(s.contains(0));
  CHECK(s.size() == 1002);
}

TEST_CASE("FingerprintSet: agrees with std::unordered_set on a random stream", "[fingerprint_set]") {
  std::mt19937_64 rng(7);
  FingerprintSet s;
  std::unordered_set<std::uint64_t> reference;
  std::vector<std::uint64_t> inserted;
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t v;
    switch (rng() % 4) {
      case 0:  // a repeat
        v = inserted.empty() ? 1 : inserted[rng() % inserted.size()];
        break;
      case 1:  // values that differ only in their high bits
        v = (rng() % 64) << 58;
        break;
      case 2:  // small values, crowding one end of the table
        v = rng() % 5000;
        break;
      default:
        v = rng();
    }
    const bool fresh = reference.insert(v).second;
    REQUIRE(s.insert(v) == fresh);
    if (fresh)
      inserted.push_back(v);
  }
  CHECK(s.size() == reference.size());
  for (std::uint64_t v : inserted)
    REQUIRE(s.contains(v));
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t v = rng();
    REQUIRE(s.contains(v) == (reference.count(v) == 1));
  }
}

TEST_CASE("FingerprintSet: reserve makes room without growing later; memory stays near 16 bytes a value",
          "[fingerprint_set]") {
  FingerprintSet s;
  s.reserve(100000);
  const auto reserved = s.bytes();
  CHECK(reserved >= 100000 * 8 * 4 / 3);
  for (std::uint64_t v = 1; v <= 100000; ++v)
    s.insert(v * 0x9E3779B97F4A7C15ull);
  CHECK(s.bytes() == reserved);
  CHECK(s.size() == 100000);

  FingerprintSet grown;
  for (std::uint64_t v = 1; v <= 1000000; ++v)
    grown.insert(v);
  CHECK(grown.size() == 1000000);
  CHECK(grown.bytes() <= 1000000 * 8 * 3);  // 2^21 slots: 16.8 bytes a value
  CHECK(grown.contains(1));
  CHECK(grown.contains(1000000));
  CHECK_FALSE(grown.contains(1000001));
}
