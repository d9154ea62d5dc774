// Freshness in the store: validators and digests kept with each page, the
// revisit's lease carrying them, what a refetch found recorded in the page's
// own transaction, and the counts a run reports.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <string>

#include "core/store/crawl_schema.h"
#include "core/store/crawl_store.h"
#include "tests/unit/temp_database.h"

using namespace actorcrawl;

namespace {

using testing::TempDbPath;
using testing::scalar;

PageRow page_at(const std::string& url, std::int64_t fetched_at_ms, const std::string& digest, int status = 200) {
  PageRow page;
  page.url = url;
  page.host_key = "a.test";
  page.status_code = status;
  page.content_type = "text/html";
  page.title = "Title of " + url;
  page.fetched_at_ms = fetched_at_ms;
  page.final_url = url;
  page.content_digest = digest;
  page.etag = "\"" + digest + "\"";
  page.last_modified = "Tue, 01 Sep 2026 10:00:00 GMT";
  page.links = {LinkRow{"http://a.test/linked", false, true}};
  page.items = {ExtractedItem{"rule", "{\"v\":1}"}};
  return page;
}

PageRow not_modified_at(const std::string& url, std::int64_t fetched_at_ms) {
  PageRow page;
  page.url = url;
  page.host_key = "a.test";
  page.status_code = 304;
  page.fetched_at_ms = fetched_at_ms;
  page.final_url = url;
  page.not_modified = true;
  return page;
}

std::int64_t changes_of(const TempDbPath& path, std::int64_t run, const std::string& change) {
  return scalar(path.str(), "SELECT COUNT(*) FROM page_changes WHERE run_id = " + std::to_string(run) +
                              " AND change = '" + change + "'");
}

}  // namespace

TEST_CASE("a page keeps its validators and digest, and a queued revisit carries the validators", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({FrontierEntry{1, "http://a.test/", 0, ""}, FrontierEntry{2, "http://a.test/new", 1, ""}});
  store.record_page(page_at("http://a.test/", 1000, "sha1:AAA"));
  store.settle_frontier("http://a.test/", FrontierState::done);
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages WHERE etag = '\"sha1:AAA\"' AND content_digest = 'sha1:AAA' "
                           "AND last_modified = 'Tue, 01 Sep 2026 10:00:00 GMT'") == 1);
  const std::int64_t settled = scalar(path.str(), "SELECT MAX(settled_at) FROM frontier");
  CHECK(store.requeue_due(settled + 100, 10) == 1);
  const auto rows = store.load_queued(0, 10);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].url == "http://a.test/");
  CHECK(rows[0].etag == "\"sha1:AAA\"");
  CHECK(rows[0].last_modified == "Tue, 01 Sep 2026 10:00:00 GMT");
  CHECK(rows[1].etag.empty());  // never fetched: an unconditional request
  CHECK(rows[1].last_modified.empty());
}

TEST_CASE("a redirected page's validators are not sent to its own URL", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({FrontierEntry{1, "http://a.test/old", 0, ""}});
  PageRow page = page_at("http://a.test/old", 1000, "sha1:AAA");
  page.final_url = "http://a.test/new";
  page.redirect_chain = R"([{"url":"http://a.test/old","status":301}])";
  store.record_page(page);
  const auto rows = store.load_queued(0, 10);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].etag.empty());
}

TEST_CASE("a 304 keeps the page, its links and items, and records it unchanged", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const std::int64_t first = store.begin_run(1, "[]");
  store.record_page(page_at("http://a.test/", 1000, "sha1:AAA"));
  store.end_run(first, 2, "queue_empty");
  const std::int64_t second = store.begin_run(3, "[]");
  PageRow again = not_modified_at("http://a.test/", 5000);
  again.etag = "\"sha1:AAA\"";
  store.record_page(again);
  store.flush();
  CHECK(scalar(path.str(), "SELECT status_code FROM pages WHERE url = 'http://a.test/'") == 200);
  CHECK(scalar(path.str(), "SELECT fetched_at FROM pages WHERE url = 'http://a.test/'") == 5000);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages WHERE title = 'Title of http://a.test/' "
                           "AND content_digest = 'sha1:AAA'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM links") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items") == 1);
  CHECK(scalar(path.str(), "SELECT crawl_count FROM nodes WHERE domain_name = 'a.test'") == 2);
  CHECK(changes_of(path, first, "new") == 1);
  CHECK(changes_of(path, second, "unchanged") == 1);
  CHECK(changes_of(path, second, "changed") == 0);
}

