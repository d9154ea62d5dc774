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
#include "core/page/link_selection.h"
#include "core/page/once_per_host.h"
#include "core/page/page_processor.h"
#include "core/crawl/records.h"
#include "core/web/http_status.h"
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
  std::string location;                       // a redirect's next hop, resolved
  std::string etag;                           // the response's validators, as received
  std::string last_modified;
  bool not_modified = false;                  // a 304 to the job's validators
};

struct ProcessedPage {
  PageRow row;
  std::vector<DiscoveredLink> to_crawl;
  // A warning for the log, when this page is its host's first cut at
  // max_body_bytes (once per host, so a site of big pages says it once).
  std::string truncation_note;
};

// The page's directives: meta robots from the analysis, then X-Robots-Tag
// for every agent or for `product_token`; either can only restrict.
RobotsDirectives page_directives(const PageAnalysis& analysis, const std::string& x_robots_tag,
                                 const std::string& product_token);

// [{"url": ..., "status": ...}, ...] for the redirect hops; "" for none.
std::string redirect_chain_json(const std::vector<std::string>& urls, const std::vector<std::int32_t>& statuses);

// What to do with a redirect response. The crawler takes each hop itself,
// so every hop passes scope, robots.txt and politeness like any URL.
struct RedirectStep {
  enum class Kind {
    not_redirect,  // a page like any other
    follow,        // fetch `next` (same lease) before the page is recorded
    stop,          // record the redirect as the page: its target is out of scope
    failed,        // a dead letter: `reason` is redirect_loop or too_many_redirects
  };
  Kind kind = Kind::not_redirect;
  CrawlJob next;       // follow: the job with its next hop
  std::string reason;  // failed
  std::string detail;  // failed: for people
};

class PagePipeline {
 public:
  // `product_token`: the name X-Robots-Tag lines for this crawler use;
  // `max_redirects`: hops followed for one URL.
  // `max_body_bytes`: the limit truncated pages were cut at, for the note
  // that says so. `keep_bodies`: each parsed page's row carries its body,
  // compressed (PageRow::body, core/crawl/kept_body.h), for the store.
  PagePipeline(std::shared_ptr<const ProcessorChain> chain, std::shared_ptr<const LinkSelector> links,
               std::string product_token, std::size_t max_redirects = 5, std::int64_t max_body_bytes = 0,
               bool keep_bodies = false);

  // Whether responses are archived (the chain has `warc`): the fetch must
  // then capture the request and response heads.
  bool archives() const { return chain_->archive() != nullptr; }
  // Whether a processor reads the final response's head (FetchedPage::
  // response_head): the fetch must then capture it.
  bool reads_response_heads() const { return chain_->reads_response_heads(); }
  // Hands one response to the archive, if any. Called for every response,
  // before redirect_step: hops and failed redirects are archived too.
  void archive(const HttpExchange& exchange) const;

  // Whether the crawl's scope admits `url` (the profile's link selection,
  // as for a redirect's target): a sitemap's page URLs pass it like links.
  bool admits(const Url& url) const { return links_->follows_redirect_to(url); }

  RedirectStep redirect_step(const CrawlJob& job, std::int32_t status, const std::string& location) const;
  // A redirect that is not followed is recorded with its target as its one
  // link and final_url, and its hop at the end of the chain. A 304 to the
  // job's validators (facts.not_modified) is not parsed: its row says only
  // that the stored page was fetched again and holds (PageRow::not_modified),
  // and it leads to no links (the stored page's were offered when it was
  // first fetched). Every other response's row carries its body's digest.
  ProcessedPage process(const CrawlJob& job, const FetchedPage& page, const FetchFacts& facts) const;

  // The processors' pages and failures so far (ProcessorChain::tallies).
  std::vector<ProcessorTally> processor_tallies() const { return chain_->tallies(); }
  // Not empty once a processor can go on no more: the crawl must stop,
  // with this as its error (ProcessorChain::failed_for_good).
  std::string failed_for_good() const { return chain_->failed_for_good(); }
  // The crawl is stopping: the processors end what they are doing soon
  // (ProcessorChain::interrupt).
  void interrupt() const { chain_->interrupt(); }

 private:
  std::shared_ptr<const ProcessorChain> chain_;
  std::shared_ptr<const LinkSelector> links_;
  std::string product_token_;
  std::size_t max_redirects_;
  std::int64_t max_body_bytes_;
  bool keep_bodies_;
  std::shared_ptr<OncePerHost> truncated_hosts_;  // hosts whose cut pages were told of
};

}  // namespace actorcrawl
