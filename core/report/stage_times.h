// Where a crawl's time goes, stage by stage: how many items each actor
// handled, how long it was busy with them, and how long they waited in its
// mailbox first. Printed at the end of a crawl and kept in metrics.log, so a
// user can see whether fetching, parsing or storing is their bottleneck.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

// A handler's wait is given as waited_us(message stamp): the clock every
// stage stamps and reads with.
#include "core/clock/clock.h"

namespace actorcrawl {

struct StageTimes {
  std::string stage;          // "fetch", "parse", "store", "frontier", "select"
  std::int64_t count = 0;     // items handled
  std::int64_t busy_us = 0;   // time spent on them
  std::int64_t wait_us = 0;   // time they spent queued in the mailbox
  std::int64_t max_wait_us = 0;

  void add(std::int64_t busy, std::int64_t wait = 0) {
    ++count;
    busy_us += busy;
    wait_us += wait;
    if (wait > max_wait_us)
      max_wait_us = wait;
  }
  void merge(const StageTimes& other);
};

// Measures one handler: adds its duration (and the item's wait) on scope exit.
class StageTimer {
 public:
  explicit StageTimer(StageTimes& times, std::int64_t wait_us = 0)
      : times_(times), wait_us_(wait_us), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    times_.add(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count(),
               wait_us_);
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  StageTimes& times_;
  std::int64_t wait_us_;
  std::chrono::steady_clock::time_point start_;
};

// One line per stage, aligned, for the end-of-crawl report.
std::string format_stage_times(const std::vector<StageTimes>& stages, std::int64_t wall_ms);

}  // namespace actorcrawl
