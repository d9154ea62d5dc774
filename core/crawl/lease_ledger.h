// Which URLs are out on lease, by job seq, so that each lease ends once.
//
// With workers in other processes, two reports of one lease can both
// arrive: a worker dies after its last result left, the HostSelector hands
// its leases back, and the result is processed anyway; or a lease handed
// back is leased again and the old and the new fetch both report. The
// Frontier settles or requeues a URL only for the first report of its
// current lease and drops the rest, so no URL is counted twice and none is
// queued again after it was settled.
#pragma once

#include <cstdint>
#include <unordered_set>

namespace actorcrawl {

class LeaseLedger {
 public:
  void leased(std::uint64_t seq) { out_.insert(seq); }
  // True if the lease was out: the caller ends it. False: a late or repeated
  // report, to be ignored.
  bool end(std::uint64_t seq) { return out_.erase(seq) > 0; }
  std::size_t size() const { return out_.size(); }

 private:
  std::unordered_set<std::uint64_t> out_;
};

}  // namespace actorcrawl
