#include "core/frontier/frontier_window.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/web/url.h"
#include "core/web/url_fingerprint.h"

namespace actorcrawl {
namespace {

FrontierWindow::Limits limits(std::size_t window, std::int64_t max_pages, std::int32_t max_depth) {
  FrontierWindow::Limits l;
  l.window = window;
  l.max_pages = max_pages;
  l.max_depth = max_depth;
  return l;
}

// Spread over a few hosts, one with a non-default port, so host keys differ.
std::string url_n(int i) {
  switch (i % 3) {
    case 0: return "http://a.test/p" + std::to_string(i);
    case 1: return "http://b.test/p" + std::to_string(i);
    default: return "http://c.test:8080/p" + std::to_string(i);
  }
}

std::string host_of(const std::string& url) {
  const std::optional<Url> u = Url::parse(url);
  REQUIRE(u);
  return u->host_key();
}

// Offers url_n(first) .. url_n(first + count - 1) at depth 1, all accepted.
std::vector<FrontierEntry> offer_range(FrontierWindow& w, int first, int count) {
  std::vector<FrontierEntry> rows;
  for (int i = first; i < first + count; ++i) {
    const std::string url = url_n(i);
    std::optional<FrontierEntry> e = w.offer(url, host_of(url), 1, "http://a.test/");
    REQUIRE(e);
    rows.push_back(*e);
  }
  return rows;
}

std::vector<std::int64_t> seqs_of(const std::vector<CrawlJob>& jobs) {
  std::vector<std::int64_t> out;
  for (const auto& j : jobs)
    out.push_back(static_cast<std::int64_t>(j.seq));
  return out;
}

std::vector<std::int64_t> seq_range(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> out;
  for (std::int64_t s = first; s <= last; ++s)
    out.push_back(s);
  return out;
}

// The stored rows with seq in [first, last], as the database returns them.
std::vector<FrontierEntry> rows_between(const std::vector<FrontierEntry>& all, std::int64_t first,
                                        std::int64_t last) {
  std::vector<FrontierEntry> out;
  for (const auto& r : all)
    if (r.seq >= first && r.seq <= last)
      out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("FrontierWindow: offer returns the row to persist and refuses a seen URL",
          "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  std::optional<FrontierEntry> e = w.offer("http://a.test/x", "a.test", 2, "http://a.test/");
  REQUIRE(e);
  CHECK(e->seq == 1);
  CHECK(e->url == "http://a.test/x");
  CHECK(e->depth == 2);
  CHECK(e->parent_url == "http://a.test/");

  // Same URL again, from another page and a depth no smaller: already seen.
  CHECK_FALSE(w.offer("http://a.test/x", "a.test", 3, "http://a.test/other"));
  CHECK(w.seen() == 1);
  CHECK(w.queued() == 1);
  CHECK(w.next_seq() == 2);

  std::optional<FrontierEntry> f = w.offer("http://a.test/y", "a.test", 2, "http://a.test/");
  REQUIRE(f);
  CHECK(f->seq == 2);
  CHECK(w.seen() == 2);
  CHECK(w.queued() == 2);
}

TEST_CASE("FrontierWindow: a URL deeper than max_depth is refused and not marked seen",
          "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 2));
  CHECK_FALSE(w.offer("http://a.test/deep", "a.test", 3, "http://a.test/"));
  CHECK(w.seen() == 0);
  CHECK(w.queued() == 0);
  CHECK(w.next_seq() == 1);
  // Refusing it must not poison the seen-set: found again at an allowed
  // depth, it is accepted.
  std::optional<FrontierEntry> e = w.offer("http://a.test/deep", "a.test", 2, "http://a.test/");
  REQUIRE(e);
  CHECK(e->seq == 1);
  CHECK(e->depth == 2);
  // max_depth itself is allowed.
  CHECK(w.offer("http://a.test/other", "a.test", 2, ""));
}

TEST_CASE("FrontierWindow: take leases in seq order with the job's fields", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  offer_range(w, 0, 5);
  std::vector<CrawlJob> first = w.take(2);
  CHECK(seqs_of(first) == std::vector<std::int64_t>{1, 2});
  CHECK(first[0].url == url_n(0));
  CHECK(first[0].host_key == "a.test");
  CHECK(first[0].depth == 1);
  CHECK(first[1].url == url_n(1));
  CHECK(first[1].host_key == "b.test");
  CHECK(w.in_flight() == 2);
  CHECK(w.queued() == 3);

  std::vector<CrawlJob> rest = w.take(10);
  CHECK(seqs_of(rest) == std::vector<std::int64_t>{3, 4, 5});
  CHECK(rest[0].host_key == "c.test:8080");
  CHECK(w.in_flight() == 5);
  CHECK(w.queued() == 0);
  CHECK(w.take(10).empty());
}

TEST_CASE("FrontierWindow: the page budget counts settled and in-flight URLs",
          "[frontier_window]") {
  FrontierWindow w(limits(100, 3, 5));
  offer_range(w, 0, 6);
  CHECK_FALSE(w.budget_exhausted());
  std::vector<CrawlJob> jobs = w.take(10);
  CHECK(seqs_of(jobs) == std::vector<std::int64_t>{1, 2, 3});
  CHECK(w.budget_exhausted());
  CHECK(w.queued() == 3);

  // A settled fetch still used up budget: nothing more may go out.
  w.settle(jobs[0]);
  CHECK(w.settled() == 1);
  CHECK(w.in_flight() == 2);
  CHECK(w.take(10).empty());

  // A lease given back never became a fetch, so its budget is free again.
  w.give_back({jobs[1]});
  CHECK(w.in_flight() == 1);
  CHECK_FALSE(w.budget_exhausted());
  CHECK(seqs_of(w.take(10)) == std::vector<std::int64_t>{2});
  CHECK(w.budget_exhausted());
}

TEST_CASE("FrontierWindow: finished", "[frontier_window]") {
  SECTION("nothing queued and nothing in flight") {
    FrontierWindow w(limits(100, 10, 5));
    CHECK(w.finished());
    offer_range(w, 0, 2);
    CHECK_FALSE(w.finished());
    std::vector<CrawlJob> jobs = w.take(10);
    CHECK_FALSE(w.finished());  // in flight
    w.settle(jobs[0]);
    CHECK_FALSE(w.finished());
    w.settle(jobs[1]);
    CHECK(w.finished());
    CHECK(w.settled() == 2);
  }
  SECTION("budget used up with URLs still queued, once the last lease settles") {
    FrontierWindow w(limits(100, 2, 5));
    offer_range(w, 0, 5);
    std::vector<CrawlJob> jobs = w.take(10);
    REQUIRE(jobs.size() == 2);
    CHECK(w.budget_exhausted());
    CHECK_FALSE(w.finished());
    w.settle(jobs[0]);
    w.settle(jobs[1]);
    CHECK(w.queued() == 3);
    CHECK(w.finished());
  }
  SECTION("spilled rows or a pending refill keep it going") {
    FrontierWindow w(limits(4, 100, 5));
    offer_range(w, 0, 6);  // 4 in memory, 2 spilled
    std::vector<CrawlJob> jobs = w.take(10);
    REQUIRE(jobs.size() == 4);
    for (const auto& j : jobs)
      w.settle(j);
    CHECK(w.queued() == 2);
    CHECK_FALSE(w.finished());  // the 2 spilled rows are still to come
    std::optional<RefillRequest> req = w.refill_request();
    REQUIRE(req);
    CHECK_FALSE(w.finished());  // waiting for the rows
    w.refilled({}, req->limit);  // the store had none after all
    CHECK(w.queued() == 0);
    CHECK(w.finished());
  }
}

TEST_CASE("FrontierWindow: spill beyond the window and refill in seq order", "[frontier_window]") {
  FrontierWindow w(limits(16, 1000, 5));
  const std::vector<FrontierEntry> stored = offer_range(w, 0, 40);
  CHECK(w.queued() == 40);
  CHECK(w.seen() == 40);
  // The window is full, not low: nothing to load yet.
  CHECK_FALSE(w.refill_request());

  // Only the first 16 are in memory.
  std::vector<CrawlJob> jobs = w.take(100);
  CHECK(seqs_of(jobs) == seq_range(1, 16));
  CHECK(w.queued() == 24);  // all spilled

  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 17);  // past every row that was in memory
  CHECK(req->limit == 16);     // room for a whole window
  // At most one refill at a time.
  CHECK_FALSE(w.refill_request());

  w.refilled(rows_between(stored, 17, 32), req->limit);
  CHECK(w.queued() == 24);  // 16 in memory, 8 still spilled
  jobs = w.take(100);
  CHECK(seqs_of(jobs) == seq_range(17, 32));
  // Rows carry no host key; it is derived from the URL again.
  for (const auto& j : jobs) {
    CHECK(j.url == url_n(static_cast<int>(j.seq) - 1));
    CHECK(j.host_key == host_of(j.url));
    CHECK(j.depth == 1);
  }
  CHECK(jobs[1].host_key == "c.test:8080");  // seq 18 is url_n(17)

  req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 33);
  CHECK(req->limit == 16);
  w.refilled(rows_between(stored, 33, 40), req->limit);  // 8 < 16: store exhausted
  CHECK(w.queued() == 8);
  CHECK(seqs_of(w.take(100)) == seq_range(33, 40));
  CHECK(w.queued() == 0);
  CHECK_FALSE(w.refill_request());
}

TEST_CASE("FrontierWindow: a refill is asked for only when the window is below half",
          "[frontier_window]") {
  FrontierWindow w(limits(16, 1000, 5));
  offer_range(w, 0, 20);
  CHECK(w.take(8).size() == 8);  // 8 left in memory: exactly half
  CHECK_FALSE(w.refill_request());
  CHECK(w.take(1).size() == 1);  // 7 left
  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 17);
  CHECK(req->limit == 9);  // fills the window back to 16
}