TEST_CASE("a 304 counts again in the domain graph: its node's crawl and the edges its stored page counted",
          "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  PageRow page = page_at("http://a.test/", 1000, "sha1:AAA");
  page.link_host_keys = {"b.test", "a.test", "c.test:8080"};  // its own host is no edge
  store.record_page(page);
  store.flush();
  const std::string weights =
    "SELECT GROUP_CONCAT(e, ' ') FROM (SELECT t.domain_name || '=' || weight AS e FROM edges "
    "JOIN nodes t ON t.node_id = to_node_id ORDER BY t.domain_name)";
  CHECK(testing::text(path.str(), weights) == "b.test=1 c.test:8080=1");
  CHECK(testing::text(path.str(), "SELECT link_hosts FROM pages") == "b.test c.test:8080");
  for (int run = 2; run <= 3; ++run) {
    PageRow again = not_modified_at("http://a.test/", 1000 * run);
    store.record_page(again);
    store.flush();
    CHECK(scalar(path.str(), "SELECT crawl_count FROM nodes WHERE domain_name = 'a.test'") == run);
    CHECK(testing::text(path.str(), weights) ==
          "b.test=" + std::to_string(run) + " c.test:8080=" + std::to_string(run));
  }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM edges") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM nodes") == 3);
}

TEST_CASE("a version 6 database gains link_hosts, and a 304 to a page stored before counts its crawl, no edge",
          "[store][freshness]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    PageRow page = page_at("http://a.test/", 1000, "sha1:AAA");
    page.link_host_keys = {"b.test"};
    store.record_page(page);
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("ALTER TABLE pages DROP COLUMN link_hosts; PRAGMA user_version = 6");
  }
  CrawlStore store(path.str());
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(testing::text(path.str(), "SELECT link_hosts FROM pages") == "<null>");
  store.record_page(not_modified_at("http://a.test/", 2000));
  store.flush();
  CHECK(scalar(path.str(), "SELECT crawl_count FROM nodes WHERE domain_name = 'a.test'") == 2);
  CHECK(scalar(path.str(), "SELECT weight FROM edges") == 1);
}

TEST_CASE("a refetch is classified by digest and status: changed, unchanged, gone", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const std::int64_t first = store.begin_run(1, "[]");
  for (const char* url : {"http://a.test/same", "http://a.test/edited", "http://a.test/deleted"})
    store.record_page(page_at(url, 1000, "sha1:AAA"));
  store.end_run(first, 2, "queue_empty");
  const std::int64_t second = store.begin_run(3, "[]");
  store.record_page(page_at("http://a.test/same", 5000, "sha1:AAA"));
  PageRow edited = page_at("http://a.test/edited", 5000, "sha1:BBB");
  edited.title = "Edited";
  edited.links = {};
  store.record_page(edited);
  PageRow deleted = page_at("http://a.test/deleted", 5000, "sha1:404", 404);
  deleted.links = {};
  store.record_page(deleted);
  store.record_page(page_at("http://a.test/fresh", 5000, "sha1:CCC"));
  store.end_run(second, 6, "queue_empty");

  CHECK(changes_of(path, second, "unchanged") == 1);
  CHECK(changes_of(path, second, "changed") == 1);
  CHECK(changes_of(path, second, "gone") == 1);
  CHECK(changes_of(path, second, "new") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM page_changes WHERE url = 'http://a.test/edited' AND change = "
                           "'changed'") == 1);
  // A changed page replaces its row and links.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages WHERE url = 'http://a.test/edited' AND title = 'Edited' "
                           "AND content_digest = 'sha1:BBB'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM links l JOIN pages p ON p.page_id = l.from_page_id "
                           "WHERE p.url = 'http://a.test/edited'") == 0);
  // The run's row holds its counts.
  CHECK(scalar(path.str(), "SELECT pages_new FROM crawl_runs WHERE run_id = " + std::to_string(second)) == 1);
  CHECK(scalar(path.str(), "SELECT pages_changed FROM crawl_runs WHERE run_id = " + std::to_string(second)) == 1);
  CHECK(scalar(path.str(), "SELECT pages_unchanged FROM crawl_runs WHERE run_id = " + std::to_string(second)) == 1);
  CHECK(scalar(path.str(), "SELECT pages_gone FROM crawl_runs WHERE run_id = " + std::to_string(second)) == 1);
  CHECK(scalar(path.str(), "SELECT pages_new FROM crawl_runs WHERE run_id = " + std::to_string(first)) == 3);

  const PageChangeCounts counts = store.change_counts(second);
  CHECK(counts.new_pages == 1);
  CHECK(counts.changed == 1);
  CHECK(counts.unchanged == 1);
  CHECK(counts.gone == 1);
  CHECK(store.summary(0).changes.gone == 1);
}

