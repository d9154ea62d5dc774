// CrawlStore: one record_page per fetched page (~27 unique links, a few
// other hosts), add_frontier per page's newly discovered links, and the
// periodic flush() that commits a batch. Each benchmark run writes a fresh
// database in the temporary directory and deletes it afterwards.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/store/crawl_store.h"
#include "core/web/html_document.h"
#include "core/page/link_scope.h"
#include "core/page/link_selection.h"
#include "core/page/page_processor.h"
#include "core/web/url.h"

namespace {

using namespace actorcrawl;

// A database file that is removed (with its WAL and shared-memory files)
// when it goes out of scope.
class TempDatabase {
 public:
  TempDatabase() {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("actorcrawl-micro-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db"))
                .string();
    remove();
  }
  ~TempDatabase() { remove(); }
  const std::string& path() const { return path_; }

 private:
  void remove() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(path_ + suffix, ec);
  }
  std::string path_;
};

// Page rows built from the HTML corpus the way the Processor builds them.
const std::vector<PageRow>& page_rows() {
  static const std::vector<PageRow> rows = [] {
    std::string error;
    auto scope = LinkScope::make({}, {}, {*Url::parse("https://www.example.com/")}, &error);
    std::vector<PageRow> out;
    for (const auto& p : bench::pages()) {
      const Url url = *Url::parse(p.url);
      HtmlDocument doc = parse_html(p.body);
      PageAnalysis a;
      a.canonical = doc.canonical;
      a.links = doc.links;
      SelectedLinks sel = select_links(url, a, *scope, {});
      PageRow row;
      row.url = p.url;
      row.host_key = url.host_key();
      row.depth = 2;
      row.status_code = 200;
      row.content_type = "text/html";
      row.title = doc.title;
      row.description = doc.description;
      row.bytes = static_cast<std::int64_t>(p.body.size());
      row.fetch_ms = 120;
      row.fetched_at_ms = 1700000000000;
      row.final_url = p.url;
      row.canonical_url = sel.canonical;
      row.links = std::move(sel.all);
      row.link_host_keys = std::move(sel.other_hosts);
      out.push_back(std::move(row));
    }
    return out;
  }();
  return rows;
}

// The page of iteration n: a corpus row under a URL never recorded before,
// as in a crawl, where almost every record_page inserts a new page.
PageRow& next_page(PageRow& scratch, std::size_t n) {
  const auto& rows = page_rows();
  const PageRow& base = rows[n % rows.size()];
  scratch = base;
  scratch.url = base.url + "?n=" + std::to_string(n);
  return scratch;
}

std::size_t links_per_page() {
  std::size_t links = 0;
  for (const auto& r : page_rows())
    links += r.links.size();
  return links / page_rows().size();
}

// Arg: batch_ops. 512 is the default (the store commits every 512 calls and
// on the owner's 250 ms flush); 1 commits every page.
void BM_StoreRecordPage(benchmark::State& state) {
  TempDatabase file;
  CrawlStore store(file.path(), static_cast<std::size_t>(state.range(0)));
  // As in a crawl: a run is open (it drops idx_links_to until its end).
  store.begin_run(1700000000000, "[]");
  PageRow page;
  std::size_t n = 0, links = 0;
  for (auto _ : state) {
    next_page(page, n++);
    links += page.links.size();
    store.record_page(page);
  }
  store.flush();
  state.SetItemsProcessed(state.iterations());  // pages
  state.counters["links"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
  state.counters["links_per_page"] = static_cast<double>(links_per_page());
}
BENCHMARK(BM_StoreRecordPage)->Arg(512)->Arg(1)->Unit(benchmark::kMicrosecond);

// One call per page: the newly discovered links of that page.
void BM_StoreAddFrontier(benchmark::State& state) {
  TempDatabase file;
  CrawlStore store(file.path());
  const auto& rows = page_rows();
  std::vector<FrontierEntry> entries;
  std::int64_t seq = 1;
  std::size_t n = 0, added = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const PageRow& page = rows[n % rows.size()];
    entries.clear();
    for (const auto& link : page.links.rows())
      entries.push_back(FrontierEntry{
          seq++, link.url + (link.url.find('?') == std::string::npos ? "?n=" : "&n=") + std::to_string(n), 3,
          page.url});
    ++n;
    state.ResumeTiming();
    store.add_frontier(entries);
    added += entries.size();
  }
  store.flush();
  state.SetItemsProcessed(static_cast<std::int64_t>(added));  // frontier rows
  state.counters["calls"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StoreAddFrontier)->Unit(benchmark::kMicrosecond);

// The cost of committing a batch of Arg pages (what the storage actor's
// 250 ms timer pays). Only flush() is timed.
void BM_StoreFlush(benchmark::State& state) {
  TempDatabase file;
  CrawlStore store(file.path(), 1u << 30);
  store.begin_run(1700000000000, "[]");
  const auto batch = static_cast<std::size_t>(state.range(0));
  PageRow page;
  std::size_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t k = 0; k < batch; ++k)
      store.record_page(next_page(page, n++));
    state.ResumeTiming();
    store.flush();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));  // pages committed
}
BENCHMARK(BM_StoreFlush)->Arg(32)->Unit(benchmark::kMicrosecond);

}  // namespace