TEST_CASE("FrontierWindow: fewer rows than requested means nothing is spilled any more",
          "[frontier_window]") {
  FrontierWindow w(limits(16, 1000, 5));
  const std::vector<FrontierEntry> stored = offer_range(w, 0, 40);
  w.take(100);
  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  // The count said 24, but the store holds only 5 (say, settled by another
  // path): trusting the count would wait forever for rows that never come.
  w.refilled(rows_between(stored, 17, 21), req->limit);
  CHECK(w.queued() == 5);
  CHECK(seqs_of(w.take(100)) == seq_range(17, 21));
  CHECK_FALSE(w.refill_request());
  // New URLs go straight into memory again, after the refilled ones.
  std::optional<FrontierEntry> e = w.offer("http://a.test/new", "a.test", 1, "");
  REQUIRE(e);
  CHECK(e->seq == 41);
  CHECK(w.queued() == 1);
  CHECK(seqs_of(w.take(100)) == std::vector<std::int64_t>{41});
}

// URLs spilled while a refill is on its way were written after the load was
// asked for, so a short answer says nothing about them: they must still be
// loaded by the next refill.
TEST_CASE("FrontierWindow: URLs spilled while a refill is pending are not lost",
          "[frontier_window]") {
  FrontierWindow w(limits(16, 1000, 5));
  std::vector<FrontierEntry> stored = offer_range(w, 0, 20);  // 16 in memory, 4 spilled
  w.take(100);
  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 17);
  // The load runs now and sees seq 17..20 only.
  const std::vector<FrontierEntry> loaded = rows_between(stored, 17, 20);
  // Meanwhile more links arrive; they queue behind the spilled ones.
  for (const auto& e : offer_range(w, 20, 3))
    stored.push_back(e);
  CHECK(w.queued() == 7);
  w.refilled(loaded, req->limit);  // 4 < 16
  CHECK(w.queued() == 7);
  CHECK(seqs_of(w.take(100)) == seq_range(17, 20));
  req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 21);
  w.refilled(rows_between(stored, 21, 23), req->limit);
  CHECK(seqs_of(w.take(100)) == seq_range(21, 23));
  CHECK(w.queued() == 0);
}

