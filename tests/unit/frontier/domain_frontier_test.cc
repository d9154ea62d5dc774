// DomainFrontier: the domains profile's host-level frontier.
#include "core/frontier/domain_frontier.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace actorcrawl {
namespace {

DomainFrontier::Limits limits(std::int32_t max_depth = 5, std::int64_t max_pages = 1000,
                              std::int64_t max_crawls_per_node = 3, std::size_t max_subdomains_per_root = 3) {
  DomainFrontier::Limits l;
  l.max_depth = max_depth;
  l.max_pages = max_pages;
  l.max_crawls_per_node = max_crawls_per_node;
  l.max_subdomains_per_root = max_subdomains_per_root;
  return l;
}

std::string root(const std::string& host_key) { return "http://" + host_key + "/"; }

// Offers a host's root page; true when it was queued.
bool offer(DomainFrontier& f, const std::string& host_key, std::int32_t depth,
           const std::string& parent = "http://parent.test/") {
  return f.offer(root(host_key), host_key, depth, parent).has_value();
}

// (host, depth) of each job, in the order leased.
std::vector<std::pair<std::string, std::int32_t>> hosts_of(const std::vector<CrawlJob>& jobs) {
  std::vector<std::pair<std::string, std::int32_t>> out;
  for (const auto& j : jobs)
    out.emplace_back(j.host_key, j.depth);
  return out;
}

std::vector<std::uint64_t> seqs_of(const std::vector<CrawlJob>& jobs) {
  std::vector<std::uint64_t> out;
  for (const auto& j : jobs)
    out.push_back(j.seq);
  return out;
}

using HostDepths = std::vector<std::pair<std::string, std::int32_t>>;

}  // namespace

TEST_CASE("DomainFrontier: offer, take and settle a host's root page", "[domain_frontier]") {
  DomainFrontier f(limits());
  const std::optional<FrontierEntry> e = f.offer("https://a.test/", "a.test", 0, "");
  REQUIRE(e);
  CHECK(e->seq == 1);
  CHECK(e->url == "https://a.test/");
  CHECK(e->depth == 0);
  CHECK(e->parent_url.empty());
  CHECK(f.queued() == 1);
  CHECK(f.seen() == 1);
  CHECK(f.crawls_of("a.test") == 0);  // queued is not crawled
  CHECK_FALSE(f.finished());

  const std::vector<CrawlJob> jobs = f.take(10);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].seq == 1);
  CHECK(jobs[0].url == "https://a.test/");
  CHECK(jobs[0].host_key == "a.test");
  CHECK(jobs[0].depth == 0);
  CHECK(f.queued() == 0);
  CHECK(f.in_flight() == 1);
  CHECK(f.crawls_of("a.test") == 1);  // counted when leased
  CHECK_FALSE(f.finished());

  f.settle(jobs[0]);
  CHECK(f.in_flight() == 0);
  CHECK(f.settled() == 1);
  CHECK(f.finished());
  // This frontier never pages from the database.
  CHECK_FALSE(f.refill_request());
}

TEST_CASE("DomainFrontier: a host is queued once per depth", "[domain_frontier]") {
  DomainFrontier f(limits());
  CHECK(offer(f, "a.test", 1));
  CHECK_FALSE(offer(f, "a.test", 1));
  // The host is the unit, not the URL: another page or scheme of it is the
  // same node.
  CHECK_FALSE(f.offer("https://a.test/other", "a.test", 1, "").has_value());
  // Another depth is another entry.
  CHECK(offer(f, "a.test", 2));
  CHECK(f.queued() == 2);
  CHECK(f.seen() == 1);
  // A duplicate is not a rule's refusal: nothing to record.
  CHECK(f.take_refused().empty());

  // Once leased it is no longer queued at that depth, so a later link at
  // the same depth queues it again (max_crawls_per_node bounds how often).
  CHECK(hosts_of(f.take(1)) == HostDepths{{"a.test", 1}});
  CHECK(offer(f, "a.test", 1));
  CHECK(hosts_of(f.take(10)) == HostDepths{{"a.test", 2}, {"a.test", 1}});
  CHECK(f.crawls_of("a.test") == 3);
}

