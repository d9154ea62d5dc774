// Extraction costs time linear in the page for a fixed, ordinary rule set,
// on every construct of the HTML parsers' adversarial pages
// (tests/unit/web/adversarial_html.h) and on the shapes that make naive
// CSS-to-XPath translations quadratic in libxml2 (many sibling blocks, a
// long list): each page is extracted at 256 KiB and at 4 MiB, and its cost
// may grow at most 4 times as much as an ordinary page's over the same
// sizes (a quadratic cost grows 7 times as much or more:
// tests/unit/web/cpu_cost.h says why these sizes and this comparison,
// which no CPU cache decides), and each 4 MiB page costs at most
// kMaxOverPlain times an ordinary page of the same size. Ratios of this
// thread's CPU time measured in this very test, never a bound on a clock;
// printed for the record.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/extract/extraction_rules.h"
#include "core/extract/html_attribute_cap.h"
#include "tests/unit/web/adversarial_html.h"
#include "tests/unit/web/cpu_cost.h"

namespace actorcrawl {
namespace {

constexpr std::size_t kBytes = testing::kLinearityBytes;
constexpr std::size_t kLarge = testing::kLinearityFactor * testing::kLinearityBytes;
constexpr double kMaxGrowth = testing::kMaxRelativeGrowth;
constexpr double kMaxOverPlain = 20.0;

using testing::least_cpu_cost;

// A bit of everything a site's rules use: text, attributes as URLs, each
// combinator, structural pseudo-classes, a group, XPath with a regex.
constexpr const char* kRules = R"~([{"name": "page", "fields": {
  "title":     {"css": "title::text"},
  "heading":   {"css": "h1, h2"},
  "links":     {"css": "a::attr(href)", "all": true, "url": true},
  "in_blocks": {"css": "div p::text", "all": true},
  "deep":      {"css": "div div div a", "all": true},
  "children":  {"css": "ul > li:first-child", "all": true},
  "next":      {"css": "h2 + p", "all": true},
  "later":     {"css": "li ~ li.x", "all": true},
  "nth":       {"css": "li:nth-child(2)", "all": true},
  "boxes":     {"css": ".box img::attr(src), section.b", "all": true},
  "price":     {"xpath": "//span[@class='price']/text()", "regex": "[0-9]+[.][0-9]+"},
  "count":     {"xpath": "count(//a)"},
  "text":      {"css": "div ::text", "all": true}
}}])~";

const ExtractionRules& rules() {
  static const auto compiled = ExtractionRules::compile(kRules);
  return *compiled;
}

std::vector<std::string> field_errors_of(const std::string& page) {
  std::vector<std::string> errors;
  rules().extract("https://example.com/", "https://example.com/", page, &errors);
  return errors;
}

double extract_cost(const std::string& page) {
  return least_cpu_cost(
      [&] {
        const auto items = rules().extract("https://example.com/", "https://example.com/", page);
        (void)items;
      },
      3);
}

// CPU seconds per run of the attribute cap over `page`.
double cap_cost(const std::string& page) {
  return least_cpu_cost(
      [&] {
        const auto capped = cap_tag_attributes(page);
        (void)capped;
      },
      3);
}

// How `cost` grew on an ordinary page from kBytes to kLarge.
template <class Cost>
testing::CostGrowth plain_growth(Cost&& cost) {
  return testing::cost_growth(cost, testing::plain_page(kBytes, 1), testing::plain_page(kLarge, 1));
}

// The worst growth so far, relative to the plain page's, and its report.
struct Worst : testing::WorstGrowth {
  explicit Worst(const char* w) : what(w) {}
  const char* what;
  void report(double baseline) const {
    WARN(what << ", " << kBytes / 1024 << " KiB to " << kLarge / 1024 << " KiB: a plain page's cost grew " << baseline
              << " times; the worst page's (" << name << ") " << relative << " times as much (bound " << kMaxGrowth
              << ")");
  }
};

// Pages that are ordinary HTML but large in one direction.
std::string repeated(std::size_t bytes, const std::string& open, const std::string& unit, const std::string& close) {
  std::string page = "<!DOCTYPE html><html><head><title>t</title></head><body>" + open;
  while (page.size() + unit.size() + close.size() < bytes) page += unit;
  return page + close + "</body></html>";
}

