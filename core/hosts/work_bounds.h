// How much work may be out at once, so nothing grows without bound and the
// HostSelector still has enough to keep every host busy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace actorcrawl {

// The HostSelector keeps a buffer of URLs waiting for their hosts' clocks:
// four per transfer slot, and never fewer than this, because a polite crawl
// of H hosts with delay d needs about H URLs waiting (each for its own
// host) to reach H/d pages/s. A waiting URL costs about 150 bytes.
constexpr std::size_t kMinSelectorBuffer = 1024;

// Transfers one worker may claim, whatever it announces (transfers_per_worker
// allows at most this).
constexpr std::int32_t kMaxWorkerTransfers = 4096;

inline std::size_t selector_buffer_target(std::size_t transfer_slots) {
  return std::max<std::size_t>(kMinSelectorBuffer, transfer_slots * 4);
}

// How many URLs the HostSelector asks the Frontier for now: enough to fill
// the buffer, but only once a quarter of it is missing, so demand goes out
// in few large messages rather than one per completed fetch.
// At most what one work_demand message carries (an int32).
inline std::int64_t work_to_ask_for(std::size_t buffer_target, std::size_t queued, std::int64_t outstanding) {
  const auto target = static_cast<std::int64_t>(buffer_target);
  const auto want = target - static_cast<std::int64_t>(queued) - outstanding;
  if (want < std::max<std::int64_t>(1, target / 4))
    return 0;
  return std::min<std::int64_t>(want, std::numeric_limits<std::int32_t>::max());
}

// URLs leased and not yet settled, by default: the selector's buffer plus
// twice the transfer slots, for pages being fetched or parsed.
inline std::size_t default_max_in_flight(std::size_t transfer_slots) {
  return selector_buffer_target(transfer_slots) + 2 * transfer_slots;
}

}  // namespace actorcrawl
