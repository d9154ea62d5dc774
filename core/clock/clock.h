// Wall-clock time as the crawl records it: Unix epoch milliseconds (pages,
// runs, dead letters, robots.txt records, metrics.log).
#pragma once

#include <chrono>
#include <cstdint>

namespace actorcrawl {

inline std::int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

}  // namespace actorcrawl
