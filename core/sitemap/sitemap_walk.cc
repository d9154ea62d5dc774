#include "core/sitemap/sitemap_walk.h"

#include <string_view>
#include <utility>

#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

// Whether a redirect's target names a sitemap document rather than a page:
// "sitemap" in its path, or a sitemap's file name (.xml, .gz, .txt). Sites
// often answer a missing /sitemap.xml with a redirect to their home page;
// following it would request, as a sitemap, a page the crawl fetches as a
// page: the same URL twice.
bool names_a_document(const Url& url) {
  const std::string path = ascii::lowercase(url.path());
  if (path.find("sitemap") != std::string::npos)
    return true;
  for (const std::string_view ext : {".xml", ".gz", ".txt"})
    if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
      return true;
  return false;
}

}  // namespace

SitemapWalk::SitemapWalk(SitemapWalkLimits limits) : limits_(limits) {}

void SitemapWalk::on_robots(const Url& robots_url, const std::vector<std::string>& sitemaps, bool guess_when_none) {
  const std::optional<Url> robots_txt = robots_url.resolve("/robots.txt");
  const std::string robots = robots_txt ? robots_txt->str() : robots_url.str();
  for (const auto& text : sitemaps) {
    const std::optional<Url> url = Url::parse(text);
    if (!url) {
      ++counts_.sitemaps_refused["sitemap_bad_url"];
      continue;
    }
    SitemapScope grant;
    grant.allow_host(robots_url);
    queue(*url, 0, std::move(grant), robots, false);
  }
  if (sitemaps.empty() && guess_when_none) {
    if (const auto guess = robots_url.resolve("/sitemap.xml"))
      queue(*guess, 0, SitemapScope{}, robots, true);
  }
}

bool SitemapWalk::add_sitemap(std::string_view text, SitemapScope grants) {
  const std::optional<Url> url = Url::parse(text);
  if (!url) {
    ++counts_.sitemaps_refused["sitemap_bad_url"];
    return false;
  }
  return queue(*url, 0, std::move(grants), "", false);
}

bool SitemapWalk::queue(const Url& url, int depth, SitemapScope scope, std::string named_by, bool guessed,
                        int redirects) {
  const std::string& key = url.str();
  if (seen_.count(key) != 0) {
    // Still waiting: whoever named it again vouches for it too.
    const auto waiting = waiting_.find(key);
    if (waiting != waiting_.end()) waiting->second.scope.allow(scope);
    ++counts_.sitemaps_refused["sitemap_seen"];
    return false;
  }
  if (depth > limits_.max_depth) {
    ++counts_.sitemaps_refused["sitemap_depth"];
    return false;
  }
  std::size_t& documents = documents_per_host_[url.host_key()];
  if (documents >= limits_.max_documents_per_host) {
    ++counts_.sitemaps_refused["sitemap_host_cap"];
    return false;
  }
  ++documents;
  seen_.insert(key);
  SitemapScope full = SitemapScope::of_location(url);
  full.allow(scope);
  waiting_.emplace(key, Queued{depth, guessed, std::move(named_by), redirects, std::move(full)});
  queue_.push_back(key);
  ++counts_.sitemaps_queued;
  return true;
}

std::optional<SitemapFetch> SitemapWalk::next() {
  if (queue_.empty()) return std::nullopt;
  std::string url = std::move(queue_.front());
  queue_.pop_front();
  auto node = waiting_.extract(url);
  SitemapFetch fetch;
  fetch.host_key = Url::from_canonical(url).host_key();
  fetch.url = std::move(url);
  fetch.depth = node.mapped().depth;
  fetch.guessed = node.mapped().guessed;
  fetch.named_by = std::move(node.mapped().named_by);
  fetch.redirects = node.mapped().redirects;
  fetch.scope = std::move(node.mapped().scope);
  ++in_flight_;
  return fetch;
}

std::vector<SitemapEntry> SitemapWalk::take(const SitemapFetch& fetch, SitemapKind kind,
                                            std::vector<SitemapEntry> entries) {
  std::vector<SitemapEntry> pages;
  if (kind == SitemapKind::index) {
    for (auto& entry : entries)
      queue(Url::from_canonical(std::move(entry.url)), fetch.depth + 1, fetch.scope, fetch.url, false);
    return pages;
  }
  pages.reserve(entries.size());
  for (auto& entry : entries) {
    std::size_t& taken = urls_per_host_[Url::from_canonical(entry.url).host_key()];
    if (taken >= limits_.max_urls_per_host) {
      ++counts_.urls_dropped["sitemap_url_cap"];
      continue;
    }
    ++taken;
    ++counts_.urls_accepted;
    if (entry.lastmod_ms) ++counts_.urls_with_lastmod;
    pages.push_back(std::move(entry));
  }
  return pages;
}

std::vector<SitemapEntry> SitemapWalk::take(const SitemapFetch& fetch, SitemapParser& parser) {
  return take(fetch, parser.kind(), parser.take_entries());
}

void SitemapWalk::finish(const SitemapFetch& fetch, const SitemapReport& report) {
  if (in_flight_ > 0) --in_flight_;
  ++counts_.sitemaps_fetched;
  if (report.error != SitemapError::none) ++counts_.document_errors[to_string(report.error)];
  const bool index = report.kind == SitemapKind::index;
  if (index)
    ++counts_.indexes;
  else if (report.kind != SitemapKind::unknown)
    ++counts_.urlsets;
  if (!index) counts_.urls_found += report.counts.urls_found;
  auto& drops = index ? counts_.sitemaps_refused : counts_.urls_dropped;
  for (int i = 0; i < kSitemapDropCount; ++i)
    if (report.counts.dropped[i] > 0) drops[to_string(static_cast<SitemapDrop>(i))] += report.counts.dropped[i];
}

void SitemapWalk::fetch_failed(const SitemapFetch& fetch, std::string_view reason) {
  if (in_flight_ > 0) --in_flight_;
  ++counts_.sitemaps_failed;
  ++counts_.document_errors[std::string(reason)];
}

bool SitemapWalk::redirected(const SitemapFetch& fetch, std::string_view location) {
  if (in_flight_ > 0) --in_flight_;
  ++counts_.sitemaps_redirected;
  if (fetch.redirects >= limits_.max_redirects) {
    ++counts_.sitemaps_refused["sitemap_redirects"];
    return false;
  }
  const std::optional<Url> target = Url::parse(location);
  if (!target) {
    ++counts_.sitemaps_refused["sitemap_bad_url"];
    return false;
  }
  if (!names_a_document(*target)) {
    ++counts_.sitemaps_refused["sitemap_redirect_to_page"];
    return false;
  }
  // Same depth: a redirect names no new level of the tree. Guessed stays
  // guessed: a /sitemap.xml that leads to a 404 is still no fault.
  return queue(*target, fetch.depth, fetch.scope, fetch.url, fetch.guessed, fetch.redirects + 1);
}

}  // namespace actorcrawl
