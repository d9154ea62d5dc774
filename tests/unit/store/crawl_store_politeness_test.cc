// CrawlStore: refused frontier rows, robots.txt records, the domains
// profile's resume, robots directives of pages and the requeue paths.
// Results are read back through a separate connection, which sees only
// what the store committed.
#include "core/store/crawl_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/web/url_fingerprint.h"
#include "tests/unit/temp_database.h"

namespace fs = std::filesystem;

namespace actorcrawl {
namespace {

using testing::TempDbPath;
using testing::scalar;
using testing::text_or_null;

std::string text(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, sql);
  REQUIRE(q.executeStep());
  return text_or_null(q.getColumn(0));
}

FrontierEntry entry(std::int64_t seq, const std::string& url, std::int32_t depth = 0,
                    const std::string& parent = "") {
  return FrontierEntry{seq, url, depth, parent};
}

PageRow make_page(const std::string& url, const std::string& host_key) {
  PageRow page;
  page.url = url;
  page.host_key = host_key;
  page.status_code = 200;
  page.content_type = "text/html";
  page.fetched_at_ms = 1000;
  page.final_url = url;
  return page;
}

// (seq, depth, state, refusal) of a frontier row.
using FrontierRow = std::tuple<std::int64_t, std::int32_t, int, std::string>;

FrontierRow frontier_row(const std::string& path, const std::string& url) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT seq, depth, state, refusal FROM frontier WHERE url = ?");
  q.bind(1, url);
  REQUIRE(q.executeStep());
  return FrontierRow{q.getColumn(0).getInt64(), q.getColumn(1).getInt(), q.getColumn(2).getInt(),
                     text_or_null(q.getColumn(3))};
}

using NodeView = std::tuple<std::string, std::string, std::int64_t>;  // host, root, count

std::vector<NodeView> nodes_of(const DomainResume& r) {
  std::vector<NodeView> out;
  for (const auto& n : r.nodes)
    out.emplace_back(n.host_key, n.root_url, n.crawl_count);
  return out;
}

constexpr int kQueued = static_cast<int>(FrontierState::queued);
constexpr int kDone = static_cast<int>(FrontierState::done);
constexpr int kFailed = static_cast<int>(FrontierState::failed);
constexpr int kRefused = static_cast<int>(FrontierState::refused);

}  // namespace

TEST_CASE("refuse_frontier inserts refused rows and turns queued rows refused", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str(), 1000);
  store.add_frontier({entry(1, "http://a.test/"), entry(2, "http://a.test/queued", 1, "http://a.test/")});

  store.refuse_frontier({FrontierRefusal{entry(3, "http://a.test/new", 2, "http://a.test/"), "robots_txt"},
                         FrontierRefusal{entry(99, "http://a.test/queued", 1), "max_pages_per_host"}});
  // One op per refusal, like add_frontier's entries.
  CHECK(store.pending_ops() == 4);
  store.refuse_frontier({});  // nothing to do, no op
  CHECK(store.pending_ops() == 4);
  store.flush();

  // A new URL: a row of its own, already settled, with the rule's name.
  CHECK(frontier_row(path.str(), "http://a.test/new") == FrontierRow{3, 2, kRefused, "robots_txt"});
  CHECK(text(path.str(), "SELECT parent_url FROM frontier WHERE seq = 3") == "http://a.test/");
  CHECK(scalar(path.str(),
               "SELECT COUNT(*) FROM frontier WHERE seq = 3 AND settled_at IS NOT NULL "
               "AND discovered_at = settled_at") == 1);
  // A queued URL keeps its row (and seq) and is refused.
  CHECK(frontier_row(path.str(), "http://a.test/queued") == FrontierRow{2, 1, kRefused, "max_pages_per_host"});
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 2 AND settled_at IS NOT NULL") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 99") == 0);
  // Refused rows are never handed out again.
  const std::vector<FrontierEntry> queued = store.load_queued(0, 100);
  REQUIRE(queued.size() == 1);
  CHECK(queued[0].url == "http://a.test/");
}

