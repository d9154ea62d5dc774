// Extraction rules: what compile() refuses, word for word, and what a
// field's value is.
#include "core/extract/extraction_rules.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace actorcrawl {
namespace {

using json = nlohmann::json;

std::string error_of(const std::string& rules_json) {
  try {
    ExtractionRules::compile(rules_json);
  } catch (const ExtractionRuleError& e) {
    return e.what();
  }
  return "(compiled)";
}

// The fields object of the one item a one-rule set gives on `html`.
json fields_of(const json& fields, const std::string& html, const std::string& base = "https://shop.example/a/b") {
  const auto rules = ExtractionRules::compile(json::array({{{"name", "t"}, {"fields", fields}}}).dump());
  std::vector<std::string> errors;
  const auto items = rules->extract("https://shop.example/a/b", base, html, &errors);
  CHECK(errors.empty());
  REQUIRE(items.size() == 1);
  CHECK(items[0].kind == "t");
  return json::parse(items[0].json);
}

json value_of(const json& field, const std::string& html, const std::string& base = "https://shop.example/a/b") {
  return fields_of(json{{"v", field}}, html, base)["v"];
}

}  // namespace

TEST_CASE("rules: what compile() refuses, naming the rule and the field", "[extract][rules]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"", "extract rules: not JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error "
           "while parsing value - unexpected end of input; expected '[', '{', or a literal"},
      {"{}", "extract rules: expected a list of rules, found an object"},
      {"[1]", "extract rule #1: expected an object with name, urls and fields, found a number"},
      {R"([{"fields": {"a": {"css": "a"}}}])", "extract rule #1: 'name' is missing"},
      {R"([{"name": 3}])", "extract rule #1: 'name' must be a string, found a number"},
      {R"([{"name": "my product"}])",
       "extract rule #1: name 'my product' must be letters, digits, '_', '.' or '-' (at least one)"},
      {R"([{"name": ""}])", "extract rule #1: name '' must be letters, digits, '_', '.' or '-' (at least one)"},
      {R"([{"name": "a", "fields": {"x": {"css": "a"}}}, {"name": "a", "fields": {"x": {"css": "a"}}}])",
       "extract rule 'a' (#2): the name is taken by rule #1"},
      {R"([{"name": "p", "url": "x", "fields": {"x": {"css": "a"}}}])",
       "extract rule 'p': unknown key 'url' (allowed: name, urls, each, fields)"},
      {R"([{"name": "p", "urls": 1, "fields": {"x": {"css": "a"}}}])",
       "extract rule 'p': 'urls' must be a string (an RE2 pattern), found a number"},
      {R"([{"name": "p", "urls": "/product/(", "fields": {"x": {"css": "a"}}}])",
       "extract rule 'p', urls: invalid regular expression '/product/(': missing ): /product/("},
      {R"([{"name": "p"}])", "extract rule 'p': 'fields' is missing"},
      {R"([{"name": "p", "fields": {}}])",
       "extract rule 'p': 'fields' must be an object of one or more fields, found an empty object"},
      {R"([{"name": "p", "fields": ["a"]}])",
       "extract rule 'p': 'fields' must be an object of one or more fields, found an array"},
      {R"([{"name": "p", "fields": {"": {"css": "a"}}}])", "extract rule 'p': a field has an empty name"},
      {R"([{"name": "p", "fields": {"title": "h1"}}])",
       "extract rule 'p', field 'title': expected an object with css or xpath, found a string"},
      {R"([{"name": "p", "fields": {"title": {"css": "h1", "text": true}}}])",
       "extract rule 'p', field 'title': unknown option 'text' (allowed: css, xpath, all, regex, url, type, default, required)"},
      {R"([{"name": "p", "fields": {"title": {"all": true}}}])",
       "extract rule 'p', field 'title': needs exactly one of 'css' and 'xpath'"},
      {R"([{"name": "p", "fields": {"title": {"css": "h1", "xpath": "//h1"}}}])",
       "extract rule 'p', field 'title': needs exactly one of 'css' and 'xpath'"},
      {R"([{"name": "p", "fields": {"title": {"css": ""}}}])",
       "extract rule 'p', field 'title': 'css' must be a non-empty string, found \"\""},
      {R"([{"name": "p", "fields": {"title": {"xpath": ["//h1"]}}}])",
       "extract rule 'p', field 'title': 'xpath' must be a non-empty string, found an array"},
      {R"([{"name": "p", "fields": {"title": {"css": "h1:hover"}}}])",
       "extract rule 'p', field 'title': invalid CSS selector 'h1:hover' at position 2: unsupported pseudo-class "
       "':hover'"},
      {R"([{"name": "product", "fields": {"price": {"xpath": "//span["}}}])",
       "extract rule 'product', field 'price': invalid XPath '//span[': Invalid expression at position 7"},
      {R"([{"name": "p", "fields": {"n": {"xpath": "count(//a"}}}])",
       "extract rule 'p', field 'n': invalid XPath 'count(//a': Invalid expression at position 9"},
      {R"([{"name": "p", "fields": {"n": {"xpath": "//a]"}}}])",
       "extract rule 'p', field 'n': invalid XPath '//a]': Invalid expression at position 3"},
      {R"~([{"name": "p", "fields": {"n": {"xpath": "lower-case(//h1)"}}}])~",
       "extract rule 'p', field 'n': invalid XPath 'lower-case(//h1)': unknown function 'lower-case()'"},
      {R"([{"name": "p", "fields": {"n": {"xpath": "//a[re:test(@href, 'x')]"}}}])",
       "extract rule 'p', field 'n': invalid XPath '//a[re:test(@href, 'x')]': unknown function 're:test()' (no "
       "namespace prefixes are bound)"},
      {R"([{"name": "p", "fields": {"n": {"xpath": "//a[@id = $id]"}}}])",
       "extract rule 'p', field 'n': invalid XPath '//a[@id = $id]': variables are not supported ($id)"},
      {R"([{"name": "p", "fields": {"n": {"xpath": "//a\u0000"}}}])",
       "extract rule 'p', field 'n': invalid XPath '//a\\0': a NUL character at position 3"},
      {R"([{"name": "p", "fields": {"n\u0000": {"css": "a:hover"}}}])",
       "extract rule 'p', field 'n\\0': invalid CSS selector 'a:hover' at position 1: unsupported pseudo-class "
       "':hover'"},
      {R"([{"name": "p", "fields": {"t": {"css": "h1", "all": "yes"}}}])",
       "extract rule 'p', field 't': 'all' must be true or false, found a string"},
      {R"([{"name": "p", "fields": {"t": {"css": "a", "url": 1}}}])",
       "extract rule 'p', field 't': 'url' must be true or false, found a number"},
      {R"([{"name": "p", "fields": {"t": {"css": "h1", "regex": 5}}}])",
       "extract rule 'p', field 't': 'regex' must be a string (an RE2 pattern), found a number"},
      {R"([{"name": "p", "fields": {"t": {"css": "h1", "regex": "[0-9"}}}])",
       "extract rule 'p', field 't': invalid regular expression '[0-9': missing ]: [0-9"},
      {R"([{"name": "p", "fields": {"t": {"css": "h1", "regex": "(a)\\1"}}}])",
       "extract rule 'p', field 't': invalid regular expression '(a)\\1': invalid escape sequence: \\1"},
  };
  for (const auto& [rules, message] : table) {
    INFO(rules);
    CHECK(error_of(rules) == message);
  }
}

TEST_CASE("rules: long or deeply nested XPath is refused by its bound, not a stack overflow", "[extract][rules]") {
  const auto message_for = [](const std::string& xpath) {
    return error_of(json::array({{{"name", "p"}, {"fields", {{"n", {{"xpath", xpath}}}}}}}).dump());
  };
  CHECK(message_for(std::string(100000, '(') + "1" + std::string(100000, ')')) ==
        "extract rule 'p', field 'n': the XPath is 200001 bytes long, over the limit of 4096");
  CHECK_THAT(message_for(std::string(100, '(') + "1" + std::string(100, ')')),
             Catch::Contains("nests 100 parentheses or brackets deep, over the limit of 64"));
  // 100,000 chained predicates: the length bound.
  std::string chain = "//a";
  for (int i = 0; i < 100000; ++i) chain += "[1]";
  CHECK_THAT(message_for(chain), Catch::Contains("bytes long, over the limit of 4096"));
  // The same for CSS.
  CHECK(error_of(json::array({{{"name", "p"}, {"fields", {{"n", {{"css", std::string(5000, 'a')}}}}}}}).dump()) ==
        "extract rule 'p', field 'n': the CSS selector is 5000 bytes long, over the limit of 4096");
}

TEST_CASE("rules: an empty list is no rules, matching nothing", "[extract][rules]") {
  const auto rules = ExtractionRules::compile("[]");
  CHECK(rules->size() == 0);
  CHECK_FALSE(rules->matches("https://a.example/"));
  CHECK(rules->extract("https://a.example/", "https://a.example/", "<p>x</p>").empty());
}

TEST_CASE("rules: urls is searched in the final URL, without it every page matches", "[extract][rules]") {
  const auto rules = ExtractionRules::compile(R"([
    {"name": "product", "urls": "/product/", "fields": {"t": {"css": "h1"}}},
    {"name": "any", "fields": {"t": {"css": "title"}}},
    {"name": "docs", "urls": "^https://docs[.]", "fields": {"t": {"css": "h1"}}}])");
  CHECK(rules->size() == 3);
  CHECK(rules->matches("https://shop.example/product/1"));
  const std::string page = "<title>T</title><h1>H</h1>";
  auto items = rules->extract("https://shop.example/product/1", "https://shop.example/product/1", page);
  REQUIRE(items.size() == 2);
  CHECK(items[0].kind == "product");
  CHECK(items[0].json == R"({"t":"H"})");
  CHECK(items[1].kind == "any");
  CHECK(items[1].json == R"({"t":"T"})");
  items = rules->extract("https://docs.example/x", "https://docs.example/x", page);
  REQUIRE(items.size() == 2);
  CHECK(items[0].kind == "any");
  CHECK(items[1].kind == "docs");

  const auto only_products = ExtractionRules::compile(R"([{"name": "p", "urls": "/product/", "fields": {"t": {"css": "h1"}}}])");
  CHECK_FALSE(only_products->matches("https://shop.example/cart"));
  CHECK(only_products->extract("https://shop.example/cart", "https://shop.example/cart", page).empty());
}

TEST_CASE("rules: fields come out in the order the rule lists them", "[extract][rules]") {
  const auto rules = ExtractionRules::compile(
      R"([{"name": "p", "fields": {"zeta": {"css": "b"}, "alpha": {"css": "i"}, "mid": {"css": "u"}}}])");
  const auto items = rules->extract("https://a.example/", "https://a.example/", "<b>1</b><i>2</i><u>3</u>");
  REQUIRE(items.size() == 1);
  CHECK(items[0].json == R"({"zeta":"1","alpha":"2","mid":"3"})");
}

TEST_CASE("fields: the first value, trimmed, an element's text is all its descendant text", "[extract][fields]") {
  const std::string page = R"(<h1>
      Big <b>bold</b>   title
    </h1><h1>second</h1><p>  </p><p> kept </p>)";
  CHECK(value_of({{"css", "h1"}}, page) == "Big bold   title");
  CHECK(value_of({{"xpath", "//h1"}}, page) == "Big bold   title");
  // The first non-empty one: whitespace-only text is no value.
  CHECK(value_of({{"css", "p"}}, page) == "kept");
  CHECK(value_of({{"css", "h1::text"}}, page) == "Big");
  CHECK(value_of({{"xpath", "//h1/text()"}, {"all", true}}, page) == json{"Big", "title", "second"});
  CHECK(value_of({{"css", "h1 ::text"}, {"all", true}}, page) == json{"Big", "bold", "title", "second"});
}

