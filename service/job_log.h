// One job's live view for the HTTP API: its server-sent events (progress,
// pages, the end) in a bounded log that readers follow by sequence number,
// its latest counters, and its actors (for mailbox gauges). Written from the
// crawl's actor threads, read from HTTP handler threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/crawl_events.h"
#include "core/store/job_store.h"

namespace actorcrawl {

// One server-sent event of a job: "progress", "page" or "end".
struct JobEvent {
  std::uint64_t seq = 0;
  std::string kind;
  std::string data;  // JSON
};

struct JobEventBatch {
  std::vector<JobEvent> events;
  bool ended = false;  // the job is over and every event is in `events` or was read before
  bool known = true;   // the job exists
};

struct JobLive {
  ProgressSnapshot progress;
  double pages_per_second = 0;
};

class JobLog {
 public:
  // Events kept; a reader slower than this skips the oldest.
  static constexpr std::size_t kEventsKept = 2000;

  void push(std::string kind, std::string data);
  // The "end" event with the job's final status; readers see `ended` after it.
  void end(JobStatus status);
  // Events after `after`, waiting up to `wait` for one to arrive.
  JobEventBatch since(std::uint64_t after, std::chrono::milliseconds wait);

  void set_live(const JobLive& live);
  JobLive live();

  using Actors = std::vector<std::pair<std::string, std::uint64_t>>;  // role, actor id
  void set_actors(Actors actors);
  Actors actors();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<JobEvent> events_;
  std::uint64_t last_seq_ = 0;
  bool ended_ = false;
  JobLive live_;
  Actors actors_;
};

// The answer for a job whose log is gone (ended long ago, or before a
// restart): one "end" event with its status from the job table.
JobEventBatch events_from_table(const std::optional<JobRow>& row, std::uint64_t after);

}  // namespace actorcrawl
