// The CSS translator: the XPath each construct becomes, what it selects in
// a sample document (by the ids of the elements), and the errors.
#include "core/extract/css_selector.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/extract/extraction_rules.h"

namespace actorcrawl {
namespace {

// Every element that a test selects has an id; P and ID in capitals show
// that libxml2 lowercases names, so selectors match them in any case.
constexpr const char* kSample = R"(<!DOCTYPE html>
<html><head><title>t</title></head><body id="b">
<div id="d1" class="box  main">
  <h2 id="h">Heading</h2>
  <p id="p1" class="lead">one</p>
  <p id="p2" data-x="it's &quot;q&quot;">two</p>
  <ul id="u1"><li id="l1" class="a">1</li><li id="l2">2</li><li id="l3" class="a b">3</li><li id="l4">4</li><li id="l5" lang="en-US">5</li></ul>
  <span id="s1"><em id="e1">x</em></span>
</div>
<div id="d2"><p id="p3" title="hello world">three</p><a id="a1" href="/x.html">link</a><P ID="p4">four</P></div>
<section id="sec"><div id="d3"><div id="d4"><p id="p5"></p></div></div></section>
</body></html>)";

// The values of one CSS field with all: true on `html`.
std::vector<std::string> select(const std::string& css, const std::string& html = kSample) {
  const nlohmann::json rules = nlohmann::json::array(
      {{{"name", "t"}, {"fields", {{"v", {{"css", css}, {"all", true}}}}}}});
  const auto compiled = ExtractionRules::compile(rules.dump());
  const auto items = compiled->extract("https://example.com/", "https://example.com/", html);
  REQUIRE(items.size() == 1);
  return nlohmann::json::parse(items[0].json)["v"].get<std::vector<std::string>>();
}

// The ids of what `css` selects.
std::vector<std::string> ids(const std::string& css) { return select(css + "::attr(id)"); }

using Ids = std::vector<std::string>;

}  // namespace

