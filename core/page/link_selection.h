// Turns a page's raw hrefs into what the crawl keeps: every outgoing link
// resolved and normalized (for the links table), the hosts it points to (for
// the domain graph's edges), and the links the Frontier should consider
// (in scope, followable, with ignored query parameters stripped).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"
#include "core/page/link_scope.h"
#include "core/page/page_processor.h"
#include "core/web/url.h"

namespace actorcrawl {

struct SelectedLinks {
  LinkList all;                            // unique, document order
  std::vector<std::string> other_hosts;    // distinct host keys != page's
  std::vector<DiscoveredLink> to_crawl;    // unique, document order
  std::string canonical;                   // resolved, or empty
  // hrefs left unread once `all` reached max_links (a hostile page with
  // 80,000 links adds max_links rows, not 80,000).
  std::size_t links_dropped = 0;
};

// No cap on the links read from a page.
constexpr std::size_t kAllLinks = static_cast<std::size_t>(-1);

// `page_url` is the URL the body came from (after redirects): relative links
// resolve against it, or against <base href> when the page has one.
// At most `max_links` distinct links are read, in document order; the
// hrefs after them are only counted.
SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis, const LinkScope& scope,
                           const std::vector<std::string>& strip_query_params, std::size_t max_links = kAllLinks);
// The same with no scope at all: every link recorded, none to crawl.
SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis,
                           const std::vector<std::string>& strip_query_params, std::size_t max_links = kAllLinks);

// A profile's link selection: what the Processor calls for every page.
class LinkSelector {
 public:
  virtual ~LinkSelector() = default;
  virtual SelectedLinks select(const Url& page_url, const PageAnalysis& analysis) const = 0;
  // Whether a redirect to `target` is followed: the crawl's scope and
  // exclude patterns apply to every hop as to any link; follow patterns do
  // not (they choose which links to follow, and a hop is the link it
  // answers for, moved).
  virtual bool follows_redirect_to(const Url& target) const = 0;
};

// The site profile's: select_links() within a scope.
class SiteLinkSelector final : public LinkSelector {
 public:
  SiteLinkSelector(std::shared_ptr<const LinkScope> scope, std::vector<std::string> strip_query_params,
                   std::size_t max_links = kAllLinks)
      : scope_(std::move(scope)), strip_query_params_(std::move(strip_query_params)), max_links_(max_links) {}
  SelectedLinks select(const Url& page_url, const PageAnalysis& analysis) const override {
    return select_links(page_url, analysis, *scope_, strip_query_params_, max_links_);
  }
  bool follows_redirect_to(const Url& target) const override {
    const ScopeVerdict verdict = scope_->check(target);
    return verdict == ScopeVerdict::in_scope || verdict == ScopeVerdict::not_followed;
  }

 private:
  std::shared_ptr<const LinkScope> scope_;
  std::vector<std::string> strip_query_params_;
  std::size_t max_links_;
};

}  // namespace actorcrawl