TEST_CASE("DomainFrontier: max_crawls_per_node is checked at offer and at take", "[domain_frontier]") {
  DomainFrontier f(limits(5, 1000, 2));
  // Nothing crawled yet: three depths are all accepted.
  CHECK(offer(f, "a.test", 0));
  CHECK(offer(f, "a.test", 1));
  CHECK(offer(f, "a.test", 2));
  CHECK(f.queued() == 3);

  std::vector<CrawlJob> first = f.take(1);
  CHECK(hosts_of(first) == HostDepths{{"a.test", 0}});
  std::vector<CrawlJob> second = f.take(1);
  CHECK(hosts_of(second) == HostDepths{{"a.test", 1}});
  CHECK(f.crawls_of("a.test") == 2);

  // At the limit, an offer is refused...
  CHECK_FALSE(offer(f, "a.test", 3));
  CHECK(f.take_refused().empty());
  // ...and the entry queued before the limit was reached is dropped at take.
  CHECK(f.take(10).empty());
  CHECK(f.queued() == 0);
  CHECK(f.in_flight() == 2);
  CHECK(f.crawls_of("a.test") == 2);

  // A lease that ended without a request gives its crawl back.
  f.refused(second[0]);
  CHECK(f.crawls_of("a.test") == 1);
  CHECK(f.in_flight() == 1);
  CHECK(f.settled() == 0);  // a refusal uses no budget
  CHECK(offer(f, "a.test", 3));
  CHECK(hosts_of(f.take(10)) == HostDepths{{"a.test", 3}});
  CHECK(f.crawls_of("a.test") == 2);
}

TEST_CASE("DomainFrontier: max_subdomains_per_root caps hosts per registrable domain",
          "[domain_frontier]") {
  DomainFrontier f(limits(5, 1000, 3, 3));
  CHECK(f.offer("http://a.example.com/", "a.example.com", 1, "http://seed.test/").has_value());
  CHECK(f.offer("http://b.example.com/", "b.example.com", 1, "http://seed.test/").has_value());
  CHECK(f.offer("http://c.example.com/", "c.example.com", 1, "http://seed.test/").has_value());
  // The fourth host under example.com is refused, once, with the rule's name.
  CHECK_FALSE(f.offer("https://d.example.com/", "d.example.com", 2, "http://a.example.com/"));
  std::vector<FrontierRefusal> refused = f.take_refused();
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].reason == "max_subdomains_per_root");
  CHECK(refused[0].entry.seq == 4);  // it takes a seq of its own, for its row
  CHECK(refused[0].entry.url == "https://d.example.com/");
  CHECK(refused[0].entry.depth == 2);
  CHECK(refused[0].entry.parent_url == "http://a.example.com/");
  CHECK(f.take_refused().empty());

  // The same host again, at any depth, is not a second refusal.
  CHECK_FALSE(offer(f, "d.example.com", 3));
  CHECK_FALSE(offer(f, "d.example.com", 2));
  CHECK(f.take_refused().empty());
  // The registrable domain itself is one of its hosts.
  CHECK_FALSE(offer(f, "example.com", 1));
  refused = f.take_refused();
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].entry.url == "http://example.com/");

  // Hosts already admitted stay admitted at other depths; other roots are
  // counted on their own.
  CHECK(offer(f, "a.example.com", 2));
  CHECK(offer(f, "www.example.org", 1));
  CHECK(f.take_refused().empty());
  CHECK(f.queued() == 5);
  CHECK(f.seen() == 4);
}

