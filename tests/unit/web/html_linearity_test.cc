// Both HTML parsers cost time linear in their input, for every construct
// of adversarial_html.h: each page is parsed at n and at 4n bytes and the
// two costs are compared (at most kMaxGrowth times more, where a quadratic
// parse takes 16), and each 4n page costs at most kMaxOverPlain times an
// ordinary page of the same size. Ratios of CPU time measured in this very
// test, never a bound on a clock: another process on the machine slows
// both sides alike, and only this thread's CPU time is counted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "adversarial_html.h"
#include "core/web/html_document.h"
#include "cpu_cost.h"

namespace actorcrawl {
namespace {

constexpr std::size_t kBytes = 64 * 1024;
constexpr double kMaxGrowth = 6.0;
constexpr double kMaxOverPlain = 20.0;

using testing::least_cpu_cost;

// CPU seconds per parse of `page`.
double parse_cost(const std::string& page, HtmlParser parser) {
  return least_cpu_cost([&] {
    const HtmlDocument doc = parse_html(page, parser);
    (void)doc;
  });
}

// The growth from `small` to `large` (4x its size); measured again when
// above the bound, so that one unlucky batch (a migration to a busy core)
// cannot fail it.
double growth(const std::string& small, const std::string& large, HtmlParser parser) {
  double ratio = parse_cost(large, parser) / parse_cost(small, parser);
  for (int again = 0; again < 2 && ratio > kMaxGrowth; ++again)
    ratio = std::min(ratio, parse_cost(large, parser) / parse_cost(small, parser));
  return ratio;
}

void check_linear(HtmlParser parser) {
  const double plain = parse_cost(testing::plain_page(4 * kBytes, 1), parser);
  for (const auto& construct : testing::adversarial_constructs()) {
    INFO(to_string(parser) << " parser, construct " << construct.name);
    const std::string large = construct.page(4 * kBytes, 1);
    const double ratio = growth(construct.page(kBytes, 1), large, parser);
    CHECK(ratio <= kMaxGrowth);
    const double over_plain = parse_cost(large, parser) / plain;
    CHECK(over_plain <= kMaxOverPlain);
    if (construct.keeps_last_link) {
      const HtmlDocument doc = parse_html(large, parser);
      REQUIRE_FALSE(doc.links.empty());
      CHECK(doc.links.back().href == "/after");
    }
  }
}

}  // namespace

TEST_CASE("html: the fast parser's cost is linear on every adversarial construct", "[html][linear]") {
  check_linear(HtmlParser::fast);
}

TEST_CASE("html: the html5 parser's cost is linear on every adversarial construct", "[html][linear]") {
  check_linear(HtmlParser::html5);
}

TEST_CASE("html: the adversarial generator is seeded and sized", "[html][linear]") {
  for (const auto& construct : testing::adversarial_constructs()) {
    INFO(construct.name);
    const std::string page = construct.page(10000, 3);
    CHECK(page.size() >= 10000);
    CHECK(page.size() < 10000 + 4096);
    CHECK(page == construct.page(10000, 3));
  }
  CHECK(testing::adversarial_constructs().size() >= 100);
}

// A parse that is quadratic must fail the comparison: a deliberately
// quadratic "parser" (a walk of everything before each '<') is measured the
// same way.
TEST_CASE("html: the linearity measure tells a quadratic cost apart", "[html][linear]") {
  const auto quadratic_cost = [](const std::string& page) {
    return least_cpu_cost([&] {
      std::size_t sum = 0;
      for (std::size_t i = 0; i < page.size(); i += 64)
        for (std::size_t j = 0; j < i; j += 8) sum += static_cast<unsigned char>(page[j]);
      volatile std::size_t sink = sum;
      (void)sink;
    });
  };
  const std::string small = testing::plain_page(kBytes, 1);
  const std::string large = testing::plain_page(4 * kBytes, 1);
  CHECK(quadratic_cost(large) / quadratic_cost(small) > kMaxGrowth);
}

}  // namespace actorcrawl
