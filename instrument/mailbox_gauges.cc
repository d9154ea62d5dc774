#include "instrument/mailbox_gauges.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace actorcrawl {

namespace {
std::mutex mailboxes_mutex;
std::unordered_map<std::uint64_t, std::shared_ptr<std::atomic<std::int64_t>>> mailboxes;
}  // namespace

std::shared_ptr<std::atomic<std::int64_t>> register_mailbox(std::uint64_t actor_id) {
  auto gauge = std::make_shared<std::atomic<std::int64_t>>(0);
  std::lock_guard<std::mutex> lock{mailboxes_mutex};
  mailboxes[actor_id] = gauge;
  return gauge;
}

void unregister_mailbox(std::uint64_t actor_id) {
  std::lock_guard<std::mutex> lock{mailboxes_mutex};
  mailboxes.erase(actor_id);
}

std::optional<std::int64_t> mailbox_size(std::uint64_t actor_id) {
  std::lock_guard<std::mutex> lock{mailboxes_mutex};
  auto it = mailboxes.find(actor_id);
  if (it == mailboxes.end())
    return std::nullopt;
  return std::max<std::int64_t>(0, it->second->load(std::memory_order_relaxed));
}

}  // namespace actorcrawl