struct Shape {
  const char* name;
  std::string (*page)(std::size_t bytes);
};

const Shape kShapes[] = {
    {"sibling-blocks", [](std::size_t n) { return repeated(n, "", "<div><p>x</p><a href=/a>a</a></div>", ""); }},
    {"nested-blocks", [](std::size_t n) { return repeated(n, "", "<div><p>x</p>", ""); }},
    {"long-list", [](std::size_t n) { return repeated(n, "<ul>", "<li class=x>x</li>", "</ul>"); }},
    {"headings-and-paragraphs", [](std::size_t n) { return repeated(n, "", "<h2>h</h2><p>p</p>", ""); }},
    {"deep-links", [](std::size_t n) { return repeated(n, "<div><div><div>", "<a href=/x>x</a>", ""); }},
};

// Extraction and the attribute cap on the constructs from `begin` to
// `end` (of adversarial_constructs()).
void check_constructs(std::size_t begin, std::size_t end) {
  const auto plain = plain_growth(extract_cost);
  const auto plain_cap = plain_growth(cap_cost);
  const auto& constructs = testing::adversarial_constructs();
  Worst extraction{"extraction"}, cap{"the attribute cap"};
  for (std::size_t i = begin; i < std::min(end, constructs.size()); ++i) {
    const auto& construct = constructs[i];
    INFO("construct " << construct.name << "; a plain page grew " << plain.ratio << " times (the cap: "
                      << plain_cap.ratio << ")");
    const std::string small = construct.page(kBytes, 1);
    const std::string large = construct.page(kLarge, 1);
    CHECK(field_errors_of(large).empty());
    const auto g = testing::cost_growth(extract_cost, small, large, plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxGrowth);
    extraction.take(g.ratio, plain.ratio, construct.name);
    CHECK(g.large_cost / plain.large_cost <= kMaxOverPlain);
    const auto capped = testing::cost_growth(cap_cost, small, large, plain_cap.ratio);
    CHECK(capped.ratio / plain_cap.ratio <= kMaxGrowth);
    cap.take(capped.ratio, plain_cap.ratio, construct.name);
  }
  extraction.report(plain.ratio);
  cap.report(plain_cap.ratio);
}

}  // namespace

// In three parts, each well within the test's time limit.
TEST_CASE("extract: cost is linear on the adversarial constructs, part 1", "[extract][linear]") {
  check_constructs(0, 40);
}

TEST_CASE("extract: cost is linear on the adversarial constructs, part 2", "[extract][linear]") {
  check_constructs(40, 80);
}

TEST_CASE("extract: cost is linear on the adversarial constructs, part 3", "[extract][linear]") {
  CHECK(testing::adversarial_constructs().size() <= 120);  // else a part 4
  check_constructs(80, 120);
}

TEST_CASE("extract: cost is linear on many siblings, deep nesting and long lists", "[extract][linear]") {
  const auto plain = plain_growth(extract_cost);
  Worst extraction{"extraction"};
  for (const auto& shape : kShapes) {
    INFO("shape " << shape.name << "; a plain page grew " << plain.ratio << " times");
    const std::string large = shape.page(kLarge);
    CHECK(field_errors_of(large).empty());
    const auto g = testing::cost_growth(extract_cost, shape.page(kBytes), large, plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxGrowth);
    extraction.take(g.ratio, plain.ratio, shape.name);
    CHECK(g.large_cost / plain.large_cost <= kMaxOverPlain);
  }
  extraction.report(plain.ratio);
}

// A listing's rule: one item per block or list entry, fields read from
// each, a nested list. Every element's fields search its own subtree, so
// the blocks' nesting (nested-blocks: each block holds all the later ones)
// is where it could grow as the square of the page; the rule's one budget
// bounds it there.
constexpr const char* kEachRules = R"~([{"name": "listing", "each": "div, li", "fields": {
  "text":  {"css": "p::text"},
  "link":  {"css": "a::attr(href)", "url": true},
  "links": {"xpath": "count(.//a)", "type": "int"},
  "rows":  {"each": "p", "fields": {"t": {"xpath": "string(.)"}}}
}}])~";

