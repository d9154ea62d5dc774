#include "core/crawl/fingerprint_set.h"

namespace actorcrawl {

namespace {

// Linear probing stays short below three quarters full.
constexpr std::size_t kMaxLoadNumerator = 3;
constexpr std::size_t kMaxLoadDenominator = 4;
constexpr std::size_t kMinCapacity = 16;

std::size_t capacity_for(std::size_t n) {
  std::size_t capacity = kMinCapacity;
  while (capacity * kMaxLoadNumerator / kMaxLoadDenominator < n)
    capacity *= 2;
  return capacity;
}

}  // namespace

bool FingerprintSet::insert(std::uint64_t fp) {
  if (fp == 0) {
    const bool added = !has_zero_;
    has_zero_ = true;
    return added;
  }
  if ((count_ + 1) * kMaxLoadDenominator > slots_.size() * kMaxLoadNumerator)
    grow_to(slots_.empty() ? kMinCapacity : slots_.size() * 2);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_of(fp);; i = (i + 1) & mask) {
    if (slots_[i] == fp)
      return false;
    if (slots_[i] == 0) {
      slots_[i] = fp;
      ++count_;
      return true;
    }
  }
}

bool FingerprintSet::contains(std::uint64_t fp) const {
  if (fp == 0)
    return has_zero_;
  if (slots_.empty())
    return false;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_of(fp);; i = (i + 1) & mask) {
    if (slots_[i] == fp)
      return true;
    if (slots_[i] == 0)
      return false;
  }
}

void FingerprintSet::reserve(std::size_t n) {
  const std::size_t capacity = capacity_for(n);
  if (capacity > slots_.size())
    grow_to(capacity);
}

void FingerprintSet::grow_to(std::size_t capacity) {
  std::vector<std::uint64_t> old;
  old.swap(slots_);
  slots_.assign(capacity, 0);
  shift_ = 64;
  for (std::size_t c = capacity; c > 1; c >>= 1)
    --shift_;
  const std::size_t mask = capacity - 1;
  for (std::uint64_t fp : old) {
    if (fp == 0)
      continue;
    std::size_t i = slot_of(fp);
    while (slots_[i] != 0)
      i = (i + 1) & mask;
    slots_[i] = fp;
  }
}

}  // namespace actorcrawl