TEST_CASE("FrontierWindow: a failed refill may be asked for again", "[frontier_window]") {
  FrontierWindow w(limits(16, 1000, 5));
  offer_range(w, 0, 20);
  w.take(100);
  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  // The actor reports a storage error as an empty answer to an empty request.
  w.refilled({}, 0);
  CHECK(w.queued() == 4);  // the spilled rows are still owed
  std::optional<RefillRequest> again = w.refill_request();
  REQUIRE(again);
  CHECK(again->from_seq == 17);
  CHECK(again->limit == 16);
}

TEST_CASE("FrontierWindow: give_back puts leases at the front in seq order", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  offer_range(w, 0, 8);
  std::vector<CrawlJob> jobs = w.take(5);  // 1..5
  CHECK(w.in_flight() == 5);
  // Returned out of order: they still go out oldest first, before seq 6.
  w.give_back({jobs[3], jobs[1]});
  CHECK(w.in_flight() == 3);
  CHECK(w.queued() == 5);
  std::vector<CrawlJob> again = w.take(3);
  CHECK(seqs_of(again) == std::vector<std::int64_t>{2, 4, 6});
  CHECK(again[0].url == url_n(1));
  CHECK(again[0].host_key == "b.test");
  CHECK(again[1].url == url_n(3));
  CHECK(w.in_flight() == 6);
}

