// One page tried as a crawl would take it, with nothing written: what
// `actorcrawl parse` prints, so a rule can be tried on a page before a
// crawl, or on a page a crawl kept (Scrapy's `scrapy parse`). The page is
// fetched as the crawl would fetch it (its robots.txt obeyed, the
// configuration's user agent, headers, credentials and proxy, redirects
// followed) and the crawl's processor chain runs on it (html_links, extraction rules, external processors).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/config/crawl_config.h"

namespace actorcrawl {

// A selector tried beside the rules: {"css", "h1::text"} or
// {"xpath", "//h1"}; its values are listed as a field with all: true
// would give them.
using TrialSelector = std::pair<std::string, std::string>;

struct PageTrialResult {
  // The page as JSON text (url, final_url, status, content_type, title,
  // description, redirects, links, items, processor_failures, selected),
  // or "" with `error` saying why no page was read: a robots.txt that
  // disallows it, a fetch that failed.
  std::string json;
  std::string error;
};

// `config.seeds` is ignored; `url` is the page. Throws ConfigError for a
// configuration or a selector that cannot be used.
PageTrialResult try_page(const CrawlConfig& config, const std::string& url,
                         const std::vector<TrialSelector>& selectors);

// The same for a page of the crawl database at `db_path`, from its kept
// body (keep_bodies): no request is made, and the database is only read
// (a crawl may be writing it). `url` is the page's requested or final URL.
// An error when the page is not there or its body was not kept.
PageTrialResult try_stored_page(const CrawlConfig& config, const std::string& db_path, const std::string& url,
                                const std::vector<TrialSelector>& selectors);

}  // namespace actorcrawl