TEST_CASE("css: each construct's XPath", "[extract][css]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"h1", "descendant-or-self::h1"},
      {"*", "descendant-or-self::*"},
      {"DIV", "descendant-or-self::div"},
      {"#main", "descendant-or-self::*[@id = 'main']"},
      {".x", "descendant-or-self::*[@class and contains(concat(' ', normalize-space(@class), ' '), ' x ')]"},
      {"[href]", "descendant-or-self::*[@href]"},
      {"[HREF=a]", "descendant-or-self::*[@href = 'a']"},
      {"[rel~=next]", "descendant-or-self::*[@rel and contains(concat(' ', normalize-space(@rel), ' '), ' next ')]"},
      {"[lang|=en]", "descendant-or-self::*[@lang and (@lang = 'en' or starts-with(@lang, 'en-'))]"},
      {"[href^='http']", "descendant-or-self::*[@href and starts-with(@href, 'http')]"},
      {"[href$=\".pdf\"]", "descendant-or-self::*[@href and substring(@href, string-length(@href) - 3) = '.pdf']"},
      {"[title$=é]", "descendant-or-self::*[@title and substring(@title, string-length(@title) - 0) = 'é']"},
      {"[href*=shop]", "descendant-or-self::*[@href and contains(@href, 'shop')]"},
      {"[href^='']", "descendant-or-self::*[false()]"},
      {"[rel~='a b']", "descendant-or-self::*[false()]"},
      {"[title=\"it's\"]", "descendant-or-self::*[@title = \"it's\"]"},
      {"[title='say \"hi\"']", "descendant-or-self::*[@title = 'say \"hi\"']"},
      {"[title=\"it's \\\"x\\\"\"]", "descendant-or-self::*[@title = concat('it', \"'\", 's \"x\"')]"},
      {"div p", "descendant-or-self::p[ancestor::div]"},
      {"div > p", "descendant-or-self::p[parent::div]"},
      {"h2 + p", "descendant-or-self::p[preceding-sibling::*[1]/self::h2]"},
      {"h2 ~ p", "descendant-or-self::p[preceding-sibling::h2]"},
      {"div.a p", "descendant-or-self::p[ancestor::div[@class and contains(concat(' ', normalize-space(@class), ' '), ' a ')][1]]"},
      {"a b c", "descendant-or-self::c[ancestor::b[1][ancestor::a]]"},
      {"a > b c", "descendant-or-self::c[ancestor::b[parent::a][1]]"},
      {"a b > c", "descendant-or-self::c[parent::b[ancestor::a]]"},
      {"a ~ b ~ c", "descendant-or-self::c[preceding-sibling::b[1][preceding-sibling::a]]"},
      {"a + b ~ c", "descendant-or-self::c[preceding-sibling::b[preceding-sibling::*[1]/self::a][1]]"},
      {"h1, h2", "descendant-or-self::*[self::h1 or self::h2]"},
      {"h1::text, h2::text", "descendant-or-self::*[self::h1 or self::h2]/text()"},
      {"h1::text, h2::attr(id)", "descendant-or-self::h1/text() | descendant-or-self::h2/@id"},
      {"li:first-child", "descendant-or-self::li[not(preceding-sibling::*[1])]"},
      {"li:last-child", "descendant-or-self::li[not(following-sibling::*[1])]"},
      {"li:only-child", "descendant-or-self::li[not(preceding-sibling::*[1]) and not(following-sibling::*[1])]"},
      {"li:nth-child(3)", "descendant-or-self::li[preceding-sibling::*[2] and not(preceding-sibling::*[3])]"},
      {"li:nth-child(1)", "descendant-or-self::li[not(preceding-sibling::*[1])]"},
      {"li:nth-child(0)", "descendant-or-self::li[false()]"},
      {"li:nth-child(odd)", "descendant-or-self::li[count(preceding-sibling::*) mod 2 = 0]"},
      {"li:nth-child(2n+1)", "descendant-or-self::li[count(preceding-sibling::*) mod 2 = 0]"},
      {"li:nth-child(even)", "descendant-or-self::li[(count(preceding-sibling::*) + 1) mod 2 = 0]"},
      {"li:nth-child(n)", "descendant-or-self::li"},
      {"li:nth-child(n+4)", "descendant-or-self::li[preceding-sibling::*[3]]"},
      {"li:nth-child(-n+3)", "descendant-or-self::li[not(preceding-sibling::*[3])]"},
      {"li:nth-child(-2n+3)", "descendant-or-self::li[not(preceding-sibling::*[3]) and count(preceding-sibling::*) mod 2 = 0]"},
      {"li:nth-child(-n-1)", "descendant-or-self::li[false()]"},
      {"li:nth-child(3n-1)", "descendant-or-self::li[(count(preceding-sibling::*) + 2) mod 3 = 0]"},
      {"li:nth-last-child(2)", "descendant-or-self::li[following-sibling::*[1] and not(following-sibling::*[2])]"},
      {"p:nth-of-type(2)", "descendant-or-self::p[preceding-sibling::p[1] and not(preceding-sibling::p[2])]"},
      {"p:first-of-type", "descendant-or-self::p[not(preceding-sibling::p[1])]"},
      {"p:last-of-type", "descendant-or-self::p[not(following-sibling::p[1])]"},
      {":root", "descendant-or-self::*[not(parent::*)]"},
      {"p:empty", "descendant-or-self::p[not(*) and not(string-length())]"},
      {"li:not(.a)", "descendant-or-self::li[not(self::*[@class and contains(concat(' ', normalize-space(@class), ' '), ' a ')])]"},
      {"*:not(p)", "descendant-or-self::*[not(self::p)]"},
      {"p:not(*)", "descendant-or-self::p[false()]"},
      {"h1::text", "descendant-or-self::h1/text()"},
      {"img::attr(SRC)", "descendant-or-self::img/@src"},
      {"::text", "descendant-or-self::*/text()"},
      {"div ::text", "descendant-or-self::*[ancestor-or-self::div]/text()"},
      {"div > ::text", "descendant-or-self::*[parent::div]/text()"},
      {"a\\:b", "descendant-or-self::*[name() = 'a:b']"},
      {"\\31 23", "descendant-or-self::*[name() = '123']"},
      {"[data\\ x]", "descendant-or-self::*[attribute::*[name() = 'data x']]"},
      {"x-y", "descendant-or-self::x-y"},
      {"  p  /* c */ ", "descendant-or-self::p"},
  };
  for (const auto& [css, xpath] : table) {
    INFO(css);
    CHECK(css_to_xpath(css) == xpath);
  }
}