TEST_CASE("refuse_frontier leaves settled rows as they are", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  // The domains profile queues a host's root page once per depth under one
  // row: a later lease of a fetched root can be refused (its robots.txt
  // changed), and that must not rewrite the earlier fetch's outcome.
  store.add_frontier({entry(1, "http://done.test/"), entry(2, "http://failed.test/")});
  store.settle_frontier("http://done.test/", FrontierState::done);
  store.settle_frontier("http://failed.test/", FrontierState::failed);
  store.refuse_frontier({FrontierRefusal{entry(5, "http://done.test/", 2), "robots_txt"},
                         FrontierRefusal{entry(6, "http://failed.test/", 2), "robots_unreachable"}});
  store.flush();
  CHECK(frontier_row(path.str(), "http://done.test/") == FrontierRow{1, 0, kDone, "<null>"});
  CHECK(frontier_row(path.str(), "http://failed.test/") == FrontierRow{2, 0, kFailed, "<null>"});
}

TEST_CASE("load_resume_state counts refused rows as neither settled nor queued", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/"), entry(2, "http://a.test/1"), entry(3, "http://a.test/2"),
                      entry(4, "http://a.test/3")});
  store.settle_frontier("http://a.test/", FrontierState::done);
  store.settle_frontier("http://a.test/1", FrontierState::failed);
  store.refuse_frontier({FrontierRefusal{entry(4, "http://a.test/3"), "robots_txt"},
                         FrontierRefusal{entry(9, "http://a.test/private"), "robots_txt"}});

  const ResumeState state = store.load_resume_state();
  CHECK(state.queued == 1);   // a.test/2
  CHECK(state.settled == 2);  // done and failed
  CHECK(state.next_seq == 10);
  // Refused URLs stay seen: they are not offered again.
  std::multiset<std::uint64_t> seen;
  for (const SeenUrl& url : state.seen)
    seen.insert(url.fingerprint);
  CHECK(seen == std::multiset<std::uint64_t>{url_fingerprint("http://a.test/"), url_fingerprint("http://a.test/1"),
                                             url_fingerprint("http://a.test/2"), url_fingerprint("http://a.test/3"),
                                             url_fingerprint("http://a.test/private")});
}

TEST_CASE("record_robots upserts one row per host", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  RobotsRecord r;
  r.host_key = "a.test:8080";
  r.url = "http://a.test:8080/robots.txt";
  r.status_code = 200;
  r.outcome = "parsed";
  r.crawl_delay_ms = 1500;
  r.sitemaps = {"http://a.test:8080/s1.xml", "http://a.test:8080/s2.xml"};
  r.fetched_at_ms = 1234;
  store.record_robots(r);
  store.flush();

  SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
  const auto row = [&db](const std::string& host) {
    SQLite::Statement q(db,
                        "SELECT url, status_code, outcome, crawl_delay_ms, sitemaps, fetched_at "
                        "FROM robots_txt WHERE host = ?");
    q.bind(1, host);
    REQUIRE(q.executeStep());
    return std::vector<std::string>{text_or_null(q.getColumn(0)), text_or_null(q.getColumn(1)),
                                    text_or_null(q.getColumn(2)), text_or_null(q.getColumn(3)),
                                    text_or_null(q.getColumn(4)), text_or_null(q.getColumn(5))};
  };
  CHECK(row("a.test:8080") ==
        std::vector<std::string>{"http://a.test:8080/robots.txt", "200", "parsed", "1500",
                                 "http://a.test:8080/s1.xml\nhttp://a.test:8080/s2.xml", "1234"});

  // Fetched again, unreachable this time: the same row, every column new.
  // No status is NULL, no Crawl-delay (-1) is NULL, no sitemaps is NULL.
  r.status_code = 0;
  r.outcome = "disallow_all";
  r.crawl_delay_ms = -1;
  r.sitemaps.clear();
  r.fetched_at_ms = 5678;
  store.record_robots(r);
  store.flush();
  CHECK(row("a.test:8080") ==
        std::vector<std::string>{"http://a.test:8080/robots.txt", "<null>", "disallow_all", "<null>", "<null>",
                                 "5678"});
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM robots_txt") == 1);

  // Crawl-delay: 0 is a value, not an absence.
  RobotsRecord zero;
  zero.host_key = "b.test";
  zero.url = "https://b.test/robots.txt";
  zero.status_code = 200;
  zero.outcome = "parsed";
  zero.crawl_delay_ms = 0;
  zero.sitemaps = {"https://b.test/only.xml"};
  zero.fetched_at_ms = 1;
  store.record_robots(zero);
  store.flush();
  CHECK(row("b.test") ==
        std::vector<std::string>{"https://b.test/robots.txt", "200", "parsed", "0", "https://b.test/only.xml", "1"});
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM robots_txt") == 2);
}

