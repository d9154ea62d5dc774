#include "core/frontier_window.h"

#include <algorithm>

#include "core/url.h"
#include "core/url_fingerprint.h"

namespace actorcrawl {

FrontierWindow::FrontierWindow(Limits limits, std::optional<TrapGuard::Limits> traps) : limits_(limits) {
  if (traps)
    traps_ = std::make_unique<TrapGuard>(*traps);
}

FrontierWindow::~FrontierWindow() = default;

std::vector<FrontierRefusal> FrontierWindow::take_refused() {
  std::vector<FrontierRefusal> out;
  out.swap(refusals_);
  return out;
}

void FrontierWindow::refused(const CrawlJob& job) { release_lease(job.host_key); }

void FrontierWindow::resume(const ResumeState& state) {
  seen_.reserve(state.seen.size());
  seen_.insert(state.seen.begin(), state.seen.end());
  next_seq_ = std::max(next_seq_, state.next_seq);
  spilled_ = static_cast<std::size_t>(state.queued);
  refill_cursor_ = 0;
  settled_ = state.settled;
}

std::optional<FrontierEntry> FrontierWindow::offer(const std::string& url,
                                                   const std::string& host_key,
                                                   std::int32_t depth,
                                                   const std::string& parent_url) {
  // Depth is checked before the seen-set: BFS discovers every URL first at
  // its smallest depth, so a URL refused here is never wanted later.
  if (depth > limits_.max_depth)
    return std::nullopt;
  if (!seen_.insert(url_fingerprint(url)).second)
    return std::nullopt;
  FrontierEntry entry{next_seq_++, url, depth, parent_url};
  // Trap rules run after the seen-set, so each URL is judged (and counted)
  // once; a refused URL stays seen and is recorded with the rule's name.
  if (traps_) {
    if (auto parsed = Url::parse(url)) {
      if (auto rule = traps_->admit(*parsed)) {
        refusals_.push_back(FrontierRefusal{std::move(entry), std::move(*rule)});
        return std::nullopt;
      }
    }
  }
  enqueue(entry, host_key);
  return entry;
}

std::optional<FrontierEntry> FrontierWindow::requeue(const std::string& url, const std::string& host_key,
                                                     std::int32_t depth) {
  seen_.insert(url_fingerprint(url));
  FrontierEntry entry{next_seq_++, url, depth, std::string{}};
  enqueue(entry, host_key);
  return entry;
}

void FrontierWindow::enqueue(const FrontierEntry& entry, const std::string& host_key) {
  if (spilled_ == 0 && window_.size() < limits_.window) {
    window_.push_back(Queued{entry.seq, entry.url, host_key, entry.depth});
    // Nothing is spilled, so every stored queued row is in memory: moving the
    // cursor past this one keeps a later refill from loading it twice.
    refill_cursor_ = entry.seq + 1;
  } else {
    ++spilled_;
    if (refill_pending_)
      ++spilled_since_ask_;
  }
}

std::vector<CrawlJob> FrontierWindow::take(std::size_t n) {
  std::vector<CrawlJob> jobs;
  const std::size_t cap = limits_.per_host_leases;
  // With a per-host cap, URLs of hosts at their cap are stepped over (they
  // keep their place) and the next hosts' URLs go out instead; the scan is
  // bounded so a window full of one host costs little.
  const std::size_t scan_limit = cap == 0 ? window_.size() : std::min(window_.size(), std::max<std::size_t>(4 * n, 1024));
  std::vector<Queued> skipped;
  std::size_t i = 0;
  for (; i < scan_limit && jobs.size() < n && !budget_exhausted(); ++i) {
    Queued& q = window_[i];
    if (cap > 0) {
      auto& leased = leased_per_host_[q.host_key];
      if (leased >= cap) {
        skipped.push_back(std::move(q));
        continue;
      }
      ++leased;
    }
    jobs.push_back(CrawlJob{static_cast<std::uint64_t>(q.seq), std::move(q.url), std::move(q.host_key), q.depth});
    ++in_flight_;
  }
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(i));
  window_.insert(window_.begin(), std::make_move_iterator(skipped.begin()), std::make_move_iterator(skipped.end()));
  return jobs;
}

void FrontierWindow::release_lease(const std::string& host_key) {
  if (in_flight_ > 0)
    --in_flight_;
  if (limits_.per_host_leases == 0)
    return;
  auto it = leased_per_host_.find(host_key);
  if (it != leased_per_host_.end() && --it->second == 0)
    leased_per_host_.erase(it);
}

void FrontierWindow::settle(const CrawlJob& job) {
  release_lease(job.host_key);
  ++settled_;
}

void FrontierWindow::give_back(std::vector<CrawlJob> jobs) {
  // Front of the window, oldest first, so they are the next to go out.
  std::sort(jobs.begin(), jobs.end(),
            [](const CrawlJob& a, const CrawlJob& b) { return a.seq > b.seq; });
  for (auto& job : jobs) {
    release_lease(job.host_key);
    window_.push_front(Queued{static_cast<std::int64_t>(job.seq), std::move(job.url),
                              std::move(job.host_key), job.depth});
  }
}

std::optional<RefillRequest> FrontierWindow::refill_request() {
  if (refill_pending_ || spilled_ == 0 || window_.size() >= limits_.window / 2)
    return std::nullopt;
  refill_pending_ = true;
  refill_asked_seq_ = next_seq_;
  spilled_since_ask_ = 0;
  return RefillRequest{refill_cursor_, limits_.window - window_.size()};
}

void FrontierWindow::refilled(const std::vector<FrontierEntry>& rows, std::size_t requested) {
  refill_pending_ = false;
  std::size_t unseen_late = spilled_since_ask_;
  for (const auto& row : rows) {
    if (spilled_ > 0)
      --spilled_;
    if (row.seq >= refill_asked_seq_ && unseen_late > 0)
      --unseen_late;
    refill_cursor_ = std::max(refill_cursor_, row.seq + 1);
    // Rows store only the URL; the host key is derived again from it.
    auto url = Url::parse(row.url);
    window_.push_back(Queued{row.seq, row.url, url ? url->host_key() : std::string{}, row.depth});
  }
  // Fewer rows than asked for means the store held no more when it was read:
  // whatever the count said, only rows spilled after the request can remain.
  if (rows.size() < requested)
    spilled_ = std::min(spilled_, unseen_late);
  spilled_since_ask_ = 0;
}

bool FrontierWindow::budget_exhausted() const {
  return settled_ + static_cast<std::int64_t>(in_flight_) >= limits_.max_pages;
}

bool FrontierWindow::finished() const {
  if (in_flight_ > 0 || refill_pending_)
    return false;
  return budget_exhausted() || (window_.empty() && spilled_ == 0);
}

}  // namespace actorcrawl
