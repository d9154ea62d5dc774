#include "core/frontier/frontier_window.h"

#include <algorithm>

#include "core/web/url.h"
#include "core/web/url_fingerprint.h"

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

void FrontierWindow::refused(const CrawlJob& job) {
  const std::uint64_t fp = url_fingerprint(job.url);
  seen_.pin(fp);
  end_flight(fp);
  release_lease(job.host_key);
}

std::optional<FrontierEntry> FrontierWindow::end_flight(std::uint64_t fp) {
  leased_.erase(fp);
  auto it = lowered_in_flight_.find(fp);
  if (it == lowered_in_flight_.end())
    return std::nullopt;
  FrontierEntry lowered = std::move(it->second);
  lowered_in_flight_.erase(it);
  return lowered;
}

void FrontierWindow::resume(const ResumeState& state) {
  seen_.reserve(state.seen.size());
  for (const SeenUrl& url : state.seen) {
    if (url.fetched)
      seen_.mark_fetched(url.fingerprint, url.depth);
    else
      seen_.offer(url.fingerprint, url.depth);
  }
  next_seq_ = std::max(next_seq_, state.next_seq);
  spilled_ = static_cast<std::size_t>(state.queued);
  refill_cursor_ = 0;
  settled_ = state.settled;
}

std::optional<FrontierEntry> FrontierWindow::offer(std::string_view url,
                                                   const std::string& host_key,
                                                   std::int32_t depth,
                                                   const std::string& parent_url) {
  // Deeper than max_depth: not recorded, so the URL is still wanted if it is
  // met later closer to a seed.
  if (depth > limits_.max_depth)
    return std::nullopt;
  const std::uint64_t fp = url_fingerprint(url);
  switch (seen_.offer(fp, depth)) {
    case FingerprintSet::Offer::known:
      return std::nullopt;
    case FingerprintSet::Offer::lowered: {
      // A page is requested once. Fetched already: its stored links are
      // offered again at the smaller depth instead (take_relinks). In
      // flight: the same once it is fetched (settle).
      if (seen_.fetched(fp)) {
        const auto origin = redirect_origin_.find(fp);
        relinks_.push_back(
          FrontierEntry{0, origin == redirect_origin_.end() ? std::string{url} : origin->second, depth, parent_url});
        return std::nullopt;
      }
      if (leased_.count(fp) > 0) {
        lowered_in_flight_[fp] = FrontierEntry{0, std::string{url}, depth, parent_url};
        return std::nullopt;
      }
      // Admitted by the trap rules when first met; its row moves to the new
      // seq and depth (requeue_frontier), and the older entry is skipped.
      FrontierEntry entry{next_seq_++, std::string{url}, depth, parent_url};
      enqueue(entry, host_key);
      lowered_.push_back(std::move(entry));
      return std::nullopt;
    }
    case FingerprintSet::Offer::added:
      break;
  }
  FrontierEntry entry{next_seq_++, std::string{url}, depth, parent_url};
  // Trap rules run after the seen-set, so each URL is judged (and counted)
  // once; a refused URL stays seen and is recorded with the rule's name.
  if (traps_) {
    // The URL is a Url's text (the Processor resolved it): not parsed again.
    if (auto rule = traps_->admit(Url::from_canonical(entry.url))) {
      seen_.pin(fp);
      refusals_.push_back(FrontierRefusal{std::move(entry), std::move(*rule)});
      return std::nullopt;
    }
  }
  enqueue(entry, host_key);
  return entry;
}

bool FrontierWindow::revisit(const FrontierEntry& due) {
  const std::uint64_t fp = url_fingerprint(due.url);
  if (!seen_.fetched(fp) || leased_.count(fp) > 0 || redirect_origin_.count(fp) > 0)
    return false;
  auto url = Url::parse(due.url);
  if (!url)
    return false;
  seen_.clear_fetched(fp);
  FrontierEntry entry = due;
  entry.seq = next_seq_++;
  enqueue(entry, url->host_key());
  lowered_.push_back(std::move(entry));
  return true;
}

std::vector<FrontierEntry> FrontierWindow::take_relinks() {
  std::vector<FrontierEntry> out;
  out.swap(relinks_);
  return out;
}

std::vector<FrontierEntry> FrontierWindow::take_lowered() {
  std::vector<FrontierEntry> out;
  out.swap(lowered_);
  return out;
}

bool FrontierWindow::superseded(const std::string& url, std::int32_t depth) const {
  return depth > 0 && seen_.depth_of(url_fingerprint(url)) < std::min(depth, 255);
}

