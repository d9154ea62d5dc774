#include "core/crawl/crawl_profile.h"

namespace actorcrawl {

const char* to_string(CrawlProfile profile) {
  switch (profile) {
    case CrawlProfile::site: return "site";
    case CrawlProfile::domains: return "domains";
  }
  return "site";
}

std::optional<CrawlProfile> parse_crawl_profile(std::string_view text) {
  for (auto p : {CrawlProfile::site, CrawlProfile::domains})
    if (text == to_string(p))
      return p;
  return std::nullopt;
}

}  // namespace actorcrawl
