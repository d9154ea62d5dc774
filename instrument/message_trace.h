// The message trace (docs/tracing.md): every message delivered to a
// topology actor becomes one line of the process's trace file (see
// core/trace/trace_record.h for the format, `actorcrawl trace` to read it).
//
// Actors opt in by their class: traced<Base> wraps an actor class and sees
// each message twice, when it is enqueued (the time, for the mailbox wait)
// and when the actor takes it (the line). When no trace is active the cost
// is one load and one branch per message in each of the two places.
//
// Senders are named through a registry of actor addresses: every traced
// actor enters itself; actors of other processes are entered as they become
// known (the topology a worker is welcomed with, a worker's hello).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include <caf/actor_addr.hpp>
#include <caf/actor_config.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/stateful_actor.hpp>

#include "core/report/stage_times.h"
#include "core/trace/trace_writer.h"
#include "instrument/mailbox_gauges.h"

namespace actorcrawl {

// The process's trace, or null: set before the topology starts, cleared
// after it ended.
TraceWriter* active_trace() noexcept;
void set_active_trace(TraceWriter* writer) noexcept;

// Enters `who` in the sender registry as `role` on node `node`.
void name_actor(const caf::actor_addr& who, std::string role, std::string node);

// "FrontierActor" -> "frontier"; actors of which there are several carry
// their id: "parse_lane/42".
std::string trace_role(const char* class_name, caf::actor_id id);

// Writes the line for `x`, taken by `receiver` (role `role`).
void trace_delivery(TraceWriter& trace, const std::string& role, const caf::mailbox_element& x,
                    std::optional<std::int64_t> mailbox_us);

// Enqueue times of messages waiting in one traced actor's mailbox.
class MailboxStamps {
 public:
  void stamp(const void* element) {
    std::lock_guard<std::mutex> lock{mutex_};
    at_[element] = monotonic_us();
  }
  std::optional<std::int64_t> waited(const void* element) {
    std::lock_guard<std::mutex> lock{mutex_};
    auto it = at_.find(element);
    if (it == at_.end())
      return std::nullopt;
    const auto waited = monotonic_us() - it->second;
    at_.erase(it);
    return waited;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, std::int64_t> at_;
};

template <class Base>
class traced : public Base {
 public:
  template <class... Ts>
  explicit traced(caf::actor_config& cfg, Ts&&... xs)
      : Base(cfg, std::forward<Ts>(xs)...), waiting_(register_mailbox(this->id())) {}
  ~traced() override { unregister_mailbox(this->id()); }

  void enqueue(caf::mailbox_element_ptr ptr, caf::execution_unit* eu) override {
    waiting_->fetch_add(1, std::memory_order_relaxed);
    if (active_trace() != nullptr && ptr != nullptr)
      stamps_.stamp(ptr.get());
    Base::enqueue(std::move(ptr), eu);
  }

  caf::invoke_message_result consume(caf::mailbox_element& x) override {
    waiting_->fetch_sub(1, std::memory_order_relaxed);
    if (auto* trace = active_trace()) {
      if (role_.empty()) {
        role_ = trace_role(this->name(), this->id());
        name_actor(this->address(), role_, trace->node());
      }
      trace_delivery(*trace, role_, x, stamps_.waited(&x));
    }
    return Base::consume(x);
  }

 private:
  std::string role_;
  MailboxStamps stamps_;
  std::shared_ptr<std::atomic<std::int64_t>> waiting_;
};

// A traced stateful actor with the typed interface `Handle`
// (messages/interfaces.h): spawned from a function that takes a pointer to
// it and returns Handle::behavior_type, CAF infers the handle's type.
template <class State, class Handle>
using traced_actor = traced<caf::stateful_actor<State, typename Handle::base>>;

// The process's trace from construction to destruction: opens `path`
// (nothing when empty) and makes it the active trace. Create it before the
// actor system and let it outlive it, so no actor writes to a closed file.
class TraceSession {
 public:
  // The session `config.trace_path` asks for (none when empty), named by the
  // node; a file that cannot be created is a ConfigError.
  static std::unique_ptr<TraceSession> open(const std::string& path, const std::string& node);

  // Throws TraceFileError when the file cannot be created.
  TraceSession(const std::string& path, const std::string& node);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

 private:
  std::unique_ptr<TraceWriter> writer_;
};

}  // namespace actorcrawl
