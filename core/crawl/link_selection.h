// Turns a page's raw hrefs into what the crawl keeps: every outgoing link
// resolved and normalized (for the links table), the hosts it points to (for
// the domain graph's edges), and the links the Frontier should consider
// (in scope, followable, with ignored query parameters stripped).
#pragma once

#include <string>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/store/crawl_store.h"
#include "core/crawl/link_scope.h"
#include "core/crawl/page_processor.h"
#include "core/web/url.h"

namespace actorcrawl {

struct SelectedLinks {
  std::vector<LinkRow> all;                // unique, document order
  std::vector<std::string> other_hosts;    // distinct host keys != page's
  std::vector<DiscoveredLink> to_crawl;    // unique, document order
  std::string canonical;                   // resolved, or empty
};

// `page_url` is the URL the body came from (after redirects): relative links
// resolve against it, or against <base href> when the page has one.
SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis, const LinkScope& scope,
                           const std::vector<std::string>& strip_query_params);
// The same with no scope at all: every link recorded, none to crawl.
SelectedLinks select_links(const Url& page_url, const PageAnalysis& analysis,
                           const std::vector<std::string>& strip_query_params);

}  // namespace actorcrawl