TEST_CASE("css: XPath string literals take either quote, or concat() for both", "[extract][css]") {
  CHECK(xpath_string_literal("") == "''");
  CHECK(xpath_string_literal("a b") == "'a b'");
  CHECK(xpath_string_literal("it's") == "\"it's\"");
  CHECK(xpath_string_literal("'''") == "\"'''\"");
  CHECK(xpath_string_literal("a'b\"c") == "concat('a', \"'\", 'b\"c')");
  CHECK(xpath_string_literal("''\"") == "concat(\"''\", '\"')");
}

TEST_CASE("css: types, ids, classes and attributes select what CSS does", "[extract][css]") {
  CHECK(ids("p") == Ids{"p1", "p2", "p3", "p4", "p5"});
  CHECK(ids("P") == Ids{"p1", "p2", "p3", "p4", "p5"});
  CHECK(ids("P#p4") == Ids{"p4"});
  CHECK(ids("#P4").empty());  // values match case-sensitively
  CHECK(ids("ul > *") == Ids{"l1", "l2", "l3", "l4", "l5"});
  // As in parsel, a bare * before a pseudo-element includes the element on
  // the left: `ul *::attr(id)` is `ul ::attr(id)`.
  CHECK(ids("ul *") == Ids{"u1", "l1", "l2", "l3", "l4", "l5"});
  CHECK(ids(".a") == Ids{"l1", "l3"});
  CHECK(ids(".b") == Ids{"l3"});
  CHECK(ids(".box.main") == Ids{"d1"});  // two spaces between them in the page
  CHECK(ids(".ma").empty());
  CHECK(ids("[title]") == Ids{"p3"});
  CHECK(ids("[title='hello world']") == Ids{"p3"});
  CHECK(ids("[title~=world]") == Ids{"p3"});
  CHECK(ids("[title~=wor]").empty());
  CHECK(ids("[title^=hel]") == Ids{"p3"});
  CHECK(ids("[title$=orld]") == Ids{"p3"});
  CHECK(ids("[title$=hello]").empty());
  CHECK(ids("[title*=\"lo wo\"]") == Ids{"p3"});
  CHECK(ids("[lang|=en]") == Ids{"l5"});
  CHECK(ids("[lang|=e]").empty());
  CHECK(ids("[data-x='it\\'s \"q\"']") == Ids{"p2"});
  CHECK(ids("[data-x=\"it's \\\"q\\\"\"]") == Ids{"p2"});
}

TEST_CASE("css: combinators select what CSS does", "[extract][css]") {
  CHECK(ids("div p") == Ids{"p1", "p2", "p3", "p4", "p5"});
  CHECK(ids("section p") == Ids{"p5"});
  CHECK(ids("section > p").empty());
  CHECK(ids("section > div > div > p") == Ids{"p5"});
  CHECK(ids("section div p") == Ids{"p5"});
  // Only the nearest div's parent is body for p1..p4; p5's divs have
  // section and div as parents: every candidate is tried.
  CHECK(ids("body > div p") == Ids{"p1", "p2", "p3", "p4"});
  CHECK(ids("section > div p") == Ids{"p5"});
  CHECK(ids("h2 + p") == Ids{"p1"});
  CHECK(ids("p + p") == Ids{"p2"});
  CHECK(ids("h2 ~ p") == Ids{"p1", "p2"});
  CHECK(ids("li + li") == Ids{"l2", "l3", "l4", "l5"});
  CHECK(ids("li.b ~ li") == Ids{"l4", "l5"});
  CHECK(ids("h2 + p ~ ul li") == Ids{"l1", "l2", "l3", "l4", "l5"});
  CHECK(ids("h2 + ul").empty());
  CHECK(ids("h2 ~ ul > li.a + li") == Ids{"l2", "l4"});
  CHECK(ids("#d1 > ul > li:first-child") == Ids{"l1"});
  CHECK(select("h2::attr(id), li.b::attr(id)") == Ids{"h", "l3"});
  CHECK(select("li.b::attr(id), h2::attr(id)") == Ids{"h", "l3"});  // document order, whatever the group's
  CHECK(select("li.b::attr(id), h2::text") == Ids{"Heading", "l3"});
}

