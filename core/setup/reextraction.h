// Extraction rules and processors run again over the pages a crawl kept
// (`actorcrawl extract`): the edit-and-rerun loop of a scraper, with no
// request made. Each page's items (and its processors' failures) are
// replaced in one transaction, so a run cut short leaves every page either
// as it was or as the new rules make it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/crawl_config.h"
#include "core/page/page_processor.h"
#include "core/crawl/records.h"
#include "core/store/kept_pages.h"

namespace actorcrawl {

struct ReextractOptions {
  std::string db_path;
  // Only this extraction rule's or external processor's items (and its
  // failures) are replaced; the others stay as they are.
  std::optional<std::string> kind;
  // RE2, searched in each page's URL: only the pages it matches. "" all.
  std::string url_pattern;
  // Only the pages with a processor failure recorded: a fixed plugin given
  // the pages it failed on.
  bool failed_only = false;
};

struct ReextractReport {
  std::int64_t pages = 0;               // pages whose processors ran again
  std::int64_t pages_not_matched = 0;   // kept, but not matched by url_pattern
  std::int64_t pages_without_body = 0;  // fetched, body not kept: left as they were
  std::int64_t items_before = 0;        // items those pages held (within `kind`)
  std::int64_t items_after = 0;         // items they hold now
  std::map<std::string, std::int64_t> items_by_kind;  // of items_after
  // Kept bodies that did not decode (core/crawl/kept_body.h's error names):
  // their pages are left as they were.
  std::map<std::string, std::int64_t> unreadable_bodies;
  std::vector<ProcessorFailureCount> failures;  // of this run, by processor and reason
  std::vector<ProcessorTally> processors;       // the chain that ran, and what each took
  // Not empty when a processor could go on no more (an external processor
  // in a crash loop): the run stopped there, the pages after it left as they
  // were. What it says, for the user.
  std::string stopped;
};

// Runs `config`'s processors (but save_pages and warc, which write files)
// over the kept pages of options.db_path. `progress` is called after each
// page with the report so far. Throws ConfigError (a rule, a processor, a
// pattern or a kind that cannot be used), DatabaseInUse (a crawl is
// writing the database) or StoreError.
ReextractReport reextract(const CrawlConfig& config, const ReextractOptions& options,
                          const std::function<void(const ReextractReport&)>& progress = {});

// The page a kept body makes: what the processors read at fetch time.
FetchedPage page_of(const KeptPage& kept, const std::string& body);

}  // namespace actorcrawl
