#include "core/frontier/fingerprint_set.h"

#include <algorithm>

namespace actorcrawl {

namespace {

// Linear probing stays short below three quarters full.
constexpr std::size_t kMaxLoadNumerator = 3;
constexpr std::size_t kMaxLoadDenominator = 4;
constexpr std::size_t kMinCapacity = 16;
constexpr std::int32_t kMaxKeptDepth = 255;

std::size_t capacity_for(std::size_t n) {
  std::size_t capacity = kMinCapacity;
  while (capacity * kMaxLoadNumerator / kMaxLoadDenominator < n)
    capacity *= 2;
  return capacity;
}

std::uint8_t depth_byte(std::int32_t depth) {
  return static_cast<std::uint8_t>(std::clamp(depth, 0, kMaxKeptDepth));
}

}  // namespace

FingerprintSet::Offer FingerprintSet::offer(std::uint64_t fp, std::int32_t depth) {
  const std::uint8_t d = depth_byte(depth);
  if (std::uint8_t* known = find(fp)) {
    if (d >= *known)
      return Offer::known;
    *known = d;
    return Offer::lowered;
  }
  if (fp == 0) {
    has_zero_ = true;
    zero_depth_ = d;
    return Offer::added;
  }
  if ((count_ + 1) * kMaxLoadDenominator > slots_.size() * kMaxLoadNumerator)
    grow_to(slots_.empty() ? kMinCapacity : slots_.size() * 2);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = slot_of(fp);
  while (slots_[i] != 0)
    i = (i + 1) & mask;
  slots_[i] = fp;
  depths_[i] = d;
  ++count_;
  return Offer::added;
}

void FingerprintSet::mark_fetched(std::uint64_t fp, std::int32_t depth) {
  if (!contains(fp))
    offer(fp, depth);
  if (fp == 0) {
    zero_fetched_ = true;
    return;
  }
  const std::size_t i = slot_index(fp);
  fetched_[i / 64] |= std::uint64_t{1} << (i % 64);
}

void FingerprintSet::clear_fetched(std::uint64_t fp) {
  if (fp == 0) {
    zero_fetched_ = false;
    return;
  }
  const std::size_t i = slot_index(fp);
  if (i < slots_.size())
    fetched_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
}

bool FingerprintSet::fetched(std::uint64_t fp) const {
  if (fp == 0)
    return has_zero_ && zero_fetched_;
  const std::size_t i = slot_index(fp);
  return i < slots_.size() && bit(fetched_, i);
}

std::size_t FingerprintSet::slot_index(std::uint64_t fp) const {
  if (slots_.empty())
    return 0;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_of(fp);; i = (i + 1) & mask) {
    if (slots_[i] == fp)
      return i;
    if (slots_[i] == 0)
      return slots_.size();
  }
}

void FingerprintSet::pin(std::uint64_t fp) {
  if (std::uint8_t* known = find(fp))
    *known = 0;
  else
    offer(fp, 0);
}

std::int32_t FingerprintSet::depth_of(std::uint64_t fp) const {
  const std::uint8_t* d = find(fp);
  return d == nullptr ? -1 : *d;
}

std::uint8_t* FingerprintSet::find(std::uint64_t fp) {
  return const_cast<std::uint8_t*>(static_cast<const FingerprintSet*>(this)->find(fp));
}

const std::uint8_t* FingerprintSet::find(std::uint64_t fp) const {
  if (fp == 0)
    return has_zero_ ? &zero_depth_ : nullptr;
  const std::size_t i = slot_index(fp);
  return i < slots_.size() ? &depths_[i] : nullptr;
}

void FingerprintSet::reserve(std::size_t n) {
  const std::size_t capacity = capacity_for(n);
  if (capacity > slots_.size())
    grow_to(capacity);
}

void FingerprintSet::grow_to(std::size_t capacity) {
  std::vector<std::uint64_t> old;
  std::vector<std::uint8_t> old_depths;
  std::vector<std::uint64_t> old_fetched;
  old.swap(slots_);
  old_depths.swap(depths_);
  old_fetched.swap(fetched_);
  slots_.assign(capacity, 0);
  depths_.assign(capacity, 0);
  fetched_.assign((capacity + 63) / 64, 0);
  shift_ = 64;
  for (std::size_t c = capacity; c > 1; c >>= 1)
    --shift_;
  const std::size_t mask = capacity - 1;
  for (std::size_t k = 0; k < old.size(); ++k) {
    const std::uint64_t fp = old[k];
    if (fp == 0)
      continue;
    std::size_t i = slot_of(fp);
    while (slots_[i] != 0)
      i = (i + 1) & mask;
    slots_[i] = fp;
    depths_[i] = old_depths[k];
    if (bit(old_fetched, k))
      fetched_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
}

}  // namespace actorcrawl
