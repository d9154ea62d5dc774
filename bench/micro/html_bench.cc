// Link extraction, from raw bytes to the links the frontier is offered.
//
// The gumbo benchmarks are the floor: BM_GumboParse is gumbo with its
// default options (it records every parse error), BM_GumboParseNoErrors is
// gumbo as parse_html calls it (max_errors = 0). The difference between
// BM_ParseHtml/html5:1 and BM_GumboParseNoErrors is what the html5 parser
// adds (nesting pre-scan, tree walk, copies); BM_ParseHtml/html5:0 is the
// default, streaming parser. BM_ParseHtmlSelectLinks adds link
// resolution, normalization, scope checks and de-duplication.
#include <benchmark/benchmark.h>
#include <gumbo.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/web/charset.h"
#include "core/web/html_document.h"
#include "core/page/link_scope.h"
#include "core/page/link_selection.h"
#include "core/page/page_processor.h"
#include "core/web/url.h"

namespace {

using namespace actorcrawl;

// The set-up a site crawl of www.example.com would have.
struct Selection {
  std::unique_ptr<LinkScope> scope;
  std::vector<std::string> strip = {"utm_*", "sessionid", "fbclid"};
  std::vector<Url> page_urls;

  Selection() {
    std::string error;
    scope = LinkScope::make({}, {"/login", "\\?replytocom=", "/print/"},
                            {*Url::parse("https://www.example.com/")}, &error);
    for (const auto& p : bench::pages())
      page_urls.push_back(*Url::parse(p.url));
  }
};

const Selection& selection() {
  static const Selection s;
  return s;
}

PageAnalysis analysis_of(HtmlDocument doc) {
  PageAnalysis a;
  take_document(std::move(doc), a);
  return a;
}

void set_page_throughput(benchmark::State& state, std::size_t bytes) {
  state.SetItemsProcessed(state.iterations());  // pages
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

void BM_GumboParse(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& body = pages[i++ % pages.size()].body;
    GumboOutput* out = gumbo_parse(body.c_str());
    benchmark::DoNotOptimize(out);
    gumbo_destroy_output(&kGumboDefaultOptions, out);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
}
BENCHMARK(BM_GumboParse);

void BM_GumboParseNoErrors(benchmark::State& state) {
  const auto& pages = bench::pages();
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& body = pages[i++ % pages.size()].body;
    GumboOutput* out = gumbo_parse_with_options(&options, body.data(), body.size());
    benchmark::DoNotOptimize(out);
    gumbo_destroy_output(&options, out);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
}
BENCHMARK(BM_GumboParseNoErrors);

void BM_ParseHtml(benchmark::State& state) {
  const HtmlParser parser = state.range(0) == 0 ? HtmlParser::fast : HtmlParser::html5;
  const auto& pages = bench::pages();
  std::size_t i = 0, bytes = 0, links = 0;
  for (auto _ : state) {
    const std::string& body = pages[i++ % pages.size()].body;
    HtmlDocument doc = parse_html(body, parser);
    links += doc.links.size();
    benchmark::DoNotOptimize(doc);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
  state.counters["links"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
// html5:0 is the fast (streaming) parser, the default; html5:1 gumbo's tree.
BENCHMARK(BM_ParseHtml)->ArgName("html5")->Arg(0)->Arg(1);

// Link selection alone, on pages parsed beforehand.
void BM_SelectLinks(benchmark::State& state) {
  const auto& pages = bench::pages();
  const Selection& sel = selection();
  std::vector<PageAnalysis> analyses;
  for (const auto& p : pages)
    analyses.push_back(analysis_of(parse_html(p.body)));
  std::size_t i = 0, links = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % pages.size();
    SelectedLinks out = select_links(sel.page_urls[k], analyses[k], *sel.scope, sel.strip);
    links += analyses[k].links.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(links));  // raw hrefs
  state.counters["pages"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SelectLinks);

void BM_ParseHtmlSelectLinks(benchmark::State& state) {
  const auto& pages = bench::pages();
  const Selection& sel = selection();
  std::size_t i = 0, bytes = 0, links = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % pages.size();
    const std::string& body = pages[k].body;
    PageAnalysis a = analysis_of(parse_html(body));
    SelectedLinks out = select_links(sel.page_urls[k], a, *sel.scope, sel.strip);
    links += out.to_crawl.size();
    benchmark::DoNotOptimize(out);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
  state.counters["to_crawl"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseHtmlSelectLinks);

// The Processor's html_links plugin: charset sniffing, then parse_html.
void BM_ProcessorChainHtmlLinks(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::string error;
  const ProcessorChain chain = ProcessorChain::make({"html_links"}, {}, &error);
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const auto& p = pages[i++ % pages.size()];
    FetchedPage page;
    page.url = page.final_url = p.url;
    page.status_code = 200;
    page.content_type = "text/html";
    page.body = p.body;
    PageAnalysis a = chain.run(page);
    benchmark::DoNotOptimize(a);
    bytes += p.body.size();
  }
  set_page_throughput(state, bytes);
}
BENCHMARK(BM_ProcessorChainHtmlLinks);

// -- charset -----------------------------------------------------------------

// No bytes/s: with a <meta charset> in the first 1024 bytes, as here, the
// rest of the body is never read.
void BM_SniffCharset(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::size_t i = 0;
  for (auto _ : state) {
    std::string cs = sniff_charset(pages[i++ % pages.size()].body, "");
    benchmark::DoNotOptimize(cs);
  }
  state.SetItemsProcessed(state.iterations());  // pages
}
BENCHMARK(BM_SniffCharset);

// Valid UTF-8 in: one validation pass and a copy.
void BM_ToUtf8FromUtf8(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& body = pages[i++ % pages.size()].body;
    std::string out = to_utf8(body, "utf-8");
    benchmark::DoNotOptimize(out);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
}
BENCHMARK(BM_ToUtf8FromUtf8);

// windows-1252 with accented letters: the iconv path.
void BM_ToUtf8FromWindows1252(benchmark::State& state) {
  static const std::vector<bench::Page> pages = bench::make_pages(16, 16 * 1024, bench::Encoding::windows1252);
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& body = pages[i++ % pages.size()].body;
    std::string out = to_utf8(body, "windows-1252");
    benchmark::DoNotOptimize(out);
    bytes += body.size();
  }
  set_page_throughput(state, bytes);
}
BENCHMARK(BM_ToUtf8FromWindows1252);

}  // namespace
