// What a piece of work costs in this thread's CPU time, for tests that
// compare two costs (a ratio, never a bound on a clock): another process on
// the machine slows both sides alike, and only this thread's time counts.
#pragma once

#include <time.h>

#include <algorithm>

namespace actorcrawl::testing {

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

}  // namespace actorcrawl::testing
