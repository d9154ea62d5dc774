#include "core/clock/clock.h"

#include <time.h>

namespace actorcrawl {

std::int64_t monotonic_us() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

std::int64_t waited_us(std::int64_t sent_us) {
  if (sent_us <= 0)
    return 0;
  const std::int64_t now = monotonic_us();
  return now >= sent_us ? now - sent_us : 0;
}

}  // namespace actorcrawl