TEST_CASE("FrontierWindow: resume from a stored crawl", "[frontier_window]") {
  FrontierWindow w(limits(16, 5, 5));
  ResumeState state;
  for (int i = 0; i < 5; ++i)
    state.seen.push_back(SeenUrl{url_fingerprint(url_n(i)), 0});
  state.next_seq = 6;
  state.queued = 3;   // seq 3, 4, 5
  state.settled = 2;  // seq 1, 2
  w.resume(state);

  CHECK(w.seen() == 5);
  CHECK(w.settled() == 2);
  CHECK(w.queued() == 3);
  CHECK(w.next_seq() == 6);
  CHECK_FALSE(w.finished());
  // Seen on the earlier run, whatever its state: not accepted again.
  CHECK_FALSE(w.offer(url_n(0), "a.test", 0, ""));
  CHECK_FALSE(w.offer(url_n(4), "b.test", 0, ""));

  // A new seed gets the next seq and queues behind the stored rows.
  std::optional<FrontierEntry> seed = w.offer(url_n(5), host_of(url_n(5)), 0, "");
  REQUIRE(seed);
  CHECK(seed->seq == 6);
  CHECK(w.queued() == 4);
  CHECK(w.take(10).empty());  // nothing in memory yet

  std::optional<RefillRequest> req = w.refill_request();
  REQUIRE(req);
  CHECK(req->from_seq == 0);  // the stored queue starts anywhere
  CHECK(req->limit == 16);
  std::vector<FrontierEntry> rows;
  for (int i = 2; i <= 5; ++i)
    rows.push_back(FrontierEntry{i + 1, url_n(i), 0, ""});
  w.refilled(rows, req->limit);
  CHECK(w.queued() == 4);

  // Budget 5 with 2 settled before: 3 more fetches.
  std::vector<CrawlJob> jobs = w.take(10);
  CHECK(seqs_of(jobs) == std::vector<std::int64_t>{3, 4, 5});
  CHECK(w.budget_exhausted());
}

TEST_CASE("FrontierWindow: a URL met again closer to a seed is queued again at the smaller depth",
          "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 3));
  REQUIRE(w.offer("http://a.test/deep", "a.test", 3, "http://a.test/c"));  // seq 1, depth 3
  REQUIRE(w.offer("http://a.test/other", "a.test", 3, "http://a.test/c"));  // seq 2
  CHECK_FALSE(w.offer("http://a.test/deep", "a.test", 3, "http://a.test/d"));  // same depth: seen
  CHECK(w.take_lowered().empty());
  // Found again at depth 1: a new seq and depth, persisted as queued again.
  CHECK_FALSE(w.offer("http://a.test/deep", "a.test", 1, "http://b.test/"));
  auto lowered = w.take_lowered();
  REQUIRE(lowered.size() == 1);
  CHECK(lowered[0].seq == 3);
  CHECK(lowered[0].depth == 1);
  CHECK(lowered[0].parent_url == "http://b.test/");
  CHECK(w.take_lowered().empty());
  CHECK(w.seen() == 2);
  // The older entry (seq 1, depth 3) is skipped: the URL goes out once, at
  // depth 1, and its children (depth 2) are within max_depth 3 again.
  auto jobs = w.take(10);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].seq == 2);
  CHECK(jobs[1].seq == 3);
  CHECK(jobs[1].depth == 1);
  // Fetched, met at 0: never fetched again; its links are to be offered
  // again at depth 1 (take_relinks).
  w.settle(jobs[1]);
  CHECK_FALSE(w.offer("http://a.test/deep", "a.test", 0, "http://c.test/"));
  CHECK(w.take_lowered().empty());
  CHECK(w.take(10).empty());
  auto relinks = w.take_relinks();
  REQUIRE(relinks.size() == 1);
  CHECK(relinks[0].url == "http://a.test/deep");
  CHECK(relinks[0].depth == 0);
  CHECK(relinks[0].parent_url == "http://c.test/");
  CHECK(w.take_relinks().empty());
  // Met again at the same depth: nothing more.
  CHECK_FALSE(w.offer("http://a.test/deep", "a.test", 0, ""));
  CHECK(w.take_relinks().empty());
}

