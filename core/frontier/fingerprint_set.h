// The Frontier's seen-set: every URL fingerprint the crawl has met, with
// the smallest depth it was met at, and the one structure that grows with
// every discovered URL. A flat open-addressing table of the 64-bit values
// themselves, with a byte of depth beside each, costs 9 bytes a slot, 12 to
// 24 bytes a URL between one doubling and the next, where
// std::unordered_map<uint64_t, uint8_t> costs about 43 (a heap node per
// entry plus the bucket array). docs/performance.md has the measurement
// (BM_SeenSetInsert).
//
// The depth is what lets a URL found again closer to a seed be lowered: BFS
// meets most URLs first at their smallest depth, but several seeds, per-host
// parking and slow hosts break that order, and without the byte a URL first
// met at depth 3 would keep depth 3 (and with max_depth 3, lose its
// children). Depths above 254 are kept as 255. A URL that may not be lowered
// (a seed, or one settled for good) is recorded at depth 0.
//
// One bit beside each slot says the URL was fetched: it is never queued
// again, but when it is met closer to a seed its stored links are offered
// at the smaller depth instead (FrontierWindow::take_relinks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace actorcrawl {

class FingerprintSet {
 public:
  // What offer() found.
  enum class Offer { added, lowered, known };

  FingerprintSet() = default;

  // Meets `fp` at `depth`: added if it was new, lowered if it was known at a
  // larger depth (the depth recorded is now `depth`), known otherwise.
  Offer offer(std::uint64_t fp, std::int32_t depth);
  // True if `fp` was not in the set (it is now, at depth 0: never lowered).
  bool insert(std::uint64_t fp) { return offer(fp, 0) == Offer::added; }
  // Records `fp` at depth 0, so it is never lowered again.
  void pin(std::uint64_t fp);
  // Records that `fp` (in the set, or added at `depth`) was fetched.
  void mark_fetched(std::uint64_t fp, std::int32_t depth = 0);
  bool fetched(std::uint64_t fp) const;
  // Forgets that `fp` was fetched: a revisit queues it again.
  void clear_fetched(std::uint64_t fp);
  bool contains(std::uint64_t fp) const { return find(fp) != nullptr; }
  // The smallest depth `fp` was met at (255 for any beyond 254); -1 if never.
  std::int32_t depth_of(std::uint64_t fp) const;
  std::size_t size() const { return count_ + (has_zero_ ? 1 : 0); }
  // Room for `n` values without growing.
  void reserve(std::size_t n);
  // Bytes held by the table (for tests and reports).
  std::size_t bytes() const {
    return slots_.capacity() * sizeof(std::uint64_t) + depths_.capacity() * sizeof(std::uint8_t) +
           fetched_.capacity() * sizeof(std::uint64_t);
  }

 private:
  // 0 marks an empty slot, so the value 0 is kept apart.
  std::size_t slot_of(std::uint64_t fp) const {
    // Fibonacci hashing spreads values that differ only in high bits.
    return static_cast<std::size_t>((fp * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  // The depth byte of `fp`, or null when it is not in the set.
  std::uint8_t* find(std::uint64_t fp);
  const std::uint8_t* find(std::uint64_t fp) const;
  void grow_to(std::size_t capacity);  // a power of two
  // The slot of `fp` (not 0) in slots_, or slots_.size() when absent.
  std::size_t slot_index(std::uint64_t fp) const;
  static bool bit(const std::vector<std::uint64_t>& bits, std::size_t i) { return (bits[i / 64] >> (i % 64)) & 1; }

  std::vector<std::uint64_t> slots_;
  std::vector<std::uint8_t> depths_;  // beside slots_, index for index
  std::vector<std::uint64_t> fetched_;  // a bit per slot of slots_
  std::size_t count_ = 0;  // non-zero values stored
  unsigned shift_ = 64;    // 64 - log2(capacity)
  bool has_zero_ = false;
  std::uint8_t zero_depth_ = 0;
  bool zero_fetched_ = false;
};

}  // namespace actorcrawl
