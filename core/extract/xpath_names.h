// The function calls and variable references of an XPath 1.0 expression,
// read from its text by the lexical rules of XPath 1.0 (section 3.7), in
// one pass: what compile_xpath checks against the functions it knows. A
// compiled expression's structure is private to libxml2; its debug dump
// was the one public view, and it grows about 4x per two binary operators
// (`1+1+...+1` of 41 characters dumped 672 MB), so the text is read
// instead. Also how deeply the expression's parentheses and brackets nest.
// For an expression libxml2 has compiled (or will refuse anyway): it does
// not check the grammar.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

struct XPathNames {
  std::vector<std::string> functions;  // as written, prefix included ("re:test")
  std::vector<std::string> variables;  // without the '$'
  std::size_t max_nesting = 0;         // of ( and [, outside literals
};

XPathNames xpath_names(std::string_view expression);

}  // namespace actorcrawl
