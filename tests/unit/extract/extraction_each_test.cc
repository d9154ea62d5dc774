// Many items a page (`each`), typed values, defaults, required fields and
// nested lists: what a listing page gives, and what compile() refuses.
#include "core/extract/extraction_rules.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace actorcrawl {
namespace {

using json = nlohmann::ordered_json;

struct Extracted {
  std::vector<json> items;
  std::vector<std::string> errors;
  std::vector<std::string> incomplete;
};

Extracted extract(const json& rule, const std::string& html) {
  json with_name = rule;
  with_name["name"] = "r";
  const auto rules = ExtractionRules::compile(json::array({with_name}).dump());
  Extracted out;
  for (const auto& item : rules->extract("https://shop.example/list", "https://shop.example/list", html, &out.errors,
                                         nullptr, &out.incomplete))
    out.items.push_back(json::parse(item.json));
  return out;
}

std::string error_of(const json& rule) {
  json with_name = rule;
  with_name["name"] = "r";
  try {
    ExtractionRules::compile(json::array({with_name}).dump());
  } catch (const ExtractionRuleError& e) {
    return e.what();
  }
  return "(compiled)";
}

const char* const kListing = R"(<html><body><h1>Shop</h1>
<div class="product" data-sku="A1"><h2>Kettle</h2><span class="price">$19.99</span>
  <span class="stock">7 in stock</span><span class="sale">Yes</span><a class="more" href="/p/a1">more</a>
  <table class="variants"><tr><td class="size">S</td><td class="price">18.50</td></tr>
                          <tr><td class="size">L</td><td class="price">21</td></tr>
                          <tr><td class="price">9</td></tr></table></div>
<div class="product" data-sku="B2"><h2>Mug</h2><span class="price">4.50 EUR</span>
  <span class="sale">no</span><a class="more" href="p/b2">more</a></div>
<div class="product" data-sku="C3"><h2>Teapot</h2><span class="stock">lots</span></div>
<div class="product"><h2>No SKU</h2><span class="price">1.00</span></div>
</body></html>)";

const json kProductRule = json::parse(R"~({
  "each": "div.product",
  "fields": {
    "sku": {"xpath": "@data-sku", "required": true},
    "name": {"css": "h2::text"},
    "price": {"css": "span.price::text", "regex": "[0-9]+(?:[.][0-9]+)?", "type": "float", "required": true},
    "stock": {"css": "span.stock::text", "regex": "([0-9]+) in stock", "type": "int", "default": 0},
    "on_sale": {"css": "span.sale::text", "type": "bool", "default": false},
    "link": {"css": "a.more::attr(href)", "type": "url"},
    "variants": {"each": "table.variants tr",
                 "fields": {"size": {"css": "td.size::text", "required": true},
                            "price": {"css": "td.price::text", "type": "float"}}}
  }})~");

}  // namespace

TEST_CASE("each: one item per element, fields read from it, typed, defaulted, nested", "[extract][each]") {
  const Extracted got = extract(kProductRule, kListing);
  CHECK(got.errors.empty());
  REQUIRE(got.items.size() == 2);
  CHECK(got.items[0] == json::parse(R"~({"sku": "A1", "name": "Kettle", "price": 19.99, "stock": 7, "on_sale": true,
    "link": "https://shop.example/p/a1",
    "variants": [{"size": "S", "price": 18.5}, {"size": "L", "price": 21.0}]})~"));
  // No stock shown: its default; a relative link resolved against the page.
  CHECK(got.items[1] == json::parse(R"~({"sku": "B2", "name": "Mug", "price": 4.5, "stock": 0, "on_sale": false,
    "link": "https://shop.example/p/b2", "variants": []})~"));
  // The teapot has no price, the last no SKU: both required, so neither is
  // kept, and they are counted.
  CHECK(got.incomplete ==
        std::vector<std::string>{"rule 'r': 2 items without the required field 'price' (or another), not kept"});
}

TEST_CASE("each: an XPath selector, and field XPaths relative to the element", "[extract][each]") {
  const Extracted got = extract(json::parse(R"~({"each": {"xpath": "//div[@data-sku]"},
    "fields": {"sku": {"xpath": "string(@data-sku)"}, "title": {"xpath": "h2"}, "rows": {"xpath": "count(.//tr)"},
               "page_title": {"xpath": "//h1"}}})~"),
                                kListing);
  REQUIRE(got.items.size() == 3);
  CHECK(got.items[0] == json::parse(R"~({"sku": "A1", "title": "Kettle", "rows": 3, "page_title": "Shop"})~"));
  CHECK(got.items[2] == json::parse(R"~({"sku": "C3", "title": "Teapot", "rows": 0, "page_title": "Shop"})~"));
}

TEST_CASE("each: no element selected gives no item", "[extract][each]") {
  const Extracted got = extract(json::parse(R"~({"each": "article", "fields": {"t": {"css": "h2::text"}}})~"), kListing);
  CHECK(got.items.empty());
  CHECK(got.errors.empty());
  CHECK(got.incomplete.empty());
}