TEST_CASE("FrontierWindow: a URL met closer to a seed while in flight is fetched once, then relinked",
          "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  REQUIRE(w.offer("http://a.test/x", "a.test", 3, "http://a.test/2"));
  REQUIRE(w.offer("http://a.test/p", "a.test", 3, "http://a.test/2"));
  REQUIRE(w.offer("http://a.test/f", "a.test", 3, "http://a.test/2"));
  auto jobs = w.take(10);
  REQUIRE(jobs.size() == 3);
  // All three met at depth 1 while in flight: nothing is queued again.
  CHECK_FALSE(w.offer("http://a.test/x", "a.test", 1, "http://b.test/"));
  CHECK_FALSE(w.offer("http://a.test/x", "a.test", 2, "http://c.test/"));  // not smaller than 1
  CHECK_FALSE(w.offer("http://a.test/p", "a.test", 1, "http://b.test/"));
  CHECK_FALSE(w.offer("http://a.test/f", "a.test", 1, "http://b.test/"));
  CHECK(w.take_lowered().empty());
  CHECK(w.take(10).empty());
  CHECK(w.take_relinks().empty());
  // Fetched: relinked at the smallest depth met.
  w.settle(jobs[0]);
  auto relinks = w.take_relinks();
  REQUIRE(relinks.size() == 1);
  CHECK(relinks[0].url == "http://a.test/x");
  CHECK(relinks[0].depth == 1);
  CHECK(relinks[0].parent_url == "http://b.test/");
  // Failed for good: no page, no links, nothing to relink.
  w.failed(jobs[2]);
  CHECK(w.take_relinks().empty());
  // Parked: it waits at the smaller depth, and goes out once more then.
  const auto now = FrontierWindow::Clock::now();
  w.park(jobs[1], now);
  CHECK(w.take_due(now) == 1);
  auto again = w.take(10);
  REQUIRE(again.size() == 1);
  CHECK(again[0].url == "http://a.test/p");
  CHECK(again[0].depth == 1);
  CHECK(w.take_relinks().empty());
}

TEST_CASE("FrontierWindow: a redirect chain's targets are fetched with it, never again", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  REQUIRE(w.offer("http://a.test/r", "a.test", 1, "http://a.test/"));
  REQUIRE(w.offer("http://a.test/final", "a.test", 2, "http://a.test/hub"));  // queued meanwhile
  auto jobs = w.take(1);
  REQUIRE(jobs.size() == 1);
  CrawlJob chain = jobs[0];
  chain.hop_urls = {"http://a.test/r", "http://b.test/hop"};
  chain.hop_statuses = {301, 302};
  chain.fetch_url = "http://a.test/final";
  chain.fetch_host_key = "a.test";
  w.settle(chain);
  auto targets = w.take_redirect_targets();
  std::sort(targets.begin(), targets.end());
  CHECK(targets == std::vector<std::string>{"http://a.test/final", "http://b.test/hop"});
  CHECK(w.take_redirect_targets().empty());
  // The queued entry of the final URL is skipped; linked again, nothing.
  CHECK(w.take(10).empty());
  CHECK_FALSE(w.offer("http://b.test/hop", "b.test", 3, "http://c.test/"));
  CHECK(w.take(10).empty());
  CHECK(w.finished());
  // Met closer to a seed: the page the chain is stored under is relinked.
  CHECK_FALSE(w.offer("http://a.test/final", "a.test", 0, ""));
  auto relinks = w.take_relinks();
  REQUIRE(relinks.size() == 1);
  CHECK(relinks[0].url == "http://a.test/r");
  CHECK(relinks[0].depth == 0);
}

