// The Processor's plugin chain (content processors): each
// fetched page passes through the configured processors in order, each
// adding to one PageAnalysis. Selected by name in the config:
//   processors: [html_links, save_pages, warc]
// `warc` is no page processor: it names the ResponseArchive every response
// is handed to (Options::archive), pages or not.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/records.h"
#include "core/page/response_archive.h"
#include "core/web/html_document.h"

namespace actorcrawl {

struct FetchedPage {
  std::string url;        // requested, normalized
  std::string final_url;  // after redirects, normalized
  std::int32_t depth = 0;
  std::int32_t status_code = 0;
  std::string content_type;  // media type, lowercased
  std::string charset;
  std::string_view body;
  bool truncated = false;
  // The final response's status line and header lines as received, when the
  // chain asked for them (ProcessorChain::needs_response_head); else "".
  std::string_view response_head;
};

struct PageAnalysis {
  std::string title;
  std::string description;
  std::string canonical;          // as written; resolved by link selection
  std::string base_href;          // as written
  bool follow_links = true;       // false for <meta name=robots nofollow>
  bool noindex = false;           // <meta name=robots noindex>
  std::vector<HtmlLink> links;    // raw hrefs in document order
  std::string saved_path;         // where save_pages wrote the body
  std::vector<ExtractedItem> items;              // extraction rules' and external processors' items
  std::vector<ProcessorFailure> processor_failures;
  // Bit i: the chain's processor i took the page, and failed on it
  // (ProcessorChain::kMaxProcessors bits). Counted where the page is
  // stored, whichever node processed it.
  std::uint64_t processors_took = 0;
  std::uint64_t processors_failed = 0;
};

class PageProcessor {
 public:
  virtual ~PageProcessor() = default;
  virtual const char* name() const = 0;
  // Whether the processor works on this page (the pages its `urls` pattern
  // matches, the types it reads): the chain calls process() only for
  // those, and counts them as the pages it handled.
  virtual bool takes(const FetchedPage& page) const { return true; }
  // Called from several parser lanes at once: safe for concurrent calls.
  virtual void process(const FetchedPage& page, PageAnalysis& analysis) = 0;
  // Whether it runs again over kept bodies (`actorcrawl extract`): a
  // processor that does something besides reading the page (save_pages
  // writes files) does not.
  virtual bool runs_again_from_store() const { return true; }
  // Whether it reads FetchedPage::response_head (the fetch keeps it then).
  virtual bool reads_response_head() const { return false; }
  // Not empty once the processor can process no page any more (an external
  // processor in a crash loop): what happened and what to do, for the
  // user. The crawl then stops, gracefully, with this as its error.
  virtual std::string failed_for_good() const { return {}; }
  // The crawl is stopping: work under way ends soon (an extraction at its
  // next step, a plugin after a short grace), and what comes after is
  // recorded as not processed. Safe from any thread; once.
  virtual void interrupt() {}
};

// What one processor of the chain did over a crawl: the pages it took, and
// how many of them it could not process (a ProcessorFailure of its own).
// For the end summary and metrics.log.
struct ProcessorTally {
  std::string processor;
  std::int64_t pages = 0;
  std::int64_t failed = 0;
};

// What html_links keeps of a parsed document.
void take_document(HtmlDocument doc, PageAnalysis& analysis);

// Whether the crawler parses this media type as HTML.
bool is_html(std::string_view content_type);

// Whether the page is HTML: its type says so, or it has no useful type (none,
// application/octet-stream, text/plain) and its first bytes are HTML by the
// WHATWG MIME Sniffing Standard's patterns (core/web/mime_sniff.h).
bool is_html_page(const FetchedPage& page);

class ProcessorChain {
 public:
  // Processors in one chain at most (one bit each in PageAnalysis).
  static constexpr std::size_t kMaxProcessors = 64;

  struct Options {
    std::string save_pages_dir = "pages";
    HtmlParser html_parser = HtmlParser::fast;  // html_links' parser
    std::shared_ptr<ResponseArchive> archive;   // what `warc` writes to
  };
  ProcessorChain() = default;
  ProcessorChain(std::vector<std::shared_ptr<PageProcessor>> processors, std::shared_ptr<ResponseArchive> archive);

  // Builds the chain from entries of the built-in registry
  // (processor_registry.h). An unknown name is reported in `error` (listing
  // the known ones) and an empty chain returned.
  static ProcessorChain make(const std::vector<std::string>& names, const Options& options,
                             std::string* error);
  static std::vector<std::string> known_names();

  // Runs each processor that takes the page, in order, counting what each
  // took and failed. Safe from several threads at once.
  PageAnalysis run(const FetchedPage& page) const;
  std::size_t size() const { return processors_.size(); }
  bool reads_response_heads() const;
  const std::vector<std::shared_ptr<PageProcessor>>& processors() const { return processors_; }
  // The archive when the chain has `warc`, or nullptr.
  ResponseArchive* archive() const { return archive_.get(); }
  // Each processor's pages and failures so far, in the chain's order.
  std::vector<ProcessorTally> tallies() const;
  // The first processor's failed_for_good(), or "".
  std::string failed_for_good() const;
  // Every processor's interrupt(): the crawl is stopping.
  void interrupt() const;

 private:
  struct Counters;
  std::vector<std::shared_ptr<PageProcessor>> processors_;
  std::shared_ptr<ResponseArchive> archive_;
  // One pair of counters per processor; shared, so a chain may be copied
  // (the copies count together) and stay cheap to move.
  std::shared_ptr<Counters> counters_;
};

}  // namespace actorcrawl
