#include "core/frontier/fingerprint_set.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

using namespace actorcrawl;

TEST_CASE("FingerprintSet: insert says whether a value is new, contains finds it", "[fingerprint_set]") {
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

TEST_CASE("FingerprintSet: reserve makes room without growing later, memory stays near 19 bytes a value",
          "[fingerprint_set]") {
  FingerprintSet s;
  s.reserve(100000);
  const auto reserved = s.bytes();
  CHECK(reserved >= 100000 * 9 * 4 / 3);
  for (std::uint64_t v = 1; v <= 100000; ++v)
    s.insert(v * 0x9E3779B97F4A7C15ull);
  CHECK(s.bytes() == reserved);
  CHECK(s.size() == 100000);

  FingerprintSet grown;
  for (std::uint64_t v = 1; v <= 1000000; ++v)
    grown.insert(v);
  CHECK(grown.size() == 1000000);
  CHECK(grown.bytes() <= 1000000 * 9 * 3);  // 2^21 slots: 18.9 bytes a value
  CHECK(grown.contains(1));
  CHECK(grown.contains(1000000));
  CHECK_FALSE(grown.contains(1000001));
}

namespace actorcrawl {

TEST_CASE("FingerprintSet: a value met again at a smaller depth is lowered, pinned values never are",
          "[fingerprint_set]") {
  FingerprintSet s;
  using Offer = FingerprintSet::Offer;
  CHECK(s.offer(42, 3) == Offer::added);
  CHECK(s.offer(42, 3) == Offer::known);
  CHECK(s.offer(42, 5) == Offer::known);
  CHECK(s.depth_of(42) == 3);
  CHECK(s.offer(42, 1) == Offer::lowered);
  CHECK(s.depth_of(42) == 1);
  CHECK(s.depth_of(43) == -1);
  // The zero value keeps its depth apart, like its presence.
  CHECK(s.offer(0, 4) == Offer::added);
  CHECK(s.offer(0, 2) == Offer::lowered);
  CHECK(s.depth_of(0) == 2);
  // Settled for good: never lowered again.
  s.pin(42);
  CHECK(s.offer(42, 0) == Offer::known);
  s.pin(77);
  CHECK(s.contains(77));
  CHECK(s.depth_of(77) == 0);
  // Depths beyond a byte are kept as 255.
  CHECK(s.offer(9, 1000) == Offer::added);
  CHECK(s.depth_of(9) == 255);
  CHECK(s.offer(9, 254) == Offer::lowered);
  // Depths survive the table growing.
  for (std::uint64_t v = 1000; v < 5000; ++v)
    s.offer(v, static_cast<std::int32_t>(v % 7));
  CHECK(s.depth_of(42) == 0);
  CHECK(s.depth_of(9) == 254);
  CHECK(s.depth_of(1006) == 1006 % 7);
}

}  // namespace actorcrawl

namespace actorcrawl {

TEST_CASE("FingerprintSet: the fetched bit stays with its value as the table grows", "[fingerprint_set]") {
  FingerprintSet s;
  s.offer(7, 3);
  s.mark_fetched(7);
  s.mark_fetched(0, 2);  // added at depth 2, and fetched
  CHECK(s.fetched(7));
  CHECK(s.fetched(0));
  CHECK(s.depth_of(7) == 3);  // marking keeps the depth: it may still be lowered
  CHECK(s.depth_of(0) == 2);
  for (std::uint64_t v = 100; v < 20000; ++v) {
    s.offer(v, 1);
    if (v % 3 == 0)
      s.mark_fetched(v);
  }
  CHECK(s.fetched(7));
  CHECK(s.fetched(0));
  for (std::uint64_t v = 100; v < 20000; ++v) {
    INFO(v);
    REQUIRE(s.fetched(v) == (v % 3 == 0));
  }
  CHECK_FALSE(s.fetched(5));  // absent
  CHECK(s.offer(7, 1) == FingerprintSet::Offer::lowered);
  CHECK(s.fetched(7));
}

}  // namespace actorcrawl