TEST_CASE("FrontierWindow: resumed rows that were fetched are relinked, never queued again", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  ResumeState state;
  state.seen = {SeenUrl{url_fingerprint("http://a.test/done"), 4, true},
                SeenUrl{url_fingerprint("http://a.test/failed"), 0, false},
                SeenUrl{url_fingerprint("http://a.test/queued"), 4, false}};
  state.next_seq = 10;
  w.resume(state);
  CHECK_FALSE(w.offer("http://a.test/done", "a.test", 1, "http://b.test/"));
  CHECK_FALSE(w.offer("http://a.test/failed", "a.test", 1, "http://b.test/"));
  CHECK_FALSE(w.offer("http://a.test/queued", "a.test", 1, "http://b.test/"));
  auto relinks = w.take_relinks();
  REQUIRE(relinks.size() == 1);
  CHECK(relinks[0].url == "http://a.test/done");
  CHECK(relinks[0].depth == 1);
  auto lowered = w.take_lowered();
  REQUIRE(lowered.size() == 1);
  CHECK(lowered[0].url == "http://a.test/queued");
}

TEST_CASE("FrontierWindow: URLs settled for good are never lowered", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  REQUIRE(w.offer("http://a.test/gone", "a.test", 3, ""));
  REQUIRE(w.offer("http://a.test/robots", "a.test", 3, ""));
  auto jobs = w.take(10);
  REQUIRE(jobs.size() == 2);
  w.failed(jobs[0]);
  w.refused(jobs[1]);
  CHECK_FALSE(w.offer("http://a.test/gone", "a.test", 1, ""));
  CHECK_FALSE(w.offer("http://a.test/robots", "a.test", 1, ""));
  CHECK(w.take_lowered().empty());
  CHECK(w.finished());
}

TEST_CASE("FrontierWindow: a parked URL comes back when due, and does not hold the crawl open",
          "[frontier_window]") {
  using Clock = FrontierWindow::Clock;
  FrontierWindow w(limits(100, 1000, 5));
  REQUIRE(w.offer("http://a.test/x", "a.test", 1, ""));
  auto jobs = w.take(1);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].attempt == 1);
  const auto t0 = Clock::now();
  w.park(jobs[0], t0 + std::chrono::seconds{10});
  CHECK(w.in_flight() == 0);
  CHECK(w.parked() == 1);
  CHECK(w.settled() == 0);  // no budget used
  CHECK(w.finished());      // nothing else to do: the next run offers it
  REQUIRE(w.next_due());
  CHECK(*w.next_due() == t0 + std::chrono::seconds{10});
  CHECK(w.take_due(t0 + std::chrono::seconds{9}) == 0);
  CHECK(w.take_due(t0 + std::chrono::seconds{10}) == 1);
  CHECK(w.parked() == 0);
  CHECK_FALSE(w.next_due());
  jobs = w.take(1);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].seq == 1);
  CHECK(jobs[0].attempt == 2);  // a new lease of the same row
}

// Found in a crawl that ended with two URLs queued and none leasable: a
// held-back entry met again closer to a seed was skipped when its host's
// release brought it back, and the host's next held-back URL waited for a
// release that never came.
TEST_CASE("FrontierWindow: a held-back entry that was lowered does not strand the host's next URL",
          "[frontier_window]") {
  auto lim = limits(100, 1000, 5);
  lim.per_host_leases = 1;
  FrontierWindow w(lim);
  REQUIRE(w.offer("http://a.test/1", "a.test", 2, ""));
  REQUIRE(w.offer("http://a.test/2", "a.test", 3, ""));
  REQUIRE(w.offer("http://a.test/3", "a.test", 3, ""));
  auto jobs = w.take(10);  // a.test/1 out; 2 and 3 held back
  REQUIRE(jobs.size() == 1);
  CHECK_FALSE(w.offer("http://a.test/2", "a.test", 1, ""));  // lowered: a new entry
  REQUIRE(w.take_lowered().size() == 1);
  CHECK(w.take(10).empty());  // the new entry is held back too, behind the old ones
  std::vector<std::string> fetched;
  for (int round = 0; round < 5 && !jobs.empty(); ++round) {
    for (const auto& job : jobs) {
      fetched.push_back(job.url);
      w.settle(job);
    }
    jobs = w.take(10);
  }
  std::sort(fetched.begin(), fetched.end());
  CHECK(fetched == std::vector<std::string>{"http://a.test/1", "http://a.test/2", "http://a.test/3"});
  CHECK(w.finished());
  CHECK(w.queued() == 0);
}

