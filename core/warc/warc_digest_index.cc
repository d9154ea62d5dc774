#include "core/warc/warc_digest_index.h"

namespace actorcrawl {

// The strings' heap bytes plus what a list node and a map node with its key
// take on a 64-bit build: an estimate, but one that grows with every byte
// an entry holds, so the bound holds for long URLs too.
std::size_t WarcDigestIndex::cost(const Entry& e) {
  constexpr std::size_t kNodes = 64 + sizeof(Entry) + 64 + sizeof(std::string);
  return kNodes + 2 * e.digest.size() + e.target.record_id.size() + e.target.target_uri.size();
}

std::optional<RevisitTarget> WarcDigestIndex::find(const std::string& payload_digest) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_digest_.find(payload_digest);
  if (it == by_digest_.end())
    return std::nullopt;
  recent_.splice(recent_.begin(), recent_, it->second);
  return it->second->target;
}

void WarcDigestIndex::remember(const std::string& payload_digest, RevisitTarget original) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (by_digest_.count(payload_digest) != 0)
    return;
  recent_.push_front(Entry{payload_digest, std::move(original)});
  by_digest_.emplace(payload_digest, recent_.begin());
  bytes_ += cost(recent_.front());
  while (bytes_ > max_bytes_ && !recent_.empty()) {
    const Entry& oldest = recent_.back();
    bytes_ -= cost(oldest);
    by_digest_.erase(oldest.digest);
    recent_.pop_back();
    ++evicted_;
  }
}

std::size_t WarcDigestIndex::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_digest_.size();
}

std::size_t WarcDigestIndex::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

std::size_t WarcDigestIndex::evicted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evicted_;
}

}  // namespace actorcrawl
