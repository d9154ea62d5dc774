// CSS selectors as extraction rules write them, translated to XPath 1.0 for
// libxml2, the way Scrapy's parsel (through cssselect) does, for documents
// read by libxml2's HTML parser: that parser lowercases element and
// attribute names, so names in a selector match whatever their case (`DIV`
// is `div`); attribute values match case-sensitively.
//
// The subset (anything else is a CssSelectorError):
//   E  *                      an element by type (ASCII case-insensitive); any element
//   #id  .class               @id equals; the class is one of the whitespace-separated
//                             words of @class
//   [a] [a=v] [a~=v] [a|=v]   has a; equals; one of its words; v or starts with "v-"
//   [a^=v] [a$=v] [a*=v]      starts with; ends with; contains (an empty v matches
//                             nothing, as in CSS); v an identifier or a string in
//                             either quote
//   A B  A > B  A + B  A ~ B  descendant, child, next sibling, later sibling
//   S1, S2                    either (a group)
//   :first-child :last-child :only-child
//   :first-of-type :last-of-type :only-of-type    (not after * : the type is needed)
//   :nth-child(an+b) :nth-last-child(an+b) :nth-of-type(an+b) :nth-last-of-type(an+b)
//                             an+b as CSS writes it: odd, even, 3, n, 2n+1, -n+3, +4n-1
//   :root :empty
//   :not(X)                   X one compound selector without combinators or :not
//   ::text                    parsel's pseudo-element: the element's own text nodes
//                             (children, not deeper descendants)
//   ::attr(name)              parsel's pseudo-element: the attribute node `name`
//   A ::text  A ::attr(n)     as in parsel, a bare pseudo-element after a descendant
//                             combinator includes A itself: `div ::text` is every
//                             text node inside the div, its own and its descendants'
// Pseudo-elements come last, once per selector. Comments (/* */) and CSS
// escapes (\31 , \:) are read as in CSS; namespaces (ns|E), attribute flags
// ([a=v i]), :has(), :is() and Level 4 forms are not supported.
//
// The XPath is built to be cheap on libxml2 2.9, whose node-set merge is
// quadratic when one step runs from many context nodes (cssselect's
// `descendant-or-self::div/descendant-or-self::*/p` takes seconds on a
// page of 20,000 divs). So the subject (the last compound) is selected in
// one pass from the document node and every combinator is a predicate that
// looks up (ancestors: at most libxml2's depth limit of 256) or back
// (siblings):
//   div p          descendant-or-self::p[ancestor::div]
//   ul > li.x      descendant-or-self::li[@class and contains(...)][parent::ul]
//   h2 + p         descendant-or-self::p[preceding-sibling::*[1]/self::h2]
// Where a chain goes on further left, the nearest candidate is enough when
// its own left relation holds for a nearer candidate whenever it holds for
// a farther one (`a b c`: the nearest b has every ancestor a farther b has),
// else every candidate is tried, stopping at the first that holds. Costs
// that still grow with the page: `A ~ B` with conditions on A and
// :nth-*(an+b) with a != 0 count or scan siblings (quadratic in the length
// of one parent's child list); a group whose selectors end in different
// pseudo-elements is a union, merged in time quadratic in its matches.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace actorcrawl {

// A selector this translator cannot read: the message names the selector,
// the byte offset (from 0) where reading stopped and why, e.g.
//   CSS selector 'a:hover' at position 1: unsupported pseudo-class ':hover'
class CssSelectorError : public std::runtime_error {
 public:
  CssSelectorError(std::string_view selector, std::size_t position, const std::string& what);
  std::size_t position() const { return position_; }

 private:
  std::size_t position_;
};

// The XPath 1.0 expression that selects, from the document node, what
// `selector` matches, in document order: elements, or text or attribute
// nodes for ::text and ::attr(). Throws CssSelectorError.
std::string css_to_xpath(std::string_view selector);

// `text` as an XPath 1.0 string literal. XPath has no escapes: text holding
// both quote characters becomes a concat() of pieces.
std::string xpath_string_literal(std::string_view text);

}  // namespace actorcrawl
