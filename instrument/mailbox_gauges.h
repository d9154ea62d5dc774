// How many messages wait in a traced actor's mailbox, by actor id: counted
// up on enqueue and down on consume by traced<Base> (message_trace.h),
// whether or not a trace is active (two relaxed atomic operations a
// message). The crawl service exports them as metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace actorcrawl {

// A new gauge for the actor, found by mailbox_size() until unregistered.
std::shared_ptr<std::atomic<std::int64_t>> register_mailbox(std::uint64_t actor_id);
void unregister_mailbox(std::uint64_t actor_id);
// Messages waiting, or nothing for an actor with no gauge.
std::optional<std::int64_t> mailbox_size(std::uint64_t actor_id);

}  // namespace actorcrawl
