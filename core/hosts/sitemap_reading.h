// One sitemap document read as it streams in (core/sitemap/sitemap_parser.h)
// into what the HostSelector's SitemapLedger takes (SitemapParse): the
// FetchWorker feeds each piece of the body to a SitemapReading the moment it
// arrives, so no body is held, whatever its Content-Encoding inflates to,
// and what came before a reset or a timeout is kept. A parse lane then keeps
// the page URLs in the crawl's scope (LinkScope, through the pipeline's link
// selection), like links; child sitemaps of an index are judged by the walk.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/hosts/sitemap_ledger.h"
#include "core/sitemap/sitemap_scope.h"
#include "core/web/url.h"

namespace actorcrawl {

class SitemapParser;

// The fetch's side of a document: a response, or the reason there was none.
struct SitemapResponse {
  std::int32_t status_code = 0;  // 0: no response
  std::string error;             // why the transfer failed (timeout, dns_failure, ...): "" when it did not
  std::string_view body;         // for read_sitemap(); a streamed reading got its body piece by piece
  std::string_view location;     // a redirect's target, absolute ("" when none or unusable)
};

class SitemapReading {
 public:
  explicit SitemapReading(SitemapScope scope);
  ~SitemapReading();
  SitemapReading(const SitemapReading&) = delete;
  SitemapReading& operator=(const SitemapReading&) = delete;

  // The next piece of the body of a response with `status`: read when the
  // status is 2xx (a redirect's or an error page's body is not). False once
  // nothing more is wanted (not 2xx, or the document ended or failed): the
  // transfer may stop.
  bool feed(int status, std::string_view piece);

  // The document's end. A response that is not 2xx fails as http_<status>
  // (a redirect with a usable Location also names its target:
  // SitemapParse::redirect_to); a transfer that failed before any body is
  // `failure`, one that failed midway is `cut_short` with the entries before
  // it kept. Bytes this reading holds: the parser's, bounded (a few hundred
  // kilobytes), and the entries read so far (at most 50,000).
  SitemapParse finish(const SitemapResponse& response);

 private:
  std::unique_ptr<SitemapParser> parser_;
  SitemapParse out_;
  bool body_began_ = false;
};

// Keeps the page URLs `in_crawl_scope` admits (an index's children are the
// walk's to judge), counting the rest in out_of_scope.
void keep_in_crawl_scope(SitemapParse& parse, const std::function<bool(const Url&)>& in_crawl_scope);

// A whole body read at once: a SitemapReading fed in pieces, then kept in
// the crawl's scope.
SitemapParse read_sitemap(const SitemapScope& scope, const SitemapResponse& response,
                          const std::function<bool(const Url&)>& in_crawl_scope);

}  // namespace actorcrawl