TEST_CASE("extract: rules with each cost time linear in the page", "[extract][linear]") {
  static const auto each_rules = ExtractionRules::compile(kEachRules);
  const auto each_cost = [](const std::string& page) {
    return least_cpu_cost(
        [&] {
          std::vector<std::string> errors;
          const auto items = each_rules->extract("https://example.com/", "https://example.com/", page, &errors);
          (void)items;
        },
        3);
  };
  const auto plain = plain_growth(extract_cost);
  Worst worst{"rules with each"};
  for (const auto& shape : kShapes) {
    INFO("shape " << shape.name << "; the ordinary rules on a plain page grew " << plain.ratio << " times");
    const auto g = testing::cost_growth(each_cost, shape.page(kBytes), shape.page(kLarge), plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxGrowth);
    worst.take(g.ratio, plain.ratio, shape.name);
  }
  worst.report(plain.ratio);
}

// Rules a user may well write that libxml2 evaluates in time quadratic in
// the nodes they reach: a descendant step after a step that finds many
// nested nodes (//div//p, //a//b), a following axis from many nodes, a
// union of large sets; count(//*) walks everything. Each field runs under
// its CPU budget (ExtractionRules::kFieldCpuFloorUs + kFieldCpuNsPerByte a
// byte, xpath_watchdog.h), so however quadratic the rule, a page's cost is
// linear in its size: at 1 MiB and 4 MiB on every construct and on the
// plain page, the growth is at most 4 times the ordinary rules' growth on
// the plain page over the same sizes (measured at most 1.2 times).
constexpr const char* kHostileRules = R"~([{"name": "hostile", "fields": {
  "nested":     {"xpath": "//div//p", "all": true},
  "anchors":    {"xpath": "//a//b", "all": true},
  "following":  {"xpath": "count(//h2/following::p)"},
  "everything": {"xpath": "count(//*)"},
  "union":      {"xpath": "//a | //p | //li", "all": true}
}}])~";

TEST_CASE("extract: hostile rules cost time linear in the page, their fields bounded by the budget",
          "[extract][linear]") {
  static const auto hostile = ExtractionRules::compile(kHostileRules);
  const auto hostile_cost = [](const std::string& page) {
    return least_cpu_cost(
        [&] {
          std::vector<std::string> errors;
          const auto items = hostile->extract("https://example.com/", "https://example.com/", page, &errors);
          (void)items;
        },
        2);
  };
  constexpr std::size_t kSmall = 1 << 20;
  constexpr std::size_t kBig = 4 * kSmall;
  const double baseline =
      testing::cost_growth(extract_cost, testing::plain_page(kSmall, 1), testing::plain_page(kBig, 1)).ratio;
  Worst worst{"the hostile rules"};
  const auto check = [&](std::string_view name, const std::string& small, const std::string& big) {
    INFO(name << "; the ordinary rules on a plain page grew " << baseline << " times");
    const auto g = testing::cost_growth(hostile_cost, small, big, baseline);
    CHECK(g.ratio / baseline <= kMaxGrowth);
    worst.take(g.ratio, baseline, name);
  };
  check("plain", testing::plain_page(kSmall, 1), testing::plain_page(kBig, 1));
  for (const auto& construct : testing::adversarial_constructs())
    check(construct.name, construct.page(kSmall, 1), construct.page(kBig, 1));
  WARN("the hostile rules, 1 MiB to 4 MiB: the ordinary rules on a plain page grew " << baseline
                                                                                       << " times; the worst page's ("
                                                                                       << worst.name << ") "
                                                                                       << worst.relative
                                                                                       << " times as much (bound "
                                                                                       << kMaxGrowth << ")");
}

