// Where the URLs of one sitemap may point (sitemaps.org, "Sitemap file
// location" and "Sitemaps & Cross Submits").
//
// The protocol lets a sitemap list only URLs of its own scheme, host and
// port, under the directory it lives in: /catalog/sitemap.xml may list
// /catalog/a but not /images/b. A host's robots.txt that names a sitemap
// vouches for it, so that sitemap may also list any URL of the robots.txt's
// host, even when the sitemap lives on another host (cross-submission).
// Which grants apply is the caller's decision (SitemapWalk makes it), so a
// scope is a plain list of grants: the policy is testable without a crawl.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/web/url.h"

namespace actorcrawl {

// Why a URL named by a sitemap is not taken. The names are stable
// (metrics.log, the trace); to_string gives them.
enum class SitemapDrop {
  invalid_url,   // not a URL (empty, malformed, no host)
  not_http,      // a URL of another scheme (ftp:, mailto:, ...)
  too_long,      // <loc> (or a text line) past 2,048 characters
  other_host,    // scheme, host or port none of the grants name
  outside_path,  // a granted origin, but not under a granted directory
  over_limit,    // past the 50,000th entry of one document
  missing_loc,   // a <url> or <sitemap> without a <loc>
};
inline constexpr int kSitemapDropCount = 7;
const char* to_string(SitemapDrop drop);

class SitemapScope {
 public:
  // One grant: URLs whose origin ("https://example.com", with a port when
  // not the default) is `origin` and whose path starts with `path`.
  struct Grant {
    std::string origin;
    std::string path;
    friend bool operator==(const Grant& a, const Grant& b) { return a.origin == b.origin && a.path == b.path; }
  };

  // Nothing is in scope.
  SitemapScope() = default;

  // The protocol's rule for a sitemap at `sitemap`: its origin, under its
  // directory (the path up to its last '/'; the query plays no part).
  static SitemapScope of_location(const Url& sitemap);

  // Adds the whole host of `url` (its origin, path "/"): the robots.txt of
  // that host named the sitemap.
  void allow_host(const Url& url);
  // Adds every grant of `other` (an index's grants passed to its children).
  void allow(const SitemapScope& other);
  void allow(Grant grant);

  // Whether `url` is in scope: nothing if so, else other_host or
  // outside_path.
  std::optional<SitemapDrop> check(const Url& url) const;

  const std::vector<Grant>& grants() const { return grants_; }
  friend bool operator==(const SitemapScope& a, const SitemapScope& b) { return a.grants_ == b.grants_; }

 private:
  // At most a few grants (a chain of indexes adds one each), so a vector
  // searched in order; a grant another one already covers is not added.
  std::vector<Grant> grants_;
};

}  // namespace actorcrawl