void FrontierWindow::enqueue(const FrontierEntry& entry, const std::string& host_key) {
  if (spilled_ == 0 && held() < limits_.window) {
    window_.push_back(Queued{entry.seq, entry.url, host_key, entry.depth, 0, entry.etag, entry.last_modified,
                             entry.content_digest});
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
  while (jobs.size() < n && !window_.empty() && !budget_exhausted()) {
    Queued q = std::move(window_.front());
    window_.pop_front();
    const std::uint64_t fp = url_fingerprint(q.url);
    if (superseded(q.url, q.depth) || seen_.fetched(fp))
      continue;
    if (cap > 0) {
      auto& leased = leased_per_host_[q.host_key];
      if (leased >= cap) {
        // Held back until one of the host's leases ends (release_lease).
        held_back_[q.host_key].push_back(std::move(q));
        ++held_back_count_;
        continue;
      }
      ++leased;
    }
    // Requested from now on: never queued again (a crawl asks a host for a
    // page once); met closer to a seed meanwhile, see offer().
    leased_.insert(fp);
    CrawlJob job{static_cast<std::uint64_t>(q.seq), std::move(q.url), std::move(q.host_key), q.depth, q.attempts + 1};
    job.etag = std::move(q.etag);
    job.last_modified = std::move(q.last_modified);
    job.stored_digest = std::move(q.stored_digest);
    jobs.push_back(std::move(job));
    ++in_flight_;
  }
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
  // The host may lease again: its oldest held-back URL goes to the front of
  // the window, ahead of younger hosts' URLs, as its BFS place says.
  // Entries met again closer to a seed meanwhile are dropped here: one
  // release must bring one live entry back, or the host's last URLs would
  // wait for a release that never comes.
  auto held = held_back_.find(host_key);
  if (held == held_back_.end())
    return;
  auto& queue = held->second;
  while (!queue.empty()) {
    Queued q = std::move(queue.front());
    queue.pop_front();
    --held_back_count_;
    if (!superseded(q.url, q.depth)) {
      window_.push_front(std::move(q));
      break;
    }
  }
  if (queue.empty())
    held_back_.erase(held);
}

void FrontierWindow::settle(const CrawlJob& job) {
  // Fetched: never queued again. Met closer to a seed while in flight: its
  // links, stored by now, are offered again at that depth.
  const std::uint64_t fp = url_fingerprint(job.url);
  seen_.mark_fetched(fp);
  if (auto lowered = end_flight(fp))
    relinks_.push_back(std::move(*lowered));
  mark_redirect_targets(job);
  release_lease(job.host_key);
  ++settled_;
}

void FrontierWindow::mark_redirect_targets(const CrawlJob& job) {
  // The hops after the first, and the URL the chain ended at, were requested
  // too: never again in this crawl. Met closer to a seed, each relinks the
  // page the chain is stored under (its first URL).
  auto mark = [&](const std::string& url) {
    if (url.empty() || url == job.url)
      return;
    const std::uint64_t fp = url_fingerprint(url);
    if (seen_.fetched(fp))
      return;
    seen_.mark_fetched(fp, job.depth);
    redirect_origin_.emplace(fp, job.url);
    redirect_targets_.push_back(url);
  };
  for (const auto& hop : job.hop_urls)
    mark(hop);
  mark(job.fetch_url);
}

std::vector<std::string> FrontierWindow::take_redirect_targets() {
  std::vector<std::string> out;
  out.swap(redirect_targets_);
  return out;
}

void FrontierWindow::failed(const CrawlJob& job) {
  // No page, no links: settled for good and never lowered.
  const std::uint64_t fp = url_fingerprint(job.url);
  seen_.pin(fp);
  end_flight(fp);
  release_lease(job.host_key);
  ++settled_;
}

void FrontierWindow::park(const CrawlJob& job, Clock::time_point due) {
  // Met closer to a seed while in flight: it waits at that depth (the
  // seen-set has it already, so the entry is not taken as superseded).
  const auto lowered = end_flight(url_fingerprint(job.url));
  release_lease(job.host_key);
  parked_.emplace(due, Queued{static_cast<std::int64_t>(job.seq), job.url, job.host_key,
                              lowered ? lowered->depth : job.depth, job.attempt, job.etag, job.last_modified,
                              job.stored_digest});
}

std::size_t FrontierWindow::take_due(Clock::time_point now) {
  std::size_t n = 0;
  // Due ones go to the front, the earliest first: they were leased before
  // anything still in the window.
  std::vector<Queued> due;
  for (auto it = parked_.begin(); it != parked_.end() && it->first <= now; it = parked_.erase(it))
    due.push_back(std::move(it->second));
  for (auto it = due.rbegin(); it != due.rend(); ++it, ++n)
    window_.push_front(std::move(*it));
  return n;
}

std::optional<FrontierWindow::Clock::time_point> FrontierWindow::next_due() const {
  if (parked_.empty())
    return std::nullopt;
  return parked_.begin()->first;
}

void FrontierWindow::give_back(std::vector<CrawlJob> jobs) {
  // Front of the window, oldest first, so they are the next to go out.
  std::sort(jobs.begin(), jobs.end(),
            [](const CrawlJob& a, const CrawlJob& b) { return a.seq > b.seq; });
  for (auto& job : jobs) {
    const auto lowered = end_flight(url_fingerprint(job.url));
    release_lease(job.host_key);
    const std::int32_t depth = lowered ? lowered->depth : job.depth;
    window_.push_front(Queued{static_cast<std::int64_t>(job.seq), std::move(job.url), std::move(job.host_key), depth,
                              job.attempt, std::move(job.etag), std::move(job.last_modified),
                              std::move(job.stored_digest)});
  }
}

std::optional<RefillRequest> FrontierWindow::refill_request() {
  if (refill_pending_ || spilled_ == 0 || held() >= limits_.window / 2)
    return std::nullopt;
  refill_pending_ = true;
  refill_asked_seq_ = next_seq_;
  spilled_since_ask_ = 0;
  return RefillRequest{refill_cursor_, limits_.window - std::min(held(), limits_.window)};
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
    // Rows store only the URL (a Url's text); the host key is derived again
    // from it.
    window_.push_back(
      Queued{row.seq, row.url, Url::from_canonical(row.url).host_key(), row.depth, 0, row.etag, row.last_modified,
             row.content_digest});
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
  return budget_exhausted() || (held() == 0 && spilled_ == 0);
}

}  // namespace actorcrawl
