// What a piece of work costs in this thread's CPU time, for tests that
// compare two costs (a ratio, never a bound on a clock): another process on
// the machine slows both sides alike, and only this thread's time counts.
//
// Every linearity test (HTML parsers, extraction, sitemaps, robots.txt)
// measures the same way: the cost of a hostile input of kLinearityBytes
// against one kLinearityFactor (16) times larger, and that growth against
// the growth of an ordinary input (a plain page, a plain sitemap) over the
// same two sizes: the hostile input's cost may grow at most
// kMaxRelativeGrowth (4) times as much as the ordinary one's.
//
// Why: the cost per byte of a linear parse is not one number on every CPU
// and at every size. Where the smaller input fits in a core's cache (or
// under malloc's mmap threshold) and the larger does not, the larger costs
// more per byte: on a CPU with 2 MiB of L2 per core, the fast HTML parser
// grew 8.3 times from 64 KiB to 256 KiB on script-almost-ends (0.05 s of
// CPU at 16 MiB: linear), over the bound of 6 of a plain 4x these tests
// used then; libxml2 building a tree of an ordinary page grows 35 times
// from 256 KiB to 4 MiB (80 ns a byte, then 177: the tree outgrows the
// caches). So the sizes start past the smaller caches' reach and are 16
// times apart, where a quadratic cost grows 256 times; and the ordinary
// input, measured on the same machine at the same sizes, carries the
// same memory effects, so what is left of a hostile input's growth is its
// own: 1.1 to 1.8 for the worst constructs measured (a linear cost), 9 to
// 16 for a quadratic one. The bound of 4 sits between them with room on
// both sides, whatever the CPU. The growths are printed for the record.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace actorcrawl::testing {

inline constexpr std::size_t kLinearityBytes = 256 * 1024;
inline constexpr std::size_t kLinearityFactor = 16;
inline constexpr double kMaxRelativeGrowth = 4.0;

inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU seconds per call of `work`: the least of `batches` batches, each
// repeating it until at least `batch_seconds` have passed, so the clock's
// grain and a stray interrupt do not count. A slow call (over half a
// second a batch) is measured well enough after one batch.
template <class Work>
double least_cpu_cost(Work&& work, int batches = 5, double batch_seconds = 0.002) {
  double best = 1e9;
  for (int batch = 0; batch < batches; ++batch) {
    int runs = 0;
    const double start = thread_cpu_seconds();
    double spent = 0;
    do {
      work();
      ++runs;
      spent = thread_cpu_seconds() - start;
    } while (spent < batch_seconds);
    best = std::min(best, spent / runs);
    if (spent > 0.5) break;
  }
  return best;
}

// How a cost grew from a small input to a large one, and the large one's
// cost (for a comparison with an ordinary input of its size).
struct CostGrowth {
  double ratio = 0;
  double large_cost = 0;
};

// `cost(input)` in CPU seconds, of `small` and of `large`. With
// `baseline` (the growth of an ordinary input over the same sizes),
// measured again, twice at most, while the growth is over
// kMaxRelativeGrowth times it, keeping the least, so that one unlucky batch
// (a migration to a busy core) cannot fail a test.
template <class Cost, class Input>
CostGrowth cost_growth(Cost&& cost, const Input& small, const Input& large, double baseline = 0) {
  CostGrowth g;
  g.large_cost = cost(large);
  g.ratio = g.large_cost / cost(small);
  for (int again = 0; again < 2 && baseline > 0 && g.ratio > kMaxRelativeGrowth * baseline; ++again) {
    const double large_cost = cost(large);
    g.ratio = std::min(g.ratio, large_cost / cost(small));
    g.large_cost = std::min(g.large_cost, large_cost);
  }
  return g;
}

// The worst growth relative to the baseline over many inputs, printed for
// the record by the test that measured them.
struct WorstGrowth {
  double relative = 0;
  std::string name;
  void take(double growth, double baseline, std::string_view input_name) {
    if (growth / baseline > relative) {
      relative = growth / baseline;
      name = std::string{input_name};
    }
  }
};

}  // namespace actorcrawl::testing
