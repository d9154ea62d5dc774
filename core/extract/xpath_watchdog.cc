#include "core/extract/xpath_watchdog.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace actorcrawl {

namespace {

// How often the watchdog looks while evaluations run: the most an
// evaluation runs past its budget, beside one merge.
constexpr std::chrono::milliseconds kLookEvery{5};

std::int64_t cpu_us(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0)
    return 0;
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000 + t.tv_nsec / 1000;
}

}  // namespace

struct XPathWatchdog::Watch::State {
  xmlXPathContext* context = nullptr;
  clockid_t clock{};
  std::int64_t started_us = 0;
  std::int64_t budget_us = 0;
  const std::atomic<bool>* stop = nullptr;
  std::atomic<int> stopped{0};  // 0: running, 1: budget, 2: stop
};

struct XPathWatchdog::Impl {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::shared_ptr<Watch::State>> watched;
  bool ending = false;
  std::thread thread;

  void run() {
    std::unique_lock<std::mutex> lock{mutex};
    while (!ending) {
      if (watched.empty()) {
        wake.wait(lock);
        continue;
      }
      for (const auto& w : watched) {
        if (w->stopped.load(std::memory_order_relaxed) != 0)
          continue;
        int why = 0;
        if (w->stop != nullptr && w->stop->load(std::memory_order_relaxed))
          why = 2;
        else if (cpu_us(w->clock) - w->started_us > w->budget_us)
          why = 1;
        if (why != 0) {
          w->stopped.store(why, std::memory_order_relaxed);
          // opCount is at least 1 once evaluation has begun: with a limit
          // of 1, libxml2's next check fails (OP_LIMIT_EXCEEDED).
          __atomic_store_n(&w->context->opLimit, 1UL, __ATOMIC_RELAXED);
        }
      }
      wake.wait_for(lock, kLookEvery);
    }
  }
};

XPathWatchdog& XPathWatchdog::instance() {
  static XPathWatchdog watchdog;
  return watchdog;
}

XPathWatchdog::XPathWatchdog() : impl_(std::make_unique<Impl>()) {
  impl_->thread = std::thread([this] { impl_->run(); });
}

XPathWatchdog::~XPathWatchdog() {
  {
    std::lock_guard<std::mutex> lock{impl_->mutex};
    impl_->ending = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable())
    impl_->thread.join();
}

std::unique_ptr<XPathWatchdog::Watch> XPathWatchdog::watch(xmlXPathContext* context,
                                                           std::chrono::microseconds budget,
                                                           const std::atomic<bool>* stop) {
  auto state = std::make_shared<Watch::State>();
  state->context = context;
  if (pthread_getcpuclockid(pthread_self(), &state->clock) != 0)
    state->clock = CLOCK_THREAD_CPUTIME_ID;  // read from the wrong thread: budget by wall time, roughly
  state->started_us = cpu_us(state->clock);
  state->budget_us = budget.count();
  state->stop = stop;
  {
    std::lock_guard<std::mutex> lock{impl_->mutex};
    impl_->watched.push_back(state);
  }
  impl_->wake.notify_all();
  return std::unique_ptr<Watch>(new Watch(std::move(state), impl_.get()));
}

XPathWatchdog::Watch::Watch(std::shared_ptr<State> state, XPathWatchdog::Impl* owner)
    : state_(std::move(state)), owner_(owner) {}

XPathWatchdog::Watch::~Watch() {
  std::lock_guard<std::mutex> lock{owner_->mutex};
  auto& w = owner_->watched;
  w.erase(std::remove(w.begin(), w.end(), state_), w.end());
}

std::string XPathWatchdog::Watch::stopped_for() const {
  switch (state_->stopped.load(std::memory_order_relaxed)) {
    case 1: return "its CPU budget";
    case 2: return "the crawl stopping";
    default: return "";
  }
}

}  // namespace actorcrawl
