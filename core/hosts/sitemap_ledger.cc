#include "core/hosts/sitemap_ledger.h"

#include <functional>
#include <utility>

#include "core/web/url.h"

namespace actorcrawl {

namespace {

// Refusals that get a row of their own: the URL was never fetched and the
// reason is about it (not about a name repeated).
bool refusal_has_row(const std::string& reason) {
  return reason == "sitemap_depth" || reason == "sitemap_host_cap";
}

}  // namespace

SitemapLedger::SitemapLedger(SitemapLedgerSettings settings)
    : settings_(std::move(settings)), walk_(settings_.limits) {
  if (settings_.max_attempts < 1)
    settings_.max_attempts = 1;
  SitemapScope seed_hosts;
  for (const auto& text : settings_.seeds)
    if (const auto seed = Url::parse(text)) {
      seed_hosts_.insert(seed->host_key());
      seed_hosts.allow_host(*seed);
    }
  const auto before = walk_.counts().sitemaps_refused;
  for (const auto& text : settings_.given) {
    SitemapScope grant = seed_hosts;
    if (const auto url = Url::parse(text))
      grant.allow_host(*url);
    walk_.add_sitemap(text, std::move(grant));
  }
  note_refusals(before);
}

void SitemapLedger::history_loaded(const std::vector<std::string>& read_before) {
  read_before_.insert(read_before.begin(), read_before.end());
  history_ready_ = true;
}

void SitemapLedger::reread(const std::vector<std::string>& due) {
  // A sitemap read again may list any URL of its own host, as when its
  // host's robots.txt named it (how nearly every sitemap is found).
  for (const auto& url : due) {
    SitemapScope grant;
    if (const auto parsed = Url::parse(url))
      grant.allow_host(*parsed);
    walk_.add_sitemap(url, std::move(grant));
  }
}

void SitemapLedger::note_refusals(const std::map<std::string, std::uint64_t>& before) {
  for (const auto& [name, count] : walk_.counts().sitemaps_refused) {
    const auto was = before.find(name);
    const std::uint64_t grew = count - (was == before.end() ? 0 : was->second);
    if (grew > 0 && !refusal_has_row(name))
      refusals_[name] += static_cast<std::int64_t>(grew);
  }
}

void SitemapLedger::on_robots(const std::string& robots_url, const std::vector<std::string>& sitemaps) {
  const auto url = Url::parse(robots_url);
  if (!url)
    return;
  if (settings_.crawls_host && !sitemaps.empty()) {
    const std::optional<Url> root = url->resolve("/");
    if (!root || !settings_.crawls_host(*root)) {
      refusals_["sitemap_host_not_crawled"] += static_cast<std::int64_t>(sitemaps.size());
      return;
    }
  }
  const auto before = walk_.counts().sitemaps_refused;
  walk_.on_robots(*url, sitemaps, seed_hosts_.count(url->host_key()) != 0);
  note_refusals(before);
}

std::vector<CrawlJob> SitemapLedger::take_jobs(std::int64_t now_ms) {
  std::vector<CrawlJob> jobs;
  if (!history_ready_)
    return jobs;
  while (auto fetch = walk_.next()) {
    if (read_before_.count(fetch->url) != 0) {
      // Read by an earlier run, whose URLs are in the frontier already.
      walk_.fetch_failed(*fetch, "sitemap_read_before");
      ++refusals_["sitemap_read_before"];
      continue;
    }
    if (budget_spent()) {
      walk_.fetch_failed(*fetch, "max_pages");
      refused_rows_.push_back(row_of(*fetch, "failed", "max_pages", now_ms));
      mark_unread(fetch->named_by);
      continue;
    }
    ++documents_handed_out_;
    const std::uint64_t seq = kSitemapSeqBit | next_seq_++;
    jobs.push_back(CrawlJob{seq, fetch->url, fetch->host_key, 0, 1});
    open_.emplace(seq, Open{std::move(*fetch), 1});
  }
  return jobs;
}

const SitemapScope* SitemapLedger::scope_of(std::uint64_t seq) const {
  const auto it = open_.find(seq);
  return it == open_.end() ? nullptr : &it->second.fetch.scope;
}

SitemapRow SitemapLedger::row_of(const SitemapFetch& fetch, std::string status, std::string reason,
                                 std::int64_t now_ms) const {
  SitemapRow row;
  row.url = fetch.url;
  row.host_key = fetch.host_key;
  row.status = std::move(status);
  row.reason = std::move(reason);
  row.fetched_at_ms = now_ms;
  row.named_by = fetch.named_by;
  return row;
}

std::optional<SitemapLedger::Read> SitemapLedger::read(std::uint64_t seq, SitemapParse parse, std::int64_t now_ms) {
  auto it = open_.find(seq);
  if (it == open_.end())
    return std::nullopt;
  const SitemapFetch fetch = std::move(it->second.fetch);
  open_.erase(it);
  Read out;
  if (!parse.redirect_to.empty()) {
    // The target is a document of its own (its own row when it ends).
    book(parse.redirect_to, now_ms, [&] { walk_.redirected(fetch, parse.redirect_to); });
    out.row = row_of(fetch, "redirected", parse.failure, now_ms);
    return out;
  }
  if (!parse.failure.empty()) {
    walk_.fetch_failed(fetch, parse.failure);
    out.row = row_of(fetch, "failed", parse.failure, now_ms);
    return out;
  }
  const SitemapReport& report = parse.report;
  std::int64_t accepted = 0;
  if (report.kind == SitemapKind::index) {
    // One child at a time, so each refusal is known by its URL.
    for (auto& link : parse.links) {
      const std::string url = link.url;
      if (book(url, now_ms, [&] {
            walk_.take(fetch, SitemapKind::index, {SitemapEntry{std::move(link.url), std::nullopt, {}, std::nullopt}});
          }))
        ++accepted;
    }
  } else {
    std::vector<SitemapEntry> entries;
    entries.reserve(parse.links.size());
    for (auto& link : parse.links)
      entries.push_back(SitemapEntry{std::move(link.url),
                                     link.lastmod_ms != 0 ? std::optional<std::int64_t>{link.lastmod_ms} : std::nullopt,
                                     {}, std::nullopt});
    const auto dropped_before = walk_.counts().urls_dropped;
    for (auto& entry : walk_.take(fetch, report.kind, std::move(entries))) {
      std::string host = Url::from_canonical(entry.url).host_key();
      out.pages.push_back(SitemapLink{std::move(entry.url), std::move(host), entry.lastmod_ms.value_or(0)});
    }
    accepted = static_cast<std::int64_t>(out.pages.size());
    for (const auto& [name, count] : walk_.counts().urls_dropped) {
      const auto was = dropped_before.find(name);
      const std::uint64_t grew = count - (was == dropped_before.end() ? 0 : was->second);
      if (grew > 0)
        refusals_["url_" + name] += static_cast<std::int64_t>(grew);
    }
  }
  // What the parser dropped: child sitemaps of an index, page URLs of the rest.
  const std::string prefix = report.kind == SitemapKind::index ? "sitemap_" : "url_";
  for (int i = 0; i < kSitemapDropCount; ++i)
    if (report.counts.dropped[static_cast<std::size_t>(i)] > 0)
      refusals_[prefix + to_string(static_cast<SitemapDrop>(i))] +=
        static_cast<std::int64_t>(report.counts.dropped[static_cast<std::size_t>(i)]);
  if (parse.out_of_scope > 0)
    refusals_["url_out_of_scope"] += static_cast<std::int64_t>(parse.out_of_scope);
  walk_.finish(fetch, report);
  // A document cut short by a named error, or by a transfer that failed
  // midway, keeps what came before it.
  // When the transfer broke off, the parser's complaint (a document that
  // ends early) is the break's doing: the break is the reason.
  out.row = !parse.cut_short.empty()                ? row_of(fetch, "failed", parse.cut_short, now_ms)
            : report.error != SitemapError::none ? row_of(fetch, "failed", to_string(report.error), now_ms)
                                                 : row_of(fetch, "fetched", "", now_ms);
  out.row.urls_found = static_cast<std::int64_t>(report.counts.urls_found);
  out.row.urls_accepted = accepted;
  if (report.kind == SitemapKind::index && out.row.status == "fetched")
    indexes_read_[fetch.url] = IndexRead{out.row, fetch.named_by};
  else
    urls_accepted_ += accepted;
  return out;
}

bool SitemapLedger::budget_spent() const {
  return settings_.max_pages > 0 &&
         (documents_handed_out_ >= settings_.max_pages || urls_accepted_ >= settings_.max_pages);
}

void SitemapLedger::mark_unread(std::string named_by) {
  // Up the chain of indexes (at most max_depth), each once.
  while (!named_by.empty()) {
    const auto it = indexes_read_.find(named_by);
    if (it == indexes_read_.end() || it->second.unread)
      return;
    it->second.unread = true;
    SitemapRow row = it->second.row;
    row.reason = "children_unread";
    refused_rows_.push_back(std::move(row));
    named_by = it->second.named_by;
  }
}

bool SitemapLedger::book(const std::string& url, std::int64_t now_ms, const std::function<void()>& queue) {
  const auto before = walk_.counts().sitemaps_refused;
  const auto queued_before = walk_.counts().sitemaps_queued;
  queue();
  if (walk_.counts().sitemaps_queued > queued_before)
    return true;
  for (const auto& [name, count] : walk_.counts().sitemaps_refused) {
    const auto was = before.find(name);
    if (count > (was == before.end() ? 0 : was->second) && refusal_has_row(name)) {
      // Refused for a reason about it: a URL the walk could parse.
      const std::optional<Url> parsed = Url::parse(url);
      SitemapRow row;
      row.url = parsed ? parsed->str() : url;
      row.host_key = parsed ? parsed->host_key() : std::string{};
      row.status = "refused";
      row.reason = name;
      row.fetched_at_ms = now_ms;
      refused_rows_.push_back(std::move(row));
    }
  }
  note_refusals(before);
  return false;
}

std::optional<SitemapRow> SitemapLedger::end(std::uint64_t seq, const std::string& status, const std::string& reason,
                                             std::int64_t now_ms) {
  auto it = open_.find(seq);
  if (it == open_.end())
    return std::nullopt;
  const SitemapFetch fetch = std::move(it->second.fetch);
  open_.erase(it);
  walk_.fetch_failed(fetch, reason);
  if (reason == "stopped")
    mark_unread(fetch.named_by);
  return row_of(fetch, status, reason, now_ms);
}

std::optional<SitemapRow> SitemapLedger::refused(std::uint64_t seq, const std::string& reason, std::int64_t now_ms) {
  return end(seq, "refused", reason, now_ms);
}

std::optional<SitemapRow> SitemapLedger::failed(std::uint64_t seq, const std::string& reason, std::int64_t now_ms) {
  return end(seq, "failed", reason, now_ms);
}

SitemapLedger::Lost SitemapLedger::lost(const CrawlJob& job, std::int64_t now_ms) {
  Lost out;
  auto it = open_.find(job.seq);
  if (it == open_.end() || it->second.attempt != job.attempt)
    return out;  // ended already, or an earlier attempt's lease
  if (it->second.attempt >= settings_.max_attempts) {
    out.row = end(job.seq, "failed", "worker_lost", now_ms);
    return out;
  }
  ++it->second.attempt;
  out.retry = CrawlJob{job.seq, it->second.fetch.url, it->second.fetch.host_key, 0, it->second.attempt};
  return out;
}

std::vector<SitemapRow> SitemapLedger::stop(std::int64_t now_ms) {
  std::vector<SitemapRow> rows;
  while (auto fetch = walk_.next()) {
    walk_.fetch_failed(*fetch, "stopped");
    rows.push_back(row_of(*fetch, "failed", "stopped", now_ms));
    mark_unread(fetch->named_by);
  }
  // The indexes above them (rows of their own, read again next run).
  for (auto& row : take_refused_rows())
    rows.push_back(std::move(row));
  return rows;
}

std::vector<SitemapOutcomeCount> SitemapLedger::take_refusals() {
  std::vector<SitemapOutcomeCount> out;
  for (auto& [name, count] : refusals_)
    out.push_back(SitemapOutcomeCount{name, count});
  refusals_.clear();
  return out;
}

std::vector<SitemapRow> SitemapLedger::take_refused_rows() {
  std::vector<SitemapRow> out;
  out.swap(refused_rows_);
  return out;
}

}  // namespace actorcrawl