TEST_CASE("fields: no match is null, or [] for all", "[extract][fields]") {
  CHECK(value_of({{"css", "h2"}}, "<h1>x</h1>").is_null());
  CHECK(value_of({{"css", "h2"}, {"all", true}}, "<h1>x</h1>") == json::array());
  CHECK(value_of({{"css", "h1"}, {"regex", "[0-9]+"}}, "<h1>x</h1>").is_null());
  CHECK(value_of({{"css", "h1"}}, "").is_null());
  CHECK(value_of({{"css", "h1"}, {"all", true}}, "") == json::array());
}

TEST_CASE("fields: all gives every non-empty value in document order", "[extract][fields]") {
  const std::string page = R"(<ul class="tags"><li>red</li><li> </li><li>
    big </li><li><!-- c --></li><li>red</li></ul>)";
  CHECK(value_of({{"css", "ul.tags li::text"}, {"all", true}}, page) == json{"red", "big", "red"});
  CHECK(value_of({{"css", "ul.tags li"}, {"all", true}}, page) == json{"red", "big", "red"});
  CHECK(value_of({{"css", "ul.tags li"}}, page) == "red");
}

TEST_CASE("fields: regex keeps the first group, else the whole match, no match drops the value", "[extract][fields]") {
  const std::string page = "<span>Price: 12.50 EUR</span><span>free</span><span>3.99</span>";
  CHECK(value_of({{"css", "span"}, {"regex", "[0-9]+[.][0-9]+"}}, page) == "12.50");
  CHECK(value_of({{"css", "span"}, {"regex", "([0-9]+)[.]([0-9]+)"}}, page) == "12");
  CHECK(value_of({{"css", "span"}, {"regex", "[0-9]+[.][0-9]+"}, {"all", true}}, page) == json{"12.50", "3.99"});
  CHECK(value_of({{"css", "span"}, {"regex", "EUR|USD"}, {"all", true}}, page) == json{"EUR"});
  // A group that takes no part, or matches nothing, gives no value.
  CHECK(value_of({{"css", "span"}, {"regex", "fr(x)?ee"}, {"all", true}}, page) == json::array());
  CHECK(value_of({{"css", "span"}, {"regex", "free()"}, {"all", true}}, page) == json::array());
  // Searched in the trimmed value; the match is kept as it is.
  CHECK(value_of({{"css", "span"}, {"regex", "^Price:(.*)$"}}, page) == " 12.50 EUR");
  CHECK(value_of({{"css", "span"}, {"regex", "(?i)PRICE"}}, page) == "Price");
}