TEST_CASE("FrontierWindow: a URL handed back keeps counting its attempts", "[frontier_window]") {
  FrontierWindow w(limits(100, 1000, 5));
  REQUIRE(w.offer("http://a.test/x", "a.test", 1, ""));
  auto jobs = w.take(1);
  CHECK(jobs[0].attempt == 1);
  w.give_back(jobs);
  jobs = w.take(1);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].attempt == 2);
}

// The whole protocol against an in-memory stand-in for the database, the way
// the FrontierActor drives it: every accepted row is stored as queued, a
// settled row leaves the queue, a refill's rows are read when it is asked
// for but arrive a few steps later (while links keep spilling), leases
// settle in random order. Every URL must go out exactly once, in seq order.
TEST_CASE("FrontierWindow: full spill/refill cycle against a fake store", "[frontier_window]") {
  constexpr int kUrls = 1000;
  FrontierWindow w(limits(16, 1000000, 1000));
  std::map<std::int64_t, FrontierEntry> store;  // rows still queued
  std::mt19937 rng(12345);

  int next_url = 0;
  auto offer_next = [&](std::int32_t depth) {
    const std::string url = url_n(next_url++);
    std::optional<FrontierEntry> e = w.offer(url, host_of(url), depth, "");
    REQUIRE(e);
    store[e->seq] = *e;
  };
  auto load_queued = [&](std::int64_t from_seq, std::size_t limit) {
    std::vector<FrontierEntry> rows;
    for (auto it = store.lower_bound(from_seq); it != store.end() && rows.size() < limit; ++it)
      rows.push_back(it->second);
    return rows;
  };

  struct PendingRefill {
    std::vector<FrontierEntry> rows;
    std::size_t limit;
    int steps_left;
    int late = 0;  // URLs spilled since the load was read
  };
  std::optional<PendingRefill> pending;
  std::vector<CrawlJob> in_flight;
  std::vector<std::int64_t> taken;
  std::set<std::string> taken_urls;
  int refills = 0;
  // Short answers to a refill while URLs spilled after it was asked for.
  int short_with_late = 0;

  offer_next(0);
  int steps = 0;
  while (!(w.finished() && next_url == kUrls && !pending)) {
    REQUIRE(++steps < 100000);
    if (w.queued() == 0 && in_flight.empty() && !pending && next_url < kUrls)
      offer_next(0);  // the crawl ran dry: a new seed keeps it going

    // The HostSelector asks for at most a few more than it holds.
    const std::size_t demand = in_flight.size() < 6 ? 6 - in_flight.size() : 0;
    for (auto& job : w.take(std::min<std::size_t>(rng() % 4 + 1, demand))) {
      REQUIRE((taken.empty() || static_cast<std::int64_t>(job.seq) > taken.back()));
      REQUIRE(taken_urls.insert(job.url).second);
      REQUIRE(job.host_key == host_of(job.url));
      taken.push_back(static_cast<std::int64_t>(job.seq));
      in_flight.push_back(std::move(job));
    }

    if (!in_flight.empty() && rng() % 4 != 0) {
      const std::size_t i = rng() % in_flight.size();
      CrawlJob job = in_flight[i];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(i));
      w.settle(job);
      REQUIRE(store.erase(static_cast<std::int64_t>(job.seq)) == 1);
      // Its page links to new URLs and back to itself. New links come in
      // bursts, so the spill fills up and drains to nothing again and again.
      const bool bursty = steps % 60 < 12;
      const int found = bursty ? static_cast<int>(rng() % 9) : (rng() % 6 == 0 ? 1 : 0);
      for (int k = 0; k < found && next_url < kUrls; ++k) {
        if (pending)
          ++pending->late;
        offer_next(job.depth + 1);
      }
      CHECK_FALSE(w.offer(job.url, job.host_key, job.depth + 1, ""));
    }

    if (pending) {
      if (pending->steps_left-- == 0) {
        if (pending->rows.size() < pending->limit && pending->late > 0)
          ++short_with_late;
        w.refilled(pending->rows, pending->limit);
        pending.reset();
      }
    } else if (std::optional<RefillRequest> req = w.refill_request()) {
      ++refills;
      pending = PendingRefill{load_queued(req->from_seq, req->limit), req->limit,
                              static_cast<int>(rng() % 4)};
    }
  }

  CHECK(taken.size() == static_cast<std::size_t>(kUrls));
  CHECK(taken_urls.size() == static_cast<std::size_t>(kUrls));
  CHECK(store.empty());
  CHECK(w.seen() == static_cast<std::size_t>(kUrls));
  CHECK(w.settled() == kUrls);
  CHECK(w.queued() == 0);
  CHECK(w.in_flight() == 0);
  // The run really exercised the spill path, including its race.
  CHECK(refills > 10);
  CHECK(short_with_late > 0);
}

