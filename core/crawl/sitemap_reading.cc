#include "core/crawl/sitemap_reading.h"

#include <algorithm>
#include <utility>

#include "core/sitemap/sitemap_parser.h"

namespace actorcrawl {

SitemapParse read_sitemap(const SitemapScope& scope, const SitemapResponse& response,
                          const std::function<bool(const Url&)>& in_crawl_scope) {
  SitemapParse out;
  if (!response.error.empty()) {
    out.failure = response.error;
    return out;
  }
  if (response.status_code < 200 || response.status_code > 299) {
    out.failure = "http_" + std::to_string(response.status_code);
    if (response.status_code >= 300 && response.status_code <= 399)
      out.redirect_to = std::string(response.location);
    return out;
  }
  SitemapParser parser(scope);
  // Entries leave the parser as they are read, so a gzip chunk that
  // inflates to thousands of them is never held twice.
  parser.on_entry([&](SitemapEntry&& entry) {
    out.links.push_back(SitemapLink{std::move(entry.url), std::string{}, entry.lastmod_ms.value_or(0)});
  });
  // Fed in pieces, as it would stream in: the parser's memory stays that of
  // one piece, whatever the document's size.
  constexpr std::size_t kPiece = 64 * 1024;
  for (std::size_t at = 0; at < response.body.size() && !parser.done(); at += kPiece)
    parser.feed(response.body.substr(at, std::min(kPiece, response.body.size() - at)));
  parser.finish();
  out.report = parser.report();
  // Page URLs pass the crawl's scope too (the kind is known only now).
  if (out.report.kind != SitemapKind::index) {
    const auto before = out.links.size();
    out.links.erase(std::remove_if(out.links.begin(), out.links.end(),
                                   [&](const SitemapLink& link) { return !in_crawl_scope(Url::from_canonical(link.url)); }),
                    out.links.end());
    out.out_of_scope = before - out.links.size();
  }
  return out;
}

}  // namespace actorcrawl