TEST_CASE("a change is recorded only with its page: an uncommitted batch loses both", "[store][freshness]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    const std::int64_t run = store.begin_run(1, "[]");
    store.record_page(page_at("http://a.test/", 1000, "sha1:AAA"));
    store.end_run(run, 2, "queue_empty");
  }
  {
    // The second run's page write is in the open batch when the process
    // dies: a copy of the files taken now is what a kill -9 leaves.
    CrawlStore store(path.str());
    store.begin_run(3, "[]");
    store.record_page(page_at("http://a.test/", 5000, "sha1:BBB"));
    TempDbPath copy;
    {
      SQLite::Database src(path.str(), SQLite::OPEN_READONLY);
      src.backup(copy.str().c_str(), SQLite::Database::Save);
    }
    CHECK(scalar(copy.str(), "SELECT COUNT(*) FROM page_changes WHERE change = 'changed'") == 0);
    CHECK(scalar(copy.str(), "SELECT content_digest = 'sha1:AAA' FROM pages") == 1);
  }
}

TEST_CASE("a refetch after the changed page was committed finds it unchanged", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.begin_run(1, "[]");
  store.record_page(page_at("http://a.test/", 1000, "sha1:AAA"));
  const std::int64_t run = store.begin_run(3, "[]");
  store.record_page(page_at("http://a.test/", 5000, "sha1:BBB"));
  store.flush();
  // The frontier row was not settled (the crash came first): the next run
  // fetches the page again and finds what the committed row holds.
  const std::int64_t after_crash = store.begin_run(6, "[]");
  store.record_page(page_at("http://a.test/", 7000, "sha1:BBB"));
  store.flush();
  CHECK(changes_of(path, run, "changed") == 1);
  CHECK(changes_of(path, after_crash, "unchanged") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM page_changes WHERE change = 'changed'") == 1);
}

TEST_CASE("adaptive revisits store each page's interval and requeue by it", "[store][freshness]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.set_revisit_settings(RevisitSettings{1000, 100, 10000, true});
  store.add_frontier({FrontierEntry{1, "http://a.test/often", 0, ""}, FrontierEntry{2, "http://a.test/rarely", 0, ""}});
  store.record_page(page_at("http://a.test/often", 0, "sha1:A"));
  store.record_page(page_at("http://a.test/rarely", 0, "sha1:A"));
  store.record_page(page_at("http://a.test/often", 10, "sha1:B"));   // changed: halved
  store.record_page(page_at("http://a.test/rarely", 10, "sha1:A"));  // unchanged: 1.5 times
  store.settle_frontier("http://a.test/often", FrontierState::done);
  store.settle_frontier("http://a.test/rarely", FrontierState::done);
  store.flush();
  CHECK(scalar(path.str(), "SELECT revisit_interval_ms FROM pages WHERE url = 'http://a.test/often'") == 500);
  CHECK(scalar(path.str(), "SELECT revisit_interval_ms FROM pages WHERE url = 'http://a.test/rarely'") == 1500);
  // Settled "now" (epoch ms): 1000 ms later only the often-changing page,
  // whose interval is 500 ms, is due.
  const std::int64_t settled = scalar(path.str(), "SELECT MAX(settled_at) FROM frontier");
  CHECK(store.requeue_due(settled + 1000, 1000) == 1);
  const auto rows = store.load_queued(0, 10);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].url == "http://a.test/often");
}
