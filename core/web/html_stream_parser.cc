#include "core/web/html_document.h"

namespace actorcrawl {

HtmlDocument parse_html_fast(std::string_view body) { return parse_html_html5(body); }

}  // namespace actorcrawl
