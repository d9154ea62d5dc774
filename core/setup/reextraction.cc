#include "core/setup/reextraction.h"

#include <re2/re2.h>

#include <algorithm>
#include <memory>

#include "core/crawl/kept_body.h"
#include "core/extract/extraction_rules.h"
#include "core/setup/crawl_setup.h"
#include "core/store/kept_pages.h"

namespace actorcrawl {

namespace {

// Pages read from the database at a time: the read is finished before
// their items are written, so no statement stays open across a write.
constexpr std::size_t kBatchPages = 64;
// The largest body a crawl may keep (max_body_bytes' own limit): a row
// stating more is refused unread.
constexpr std::int64_t kMaxKeptBodyBytes = 1LL << 30;

bool is_rule(const CrawlConfig& config, const std::string& kind) {
  if (config.extract_rules.empty())
    return false;
  try {
    const auto names = ExtractionRules::compile(config.extract_rules)->names();
    return std::find(names.begin(), names.end(), kind) != names.end();
  } catch (const ExtractionRuleError& e) {
    throw ConfigError(e.what());
  }
}

// The processors that run again: the chain but those that write files; with
// a kind, html_links (extract resolves URLs against its <base href>) and
// the one processor that gives the kind's items.
std::vector<std::shared_ptr<PageProcessor>> processors_to_run(const CrawlConfig& config, const ProcessorChain& chain,
                                                              const std::optional<std::string>& kind) {
  const bool rule = kind && is_rule(config, *kind);
  std::vector<std::shared_ptr<PageProcessor>> out;
  bool named = false;  // the kind is one of the processors' names
  for (const auto& p : chain.processors()) {
    if (!p->runs_again_from_store())
      continue;
    const std::string name = p->name();
    named = named || (kind && name == *kind);
    if (!kind || name == "html_links" || name == *kind || (rule && name == "extract"))
      out.push_back(p);
  }
  if (kind && !rule && !named)
    throw ConfigError("--kind '" + *kind + "' is neither an extraction rule nor an external processor of the "
                      "configuration");
  return out;
}

void count_failure(std::vector<ProcessorFailureCount>& counts, const ProcessorFailure& failure) {
  for (auto& c : counts)
    if (c.processor == failure.processor && c.reason == failure.reason) {
      ++c.count;
      return;
    }
  counts.push_back(ProcessorFailureCount{failure.processor, failure.reason, 1});
}

}  // namespace

FetchedPage page_of(const KeptPage& kept, const std::string& body) {
  FetchedPage page;
  page.url = kept.url;
  page.final_url = kept.final_url;
  page.depth = kept.depth;
  page.status_code = kept.status_code;
  page.content_type = kept.content_type;
  page.charset = kept.charset;
  page.body = body;
  page.truncated = kept.truncated;
  return page;
}

ReextractReport reextract(const CrawlConfig& config, const ReextractOptions& options,
                          const std::function<void(const ReextractReport&)>& progress) {
  std::unique_ptr<RE2> urls;
  if (!options.url_pattern.empty()) {
    urls = std::make_unique<RE2>(options.url_pattern, RE2::Quiet);
    if (!urls->ok())
      throw ConfigError("--urls '" + options.url_pattern + "' is not an RE2 pattern: " + urls->error());
  }
  const ProcessorChain full = processor_chain(config, ChainUse::run);
  const ProcessorChain chain(processors_to_run(config, full, options.kind), nullptr);

  KeptPages store(options.db_path, KeptPages::Access::rewrite, config.bodies_dir);
  ReextractReport report;
  report.pages_without_body = store.pages_without_body();
  ItemsReplaced which{options.kind, {}};
  std::int64_t after = 0;
  while (report.stopped.empty()) {
    const std::vector<KeptPage> batch = store.next_batch(after, kBatchPages, options.failed_only);
    if (batch.empty())
      break;
    for (const KeptPage& kept : batch) {
      after = kept.page_id;
      if (urls && !RE2::PartialMatch(kept.url, *urls)) {
        ++report.pages_not_matched;
        continue;
      }
      KeptBodyError why = KeptBodyError::none;
      const auto body = open_kept_body(kept.body, kMaxKeptBodyBytes, &why);
      if (!body) {
        ++report.unreadable_bodies[to_string(why)];
        continue;
      }
      PageAnalysis analysis = chain.run(page_of(kept, *body));
      // A processor that can go on no more (a plugin in a crash loop) ends
      // the run here, as it ends a crawl: this page and the rest stay as
      // they were, rather than each losing that processor's items.
      if (std::string why = chain.failed_for_good(); !why.empty()) {
        report.stopped = std::move(why);
        break;
      }
      std::vector<ExtractedItem> items;
      for (auto& item : analysis.items)
        if (which.covers(item))
          items.push_back(std::move(item));
      std::vector<ProcessorFailure> failures;
      // An external processor that could not process the page keeps the
      // items its earlier run gave it; a rule that found no value does not
      // (that is the rule's answer).
      which.keep_kinds.clear();
      for (const auto& failure : analysis.processor_failures)
        if (failure.processor != "extract")
          which.keep_kinds.push_back(failure.processor);
      for (auto& failure : analysis.processor_failures)
        if (which.covers(failure)) {
          count_failure(report.failures, failure);
          failures.push_back(std::move(failure));
        }
      report.items_before += store.replace(kept.page_id, which, items, failures);
      report.items_after += static_cast<std::int64_t>(items.size());
      for (const auto& item : items)
        ++report.items_by_kind[item.kind];
      ++report.pages;
      if (progress)
        progress(report);
    }
  }
  report.processors = chain.tallies();
  return report;
}

}  // namespace actorcrawl
