#include "core/page/link_selection.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace actorcrawl {

namespace {

SelectedLinks select(const Url& page_url, const PageAnalysis& analysis, const LinkScope* scope,
                     const std::vector<std::string>& strip_query_params, std::size_t max_links) {
  SelectedLinks out;
  Url base = page_url;
  if (!analysis.base_href.empty()) {
    if (auto b = page_url.resolve(analysis.base_href))
      base = *b;
  }
  if (!analysis.canonical.empty()) {
    if (auto c = base.resolve(analysis.canonical))
      out.canonical = c->str();
  }
  const std::string own_host = page_url.host_key();
  const UrlBase resolver(base);
  // `all` is reserved for every link it can hold, so it never moves its
  // rows: the map's keys view the URLs kept there, and a link's text is
  // copied once for `all` (and once more for `to_crawl`), not per lookup.
  const std::size_t capacity = std::min(analysis.links.size(), max_links);
  out.all.reserve(capacity);
  std::unordered_map<std::string_view, std::size_t> seen_links;  // URL -> index in out.all
  seen_links.reserve(capacity);
  std::unordered_set<std::string> seen_hosts;
  for (std::size_t i = 0; i < analysis.links.size(); ++i) {
    if (out.all.size() >= max_links) {
      out.links_dropped = analysis.links.size() - i;
      break;
    }
    const auto& link = analysis.links[i];
    auto resolved = resolver.resolve(link.href);
    if (!resolved)
      continue;  // mailto:, malformed, too long: nothing to keep
    Url url = strip_query_params.empty() ? std::move(*resolved) : resolved->without_query_params(strip_query_params);
    // href="" and href="#x" name the base URL: another page under <base
    // href>, else the page itself, which is no link.
    if ((link.href.empty() || link.href.front() == '#') && url.str() == page_url.str())
      continue;
    std::size_t at = out.all.size();
    if (const auto found = seen_links.find(url.str()); found != seen_links.end()) {
      at = found->second;
    } else {
      out.all.push_back(LinkRow{url.str(), link.nofollow});
      seen_links.emplace(out.all.back().url, at);
    }
    std::string host = url.host_key();
    if (host != own_host && seen_hosts.insert(host).second)
      out.other_hosts.push_back(host);
    if (!analysis.follow_links || link.nofollow)
      continue;
    if (scope == nullptr || scope->check(url) != ScopeVerdict::in_scope)
      continue;
    // Offered once: a link met again is followed already.
    if (!out.all[at].followed) {
      out.all[at].followed = true;
      out.to_crawl.push_back(DiscoveredLink{url.str(), std::move(host)});
    }
  }
  return out;
}

}  // namespace

SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis, const LinkScope& scope,
                           const std::vector<std::string>& strip_query_params, std::size_t max_links) {
  return select(page_url, analysis, &scope, strip_query_params, max_links);
}

SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis,
                           const std::vector<std::string>& strip_query_params, std::size_t max_links) {
  return select(page_url, analysis, nullptr, strip_query_params, max_links);
}

}  // namespace actorcrawl
