// robots.txt: parsed once per host, then asked about every URL of the host.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/micro/corpus.h"
#include "core/web/robots_txt.h"

namespace {

using actorcrawl::RobotsRules;

constexpr const char* kToken = "actorcrawl";

// Arg: generated rules added to the "*" group (0: a typical site's file of
// ~30 rules; 1000: a large site's).
const std::string& robots_body(std::size_t extra_rules) {
  static const std::string small = bench::make_robots_txt(0);
  static const std::string large = bench::make_robots_txt(1000);
  return extra_rules == 0 ? small : large;
}

void BM_RobotsParse(benchmark::State& state) {
  const std::string& body = robots_body(static_cast<std::size_t>(state.range(0)));
  std::size_t rules = 0;
  for (auto _ : state) {
    RobotsRules r = RobotsRules::parse(body, kToken);
    rules = r.rule_count();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());  // files
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.counters["rules"] = static_cast<double>(rules);
}
BENCHMARK(BM_RobotsParse)->Arg(0)->Arg(1000);

void BM_RobotsAllowed(benchmark::State& state) {
  const RobotsRules rules = RobotsRules::parse(robots_body(static_cast<std::size_t>(state.range(0))), kToken);
  const std::vector<std::string> paths = bench::make_robots_paths(512);
  std::size_t i = 0, allowed = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& p = paths[i++ % paths.size()];
    allowed += rules.allowed(p) ? 1 : 0;
    bytes += p.size();
  }
  benchmark::DoNotOptimize(allowed);
  state.SetItemsProcessed(state.iterations());  // paths
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["rules"] = static_cast<double>(rules.rule_count());
}
BENCHMARK(BM_RobotsAllowed)->Arg(0)->Arg(1000);

}  // namespace
