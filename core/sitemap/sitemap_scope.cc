#include "core/sitemap/sitemap_scope.h"

#include <string_view>

namespace actorcrawl {

const char* to_string(SitemapDrop drop) {
  switch (drop) {
    case SitemapDrop::invalid_url: return "invalid_url";
    case SitemapDrop::not_http: return "not_http";
    case SitemapDrop::too_long: return "too_long";
    case SitemapDrop::other_host: return "other_host";
    case SitemapDrop::outside_path: return "outside_path";
    case SitemapDrop::over_limit: return "over_limit";
    case SitemapDrop::missing_loc: return "missing_loc";
  }
  return "invalid_url";
}

namespace {

std::string origin_of(const Url& url) { return url.scheme() + "://" + url.host_key(); }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

SitemapScope SitemapScope::of_location(const Url& sitemap) {
  std::string path = sitemap.path();
  path.erase(path.rfind('/') + 1);  // path() starts with '/'
  SitemapScope scope;
  scope.allow(Grant{origin_of(sitemap), std::move(path)});
  return scope;
}

void SitemapScope::allow_host(const Url& url) { allow(Grant{origin_of(url), "/"}); }

void SitemapScope::allow(const SitemapScope& other) {
  for (const auto& grant : other.grants_) allow(grant);
}

void SitemapScope::allow(Grant grant) {
  for (const auto& have : grants_)
    if (have.origin == grant.origin && starts_with(grant.path, have.path)) return;
  // The new grant may cover some already kept.
  std::vector<Grant> kept;
  kept.reserve(grants_.size() + 1);
  for (auto& have : grants_)
    if (!(have.origin == grant.origin && starts_with(have.path, grant.path))) kept.push_back(std::move(have));
  kept.push_back(std::move(grant));
  grants_ = std::move(kept);
}

std::optional<SitemapDrop> SitemapScope::check(const Url& url) const {
  const std::string origin = origin_of(url);
  bool same_origin = false;
  std::string path;
  for (const auto& grant : grants_) {
    if (grant.origin != origin) continue;
    if (!same_origin) path = url.path();
    same_origin = true;
    if (starts_with(path, grant.path)) return std::nullopt;
  }
  return same_origin ? SitemapDrop::outside_path : SitemapDrop::other_host;
}

}  // namespace actorcrawl
