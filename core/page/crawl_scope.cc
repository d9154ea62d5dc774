#include "core/page/crawl_scope.h"

namespace actorcrawl {

const char* to_string(CrawlScope scope) {
  switch (scope) {
    case CrawlScope::domain: return "domain";
    case CrawlScope::host: return "host";
    case CrawlScope::any: return "any";
  }
  return "domain";
}

std::optional<CrawlScope> parse_crawl_scope(std::string_view text) {
  for (const CrawlScope s : {CrawlScope::domain, CrawlScope::host, CrawlScope::any})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

}  // namespace actorcrawl