TEST_CASE("fields: url resolves against the base URL, what gives no http(s) URL is dropped", "[extract][fields]") {
  const std::string page = R"~(<img class="main" src=" ../img/a b.png "><a href="mailto:x@y">m</a>
    <a href="//cdn.example/x">c</a><a href="javascript:void(0)">j</a><a href="HTTPS://Shop.Example:443/p?q#f">p</a>)~";
  CHECK(value_of({{"css", "img.main::attr(src)"}, {"url", true}}, page) == "https://shop.example/img/a%20b.png");
  CHECK(value_of({{"css", "img.main::attr(src)"}, {"url", true}}, page, "https://other.example/x/y/") ==
        "https://other.example/x/img/a%20b.png");
  CHECK(value_of({{"css", "a::attr(href)"}, {"url", true}, {"all", true}}, page) ==
        json{"https://cdn.example/x", "https://shop.example/p?q"});
  CHECK(value_of({{"css", "a[href^=mailto]::attr(href)"}, {"url", true}}, page).is_null());
  // A base that is no http(s) URL resolves nothing.
  CHECK(value_of({{"css", "img::attr(src)"}, {"url", true}}, page, "not a url").is_null());
  // regex first, then url: a URL inside other text resolves.
  CHECK(value_of({{"css", "a::attr(href)"}, {"url", true}, {"regex", "^//cdn.*"}}, page) == "https://cdn.example/x");
  CHECK(value_of({{"css", "button::attr(onclick)"}, {"url", true}, {"regex", "'([^']+)'"}},
                 "<button onclick=\"location='../p/1'\">go</button>") == "https://shop.example/p/1");
}

