#include "core/report/stage_times.h"

#include <algorithm>
#include <cstdio>

namespace actorcrawl {

void StageTimes::merge(const StageTimes& other) {
  count += other.count;
  busy_us += other.busy_us;
  wait_us += other.wait_us;
  max_wait_us = std::max(max_wait_us, other.max_wait_us);
}

std::string format_stage_times(const std::vector<StageTimes>& stages, std::int64_t wall_ms) {
  std::string out;
  char line[200];
  std::snprintf(line, sizeof line, "%-9s %9s %11s %9s %11s %10s\n", "stage", "items", "busy s", "ms/item",
                "avg wait ms", "max wait ms");
  out += line;
  for (const auto& s : stages) {
    const double per_item = s.count > 0 ? static_cast<double>(s.busy_us) / 1000.0 / static_cast<double>(s.count) : 0.0;
    const double avg_wait = s.count > 0 ? static_cast<double>(s.wait_us) / 1000.0 / static_cast<double>(s.count) : 0.0;
    std::snprintf(line, sizeof line, "%-9s %9lld %11.2f %9.3f %11.2f %10.1f\n", s.stage.c_str(),
                  static_cast<long long>(s.count), static_cast<double>(s.busy_us) / 1e6, per_item, avg_wait,
                  static_cast<double>(s.max_wait_us) / 1000.0);
    out += line;
  }
  std::snprintf(line, sizeof line, "(wall %.2f s; fetch busy time is summed over concurrent transfers)",
                static_cast<double>(wall_ms) / 1000.0);
  out += line;
  return out;
}

}  // namespace actorcrawl