TEST_CASE("load_domain_resume on an empty database", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const DomainResume r = store.load_domain_resume("seed.test", 3);
  CHECK_FALSE(r.seed_known);
  CHECK(r.nodes.empty());
  CHECK(r.pages_fetched == 0);
  CHECK(r.next_seq == 1);
}

TEST_CASE("load_domain_resume: known seed, nodes below the limit with their root URLs", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  // Node ids follow first sight: seed.test, then the link targets in order.
  PageRow seed = make_page("http://seed.test/", "seed.test");
  seed.links = {{"http://a.test/x", false},            // a.test's frontier row says https
                {"https://b.test/page", false},        // b.test: only links, https
                {"http://c.test:8080/x", false},       // c.test:8080: only links, http
                {"https://d.test.other/", false},      // not d.test: a longer name...
                {"https://d.test:8443/", false},       // ...nor another port of it
                {"https://full.test/", false}};
  seed.link_host_keys = {"a.test", "full.test", "b.test", "c.test:8080", "d.test"};
  store.record_page(seed);
  store.record_page(make_page("https://a.test/", "a.test"));
  store.record_page(make_page("https://a.test/2", "a.test"));
  for (const char* p : {"https://full.test/", "https://full.test/1", "https://full.test/2"})
    store.record_page(make_page(p, "full.test"));
  PageRow failed = make_page("https://full.test/3", "full.test");
  failed.status_code = 0;
  failed.error = "timeout";
  store.record_page(failed);  // a page row all the same: budget used

  store.add_frontier({entry(1, "http://seed.test/"), entry(2, "https://a.test/", 1, "http://seed.test/"),
                      entry(3, "https://a.test/2", 2, "https://a.test/")});
  store.refuse_frontier({FrontierRefusal{entry(40, "http://e.test/", 1), "max_subdomains_per_root"}});

  DomainResume r = store.load_domain_resume("seed.test", 3);
  CHECK(r.seed_known);
  CHECK(r.pages_fetched == 7);
  CHECK(r.next_seq == 41);  // refused rows hold seqs too
  // full.test (4 pages) is at the limit and not resumed; the others are, in
  // node_id order. The root comes from the frontier, else from a link to
  // the host, else http.
  CHECK(nodes_of(r) == std::vector<NodeView>{{"seed.test", "http://seed.test/", 1},
                                             {"a.test", "https://a.test/", 2},
                                             {"b.test", "https://b.test/", 0},
                                             {"c.test:8080", "http://c.test:8080/", 0},
                                             {"d.test", "http://d.test/", 0}});

  // The limit is the caller's: at 2, a.test is done too.
  r = store.load_domain_resume("seed.test", 2);
  CHECK(nodes_of(r) == std::vector<NodeView>{{"seed.test", "http://seed.test/", 1},
                                             {"b.test", "https://b.test/", 0},
                                             {"c.test:8080", "http://c.test:8080/", 0},
                                             {"d.test", "http://d.test/", 0}});

  // Another seed: a new crawl on this database. Its budget and numbering
  // still continue; no node is handed back.
  r = store.load_domain_resume("other.test", 3);
  CHECK_FALSE(r.seed_known);
  CHECK(r.nodes.empty());
  CHECK(r.pages_fetched == 7);
  CHECK(r.next_seq == 41);
  // The host key must match exactly, port included.
  CHECK_FALSE(store.load_domain_resume("seed.test:8080", 3).seed_known);
  // A node known only as a link target is a known seed as well.
  CHECK(store.load_domain_resume("d.test", 3).seed_known);
}

TEST_CASE("load_domain_resume prefers https when links to a host use both schemes", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  PageRow seed = make_page("http://seed.test/", "seed.test");
  seed.links = {{"http://both.test/a", false}, {"https://both.test/b", false}};
  seed.link_host_keys = {"both.test"};
  store.record_page(seed);
  const DomainResume r = store.load_domain_resume("seed.test", 3);
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes[1].host_key == "both.test");
  CHECK(r.nodes[1].root_url == "https://both.test/");
}

