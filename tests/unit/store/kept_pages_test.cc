#include "core/store/kept_pages.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <string>

#include "core/crawl/content_digest.h"
#include "core/crawl/kept_body.h"
#include "core/store/crawl_schema.h"
#include "core/store/crawl_store.h"
#include "core/store/store_error.h"
#include "tests/unit/temp_database.h"

using namespace actorcrawl;
using testing::scalar;
using testing::TempDbPath;

namespace {

PageRow kept_page(const std::string& url, const std::string& body, std::int64_t at = 1000) {
  PageRow page;
  page.url = url;
  page.host_key = "a.test";
  page.status_code = 200;
  page.content_type = "text/html";
  page.charset = "windows-1252";
  page.bytes = static_cast<std::int64_t>(body.size());
  page.fetched_at_ms = at;
  page.final_url = url;
  page.content_digest = content_digest(body);
  page.body = keep_body(body);
  page.items = {ExtractedItem{"old", R"({"a":1})"}, ExtractedItem{"other", R"({"b":2})"}};
  return page;
}

std::string body_of(const KeptPage& page) { return open_kept_body(page.body, 1 << 20).value_or("<unreadable>"); }

}  // namespace

TEST_CASE("kept bodies: stored once per digest, read back with their page", "[store][kept_pages]") {
  TempDbPath path;
  const std::string shared = std::string(5000, 'x') + "<h1>same</h1>";
  {
    CrawlStore store(path.str());
    store.record_page(kept_page("http://a.test/1", shared));
    store.record_page(kept_page("http://a.test/2", shared));
    store.record_page(kept_page("http://a.test/3", "<h1>three</h1>"));
    PageRow unkept = kept_page("http://a.test/4", "<h1>four</h1>");
    unkept.body = {};
    store.record_page(unkept);
    store.flush();
  }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM bodies") == 2);
  CHECK(scalar(path.str(), "SELECT SUM(length(body)) FROM bodies") < 1000);
  KeptPages pages(path.str(), KeptPages::Access::read);
  const auto batch = pages.next_batch(0, 10, false);
  REQUIRE(batch.size() == 3);
  CHECK(batch[0].url == "http://a.test/1");
  CHECK(batch[0].charset == "windows-1252");
  CHECK(batch[0].content_type == "text/html");
  CHECK(body_of(batch[0]) == shared);
  CHECK(body_of(batch[1]) == shared);
  CHECK(body_of(batch[2]) == "<h1>three</h1>");
  CHECK(pages.next_batch(batch[1].page_id, 10, false).size() == 1);
  CHECK(pages.next_batch(batch[2].page_id, 10, false).empty());
  CHECK(pages.pages_without_body() == 1);
  const auto four = pages.find("http://a.test/4");
  REQUIRE(four);
  CHECK(four->body.encoding.empty());
  CHECK_FALSE(pages.find("http://a.test/5"));
}

TEST_CASE("kept bodies: a body no page names any more goes when the run ends", "[store][kept_pages]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const auto run = store.begin_run(1, "[]");
  store.record_page(kept_page("http://a.test/1", "<p>first version</p>", 10));
  store.end_run(run, 11, "queue_empty");
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM bodies") == 1);
  const auto next = store.begin_run(20, "[]");
  store.record_page(kept_page("http://a.test/1", "<p>second version</p>", 30));
  store.end_run(next, 31, "queue_empty");
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM bodies") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM bodies b JOIN pages p ON p.content_digest = b.content_digest") == 1);
}

TEST_CASE("kept pages: a page's items are replaced, all of them or one kind's", "[store][kept_pages]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    PageRow page = kept_page("http://a.test/1", "<h1>one</h1>");
    page.processor_failures = {ProcessorFailure{"extract", "field_failed", "rule 'old', field 'a': no match"},
                               ProcessorFailure{"extract", "field_failed", "rule 'other', field 'b': no match"},
                               ProcessorFailure{"lang", "crashed", "exit 1"}};
    store.record_page(page);
    store.flush();
  }
  KeptPages pages(path.str(), KeptPages::Access::rewrite);
  const std::int64_t id = pages.find("http://a.test/1")->page_id;

  // One kind: its items and its failures only.
  CHECK(pages.replace(id, ItemsReplaced{"old", {}}, {ExtractedItem{"old", R"({"a":9})"}, ExtractedItem{"old", R"({"a":10})"}},
                      {}) == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'old'") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'other'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM processor_failures WHERE detail LIKE 'rule ''old''%'") == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM processor_failures") == 2);
  CHECK(pages.next_batch(0, 10, true).size() == 1);
  CHECK(pages.replace(id, ItemsReplaced{"lang", {}}, {}, {}) == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM processor_failures WHERE processor = 'lang'") == 0);

  // Everything: the page holds exactly what it is given.
  CHECK(pages.replace(id, ItemsReplaced{}, {ExtractedItem{"new", "{}"}},
                      {ProcessorFailure{"lang", "timeout", "10 s"}}) == 3);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'new'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM processor_failures WHERE reason = 'timeout'") == 1);

  // A processor that could not process the page this time keeps its items.
  CHECK(pages.replace(id, ItemsReplaced{}, {ExtractedItem{"lang", R"({"lang":"de"})"}}, {}) == 1);
  CHECK(pages.replace(id, ItemsReplaced{std::nullopt, {"lang"}}, {ExtractedItem{"title", "{}"}},
                      {ProcessorFailure{"lang", "crashed", "exit 1"}}) == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'lang'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'title'") == 1);
  CHECK(pages.replace(id, ItemsReplaced{"lang", {"lang"}}, {}, {}) == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'lang'") == 1);
}

TEST_CASE("kept pages: the one writer's lock, and what a reader is refused", "[store][kept_pages]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    store.record_page(kept_page("http://a.test/1", "<h1>one</h1>"));
    store.flush();
    // A crawl holds the database: a rewrite waits for it to end, a read does not.
    CHECK_THROWS_AS(KeptPages(path.str(), KeptPages::Access::rewrite), DatabaseInUse);
    KeptPages reader(path.str(), KeptPages::Access::read);
    CHECK(reader.find("http://a.test/1"));
  }
  TempDbPath missing;
  CHECK_THROWS_AS(KeptPages(missing.str(), KeptPages::Access::read), StoreError);
}

TEST_CASE("a version 8 database gains pages.charset and the bodies table", "[store][kept_pages]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    PageRow page = kept_page("http://a.test/1", "<h1>one</h1>");
    page.body = {};
    store.record_page(page);
    store.flush();
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("DROP TABLE bodies; ALTER TABLE pages DROP COLUMN charset; PRAGMA user_version = 8");
  }
  {
    // Read as it is, not migrated: its pages have no kept body.
    KeptPages reader(path.str(), KeptPages::Access::read);
    CHECK(reader.next_batch(0, 10, false).empty());
    CHECK(reader.pages_without_body() == 1);
    CHECK(reader.find("http://a.test/1"));
  }
  CHECK(scalar(path.str(), "PRAGMA user_version") == 8);
  CrawlStore store(path.str());
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  store.record_page(kept_page("http://a.test/2", "<h1>two</h1>"));
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM bodies") == 1);
  CHECK(testing::text(path.str(), "SELECT charset FROM pages WHERE url = 'http://a.test/2'") == "windows-1252");
}
