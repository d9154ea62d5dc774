// Which discovered URLs a crawl may fetch: the scope (allowed domains), the
// user's exclude patterns and follow patterns. Applied by the Processor before a link is sent
// to the Frontier, so the seen-set only ever holds URLs the crawl could fetch.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/page/crawl_scope.h"
#include "core/web/url.h"

namespace actorcrawl {

enum class ScopeVerdict {
  in_scope,
  out_of_domain,  // host outside the scope or allowed_domains
  excluded,       // matched one of exclude_patterns
  not_followed,   // matched none of follow_patterns
};
const char* to_string(ScopeVerdict v);


class LinkScope {
 public:
  // allowed_domains: a host is within it when it equals an entry or is a
  // subdomain of it ("example.com" admits "www.example.com"); entries may
  // carry a port ("127.0.0.2:8080") to admit only that port. When empty,
  // `scope` alone decides (see CrawlScope).
  // exclude_patterns: RE2 regular expressions searched (unanchored) in the
  // full normalized URL. A pattern that does not compile is reported through
  // `error` (naming the pattern) and make() returns nullptr.
  // follow_patterns: when any is given, an allow list (Scrapy's
  // LinkExtractor(allow=...)): a link is followed only when one of them is
  // found in its full normalized URL; RE2, searched as exclude_patterns are.
  // Checked after the domain and the exclude patterns, so an excluded URL
  // stays excluded. The seeds themselves are fetched whatever they match.
  static std::unique_ptr<LinkScope> make(CrawlScope scope, const std::vector<std::string>& allowed_domains,
                                         const std::vector<std::string>& exclude_patterns,
                                         const std::vector<Url>& seeds,
                                         std::string* error,
                                         const std::vector<std::string>& follow_patterns = {});
  // The default scope (`domain`).
  static std::unique_ptr<LinkScope> make(const std::vector<std::string>& allowed_domains,
                                         const std::vector<std::string>& exclude_patterns,
                                         const std::vector<Url>& seeds, std::string* error) {
    return make(CrawlScope::domain, allowed_domains, exclude_patterns, seeds, error);
  }
  ~LinkScope();

  ScopeVerdict check(const Url& url) const;

 private:
  LinkScope();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