TEST_CASE("DomainFrontier: subdomains are counted under the public suffix list's root",
          "[domain_frontier]") {
  DomainFrontier f(limits(5, 1000, 3, 2));
  // a.b.co.uk and c.b.co.uk are both under b.co.uk, not under co.uk.
  CHECK(offer(f, "a.b.co.uk", 1));
  CHECK(offer(f, "c.b.co.uk", 1));
  CHECK_FALSE(offer(f, "b.co.uk", 1));
  // Other registrable domains under co.uk are separate roots.
  CHECK(offer(f, "other.co.uk", 1));
  CHECK(offer(f, "www.other.co.uk", 1));
  // The port is not part of the name the cap looks at, but a host with a
  // port is a separate node, so it takes a place of its own.
  CHECK_FALSE(offer(f, "a.b.co.uk:8080", 1));
  std::vector<FrontierRefusal> refused = f.take_refused();
  REQUIRE(refused.size() == 2);
  CHECK(refused[0].entry.url == "http://b.co.uk/");
  CHECK(refused[1].entry.url == "http://a.b.co.uk:8080/");
  for (const auto& r : refused)
    CHECK(r.reason == "max_subdomains_per_root");
}

TEST_CASE("DomainFrontier: targets deeper than max_depth are not queued", "[domain_frontier]") {
  DomainFrontier f(limits(2));
  CHECK(offer(f, "a.test", 0));
  CHECK(offer(f, "b.test", 2));  // max_depth is the deepest level followed
  CHECK_FALSE(offer(f, "c.test", 3));
  CHECK(f.take_refused().empty());
  CHECK(f.queued() == 2);
  // c.test was not admitted: it takes no place and is not a known host.
  CHECK(f.seen() == 2);
}