TEST_CASE("pages.robots_directives round-trips and is NULL when empty", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  PageRow page = make_page("http://a.test/", "a.test");
  page.robots_directives = "noindex, nofollow";
  store.record_page(page);
  store.flush();
  CHECK(text(path.str(), "SELECT robots_directives FROM pages WHERE url = 'http://a.test/'") ==
        "noindex, nofollow");

  // Re-recorded without directives: the column follows the new fetch.
  page.robots_directives.clear();
  store.record_page(page);
  store.flush();
  CHECK(text(path.str(), "SELECT robots_directives FROM pages WHERE url = 'http://a.test/'") == "<null>");
}

TEST_CASE("requeue_frontier queues rows again under new seqs", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/"), entry(2, "http://a.test/failed", 1, "http://a.test/"),
                      entry(3, "http://a.test/done", 1, "http://a.test/"), entry(4, "http://a.test/queued", 1)});
  store.settle_frontier("http://a.test/failed", FrontierState::failed);
  store.settle_frontier("http://a.test/done", FrontierState::done);

  store.requeue_frontier({entry(10, "http://a.test/failed", 3), entry(11, "http://a.test/done", 1),
                          entry(12, "http://new.test/", 2, "http://a.test/")});
  store.requeue_frontier({});  // nothing to do
  store.flush();

  CHECK(frontier_row(path.str(), "http://a.test/failed") == FrontierRow{10, 3, kQueued, "<null>"});
  CHECK(frontier_row(path.str(), "http://a.test/done") == FrontierRow{11, 1, kQueued, "<null>"});
  CHECK(frontier_row(path.str(), "http://new.test/") == FrontierRow{12, 2, kQueued, "<null>"});
  CHECK(text(path.str(), "SELECT parent_url FROM frontier WHERE seq = 12") == "http://a.test/");
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE settled_at IS NOT NULL") == 0);
  // Their new seqs put them after what was queued before.
  std::vector<std::int64_t> seqs;
  for (const auto& e : store.load_queued(0, 100))
    seqs.push_back(e.seq);
  CHECK(seqs == std::vector<std::int64_t>{1, 4, 10, 11, 12});
  CHECK(store.load_resume_state().next_seq == 13);
}

TEST_CASE("requeue_fetched_before queues done rows settled before the cutoff", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/old"), entry(2, "http://a.test/older"), entry(3, "http://a.test/new"),
                      entry(4, "http://a.test/failed"), entry(5, "http://a.test/queued")});
  for (const char* url : {"http://a.test/old", "http://a.test/older", "http://a.test/new"})
    store.settle_frontier(url, FrontierState::done);
  store.settle_frontier("http://a.test/failed", FrontierState::failed);
  store.refuse_frontier({FrontierRefusal{entry(6, "http://a.test/refused"), "robots_txt"}});
  store.flush();
  {
    // Settlement times the test controls, instead of the clock's.
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE frontier SET settled_at = 2000 WHERE seq = 1");
    db.exec("UPDATE frontier SET settled_at = 1000 WHERE seq = 2");
    db.exec("UPDATE frontier SET settled_at = 2500 WHERE seq = 3");
    db.exec("UPDATE frontier SET settled_at = 1000 WHERE seq IN (4, 6)");
  }

  CHECK(store.requeue_fetched_before(1000) == 0);  // strictly before
  CHECK(store.requeue_fetched_before(2500) == 2);
  // Committed at once: a separate connection already sees the change.
  CHECK(frontier_row(path.str(), "http://a.test/old") == FrontierRow{1, 0, kQueued, "<null>"});
  CHECK(frontier_row(path.str(), "http://a.test/older") == FrontierRow{2, 0, kQueued, "<null>"});
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq IN (1, 2) AND settled_at IS NULL") == 2);
  CHECK(frontier_row(path.str(), "http://a.test/new") == FrontierRow{3, 0, kDone, "<null>"});
  // Failures and refusals are not revisits.
  CHECK(frontier_row(path.str(), "http://a.test/failed") == FrontierRow{4, 0, kFailed, "<null>"});
  CHECK(frontier_row(path.str(), "http://a.test/refused") == FrontierRow{6, 0, kRefused, "robots_txt"});
  CHECK(store.pending_ops() == 0);

  std::vector<std::int64_t> seqs;
  for (const auto& e : store.load_queued(0, 100))
    seqs.push_back(e.seq);
  CHECK(seqs == std::vector<std::int64_t>{1, 2, 5});
  CHECK(store.requeue_fetched_before(2500) == 0);  // already queued
}

}  // namespace actorcrawl
