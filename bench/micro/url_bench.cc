// Url::parse, Url::resolve, without_query_params, host_key and
// url_fingerprint: every discovered link goes through most of these.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/web/url.h"
#include "core/web/url_fingerprint.h"

namespace {

using actorcrawl::Url;

const std::vector<std::string>& absolute_urls() {
  static const std::vector<std::string> urls = bench::make_absolute_urls(1024);
  return urls;
}

const std::vector<std::string>& hrefs() {
  static const std::vector<std::string> list = bench::make_hrefs(1024);
  return list;
}

// Normalized URLs, as the frontier, the seen-set and the store see them.
const std::vector<Url>& normalized() {
  static const std::vector<Url> urls = [] {
    std::vector<Url> out;
    for (const auto& raw : absolute_urls())
      if (auto u = Url::parse(raw))
        out.push_back(*u);
    return out;
  }();
  return urls;
}

void BM_UrlParse(benchmark::State& state) {
  const auto& urls = absolute_urls();
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& raw = urls[i++ % urls.size()];
    auto u = Url::parse(raw);
    benchmark::DoNotOptimize(u);
    bytes += raw.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_UrlParse);

void BM_UrlResolve(benchmark::State& state) {
  const auto& list = hrefs();
  const Url base = *Url::parse("https://www.example.com/news/2023/05/city-council-approves-budget");
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& ref = list[i++ % list.size()];
    auto u = base.resolve(ref);
    benchmark::DoNotOptimize(u);
    bytes += ref.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_UrlResolve);

void BM_UrlWithoutQueryParams(benchmark::State& state) {
  // Only URLs with a query: for the others the call returns at once.
  std::vector<Url> with_query;
  for (const Url& u : normalized())
    if (u.has_query())
      with_query.push_back(u);
  const std::vector<std::string> strip = {"utm_*", "sessionid", "fbclid", "gclid"};
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const Url& u = with_query[i++ % with_query.size()];
    Url stripped = u.without_query_params(strip);
    benchmark::DoNotOptimize(stripped);
    bytes += u.str().size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_UrlWithoutQueryParams);

// host_key() re-parses the stored text: select_links calls it once per link.
void BM_UrlHostKey(benchmark::State& state) {
  const auto& urls = normalized();
  std::size_t i = 0;
  for (auto _ : state) {
    std::string key = urls[i++ % urls.size()].host_key();
    benchmark::DoNotOptimize(key);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UrlHostKey);

void BM_UrlFingerprint(benchmark::State& state) {
  const auto& urls = normalized();
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& s = urls[i++ % urls.size()].str();
    benchmark::DoNotOptimize(actorcrawl::url_fingerprint(s));
    bytes += s.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_UrlFingerprint);

}  // namespace
