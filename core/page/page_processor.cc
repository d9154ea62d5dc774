#include "core/page/page_processor.h"

#include "core/page/processor_registry.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iomanip>

#include "core/web/charset.h"
#include "core/web/mime_sniff.h"
#include "core/web/url_fingerprint.h"

namespace actorcrawl {

bool is_html(std::string_view t) {
  return t == "text/html" || t == "application/xhtml+xml";
}

bool is_html_page(const FetchedPage& page) {
  return is_html(page.content_type) || (is_sniffable_type(page.content_type) && sniffs_as_html(page.body));
}

void take_document(HtmlDocument doc, PageAnalysis& a) {
  a.title = std::move(doc.title);
  a.description = std::move(doc.description);
  a.canonical = std::move(doc.canonical);
  a.base_href = std::move(doc.base_href);
  a.follow_links = !doc.meta_nofollow;
  a.noindex = doc.meta_noindex;
  // Links a processor earlier in the chain added (an external processor's)
  // stay, after the document's own.
  if (a.links.empty())
    a.links = std::move(doc.links);
  else
    a.links.insert(a.links.begin(), std::make_move_iterator(doc.links.begin()),
                   std::make_move_iterator(doc.links.end()));
}

namespace {

// Title, description, links: only for successful HTML responses, since an
// error page's links describe the error page, not the site.
class HtmlLinksProcessor final : public PageProcessor {
 public:
  explicit HtmlLinksProcessor(HtmlParser parser) : parser_(parser) {}
  const char* name() const override { return "html_links"; }
  bool takes(const FetchedPage& page) const override {
    return page.status_code >= 200 && page.status_code < 300 && is_html_page(page);
  }
  void process(const FetchedPage& page, PageAnalysis& a) override {
    if (!takes(page))
      return;
    // Both parsers read UTF-8: a page in another charset is converted
    // first, so its title and description are stored as valid UTF-8.
    const std::string charset = sniff_charset(page.body, page.charset);
    std::string converted;
    std::string_view body = page.body;
    // A page that says UTF-8 but is not is repaired the same way (U+FFFD
    // for each bad sequence), so both parsers read only valid UTF-8.
    if (charset != "utf-8" || !is_valid_utf8(page.body)) {
      converted = to_utf8(page.body, charset);
      body = converted;
    }
    take_document(parse_html(body, parser_), a);
  }

 private:
  HtmlParser parser_;
};

// Writes each body under <dir>/<host>/<hash>.<ext>. The file name is
// derived from a hash, never from the URL's path, so no URL can name a file
// outside the directory; the host part keeps only [A-Za-z0-9.-_]. The hash
// is stable_url_hash, not the seen-set's keyed fingerprint: a page fetched
// again by a later run must land on the same file.
class SavePagesProcessor final : public PageProcessor {
 public:
  explicit SavePagesProcessor(std::string dir) : dir_(std::move(dir)) {}
  const char* name() const override { return "save_pages"; }
  bool runs_again_from_store() const override { return false; }
  bool takes(const FetchedPage& page) const override { return !page.body.empty(); }
  void process(const FetchedPage& page, PageAnalysis& a) override {
    if (!takes(page))
      return;
    auto slash = page.final_url.find("://");
    std::string host = page.final_url.substr(slash == std::string::npos ? 0 : slash + 3);
    host = host.substr(0, host.find('/'));
    std::string safe_host;
    for (char c : host)
      safe_host += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
    if (safe_host.empty() || safe_host == "." || safe_host == "..")
      safe_host = "_";
    std::ostringstream name;
    name << std::hex << std::setw(16) << std::setfill('0') << stable_url_hash(page.url)
         << (is_html_page(page) ? ".html" : ".bin");
    std::filesystem::path dir = std::filesystem::path(dir_) / safe_host;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::filesystem::path file = dir / name.str();
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(page.body.data(), static_cast<std::streamsize>(page.body.size()));
    if (out)
      a.saved_path = file.string();
  }

 private:
  std::string dir_;
};

}  // namespace

// The built-ins' factories, registered in processor_registry.cc.
std::shared_ptr<PageProcessor> make_html_links(const ProcessorChain::Options& options) {
  return std::make_shared<HtmlLinksProcessor>(options.html_parser);
}

std::shared_ptr<PageProcessor> make_save_pages(const ProcessorChain::Options& options) {
  return std::make_shared<SavePagesProcessor>(options.save_pages_dir);
}

std::vector<std::string> ProcessorChain::known_names() { return ProcessorRegistry::builtin().names(); }

ProcessorChain ProcessorChain::make(const std::vector<std::string>& names, const Options& options,
                                    std::string* error) {
  return ProcessorRegistry::builtin().make_chain(names, options, error);
}

bool ProcessorChain::reads_response_heads() const {
  for (const auto& p : processors_)
    if (p->reads_response_head())
      return true;
  return false;
}

struct ProcessorChain::Counters {
  explicit Counters(std::size_t n) : pages(n), failed(n) {}
  std::vector<std::atomic<std::int64_t>> pages;
  std::vector<std::atomic<std::int64_t>> failed;
};

ProcessorChain::ProcessorChain(std::vector<std::shared_ptr<PageProcessor>> processors,
                               std::shared_ptr<ResponseArchive> archive)
    : processors_(std::move(processors)),
      archive_(std::move(archive)),
      counters_(std::make_shared<Counters>(processors_.size())) {}

PageAnalysis ProcessorChain::run(const FetchedPage& page) const {
  PageAnalysis a;
  for (std::size_t i = 0; i < processors_.size(); ++i) {
    PageProcessor& p = *processors_[i];
    if (!p.takes(page))
      continue;
    const std::size_t failures_before = a.processor_failures.size();
    p.process(page, a);
    counters_->pages[i].fetch_add(1, std::memory_order_relaxed);
    a.processors_took |= std::uint64_t{1} << i;
    // A processor records one failure or several (extract: one per field);
    // the page counts once.
    if (a.processor_failures.size() > failures_before) {
      counters_->failed[i].fetch_add(1, std::memory_order_relaxed);
      a.processors_failed |= std::uint64_t{1} << i;
    }
  }
  return a;
}

std::vector<ProcessorTally> ProcessorChain::tallies() const {
  std::vector<ProcessorTally> out;
  for (std::size_t i = 0; i < processors_.size(); ++i)
    out.push_back(ProcessorTally{processors_[i]->name(), counters_->pages[i].load(std::memory_order_relaxed),
                                 counters_->failed[i].load(std::memory_order_relaxed)});
  return out;
}

void ProcessorChain::interrupt() const {
  for (const auto& p : processors_)
    p->interrupt();
}

std::string ProcessorChain::failed_for_good() const {
  for (const auto& p : processors_)
    if (std::string why = p->failed_for_good(); !why.empty())
      return why;
  return {};
}

}  // namespace actorcrawl