TEST_CASE("fields: attributes, text nodes, entities and non-ASCII text", "[extract][fields]") {
  const std::string page =
      "<p title='caf&eacute; &amp; &#x1F600;'>na&iuml;ve &lt;b&gt; &#8212; \xE6\x97\xA5\xE6\x9C\xAC&nbsp;</p>"
      "<p>\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82</p>";
  CHECK(value_of({{"css", "p::attr(title)"}}, page) == "caf\xC3\xA9 & \xF0\x9F\x98\x80");
  CHECK(value_of({{"xpath", "//p/@title"}}, page) == "caf\xC3\xA9 & \xF0\x9F\x98\x80");
  // &nbsp; at the end is Unicode whitespace, so trimmed.
  CHECK(value_of({{"css", "p::text"}}, page) == "na\xC3\xAFve <b> \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC");
  CHECK(value_of({{"css", "p:nth-child(2)"}}, page) == "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");
  CHECK(value_of({{"css", "p"}, {"regex", "(\\p{Han}+)"}}, page) == "\xE6\x97\xA5\xE6\x9C\xAC");
}

TEST_CASE("fields: the page is read as UTF-8 whatever its meta says", "[extract][fields]") {
  const std::string page = "<meta charset=\"iso-8859-1\"><h1>caf\xC3\xA9</h1>";
  CHECK(value_of({{"css", "h1"}}, page) == "caf\xC3\xA9");
}

