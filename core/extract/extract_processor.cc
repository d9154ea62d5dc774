#include "core/extract/extract_processor.h"

#include <optional>
#include <string>
#include <utility>

#include "core/web/charset.h"
#include "core/web/url.h"

namespace actorcrawl {

ExtractProcessor::ExtractProcessor(std::shared_ptr<const ExtractionRules> rules) : rules_(std::move(rules)) {}

bool ExtractProcessor::takes(const FetchedPage& page) const {
  return rules_ && page.status_code >= 200 && page.status_code < 300 && rules_->matches(page.final_url) &&
         is_html_page(page);
}

void ExtractProcessor::process(const FetchedPage& page, PageAnalysis& analysis) {
  if (!takes(page))
    return;
  // Decoded as html_links decodes it, so both read the same text. UTF-8
  // that is valid costs a validation and a copy, small beside the tree
  // libxml2 builds.
  const std::string body = to_utf8(page.body, sniff_charset(page.body, page.charset));
  std::string base_url = page.final_url;
  if (!analysis.base_href.empty()) {
    if (const auto final_url = Url::parse(page.final_url)) {
      if (const auto base = final_url->resolve(analysis.base_href))
        base_url = base->str();
    }
  }
  std::vector<std::string> field_errors;
  std::vector<std::string> incomplete;
  for (auto& item : rules_->extract(page.final_url, base_url, body, &field_errors, &stop_, &incomplete))
    analysis.items.push_back(std::move(item));
  for (auto& detail : field_errors)
    analysis.processor_failures.push_back(ProcessorFailure{"extract", "field_failed", std::move(detail)});
  for (auto& detail : incomplete)
    analysis.processor_failures.push_back(ProcessorFailure{"extract", "item_incomplete", std::move(detail)});
}

}  // namespace actorcrawl
