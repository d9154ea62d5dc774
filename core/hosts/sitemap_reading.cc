#include "core/hosts/sitemap_reading.h"

#include <algorithm>
#include <utility>

#include "core/sitemap/sitemap_parser.h"

namespace actorcrawl {

namespace {

bool is_2xx(int status) { return status >= 200 && status <= 299; }

}  // namespace

SitemapReading::SitemapReading(SitemapScope scope) : parser_(std::make_unique<SitemapParser>(std::move(scope))) {
  // Entries leave the parser as they are read, so a gzip chunk that
  // inflates to thousands of them is never held twice.
  parser_->on_entry([this](SitemapEntry&& entry) {
    out_.links.push_back(SitemapLink{std::move(entry.url), std::string{}, entry.lastmod_ms.value_or(0)});
  });
}

SitemapReading::~SitemapReading() = default;

bool SitemapReading::feed(int status, std::string_view piece) {
  if (!is_2xx(status) || parser_->done())
    return false;
  body_began_ = body_began_ || !piece.empty();
  // In pieces of at most 64 KiB: the parser's memory stays that of one
  // piece, whatever the transfer hands over at once.
  constexpr std::size_t kPiece = 64 * 1024;
  for (std::size_t at = 0; at < piece.size() && !parser_->done(); at += kPiece)
    parser_->feed(piece.substr(at, std::min(kPiece, piece.size() - at)));
  return !parser_->done();
}

SitemapParse SitemapReading::finish(const SitemapResponse& response) {
  // The parser's last entries come out of its finish().
  const bool read_it = is_2xx(response.status_code) && (response.error.empty() || body_began_);
  if (read_it)
    parser_->finish();
  SitemapParse out = std::move(out_);
  out_ = SitemapParse{};
  if (!response.error.empty() && !body_began_) {
    out.links.clear();
    out.failure = response.error;
    return out;
  }
  if (response.error.empty() && !is_2xx(response.status_code)) {
    out.links.clear();
    out.failure = "http_" + std::to_string(response.status_code);
    if (response.status_code >= 300 && response.status_code <= 399)
      out.redirect_to = std::string(response.location);
    return out;
  }
  out.report = parser_->report();
  if (!response.error.empty())
    out.cut_short = response.error;
  return out;
}

void keep_in_crawl_scope(SitemapParse& parse, const std::function<bool(const Url&)>& in_crawl_scope) {
  if (parse.report.kind == SitemapKind::index || !parse.failure.empty())
    return;
  const auto before = parse.links.size();
  parse.links.erase(std::remove_if(parse.links.begin(), parse.links.end(),
                                   [&](const SitemapLink& link) { return !in_crawl_scope(Url::from_canonical(link.url)); }),
                    parse.links.end());
  parse.out_of_scope = before - parse.links.size();
}

SitemapParse read_sitemap(const SitemapScope& scope, const SitemapResponse& response,
                          const std::function<bool(const Url&)>& in_crawl_scope) {
  SitemapReading reading(scope);
  reading.feed(response.status_code, response.body);
  SitemapParse out = reading.finish(response);
  keep_in_crawl_scope(out, in_crawl_scope);
  return out;
}

}  // namespace actorcrawl