// The reproductions of the quadratic cases, each field stopped by its
// budget and reported, the others evaluated.
TEST_CASE("extract: a quadratic field is stopped at its CPU budget and reported, the rest of the item stays",
          "[extract][budget]") {
  std::string nested = "<html><body>";
  for (int i = 0; i < 250; ++i) nested += "<div>";
  for (int i = 0; i < 20000; ++i) nested += "<p>x</p>";
  nested += "<h1>kept</h1></body></html>";
  std::string siblings = "<html><body>";
  for (int i = 0; i < 20000; ++i) siblings += "<i>x</i>";
  siblings += "<h1>kept</h1></body></html>";
  const auto rules = ExtractionRules::compile(R"~([{"name": "r", "fields": {
      "slow": {"xpath": "count(//div//p)"},
      "slower": {"xpath": "count(//*/following::*)"},
      "title": {"css": "h1::text"}}}])~");
  for (const std::string* page : {&nested, &siblings}) {
    std::vector<std::string> errors;
    const auto items = rules->extract("https://example.com/", "https://example.com/", *page, &errors);
    REQUIRE(items.size() == 1);
    const auto item = nlohmann::json::parse(items[0].json);
    CHECK(item["title"] == "kept");
    // Each quadratic field either finished or was stopped, never both; on
    // these pages, at least one of them must have been stopped.
    bool stopped = false;
    for (const auto& e : errors) {
      INFO(e);
      CHECK(e.find("XPath evaluation stopped: past its CPU budget of ") != std::string::npos);
      stopped = true;
    }
    CHECK(stopped);
    if (page == &nested)
      CHECK(item["slow"].is_null());
  }
}

// The scan that caps attributes before libxml2 (html_attribute_cap.h) is
// a reader of HTML of its own: its worst cases besides the constructs.
TEST_CASE("extract: the attribute cap's cost is linear", "[extract][linear]") {
  const std::pair<const char*, std::string (*)(std::size_t)> pages[] = {
      {"unclosed-comment", [](std::size_t n) { return repeated(n, "<!--", "<a b c>", ""); }},
      {"script-almost-ends", [](std::size_t n) { return repeated(n, "<script>", "</scrip</styl", ""); }},
      {"lone-less-than", [](std::size_t n) { return repeated(n, "", "<<<<", ""); }},
      {"unclosed-quote", [](std::size_t n) { return repeated(n, "<a b=\"", "<a b c d>", ""); }},
      {"attributes-past-the-cap", [](std::size_t n) { return repeated(n, "<a", " b=c d", ">"); }},
  };
  const auto plain = plain_growth(cap_cost);
  Worst cap{"the attribute cap"};
  for (const auto& [name, page] : pages) {
    INFO(name << "; a plain page grew " << plain.ratio << " times");
    const auto g = testing::cost_growth(cap_cost, page(kBytes), page(kLarge), plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxGrowth);
    cap.take(g.ratio, plain.ratio, name);
  }
  cap.report(plain.ratio);
}

// The measure tells a quadratic cost apart: cssselect's translation of
// `div p` (descendant-or-self::div/descendant-or-self::*/p) on sibling
// blocks, which libxml2 merges node set by node set.
TEST_CASE("extract: the linearity measure tells a quadratic XPath apart", "[extract][linear]") {
  const auto quadratic = ExtractionRules::compile(
      R"~([{"name": "q", "fields": {"p": {"xpath": "descendant-or-self::div/descendant-or-self::*/p", "all": true}}}])~");
  const auto cost = [&](const std::string& page) {
    return least_cpu_cost(
        [&] {
          const auto items = quadratic->extract("https://example.com/", "https://example.com/", page);
          (void)items;
        },
        3);
  };
  // At a sixteenth of the other tests' sizes (16 KiB to 256 KiB, the same
  // factor): quadratic at theirs would take minutes. Against the ordinary
  // rules' growth on an ordinary page over the same sizes.
  const auto& blocks = kShapes[0];
  const double plain = extract_cost(testing::plain_page(kLarge / 16, 1)) / extract_cost(testing::plain_page(kBytes / 16, 1));
  const double ratio = cost(blocks.page(kLarge / 16)) / cost(blocks.page(kBytes / 16));
  WARN("the quadratic XPath grew " << ratio / plain << " times as much as the rules on a plain page from "
                                   << kBytes / 16 / 1024 << " KiB to " << kLarge / 16 / 1024 << " KiB (bound "
                                   << kMaxGrowth << ")");
  CHECK(ratio / plain > kMaxGrowth);
}

}  // namespace actorcrawl