TEST_CASE("fields: XPath strings, numbers and booleans", "[extract][fields]") {
  const std::string page = "<a href=/1>one</a><a href=/2>two</a><h1> T </h1>";
  CHECK(value_of({{"xpath", "count(//a)"}}, page) == 2);
  CHECK(value_of({{"xpath", "count(//a) div 4"}}, page) == 0.5);
  CHECK(value_of({{"xpath", "count(//a) div 0"}}, page).is_null());
  CHECK(value_of({{"xpath", "number('x')"}}, page).is_null());
  CHECK(value_of({{"xpath", "count(//a)"}, {"all", true}}, page) == json{2});
  CHECK(value_of({{"xpath", "count(//a)"}, {"regex", "[0-9]"}}, page) == "2");
  CHECK(value_of({{"xpath", "boolean(//h1)"}}, page) == true);
  CHECK(value_of({{"xpath", "boolean(//h2)"}, {"all", true}}, page) == json{false});
  CHECK(value_of({{"xpath", "boolean(//h2)"}, {"regex", "f.*"}}, page) == "false");
  CHECK(value_of({{"xpath", "string(//h1)"}}, page) == "T");
  CHECK(value_of({{"xpath", "concat(string(//a/@href), 'x')"}, {"url", true}}, page) == "https://shop.example/1x");
  CHECK(value_of({{"xpath", "string(//h2)"}}, page).is_null());
  CHECK(value_of({{"xpath", "string(//h2)"}, {"all", true}}, page) == json::array());
}

TEST_CASE("fields: comments and scripts as XPath reads them", "[extract][fields]") {
  const std::string page = "<div>a<!-- hidden -->b<script>var s = 1;</script></div>";
  // An element's string-value skips comments but has its scripts' text.
  CHECK(value_of({{"css", "div"}}, page) == "abvar s = 1;");
  CHECK(value_of({{"xpath", "//comment()"}}, page) == "hidden");
}

TEST_CASE("fields: broken HTML is read the way libxml2 recovers it", "[extract][fields]") {
  CHECK(value_of({{"css", "td"}, {"all", true}}, "<table><tr><td>1<td>2</table><p>after") == json{"1", "2"});
  CHECK(value_of({{"css", "p"}}, "<table><tr><td>1<td>2</table><p>after") == "after");
  CHECK(value_of({{"css", "b"}}, std::string("<b>x\0y</b>", 10)) == "x y");
  CHECK(value_of({{"css", "p"}}, "<p>a</b></i></p><p>b") == "a");
  CHECK(value_of({{"css", "p"}, {"all", true}}, "<p>a<p>b<p>c") == json{"a", "b", "c"});
}

TEST_CASE("fields: a page nested far deeper than libxml2's limit is read up to it", "[extract][fields]") {
  std::string page = "<h1>top</h1>";
  for (int i = 0; i < 100000; ++i) page += "<div>";
  page += "<p>deep</p>";
  const json fields = fields_of({{"title", {{"css", "h1"}}}, {"deep", {{"css", "p"}}}, {"n", {{"xpath", "count(//div)"}}}},
                                page);
  CHECK(fields["title"] == "top");
  CHECK(fields["deep"].is_null());
  CHECK(fields["n"].get<int>() < 300);
}

