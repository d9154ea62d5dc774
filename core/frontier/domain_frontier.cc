#include "core/frontier/domain_frontier.h"

#include <algorithm>

#include "core/web/registrable_domain.h"
#include "core/web/url.h"

namespace actorcrawl {

namespace {

// The host name of a host key, without its port (and IPv6 brackets).
std::string host_name_of(const std::string& host_key) {
  if (!host_key.empty() && host_key.front() == '[')
    return host_key.substr(1, host_key.find(']') - 1);
  return host_key.substr(0, host_key.rfind(':') == std::string::npos ? host_key.size() : host_key.rfind(':'));
}

}  // namespace

DomainFrontier::DomainFrontier(Limits limits) : limits_(limits) {}

bool DomainFrontier::resume(const DomainResume& state) {
  next_seq_ = std::max(next_seq_, state.next_seq);
  settled_ = state.pages_fetched;
  if (!state.seed_known)
    return false;
  for (const auto& node : state.saturated) {
    crawls_[node.host_key] = node.crawl_count;
    admit_host(node.host_key);
  }
  // Crawled hosts keep their places under the subdomain cap first; a node
  // that was only linked, beyond the cap, stays out on resume too.
  for (const auto& node : state.nodes) {
    crawls_[node.host_key] = node.crawl_count;
    if (!admit_host(node.host_key))
      continue;
    if (node.crawl_count < limits_.max_crawls_per_node)
      push(Entry{next_seq_++, node.root_url, node.host_key, 0, 0, node.etag, node.last_modified, node.content_digest});
  }
  return true;
}

bool DomainFrontier::admit_host(const std::string& host_key) {
  auto& hosts = hosts_by_root_[registrable_domain(host_name_of(host_key))];
  if (hosts.count(host_key))
    return true;
  if (hosts.size() >= limits_.max_subdomains_per_root)
    return false;
  hosts.insert(host_key);
  return true;
}

void DomainFrontier::push(Entry entry) {
  queued_at_.emplace(entry.host_key, entry.depth);
  queue_.push_back(std::move(entry));
}

std::optional<FrontierEntry> DomainFrontier::offer(std::string_view url, const std::string& host_key,
                                                   std::int32_t depth, const std::string& parent_url) {
  if (depth > limits_.max_depth)
    return std::nullopt;
  if (queued_at_.count({host_key, depth}))
    return std::nullopt;
  if (crawls_of(host_key) >= limits_.max_crawls_per_node)
    return std::nullopt;
  if (!admit_host(host_key)) {
    // Recorded once per host: it is the host that is over the cap.
    if (refused_hosts_.insert(host_key).second)
      refusals_.push_back(
        FrontierRefusal{FrontierEntry{next_seq_++, std::string{url}, depth, parent_url}, "max_subdomains_per_root"});
    return std::nullopt;
  }
  crawls_.emplace(host_key, 0);
  FrontierEntry entry{next_seq_++, std::string{url}, depth, parent_url};
  push(Entry{entry.seq, entry.url, host_key, depth});
  return entry;
}

std::vector<FrontierRefusal> DomainFrontier::take_refused() {
  std::vector<FrontierRefusal> out;
  out.swap(refusals_);
  return out;
}

std::vector<CrawlJob> DomainFrontier::take(std::size_t n) {
  std::vector<CrawlJob> jobs;
  while (jobs.size() < n && !queue_.empty() && !budget_exhausted()) {
    Entry e = std::move(queue_.front());
    queue_.pop_front();
    queued_at_.erase({e.host_key, e.depth});
    auto& crawls = crawls_[e.host_key];
    if (crawls >= limits_.max_crawls_per_node)
      continue;  // crawled enough since it was queued
    ++crawls;
    ++in_flight_;
    CrawlJob job{static_cast<std::uint64_t>(e.seq), std::move(e.url), std::move(e.host_key), e.depth, e.attempts + 1};
    job.etag = std::move(e.etag);
    job.last_modified = std::move(e.last_modified);
    job.stored_digest = std::move(e.stored_digest);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void DomainFrontier::settle(const CrawlJob&) {
  if (in_flight_ > 0)
    --in_flight_;
  ++settled_;
}

void DomainFrontier::refused(const CrawlJob& job) {
  if (in_flight_ > 0)
    --in_flight_;
  auto it = crawls_.find(job.host_key);
  if (it != crawls_.end() && it->second > 0)
    --it->second;
}

void DomainFrontier::give_back(std::vector<CrawlJob> jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const CrawlJob& a, const CrawlJob& b) { return a.seq > b.seq; });
  for (auto& job : jobs) {
    if (in_flight_ > 0)
      --in_flight_;
    auto it = crawls_.find(job.host_key);
    if (it != crawls_.end() && it->second > 0)
      --it->second;
    queued_at_.emplace(job.host_key, job.depth);
    queue_.push_front(
      Entry{static_cast<std::int64_t>(job.seq), std::move(job.url), std::move(job.host_key), job.depth, job.attempt,
            std::move(job.etag), std::move(job.last_modified), std::move(job.stored_digest)});
  }
}

bool DomainFrontier::budget_exhausted() const {
  return settled_ + static_cast<std::int64_t>(in_flight_) >= limits_.max_pages;
}

bool DomainFrontier::finished() const {
  if (in_flight_ > 0)
    return false;
  return budget_exhausted() || queue_.empty();
}

std::int64_t DomainFrontier::crawls_of(const std::string& host_key) const {
  auto it = crawls_.find(host_key);
  return it == crawls_.end() ? 0 : it->second;
}

void DomainFrontier::failed(const CrawlJob& job) { settle(job); }

// A host is the unit of work here, and a host whose root failed for now is
// queued again by the next run's resume (its crawl count is below the
// limit); within the run it is not offered again.
void DomainFrontier::park(const CrawlJob& job, Clock::time_point) {
  refused(job);
  ++parked_;
}

}  // namespace actorcrawl