TEST_CASE("types: int, float and bool convert the text or drop the value, url resolves", "[extract][each]") {
  const auto value = [](const char* type, const std::string& text, const char* all = nullptr) {
    json field = {{"css", "p::text"}, {"type", type}};
    if (all != nullptr)
      field["all"] = true;
    const Extracted got = extract(json{{"fields", {{"v", field}}}}, "<p>" + text + "</p><p>12</p>");
    REQUIRE(got.items.size() == 1);
    return got.items[0]["v"];
  };
  CHECK(value("int", " -12 ") == -12);
  CHECK(value("int", "+3") == 3);
  CHECK(value("int", "1.5") == 12);          // not an integer: dropped, the next value taken
  CHECK(value("int", "12abc", "all") == json::array({12}));
  CHECK(value("float", "1.25") == 1.25);
  CHECK(value("float", ".5") == 0.5);
  CHECK(value("float", "-2e3") == -2000.0);
  CHECK(value("float", "1e999") == 12.0);    // no finite number
  CHECK(value("float", "abc") == 12.0);
  CHECK(value("bool", "TRUE") == true);
  CHECK(value("bool", "no") == false);
  CHECK(value("bool", "0") == false);
  CHECK(value("bool", "maybe") == nullptr);   // 12 is no boolean either
  CHECK(value("string", "x") == "x");
  CHECK(value("url", "/a b") == "https://shop.example/a%20b");
  // An XPath number converts too once a type is asked of it.
  const Extracted counted =
    extract(json::parse(R"~({"fields": {"n": {"xpath": "count(//p) div 2", "type": "int"},
                                       "f": {"xpath": "count(//p)", "type": "float"}}})~"),
            "<p>a</p><p>b</p><p>c</p>");
  CHECK(counted.items.at(0) == json::parse(R"~({"n": null, "f": 3.0})~"));
}

TEST_CASE("required and default on a page-level rule", "[extract][each]") {
  const json rule = json::parse(R"~({"fields": {"title": {"css": "h1::text", "required": true},
                                              "note": {"css": "p.note::text", "default": "none"},
                                              "tags": {"css": "li::text", "all": true, "default": ["untagged"]}}})~");
  Extracted got = extract(rule, "<h1>T</h1>");
  REQUIRE(got.items.size() == 1);
  CHECK(got.items[0] == json::parse(R"~({"title": "T", "note": "none", "tags": ["untagged"]})~"));
  got = extract(rule, "<h2>no title</h2>");
  CHECK(got.items.empty());
  CHECK(got.incomplete ==
        std::vector<std::string>{"rule 'r': 1 item without the required field 'title' (or another), not kept"});
}

TEST_CASE("each: what compile() refuses, naming the rule and field", "[extract][each]") {
  CHECK(error_of(json::parse(R"~({"each": "div..x", "fields": {"a": {"css": "b"}}})~"))
          .rfind("extract rule 'r', each: invalid CSS selector 'div..x'", 0) == 0);
  CHECK(error_of(json::parse(R"~({"each": 3, "fields": {"a": {"css": "b"}}})~")) ==
        "extract rule 'r', each: needs exactly one of 'css' and 'xpath'");
  CHECK(error_of(json::parse(R"~({"fields": {"a": {"css": "b", "type": "date"}}})~")) ==
        "extract rule 'r', field 'a': 'type' must be one of string, int, float, bool, url, found 'date'");
  CHECK(error_of(json::parse(R"~({"fields": {"a": {"css": "b", "required": "yes"}}})~")) ==
        "extract rule 'r', field 'a': 'required' must be true or false, found a string");
  CHECK(error_of(json::parse(R"~({"fields": {"a": {"each": "tr"}}})~")) ==
        "extract rule 'r', field 'a': a list field needs both 'each' (the elements) and 'fields'");
  CHECK(error_of(json::parse(R"~({"fields": {"a": {"each": "tr", "fields": {"b": {"css": "td"}}, "css": "x"}}})~")) ==
        "extract rule 'r', field 'a': unknown option 'css' (allowed: each, fields, required)");
  CHECK(error_of(json::parse(R"~({"fields": {"a": {"each": "tr", "fields": {}}}})~")) ==
        "extract rule 'r', field 'a': 'fields' must be an object of one or more fields, found an empty object");
  // Nine levels of lists in lists: deeper than any page's tables.
  json deep = {{"css", "td"}};
  for (int i = 0; i < 9; ++i)
    deep = {{"each", "tr"}, {"fields", {{"f", deep}}}};
  CHECK(error_of(json{{"fields", {{"top", deep}}}}).find("list fields nest deeper than 8") != std::string::npos);
}

TEST_CASE("each: the elements share one budget, so a field that reads the whole page from each is stopped",
          "[extract][each]") {
  // 20,000 blocks, and a field that counts every paragraph of the page
  // from each block: the page's square in all. The rule's one budget (its
  // expressions' operation limits and CPU budgets together) stops it,
  // reported, and the items read before it stay.
  std::string page = "<html><body>";
  for (int i = 0; i < 20000; ++i)
    page += "<div><p>x</p></div>";
  page += "</body></html>";
  const Extracted got =
    extract(json::parse(R"~({"each": "div", "fields": {"n": {"xpath": "count(//p)"}}})~"), page);
  REQUIRE(got.errors.size() == 1);
  // Whichever part of the budget runs out first: the operations, or, on a
  // slow or loaded machine (or under emulation), the CPU time.
  INFO(got.errors[0]);
  CHECK((got.errors[0] == "rule 'r', field 'n': XPath evaluation failed: Operation limit exceeded" ||
         got.errors[0].rfind("rule 'r', field 'n': XPath evaluation stopped: past its CPU budget of ", 0) == 0));
  CHECK(got.items.size() > 0);
  CHECK(got.items.size() < 20000);
  CHECK(got.items.front() == json::parse(R"~({"n": 20000})~"));
}

}  // namespace actorcrawl