TEST_CASE("fields: output is valid UTF-8 JSON", "[extract][fields]") {
  const auto rules = ExtractionRules::compile(R"([{"name": "t", "fields": {"v": {"css": "p"}, "q": {"css": "q"}}}])");
  const auto items = rules->extract("https://a.example/", "https://a.example/",
                                    "<p>\"quoted\" \\ back\tslash</p><q>\xE2\x82\xAC</q>");
  REQUIRE(items.size() == 1);
  CHECK(items[0].json == "{\"v\":\"\\\"quoted\\\" \\\\ back\\tslash\",\"q\":\"\xE2\x82\xAC\"}");
}

TEST_CASE("fields: values stop at twice the page, and that is reported", "[extract][fields]") {
  // 250 nested divs: each one's text is its own and all within it, 300 kB
  // in all from a page of 5 kB.
  std::string page;
  for (int i = 0; i < 250; ++i) page += "<div>0123456789";
  const auto rules = ExtractionRules::compile(R"([{"name": "t", "fields": {"all": {"css": "div", "all": true}}}])");
  std::vector<std::string> errors;
  const auto items = rules->extract("https://a.example/", "https://a.example/", page, &errors);
  REQUIRE(items.size() == 1);
  const auto values = json::parse(items[0].json)["all"];
  CHECK(values.size() > 10);
  CHECK(values.size() < 250);
  CHECK(values[0].get<std::string>().size() == 2500);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "rule 't', field 'all': values stopped at " + std::to_string(2 * page.size() + 65536) +
                         " bytes (twice the page, plus 64 kB)");
}

TEST_CASE("fields: an evaluation past the operation limit is null and reported", "[extract][fields]") {
  // Each of 4,000 elements counts every element again: 32 million steps,
  // past the limit for a page of 40 kB (3.6 million).
  std::string page;
  for (int i = 0; i < 4000; ++i) page += "<b>" + std::to_string(i) + "</b>";
  const auto quadratic = ExtractionRules::compile(R"([{"name": "t", "fields": {
      "slow": {"xpath": "//b[count(//b) > 0]", "all": true},
      "fast": {"css": "b"}}}])");
  std::vector<std::string> errors;
  const auto items = quadratic->extract("https://a.example/", "https://a.example/", page, &errors);
  REQUIRE(items.size() == 1);
  CHECK(items[0].json == R"({"slow":[],"fast":"0"})");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "rule 't', field 'slow': XPath evaluation failed: Operation limit exceeded");
}

}  // namespace actorcrawl

namespace actorcrawl {

// A crawl that stops does not wait for an extraction: the field under way
// stops at its next step, the fields left are not evaluated.
//
// The stop comes from another thread after a delay, and how long the page
// takes to parse before the XPath starts depends on the machine (ten times
// longer under emulation, or on a loaded one). So the delay doubles until a
// stop lands while the field is under way; the field takes seconds, so a
// stop that comes after it finished means the interruption did not work.
TEST_CASE("rules: a stop interrupts the field under way and skips the rest", "[extract][budget]") {
  std::string page = "<html><body>";
  for (int i = 0; i < 250; ++i) page += "<div>";
  for (int i = 0; i < 40000; ++i) page += "<p>x</p>";
  page += "</body></html>";
  const auto rules = ExtractionRules::compile(
    R"~([{"name": "r", "fields": {"slow": {"xpath": "count(//div//p)"}, "later": {"css": "p"}}}])~");
  const std::string before_field = "rule 'r', field 'slow': not evaluated: the crawl is stopping";
  bool landed = false;
  for (int delay_ms = 100; delay_ms <= 6400 && !landed; delay_ms *= 2) {
    std::atomic<bool> stop{false};
    std::thread stopper([&stop, delay_ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      stop = true;
    });
    std::vector<std::string> errors;
    const auto items = rules->extract("https://example.com/", "https://example.com/", page, &errors, &stop);
    stopper.join();
    REQUIRE(items.size() == 1);
    REQUIRE(!errors.empty());
    if (errors[0] == before_field)
      continue;  // the stop came while the page was parsed: wait longer
    landed = true;
    CHECK(items[0].json == R"({"slow":null,"later":null})");
    CHECK(errors == std::vector<std::string>{"rule 'r', field 'slow': XPath evaluation stopped: the crawl is stopping",
                                             "rule 'r', field 'later': not evaluated: the crawl is stopping"});
  }
  CHECK(landed);
}

}  // namespace actorcrawl
