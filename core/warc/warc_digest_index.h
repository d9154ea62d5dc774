// The payload digests already written to the archive, so that a response
// whose payload repeats one is written as a revisit record pointing at the
// first. Bounded in bytes: a 1M-URL crawl must not keep a million digests
// in memory. Past the bound the least recently seen digest is forgotten; a
// later repeat of it is then written as a full response again (a bigger
// archive, never a wrong one).
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/warc/warc_record.h"

namespace actorcrawl {

class WarcDigestIndex {
 public:
  explicit WarcDigestIndex(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // The response first written with this payload digest, if remembered; a
  // hit makes it the most recently seen.
  std::optional<RevisitTarget> find(const std::string& payload_digest);
  // Remembers the response written with this digest (the first one wins).
  void remember(const std::string& payload_digest, RevisitTarget original);

  std::size_t size() const;
  std::size_t bytes() const;  // what the bound counts
  std::size_t evicted() const;

 private:
  struct Entry {
    std::string digest;
    RevisitTarget target;
  };
  static std::size_t cost(const Entry& e);

  mutable std::mutex mutex_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::size_t evicted_ = 0;
  std::list<Entry> recent_;  // most recently seen first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_digest_;
};

}  // namespace actorcrawl
