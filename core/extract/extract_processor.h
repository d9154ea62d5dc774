// The `extract` page processor: runs the crawl's extraction rules
// (extraction_rules.h) on each HTML page a rule's `urls` pattern matches
// and adds their items to the page's analysis.
//
// Only successful (2xx) HTML pages, as html_links: an error page's content
// describes the error, not the site. The body is decoded to UTF-8 the way
// html_links decodes it (core/web/charset.h) before libxml2 reads it.
//
// Relative values of `url: true` fields resolve against the page's
// <base href> when html_links ran earlier in the chain and found one (it
// fills PageAnalysis::base_href), resolved against the final URL; else
// against the final URL. So `processors: [html_links, extract]` honours
// <base>, and `[extract, html_links]` does not.
//
// A field that could not be evaluated on the page (its XPath stopped at the
// operation limit, say) is null in the item and recorded as a processor
// failure: processor "extract", reason "field_failed", the rule and field
// in the detail. Items a rule read without a value for a required field
// are not kept, and are counted so: reason "item_incomplete", one failure
// per rule and page, the count and a missing field in the detail.
#pragma once

#include <atomic>
#include <memory>

#include "core/page/page_processor.h"
#include "core/extract/extraction_rules.h"

namespace actorcrawl {

class ExtractProcessor final : public PageProcessor {
 public:
  explicit ExtractProcessor(std::shared_ptr<const ExtractionRules> rules);
  const char* name() const override { return "extract"; }
  // 2xx HTML pages whose final URL some rule matches.
  bool takes(const FetchedPage& page) const override;
  void process(const FetchedPage& page, PageAnalysis& analysis) override;
  // Stops an evaluation under way at its next step; later fields are not
  // evaluated (each recorded field_failed).
  void interrupt() override { stop_.store(true, std::memory_order_relaxed); }

 private:
  std::shared_ptr<const ExtractionRules> rules_;
  std::atomic<bool> stop_{false};
};

}  // namespace actorcrawl
