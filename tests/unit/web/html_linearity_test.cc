// Both HTML parsers cost time linear in their input, for every construct
// of adversarial_html.h: each page is parsed at 256 KiB and at 4 MiB, and
// its cost may grow at most 4 times as much as an ordinary page's over the
// same sizes (a quadratic parse grows 16 times as much: cpu_cost.h says
// why these sizes and this comparison, which no CPU cache decides), and
// each 4 MiB page costs at most kMaxOverPlain times an ordinary page of the
// same size. Ratios of CPU time measured in this very test, never a bound
// on a clock: another process on the machine slows both sides alike, and
// only this thread's CPU time is counted. The growths are printed for the
// record.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "adversarial_html.h"
#include "core/web/html_document.h"
#include "cpu_cost.h"

namespace actorcrawl {
namespace {

using testing::kLinearityBytes;
using testing::kLinearityFactor;
using testing::kMaxRelativeGrowth;

constexpr double kMaxOverPlain = 20.0;

// CPU seconds per parse of `page`. A page of megabytes takes tens of
// milliseconds, far above the clock's grain: three batches pick the least.
double parse_cost(const std::string& page, HtmlParser parser) {
  return testing::least_cpu_cost(
    [&] {
      const HtmlDocument doc = parse_html(page, parser);
      (void)doc;
    },
    3);
}

// The growth of an ordinary page's parse from 256 KiB to 4 MiB.
double plain_growth(HtmlParser parser) {
  const auto cost = [parser](const std::string& page) { return parse_cost(page, parser); };
  return testing::cost_growth(cost, testing::plain_page(kLinearityBytes, 1),
                              testing::plain_page(kLinearityFactor * kLinearityBytes, 1))
    .ratio;
}

// The constructs from `begin` to `end` (of adversarial_constructs()).
void check_linear(HtmlParser parser, std::size_t begin = 0, std::size_t end = static_cast<std::size_t>(-1)) {
  const auto cost = [parser](const std::string& page) { return parse_cost(page, parser); };
  const auto plain = testing::cost_growth(cost, testing::plain_page(kLinearityBytes, 1),
                                          testing::plain_page(kLinearityFactor * kLinearityBytes, 1));
  testing::WorstGrowth worst;
  double costliest = 0;  // the largest large_cost / plain.large_cost, and whose
  std::string costliest_name;
  const auto& constructs = testing::adversarial_constructs();
  for (std::size_t i = begin; i < std::min(end, constructs.size()); ++i) {
    const auto& construct = constructs[i];
    INFO(to_string(parser) << " parser, construct " << construct.name << "; a plain page grew " << plain.ratio
                           << " times");
    const std::string large = construct.page(kLinearityFactor * kLinearityBytes, 1);
    const auto g = testing::cost_growth(cost, construct.page(kLinearityBytes, 1), large, plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxRelativeGrowth);
    worst.take(g.ratio, plain.ratio, construct.name);
    CHECK(g.large_cost / plain.large_cost <= kMaxOverPlain);
    if (g.large_cost / plain.large_cost > costliest) {
      costliest = g.large_cost / plain.large_cost;
      costliest_name = construct.name;
    }
    if (construct.keeps_last_link) {
      const HtmlDocument doc = parse_html(large, parser);
      REQUIRE_FALSE(doc.links.empty());
      CHECK(doc.links.back().href == "/after");
    }
  }
  WARN(to_string(parser) << " parser, " << kLinearityBytes / 1024 << " KiB to "
                         << kLinearityFactor * kLinearityBytes / 1024 << " KiB: a plain page's cost grew "
                         << plain.ratio << " times; the worst construct's (" << worst.name << ") " << worst.relative
                         << " times as much (bound " << kMaxRelativeGrowth << "); the costliest at "
                         << kLinearityFactor * kLinearityBytes / 1024 << " KiB (" << costliest_name << ") "
                         << costliest << " times a plain page's cost (bound " << kMaxOverPlain << ")");
}

}  // namespace

TEST_CASE("html: the fast parser's cost is linear on every adversarial construct", "[html][linear]") {
  check_linear(HtmlParser::fast);
}

// gumbo builds a tree of each 4 MiB page: in three parts, each well within
// the test's time limit on a loaded machine.
TEST_CASE("html: the html5 parser's cost is linear on every adversarial construct, part 1", "[html][linear]") {
  check_linear(HtmlParser::html5, 0, 40);
}

TEST_CASE("html: the html5 parser's cost is linear on every adversarial construct, part 2", "[html][linear]") {
  check_linear(HtmlParser::html5, 40, 80);
}

TEST_CASE("html: the html5 parser's cost is linear on every adversarial construct, part 3", "[html][linear]") {
  CHECK(testing::adversarial_constructs().size() <= 120);  // else a part 4
  check_linear(HtmlParser::html5, 80, 120);
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
// quadratic "parser" (a walk of everything before every 4 KiB) is measured
// the same way, at the same sizes, against the fast parser's plain page.
TEST_CASE("html: the linearity measure tells a quadratic cost apart", "[html][linear]") {
  const auto quadratic_cost = [](const std::string& page) {
    return testing::least_cpu_cost([&] {
      std::size_t sum = 0;
      for (std::size_t i = 0; i < page.size(); i += 4096)
        for (std::size_t j = 0; j < i; j += 64) sum += static_cast<unsigned char>(page[j]);
      volatile std::size_t sink = sum;
      (void)sink;
    });
  };
  const double plain = plain_growth(HtmlParser::fast);
  const auto g = testing::cost_growth(quadratic_cost, testing::plain_page(kLinearityBytes, 1),
                                      testing::plain_page(kLinearityFactor * kLinearityBytes, 1));
  WARN("a quadratic walk grew " << g.ratio / plain << " times as much as a plain page's parse from "
                                << kLinearityBytes / 1024 << " KiB to " << kLinearityFactor * kLinearityBytes / 1024
                                << " KiB (bound " << kMaxRelativeGrowth << ")");
  CHECK(g.ratio / plain > kMaxRelativeGrowth);
}

}  // namespace actorcrawl