TEST_CASE("css: structural pseudo-classes select what CSS does", "[extract][css]") {
  CHECK(ids("li:first-child") == Ids{"l1"});
  CHECK(ids("li:last-child") == Ids{"l5"});
  CHECK(ids("em:only-child") == Ids{"e1"});
  CHECK(ids("li:only-child").empty());
  CHECK(ids("li:nth-child(2)") == Ids{"l2"});
  CHECK(ids("li:nth-child(odd)") == Ids{"l1", "l3", "l5"});
  CHECK(ids("li:nth-child(even)") == Ids{"l2", "l4"});
  CHECK(ids("li:nth-child(n)") == Ids{"l1", "l2", "l3", "l4", "l5"});
  CHECK(ids("li:nth-child(-n+3)") == Ids{"l1", "l2", "l3"});
  CHECK(ids("li:nth-child(-2n+3)") == Ids{"l1", "l3"});
  CHECK(ids("li:nth-child(2n+1)") == Ids{"l1", "l3", "l5"});
  CHECK(ids("li:nth-child( 3 )") == Ids{"l3"});
  CHECK(ids("li:nth-child(3n-1)") == Ids{"l2", "l5"});
  CHECK(ids("li:nth-child(n+4)") == Ids{"l4", "l5"});
  CHECK(ids("li:nth-child(+0n+2)") == Ids{"l2"});
  CHECK(ids("li:nth-last-child(2)") == Ids{"l4"});
  CHECK(ids("li:nth-last-child(odd)") == Ids{"l1", "l3", "l5"});
  CHECK(ids("p:first-of-type") == Ids{"p1", "p3", "p5"});
  CHECK(ids("p:last-of-type") == Ids{"p2", "p4", "p5"});
  CHECK(ids("p:nth-of-type(2)") == Ids{"p2", "p4"});
  CHECK(ids("p:only-of-type") == Ids{"p5"});
  CHECK(ids(":root > body") == Ids{"b"});
  CHECK(ids("p:empty") == Ids{"p5"});
  CHECK(ids("li:not(.a)") == Ids{"l2", "l4", "l5"});
  CHECK(ids("p:not([title])") == Ids{"p1", "p2", "p4", "p5"});
  CHECK(ids("#d2 > :not(p)") == Ids{"a1"});
  CHECK(ids("li:not(*)").empty());
}

TEST_CASE("css: ::text gives own text nodes, ::attr() attribute values", "[extract][css]") {
  CHECK(select("h2::text") == std::vector<std::string>{"Heading"});
  CHECK(select("span::text").empty());  // its text is in the em
  CHECK(select("span ::text") == std::vector<std::string>{"x"});
  CHECK(select("#d2 ::text") == std::vector<std::string>{"three", "link", "four"});
  CHECK(select("#d2 > ::text") == std::vector<std::string>{"three", "link", "four"});
  CHECK(select("a::attr(href)") == std::vector<std::string>{"/x.html"});
  CHECK(select("#d2 ::attr(id)") == std::vector<std::string>{"d2", "p3", "a1", "p4"});
  CHECK(select("h2::text, a::attr(href)") == std::vector<std::string>{"Heading", "/x.html"});
  CHECK(select("p") == std::vector<std::string>{"one", "two", "three", "four"});  // p5 is empty
}

