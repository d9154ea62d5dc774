// FrontierWindow: every link the Processor finds is offered (most of them
// were seen before), and the HostSelector takes jobs in batches.
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/frontier/fingerprint_set.h"
#include "core/frontier/frontier_window.h"
#include "core/web/html_document.h"
#include "core/page/link_scope.h"
#include "core/page/link_selection.h"
#include "core/page/page_processor.h"
#include "core/frontier/trap_guard.h"
#include "core/web/url.h"

namespace {

using namespace actorcrawl;

struct Candidate {
  std::string url;
  std::string host_key;
};

// 64K distinct normalized URLs in the shapes the corpus links have, spread
// over the corpus' hosts: each corpus link with a distinct page number.
const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> out = [] {
    std::vector<std::string> links;
    for (const auto& p : bench::pages()) {
      const Url page = *Url::parse(p.url);
      for (const auto& l : parse_html(p.body).links)
        if (auto u = page.resolve(l.href))
          links.push_back(u->str());
    }
    std::vector<Candidate> list;
    constexpr std::size_t kCount = 64 * 1024;
    list.reserve(kCount);
    for (std::size_t i = 0; list.size() < kCount; ++i) {
      const std::string& base = links[i % links.size()];
      const Url u = *Url::parse(base + (base.find('?') == std::string::npos ? "?p=" : "&p=") +
                                std::to_string(i / links.size()));
      list.push_back(Candidate{u.str(), u.host_key()});
    }
    return list;
  }();
  return out;
}

FrontierWindow::Limits limits() {
  FrontierWindow::Limits l;
  l.window = 10000;
  l.max_pages = 1'000'000'000;
  l.max_depth = 100;
  return l;
}

std::optional<TrapGuard::Limits> traps_for(std::int64_t arg) {
  if (arg == 0)
    return std::nullopt;
  return TrapGuard::Limits{};  // the defaults: length, repeated segments, query variants
}

// Arg 0: plain; 1: with the default crawler-trap defences. Every offer is a
// new URL; the window is drained with take(64) + settle as a crawl would.
void BM_FrontierOfferNew(benchmark::State& state) {
  const auto& list = candidates();
  std::optional<FrontierWindow> frontier;
  frontier.emplace(limits(), traps_for(state.range(0)));
  const std::string parent = "https://www.example.com/news/2023/5/parent";
  std::size_t i = 0, accepted = 0;
  for (auto _ : state) {
    if (i == list.size()) {  // every URL offered: start over with an empty seen-set
      state.PauseTiming();
      frontier.emplace(limits(), traps_for(state.range(0)));
      i = 0;
      state.ResumeTiming();
    }
    const Candidate& c = list[i++];
    if (frontier->offer(c.url, c.host_key, 3, parent))
      ++accepted;
    if (frontier->queued() >= 64) {
      for (const auto& job : frontier->take(64))
        frontier->settle(job);
    }
    if (i % 64 == 0)  // the FrontierActor collects refusals after each batch
      benchmark::DoNotOptimize(frontier->take_refused());
  }
  state.SetItemsProcessed(state.iterations());  // offers
  state.counters["accepted"] = benchmark::Counter(static_cast<double>(accepted), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FrontierOfferNew)->Arg(0)->Arg(1);

// The common case: a link that is already in the seen-set (checked before
// any trap rule, so the defences cost nothing here).
void BM_FrontierOfferSeen(benchmark::State& state) {
  const auto& list = candidates();
  FrontierWindow frontier(limits(), std::nullopt);
  const std::string parent = "https://www.example.com/news/2023/5/parent";
  for (const auto& c : list) {
    frontier.offer(c.url, c.host_key, 3, parent);
    if (frontier.queued() >= 64)
      for (const auto& job : frontier.take(64))
        frontier.settle(job);
  }
  std::size_t i = 0, accepted = 0;
  for (auto _ : state) {
    const Candidate& c = list[i++ % list.size()];
    if (frontier.offer(c.url, c.host_key, 3, parent))
      ++accepted;
  }
  benchmark::DoNotOptimize(accepted);
  state.SetItemsProcessed(state.iterations());  // offers
}
BENCHMARK(BM_FrontierOfferSeen);

// take() in the batch sizes the HostSelector asks for, from a full window.
void BM_FrontierTake(benchmark::State& state) {
  const auto& list = candidates();
  const auto batch = static_cast<std::size_t>(state.range(0));
  std::optional<FrontierWindow> frontier;
  const std::string parent = "https://www.example.com/news/2023/5/parent";
  std::size_t next = 0, taken = 0;
  auto refill = [&] {
    frontier.emplace(limits(), std::nullopt);
    for (std::size_t k = 0; k < 10000; ++k, ++next) {
      const Candidate& c = list[next % list.size()];
      frontier->offer(c.url, c.host_key, 3, parent);
    }
  };
  refill();
  for (auto _ : state) {
    if (frontier->queued() < batch) {
      state.PauseTiming();
      refill();
      state.ResumeTiming();
    }
    auto jobs = frontier->take(batch);
    taken += jobs.size();
    for (const auto& job : jobs)
      frontier->settle(job);
    benchmark::DoNotOptimize(jobs);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(taken));  // jobs
}
BENCHMARK(BM_FrontierTake)->Arg(16)->Arg(256);

// The seen-set alone: 1M fingerprints inserted, every one new, in the flat
// FingerprintSet the Frontier uses and in std::unordered_set for comparison.
// The counter "bytes/value" is the table's own memory (FingerprintSet), or
// an estimate of the node-based set's (a 16-byte node plus malloc's 16-byte
// header, and 8 bytes a bucket).
bool insert_into(FingerprintSet& s, std::uint64_t v) { return s.insert(v); }
bool insert_into(std::unordered_set<std::uint64_t>& s, std::uint64_t v) { return s.insert(v).second; }
double bytes_of(const FingerprintSet& s) { return static_cast<double>(s.bytes()); }
double bytes_of(const std::unordered_set<std::uint64_t>& s) {
  return static_cast<double>(s.size() * 32 + s.bucket_count() * 8);
}

template <class Set>
void BM_SeenSetInsert(benchmark::State& state) {
  constexpr std::size_t kValues = 1 << 20;
  std::vector<std::uint64_t> values(kValues);
  std::uint64_t x = 88172645463325252ull;
  for (auto& v : values) {  // xorshift: spread like real fingerprints
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = x;
  }
  double bytes = 0;
  for (auto _ : state) {
    Set set;
    std::size_t fresh = 0;
    for (auto v : values)
      fresh += static_cast<std::size_t>(insert_into(set, v));
    benchmark::DoNotOptimize(fresh);
    bytes = bytes_of(set);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kValues));
  state.counters["bytes/value"] = bytes / kValues;
}

BENCHMARK_TEMPLATE(BM_SeenSetInsert, FingerprintSet)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_SeenSetInsert, std::unordered_set<std::uint64_t>)->Unit(benchmark::kMillisecond);

}  // namespace

