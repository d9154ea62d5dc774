#include "service/job_log.h"

#include <nlohmann/json.hpp>

namespace actorcrawl {

namespace {
std::string end_event_data(JobStatus status) { return nlohmann::json{{"status", to_string(status)}}.dump(); }
}  // namespace

void JobLog::push(std::string kind, std::string data) {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    events_.push_back(JobEvent{++last_seq_, std::move(kind), std::move(data)});
    if (events_.size() > kEventsKept)
      events_.pop_front();
  }
  changed_.notify_all();
}

void JobLog::end(JobStatus status) {
  push("end", end_event_data(status));
  std::lock_guard<std::mutex> lock{mutex_};
  ended_ = true;
}

JobEventBatch JobLog::since(std::uint64_t after, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock{mutex_};
  changed_.wait_for(lock, wait, [&] { return last_seq_ > after; });
  JobEventBatch out;
  for (const auto& e : events_)
    if (e.seq > after)
      out.events.push_back(e);
  out.ended = ended_;
  return out;
}

void JobLog::set_live(const JobLive& live) {
  std::lock_guard<std::mutex> lock{mutex_};
  live_ = live;
}

JobLive JobLog::live() {
  std::lock_guard<std::mutex> lock{mutex_};
  return live_;
}

void JobLog::set_actors(Actors actors) {
  std::lock_guard<std::mutex> lock{mutex_};
  actors_ = std::move(actors);
}

JobLog::Actors JobLog::actors() {
  std::lock_guard<std::mutex> lock{mutex_};
  return actors_;
}

JobEventBatch events_from_table(const std::optional<JobRow>& row, std::uint64_t after) {
  JobEventBatch out;
  out.known = row.has_value();
  out.ended = true;
  if (row && after == 0)
    out.events.push_back(JobEvent{1, "end", end_event_data(row->status)});
  return out;
}

}  // namespace actorcrawl