TEST_CASE("DomainFrontier: max_pages counts in-flight and settled pages", "[domain_frontier]") {
  DomainFrontier f(limits(5, 3));
  for (const char* h : {"a.test", "b.test", "c.test", "d.test", "e.test"})
    CHECK(offer(f, h, 1));
  std::vector<CrawlJob> jobs = f.take(10);
  CHECK(seqs_of(jobs) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(f.budget_exhausted());
  CHECK(f.take(10).empty());
  CHECK_FALSE(f.finished());  // leases are still out

  // A refused lease returns its share of the budget.
  f.refused(jobs[2]);
  CHECK_FALSE(f.budget_exhausted());
  CHECK(seqs_of(f.take(10)) == std::vector<std::uint64_t>{4});
  CHECK(f.budget_exhausted());

  f.settle(jobs[0]);
  f.settle(jobs[1]);
  CHECK_FALSE(f.finished());
  f.settle(CrawlJob{4, root("d.test"), "d.test", 1});
  CHECK(f.settled() == 3);
  CHECK(f.in_flight() == 0);
  // Budget spent: finished although e.test is still queued.
  CHECK(f.queued() == 1);
  CHECK(f.finished());
}

TEST_CASE("DomainFrontier: resume of an unknown seed queues nothing", "[domain_frontier]") {
  DomainFrontier f(limits(5, 5));
  DomainResume state;
  state.seed_known = false;
  // Nodes given anyway must not be queued: the seed decides.
  state.nodes = {DomainNode{"a.test", "http://a.test/", 0}};
  state.pages_fetched = 3;
  state.next_seq = 10;
  CHECK_FALSE(f.resume(state));
  CHECK(f.queued() == 0);
  CHECK(f.crawls_of("a.test") == 0);
  // Numbering continues after the stored rows, and the pages already in the
  // database use the budget.
  const std::optional<FrontierEntry> e = f.offer("http://seed.test/", "seed.test", 0, "");
  REQUIRE(e);
  CHECK(e->seq == 10);
  CHECK(f.settled() == 3);
  CHECK(offer(f, "b.test", 1));
  CHECK(offer(f, "c.test", 1));
  CHECK(seqs_of(f.take(10)) == std::vector<std::uint64_t>{10, 11});
  CHECK(f.budget_exhausted());
}

TEST_CASE("DomainFrontier: resume of a known seed queues its nodes again at depth 0",
          "[domain_frontier]") {
  DomainFrontier f(limits(5, 100, 3, 3));
  DomainResume state;
  state.seed_known = true;
  state.nodes = {DomainNode{"seed.test", "http://seed.test/", 1},
                 DomainNode{"a.example.com", "https://a.example.com/", 2},
                 DomainNode{"b.example.com", "http://b.example.com/", 0},
                 DomainNode{"c.example.com:8443", "https://c.example.com:8443/", 0}};
  state.pages_fetched = 40;
  state.next_seq = 7;
  CHECK(f.resume(state));
  CHECK(f.queued() == 4);
  CHECK(f.seen() == 4);
  CHECK(f.settled() == 40);
  CHECK(f.crawls_of("a.example.com") == 2);

  // The seed, offered again as the actor does, is already queued at depth 0.
  CHECK_FALSE(f.offer("http://seed.test/", "seed.test", 0, "").has_value());
  // The resumed hosts fill example.com's places: a fourth host is refused.
  CHECK_FALSE(offer(f, "d.example.com", 1));
  REQUIRE(f.take_refused().size() == 1);

  const std::vector<CrawlJob> jobs = f.take(10);
  REQUIRE(jobs.size() == 4);
  CHECK(seqs_of(jobs) == std::vector<std::uint64_t>{7, 8, 9, 10});
  CHECK(jobs[0].url == "http://seed.test/");
  CHECK(jobs[1].url == "https://a.example.com/");  // with the stored scheme
  CHECK(jobs[3].url == "https://c.example.com:8443/");
  for (const auto& j : jobs)
    CHECK(j.depth == 0);
  // Counts continue from the stored ones.
  CHECK(f.crawls_of("seed.test") == 2);
  CHECK(f.crawls_of("a.example.com") == 3);
  CHECK(f.crawls_of("b.example.com") == 1);
  CHECK_FALSE(offer(f, "a.example.com", 1));  // now at max_crawls_per_node
  CHECK(offer(f, "b.example.com", 1));
}

TEST_CASE("DomainFrontier: resume remembers nodes at the crawl limit without queueing them",
          "[domain_frontier]") {
  DomainFrontier f(limits(5, 100, 3));
  DomainResume state;
  state.seed_known = true;
  state.nodes = {DomainNode{"done.test", "http://done.test/", 3}, DomainNode{"a.test", "http://a.test/", 2}};
  state.next_seq = 1;
  CHECK(f.resume(state));
  CHECK(f.queued() == 1);
  CHECK_FALSE(offer(f, "done.test", 1));
  CHECK(hosts_of(f.take(10)) == HostDepths{{"a.test", 0}});
}

TEST_CASE("DomainFrontier: give_back restores counts and the front of the queue", "[domain_frontier]") {
  DomainFrontier f(limits(5, 1000, 1));
  CHECK(offer(f, "a.test", 0));
  CHECK(offer(f, "b.test", 0));
  CHECK(offer(f, "c.test", 0));
  std::vector<CrawlJob> jobs = f.take(2);
  REQUIRE(seqs_of(jobs) == std::vector<std::uint64_t>{1, 2});
  CHECK(f.crawls_of("a.test") == 1);
  // At its single crawl, a.test is refused at offer.
  CHECK_FALSE(offer(f, "a.test", 1));

  // Handed back in any order: they return ahead of c.test, in seq order.
  f.give_back({jobs[1], jobs[0]});
  CHECK(f.in_flight() == 0);
  CHECK(f.queued() == 3);
  CHECK(f.crawls_of("a.test") == 0);
  CHECK(f.crawls_of("b.test") == 0);
  CHECK(f.settled() == 0);
  // Queued again at their depth: the dedup applies to them again.
  CHECK_FALSE(offer(f, "a.test", 0));

  jobs = f.take(10);
  CHECK(seqs_of(jobs) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(f.crawls_of("a.test") == 1);
}

TEST_CASE("DomainFrontier: a parked root ends its lease without budget and is not offered again in the run",
          "[domain_frontier]") {
  DomainFrontier f(limits());
  CHECK(offer(f, "a.test", 1));
  auto jobs = f.take(1);
  REQUIRE(jobs.size() == 1);
  f.park(jobs[0], DomainFrontier::Clock::now());
  CHECK(f.in_flight() == 0);
  CHECK(f.parked() == 1);
  CHECK(f.settled() == 0);
  CHECK(f.take_due(DomainFrontier::Clock::now() + std::chrono::hours{1}) == 0);
  CHECK(f.finished());
}

}  // namespace actorcrawl
