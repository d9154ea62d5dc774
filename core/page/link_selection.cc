#include "core/page/link_selection.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "core/web/url_fingerprint.h"

namespace actorcrawl {

namespace {

// The links already in a LinkList, found by URL: an open-addressing table
// of their places, sized once for every link the list can take (the list's
// buffer moves as it grows, so no view of its URLs can be a key). Hashed
// under the process's secret key (url_fingerprint): a page cannot choose
// URLs that all land on one slot, which would make its cost quadratic in
// its links (max_links_per_page goes up to a million).
class LinkPlaces {
 public:
  LinkPlaces(const LinkList& list, std::size_t capacity) : list_(list) {
    std::size_t size = 16;
    while (size < capacity * 2)
      size *= 2;
    slots_.assign(size, Slot{});
  }

  // Link `url`'s place in the list, or `list.size()` (and remembered there,
  // for the caller to append it) when the list does not have it.
  std::size_t find_or_add(std::string_view url) {
    const std::uint64_t hash = url_fingerprint(url);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.place_plus_one == 0) {
        slot = Slot{hash, list_.size() + 1};
        return list_.size();
      }
      if (slot.hash == hash && list_.url(slot.place_plus_one - 1) == url)
        return slot.place_plus_one - 1;
    }
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t place_plus_one = 0;  // 0: empty
  };
  const LinkList& list_;
  std::vector<Slot> slots_;
};

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
  // A link's text is copied once for `all` (and once more for `to_crawl`),
  // into `all`'s one buffer, not a string a link.
  const std::size_t capacity = std::min(analysis.links.size(), max_links);
  out.all.reserve(capacity, capacity * 64);
  LinkPlaces seen_links(out.all, capacity);
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
    // A list holds at most 4 GiB of URLs (a million links of a few KiB
    // each could pass it): past that, the rest are dropped and counted.
    if (!out.all.fits(url.str().size())) {
      out.links_dropped = analysis.links.size() - i;
      break;
    }
    const std::size_t at = seen_links.find_or_add(url.str());
    if (at == out.all.size())
      out.all.push_back(url.str(), link.nofollow);
    std::string host = url.host_key();
    if (host != own_host && seen_hosts.insert(host).second)
      out.other_hosts.push_back(host);
    if (!analysis.follow_links || link.nofollow)
      continue;
    if (scope == nullptr || scope->check(url) != ScopeVerdict::in_scope)
      continue;
    // Offered once: a link met again is followed already.
    if (!out.all.followed(at)) {
      out.all.set_followed(at);
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
