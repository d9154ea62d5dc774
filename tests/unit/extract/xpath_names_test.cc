// The function calls and variables of an XPath, read from its text in one
// pass (XPath 1.0's lexical rules), and the bounds compile_xpath puts on an
// expression before libxml2 sees it.
#include "core/extract/xpath_names.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/extract/libxml_html.h"
#include "tests/unit/web/cpu_cost.h"

namespace actorcrawl {
namespace {

using Names = std::vector<std::string>;

Names functions(const std::string& x) { return xpath_names(x).functions; }

std::string compile_error(const std::string& x) {
  try {
    compile_xpath(x);
  } catch (const XPathCompileError& e) {
    return e.what();
  }
  return "(compiled)";
}

}  // namespace

TEST_CASE("xpath names: function calls, not node types, axes or operators", "[extract][xpath]") {
  CHECK(functions("count(//a)") == Names{"count"});
  CHECK(functions("//a[contains(@href, 'x')]/text()") == Names{"contains"});
  CHECK(functions("normalize-space( string(//h1) )") == Names{"normalize-space", "string"});
  CHECK(functions("//comment() | //node() | //processing-instruction('x') | //text ()").empty());
  CHECK(functions("child::a/descendant-or-self :: b/@c").empty());
  // After an operand, and/or/div/mod are operators even before '('.
  CHECK(functions("1 div (2) and (3) or (4) mod (5)").empty());
  CHECK(functions("//div[1]and(//p)") .empty());
  // A name test '*' and a multiplication.
  CHECK(functions("count(*) * 2 * count(//a)") == Names{"count", "count"});
  // Literals hide what looks like calls; names may hold - and .
  CHECK(functions("concat('f(', \"g(\", x.y-z(1))") == Names{"concat", "x.y-z"});
  CHECK(functions("re:test(., 'a')") == Names{"re:test"});
  CHECK(functions("//ns:a[lower-case(.)]") == Names{"lower-case"});
  CHECK(functions("//a[@b][1][last()]") == Names{"last"});
  CHECK(xpath_names("$x + $ns:y").variables == Names{"x", "ns:y"});
  CHECK(xpath_names("'$x'").variables.empty());
}

TEST_CASE("xpath names: nesting of parentheses and brackets outside literals", "[extract][xpath]") {
  CHECK(xpath_names("//a").max_nesting == 0);
  CHECK(xpath_names("//a[b[c(d)]]").max_nesting == 3);
  CHECK(xpath_names("'((((' and ((1))").max_nesting == 2);
}

TEST_CASE("compile_xpath: functions and variables refused by name, long and deep expressions by their bound",
          "[extract][xpath]") {
  CHECK(compile_error("count(//a)") == "(compiled)");
  CHECK(compile_error("lower-case(//h1)") == "unknown function 'lower-case()'");
  CHECK(compile_error("re:test(., 'a')") == "unknown function 're:test()' (no namespace prefixes are bound)");
  CHECK(compile_error("//a[$x]") == "variables are not supported ($x)");
  CHECK(compile_error(std::string(kMaxXPathNesting + 1, '(') + "1" + std::string(kMaxXPathNesting + 1, ')')) ==
        "the expression nests 65 parentheses or brackets deep, over the limit of 64");
  std::string long_chain = "1";
  while (long_chain.size() <= kMaxXPathBytes) long_chain += "+1";
  CHECK(compile_error(long_chain) == "the expression is " + std::to_string(long_chain.size()) +
                                         " bytes long, over the limit of 65536");
}

// The check used libxml2's debug dump of the compiled expression, which
// grows about 4x per two binary operators: `1+1+...+1` of 20 terms (41
// characters) took 672 MB and 7.7 s. Now its cost is linear in the text:
// 24 terms compile at once, and a chain 16 times longer costs about 16
// times as much to check (against a plain path of the same lengths).
TEST_CASE("compile_xpath: a chain of operators costs time linear in its length", "[extract][xpath][linear]") {
  const auto chain = [](std::size_t terms) {
    std::string x = "1";
    for (std::size_t i = 1; i < terms; ++i) x += "+1";
    return x;
  };
  CHECK(compile_error(chain(24)) == "(compiled)");
  const auto path = [](std::size_t steps) {
    std::string x = "/a";
    for (std::size_t i = 1; i < steps; ++i) x += "/a";
    return x;
  };
  const auto cost = [](const std::string& x) {
    return testing::least_cpu_cost([&] { compile_xpath(x); });
  };
  // 1,000 and 16,000 terms: 2 KB and 32 KB, under the length bound.
  const double plain = testing::cost_growth(cost, path(1000), path(16000)).ratio;
  const double growth = testing::cost_growth(cost, chain(1000), chain(16000), plain).ratio;
  WARN("from 1,000 to 16,000 terms, a chain of additions took " << growth / plain << " times the growth of a path to check");
  CHECK(growth / plain <= testing::kMaxRelativeGrowth);
}

}  // namespace actorcrawl
