#include "core/store/node_bodies.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>

#include "core/crawl/content_digest.h"
#include "core/crawl/kept_body.h"
#include "core/store/crawl_store.h"
#include "core/store/kept_pages.h"
#include "core/store/store_error.h"
#include "tests/unit/temp_database.h"

using namespace actorcrawl;
using testing::scalar;
using testing::TempDbPath;
using testing::TempDir;

namespace {

PageRow page_with_body(const std::string& url, const std::string& body) {
  PageRow page;
  page.url = url;
  page.final_url = url;
  page.host_key = "a.test";
  page.status_code = 200;
  page.content_type = "text/html";
  page.bytes = static_cast<std::int64_t>(body.size());
  page.fetched_at_ms = 1000;
  page.content_digest = content_digest(body);
  page.body = keep_body(body);
  return page;
}

std::string body_of(const KeptPage& page) { return open_kept_body(page.body, 1 << 20).value_or("<unreadable>"); }

}  // namespace

TEST_CASE("node bodies: written once per digest, committed, and taken out of the rows", "[store][node_bodies]") {
  TempDir dir("node_bodies");
  const std::string shared = std::string(3000, 'y') + "<h1>same</h1>";
  std::vector<PageRow> rows = {page_with_body("http://a.test/1", shared), page_with_body("http://a.test/2", shared),
                               page_with_body("http://a.test/3", "<h1>three</h1>")};
  rows.push_back(page_with_body("http://a.test/redirect", ""));
  rows.back().body = {};
  NodeBodiesWriter writer(dir.path("nested/deeper"), "w1");
  CHECK(writer.path() == node_bodies_path(dir.path("nested/deeper"), "w1"));
  CHECK(writer.path().substr(writer.path().size() - 23) == "actorcrawl-bodies-w1.db");
  writer.keep(rows);
  for (const auto& row : rows) {
    CHECK(row.body.encoding.empty());
    CHECK(row.body.data.empty());
    CHECK_FALSE(row.content_digest.empty());  // what names the body now
  }
  // Read through another connection: committed when keep() returned.
  CHECK(scalar(writer.path(), "SELECT COUNT(*) FROM bodies") == 2);
  // A page kept again (a lease given again after a node died) adds nothing.
  std::vector<PageRow> again = {page_with_body("http://a.test/3", "<h1>three</h1>")};
  writer.keep(again);
  CHECK(scalar(writer.path(), "SELECT COUNT(*) FROM bodies") == 2);
  std::vector<PageRow> none;
  writer.keep(none);

  NodeBodiesReader reader(dir.path("nested/deeper"));
  CHECK_FALSE(reader.empty());
  const auto body = reader.find(content_digest(shared));
  REQUIRE(body);
  CHECK(open_kept_body(*body, 1 << 20) == shared);
  CHECK(reader.holds(content_digest("<h1>three</h1>")));
  CHECK_FALSE(reader.holds(content_digest("never fetched")));
  CHECK_FALSE(reader.find(content_digest("never fetched")));
}

TEST_CASE("node bodies: several lanes write one file at once", "[store][node_bodies]") {
  TempDir dir("node_bodies");
  NodeBodiesWriter writer(dir.str(), "w1");
  auto lane = [&](int lane_number) {
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<PageRow> rows;
      for (int i = 0; i < 10; ++i)
        rows.push_back(page_with_body("http://a.test/", "<p>" + std::to_string(lane_number) + "/" +
                                                          std::to_string(batch) + "/" + std::to_string(i) + "</p>"));
      writer.keep(rows);
    }
  };
  std::thread a(lane, 1), b(lane, 2), c(lane, 3);
  a.join();
  b.join();
  c.join();
  CHECK(scalar(writer.path(), "SELECT COUNT(*) FROM bodies") == 600);
}

