// HostScheduler under a simulated crawl: the HostSelector's loop (enqueue
// what the frontier sends, complete each fetch, take_ready after every
// message) driven by a discrete clock, so no real time passes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/crawl/crawl_job.h"
#include "core/hosts/host_scheduler.h"

namespace {

using actorcrawl::CrawlJob;
using actorcrawl::HostScheduler;
using Clock = HostScheduler::Clock;
using std::chrono::milliseconds;

constexpr std::size_t kJobs = 8192;     // jobs scheduled per iteration
constexpr std::size_t kWorkers = 3;     // concurrent_workers default
constexpr std::size_t kSlots = 32;      // transfers_per_worker default
// The HostSelector keeps about four jobs per transfer slot queued.
constexpr std::size_t kBuffer = kWorkers * kSlots * 4;

// kJobs jobs over `hosts` hosts in a BFS-like interleaving.
std::vector<CrawlJob> make_jobs(std::size_t hosts) {
  bench::Rng rng(bench::kSeed);
  std::vector<CrawlJob> jobs;
  jobs.reserve(kJobs);
  for (std::size_t i = 0; i < kJobs; ++i) {
    const std::string host = "host" + std::to_string(rng.below(hosts)) + ".example.com";
    jobs.push_back(CrawlJob{i + 1, "https://" + host + "/page/" + std::to_string(i), host, 2});
  }
  return jobs;
}

// Arg: number of distinct hosts. Items: jobs dispatched and completed.
void BM_HostSchedulerCrawl(benchmark::State& state) {
  const std::vector<CrawlJob> jobs = make_jobs(static_cast<std::size_t>(state.range(0)));
  const Clock::time_point t0{};
  std::uint64_t dispatches = 0, take_ready_calls = 0;
  for (auto _ : state) {
    HostScheduler::Settings settings;
    settings.delay = milliseconds{1000};
    HostScheduler s(settings);
    for (std::size_t w = 1; w <= kWorkers; ++w)
      s.add_worker(w, kSlots);
    using InFlight = std::pair<Clock::time_point, std::uint64_t>;
    std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight;
    std::size_t next = 0, done = 0;
    Clock::time_point now = t0;
    auto dispatch = [&] {
      while (s.queued() < kBuffer && next < jobs.size())
        s.enqueue(jobs[next++], now);
      ++take_ready_calls;
      for (auto& d : s.take_ready(now)) {
        // Response times of 100-400 ms.
        in_flight.emplace(now + milliseconds{100 + 50 * static_cast<int>(d.job.seq % 7)}, d.job.seq);
        ++dispatches;
      }
    };
    dispatch();
    while (done < jobs.size()) {
      // The next event: a fetch ending, or a politeness clock running out.
      Clock::time_point at = Clock::time_point::max();
      if (!in_flight.empty())
        at = in_flight.top().first;
      if (auto wake = s.next_wakeup(); wake && *wake < at)
        at = *wake;
      now = std::max(now, at);
      if (!in_flight.empty() && in_flight.top().first <= now) {
        s.complete(in_flight.top().second, 0, now);
        in_flight.pop();
        ++done;
      }
      dispatch();
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * jobs.size()));
  state.counters["take_ready_calls_per_job"] =
      static_cast<double>(take_ready_calls) / static_cast<double>(state.iterations() * jobs.size());
  benchmark::DoNotOptimize(dispatches);
}
BENCHMARK(BM_HostSchedulerCrawl)->Arg(16)->Arg(256)->Arg(4096)->Arg(65536)->Unit(benchmark::kMillisecond);

}  // namespace
