// Pages built to make an HTML parser superlinear: each construct repeats a
// unit that forces some stack walk, list scan or re-parse in a naive tree
// builder or tokenizer (deep nesting at every integration point, misnested
// formatting elements, tables in tables, stray end tags, many or huge
// attributes, character references, comments, CDATA...), seeded so the
// units vary without changing what they exercise.
//
// Used by the linearity test (html_linearity_test.cc), which parses every
// construct at n and 4n bytes and compares the two costs, and by
// bench/micro's BM_ParseAdversarial (ns per byte in docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl::testing {

struct AdversarialConstruct {
  std::string_view name;
  // A whole page of about `bytes` bytes (never less), ending in
  // <a href="/after">, a link every parser must still find.
  std::string (*page)(std::size_t bytes, std::uint32_t seed);
  // Whether the HTML Standard keeps that last link (false where the
  // construct may leave a <select> or <template> open around it).
  bool keeps_last_link = true;
};

// Every construct, in a fixed order.
const std::vector<AdversarialConstruct>& adversarial_constructs();

// The baseline: an ordinary article-like page of about `bytes` bytes
// (paragraphs, links, lists, closed divs), the cost every construct is
// compared with.
std::string plain_page(std::size_t bytes, std::uint32_t seed);

}  // namespace actorcrawl::testing
