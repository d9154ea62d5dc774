// The parsers on hostile pages: every construct of the adversarial
// generator (tests/unit/web/adversarial_html.h) at 1 MB, in both parsers,
// beside an ordinary page of the same size. ns per byte is the time divided
// by bytes processed; the linearity test holds each construct to at most
// 6x its cost at a quarter of the size, and 20x the ordinary page.
#include <benchmark/benchmark.h>

#include <string>

#include "core/web/html_document.h"
#include "tests/unit/web/adversarial_html.h"

namespace {

using namespace actorcrawl;

constexpr std::size_t kPageBytes = 1 << 20;

void parse(benchmark::State& state, const std::string& page, HtmlParser parser) {
  for (auto _ : state) {
    HtmlDocument doc = parse_html(page, parser);
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * page.size()));
}

void register_all() {
  for (const HtmlParser parser : {HtmlParser::fast, HtmlParser::html5}) {
    const std::string prefix = std::string("BM_ParseAdversarial/") + to_string(parser) + "/";
    benchmark::RegisterBenchmark((prefix + "plain").c_str(), [parser](benchmark::State& state) {
      static const std::string page = testing::plain_page(kPageBytes, 1);
      parse(state, page, parser);
    })->Unit(benchmark::kMillisecond);
    for (const auto& construct : testing::adversarial_constructs()) {
      benchmark::RegisterBenchmark((prefix + std::string(construct.name)).c_str(),
                                   [parser, &construct](benchmark::State& state) {
                                     const std::string page = construct.page(kPageBytes, 1);
                                     parse(state, page, parser);
                                   })
        ->Unit(benchmark::kMillisecond);
    }
  }
}

const bool registered = (register_all(), true);

}  // namespace
