// The clocks as the crawl reads them. Wall-clock time is Unix epoch
// milliseconds (pages, runs, dead letters, robots.txt records, metrics.log)
// or microseconds (the message trace); time between two moments of one
// machine is read from the monotonic clock, which no clock adjustment moves.
#pragma once

#include <chrono>
#include <cstdint>

namespace actorcrawl {

inline std::int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

inline std::int64_t epoch_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Microseconds on the monotonic clock: the stamp a sender puts in a message
// so the receiver can tell how long it waited. CLOCK_MONOTONIC is shared by
// every process of one machine; between machines the stamp is 0 (unknown).
std::int64_t monotonic_us();
// now - sent, or 0 when the stamp is unknown or from another clock.
std::int64_t waited_us(std::int64_t sent_us);

}  // namespace actorcrawl
