#include "core/web/html_document.h"

namespace actorcrawl {

const char* to_string(HtmlParser parser) { return parser == HtmlParser::fast ? "fast" : "html5"; }

std::optional<HtmlParser> html_parser_from_name(std::string_view name) {
  if (name == "fast") return HtmlParser::fast;
  if (name == "html5") return HtmlParser::html5;
  return std::nullopt;
}

HtmlDocument parse_html(std::string_view body, HtmlParser parser) {
  return parser == HtmlParser::fast ? parse_html_fast(body) : parse_html_html5(body);
}

}  // namespace actorcrawl
