// The Frontier's seen-set: every URL fingerprint the crawl has met, and the
// one structure that grows with every discovered URL. A flat open-addressing
// table of the 64-bit values themselves costs 8 bytes a slot, 11 to 21 bytes
// a URL between one doubling and the next, where std::unordered_set<uint64_t>
// costs about 43 (a heap node per entry plus the bucket array).
// docs/performance.md has the measurement (BM_SeenSetInsert).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace actorcrawl {

class FingerprintSet {
 public:
  FingerprintSet() = default;

  // True if `fp` was not in the set (it is now).
  bool insert(std::uint64_t fp);
  bool contains(std::uint64_t fp) const;
  std::size_t size() const { return count_ + (has_zero_ ? 1 : 0); }
  // Room for `n` values without growing.
  void reserve(std::size_t n);
  // Bytes held by the table (for tests and reports).
  std::size_t bytes() const { return slots_.capacity() * sizeof(std::uint64_t); }

 private:
  // 0 marks an empty slot, so the value 0 is kept apart.
  std::size_t slot_of(std::uint64_t fp) const {
    // Fibonacci hashing spreads values that differ only in high bits.
    return static_cast<std::size_t>((fp * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow_to(std::size_t capacity);  // a power of two

  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;  // non-zero values stored
  unsigned shift_ = 64;    // 64 - log2(capacity)
  bool has_zero_ = false;
};

}  // namespace actorcrawl
