// What happens to one fetched page, minus the messaging: the processor
// chain reads it, page-level robots directives (meta robots and the
// X-Robots-Tag header) decide what is kept and followed, link selection
// picks the links, and the result is the page's row for the store and the
// links for the Frontier. The Processor's lanes call this once per page.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/link_selection.h"
#include "core/crawl/page_processor.h"
#include "core/crawl/records.h"
#include "core/web/robots_directives.h"

namespace actorcrawl {

// What the fetch reported beside the page itself.
struct FetchFacts {
  std::int64_t fetch_ms = 0;
  std::int64_t fetched_at_ms = 0;  // Unix epoch milliseconds
  std::int32_t attempts = 1;
  std::vector<std::string> redirect_urls;     // each hop's URL, in order
  std::vector<std::int32_t> redirect_statuses;
  std::string x_robots_tag;                   // the header's value, if any
};

struct ProcessedPage {
  PageRow row;
  std::vector<DiscoveredLink> to_crawl;
};

// The page's directives: meta robots from the analysis, then X-Robots-Tag
// for every agent or for `product_token`; either can only restrict.
RobotsDirectives page_directives(const PageAnalysis& analysis, const std::string& x_robots_tag,
                                 const std::string& product_token);

// [{"url": ..., "status": ...}, ...] for the redirect hops; "" for none.
std::string redirect_chain_json(const std::vector<std::string>& urls, const std::vector<std::int32_t>& statuses);

class PagePipeline {
 public:
  // `product_token`: the name X-Robots-Tag lines for this crawler use.
  PagePipeline(std::shared_ptr<const ProcessorChain> chain, std::shared_ptr<const LinkSelector> links,
               std::string product_token);

  ProcessedPage process(const CrawlJob& job, const FetchedPage& page, const FetchFacts& facts) const;

 private:
  std::shared_ptr<const ProcessorChain> chain_;
  std::shared_ptr<const LinkSelector> links_;
  std::string product_token_;
};

}  // namespace actorcrawl