TEST_CASE("node bodies: a reader takes from the nodes' files what the crawl database lacks", "[store][node_bodies]") {
  TempDbPath db;
  TempDir dir("node_bodies");
  // Pages 1 and 4 were processed on node w1, page 5 on w2, page 3 here
  // (its body in the database); page 2's body no file holds (that node's
  // file is not there).
  std::vector<PageRow> w1 = {page_with_body("http://a.test/1", "<h1>one</h1>"),
                             page_with_body("http://a.test/4", "<h1>four</h1>")};
  std::vector<PageRow> w2 = {page_with_body("http://a.test/5", "<h1>five</h1>")};
  NodeBodiesWriter(dir.str(), "w1").keep(w1);
  NodeBodiesWriter(dir.str(), "w2").keep(w2);
  PageRow two = page_with_body("http://a.test/2", "<h1>two</h1>");
  two.body = {};
  {
    CrawlStore store(db.str());
    store.record_page(w1[0]);
    store.record_page(two);
    store.record_page(page_with_body("http://a.test/3", "<h1>three</h1>"));
    store.record_page(w1[1]);
    store.record_page(w2[0]);
    store.flush();
  }
  // Another file in the directory is none of the reader's business.
  std::ofstream(dir.path("notes.txt")) << "not a database";

  SECTION("without the nodes' directory, only the database's own") {
    KeptPages pages(db.str(), KeptPages::Access::read);
    const auto batch = pages.next_batch(0, 10, false);
    REQUIRE(batch.size() == 1);
    CHECK(batch[0].url == "http://a.test/3");
    CHECK(pages.pages_without_body() == 4);
  }
  SECTION("with it, every page whose body some file holds, in page order") {
    KeptPages pages(db.str(), KeptPages::Access::read, dir.str());
    const auto batch = pages.next_batch(0, 10, false);
    REQUIRE(batch.size() == 4);
    CHECK(batch[0].url == "http://a.test/1");
    CHECK(body_of(batch[0]) == "<h1>one</h1>");
    CHECK(batch[1].url == "http://a.test/3");
    CHECK(body_of(batch[1]) == "<h1>three</h1>");
    CHECK(body_of(batch[2]) == "<h1>four</h1>");
    CHECK(body_of(batch[3]) == "<h1>five</h1>");
    CHECK(pages.pages_without_body() == 1);
    // A batch passes over the page no file holds and still fills up.
    const auto first_two = pages.next_batch(0, 2, false);
    REQUIRE(first_two.size() == 2);
    CHECK(first_two[1].url == "http://a.test/3");
    const auto next_two = pages.next_batch(first_two[1].page_id, 2, false);
    REQUIRE(next_two.size() == 2);
    CHECK(next_two[0].url == "http://a.test/4");
    CHECK(pages.next_batch(next_two[1].page_id, 2, false).empty());
    const auto five = pages.find("http://a.test/5");
    REQUIRE(five);
    CHECK(body_of(*five) == "<h1>five</h1>");
    const auto page_two = pages.find("http://a.test/2");
    REQUIRE(page_two);
    CHECK(page_two->body.encoding.empty());
  }
}

TEST_CASE("node bodies: a file that is not a bodies file is refused by name", "[store][node_bodies]") {
  TempDir dir("node_bodies");
  std::filesystem::create_directories(dir.str());
  {
    SQLite::Database other(node_bodies_path(dir.str(), "w9"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE notes(x)");
  }
  try {
    NodeBodiesWriter writer(dir.str(), "w9");
    FAIL("a foreign database was written to");
  } catch (const StoreError& e) {
    CHECK(std::string{e.what()}.find("actorcrawl-bodies-w9.db") != std::string::npos);
    CHECK(std::string{e.what()}.find("not a bodies file") != std::string::npos);
  }
  try {
    NodeBodiesReader reader(dir.str());
    FAIL("a foreign database was read");
  } catch (const StoreError& e) {
    CHECK(std::string{e.what()}.find("not a bodies file") != std::string::npos);
  }
  std::filesystem::remove(node_bodies_path(dir.str(), "w9"));
  std::ofstream(node_bodies_path(dir.str(), "w8")) << "plain text, not SQLite at all, and long enough to have a header";
  CHECK_THROWS_AS(NodeBodiesReader(dir.str()), StoreError);
  // A directory that is not there holds no files; "" is none.
  CHECK(NodeBodiesReader(dir.path("absent")).empty());
  CHECK(NodeBodiesReader("").empty());
  // A bodies directory that cannot be made (a file is in the way).
  std::ofstream(dir.path("a-file")) << "x";
  CHECK_THROWS_AS(NodeBodiesWriter(dir.path("a-file/sub"), "w1"), StoreError);
}