TEST_CASE("FrontierWindow: per-host leases spread a batch over hosts, in BFS order per host", "[frontier_window]") {
  FrontierWindow::Limits limits;
  limits.window = 100;
  limits.max_pages = 1000;
  limits.per_host_leases = 2;
  FrontierWindow w(limits);
  // BFS order clusters by host: six of a, then two of b, then two of c.
  for (int i = 0; i < 6; ++i)
    REQUIRE(w.offer("http://a.test/" + std::to_string(i), "a.test", 1, ""));
  for (int i = 0; i < 2; ++i)
    REQUIRE(w.offer("http://b.test/" + std::to_string(i), "b.test", 1, ""));
  for (int i = 0; i < 2; ++i)
    REQUIRE(w.offer("http://c.test/" + std::to_string(i), "c.test", 1, ""));

  auto urls = [](const std::vector<CrawlJob>& jobs) {
    std::vector<std::string> out;
    for (const auto& j : jobs)
      out.push_back(j.url);
    return out;
  };
  auto first = w.take(10);
  CHECK(urls(first) == std::vector<std::string>{"http://a.test/0", "http://a.test/1", "http://b.test/0",
                                                "http://b.test/1", "http://c.test/0", "http://c.test/1"});
  CHECK(w.queued() == 4);
  CHECK(w.take(10).empty());  // every host is at its two leases

  // A settled lease makes room for the next URL of that host, in order.
  w.settle(first[0]);
  CHECK(urls(w.take(10)) == std::vector<std::string>{"http://a.test/2"});
  // A returned lease too; the returned URL goes first again.
  w.give_back({first[1]});
  CHECK(urls(w.take(10)) == std::vector<std::string>{"http://a.test/1"});
  CHECK(w.in_flight() == 6);
}

TEST_CASE("FrontierWindow: URLs of a host at its cap are parked, counted and kept in order", "[frontier_window]") {
  FrontierWindow::Limits limits;
  limits.window = 10;
  limits.max_pages = 1000;
  limits.per_host_leases = 2;
  FrontierWindow w(limits);
  auto a = [](int i) { return "http://a.test/" + std::to_string(i); };
  for (int i = 0; i < 8; ++i)
    REQUIRE(w.offer(a(i), "a.test", 1, ""));
  REQUIRE(w.offer("http://b.test/0", "b.test", 1, ""));
  for (int i = 8; i < 30; ++i)
    REQUIRE(w.offer(a(i), "a.test", 1, ""));
  REQUIRE(w.queued() == 31);  // 10 in the window, 21 spilled

  // Two leases of a.test and b.test's URL behind them; a2..a8 are parked.
  auto first = w.take(10);
  REQUIRE(first.size() == 3);
  CHECK(first[2].url == "http://b.test/0");
  CHECK(w.queued() == 28);
  CHECK(w.take(10).empty());
  // Parked URLs still fill the window: no refill is asked for yet.
  CHECK_FALSE(w.refill_request().has_value());
  CHECK_FALSE(w.finished());

  // Each ended lease lets exactly the next parked URL go, oldest first.
  std::vector<CrawlJob> leased = {first[0], first[1]};
  for (int i = 2; i <= 8; ++i) {
    w.settle(leased.front());
    leased.erase(leased.begin());
    auto more = w.take(10);
    REQUIRE(more.size() == 1);
    CHECK(more[0].url == a(i));
    leased.push_back(more[0]);
  }
  CHECK(w.queued() == 21);  // only the spilled rows are left
  CHECK(w.refill_request().has_value());
}

}  // namespace actorcrawl