TEST_CASE("css: what is not supported or malformed is a named error", "[extract][css]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"", "CSS selector '' at position 0: empty selector"},
      {"  ", "CSS selector '  ' at position 2: empty selector"},
      {"a:hover", "CSS selector 'a:hover' at position 1: unsupported pseudo-class ':hover'"},
      {"a:has(b)", "CSS selector 'a:has(b)' at position 1: unsupported pseudo-class ':has()'"},
      {"a::before",
       "CSS selector 'a::before' at position 1: unsupported pseudo-element '::before' (supported: ::text, "
       "::attr(name))"},
      {"a::attr", "CSS selector 'a::attr' at position 1: unsupported pseudo-element '::attr' (supported: ::text, "
                  "::attr(name))"},
      {"a::attr(", "CSS selector 'a::attr(' at position 8: expected an attribute name in '::attr()', found the end"},
      {"a::text b", "CSS selector 'a::text b' at position 8: a pseudo-element must end its selector, found 'b'"},
      {"a >", "CSS selector 'a >' at position 3: expected a selector after '>'"},
      {"a > , b", "CSS selector 'a > , b' at position 4: expected a selector after '>'"},
      {"> a", "CSS selector '> a' at position 0: expected a selector, found '>'"},
      {"a,", "CSS selector 'a,' at position 2: expected a selector after ','"},
      {"a)", "CSS selector 'a)' at position 1: unexpected ')'"},
      {"a[", "CSS selector 'a[' at position 2: expected an attribute name, found the end"},
      {"a[x", "CSS selector 'a[x' at position 3: expected an attribute operator (=, ~=, |=, ^=, $=, *=) or ']', "
              "found the end"},
      {"a[x!=y]", "CSS selector 'a[x!=y]' at position 3: expected an attribute operator (=, ~=, |=, ^=, $=, *=) "
                  "or ']', found '!'"},
      {"a[x=", "CSS selector 'a[x=' at position 4: expected an attribute value (an identifier or a quoted string), "
               "found the end"},
      {"a[x='y", "CSS selector 'a[x='y' at position 4: unterminated string"},
      {"a[x=y i]", "CSS selector 'a[x=y i]' at position 6: attribute flags ([a=v i]) are not supported"},
      {"a[x=y", "CSS selector 'a[x=y' at position 5: expected ']', found the end"},
      {"svg|rect", "CSS selector 'svg|rect' at position 3: namespaces (ns|E) are not supported"},
      {"[*|x]", "CSS selector '[*|x]' at position 1: namespaces in attribute selectors are not supported"},
      {"#", "CSS selector '#' at position 1: expected an id after '#', found the end"},
      {".1a", "CSS selector '.1a' at position 1: expected a class name after '.', found '1'"},
      {"*:first-of-type",
       "CSS selector '*:first-of-type' at position 1: ':first-of-type' needs an element type (it is not supported "
       "after '*' or alone)"},
      {"li:nth-child(foo)",
       "CSS selector 'li:nth-child(foo)' at position 13: invalid an+b 'foo' in ':nth-child()' (try odd, even, 3, "
       "2n+1, -n+3)"},
      {"li:nth-child(2", "CSS selector 'li:nth-child(2' at position 13: expected ')' after ':nth-child('"},
      {"li:nth-child(9999999999)",
       "CSS selector 'li:nth-child(9999999999)' at position 13: invalid an+b '9999999999' in ':nth-child()' (try "
       "odd, even, 3, 2n+1, -n+3)"},
      {"p:not(a b)",
       "CSS selector 'p:not(a b)' at position 8: ':not()' takes one compound selector without combinators; "
       "expected ')', found 'b'"},
      {"p:not(:not(a))", "CSS selector 'p:not(:not(a))' at position 6: ':not()' inside ':not()' is not supported"},
      {"p:not(::text)", "CSS selector 'p:not(::text)' at position 6: expected a selector, found ':'"},
      {"a /* x", "CSS selector 'a /* x' at position 2: unterminated comment"},
      {"a\\", "CSS selector 'a\\' at position 1: unexpected '\\'"},
      {"a[x='\\", "CSS selector 'a[x='\\' at position 5: a backslash at the end"},
      {"a:", "CSS selector 'a:' at position 2: expected a pseudo-class name after ':', found the end"},
      {std::string("a\0b", 3), "CSS selector 'a\\0b' at position 1: a NUL character"},
  };
  for (const auto& [css, message] : table) {
    INFO(css);
    try {
      const std::string xpath = css_to_xpath(css);
      FAIL("translated to " << xpath);
    } catch (const CssSelectorError& e) {
      CHECK(std::string(e.what()) == message);
    }
  }
}

TEST_CASE("css: a selector of a thousand compounds translates without recursion", "[extract][css]") {
  std::string css = "div";
  for (int i = 0; i < 1000; ++i) css += " > div";
  const std::string xpath = css_to_xpath(css);
  CHECK(xpath.size() > 10000);
}

}  // namespace actorcrawl
