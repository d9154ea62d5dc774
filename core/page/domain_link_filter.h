// The domains profile's link selection: from a page's
// links keep those to other hosts, not excluded (RE2 patterns searched in
// the host name: facebook.com, ads.*, ...), one per target host, the first
// `max_outbound_links` in document order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/page/link_selection.h"

namespace actorcrawl {

class DomainLinkFilter final : public LinkSelector {
 public:
  // A pattern that does not compile is reported through `error` (naming
  // it) and make() returns nullptr.
  // `max_links` caps the links recorded per page (select_links).
  static std::unique_ptr<DomainLinkFilter> make(const std::vector<std::string>& excluded_domains,
                                                std::size_t max_outbound_links, std::string* error,
                                                std::size_t max_links = kAllLinks);
  ~DomainLinkFilter() override;

  bool excluded(const std::string& host) const;

  // all: every link of the page (as select_links gives it); other_hosts and
  // to_crawl: the selected hosts, each as its root URL with the link's
  // scheme ("https://blog.example.com/").
  SelectedLinks select(const Url& page_url, const PageAnalysis& analysis) const override;
  // A host's root page may redirect anywhere not excluded (to www., to https).
  bool follows_redirect_to(const Url& target) const override { return !excluded(target.host()); }

 private:
  DomainLinkFilter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
