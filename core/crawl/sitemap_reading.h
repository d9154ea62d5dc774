// A parse lane's side of a sitemap: one fetched document read with the
// streaming SitemapParser (core/sitemap/sitemap_parser.h) into what the
// HostSelector's SitemapLedger takes (SitemapParse). Page URLs must also be
// in the crawl's scope (LinkScope, through the pipeline's link selection),
// like links; child sitemaps of an index are judged by the walk instead.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/crawl/sitemap_ledger.h"
#include "core/sitemap/sitemap_scope.h"
#include "core/web/url.h"

namespace actorcrawl {

// The fetch's side of a document: a response, or the reason there was none.
struct SitemapResponse {
  std::int32_t status_code = 0;  // 0: no response
  std::string error;             // why there was no response (timeout, dns_failure, ...)
  std::string_view body;
  std::string_view location;  // a redirect's target, absolute ("" when none or unusable)
};

// `in_crawl_scope` says whether a page URL may be crawled at all. A
// response that is not 2xx fails as http_<status>; a redirect with a
// usable Location also names its target (SitemapParse::redirect_to), which
// the walk queues as a document of its own (docs/sitemaps.md).
SitemapParse read_sitemap(const SitemapScope& scope, const SitemapResponse& response,
                          const std::function<bool(const Url&)>& in_crawl_scope);

}  // namespace actorcrawl
