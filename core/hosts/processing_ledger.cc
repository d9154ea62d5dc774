#include "core/hosts/processing_ledger.h"

namespace actorcrawl {

void ProcessingLedger::fetched(WorkerId worker, const CrawlJob& job) {
  const auto early = early_.find(job.seq);
  if (early != early_.end()) {
    const bool same = early->second == job.attempt;
    early_.erase(early);  // a report of an older attempt is stale either way
    if (same)
      return;
  }
  open_[job.seq] = Open{worker, job};
}

void ProcessingLedger::reported(std::uint64_t seq, std::uint32_t attempt) {
  const auto it = open_.find(seq);
  if (it != open_.end() && it->second.job.attempt == attempt) {
    open_.erase(it);
    return;
  }
  early_[seq] = attempt;
}

std::vector<CrawlJob> ProcessingLedger::worker_lost(WorkerId worker) {
  std::vector<CrawlJob> out;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->second.worker == worker) {
      early_.erase(it->first);
      out.push_back(std::move(it->second.job));
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace actorcrawl
