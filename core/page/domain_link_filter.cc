#include "core/page/domain_link_filter.h"

#include <re2/re2.h>

#include <unordered_set>

namespace actorcrawl {

struct DomainLinkFilter::Impl {
  std::vector<std::unique_ptr<RE2>> patterns;
  std::size_t max_outbound = 10;
  std::size_t max_links = kAllLinks;
};

DomainLinkFilter::DomainLinkFilter() : impl_(std::make_unique<Impl>()) {}
DomainLinkFilter::~DomainLinkFilter() = default;

std::unique_ptr<DomainLinkFilter> DomainLinkFilter::make(const std::vector<std::string>& excluded_domains,
                                                         std::size_t max_outbound_links, std::string* error,
                                                         std::size_t max_links) {
  std::unique_ptr<DomainLinkFilter> filter{new DomainLinkFilter};
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(false);
  for (const auto& p : excluded_domains) {
    auto re = std::make_unique<RE2>(p, options);
    if (!re->ok()) {
      if (error)
        *error = "excluded_domains: invalid regular expression '" + p + "': " + re->error();
      return nullptr;
    }
    filter->impl_->patterns.push_back(std::move(re));
  }
  filter->impl_->max_outbound = max_outbound_links;
  filter->impl_->max_links = max_links;
  return filter;
}

bool DomainLinkFilter::excluded(const std::string& host) const {
  for (const auto& re : impl_->patterns)
    if (RE2::PartialMatch(host, *re))
      return true;
  return false;
}

SelectedLinks DomainLinkFilter::select(const Url& page_url, const PageAnalysis& analysis) const {
  // Everything about the page's links but the choice of targets is the same
  // as in the site profile: start from that, with nothing in scope.
  SelectedLinks out = select_links(page_url, analysis, {}, impl_->max_links);
  out.other_hosts.clear();
  out.to_crawl.clear();
  if (!analysis.follow_links)
    return out;
  const std::string own_host = page_url.host_key();
  std::unordered_set<std::string> chosen;
  Url base = page_url;
  if (!analysis.base_href.empty())
    if (auto b = page_url.resolve(analysis.base_href))
      base = *b;
  // Only the links read (the first max_links): a page's hostile tail is not
  // scanned for targets either.
  const std::size_t readable = analysis.links.size() - out.links_dropped;
  for (std::size_t i = 0; i < readable; ++i) {
    const auto& link = analysis.links[i];
    if (chosen.size() >= impl_->max_outbound)
      break;
    if (link.nofollow)
      continue;
    auto url = base.resolve(link.href);
    if (!url)
      continue;
    std::string host_key = url->host_key();
    if (host_key == own_host || excluded(url->host()) || !chosen.insert(host_key).second)
      continue;
    out.other_hosts.push_back(host_key);
    out.to_crawl.push_back(DiscoveredLink{url->scheme() + "://" + host_key + "/", host_key});
  }
  return out;
}

}  // namespace actorcrawl
