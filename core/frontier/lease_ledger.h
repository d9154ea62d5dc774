// Which URLs are out on lease, as (seq, attempt), so that each lease ends
// once and only by a report about that very lease.
//
// With workers in other processes, two reports about one URL can both
// arrive: a worker dies after its last result left, the HostSelector hands
// its leases back, the URL is leased again (attempt 2) and both the old and
// the new fetch report. Matched by seq alone, the old report would settle the
// new lease: a late failure would mark the row failed and drop the links the
// re-fetch finds. The Frontier ends a lease only for a report that names its
// current attempt, and counts the rest as stale.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace actorcrawl {

class LeaseLedger {
 public:
  void leased(std::uint64_t seq, std::uint32_t attempt) { out_[seq] = attempt; }
  // True if (seq, attempt) is the lease out now: the caller ends it. False:
  // a late or repeated report, to be ignored (counted in stale()).
  bool end(std::uint64_t seq, std::uint32_t attempt) {
    auto it = out_.find(seq);
    if (it == out_.end() || it->second != attempt) {
      ++stale_;
      return false;
    }
    out_.erase(it);
    return true;
  }
  std::size_t size() const { return out_.size(); }
  // Reports ignored because their lease had already ended or been replaced.
  std::int64_t stale() const { return stale_; }

 private:
  std::unordered_map<std::uint64_t, std::uint32_t> out_;
  std::int64_t stale_ = 0;
};

}  // namespace actorcrawl
