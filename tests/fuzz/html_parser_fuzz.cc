// libFuzzer target for the two HTML parsers (core/web/html_document.h): any
// bytes, made valid UTF-8 as the page processor makes them, must parse with
// both, and the streaming parser must agree with gumbo's tree
// (tests/unit/web/html_comparison.h: the links as the crawler uses them, and
// every other field), unless the page falls under an accepted divergence.
// Beyond agreement: the text caps hold and all text is valid UTF-8.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/web/charset.h"
#include "core/web/html_document.h"
#include "core/web/html_fields.h"
#include "tests/unit/web/html_comparison.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail, const std::string& page) {
  std::fprintf(stderr, "html_parser_fuzz: %s\n  %s\n  page (%zu bytes): %.400s\n", what, detail.c_str(),
               page.size(), page.c_str());
  std::abort();
}

void check_text(const actorcrawl::HtmlDocument& doc, const std::string& page) {
  using actorcrawl::HtmlFieldCollector;
  if (doc.title.size() > HtmlFieldCollector::kMaxTitleBytes) fail("title over its cap", doc.title, page);
  if (doc.description.size() > HtmlFieldCollector::kMaxDescriptionBytes)
    fail("description over its cap", doc.description, page);
  for (const std::string* s : {&doc.title, &doc.description, &doc.base_href, &doc.canonical})
    if (!actorcrawl::is_valid_utf8(*s)) fail("text is not UTF-8", *s, page);
  for (const auto& link : doc.links)
    if (!actorcrawl::is_valid_utf8(link.href)) fail("href is not UTF-8", link.href, page);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string page = actorcrawl::to_utf8(std::string_view(reinterpret_cast<const char*>(data), size), "utf-8");
  const auto fast = actorcrawl::parse_html_fast(page);
  const auto html5 = actorcrawl::parse_html_html5(page);
  check_text(fast, page);
  check_text(html5, page);
  if (!actorcrawl::testing::accepted_divergence(page).empty()) return 0;
  const std::string difference = actorcrawl::testing::compare_parsers(fast, html5, page);
  if (!difference.empty()) fail("the parsers differ", difference, page);
  return 0;
}
